"""``T``, ``mT``, ``H``, ``mH``, ``adjoint`` and ``index_reduce`` against the
installed PyTorch (skipped without it): values (conjugated where PyTorch
conjugates), shapes, gradients and ``grad_fn`` names, PyTorch's errors and
deprecation warnings for the dimensions it refuses or deprecates."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402


def both(fn: Callable) -> tuple:
    """``fn(T)`` with PyTorch and with the facade: its result, or its error, and
    the warnings it gave (both told to give their once-per-process warnings every
    time)."""
    out = []
    for T in (real_torch, ftorch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                r = fn(T)
            except Exception as e:  # noqa: BLE001 - the error is what is compared
                r = (type(e).__name__, str(e))
        out.append((r, [str(w.message).split(" (Triggered")[0] for w in caught
                        if issubclass(w.category, UserWarning)]))
    return tuple(out)


@pytest.fixture(autouse=True)
def warn_always() -> Any:
    """PyTorch's and the facade's once-per-process warnings given every time."""
    for T in (real_torch, ftorch):
        T.set_warn_always(True)
    yield
    for T in (real_torch, ftorch):
        T.set_warn_always(False)


def test_warn_always_is_pytorchs() -> None:
    """``set_warn_always`` makes a once-per-process warning repeat; off, it stops."""
    def run(T: Any) -> Any:
        out = [T.is_warn_always_enabled()]
        for always in (True, False):
            T.set_warn_always(always)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                for _ in range(3):
                    T.ones(3).T
            out.append((T.is_warn_always_enabled(), len(caught)))
        return out
    (want, _), (got, _) = both(run)
    assert got == want


def _view(attr: str, shape: tuple, complex_: bool) -> Callable:
    def run(T: Any) -> Any:
        n = int(np.prod(shape))
        v = np.arange(1.0, n + 1).reshape(shape)
        x = T.tensor(v + 1j * v[::-1] if complex_ and shape else v * (1 + 1j * complex_),
                     requires_grad=True)
        y = x.adjoint() if attr == "adjoint" else getattr(x, attr)
        return y.tolist(), tuple(y.shape), None if y.grad_fn is None else y.grad_fn.name()
    return run


@pytest.mark.parametrize("attr", ["T", "mT", "H", "mH", "adjoint"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 2, 3)])
@pytest.mark.parametrize("complex_", [False, True])
def test_transposes_as_pytorchs(attr: str, shape: tuple, complex_: bool) -> None:
    (want, want_w), (got, got_w) = both(_view(attr, shape, complex_))
    assert got == want
    assert got_w == want_w


def test_adjoint_and_mh_gradients() -> None:
    """The gradient through a conjugate transpose is the conjugate transpose back."""
    def run(T: Any) -> Any:
        x = T.tensor([[1 + 2j, 3 - 1j], [0.5j, 2.0]], requires_grad=True)
        w = T.tensor([[1.0, 2j], [3.0, -1j]])
        y = (T.adjoint(x) * w).sum().real + (x.mH * w).sum().imag
        y.backward()
        return x.grad.tolist()
    (want, _), (got, _) = both(run)
    np.testing.assert_allclose(np.array(got), np.array(want), rtol=1e-12)


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin", "sum"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_reduce_as_pytorchs(reduce: str, include_self: bool, dim: int) -> None:
    """Values, the gradients of both tensors, the node's name and PyTorch's error
    for a reduction it does not have; ties between the reduced slices included.
    (The target's own values never tie with them here: without ``include_self``
    PyTorch still counts such a tie and hands the slice half the gradient, losing
    the other half; the facade gives the slice all of it, the true derivative.)"""
    def run(T: Any) -> Any:
        rng = np.random.default_rng(3)
        x = T.tensor(rng.integers(-2, 3, (4, 5)) + 0.5, requires_grad=True)
        n = 3
        src_shape = (n, 5) if dim == 0 else (4, n)
        s = T.tensor(rng.integers(-2, 3, src_shape).astype(float), requires_grad=True)
        idx = T.tensor([1, 3, 1] if dim == 0 else [4, 0, 4])
        y = (x * 1).index_reduce(dim, idx, s, reduce, include_self=include_self)
        w = T.tensor(rng.standard_normal((4, 5)))
        gx, gs = T.autograd.grad((y * w).sum(), (x, s))
        return y.tolist(), gx.tolist(), gs.tolist(), y.grad_fn.name()
    (want, _), (got, _) = both(run)
    if isinstance(want[0], str):
        assert got == want
        return
    for a, b in zip(got[:3], want[:3]):
        np.testing.assert_allclose(np.array(a), np.array(b), rtol=1e-12, atol=1e-12)
    assert got[3] == want[3]


def test_index_reduce_tie_with_the_unused_target_gives_the_slice_its_whole_gradient() -> None:
    """Without ``include_self`` the target's own value takes no part: a slice equal
    to it is the maximum alone and gets the whole gradient (the derivative of the
    function; PyTorch hands it half)."""
    x = ftorch.tensor([1.0, 5.0], requires_grad=True)
    s = ftorch.tensor([1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = x.index_reduce(0, ftorch.tensor([0]), s, "amax", include_self=False)
    gx, gs = ftorch.autograd.grad(y.sum(), (x, s))
    assert (y.tolist(), gx.tolist(), gs.tolist()) == ([1.0, 5.0], [0.0, 1.0], [1.0])


@pytest.mark.parametrize("name", ["vdot", "dot", "inner", "inner2d", "inner0d", "cov",
                                  "corrcoef", "cov_weighted"])
def test_complex_products_and_statistics_as_pytorchs(name: str) -> None:
    """``vdot`` conjugates its first vector, ``dot`` and ``inner`` do not (``inner``
    sums over the last dimension of tensors of any dimension), and complex
    covariances and correlations are ``E[x conj(y)]``: values and gradients."""
    def run(T: Any) -> Any:
        a = T.tensor([[1 + 2j, 3 - 1j, 0.5], [0.5j, 2.0 - 0.5j, 1j]], dtype=T.complex128,
                     requires_grad=True)
        v = T.tensor([2 - 1j, 1 + 1j, -1j], dtype=T.complex128, requires_grad=True)
        r = {"vdot": lambda: T.vdot(v, v * 2j), "dot": lambda: T.dot(v, v),
             "inner": lambda: T.inner(v, v), "inner2d": lambda: T.inner(a, a),
             "inner0d": lambda: T.inner(v[0], a),
             "cov": lambda: T.cov(a), "corrcoef": lambda: T.corrcoef(a),
             "cov_weighted": lambda: T.cov(a, aweights=T.tensor([1.0, 2.0, 3.0],
                                                                 dtype=T.float64))}[name]()
        (r.abs() ** 2).sum().backward()
        return r.tolist(), a.grad.tolist() if a.grad is not None else None, \
            v.grad.tolist() if v.grad is not None else None
    (want, _), (got, _) = both(run)
    for w, g in zip(want, got):
        assert (w is None) == (g is None)
        if w is not None:
            np.testing.assert_allclose(np.array(g), np.array(w), rtol=1e-10, atol=1e-12)
