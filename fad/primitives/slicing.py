"""Slices at run-time offsets, as ``jax.lax``: ``dynamic_slice`` and
``dynamic_update_slice`` (and their one-axis forms), re-exported by ``fad.lax``.

The sizes are static; the start indices are operands (0-d integers, possibly
traced). As in JAX, a negative start counts from the end (``n + start``), then
each start is clamped so that the slice fits: ``start = min(max(start, 0), n -
size)``, so an out-of-range start never raises and never shortens the slice.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..core.errors import ShapeError
from ..core.ir import ShapedArray
from ..core.linear import is_undefined
from ..core.primitive import Primitive
from ..core.trace import Tracer, aval_of, bind, shape_of
from .builders import deflinear, loop_batch_rule, to_front, zeros_like
from .indexing import gather
from .reductions import reduce_sum_p
from .scatter import host
from .structural import broadcast_to, reshape

__all__ = ["dynamic_slice", "dynamic_update_slice", "dynamic_index_in_dim",
           "dynamic_slice_in_dim", "dynamic_update_index_in_dim",
           "dynamic_update_slice_in_dim"]


def _window(shape: tuple, starts: tuple, sizes: tuple) -> tuple:
    """The slices: a negative start counted from the end, then moved into
    ``[0, n - size]``."""
    if not len(starts) == len(sizes) == len(shape):
        raise TypeError(f"one start index and one size per axis of the operand "
                        f"(shape {shape}), got {len(starts)} and {len(sizes)}")
    starts = [int(s) + n if int(s) < 0 else int(s) for s, n in zip(starts, shape)]
    return tuple(slice(s, s + k) for s, k in (
        (min(max(s, 0), n - k), k) for s, n, k in zip(starts, shape, sizes)))


def _check_starts(fn: str, shape: tuple, starts: tuple) -> None:
    if len(starts) != len(shape):
        raise TypeError(f"{fn}: give one start index per axis of the operand "
                        f"(shape {shape}), got {len(starts)}")
    for s in starts:  # (a Python int start takes the operand's dtype when staged)
        if s.shape != ():
            raise TypeError(f"{fn}: start indices are integer scalars, got "
                            f"{s.dtype}{list(s.shape)}")


# ---------------------------------------------------------------- dynamic_slice
def _slice_aval(x: ShapedArray, *starts: ShapedArray, sizes: tuple) -> ShapedArray:
    _check_starts("dynamic_slice", x.shape, starts)
    if len(sizes) != len(x.shape) or any(not 0 <= k <= n for k, n in zip(sizes, x.shape)):
        raise ValueError(f"dynamic_slice: slice_sizes {sizes} must give one size per axis "
                         f"of the operand, each at most that axis' length {x.shape}")
    return ShapedArray(tuple(sizes), x.dtype)


def _slice_impl(xp: Any, x: Any, *starts: Any, sizes: tuple) -> Any:
    return x[_window(x.shape, starts, sizes)]


def _zeros(like: Any, shape: tuple) -> Any:
    """Zeros of ``shape`` in the dtype and namespace of ``like``."""
    zero = zeros_like(like)
    if shape_of(zero):
        zero = bind(reduce_sum_p, zero, axes=tuple(range(len(shape_of(zero)))))
    return broadcast_to(zero, tuple(shape))


def _slice_transpose(ct: Any, x: Any, *starts: Any, sizes: tuple) -> list:
    zeros = _zeros(ct, x.aval.shape)
    return [bind(dynamic_update_slice_p, zeros, ct, *starts)] + [None] * len(starts)


def _slice_batch(size: int, vals: list, dims: list, *, sizes: tuple) -> tuple:
    x, *starts = vals
    dx, *dstarts = dims
    if any(d is not None for d in dstarts):  # each example its own offsets
        return loop_batch_rule(dynamic_slice_p)(size, vals, dims, sizes=sizes)
    return bind(dynamic_slice_p, to_front(x, dx), 0, *starts,
                sizes=(size,) + tuple(sizes)), 0


dynamic_slice_p = Primitive("dynamic_slice", _slice_impl, _slice_aval)
deflinear(dynamic_slice_p, _slice_transpose)
dynamic_slice_p.batch = _slice_batch


# ---------------------------------------------------------------- dynamic_update_slice
def _update_aval(x: ShapedArray, u: ShapedArray, *starts: ShapedArray) -> ShapedArray:
    _check_starts("dynamic_update_slice", x.shape, starts)
    if u.dtype != x.dtype:
        raise TypeError(f"dynamic_update_slice: the update's dtype {u.dtype} differs from "
                        f"the operand's {x.dtype}; convert it with .astype")
    if len(u.shape) != len(x.shape) or any(k > n for k, n in zip(u.shape, x.shape)):
        raise ShapeError(f"dynamic_update_slice: the update {u.shape} must have the "
                         f"operand's rank and fit in its shape {x.shape}")
    return x


def _update_impl(xp: Any, x: Any, u: Any, *starts: Any, out: Any = None) -> Any:
    """``x`` with ``u`` written at the clamped ``starts``, on NumPy into ``out``
    (``x``'s own buffer when jit finds it dead)."""
    window = _window(x.shape, starts, u.shape)
    if xp.__name__ != "numpy":
        out = host(x)
        out[window] = host(u)
        return xp.asarray(out)
    if out is None or out is u or any(out is s for s in starts):
        out = np.array(x)  # (a copy; an ndarray even for a NumPy scalar)
    elif out is not x:
        out[...] = x
    out[window] = u
    return out


def _update_transpose(ct: Any, x: Any, u: Any, *starts: Any) -> list:
    ct_x = ct_u = None
    u_shape = u.aval.shape if is_undefined(u) else shape_of(u)
    if is_undefined(x):  # the window loses x's value
        ct_x = bind(dynamic_update_slice_p, ct, _zeros(ct, u_shape), *starts)
    if is_undefined(u):
        ct_u = bind(dynamic_slice_p, ct, *starts, sizes=tuple(u_shape))
    return [ct_x, ct_u] + [None] * len(starts)


def _update_batch(size: int, vals: list, dims: list) -> tuple:
    x, u, *starts = vals
    dx, du, *dstarts = dims
    if any(d is not None for d in dstarts):
        return loop_batch_rule(dynamic_update_slice_p)(size, vals, dims)
    return bind(dynamic_update_slice_p, to_front(x, dx, size), to_front(u, du, size),
                0, *starts), 0


dynamic_update_slice_p = Primitive("dynamic_update_slice", _update_impl, _update_aval)
deflinear(dynamic_update_slice_p, _update_transpose, linear=(0, 1))
dynamic_update_slice_p.batch = _update_batch
dynamic_update_slice_p.kernel = lambda xp: lambda x, u, *starts, out=None: _update_impl(
    xp, x, u, *starts, out=out)
dynamic_update_slice_p.fresh_output = True


# ---------------------------------------------------------------- public functions
def _int(s: Any) -> Any:
    """A start: a concrete one as a Python int (it joins any backend's arrays)."""
    dtype = aval_of(s).dtype
    if isinstance(s, bool | np.bool_) or dtype.kind not in "iu":
        raise TypeError(f"start indices are integer scalars, got {s!r} ({dtype})")
    return s if isinstance(s, Tracer) else int(s)


def _starts(start_indices: Any) -> tuple:
    """A sequence of scalars, or a 1-d integer array (maybe traced), as 0-d operands."""
    if isinstance(start_indices, Tracer) or hasattr(start_indices, "shape") and \
            not isinstance(start_indices, np.generic):
        n = shape_of(start_indices)
        if len(n) != 1:
            raise TypeError(f"start_indices: a sequence of scalars or a 1-d array, got "
                            f"shape {n}")
        return tuple(_int(gather(start_indices, (k,))) for k in range(n[0]))
    return tuple(_int(s) for s in start_indices)


def dynamic_slice(operand: Any, start_indices: Any, slice_sizes: Sequence[int]) -> Any:
    """``operand[s0:s0+k0, s1:s1+k1, ...]`` with run-time starts ``s`` (negative ones
    counted from the end, then clamped so the slice fits, as
    ``jax.lax.dynamic_slice``) and static sizes ``k``.

    >>> import numpy as np, fad
    >>> x = np.arange(10.0)
    >>> fad.lax.dynamic_slice(x, (2,), (3,)).tolist()
    [2.0, 3.0, 4.0]
    >>> fad.lax.dynamic_slice(x, (8,), (3,)).tolist()  # start clamped to 7
    [7.0, 8.0, 9.0]
    """
    starts, sizes = _starts(start_indices), tuple(int(k) for k in slice_sizes)
    _slice_aval(aval_of(operand), *map(aval_of, starts), sizes=sizes)  # (the checks)
    return bind(dynamic_slice_p, operand, *starts, sizes=sizes)


def dynamic_update_slice(operand: Any, update: Any, start_indices: Any) -> Any:
    """A copy of ``operand`` with ``update`` written at the run-time ``start_indices``
    (clamped so the update fits, as ``jax.lax.dynamic_update_slice``).

    >>> import numpy as np, fad
    >>> fad.lax.dynamic_update_slice(np.zeros(5), np.ones(2), (4,)).tolist()
    [0.0, 0.0, 0.0, 1.0, 1.0]
    """
    starts = _starts(start_indices)
    _update_aval(aval_of(operand), aval_of(update), *map(aval_of, starts))  # (the checks)
    return bind(dynamic_update_slice_p, operand, update, *starts)


def _in_dim_starts(operand: Any, index: Any, axis: int) -> tuple:
    nd = len(shape_of(operand))
    if not -nd <= axis < nd:
        raise ValueError(f"axis {axis} is out of bounds for an operand of rank {nd}")
    starts: list = [0] * nd
    starts[axis % nd] = index
    return tuple(starts), axis % nd


def dynamic_slice_in_dim(operand: Any, start_index: Any, slice_size: int,
                         axis: int = 0) -> Any:
    """``dynamic_slice`` along one axis: ``slice_size`` elements from ``start_index``.

    >>> import numpy as np, fad
    >>> fad.lax.dynamic_slice_in_dim(np.arange(6.0).reshape(2, 3), 1, 2, axis=1).tolist()
    [[1.0, 2.0], [4.0, 5.0]]
    """
    starts, axis = _in_dim_starts(operand, start_index, axis)
    sizes = list(shape_of(operand))
    sizes[axis] = slice_size
    return dynamic_slice(operand, starts, sizes)


def dynamic_index_in_dim(operand: Any, index: Any, axis: int = 0,
                         keepdims: bool = True) -> Any:
    """Element ``index`` along ``axis`` (a length-1 axis kept if ``keepdims``).

    >>> import numpy as np, fad
    >>> fad.lax.dynamic_index_in_dim(np.arange(6.0).reshape(2, 3), 2, 1, False).tolist()
    [2.0, 5.0]
    """
    out = dynamic_slice_in_dim(operand, index, 1, axis)
    if keepdims:
        return out
    shape = shape_of(out)
    axis = axis % len(shape)
    return reshape(out, shape[:axis] + shape[axis + 1:])


def dynamic_update_slice_in_dim(operand: Any, update: Any, start_index: Any,
                                axis: int) -> Any:
    """``dynamic_update_slice`` with a start along ``axis`` only.

    >>> import numpy as np, fad
    >>> fad.lax.dynamic_update_slice_in_dim(np.zeros((2, 3)), np.ones((2, 1)), 1, 1).tolist()
    [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]]
    """
    starts, _ = _in_dim_starts(operand, start_index, axis)
    return dynamic_update_slice(operand, update, starts)


def dynamic_update_index_in_dim(operand: Any, update: Any, index: Any, axis: int) -> Any:
    """Write ``update`` as element ``index`` along ``axis`` (``update`` may lack that axis).

    >>> import numpy as np, fad
    >>> fad.lax.dynamic_update_index_in_dim(np.zeros((2, 2)), np.ones(2), 0, 0).tolist()
    [[1.0, 1.0], [0.0, 0.0]]
    """
    nd = len(shape_of(operand))
    axis = axis % nd if nd else axis
    shape = shape_of(update)
    if len(shape) == nd - 1:
        update = reshape(update, shape[:axis] + (1,) + shape[axis:])
    return dynamic_update_slice_in_dim(operand, update, index, axis)
