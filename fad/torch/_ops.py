"""The facade's operation table: each PyTorch operation as an ``Op`` of the
recorder (``fad/torch/_recorder.py``), a ``fad.numpy`` / ``fad.nn`` function or a
primitive, adapted to PyTorch's argument conventions, and the name PyTorch gives
its ``grad_fn``.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Callable

import numpy as np

from .. import lax, nn, random
from .. import numpy as fnp
from ..backends.base import NUMPY
from ..core.trace import Tracer
from ..numpy._indexing import getitem as fnp_getitem
from ..primitives.windows import identity_of, window_table
from ..scipy import special
from ..transforms.autodiff import stop_gradient
from ..transforms.autodiff import vjp as fad_vjp
from ._dtype import array_np_dtype
from ._recorder import CMP, EW, EWF, UF, Op, apply


# ------------------------------------------------------------------ adapters
# PyTorch's argument conventions (``dim``/``keepdim``/``correction``, lists for
# tuples, a 0-d tensor as one element along dim 0) turned into ``fad.numpy`` /
# ``fad.nn`` calls; no formula of their own.
def _ax(dim: Any) -> Any:
    return tuple(dim) if isinstance(dim, list) else dim


def _squeeze_dims(a: Any, dims: Any) -> Any:
    return fnp.squeeze(a, axis=dims) if dims != () else a


def _sum(a: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    return fnp.sum(a, axis=_ax(dim), keepdims=keepdim, dtype=dtype)


def _mean(a: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    return fnp.mean(a, axis=_ax(dim), keepdims=keepdim, dtype=dtype)


def _var(a: Any, dim: Any = None, correction: float = 1, keepdim: bool = False) -> Any:
    return fnp.var(a, axis=_ax(dim), ddof=correction, keepdims=keepdim)


def _std(a: Any, dim: Any = None, correction: float = 1, keepdim: bool = False) -> Any:
    return fnp.std(a, axis=_ax(dim), ddof=correction, keepdims=keepdim)


def _prod(a: Any, dim: Any = None, keepdim: bool = False) -> Any:
    return fnp.prod(a, axis=dim, keepdims=keepdim)


def _norm(a: Any, p: Any = 2, dim: Any = None, keepdim: bool = False) -> Any:
    ord = 2 if p == "fro" else math.inf if p == "inf" else p
    axis = tuple(range(a.ndim)) if dim is None else _ax(dim)  # (no flattening copy)
    return fnp.linalg.vector_norm(a, axis=axis, keepdims=keepdim, ord=ord)


def _max_dim(a: Any, dim: int, keepdim: bool, arg: Callable) -> list:
    """``(values, indices)`` of the maxima (``arg``: ``argmax``) or minima along
    ``dim``, as ``torch.max(a, dim)`` returns them."""
    if a.ndim == 0:
        return [a, fnp.zeros((), dtype=np.int64)]
    idx = arg(a, axis=dim, keepdims=True)
    vals = fnp.take_along_axis(a, idx, axis=dim)
    if not keepdim:
        vals = fnp.squeeze(vals, axis=dim)
        idx = fnp.squeeze(idx, axis=dim)
    return [vals, idx]


def _completed(q: Any) -> Any:
    """``q``'s ``k`` orthonormal columns followed by ``m - k`` more that complete
    them to a unitary ``m x m`` matrix (a QR of ``q`` beside fixed pseudo-random
    columns). The added columns are one choice among many: no derivative flows
    through them, as PyTorch drops their gradient in ``svd(full_matrices=True)``."""
    m, k = q.shape[-2:]
    if k >= m:
        return q
    fill = random.normal(random.PRNGKey(0), tuple(q.shape[:-2]) + (m, m - k)).astype(q.dtype)
    basis = fnp.linalg.qr(fnp.concatenate([lax.stop_gradient(q), fill], axis=-1))[0]
    return fnp.concatenate([q, lax.stop_gradient(basis[..., k:])], axis=-1)


def full_svd(a: Any, full_matrices: bool) -> list:
    """``[U, S, Vh]``, with ``U`` and ``Vh`` square when ``full_matrices``: fad's
    reduced factors, the shorter one completed by :func:`_completed`."""
    u, s, vh = fnp.linalg.svd(a, full_matrices=False)
    if full_matrices:
        u = _completed(u)
        vh = fnp.conj(fnp.swapaxes(_completed(fnp.conj(fnp.swapaxes(vh, -1, -2))), -1, -2))
    return [u, s, vh]


def _svd(a: Any, some: bool) -> list:
    """``torch.svd``'s ``(U, S, V)``, ``V`` the conjugate transpose of NumPy's ``Vh``."""
    u, s, vh = full_svd(a, not some)
    return [u, s, fnp.conj(fnp.swapaxes(vh, -1, -2))]


def full_qr(a: Any, mode: str) -> list:
    """``[Q, R]``; ``mode='complete'`` of a tall ``a`` completes the reduced ``Q``
    (:func:`_completed`) and pads ``R`` with zero rows."""
    m, n = a.shape[-2:]
    if mode != "complete" or m <= n:
        return list(fnp.linalg.qr(a, "complete" if mode == "complete" else "reduced"))
    q, r = fnp.linalg.qr(a, "reduced")
    zeros = fnp.zeros(tuple(r.shape[:-2]) + (m - n, n), dtype=r.dtype)
    return [_completed(q), fnp.concatenate([r, zeros], axis=-2)]


def _as_vector(fun: Callable) -> Callable:
    """``fun(a, dim)`` where a 0-d ``a`` counts as one element along dim 0."""
    def adapted(a: Any, dim: int) -> Any:
        if a.ndim == 0:
            return fnp.reshape(fun(fnp.reshape(a, (1,)), 0), ())
        return fun(a, dim)
    return adapted


_softmax = _as_vector(lambda a, dim: nn.softmax(a, axis=dim))
_log_softmax = _as_vector(lambda a, dim: nn.log_softmax(a, axis=dim))


def _cumsum(a: Any, dim: int) -> Any:
    return a if a.ndim == 0 else fnp.cumsum(a, axis=dim)


def _logsumexp(a: Any, dim: Any, keepdim: bool = False) -> Any:
    return nn.logsumexp(a, axis=_ax(dim), keepdims=keepdim)


def _class_axis(x: Any) -> int:
    """The class axis of a loss's input: 1, or 0 for a single sample."""
    return 0 if x.ndim == 1 else 1


def _leaky_relu(a: Any, negative_slope: Any = 0.01) -> Any:
    """``a`` where positive, ``negative_slope * a`` elsewhere: PyTorch's derivative at 0 is
    the slope (``fad.nn.leaky_relu``'s, as JAX's, is 1)."""
    return fnp.where(fnp.greater(a, 0), a, fnp.multiply(a, negative_slope))


def _split(a: Any, sizes: list, dim: int) -> list:
    return fnp.split(a, list(itertools.accumulate(sizes[:-1])), axis=dim)


def _gather(a: Any, dim: int, index: Any) -> Any:
    """``take_along_axis``; ``index`` may be shorter than ``a`` along the other axes
    (a 0-d ``a`` counts as one element along dim 0)."""
    if a.ndim == 0:
        return fnp.reshape(fnp.take_along_axis(fnp.reshape(a, (1,)), fnp.reshape(
            index, (1,)), axis=0), ())
    if any(index.shape[d] != a.shape[d] for d in range(a.ndim) if d != dim):
        a = a[tuple(slice(0, index.shape[d]) if d != dim else slice(None)
                    for d in range(a.ndim))]
    return fnp.take_along_axis(a, index, axis=dim)


def _scatter(a: Any, src: Any, dim: int = 0, index: Any = None, reduce: str | None = None
             ) -> Any:
    """``a.scatter(dim, index, src)``: ``out[..., index[p], ...] = src[p]`` (``add``:
    summed; ``multiply``: multiplied), as ``fad.numpy``'s ``.at[]`` update at the full
    index (``index`` along ``dim``, the position of each element of ``index`` along the
    other axes)."""
    grid = np.indices(index.shape, sparse=True)
    at = fnp.at(a)[tuple(index if d == dim else grid[d] for d in range(index.ndim))]
    if getattr(src, "ndim", 0):  # src may be larger than index along every axis
        src = src[tuple(slice(0, n) for n in index.shape)]
    if reduce == "add":
        return at.add(src)
    return at.multiply(src) if reduce == "multiply" else at.set(src)


def _scatter_all_grads(a: Any, src: Any, dim: int = 0, index: Any = None) -> Any:
    """``_scatter`` (repeated destinations: one write wins), whose gradient in ``src``
    is the gradient at each element's destination, every element included: the value
    of the plain scatter, plus zero as ``scatter-add(src) - scatter-add(src)``
    (the derivative of a scatter-add is that gather)."""
    fixed = stop_gradient(src)
    zeros = fnp.zeros_like(a)
    added = _scatter(zeros, src, dim, index, "add")
    return _scatter(a, fixed, dim, index) + (added - stop_gradient(added))


def _embedding(w: Any, index: Any = None, scale: Any = None) -> Any:
    """The rows ``w[index]``; ``scale`` (one factor per index, ``index.shape + (1,)``)
    multiplies their gradient only: 0 for ``padding_idx``, ``1 / count`` for
    ``scale_grad_by_freq``."""
    rows = _at_index(w, index)
    if scale is None:
        return rows
    fixed = stop_gradient(rows)
    return fixed + (rows - fixed) * scale


def _index_add(a: Any, src: Any, dim: int = 0, index: Any = None, alpha: Any = 1) -> Any:
    """``out[..., index[i], ...] += alpha * src[..., i, ...]`` along ``dim``."""
    return fnp.at(a)[(slice(None),) * dim + (index,)].add(src if alpha == 1 else src * alpha)


def _addmm(c: Any, a: Any, b: Any, beta: Any = 1, alpha: Any = 1) -> Any:
    """``beta c + alpha (a @ b)`` (``addmm``, ``baddbmm``); ``beta == 0`` ignores the
    values of ``c`` (NaN and infinities included), as PyTorch."""
    if beta == 0:
        c = fnp.zeros_like(c)
    return (c if beta in (0, 1) else c * beta) + (
        fnp.matmul(a, b) if alpha == 1 else fnp.matmul(a, b) * alpha)


def _addbmm(c: Any, a: Any, b: Any, beta: Any = 1, alpha: Any = 1) -> Any:
    """``beta c + alpha sum_i a_i @ b_i``, as one product: ``sum_i A_i B_i`` is
    ``[A_1 ... A_k] @ [B_1; ...; B_k]`` (the blocks side by side, then stacked)."""
    k, n, p = a.shape
    wide = fnp.reshape(fnp.moveaxis(a, 0, 1), (n, k * p))
    return _addmm(c, wide, fnp.reshape(b, (k * p, b.shape[-1])), beta, alpha)


def _resample(a: Any, sizes: tuple = (), scales: tuple = (), mode: str = "nearest",
              align_corners: bool = False) -> Any:
    """``F.interpolate`` over the trailing axes of ``a`` (one per entry of ``sizes``):
    ``nearest`` picks ``floor(i * scale)``; ``linear`` / ``bilinear`` mix the two
    neighbours of the source position ``(i + 1/2) scale - 1/2`` (clamped at 0), or
    ``i (n - 1) / (m - 1)`` with ``align_corners``, axis by axis (separable)."""
    first = a.ndim - len(sizes)
    for k, (m, scale) in enumerate(zip(sizes, scales)):
        axis, n = first + k, a.shape[first + k]
        i = np.arange(m, dtype=np.float64)
        if mode == "nearest":
            a = fnp.take(a, np.minimum(np.floor(i * scale).astype(np.int64), n - 1), axis=axis)
            continue
        if align_corners:
            src = i * ((n - 1) / (m - 1) if m > 1 else 0.0)
        else:
            src = np.maximum((i + 0.5) * scale - 0.5, 0.0)
        lo = np.minimum(np.floor(src).astype(np.int64), n - 1)
        hi = np.minimum(lo + 1, n - 1)
        shape = [1] * a.ndim
        shape[axis] = m
        w = (src - lo).reshape(shape).astype(array_np_dtype(a))
        a = fnp.take(a, lo, axis=axis) * (1 - w) + fnp.take(a, hi, axis=axis) * w
    return a


def _antialias_weights(n: int, m: int, scale: float) -> np.ndarray:
    """The ``(m, n)`` matrix of bilinear resampling with antialiasing along one axis:
    output ``i`` averages the inputs under a triangle centred on ``(i + 1/2) scale``,
    ``scale`` elements wide each way when downsampling (one when upsampling),
    normalised to sum 1."""
    support = scale if scale >= 1.0 else 1.0
    width = 1.0 / scale if scale >= 1.0 else 1.0
    w = np.zeros((m, n))
    for i in range(m):
        center = scale * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), n)
        j = np.arange(lo, hi)
        w[i, lo:hi] = np.maximum(0.0, 1.0 - np.abs((j - center + 0.5) * width))
        total = w[i].sum()
        if total:
            w[i] /= total
    return w


def _resample_aa(a: Any, sizes: tuple = (), scales: tuple = ()) -> Any:
    """``F.interpolate(mode="bilinear", antialias=True)``: one linear map per
    trailing axis (``_antialias_weights``)."""
    first = a.ndim - len(sizes)
    for k, (m, scale) in enumerate(zip(sizes, scales)):
        axis = first + k
        w = _antialias_weights(a.shape[axis], m, scale).astype(array_np_dtype(a))
        a = fnp.moveaxis(fnp.tensordot(a, w, axes=([axis], [1])), -1, axis)
    return a


def _resample_name(vals: list, params: dict) -> str:
    n = len(params["sizes"])
    kind = "Nearest" if params["mode"] == "nearest" else "Linear" if n == 1 else "Bilinear"
    return f"Upsample{kind}{n}DBackward0"


def _index_put(a: Any, v: Any, index: Any = None, accumulate: bool = False,
               repeated: bool = False) -> Any:
    """``a[index] = v`` out of place; ``accumulate``: ``v`` is added by the transpose
    of the gather. A position the index names more than once keeps its last value
    (as PyTorch); PyTorch's gradient then reaches every value written there, each
    its position's (``repeated``: an exactly-zero scatter-add of ``v`` gives ``v``
    that gradient, the transpose of the gather, where the scatter alone would give
    it to the last value only)."""
    zeros = fnp.zeros_like(a)
    index = _full_index(index)
    picked, scatter = fad_vjp(lambda z: z[index], zeros)
    v = fnp.broadcast_to(fnp.asarray(v, array_np_dtype(a)), picked.shape)
    if accumulate:
        return a + scatter(v)[0]
    if repeated:
        return fnp.at(a)[index].set(stop_gradient(v)) + scatter(v - stop_gradient(v))[0]
    return fnp.at(a)[index].set(v)


def _pad(a: Any, pad: tuple, value: float = 0.0) -> Any:
    """``pad`` holds (before, after) pairs from the last axis backwards; a negative
    width crops."""
    crop = [slice(None)] * a.ndim
    widths = [(0, 0)] * a.ndim
    for i in range(len(pad) // 2):
        d = a.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        crop[d] = slice(max(-lo, 0), a.shape[d] - max(-hi, 0))
        widths[d] = (max(lo, 0), max(hi, 0))
    if any(w < 0 for w in pad):
        a = a[tuple(crop)]
    return fnp.pad(a, widths, constant_values=value)


def _matmul_name(vals: list, params: dict) -> str:
    na, nb = len(vals[0].shape), len(vals[1].shape)
    return {(1, 1): "DotBackward0", (2, 2): "MmBackward0", (2, 1): "MvBackward0",
            (1, 2): "SqueezeBackward4"}.get((na, nb), "UnsafeViewBackward0")


def _einsum_name(vals: list, params: dict) -> str:
    """The grad_fn PyTorch's einsum leaves: its last step (a sum, a permutation, a
    product, or the view after a batched matrix product)."""
    ins, _, out = params["equation"].replace(" ", "").partition("->")
    specs = ins.split(",")
    if "..." in ins or not _:
        return "ViewBackward0"
    if len(specs) == 1:
        spec = specs[0]
        if len(set(spec)) < len(spec):
            return "PermuteBackward0"
        return "SumBackward1" if set(out) != set(spec) else "PermuteBackward0"
    if len(specs) == 2 and not (set(specs[0]) & set(specs[1])):
        return "MulBackward0"
    return "ViewBackward0"


def _index_name(vals: list, params: dict) -> str:
    last = "AliasBackward0"
    for i in params["index"]:
        if i is None:
            last = "UnsqueezeBackward0"
        elif i is Ellipsis:
            continue
        elif isinstance(i, slice):
            if i != slice(None) or last == "AliasBackward0":
                last = "SliceBackward0"
        elif isinstance(i, int | np.integer) and not isinstance(i, bool):
            last = "SelectBackward0"
        else:
            return "IndexBackward0"
    return last


def _full_index(index: tuple) -> tuple:
    """An explicit trailing ``...`` (the Array API requires every axis be indexed)."""
    if any(i is Ellipsis for i in index):
        return index
    return index + (Ellipsis,)


def _at_index(a: Any, index: Any) -> Any:
    """``a[index]``; a concrete ``a`` indexed by traced indices (under ``vmap``) goes
    through ``fad.numpy``'s indexing."""
    if not isinstance(a, Tracer) and any(isinstance(i, Tracer) for i in (
            index if isinstance(index, tuple) else (index,))):
        return fnp_getitem(a, index)
    return NUMPY.getitem(a, index) if type(a) is np.ndarray else a[index]  # (row-major)


def _clone(a: Any) -> Any:
    return fnp.array(a, copy=True)


# PyTorch's flip, repeat, cat and stack make new tensors: their results must not
# share memory with an input (NumPy's flip is a view; tiling once, or joining one
# array, may return the input itself)
def _flip(a: Any, dims: tuple = ()) -> Any:
    return _clone(fnp.flip(a, dims))


def _repeat(a: Any, reps: tuple = ()) -> Any:
    out = fnp.tile(a, reps)
    shape = (1,) * (len(reps) - a.ndim) + tuple(a.shape)
    # tiled along length-1 (or new) dimensions only, the tile is a broadcast view of
    # ``a``: PyTorch's repeat gives new memory
    return _clone(out) if all(r == 1 or n == 1 for r, n in zip(reps, shape)) else out


def _cat(*xs: Any, dim: int = 0) -> Any:
    out = fnp.concatenate(xs, axis=dim)
    return _clone(out) if len(xs) == 1 else out


def _stack(*xs: Any, dim: int = 0) -> Any:
    out = fnp.stack(xs, axis=dim)
    return _clone(out) if len(xs) == 1 else out


def _to(a: Any, dtype: Any) -> Any:
    return fnp.asarray(a, dtype)


def _int_power(a: Any, b: Any) -> Any:
    """``a ** b`` of integers with exponents of any sign, as PyTorch's: a negative
    exponent gives ``1 / a ** -b`` rounded toward zero (``±1`` for ``a = ±1``, else 0;
    NumPy refuses it)."""
    ok = fnp.power(a, fnp.maximum(b, 0))
    odd = fnp.remainder(b, 2) == 1
    below = fnp.where(a == 1, 1, fnp.where(a == -1, fnp.where(odd, -1, 1), 0))
    return fnp.where(b < 0, fnp.asarray(below, ok.dtype), ok)


def _where(a: Any, b: Any, cond: Any = None) -> Any:
    return fnp.where(cond, a, b)


def _mm(a: Any, b: Any) -> Any:
    return fnp.matmul(a, b)


# ------------------------------------------------------------------ convolution and pooling
# ``fad.lax`` convolutions and windowed reductions in PyTorch's (N, C, spatial...)
# layout; the pooling divisors and adaptive-pooling matrices are constants.
_PAD_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _pairs(flat: tuple) -> tuple:
    """``(lo0, hi0, lo1, hi1...)`` (flat, a key of the fast paths) as pairs."""
    return tuple(zip(flat[::2], flat[1::2]))


def _conv(x: Any, w: Any, b: Any = None, stride: tuple = (1,), padding: tuple = (0, 0),
          dilation: tuple = (1,), groups: int = 1, padding_mode: str = "zeros") -> Any:
    """``torch.nn.functional.conv{1,2,3}d``; ``padding``: (low, high) of each axis."""
    padding = _pairs(padding)
    if padding_mode != "zeros":
        x = fnp.pad(x, ((0, 0), (0, 0)) + tuple(padding), mode=_PAD_MODES[padding_mode])
        padding = ((0, 0),) * len(stride)
    y = lax.conv_general_dilated(x, w, stride, padding, rhs_dilation=dilation,
                                 feature_group_count=groups)
    return y if b is None else y + fnp.reshape(b, (-1,) + (1,) * len(stride))


def _swapped(n: int, dim0: int, dim1: int) -> tuple:
    """The permutation of ``n`` axes that exchanges ``dim0`` and ``dim1``."""
    perm = list(range(n))
    perm[dim0], perm[dim1] = dim1, dim0
    return tuple(perm)


def _conv_transpose(x: Any, w: Any, b: Any = None, stride: tuple = (1,), padding: tuple = (0,),
                    output_padding: tuple = (0,), groups: int = 1, dilation: tuple = (1,)
                    ) -> Any:
    """The transposed convolution as a convolution of the input dilated by
    ``stride``, padded by ``dilation * (k - 1) - padding`` (plus ``output_padding``
    after), with each group's kernel transposed (in <-> out) and flipped."""
    cin, cout_g, *k = w.shape
    nd = len(k)
    wg = fnp.reshape(w, (groups, cin // groups, cout_g, *k))
    wg = fnp.flip(fnp.swapaxes(wg, 1, 2), tuple(range(3, 3 + nd)))
    wt = fnp.reshape(wg, (groups * cout_g, cin // groups, *k))
    pads = tuple((d * (kk - 1) - p, d * (kk - 1) - p + op)
                 for kk, d, p, op in zip(k, dilation, padding, output_padding))
    y = lax.conv_general_dilated(x, wt, (1,) * nd, pads, lhs_dilation=stride,
                                 rhs_dilation=dilation, feature_group_count=groups)
    return y if b is None else y + fnp.reshape(b, (-1,) + (1,) * nd)


def _window(x: Any, kernel: tuple, stride: tuple, pads: tuple, dilation: tuple = ()) -> dict:
    """``reduce_window``'s window arguments over the trailing axes of ``x``."""
    lead = x.ndim - len(kernel)
    return {"window_dimensions": (1,) * lead + tuple(kernel),
            "window_strides": (1,) * lead + tuple(stride),
            "padding": ((0, 0),) * lead + _pairs(pads),
            "window_dilation": (1,) * lead + tuple(dilation or (1,) * len(kernel))}


def _max_pool(x: Any, kernel: tuple = (), stride: tuple = (), pads: tuple = (),
              dilation: tuple = ()) -> Any:
    lowest = identity_of("max", array_np_dtype(x))  # (-inf, or an integer type's least)
    return lax.reduce_window(x, lowest, fnp.maximum, **_window(x, kernel, stride, pads,
                                                                dilation))


def _avg_pool(x: Any, kernel: tuple = (), stride: tuple = (), pads: tuple = (),
              divisor: Any = None) -> Any:
    dt = array_np_dtype(x)
    total = lax.reduce_window(x, 0, fnp.add, **_window(x, kernel, stride, pads))
    if dt.kind in "iu":  # integers: the quotient truncated, in the input's type
        return fnp.asarray(fnp.trunc(total / divisor), dt)
    return total / fnp.asarray(divisor, dt)


def _adaptive_avg_pool(x: Any, rows: Any = None, cols: Any = None, depth: Any = None) -> Any:
    """Each output cell is the mean of its window: ``rows @ x @ cols.T`` with
    constant averaging matrices (and ``depth`` along the third axis from the end, for
    a 3-d pooling: the mean over a box is the mean over each of its sides in turn)."""
    dt = array_np_dtype(x)
    if depth is not None:
        x = fnp.moveaxis(fnp.tensordot(x, fnp.asarray(depth, dt), axes=([x.ndim - 3], [1])),
                         -1, -3)
    y = fnp.swapaxes(fnp.tensordot(x, fnp.asarray(rows, dt), axes=([x.ndim - 2], [1])), -1, -2)
    return fnp.tensordot(y, fnp.asarray(cols, dt), axes=([x.ndim - 1], [1]))


def _unfold(x: Any, kernel: tuple = (), stride: tuple = (), padding: tuple = (),
            dilation: tuple = ()) -> Any:
    """im2col: every window's cells gathered from the flattened planes (a zero
    appended for padding cells), channel-major then kernel position, as
    ``torch.nn.functional.unfold``."""
    n, c, *plane = x.shape
    size = int(np.prod(plane))
    table = window_table(tuple(plane), window_dimensions=kernel, window_strides=stride,
                         padding=_pairs(padding), base_dilation=(1,) * len(kernel),
                         window_dilation=dilation)
    cells = fnp.pad(fnp.reshape(x, (n, c, size)), ((0, 0), (0, 0), (0, 1)))
    cols = fnp.take(cells, table.reshape(-1, table.shape[-1]), axis=2)  # (n, c, L, k)
    return fnp.reshape(fnp.swapaxes(cols, 2, 3), (n, c * table.shape[-1], -1))


# ------------------------------------------------------------------ THE TABLE
# name: (fad function, grad_fn name, dtype kind, saves tensors for backward)
_TABLE: dict[str, tuple] = {
    # arithmetic
    "add": (lambda a, b, alpha=1: fnp.add(a, b if alpha == 1 else fnp.multiply(b, alpha)),
            "AddBackward0", EW, False),
    "sub": (lambda a, b, alpha=1: fnp.subtract(a, b if alpha == 1 else fnp.multiply(b, alpha)),
            "SubBackward0", EW, False),
    "rsub": (lambda a, other=0, alpha=1: fnp.subtract(
        other, a if alpha == 1 else fnp.multiply(a, alpha)), "RsubBackward1", None, False),
    "rsub_t": (lambda a, b, alpha=1: fnp.subtract(
        b, a if alpha == 1 else fnp.multiply(a, alpha)), "RsubBackward0", EW, False),
    "mul": (fnp.multiply, "MulBackward0", EW, True),
    "div": (fnp.divide, "DivBackward0", EWF, True),
    "floor_divide": (fnp.floor_divide, "FloorDivideBackward0", EW, True),
    "remainder": (fnp.remainder, "RemainderBackward0", EW, True),
    "pow": (fnp.power, "PowBackward1", EW, True),
    "int_pow": (_int_power, "PowBackward1", EW, True),
    "int_rpow": (lambda a, base=1: _int_power(base, a), "PowBackward2", None, True),
    "pow_scalar": (lambda a, exponent=1: a ** exponent, "PowBackward0", None, True),
    "rpow": (lambda a, base=1: fnp.power(base, a), "PowBackward2", None, True),
    "maximum": (fnp.maximum, "MaximumBackward0", EW, True),
    "minimum": (fnp.minimum, "MinimumBackward0", EW, True),
    "atan2": (fnp.arctan2, "Atan2Backward0", EWF, True),
    "neg": (fnp.negative, "NegBackward0", None, False),
    "abs": (fnp.abs, "AbsBackward0", None, True),
    "sign": (fnp.sign, "SignBackward0", None, True),
    "floor": (fnp.floor, "FloorBackward0", None, True),
    "ceil": (fnp.ceil, "CeilBackward0", None, True),
    "round": (fnp.round, "RoundBackward0", None, True),
    "trunc": (fnp.trunc, "TruncBackward0", None, True),
    "frac": (lambda a: fnp.modf(a)[0], "FracBackward0", None, True),
    # unary maths (integers become floats)
    "exp": (fnp.exp, "ExpBackward0", UF, True),
    "exp2": (fnp.exp2, "Exp2Backward0", UF, True),
    "expm1": (fnp.expm1, "Expm1Backward0", UF, True),
    "log": (fnp.log, "LogBackward0", UF, True),
    "log2": (fnp.log2, "Log2Backward0", UF, True),
    "log10": (fnp.log10, "Log10Backward0", UF, True),
    "log1p": (fnp.log1p, "Log1PBackward0", UF, True),
    "sqrt": (fnp.sqrt, "SqrtBackward0", UF, True),
    "rsqrt": (lambda a: fnp.reciprocal(fnp.sqrt(a)), "RsqrtBackward0", UF, True),
    "square": (fnp.square, "PowBackward0", None, True),
    "reciprocal": (fnp.reciprocal, "ReciprocalBackward0", UF, True),
    "sin": (fnp.sin, "SinBackward0", UF, True),
    "cos": (fnp.cos, "CosBackward0", UF, True),
    "tan": (fnp.tan, "TanBackward0", UF, True),
    "asin": (fnp.arcsin, "AsinBackward0", UF, True),
    "acos": (fnp.arccos, "AcosBackward0", UF, True),
    "atan": (fnp.arctan, "AtanBackward0", UF, True),
    "sinh": (fnp.sinh, "SinhBackward0", UF, True),
    "cosh": (fnp.cosh, "CoshBackward0", UF, True),
    "tanh": (fnp.tanh, "TanhBackward0", UF, True),
    "sigmoid": (fnp.sigmoid, "SigmoidBackward0", UF, True),
    "erf": (special.erf, "ErfBackward0", UF, True),
    "erfc": (special.erfc, "ErfcBackward0", UF, True),
    "erfinv": (special.erfinv, "ErfinvBackward0", UF, True),
    "lgamma": (special.gammaln, "LgammaBackward0", UF, True),
    "digamma": (special.digamma, "DigammaBackward0", UF, True),
    # activations
    "relu": (nn.relu, "ReluBackward0", None, True),
    "leaky_relu": (_leaky_relu, "LeakyReluBackward0", None, True),
    "elu": (nn.elu, "EluBackward0", None, True),
    "gelu": (lambda a, approximate="none": nn.gelu(a, approximate == "tanh"),
             "GeluBackward0", None, True),
    "silu": (nn.silu, "SiluBackward0", None, True),
    "softplus": (lambda a, beta=1.0, threshold=20.0: nn.softplus(a, beta, threshold),
                 "SoftplusBackward0", None, True),
    "logsigmoid": (nn.log_sigmoid, "LogSigmoidBackward0", None, True),
    "hardtanh": (lambda a, min_val=-1.0, max_val=1.0: fnp.clip(a, min_val, max_val),
                 "HardtanhBackward0", None, True),
    "softmax": (_softmax, "SoftmaxBackward0", UF, True),
    "log_softmax": (_log_softmax, "LogSoftmaxBackward0", UF, True),
    "clamp": (lambda a, min=None, max=None: fnp.clip(a, min, max), "ClampBackward1", None,
              True),
    "clamp_t": (lambda a, min=None, max=None: fnp.clip(a, min, max), "ClampBackward0", None,
                True),
    "clamp_min": (lambda a, min=None: fnp.clip(a, min, None), "ClampMinBackward0", None,
                  True),
    "clamp_max": (lambda a, max=None: fnp.clip(a, None, max), "ClampMaxBackward0", None,
                  True),
    # comparisons and logic (never differentiable)
    "eq": (fnp.equal, None, CMP, False),
    "ne": (fnp.not_equal, None, CMP, False),
    "lt": (fnp.less, None, CMP, False),
    "le": (fnp.less_equal, None, CMP, False),
    "gt": (fnp.greater, None, CMP, False),
    "ge": (fnp.greater_equal, None, CMP, False),
    "logical_and": (lambda a, b: fnp.logical_and(a != 0, b != 0), None, None, False),
    "logical_or": (lambda a, b: fnp.logical_or(a != 0, b != 0), None, None, False),
    "logical_xor": (lambda a, b: fnp.logical_xor(a != 0, b != 0), None, None, False),
    "logical_not": (lambda a: fnp.logical_not(a != 0), None, None, False),
    "isnan": (fnp.isnan, None, None, False),
    "isfinite": (fnp.isfinite, None, None, False),
    "isinf": (fnp.isinf, None, None, False),
    # reductions
    "sum": (_sum, "SumBackward0", None, False),
    "sum_dim": (_sum, "SumBackward1", None, False),
    "nansum": (lambda a, dim=None, keepdim=False: fnp.nansum(a, axis=_ax(dim), keepdims=keepdim),
               "NansumBackward0", None, True),
    "mean": (_mean, "MeanBackward0", None, False),
    "mean_dim": (_mean, "MeanBackward1", None, False),
    "prod": (_prod, "ProdBackward0", None, True),
    "prod_dim": (_prod, "ProdBackward1", None, True),
    "var": (_var, "VarBackward0", None, True),
    "std": (_std, "StdBackward0", None, True),
    "norm": (_norm, "LinalgVectorNormBackward0", None, True),
    "logsumexp": (_logsumexp, "LogsumexpBackward0", UF, True),
    "amax": (lambda a, dim=None, keepdim=False: fnp.max(a, axis=_ax(dim), keepdims=keepdim),
             "AmaxBackward0", None, True),
    "amin": (lambda a, dim=None, keepdim=False: fnp.min(a, axis=_ax(dim), keepdims=keepdim),
             "AminBackward0", None, True),
    "max": (fnp.max, "MaxBackward1", None, True),
    "min": (fnp.min, "MinBackward1", None, True),
    "max_dim": (lambda a, dim=0, keepdim=False: _max_dim(a, dim, keepdim, fnp.argmax),
                "MaxBackward0", None, True, True),
    "min_dim": (lambda a, dim=0, keepdim=False: _max_dim(a, dim, keepdim, fnp.argmin),
                "MinBackward0", None, True, True),
    "argmax": (lambda a, dim=None, keepdim=False: fnp.argmax(a, axis=dim, keepdims=keepdim),
               None, None, False),
    "argmin": (lambda a, dim=None, keepdim=False: fnp.argmin(a, axis=dim, keepdims=keepdim),
               None, None, False),
    "all": (lambda a, dim=None, keepdim=False: fnp.all(a, axis=_ax(dim), keepdims=keepdim),
            None, None, False),
    "any": (lambda a, dim=None, keepdim=False: fnp.any(a, axis=_ax(dim), keepdims=keepdim),
            None, None, False),
    "cumsum": (_cumsum, "CumsumBackward0", None, False),
    # shapes
    "view": (lambda a, shape=(): fnp.reshape(a, shape), "ViewBackward0", None, False),
    "unsqueeze": (lambda a, dim=0: fnp.expand_dims(a, dim), "UnsqueezeBackward0", None,
                  False),
    "squeeze": (lambda a, dims=(): _squeeze_dims(a, dims), "SqueezeBackward0", None, False),
    "squeeze_dim": (lambda a, dims=(): _squeeze_dims(a, dims), "SqueezeBackward1", None,
                    False),
    "squeeze_dims": (lambda a, dims=(): _squeeze_dims(a, dims), "SqueezeBackward2", None,
                     False),
    # (lax.transpose: a view with PyTorch's strides also when only length-1 axes move)
    "permute": (lambda a, dims=(): lax.transpose(a, dims), "PermuteBackward0", None, False),
    "transpose": (lambda a, dim0=0, dim1=1: lax.transpose(a, _swapped(a.ndim, dim0, dim1)),
                  "TransposeBackward0", None, False),
    "t": (lambda a: lax.transpose(a, (1, 0)) if a.ndim == 2 else a, "TBackward0", None, False),
    "expand": (lambda a, shape=(): fnp.broadcast_to(a, shape), "ExpandBackward0", None,
               False),
    "repeat": (_repeat, "RepeatBackward0", None, False),
    "flip": (_flip, "FlipBackward0", None, False),
    "roll": (lambda a, shifts=(), dims=None: fnp.roll(a, shifts, dims), "RollBackward0", None,
             False),
    "cat": (_cat, "CatBackward0", EW, False),
    "stack": (_stack, "StackBackward0", EW, False),
    "split": (_split, "SplitBackward0", None, False, True),
    "split_sizes": (_split, "SplitWithSizesBackward0", None, False, True),
    "unbind": (lambda a, dim=0: list(fnp.unstack(a, axis=dim)), "UnbindBackward0", None,
               False, True),
    "getitem": (lambda a, index=(): _at_index(a, _full_index(index)), _index_name, None, False),
    "index_select": (lambda a, dim=0, index=None: fnp.take(a, index, axis=dim),
                     "IndexSelectBackward0", None, True),
    "gather": (_gather, "GatherBackward0", None, True),
    "embedding": (_embedding, "EmbeddingBackward0", None, True),
    "masked_fill": (lambda a, mask=None, value=0.0: fnp.where(mask, value, a),
                    "MaskedFillBackward0", None, True),
    "where": (_where, "WhereBackward0", EW, True),
    "tril": (lambda a, diagonal=0: fnp.tril(a, diagonal), "TrilBackward0", None, False),
    "triu": (lambda a, diagonal=0: fnp.triu(a, diagonal), "TriuBackward0", None, False),
    "pad": (_pad, "ConstantPadNdBackward0", None, False),
    "resample": (_resample, _resample_name, None, False),
    "index_put": (_index_put, "CopySlices", None, True),
    "scatter": (_scatter, lambda vals, p: "ScatterAddBackward0" if p.get("reduce") == "add"
                else "ScatterBackward1" if type(vals[1]) in (int, float, bool)
                else "ScatterBackward0", None, True),
    "resample_aa": (_resample_aa, "UpsampleBilinear2DAaBackward0", None, False),
    "scatter_all_grads": (_scatter_all_grads, "ScatterBackward0", None, True),
    "index_add": (_index_add, "IndexAddBackward0", None, True),
    "trace": (fnp.trace, "TraceBackward0", None, False),
    "clone": (_clone, "CloneBackward0", None, False),
    "grad_copy": (_clone, "CopyBackwards", None, False),
    "to": (_to, "ToCopyBackward0", None, False),
    "copy": (lambda a, src, dtype=None: fnp.asarray(fnp.broadcast_to(src, a.shape), dtype),
             "CopyBackwards", None, False),
    "fill": (lambda a, value=0.0: fnp.full(a.shape, value, dtype=array_np_dtype(a)),
             "FillBackward0", None, False),
    "zero": (lambda a: fnp.zeros_like(a), "ZeroBackward0", None, False),
    # products
    "matmul": (fnp.matmul, _matmul_name, EW, True),
    "mm": (_mm, "MmBackward0", EW, True),
    "bmm": (_mm, "BmmBackward0", EW, True),
    "mv": (_mm, "MvBackward0", EW, True),
    "dot": (_mm, "DotBackward0", EW, True),
    "vdot": (fnp.vdot, "VdotBackward0", EW, True),
    "outer": (fnp.outer, "MulBackward0", EW, True),
    "addmm": (_addmm, "AddmmBackward0", EW, True),
    "baddbmm": (_addmm, "BaddbmmBackward0", EW, True),
    "addmv": (_addmm, "AddmvBackward0", EW, True),
    "addr": (lambda c, a, b, beta=1, alpha=1: _addmm(c, a[:, None], b[None, :], beta, alpha),
             "AddrBackward0", EW, True),
    "addbmm": (_addbmm, "AddbmmBackward0", EW, True),
    "einsum": (lambda *xs, equation="": fnp.einsum(equation, *xs), _einsum_name, EW, True),
    "tensordot": (lambda a, b, dims=1: fnp.tensordot(a, b, axes=dims), "ViewBackward0", EW,
                  True),
    "kron": (fnp.kron, "UnsafeViewBackward0", EW, True),
    "cdist": (lambda a, b, p=2.0: fnp.linalg.vector_norm(
        a[..., :, None, :] - b[..., None, :, :], ord=p, axis=-1), "CdistBackward0", EW, True),
    "polar": (lambda r, theta: r * fnp.exp(1j * theta), "PolarBackward0", EW, True),
    "conj": (fnp.conj, "ConjBackward0", None, False),
    "real": (fnp.real, "SelectBackward0", None, False),
    "imag": (fnp.imag, "SelectBackward0", None, False),
    "histc": (lambda a, bins=100, low=0.0, high=0.0: fnp.histogram(
        a, bins, (low, high))[0].astype(a.dtype), None, None, False),
    # losses
    "mse_loss": (nn.mse_loss, "MseLossBackward0", EW, True),
    "l1_loss": (nn.l1_loss, "L1LossBackward0", EW, True),
    "smooth_l1_loss": (nn.smooth_l1_loss, "SmoothL1LossBackward0", EW, True),
    "huber_loss": (nn.huber_loss, "HuberLossBackward0", EW, True),
    "bce_with_logits": (nn.binary_cross_entropy_with_logits,
                        "BinaryCrossEntropyWithLogitsBackward0", EW, True),
    "bce": (nn.binary_cross_entropy, "BinaryCrossEntropyBackward0", EW, True),
    "nll_loss": (lambda logp, target=None, weight=None, ignore_index=-100, reduction="mean":
                 nn.nll_loss(logp, target, reduction, _class_axis(logp), weight, ignore_index),
                 "NllLossBackward0", None, True),
    "soft_cross_entropy": (lambda x, t, dim=1, weight=None, reduction="mean",
                           label_smoothing=0.0: nn.cross_entropy(x, t, reduction, dim, weight,
                                                                 label_smoothing),
                           "DivBackward1", EW, True),
    "smooth_cross_entropy": (lambda logp, target=None, weight=None, ignore_index=-100,
                             reduction="mean", eps=0.0: nn.nll_loss(
                                 logp, target, reduction, _class_axis(logp), weight,
                                 ignore_index, eps),
                             "AddBackward0", None, True),
    "kl_div": (nn.kl_div, "KlDivBackward0", EW, True),
    "dropout": (lambda a, mask=None, scale=1.0: a * mask * scale, "MulBackward0", None, True),
    # bitwise operations, cross product, SVD (torch.svd's V, not Vh)
    "bitwise_and": (fnp.bitwise_and, None, EW, False),
    "bitwise_or": (fnp.bitwise_or, None, EW, False),
    "bitwise_xor": (fnp.bitwise_xor, None, EW, False),
    "bitwise_not": (fnp.bitwise_not, None, None, False),
    "cross": (lambda a, b, dim=-1: fnp.cross(a, b, axis=dim), "LinalgCrossBackward0", EW, True),
    "svd": (lambda a, some=True: _svd(a, some), "LinalgSvdBackward0", None, True, True),
    # convolution and pooling
    "conv": (_conv, "ConvolutionBackward0", None, True),
    "conv_transpose": (_conv_transpose, "ConvolutionBackward0", None, True),
    "max_pool": (_max_pool, "MaxPool2DWithIndicesBackward0", None, True),
    "avg_pool": (_avg_pool, "AvgPool2DBackward0", None, False),
    "adaptive_avg_pool": (_adaptive_avg_pool, "AdaptiveAvgPool2DBackward0", None, False),
    "adaptive_avg_pool3d": (_adaptive_avg_pool, "AdaptiveAvgPool3DBackward0", None, False),
    "unfold": (_unfold, "Im2ColBackward0", None, False),
}

OPS: dict[str, Op] = {}
for _name, _entry in _TABLE.items():
    _fun, _gname, _kind, _saves, *_multi = _entry
    OPS[_name] = Op(_name, _fun, _gname or "NotDifferentiable", _kind, _saves,
                    bool(_multi and _multi[0]))
del _name, _entry, _fun, _gname, _kind, _saves, _multi


def call(name: str, *args: Any, **params: Any) -> Any:
    """Apply table operation ``name``."""
    return apply(OPS[name], args, params)
