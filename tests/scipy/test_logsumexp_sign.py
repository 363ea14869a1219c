"""``fad.scipy.special.logsumexp`` with weights, ``return_sign`` and empty sums
against SciPy (values) and JAX (derivatives, in both arguments)."""

import warnings

import numpy as np
import pytest
import scipy.special as ss

import fad
import fad.nn as fnn
import fad.scipy.special as fsp

A = np.array([[1.0, 2.0, 0.5], [3.0, -1.0, 2.0]])
B = np.array([[1.0, -1.0, 0.3], [2.0, 0.0, 1.0]])
AXES = [dict(), dict(axis=1), dict(axis=0, keepdims=True), dict(axis=(0, 1))]


@pytest.mark.parametrize("kw", AXES)
def test_weights_and_sign_match_scipy(kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for b in (B, np.abs(B), None):
            out, sign = fsp.logsumexp(A, b=b, return_sign=True, **kw)
            want, want_sign = ss.logsumexp(A, b=b, return_sign=True, **kw)
            np.testing.assert_allclose(out, want, rtol=1e-14)
            np.testing.assert_array_equal(sign, want_sign)
            np.testing.assert_allclose(fsp.logsumexp(A, b=b, **kw), ss.logsumexp(A, b=b, **kw),
                                       rtol=1e-14)
            jitted = fad.jit(lambda a: fsp.logsumexp(a, b=b, return_sign=True, **kw))(A)
            np.testing.assert_allclose(jitted[0], want, rtol=1e-14)
    # all -inf, and the weights cancelling: -inf with the sign 0
    for a, b in ((np.array([-np.inf, -np.inf]), None), (np.array([1.0, 1.0]), [1.0, -1.0])):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            got = fsp.logsumexp(a, b=b, return_sign=True)
        assert tuple(map(float, got)) == tuple(map(float, ss.logsumexp(a, b=b, return_sign=True)))


def test_empty_sums_are_minus_infinity_as_scipy():
    assert float(fsp.logsumexp(np.array([]))) == ss.logsumexp(np.array([])) == -np.inf
    np.testing.assert_array_equal(fsp.logsumexp(np.zeros((2, 0)), axis=1),
                                  ss.logsumexp(np.zeros((2, 0)), axis=1))
    assert float(fnn.logsumexp(np.array([]))) == -np.inf
    out, sign = fsp.logsumexp(np.array([]), return_sign=True)
    assert float(out) == -np.inf and float(sign) == 0.0
    assert fad.grad(lambda a: fsp.logsumexp(a))(np.zeros(0)).shape == (0,)


def test_derivatives_match_jax():
    jax = pytest.importorskip("jax")
    import jax.scipy.special as js
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        for kw in AXES[:3]:
            ours = lambda a, b: fsp.logsumexp(a, b=b, return_sign=True, **kw)[0].sum()  # noqa: E731
            theirs = lambda a, b: js.logsumexp(a, b=b, return_sign=True, **kw)[0].sum()  # noqa: E731
            for i in (0, 1):
                np.testing.assert_allclose(fad.grad(ours, argnums=i)(A, B),
                                           jax.grad(theirs, argnums=i)(A, B), rtol=1e-12)
                np.testing.assert_allclose(fad.hessian(ours, argnums=i)(A, B),
                                           jax.hessian(theirs, argnums=i)(A, B),
                                           rtol=1e-10, atol=1e-12)
    finally:
        jax.config.update("jax_enable_x64", old)
