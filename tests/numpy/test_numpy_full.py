"""The rest of ``fad.numpy``: property tests over ``OPS_EXTRA`` (every
new primitive and function, float32 and float64) with ``fad.testing``'s laws,
plus the written conventions at kinks and ties, ``out=`` and the methods.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from operator_table import examples
from operator_table_extra import OPS_EXTRA

import fad
import fad.numpy as fnp
from fad.testing import (
    assert_grad_matches_finite_differences,
    assert_jit_matches_eager,
    assert_jvp_matches_vjp,
    assert_vmap_matches_loop,
)

FLOATS = (np.float32, np.float64)
dtypes = pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
table = pytest.mark.parametrize("op", OPS_EXTRA, ids=str)
few = settings(max_examples=3)


def _value_tol(dtype):
    return dict(rtol=2e-5, atol=2e-5) if np.dtype(dtype) == np.float32 else \
        dict(rtol=1e-11, atol=1e-11)


# ---------------------------------------------------------------- the table
@dtypes
@table
@few
@given(data=st.data())
def test_values_and_derivatives(op, dtype, data):
    """Values (and dtype) as NumPy's; derivatives to second order, forward and
    reverse, against finite differences; jvp and vjp transposes of each other."""
    ex = data.draw(examples(op, dtype))
    got, want = np.asarray(ex.fad(*ex.arrays)), np.asarray(ex.numpy())
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    np.testing.assert_allclose(got, want, **_value_tol(dtype))
    tol = op.check_tol(dtype)
    assert_grad_matches_finite_differences(ex.fad, ex.arrays, order=2, atol=tol, rtol=tol)
    assert_jvp_matches_vjp(ex.fad, ex.arrays)


@table
@settings(max_examples=2)
@given(data=st.data())
def test_vmap_and_jit(op, data):
    """Batching equals a loop (for the function and its gradient); jit equals eager."""
    ex = data.draw(examples(op, np.float64))
    batched = [np.stack([x, x * 0.9 + 0.05]) if op.domain is not None else x
               for x in ex.arrays]
    assert_vmap_matches_loop(ex.fad, batched)
    assert_jit_matches_eager(ex.fad, ex.arrays)
    grad = fad.grad(lambda *xs: fnp.sum(ex.fad(*xs) ** 2))
    assert_vmap_matches_loop(grad, batched, rtol=1e-8, atol=1e-8)


def test_every_new_function_in_the_table():
    names = {op.name for op in OPS_EXTRA}
    required = set("""arcsinh arccosh arctanh cbrt deg2rad rad2deg sinc hypot logaddexp fmod
        remainder floor ceil round true_divide absolute cumsum cumprod prod ptp median
        var_ddof std_ddof sort tensordot outer inner trace split array_split tile repeat
        flip roll pad diag diagonal triu tril inv solve det slogdet cholesky eigh qr svd
        norm_vector norm_matrix_sv norm_matrix_abs fft ifft rfft irfft fft2 ifft2""".split())
    assert required <= names, required - names


# ---------------------------------------------------------------- conventions
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


@pytest.mark.parametrize("ord", [None, 2, 1, np.inf, -np.inf, 3])
def test_vector_norm_at_zero(ord):
    g = fad.grad(lambda x: fnp.linalg.norm(x, ord))(np.zeros(3))
    assert g.tolist() == [0.0, 0.0, 0.0]
    h = fad.hessian(lambda x: fnp.linalg.norm(x, ord))(np.zeros(3))
    assert np.all(np.isfinite(h))


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 2, -2, 1, np.inf])
def test_matrix_norm_at_zero(ord):
    g = fad.grad(lambda x: fnp.linalg.norm(x, ord))(np.zeros((2, 3)))
    assert np.all(g == 0)


def test_norm_zero_row_in_batch():
    x = np.array([[0.0, 0.0], [3.0, 4.0]])
    g = fad.jacrev(lambda x: fnp.linalg.norm(x, axis=1))(x)
    np.testing.assert_allclose(g[1, 1], [0.6, 0.8])
    assert np.all(g[0] == 0)


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


def test_det_gradient_at_singular_matrix():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    np.testing.assert_allclose(fad.grad(fnp.linalg.det)(a), [[4, -2], [-2, 1]], atol=1e-12)
    z = np.zeros((3, 3))
    assert np.all(fad.grad(fnp.linalg.det)(z) == 0)


# ---------------------------------------------------------------- API details
def test_out_is_rejected_with_a_clear_message():
    x = np.ones(3)
    for fn in (lambda: fnp.cumsum(x, out=x), lambda: fnp.prod(x, out=x),
               lambda: fnp.hypot(x, x, out=x), lambda: fnp.trace(np.eye(2), out=x),
               lambda: fnp.add(x, x, out=x), lambda: fnp.sin(x, out=x), lambda: fnp.sum(x, out=x)):
        with pytest.raises(TypeError, match="out="):
            fn()


def test_clip_keywords():
    x = np.array([-2.0, 0.5, 3.0])
    np.testing.assert_array_equal(fnp.clip(x, a_min=0, a_max=1), np.clip(x, 0, 1))
    np.testing.assert_array_equal(fnp.clip(x, min=0, max=1), np.clip(x, 0, 1))


@pytest.mark.parametrize("call, ref", [
    (lambda m, x: m.cumsum(x, axis=1, dtype=np.float32), None),
    (lambda m, x: m.prod(x, axis=0, keepdims=True), None),
    (lambda m, x: m.var(x, axis=1, ddof=1, keepdims=True), None),
    (lambda m, x: m.std(x, ddof=1), None),
    (lambda m, x: m.cumsum(x > 0), None),
    (lambda m, x: m.prod(np.arange(1, 5, dtype=np.int32)), None),
    (lambda m, x: m.argmax(x, axis=1, keepdims=True), None),
    (lambda m, x: m.nanmean(x, axis=0), None),
    (lambda m, x: m.percentile(x, [10, 50], axis=1), None),
    (lambda m, x: m.quantile(x, 0.3, axis=0, keepdims=True), None),
    *[(lambda m, x, k=k: m.quantile(x, [0.0, 0.25, 0.5, 0.8, 1.0], axis=1, method=k), None)
      for k in ("linear", "lower", "higher", "nearest", "midpoint")],
    (lambda m, x: m.median(x, axis=1, keepdims=True), None),
    (lambda m, x: m.average(x, axis=0, weights=np.arange(1.0, 4.0), returned=True)[1], None),
    (lambda m, x: m.pad(x, 1, mode="edge"), None),
    (lambda m, x: m.pad(x, ((1, 0), (2, 1)), mode="wrap"), None),
    (lambda m, x: m.diff(x, n=2, axis=0, prepend=0.0), None),
    (lambda m, x: m.insert(x, 1, 7.0, axis=1), None),
    (lambda m, x: m.delete(x, [0, 2], axis=1), None),
    (lambda m, x: m.resize(x, (2, 5)), None),
    (lambda m, x: m.meshgrid(x[0], x[1, :2])[1], None),
    (lambda m, x: m.block([[x, x], [x, x]]), None),
    (lambda m, x: m.lexsort([x[0], x[1]]), None),
    (lambda m, x: m.searchsorted(m.sort(x[0]), x[1]), None),
    (lambda m, x: m.choose(np.array([[0, 1, 0], [1, 0, 1], [0, 0, 1]]), [x, -x]), None),
    (lambda m, x: m.select([x < 0, x > 0.5], [x, 2 * x], 1.0), None),
    (lambda m, x: m.nan_to_num(m.log(x)), None),
    (lambda m, x: m.heaviside(m.round(x), 0.5), None),
    (lambda m, x: m.unique(m.round(x)), None),
    (lambda m, x: m.kron(x, np.eye(2)), None),
    (lambda m, x: m.linalg.norm(x, axis=0, keepdims=True), None),
    (lambda m, x: m.linalg.norm(x, "fro", keepdims=True), None),
    (lambda m, x: m.linalg.matrix_rank(x), None),
    (lambda m, x: m.linalg.qr(x[:2], mode="r"), None),
    (lambda m, x: m.linalg.solve(np.stack([x, x.T + 3 * np.eye(3)]), x[0]), None),
    (lambda m, x: m.fmax(x, np.where(x > 1, np.nan, 0.5)), None),
    (lambda m, x: m.fmin(np.where(x > 1, np.nan, x), 0.5), None),
    (lambda m, x: m.ldexp(x, np.array([1, -2, 3])), None),
    (lambda m, x: m.interp(x, [-1.0, 0.0, 2.0], [1.0, 3.0, 2.0]), None),
    (lambda m, x: m.interp(x, [-1.0, 0.0, 2.0], [1.0, 3.0, 2.0], left=-5, right=5), None),
    (lambda m, x: m.gradient(x, 0.5, axis=1), None),
    (lambda m, x: m.gradient(x)[0], None),
    (lambda m, x: m.vander(x[0], 4, increasing=True), None),
    (lambda m, x: m.cov(x), None),
    (lambda m, x: m.cov(x, rowvar=False, ddof=0), None),
    (lambda m, x: m.corrcoef(x[0], x[1]), None),
    (lambda m, x: m.digitize(x, [0.0, 1.0, 2.0], right=True), None),
    (lambda m, x: m.bincount(np.array([0, 3, 3, 1]), weights=x[0].tolist() + [1.0]), None),
    (lambda m, x: m.isin(m.round(x), [0.0, 1.0, 3.0]), None),
    (lambda m, x: m.apply_along_axis(lambda r: r[:2] * r[2], 1, x), None),
    (lambda m, x: m.piecewise(x, [x < 0, x > 1], [lambda v: -v, lambda v: v * v, 7.0]),
     None),
    (lambda m, x: m.nanmedian(np.where(x > 1, np.nan, x), axis=1), None),
    (lambda m, x: m.nanquantile(np.where(x > 1, np.nan, x), [0.2, 0.7], axis=0), None),
    (lambda m, x: m.nanpercentile(np.where(x > 1, np.nan, x), 40), None),
    (lambda m, x: m.trim_zeros(np.array([0.0, 0.0, 1.0, 0.0, 2.0, 0.0]), "f"), None),
    (lambda m, x: m.convolve(x[0], x[1, :2], mode="same"), None),
    (lambda m, x: m.trapezoid(x, dx=0.5, axis=0), None),
    (lambda m, x: m.cross(x[0, :2], x[1, :2]), None),
    (lambda m, x: m.tensordot(x, x, axes=([0], [1])), None),
    (lambda m, x: m.trace(np.stack([x, x]), 1, 1, 2), None),
    (lambda m, x: m.diag(x[0], -1), None),
    (lambda m, x: m.roll(x, (1, -2), axis=(0, 1)), None),
    (lambda m, x: m.split(x, [1], axis=1)[1], None),
    (lambda m, x: m.repeat(x, [1, 0, 2], axis=0), None),
    (lambda m, x: m.rot90(x, 3), None),
])
def test_numpy_signatures(call, ref):
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75], [3.0, 1.0, 0.0]])
    got, want = call(fnp, x), call(np, x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-12)
    assert np.asarray(got).dtype == np.asarray(want).dtype


def test_composites_differentiate():
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    for f in (lambda v: fnp.interp(v, np.array([-1.5, 0.1, 2.5]), np.array([1.0, 3.0, 2.0])),
              lambda v: fnp.interp(np.array([0.3, 1.0]), np.array([-1.0, 0.0, 2.0]), v[0]),
              fnp.cov, fnp.corrcoef, lambda v: fnp.gradient(v, axis=1),
              lambda v: fnp.nanquantile(v, 0.4, axis=1), lambda v: fnp.vander(v[0], 3),
              lambda v: fnp.bincount(np.array([0, 2, 2]), weights=v[0]),
              lambda v: fnp.fmax(v, 0.1), lambda v: fnp.apply_along_axis(fnp.cumprod, 1, v)):
        assert_grad_matches_finite_differences(f, (x,), order=2)


def test_methods_on_tracers():
    def f(x):
        return (x.prod() + x.cumsum()[-1] + x.cumprod(axis=0)[-1, 0] + x.repeat(2)[3]
                + x.diagonal().sum() + x.trace() + x.round(1)[0, 0] + x[x.argsort(axis=None)
                                                                        .reshape(-1)[0] // 2, 0])
    x = np.array([[0.5, -1.0], [1.5, 0.25]])
    assert_grad_matches_finite_differences(f, (x,))
    with pytest.raises(TypeError, match="fnp.sort"):
        fad.grad(lambda x: x.sort())(x)


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


# ============================================================ review fixes (session 4)
def test_operators_on_integer_tracers_are_bitwise_as_in_numpy():
    a, b = np.array([5, 6]), np.array([True, False])
    got = fad.jit(lambda a: (a & 3, a | 1, a ^ 2, ~a, a << 1, a >> 1, 3 & a))(a)
    want = (a & 3, a | 1, a ^ 2, ~a, a << 1, a >> 1, 3 & a)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
        assert g.dtype == w.dtype
    np.testing.assert_array_equal(fad.jit(lambda b: (~b, b & True, b ^ True))(b),
                                  (~b, b & True, b ^ True))
    with pytest.raises(TypeError, match="bitwise_and"):
        fad.jit(lambda x: x & 1)(np.ones(2))


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


def test_spaced_samples_are_differentiable_in_their_ends():
    """linspace / logspace / geomspace with traced ends: values as NumPy's, and
    derivatives in start and stop (they used to be cut to zero)."""
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


def test_variance_with_ddof_past_the_count_and_median_of_nan():
    with np.errstate(divide="ignore", invalid="ignore"):
        assert float(fnp.var(np.array([1.0, 2.0, 4.0]), ddof=4)) == np.inf
        assert np.isnan(float(fnp.var(np.array([]), ddof=1)))
    got = fnp.median(np.array([[1.0, np.nan, 3.0], [1.0, 2.0, 3.0]]), axis=1)
    assert np.isnan(got[0]) and float(got[1]) == 2.0


def test_a_numpy_function_on_a_differentiated_value_is_an_error_not_a_zero():
    """np.dot(x, x) inside grad used to return a silently zero derivative (the
    tracer converted to its value); like JAX, it is now an error naming fnp."""
    with pytest.raises(TypeError, match=r"fad.numpy function instead \(fnp.dot for np.dot\)"):
        fad.grad(lambda a: np.dot(a, a))(np.array([1.0, 2.0]))
    np.testing.assert_allclose(fad.grad(lambda a: fnp.dot(a, a))(np.array([1.0, 2.0])),
                               [2.0, 4.0])
    got = fad.grad(lambda a: fnp.sum(a * np.asarray(fad.stop_gradient(a))))(np.array([1.0, 2.0]))
    np.testing.assert_allclose(got, [1.0, 2.0])


def test_jacrev_of_a_real_to_complex_function_is_an_error():
    """Reverse mode would drop the imaginary part silently (jacfwd and jacrev
    disagreed); JAX raises too."""
    with pytest.raises(TypeError, match="fad.jacrev needs real outputs for real inputs"):
        fad.jacrev(lambda x: x * (1 + 2j))(np.ones(2))
    np.testing.assert_allclose(fad.jacfwd(lambda x: x * (1 + 2j))(np.ones(2)),
                               (1 + 2j) * np.eye(2))


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


def test_mask_shape_and_item_assignment_errors():
    y = np.arange(6.0).reshape(2, 3)
    with pytest.raises(IndexError, match="boolean index did not match indexed array along "
                                         "axis 0; size of axis is 2 but size of "
                                         "corresponding boolean axis is 1"):
        fad.jit(lambda y: y[np.array([True])])(y)
    mask = np.array([True, False, True])
    np.testing.assert_array_equal(fad.jit(lambda y: y[..., mask])(y), y[..., mask])

    def assigns(x):
        x[0] = 1.0
        return fnp.sum(x)
    with pytest.raises(TypeError, match=r"cannot be assigned to .*fnp.where\(mask, v, x\)"):
        fad.grad(assigns)(np.ones(3))


def test_review_value_fixes_match_numpy():
    """all/any of complex values look at both parts; heaviside keeps NaN; ldexp
    is exact where 2 ** e alone would overflow or underflow; nanvar of complex
    values is real."""
    c = np.array([[1 + 1j, 2 - 1j], [0j, 3j]])
    np.testing.assert_array_equal(fnp.all(c, axis=0), np.all(c, axis=0))
    x = np.array([np.nan, -1.0, 0.0, 2.0])
    np.testing.assert_array_equal(fnp.heaviside(x, 0.5), np.heaviside(x, 0.5))
    for m, e in ((0.5, 1024), (3.0, -1075), (0.0, 2000), (1.5, 3), (1.0, -3)):
        assert float(fnp.ldexp(m, e)) == float(np.ldexp(m, e))
    assert float(fad.grad(lambda m: fnp.ldexp(m, 3))(1.0)) == 8.0
    c2 = np.array([1 + 2j, np.nan, 3 - 1j, 2j])
    got = fnp.nanvar(c2)
    assert np.asarray(got).dtype.kind == "f" and float(got) == pytest.approx(np.nanvar(c2))


def test_numpy_scalar_type_names_for_dtype_checks():
    """fnp.issubdtype(x.dtype, fnp.floating) and friends, as with NumPy."""
    assert fnp.issubdtype(np.float32, fnp.floating)
    assert fnp.issubdtype(np.uint32, fnp.unsignedinteger) and fnp.uint64 is np.uint64
    assert fnp.bool is np.bool_ and fnp.int_ is np.int_
    f = lambda x: fnp.sum(x * 2) if fnp.issubdtype(x.dtype, fnp.floating) else 0
    np.testing.assert_allclose(fad.grad(f)(np.ones(2)), [2.0, 2.0])


def test_mean_dtypes_as_numpy():
    """float16 means accumulate in float32; NaN-aware means of float32 stay float32."""
    h = np.array([6e4, 6e4], np.float16)
    assert float(fnp.mean(h)) == float(np.mean(h)) and fnp.mean(h).dtype == np.float16
    x = np.array([1.0, np.nan, 3.0], np.float32)
    for f, g in ((fnp.nanmean, np.nanmean), (fnp.nanvar, np.nanvar), (fnp.nanstd, np.nanstd)):
        got = f(x)
        assert got.dtype == g(x).dtype == np.float32 and float(got) == pytest.approx(g(x))


def test_sum_with_an_explicit_small_dtype_keeps_it():
    """sum(dtype=int8) is int8 eagerly and under jit (the primitive's result
    follows its abstract value); without dtype small ints widen to int64."""
    x = np.arange(3, dtype=np.int8)
    assert fnp.sum(x, dtype=np.int8).dtype == np.int8
    assert fad.jit(lambda x: fnp.sum(x, dtype=np.int8))(x).dtype == np.int8
    assert fnp.sum(x).dtype == np.sum(x).dtype == np.int64
    assert int(fnp.sum(np.array([True, True]))) == 2


def test_log2_and_log10_of_complex_zero():
    z = np.array([0j, 1 + 1j, -2 + 0j])
    with np.errstate(divide="ignore", invalid="ignore"):
        for f, g in ((fnp.log2, np.log2), (fnp.log10, np.log10)):
            np.testing.assert_allclose(f(z), g(z), rtol=1e-15)
            assert np.imag(np.asarray(f(z)))[0] == 0.0


def test_statistics_of_small_integers_are_float64_as_numpy():
    """median, nanmean, nanvar, quantile and sinc of uint8 / bool: float64 (a
    ufunc such as sin gives float16 there; these functions are not ufuncs)."""
    u = np.array([1, 2, 4], np.uint8)
    for f, g in ((fnp.median, np.median), (fnp.nanmean, np.nanmean), (fnp.nanvar, np.nanvar),
                 (fnp.sinc, np.sinc), (lambda a: fnp.quantile(a, 0.3),
                                       lambda a: np.quantile(a, 0.3))):
        got, want = f(u), g(u)
        assert np.asarray(got).dtype == np.asarray(want).dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=1e-15, atol=1e-17)
    assert fnp.sin(u).dtype == np.sin(u).dtype == np.float16
