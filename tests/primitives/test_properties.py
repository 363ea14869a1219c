"""The laws of the operator table (``operator_table.py``), on every row, in
float32, float64 and complex128 (except the ``real_only`` rows, listed in
``REAL_ONLY`` below):

(a) first and second derivatives, forward and reverse, against finite
differences (``fad.check_grads``: complex directions too); (b) ``<u, J v>`` from
``jvp`` equals ``<J^T u, v>`` from ``vjp`` (complex ``u``, ``v``: the bilinear
pairing ``Re(sum(u * w))``); (c) Hessians of scalarised functions are symmetric
(complex inputs as pairs of real arrays ``x + iy``); (d) float32 in gives
float32 values and derivatives, complex128 in gives complex128 derivatives and
NumPy's output dtype (float64 for ``abs``...); (e) values (and dtypes) equal
NumPy's on the same inputs; (f) 0-d and empty inputs; (g) vmap against a loop
(float64 and complex128) and jit against eager (complex128; test_jit.py has the
float runs), for the row and the gradient of a real loss. Complex128 runs draw
fewer examples (``COMPLEX_EXAMPLES``). Plus: the table has the rows it must
have, and binary functions promote dtypes as NumPy does.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from operator_table import FLOATS, OPS, examples, ops_with

import fad
import fad.numpy as fnp
from fad.testing import assert_jit_matches_eager, assert_vmap_matches_loop

COMPLEX = np.complex128
# examples per row and test: half the profile's (3 in CI, where float runs draw 6)
COMPLEX_EXAMPLES = max(3, settings().max_examples // 2)
# rows without a complex run, each with its reason in the table (``real_only``)
REAL_ONLY = set("""arctan2 cbrt deg2rad rad2deg fabs floor ceil trunc hypot logaddexp
    logaddexp2 fmod remainder copysign quantile rfft erf erfc erfinv gammaln digamma
    polygamma""".split())

# rows the table must have: every differentiable function of fad.numpy's chapters
REQUIRED = set("""
    negative square sqrt exp expm1 log log1p log2 log10 sin cos tan arcsin arccos arctan
    sinh cosh tanh arcsinh arccosh arctanh abs absolute sign reciprocal sigmoid cbrt
    deg2rad rad2deg sinc floor ceil round
    add subtract multiply divide true_divide power maximum minimum arctan2 hypot
    logaddexp fmod remainder where clip
    sum mean max min var std var_ddof std_ddof prod cumsum cumprod ptp median sort
    dot matmul einsum tensordot outer inner trace
    fft ifft rfft irfft fft2 ifft2
    transpose reshape broadcast_to expand_dims squeeze concatenate stack split array_split
    tile repeat flip roll pad diag diagonal triu tril
    getitem_basic getitem_int_array getitem_mask take take_along_axis
    inv solve det slogdet cholesky eigh qr svd norm_vector norm_matrix_sv norm_matrix_abs
""".split())

dtypes = pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)


def table(kind: str = "any") -> pytest.MarkDecorator:
    return pytest.mark.parametrize("op", ops_with(kind), ids=str)


def complex_ops(kind: str = "any") -> list:
    return [op for op in ops_with(kind) if not op.real_only]


def complex_table(kind: str = "any") -> pytest.MarkDecorator:
    return pytest.mark.parametrize("op", complex_ops(kind), ids=str)


complex_settings = settings(max_examples=COMPLEX_EXAMPLES)


def rand_like(rng: np.random.Generator, x: object, dtype: object) -> np.ndarray:
    """Standard normal values; ``a + ib`` for a complex dtype."""
    shape, dtype = np.shape(x), np.dtype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def wide(x: object) -> np.ndarray:
    """``x`` in float64 / complex128 (for accurate sums)."""
    return np.asarray(x, np.result_type(np.asarray(x).dtype, np.float64))


def value_tol(dtype: object) -> dict:
    return {"rtol": 2e-6, "atol": 2e-6} if np.dtype(dtype) == np.float32 else \
        {"rtol": 1e-12, "atol": 1e-12}


def assert_same_values(got: object, want: object, dtype: object) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    np.testing.assert_allclose(got, want, **value_tol(dtype))


# ---------------------------------------------------------------- the laws
# Each law takes a drawn example; the tests below run it on the float table
# (float32, float64) and on the complex table (complex128, fewer examples).
def check_grads_law(ex, dtype):
    tol = ex.op.check_tol(dtype)
    fad.check_grads(ex.fad, ex.arrays, order=2, modes=("fwd", "rev"), atol=tol, rtol=tol)


def jvp_vjp_law(ex, dtype):
    rng = np.random.default_rng(1)
    v = [rand_like(rng, x, dtype) for x in ex.arrays]
    out, jv = fad.jvp(ex.fad, ex.arrays, v)
    out2, f_vjp = fad.vjp(ex.fad, *ex.arrays)
    u = rand_like(rng, out, np.asarray(out).dtype)  # real for real outputs (abs...)
    ju = f_vjp(u)
    np.testing.assert_array_equal(out, out2)
    assert len(ju) == len(ex.arrays)
    assert [np.shape(g) for g in ju] == [x.shape for x in ex.arrays]
    # the bilinear pairing Re(sum(u * w)) (plain sum(u * w) for real arrays)
    lhs = np.real(np.sum(u * wide(jv)))
    rhs = sum(np.real(np.sum(wide(g) * vi)) for g, vi in zip(ju, v))
    scale = np.sum(np.abs(u * jv)) + sum(np.sum(np.abs(g * vi)) for g, vi in zip(ju, v))
    assert abs(lhs - rhs) <= 50 * np.finfo(dtype).eps * (scale + 1), (lhs, rhs)


def realified(ex):
    """For complex inputs: ``(f, args)`` where ``args`` are the real and imaginary
    parts ``x_k, y_k`` of the inputs and ``f`` calls the entry at ``x_k + i y_k``."""
    if not any(x.dtype.kind == "c" for x in ex.arrays):
        return ex.fad, list(ex.arrays)
    args = [p for x in ex.arrays for p in (x.real.copy(), x.imag.copy())]
    return (lambda *ps: ex.fad(*[ps[2 * k] + 1j * ps[2 * k + 1]
                                 for k in range(len(ex.arrays))])), args


def hessian_symmetric_law(ex, dtype):
    w = rand_like(np.random.default_rng(2), ex.numpy(), dtype)
    f, args = realified(ex)
    real_dtype = np.finfo(dtype).dtype
    n = len(args)
    # fnp.real(...): the scalarised function is real-valued; Re(sum(w f)) if complex
    H = fad.hessian(lambda *xs: fnp.real(fnp.sum(f(*xs) * w)), argnums=tuple(range(n)))(*args)
    sizes = [x.size for x in args]
    for i in range(n):
        for j in range(n):
            assert np.shape(H[i][j]) == args[i].shape + args[j].shape
            assert np.asarray(H[i][j]).dtype == real_dtype
    M = np.block([[np.reshape(H[i][j], (sizes[i], sizes[j])) for j in range(n)]
                  for i in range(n)]).astype(np.float64)
    tol = 1e-4 if np.dtype(dtype) == np.float32 else 1e-10
    np.testing.assert_allclose(M, M.T, rtol=tol, atol=tol * (1 + np.abs(M).max()))


def dtype_law(ex, dtype):
    n = len(ex.arrays)
    out = ex.fad(*ex.arrays)
    # the output: the input's dtype for floats; NumPy's for complex (abs: float64)
    out_dtype = np.dtype(dtype) if np.dtype(dtype).kind == "f" else np.asarray(ex.numpy()).dtype
    assert out_dtype in (dtype, np.finfo(dtype).dtype)
    grads = fad.grad(lambda *xs: fnp.real(fnp.sum(ex.fad(*xs))),
                     argnums=tuple(range(n)))(*ex.arrays)
    _, tangent = fad.jvp(ex.fad, ex.arrays, [np.ones_like(x) for x in ex.arrays])
    _, f_vjp = fad.vjp(ex.fad, *ex.arrays)
    cts = f_vjp(np.ones(np.shape(out), out_dtype))
    for name, value, want in [("output", out, out_dtype), ("tangent", tangent, out_dtype), *[
            ("gradient", g, dtype) for g in grads], *[("cotangent", c, dtype) for c in cts]]:
        assert np.asarray(value).dtype == want, f"{name} of {ex.op.name} is {value.dtype}"


def _loss_gradient(ex):
    return fad.grad(lambda *xs: fnp.sum(fnp.abs(ex.fad(*xs)) ** 2),
                    argnums=tuple(range(len(ex.arrays))))


def vmap_law(ex, dtype):
    """vmap equals a loop, for the row and for the gradient of a real loss."""
    batched = [np.stack([x, x * 0.9 + 0.05]) for x in ex.arrays]
    assert_vmap_matches_loop(ex.fad, batched)
    assert_vmap_matches_loop(_loss_gradient(ex), batched, rtol=1e-8, atol=1e-8)


def jit_law(ex, dtype):
    """jit equals eager, for the row and for the gradient of a real loss (the
    float runs are test_jit.py's ``test_jit_equals_eager_on_the_operator_table``)."""
    assert_jit_matches_eager(ex.fad, ex.arrays)
    assert_jit_matches_eager(_loss_gradient(ex), ex.arrays, rtol=1e-8, atol=1e-8)


def values_law(ex, dtype):
    assert_same_values(ex.fad(*ex.arrays), ex.numpy(), dtype)


def zero_dim_law(ex, dtype):
    assert all(x.shape == () for x in ex.arrays)
    assert_same_values(ex.fad(*ex.arrays), ex.numpy(), dtype)
    fad.check_grads(ex.fad, ex.arrays, order=2, atol=ex.op.check_tol(dtype),
                    rtol=ex.op.check_tol(dtype))
    g = fad.grad(lambda *xs: fnp.real(fnp.sum(ex.fad(*xs))))(*ex.arrays)
    assert (np.shape(g), np.asarray(g).dtype) == ((), dtype)


def empty_law(ex, dtype):
    want = ex.numpy()
    assert_same_values(ex.fad(*ex.arrays), want, dtype)
    out, tangent = fad.jvp(ex.fad, ex.arrays, [np.ones_like(x) for x in ex.arrays])
    assert np.shape(tangent) == np.shape(want)
    cts = fad.vjp(ex.fad, *ex.arrays)[1](np.ones(np.shape(want), np.asarray(want).dtype))
    for x, ct in zip(ex.arrays, cts):
        assert (np.shape(ct), np.asarray(ct).dtype) == (x.shape, dtype)
        if math.prod(np.shape(want)) == 0:  # nothing flows back from an empty output
            assert not np.any(ct)


# ---------------------------------------------------------------- (a)
@dtypes
@table()
@given(data=st.data())
def test_check_grads_order_2(op, dtype, data):
    check_grads_law(data.draw(examples(op, dtype)), dtype)


@complex_table()
@complex_settings
@given(data=st.data())
def test_check_grads_order_2_complex128(op, data):
    check_grads_law(data.draw(examples(op, COMPLEX)), COMPLEX)


# ---------------------------------------------------------------- (b)
@dtypes
@table()
@given(data=st.data())
def test_jvp_vjp_agree(op, dtype, data):
    jvp_vjp_law(data.draw(examples(op, dtype)), dtype)


@complex_table()
@complex_settings
@given(data=st.data())
def test_jvp_vjp_agree_complex128(op, data):
    jvp_vjp_law(data.draw(examples(op, COMPLEX)), COMPLEX)


# ---------------------------------------------------------------- (c)
@dtypes
@table()
@given(data=st.data())
def test_hessian_symmetric(op, dtype, data):
    hessian_symmetric_law(data.draw(examples(op, dtype)), dtype)


@complex_table()
@complex_settings
@given(data=st.data())
def test_hessian_symmetric_complex128(op, data):
    hessian_symmetric_law(data.draw(examples(op, COMPLEX)), COMPLEX)


# ---------------------------------------------------------------- (d)
@dtypes
@table()
@given(data=st.data())
def test_dtype_preserved(op, dtype, data):
    dtype_law(data.draw(examples(op, dtype)), dtype)


@complex_table()
@complex_settings
@given(data=st.data())
def test_dtype_preserved_complex128(op, data):
    dtype_law(data.draw(examples(op, COMPLEX)), COMPLEX)


# ---------------------------------------------------------------- (e)
@dtypes
@table()
@given(data=st.data())
def test_values_match_numpy(op, dtype, data):
    values_law(data.draw(examples(op, dtype)), dtype)


@complex_table()
@complex_settings
@given(data=st.data())
def test_values_match_numpy_complex128(op, data):
    values_law(data.draw(examples(op, COMPLEX)), COMPLEX)


# ---------------------------------------------------------------- (g)
@table()
@settings(max_examples=2)
@given(data=st.data())
def test_vmap_matches_a_loop(op, data):
    vmap_law(data.draw(examples(op, np.float64)), np.float64)


@complex_table()
@settings(max_examples=1)
@given(data=st.data())
def test_jit_and_vmap_complex128(op, data):
    ex = data.draw(examples(op, COMPLEX))
    jit_law(ex, COMPLEX)
    vmap_law(ex, COMPLEX)


# ---------------------------------------------------------------- (f)
edge_cases = settings(max_examples=max(3, settings().max_examples // 2))


@dtypes
@table("scalar")
@edge_cases
@given(data=st.data())
def test_zero_dim(op, dtype, data):
    zero_dim_law(data.draw(examples(op, dtype, "scalar")), dtype)


@complex_table("scalar")
@complex_settings
@given(data=st.data())
def test_zero_dim_complex128(op, data):
    zero_dim_law(data.draw(examples(op, COMPLEX, "scalar")), COMPLEX)


@dtypes
@table("empty")
@edge_cases
@given(data=st.data())
def test_empty(op, dtype, data):
    empty_law(data.draw(examples(op, dtype, "empty")), dtype)


@complex_table("empty")
@complex_settings
@given(data=st.data())
def test_empty_complex128(op, data):
    empty_law(data.draw(examples(op, COMPLEX, "empty")), COMPLEX)


# ---------------------------------------------------------------- complex opt-outs
def test_complex_opt_outs_are_the_listed_ones():
    """Nothing drops out of the complex128 runs silently: the entries marked
    ``real_only`` are exactly ``REAL_ONLY``, and each says why."""
    marked = {op.name: op.real_only for op in OPS if op.real_only}
    assert set(marked) == REAL_ONLY, set(marked) ^ REAL_ONLY
    assert all(len(why) > 10 for why in marked.values())
    ran = {op.name for op in complex_ops()}
    assert ran | REAL_ONLY == {op.name for op in OPS} and not ran & REAL_ONLY


@pytest.mark.parametrize("op", [op for op in OPS if op.real_only], ids=str)
@settings(max_examples=1)
@given(data=st.data())
def test_real_only_entries_are_real_only_in_numpy(op, data):
    """The opt-outs are honest: NumPy itself refuses complex input there."""
    ex = data.draw(examples(op, COMPLEX))
    with pytest.raises(TypeError):
        ex.numpy()


def test_table_has_the_required_rows():
    """Every differentiable function of ``REQUIRED`` has a row."""
    missing = REQUIRED - {op.name for op in OPS}
    assert not missing, missing


# ---------------------------------------------------------------- promotion
OPERANDS = {
    "f32": np.array([1.5, 2.0], np.float32), "f64": np.array([1.5, 2.0]),
    "i32": np.array([1, 2], np.int32), "i64": np.array([1, 2]),
    "bool": np.array([True, False]), "int": 2, "float": 2.5, "f32-0d": np.float32(1.5),
    "f64-0d": np.float64(0.5), "i64-0d": np.int64(3),
}
BINARY = ["add", "subtract", "multiply", "divide", "power", "maximum", "arctan2", "equal",
          "less", "logical_and"]


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
@pytest.mark.parametrize("b", list(OPERANDS))
@pytest.mark.parametrize("a", list(OPERANDS))
@pytest.mark.parametrize("name", BINARY)
def test_binary_promotion_like_numpy(name, a, b):
    x, y = OPERANDS[a], OPERANDS[b]
    try:
        want = getattr(np, name)(x, y)
    except Exception as e:  # NumPy refuses (e.g. bool - bool): so does fad
        with pytest.raises(type(e)):
            getattr(fnp, name)(x, y)
        return
    got = getattr(fnp, name)(x, y)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64))
    if np.asarray(x).dtype.kind == "f" and np.asarray(want).dtype.kind == "f":
        g = fad.grad(lambda x: fnp.sum(getattr(fnp, name)(x, y)))(x)
        assert np.asarray(g).dtype == np.asarray(x).dtype  # the input's dtype, as JAX
