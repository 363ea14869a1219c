"""In-place variants and ``out=`` against PyTorch: values, gradients, autograd's
refusals, resizing (skipped without torch)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402

UNARY = """sin cos tan exp log log2 log10 sqrt abs neg negative sigmoid tanh sinh cosh asin acos
atan floor ceil round trunc frac sign reciprocal square rsqrt expm1 log1p erf erfc lgamma
digamma absolute fix arcsin arccos arctan""".split()
BINARY = """add sub mul div pow remainder fmod atan2 subtract multiply divide true_divide
arctan2 float_power""".split()
COMPARE = "eq ne lt le gt ge less greater not_equal less_equal greater_equal".split()


def run_both(fn: Any) -> tuple:
    out = []
    for t in (real_torch, ftorch):
        try:
            out.append(fn(t))
        except Exception as e:  # noqa: BLE001  (the exception is the result compared)
            out.append((type(e).__name__, str(e)))
    return tuple(out)


def close(r: Any, f: Any) -> None:
    if isinstance(r, tuple) and isinstance(r[0], str):
        assert r == f
        return
    np.testing.assert_allclose(np.asarray(f, dtype=float), np.asarray(r, dtype=float),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", UNARY)
def test_unary_inplace_value_and_gradient(name):
    def run(t):
        x = t.tensor([0.3, 0.6, 0.9], requires_grad=True)
        y = x * 1
        r = getattr(y, name + "_")()
        assert r is y
        y.sum().backward()
        return y.tolist() + x.grad.tolist()
    close(*run_both(run))


@pytest.mark.parametrize("name", BINARY)
def test_binary_inplace_value_and_gradient(name):
    def run(t):
        x = t.tensor([0.5, 1.5, 2.5], dtype=t.float64, requires_grad=True)
        y = x * 1
        getattr(y, name + "_")(t.tensor([2.0, 0.5, 1.5], dtype=t.float64))
        y.sum().backward()
        return y.tolist() + x.grad.tolist()
    close(*run_both(run))


@pytest.mark.parametrize("name", COMPARE)
def test_comparison_inplace_keeps_dtype(name):
    def run(t):
        y = t.tensor([1.0, 2.0, 3.0])
        getattr(y, name + "_")(t.tensor([1.0, 3.0, 2.0]))
        return y.tolist(), str(y.dtype)[-7:]
    r, f = run_both(run)
    assert r == f


@pytest.mark.parametrize("case", [
    lambda t: t.ones(2, 3).t_().shape,
    lambda t: t.ones(2, 3).transpose_(0, 1).shape,
    lambda t: t.ones(2, 3).unsqueeze_(1).shape,
    lambda t: t.ones(2, 1, 3).squeeze_().shape,
    lambda t: t.ones(2, 1, 3).squeeze_(1).shape,
    lambda t: t.ones(2, 3).swapaxes_(0, 1).shape,
    lambda t: t.tensor([5, 3]).bitwise_and_(t.tensor([1, 1])).tolist(),
    lambda t: t.tensor([1.0, 2.0]).clamp_(1.5).tolist(),
    lambda t: t.tensor([[1.0, 2.0], [3.0, 4.0]]).tril_().tolist(),
    lambda t: t.zeros(3).fill_(2.0).zero_().tolist(),
    lambda t: t.zeros(3).copy_(t.tensor([1, 2, 3])).tolist(),
    lambda t: t.ones(2, requires_grad=True).sin_(),
    lambda t: t.ones(2, requires_grad=True).unsqueeze_(0),
    lambda t: t.ones(2).float_power_(2),
])
def test_inplace_results_and_refusals(case):
    r, f = run_both(case)
    assert (tuple(r) if isinstance(r, real_torch.Size) else r) == (
        tuple(f) if isinstance(f, ftorch.Size) else f)


def test_inplace_view_keeps_the_gradient_and_bumps_version():
    def run(t):
        x = t.arange(6.0).reshape(2, 3).requires_grad_()
        y = x * 2
        v = y._version
        y.t_()
        (y * t.arange(6.0).reshape(3, 2)).sum().backward()
        return y._version > v, x.grad.tolist()
    r, f = run_both(run)
    assert r == f


def _out_case(t: Any, name: str) -> Any:
    a = t.tensor([[1.0, 2.0], [3.0, 4.0]])
    b = t.tensor([[0.5, -1.0], [2.0, 1.0]])
    calls = {
        "add": lambda o: t.add(a, b, out=o), "sub": lambda o: t.sub(a, b, out=o),
        "mul": lambda o: t.mul(a, b, out=o), "div": lambda o: t.div(a, b, out=o),
        "matmul": lambda o: t.matmul(a, b, out=o), "mm": lambda o: t.mm(a, b, out=o),
        "cat": lambda o: t.cat([a, b], out=o), "stack": lambda o: t.stack([a, b], 1, out=o),
        "sum": lambda o: t.sum(a, 0, out=o), "mean": lambda o: t.mean(a, 1, out=o),
        "maximum": lambda o: t.maximum(a, b, out=o), "clamp": lambda o: t.clamp(a, 2, out=o),
        "exp": lambda o: t.exp(a, out=o), "where": lambda o: t.where(a > 2, a, b, out=o),
        "zeros": lambda o: t.zeros(2, 2, out=o), "ones": lambda o: t.ones(3, out=o),
        "full": lambda o: t.full((2,), 7.0, out=o), "arange": lambda o: t.arange(4.0, out=o),
        "eye": lambda o: t.eye(2, out=o), "linspace": lambda o: t.linspace(0, 1, 3, out=o),
        "tril": lambda o: t.tril(a, out=o), "cumsum": lambda o: t.cumsum(a, 0, out=o),
        "pow": lambda o: t.pow(a, 2, out=o), "amax": lambda o: t.amax(a, 1, out=o),
    }
    return calls[name]


OUT_NAMES = """add sub mul div matmul mm cat stack sum mean maximum clamp exp where zeros ones
full arange eye linspace tril cumsum pow amax""".split()


@pytest.mark.parametrize("size", ["same", "empty"])
@pytest.mark.parametrize("name", OUT_NAMES)
def test_out_is_written_and_returned(name, size):
    def run(t):
        ref = _out_case(t, name)(None)
        o = t.empty(ref.shape if size == "same" else 0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            res = _out_case(t, name)(o)
        return res is o, o.tolist(), tuple(o.shape)
    r, f = run_both(run)
    assert r[0] and f[0] and r[2] == f[2]
    close(r[1], f[1])


def test_out_resize_warns_and_tuple_outs():
    for t in (real_torch, ftorch):
        o = t.empty(5)
        with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
            t.add(t.ones(2), 1, out=o)
        assert o.tolist() == [2.0, 2.0]
        v, i = t.empty(0), t.empty(0, dtype=t.long)
        res = t.sort(t.tensor([3.0, 1.0, 2.0]), out=(v, i))
        assert res[0] is v and v.tolist() == [1.0, 2.0, 3.0] and i.tolist() == [1, 2, 0]


def test_out_refuses_tensors_that_require_grad():
    r, f = run_both(lambda t: t.matmul(t.ones(2, 2, requires_grad=True), t.ones(2, 2),
                                       out=t.empty(2, 2)))
    assert r == f


@pytest.mark.parametrize("case", [
    lambda t: (t.tensor([-1.0, 2.0]), lambda x: t.celu_(x, 0.5)),
    lambda t: (t.tensor([-1.0, 2.0]), t.selu_),
    lambda t: (t.tensor([0.5, 2.0]), lambda x: t.threshold_(x, 1.0, -1.0)),
    lambda t: (t.tensor([-3.0, 1.0]), lambda x: t.rrelu_(x, 0.25, 0.25)),
    lambda t: (t.tensor([-3.0, 1.0]), lambda x: t.dropout_(x, 0.5, False)),
    lambda t: (t.tensor([-3.0, 1.0]), lambda x: t.alpha_dropout_(x, 0.5, False)),
    lambda t: (t.tensor([[-3.0, 1.0]]), lambda x: t.feature_alpha_dropout_(x, 0.5, False)),
    lambda t: (t.tensor([1.0, 2.0]), lambda x: t.addmv_(x, t.eye(2), t.tensor([3.0, 4.0]))),
    lambda t: (t.arange(6.0), lambda x: t.as_strided_(x, (2, 2), (1, 2), 1)),
    lambda t: (t.tensor([1, 8]), lambda x: x.bitwise_left_shift_(t.tensor([2, 1]))),
    lambda t: (t.tensor([1, 8]), lambda x: x.bitwise_right_shift_(2)),
])
def test_more_inplace_forms_write_their_input(case):
    """``torch.celu_``, ``selu_``, ``threshold_``, ``rrelu_``, the dropouts' in-place
    forms, ``addmv_``, ``as_strided_`` and the shifts' in-place methods: PyTorch's
    values, written into the input itself (returned, its version bumped as PyTorch
    bumps it: not by a dropout that is not training)."""
    def run(t):
        x, f = case(t)
        v = x._version
        assert f(x) is x
        return x.tolist(), tuple(x.shape), x.stride(), x._version - v
    r, f = run_both(run)
    assert r[1:] == f[1:]
    close(r[0], f[0])


@pytest.mark.parametrize("name", ["celu_", "selu_"])
def test_inplace_activation_gradients(name):
    """The in-place activations' gradients through a non-leaf, as PyTorch's."""
    def run(t):
        x = t.tensor([-1.0, 0.5, 2.0], requires_grad=True)
        y = x * 1
        getattr(t, name)(y)
        y.sum().backward()
        return y.tolist() + x.grad.tolist()
    close(*run_both(run))


def test_every_inplace_name_of_an_existing_operation_exists():
    """Each in-place method (``x.op_``) and in-place function (``torch.op_``) that
    PyTorch has for an operation the facade has is there too."""
    def missing(real: Any, ours: Any) -> list:
        return [n for n in dir(real) if n.endswith("_") and not n.startswith("_")
                and hasattr(ours, n[:-1]) and not hasattr(ours, n)]
    assert missing(real_torch.Tensor, ftorch.Tensor) == []
    assert missing(real_torch, ftorch) == []
