"""``F.affine_grid`` and ``F.grid_sample`` (2-d): sampling an image at arbitrary
points, for spatial transformers. Each is one recorded operation written in
``fad.numpy`` (its derivative fad's, in the image and in the sampling grid)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ... import numpy as fnp
from ...transforms.autodiff import stop_gradient
from .._recorder import EW, Op, apply
from ..tensor import Tensor

__all__ = ["affine_grid", "grid_sample"]

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the old "
                  "behavior is desired. See the documentation of grid_sample for details.")


def _base_coordinates(n: int, align_corners: bool) -> np.ndarray:
    """The normalised coordinates (in ``[-1, 1]``) of ``n`` pixels: their centres,
    or (``align_corners``) the first and last pixel at the ends."""
    if align_corners:
        return np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(n)
    return (2 * np.arange(n) + 1) / n - 1


def _affine_grid(theta: Any, size: tuple = (), align_corners: bool = False) -> Any:
    h, w = size[-2:]
    xs, ys = _base_coordinates(w, align_corners), _base_coordinates(h, align_corners)
    base = np.stack([np.broadcast_to(xs, (h, w)), np.broadcast_to(ys[:, None], (h, w)),
                     np.ones((h, w))], -1).reshape(1, h * w, 3).astype(theta.dtype)
    return fnp.reshape(fnp.matmul(base, fnp.swapaxes(theta, 1, 2)), (theta.shape[0], h, w, 2))


_AFFINE_GRID = Op("affine_grid", _affine_grid, "AffineGridGeneratorBackward0", None, True)


def affine_grid(theta: Tensor, size: Any, align_corners: bool | None = None) -> Tensor:
    """The sampling grid ``(N, H, W, 2)`` of the affine maps ``theta`` ``(N, 2, 3)``
    over an output of ``size`` ``(N, C, H, W)``: each pixel's normalised ``(x, y, 1)``
    times ``theta``'s transpose.

    >>> import fad.torch as torch
    >>> theta = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    >>> torch.nn.functional.affine_grid(theta, (1, 1, 1, 2), align_corners=True)
    tensor([[[[-1.,  0.],
              [ 1.,  0.]]]])
    """
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
    size = tuple(int(n) for n in size)
    if len(size) != 4:
        raise NotImplementedError("affine_grid only supports 4D sizes, for 2D affine "
                                  "transformations (fad.torch has no 5D volumetric form).")
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got "
                         f"{theta.dtype}")
    if theta.dim() != 3 or tuple(theta.shape[1:]) != (2, 3):
        raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                         f"{size}. Got {theta.shape}.")
    if theta.shape[0] != size[0]:
        raise ValueError(f"Expected theta batch size {theta.shape[0]} to match size[0] "
                         f"{size[0]}")
    return apply(_AFFINE_GRID, (theta,), {"size": size, "align_corners": bool(align_corners)})


def _unnormalised(x: Any, n: int, align_corners: bool) -> Any:
    """Grid coordinates in ``[-1, 1]`` as pixel coordinates."""
    return (x + 1) / 2 * (n - 1) if align_corners else ((x + 1) * n - 1) / 2


def _reflected(x: Any, low2: int, high2: int) -> Any:
    """``x`` reflected back into ``[low2 / 2, high2 / 2]`` as often as needed."""
    if low2 == high2:
        return fnp.zeros_like(x)
    low, span = low2 / 2, (high2 - low2) / 2
    x = fnp.abs(x - low)
    extra = fnp.fmod(x, span)
    flips = fnp.floor(x / span)
    return fnp.where(fnp.fmod(flips, 2) == 0, extra + low, span - extra + low)


def _padded(x: Any, n: int, padding_mode: str, align_corners: bool) -> Any:
    """Pixel coordinates moved inside the image as ``padding_mode`` says (``zeros``:
    left as they are; their taps read zero)."""
    if padding_mode == "border":
        return _clipped(x, n)
    if padding_mode == "reflection":
        x = _reflected(x, 0, 2 * (n - 1)) if align_corners else _reflected(x, -1, 2 * n - 1)
        return _clipped(x, n)
    return x


def _clipped(x: Any, n: int) -> Any:
    """``x`` clipped to ``[0, n - 1]``, its derivative 1 strictly inside and 0 from the
    ends on (PyTorch's: the ends count as outside)."""
    return fnp.where((x > 0) & (x < n - 1), x, fnp.clip(stop_gradient(x), 0, n - 1))


def _grid_sample(a: Any, grid: Any, mode: str = "bilinear", padding_mode: str = "zeros",
                 align_corners: bool = False) -> Any:
    n, _, h, w = a.shape
    ix = _padded(_unnormalised(grid[..., 0], w, align_corners), w, padding_mode, align_corners)
    iy = _padded(_unnormalised(grid[..., 1], h, align_corners), h, padding_mode, align_corners)
    batch = np.arange(n).reshape(n, 1, 1)

    def tap(x: Any, y: Any) -> Any:
        # the pixel at integer coordinates (x, y), zero outside the image: (N, Ho, Wo, C)
        inside = (x >= 0) & (x <= w - 1) & (y >= 0) & (y <= h - 1)
        xi = fnp.clip(x, 0, w - 1).astype(np.int64)
        yi = fnp.clip(y, 0, h - 1).astype(np.int64)
        return a[batch, :, yi, xi] * fnp.expand_dims(inside, -1).astype(a.dtype)
    if mode == "nearest":  # (half-way points to the even pixel, as PyTorch's nearbyint)
        out = tap(fnp.round(ix), fnp.round(iy))
    else:
        x0, y0 = fnp.floor(ix), fnp.floor(iy)
        x1, y1 = x0 + 1, y0 + 1
        wx1, wy1 = ix - x0, iy - y0
        wx0, wy0 = x1 - ix, y1 - iy
        out = sum(tap(x, y) * fnp.expand_dims(wx * wy, -1)
                  for x, y, wx, wy in ((x0, y0, wx0, wy0), (x1, y0, wx1, wy0),
                                       (x0, y1, wx0, wy1), (x1, y1, wx1, wy1)))
    return fnp.moveaxis(out, -1, 1)


_GRID_SAMPLE = Op("grid_sample", _grid_sample, "GridSampler2DBackward0", EW, True)


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear",
                padding_mode: str = "zeros", align_corners: bool | None = None) -> Tensor:
    """``input`` ``(N, C, H, W)`` sampled at the normalised points ``grid``
    ``(N, Ho, Wo, 2)`` (``x`` then ``y``, ``-1`` to ``1`` across the image) by
    ``bilinear`` or ``nearest`` interpolation; points outside read zeros, the
    border, or the image reflected (``padding_mode``).

    >>> import fad.torch as torch
    >>> image = torch.arange(4.0).reshape(1, 1, 2, 2)
    >>> torch.nn.functional.grid_sample(image, torch.zeros(1, 1, 1, 2), align_corners=True)
    tensor([[[[1.5000]]]])
    """
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
    if mode not in ("bilinear", "nearest"):
        raise NotImplementedError(f"grid_sample: fad.torch has the bilinear and nearest modes, "
                                  f"not {mode!r}" if mode == "bicubic" else
                                  f"nn.functional.grid_sample(): expected mode to be 'bilinear',"
                                  f" 'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if input.dim() != 4:
        raise NotImplementedError("grid_sample: fad.torch samples 4-D (N, C, H, W) input")
    if grid.dim() != 4 or grid.shape[-1] != 2 or grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid to have size 2 in last dimension, "
                           f"and the same batch size as input, but got grid with sizes "
                           f"{list(grid.shape)} and input with sizes {list(input.shape)}")
    return apply(_GRID_SAMPLE, (input, grid), {"mode": mode, "padding_mode": padding_mode,
                                               "align_corners": bool(align_corners)})
