"""Every ordered pair of {grad, jvp, vjp, vmap, jit, no_grad}, and every triple,
composed over random functions drawn from the operator table, against an
un-transformed reference: central finite differences for the derivatives, a
Python loop for vmap, plain evaluation for jit (NumPy all the way down), and
"a constant" for no_grad (every derivative taken around it is zero).

Each transformation maps an array function to an array function:

* ``grad``: ``x -> grad(lambda x: sum(f(x) * w))(x)``  (``w`` fixed weights)
* ``jvp``:  ``x -> jvp(f, (x,), (v,))[1]``             (``v`` fixed tangent)
* ``vjp``:  ``x -> vjp(f, x)[1](u)[0]``                 (``u`` fixed cotangent)
* ``vmap``: ``vmap(f)``, over a new leading axis of size 3
* ``jit``:  ``jit(f)``;  ``no_grad``: ``no_grad(f)``

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

import fad
import fad.numpy as fnp

try:  # the shared operator table (written in parallel): reuse its chainable entries
    from operator_table import CHAIN_OPS
    OPS = [(op.name, op.arity, functools.partial(lambda op, xp, *a: op.fn(xp, *a, **op.chain), op),
            functools.partial(lambda op, *a: op.numpy(*a, **op.chain), op))
           for op in CHAIN_OPS]
except Exception:  # pragma: no cover - missing or mid-edit
    OPS = []
if not OPS:  # pragma: no cover - a small table of our own
    OPS = [(name, arity, (lambda f: lambda xp, *a: f(xp, *a))(fn),
            (lambda f: lambda *a: f(np, *a))(fn)) for name, arity, fn in [
        ("sin", 1, lambda xp, a: xp.sin(a)),
        ("tanh", 1, lambda xp, a: xp.tanh(a)),
        ("square", 1, lambda xp, a: a * a),
        ("neg_T", 1, lambda xp, a: -a.T),
        ("reverse", 1, lambda xp, a: a[::-1]),
        ("mul", 2, lambda xp, a, b: a * b),
        ("sub", 2, lambda xp, a, b: a - b),
        ("matmul", 2, lambda xp, a, b: a @ b)]]

NAMES = ["grad", "jvp", "vjp", "vmap", "jit", "no_grad"]
BATCH = 3          # vmap's axis size (differs from the (2, 2) example shape on purpose)
EPS = 1e-3         # central differences, nested up to three deep
RTOL = 1e-4
C = np.array([[0.3, -0.2], [0.5, 0.1]])


def weights(shape, salt):
    n = int(np.prod(shape))
    return np.cos(1.3 * np.arange(n) + salt).reshape(shape)


class Fn:
    """A function under test (``fad``) and its reference (``ref``, NumPy)."""

    def __init__(self, fad_fn, ref, const=False, vmaps=0):
        self.fad, self.ref, self.const, self.vmaps = fad_fn, ref, const, vmaps


def _fd_grad(scalar, x):
    x = np.asarray(x, np.float64)
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[idx] = EPS
        g[idx] = (scalar(x + e) - scalar(x - e)) / (2 * EPS)
    return g


def t_grad(g):
    @functools.wraps(g.fad)
    def scalar(x):
        y = g.fad(x)
        return fnp.sum(y * weights(y.shape, 1))

    def ref(x):
        if g.const:
            return np.zeros_like(x)
        return _fd_grad(lambda z: np.sum(g.ref(z) * weights(np.shape(g.ref(z)), 1)), x)
    return Fn(fad.grad(scalar), ref, g.const, g.vmaps)


def t_jvp(g):
    @functools.wraps(g.fad)
    def f(x):
        return fad.jvp(g.fad, (x,), (weights(x.shape, 2),))[1]

    def ref(x):
        if g.const:
            return np.zeros_like(g.ref(x))
        v = weights(x.shape, 2)
        return (g.ref(x + EPS * v) - g.ref(x - EPS * v)) / (2 * EPS)
    return Fn(f, ref, g.const, g.vmaps)


def t_vjp(g):
    @functools.wraps(g.fad)
    def f(x):
        y, pull = fad.vjp(g.fad, x)
        return pull(weights(y.shape, 3))[0]

    def ref(x):
        if g.const:
            return np.zeros_like(x)
        return _fd_grad(lambda z: np.sum(g.ref(z) * weights(np.shape(g.ref(z)), 3)), x)
    return Fn(f, ref, g.const, g.vmaps)


def t_vmap(g):
    return Fn(fad.vmap(g.fad), lambda x: np.stack([g.ref(xi) for xi in x]), g.const,
              g.vmaps + 1)


def t_jit(g):
    return Fn(fad.jit(g.fad), g.ref, g.const, g.vmaps)


def t_no_grad(g):
    return Fn(fad.no_grad(g.fad), g.ref, True, g.vmaps)


TRANSFORMS = {"grad": t_grad, "jvp": t_jvp, "vjp": t_vjp, "vmap": t_vmap, "jit": t_jit,
              "no_grad": t_no_grad}


def random_function(rng):
    """A chain of 1-3 table entries on a (2, 2) array; binary entries take the input,
    the running value or a constant as second operand. A final step mixes elements
    (so that a skipped vmap cannot go unnoticed)."""
    steps = [(OPS[rng.integers(len(OPS))], "xhc"[rng.integers(3)])
             for _ in range(rng.integers(1, 4))]

    def run(xp, x, pick):
        h = x
        for op, other in steps:
            args = (h,) if op[1] == 1 else (h, {"x": x, "h": h, "c": C}[other])
            h = pick(op)(*args)
        return h + 0.25 * xp.sum(h, axis=0)

    desc = " -> ".join(f"{op[0]}({other})" if op[1] == 2 else op[0] for op, other in steps)
    return Fn(lambda x: run(fnp, x, lambda op: functools.partial(op[2], fnp)),
              lambda x: run(np, x, lambda op: op[3])), desc


def nonlinear_function(rng):
    """A random function that is neither constant nor linear (``x - x`` or a
    transpose can be drawn): its derivative must vary, or derivative bugs hide."""
    probe = rng.uniform(-1, 1, (2, 2, 2))
    v = weights((2, 2), 5)
    while True:
        f, desc = random_function(rng)
        d0, d1 = ((f.ref(p + EPS * v) - f.ref(p - EPS * v)) / (2 * EPS) for p in probe)
        if not np.allclose(d0, d1, atol=1e-2):
            return f, desc


def check(names, seed):
    salt = zlib.crc32("/".join(names).encode())
    rng = np.random.default_rng([salt, seed])
    f, desc = nonlinear_function(rng)
    note(f"{' o '.join(names)} applied to f = {desc}")
    for name in reversed(names):
        f = TRANSFORMS[name](f)
    x = rng.uniform(-1, 1, (BATCH,) * f.vmaps + (2, 2))
    got, want = np.asarray(f.fad(x)), np.asarray(f.ref(x))
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == np.float64
    scale = max(1.0, float(np.max(np.abs(want))))
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=RTOL * scale)


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
    v = t_vmap(f)
    xb = np.arange(12.0).reshape(3, 2, 2)
    np.testing.assert_allclose(v.fad(xb), v.ref(xb), rtol=1e-12)
