"""fad.lax's parallel and running scans and orderings: ``associative_scan``
against a sequential loop, ``cum*`` against NumPy (values, dtypes, edges,
derivatives, vmap, jit), ``top_k``, ``sort`` of several operands and
``sort_key_val``."""

from __future__ import annotations

import numpy as np
import pytest

import fad
import fad.numpy as fnp
from fad import lax


def close(got, want, rtol=1e-7, atol=1e-10):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)


def sequential(fn, xs, reverse=False):
    """The prefix combinations by a Python loop along axis 0 (a list of arrays
    per leaf of a tuple ``xs``)."""
    n = xs[0].shape[0]
    order = range(n - 1, -1, -1) if reverse else range(n)
    out, acc = [None] * n, None
    for i in order:
        here = tuple(x[i] for x in xs)
        acc = here if acc is None else fn(acc, here)
        out[i] = acc
    return tuple(fnp.stack([o[k] for o in out]) for k in range(len(xs)))


def linear(a, b):
    """(a, b) . (a', b') = (a a', a' b + b'): composing h -> a h + b then a' h + b'."""
    return a[0] * b[0], b[0] * a[1] + b[1]


# ---------------------------------------------------------------- associative_scan
@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 7, 8, 9, 16])
@pytest.mark.parametrize("reverse", [False, True])
def test_associative_scan_equals_a_loop(n, reverse):
    rng = np.random.default_rng(n)
    x = rng.uniform(0.5, 1.5, (n, 2))
    flip = (lambda v: v[::-1]) if reverse else (lambda v: v)
    close(lax.associative_scan(fnp.add, x, reverse=reverse), flip(np.cumsum(flip(x), 0)))
    close(lax.associative_scan(fnp.multiply, x, reverse=reverse),
          flip(np.cumprod(flip(x), 0)))
    close(lax.associative_scan(fnp.maximum, x, reverse=reverse),
          flip(np.maximum.accumulate(flip(x), 0)))
    if n:
        a, b = rng.uniform(-1, 1, (n, 2)), rng.normal(size=(n, 2))
        got = lax.associative_scan(linear, (a, b), reverse=reverse)
        want = sequential(linear, (a, b), reverse)
        close(got[0], want[0])
        close(got[1], want[1])


def test_associative_scan_derivatives_vmap_and_jit_match_the_loop():
    rng = np.random.default_rng(0)
    a, b = rng.uniform(-1, 1, 7), rng.normal(size=7)

    def f(a, b):
        return fnp.sum(lax.associative_scan(linear, (a, b))[1] ** 2)

    def ref(a, b):
        return fnp.sum(sequential(linear, (a, b))[1] ** 2)

    close(fad.jit(f)(a, b), ref(a, b))
    for got, want in zip(fad.jit(fad.grad(f, (0, 1)))(a, b), fad.grad(ref, (0, 1))(a, b)):
        close(got, want)
    close(fad.hessian(f)(a, b), fad.hessian(ref)(a, b))
    ab = np.stack([a, a * 0.5]), np.stack([b, -b])
    close(fad.vmap(f)(*ab), [ref(a, b), ref(a * 0.5, -b)])
    close(fad.jit(fad.vmap(fad.grad(f)))(*ab), [fad.grad(ref)(a, b), fad.grad(ref)(a * 0.5, -b)])
    fad.check_grads(f, (a, b), order=2)


def test_associative_scan_along_another_axis_with_a_pytree():
    x = np.arange(24.0).reshape(2, 3, 4)
    got = lax.associative_scan(lambda l, r: {"s": l["s"] + r["s"], "m": fnp.maximum(
        l["m"], r["m"])}, {"s": x, "m": -x}, axis=-1, reverse=True)
    close(got["s"], np.flip(np.cumsum(np.flip(x, 2), 2), 2))
    close(got["m"], np.flip(np.maximum.accumulate(np.flip(-x, 2), 2), 2))


def test_associative_scan_errors():
    with pytest.raises(TypeError, match="fn must be callable"):
        lax.associative_scan(1, np.ones(3))
    with pytest.raises(ValueError, match="same length along axis"):
        lax.associative_scan(lambda a, b: a, (np.ones(3), np.ones(4)))
    with pytest.raises(TypeError, match="must return the structure of elems"):
        lax.associative_scan(lambda a, b: a[0], (np.ones(3), np.ones(3)))
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        lax.associative_scan(fnp.add, np.ones((2, 2)), axis=2)


# ---------------------------------------------------------------- cum*
def running(ufunc, x, axis, reverse):
    flip = (lambda v: np.flip(v, axis)) if reverse else (lambda v: v)
    return flip(ufunc.accumulate(flip(x), axis=axis))


CUMULATIVE = [(lax.cumsum, np.add), (lax.cumprod, np.multiply), (lax.cummax, np.maximum),
              (lax.cummin, np.minimum), (lax.cumlogsumexp, np.logaddexp)]


@pytest.mark.parametrize("f,ufunc", CUMULATIVE, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumulative_values_vmap_and_jit(f, ufunc, axis, reverse):
    x = np.random.default_rng(1).normal(size=(3, 5))
    want = running(ufunc, x, axis % 2, reverse)
    close(f(x, axis, reverse), want)
    close(fad.jit(lambda x: f(x, axis, reverse))(x), want)
    xs = np.stack([x, x[::-1] * 2.0])
    close(fad.vmap(lambda x: f(x, axis, reverse))(xs),
          [want, running(ufunc, x[::-1] * 2.0, axis % 2, reverse)])
    g = fad.grad(lambda x: fnp.sum(fnp.sin(f(x, axis, reverse))))
    close(fad.jit(g)(x), g(x))
    close(fad.vmap(g)(xs), [g(xs[0]), g(xs[1])])


@pytest.mark.parametrize("f", [lax.cumsum, lax.cumprod, lax.cummax, lax.cummin,
                               lax.cumlogsumexp])
def test_cumulative_edges(f):
    x32 = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    assert f(x32, 1).dtype == np.float32
    assert fad.grad(lambda x: fnp.sum(f(x, 1)))(x32).dtype == np.float32
    assert f(np.zeros((0, 3)), 0).shape == (0, 3)
    assert f(np.zeros((2, 0)), 1).shape == (2, 0)
    close(f(np.float64(1.5)), 1.5)
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        f(np.ones((2, 2)), 2)


def test_cumulative_integers_and_nan():
    i = np.array([3, 1, 4, 1, 5])
    assert lax.cummax(i).tolist() == [3, 3, 4, 4, 5]
    assert lax.cummin(i, reverse=True).tolist() == [1, 1, 1, 1, 5]
    assert lax.cumsum(i).dtype == i.dtype
    close(lax.cummax(np.array([1.0, np.nan, 2.0])), [1.0, np.nan, np.nan])
    with pytest.raises(TypeError, match="cumlogsumexp takes floating-point"):
        lax.cumlogsumexp(i)
    with pytest.raises(TypeError, match="cummax takes real"):
        lax.cummax(np.ones(2, complex))


def test_cummax_derivative_goes_to_the_running_argmax():
    x = np.array([1.0, 3.0, 2.0, 5.0, 0.0])
    jac = fad.jacrev(lax.cummax)(x)
    assert jac.argmax(1).tolist() == [0, 1, 1, 3, 3] and jac.sum(1).tolist() == [1.0] * 5
    jac = fad.jacfwd(lambda x: lax.cummax(x, reverse=True))(x)
    assert jac.argmax(1).tolist() == [3, 3, 3, 3, 4]
    jac = fad.jacrev(lambda x: lax.cummin(x, reverse=True))(x)
    assert jac.argmax(1).tolist() == [4, 4, 4, 4, 4]
    # a tie passes the derivative to the latest maximum in scan order (one of them)
    t = np.array([2.0, 2.0, 1.0])
    assert fad.jacrev(lax.cummax)(t).tolist() == [[1, 0, 0], [0, 1, 0], [0, 1, 0]]
    fad.check_grads(lambda x: lax.cummax(x, reverse=True), (x,), order=2)


def test_cumlogsumexp_is_stable_and_its_derivative_is_a_running_softmax():
    big = np.array([-1000.0, 0.0, 1000.0, 1000.0])
    close(lax.cumlogsumexp(big), [-1000.0, 0.0, 1000.0, 1000.0 + np.log(2.0)])
    g = fad.jacrev(lax.cumlogsumexp)(big)
    assert np.isfinite(g).all()
    close(g[3], [0.0, 0.0, 0.5, 0.5])
    x = np.random.default_rng(2).normal(size=6)
    jac = fad.jacfwd(lax.cumlogsumexp)(x)
    for i in range(6):
        w = np.exp(x[:i + 1] - np.logaddexp.reduce(x[:i + 1]))
        close(jac[i], np.concatenate([w, np.zeros(5 - i)]))
    fad.check_grads(lambda x: lax.cumlogsumexp(x, reverse=True), (x,), order=2)
    close(lax.cumlogsumexp(np.array([-np.inf, 0.0])), [-np.inf, 0.0])


def test_cumulative_against_jax():
    jax = pytest.importorskip("jax")
    x = np.random.default_rng(3).normal(size=(4, 3)).astype(np.float32)
    for name in ("cummax", "cummin", "cumlogsumexp", "cumsum", "cumprod"):
        for reverse in (False, True):
            f = lambda v: (getattr(lax, name)(v, 0, reverse) ** 2).sum()  # noqa: E731
            j = lambda v: (getattr(jax.lax, name)(v, 0, reverse) ** 2).sum()  # noqa: E731
            close(fad.grad(f)(x), np.asarray(jax.grad(j)(x)), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- top_k, sort
def test_top_k():
    x = np.array([[1.0, 4.0, 2.0, 4.0, 3.0], [0.0, -1.0, 5.0, 2.0, 2.0]])
    v, i = lax.top_k(x, 3)
    assert v.tolist() == [[4.0, 4.0, 3.0], [5.0, 2.0, 2.0]]
    assert i.tolist() == [[1, 3, 4], [2, 3, 4]] and i.dtype == np.int32
    v, i = fad.jit(lambda x: lax.top_k(x, 2))(x)
    assert i.tolist() == [[1, 3], [2, 3]]
    g = fad.grad(lambda x: fnp.sum(lax.top_k(x, 2)[0] * np.array([10.0, 1.0])))(x)
    assert g.tolist() == [[0, 10, 0, 1, 0], [0, 0, 10, 1, 0]]
    vb, ib = fad.vmap(lambda x: lax.top_k(x, 2))(x)
    assert ib.tolist() == [[1, 3], [2, 3]]
    assert lax.top_k(x, 0)[0].shape == (2, 0)
    assert lax.top_k(np.array([3, 1, 2]), 1)[0].tolist() == [3]
    with pytest.raises(ValueError, match=r"k must be an int in \[0, 5\]"):
        lax.top_k(x, 6)
    with pytest.raises(ValueError, match="at least one axis"):
        lax.top_k(np.float64(1.0), 1)


def test_sort_of_several_operands():
    k1 = np.array([2, 1, 2, 1, 0])
    k2 = np.array([0.5, 0.2, 0.1, 0.3, 0.9])
    v = np.array([10.0, 20.0, 30.0, 40.0, 50.0])
    order = np.lexsort((k2, k1))
    a, b, c = lax.sort((k1, k2, v), num_keys=2)
    assert a.tolist() == k1[order].tolist() and c.tolist() == v[order].tolist()
    a, b, c = fad.jit(lambda *ops: lax.sort(ops, num_keys=2))(k1, k2, v)
    assert c.tolist() == v[order].tolist()
    a, c = lax.sort((k1, v), num_keys=1)  # stable on ties of the one key
    assert c.tolist() == v[np.argsort(k1, kind="stable")].tolist()
    g = fad.grad(lambda v: fnp.sum(lax.sort((k1, v))[1] * np.arange(5.0)))(v)
    assert g.tolist() == np.argsort(np.argsort(k1, kind="stable")).astype(float).tolist()
    m = np.array([[3.0, 1.0, 2.0], [0.0, 2.0, 1.0]])
    close(lax.sort(m, 0), np.sort(m, 0))
    close(lax.sort(m), np.sort(m, -1))
    close(fad.vmap(lambda m: lax.sort((m, -m))[1])(m), -np.sort(m, -1))
    assert isinstance(lax.sort([m]), tuple)
    with pytest.raises(ValueError, match="num_keys must be an int in"):
        lax.sort((k1, v), num_keys=3)
    with pytest.raises(TypeError, match="share one shape"):
        lax.sort((k1, np.ones(3)))
    with pytest.raises(TypeError, match="keys must be real"):
        lax.sort(np.ones(3, complex))


def test_sort_key_val():
    k, v = lax.sort_key_val(np.array([3, 1, 2]), np.array([30.0, 10.0, 20.0]))
    assert k.tolist() == [1, 2, 3] and v.tolist() == [10.0, 20.0, 30.0]
    g = fad.grad(lambda v: lax.sort_key_val(np.array([3, 1, 2]), v)[1][0])(np.ones(3))
    assert g.tolist() == [0.0, 1.0, 0.0]
