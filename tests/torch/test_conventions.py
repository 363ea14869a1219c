"""PyTorch's conventions in the facade: formatting, dtype rules of the matrix
products and class targets, strides, CUDA without a GPU, seeds, backends,
bitwise operators, ``unique``/``cross``/``svd`` (skipped without torch)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402


def outcome(fn: Any) -> Any:
    """``fn()``'s value (as a list, for tensors), or ``(exception type, message)``."""
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001  (the exception is the result compared)
        return type(e).__name__, str(e)
    if isinstance(r, tuple):
        return tuple(x.tolist() if hasattr(x, "tolist") else x for x in r)
    return r.tolist() if hasattr(r, "tolist") else r


def same(fn: Any) -> Any:
    r, f = outcome(lambda: fn(real_torch)), outcome(lambda: fn(ftorch))
    assert r == f
    return f


@pytest.mark.parametrize("case", [
    lambda t: f"{t.tensor(1.23456):.3f}",
    lambda t: f"{t.tensor(3):d}",
    lambda t: f"{t.tensor(2.5):>8}",
    lambda t: f"{t.tensor([1.0, 2.0])}",
    lambda t: format(t.tensor([[1, 2], [3, 4]]), ""),
    lambda t: f"{t.tensor([1.23456]):.3f}",
    lambda t: f"{t.tensor([1.0, 2.0]):.3f}",
    lambda t: "{:.2e}".format(t.tensor(12345.0)),
])
def test_format(case):
    same(case)


@pytest.mark.parametrize("case", [
    lambda t: t.mm(t.ones(2, 2, dtype=t.float64), t.ones(2, 2)),
    lambda t: t.matmul(t.ones(2, 2, dtype=t.float64), t.ones(2, 2)),
    lambda t: t.ones(3, 2, 2, dtype=t.float64) @ t.ones(2, 2),
    lambda t: t.matmul(t.ones(2, 2, dtype=t.int64), t.ones(2, 2, dtype=t.int32)),
    lambda t: t.matmul(t.ones(2, dtype=t.float64), t.ones(2)),
    lambda t: t.mm(t.ones(2, 2, dtype=t.float16), t.ones(2, 2)),
    lambda t: t.bmm(t.ones(1, 2, 2, dtype=t.float64), t.ones(1, 2, 2)),
    lambda t: t.nn.functional.linear(t.ones(2, 2, dtype=t.float64), t.ones(2, 2), t.ones(2)),
    lambda t: t.nn.functional.linear(t.ones(3, 2, 2, dtype=t.float64), t.ones(2, 2)),
    lambda t: t.mm(t.ones(2, 2), t.ones(2, 2)),
])
def test_matrix_product_dtypes(case):
    same(case)


@pytest.mark.parametrize("dtype", ["int32", "int16", "int64", "uint8"])
@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
def test_class_targets_must_be_int64(loss, dtype):
    def run(t):
        x = t.tensor([[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]])
        return getattr(t.nn.functional, loss)(x, t.tensor([0, 2], dtype=getattr(t, dtype)))
    r, f = outcome(lambda: run(real_torch)), outcome(lambda: run(ftorch))
    if isinstance(r, tuple):
        assert r == f
    else:
        np.testing.assert_allclose(r, f, rtol=1e-6)


@pytest.mark.parametrize("case", [
    lambda t: t.ones(2, 3).stride(),
    lambda t: t.ones(2, 3).t().stride(),
    lambda t: t.ones(2, 3, 4).permute(2, 0, 1).stride(),
    lambda t: t.ones(2, 3).stride(-1),
    lambda t: t.ones(2, 3).t().is_contiguous(),
    lambda t: t.ones(2, 3).t().contiguous().is_contiguous(),
    lambda t: t.ones(2, 3).t().contiguous().stride(),
    lambda t: t.ones(2, 3).t().clone().is_contiguous(),
    lambda t: t.ones(()).stride(),
    lambda t: t.arange(12.0).reshape(3, 4)[..., None].stride(),
    lambda t: t.arange(12.0).reshape(3, 4)[None].stride(),
    lambda t: t.arange(12.0).reshape(3, 4)[:, None].stride(),
    lambda t: t.arange(12.0).reshape(3, 4)[None][None].stride(),
    lambda t: t.arange(3.0)[:, None, None].stride(),
    lambda t: t.arange(3.0).expand(1, 3).stride(),
    # empty tensors made afresh: PyTorch's strides count an empty dimension as 1
    lambda t: t.zeros(2, 0).stride(),
    lambda t: t.zeros(0, 3).stride(),
    lambda t: t.zeros(0).stride(),
    lambda t: t.empty(2, 0, 3).stride(),
    lambda t: t.tensor([]).stride(),
    lambda t: t.zeros(0, 6).reshape(2, 0, 3).stride(),
    lambda t: (t.zeros(2, 0) + 1).stride(),
    lambda t: t.cat([t.zeros(0, 2), t.zeros(0, 2)]).stride(),
    lambda t: t.zeros(2, 3)[:0].stride(),
    # an integer index array after slices: row-major, as PyTorch's (NumPy's is not)
    lambda t: t.arange(120.0).reshape(2, 3, 4, 5)[:, t.tensor([0, 2, 2])].stride(),
    lambda t: t.arange(120.0).reshape(2, 3, 4, 5)[..., t.tensor([[0], [4]])].stride(),
    lambda t: t.arange(120.0).reshape(2, 3, 4, 5)[:, :, [1, 0], 1:].stride(),
    lambda t: t.arange(120.0).reshape(2, 3, 4, 5).requires_grad_()[:, [1, 0]].stride(),
    lambda t: t.index_select(t.arange(120.0).reshape(2, 3, 4, 5), 2, t.tensor([3, 1])).stride(),
    lambda t: t.nn.functional.interpolate(t.ones(2, 3, 4, 5), scale_factor=2).is_contiguous(),
    lambda t: t.nn.functional.interpolate(t.ones(2, 3, 4, 5), size=(3, 7),
                                          mode="bilinear").stride(),
    lambda t: t.nn.functional.interpolate(t.ones(1, 1, 2, 3, 4), scale_factor=2).stride(),
])
def test_strides_and_contiguity(case):
    same(case)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.integers(1, 3), min_size=1, max_size=4), st.data())
def test_strides_of_axis_permutations_as_pytorch(shape, data):
    """``permute``/``transpose``/``t``/``movedim``/``mT`` are views with PyTorch's
    strides, length-1 axes included (whose strides a reshape would change), and
    ``contiguous()`` of them keeps those strides when PyTorch's does."""
    n = len(shape)
    perm = data.draw(st.permutations(range(n)))
    d0, d1 = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
    views = [lambda t, x: x.permute(*perm), lambda t, x: x.transpose(d0, d1),
             lambda t, x: t.movedim(x, d0, d1), lambda t, x: x.mT if n >= 2 else x.t()]
    if n <= 2:
        views.append(lambda t, x: x.t())
    for view in views:
        def strides(t: Any, view: Any = view) -> tuple:
            y = view(t, t.zeros(*shape))
            c = y.contiguous()
            return y.stride(), y.is_contiguous(), c.stride(), c.is_contiguous()
        assert strides(ftorch) == strides(real_torch)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=3), st.data())
def test_unfold_is_a_view_as_pytorch(shape, data):
    """``Tensor.unfold`` shares its input's memory with PyTorch's strides: a later
    write into the input shows in the windows, a write into non-overlapping windows
    shows in the input (and is differentiated through), and the gradient of the
    windows sums back over the cells they share."""
    dim = data.draw(st.integers(0, len(shape) - 1))
    size = data.draw(st.integers(0, shape[dim]))
    step = data.draw(st.integers(1, 3))
    weights = np.cos(np.arange(200.0))

    def run(t: Any) -> tuple:
        leaf = t.tensor(np.arange(float(np.prod(shape))).reshape(shape), requires_grad=True)
        x = leaf * 1
        u = x.unfold(dim, size, step)
        seen = (u.stride(), u.is_contiguous(), u.shape)
        with t.no_grad():
            x.view(-1)[0] = -5.0  # shows in the windows holding the first cell
        before = u.detach().clone()
        if step >= size:  # windows apart: an in-place write reaches x
            u.mul_(3)
        w = t.tensor(weights[:u.numel()].reshape(u.shape))
        (u * w).sum().backward()
        return seen, before.tolist(), x.tolist(), leaf.grad.tolist()

    assert run(ftorch) == run(real_torch)


def test_contiguous_keeps_the_gradient():
    x = ftorch.arange(6.0).reshape(2, 3).requires_grad_()
    y = x.t().contiguous()
    (y * ftorch.arange(6.0).reshape(3, 2)).sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]


@pytest.mark.skipif(ftorch.cuda.is_available() or real_torch.cuda.is_available(),
                    reason="a GPU is present")
@pytest.mark.parametrize("case", [
    lambda t: t.ones(2).cuda(),
    lambda t: t.ones(2).to("cuda"),
    lambda t: t.ones(2, device="cuda"),
    lambda t: t.zeros(2, device="cuda:0"),
    lambda t: t.cuda.is_available(),
    lambda t: t.backends.mps.is_available(),
])
def test_cuda_without_a_gpu(case):
    same(case)


def test_manual_seed_seeds_every_random_function():
    def draw():
        t = ftorch
        t.manual_seed(7)
        return [x.tolist() for x in (
            t.rand(3), t.randn(3), t.randint(0, 10, (3,)), t.randperm(5),
            t.empty(3).normal_(), t.empty(3).uniform_(), t.nn.functional.dropout(t.ones(8)),
            t.nn.init.normal_(t.empty(3)), t.nn.init.kaiming_uniform_(t.empty(2, 2)),
            t.nn.Linear(2, 2).weight)]
    assert draw() == draw()


def test_generator_argument_and_state():
    g = ftorch.Generator().manual_seed(3)
    a = ftorch.rand(3, generator=g)
    state = g.get_state()
    b = ftorch.rand(3, generator=g)
    g.set_state(state)
    assert ftorch.rand(3, generator=g).tolist() == b.tolist()
    assert ftorch.rand(3, generator=ftorch.Generator().manual_seed(3)).tolist() == a.tolist()


def test_default_device():
    assert same(lambda t: str(t.get_default_device())) == "cpu"
    ftorch.set_default_device("cpu")
    try:
        assert ftorch.zeros(1).device == ftorch.device("cpu")
    finally:
        ftorch.set_default_device(None)


@pytest.mark.parametrize("case", [
    lambda t: t.tensor([12, 5]) & t.tensor([10, 3]),
    lambda t: t.tensor([12, 5]) | 2,
    lambda t: t.tensor([12, 5]) ^ t.tensor([10, 3]),
    lambda t: ~t.tensor([12, -1]),
    lambda t: ~t.tensor([True, False]),
    lambda t: t.tensor([True, False]) & t.tensor([True, True]),
    lambda t: t.bitwise_not(t.tensor([1, 2], dtype=t.uint8)),
    lambda t: t.bitwise_and(t.ones(2), t.ones(2)),
    lambda t: ~t.ones(2),
])
def test_bitwise(case):
    same(case)


@pytest.mark.parametrize("case", [
    lambda t: t.unique(t.tensor([3, 1, 1, 2])),
    lambda t: t.unique(t.tensor([[3, 1], [1, 2]]), return_inverse=True, return_counts=True),
    lambda t: t.unique(t.tensor([[1, 2], [1, 2], [0, 1]]), dim=0, return_counts=True),
    lambda t: t.unique(t.tensor([2.5, 2.5, -1.0]), sorted=True, return_inverse=True),
    lambda t: t.cross(t.tensor([[1.0, 0, 0]]), t.tensor([[0.0, 1, 0]]), dim=1),
])
def test_unique_and_cross(case):
    same(case)


def test_cross_gradient_and_svd():
    x = ftorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = ftorch.tensor([-1.0, 0.5, 2.0])
    ftorch.cross(x, y, dim=0).sum().backward()
    xr = real_torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    real_torch.cross(xr, real_torch.tensor([-1.0, 0.5, 2.0]), dim=0).sum().backward()
    np.testing.assert_allclose(x.grad.tolist(), xr.grad.tolist())
    a = ftorch.tensor([[3.0, 1.0], [1.0, 2.0], [0.0, 1.0]], requires_grad=True)
    u, s, v = ftorch.svd(a)
    assert tuple(u.shape) == (3, 2) and tuple(v.shape) == (2, 2)
    np.testing.assert_allclose(((u * s) @ v.T).tolist(), a.tolist(), atol=1e-5)
    s.sum().backward()  # d(nuclear norm)/dA = U V^T
    np.testing.assert_allclose(a.grad.tolist(), (u @ v.T).tolist(), atol=1e-5)
    np.testing.assert_allclose(s.tolist(), real_torch.svd(real_torch.tensor(
        [[3.0, 1.0], [1.0, 2.0], [0.0, 1.0]]))[1].tolist(), rtol=1e-5)


@pytest.mark.parametrize("case", [
    lambda t: t.block_diag(t.tensor([[1.0, 2.0], [3.0, 4.0]]), t.tensor(5), t.tensor([6.0, 7.0])),
    lambda t: t.block_diag(t.ones(2, 0), t.tensor([[1, 2]])),
    lambda t: t.block_diag(),
    lambda t: t.block_diag(t.ones(2, 2, 2)),
    lambda t: t.cartesian_prod(t.tensor([1, 2]), t.tensor([3, 4, 5]), t.tensor([6])),
    lambda t: t.cartesian_prod(t.tensor([1.0, 2.0])),
    lambda t: t.cartesian_prod(t.ones(2, 2)),
    lambda t: t.cartesian_prod(t.tensor([1, 2]), t.tensor([1.5])),
])
def test_block_diag_and_cartesian_prod(case):
    same(case)


def test_block_diag_and_cartesian_prod_gradients():
    def grads(t):
        a = t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        c = t.tensor([6.0, 7.0], requires_grad=True)
        d = t.block_diag(a, t.tensor(5.0), c)
        p = t.cartesian_prod(c, t.tensor([1.0, -2.0, 3.0]))
        ((d * t.arange(20.0).reshape(4, 5)).sum() + (p * p).sum()).backward()
        return a.grad.tolist(), c.grad.tolist(), d.grad_fn.name(), p.grad_fn.name()
    assert grads(ftorch) == grads(real_torch)
