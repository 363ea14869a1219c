"""More of ``torch.nn.functional``: ``pad`` in every mode, ``pixel_shuffle`` /
``pixel_unshuffle``, channel-wise and alpha dropout, and ``local_response_norm``;
the padding and shuffling are one ``fad.numpy`` program each, recorded under
PyTorch's node names, the rest facade operations."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ... import numpy as _fnp
from .. import _functions as F
from .._creation import _place, default_generator
from .._ops import call
from .._recorder import Op, apply
from ..tensor import Tensor

__all__ = ["pad", "pixel_shuffle", "pixel_unshuffle", "dropout1d", "dropout2d", "dropout3d",
           "alpha_dropout", "feature_alpha_dropout", "local_response_norm", "channel_shuffle",
           "rms_norm"]

_NUMPY_MODE = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}
_NODE = {"reflect": "ReflectionPad{}DBackward0", "replicate": "ReplicationPad{}DBackward0",
         "circular": "CopySlices"}


def _pad_mode(a: Any, pad: tuple = (), mode: str = "reflect") -> Any:
    """``pad``'s (before, after) pairs from the last axis backwards; negative widths
    crop first."""
    k = len(pad) // 2
    widths = [(0, 0)] * (a.ndim - k) + [(max(pad[2 * i], 0), max(pad[2 * i + 1], 0))
                                         for i in reversed(range(k))]
    if any(w < 0 for w in pad):
        a = a[tuple(slice(None) for _ in range(a.ndim - k)) + tuple(
            slice(max(-pad[2 * i], 0), a.shape[a.ndim - 1 - i] - max(-pad[2 * i + 1], 0))
            for i in reversed(range(k)))]
    return _fnp.pad(a, widths, mode=_NUMPY_MODE[mode])


_PAD = Op("pad_mode", _pad_mode, lambda vals, p: _NODE[p["mode"]].format(len(p["pad"]) // 2))


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None
        ) -> Tensor:
    """Pad the last ``len(pad) // 2`` dimensions by ``pad``'s (before, after) pairs,
    from the last dimension backwards (negative widths crop): with ``value``
    (``"constant"``), the mirror image without the edge (``"reflect"``), the edge
    (``"replicate"``) or the other end (``"circular"``).

    >>> import fad.torch as torch
    >>> x = torch.tensor([[[1.0, 2.0, 3.0]]])
    >>> torch.nn.functional.pad(x, (2, 1), mode="reflect").tolist()
    [[[3.0, 2.0, 1.0, 2.0, 3.0, 2.0]]]
    """
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if mode == "constant":
        if len(pad) // 2 > input.dim():
            raise RuntimeError(f"Length of pad should be no more than twice the number of "
                               f"dimensions of the input. Pad length is {len(pad)} while the "
                               f"input has {input.dim()} dimensions.")
        for i in range(len(pad) // 2):  # negative widths crop first, as PyTorch's narrow
            if input.shape[-1 - i] + min(pad[2 * i], 0) + min(pad[2 * i + 1], 0) < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
        return call("pad", input, pad=pad, value=0.0 if value is None else value)
    if mode not in _NUMPY_MODE:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    k, d = len(pad) // 2, input.dim()
    if k not in (1, 2, 3) or d not in (k + 1, k + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {d}D input tensor.\nSupported "
            "combinations for non-constant padding:\n  - 2D or 3D input: padding size = 2 "
            "(pads last dimension)\n  - 3D or 4D input: padding size = 4 (pads last 2 "
            "dimensions)\n  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    _fits_mode(tuple(input.shape), pad, mode)
    return apply(_PAD, (input,), {"pad": pad, "mode": mode})


def _fits_mode(shape: tuple, pad: tuple, mode: str) -> None:
    """PyTorch's errors for ``reflect`` widths reaching a dimension's size and
    ``circular`` ones wrapping more than once (``pad`` in ``F.pad``'s order)."""
    d = len(shape)
    for i in range(len(pad) // 2):
        lo, hi, n = pad[2 * i], pad[2 * i + 1], shape[d - 1 - i]
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the "
                               f"corresponding input dimension, but got: padding ({lo}, {hi}) "
                               f"at dimension {d - 1 - i} of input {list(shape)}")
        if mode == "circular" and (lo > n or hi > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")


def _shuffle(a: Any, r: int = 1, up: bool = True) -> Any:
    """``(*, C r^2, H, W) -> (*, C, H r, W r)`` (``up``) or back."""
    lead = a.shape[:-3]
    c, h, w = a.shape[-3:]
    n = len(lead)
    if up:
        a = _fnp.reshape(a, lead + (c // (r * r), r, r, h, w))
        a = _fnp.transpose(a, tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2))
        return _fnp.reshape(a, lead + (c // (r * r), h * r, w * r))
    a = _fnp.reshape(a, lead + (c, h // r, r, w // r, r))
    a = _fnp.transpose(a, tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3))
    return _fnp.reshape(a, lead + (c * r * r, h // r, w // r))


_SHUFFLE = Op("pixel_shuffle", _shuffle, lambda vals, p: "PixelShuffleBackward0" if p["up"]
              else "PixelUnshuffleBackward0")


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """Rearrange ``(*, C r^2, H, W)`` into ``(*, C, H r, W r)``, ``r`` the
    ``upscale_factor``.

    >>> import fad.torch as torch
    >>> torch.nn.functional.pixel_shuffle(torch.arange(4.0).reshape(1, 4, 1, 1), 2)
    tensor([[[[0., 1.],
              [2., 3.]]]])
    """
    r = int(upscale_factor)
    if input.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but "
                           f"got input with {input.dim()} dimension(s)")
    if input.shape[-3] % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)="
                           f"{input.shape[-3]} is not divisible by {r * r}")
    return apply(_SHUFFLE, (input,), {"r": r, "up": True})


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """Rearrange ``(*, C, H r, W r)`` into ``(*, C r^2, H, W)``, the inverse of
    ``pixel_shuffle``.

    >>> import fad.torch as torch
    >>> torch.nn.functional.pixel_unshuffle(torch.arange(4.0).reshape(1, 1, 2, 2), 2)
    tensor([[[[0.]],
    <BLANKLINE>
             [[1.]],
    <BLANKLINE>
             [[2.]],
    <BLANKLINE>
             [[3.]]]])
    """
    r = int(downscale_factor)
    if input.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, "
                           f"but got input with {input.dim()} dimension(s)")
    for name, d in (("height", -2), ("width", -1)):
        if input.shape[d] % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by "
                               f"downscale_factor, but input.size({d})={input.shape[d]} is "
                               f"not divisible by {r}")
    return apply(_SHUFFLE, (input,), {"r": r, "up": False})


def _channel_shuffle(a: Any, groups: int = 1) -> Any:
    n, c = a.shape[:2]
    rest = a.shape[2:]
    a = _fnp.reshape(a, (n, groups, c // groups) + rest)
    return _fnp.reshape(_fnp.swapaxes(a, 1, 2), (n, c) + rest)


_CHANNEL_SHUFFLE = Op("channel_shuffle", _channel_shuffle, "ChannelShuffleBackward0")


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Interleave the ``groups`` groups of channels (dim 1): ``(N, g, C/g, *)``
    transposed to ``(N, C/g, g, *)``.

    >>> import fad.torch as torch
    >>> torch.nn.functional.channel_shuffle(torch.arange(4.0).reshape(1, 4, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    if groups <= 0 or input.shape[1] % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got "
                           f"{input.shape[1]} channels and {groups} groups.")
    return apply(_CHANNEL_SHUFFLE, (input,), {"groups": int(groups)})


def rms_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    """``x / sqrt(mean(x^2) + eps)`` over the trailing ``normalized_shape`` dimensions,
    times ``weight``; ``eps`` defaults to the machine epsilon of the dtype computed in
    (the input's; float32 for half input).

    >>> import fad.torch as torch
    >>> torch.nn.functional.rms_norm(torch.tensor([[3.0, 4.0]]), (2,), eps=0.0)
    tensor([[0.8485, 1.1314]])
    """
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else \
        tuple(normalized_shape)
    k = len(shape)
    if tuple(input.shape[input.dim() - k:]) != shape or input.dim() < k:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*{', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    x = input.float() if input.dtype.name in ("float16", "bfloat16") else input
    if eps is None:  # (of the dtype computed in: float32 for half input)
        eps = float(np.finfo(x.dtype.np).eps)
    dims = list(range(input.dim() - k, input.dim()))
    out = x * ((x * x).mean(dims, keepdim=True) + eps).rsqrt()
    if weight is not None:
        out = out * weight
    return out.to(input.dtype) if out.dtype != input.dtype else out


def _probability(p: float) -> None:
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _keep(input: Tensor, p: float, shape: tuple) -> np.ndarray:
    """A mask of ``shape`` (broadcast over ``input``): 1 kept, 0 dropped."""
    return (default_generator.rng.random(shape) >= p).astype(input.dtype.np)


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool, batched: bool,
                     alpha: bool = False) -> Tensor:
    """Drop whole channels (dim 1, or 0 when not ``batched``) of ``input``."""
    _probability(p)
    if not training or p == 0:
        return input
    lead = 2 if batched else 1
    mask = _keep(input, p, tuple(input.shape[:lead]) + (1,) * (input.dim() - lead))
    return _drop(input, mask, p, alpha, inplace)


def _drop(input: Tensor, mask: np.ndarray, p: float, alpha: bool, inplace: bool) -> Tensor:
    """``input * mask / (1 - p)``, or alpha dropout's affine map of the kept values and
    the negative saturation of SELU for the dropped ones."""
    if not alpha:
        scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
        fn = (lambda x: call("dropout", x, mask=_place(mask), scale=scale))
    else:
        sat = 1.7580993408473766  # -(SELU's lowest value)
        a = 1.0 / math.sqrt((sat * sat * p + 1) * (1 - p))
        shift = _place(((mask - 1) * sat * a + sat * a * p).astype(mask.dtype))
        keep = _place((mask * a).astype(mask.dtype))
        fn = (lambda x: x * keep + shift)
    return F.inplace(input, fn) if inplace else fn(input)


def _unusual(spatial: int, d: int) -> None:
    """PyTorch's warning for input of another dimension than ``spatial + 1`` or ``+ 2``."""
    if d not in (spatial + 1, spatial + 2):
        warnings.warn(f"dropout{spatial}d: Received a {d}-D input to dropout{spatial}d, which "
                      "is deprecated and will result in an error in a future release. To "
                      "retain the behavior and silence this warning, please use dropout "
                      f"instead. Note that dropout{spatial}d exists to provide channel-wise "
                      f"dropout on inputs with {spatial} spatial dimensions, a channel "
                      "dimension, and an optional batch dimension (i.e. "
                      f"{spatial + 1}D or {spatial + 2}D inputs).", stacklevel=3)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
              ) -> Tensor:
    """Zero whole channels of ``(N, C, L)`` or ``(C, L)`` input with probability ``p``,
    scaling the rest by ``1 / (1 - p)``.

    >>> import fad.torch as torch
    >>> torch.nn.functional.dropout1d(torch.ones(1, 2, 3), 0.5, training=False).sum()
    tensor(6.)
    """
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D "
                           "input. Note that dropout1d exists to provide channel-wise dropout "
                           "on inputs with 1 spatial dimension, a channel dimension, and an "
                           "optional batch dimension (i.e. 2D or 3D inputs).")
    return _feature_dropout(input, p, training, inplace, input.dim() == 3)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
              ) -> Tensor:
    """Zero whole channels of ``(N, C, H, W)`` or ``(C, H, W)`` input with probability
    ``p``, scaling the rest by ``1 / (1 - p)`` (3-d input counts as ``(N, C, L)``, as
    PyTorch's, with its warning).

    >>> import fad.torch as torch
    >>> torch.nn.functional.dropout2d(torch.ones(1, 2, 2, 2), 0.0).sum()
    tensor(8.)
    """
    d = input.dim()
    _probability(p)
    _unusual(2, d)
    if d == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that "
                      "channel-wise 1D dropout behavior is desired - input is interpreted as "
                      "shape (N, C, L), where C is the channel dim. This behavior will change "
                      "in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise "
                      "dropout behavior, please switch to using dropout1d instead.",
                      stacklevel=2)
    return _feature_dropout(input, p, training, inplace, True)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
              ) -> Tensor:
    """Zero whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input with
    probability ``p``, scaling the rest by ``1 / (1 - p)``.

    >>> import fad.torch as torch
    >>> torch.nn.functional.dropout3d(torch.ones(1, 2, 1, 1, 1), 0.0).sum()
    tensor(2.)
    """
    d = input.dim()
    _probability(p)
    _unusual(3, d)
    return _feature_dropout(input, p, training, inplace, d == 5)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Tensor:
    """Dropout for SELU networks: dropped elements take SELU's negative saturation
    value and an affine map keeps the mean and variance of a standard normal input.

    >>> import fad.torch as torch
    >>> torch.nn.functional.alpha_dropout(torch.ones(3), 0.5)  # (training=False)
    tensor([1., 1., 1.])
    """
    _probability(p)
    if not training or p == 0:
        return input
    if p == 1:
        return input * 0
    return _drop(input, _keep(input, p, tuple(input.shape)), p, True, inplace)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:
    """``alpha_dropout`` of whole channels (dim 1).

    >>> import fad.torch as torch
    >>> torch.nn.functional.feature_alpha_dropout(torch.ones(1, 2), 0.5).tolist()
    [[1.0, 1.0]]
    """
    if p == 1 and training:
        return input * 0
    return _feature_dropout(input, p, training, inplace, True, alpha=True)


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Tensor:
    """``x / (k + alpha * mean of x^2 over size neighbouring channels)^beta`` (the
    window zero-padded at the ends of the channel dimension, dim 1).

    >>> import fad.torch as torch
    >>> torch.nn.functional.local_response_norm(torch.ones(1, 2, 1), 2, alpha=1.0, k=0.0)
    tensor([[[1.6818],
             [1.0000]]])
    """
    d = input.dim()
    if d < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          "
                         f"input (got {d} dimensions)")
    if input.numel() == 0:
        return input
    sq = input * input
    padded = call("pad", sq, pad=(0, 0) * (d - 2) + (size // 2, (size - 1) // 2), value=0.0)
    c = input.shape[1]
    total = padded[:, 0:c]
    for i in range(1, size):
        total = total + padded[:, i:i + c]
    div = (total / size * alpha + k) ** beta
    return input / div
