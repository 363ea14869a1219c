"""Transformations compose: every ordered pair and triple of {grad, jvp, vjp,
vmap, jit, no_grad, stop_gradient}, over random functions drawn from the operator
table's chainable rows, against an un-transformed reference: central finite
differences for the derivatives, a Python loop for vmap, plain evaluation for
jit (NumPy all the way down), and "a constant" for no_grad and stop_gradient
(every derivative taken around them is zero). The same stack in float32 stays
float32. Plus Jacobians and Hessians every way, and third derivatives.

Each transformation maps an array function to an array function:

* ``grad``: ``x -> grad(lambda x: sum(f(x) * w))(x)``  (``w`` fixed weights)
* ``jvp``:  ``x -> jvp(f, (x,), (v,))[1]``             (``v`` fixed tangent)
* ``vjp``:  ``x -> vjp(f, x)[1](u)[0]``                 (``u`` fixed cotangent)
* ``vmap``: ``vmap(f)``, over a new leading axis of size 3
* ``jit``:  ``jit(f)``;  ``no_grad``: ``no_grad(f)``
* ``stop_gradient``: ``x -> f(stop_gradient(x))``

The wrappers are written the way users write decorators (``functools.wraps``),
so a transformation applied to another transformation's output sees exactly
what it would see in user code.
"""

import functools
import itertools
import zlib

import numpy as np
import pytest
from hypothesis import Phase, given, note, settings
from hypothesis import strategies as st
from operator_table import CHAIN_OPS

import fad
import fad.numpy as fnp

NAMES = ["grad", "jvp", "vjp", "vmap", "jit", "no_grad", "stop_gradient"]
BATCH = 3          # vmap's axis size (differs from the (2, 2) example shape on purpose)
EPS = 1e-3         # central differences, nested up to three deep
RTOL = 1e-4
C = np.array([[0.3, -0.2], [0.5, 0.1]])


def weights(shape, salt, dtype=np.float64):
    n = int(np.prod(shape))
    return np.cos(1.3 * np.arange(n) + salt).reshape(shape).astype(dtype)


def fd_directional(f, x, e):
    """``J(x) e`` by the central difference."""
    return (np.asarray(f(x + EPS * e)) - np.asarray(f(x - EPS * e))) / (2 * EPS)


def fd_jacobian(f, x):
    """``d f(x) / d x`` by central differences; shape ``out + in``."""
    x = np.asarray(x, np.float64)
    cols = [fd_directional(f, x, e.reshape(x.shape)) for e in np.eye(x.size)]
    return np.moveaxis(np.array(cols), 0, -1).reshape(np.shape(cols[0]) + x.shape)


class Fn:
    """A function under test (``fad``) and its reference (``ref``, NumPy)."""

    def __init__(self, fad_fn, ref, const=False, vmaps=0):
        self.fad, self.ref, self.const, self.vmaps = fad_fn, ref, const, vmaps


def _contracted(f, x, salt):
    """The reference gradient of ``sum(f(x) * weights)``."""
    return fd_jacobian(lambda z: np.sum(f(z) * weights(np.shape(f(z)), salt)), x)


def t_grad(g):
    @functools.wraps(g.fad)
    def scalar(x):
        y = g.fad(x)
        return fnp.sum(y * weights(y.shape, 1, y.dtype))

    def ref(x):
        return np.zeros_like(x) if g.const else _contracted(g.ref, x, 1)
    return Fn(fad.grad(scalar), ref, g.const, g.vmaps)


def t_jvp(g):
    @functools.wraps(g.fad)
    def f(x):
        return fad.jvp(g.fad, (x,), (weights(x.shape, 2, x.dtype),))[1]

    def ref(x):
        if g.const:
            return np.zeros_like(g.ref(x))
        return fd_directional(g.ref, x, weights(x.shape, 2))
    return Fn(f, ref, g.const, g.vmaps)


def t_vjp(g):
    @functools.wraps(g.fad)
    def f(x):
        y, pull = fad.vjp(g.fad, x)
        return pull(weights(y.shape, 3, y.dtype))[0]

    def ref(x):
        return np.zeros_like(x) if g.const else _contracted(g.ref, x, 3)
    return Fn(f, ref, g.const, g.vmaps)


def t_vmap(g):
    return Fn(fad.vmap(g.fad), lambda x: np.stack([g.ref(xi) for xi in x]), g.const,
              g.vmaps + 1)


def t_jit(g):
    return Fn(fad.jit(g.fad), g.ref, g.const, g.vmaps)


def t_no_grad(g):
    return Fn(fad.no_grad(g.fad), g.ref, True, g.vmaps)


def t_stop_gradient(g):
    @functools.wraps(g.fad)
    def f(x):
        return g.fad(fad.stop_gradient(x))
    return Fn(f, g.ref, True, g.vmaps)


TRANSFORMS = {"grad": t_grad, "jvp": t_jvp, "vjp": t_vjp, "vmap": t_vmap, "jit": t_jit,
              "no_grad": t_no_grad, "stop_gradient": t_stop_gradient}
assert list(TRANSFORMS) == NAMES


def random_function(rng):
    """A chain of 1-4 table rows on a (2, 2) array; binary rows take the input,
    the running value or a constant as second operand. A final step mixes elements
    (so that a skipped vmap cannot go unnoticed)."""
    steps = [(CHAIN_OPS[rng.integers(len(CHAIN_OPS))], "xhc"[rng.integers(3)])
             for _ in range(rng.integers(1, 5))]

    def run(xp, x, call):
        h = x
        for op, other in steps:
            c = C.astype(x.dtype)
            args = (h, *[{"x": x, "h": h, "c": c}[other]] * (op.arity - 1))
            h = call(op, *args)
        return h + 0.25 * xp.sum(h, axis=0)

    desc = " -> ".join(f"{op.name}({other})" if op.arity == 2 else op.name
                       for op, other in steps)
    return Fn(lambda x: run(fnp, x, lambda op, *a: op.fn(fnp, *a, **op.chain)),
              lambda x: run(np, x, lambda op, *a: op.numpy(*a, **op.chain))), desc


def nonlinear_function(rng):
    """A random function that is neither constant nor linear (``x - x`` or a
    transpose can be drawn): its derivative must vary, or derivative bugs hide."""
    probe = rng.uniform(-1, 1, (2, 2, 2))
    v = weights((2, 2), 5)
    while True:
        f, desc = random_function(rng)
        d0, d1 = (fd_directional(f.ref, p, v) for p in probe)
        if not np.allclose(d0, d1, atol=1e-2):
            return f, desc


def check(names, seed):
    salt = zlib.crc32("/".join(names).encode())
    rng = np.random.default_rng([salt, seed])
    f, desc = nonlinear_function(rng)
    note(f"{' o '.join(names)} applied to f = {desc}")
    for name in reversed(names):  # names[0] is the outermost transformation
        f = TRANSFORMS[name](f)
    x = rng.uniform(-1, 1, (BATCH,) * f.vmaps + (2, 2))
    got, want = np.asarray(f.fad(x)), np.asarray(f.ref(x))
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == np.float64
    scale = max(1.0, float(np.max(np.abs(want))))
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=RTOL * scale)
    # the same stack in float32 stays in float32
    got32 = np.asarray(f.fad(x.astype(np.float32)))
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32, got, rtol=2e-3, atol=2e-3 * scale)


def _params(depth):
    return [pytest.param(names, id="-".join(names))
            for names in itertools.product(NAMES, repeat=depth)]


_FAST = dict(derandomize=True, deadline=None, phases=(Phase.explicit, Phase.generate))


@pytest.mark.parametrize("names", _params(2))
@settings(max_examples=3, **_FAST)
@given(seed=st.integers(0, 2**32 - 1))
def test_pairs(names, seed):
    check(names, seed)


@pytest.mark.parametrize("names", _params(3))
@settings(max_examples=1, **_FAST)
@given(seed=st.integers(0, 2**32 - 1))
def test_triples(names, seed):
    check(names, seed)


# ---------------------------------------------------------------- minimal reproducers
def test_grad_of_no_grad_of_vmap_is_zero():
    x = np.linspace(0, 1, 3)
    g = fad.grad(lambda x: fnp.sum(fad.no_grad(fad.vmap(fnp.sin))(x)))(x)
    np.testing.assert_array_equal(g, np.zeros(3))


def test_grad_of_no_grad_of_jvp_is_zero():
    g = fad.grad(lambda x: fad.no_grad(lambda y: fad.jvp(fnp.sin, (y,), (1.0,))[1])(x))(0.5)
    assert float(g) == 0.0


def test_no_grad_of_grad_of_no_grad_is_the_gradient():
    f = lambda x: fnp.sin(x) * x
    got = fad.no_grad(fad.grad(fad.no_grad(f)))(0.5)
    assert float(got) == 0.0            # the gradient of a constant; got f(0.5)


def test_no_grad_of_grad_is_the_gradient_and_a_constant():
    f = lambda x: fnp.sin(x) * x
    g = fad.no_grad(fad.grad(f))
    assert float(g(0.5)) == pytest.approx(np.cos(0.5) * 0.5 + np.sin(0.5), rel=1e-12)
    assert float(fad.grad(g)(0.5)) == 0.0
    assert float(fad.grad(lambda x: g(x) * x)(0.5)) == pytest.approx(float(g(0.5)), rel=1e-12)


# ---------------------------------------------------------------- the harness itself
def test_reference_model_catches_wrong_answers():
    """The references are not vacuous: a wrong transformation is caught."""
    f = Fn(lambda x: fnp.sin(x) * x, lambda x: np.sin(x) * x)
    x = np.linspace(-1, 1, 4).reshape(2, 2)
    g = t_grad(f)
    np.testing.assert_allclose(g.fad(x), g.ref(x), rtol=RTOL)
    assert not np.allclose(g.ref(x), np.cos(x), rtol=RTOL)      # the wrong derivative
    assert np.all(t_grad(t_no_grad(f)).ref(x) == 0)
    assert np.all(t_grad(t_stop_gradient(f)).ref(x) == 0)
    v = t_vmap(f)
    xb = np.arange(12.0).reshape(3, 2, 2)
    np.testing.assert_allclose(v.fad(xb), v.ref(xb), rtol=1e-12)


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
