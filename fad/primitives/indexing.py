"""Indexing: ``gather`` (NumPy's ``x[index]``) and its transpose ``scatter_add``.

The static part of an index (ints, slices, ``None``, ``...``) is a parameter,
an ``Indexer``; integer index arrays are operands, so they may be traced.
Reverse mode of ``x[index]`` scatters the cotangent back, summing repeated
indices (``np.add.at``).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..backends import backend_for
from ..backends.base import NUMPY
from ..core.errors import IndexShapeError
from ..core.ir import ShapedArray
from ..core.linear import is_undefined
from ..core.primitive import Primitive
from ..core.trace import bind, shape_of
from .builders import deflinear, elementwise_batch, loop_batch_rule, to_front
from .elementwise import add_p, neg_p, sub_p

ARRAY = "<array>"


class Indexer:
    """A hashable, printable static index; ``ARRAY`` marks an operand's slot."""

    __slots__ = ("items", "_static")

    def __init__(self, items: tuple):
        self.items = tuple(("slice", i.start, i.stop, i.step) if isinstance(i, slice) else i
                           for i in items)
        self._static = None

    def build(self, arrays: tuple) -> tuple:
        if not arrays:  # no index operands: build the index once
            if self._static is None:
                self._static = tuple(slice(*i[1:]) if isinstance(i, tuple) else i
                                     for i in self.items)
            return self._static
        it = iter(arrays)
        return tuple(slice(*i[1:]) if isinstance(i, tuple) else next(it) if i is ARRAY
                     else i for i in self.items)

    @property
    def n_arrays(self) -> int:
        return sum(1 for i in self.items if i is ARRAY)

    def __hash__(self) -> int:
        return hash(self.items)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Indexer) and self.items == other.items

    def __repr__(self) -> str:
        def one(i: Any) -> str:
            if isinstance(i, tuple):
                s = ":".join("" if v is None else str(v) for v in i[1:3])
                return s + (f":{i[3]}" if i[3] is not None else "")
            return {None: "None", Ellipsis: "...", ARRAY: "<array>"}.get(i, str(i)) \
                if not isinstance(i, int) else str(i)
        return "(" + ", ".join(one(i) for i in self.items) + ("," if len(self.items) == 1
                                                               else "") + ")"

    pp = __repr__


def _dummy(aval: ShapedArray) -> np.ndarray:
    """A zero-strided array of ``aval``'s shape: free to index, to learn shapes."""
    base = np.zeros((), dtype=aval.dtype if aval.dtype.kind in "iub" else np.int8)
    return np.lib.stride_tricks.as_strided(base, aval.shape, (0,) * len(aval.shape))


def _gather_aval(x: ShapedArray, *idx: ShapedArray, indexer: Indexer) -> ShapedArray:
    try:
        shape = _dummy(x)[indexer.build(tuple(_dummy(i) for i in idx))].shape
    except IndexError as e:
        raise IndexShapeError(f"index {indexer!r} does not fit shape {x.shape}: {e}") from None
    return ShapedArray(shape, x.dtype)


def _gather_impl(xp: Any, x: Any, *idx: Any, indexer: Indexer) -> Any:
    return backend_for(xp).getitem(x, indexer.build(idx))


def _scatter_add_impl(xp: Any, v: Any, *idx: Any, indexer: Indexer, shape: tuple) -> Any:
    return backend_for(xp).index_add(shape, v.dtype, indexer.build(idx), v)


def _gather_kernel(xp: Any, *, indexer: Indexer) -> Any:
    """For jit: a static index is built once; NumPy indexes directly."""
    if indexer.n_arrays or xp.__name__ != "numpy":
        return lambda x, *idx: _gather_impl(xp, x, *idx, indexer=indexer)
    index = indexer.build(())
    if any(type(i) is np.ndarray for i in index):  # (a constant index array: NumPy's
        return functools.partial(NUMPY.getitem, index=index)  # backend lays it out)
    return lambda x: x[index]


gather_p = Primitive("gather", _gather_impl, _gather_aval)
gather_p.kernel = _gather_kernel
scatter_add_p = Primitive(
    "scatter_add", _scatter_add_impl,
    lambda v, *idx, indexer, shape: ShapedArray(shape, v.dtype))

deflinear(gather_p, lambda ct, x, *idx, indexer: [
    bind(scatter_add_p, ct, *idx, indexer=indexer, shape=x.aval.shape)] + [None] * len(idx))
deflinear(scatter_add_p, lambda ct, v, *idx, indexer, shape: [
    bind(gather_p, ct, *idx, indexer=indexer)] + [None] * len(idx))


def _adjacent_arrays(items: tuple) -> bool:
    pos = [k for k, i in enumerate(items) if i is ARRAY or isinstance(i, int)]
    return not pos or pos == list(range(pos[0], pos[-1] + 1))


def _sliced_after_batch(indexer: Indexer) -> Indexer:
    """``indexer`` behind a leading full slice (for the batch axis)."""
    return Indexer((slice(None),) + tuple(i if not isinstance(i, tuple) else slice(*i[1:])
                                          for i in indexer.items))


def _loops(indexer: Indexer, didx: list) -> bool:
    """A batched index array, or array indices apart (NumPy moves their axis
    first): no single indexing operation does the batch; loop over examples."""
    return any(d is not None for d in didx) or \
        indexer.n_arrays > 0 and not _adjacent_arrays(indexer.items)


def _gather_batch(size: int, vals: list, dims: list, *, indexer: Indexer) -> tuple:
    x, *idx = vals
    dx, *didx = dims
    if _loops(indexer, didx):
        return loop_batch_rule(gather_p)(size, vals, dims, indexer=indexer)
    return bind(gather_p, to_front(x, dx, size), *idx, indexer=_sliced_after_batch(indexer)), 0


def _scatter_add_batch(size: int, vals: list, dims: list, *, indexer: Indexer,
                       shape: tuple) -> tuple:
    v, *idx = vals
    dv, *didx = dims
    if _loops(indexer, didx):
        return loop_batch_rule(scatter_add_p)(size, vals, dims, indexer=indexer, shape=shape)
    return bind(scatter_add_p, to_front(v, dv, size), *idx,
                indexer=_sliced_after_batch(indexer), shape=(size,) + tuple(shape)), 0


gather_p.batch = _gather_batch
scatter_add_p.batch = _scatter_add_batch


def _scatter_add_kernel(xp: Any, *, indexer: Indexer, shape: tuple) -> Any:
    """For jit: the result is a fresh buffer (``out=`` is accepted and ignored);
    a static index and the backend are looked up once."""
    backend = backend_for(xp)
    if indexer.n_arrays:
        return lambda v, *idx, out=None: backend.index_add(shape, v.dtype,
                                                           indexer.build(idx), v)
    index = indexer.build(())
    return lambda v, out=None: backend.index_add(shape, v.dtype, index, v)


scatter_add_p.kernel = _scatter_add_kernel
scatter_add_p.fresh_output = True


# x ± scatter_add(v) in one buffer: JAX's x.at[index].add(±v). jit's optimiser makes
# it out of ``add`` and ``sub`` (fad/primitives/identities.py); linear in x and v jointly.
def _add_at_impl(xp: Any, x: Any, v: Any, *idx: Any, indexer: Indexer, sign: int = 1,
                 out: Any = None) -> Any:
    x = np.asarray(x) if isinstance(x, np.generic) else x  # (a NumPy scalar: 0-d array)
    return backend_for(xp).add_at(x, indexer.build(idx), v, out=out, sign=sign)


def _add_at_transpose(ct: Any, x: Any, v: Any, *idx: Any, indexer: Indexer,
                      sign: int = 1) -> list:
    ct_v = None
    if is_undefined(v):
        ct_v = bind(gather_p, ct, *idx, indexer=indexer)
        ct_v = ct_v if sign > 0 else bind(neg_p, ct_v)
    return [ct if is_undefined(x) else None, ct_v] + [None] * len(idx)


def _add_at_batch(size: int, vals: list, dims: list, *, indexer: Indexer,
                  sign: int = 1) -> tuple:
    """x ± scatter_add(v): the two rules above, composed."""
    x, v, *idx = vals
    dx, dv, *didx = dims
    shape = tuple(s for i, s in enumerate(shape_of(x)) if i != dx)  # x's logical shape
    scattered, ds = _scatter_add_batch(size, [v, *idx], [dv, *didx], indexer=indexer,
                                       shape=shape)
    return elementwise_batch(add_p if sign > 0 else sub_p)(size, [x, scattered], [dx, ds])


add_at_p = Primitive("add_at", _add_at_impl, lambda x, v, *idx, indexer, sign=1: x)
deflinear(add_at_p, _add_at_transpose, linear=(0, 1))
add_at_p.batch = _add_at_batch


def _add_at_kernel(xp: Any, *, indexer: Indexer, sign: int = 1) -> Any:
    """For jit: a static index and the backend are looked up once."""
    backend = backend_for(xp)
    if indexer.n_arrays:
        return functools.partial(_add_at_impl, xp, indexer=indexer, sign=sign)
    index = indexer.build(())
    return lambda x, v, out=None: backend.add_at(
        np.asarray(x) if isinstance(x, np.generic) else x, index, v, out=out, sign=sign)


add_at_p.kernel = _add_at_kernel
add_at_p.fresh_output = True


def gather(x: Any, index: tuple, arrays: tuple = ()) -> Any:
    return bind(gather_p, x, *arrays, indexer=Indexer(index))


def slice_axis(x: Any, axis: int, start: int, stop: int) -> Any:
    return gather(x, (slice(None),) * axis + (slice(start, stop),))
