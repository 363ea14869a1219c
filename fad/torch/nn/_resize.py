"""``F.interpolate``'s ``"nearest-exact"``, ``"area"`` and ``"bicubic"`` modes:
each is separable, one fixed linear map per spatial axis (a matrix of weights
built from the sizes), applied with the facade's ``matmul`` so that the
derivative is fad's."""

from __future__ import annotations

import numpy as np

from .. import _functions as F
from .._creation import _place
from ..tensor import Tensor, wrap

MODES = ("nearest-exact", "area", "bicubic")
_A = -0.75  # the cubic convolution's parameter, as PyTorch's


def _nearest_exact(n: int, m: int, scale: float, align_corners: bool) -> np.ndarray:
    src = np.minimum(np.floor((np.arange(m) + 0.5) * scale).astype(np.int64), n - 1)
    w = np.zeros((m, n))
    w[np.arange(m), src] = 1.0
    return w


def _area(n: int, m: int, scale: float, align_corners: bool) -> np.ndarray:
    """Adaptive average pooling: output ``i`` averages ``[floor(i n / m), ceil((i+1) n / m))``."""
    w = np.zeros((m, n))
    for i in range(m):
        lo, hi = (i * n) // m, -((-(i + 1) * n) // m)
        w[i, lo:hi] = 1.0 / (hi - lo)
    return w


def _cubic_weights(t: np.ndarray) -> np.ndarray:
    def near(x: np.ndarray) -> np.ndarray:
        return ((_A + 2) * x - (_A + 3)) * x * x + 1

    def far(x: np.ndarray) -> np.ndarray:
        return ((_A * x - 5 * _A) * x + 8 * _A) * x - 4 * _A
    return np.stack([far(t + 1), near(t), near(1 - t), far(2 - t)], axis=-1)


def _bicubic(n: int, m: int, scale: float, align_corners: bool) -> np.ndarray:
    """Cubic convolution at the source positions ``i * (n-1)/(m-1)`` (corners
    aligned) or ``(i + 1/2) * scale - 1/2``, neighbours beyond the edge clamped."""
    i = np.arange(m, dtype=np.float64)
    if align_corners:
        src = i * ((n - 1) / (m - 1) if m > 1 else 0.0)
    else:
        src = (i + 0.5) * scale - 0.5
    base = np.floor(src)
    coeffs = _cubic_weights(src - base)
    w = np.zeros((m, n))
    for k in range(4):
        np.add.at(w, (np.arange(m), np.clip(base.astype(np.int64) - 1 + k, 0, n - 1)),
                  coeffs[:, k])
    return w


_BUILDERS = {"nearest-exact": _nearest_exact, "area": _area, "bicubic": _bicubic}


def resample(input: Tensor, sizes: tuple, scales: tuple, mode: str, align_corners: bool
             ) -> Tensor:
    """``input`` resampled over its trailing ``len(sizes)`` axes to ``sizes``.

    >>> import fad.torch as torch
    >>> F = torch.nn.functional
    >>> F.interpolate(torch.tensor([[[1.0, 2.0, 3.0, 4.0]]]), size=2, mode="area")
    tensor([[[1.5000, 3.5000]]])
    """
    out = input
    first = input.dim() - len(sizes)
    for k, (m, scale) in enumerate(zip(sizes, scales)):
        axis, n = first + k, input.shape[first + k]
        w = _BUILDERS[mode](n, m, scale, align_corners).astype(input.dtype.np)
        moved = F.movedim(out, axis, -1)
        out = F.movedim(F.matmul(moved, wrap(_place(np.ascontiguousarray(w.T)))), -1, axis)
    return out
