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

from ..primitives import complex as CX
from ..primitives.structural import convert_element_type
from ._base import asarray, dtype_of


def _norm_scale(norm: str | None, n: int, inverse: bool) -> float | None:
    if norm in (None, "backward"):
        return None
    if norm == "ortho":
        return (n ** 0.5) if inverse else 1 / n ** 0.5
    if norm == "forward":
        return n if inverse else 1 / n
    raise ValueError(f'norm must be "backward", "ortho" or "forward", got {norm!r}')


def _transform(kind: str, a: Any, n: int | None, axis: int, norm: str | None) -> Any:
    a = asarray(a)
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
    """One-dimensional discrete Fourier transform along ``axis``."""
    return _transform("fft", a, n, axis, norm)


def ifft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """Inverse of ``fft``."""
    return _transform("ifft", a, n, axis, norm)


def rfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """``fft`` of a real input, keeping the ``n // 2 + 1`` non-negative frequencies."""
    return _transform("rfft", a, n, axis, norm)


def irfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """Inverse of ``rfft``: a real signal of length ``n`` (default ``2 (m - 1)``)."""
    return _transform("irfft", a, n, axis, norm)


def fft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
         norm: str | None = None) -> Any:
    """Two-dimensional ``fft`` over ``axes``."""
    out = a
    for k, ax in enumerate(axes):
        out = fft(out, None if s is None else s[k], ax, norm)
    return out


def ifft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None) -> Any:
    """Inverse of ``fft2``."""
    out = a
    for k, ax in enumerate(axes):
        out = ifft(out, None if s is None else s[k], ax, norm)
    return out
