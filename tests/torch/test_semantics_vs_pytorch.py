"""Differential tests against the installed PyTorch (skipped without it): results
and gradients of operations whose edge cases (reductions in ``scatter``, NaN in
``xlogy``, ignored inputs, masked rows, padding rows, replayed randomness) must agree
with PyTorch's, and the errors PyTorch raises, word for word."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402

LIBS = (real_torch, ftorch)


def both(fn: Callable) -> tuple:
    """``fn(T)`` run with PyTorch and with the facade."""
    return fn(real_torch), fn(ftorch)


def to_np(t: Any) -> Any:
    """A tensor's values as a float64 NumPy array."""
    return np.asarray(t.detach().tolist(), dtype=np.float64)


def same(a: Any, b: Any, tol: float = 1e-6) -> None:
    """Equal values (NaN where the other has NaN), and equal dtypes for tensors."""
    if isinstance(a, tuple | list):
        assert len(a) == len(b)
        for u, v in zip(a, b):
            same(u, v, tol)
        return
    if a is None or b is None:
        assert a is None and b is None
        return
    if hasattr(a, "dtype") and hasattr(b, "dtype"):
        assert str(a.dtype) == str(b.dtype)
    np.testing.assert_allclose(to_np(b), to_np(a), rtol=tol, atol=tol)


def raises_same(fn: Callable, exc: type = RuntimeError) -> None:
    """PyTorch and the facade both raise ``exc`` from ``fn(T)``, with the same message."""
    msgs = []
    for T in LIBS:
        with pytest.raises(exc) as info:
            fn(T)
        msgs.append(str(info.value))
    assert msgs[1] == msgs[0]


# ------------------------------------------------------------------ scatter reduce
@pytest.mark.parametrize("reduce", ["multiply", "add"])
def test_scatter_reduce_argument(reduce: str) -> None:
    def run(T: Any) -> tuple:
        idx = T.tensor([[0, 0, 1], [2, 2, 2]])
        src = T.tensor([[2.0, 3.0, 4.0], [5.0, 6.0, 7.0]])
        a = T.ones(2, 4).scatter(1, idx, src, reduce=reduce)
        b = T.ones(2, 4).scatter(1, idx, 2.5, reduce=reduce)
        c = T.ones(2, 4)
        c.scatter_(1, idx, src, reduce=reduce)
        return a, b, c
    same(*both(run))


def test_scatter_reduce_gradient_in_input() -> None:
    def run(T: Any) -> Any:
        x = T.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        y = x * 1
        y.scatter_(0, T.tensor([0, 0, 1]), 2.0)
        (y * T.arange(4.0)).sum().backward()
        return y, x.grad
    same(*both(run))


def test_scatter_unknown_reduce_message() -> None:
    raises_same(lambda T: T.ones(3).scatter(0, T.tensor([0]), T.ones(1), reduce="mean"))


# ------------------------------------------------------------------ xlogy
def test_xlogy_values_and_gradients_at_edges() -> None:
    def run(T: Any) -> tuple:
        nan = float("nan")
        x = T.tensor([0.0, 0.0, 1.0, 0.0, 0.0, 2.0], dtype=T.float64, requires_grad=True)
        y = T.tensor([0.0, 2.0, 2.0, nan, -1.0, 0.0], dtype=T.float64, requires_grad=True)
        z = T.special.xlogy(x, y)
        z.sum().backward()
        return z, x.grad, y.grad
    same(*both(run))


def test_xlog1py_gradients_at_edges() -> None:
    def run(T: Any) -> tuple:
        x = T.tensor([0.0, 0.0, 1.0, 0.0], dtype=T.float64, requires_grad=True)
        y = T.tensor([-1.0, 2.0, 2.0, -2.0], dtype=T.float64, requires_grad=True)
        z = T.special.xlog1py(x, y)
        z.sum().backward()
        return z, x.grad, y.grad
    same(*both(run))


def test_xlogy_python_number_keeps_tensor_dtype() -> None:
    same(*both(lambda T: (T.special.xlogy(2.0, T.tensor([0.5, 1.0])),
                          T.special.xlogy(T.tensor([0.0, 1.0]), 3.0),
                          T.special.xlog1py(T.tensor([0.0, 1.0]), 3.0))))


# ------------------------------------------------------------------ beta = 0
@pytest.mark.parametrize("shape", [(2, 3, 3), (3,)])
def test_baddbmm_and_addmm_ignore_input_when_beta_is_zero(shape: tuple) -> None:
    def run(T: Any) -> tuple:
        c = T.full(shape, float("nan"), requires_grad=True)
        a = T.arange(24.0).reshape(2, 3, 4).requires_grad_()
        b = T.ones(2, 4, 3, requires_grad=True)
        y = T.baddbmm(c, a, b, beta=0, alpha=2)
        m = T.addmm(c[0] if len(shape) > 1 else c, a[0], b[0], beta=0)
        (y.sum() + m.sum()).backward()
        return y, m, c.grad, a.grad, b.grad
    same(*both(run))


# ------------------------------------------------------------------ attention
@pytest.mark.parametrize("kind", ["bool", "float"])
def test_attention_with_a_fully_masked_query_gives_zero(kind: str) -> None:
    rng = np.random.default_rng(0)
    qkv = [rng.standard_normal((2, 3, 4)).astype(np.float32) for _ in range(3)]

    def run(T: Any) -> tuple:
        q, k, v = (T.tensor(a, requires_grad=True) for a in qkv)
        keep = T.tensor([[True, False, True], [False, False, False], [True, True, True]])
        mask = keep if kind == "bool" else T.zeros(3, 3).masked_fill(~keep, float("-inf"))
        y = T.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        (y * T.arange(4.0)).sum().backward()
        return y, q.grad, k.grad, v.grad
    same(*both(run), tol=1e-5)


# ------------------------------------------------------------------ checkpoint
@pytest.mark.parametrize("reentrant", [False, True])
def test_checkpoint_replays_the_random_state(reentrant: bool) -> None:
    """Dropout inside a checkpoint: the recomputation draws the same mask as the
    forward, so the gradient is zero exactly where the output is (as PyTorch's)."""
    for T in LIBS:
        T.manual_seed(0)
        x = T.ones(1000, requires_grad=True)
        y = T.utils.checkpoint.checkpoint(lambda a: T.nn.functional.dropout(a, 0.5) * a, x,
                                          use_reentrant=reentrant)
        y.sum().backward()
        assert bool(((x.grad != 0) == (y != 0)).all())
        net = T.nn.Sequential(T.nn.Linear(50, 50), T.nn.Dropout(0.5))
        x = T.ones(4, 50, requires_grad=True)
        h = T.utils.checkpoint.checkpoint(net, x, use_reentrant=reentrant)
        h.sum().backward()
        kept = (h != 0).to(T.float32) * 2  # dropout's mask, scaled by 1 / (1 - p)
        assert np.allclose(to_np(net[0].weight.grad), to_np(kept.t() @ x))


def test_checkpoint_of_closures_over_modules_and_tensors() -> None:
    rng = np.random.default_rng(1)
    w0, b0, v0 = rng.standard_normal((2, 3)), rng.standard_normal(2), rng.standard_normal(3)

    def run(T: Any) -> tuple:
        m = T.nn.Linear(3, 2).double()
        with T.no_grad():
            m.weight.copy_(T.tensor(w0))
            m.bias.copy_(T.tensor(b0))
        w = T.tensor(v0, requires_grad=True)
        x = T.ones(4, 3, dtype=T.float64, requires_grad=True)
        calls = [0]

        def f(a: Any) -> Any:
            calls[0] += 1
            return m(a * w).sin()
        y = T.utils.checkpoint.checkpoint(f, x, use_reentrant=False)
        z = T.utils.checkpoint.checkpoint(lambda a: (a * w).cos(), x, use_reentrant=False)
        (y.sum() + z.sum()).backward()
        assert calls[0] == 2  # forward, and once more in the backward pass
        return y, z, x.grad, w.grad, m.weight.grad, m.bias.grad
    same(*both(run), tol=1e-12)


# ------------------------------------------------------------------ closures under transforms
def test_vmap_gradients_reach_closed_over_tensors_and_module_parameters() -> None:
    rng = np.random.default_rng(2)
    w0, b0, x0 = rng.standard_normal((1, 3)), rng.standard_normal(1), rng.standard_normal((4, 3))

    def run(T: Any) -> tuple:
        w = T.tensor([1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
        xs = T.tensor(x0, requires_grad=True)
        T.vmap(lambda x: (x * w).sin().sum())(xs).sum().backward()
        m = T.nn.Linear(3, 1).double()
        with T.no_grad():
            m.weight.copy_(T.tensor(w0))
            m.bias.copy_(T.tensor(b0))
        (T.vmap(m)(xs) ** 2).sum().backward()
        return w.grad, xs.grad, m.weight.grad, m.bias.grad
    same(*both(run), tol=1e-12)


def test_func_grad_of_a_closure_is_differentiable_in_the_closed_over_tensor() -> None:
    def run(T: Any) -> tuple:
        w = T.tensor([1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
        x = T.tensor([0.5, -1.0, 2.0], dtype=T.float64, requires_grad=True)
        g = T.func.grad(lambda x: (x * w).sum() ** 2)(x)
        assert g.requires_grad
        (g ** 2).sum().backward()
        h = T.vmap(T.func.grad(lambda x: (x * w).sin().sum()))(x[None].expand(2, 3))
        return g, w.grad, x.grad, h
    same(*both(run), tol=1e-12)


def test_transform_output_needs_no_grad_when_closure_is_unused() -> None:
    """A model called through ``functional_call`` with detached parameters: its own
    parameters are closed over but unused, and the result needs no grad."""
    def run(T: Any) -> Any:
        T.manual_seed(0)
        m = T.nn.Linear(3, 1)
        params = {k: v.detach() for k, v in m.named_parameters()}

        def loss(p: dict, x: Any) -> Any:
            return T.func.functional_call(m, p, (x,)).sum()
        g = T.vmap(T.func.grad(loss), in_dims=(None, 0))(params, T.ones(4, 3))
        assert not g["weight"].requires_grad
        return g["weight"]
    real, fake = both(run)
    assert tuple(real.shape) == tuple(fake.shape)


def test_transform_refuses_an_unreachable_tensor_that_requires_grad() -> None:
    """A tensor the closure scan cannot see (here: in a set) is refused, rather than
    its gradient silently lost."""
    hidden = {ftorch.ones(3, requires_grad=True)}
    with pytest.raises(RuntimeError, match="pass it as an argument"):
        ftorch.vmap(lambda x: x * next(iter(hidden)))(ftorch.ones(2, 3))
    with pytest.raises(RuntimeError, match="pass it as an argument"):
        ftorch.utils.checkpoint.checkpoint(lambda x: x * next(iter(hidden)), ftorch.ones(3),
                                           use_reentrant=False)


# ------------------------------------------------------------------ embedding
def test_embedding_padding_row_starts_at_zero_and_gets_no_gradient() -> None:
    def run(T: Any) -> tuple:
        e = T.nn.Embedding(4, 2, padding_idx=-4)
        assert e.padding_idx == 0 and repr(e) == "Embedding(4, 2, padding_idx=0)"
        pad_row = e.weight[0].detach().clone()
        e(T.tensor([[0, 0, 1], [2, 0, 3]])).sum().backward()
        return pad_row, e.weight.grad
    same(*both(run))


@pytest.mark.parametrize("padding_idx", [None, 1])
@pytest.mark.parametrize("freq", [False, True])
def test_embedding_gradient_options(padding_idx: Any, freq: bool) -> None:
    w0 = np.arange(8.0).reshape(4, 2) / 8

    def run(T: Any) -> tuple:
        w = T.tensor(w0, requires_grad=True)
        y = T.nn.functional.embedding(T.tensor([[0, 0, 1], [3, 1, 1]]), w,
                                      padding_idx=padding_idx, scale_grad_by_freq=freq)
        (y * T.tensor([1.0, 2.0], dtype=T.float64)).sum().backward()
        assert type(y.grad_fn).__name__ == "EmbeddingBackward0"
        return y, w.grad
    same(*both(run))


def test_embedding_max_norm_renormalises_the_rows_looked_up() -> None:
    def run(T: Any) -> tuple:
        w = T.tensor([[3.0, 4.0], [0.3, 0.4], [1.0, 1.0], [6.0, 8.0]], requires_grad=True)
        y = T.nn.functional.embedding(T.tensor([0, 0, 1, 2]), w, max_norm=1.0)
        (y * T.arange(4.0)[:, None]).sum().backward()
        e = T.nn.Embedding(3, 2, max_norm=0.5, norm_type=1.0)
        with T.no_grad():
            e.weight.copy_(T.tensor([[1.0, -1.0], [0.1, 0.1], [2.0, 0.0]]))
        z = e(T.tensor([0, 1]))
        assert repr(e) == "Embedding(3, 2, max_norm=0.5, norm_type=1.0)"
        return y, w.detach(), w.grad, z, e.weight.detach()
    same(*both(run))


def test_embedding_checks_and_sparse_option() -> None:
    raises_same(lambda T: T.nn.Embedding(4, 2, padding_idx=4), AssertionError)
    raises_same(lambda T: T.nn.functional.embedding(T.tensor([0]), T.ones(4, 2),
                                                    padding_idx=-5), AssertionError)
    with pytest.raises(NotImplementedError, match="sparse=True"):
        ftorch.nn.Embedding(4, 2, sparse=True)
    with pytest.raises(NotImplementedError, match="sparse=True"):
        ftorch.nn.functional.embedding(ftorch.tensor([0]), ftorch.ones(4, 2), sparse=True)


# ------------------------------------------------------------------ views and copies
_VIEWS = {
    "transpose": lambda x: x.transpose(0, 2), "permute": lambda x: x.permute(1, 0, 2),
    "slice_mid": lambda x: x[:, :2], "slice_last": lambda x: x[:, :, 1:3],
    "slice_first": lambda x: x[1:], "select": lambda x: x[:, 1], "step": lambda x: x[:, ::2],
    "expand": lambda x: x[:, :1].expand(2, 5, 4),
    "unsqueeze_t": lambda x: x.unsqueeze(1).transpose(1, 3), "flip": lambda x: x.flip(0),
}


@pytest.mark.parametrize("name", sorted(_VIEWS))
def test_view_of_views_as_pytorch(name: str) -> None:
    """``view`` succeeds where PyTorch's does (with the same values) and raises its
    error where the layout of a view cannot take the new shape."""
    def run(T: Any) -> list:
        y = _VIEWS[name](T.arange(24.0).reshape(2, 3, 4))
        n = y.numel()
        shapes = [(n,), (-1,), (*y.shape, 1), (1, *y.shape)]
        shapes += [(a, n // a) for a in (1, 2, 3, 4, 5, 6, 8, 10, 12) if n % a == 0]
        if y.dim() == 3:
            shapes += [(y.shape[0] * y.shape[1], y.shape[2]),
                       (y.shape[0], y.shape[1] * y.shape[2])]
        out = []
        for s in shapes:
            try:
                out.append(y.view(*s).tolist())
            except RuntimeError as e:
                out.append(str(e))
        return out
    real, fake = both(run)
    assert fake == real


def test_flip_repeat_cat_stack_results_do_not_share_the_input() -> None:
    def run(T: Any) -> list:
        out = []
        for f in (lambda t: t.flip(0), lambda t: t.fliplr(), lambda t: t.repeat(1, 1),
                  lambda t: t.tile((1,)), lambda t: T.cat([t]), lambda t: T.stack([t]),
                  lambda t: T.hstack([t])):
            x = T.arange(4.0).reshape(2, 2)
            y = f(x)
            y.zero_()
            out.append((x.tolist(), y.is_contiguous(), tuple(y.stride())))
        return out
    real, fake = both(run)
    assert fake == real


# ------------------------------------------------------------------ dtypes and checks
_REFUSED = {
    "topk_k": lambda T: T.tensor([3.0, 1.0]).topk(3),
    "topk_dim": lambda T: T.ones(2, 3).topk(4, dim=1),
    "masked_fill_float_mask": lambda T: T.ones(2).masked_fill(T.tensor([1.0, 0.0]), 2.0),
    "masked_fill_long_mask": lambda T: T.ones(2).masked_fill(T.tensor([1, 0]), 2.0),
    "where_long": lambda T: T.where(T.tensor([1, 0]), T.ones(2), T.zeros(2)),
    "where_float": lambda T: T.where(T.tensor([1.0, 0.0]), T.ones(2), T.zeros(2)),
    "index_add_dtype": lambda T: T.zeros(3).index_add(0, T.tensor([0]),
                                                      T.ones(1, dtype=T.float64)),
    "scatter_dtype": lambda T: T.zeros(3).scatter(0, T.tensor([0]), T.ones(1, dtype=T.float64)),
    "scatter_add_dtype": lambda T: T.zeros(3).scatter_add(0, T.tensor([0]),
                                                          T.ones(1, dtype=T.int64)),
    "mv_dtypes": lambda T: T.mv(T.ones(2, 2), T.ones(2, dtype=T.float64)),
    "mv_dtypes_2": lambda T: T.mv(T.ones(2, 2, dtype=T.float64), T.ones(2)),
    "matmul_vec": lambda T: T.matmul(T.ones(3, 2, 2), T.ones(2, dtype=T.float64)),
    "einsum_dtypes": lambda T: T.einsum("ij,j->i", T.ones(2, 2), T.ones(2, dtype=T.float64)),
    "one_hot_int32": lambda T: T.nn.functional.one_hot(T.tensor([0, 1], dtype=T.int32)),
}


@pytest.mark.parametrize("name", sorted(_REFUSED))
def test_refused_as_pytorch(name: str) -> None:
    raises_same(_REFUSED[name])


def test_masked_fill_casts_the_value_to_the_input_dtype() -> None:
    def run(T: Any) -> tuple:
        m = T.tensor([True, False])
        return (T.tensor([1, 2]).masked_fill(m, 2.7), T.tensor([1, 2]).masked_fill(m, -2.7),
                T.tensor([1, 2]).masked_fill(m, T.tensor(2.7)),
                T.tensor([False, False]).masked_fill(m, 0.5), T.ones(2).masked_fill(m, 3))
    real, fake = both(run)
    for r, f in zip(real, fake):
        assert str(r.dtype) == str(f.dtype) and r.tolist() == f.tolist()


def test_scatter_with_repeated_destinations_gives_every_source_its_gradient() -> None:
    def run(T: Any) -> tuple:
        x = T.zeros(2, 4, dtype=T.float64, requires_grad=True)
        s = T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=T.float64, requires_grad=True)
        y = x.scatter(1, T.tensor([[0, 0, 1], [2, 3, 3]]), s)
        (y * T.arange(8.0, dtype=T.float64).reshape(2, 4)).sum().backward()
        assert type(y.grad_fn).__name__ == "ScatterBackward0"
        return y, x.grad, s.grad
    same(*both(run))


# ------------------------------------------------------------------ antialiasing
@pytest.mark.parametrize("kw", [{"size": (3, 5)}, {"size": (3, 5), "align_corners": True},
                                {"scale_factor": 0.5}, {"scale_factor": (0.3, 0.7)},
                                {"size": (20, 7)}, {"scale_factor": 2}, {"size": (1, 1)}])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bilinear_interpolation_with_antialiasing(kw: dict, dtype: str) -> None:
    x0 = np.random.default_rng(0).standard_normal((2, 3, 9, 11)).astype(dtype)

    def run(T: Any) -> tuple:
        x = T.tensor(x0, requires_grad=True)
        y = T.nn.functional.interpolate(x, mode="bilinear", antialias=True, **kw)
        (y * y).sum().backward()
        assert type(y.grad_fn).__name__ == "UpsampleBilinear2DAaBackward0"
        return y, x.grad
    same(*both(run), tol=1e-5 if dtype == "float32" else 1e-12)


def test_antialiasing_other_modes_refused_as_pytorch() -> None:
    raises_same(lambda T: T.nn.functional.interpolate(T.ones(1, 1, 8), scale_factor=0.5,
                                                      mode="linear", antialias=True),
                ValueError)
    raises_same(lambda T: T.nn.functional.interpolate(T.ones(1, 1, 8, 8), scale_factor=0.5,
                                                      antialias=True), ValueError)
