"""Complex numbers: ``real``, ``imag``, ``conj``, ``complex`` and the FFTs.

Convention (JAX's): a cotangent ``c`` pairs with a tangent ``t`` through the
*bilinear* form ``Re(sum(c * t))``. Holomorphic primitives (``sin``, ``exp``,
``mul``...) therefore transpose to multiplication by the same derivative, and
``grad`` of a real-valued ``f`` at ``z = x + iy`` is ``df/dx - i df/dy``. The
primitives here are only R-linear, so each has an explicit transpose:

* ``real``: ``Re(c Re t) = Re(c t)`` for real ``c``        -> ``c + 0i``
* ``imag``: ``c Im t = Re(-i c t)``                         -> ``-i c``
* ``conj``: ``Re(c conj(t)) = Re(conj(c) t)``                -> ``conj(c)``
* ``complex(a, b) = a + ib``: ``Re(c (a + ib))``            -> ``(Re c, -Im c)``
* ``fft`` (unnormalised DFT matrix ``F``, symmetric)        -> ``fft`` again, and
  ``ifft = conj(F) / n`` (symmetric too)                    -> ``ifft``;
  ``rfft`` = first half of ``fft`` of a real input          -> ``Re(fft(zero-pad(c)))``;
  ``irfft`` (Hermitian completion, weights ``m_k`` = 1 at ``k = 0`` and at
  ``n/2`` for even ``n``, else 2)                            -> ``m * ifft(c)[:n//2+1]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backends import backend_for
from ..backends.base import numpy_dtype
from ..core.errors import ShapeError
from ..core.ir import ShapedArray
from ..core.linear import is_undefined
from ..core.primitive import Primitive
from ..core.trace import aval_of, bind
from . import shapes
from .builders import (
    batch_moving_axis,
    deflinear,
    elementwise_batch,
    to_front,
    unary_batch,
    unbroadcast,
)
from .indexing import gather, slice_axis
from .sorting import constant
from .strided import read_only_view
from .structural import concatenate_p, convert_element_type

_REAL_OF = {np.dtype(np.complex64): np.dtype(np.float32),
            np.dtype(np.complex128): np.dtype(np.float64)}
_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128)}


def real_dtype(dtype: Any) -> np.dtype:
    return _REAL_OF.get(np.dtype(dtype), np.dtype(dtype))


def complex_dtype(dtype: Any) -> np.dtype:
    dtype = np.dtype(dtype)
    return dtype if dtype.kind == "c" else _COMPLEX_OF.get(dtype, np.dtype(np.complex128))


def _to_real(x: ShapedArray, **_: Any) -> ShapedArray:
    return ShapedArray(x.shape, real_dtype(x.dtype))


def _as_complex(ct: Any, like: ShapedArray) -> Any:
    return convert_element_type(ct, complex_dtype(like.dtype))


real_p = Primitive("real", lambda xp, x: xp.real(x), _to_real)
imag_p = Primitive("imag", lambda xp, x: xp.imag(x), _to_real)
conj_p = Primitive("conj", lambda xp, x: xp.conj(x), shapes.same)
complex_p = Primitive("complex", lambda xp, a, b: a + 1j * b,
                      lambda a, b: ShapedArray(shapes.broadcast_shapes(a.shape, b.shape),
                                               complex_dtype(a.dtype)))

deflinear(real_p, lambda ct, x: [_as_complex(ct, x.aval)])
deflinear(imag_p, lambda ct, x: [_as_complex(ct, x.aval) * -1j])
deflinear(conj_p, lambda ct, x: [bind(conj_p, ct)])
for _prim in (real_p, imag_p, conj_p):
    _prim.batch = unary_batch(_prim)


def _complex_transpose(ct: Any, a: Any, b: Any) -> list:
    return [unbroadcast(bind(real_p, ct), a.aval.shape) if is_undefined(a) else None,
            unbroadcast(-bind(imag_p, ct), b.aval.shape) if is_undefined(b) else None]


deflinear(complex_p, _complex_transpose, linear=(0, 1))
complex_p.batch = elementwise_batch(complex_p)


# ---------------------------------------------------------------- pairs of reals
# ``as_real``: complex (...) -> real (..., 2), (Re, Im) last; ``as_complex`` its
# inverse. On NumPy each is a view of its operand's memory, as PyTorch's
# ``view_as_real`` / ``view_as_complex``. Transposes, from those of ``real``, ``imag``
# and ``complex`` above: ``as_real`` -> ``c[..., 0] - i c[..., 1]``;
# ``as_complex`` -> ``(Re c, -Im c)`` stacked last.
def _as_real_aval(z: ShapedArray) -> ShapedArray:
    if np.dtype(z.dtype).kind != "c":
        raise ShapeError(f"as_real takes complex numbers, not {z.dtype}")
    return ShapedArray(z.shape + (2,), real_dtype(z.dtype))


def _as_real_impl(xp: Any, z: Any) -> Any:
    if xp is np:
        z = np.asarray(z)  # (a NumPy scalar has no memory of its own to view)
        half = z.itemsize // 2
        return read_only_view(z, z.shape + (2,), z.strides + (half,), 0, real_dtype(z.dtype))
    return xp.stack([xp.real(z), xp.imag(z)], axis=-1)


def _as_complex_aval(x: ShapedArray) -> ShapedArray:
    _check_pairs(x)
    return ShapedArray(x.shape[:-1], complex_dtype(x.dtype))


def _check_pairs(x: Any) -> None:
    if numpy_dtype(x.dtype).kind != "f":
        raise TypeError(f"as_complex takes pairs of real floats, not {x.dtype}")
    if not x.shape or x.shape[-1] != 2:
        raise ShapeError(f"as_complex takes pairs of reals (a last axis of 2), not shape "
                         f"{tuple(x.shape)}")


def _as_complex_impl(xp: Any, x: Any) -> Any:
    _check_pairs(x)
    if xp is np and x.dtype in _COMPLEX_OF and x.strides[-1] == x.itemsize and all(
            s % (2 * x.itemsize) == 0 for s in x.strides[:-1]) and \
            x.__array_interface__["data"][0] % (2 * x.itemsize) == 0:
        return read_only_view(x, x.shape[:-1], x.strides[:-1], 0, _COMPLEX_OF[x.dtype])
    return x[..., 0] + 1j * x[..., 1]


def _pair(ct: Any, k: int) -> Any:
    return gather(ct, (Ellipsis, k))


as_real_p = Primitive("as_real", _as_real_impl, _as_real_aval)
deflinear(as_real_p, lambda ct, z: [bind(complex_p, _pair(ct, 0), -_pair(ct, 1))])
as_real_p.batch = lambda n, vals, dims: (bind(as_real_p, vals[0]), dims[0])
as_complex_p = Primitive("as_complex", _as_complex_impl, _as_complex_aval)
deflinear(as_complex_p, lambda ct, x: [bind(as_real_p, bind(conj_p, ct))])
as_complex_p.batch = lambda n, vals, dims: (
    bind(as_complex_p, to_front(vals[0], dims[0])), 0)


def as_real(z: Any) -> Any:
    """The complex ``z`` as pairs of reals ``(Re, Im)`` on a new last axis (a view of
    its memory on NumPy, as PyTorch's ``view_as_real``).

    >>> as_real(np.array([1 + 2j])).tolist()
    [[1.0, 2.0]]
    """
    return bind(as_real_p, z)


def as_complex(x: Any) -> Any:
    """Pairs of reals on the last axis (of 2) as complex numbers (a view of their
    memory on NumPy when it can be, as PyTorch's ``view_as_complex``).

    >>> as_complex(np.array([[1.0, 2.0]])).tolist()
    [(1+2j)]
    """
    return bind(as_complex_p, x)


# ---------------------------------------------------------------- FFT
def _fft_aval(x: ShapedArray, *, kind: str, n: int, axis: int) -> ShapedArray:
    shape = list(x.shape)
    if kind == "rfft":
        shape[axis] = n // 2 + 1
        return ShapedArray(tuple(shape), complex_dtype(x.dtype))
    shape[axis] = n
    if kind == "irfft":
        return ShapedArray(tuple(shape), real_dtype(x.dtype))
    return ShapedArray(tuple(shape), complex_dtype(x.dtype))


def _fft_impl(xp: Any, x: Any, *, kind: str, n: int, axis: int) -> Any:
    want = _fft_aval(aval_of(x), kind=kind, n=n, axis=axis).dtype
    return backend_for(xp).fft(kind, x, n, axis, want)


fft_p = Primitive("fft", _fft_impl, _fft_aval)


def fft(x: Any, kind: str, n: int, axis: int) -> Any:
    return bind(fft_p, x, kind=kind, n=n, axis=axis)


def _fit(y: Any, axis: int, length: int) -> Any:
    """Crop or zero-pad ``y`` along ``axis`` to ``length``."""
    have = aval_of(y).shape[axis]
    if have == length:
        return y
    if have > length:
        return slice_axis(y, axis, 0, length)
    aval = aval_of(y)
    shape = list(aval.shape)
    shape[axis] = length - have
    zeros = constant(np.zeros(shape, aval.dtype), y)
    return bind(concatenate_p, y, zeros, axis=axis)


def _fft_transpose(ct: Any, x: Any, *, kind: str, n: int, axis: int) -> list:
    length = x.aval.shape[axis]
    if kind in ("fft", "ifft"):
        out = fft(ct, kind, n, axis)
    elif kind == "rfft":
        out = bind(real_p, fft(_fit(ct, axis, n), "fft", n, axis))
    else:  # irfft
        half = n // 2 + 1
        weights = np.full(half, 2.0)
        weights[0] = 1.0
        if n % 2 == 0:
            weights[-1] = 1.0
        shape = [1] * aval_of(ct).ndim
        shape[axis] = half
        spectrum = _fit(fft(convert_element_type(ct, complex_dtype(x.aval.dtype)), "ifft",
                            n, axis), axis, half)
        out = spectrum * constant(weights.reshape(shape).astype(real_dtype(x.aval.dtype)), ct)
    out = _fit(out, axis, length)
    if x.aval.dtype.kind != "c" and aval_of(out).dtype.kind == "c":
        out = bind(real_p, out)  # a real input pairs with the real part
    return [convert_element_type(out, x.aval.dtype)]


deflinear(fft_p, _fft_transpose)
fft_p.batch = batch_moving_axis(fft_p, "axis")

