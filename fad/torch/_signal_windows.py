"""PyTorch's window functions (``torch.hann_window`` and the others): tapers for
spectral analysis, made afresh (no derivative), ``periodic`` by default (the
symmetric window of one more point, its last dropped), float32 unless a
``dtype`` is given."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import _dtype
from ._creation import _finish, _place
from .tensor import Tensor


def _window(name: str, length: int, periodic: bool, shape: Callable[[np.ndarray, int], Any],
            dtype: Any, device: Any, requires_grad: bool) -> Tensor:
    """``shape(n, m)`` at the points ``n = 0 .. m - 1`` of the symmetric window of
    ``m`` points (``length``, or ``length + 1`` for a periodic one)."""
    dt = _dtype.get_default_dtype() if dtype is None else dtype
    if dt.np.kind not in "fc":
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dt}")
    if length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={length}")
    m = length + 1 if periodic else length
    values = np.ones(length) if length <= 1 else shape(np.arange(m, dtype=np.float64), m)[:length]
    return _finish(_place(values.astype(dt.np), device), requires_grad)


def _cosine_sum(*coefficients: float) -> Callable[[np.ndarray, int], Any]:
    """``sum_k (-1)^k a_k cos(2 pi k n / (m - 1))`` (Hann, Hamming, Blackman)."""
    def shape(n: np.ndarray, m: int) -> np.ndarray:
        return sum((-1) ** k * a * np.cos(2 * np.pi * k * n / (m - 1))
                   for k, a in enumerate(coefficients))
    return shape


def hann_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                device: Any = None, requires_grad: bool = False, **_: Any) -> Tensor:
    """The Hann window ``1/2 - 1/2 cos(2 pi n / (N - 1))``.

    >>> import fad.torch as torch
    >>> torch.hann_window(4)
    tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    return _window("hann_window", window_length, periodic, _cosine_sum(0.5, 0.5), dtype,
                   device, requires_grad)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54,
                   beta: float = 0.46, *, dtype: Any = None, device: Any = None,
                   requires_grad: bool = False, **_: Any) -> Tensor:
    """The Hamming window ``alpha - beta cos(2 pi n / (N - 1))``.

    >>> import fad.torch as torch
    >>> torch.hamming_window(3, periodic=False)
    tensor([0.0800, 1.0000, 0.0800])
    """
    return _window("hamming_window", window_length, periodic, _cosine_sum(alpha, beta), dtype,
                   device, requires_grad)


def blackman_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                    device: Any = None, requires_grad: bool = False, **_: Any) -> Tensor:
    """The Blackman window ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``.

    >>> import fad.torch as torch
    >>> torch.blackman_window(3, periodic=False).round(decimals=4)
    tensor([-0., 1., -0.])
    """
    return _window("blackman_window", window_length, periodic, _cosine_sum(0.42, 0.5, 0.08),
                   dtype, device, requires_grad)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                    device: Any = None, requires_grad: bool = False, **_: Any) -> Tensor:
    """The triangular Bartlett window ``1 - |2 n / (N - 1) - 1|``.

    >>> import fad.torch as torch
    >>> torch.bartlett_window(5, periodic=False)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    return _window("bartlett_window", window_length, periodic,
                   lambda n, m: 1 - np.abs(2 * n / (m - 1) - 1), dtype, device, requires_grad)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *,
                  dtype: Any = None, device: Any = None, requires_grad: bool = False,
                  **_: Any) -> Tensor:
    """The Kaiser window ``I0(beta sqrt(1 - (2 n / (N - 1) - 1)^2)) / I0(beta)``.

    >>> import fad.torch as torch
    >>> torch.kaiser_window(3, periodic=False, beta=0.0)
    tensor([1., 1., 1.])
    """
    def shape(n: np.ndarray, m: int) -> np.ndarray:
        ratio = 2 * n / (m - 1) - 1
        return np.i0(beta * np.sqrt(np.clip(1 - ratio * ratio, 0, None))) / np.i0(beta)
    return _window("kaiser_window", window_length, periodic, shape, dtype, device,
                   requires_grad)


__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]
