"""``fad.scipy.special``'s functions beyond the operator table's laws: values at
the edges of their domains against SciPy, the derivative of ``gammainc`` in
``a`` (a series) against SciPy's differences and JAX, the derivatives that do
not exist raising, and ``fad.numpy.i0``."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special

import fad
import fad.numpy as fnp
import fad.scipy.special as fsp

EDGES = {
    "i0e": np.array([-1e3, -30.0, -1e-8, 0.0, 2.5, 700.0, 1e5]),
    "i1e": np.array([-1e3, -30.0, -1e-8, 0.0, 2.5, 700.0, 1e5]),
    "i0": np.array([-700.0, -30.0, 0.0, 1e-8, 2.5, 700.0]),
    "i1": np.array([-700.0, -30.0, 0.0, 1e-8, 2.5, 700.0]),
    "ndtr": np.array([-38.0, -10.0, -1.0, 0.0, 0.5, 8.0, 40.0]),
    "log_ndtr": np.array([-1e5, -40.0, -10.0, -1.0, 0.0, 5.0, 40.0]),
    "ndtri": np.array([0.0, 1e-300, 1e-12, 0.3, 0.5, 0.9, 1 - 1e-12, 1.0]),
    "gamma": np.array([-2.5, -0.5, 0.1, 1.0, 4.5, 20.0, 170.0]),
    "entr": np.array([-1.0, 0.0, 1e-300, 0.5, 3.0, np.inf, np.nan]),
}
PAIRS = {
    "beta": (np.array([0.1, 1.0, 4.5, 300.0])[:, None], np.array([0.2, 2.0, 1e3])),
    "betaln": (np.array([0.1, 1.0, 4.5, 300.0])[:, None], np.array([0.2, 2.0, 1e3])),
    "gammainc": (np.array([0.1, 1.0, 4.5, 300.0])[:, None], np.array([0.0, 0.2, 2.0, 500.0])),
    "gammaincc": (np.array([0.1, 1.0, 4.5, 300.0])[:, None], np.array([0.0, 0.2, 2.0, 500.0])),
    "zeta": (np.array([1.5, 2.0, 7.0])[:, None], np.array([0.5, 1.0, 30.0])),
    "rel_entr": (np.array([-1.0, 0.0, 0.5, 2.0, np.nan])[:, None],
                 np.array([-1.0, 0.0, 0.3, 4.0])),
    "kl_div": (np.array([-1.0, 0.0, 0.5, 2.0, np.nan])[:, None],
               np.array([-1.0, 0.0, 0.3, 4.0])),
}


@pytest.mark.parametrize("name", sorted(EDGES))
def test_unary_values_at_the_edges(name):
    x = EDGES[name]
    with np.errstate(all="ignore"):
        want = getattr(scipy.special, name)(x)
        got = np.asarray(getattr(fsp, name)(x))
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_binary_values_broadcast(name):
    a, b = PAIRS[name]
    with np.errstate(all="ignore"):
        want = getattr(scipy.special, name)(a, b)
        got = np.asarray(getattr(fsp, name)(a, b))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)


def test_inverse_functions():
    a, p = np.array([0.3, 1.0, 4.5, 300.0])[:, None], np.array([0.0, 1e-10, 0.3, 0.99, 1.0])
    np.testing.assert_allclose(fsp.gammaincinv(a, p), scipy.special.gammaincinv(a, p),
                               rtol=1e-13)
    np.testing.assert_allclose(fsp.gammainccinv(a, p), scipy.special.gammainccinv(a, p),
                               rtol=1e-13)
    b = np.array([0.7, 30.0])[:, None, None]
    np.testing.assert_allclose(fsp.betaincinv(a, b, p), scipy.special.betaincinv(a, b, p),
                               rtol=1e-13)
    np.testing.assert_allclose(fsp.betainccinv(a, b, p), scipy.special.betainccinv(a, b, p),
                               rtol=1e-13)
    # the complementary inverses keep their digits where 1 - q rounds to 1
    assert float(fsp.gammainccinv(1.0, 1e-300)) == pytest.approx(300 * np.log(10), rel=1e-14)
    # the derivatives of the inverse: 1 / dP/dx in p; in a, -dP/da / dP/dx
    a, p = np.array([0.8, 2.5, 30.0]), np.array([0.1, 0.5, 0.95])
    fad.check_grads(fsp.gammaincinv, (a, p), order=2, atol=1e-5, rtol=1e-5)
    fad.check_grads(lambda y: fsp.betaincinv(2.5, 0.7, y), (p,), order=2, atol=1e-5, rtol=1e-5)
    fad.check_grads(fsp.gammainccinv, (a, p), order=2, atol=1e-5, rtol=1e-5)
    fad.check_grads(lambda y: fsp.betainccinv(2.5, 0.7, y), (p,), order=2, atol=1e-5, rtol=1e-5)


def test_betainc_and_multigammaln_values():
    a, b, x = np.array([0.5, 2.0])[:, None, None], np.array([0.7, 30.0])[:, None], \
        np.array([0.0, 1e-5, 0.4, 1.0])
    np.testing.assert_allclose(fsp.betainc(a, b, x), scipy.special.betainc(a, b, x), rtol=1e-13)
    a = np.array([3.0, 5.5, 40.0])
    for d in (1, 3, 5):
        np.testing.assert_allclose(fsp.multigammaln(a, d), scipy.special.multigammaln(a, d),
                                   rtol=1e-13)


# the series (x <= a + 20) and the quadrature (above), near the switch and far out
@pytest.mark.parametrize("a, x", [(0.3, 0.1), (1.0, 2.0), (4.5, 0.7), (3.0, 22.0), (3.0, 23.5),
                                  (4.5, 30.0), (60.0, 55.0), (10.0, 250.0), (1e3, 1e3),
                                  (1e3, 1.1e3)])
def test_gammainc_derivative_in_a(a, x):
    h = 1e-6 * max(1.0, a)
    # from Q = 1 - P, which keeps its digits where P is close to 1
    want = (scipy.special.gammaincc(a - h, x) - scipy.special.gammaincc(a + h, x)) / (2 * h)
    got = fad.grad(fsp.gammainc)(a, x)
    assert float(got) == pytest.approx(want, rel=1e-6, abs=1e-300)
    assert float(fad.grad(fsp.gammaincc)(a, x)) == pytest.approx(-want, rel=1e-6, abs=1e-300)


def test_gammainc_derivatives_against_jax():
    jax = pytest.importorskip("jax")
    jsp = pytest.importorskip("jax.scipy.special")
    a, x = np.array([0.5, 2.0, 7.5, 3.0]), np.array([0.3, 2.5, 9.0, 40.0])
    with jax.enable_x64(True):  # float64 for this test only
        want = jax.vmap(jax.grad(jsp.gammainc, argnums=(0, 1)))(a, x)
    got = fad.vmap(fad.grad(fsp.gammainc, argnums=(0, 1)))(a, x)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-9)


def test_higher_derivatives_of_the_new_primitives():
    x = np.array([-1.3, 0.4, 2.2])
    for f in (fsp.i0e, fsp.i1e, fsp.log_ndtr, fsp.gamma, lambda v: fsp.ndtri(fsp.ndtr(v))):
        fad.check_grads(f, (x,), order=3, atol=1e-5, rtol=1e-5)
    fad.check_grads(lambda a, x: fsp.gammainc(a, x), (np.array([1.5, 3.0]), np.array([0.7, 2.5])),
                    order=2, atol=1e-5, rtol=1e-5)
    # the log_ndtr derivative stays finite and exact far in the lower tail
    assert float(fad.grad(fsp.log_ndtr)(-1e4)) == pytest.approx(1e4, rel=1e-7)
    assert float(fad.grad(fsp.i1e)(0.0)) == 0.5


def test_derivatives_without_closed_form_raise():
    with pytest.raises(NotImplementedError, match="zeta in x"):
        fad.grad(fsp.zeta)(2.0, 1.5)
    with pytest.raises(NotImplementedError, match="q=1.0"):
        fsp.zeta(2.0)
    with pytest.raises(ValueError, match="multigammaln: d must be a positive int"):
        fsp.multigammaln(3.0, 0)


def test_dtypes_kept_and_complex_rejected():
    x32 = np.array([0.5, 1.5], np.float32)
    for name in ("i0", "i0e", "i1", "i1e", "ndtr", "ndtri", "log_ndtr", "gamma", "entr"):
        arg = x32 / 2 if name == "ndtri" else x32
        assert getattr(fsp, name)(arg).dtype == np.float32, name
    assert fsp.gammainc(x32, 2.0).dtype == np.float32  # a Python number is weak
    assert fsp.gammainc(x32, np.float64(2.0)).dtype == np.float64
    assert fsp.ndtr(3).dtype == np.float64
    with pytest.raises(TypeError, match="fad.scipy.special.gammainc takes real numbers"):
        fsp.gammainc(1j, 2.0)


def test_numpy_i0():
    x = np.array([-3.0, 0.0, 0.7, 25.0])
    np.testing.assert_allclose(fnp.i0(x), np.i0(x), rtol=1e-14)
    np.testing.assert_allclose(fad.vmap(fad.grad(fnp.i0))(x), scipy.special.i1(x), rtol=1e-14)
    assert fnp.i0(np.arange(3)).dtype == np.float64
    assert fnp.i0(np.ones(2, np.float32)).dtype == np.float32
    assert fad.jit(fnp.i0)(x).tolist() == fnp.i0(x).tolist()
    with pytest.raises(TypeError, match="fad.numpy.i0 takes real numbers"):
        fnp.i0(np.array([1j]))
