"""``F.fold`` (col2im: ``conv_transpose2d`` with a one-hot kernel, so overlapping
blocks add up) and ``F.adaptive_max_pool1d/2d/3d`` (every window gathered with
``index_select``, its maximum picked with ``argmax`` and ``gather``: the gradient
goes to the first maximum, as PyTorch's)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _functions as F
from ..tensor import Tensor, wrap
from ._conv_pool import _ntuple, conv_transpose2d
from ._layers_more import pad


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1,
         padding: Any = 0, stride: Any = 1) -> Tensor:
    """col2im, the adjoint of ``unfold``: ``(N, C * kh * kw, L)`` blocks summed into
    an ``(N, C, *output_size)`` image.

    >>> import fad.torch as torch
    >>> torch.nn.functional.fold(torch.ones(1, 4, 4), (3, 3), 2).tolist()
    [[[[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]]]
    """
    size, k, d, p, s = (_ntuple(v, 2) for v in (output_size, kernel_size, dilation, padding,
                                                  stride))
    if input.dim() not in (2, 3):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           "batch size and non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    unbatched = input.dim() == 2
    x = F.unsqueeze(input, 0) if unbatched else input
    kk = k[0] * k[1]
    if x.shape[1] % kk:
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={x.shape[1]} and "
                           f"kernel_size={k}.")
    blocks = [(n + 2 * pp - dd * (kn - 1) - 1) // ss + 1
              for n, kn, dd, pp, ss in zip(size, k, d, p, s)]
    if x.shape[2] != blocks[0] * blocks[1]:
        raise RuntimeError(f"Given output_size={size}, kernel_size={k}, dilation={d}, "
                           f"padding={p}, stride={s}, expected size of input's dimension 2 to "
                           f"match the calculated number of sliding blocks {blocks[0]} * "
                           f"{blocks[1]} = {blocks[0] * blocks[1]}, but got "
                           f"input.size(2)={x.shape[2]}.")
    c = x.shape[1] // kk
    onehot = np.tile(np.eye(kk).reshape(kk, 1, *k), (c, 1, 1, 1))
    weight = wrap(onehot.astype(x.dtype.np))
    full = conv_transpose2d(x.reshape(x.shape[0], c * kk, *blocks), weight, stride=s,
                            dilation=d, groups=c)
    h, w = full.shape[-2:]  # crop the padding (and pad the rows no block reaches)
    out = pad(full, (-p[1], p[1] + size[1] - w, -p[0], p[0] + size[0] - h))
    return F.squeeze(out, 0) if unbatched else out


def _windows(n: int, out: int) -> np.ndarray:
    """``(out, longest)`` indices of each adaptive window (the last one repeated)."""
    i = np.arange(out)
    start, stop = (i * n) // out, -((-(i + 1) * n) // out)
    j = np.arange(int((stop - start).max()) if out else 0)
    return np.minimum(start[:, None] + j, stop[:, None] - 1)


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False
                        ) -> Any:
    """Max pooling to ``output_size`` (``None`` keeps an axis) over the windows of
    ``adaptive_avg_pool2d``; ``return_indices``: the flat ``h * W + w`` position of
    each maximum too.

    >>> import fad.torch as torch
    >>> x = torch.arange(9.0).reshape(1, 3, 3)
    >>> torch.nn.functional.adaptive_max_pool2d(x, 2).tolist()
    [[[4.0, 5.0], [7.0, 8.0]]]
    """
    return _adaptive_max(input, output_size, return_indices, 2)


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False
                        ) -> Any:
    """``adaptive_max_pool2d`` over the three last axes (``return_indices``: flat
    ``(d * H + h) * W + w`` positions).

    >>> import fad.torch as torch
    >>> x = torch.arange(8.0).reshape(1, 2, 2, 2)
    >>> torch.nn.functional.adaptive_max_pool3d(x, (1, 1, 2)).tolist()
    [[[[6.0, 7.0]]]]
    """
    return _adaptive_max(input, output_size, return_indices, 3)


def _adaptive_max(input: Tensor, output_size: Any, return_indices: bool, nd: int) -> Any:
    """Every window of the ``nd`` last axes gathered with ``index_select`` (axis by
    axis), its cells laid along a last axis, the maximum picked there."""
    name = f"adaptive_max_pool{nd}d()"
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}: Expected {nd + 1}D or {nd + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    if isinstance(output_size, tuple | list) and len(output_size) != nd:
        raise RuntimeError(f"{name}: internal error: output_size.size() must be {nd}")
    dims, lead = tuple(input.shape[-nd:]), tuple(input.shape[:-nd])
    sizes = [n if o is None else o for n, o in zip(dims, _ntuple(output_size, nd))]
    wins = [_windows(n, o) for n, o in zip(dims, sizes)]
    lens = [w.shape[1] for w in wins]
    win, n = input, len(lead)
    for k, w in enumerate(wins):
        win = F.index_select(win, n + k, wrap(w.reshape(-1)))
    win = win.reshape(*lead, *(v for o, m in zip(sizes, lens) for v in (o, m)))
    win = win.permute(*range(n), *(n + 2 * k for k in range(nd)),
                      *(n + 2 * k + 1 for k in range(nd)))
    win = win.reshape(*lead, *sizes, int(np.prod(lens)))
    pick = F.argmax(win, -1, keepdim=True)
    out = F.squeeze(F.gather(win, -1, pick), -1)
    if not return_indices:
        return out
    taps = np.unravel_index(pick.detach().numpy()[..., 0], [max(m, 1) for m in lens])
    flat = np.zeros(taps[0].shape, dtype=np.int64)
    for k, (w, tap) in enumerate(zip(wins, taps)):  # each axis's cell, row-major
        at = np.arange(sizes[k]).reshape([-1 if j == k else 1 for j in range(nd)])
        flat = flat * dims[k] + w[at, tap]
    return out, wrap(flat)


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False
                        ) -> Any:
    """``adaptive_max_pool2d`` over a height of one.

    >>> import fad.torch as torch
    >>> torch.nn.functional.adaptive_max_pool1d(torch.tensor([[1.0, 3.0, 2.0]]), 2).tolist()
    [[3.0, 3.0]]
    """
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           "tensor for argument #1 'self' (while checking arguments for "
                           "adaptive_max_pool1d)")
    if isinstance(output_size, tuple | list):
        output_size = output_size[0]
    out = adaptive_max_pool2d(F.unsqueeze(input, -2), (1, output_size), return_indices)
    if return_indices:
        return F.squeeze(out[0], -2), F.squeeze(out[1], -2)
    return F.squeeze(out, -2)
