"""``import fad.numpy as fnp``: NumPy's namespace, traced and differentiable.

>>> import fad, fad.numpy as fnp
>>> float(fad.grad(lambda x: fnp.sum(fnp.sin(x) ** 2))(fnp.array([0.5, 1.0]))[0])
0.8414709848078965
"""

from __future__ import annotations

import numpy as _np

from . import fft
from ._base import asarray
from ._complex import angle, conj, conjugate, imag, iscomplexobj, real
from ._contract import dot, einsum, inner, matmul, outer, tensordot, trace
from ._creation import (
    arange,
    array,
    empty,
    empty_like,
    eye,
    full,
    full_like,
    identity,
    linspace,
    ones,
    ones_like,
    zeros,
    zeros_like,
)
from ._indexing import nonzero, take, take_along_axis
from ._math import (
    abs,
    absolute,
    add,
    arccos,
    arcsin,
    arctan,
    arctan2,
    ceil,
    clip,
    cos,
    cosh,
    divide,
    equal,
    exp,
    expm1,
    floor,
    floor_divide,
    greater,
    greater_equal,
    isfinite,
    isnan,
    less,
    less_equal,
    log,
    log1p,
    log2,
    log10,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    not_equal,
    power,
    reciprocal,
    remainder,
    sigmoid,
    sign,
    sin,
    sinh,
    sqrt,
    square,
    subtract,
    tan,
    tanh,
    true_divide,
    where,
)
from ._methods import install as _install
from ._reductions import all, amax, amin, any, argmax, argmin, max, mean, min, std, sum, var
from ._shape import (
    atleast_1d,
    broadcast_to,
    concat,
    concatenate,
    expand_dims,
    moveaxis,
    ravel,
    reshape,
    squeeze,
    stack,
    swapaxes,
    transpose,
)

_install()

pi = _np.pi
e = _np.e
inf = _np.inf
nan = _np.nan
newaxis = None
float16, float32, float64 = _np.float16, _np.float32, _np.float64
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, bool_ = _np.uint8, _np.bool_
complex64, complex128 = _np.complex64, _np.complex128
dtype = _np.dtype
ndarray = _np.ndarray


def shape(a: object) -> tuple:
    """The shape of ``a``."""
    return asarray(a).shape


def ndim(a: object) -> int:
    """The number of dimensions of ``a``."""
    return len(asarray(a).shape)


def size(a: object) -> int:
    """The number of elements of ``a``."""
    return int(_np.prod(asarray(a).shape))


__all__ = [n for n in dir() if not n.startswith("_")]
