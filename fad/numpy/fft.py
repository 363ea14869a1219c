"""``fad.numpy.fft``: discrete Fourier transforms, differentiable in both modes.

>>> import fad, fad.numpy as fnp
>>> x = fnp.arange(4.0)
>>> fnp.fft.fft(x).round(6).tolist()
[(6+0j), (-2+2j), (-2+0j), (-2-2j)]
>>> fad.grad(lambda x: fnp.sum(fnp.abs(fnp.fft.rfft(x)) ** 2))(x).tolist()
[4.0, 12.0, 12.0, 20.0]
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..primitives import complex as CX
from ..primitives.structural import convert_element_type
from ._base import asarray, dtype_of
from ._complex import conj
from ._shape import roll


def _norm_scale(norm: str | None, n: int, inverse: bool) -> float | None:
    if norm in (None, "backward"):
        return None
    if norm == "ortho":
        return (n ** 0.5) if inverse else 1 / n ** 0.5
    if norm == "forward":
        return n if inverse else 1 / n
    raise ValueError(f'norm must be "backward", "ortho" or "forward", got {norm!r}')


_SWAP = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}


def _transform(kind: str, a: Any, n: int | None, axis: int, norm: str | None) -> Any:
    a = asarray(a)
    if a.ndim == 0:
        raise ValueError(f"fad.numpy.fft.{kind}: the input must have at least one axis")
    if dtype_of(a).kind not in "fc":
        a = convert_element_type(a, "float64")
    axis = axis % a.ndim
    if kind == "irfft":
        n = n if n is not None else 2 * (a.shape[axis] - 1)
    else:
        n = n if n is not None else a.shape[axis]
    if kind == "rfft" and dtype_of(a).kind == "c":
        raise TypeError("rfft needs a real input")
    out = CX.fft(a, kind, n, axis)
    scale = _norm_scale(norm, n, kind in ("ifft", "irfft"))
    return out if scale is None else out * scale


def fft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """One-dimensional discrete Fourier transform along ``axis``.

    >>> import fad.numpy as fnp
    >>> fnp.fft.fft(fnp.array([1.0, 0.0, 0.0, 0.0])).tolist()
    [(1+0j), (1+0j), (1+0j), (1+0j)]
    """
    return _transform("fft", a, n, axis, norm)


def ifft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """Inverse of ``fft``.

    >>> import fad.numpy as fnp
    >>> fnp.fft.ifft(fnp.fft.fft(fnp.array([1.0, 2.0]))).real.tolist()
    [1.0, 2.0]
    """
    return _transform("ifft", a, n, axis, norm)


def rfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """``fft`` of a real input, keeping the ``n // 2 + 1`` non-negative frequencies.

    >>> import fad.numpy as fnp
    >>> fnp.fft.rfft(fnp.ones(4)).tolist()
    [(4+0j), 0j, 0j]
    """
    return _transform("rfft", a, n, axis, norm)


def irfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """Inverse of ``rfft``: a real signal of length ``n`` (default ``2 (m - 1)``).

    >>> import fad.numpy as fnp
    >>> fnp.fft.irfft(fnp.fft.rfft(fnp.array([1.0, 2.0, 3.0, 4.0]))).round(12).tolist()
    [1.0, 2.0, 3.0, 4.0]
    """
    return _transform("irfft", a, n, axis, norm)


def hfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The real spectrum of a signal with Hermitian symmetry, given its first half
    (NumPy's ``irfft(conj(a), n)`` with the opposite normalisation).

    >>> import fad.numpy as fnp
    >>> fnp.fft.hfft(fnp.array([1.0, 2.0, 3.0])).tolist()
    [8.0, -2.0, 0.0, -2.0]
    """
    if norm not in _SWAP:
        _norm_scale(norm, 1, False)
    return irfft(conj(asarray(a)), n, axis, _SWAP[norm])


def ihfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """Inverse of ``hfft``: the first half of the Hermitian spectrum of a real signal.

    >>> import fad.numpy as fnp
    >>> fnp.fft.ihfft(fnp.array([8.0, -2.0, 0.0, -2.0])).real.tolist()
    [1.0, 2.0, 3.0]
    """
    if norm not in _SWAP:
        _norm_scale(norm, 1, False)
    return conj(rfft(a, n, axis, _SWAP[norm]))


def _axes_and_sizes(a: Any, s: Sequence[int] | None, axes: Sequence[int] | None,
                    name: str) -> tuple[list[int], list[Any]]:
    """NumPy's defaults: every axis, or the last ``len(s)`` axes when ``s`` is given."""
    ndim = asarray(a).ndim
    if axes is None:
        axes = list(range(ndim)) if s is None else list(range(ndim - len(s), ndim))
    axes = [ax % ndim if -ndim <= ax < ndim else _bad_axis(name, ax, ndim) for ax in axes]
    if s is None:
        return axes, [None] * len(axes)
    if len(s) != len(axes):
        raise ValueError(f"fad.numpy.fft.{name}: s and axes must have the same length, "
                         f"got {len(s)} and {len(axes)}")
    return axes, [None if k is None or k == -1 else int(k) for k in s]


def _bad_axis(name: str, ax: int, ndim: int) -> int:
    raise ValueError(f"fad.numpy.fft.{name}: axis {ax} is out of bounds for an array of "
                     f"{ndim} dimensions")


def _along(kind: str, a: Any, s: Any, axes: Any, norm: str | None, name: str) -> Any:
    axes, sizes = _axes_and_sizes(a, s, axes, name)
    out = asarray(a)
    for ax, n in reversed(list(zip(axes, sizes))):  # NumPy's order: the last axis first
        out = _transform(kind, out, n, ax, norm)
    return out


def fftn(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str | None = None) -> Any:
    """N-dimensional ``fft`` over ``axes`` (all by default), each cropped or
    zero-padded to ``s``.

    >>> import fad.numpy as fnp
    >>> fnp.fft.fftn(fnp.ones((2, 2))).real.tolist()
    [[4.0, 0.0], [0.0, 0.0]]
    """
    return _along("fft", a, s, axes, norm, "fftn")


def ifftn(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> Any:
    """Inverse of ``fftn``.

    >>> import fad.numpy as fnp
    >>> fnp.fft.ifftn(fnp.fft.fftn(fnp.eye(2))).real.round(12).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return _along("ifft", a, s, axes, norm, "ifftn")


def fft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
         norm: str | None = None) -> Any:
    """Two-dimensional ``fft`` over ``axes``.

    >>> import fad.numpy as fnp
    >>> fnp.fft.fft2(fnp.ones((2, 2))).real.tolist()
    [[4.0, 0.0], [0.0, 0.0]]
    """
    return fftn(a, s, axes, norm)


def ifft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None) -> Any:
    """Inverse of ``fft2``.

    >>> import fad.numpy as fnp
    >>> fnp.fft.ifft2(fnp.fft.fft2(fnp.eye(2))).real.round(12).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return ifftn(a, s, axes, norm)


def rfftn(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> Any:
    """``fftn`` of a real input: ``rfft`` over the last of ``axes``, then ``fft``
    over the others.

    >>> import fad.numpy as fnp
    >>> fnp.fft.rfftn(fnp.ones((2, 4))).real.tolist()
    [[8.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """
    axes, sizes = _axes_and_sizes(a, s, axes, "rfftn")
    out = rfft(a, sizes[-1], axes[-1], norm)
    return _along("fft", out, sizes[:-1], axes[:-1], norm, "rfftn") if axes[:-1] else out


def irfftn(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: str | None = None) -> Any:
    """Inverse of ``rfftn``: ``ifft`` over all but the last of ``axes``, then
    ``irfft`` over it (length ``s[-1]``, default ``2 (m - 1)``).

    >>> import fad.numpy as fnp
    >>> x = fnp.arange(8.0).reshape(2, 4)
    >>> fnp.fft.irfftn(fnp.fft.rfftn(x)).round(12).tolist()
    [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]
    """
    axes, sizes = _axes_and_sizes(a, s, axes, "irfftn")
    out = _along("ifft", a, sizes[:-1], axes[:-1], norm, "irfftn") if axes[:-1] else a
    return irfft(out, sizes[-1], axes[-1], norm)


def rfft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None) -> Any:
    """Two-dimensional ``rfftn``.

    >>> import fad.numpy as fnp
    >>> fnp.fft.rfft2(fnp.ones((2, 2))).real.tolist()
    [[4.0, 0.0], [0.0, 0.0]]
    """
    return rfftn(a, s, axes, norm)


def irfft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
           norm: str | None = None) -> Any:
    """Two-dimensional ``irfftn``.

    >>> import fad.numpy as fnp
    >>> fnp.fft.irfft2(fnp.fft.rfft2(fnp.eye(2))).round(12).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return irfftn(a, s, axes, norm)


def _shift(x: Any, axes: Any, sign: int) -> Any:
    x = asarray(x)
    axes = tuple(range(x.ndim)) if axes is None else \
        (axes,) if isinstance(axes, int) else tuple(axes)
    if not axes:
        return x
    return roll(x, tuple(sign * (x.shape[ax] // 2) for ax in axes), axes)


def fftshift(x: Any, axes: int | Sequence[int] | None = None) -> Any:
    """The zero frequency moved to the centre (a roll by ``n // 2`` along ``axes``).

    >>> import fad.numpy as fnp
    >>> fnp.fft.fftshift(fnp.arange(5.0)).tolist()
    [3.0, 4.0, 0.0, 1.0, 2.0]
    """
    return _shift(x, axes, 1)


def ifftshift(x: Any, axes: int | Sequence[int] | None = None) -> Any:
    """Inverse of ``fftshift``.

    >>> import fad.numpy as fnp
    >>> fnp.fft.ifftshift(fnp.fft.fftshift(fnp.arange(5.0))).tolist()
    [0.0, 1.0, 2.0, 3.0, 4.0]
    """
    return _shift(x, axes, -1)


def fftfreq(n: int, d: float = 1.0, *, dtype: Any = None, device: Any = None) -> Any:
    """The sample frequencies of an ``n``-point ``fft`` with spacing ``d``.

    >>> import fad.numpy as fnp
    >>> fnp.fft.fftfreq(4).tolist()
    [0.0, 0.25, -0.5, -0.25]
    """
    return asarray(np.fft.fftfreq(int(n), d), dtype)


def rfftfreq(n: int, d: float = 1.0, *, dtype: Any = None, device: Any = None) -> Any:
    """The sample frequencies of an ``n``-point ``rfft`` with spacing ``d``.

    >>> import fad.numpy as fnp
    >>> fnp.fft.rfftfreq(4).tolist()
    [0.0, 0.25, 0.5]
    """
    return asarray(np.fft.rfftfreq(int(n), d), dtype)


__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "ifftn", "fft2", "ifft2",
           "rfftn", "irfftn", "rfft2", "irfft2", "fftshift", "ifftshift", "fftfreq", "rfftfreq"]


def __dir__() -> list[str]:
    return list(__all__)
