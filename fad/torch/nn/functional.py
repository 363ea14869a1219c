"""``torch.nn.functional``: activations and losses, each an entry of the facade's
operation table (``fad/torch/_ops.py``) written with ``fad.numpy``."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ... import numpy as _fnp
from ...core.trace import Tracer
from .. import _dtype
from .. import _functions as F
from .._creation import _place, default_generator
from .._dtype import type_word as _type_word
from .._functions.writes import into
from .._graph import host
from .._ops import call
from .._recorder import _broadcast_message
from ..tensor import Tensor, wrap
from . import _resize
from ._activations import *  # noqa: F403  (more activations, re-exported)
from ._activations import elu_, leaky_relu_
from ._common import _inplace, _reduction, _v
from ._conv_pool import (  # noqa: F401  (convolutions and pooling, re-exported)
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
    conv1d,
    conv2d,
    conv3d,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
    lp_pool1d,
    lp_pool2d,
    lp_pool3d,
    max_pool1d,
    max_pool2d,
    max_pool3d,
    max_unpool1d,
    max_unpool2d,
    max_unpool3d,
    unfold,
)
from ._embedding_bag import embedding_bag  # noqa: F401
from ._fold_adaptive import (  # noqa: F401
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    adaptive_max_pool3d,
    fold,
)
from ._grid import affine_grid, grid_sample  # noqa: F401
from ._layers_more import *  # noqa: F403  (padding modes, shuffles, dropouts)
from ._losses import *  # noqa: F403  (more losses, distances, re-exported)


def _with_indices(pool: Any) -> Any:
    """``pool`` with ``return_indices=True``: PyTorch's ``*_with_indices`` names."""
    def pooled(*args: Any, **kwargs: Any) -> tuple:
        kwargs.pop("return_indices", None)
        return pool(*args, **kwargs, return_indices=True)
    pooled.__name__ = pooled.__qualname__ = pool.__name__ + "_with_indices"
    pooled.__doc__ = f"``{pool.__name__}`` with ``return_indices=True``: values and positions."
    return pooled


(max_pool1d_with_indices, max_pool2d_with_indices, max_pool3d_with_indices,
 adaptive_max_pool1d_with_indices, adaptive_max_pool2d_with_indices,
 adaptive_max_pool3d_with_indices) = (_with_indices(f) for f in (
     max_pool1d, max_pool2d, max_pool3d, adaptive_max_pool1d, adaptive_max_pool2d,
     adaptive_max_pool3d))

relu = F.relu
sigmoid = F.sigmoid
tanh = F.tanh
softmax = F.softmax
log_softmax = F.log_softmax


def relu_(input: Tensor) -> Tensor:
    return F.inplace(input, F.relu)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    if inplace:
        return leaky_relu_(input, negative_slope)
    return call("leaky_relu", input, negative_slope=negative_slope)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return elu_(input, alpha) if inplace else call("elu", input, alpha=alpha)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    return call("gelu", input, approximate=approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return _inplace(lambda x: call("silu", x), input, inplace)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    return call("softplus", input, beta=beta, threshold=threshold)


def logsigmoid(input: Tensor) -> Tensor:
    return call("logsigmoid", input)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:
    return _inplace(lambda x: call("hardtanh", x, min_val=min_val, max_val=max_val), input,
                    inplace)


def softmin(input: Tensor, dim: int | None = None) -> Tensor:
    return softmax(-input, dim)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """``hardtanh`` in place.

    >>> import fad.torch as torch
    >>> torch.nn.functional.hardtanh_(torch.tensor([-3.0, 0.5]))
    tensor([-1.0000,  0.5000])
    """
    return hardtanh(input, min_val, max_val, True)


# ------------------------------------------------------------------ losses
def mse_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
             reduction: str = "mean") -> Tensor:
    """Mean squared error (``grad_fn`` MseLossBackward0)."""
    _same_size(input, target, "mse_loss")
    return call("mse_loss", input, target,
                reduction=_reduction(size_average, reduce, reduction))


def l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
            reduction: str = "mean") -> Tensor:
    _same_size(input, target, "l1_loss")
    return call("l1_loss", input, target, reduction=_reduction(size_average, reduce, reduction))


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Any = None,
                   reduce: Any = None, reduction: str = "mean", beta: float = 1.0) -> Tensor:
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return call("smooth_l1_loss", input, target,
                reduction=_reduction(size_average, reduce, reduction), beta=beta)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0
               ) -> Tensor:
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    return call("huber_loss", input, target, reduction=_reduction(None, None, reduction),
                delta=delta)


def _same_size(input: Tensor, target: Any, name: str) -> None:
    if isinstance(target, Tensor) and target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input "
                      f"size ({input.shape}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.",
                      UserWarning, stacklevel=3)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Any = None,
                                     size_average: Any = None, reduce: Any = None,
                                     reduction: str = "mean", pos_weight: Any = None
                                     ) -> Tensor:
    """Numerically stable sigmoid + binary cross entropy."""
    if isinstance(target, Tensor) and target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    _fits(pos_weight, input, True)
    _fits(weight, input)
    return call("bce_with_logits", input, target, weight=_v(weight),
                pos_weight=_v(pos_weight), reduction=_reduction(size_average, reduce,
                                                                reduction))


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Any = None,
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Tensor:
    if isinstance(target, Tensor) and target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input "
                         f"size ({input.shape}) is deprecated. Please ensure they have the "
                         "same size.")
    _fits(weight, input, grows=False)
    v = input._value
    if not isinstance(v, Tracer) and v.size:
        lo, hi = host(_fnp.min(v)), host(_fnp.max(v))
        if not (lo >= 0 and hi <= 1):  # (NaN fails too)
            raise RuntimeError("all elements of input should be between 0 and 1")
    return call("bce", input, target, weight=_v(weight),
                reduction=_reduction(size_average, reduce, reduction))


def _fits(w: Any, input: Tensor, first: bool = False, grows: bool = True) -> None:
    """PyTorch's error when a loss's ``weight`` (``pos_weight``: ``first``) does not
    broadcast against ``input`` (``grows=False``: nor to a larger shape)."""
    if isinstance(w, Tensor):
        a, b = tuple(w.shape), tuple(input.shape)
        msg = _broadcast_message([a, b] if first else [b, a])
        if msg:
            raise RuntimeError(msg)
        if not grows and np.broadcast_shapes(a, b) != b:
            raise RuntimeError(f"output with shape {list(b)} doesn't match the broadcast "
                               f"shape {list(np.broadcast_shapes(a, b))}")


def _class_weight(input: Tensor, weight: Any, prefix: str = "") -> None:
    if isinstance(weight, Tensor):
        c = input.shape[1] if input.dim() > 1 else input.shape[0]
        if weight.dim() != 1 or weight.shape[0] != c:
            raise RuntimeError(f"{prefix}weight tensor should be defined either for all {c} "
                               f"classes or no classes but got weight tensor of shape: "
                               f"{list(weight.shape)}")


def nll_loss(input: Tensor, target: Tensor, weight: Any = None, size_average: Any = None,
             ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of class indices ``target`` under log-probabilities."""
    t, classes = _check_targets(input, target)
    _class_weight(input, weight)
    if t is not None and t.size and (  # every target a class, and the index none of them
            classes and not 0 <= ignore_index < classes or not (t == ignore_index).any()):
        ignore_index = None  # (no target is ignored: the loss needs no mask, same numbers)
    return call("nll_loss", input, target=_v(target), weight=_v(weight),
                ignore_index=ignore_index,
                reduction=_reduction(size_average, reduce, reduction))


def _check_targets(input: Tensor, target: Tensor) -> tuple:
    """Raise PyTorch's error for class targets that do not fit ``input``; return
    their values (``None`` when traced) and the number of classes if every target
    is one of them (else 0)."""
    tv = target._value
    if (tv.dtype.kind if type(tv) is np.ndarray else target.dtype.np.kind) not in "iu" \
            and input.dim() != target.dim():  # (same shapes: class probabilities)
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{_type_word(target.dtype)}")
    if (tv.dtype.kind if type(tv) is np.ndarray else target.dtype.np.kind) not in "iu":
        raise RuntimeError(f"expected scalar type Long but found {target.dtype}")
    if target.dtype.name not in ("int64", "uint8"):  # (class indices: int64, as PyTorch)
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{_type_word(target.dtype)}")
    shape = input._value.shape
    n = shape[0] if len(shape) > 1 else 1
    tn = tv.shape[0] if len(tv.shape) else 1
    if n != tn:
        raise ValueError(f"Expected input batch_size ({n}) to match target batch_size ({tn}).")
    if len(shape) <= 2 and len(tv.shape) > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if len(shape) > 2 and tuple(tv.shape) != shape[:1] + shape[2:]:
        if len(tv.shape) != len(shape) - 1 and len(shape) == 4:
            raise RuntimeError("only batches of spatial targets supported (3D tensors) but "
                               f"got targets of dimension: {len(tv.shape)}")
        raise RuntimeError(f"Expected target size {list(shape[:1] + shape[2:])}, got "
                           f"{list(tv.shape)}")
    c = shape[1] if len(shape) > 1 else shape[0]
    if isinstance(tv, Tracer):  # traced targets (torch.func): no values to check
        return None, 0
    t = tv if type(tv) is np.ndarray else np.asarray(host(tv))
    if not t.size or (t.min() >= 0 and t.max() < c):  # the usual case, decided fast
        return t, c
    bad = t[(t != -100) & ((t < 0) | (t >= c))]
    if bad.size:
        raise IndexError(f"Target {int(bad.flat[0])} is out of bounds.")
    return t, 0


def cross_entropy(input: Tensor, target: Tensor, weight: Any = None, size_average: Any = None,
                  ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """``log_softmax`` over the class dimension then ``nll_loss`` (class indices), or
    the soft cross entropy when ``target`` holds probabilities."""
    reduction = _reduction(size_average, reduce, reduction)
    dim = 0 if input.dim() == 1 else 1
    if not label_smoothing <= 1.0 or (label_smoothing < 0
                                       and target.dtype.is_floating_point):
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing:g}")
    _class_weight(input, weight, "cross_entropy: " if target.dtype.is_floating_point else "")
    if target.dtype.is_floating_point:
        if tuple(target.shape) != tuple(input.shape):  # class indices must be integers
            raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                               f"{_type_word(target.dtype)}")
        return call("soft_cross_entropy", input, target, dim=dim, weight=_v(weight),
                    reduction=reduction, label_smoothing=label_smoothing)
    spatial = tuple(target.shape) if input.dim() > 2 else None
    if spatial is not None:  # (N, C, d1, ...) -> (N * d1 * ..., C)
        _check_targets(input, target)
        c = input.shape[1]
        input = F.movedim(input, 1, -1).reshape(-1, c)
        target = target.reshape(-1)
    logp = F.log_softmax(input, dim)
    if label_smoothing:
        _check_targets(logp, target)
        out = call("smooth_cross_entropy", logp, target=_v(target), weight=_v(weight),
                   ignore_index=ignore_index, reduction=reduction, eps=label_smoothing)
    else:
        out = nll_loss(logp, target, weight, None, ignore_index, None, reduction)
    return out.reshape(spatial) if spatial is not None and reduction == "none" else out


def kl_div(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    red = _reduction(size_average, reduce, reduction, ("mean", "sum", "none", "batchmean"))
    if red == "batchmean":
        out = call("kl_div", input, target, reduction="sum", log_target=log_target)
        return out / (input.shape[0] if input.dim() else 1)
    return call("kl_div", input, target, reduction=red, log_target=log_target)


# ------------------------------------------------------------------ layers
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias`` (``AddmmBackward0`` for 2-d input, as PyTorch)."""
    wt = F.t(weight)
    if input.dim() == 2 and bias is not None:
        return F.addmm(bias, input, wt)
    out = F.matmul(input, wt)
    if bias is None:
        return out
    try:
        return out + bias
    except RuntimeError:  # PyTorch folds the batch dimensions: its words say so
        F._expanded(tuple(bias.shape), (out.numel() // max(out.shape[-1], 1),
                                        out.shape[-1]))
        raise


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None
             ) -> Tensor:
    out = F.einsum("bi,oij,bj->bo", input1, weight, input2)
    return out if bias is None else out + bias


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
            ) -> Tensor:
    """Zero elements with probability ``p`` and scale the rest by ``1 / (1 - p)``."""
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    mask = default_generator.rng.random(tuple(input.shape)) >= p
    mask = _place(mask.astype(input.dtype.np))
    scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
    return _inplace(lambda x: call("dropout", x, mask=mask, scale=scale), input, inplace)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    if tensor.dtype.name != "int64":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if isinstance(tensor._value, Tracer) and num_classes != -1:  # (traced: under vmap)
        return F.eq(F.unsqueeze(tensor, -1), wrap(np.arange(num_classes))).long()
    t = np.asarray(host(tensor._value))
    if num_classes == -1 and t.size == 0:
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    if t.size and t.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    n = int(t.max()) + 1 if num_classes == -1 else num_classes
    if t.size and t.max() >= n:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return wrap(_place((t[..., None] == np.arange(n)).astype(np.int64)))


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None,
                mode: str = "nearest", align_corners: bool | None = None,
                recompute_scale_factor: bool | None = None, antialias: bool = False) -> Tensor:
    """Resample the spatial axes (all but the first two): ``mode`` ``"nearest"``,
    ``"nearest-exact"``, ``"area"``, ``"linear"`` (3-d input), ``"bilinear"`` or
    ``"bicubic"`` (4-d), to ``size`` or by ``scale_factor``, as PyTorch's.

    >>> import fad.torch as torch
    >>> F = torch.nn.functional
    >>> F.interpolate(torch.tensor([[[1.0, 2.0]]]), scale_factor=2).tolist()
    [[[1.0, 1.0, 2.0, 2.0]]]
    """
    spatial = input.dim() - 2
    modes = {"nearest": None, "linear": 1, "bilinear": 2, "nearest-exact": None, "area": None,
             "bicubic": 2}
    if mode not in modes or (modes[mode] is not None and modes[mode] != spatial):
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                  f"{(modes.get(mode) or 0) + 2}D input" if mode in modes
                                  else f"interpolate: mode {mode!r} is not supported")
    if align_corners is not None and mode in ("nearest", "nearest-exact", "area"):
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined")
    n = tuple(input.shape[2:])
    if size is not None:
        sizes = tuple(int(s) for s in (size if isinstance(size, tuple | list) else
                                         (size,) * spatial))
        scales = tuple(a / b for a, b in zip(n, sizes))
    else:
        factors = tuple(scale_factor) if isinstance(scale_factor, tuple | list) else \
            (scale_factor,) * spatial
        sizes = tuple(int(math.floor(a * f)) for a, f in zip(n, factors))
        scales = tuple(a / b for a, b in zip(n, sizes)) if recompute_scale_factor else \
            tuple(1.0 / f for f in factors)
    if antialias:
        return _antialiased(input, mode, sizes, scales, bool(align_corners))
    if mode in _resize.MODES:
        return _resize.resample(input, sizes, scales, mode, bool(align_corners))
    return call("resample", input, sizes=sizes, scales=scales, mode=mode,
                align_corners=bool(align_corners))


def _antialiased(input: Tensor, mode: str, sizes: tuple, scales: tuple,
                 align_corners: bool) -> Tensor:
    """``interpolate(..., antialias=True)``: bilinear only (of 4-d input), each output
    averaging the inputs under a filter as wide as the downsampling factor."""
    if mode != "bilinear" or input.dim() != 4:
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    if align_corners:
        n = tuple(input.shape[2:])
        scales = tuple((a - 1) / (b - 1) if b > 1 else 0.0 for a, b in zip(n, sizes))
    return call("resample_aa", input, sizes=sizes, scales=scales)


def upsample(input: Tensor, size: Any = None, scale_factor: Any = None,
             mode: str = "nearest", align_corners: bool | None = None) -> Tensor:
    """``interpolate`` under its former name (with PyTorch's deprecation warning).

    >>> import fad.torch as torch, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     torch.nn.functional.upsample(torch.tensor([[[1.0, 2.0]]]), size=3).tolist()
    [[[1.0, 1.0, 2.0]]]
    """
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """``interpolate(..., mode="nearest")``.

    >>> import fad.torch as torch, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     torch.nn.functional.upsample_nearest(torch.ones(1, 1, 1, 1), scale_factor=2).shape
    torch.Size([1, 1, 2, 2])
    """
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """``interpolate(..., mode="bilinear", align_corners=True)``.

    >>> import fad.torch as torch, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     torch.nn.functional.upsample_bilinear(torch.tensor([[[[0.0, 2.0]]]]), (1, 3))
    tensor([[[[0., 1., 2.]]]])
    """
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,
              max_norm: Any = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """The rows of ``weight`` at the indices ``input``. ``padding_idx``: that row gets
    no gradient; ``max_norm``: the rows looked up whose ``norm_type``-norm exceeds it
    are first rescaled in place to that norm (without recording); ``scale_grad_by_freq``:
    each row's gradient divided by the number of times it occurs in ``input``.

    >>> import fad.torch as torch
    >>> w = torch.ones(3, 2, requires_grad=True)
    >>> torch.nn.functional.embedding(torch.tensor([0, 0, 2]), w, padding_idx=2,
    ...                               scale_grad_by_freq=True).sum().backward()
    >>> w.grad.tolist()
    [[1.0, 1.0], [0.0, 0.0], [0.0, 0.0]]
    """
    _check_indices(input, weight.shape[0], "embedding")
    if sparse:
        raise NotImplementedError("embedding(sparse=True): fad.torch has no sparse tensors; "
                                  "use sparse=False (dense gradients)")
    if padding_idx is not None:
        padding_idx = _padding_index(padding_idx, weight.shape[0])
    index = _v(input)
    if max_norm is not None:
        _renorm_rows(weight, index, max_norm, norm_type)
    if padding_idx is not None or scale_grad_by_freq:
        at = np.asarray(host(index))
        scale = np.ones(at.shape, dtype=weight.dtype.np)
        if scale_grad_by_freq:
            scale /= np.bincount(at.ravel(), minlength=weight.shape[0])[at]
        if padding_idx is not None:
            scale[at == padding_idx] = 0
        return call("embedding", weight, index=index, scale=_place(scale[..., None]))
    return call("embedding", weight, index=index)


def _padding_index(padding_idx: int, n: int) -> int:
    """``padding_idx`` in ``[0, n)`` (a negative one counts from the end), as PyTorch."""
    if not -n <= padding_idx < n:
        raise AssertionError("Padding_idx must be within num_embeddings")
    return padding_idx % n


def _renorm_rows(weight: Tensor, index: Any, max_norm: float, norm_type: float) -> None:
    """``embedding(max_norm=...)``'s in-place step: each row of ``weight`` that
    ``index`` looks up and whose norm exceeds ``max_norm``, scaled to ``max_norm``."""
    rows = np.unique(np.asarray(host(index)))
    with _no_grad():
        picked = weight[rows]
        norms = F.norm(picked, norm_type, 1, keepdim=True)
        factor = F.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight[rows] = picked * factor


def _check_indices(input: Tensor, n: int, fname: str) -> None:
    """PyTorch's errors for indices that are not integers or not in ``[0, n)``."""
    if input.dtype.name not in ("int64", "int32"):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got {input.type()} instead "
                           f"(while checking arguments for {fname})")
    if not isinstance(input._value, Tracer) and input.numel():
        idx = host(input._value)
        if idx.min() < 0 or idx.max() >= n:
            raise IndexError("index out of range in self")


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out: Tensor | None = None) -> Tensor:
    """``input`` divided by its ``p``-norm along ``dim`` (at least ``eps``); written
    into ``out`` when given.

    >>> import fad.torch as torch
    >>> torch.nn.functional.normalize(torch.tensor([[3.0, 4.0]]))
    tensor([[0.6000, 0.8000]])
    """
    if out is not None:
        return into("normalize", out, (input,), lambda: normalize(input, p, dim, eps))
    n = F.norm(input, p, dim, keepdim=True).clamp_min(eps)
    return input / n.expand_as(input)


# ------------------------------------------------------------------ normalisation, attention
from .._grad_mode import no_grad as _no_grad  # noqa: E402
from .._recorder import Op as _Op  # noqa: E402
from .._recorder import apply as _apply  # noqa: E402


def _affine(y: Any, weight: Any, bias: Any, shape: tuple, dtype: Any) -> Any:
    """``y * weight + bias``, the parameters reshaped to ``shape`` (either may be
    ``None``), in ``dtype`` (the input's: float32 parameters of a half input compute
    in float32, and the result is half again)."""
    if weight is not None:
        y = y * _fnp.reshape(weight, shape)
    if bias is not None:
        y = y + _fnp.reshape(bias, shape)
    return y if y.dtype == dtype else y.astype(dtype)


def _standardize(x: Any, axes: tuple, eps: float, mean: Any = None, var: Any = None) -> Any:
    """``(x - mean) / sqrt(var + eps)`` over ``axes``, with the biased variance of ``x``
    unless ``mean``/``var`` are given; a half input is computed in float32, as PyTorch's
    kernels accumulate."""
    if x.dtype == "float16":
        x = x.astype("float32")
    if mean is None:
        mean = _fnp.mean(x, axis=axes, keepdims=True)
        var = _fnp.var(x, axis=axes, keepdims=True)
    return (x - mean) / _fnp.sqrt(var + eps)


def _channel_shape(x: Any) -> tuple:
    return (1, -1) + (1,) * (x.ndim - 2)


def _batch_norm(x: Any, weight: Any, bias: Any, mean: Any, var: Any, eps: float = 1e-5
                ) -> Any:
    shape = _channel_shape(x)
    if mean is None:  # batch statistics, over every axis but the channels
        y = _standardize(x, (0,) + tuple(range(2, x.ndim)), eps)
    else:
        y = _standardize(x, (), eps, _fnp.reshape(mean, shape), _fnp.reshape(var, shape))
    return _affine(y, weight, bias, shape, x.dtype)


def _layer_norm(x: Any, weight: Any, bias: Any, k: int = 1, eps: float = 1e-5) -> Any:
    y = _standardize(x, tuple(range(x.ndim - k, x.ndim)), eps)
    return _affine(y, weight, bias, x.shape[x.ndim - k:], x.dtype)


def _group_norm(x: Any, weight: Any, bias: Any, groups: int = 1, eps: float = 1e-5) -> Any:
    g = _fnp.reshape(x, (x.shape[0], groups, -1))
    y = _fnp.reshape(_standardize(g, (2,), eps), x.shape)
    return _affine(y, weight, bias, _channel_shape(x), x.dtype)


def _one_dtype(input: Tensor, *others: Tensor | None) -> None:
    """PyTorch's rule for the normalisation kernels: the statistics and affine
    parameters share the input's dtype (float32 ones may go with a half input)."""
    x = str(input.dtype).removeprefix("torch.")
    for t in others:
        if t is None or t.dtype == input.dtype:
            continue
        p = str(t.dtype).removeprefix("torch.")
        if p == "float32" and x in ("float16", "bfloat16"):
            continue
        raise RuntimeError("mixed dtype (CPU): " + (
            "all inputs must share same datatype." if (x, p) == ("float64", "float32")
            else "expect parameter to have scalar type of Float"))


_BATCH_NORM = _Op("batch_norm", _batch_norm, "NativeBatchNormBackward0")
_LAYER_NORM = _Op("layer_norm", _layer_norm, "NativeLayerNormBackward0")
_GROUP_NORM = _Op("group_norm", _group_norm, "NativeGroupNormBackward0")


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel (dim 1) by the batch's statistics (``training``), updating
    ``running_mean``/``running_var`` in place with ``momentum`` (the running variance
    takes the unbiased batch variance), or by the running statistics.

    >>> import fad.torch as torch
    >>> x = torch.tensor([[1.0, 2.0], [3.0, 6.0]])
    >>> torch.nn.functional.batch_norm(x, None, None, training=True, eps=0.0)
    tensor([[-1., -1.],
            [ 1.,  1.]])
    """
    _one_dtype(input, running_mean, running_var, weight, bias)
    channels = input.shape[1] if input.dim() > 1 else 1
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    if training:
        size = input.shape
        n = size[0] * math.prod(size[2:])
        if n <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got "
                             f"input size {size}")
        if running_mean is not None or running_var is not None:
            if isinstance(input._value, Tracer):  # (per-example values: no single update)
                raise RuntimeError(
                    "Batch norm got a batched tensor as input while the running_mean or "
                    "running_var, which will be updated in place, were not batched.\nIf you "
                    "are using a module and do not need eval mode, please set "
                    "`track_running_stats` to be False.")
            with _no_grad():
                x = input.detach()
                axes = [0] + list(range(2, input.dim()))
                if running_mean is not None:
                    running_mean.copy_(running_mean * (1 - momentum)
                                       + x.mean(axes) * momentum)
                if running_var is not None:
                    running_var.copy_(running_var * (1 - momentum)
                                      + call("var", x, dim=axes, correction=1) * momentum)
        return _apply(_BATCH_NORM, (input, weight, bias, None, None), {"eps": eps})
    if running_mean is None or running_var is None:
        raise RuntimeError(f"{'running_mean' if running_mean is None else 'running_var'} must "
                           "be defined in evaluation mode")
    return _apply(_BATCH_NORM, (input, weight, bias, running_mean, running_var),
                  {"eps": eps})


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalise over the last ``len(normalized_shape)`` dimensions (biased variance).

    >>> import fad.torch as torch
    >>> torch.nn.functional.layer_norm(torch.tensor([[1.0, 3.0]]), (2,), eps=0.0)
    tensor([[-1.,  1.]])
    """
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else \
        tuple(normalized_shape)
    k = len(shape)
    if k == 0 or tuple(input.shape[input.dim() - k:]) != shape or input.dim() < k:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    _one_dtype(input, weight, bias)
    return _apply(_LAYER_NORM, (input, weight, bias), {"k": k, "eps": eps})


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalise each sample over groups of ``num_groups`` channels (dim 1).

    >>> import fad.torch as torch
    >>> torch.nn.functional.group_norm(torch.tensor([[[1.0], [3.0]]]), 1, eps=0.0)
    tensor([[[-1.],
             [ 1.]]])
    """
    if input.dim() < 2 or input.shape[1] % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    _one_dtype(input, weight, bias)
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != input.shape[1]):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape {list(t.shape)} "
                               f"and input of shape {list(input.shape)}")
    return _apply(_GROUP_NORM, (input, weight, bias), {"groups": num_groups, "eps": eps})


def instance_norm(input: Tensor, running_mean: Tensor | None = None,
                  running_var: Tensor | None = None, weight: Tensor | None = None,
                  bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel of each sample over its spatial dimensions: ``batch_norm``
    of the input seen as one sample of ``N * C`` channels (as PyTorch computes it);
    running statistics are averaged over the samples.

    >>> import fad.torch as torch
    >>> torch.nn.functional.instance_norm(torch.tensor([[[1.0, 3.0]]]), eps=0.0)
    tensor([[[-1.,  1.]]])
    """
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither "
                         "be None")
    shape = tuple(input.shape)
    if use_input_stats and math.prod(shape[2:]) <= 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input "
                         f"size {input.shape}")
    n, c = shape[0], shape[1]
    tile = (lambda t: None if t is None else t.repeat(n))  # noqa: E731
    mean, var = tile(running_mean), tile(running_var)
    out = batch_norm(input.reshape((1, n * c) + shape[2:]), mean, var, tile(weight),
                     tile(bias), use_input_stats, momentum, eps)
    if use_input_stats:
        with _no_grad():
            for kept, fresh in ((running_mean, mean), (running_var, var)):
                if kept is not None:
                    kept.copy_(fresh.view(n, c).mean(0))
    return out.view(shape)


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor,
                                 attn_mask: Tensor | None = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """``softmax(query @ key.T * scale + mask) @ value`` over the last two dimensions;
    a boolean mask keeps the ``True`` positions, a float mask is added; ``is_causal``
    keeps the lower triangle; ``enable_gqa``: fewer key/value heads than query heads,
    each shared by a group of them.

    >>> import fad.torch as torch
    >>> q = torch.ones(1, 2, 4)
    >>> torch.nn.functional.scaled_dot_product_attention(q, q, torch.eye(2)[None])
    tensor([[[0.5000, 0.5000],
             [0.5000, 0.5000]]])
    """
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                           "set when is_causal=True")
    if is_causal:
        n, s = query.shape[-2], key.shape[-2]
        attn_mask = wrap(_place(np.tril(np.ones((n, s), dtype=bool))))
    if enable_gqa and query.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        # grouped-query attention: each key/value head serves a group of query heads
        groups = query.shape[-3] // key.shape[-3]
        key, value = (F.reshape(F.expand(F.unsqueeze(t, -3), *t.shape[:-2], groups,
                                         *t.shape[-2:]),
                                (*t.shape[:-3], t.shape[-3] * groups, *t.shape[-2:]))
                      for t in (key, value))
    return _attend(query, key, value, attn_mask, dropout_p, scale, safe=True)[0]


def _attend(query: Tensor, key: Tensor, value: Tensor, mask: Tensor | None,
            dropout_p: float, scale: float | None, safe: bool = False) -> tuple:
    """The attention output and its weights; ``mask``: boolean (``True`` kept) or added.
    ``safe``: a query whose scores are all ``-inf`` (every key masked) attends to
    nothing (weights 0, output 0, gradient 0), as ``scaled_dot_product_attention``;
    otherwise its weights are NaN, as ``MultiheadAttention``'s."""
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = F.matmul(query, F.transpose(key, -2, -1)) * scale
    if mask is not None:
        if mask.dtype.name == "bool":
            scores = F.masked_fill(scores, F.logical_not(mask), -math.inf)
        else:
            scores = scores + mask
    empty = None
    if safe and mask is not None:
        empty = F.all(scores == -math.inf, -1, keepdim=True)
        scores = F.masked_fill(scores, empty, 0.0)
    weights = F.softmax(scores, -1)
    if empty is not None:
        weights = F.masked_fill(weights, empty, 0.0)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p)
    return F.matmul(weights, value), weights

__all__ = [n for n in dir() if not n.startswith("_") and n not in (
    "annotations", "Any", "np", "F", "call", "Tensor", "wrap", "math", "warnings", "Tracer",
    "default_generator", "host")]
del _dtype
