"""``fad.numpy`` as a drop-in for NumPy beyond the operator table: NumPy's
signatures and keywords (``test_numpy_signatures``), result dtypes (small
integers, float16, explicit ``dtype=``), values at edge inputs, methods and
bitwise operators on tracers, and the errors that name the fix (``out=``, item
assignment, a NumPy function applied to a differentiated value). Which NumPy
functions exist at all is test_numpy_coverage.py's subject.
"""

import numpy as np
import pytest

import fad
import fad.numpy as fnp
from fad.testing import assert_grad_matches_finite_differences


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
    (lambda m, x: m.cov(x, fweights=np.array([1, 3, 2])), None),
    (lambda m, x: m.cov(x, aweights=np.array([0.5, 1.0, 2.0]), ddof=0), None),
    (lambda m, x: m.cov(x, fweights=np.array([2, 1, 1]), aweights=np.array([1.0, 0.2, 3.0])),
     None),
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


def test_methods_on_tracers():
    def f(x):
        return (x.prod() + x.cumsum()[-1] + x.cumprod(axis=0)[-1, 0] + x.repeat(2)[3]
                + x.diagonal().sum() + x.trace() + x.round(1)[0, 0] + x[x.argsort(axis=None)
                                                                        .reshape(-1)[0] // 2, 0])
    x = np.array([[0.5, -1.0], [1.5, 0.25]])
    assert_grad_matches_finite_differences(f, (x,))
    with pytest.raises(TypeError, match="fnp.sort"):
        fad.grad(lambda x: x.sort())(x)


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


def test_a_numpy_function_on_a_differentiated_value_is_an_error_not_a_zero():
    """np.dot(x, x) inside grad would convert the tracer to its value (a silently
    zero derivative); like JAX, it is an error naming fnp."""
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


def test_variance_with_ddof_past_the_count_and_median_of_nan():
    with np.errstate(divide="ignore", invalid="ignore"):
        assert float(fnp.var(np.array([1.0, 2.0, 4.0]), ddof=4)) == np.inf
        assert np.isnan(float(fnp.var(np.array([]), ddof=1)))
    got = fnp.median(np.array([[1.0, np.nan, 3.0], [1.0, 2.0, 3.0]]), axis=1)
    assert np.isnan(got[0]) and float(got[1]) == 2.0


def test_values_at_edge_inputs_match_numpy():
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


def test_log2_and_log10_of_complex_zero():
    z = np.array([0j, 1 + 1j, -2 + 0j])
    with np.errstate(divide="ignore", invalid="ignore"):
        for f, g in ((fnp.log2, np.log2), (fnp.log10, np.log10)):
            np.testing.assert_allclose(f(z), g(z), rtol=1e-15)
            assert np.imag(np.asarray(f(z)))[0] == 0.0
