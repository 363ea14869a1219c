"""Differential tests: the facade against the installed PyTorch (skipped without it).

The same code runs with ``real_torch`` (PyTorch) and ``ftorch`` (fad.torch); values,
gradients, ``grad_fn`` names, reprs, dtypes and error messages must agree.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402

LIBS = (real_torch, ftorch)


def to_np(t: Any) -> Any:
    if t is None:
        return None
    return np.asarray(t.detach().tolist(), dtype=np.float64)


def names(t: Any) -> Any:
    """grad_fn name and the names of its next functions."""
    fn = t.grad_fn
    if fn is None:
        return None
    nxt = tuple(None if n is None else type(n).__name__ for n, _ in fn.next_functions)
    return type(fn).__name__, nxt


# ====================================================================== op table
# name -> f(T, x, y): x, y float32 tensors of shape (3, 4) requiring grad
OPS: dict[str, Callable] = {
    "add": lambda T, x, y: x + y, "add_scalar": lambda T, x, y: x + 2,
    "radd": lambda T, x, y: 2 + x, "sub": lambda T, x, y: x - y,
    "rsub": lambda T, x, y: 10 - x, "mul": lambda T, x, y: x * y,
    "rmul": lambda T, x, y: 3 * x, "div": lambda T, x, y: x / (y.abs() + 1),
    "rdiv": lambda T, x, y: 1 / (x.abs() + 1), "neg": lambda T, x, y: -x,
    "pow2": lambda T, x, y: x ** 2, "pow_t": lambda T, x, y: x.abs() ** y,
    "rpow": lambda T, x, y: 2 ** x, "exp": lambda T, x, y: x.exp(),
    "log": lambda T, x, y: (x.abs() + 0.1).log(), "sqrt": lambda T, x, y: (x.abs() + 0.1).sqrt(),
    "abs": lambda T, x, y: x.abs(), "relu": lambda T, x, y: x.relu(),
    "sigmoid": lambda T, x, y: T.sigmoid(x), "tanh": lambda T, x, y: T.tanh(x),
    "sin": lambda T, x, y: T.sin(x), "cos": lambda T, x, y: x.cos(),
    "clamp": lambda T, x, y: x.clamp(-0.5, 0.5), "clamp_min": lambda T, x, y: x.clamp(min=0),
    "sum": lambda T, x, y: x.sum(), "sum_dim": lambda T, x, y: x.sum(1),
    "sum_keep": lambda T, x, y: x.sum(0, keepdim=True), "mean": lambda T, x, y: x.mean(),
    "mean_dim": lambda T, x, y: x.mean(-1), "max": lambda T, x, y: x.max(),
    "max_dim": lambda T, x, y: x.max(1).values, "min_dim": lambda T, x, y: x.min(0)[0],
    "amax": lambda T, x, y: x.amax(1), "var": lambda T, x, y: x.var(),
    "std_dim": lambda T, x, y: x.std(0), "norm": lambda T, x, y: x.norm(),
    "logsumexp": lambda T, x, y: x.logsumexp(1), "prod": lambda T, x, y: x.prod(1),
    "cumsum": lambda T, x, y: x.cumsum(1),
    "view": lambda T, x, y: x.view(12), "reshape": lambda T, x, y: x.reshape(2, -1),
    "flatten": lambda T, x, y: x.flatten(), "T": lambda T, x, y: x.T,
    "t": lambda T, x, y: x.t(), "permute": lambda T, x, y: x.permute(1, 0),
    "transpose": lambda T, x, y: x.transpose(0, 1), "unsqueeze": lambda T, x, y: x.unsqueeze(1),
    "squeeze": lambda T, x, y: x.unsqueeze(0).squeeze(0),
    "expand": lambda T, x, y: x[:1].expand(5, 4), "repeat": lambda T, x, y: x.repeat(2, 1),
    "select": lambda T, x, y: x[1], "slice": lambda T, x, y: x[1:],
    "select_slice": lambda T, x, y: x[0, 1:], "slice_select": lambda T, x, y: x[1:, 0],
    "none_index": lambda T, x, y: x[None], "index": lambda T, x, y: x[[0, 2]],
    "mask": lambda T, x, y: x[x > 0], "cat": lambda T, x, y: T.cat([x, y]),
    "cat1": lambda T, x, y: T.cat([x, y], 1), "stack": lambda T, x, y: T.stack([x, y]),
    "where": lambda T, x, y: T.where(x > 0, x, y), "split": lambda T, x, y: x.split(2)[1],
    "chunk": lambda T, x, y: x.chunk(2, 1)[0], "unbind": lambda T, x, y: x.unbind(1)[2],
    "mm": lambda T, x, y: x @ y.T, "matmul_vec": lambda T, x, y: x @ y[0],
    "dot": lambda T, x, y: x[0] @ y[0], "bmm": lambda T, x, y: T.bmm(x[None], y.T[None]),
    "softmax": lambda T, x, y: x.softmax(1), "log_softmax": lambda T, x, y: x.log_softmax(0),
    "gather": lambda T, x, y: x.gather(1, T.tensor([[0], [3], [1]])),
    "index_select": lambda T, x, y: x.index_select(1, T.tensor([0, 2])),
    "masked_fill": lambda T, x, y: x.masked_fill(y > 0, 0.5), "tril": lambda T, x, y: x.tril(),
    "flip": lambda T, x, y: x.flip(0), "roll": lambda T, x, y: x.roll(1, 1),
    "narrow": lambda T, x, y: x.narrow(1, 1, 2), "clone": lambda T, x, y: x.clone(),
    "double": lambda T, x, y: x.double(), "maximum": lambda T, x, y: T.maximum(x, y),
    "atan2": lambda T, x, y: T.atan2(x, y), "sort": lambda T, x, y: x.sort(1).values,
    "topk": lambda T, x, y: x.topk(2).values, "trace": lambda T, x, y: x[:, :3].trace(),
    "einsum": lambda T, x, y: T.einsum("ij,kj->ik", x, y),
    "mse": lambda T, x, y: T.nn.functional.mse_loss(x, y),
    "l1": lambda T, x, y: T.nn.functional.l1_loss(x, y),
    "smooth_l1": lambda T, x, y: T.nn.functional.smooth_l1_loss(x, y),
    "huber": lambda T, x, y: T.nn.functional.huber_loss(x, y, delta=0.5),
    "bce_logits": lambda T, x, y: T.nn.functional.binary_cross_entropy_with_logits(
        x, y.sigmoid().detach()),
    "bce_logits_pw": lambda T, x, y: T.nn.functional.binary_cross_entropy_with_logits(
        x, y.sigmoid().detach(), pos_weight=T.tensor([1.0, 2.0, 0.5, 3.0])),
    "bce": lambda T, x, y: T.nn.functional.binary_cross_entropy(x.sigmoid(),
                                                                y.sigmoid().detach()),
    "cross_entropy": lambda T, x, y: T.nn.functional.cross_entropy(x, T.tensor([0, 3, 1])),
    "cross_entropy_w": lambda T, x, y: T.nn.functional.cross_entropy(
        x, T.tensor([0, 3, 1]), weight=T.tensor([1.0, 2.0, 3.0, 4.0])),
    "cross_entropy_ignore": lambda T, x, y: T.nn.functional.cross_entropy(
        x, T.tensor([0, -100, 1])),
    "cross_entropy_ls": lambda T, x, y: T.nn.functional.cross_entropy(
        x, T.tensor([0, 3, 1]), label_smoothing=0.2),
    "cross_entropy_soft": lambda T, x, y: T.nn.functional.cross_entropy(x, y.softmax(1).detach()),
    "nll": lambda T, x, y: T.nn.functional.nll_loss(x.log_softmax(1), T.tensor([2, 2, 0]),
                                                   reduction="sum"),
    "linear": lambda T, x, y: T.nn.functional.linear(x, y, y[:, 0]),
    "linear_nobias": lambda T, x, y: T.nn.functional.linear(x, y),
    "gelu": lambda T, x, y: T.nn.functional.gelu(x),
    "gelu_tanh": lambda T, x, y: T.nn.functional.gelu(x, approximate="tanh"),
    "silu": lambda T, x, y: T.nn.functional.silu(x),
    "softplus": lambda T, x, y: T.nn.functional.softplus(x * 10),
    "leaky_relu": lambda T, x, y: T.nn.functional.leaky_relu(x, 0.1),
    "elu": lambda T, x, y: T.nn.functional.elu(x),
    "logsigmoid": lambda T, x, y: T.nn.functional.logsigmoid(x),
    "hardtanh": lambda T, x, y: T.nn.functional.hardtanh(x),
    "pad": lambda T, x, y: T.nn.functional.pad(x, (1, 2)),
    "kl_div": lambda T, x, y: T.nn.functional.kl_div(x.log_softmax(1), y.softmax(1).detach(),
                                                     reduction="batchmean"),
    "normalize": lambda T, x, y: T.nn.functional.normalize(x),
    "cosine": lambda T, x, y: T.nn.functional.cosine_similarity(x, y),
    "addmm": lambda T, x, y: T.addmm(y[0], x[:, :3], y[:3]),
    "outer": lambda T, x, y: T.outer(x[0], y[0]),
    "inplace_add": lambda T, x, y: (x * 1).add_(y),
    "inplace_exp": lambda T, x, y: (x * 1).exp_(),
    "setitem": lambda T, x, y: _setitem(x, y),
    "erf": lambda T, x, y: T.erf(x), "erfc": lambda T, x, y: x.erfc(),
    "erfinv": lambda T, x, y: T.erfinv(x.tanh() * 0.9),
    "lgamma": lambda T, x, y: (x.abs() + 0.2).lgamma(),
    "digamma": lambda T, x, y: T.digamma(x.abs() + 0.2),
    "asinh": lambda T, x, y: T.asinh(x), "acosh": lambda T, x, y: (x.abs() + 1.1).acosh(),
    "atanh": lambda T, x, y: T.arctanh(x.tanh() * 0.9), "deg2rad": lambda T, x, y: x.deg2rad(),
    "rad2deg": lambda T, x, y: T.rad2deg(x), "sinc": lambda T, x, y: T.sinc(x),
    "i0": lambda T, x, y: T.i0(x), "angle": lambda T, x, y: T.angle(x) + x,
    "logit": lambda T, x, y: T.logit(x.sigmoid()),
    "logit_eps": lambda T, x, y: x.sigmoid().logit(eps=0.3),
    "hypot": lambda T, x, y: T.hypot(x, y), "logaddexp": lambda T, x, y: T.logaddexp(x, y),
    "logaddexp2": lambda T, x, y: x.logaddexp2(y), "copysign": lambda T, x, y: T.copysign(x, y),
    "xlogy": lambda T, x, y: T.xlogy(x, y.abs() + 0.1), "ldexp": lambda T, x, y: T.ldexp(x, y),
    "fmax": lambda T, x, y: T.fmax(x, T.where(y > 0, y, T.nan)),
    "fmin": lambda T, x, y: x.fmin(y),
    "nan_to_num": lambda T, x, y: T.nan_to_num(x.log(), nan=0.5, neginf=-3.0),
    "lerp": lambda T, x, y: T.lerp(x, y, 0.7), "lerp_t": lambda T, x, y: x.lerp(y, y.sigmoid()),
    "addcmul": lambda T, x, y: T.addcmul(x, x, y, value=0.5),
    "addcdiv": lambda T, x, y: x.addcdiv(x, y.abs() + 1, value=2),
    "ravel": lambda T, x, y: x.t().ravel(), "ravel_view": lambda T, x, y: T.ravel(x),
    "inplace_sinc": lambda T, x, y: (x * 1).sinc_(),
    "inplace_lerp": lambda T, x, y: (x * 1).lerp_(y, 0.25),
    "inplace_addcmul": lambda T, x, y: (x * 1).addcmul_(x, y),
}


def _setitem(x: Any, y: Any) -> Any:
    z = x * 1
    z[1] = y[0] * 2
    return z


# ops whose gradient PyTorch defines by convention at a point where our inputs may land
_NAME_ONLY: set[str] = set()
# grad_fn names that differ on purpose (PyTorch decomposes these into several nodes)
_NAME_EXEMPT = {"einsum", "normalize", "cosine", "kl_div", "cross_entropy_ls",
                "cross_entropy_soft", "l1", "linear_nobias", "outer", "matmul_vec", "bce_logits_pw"}


def _inputs(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    y = rng.standard_normal((3, 4)).astype(np.float32)
    # keep away from kinks and ties where conventions differ
    x = np.where(np.abs(x) < 0.05, 0.3, x).astype(np.float32)
    return x, y


def _run(T: Any, f: Callable, x0: np.ndarray, y0: np.ndarray) -> dict:
    x = T.tensor(x0, requires_grad=True)
    y = T.tensor(y0, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = f(T, x, y)
        res = {"value": to_np(out), "dtype": str(out.dtype), "shape": tuple(out.shape),
               "names": names(out)}
        out.sum().backward() if out.requires_grad else None
    res["gx"], res["gy"] = to_np(x.grad), to_np(y.grad)
    return res


@pytest.mark.parametrize("name", sorted(OPS))
def test_op_matches_pytorch(name: str) -> None:
    f = OPS[name]
    for seed in (0, 1):
        x0, y0 = _inputs(seed)
        a, b = _run(real_torch, f, x0, y0), _run(ftorch, f, x0, y0)
        assert a["shape"] == b["shape"] and a["dtype"] == b["dtype"], name
        np.testing.assert_allclose(b["value"], a["value"], rtol=2e-4, atol=2e-5)
        for g in ("gx", "gy"):
            if a[g] is None:
                assert b[g] is None or not np.any(b[g]), (name, g)
            else:
                assert b[g] is not None, (name, g)
                np.testing.assert_allclose(b[g], a[g], rtol=2e-4, atol=3e-5, err_msg=g)
        if name not in _NAME_EXEMPT:
            assert b["names"] == a["names"], (name, a["names"], b["names"])


# ====================================================================== promotion
_DTYPES = ["float32", "float64", "int64", "int32", "bool"]
_SCALARS = [2, 2.5, True]


@pytest.mark.parametrize("da", _DTYPES)
@pytest.mark.parametrize("db", _DTYPES + ["scalar_int", "scalar_float", "scalar_bool",
                                          "zero_dim_f64", "zero_dim_i64"])
def test_result_dtype_matches_pytorch(da: str, db: str) -> None:
    def make(T: Any, spec: str) -> Any:
        if spec.startswith("scalar"):
            return {"scalar_int": 2, "scalar_float": 2.5, "scalar_bool": True}[spec]
        if spec.startswith("zero_dim"):
            return T.tensor(1, dtype=T.float64 if spec.endswith("f64") else T.int64)
        return T.ones(3, dtype=getattr(T, spec))

    for op in ("__add__", "__mul__", "__truediv__", "__lt__", "__radd__"):
        got = []
        for T in LIBS:
            a, b = make(T, da), make(T, db)
            try:
                got.append(str(getattr(a, op)(b).dtype))
            except RuntimeError as e:  # e.g. bool - bool
                got.append(type(e).__name__)
        assert got[0] == got[1], (op, da, db, got)


@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "int64", "bool"])
def test_integer_products_and_cumulative_sums_are_int64_as_in_pytorch(dtype: str) -> None:
    got = []
    for T in LIBS:
        x = T.tensor([[3, 2, 5], [0, 1, 1]]).to(getattr(T, dtype))
        got.append([(str(y.dtype), y.tolist()) for y in (
            x.prod(), x.prod(1), T.nansum(x), T.nansum(x, 1), T.cumsum(x, 1))])
    assert got[0] == got[1], got


# ====================================================================== reprs
@given(st.lists(st.floats(-1e3, 1e3, allow_nan=False, width=32), min_size=0, max_size=12),
       st.sampled_from([(), (-1,), (2, -1), (1, -1, 1)]), st.booleans())
def test_repr_matches_pytorch(values, shape, req) -> None:
    a = np.array(values, dtype=np.float32)
    if shape and a.size and shape != (-1,):
        if a.size % 2:
            a = a[:-1]
        if a.size == 0:
            return
    out = []
    for T in LIBS:
        t = T.tensor(a.reshape(shape) if a.size and shape else a, requires_grad=req)
        out.append((repr(t), repr(t * 2) if req else str(t)))
    assert out[0] == out[1]


@pytest.mark.parametrize("make", [
    lambda T: T.arange(6).reshape(2, 3), lambda T: T.tensor([1e-8, 1.0]),
    lambda T: T.tensor([[1.5, -2.25], [1e5, 3.0]]), lambda T: T.tensor([0.1, 0.2]) * 1e-3,
    lambda T: T.zeros(2, 3, dtype=T.float64), lambda T: T.tensor([float("inf"), -1.0]),
    lambda T: T.tensor([1, -20, 300], dtype=T.int32), lambda T: T.linspace(0, 1, 1500),
    lambda T: T.arange(2000).reshape(40, 50), lambda T: T.tensor(1.5, requires_grad=True) * 1,
    lambda T: T.ones(2, 2, dtype=T.float64, requires_grad=True).sum(1),
    lambda T: T.tensor([[True, False]]), lambda T: T.full((2, 70), 0.123456),
    lambda T: T.tensor([123456789.0, 0.5]), lambda T: T.tensor([-0.0, 0.0]),
])
def test_special_reprs_match_pytorch(make: Callable) -> None:
    assert repr(make(ftorch)) == repr(make(real_torch))


# ====================================================================== errors
ERRORS: dict[str, Callable] = {
    "nonscalar": lambda T: (T.ones(3, requires_grad=True) * 2).backward(),
    "no_grad_fn": lambda T: T.ones(2).sum().backward(),
    "int_requires_grad": lambda T: T.tensor([1, 2], requires_grad=True),
    "int_requires_grad_set": lambda T: setattr(T.tensor([1, 2]), "requires_grad", True),
    "nonleaf_set": lambda T: setattr(T.ones(1, requires_grad=True) * 2, "requires_grad", False),
    "inplace_leaf": lambda T: T.ones(1, requires_grad=True).add_(1),
    "broadcast": lambda T: T.ones(2) + T.ones(3),
    "broadcast2": lambda T: T.ones(2, 3) * T.ones(4, 1, 2),
    "mm": lambda T: T.ones(2, 3) @ T.ones(2, 3),
    "view": lambda T: T.ones(3).view(4),
    "grad_shape": lambda T: (T.ones(3, requires_grad=True) * 2).backward(T.ones(2)),
    "numpy_req": lambda T: T.ones(1, requires_grad=True).numpy(),
    "item": lambda T: T.ones(3).item(),
    "unused": lambda T: T.autograd.grad((T.ones(1, requires_grad=True) * 2).sum(),
                                        [T.ones(1, requires_grad=True)]),
    "grad_no_req": lambda T: T.autograd.grad((T.ones(1, requires_grad=True) * 2).sum(),
                                             [T.ones(1)]),
    "retain_no_req": lambda T: T.ones(1).retain_grad(),
    "assign_grad": lambda T: setattr(T.ones(3, requires_grad=True), "grad", T.ones(2)),
    "hook_no_req": lambda T: T.ones(1).register_hook(lambda g: g),
    "int_mean": lambda T: T.tensor([1, 2]).mean(),
    "dim_range": lambda T: T.ones(3).sum(2),
    "cat": lambda T: T.cat([T.ones(2, 3), T.ones(2, 2)]),
    "stack": lambda T: T.stack([T.ones(2), T.ones(3)]),
    "expand": lambda T: T.ones(3).expand(4),
    "dot": lambda T: T.dot(T.ones(2, 2), T.ones(2)),
    "inplace_cast": lambda T: T.tensor([1, 2]).add_(1.5),
    "inplace_shape": lambda T: T.ones(2).add_(T.ones(2, 2)),
    "bool_ambiguous": lambda T: bool(T.ones(2)),
    "clamp_none": lambda T: T.ones(2).clamp(),
    "second_backward": lambda T: _twice(T),
    "version": lambda T: _version(T),
}


def _twice(T: Any) -> None:
    y = (T.ones(2, requires_grad=True) * T.ones(2)).sum()
    y.backward()
    y.backward()


def _version(T: Any) -> None:
    w = T.ones(2, requires_grad=True)
    loss = (w * w).sum()
    with T.no_grad():
        w.add_(1)
    loss.backward()


def _normalise(msg: str) -> str:
    msg = re.sub(r"\(Triggered internally.*", "", msg, flags=re.S)
    msg = re.sub(r"torch\.\w*Tensor \[", "[", msg)  # version message names the type
    return msg.split("Hint:")[0].strip()


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_matches_pytorch(name: str) -> None:
    got = []
    for T in LIBS:
        with pytest.raises(Exception) as info:
            ERRORS[name](T)
        got.append((info.type.__mro__, _normalise(str(info.value))))
    (real_mro, real_msg), (f_mro, f_msg) = got
    assert real_mro[0] in f_mro or real_mro[0].__name__ == f_mro[0].__name__, name
    assert f_msg == real_msg, name


# ====================================================================== semantics
def _semantics(T: Any) -> dict:
    out: dict = {}
    a = T.tensor([1.0, 2.0], requires_grad=True)
    b = a + 1
    b.sum().backward()
    b.sum().backward()  # AddBackward0 / SumBackward0 save nothing: works twice
    out["twice_linear"] = a.grad.tolist()
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x.register_hook(lambda g: g * 2)
    z = x * x
    z.retain_grad()
    z.register_hook(lambda g: g + 1)
    z.sum().backward(retain_graph=True)
    out["hooks"] = (x.grad.tolist(), z.grad.tolist())
    h.remove()
    z.sum().backward()
    out["after_remove"] = x.grad.tolist()
    x.grad = None
    (g,) = T.autograd.grad((x ** 3).sum(), x, create_graph=True)
    (gg,) = T.autograd.grad(g.sum(), x)
    out["second"] = (g.tolist(), gg.tolist(), g.requires_grad)
    y = x * 2
    y.add_(1)
    out["inplace_name"] = type(y.grad_fn).__name__
    y.sum().backward()
    out["inplace_grad"] = x.grad.tolist()
    m = T.zeros(3)
    m += x
    out["leaf_iadd"] = (m.is_leaf, m.requires_grad, type(m.grad_fn).__name__)
    with T.no_grad():
        n = x * 2
    out["no_grad"] = (n.requires_grad, n.grad_fn is None)
    w = T.ones(2, requires_grad=True)
    (w * 3).sum().backward(inputs=[w])
    out["inputs"] = w.grad.tolist()
    k = T.ones(2, requires_grad=True)
    q = k.detach()
    out["detach"] = (q.requires_grad, q.is_leaf)
    e = T.ones(2, requires_grad=True)
    f = (e * e).sum()
    with T.no_grad():
        f.backward()
    out["backward_in_no_grad"] = e.grad.tolist()
    r = T.tensor([0.0, 1.0, -1.0], requires_grad=True)
    (r.relu() + r.abs() + r.clamp(0, 1) + r.max()).sum().backward()
    out["kinks"] = r.grad.tolist()
    s = T.tensor([1.0, 3.0, 3.0], requires_grad=True)
    (s.max() + s.amax() + s.max(0).values).backward()
    out["ties"] = s.grad.tolist()
    calls: list = []
    u = T.tensor([1.0, 2.0], requires_grad=True)
    u.register_hook(lambda g: calls.append(g.tolist()))
    T.autograd.backward([(u * 2).sum(), (u ** 2).sum()])
    vv = T.tensor([1.0, 1.0], requires_grad=True)
    (gu,) = T.autograd.grad(u ** 2, u, grad_outputs=vv, create_graph=True)
    gu.sum().backward()
    out["leaf_hooks_everywhere"] = (calls, vv.grad.tolist())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, fn in enumerate((lambda t: t * t, lambda t: t * 2, lambda t: t.sin() * t)):
            zz = T.tensor([3.0, 4.0], requires_grad=True)
            fn(zz).sum().backward(create_graph=True)
            gz = zz.grad
            out[f"create_graph_grad_{i}"] = (gz.requires_grad,
                                             None if gz.grad_fn is None else
                                             type(gz.grad_fn).__name__)
    return out


def test_semantics_match_pytorch() -> None:
    got = [_semantics(T) for T in LIBS]
    for key in got[0]:
        assert got[1][key] == got[0][key], key


def test_autograd_functional_matches_pytorch() -> None:
    def run(T: Any) -> tuple:
        x = T.tensor([1.0, 2.0, 0.5])
        jac = T.autograd.functional.jacobian(lambda v: v.sin() * v.sum(), x)
        hes = T.autograd.functional.hessian(lambda v: (v ** 3).sum() * v[0], x)
        return to_np(jac), to_np(hes)

    for a, b in zip(run(real_torch), run(ftorch)):
        np.testing.assert_allclose(b, a, rtol=1e-5)


def test_custom_function_matches_pytorch() -> None:
    def run(T: Any) -> tuple:
        class Cube(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                ctx.save_for_backward(x)
                ctx.k = k
                return x ** 3 * k

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 3 * x ** 2 * ctx.k, None

        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = Cube.apply(x, 2.0)
        nm = type(y.grad_fn).__name__
        (g,) = T.autograd.grad(y.sum(), x, create_graph=True)
        g.sum().backward()
        return nm, g.tolist(), x.grad.tolist(), repr(y).split("grad_fn")[0]

    assert run(ftorch) == run(real_torch)


def test_mlp_training_matches_pytorch() -> None:
    """A small MLP trained with nn.Module + optimizer gives PyTorch's losses."""
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((16, 5)).astype(np.float32)
    ys = rng.integers(0, 3, 16)
    w1 = rng.standard_normal((8, 5)).astype(np.float32) * 0.3
    w2 = rng.standard_normal((3, 8)).astype(np.float32) * 0.3

    def train(T: Any, opt_name: str) -> list:
        model = T.nn.Sequential(T.nn.Linear(5, 8), T.nn.ReLU(), T.nn.Linear(8, 3))
        with T.no_grad():
            model[0].weight.copy_(T.tensor(w1))
            model[0].bias.zero_()
            model[2].weight.copy_(T.tensor(w2))
            model[2].bias.fill_(0.1)
        opt = getattr(T.optim, opt_name)(model.parameters(), lr=0.05)
        x, y = T.tensor(xs), T.tensor(ys)
        losses = []
        for _ in range(5):
            opt.zero_grad()
            loss = T.nn.CrossEntropyLoss()(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses

    for opt in ("SGD", "Adam", "AdamW"):
        np.testing.assert_allclose(train(ftorch, opt), train(real_torch, opt), rtol=1e-4)


SECOND_ORDER = {
    "shift": lambda x: (x + 2).sum(),
    "scale": lambda x: (x * 3).sum(),
    "difference_of_slices": lambda x: (x[1:] - x[:-1]).sum(),
    "square": lambda x: (x ** 2).sum(),
    "product_of_slices": lambda x: (x[1:] * x[:-1]).sum(),
    "rosenbrock": lambda x: (100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2).sum(),
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_gradient_of_a_gradient_is_connected_as_pytorch_s(name: str) -> None:
    """The gradient of a function linear in ``x`` does not depend on ``x`` (no
    ``grad_fn``, and differentiating it again is PyTorch's error); otherwise the
    Hessian-vector product and the gradient's graph are PyTorch's."""
    def run(T: Any) -> tuple:
        x = T.tensor([0.5, -1.0, 2.0, 0.25], dtype=T.float64, requires_grad=True)
        (g,) = T.autograd.grad(SECOND_ORDER[name](x), x, create_graph=True)
        try:
            (h,) = T.autograd.grad((g * T.tensor([1.0, -1.0, 0.5, 2.0],
                                                 dtype=T.float64)).sum(), x)
            second = h.tolist()
        except RuntimeError as e:
            second = str(e)
        return g.tolist(), g.requires_grad, g.grad_fn is None, second

    got, want = run(ftorch), run(real_torch)
    assert got[1:3] == want[1:3] and (type(got[3]) is str) == (type(want[3]) is str)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-13)
    if type(want[3]) is str:
        assert got[3] == want[3]
    else:
        np.testing.assert_allclose(got[3], want[3], rtol=1e-13)
