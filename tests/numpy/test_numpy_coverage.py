"""NumPy's public functions in the categories fad covers each have a
``fad.numpy`` counterpart, or are on the explicit ``NOT_SUPPORTED`` list below
and raise ``NotImplementedError`` naming themselves. Every other public NumPy
function is listed, by group, as out of scope (``OUT_OF_SCOPE``), so that a new
NumPy function is a visible decision rather than a silent gap.
"""

import numpy as np
import pytest

import fad.numpy as fnp

CATEGORIES = {
    "creation": """array asarray asanyarray ascontiguousarray asfortranarray
        asarray_chkfinite require copy zeros ones full empty zeros_like ones_like full_like
        empty_like eye identity arange linspace logspace geomspace meshgrid tri diagflat
        indices fromfunction fromiter frombuffer from_dlpack diag_indices tril_indices triu_indices
        mask_indices ix_ vander bartlett blackman hamming hanning kaiser""",
    "math": """add subtract multiply divide true_divide floor_divide negative positive
        power pow float_power square sqrt cbrt exp exp2 expm1 log log2 log10 log1p
        logaddexp logaddexp2 sin cos tan arcsin arccos arctan arctan2 asin acos atan atan2
        sinh cosh tanh arcsinh arccosh arctanh asinh acosh atanh hypot sinc deg2rad rad2deg
        degrees radians abs absolute fabs sign signbit copysign heaviside maximum minimum
        fmax fmin clip where reciprocal mod remainder fmod divmod modf floor ceil trunc fix
        rint round around nan_to_num ldexp frexp spacing nextafter i0 gcd lcm bitwise_and
        bitwise_or bitwise_xor bitwise_not bitwise_invert invert left_shift right_shift
        bitwise_left_shift bitwise_right_shift""",
    "comparison and logic": """equal not_equal less less_equal greater greater_equal
        logical_and logical_or logical_xor logical_not isfinite isinf isnan isneginf
        isposinf isclose allclose array_equal array_equiv isin""",
    "reductions and statistics": """sum mean prod max min amax amin var std cumsum cumprod
        cumulative_sum cumulative_prod argmax argmin all any ptp average median quantile
        percentile nansum nanmean nanprod nanmax nanmin nanstd nanvar nanargmax nanargmin
        nancumsum nancumprod nanmedian nanquantile nanpercentile count_nonzero diff ediff1d
        gradient trapezoid cov corrcoef histogram histogram2d histogramdd
        histogram_bin_edges bincount digitize convolve correlate interp unwrap""",
    "linear algebra": """dot vdot matmul einsum einsum_path tensordot outer inner kron cross
        trace vecdot matvec vecmat matrix_transpose""",
    "shape": """reshape ravel squeeze expand_dims broadcast_to broadcast_arrays
        broadcast_shapes concatenate concat stack hstack vstack dstack column_stack
        row_stack block split array_split hsplit vsplit dsplit unstack tile repeat flip
        fliplr flipud roll rot90 pad diag diagonal triu tril transpose permute_dims swapaxes
        moveaxis rollaxis atleast_1d atleast_2d atleast_3d append insert delete resize
        trim_zeros""",
    "indexing": """take take_along_axis put put_along_axis place putmask fill_diagonal copyto
        choose compress extract select nonzero argwhere flatnonzero diag_indices_from
        tril_indices_from triu_indices_from unravel_index ravel_multi_index piecewise
        apply_along_axis apply_over_axes""",
    "sorting": """sort argsort lexsort partition argpartition searchsorted unique unique_all
        unique_counts unique_inverse unique_values""",
    # NumPy's functional forms of the ndarray methods
    "array methods": """all any argmax argmin argpartition argsort astype choose clip
        compress copy cumprod cumsum diagonal dot max mean min nonzero partition prod ptp put
        ravel repeat reshape resize round searchsorted sort squeeze std sum swapaxes take
        trace transpose var ndim shape size""",
    "dtypes": """result_type can_cast promote_types min_scalar_type issubdtype isdtype""",
}
LINALG = """cholesky cond cross det diagonal eig eigh eigvals eigvalsh inv lstsq matmul
    matrix_norm matrix_power matrix_rank matrix_transpose multi_dot norm outer pinv qr
    slogdet solve svd svdvals tensordot tensorinv tensorsolve trace vecdot vector_norm"""

# The NumPy functions of these categories that fad.numpy does not provide; each
# exists in fad.numpy and raises NotImplementedError naming itself.
NOT_SUPPORTED = [
    # in-place mutation: fad's arrays are immutable (build results functionally)
    "put", "put_along_axis", "place", "putmask", "fill_diagonal", "copyto",
    # float representation, no derivative
    "frexp", "spacing", "nextafter",
    # a contraction planner, not a computation
    "einsum_path",
]
LINALG_NOT_SUPPORTED: list = []

# Everything else NumPy exports, by group: outside the categories fad covers.
OUT_OF_SCOPE = {
    "complex numbers (tested in tests/primitives/test_complex.py)": """angle conj conjugate
        imag real iscomplex iscomplexobj isreal isrealobj real_if_close sort_complex""",
    "file I/O": """load save savez savez_compressed loadtxt savetxt genfromtxt fromfile
        fromregex fromstring""",
    "printing and strings": """array2string array_repr array_str base_repr binary_repr
        format_float_positional format_float_scientific get_printoptions set_printoptions
        printoptions typename""",
    "datetimes": "busday_count busday_offset is_busday datetime_as_string datetime_data isnat",
    "polynomials": """poly polyadd polyder polydiv polyfit polyint polymul polysub polyval
        roots""",
    "set routines": "intersect1d setdiff1d setxor1d union1d",
    "bit packing": "packbits unpackbits bitwise_count",
    "memory, errors, configuration": """may_share_memory shares_memory isfortran isscalar
        iterable info show_config show_runtime get_include test nested_iters
        frompyfunc getbufsize setbufsize geterr seterr geterrcall seterrcall""",
    "matrix class and old dtype helpers": "asmatrix bmat common_type mintypecode",
}


def _names(text):
    return text.split()


IN_SCOPE = sorted({n for text in CATEGORIES.values() for n in _names(text)})


def _exists_in_numpy(name):
    return hasattr(np, name)


@pytest.mark.parametrize("name", [n for n in IN_SCOPE if _exists_in_numpy(n)])
def test_numpy_function_has_a_counterpart(name):
    assert hasattr(fnp, name), f"fad.numpy.{name} is missing (add it, or list it in " \
                               "NOT_SUPPORTED with a reason)"
    if name in NOT_SUPPORTED:
        with pytest.raises(NotImplementedError, match=name):
            getattr(fnp, name)(np.ones(3))
    else:
        assert callable(getattr(fnp, name)) or name in ("shape", "ndim", "size")


@pytest.mark.parametrize("name", _names(LINALG))
def test_linalg_function_has_a_counterpart(name):
    if not hasattr(np.linalg, name):
        pytest.skip(f"numpy.linalg.{name} does not exist in NumPy {np.__version__}")
    assert hasattr(fnp.linalg, name), f"fad.numpy.linalg.{name} is missing"
    if name in LINALG_NOT_SUPPORTED:
        with pytest.raises(NotImplementedError, match=name):
            getattr(fnp.linalg, name)(np.eye(2))


def test_not_supported_lists_are_in_the_categories():
    assert set(NOT_SUPPORTED) <= set(IN_SCOPE)
    assert set(LINALG_NOT_SUPPORTED) <= set(_names(LINALG))


def test_every_public_numpy_function_is_classified():
    """A public NumPy function is in a category above or explicitly out of scope."""
    out = {n for text in OUT_OF_SCOPE.values() for n in _names(text)}
    public = {n for n in dir(np) if not n.startswith("_") and callable(getattr(np, n))
              and not isinstance(getattr(np, n), type)}
    unclassified = sorted(public - set(IN_SCOPE) - out)
    assert not unclassified, f"classify these NumPy functions: {unclassified}"
    public_linalg = {n for n in dir(np.linalg) if not n.startswith("_")
                     and callable(getattr(np.linalg, n))
                     and not isinstance(getattr(np.linalg, n), type)}
    assert not public_linalg - set(_names(LINALG)) - {"test"}, \
        public_linalg - set(_names(LINALG))
