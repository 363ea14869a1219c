"""``import fad.numpy as fnp``: NumPy's namespace, traced and differentiable.

Its modules follow the chapters of NumPy's reference: ``_math`` (elementwise
functions), ``_logic``, ``_reductions`` (sums, products, differences, extrema),
``_statistics``, ``_shape`` (array manipulation), ``_indexing``, ``_creation``,
``_sorting``, ``_contractions`` (products), ``_complex``, ``_functional``,
``_window``, ``_dtypes``, ``_polynomial`` (and ``unwrap``), ``_histograms``,
``_sets``, ``_unique``, ``_index_tricks`` (``r_``, ``c_``), and the public ``linalg`` and
``fft``; ``random`` is NumPy's own ``numpy.random`` (as in HIPS autograd: its
draws are plain arrays, constants to fad; ``fad.random`` has keyed draws that
``jit`` and ``vmap`` reproduce). A public NumPy name not provided raises
``NotImplementedError`` naming itself. ``_base`` holds
what every function starts with (``asarray``, NumPy's promotion), ``_methods``
the operators and methods of tracers (and the dispatch of ``np.sin(tracer)`` to
this package), ``_unsupported`` the names not provided and why. A chapter
imports at its top only those below it (``_base``, then ``_math`` and
``_shape``, then ``_indexing``...); the few calls upward (``asarray`` stacking a
list of tracers, ``where``'s one-argument form, the complex cases of ``abs``,
``sign`` and the logarithms, ``repeat``, ``pad``, ``delete`` and ``resize``)
import inside the function.

>>> import fad, fad.numpy as fnp
>>> float(fad.grad(lambda x: fnp.sum(fnp.sin(x) ** 2))(fnp.array([0.5, 1.0]))[0])
0.8414709848078965
"""

from __future__ import annotations

import sys as _sys

import numpy as _np
from numpy import random

from . import fft, linalg
from ._at import at
from ._base import asarray
from ._complex import angle, conj, conjugate, imag, iscomplexobj, real
from ._contractions import (
    convolve,
    correlate,
    cross,
    dot,
    einsum,
    inner,
    kron,
    matmul,
    matvec,
    outer,
    tensordot,
    trace,
    vdot,
    vecdot,
    vecmat,
)
from ._creation import (
    arange,
    array,
    asanyarray,
    asarray_chkfinite,
    ascontiguousarray,
    asfortranarray,
    copy,
    diag,
    diagflat,
    empty,
    empty_like,
    eye,
    from_dlpack,
    frombuffer,
    fromfunction,
    fromiter,
    full,
    full_like,
    geomspace,
    identity,
    indices,
    linspace,
    logspace,
    meshgrid,
    ones,
    ones_like,
    require,
    tri,
    vander,
    zeros,
    zeros_like,
)
from ._dtypes import (
    astype,
    can_cast,
    finfo,
    iinfo,
    isdtype,
    issubdtype,
    min_scalar_type,
    promote_types,
    result_type,
)
from ._functional import apply_along_axis, apply_over_axes, piecewise
from ._histograms import histogram, histogram2d, histogram_bin_edges, histogramdd
from ._index_tricks import c_, r_
from ._indexing import (
    argwhere,
    choose,
    compress,
    diag_indices,
    diag_indices_from,
    diagonal,
    extract,
    flatnonzero,
    ix_,
    mask_indices,
    nonzero,
    ravel_multi_index,
    select,
    take,
    take_along_axis,
    tril,
    tril_indices,
    tril_indices_from,
    triu,
    triu_indices,
    triu_indices_from,
    unravel_index,
)
from ._logic import allclose, array_equal, array_equiv, in1d, isclose, isin
from ._math import (
    abs,
    absolute,
    acos,
    acosh,
    add,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    around,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    bitwise_and,
    bitwise_invert,
    bitwise_left_shift,
    bitwise_not,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    cbrt,
    ceil,
    clip,
    copysign,
    cos,
    cosh,
    deg2rad,
    degrees,
    divide,
    divmod,
    equal,
    exp,
    exp2,
    expm1,
    fabs,
    fix,
    float_power,
    floor,
    floor_divide,
    fmax,
    fmin,
    fmod,
    gcd,
    greater,
    greater_equal,
    heaviside,
    hypot,
    i0,
    invert,
    isfinite,
    isinf,
    isnan,
    isneginf,
    isposinf,
    lcm,
    ldexp,
    left_shift,
    less,
    less_equal,
    log,
    log1p,
    log2,
    log10,
    logaddexp,
    logaddexp2,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    mod,
    modf,
    multiply,
    nan_to_num,
    negative,
    not_equal,
    positive,
    pow,
    power,
    rad2deg,
    radians,
    reciprocal,
    remainder,
    right_shift,
    rint,
    round,
    sigmoid,
    sign,
    signbit,
    sin,
    sinc,
    sinh,
    sqrt,
    square,
    subtract,
    tan,
    tanh,
    true_divide,
    trunc,
    where,
)
from ._methods import install as _install
from ._polynomial import (
    poly,
    polyadd,
    polyder,
    polyfit,
    polyint,
    polymul,
    polysub,
    polyval,
    roots,
    unwrap,
)
from ._reductions import (
    all,
    amax,
    amin,
    any,
    argmax,
    argmin,
    cumprod,
    cumsum,
    cumulative_prod,
    cumulative_sum,
    diff,
    ediff1d,
    gradient,
    max,
    min,
    nanargmax,
    nanargmin,
    nancumprod,
    nancumsum,
    nanmax,
    nanmin,
    nanprod,
    nansum,
    prod,
    sum,
    trapezoid,
)
from ._sets import intersect1d, setdiff1d, setxor1d, union1d
from ._shape import (
    append,
    array_split,
    atleast_1d,
    atleast_2d,
    atleast_3d,
    block,
    broadcast_arrays,
    broadcast_shapes,
    broadcast_to,
    column_stack,
    concat,
    concatenate,
    delete,
    dsplit,
    dstack,
    expand_dims,
    flip,
    fliplr,
    flipud,
    hsplit,
    hstack,
    insert,
    matrix_transpose,
    moveaxis,
    pad,
    permute_dims,
    ravel,
    repeat,
    reshape,
    resize,
    roll,
    rollaxis,
    rot90,
    row_stack,
    split,
    squeeze,
    stack,
    swapaxes,
    tile,
    transpose,
    trim_zeros,
    unstack,
    vsplit,
    vstack,
)
from ._sorting import (
    argpartition,
    argsort,
    count_nonzero,
    lexsort,
    partition,
    searchsorted,
    sort,
    unique,
    unique_all,
    unique_counts,
    unique_inverse,
    unique_values,
)
from ._statistics import (
    average,
    bincount,
    corrcoef,
    cov,
    digitize,
    interp,
    mean,
    median,
    nanmean,
    nanmedian,
    nanpercentile,
    nanquantile,
    nanstd,
    nanvar,
    percentile,
    ptp,
    quantile,
    std,
    var,
)
from ._unsupported import (
    copyto,
    einsum_path,
    fill_diagonal,
    frexp,
    nextafter,
    place,
    put,
    put_along_axis,
    putmask,
    spacing,
)
from ._unsupported import not_provided as _not_provided
from ._vectorize import vectorize
from ._window import bartlett, blackman, hamming, hanning, kaiser

_install()

pi = _np.pi
e = _np.e
inf = _np.inf
nan = _np.nan
newaxis = None
float16, float32, float64 = _np.float16, _np.float32, _np.float64
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64 = _np.uint8, _np.uint16, _np.uint32, _np.uint64
bool_ = bool = _np.bool_
int_, intp, float_ = _np.int_, _np.intp, _np.float64
complex64, complex128 = _np.complex64, _np.complex128
# the abstract scalar types, for fnp.issubdtype(x.dtype, fnp.floating)
generic, number, inexact, floating, complexfloating = (
    _np.generic, _np.number, _np.inexact, _np.floating, _np.complexfloating)
integer, signedinteger, unsignedinteger = _np.integer, _np.signedinteger, _np.unsignedinteger
# NumPy's floating-point error state governs fad's eager and jitted NumPy
# computations alike (fnp.errstate(divide="raise") raises FloatingPointError)
errstate, seterr, geterr, seterrcall, geterrcall = (
    _np.errstate, _np.seterr, _np.geterr, _np.seterrcall, _np.geterrcall)
# NumPy's scalar types and constants under their other names
(byte, short, intc, long, longlong, ubyte, ushort, uintc, uint, ulong, ulonglong, uintp, half,
 single, double, longdouble, csingle, cdouble, clongdouble, object_, str_, bytes_, void,
 character, flexible, datetime64, timedelta64, True_, False_) = (
    _np.byte, _np.short, _np.intc, _np.long, _np.longlong, _np.ubyte, _np.ushort, _np.uintc,
    _np.uint, _np.ulong, _np.ulonglong, _np.uintp, _np.half, _np.single, _np.double,
    _np.longdouble, _np.csingle, _np.cdouble, _np.clongdouble, _np.object_, _np.str_,
    _np.bytes_, _np.void, _np.character, _np.flexible, _np.datetime64, _np.timedelta64,
    _np.True_, _np.False_)
euler_gamma, little_endian, typecodes, ScalarType, sctypeDict = (
    _np.euler_gamma, _np.little_endian, _np.typecodes, _np.ScalarType, _np.sctypeDict)
s_ = index_exp = _np.s_  # index expressions: plain tuples of slices, nothing traced
dtype = _np.dtype
ndarray = _np.ndarray


def shape(a: object) -> tuple:
    """The shape of ``a``.

    >>> import fad.numpy as fnp
    >>> fnp.shape([[1, 2]])
    (1, 2)
    """
    return asarray(a).shape


def ndim(a: object) -> int:
    """The number of dimensions of ``a``.

    >>> import fad.numpy as fnp
    >>> fnp.ndim([[1, 2]])
    2
    """
    return len(asarray(a).shape)


def size(a: object) -> int:
    """The number of elements of ``a``.

    >>> import fad.numpy as fnp
    >>> fnp.size([[1, 2]])
    2
    """
    return int(_np.prod(asarray(a).shape))


def iscomplex(x: object) -> object:
    """Whether each element has a nonzero imaginary part.

    >>> import fad.numpy as fnp
    >>> fnp.iscomplex(fnp.array([1 + 1j, 2 + 0j])).tolist()
    [True, False]
    """
    x = asarray(x)
    return not_equal(imag(x), 0) if _np.dtype(x.dtype).kind == "c" else \
        zeros(x.shape, bool_)


def isreal(x: object) -> object:
    """Whether each element has a zero imaginary part.

    >>> import fad.numpy as fnp
    >>> fnp.isreal(fnp.array([1 + 1j, 2 + 0j])).tolist()
    [False, True]
    """
    return logical_not(iscomplex(x))


def isrealobj(x: object) -> bool:
    """Whether ``x``'s dtype is not complex.

    >>> import fad.numpy as fnp
    >>> fnp.isrealobj(fnp.array([1.0]))
    True
    """
    return not iscomplexobj(x)


def real_if_close(a: object, tol: float = 100) -> object:
    """``a``'s real part if every imaginary part is within ``tol`` machine
    epsilons of 0 (a data-dependent dtype: concrete values only).

    >>> import fad.numpy as fnp
    >>> fnp.real_if_close(fnp.array([2.0 + 1e-16j])).tolist()
    [2.0]
    """
    from ._base import concrete_array, dtype_of
    a = asarray(a)
    dt = dtype_of(a)
    if dt.kind != "c":
        return a
    eps = finfo(dt).eps * tol if tol > 1 else tol
    im = concrete_array(imag(a), "real_if_close")
    return real(a) if _np.all(_np.abs(im) < eps) else a


__all__ = [n for n in dir() if not n.startswith("_") and n != "annotations"]
_sys.modules[__name__ + ".random"] = random  # import fad.numpy.random as npr


def __getattr__(name: str) -> object:
    # a public NumPy name that fad.numpy lacks: an error naming it (fnp.random,
    # fnp.ma, fnp.savetxt...); any other name is an ordinary AttributeError
    if not name.startswith("_") and name in dir(_np):
        raise _not_provided(name)
    raise AttributeError(f"module 'fad.numpy' has no attribute {name!r}")


def __dir__() -> list[str]:
    return list(__all__)
