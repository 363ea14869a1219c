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


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from operator_table import (
    FLOATS,
    OPS,
    check_grads_law,
    dtype_law,
    empty_law,
    examples,
    hessian_symmetric_law,
    jit_law,
    jvp_vjp_law,
    ops_with,
    values_law,
    vmap_law,
    zero_dim_law,
)

import fad
import fad.numpy as fnp

COMPLEX = np.complex128
# the research toolbox's rows: scipy.special and scipy.stats, fad.lax, fad.numpy's
# 2-d real FFTs and polynomials, odeint, fad.random's samplers, fad.nn's activations
TOOLBOX = set("""
    xlogy xlog1py expit logit special_softmax special_log_softmax
    norm_logpdf norm_pdf norm_cdf norm_logcdf norm_ppf t_logpdf t_pdf t_cdf t_logcdf t_ppf
    gamma_logpdf gamma_pdf gamma_cdf gamma_logcdf gamma_ppf
    beta_logpdf beta_pdf beta_cdf beta_logcdf beta_ppf
    poisson_logpmf poisson_pmf poisson_cdf poisson_logcdf poisson_ppf
    bernoulli_logpmf bernoulli_pmf bernoulli_cdf bernoulli_logcdf bernoulli_ppf
    multivariate_normal_logpdf multivariate_normal_pdf
    dynamic_index_in_dim conv_transpose rfft2 irfft2 polyder polyint roots real_if_close
    odeint random_truncated_normal random_multivariate_normal random_dirichlet
    gelu gelu_exact leaky_relu log_sigmoid softplus silu elu
""".split())
TOOLBOX_COMPLEX = {"dynamic_index_in_dim", "conv_transpose", "irfft2", "polyder", "polyint"}
# examples per row and test: half the profile's (3 in CI, where float runs draw 6)
COMPLEX_EXAMPLES = max(3, settings().max_examples // 2)
# rows without a complex run, each with its reason in the table (``real_only``)
REAL_ONLY = set("""arctan2 cbrt deg2rad rad2deg fabs floor ceil trunc hypot logaddexp
    logaddexp2 fmod remainder copysign quantile rfft erf erfc erfcx erfinv gammaln digamma
    polygamma as_complex
    selu celu hard_tanh relu6 hard_sigmoid hard_silu soft_sign squareplus mish glu
    standardize reduce_window_max
    gamma i0 i1 i0e i1e ndtr ndtri log_ndtr entr beta betaln gammainc gammaincc
    rel_entr kl_div betainc zeta multigammaln gammaincinv betaincinv gammainccinv betainccinv
    cummax cummin cumlogsumexp top_k lax_sort_multi
    rfftn unwrap""".split()) | (TOOLBOX - TOOLBOX_COMPLEX)

# rows whose derivative is not the finite difference of their values (``no_fd``):
# the laws against finite differences skip them
NO_FD = {"random_dirichlet"}

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
    at_set at_add at_mul at_min at_max dynamic_slice dynamic_update_slice
    inv solve det slogdet cholesky eigh qr svd norm_vector norm_matrix_sv norm_matrix_abs
    selu celu hard_tanh relu6 hard_sigmoid hard_silu soft_sign squareplus mish glu
    standardize
    conv_general_dilated reduce_window_sum reduce_window_max
    gamma i0 i1 i0e i1e ndtr ndtri log_ndtr entr beta betaln gammainc gammaincc rel_entr
    kl_div betainc zeta multigammaln gammaincinv betaincinv gammainccinv betainccinv
    switch select_n lax_map associative_scan_add associative_scan_linear lax_cumsum cummax
    cummin cumlogsumexp top_k lax_sort_multi
    solve_triangular scipy_cholesky cho_solve lu lu_solve expm sqrtm block_diag
    signal_convolve signal_correlate convolve2d correlate2d
    fftn ifftn rfftn irfftn hfft fftshift ifftshift eig eigvals polyval polyfit unwrap
    std_zero_spread
""".split()) | TOOLBOX

dtypes = pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)


def table(kind: str = "any") -> pytest.MarkDecorator:
    return pytest.mark.parametrize("op", ops_with(kind), ids=str)


def complex_ops(kind: str = "any") -> list:
    return [op for op in ops_with(kind) if not op.real_only]


def complex_table(kind: str = "any") -> pytest.MarkDecorator:
    return pytest.mark.parametrize("op", complex_ops(kind), ids=str)


complex_settings = settings(max_examples=COMPLEX_EXAMPLES)


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


def test_finite_difference_opt_outs_are_the_listed_ones():
    """Nothing escapes the finite-difference laws silently: the rows marked
    ``no_fd`` are exactly ``NO_FD``, each with its reason."""
    marked = {op.name: op.no_fd for op in OPS if op.no_fd}
    assert set(marked) == NO_FD and all(len(why) > 10 for why in marked.values())


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
