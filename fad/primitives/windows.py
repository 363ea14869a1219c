"""Sliding windows: the strided views the convolution and pooling kernels share,
and the ``reduce_window_sum`` / ``reduce_window_max`` / ``reduce_window_min``
primitives (``jax.lax.reduce_window`` with a monoid and its identity).

Window geometry follows XLA along every axis: the operand is first dilated
(``base_dilation - 1`` holes between elements), then padded (``(lo, hi)``;
negative widths crop), and windows of ``window_dimensions`` elements spaced
``window_dilation`` apart are taken every ``window_strides`` steps. Holes and
padding hold the monoid's identity.

A kernel builds one strided view (``sliding_window_view``, sliced by the strides
and dilations) and reduces it once: no loop over positions.

Derivatives: the sum is linear, and its transpose is a ``reduce_window_sum`` of
the cotangent dilated by the strides (the adjoint of a sum over windows spreads
each output back over its window). Max and min send each window's tangent to the
first maximal (minimal) element of the window, as XLA's select-and-gather: the
position comes from ``reduce_window_argmax`` / ``_argmin`` (integer results), the
tangent at that position from ``window_gather`` (linear in the tangent), whose
transpose ``window_scatter`` places each window's cotangent at its chosen cell
(one assignment when the windows do not overlap, as in pooling with the stride
equal to the window; else one strided slice per tap) and transposes back to
``window_gather``.
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import Any, Callable, Sequence

import numpy as np

from ..backends import backend_for
from ..core.errors import ShapeError
from ..core.ir import ShapedArray
from ..core.primitive import Primitive
from ..core.trace import aval_of, bind, concrete_or_none, hide_dynamic, shape_of
from .builders import deflinear, defnondiff, to_front
from .cumulative import pad, reduce_prod_p
from .elementwise import add_p, max_p, min_p, mul_p
from .indexing import ARRAY, gather
from .sorting import constant
from .structural import reshape

Pairs = tuple[tuple[int, int], ...]


# ------------------------------------------------------------------ geometry
def dilate_dim(n: int, d: int) -> int:
    """Length of ``n`` elements with ``d - 1`` holes between neighbours.

    >>> dilate_dim(3, 2), dilate_dim(0, 2)
    (5, 0)
    """
    return 0 if n == 0 else 1 + d * (n - 1)


def window_count(n: int, k: int, stride: int, pads: tuple[int, int], base: int = 1,
                 dilation: int = 1) -> int:
    """Number of windows along one axis of length ``n`` (dilated by ``base``,
    padded by ``pads``) for a window of ``k`` taps ``dilation`` apart.

    >>> window_count(5, 3, 2, (1, 1))
    3
    """
    span = dilate_dim(n, base) + pads[0] + pads[1] - dilate_dim(k, dilation)
    return 0 if span < 0 else span // stride + 1


def padtype_to_pads(in_shape: tuple, window_shape: tuple, strides: tuple,
                    padding: str) -> Pairs:
    """Explicit ``(lo, hi)`` pairs for ``"VALID"``, ``"SAME"`` (output length
    ``ceil(n / stride)``, the odd cell after) or ``"SAME_LOWER"`` (the odd cell
    before), as ``jax.lax.padtype_to_pads``.

    >>> padtype_to_pads((5,), (3,), (2,), "SAME")
    ((1, 1),)
    """
    kind = padding.upper() if isinstance(padding, str) else padding
    if kind == "VALID":
        return ((0, 0),) * len(in_shape)
    if kind not in ("SAME", "SAME_LOWER"):
        raise ValueError(f"padding {padding!r}: use 'SAME', 'SAME_LOWER', 'VALID' or a "
                         "sequence of (low, high) pairs, one per spatial dimension")
    pads = []
    for n, k, s in zip(in_shape, window_shape, strides):
        total = max((-(-n // s) - 1) * s + k - n, 0)
        small = total // 2
        pads.append((small, total - small) if kind == "SAME" else (total - small, small))
    return tuple(pads)


def as_pairs(padding: Any, in_shape: tuple, window_shape: tuple, strides: tuple,
             name: str) -> Pairs:
    """``padding`` (a string or one ``(lo, hi)`` pair per dimension) as int pairs."""
    if isinstance(padding, str):
        return padtype_to_pads(in_shape, window_shape, strides, padding)
    try:
        pairs = tuple((int(lo), int(hi)) for lo, hi in padding)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{name}: padding must be a string or a sequence of (low, high) "
                         f"pairs, got {padding!r}") from e
    if len(pairs) != len(in_shape):
        raise ValueError(f"{name}: padding has {len(pairs)} pairs for {len(in_shape)} "
                         "dimensions; give one (low, high) pair per dimension")
    return pairs


def as_ints(values: Any, n: int, what: str, name: str) -> tuple[int, ...]:
    """A per-dimension parameter (``None``: all ones) as ``n`` positive ints."""
    if values is None:
        return (1,) * n
    out = tuple(int(v) for v in values)
    if len(out) != n:
        raise ValueError(f"{name}: {what} has {len(out)} entries for {n} dimensions")
    if any(v < 1 for v in out):
        raise ValueError(f"{name}: {what} must be positive, got {out}")
    return out


def transpose_padding(in_shape: tuple, window: tuple, strides: tuple, out_shape: tuple,
                      padding: Pairs, base: tuple, dilation: tuple) -> Pairs:
    """Padding of the cotangent (dilated by ``strides``) in the adjoint of a
    windowed map: each input cell collects every window covering it. The output
    of the adjoint has exactly ``in_shape`` (dilated by ``base``) cells."""
    pairs = []
    for n, k, s, o, (lo, _), b, d in zip(in_shape, window, strides, out_shape, padding,
                                          base, dilation):
        before = dilate_dim(k, d) - lo - 1
        after = dilate_dim(n, b) + dilate_dim(k, d) - 1 - dilate_dim(o, s) - before
        pairs.append((before, after))
    return tuple(pairs)


# ------------------------------------------------------------------ kernels
def spread(xp: Any, x: Any, axes: tuple, dilation: tuple, padding: Pairs, fill: Any) -> Any:
    """``x`` with ``dilation - 1`` cells of ``fill`` between neighbours and
    ``padding`` cells of ``fill`` around, along ``axes`` (negative pads crop)."""
    if all(d == 1 for d in dilation) and all(p == (0, 0) for p in padding):
        return x
    shape, inner, crop = list(x.shape), [slice(None)] * x.ndim, [slice(None)] * x.ndim
    for a, d, (lo, hi) in zip(axes, dilation, padding):
        n = dilate_dim(x.shape[a], d)
        shape[a] = n + max(lo, 0) + max(hi, 0)
        inner[a] = slice(max(lo, 0), max(lo, 0) + n, d)
        crop[a] = slice(max(-lo, 0), shape[a] - max(-hi, 0))
    out = xp.full(tuple(shape), fill, dtype=x.dtype)
    out[tuple(inner)] = x
    return out[tuple(crop)] if any(lo < 0 or hi < 0 for lo, hi in padding) else out


def strided_windows(xp: Any, x: Any, axes: tuple, window: tuple, strides: tuple,
                    dilation: tuple, name: str) -> Any:
    """A view of ``x``: along ``axes`` one entry per window position, and one
    trailing axis per entry of ``axes`` running over the window's taps."""
    view = np.lib.stride_tricks.sliding_window_view if xp is np else \
        backend_for(xp).function(name, "lib.stride_tricks.sliding_window_view")
    v = view(x, tuple(dilate_dim(k, d) for k, d in zip(window, dilation)), axis=tuple(axes))
    index = [slice(None)] * x.ndim + [slice(None, None, d) for d in dilation]
    for a, s in zip(axes, strides):
        index[a] = slice(None, None, s)
    return v[tuple(index)]


# ------------------------------------------------------------------ reduce_window
def _params_shape(shape: tuple, *, window_dimensions: tuple, window_strides: tuple,
                  padding: Pairs, base_dilation: tuple, window_dilation: tuple) -> tuple:
    return tuple(window_count(*args) for args in zip(shape, window_dimensions,
                                                     window_strides, padding, base_dilation,
                                                     window_dilation))


def _rw_aval(x: ShapedArray, **params: Any) -> ShapedArray:
    if any(len(v) != x.ndim for v in params.values()):
        raise ShapeError(f"reduce_window: the window parameters {params} do not fit the "
                         f"operand's {x.ndim} dimensions")
    return ShapedArray(_params_shape(x.shape, **params), x.dtype)


def identity_of(kind: str, dtype: Any) -> Any:
    """The identity of ``kind`` (``'sum'``, ``'max'``, ``'min'``, ``'prod'``) in ``dtype``.

    >>> identity_of("max", np.float32), identity_of("min", np.int8)
    (-inf, 127)
    """
    dtype = np.dtype(dtype)
    if kind in ("sum", "prod"):
        return dtype.type(kind == "prod").item()
    if dtype.kind == "b":
        return kind == "min"
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return int(info.min if kind == "max" else info.max)
    return -math.inf if kind == "max" else math.inf


def _patches(xp: Any, x: Any, fill: Any, name: str, **params: Any) -> tuple[Any, tuple]:
    """The strided view of windows of ``x`` (holes and padding ``fill``), and the
    trailing axes that run over each window's taps."""
    axes = tuple(range(x.ndim))
    x = spread(xp, x, axes, params["base_dilation"], params["padding"], fill)
    moved = tuple(a for a in axes if params["window_dimensions"][a] > 1
                  or params["window_strides"][a] > 1)
    v = strided_windows(xp, x, moved, *(tuple(params[p][a] for a in moved) for p in (
        "window_dimensions", "window_strides", "window_dilation")), name=name)
    return v, tuple(range(x.ndim, x.ndim + len(moved)))


def _window_view(xp: Any, x: Any, kind: str, name: str, **params: Any) -> tuple:
    """``(out_shape, v, taps, window)``: the windows of ``x`` padded with ``kind``'s
    identity, their tap axes and shape; ``v`` is None where the output is empty."""
    out_shape = _params_shape(x.shape, **params)
    if 0 in out_shape:
        return out_shape, None, (), ()
    v, taps = _patches(xp, x, identity_of(kind, x.dtype), name, **params)
    return out_shape, v, taps, (v.shape[taps[0]:] if taps else ())


def _rw_impl(kind: str) -> Callable:
    def impl(xp: Any, x: Any, **params: Any) -> Any:
        out_shape, v, taps, window = _window_view(xp, x, kind, f"reduce_window_{kind}",
                                                  **params)
        if v is None:
            return xp.zeros(out_shape, dtype=x.dtype)
        if xp is np and math.prod(window) <= _FEW_TAPS:
            # NumPy reduces short trailing axes of a strided view slowly (inner loops
            # of one window's length); one in-place ufunc call per tap runs its inner
            # loop along the image's rows instead (a 2x2 pool: 80 times faster)
            ufunc = _UFUNCS[kind]
            out = v[(..., *(0,) * len(window))].copy()
            for tap in itertools.islice(np.ndindex(*window), 1, None):
                ufunc(out, v[(..., *tap)], out=out)
            return out
        if kind == "sum":  # (NumPy's sum would widen small integers)
            return xp.sum(v, axis=taps, dtype=x.dtype)
        return getattr(xp, kind)(v, axis=taps)
    return impl


_FEW_TAPS = 64
_UFUNCS = {"sum": np.add, "max": np.maximum, "min": np.minimum}


def _rw_batch(prim: Primitive) -> Callable:
    """The batch axis first, with a window of one element along it."""
    def rule(size: int, vals: list, dims: list, **params: Any) -> tuple:
        (x,), (d,) = vals, dims
        one = {"window_dimensions": 1, "window_strides": 1, "base_dilation": 1,
               "window_dilation": 1, "padding": (0, 0)}
        params = {k: (one[k],) + tuple(v) for k, v in params.items()}
        return bind(prim, to_front(x, d), **params), 0
    return rule


def _sum_transpose(ct: Any, x: Any, *, window_dimensions: tuple, window_strides: tuple,
                   padding: Pairs, base_dilation: tuple, window_dilation: tuple) -> list:
    # the adjoint spreads each output back over its window: a windowed sum of the
    # cotangent dilated by the strides, taken every ``base_dilation`` cells
    shape = x.aval.shape
    pads = transpose_padding(shape, window_dimensions, window_strides, shape_of(ct), padding,
                             base_dilation, window_dilation)
    return [bind(reduce_window_sum_p, ct, window_dimensions=window_dimensions,
                 window_strides=base_dilation, padding=pads, base_dilation=window_strides,
                 window_dilation=window_dilation)]


reduce_window_sum_p = Primitive("reduce_window_sum", _rw_impl("sum"), _rw_aval)
deflinear(reduce_window_sum_p, _sum_transpose)
reduce_window_sum_p.batch = _rw_batch(reduce_window_sum_p)


def _arg_impl(kind: str) -> Callable:
    def impl(xp: Any, x: Any, **params: Any) -> Any:
        out_shape, v, taps, window = _window_view(xp, x, kind, f"reduce_window_arg{kind}",
                                                  **params)
        if v is None:
            return xp.zeros(out_shape, dtype=xp.int64)
        if xp is np and math.prod(window) <= _FEW_TAPS:  # one pass per tap (see _rw_impl)
            return _arg_by_taps(v, window, kind)
        flat = xp.reshape(v, out_shape + (math.prod(v.shape[len(out_shape):]),))
        return xp.astype(getattr(xp, "argmax" if kind == "max" else "argmin")(flat, axis=-1),
                         xp.int64)
    return impl


def _arg_by_taps(v: np.ndarray, window: tuple, kind: str) -> np.ndarray:
    """The first tap of each window equal to its extremum (or NaN, as NumPy's
    argmax): the number of leading taps that are not, counted with boolean passes."""
    taps = [v[(..., *tap)] for tap in np.ndindex(*window)]
    best = taps[0].copy()
    for cand in taps[1:]:
        _UFUNCS[kind](best, cand, out=best)  # (NaN wins, as in the forward pass)
    nan = best.dtype.kind in "fc" and bool(np.isnan(best).any())
    arg = np.zeros(best.shape, np.int8)  # (at most _FEW_TAPS taps)
    missed = None
    for cand in taps[:-1]:
        miss = cand != best
        if nan:
            miss &= ~np.isnan(cand)
        missed = miss if missed is None else np.logical_and(missed, miss, out=missed)
        np.add(arg, missed, out=arg, casting="unsafe")
    return arg.astype(np.int64)


def window_table(shape: tuple, **params: Any) -> np.ndarray:
    """For each window (leading axes) and tap (last axis), the flat index of the
    operand's cell it reads, or ``prod(shape)`` for a hole or padding cell
    (read-only; cached, as gradients of one layer ask for it at every step).

    >>> window_table((3,), window_dimensions=(2,), window_strides=(1,), padding=((1, 0),),
    ...              base_dilation=(1,), window_dilation=(1,)).tolist()
    [[3, 0], [0, 1], [1, 2]]
    """
    return _window_table(tuple(shape), *(params[k] for k in _GEOMETRY))


_GEOMETRY = ("window_dimensions", "window_strides", "padding", "base_dilation",
             "window_dilation")


@functools.lru_cache(maxsize=16)
def _window_table(shape: tuple, *geometry: tuple) -> np.ndarray:
    params = dict(zip(_GEOMETRY, geometry))
    n = math.prod(shape)
    out_shape = _params_shape(shape, **params)
    if 0 in out_shape:
        table = np.zeros(out_shape + (1,), np.int64)
    else:
        v, _ = _patches(np, np.arange(n).reshape(shape), n, "reduce_window", **params)
        table = v.reshape(out_shape + (-1,))
    table.setflags(write=False)
    return table


def _geometry(params: dict) -> tuple:
    return tuple(params[k] for k in _GEOMETRY)


def _chosen_cells(xp: Any, chosen: Any, shape: tuple, geometry: tuple) -> Any:
    """The flat index in an operand of ``shape`` of each window's chosen tap (flat,
    ``prod(shape)`` for a hole or padding cell)."""
    table, start = _table_rows(tuple(shape), *geometry)
    if xp is np:
        return table.take(start + chosen.reshape(-1))
    return xp.take(xp.asarray(table), xp.asarray(start) + xp.reshape(chosen, (-1,)))


@functools.lru_cache(maxsize=16)
def _table_rows(shape: tuple, *geometry: tuple) -> tuple[np.ndarray, np.ndarray]:
    """``window_table`` flat, and where each window's row starts in it."""
    table = _window_table(shape, *geometry)
    start = np.arange(0, table.size, table.shape[-1], dtype=np.int64)
    start.setflags(write=False)
    return table.reshape(-1), start


def _wg_aval(t: ShapedArray, chosen: ShapedArray, **params: Any) -> ShapedArray:
    out = _rw_aval(t, **params)
    if chosen.shape != out.shape:
        raise ShapeError(f"window_gather: {chosen.shape} chosen taps for windows of shape "
                         f"{out.shape}")
    return out


def _wg_impl(xp: Any, t: Any, chosen: Any, **params: Any) -> Any:
    out_shape = _params_shape(t.shape, **params)
    if 0 in out_shape or t.size == 0:
        return xp.zeros(out_shape, dtype=t.dtype)
    cells = _chosen_cells(xp, chosen, t.shape, _geometry(params))
    join = getattr(xp, "concat", None) or xp.concatenate
    flat = join([xp.reshape(t, (-1,)), xp.zeros((1,), dtype=t.dtype)])  # (the padding)
    return xp.reshape(xp.take(flat, cells), out_shape)


def _ws_aval(ct: ShapedArray, chosen: ShapedArray, *, operand_shape: tuple,
             **params: Any) -> ShapedArray:
    if _params_shape(operand_shape, **params) != ct.shape or chosen.shape != ct.shape:
        raise ShapeError(f"window_scatter: cotangent {ct.shape} and chosen taps "
                         f"{chosen.shape} do not match the windows of {operand_shape}")
    return ShapedArray(tuple(operand_shape), ct.dtype)


def _ws_impl(xp: Any, ct: Any, chosen: Any, *, operand_shape: tuple, **params: Any) -> Any:
    n = math.prod(operand_shape)
    if n == 0 or ct.size == 0:
        return xp.zeros(operand_shape, dtype=ct.dtype)
    cells = _chosen_cells(xp, chosen, operand_shape, _geometry(params))
    apart = all(k == 1 or s >= dilate_dim(k, d) for k, s, d in zip(
        params["window_dimensions"], params["window_strides"], params["window_dilation"]))
    if xp is not np or not apart:
        return _scatter_by_taps(xp, ct, chosen, tuple(operand_shape), **params)
    out = np.zeros(n + 1, dtype=ct.dtype)  # every real cell is chosen at most once
    out[cells] = ct.reshape(-1)
    return out[:n].reshape(operand_shape)


def _scatter_by_taps(xp: Any, ct: Any, chosen: Any, shape: tuple, *, window_dimensions: tuple,
                     window_strides: tuple, padding: Pairs, base_dilation: tuple,
                     window_dilation: tuple) -> Any:
    """``window_scatter`` with slices only (any backend, overlapping windows): each
    tap adds the cotangent of the windows that chose it at the tap's strided slice
    of the dilated, padded operand (kept whole when the padding crops)."""
    size = [dilate_dim(n, b) + max(lo, 0) + max(hi, 0)
            for n, b, (lo, hi) in zip(shape, base_dilation, padding)]
    out = xp.zeros(tuple(size), dtype=ct.dtype)
    zero = xp.zeros((), dtype=ct.dtype)
    for k, tap in enumerate(np.ndindex(*window_dimensions)):
        index = tuple(slice(max(-lo, 0) + i * d, max(-lo, 0) + i * d + (m - 1) * s + 1, s)
                      for i, d, s, m, (lo, _) in zip(tap, window_dilation, window_strides,
                                                      ct.shape, padding))
        out[index] = out[index] + xp.where(chosen == k, ct, zero)
    return out[tuple(slice(max(lo, 0), max(lo, 0) + dilate_dim(n, b), b)
                     for n, b, (lo, _) in zip(shape, base_dilation, padding))]


def _ws_transpose(ct: Any, t: Any, chosen: Any, *, operand_shape: tuple, **params: Any) -> list:
    return [bind(window_gather_p, ct, chosen, **params), None]


def _wg_transpose(ct: Any, t: Any, chosen: Any, **params: Any) -> list:
    return [bind(window_scatter_p, ct, chosen, operand_shape=tuple(t.aval.shape), **params),
            None]


def _pick_batch(prim: Primitive) -> Callable:
    """Both operands' batch axes first, and a window of one element along them."""
    def rule(size: int, vals: list, dims: list, **params: Any) -> tuple:
        (t, chosen), (dt, dc) = vals, dims
        one = {"window_dimensions": 1, "window_strides": 1, "base_dilation": 1,
               "window_dilation": 1, "padding": (0, 0), "operand_shape": size}
        params = {k: (one[k],) + tuple(v) for k, v in params.items()}
        return bind(prim, to_front(t, dt, size), to_front(chosen, dc, size), **params), 0
    return rule


# the tangent (cotangent) at each window's chosen tap, and its adjoint: linear in
# the first operand, the chosen taps (``reduce_window_argmax``'s) a constant
window_gather_p = Primitive("window_gather", _wg_impl, _wg_aval)
window_scatter_p = Primitive("window_scatter", _ws_impl, _ws_aval)
deflinear(window_gather_p, _wg_transpose)
deflinear(window_scatter_p, _ws_transpose)
window_gather_p.batch = _pick_batch(window_gather_p)
window_scatter_p.batch = _pick_batch(window_scatter_p)


def _chooser_jvp(prim: Primitive, arg_prim: Primitive) -> Callable:
    def jvp(primals: list, tangents: list, **params: Any) -> tuple:
        (x,), (t,) = primals, tangents
        ans = bind(prim, x, **params)
        if t is None:
            return ans, None
        chosen = bind(arg_prim, x, **params)  # the tap of each window's extremum
        return ans, bind(window_gather_p, t, chosen, **params)
    return jvp


def _chooser(kind: str) -> tuple[Primitive, Primitive]:
    prim = Primitive(f"reduce_window_{kind}", _rw_impl(kind), _rw_aval)
    arg = Primitive(f"reduce_window_arg{kind}", _arg_impl(kind),
                    lambda x, **p: ShapedArray(_rw_aval(x, **p).shape, np.dtype(np.int64)))
    defnondiff(arg)
    arg.batch = _rw_batch(arg)
    prim.jvp = _chooser_jvp(prim, arg)
    prim.batch = _rw_batch(prim)
    return prim, arg


reduce_window_max_p, reduce_window_argmax_p = _chooser("max")
reduce_window_min_p, reduce_window_argmin_p = _chooser("min")


# ------------------------------------------------------------------ reduce_window
_PROBES = ((2.0, 3.0), (-1.5, 4.0))
_KINDS = {"sum": (5.0, 2.5), "prod": (6.0, -6.0), "max": (3.0, 4.0), "min": (2.0, -1.5)}


def monoid_of(computation: Callable) -> str:
    """Which of add, mul, max and min ``computation`` computes (``'sum'``,
    ``'prod'``, ``'max'``, ``'min'``), told by its values on two pairs of numbers:
    ``lax.add``, ``fad.numpy.add``, ``operator.add``, ``numpy.maximum``... all work.

    >>> import operator
    >>> monoid_of(operator.mul), monoid_of(max)
    ('prod', 'max')
    """
    try:
        with hide_dynamic():  # (on constants: evaluated now, even under jit)
            got = tuple(float(np.asarray(computation(np.float64(a), np.float64(b))))
                        for a, b in _PROBES)
    except Exception:  # (any failure means: not one of the four)
        got = None
    for kind, want in _KINDS.items():
        if got == want:
            return kind
    raise NotImplementedError(
        f"reduce_window: the computation {computation!r} is not add, mul, max or min "
        "(lax.add / fad.numpy.add, lax.mul, lax.max / fad.numpy.maximum, lax.min); "
        "other reductions over windows are not supported")


_MONOIDS = {"sum": reduce_window_sum_p, "max": reduce_window_max_p, "min": reduce_window_min_p}
_COMBINE = {"sum": add_p, "max": max_p, "min": min_p, "prod": mul_p}


def reduce_window(operand: Any, init_value: Any, computation: Callable,
                  window_dimensions: Sequence[int], window_strides: Sequence[int],
                  padding: str | Sequence[tuple[int, int]],
                  base_dilation: Sequence[int] | None = None,
                  window_dilation: Sequence[int] | None = None) -> Any:
    """Reduce every window of ``operand`` with ``computation`` (add, mul, max or
    min), starting from ``init_value``, as ``jax.lax.reduce_window``: holes
    (``base_dilation``) and padding are neutral, and ``init_value`` enters each
    window once. Max and min pass the derivative to the first extremum of each
    window.

    Max pooling and average pooling of an ``(N, C, H, W)`` batch:

    >>> import numpy as np, operator
    >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
    >>> reduce_window(x, -np.inf, max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID").tolist()
    [[[[5.0, 7.0], [13.0, 15.0]]]]
    >>> (reduce_window(x, 0.0, operator.add, (1, 1, 2, 2), (1, 1, 2, 2), "VALID") / 4).tolist()
    [[[[2.5, 4.5], [10.5, 12.5]]]]
    """
    if isinstance(operand, tuple | list):
        raise NotImplementedError("reduce_window of several operands is not supported: "
                                  "reduce each array separately")
    x = operand if hasattr(operand, "shape") else np.asarray(operand)
    shape = tuple(shape_of(x))
    nd = len(shape)
    kind = monoid_of(computation)
    window = as_ints(window_dimensions, nd, "window_dimensions", "reduce_window")
    strides = as_ints(window_strides, nd, "window_strides", "reduce_window")
    base = as_ints(base_dilation, nd, "base_dilation", "reduce_window")
    dilation = as_ints(window_dilation, nd, "window_dilation", "reduce_window")
    pads = as_pairs(padding, shape, tuple(dilate_dim(k, d) for k, d in zip(window, dilation)),
                    strides, "reduce_window")
    params = {"window_dimensions": window, "window_strides": strides, "padding": pads,
              "base_dilation": base, "window_dilation": dilation}
    # (a traced init_value is combined below, which differentiates it)
    init = init_value if concrete_or_none(init_value) is init_value else None
    unit = init is not None and np.ndim(init) == 0 and \
        bool(init == identity_of(kind, aval_of(x).dtype))
    if kind in _MONOIDS:
        out = bind(_MONOIDS[kind], x, **params)
    else:  # products: every window's cells gathered (holes and padding hold 1)
        n = math.prod(shape)
        table = window_table(shape, **params)
        cells = gather(pad(reshape(x, (n,)), ((0, 1),), 1), (ARRAY,), (constant(table, x),))
        out = bind(reduce_prod_p, cells, axes=(table.ndim - 1,))
    return out if unit else bind(_COMBINE[kind], out, init_value)

__all__ = ["reduce_window", "monoid_of", "reduce_window_sum_p", "reduce_window_max_p",
           "reduce_window_min_p",
           "reduce_window_argmax_p", "reduce_window_argmin_p", "dilate_dim", "window_count",
           "padtype_to_pads", "as_pairs", "as_ints", "transpose_padding", "spread",
           "strided_windows", "identity_of", "window_table", "window_gather_p",
           "window_scatter_p"]
