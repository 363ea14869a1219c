"""Convolutions: the ``conv_general_dilated`` primitive of ``jax.lax`` (N-d, with
strides, explicit padding, input and kernel dilation, dimension numbers, feature
groups and batch groups) and the wrappers ``conv``, ``conv_with_general_padding``
and ``conv_transpose``.

Kernel: the input, its axes in (batch, feature, spatial...) order, is dilated and
padded, one strided view of its windows is taken (``im2col`` as a view), and one
``tensordot`` per group contracts it with the kernel.

Derivatives are convolutions bound on the same primitive, so they differentiate
again:

* input: the cotangent, dilated by the strides and padded so that every input
  cell meets every window that covered it, convolved with the kernel flipped in
  space and with its input and output features swapped (a transposed convolution);
* kernel: the input convolved with the cotangent as the kernel, the batch axis
  playing the part of the features (feature groups turn into batch groups, and
  batch groups into feature groups).

Batching folds the vmapped axis into the batch axis (a batched input), the output
features (a batched kernel), or into feature or batch groups (both batched),
within each group when the convolution has groups: never a loop.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple, Sequence

import numpy as np

from ..core.errors import ShapeError
from ..core.ir import ShapedArray
from ..core.linear import is_undefined
from ..core.primitive import Primitive
from ..core.trace import aval_of, bind, shape_of
from .builders import defmultilinear, to_front
from .indexing import gather
from .structural import convert_element_type, reshape, transpose
from .windows import (
    as_ints,
    as_pairs,
    dilate_dim,
    spread,
    strided_windows,
    transpose_padding,
    window_count,
)

NAME = "conv_general_dilated"


class ConvDimensionNumbers(NamedTuple):
    """Where each role sits: ``lhs_spec`` = (batch, feature, spatial...) axes of
    the input, ``rhs_spec`` = (output feature, input feature, spatial...) axes of
    the kernel, ``out_spec`` = (batch, feature, spatial...) axes of the output.

    >>> ConvDimensionNumbers((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2)).rhs_spec
    (3, 2, 0, 1)
    """

    lhs_spec: tuple[int, ...]
    rhs_spec: tuple[int, ...]
    out_spec: tuple[int, ...]


def _spec_permutation(spec: str, pair: tuple[str, str], rhs: str, i: int) -> tuple[int, ...]:
    for c in pair:
        if spec.count(c) != 1:
            raise TypeError(f"convolution dimension_numbers[{i}] must contain the characters "
                            f"{pair[0]!r} and {pair[1]!r} exactly once, got {spec!r}")
    if len(set(spec)) != len(spec):
        raise TypeError(f"convolution dimension_numbers[{i}] has a repeated character: "
                        f"{spec!r}")
    spatial = [k for k, c in enumerate(spec) if c not in pair]
    spatial.sort(key=lambda k: rhs.index(spec[k]))  # spatial axes in the kernel's order
    return (spec.index(pair[0]), spec.index(pair[1])) + tuple(spatial)


def conv_dimension_numbers(lhs_shape: tuple, rhs_shape: tuple,
                           dimension_numbers: Any) -> ConvDimensionNumbers:
    """``dimension_numbers`` (``None``: ``NC...``, ``OI...``, ``NC...``; three
    strings such as ``("NHWC", "HWIO", "NHWC")``; or three int tuples) as a
    ``ConvDimensionNumbers``, as ``jax.lax.conv_dimension_numbers``.

    >>> conv_dimension_numbers((1, 5, 5, 3), (3, 3, 3, 8), ("NHWC", "HWIO", "NHWC"))
    ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))
    """
    nd = len(lhs_shape)
    if len(rhs_shape) != nd:
        raise TypeError(f"convolution requires the input and the kernel to have the same "
                        f"rank, got shapes {tuple(lhs_shape)} and {tuple(rhs_shape)}")
    if dimension_numbers is None:
        return ConvDimensionNumbers(*(tuple(range(nd)),) * 3)
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if len(dimension_numbers) != 3:
        raise TypeError("convolution dimension_numbers must be three specs (input, kernel, "
                        f"output), got {dimension_numbers!r}")
    if all(isinstance(s, str) for s in dimension_numbers):
        lhs, rhs, out = dimension_numbers
        if any(len(s) != nd for s in dimension_numbers):
            raise TypeError(f"convolution dimension_numbers {dimension_numbers} do not match "
                            f"operands of rank {nd}")
        if not set(lhs) - {"N", "C"} == set(rhs) - {"O", "I"} == set(out) - {"N", "C"}:
            raise TypeError("convolution dimension_numbers elements must each have the same "
                            f"set of spatial characters, got {dimension_numbers}")
        pairs = (("N", "C"), ("O", "I"), ("N", "C"))
        return ConvDimensionNumbers(*(_spec_permutation(s, p, rhs, i) for i, (s, p) in
                                      enumerate(zip(dimension_numbers, pairs))))
    specs = tuple(tuple(int(a) for a in s) for s in dimension_numbers)
    if any(sorted(s) != list(range(nd)) for s in specs):
        raise TypeError(f"convolution dimension_numbers {dimension_numbers} are not "
                        f"permutations of the {nd} axes")
    return ConvDimensionNumbers(*specs)


# ------------------------------------------------------------------ the primitive
def _conv_aval(lhs: ShapedArray, rhs: ShapedArray, *, window_strides: tuple, padding: tuple,
               lhs_dilation: tuple, rhs_dilation: tuple,
               dimension_numbers: ConvDimensionNumbers, feature_group_count: int,
               batch_group_count: int) -> ShapedArray:
    ls, rs, os_ = dimension_numbers
    if lhs.dtype != rhs.dtype:
        raise ShapeError(f"{NAME} requires operands of the same dtype, got {lhs.dtype} and "
                         f"{rhs.dtype}: convert one first (or pass preferred_element_type)")
    if lhs.ndim != rhs.ndim or len(ls) != lhs.ndim:
        raise ShapeError(f"{NAME}: shapes {lhs.shape} and {rhs.shape} do not match the "
                         f"dimension numbers {tuple(dimension_numbers)}")
    groups, batches = feature_group_count, batch_group_count
    n, c = lhs.shape[ls[0]], lhs.shape[ls[1]]
    o, i = rhs.shape[rs[0]], rhs.shape[rs[1]]
    if c != i * groups or o % groups:
        raise ShapeError(f"{NAME}: the input has {c} features and the kernel {i} input and "
                         f"{o} output features; with feature_group_count={groups} the input "
                         f"needs kernel_in * groups features and the output a multiple of "
                         "groups")
    if n % batches or o % batches:
        raise ShapeError(f"{NAME}: batch_group_count={batches} must divide the batch ({n}) "
                         f"and the kernel's output features ({o})")
    out = [0] * lhs.ndim
    out[os_[0]], out[os_[1]] = n // batches, o
    for k, (la, ra, oa) in enumerate(zip(ls[2:], rs[2:], os_[2:])):
        out[oa] = window_count(lhs.shape[la], rhs.shape[ra], window_strides[k], padding[k],
                               lhs_dilation[k], rhs_dilation[k])
    return ShapedArray(tuple(out), lhs.dtype)


def _permute(xp: Any, x: Any, axes: tuple) -> Any:
    """The standard's ``permute_dims``, or NumPy's older name (CuPy, Dask)."""
    return (getattr(xp, "permute_dims", None) or xp.transpose)(x, axes)


def _conv_impl(xp: Any, lhs: Any, rhs: Any, *, window_strides: tuple, padding: tuple,
               lhs_dilation: tuple, rhs_dilation: tuple,
               dimension_numbers: ConvDimensionNumbers, feature_group_count: int,
               batch_group_count: int) -> Any:
    ls, rs, os_ = dimension_numbers
    x, w = _permute(xp, lhs, ls), _permute(xp, rhs, rs)  # (N, C, ...), (O, I, ...)
    shape = _conv_aval(ShapedArray(lhs.shape, np.dtype(np.float64)),
                       ShapedArray(rhs.shape, np.dtype(np.float64)),
                       window_strides=window_strides, padding=padding,
                       lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
                       dimension_numbers=dimension_numbers,
                       feature_group_count=feature_group_count,
                       batch_group_count=batch_group_count).shape
    if 0 in shape or 0 in w.shape[1:]:  # nothing to compute, or nothing to sum
        return xp.zeros(shape, dtype=lhs.dtype)
    geometry = (window_strides, padding, lhs_dilation, rhs_dilation,
                tuple(shape[a] for a in os_[2:]))
    groups, batches = feature_group_count, batch_group_count
    if groups > 1:
        cg, og = x.shape[1] // groups, w.shape[0] // groups
        pieces = [(x[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og]) for g in range(groups)]
    elif batches > 1:
        nb, ob = x.shape[0] // batches, w.shape[0] // batches
        pieces = [(x[b * nb:(b + 1) * nb], w[b * ob:(b + 1) * ob]) for b in range(batches)]
    else:
        pieces = [(x, w)]
    parts = [_conv_one(xp, a, b, *geometry) for a, b in pieces]
    join = getattr(xp, "concat", None) or xp.concatenate
    y = parts[0] if len(parts) == 1 else join(parts, axis=1)  # (N, O, spatial...)
    perm = [0] * x.ndim
    for role, axis in enumerate(os_):  # role (batch, feature, spatial...) -> output axis
        perm[axis] = role
    return _permute(xp, y, tuple(perm))


def _conv_one(xp: Any, x: Any, w: Any, strides: tuple, padding: tuple, lhs_dilation: tuple,
              rhs_dilation: tuple, out_spatial: tuple) -> Any:
    """One group: ``x`` (B, F, spatial...) and ``w`` (O, F, taps...) to (B, O,
    out_spatial...), by whichever of the two contractions below moves less data."""
    b, f, o = x.shape[0], x.shape[1], w.shape[0]
    taps, cells, outs = math.prod(w.shape[2:]), math.prod(x.shape[2:]), math.prod(out_spatial)
    # gather: copy F * taps * outs window cells, contract them; scatter: contract the
    # input cells, add O * taps * cells products back (one slice per tap)
    gather = b * f * taps * outs * (1 + o / _GEMM_SPEED)
    scatter = b * o * taps * cells * (1 + f / _GEMM_SPEED) + taps * _TAP_COST
    if xp is np and all(s == 1 for s in strides) and scatter < gather:
        return _conv_scatter(x, w, padding, lhs_dilation, rhs_dilation, out_spatial)
    return _conv_gather(xp, x, w, strides, padding, lhs_dilation, rhs_dilation, out_spatial)


# relative costs (in copied elements) of a multiply-add in a matrix product, and of
# one tap's pass of the scatter
_GEMM_SPEED, _TAP_COST = 8.0, 4000.0


def _conv_gather(xp: Any, x: Any, w: Any, strides: tuple, padding: tuple, lhs_dilation: tuple,
                 rhs_dilation: tuple, out_spatial: tuple) -> Any:
    """im2col: the windows of the dilated, padded input copied into one matrix per
    example, contracted with the kernel by one matrix product per example. The copy
    runs along the longer of the output's rows and the window's rows, so the matrix
    is (F * taps, outs) or (outs, F * taps)."""
    nsp = x.ndim - 2
    spatial = tuple(range(2, 2 + nsp))
    x = spread(xp, x, spatial, lhs_dilation, padding, 0)
    b, f, o = x.shape[0], x.shape[1], w.shape[0]
    k, outs = f * math.prod(w.shape[2:]), math.prod(out_spatial)
    kernel = xp.reshape(w, (o, k))
    if not nsp or out_spatial[-1] >= w.shape[-1]:  # rows of the output
        if xp is np and all(s == 1 for s in strides):
            return _flat_gather(x, kernel, w.shape[2:], rhs_dilation, out_spatial)
        v = strided_windows(xp, x, spatial, w.shape[2:], strides, rhs_dilation, NAME)
        cols = _permute(xp, v, (0, 1, *range(2 + nsp, 2 + 2 * nsp), *spatial))
        y = xp.matmul(kernel, xp.reshape(cols, (b, k, outs)))  # (B, F * taps, outs)
        return xp.reshape(y, (b, o, *out_spatial))
    # rows of the window: (B, outs, F * taps), the products (B, outs, O)
    v = strided_windows(xp, x, spatial, w.shape[2:], strides, rhs_dilation, NAME)
    cols = _permute(xp, v, (0, *spatial, 1, *range(2 + nsp, 2 + 2 * nsp)))
    y = xp.matmul(xp.reshape(cols, (b, outs, k)), _permute(xp, kernel, (1, 0)))
    return xp.reshape(_permute(xp, y, (0, 2, 1)), (b, o, *out_spatial))


def _flat_gather(x: np.ndarray, kernel: np.ndarray, window: tuple, rhs_dilation: tuple,
                 out_spatial: tuple) -> np.ndarray:
    """im2col with unit strides (NumPy): output cell ``p`` of tap ``t`` reads the
    input at the flat index ``p + t`` (row-major, in the input's grid), so each
    (example, feature, tap) row of the matrix is one contiguous run of the input,
    over every output cell and the few columns between output rows (dropped after
    the product)."""
    x = np.ascontiguousarray(x)
    b, f = x.shape[:2]
    item, grid = x.itemsize, x.shape[2:]
    step = [math.prod(grid[a + 1:]) for a in range(len(grid))]
    span = 1 + sum((p - 1) * st for p, st in zip(out_spatial, step))
    cols = np.lib.stride_tricks.as_strided(
        x, (b, f, *window, span),
        (*x.strides[:2], *(d * st * item for d, st in zip(rhs_dilation, step)), item),
        writeable=False)
    y = np.matmul(kernel, cols.reshape(b, -1, span))  # (B, O, span)
    out = np.lib.stride_tricks.as_strided(  # the output cells among the span
        y, (*y.shape[:2], *out_spatial), (*y.strides[:2], *(st * y.itemsize for st in step)),
        writeable=False)
    return np.ascontiguousarray(out)


def _conv_scatter(x: np.ndarray, w: np.ndarray, padding: tuple, lhs_dilation: tuple,
                  rhs_dilation: tuple, out_spatial: tuple) -> np.ndarray:
    """col2im (unit window strides, NumPy): every input cell times every tap of the
    kernel, then each tap's products added into the output at the tap's offset:
    input cell ``u`` meets output cell ``u * lhs_dilation + low padding - tap *
    rhs_dilation``. The cheaper way when the input is dilated or padded (a
    transposed convolution, an input's cotangent).

    The input is laid out on the grid of every output cell it can reach (row-major,
    flat, the batch innermost), so that a tap's offset is one flat shift: each tap
    is one add of ``O`` long contiguous rows, not of the image's short ones."""
    b, f, o, window = x.shape[0], x.shape[1], w.shape[0], w.shape[2:]
    cells, taps = x.shape[2:], math.prod(window)
    # the grid: per axis, from the lowest cell reached (or 0) to the highest (or the end)
    low = [min(0, lo - (k - 1) * rd) for k, rd, (lo, _) in zip(window, rhs_dilation, padding)]
    high = [max(n, (u - 1) * ld + lo + 1) for n, u, ld, (lo, _) in
            zip(out_spatial, cells, lhs_dilation, padding)]
    grid = tuple(hi - lo for lo, hi in zip(low, high))
    step = [math.prod(grid[a + 1:]) for a in range(len(grid))]
    # the input on the grid from its first cell, (F, span * B), batch innermost
    span = 1 + sum((u - 1) * ld * st for u, ld, st in zip(cells, lhs_dilation, step))
    xg = np.zeros((f, *grid, b), dtype=x.dtype)
    xg[(slice(None), *(slice(0, (u - 1) * ld + 1, ld) for u, ld in zip(cells, lhs_dilation)))] \
        = np.moveaxis(x, 0, -1)
    xg = xg.reshape(f, -1)[:, :span * b]
    # (taps * O, F) @ (F, span * B): each tap's products, added at the tap's shift
    kernel = np.moveaxis(w, (0, 1), (-2, -1)).reshape(taps * o, f)
    prods = kernel @ xg
    buf = np.zeros((o, math.prod(grid) * b), dtype=prods.dtype)
    for t, tap in enumerate(np.ndindex(*window)):
        at = b * sum((lo - i * rd - gl) * st for (lo, _), i, rd, gl, st in
                     zip(padding, tap, rhs_dilation, low, step))
        buf[:, at:at + span * b] += prods[t * o:(t + 1) * o]
    buf = buf.reshape(o, *grid, b)[(slice(None), *(slice(-gl, -gl + n) for gl, n in
                                                    zip(low, out_spatial)))]
    return np.ascontiguousarray(np.moveaxis(buf, -1, 0))


conv_general_dilated_p = Primitive(NAME, _conv_impl, _conv_aval)
defmultilinear(conv_general_dilated_p)


# ------------------------------------------------------------------ derivatives
def split_axis(x: Any, axis: int, n: int) -> Any:
    """Axis ``axis`` of ``x`` split into ``(n, rest)`` (``n`` the major part)."""
    shape = tuple(shape_of(x))
    return reshape(x, shape[:axis] + (n, shape[axis] // n) + shape[axis + 1:])


def merge_axis(x: Any, src: int, dst: int) -> Any:
    """Axis ``src`` of ``x`` merged into axis ``dst`` as its major part; ``dst``
    counts the axes left once ``src`` is taken out, and the merged axis sits there."""
    shape = tuple(shape_of(x))
    order = [a for a in range(len(shape)) if a != src]
    order.insert(dst, src)
    rest = [shape[a] for a in order]
    rest[dst:dst + 2] = [rest[dst] * rest[dst + 1]]
    return reshape(transpose(x, tuple(order)), tuple(rest))


def _swap(spec: tuple) -> tuple:
    return (spec[1], spec[0]) + tuple(spec[2:])


def _spatial(shape: tuple, spec: tuple) -> tuple:
    return tuple(shape[a] for a in spec[2:])


def _lhs_cotangent(ct: Any, rhs: Any, lhs_shape: tuple, **p: Any) -> Any:
    ls, rs, os_ = p["dimension_numbers"]
    groups, batches = p["feature_group_count"], p["batch_group_count"]
    w, count = rhs, max(groups, batches)
    if count > 1:  # each group's kernel slice becomes a group of the transposed kernel
        w = merge_axis(split_axis(w, rs[0], count), rs[0], rs[1])
    w = gather(w, tuple(slice(None, None, -1) if a in rs[2:] else slice(None)
                        for a in range(len(shape_of(w)))))
    pads = transpose_padding(_spatial(lhs_shape, ls), _spatial(shape_of(rhs), rs),
                             p["window_strides"], _spatial(shape_of(ct), os_), p["padding"],
                             p["lhs_dilation"], p["rhs_dilation"])
    out = bind(conv_general_dilated_p, ct, w, window_strides=p["lhs_dilation"], padding=pads,
               lhs_dilation=p["window_strides"], rhs_dilation=p["rhs_dilation"],
               dimension_numbers=ConvDimensionNumbers(os_, _swap(rs), ls),
               feature_group_count=count, batch_group_count=1)
    if batches > 1:  # the groups' features back into the batch, group-major
        out = merge_axis(split_axis(out, ls[1], batches), ls[1], ls[0])
    return out


def _rhs_cotangent(ct: Any, lhs: Any, rhs_shape: tuple, **p: Any) -> Any:
    ls, rs, os_ = p["dimension_numbers"]
    groups, batches = p["feature_group_count"], p["batch_group_count"]
    pads = tuple((lo, dilate_dim(o, s) - dilate_dim(n, ld) + dilate_dim(k, rd) - lo - 1)
                 for n, k, o, s, (lo, _), ld, rd in zip(
                     _spatial(shape_of(lhs), ls), _spatial(rhs_shape, rs),
                     _spatial(shape_of(ct), os_), p["window_strides"], p["padding"],
                     p["lhs_dilation"], p["rhs_dilation"]))
    return bind(conv_general_dilated_p, lhs, ct, window_strides=p["rhs_dilation"],
                padding=pads, lhs_dilation=p["lhs_dilation"],
                rhs_dilation=p["window_strides"],
                dimension_numbers=ConvDimensionNumbers(_swap(ls), _swap(os_), _swap(rs)),
                feature_group_count=batches, batch_group_count=groups)


def _conv_transpose_rule(ct: Any, lhs: Any, rhs: Any, **params: Any) -> list:
    if is_undefined(lhs) and is_undefined(rhs):
        raise ValueError(f"{NAME} of two tangents is not linear")
    if is_undefined(lhs):
        return [_lhs_cotangent(ct, rhs, lhs.aval.shape, **params), None]
    return [None, _rhs_cotangent(ct, lhs, rhs.aval.shape, **params)]


conv_general_dilated_p.transpose = _conv_transpose_rule


def _fold(x: Any, d: int, axis: int, count: int) -> Any:
    """The batch axis ``d`` of ``x`` folded into the example's axis ``axis``, read
    as ``count`` groups: ``(count, rest)`` becomes ``(count, batch, rest)``."""
    x = split_axis(to_front(x, d), axis + 1, count)
    return merge_axis(merge_axis(x, 0, axis + 1), axis, axis)


def _unfold(y: Any, axis: int, count: int, size: int) -> Any:
    """``_fold``'s inverse on an output: axis ``axis``, ``(count, batch, rest)``,
    becomes the batch axis at ``axis`` followed by ``(count, rest)``."""
    y = split_axis(split_axis(y, axis, count), axis + 1, size)
    return merge_axis(y, axis, axis + 1)


def _conv_batch(size: int, vals: list, dims: list, **p: Any) -> tuple:
    (lhs, rhs), (dl, dr) = vals, dims
    ls, rs, os_ = p["dimension_numbers"]
    groups, batches = p["feature_group_count"], p["batch_group_count"]
    if dl is not None and dr is not None:
        if batches == 1:  # each example its own feature groups
            out = bind(conv_general_dilated_p, merge_axis(lhs, dl, ls[1]),
                       merge_axis(rhs, dr, rs[0]), **{**p, "feature_group_count": groups * size})
            return split_axis(out, os_[1], size), os_[1]
        # each example its own batch groups
        out = bind(conv_general_dilated_p, _fold(lhs, dl, ls[0], batches),
                   _fold(rhs, dr, rs[0], batches), **{**p, "batch_group_count": batches * size})
        return _unfold(out, os_[1], batches, size), os_[1]
    if dr is None:  # the examples join the batch (of each batch group)
        out = bind(conv_general_dilated_p, _fold(lhs, dl, ls[0], batches), rhs, **p)
        return split_axis(out, os_[0], size), os_[0]
    # the kernels join the output features (of each group)
    count = max(groups, batches)
    out = bind(conv_general_dilated_p, lhs, _fold(rhs, dr, rs[0], count), **p)
    return _unfold(out, os_[1], count, size), os_[1]


conv_general_dilated_p.batch = _conv_batch


# ------------------------------------------------------------------ public functions
def _array(x: Any) -> Any:
    return x if hasattr(x, "shape") else np.asarray(x)


def conv_general_dilated(lhs: Any, rhs: Any, window_strides: Sequence[int],
                         padding: str | Sequence[tuple[int, int]],
                         lhs_dilation: Sequence[int] | None = None,
                         rhs_dilation: Sequence[int] | None = None,
                         dimension_numbers: Any = None, feature_group_count: int = 1,
                         batch_group_count: int = 1, precision: Any = None,
                         preferred_element_type: Any = None) -> Any:
    """General N-d convolution (a cross-correlation, as in deep learning), as
    ``jax.lax.conv_general_dilated``.

    ``padding``: ``"SAME"``, ``"SAME_LOWER"``, ``"VALID"`` or one ``(low, high)``
    pair per spatial dimension (negative: cropping). ``lhs_dilation`` inserts
    holes in the input (a transposed convolution), ``rhs_dilation`` in the kernel
    (atrous convolution). ``dimension_numbers`` as ``conv_dimension_numbers``.
    ``feature_group_count`` splits the features into groups convolved separately
    (depthwise: one group per input feature). ``precision`` is accepted and
    ignored (the backend computes in the operands' dtype);
    ``preferred_element_type`` converts both operands first.

    >>> import numpy as np
    >>> x = np.arange(5.0).reshape(1, 1, 5)
    >>> w = np.array([1.0, 0.0, -1.0]).reshape(1, 1, 3)
    >>> conv_general_dilated(x, w, (1,), "VALID").tolist()
    [[[-2.0, -2.0, -2.0]]]
    >>> conv_general_dilated(x, w, (2,), "SAME").tolist()
    [[[-1.0, -2.0, 3.0]]]
    """
    del precision
    lhs, rhs = _array(lhs), _array(rhs)
    lshape, rshape = tuple(shape_of(lhs)), tuple(shape_of(rhs))
    dn = conv_dimension_numbers(lshape, rshape, dimension_numbers)
    nsp = len(lshape) - 2
    if nsp < 0:
        raise TypeError(f"{NAME} needs operands of rank 2 or more, got shapes {lshape} and "
                        f"{rshape}")
    strides = as_ints(window_strides, nsp, "window_strides", NAME)
    ld = as_ints(lhs_dilation, nsp, "lhs_dilation", NAME)
    rd = as_ints(rhs_dilation, nsp, "rhs_dilation", NAME)
    if isinstance(padding, str) and ld != (1,) * nsp:
        raise ValueError(f"{NAME}: string padding is not implemented with lhs_dilation (a "
                         "transposed convolution): give (low, high) pairs or use "
                         "conv_transpose")
    kernel = tuple(dilate_dim(k, d) for k, d in zip(_spatial(rshape, dn.rhs_spec), rd))
    pads = as_pairs(padding, _spatial(lshape, dn.lhs_spec), kernel, strides, NAME)
    groups, batches = int(feature_group_count), int(batch_group_count)
    if groups < 1 or batches < 1 or (groups > 1 and batches > 1):
        raise ValueError(f"{NAME}: feature_group_count={groups} and batch_group_count="
                         f"{batches} must be positive, and one of them 1")
    if preferred_element_type is not None:
        lhs = convert_element_type(lhs, preferred_element_type)
        rhs = convert_element_type(rhs, preferred_element_type)
    if aval_of(lhs).dtype != aval_of(rhs).dtype:
        raise TypeError(f"{NAME} requires operands of the same dtype, got "
                        f"{aval_of(lhs).dtype} and {aval_of(rhs).dtype}: convert one first "
                        "(or pass preferred_element_type)")
    return bind(conv_general_dilated_p, lhs, rhs, window_strides=strides, padding=pads,
                lhs_dilation=ld, rhs_dilation=rd, dimension_numbers=dn,
                feature_group_count=groups, batch_group_count=batches)


def conv(lhs: Any, rhs: Any, window_strides: Sequence[int],
         padding: str | Sequence[tuple[int, int]], precision: Any = None,
         preferred_element_type: Any = None) -> Any:
    """Convolution of an ``(N, C, spatial...)`` input with an ``(O, I, spatial...)``
    kernel, as ``jax.lax.conv``.

    >>> import numpy as np
    >>> conv(np.ones((1, 1, 3, 3)), np.ones((1, 1, 2, 2)), (1, 1), "VALID").tolist()
    [[[[4.0, 4.0], [4.0, 4.0]]]]
    """
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs: Any, rhs: Any, window_strides: Sequence[int],
                              padding: str | Sequence[tuple[int, int]],
                              lhs_dilation: Sequence[int] | None,
                              rhs_dilation: Sequence[int] | None, precision: Any = None,
                              preferred_element_type: Any = None) -> Any:
    """``conv`` with input and kernel dilation, as ``jax.lax.conv_with_general_padding``.

    >>> import numpy as np
    >>> conv_with_general_padding(np.ones((1, 1, 3)), np.ones((1, 1, 2)), (1,),
    ...                           ((0, 0),), (2,), None).tolist()
    [[[1.0, 1.0, 1.0, 1.0]]]
    """
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation,
                                rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


_TRANSPOSE_DEFAULTS = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                       4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}


def _transpose_pads(k: int, s: int, padding: Any) -> tuple[int, int]:
    """Padding of the dilated input of a transposed convolution, given the
    padding of the forward convolution it transposes."""
    if padding == "SAME":
        total = k + s - 2
        before = k - 1 if s > k - 1 else -(-total // 2)
    elif padding == "VALID":
        total, before = k + s - 2 + max(k - s, 0), k - 1
    else:
        before, after = k - padding[0] - 1, k - padding[1] - 1
        total = before + after
    return before, total - before


def conv_transpose(lhs: Any, rhs: Any, strides: Sequence[int],
                   padding: str | Sequence[tuple[int, int]],
                   rhs_dilation: Sequence[int] | None = None, dimension_numbers: Any = None,
                   transpose_kernel: bool = False, precision: Any = None,
                   preferred_element_type: Any = None,
                   use_consistent_padding: bool = False) -> Any:
    """Transposed (fractionally strided) convolution, as ``jax.lax.conv_transpose``:
    the input dilated by ``strides``. Layout defaults to ``NHWC`` / ``HWIO``.
    ``"SAME"`` / ``"VALID"`` (and, with ``use_consistent_padding``, pairs) name the
    padding of the forward convolution; otherwise pairs pad the dilated input.
    ``transpose_kernel=True`` flips the kernel and swaps its feature axes, which
    makes this the gradient of ``conv_general_dilated`` (PyTorch's
    ``conv_transpose``).

    >>> import numpy as np
    >>> conv_transpose(np.ones((1, 2, 1)), np.ones((2, 1, 1)), (2,), "VALID").ravel().tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    lhs, rhs = _array(lhs), _array(rhs)
    nd = len(shape_of(lhs))
    if dimension_numbers is None:
        if nd not in _TRANSPOSE_DEFAULTS:
            raise ValueError(f"conv_transpose: no default dimension_numbers for rank {nd}; "
                             "pass dimension_numbers")
        dimension_numbers = _TRANSPOSE_DEFAULTS[nd]
    dn = conv_dimension_numbers(shape_of(lhs), shape_of(rhs), dimension_numbers)
    nsp = nd - 2
    rd = as_ints(rhs_dilation, nsp, "rhs_dilation", "conv_transpose")
    strides = as_ints(strides, nsp, "strides", "conv_transpose")
    kernel = [dilate_dim(k, d) for k, d in zip(_spatial(shape_of(rhs), dn.rhs_spec), rd)]
    if isinstance(padding, str) and padding not in ("SAME", "VALID"):
        raise ValueError(f"conv_transpose: padding {padding!r}: use 'SAME', 'VALID' or "
                         "(low, high) pairs")
    if isinstance(padding, str) or use_consistent_padding:
        per_dim = [padding] * nsp if isinstance(padding, str) else [tuple(p) for p in padding]
        padding = tuple(_transpose_pads(k, s, p) for k, s, p in zip(kernel, strides, per_dim))
    if transpose_kernel:
        rs = dn.rhs_spec
        rhs = gather(rhs, tuple(slice(None, None, -1) if a in rs[2:] else slice(None)
                                for a in range(nd)))
        order = list(range(nd))
        order[rs[0]], order[rs[1]] = rs[1], rs[0]
        rhs = transpose(rhs, tuple(order))
    return conv_general_dilated(lhs, rhs, (1,) * nsp, padding, strides, rd, dn,
                                precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_general_shape_tuple(lhs_shape: tuple, rhs_shape: tuple, window_strides: Sequence[int],
                             padding: Any, dimension_numbers: Any) -> tuple[int, ...]:
    """The output shape of ``conv_general_dilated`` (no dilation), as JAX's.

    >>> conv_general_shape_tuple((1, 3, 5, 5), (8, 3, 3, 3), (1, 1), "SAME", None)
    (1, 8, 5, 5)
    """
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    nsp = len(lhs_shape) - 2
    strides = as_ints(window_strides, nsp, "window_strides", NAME)
    pads = as_pairs(padding, _spatial(lhs_shape, dn.lhs_spec), _spatial(rhs_shape, dn.rhs_spec),
                    strides, NAME)
    dtype = np.dtype(np.float64)
    return _conv_aval(ShapedArray(tuple(lhs_shape), dtype), ShapedArray(tuple(rhs_shape), dtype),
                      window_strides=strides, padding=pads, lhs_dilation=(1,) * nsp,
                      rhs_dilation=(1,) * nsp, dimension_numbers=dn, feature_group_count=1,
                      batch_group_count=1).shape


__all__ = ["conv_general_dilated_p", "ConvDimensionNumbers", "conv_dimension_numbers",
           "conv_general_dilated", "conv", "conv_with_general_padding", "conv_transpose",
           "conv_general_shape_tuple", "split_axis", "merge_axis"]
