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


def fft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
         norm: str | None = None) -> Any:
    """Two-dimensional ``fft`` over ``axes``.

    >>> import fad.numpy as fnp
    >>> fnp.fft.fft2(fnp.ones((2, 2))).real.tolist()
    [[4.0, 0.0], [0.0, 0.0]]
    """
    out = a
    for k, ax in enumerate(axes):
        out = fft(out, None if s is None else s[k], ax, norm)
    return out


def ifft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None) -> Any:
    """Inverse of ``fft2``.

    >>> import fad.numpy as fnp
    >>> fnp.fft.ifft2(fnp.fft.fft2(fnp.eye(2))).real.round(12).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    out = a
    for k, ax in enumerate(axes):
        out = ifft(out, None if s is None else s[k], ax, norm)
    return out


__all__ = ["fft", "ifft", "rfft", "irfft", "fft2", "ifft2"]
