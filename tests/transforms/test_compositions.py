"""Transformations compose: every pair of {grad, jvp, vjp, no_grad, stop_gradient}
and a sample of triples, on random functions built from 2-4 operator-table entries,
against nested finite differences (and closed forms for the constant parts).

Each transformation maps a function ``(2, 2) -> (2, 2)`` to another one:

* ``grad``:  ``x -> grad(sum(f(x) * w))(x)``
* ``jvp``:   ``x -> jvp(f, (x,), (v,))[1]``
* ``vjp``:   ``x -> vjp(f, x)[1](u)[0]``
* ``no_grad`` / ``stop_gradient``: the same values, but a constant to every
  differentiation around them (``no_grad(f)`` / ``f(stop_gradient(x))``).

The reference applies the same maps with central differences to the NumPy
evaluation of ``f``; a constant function differentiates to zero.
"""

import itertools
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from operator_table import CHAIN_OPS

import fad
import fad.numpy as fnp

SHAPE = (2, 2)
EPS = 3e-3  # per nesting level (4th-order stencil): truncation ~EPS**4, rounding ~1e-16 / EPS**3


@dataclass
class Dirs:
    """The fixed directions the transformations contract with."""

    w: np.ndarray  # grad's output weights
    v: np.ndarray  # jvp's tangent
    u: np.ndarray  # vjp's cotangent

    def astype(self, dtype: type) -> "Dirs":
        return Dirs(self.w.astype(dtype), self.v.astype(dtype), self.u.astype(dtype))


FAD: dict[str, Callable] = {
    "grad": lambda f, d: lambda x: fad.grad(lambda y: fnp.sum(f(y) * d.w))(x),
    "jvp": lambda f, d: lambda x: fad.jvp(f, (x,), (d.v,))[1],
    "vjp": lambda f, d: lambda x: fad.vjp(f, x)[1](d.u)[0],
    "no_grad": lambda f, d: fad.no_grad(f),
    "stop_gradient": lambda f, d: lambda x: f(fad.stop_gradient(x)),
}


@dataclass
class Ref:
    """A NumPy function and whether differentiations see it as a constant."""

    f: Callable
    const: bool = False


def fd_directional(f: Callable, x: np.ndarray, e: np.ndarray) -> np.ndarray:
    """``J(x) e`` by the fourth-order central difference (error ~ EPS**4)."""
    def at(k):
        return np.asarray(f(x + k * EPS * e))
    return (8 * (at(1) - at(-1)) - (at(2) - at(-2))) / (12 * EPS)


def fd_jacobian(f: Callable, x: np.ndarray) -> np.ndarray:
    """``d f(x) / d x`` by finite differences; shape ``out + in``."""
    cols = [fd_directional(f, x, e.reshape(x.shape)) for e in np.eye(x.size)]
    return np.moveaxis(np.array(cols), 0, -1).reshape(np.shape(cols[0]) + x.shape)


def _derivative(contract: Callable) -> Callable:
    def transform(r: Ref, d: Dirs) -> Ref:
        if r.const:
            return Ref(lambda x: np.zeros(SHAPE), const=True)
        return Ref(lambda x: contract(r.f, x, d))
    return transform


REF: dict[str, Callable] = {
    "grad": _derivative(lambda f, x, d: np.tensordot(d.w, fd_jacobian(f, x), 2)),
    "jvp": _derivative(lambda f, x, d: fd_directional(f, x, d.v)),
    "vjp": _derivative(lambda f, x, d: np.tensordot(d.u, fd_jacobian(f, x), 2)),
    "no_grad": lambda r, d: Ref(r.f, const=True),
    "stop_gradient": lambda r, d: Ref(r.f, const=True),
}
NAMES = list(FAD)


@st.composite
def random_functions(draw: st.DrawFn) -> tuple:
    """``f(x) = op_k(... op_1(x, y_1) ..., y_k)`` with constants ``y_i`` captured
    from the closure, plus the point and the directions."""
    ops = draw(st.lists(st.sampled_from(CHAIN_OPS), min_size=2, max_size=4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    ys = [rng.uniform(-1, 1, SHAPE) for _ in ops]
    x = rng.uniform(-1, 1, SHAPE)
    dirs = Dirs(*(rng.standard_normal(SHAPE) for _ in range(3)))
    return ops, ys, x, dirs


def build(ops: list, ys: list, dtype: type = np.float64, xp: str = "fad") -> Callable:
    """The composition in fad, or in plain NumPy (the reference never calls fad)."""
    ys = [y.astype(dtype) for y in ys]

    def f(x):
        for op, y in zip(ops, ys):
            args = (x, *[y] * (op.arity - 1))
            x = op.fn(fnp, *args, **op.chain) if xp == "fad" else op.numpy(*args, **op.chain)
        return x
    f.__qualname__ = " o ".join(op.name for op in reversed(ops))
    return f


def check_stack(names: tuple, ops: list, ys: list, x: np.ndarray, dirs: Dirs) -> None:
    g, r = build(ops, ys), Ref(build(ops, ys, xp="numpy"))
    for name in reversed(names):  # names[0] is the outermost transformation
        g, r = FAD[name](g, dirs), REF[name](r, dirs)
    got, want = g(x), r.f(x)
    assert np.shape(got) == SHAPE and np.asarray(got).dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    # the same stack in float32 stays in float32
    g32 = build(ops, ys, np.float32)
    for name in reversed(names):
        g32 = FAD[name](g32, dirs.astype(np.float32))
    got32 = g32(x.astype(np.float32))
    assert np.asarray(got32).dtype == np.float32
    np.testing.assert_allclose(got32, got, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("names", list(itertools.product(NAMES, repeat=2)), ids="-".join)
@given(fun=random_functions())
def test_pairs(names, fun):
    check_stack(names, *fun)


DERIVATIVES = ["grad", "jvp", "vjp"]
TRIPLES = list(itertools.product(DERIVATIVES, repeat=3)) + [
    ("grad", "no_grad", "grad"), ("no_grad", "grad", "jvp"), ("jvp", "vjp", "no_grad"),
    ("vjp", "stop_gradient", "jvp"), ("stop_gradient", "grad", "grad"),
    ("grad", "jvp", "stop_gradient")]


@pytest.mark.parametrize("names", TRIPLES, ids="-".join)
@given(fun=random_functions())
def test_triples(names, fun):
    check_stack(names, *fun)


# ---------------------------------------------------------------- Jacobians and Hessians
def scalar_fn(x):
    return fnp.sum(fnp.sin(x) * fnp.tanh(x[::-1])) + fnp.sum(x[:, None] * x[None, :] ** 2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_hessian_every_way(dtype):
    x = np.array([0.3, -1.2, 0.7], dtype)
    H = fad.hessian(scalar_fn)(x)
    assert H.shape == (3, 3) and H.dtype == dtype
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    for other in [fad.jacrev(fad.jacrev(scalar_fn)), fad.jacfwd(fad.jacrev(scalar_fn)),
                  fad.jacfwd(fad.jacfwd(scalar_fn)), fad.jacrev(fad.jacfwd(scalar_fn)),
                  fad.jacfwd(fad.grad(scalar_fn))]:
        np.testing.assert_allclose(other(x), H, **tol)
    x64 = x.astype(np.float64)
    want = fd_jacobian(lambda z: fd_jacobian(scalar_fn, z), x64)
    np.testing.assert_allclose(H, want, rtol=1e-3, atol=1e-4)


def test_third_derivatives_closed_form():
    """t sin t: g' = sin t + t cos t, g'' = 2 cos t - t sin t, g''' = -3 sin t - t cos t."""
    t = np.linspace(-2, 2, 5)

    def g(s):
        return s * fnp.sin(s)

    d3 = -3 * np.sin(t) - t * np.cos(t)
    elementwise_d = [fad.grad(fad.grad(fad.grad(g))),
                     lambda s: fad.jvp(fad.grad(fad.grad(g)), (s,), (1.0,))[1],
                     lambda s: fad.grad(lambda r: fad.vjp(fad.grad(g), r)[1](1.0)[0])(s),
                     fad.jacfwd(fad.jacrev(fad.grad(g))),
                     fad.hessian(fad.grad(g))]
    for d in elementwise_d:
        np.testing.assert_allclose([float(d(s)) for s in t], d3, rtol=1e-12, atol=1e-12)
    # jvp of grad is a Hessian-vector product
    x, v = np.array([0.5, -0.3]), np.array([1.0, 2.0])
    hvp = fad.jvp(fad.grad(lambda z: fnp.sum(g(z))), (x,), (v,))[1]
    np.testing.assert_allclose(hvp, (2 * np.cos(x) - x * np.sin(x)) * v, rtol=1e-12)


def test_jacfwd_of_jacrev_shapes_pytrees():
    """Hessian blocks of a function of two arguments, as JAX lays them out."""
    def f(a, b):
        return fnp.sum(a ** 2 * b[0]) + fnp.sum(fnp.sin(b))

    a, b = np.array([1.0, 2.0, 3.0]), np.ones((2, 3))
    H = fad.jacfwd(fad.jacrev(f, argnums=(0, 1)), argnums=(0, 1))(a, b)
    assert [[np.shape(h) for h in row] for row in H] == [[(3, 3), (3, 2, 3)],
                                                          [(2, 3, 3), (2, 3, 2, 3)]]
    np.testing.assert_allclose(H[0][0], np.diag(2 * b[0]))
    np.testing.assert_allclose(H[0][1][:, 0, :], np.diag(2 * a))
    np.testing.assert_allclose(H[0][1][:, 1, :], 0)
    np.testing.assert_allclose(H[1][0], np.transpose(H[0][1], (1, 2, 0)))
    np.testing.assert_allclose(H[1][1].reshape(6, 6), np.diag(-np.sin(b).ravel()))
