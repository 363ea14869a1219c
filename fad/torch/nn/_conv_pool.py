"""``torch.nn.functional``'s convolutions and pooling (``conv1d conv2d conv3d
conv_transpose1d conv_transpose2d max_pool1d max_pool2d avg_pool1d avg_pool2d
adaptive_avg_pool1d adaptive_avg_pool2d unfold lp_pool1d lp_pool2d``), re-exported by
``fad.torch.nn.functional``: each a facade operation on ``fad.lax``'s
convolutions and ``reduce_window``."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ... import numpy as _fnp
from ...core.trace import bind as _bind
from ...primitives.windows import reduce_window_argmax_p as _argmax_p
from ...primitives.windows import window_table as _window_table
from .. import _functions as F
from .._dtype import type_word as _type_word
from .._graph import host
from .._ops import call
from ..tensor import Tensor, wrap
from ._layers_more import _fits_mode


def _ntuple(v: Any, n: int) -> tuple:
    return tuple(v) if isinstance(v, tuple | list) else (v,) * n


def _dims(input: Tensor, nd: int, what: str) -> bool:
    """Whether ``input`` is unbatched (``nd + 1`` axes); it has ``nd + 1`` or ``nd + 2``."""
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                           f"{what}, but got input of size: {list(input.shape)}")
    return input.dim() == nd + 1


def _same_types(input: Tensor, weight: Tensor, bias: Tensor | None,
                weight_first: bool = False) -> None:
    """PyTorch's dtype messages (a transposed convolution checks the weight first)."""
    if weight_first and weight.dtype != input.dtype:
        _same_types(input, weight, None)
    if bias is not None and bias.dtype != input.dtype:
        raise RuntimeError(f"Input type ({_type_word(input.dtype).lower()}) and bias type "
                           f"({_type_word(bias.dtype).lower()}) should be the same")
    if weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {_type_word(input.dtype)} but found "
                           f"{_type_word(weight.dtype)}")


def _conv_pads(padding: Any, k: tuple, stride: tuple, dilation: tuple) -> tuple:
    """``padding`` (an int, a tuple, ``"valid"`` or ``"same"``) as flat (low, high)
    pairs; ``"same"`` puts the odd cell of an even kernel after, as PyTorch."""
    nd = len(k)
    if isinstance(padding, str):
        if padding == "valid":
            return (0, 0) * nd
        if padding != "same":
            raise RuntimeError(f"Invalid padding string: {padding!r}")
        if any(s != 1 for s in stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
        totals = [d * (kk - 1) for kk, d in zip(k, dilation)]
        return tuple(v for t in totals for v in (t // 2, t - t // 2))
    return tuple(v for p in _ntuple(padding, nd) for v in (p, p))


def _convnd(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
            dilation: Any, groups: int, nd: int, padding_mode: str = "zeros") -> Tensor:
    unbatched = _dims(input, nd, f"conv{nd}d")
    x = F.unsqueeze(input, 0) if unbatched else input
    _same_types(x, weight, bias)
    k = tuple(weight.shape[2:])
    stride, dilation = _ntuple(stride, nd), _ntuple(dilation, nd)
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    pads = _conv_pads(padding, k, stride, dilation)
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{list(weight.shape)}] "
                           "instead")
    if x.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, "
                           f"expected input{list(x.shape)} to have {weight.shape[1] * groups} "
                           f"channels, but got {x.shape[1]} channels instead")
    padded = [n + pads[2 * i] + pads[2 * i + 1] for i, n in enumerate(x.shape[2:])]
    eff = [d * (kk - 1) + 1 for kk, d in zip(k, dilation)]
    if any(p < e for p, e in zip(padded, eff)):
        raise RuntimeError("Calculated padded input size per channel: "
                           f"({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, eff))}). Kernel size can't be greater "
                           "than actual input size")
    if padding_mode in ("reflect", "circular"):
        _fits_mode(tuple(x.shape), tuple(v for i in reversed(range(nd))
                                         for v in pads[2 * i:2 * i + 2]), padding_mode)
    out = call("conv", x, weight, *([] if bias is None else [bias]), stride=stride,
               padding=pads, dilation=dilation, groups=groups, padding_mode=padding_mode)
    return F.squeeze(out, 0) if unbatched else out


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """1-d cross-correlation of ``(N, C, L)`` input with ``(O, C / groups, k)`` weights.

    >>> import fad.torch as torch
    >>> torch.nn.functional.conv1d(torch.ones(1, 1, 4), torch.ones(1, 1, 2)).tolist()
    [[[2.0, 2.0, 2.0]]]
    """
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """2-d cross-correlation of ``(N, C, H, W)`` input with ``(O, C / groups, kh, kw)``
    weights (``padding``: an int, a pair, ``"valid"`` or ``"same"``).

    >>> import fad.torch as torch
    >>> torch.nn.functional.conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 2, 2)).tolist()
    [[[[4.0, 4.0], [4.0, 4.0]]]]
    """
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 2)


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """3-d cross-correlation of ``(N, C, D, H, W)`` input with ``(O, C / groups, kd,
    kh, kw)`` weights.

    >>> import fad.torch as torch
    >>> torch.nn.functional.conv3d(torch.ones(1, 1, 3, 3, 3), torch.ones(2, 1, 2, 2, 2)).shape
    torch.Size([1, 2, 2, 2, 2])
    """
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 3)


def _conv_transposend(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any,
                      padding: Any, output_padding: Any, groups: int, dilation: Any, nd: int
                      ) -> Tensor:
    unbatched = _dims(input, nd, f"conv_transpose{nd}d")
    x = F.unsqueeze(input, 0) if unbatched else input
    _same_types(x, weight, bias, weight_first=True)
    stride, padding = _ntuple(stride, nd), _ntuple(padding, nd)
    output_padding, dilation = _ntuple(output_padding, nd), _ntuple(dilation, nd)
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        # (PyTorch words it for two axes, a 1-d one as a width under a height of 1)
        (oh, ow), (sh, sw), (dh, dw) = (((h,) * (2 - nd) + v)
                                        for h, v in ((0, output_padding), (1, stride),
                                                     (1, dilation)))
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got "
            f"output_padding_height: {oh} output_padding_width: {ow} stride_height: {sh} "
            f"stride_width: {sw} dilation_height: {dh} dilation_width: {dw}")
    if x.shape[1] != weight.shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected "
                           f"input{list(x.shape)} to have {weight.shape[0]} channels, but got "
                           f"{x.shape[1]} channels instead")
    k = tuple(weight.shape[2:])
    outs = [(n - 1) * s - 2 * p + d * (kk - 1) + op + 1 for n, s, p, d, kk, op in
            zip(x.shape[2:], stride, padding, dilation, k, output_padding)]
    if any(o <= 0 for o in outs):
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, x.shape[2:]))})"
                           f". Calculated output size per channel: "
                           f"({' x '.join(map(str, outs))}). Output size is too small")
    out = call("conv_transpose", x, weight, *([] if bias is None else [bias]), stride=stride,
               padding=padding, output_padding=output_padding, groups=groups,
               dilation=dilation)
    return F.squeeze(out, 0) if unbatched else out


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0,
                     groups: int = 1, dilation: Any = 1) -> Tensor:
    """Transposed 1-d convolution with ``(C, O / groups, k)`` weights.

    >>> import fad.torch as torch
    >>> F = torch.nn.functional
    >>> F.conv_transpose1d(torch.ones(1, 1, 2), torch.ones(1, 1, 2), stride=2).tolist()
    [[[1.0, 1.0, 1.0, 1.0]]]
    """
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, 1)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0,
                     groups: int = 1, dilation: Any = 1) -> Tensor:
    """Transposed 2-d convolution (the gradient of ``conv2d`` with respect to its
    input) with ``(C, O / groups, kh, kw)`` weights.

    >>> import fad.torch as torch
    >>> F = torch.nn.functional
    >>> F.conv_transpose2d(torch.ones(1, 1, 2, 2), torch.ones(1, 1, 2, 2), stride=2).shape
    torch.Size([1, 1, 4, 4])
    """
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, 2)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0,
                     groups: int = 1, dilation: Any = 1) -> Tensor:
    """Transposed 3-d convolution with ``(C, O / groups, kd, kh, kw)`` weights.

    >>> import fad.torch as torch
    >>> F = torch.nn.functional
    >>> F.conv_transpose3d(torch.ones(1, 1, 2, 2, 2), torch.ones(1, 1, 2, 2, 2), stride=2).shape
    torch.Size([1, 1, 4, 4, 4])
    """
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, 3)


def _pool_shape(input: Tensor, nd: int, prefix: str = "") -> None:
    """``input`` must have ``nd + 1`` or ``nd + 2`` axes, empty only along the batch."""
    if input.dim() not in (nd + 1, nd + 2) or 0 in tuple(input.shape)[-nd - 1:]:
        raise RuntimeError(f"{prefix}Expected {nd + 1}D or {nd + 2}D (batch mode) tensor with "
                           f"optional 0 dim batch size for input, but got:{list(input.shape)}")


def _pool_pads(input: Tensor, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple,
               ceil_mode: bool) -> tuple:
    """Flat (low, high) padding of each pooled axis: ``padding`` before, and after
    as much as the last window needs (PyTorch's output size: a window must start
    inside the input or the low padding)."""
    if any(s == 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    _pool_shape(input, len(kernel))
    pads, outs = [], []
    for n, k, s, p, d in zip(input.shape[-len(kernel):], kernel, stride, padding, dilation):
        eff = d * (k - 1) + 1
        if p > eff // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
        out = (n + 2 * p - eff + (s - 1 if ceil_mode else 0)) // s + 1
        if ceil_mode and (out - 1) * s >= n + p:
            out -= 1
        outs.append(out)
        pads += [p, max((out - 1) * s + eff - n - p, 0)]
    if any(o <= 0 for o in outs):
        c = input.shape[-len(kernel) - 1]
        size = "x".join(map(str, (c, *input.shape[-len(kernel):])))
        raise RuntimeError(f"Given input size: ({size}). Calculated output size: "
                           f"({'x'.join(map(str, (c, *outs)))}). Output size is too small")
    return tuple(pads)


def _pool_args(nd: int, kernel_size: Any, stride: Any, padding: Any, dilation: Any = 1
               ) -> tuple:
    kernel = _ntuple(kernel_size, nd)
    stride = kernel if stride is None or stride == [] or stride == () else _ntuple(stride, nd)
    return kernel, stride, _ntuple(padding, nd), _ntuple(dilation, nd)


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False
               ) -> Any:
    """The maximum of each window (padding never wins); ``return_indices``: also the
    flat ``h * W + w`` position of each maximum.

    >>> import fad.torch as torch
    >>> x = torch.arange(16.0).reshape(1, 1, 4, 4)
    >>> torch.nn.functional.max_pool2d(x, 2).tolist()
    [[[[5.0, 7.0], [13.0, 15.0]]]]
    """
    return _max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices)


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False
               ) -> Any:
    """``max_pool2d`` over the three last axes (``return_indices``: flat positions
    ``(d * H + h) * W + w`` in each volume).

    >>> import fad.torch as torch
    >>> torch.nn.functional.max_pool3d(torch.arange(8.0).reshape(1, 1, 2, 2, 2), 2).tolist()
    [[[[[7.0]]]]]
    """
    return _max_pool(3, input, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices)


def _max_pool(nd: int, input: Tensor, kernel_size: Any, stride: Any, padding: Any,
              dilation: Any, ceil_mode: bool, return_indices: bool) -> Any:
    kernel, stride, padding, dilation = _pool_args(nd, kernel_size, stride, padding, dilation)
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for "
                           "input")
    pads = _pool_pads(input, kernel, stride, padding, dilation, ceil_mode)
    out = call("max_pool", input, kernel=kernel, stride=stride, pads=pads, dilation=dilation)
    if not return_indices:
        return out
    return out, wrap(_argmax_positions(input._value, kernel, stride, pads, dilation))


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Tensor:
    """``max_unpool2d`` of ``(N, C, L)`` input.

    >>> import fad.torch as torch
    >>> F = torch.nn.functional
    >>> F.max_unpool1d(*F.max_pool1d(torch.arange(4.0)[None], 2, return_indices=True), 2)
    tensor([[0., 1., 0., 3.]])
    """
    return _max_unpool(1, input, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Tensor:
    """``max_pool2d`` undone: each value put back at its max's flat position in
    a plane of zeros (of ``output_size``, or the pooled input's size).

    >>> import fad.torch as torch
    >>> F = torch.nn.functional
    >>> out, idx = F.max_pool2d(torch.arange(4.0).reshape(1, 2, 2), 2, return_indices=True)
    >>> F.max_unpool2d(out, idx, 2)
    tensor([[[0., 0.],
             [0., 3.]]])
    """
    return _max_unpool(2, input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Tensor:
    """``max_unpool2d`` of ``(N, C, D, H, W)`` input (flat positions in the volume)."""
    return _max_unpool(3, input, indices, kernel_size, stride, padding, output_size)


def _max_unpool(nd: int, input: Tensor, indices: Tensor, kernel_size: Any, stride: Any,
                padding: Any, output_size: Any) -> Tensor:
    kernel, stride, padding, _ = _pool_args(nd, kernel_size, stride, padding)
    size = [(n - 1) * s - 2 * p + k for n, s, p, k in
            zip(input.shape[-nd:], stride, padding, kernel)]
    if output_size is not None:
        wanted = [int(n) for n in list(output_size)[-nd:]]
        for d, (want, n, s) in enumerate(zip(wanted, size, stride)):
            if not n - s <= want <= n + s:
                raise ValueError(f'invalid output_size "{tuple(output_size)}" (dim {d} must be '
                                 f"between {n - s} and {n + s})")
        size = wanted
    lead = tuple(input.shape[:-nd])
    plane = int(np.prod(size))
    where = np.asarray(host(indices._value)).ravel()
    bad = (where < 0) | (where >= plane)
    if bad.any():
        shown = "x".join(str(n) for n in (size + [1] if nd == 1 else size))
        last = where[len(bad) - 1 - np.argmax(bad[::-1])]  # (the last one, as PyTorch mostly)
        raise RuntimeError(f"Found an invalid max index: {last} (output volumes are of size "
                           f"{shown})")
    flat = input.new_zeros((*lead, plane)).scatter(
        -1, indices.reshape(*lead, -1), input.reshape(*lead, -1))
    return flat.reshape(*lead, *size)


def _argmax_positions(x: Any, kernel: tuple, stride: tuple, pads: tuple, dilation: tuple
                      ) -> Any:
    """The flat position in its plane of each window's first maximum: the window's
    tap (``reduce_window_argmax``) looked up in the window table."""
    lead = x.ndim - len(kernel)
    params = {"window_dimensions": kernel, "window_strides": stride,
              "padding": tuple(zip(pads[::2], pads[1::2])), "base_dilation": (1,) * len(kernel),
              "window_dilation": dilation}
    table = _window_table(tuple(x.shape[lead:]), **params)
    taps = _bind(_argmax_p, x, **{k: (1,) * lead + v if k != "padding" else
                                  ((0, 0),) * lead + v for k, v in params.items()})
    return _fnp.take_along_axis(_fnp.broadcast_to(table, x.shape[:lead] + table.shape),
                                taps[..., None], axis=-1)[..., 0]


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False
               ) -> Any:
    """``max_pool2d`` over a length-1 height (``grad_fn`` SqueezeBackward1, as PyTorch).

    >>> import fad.torch as torch
    >>> torch.nn.functional.max_pool1d(torch.tensor([[1.0, 3.0, 2.0, 0.0]]), 2).tolist()
    [[3.0, 2.0]]
    """
    kernel, stride, padding, dilation = _pool_args(1, kernel_size, stride, padding, dilation)
    _pool_shape(input, 1, "max_pool1d: ")
    out = max_pool2d(F.unsqueeze(input, -2), (1,) + kernel, (1,) + stride, (0,) + padding,
                     (1,) + dilation, ceil_mode, return_indices)
    if return_indices:
        return F.squeeze(out[0], -2), F.squeeze(out[1], -2)
    return F.squeeze(out, -2)


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """The mean of each window: divided by the window's cells inside the padded
    input (``count_include_pad``) or inside the input, or by ``divisor_override``.

    >>> import fad.torch as torch
    >>> x = torch.arange(16.0).reshape(1, 1, 4, 4)
    >>> torch.nn.functional.avg_pool2d(x, 2).tolist()
    [[[[2.5, 4.5], [10.5, 12.5]]]]
    """
    return _avg_pool(2, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


def avg_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """``avg_pool2d`` over the three last axes.

    >>> import fad.torch as torch
    >>> torch.nn.functional.avg_pool3d(torch.arange(8.0).reshape(1, 1, 2, 2, 2), 2).tolist()
    [[[[[3.5]]]]]
    """
    return _avg_pool(3, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


def _avg_pool(nd: int, input: Tensor, kernel_size: Any, stride: Any, padding: Any,
              ceil_mode: bool, count_include_pad: bool, divisor_override: int | None
              ) -> Tensor:
    kernel, stride, padding, _ = _pool_args(nd, kernel_size, stride, padding)
    pads = _pool_pads(input, kernel, stride, padding, (1,) * nd, ceil_mode)
    if divisor_override:
        divisor = np.asarray(float(divisor_override))
    else:
        counts = [_window_counts(n, k, s, p, pads[2 * i + 1], count_include_pad)
                  for i, (n, k, s, p) in enumerate(zip(input.shape[-nd:], kernel, stride,
                                                       padding))]
        divisor = functools.reduce(np.multiply.outer, counts)
    return call("avg_pool", input, kernel=kernel, stride=stride, pads=pads, divisor=divisor)


def _rank_1d(input: Tensor, name: str) -> None:
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for {name})")


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """``avg_pool2d`` over a length-1 height (``grad_fn`` SqueezeBackward1, as PyTorch).

    >>> import fad.torch as torch
    >>> torch.nn.functional.avg_pool1d(torch.tensor([[1.0, 3.0, 2.0, 0.0]]), 2).tolist()
    [[2.0, 1.0]]
    """
    _rank_1d(input, "avg_pool1d")
    kernel, stride, padding, _ = _pool_args(1, kernel_size, stride, padding)
    return F.squeeze(avg_pool2d(F.unsqueeze(input, -2), (1,) + kernel, (1,) + stride,
                                (0,) + padding, ceil_mode, count_include_pad), -2)


def _window_counts(n: int, k: int, s: int, p: int, high: int, include_pad: bool
                   ) -> np.ndarray:
    """Along one axis, how many cells each window covers: inside ``[-p, n + p)``
    (``include_pad``) or inside ``[0, n)``."""
    start = np.arange((n + p + high - k) // s + 1) * s - p
    stop = np.minimum(start + k, n + p)
    if include_pad:
        return (stop - start).astype(float)
    return (np.minimum(stop, n) - np.maximum(start, 0)).astype(float)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Mean pooling to ``output_size`` (``None`` keeps an axis): output cell ``i`` of
    an axis of ``n`` cells averages cells ``floor(i n / out)`` to ``ceil((i + 1) n / out)``.

    >>> import fad.torch as torch
    >>> x = torch.arange(16.0).reshape(1, 1, 4, 4)
    >>> torch.nn.functional.adaptive_avg_pool2d(x, 1).tolist()
    [[[[7.5]]]]
    """
    return _adaptive_avg(input, output_size, 2)


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """``adaptive_avg_pool2d`` over the three last axes of ``(N, C, D, H, W)`` input.

    >>> import fad.torch as torch
    >>> x = torch.arange(8.0).reshape(1, 2, 2, 2)
    >>> torch.nn.functional.adaptive_avg_pool3d(x, (1, 2, 1)).tolist()
    [[[[2.5], [4.5]]]]
    """
    return _adaptive_avg(input, output_size, 3)


def _adaptive_avg(input: Tensor, output_size: Any, nd: int) -> Tensor:
    """Mean pooling of the ``nd`` last axes: a constant averaging matrix per axis."""
    name = f"adaptive_avg_pool{nd}d"
    if isinstance(output_size, tuple | list) and len(output_size) != nd:
        raise RuntimeError(f"{name}: output_size must be {nd}")
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got "
                           f"{list(input.shape)}")
    sizes = [n if o is None else o
             for n, o in zip(input.shape[-nd:], _ntuple(output_size, nd))]
    if sizes == [1] * nd:  # (a global mean, as PyTorch computes it)
        return call("mean_dim", input, dim=tuple(range(-nd, 0)), keepdim=True)
    mats = [_averaging_matrix(n, o) for n, o in zip(input.shape[-nd:], sizes)]
    if nd == 2:
        return call("adaptive_avg_pool", input, rows=mats[0], cols=mats[1])
    return call("adaptive_avg_pool3d", input, rows=mats[1], cols=mats[2], depth=mats[0])


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """``adaptive_avg_pool2d`` over a length-1 height.

    >>> import fad.torch as torch
    >>> torch.nn.functional.adaptive_avg_pool1d(torch.tensor([[1.0, 3.0, 2.0]]), 2).tolist()
    [[2.0, 2.5]]
    """
    if isinstance(output_size, tuple | list):
        if len(output_size) != 1:
            raise RuntimeError("adaptive_avg_pool1d() argument 'output_size' should contain "
                               f"one int (got {len(output_size)})")
        output_size = output_size[0]
    _rank_1d(input, "adaptive_avg_pool1d")
    return F.squeeze(adaptive_avg_pool2d(F.unsqueeze(input, -2), (1, output_size)), -2)


def _averaging_matrix(n: int, out: int) -> np.ndarray:
    i = np.arange(out)
    start, stop = (i * n) // out, -((-(i + 1) * n) // out)
    cells = np.arange(n)
    inside = (cells >= start[:, None]) & (cells < stop[:, None])
    return inside / (stop - start)[:, None]


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
           stride: Any = 1) -> Tensor:
    """im2col: every ``kernel_size`` window of ``(N, C, H, W)`` input as a column of
    ``C * kh * kw`` values, ``(N, C * kh * kw, L)``.

    >>> import fad.torch as torch
    >>> torch.nn.functional.unfold(torch.arange(4.0).reshape(1, 1, 2, 2), 2).tolist()
    [[[0.0], [1.0], [2.0], [3.0]]]
    """
    unbatched = _dims(input, 2, "unfold")
    x = F.unsqueeze(input, 0) if unbatched else input
    kernel = _ntuple(kernel_size, 2)
    out = call("unfold", x, kernel=kernel, stride=_ntuple(stride, 2),
               padding=tuple(v for p in _ntuple(padding, 2) for v in (p, p)),
               dilation=_ntuple(dilation, 2))
    return F.squeeze(out, 0) if unbatched else out


def _lp_pool(input: Tensor, norm_type: float, kernel_size: Any, stride: Any, ceil_mode: bool,
             nd: int) -> Tensor:
    """Power-average pooling: the ``norm_type``-norm of each window (an infinite
    norm is max pooling of the absolute values)."""
    pool_max, pool_avg = {1: (max_pool1d, avg_pool1d), 2: (max_pool2d, avg_pool2d),
                          3: (max_pool3d, avg_pool3d)}[nd]
    if norm_type == float("inf"):
        return pool_max(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -pool_max(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = pool_avg(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    size = int(np.prod(_ntuple(kernel_size, nd)))
    return (out.sign() * F.relu(out.abs())).mul(size).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:
    """The ``norm_type``-norm of each window along the last axis (windows of
    ``kernel_size``, every ``stride`` entries, no padding).

    >>> import fad.torch as torch
    >>> torch.nn.functional.lp_pool1d(torch.tensor([[[3.0, 4.0, 1.0, 0.0]]]), 2, 2)
    tensor([[[5., 1.]]])
    """
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:
    """The ``norm_type``-norm of each window over the last three axes."""
    if input.dim() not in (4, 5) or not input.numel():
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:
    """The ``norm_type``-norm of each window over the last two axes.

    >>> import fad.torch as torch
    >>> torch.nn.functional.lp_pool2d(torch.tensor([[[[1.0, 2.0], [2.0, 4.0]]]]), 2, 2)
    tensor([[[[5.]]]])
    """
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)
