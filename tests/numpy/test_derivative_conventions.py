"""Derivatives where finite differences say nothing, as written conventions:
kinks and ties (``abs``, ``maximum``, ``sort``), zeros and infinities (``sqrt``,
``hypot``, ``logaddexp``, ``prod``), NaN in an unselected ``where`` branch, the
accuracy of ``sigmoid`` on both tails, and derivatives in arguments the operator
table holds static (``quantile``'s ``q``, ``linspace``'s ends) or through
composite functions (``interp``, ``cov``...). The linear-algebra conventions
(norms at zero, singular matrices) are in test_linalg.py.
"""

import math
import warnings

import numpy as np
import pytest

import fad
import fad.numpy as fnp
from fad.testing import assert_grad_matches_finite_differences


def test_abs_and_maximum_at_ties():
    assert float(fad.grad(fnp.abs)(0.0)) == 0.0
    gx, gy = fad.grad(fnp.maximum, argnums=(0, 1))(1.0, 1.0)
    assert (float(gx), float(gy)) == (0.5, 0.5)
    gx, gy = fad.grad(fnp.minimum, argnums=(0, 1))(1.0, 1.0)
    assert (float(gx), float(gy)) == (0.5, 0.5)
    g = fad.grad(fnp.max)(np.array([1.0, 3.0, 3.0]))
    assert g.tolist() == [0.0, 0.5, 0.5]
    g = fad.grad(lambda x: fnp.sum(fnp.sort(x) * np.array([1.0, 2.0, 3.0])))(
        np.array([2.0, 1.0, 2.0]))
    assert g.tolist() == [2.0, 1.0, 3.0]  # tied values keep their input order


def test_sqrt_and_cbrt_at_zero():
    assert float(fad.grad(fnp.sqrt)(0.0)) == np.inf
    assert float(fad.grad(fnp.cbrt)(0.0)) == np.inf


def test_hypot_logaddexp_sinc_safe():
    assert fad.grad(fnp.hypot, argnums=(0, 1))(0.0, 0.0) == (0.0, 0.0)
    gx, gy = fad.grad(fnp.logaddexp, argnums=(0, 1))(-np.inf, -np.inf)
    assert (float(gx), float(gy)) == (0.5, 0.5)
    gx, gy = fad.grad(fnp.logaddexp, argnums=(0, 1))(np.inf, 1.0)
    assert (float(gx), float(gy)) == (1.0, 0.0)
    for k, want in [(1, 0.0), (2, -np.pi ** 2 / 3), (3, 0.0), (4, np.pi ** 4 / 5)]:
        f = fnp.sinc
        for _ in range(k):
            f = fad.grad(f)
        np.testing.assert_allclose(float(f(0.0)), want, atol=1e-9)


def test_logsumexp_with_minus_inf_has_finite_gradient():
    import fad.nn as nn
    x = np.array([0.0, -np.inf, 1.0])
    g = fad.grad(nn.logsumexp)(x)
    assert np.all(np.isfinite(g)) and g[1] == 0.0
    g = fad.grad(nn.logsumexp)(np.full(2, -np.inf))
    assert not np.any(np.isnan(g))


def test_where_nan_branch_convention():
    """The unselected branch gets no derivative, but NaN inside its own
    derivative leaks (0 * NaN): the documented reason for the double where."""
    f = lambda x: fnp.where(x > 0, fnp.sqrt(x), 0.0)
    assert np.isnan(float(fad.grad(f)(-1.0)))
    safe = lambda x: fnp.where(x > 0, fnp.sqrt(fnp.where(x > 0, x, 1.0)), 0.0)
    assert float(fad.grad(safe)(-1.0)) == 0.0


def test_prod_and_cumprod_exact_at_zeros():
    x = np.array([2.0, 0.0, 3.0, 0.0])
    assert fad.grad(fnp.prod)(x).tolist() == [0.0, 0.0, 0.0, 0.0]
    x = np.array([2.0, 0.0, 3.0])
    assert fad.grad(fnp.prod)(x).tolist() == [0.0, 6.0, 0.0]
    J = fad.jacfwd(fnp.cumprod)(x)
    np.testing.assert_array_equal(J, [[1, 0, 0], [0, 2, 0], [0, 6, 0]])
    H = fad.hessian(fnp.prod)(x)
    np.testing.assert_array_equal(H, [[0, 3, 0], [3, 0, 2], [0, 2, 0]])


def test_second_derivatives_at_ties_and_zero_exponents():
    """Mixed partials of x ** y at y = 0 agree both ways (1/x); logaddexp's second
    derivative at a finite tie is 1/4, not 0; relu keeps NaN."""
    h = fad.hessian(fnp.power, argnums=(0, 1))(2.0, 0.0)
    assert float(h[0][1]) == float(h[1][0]) == 0.5
    assert float(fad.grad(fad.grad(lambda x: fnp.logaddexp(x, 1.5)))(1.5)) == 0.25
    assert float(fad.grad(lambda x: fnp.logaddexp(x, np.inf))(np.inf)) == 0.5
    assert float(fad.grad(lambda x: fnp.power(x, 0.0))(0.0)) == 0.0
    import fad.nn as nn
    got = np.asarray(nn.relu(np.array([np.nan, -1.0, 0.0, 2.0])))
    assert np.isnan(got[0]) and got[1:].tolist() == [0.0, 0.0, 2.0]
    assert float(fad.grad(nn.relu)(0.0)) == 0.0


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sigmoid_is_accurate_on_both_tails(dtype):
    """logistic = 1 / (1 + e^-x): relative accuracy on both tails (no cancellation),
    no overflow warning, e^x below the overflow point, exactly 0 and 1 at -inf, inf."""
    x = np.array([-np.inf, -1000, -720, -100, -40, -3, 0, 3, 40, 1000, np.inf], dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = np.asarray(fad.nn.sigmoid(x))
    want = np.array([0.0 if v == -np.inf else 1.0 if v == np.inf else
                     1 / (1 + math.exp(-v)) if v > -700 else math.exp(v) for v in x.astype(float)])
    assert got.dtype == dtype and got[0] == 0 and got[-1] == 1
    tiny = np.finfo(dtype).tiny
    normal = want >= tiny
    np.testing.assert_allclose(got[normal], want[normal], rtol=4 * np.finfo(dtype).eps)
    assert np.all(np.abs(got[~normal] - want[~normal]) <= tiny)


def test_sigmoid_nan_empty_and_no_tail():
    """NaN stays NaN next to a far-left-tail value; an empty array and an array
    with nothing past the overflow point take the short path."""
    got = np.asarray(fad.nn.sigmoid(np.array([np.nan, -800.0, 0.0])))
    assert np.isnan(got[0]) and got[1] == math.exp(-800.0) and got[2] == 0.5
    assert np.asarray(fad.nn.sigmoid(np.zeros(0))).shape == (0,)
    x = np.linspace(-30, 30, 7)
    np.testing.assert_allclose(fad.nn.sigmoid(x), 1 / (1 + np.exp(-x)), rtol=1e-15)


def test_quantile_and_percentile_are_differentiable_in_q():
    """Linear interpolation between order statistics: d/dq = (x_hi - x_lo)(n - 1)
    (q was silently a constant)."""
    v = np.array([3.0, 1.0, 4.0, 1.5, 9.0])
    assert float(fad.grad(lambda q: fnp.quantile(v, q))(0.3)) == pytest.approx(6.0)
    assert float(fad.grad(lambda q: fnp.percentile(v, q))(30.0)) == pytest.approx(0.06)
    np.testing.assert_allclose(fad.jacfwd(lambda q: fnp.quantile(v, q))(np.array([0.3, 0.9])),
                               [[6.0, 0.0], [0.0, 20.0]])
    with pytest.raises(ValueError, match=r"Percentiles must be in the range \[0, 100\]"):
        fnp.percentile(v, 150)


def test_spaced_samples_are_differentiable_in_their_ends():
    """linspace / logspace / geomspace with traced ends: values as NumPy's, and
    derivatives in start and stop (not cut to zero)."""
    x = np.array([1.0, 3.0])
    np.testing.assert_allclose(fad.jacfwd(lambda x: fnp.linspace(x[0], x[1], 3))(x),
                               [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    np.testing.assert_allclose(
        fad.jacrev(lambda x: fnp.linspace(x[0], x[1], 4, endpoint=False))(x),
        [[1.0, 0.0], [0.75, 0.25], [0.5, 0.5], [0.25, 0.75]])
    for f, g in ((lambda a, b: fnp.linspace(a, b, 5), lambda a, b: np.linspace(a, b, 5)),
                 (lambda a, b: fnp.logspace(a, b, 4), lambda a, b: np.logspace(a, b, 4)),
                 (lambda a, b: fnp.geomspace(a, b, 4), lambda a, b: np.geomspace(a, b, 4))):
        np.testing.assert_allclose(fad.jit(f)(1.0, 2.0), g(1.0, 2.0), rtol=1e-14)
        fad.check_grads(f, (1.0, 2.0), order=1, modes=("fwd", "rev"))


def test_composites_differentiate():
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    for f in (lambda v: fnp.interp(v, np.array([-1.5, 0.1, 2.5]), np.array([1.0, 3.0, 2.0])),
              lambda v: fnp.interp(np.array([0.3, 1.0]), np.array([-1.0, 0.0, 2.0]), v[0]),
              fnp.cov, fnp.corrcoef, lambda v: fnp.gradient(v, axis=1),
              lambda v: fnp.nanquantile(v, 0.4, axis=1), lambda v: fnp.vander(v[0], 3),
              lambda v: fnp.bincount(np.array([0, 2, 2]), weights=v[0]),
              lambda v: fnp.fmax(v, 0.1), lambda v: fnp.apply_along_axis(fnp.cumprod, 1, v)):
        assert_grad_matches_finite_differences(f, (x,), order=2)
