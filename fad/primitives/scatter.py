"""Functional indexed updates, JAX's ``x.at[index].set/mul/min/max(v)``:
``scatter`` (assignment), ``scatter_mul``, ``scatter_min`` and ``scatter_max``
(``np.multiply.at``, ``np.minimum.at``, ``np.maximum.at``); ``x.at[index].add``
is ``add_at`` (``fad/primitives/indexing.py``).

Each takes ``x``, the values ``v`` (already broadcast to the shape of
``x[index]`` and cast to ``x``'s dtype) and the index operands, with the static
index as an ``Indexer``, and returns a new array: ``x`` is never written. When
an index repeats, ``scatter`` keeps the last value written, as NumPy's
assignment ``x[index] = v``; the others combine every value. Under ``jit`` the
kernel writes into ``x``'s buffer when ``x`` is dead afterwards (``out=``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backends import backend_for
from ..backends.base import numpy_dtype
from ..core.errors import ShapeError
from ..core.ir import ShapedArray
from ..core.linear import is_undefined
from ..core.primitive import Primitive
from ..core.trace import aval_of, bind, concrete_or_none, shape_of
from .builders import deflinear, defnondiff, index_example, loop_batch_rule, to_front, zeros_like
from .elementwise import add_p, div_p, eq_p, mul_p
from .indexing import Indexer, _gather_aval, _loops, _sliced_after_batch, add_at_p, gather_p
from .structural import convert_element_type

# the mode of ``Backend.scatter`` each primitive is
_MODES = {"scatter": "set", "scatter_mul": "mul", "scatter_min": "min", "scatter_max": "max"}


def host(a: Any) -> Any:
    """A NumPy copy of another namespace's array (CuPy's by ``.get()``)."""
    try:
        return np.array(a)
    except TypeError:
        return a.get()


def _write(xp: Any, name: str, x: Any, v: Any, index: tuple, out: Any = None) -> Any:
    """``x`` with ``v`` written (or combined) at ``index``: the backend's ``scatter``
    (NumPy's writes into ``out``, which may be ``x``: then in place)."""
    return backend_for(xp).scatter(_MODES[name], x, index, v, out)


def _update_aval(x: ShapedArray, v: ShapedArray, *idx: ShapedArray, indexer: Indexer,
                 **params: Any) -> ShapedArray:
    target = _gather_aval(x, *idx, indexer=indexer)
    if v.shape != target.shape or v.dtype != x.dtype:
        raise ShapeError(f"an indexed update of x{indexer!r} (x: {x.dtype}{list(x.shape)}) "
                         f"takes values of x[index]'s shape {target.shape} and dtype "
                         f"{x.dtype}, got {v.dtype}{list(v.shape)}")
    return x


def _update_batch(prim: Primitive) -> Any:
    """x and v with the batch axis first (broadcast if unbatched), the index behind
    a leading full slice; a batched index array: one update per example."""
    def rule(size: int, vals: list, dims: list, *, indexer: Indexer, **params: Any) -> tuple:
        x, v, *idx = vals
        dx, dv, *didx = dims
        if _loops(indexer, didx):
            return loop_batch_rule(prim)(size, vals, dims, indexer=indexer, **params)
        return bind(prim, to_front(x, dx, size), to_front(v, dv, size), *idx,
                    indexer=_sliced_after_batch(indexer), **params), 0
    return rule


def _update_kernel(name: str) -> Any:
    def kernel(xp: Any, *, indexer: Indexer, **params: Any) -> Any:
        """For jit: writes into ``out`` (``x``'s dead buffer) when given; a static
        index is built once."""
        if indexer.n_arrays:
            return lambda x, v, *idx, out=None: _write(xp, name, x, v, indexer.build(idx),
                                                       out)
        index = indexer.build(())
        return lambda x, v, out=None: _write(xp, name, x, v, index, out)
    return kernel


def _update_primitive(name: str) -> Primitive:
    prim = Primitive(name, lambda xp, x, v, *idx, indexer, **params: _write(
        xp, name, x, v, indexer.build(idx)), _update_aval)
    prim.batch = _update_batch(prim)
    prim.kernel = _update_kernel(name)
    prim.fresh_output = True
    return prim


def _scatter(x: Any, v: Any, idx: tuple, indexer: Indexer) -> Any:
    return bind(scatter_p, x, v, *idx, indexer=indexer)


def _mask(mask: Any, like: Any) -> Any:
    """A boolean mask as 0/1 in ``like``'s dtype."""
    return convert_element_type(mask, aval_of(like).dtype)


# ---------------------------------------------------------------- scatter (x[index] = v)
def _winners_impl(xp: Any, like: Any, *idx: Any, indexer: Indexer, shape: tuple) -> Any:
    """1 where an element of ``x[index]``'s shape is the value that lands at its
    place (the last written there), 0 where a later one overwrites it; in
    ``like``'s dtype and namespace."""
    index = indexer.build(tuple(host(i) for i in idx))
    ids = np.arange(int(np.prod(like.shape)), dtype=np.int64).reshape(like.shape)
    last = np.full(shape, -1, np.int64)
    last[index] = ids
    mask = (last[index] == ids).astype(numpy_dtype(like.dtype))
    return mask if xp.__name__ == "numpy" else xp.asarray(mask)


def _winners_batch(size: int, vals: list, dims: list, *, indexer: Indexer,
                   shape: tuple) -> tuple:
    """Batched index arrays: one mask per example; else one mask for all."""
    like, *idx = vals
    dl, *didx = dims
    if any(d is not None for d in didx):
        return loop_batch_rule(scatter_winners_p)(size, vals, dims, indexer=indexer,
                                                  shape=shape)
    return bind(scatter_winners_p, index_example(like, dl, 0), *idx, indexer=indexer,
                shape=shape), None


scatter_winners_p = Primitive("scatter_winners", _winners_impl,
                              lambda like, *idx, indexer, shape: like)
defnondiff(scatter_winners_p)
scatter_winners_p.batch = _winners_batch


def _scatter_transpose(ct: Any, x: Any, v: Any, *idx: Any, indexer: Indexer) -> list:
    ct_x = ct_v = None
    if is_undefined(x):  # the places written lose x's value
        zeros = bind(gather_p, zeros_like(ct), *idx, indexer=indexer)
        ct_x = _scatter(ct, zeros, idx, indexer)
    if is_undefined(v):  # each place's cotangent goes to the value that landed there
        ct_v = bind(gather_p, ct, *idx, indexer=indexer)
        if indexer.n_arrays:  # (basic indexing never writes a place twice)
            ct_v = bind(mul_p, ct_v, bind(scatter_winners_p, ct_v, *idx, indexer=indexer,
                                          shape=shape_of(ct)))
    return [ct_x, ct_v] + [None] * len(idx)


scatter_p = _update_primitive("scatter")
deflinear(scatter_p, _scatter_transpose, linear=(0, 1))


# ---------------------------------------------------------------- scatter_mul (np.multiply.at)
def _unique(x: Any, idx: tuple, indexer: Indexer, unique: bool) -> bool:
    """Whether no place is written twice: basic indexing, the caller's promise
    (``unique_indices=True``), or concrete index arrays that do not repeat."""
    if unique or not indexer.n_arrays:
        return True
    concrete = [concrete_or_none(i) for i in idx]
    if any(c is None for c in concrete):
        return False
    count = np.zeros(shape_of(x), np.int64)
    np.add.at(count, indexer.build(tuple(host(c) for c in concrete)), 1)
    return count.size == 0 or int(count.max()) <= 1


def _scatter_mul_jvp(primals: list, tangents: list, *, indexer: Indexer,
                     unique: bool = False) -> tuple:
    """out = x * P with P = ones.at[index].multiply(v): d out = dx * P + x * dP; with
    no repeated place dP = zeros.at[index].set(dv)."""
    x, v, *idx = primals
    dx, dv = tangents[:2]
    ans = bind(scatter_mul_p, x, v, *idx, indexer=indexer, unique=unique)
    t = None
    if dx is not None:
        ones = bind(scatter_mul_p, bind(add_p, zeros_like(x), 1), v, *idx,
                    indexer=indexer, unique=unique)
        t = bind(mul_p, dx, ones)
    if dv is not None:
        if not _unique(x, idx, indexer, unique):
            raise NotImplementedError(
                "the derivative of x.at[index].multiply(v) in v is only implemented when "
                "no index repeats: pass unique_indices=True if the indices are unique, or "
                "use concrete indices")
        term = bind(mul_p, x, _scatter(zeros_like(x), dv, idx, indexer))
        t = term if t is None else bind(add_p, t, term)
    return ans, t


scatter_mul_p = _update_primitive("scatter_mul")
scatter_mul_p.jvp = _scatter_mul_jvp


# ---------------------------------------------------------------- scatter_min / scatter_max
def _extremum_jvp(prim: Primitive) -> Any:
    """The tangent of the value that wins each place; ties share it equally among
    ``x`` and every tied value (JAX's rule): (w_x dx + scatter_add(w_v dv)) / n."""
    def jvp(primals: list, tangents: list, *, indexer: Indexer) -> tuple:
        x, v, *idx = primals
        dx, dv = tangents[:2]
        ans = bind(prim, x, v, *idx, indexer=indexer)
        if dx is None and dv is None:
            return ans, None
        w_x = _mask(bind(eq_p, x, ans), x)
        w_v = _mask(bind(eq_p, v, bind(gather_p, ans, *idx, indexer=indexer)), v)
        count = bind(add_at_p, w_x, w_v, *idx, indexer=indexer)
        dx = zeros_like(x) if dx is None else dx
        dv = zeros_like(v) if dv is None else dv
        t = bind(add_at_p, bind(mul_p, w_x, dx), bind(mul_p, w_v, dv), *idx, indexer=indexer)
        return ans, bind(div_p, t, count)
    return jvp


scatter_min_p = _update_primitive("scatter_min")
scatter_min_p.jvp = _extremum_jvp(scatter_min_p)
scatter_max_p = _update_primitive("scatter_max")
scatter_max_p.jvp = _extremum_jvp(scatter_max_p)
