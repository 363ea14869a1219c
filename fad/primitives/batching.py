"""Batching rules of the primitives (used by ``fad.vmap``).

A rule ``batch(size, vals, dims, **params) -> (out, out_dim)`` receives the
operands with their batch axis (``None`` = not batched). Most rules move the
batch axis to the front and shift the primitive's parameters by one; a few
generic rules cover whole families (all elementwise primitives share one).
"""

from __future__ import annotations

from typing import Any

from ..core.trace import bind, shape_of
from . import contractions as C
from . import elementwise as E
from . import indexing as I
from . import reductions as R
from . import structural as S
from .indexing import ARRAY, Indexer


# ---------------------------------------------------------------- helpers
def move_axis(x: Any, src: int | None, dst: int, size: int) -> Any:
    """Move axis ``src`` to ``dst``; an unbatched value (src None) is broadcast."""
    shape = shape_of(x)
    if src is None:
        x = S.broadcast_to(x, (size,) + tuple(shape))
        src = 0
        shape = (size,) + tuple(shape)
    nd = len(shape)
    dst = dst % nd
    if src == dst:
        return x
    perm = [i for i in range(nd) if i != src]
    perm.insert(dst, src)
    return S.transpose(x, tuple(perm))


def to_front(x: Any, d: int | None, size: int | None = None) -> Any:
    if d is None:
        return x if size is None else move_axis(x, None, 0, size)
    return move_axis(x, d, 0, 0)


def index_example(x: Any, d: int | None, i: int) -> Any:
    """Example ``i`` of a batched value."""
    if d is None:
        return x
    return I.gather(x, (slice(None),) * d + (i,))


def _logical_ndim(x: Any, d: int | None) -> int:
    return len(shape_of(x)) - (d is not None)


def _align(vals: list, dims: list, lead: int = 0) -> list:
    """Batch axis to the front and ranks padded so NumPy broadcasting lines up
    the logical axes (unbatched operands are left alone: they broadcast)."""
    rank = max(_logical_ndim(v, d) for v, d in zip(vals, dims))
    out = []
    for v, d in zip(vals, dims):
        if d is None:
            out.append(v)
            continue
        v = to_front(v, d)
        shape = shape_of(v)
        pad = rank - (len(shape) - 1)
        if pad:
            v = S.reshape(v, shape[:1] + (1,) * pad + shape[1:])
        out.append(v)
    return out


# ---------------------------------------------------------------- families
def elementwise_batch(prim: Any) -> Any:
    def rule(size: int, vals: list, dims: list, **params: Any) -> tuple:
        return bind(prim, *_align(vals, dims), **params), 0
    return rule


def _reduction_batch(prim: Any) -> Any:
    def rule(size: int, vals: list, dims: list, *, axes: tuple) -> tuple:
        (x,), (d,) = vals, dims
        return bind(prim, to_front(x, d), axes=tuple(a + 1 for a in axes)), 0
    return rule


def _arg_batch(prim: Any) -> Any:
    def rule(size: int, vals: list, dims: list, *, axis: int) -> tuple:
        (x,), (d,) = vals, dims
        return bind(prim, to_front(x, d), axis=axis + 1), 0
    return rule


def _unary_batch(prim: Any) -> Any:
    def rule(size: int, vals: list, dims: list, **params: Any) -> tuple:
        return bind(prim, *vals, **params), dims[0]
    return rule


for _p in [E.neg_p, E.sin_p, E.cos_p, E.tan_p, E.asin_p, E.acos_p, E.atan_p, E.sinh_p,
           E.cosh_p, E.tanh_p, E.exp_p, E.expm1_p, E.log_p, E.log1p_p, E.sqrt_p,
           E.abs_p, E.sign_p, E.floor_p, E.ceil_p, E.round_p, E.isnan_p, E.isfinite_p,
           E.logical_not_p, E.logistic_p, E.softplus_p, S.stop_gradient_p,
           S.optimization_barrier_p,
           S.zeros_like_p, S.convert_element_type_p]:
    _p.batch = _unary_batch(_p)
for _p in [E.add_p, E.sub_p, E.mul_p, E.div_p, E.pow_p, E.max_p, E.min_p, E.atan2_p,
           E.floor_divide_p, E.rem_p, E.eq_p, E.ne_p, E.lt_p, E.le_p, E.gt_p, E.ge_p,
           E.and_p, E.or_p, E.xor_p, E.select_p]:
    _p.batch = elementwise_batch(_p)
for _p in [R.reduce_sum_p, R.reduce_max_p, R.reduce_min_p, R.reduce_or_p, R.reduce_and_p]:
    _p.batch = _reduction_batch(_p)
S.eye_like_p.batch = lambda size, vals, dims, *, n: (S.eye_like(vals[0], n), None)
R.argmax_p.batch = _arg_batch(R.argmax_p)
R.argmin_p.batch = _arg_batch(R.argmin_p)


# ---------------------------------------------------------------- structural
def _reshape_batch(size: int, vals: list, dims: list, *, new_sizes: tuple) -> tuple:
    return S.reshape(to_front(vals[0], dims[0]), (size,) + tuple(new_sizes)), 0


def _transpose_batch(size: int, vals: list, dims: list, *, permutation: tuple) -> tuple:
    x = to_front(vals[0], dims[0])
    return S.transpose(x, (0,) + tuple(p + 1 for p in permutation)), 0


def _broadcast_batch(size: int, vals: list, dims: list, *, shape: tuple) -> tuple:
    (x,) = _align(vals, dims)
    xs = shape_of(x)
    x = S.reshape(x, xs[:1] + (1,) * (len(shape) - (len(xs) - 1)) + xs[1:])
    return S.broadcast_to(x, (size,) + tuple(shape)), 0


def _concat_batch(size: int, vals: list, dims: list, *, axis: int) -> tuple:
    xs = [to_front(v, d, size) for v, d in zip(vals, dims)]
    return bind(S.concatenate_p, *xs, axis=axis + 1), 0


S.reshape_p.batch = _reshape_batch
S.transpose_p.batch = _transpose_batch
S.broadcast_to_p.batch = _broadcast_batch
S.concatenate_p.batch = _concat_batch


# ---------------------------------------------------------------- products
def _matmul_batch(size: int, vals: list, dims: list) -> tuple:
    a, b = vals
    da, db = dims
    if da is not None and _logical_ndim(a, da) < 2 or db is not None and \
            _logical_ndim(b, db) < 2:
        raise ValueError("matmul operands must be at least 2-d")
    if da is not None and db is None and _logical_ndim(a, da) == 2 and len(shape_of(b)) == 2:
        # a batch of matrices times one matrix: fold the batch into the rows
        a = to_front(a, da)
        n, m, k = shape_of(a)
        out = bind(C.matmul_p, S.reshape(a, (n * m, k)), b)
        return S.reshape(out, (n, m, shape_of(b)[1])), 0
    if db is not None and da is None and _logical_ndim(b, db) == 2 and len(shape_of(a)) == 2:
        # one matrix times a batch of matrices: fold the batch into the columns
        b = move_axis(b, db, 1, size)  # (k, batch, n)
        k, n, c = shape_of(b)
        out = bind(C.matmul_p, a, S.reshape(b, (k, n * c)))
        return S.reshape(out, (shape_of(a)[0], n, c)), 1
    return bind(C.matmul_p, *_align([a, b], [da, db])), 0


def _einsum_batch(size: int, vals: list, dims: list, *, spec: str) -> tuple:
    in_specs, out = C.parse_spec(spec, len(vals))
    used = set(spec)
    letter = next(c for c in "ZYXWVUTSRQPONMLKJIHGFEDCBAzyxwvutsrqponmlkjihgfedcba"
                  if c not in used)
    ops, specs = [], []
    for v, d, s in zip(vals, dims, in_specs):
        if d is None:
            ops.append(v)
            specs.append(s)
        else:
            ops.append(to_front(v, d))
            specs.append(letter + s)
    return bind(C.einsum_p, *ops, spec=",".join(specs) + "->" + letter + out), 0


C.matmul_p.batch = _matmul_batch
C.einsum_p.batch = _einsum_batch


# ---------------------------------------------------------------- indexing
def _adjacent_arrays(items: tuple) -> bool:
    pos = [k for k, i in enumerate(items) if i is ARRAY or isinstance(i, int)]
    return not pos or pos == list(range(pos[0], pos[-1] + 1))


def _gather_batch(size: int, vals: list, dims: list, *, indexer: Indexer) -> tuple:
    x, *idx = vals
    dx, *didx = dims
    items = indexer.items
    n_adv = sum(1 for i in items if i is ARRAY)
    if any(d is not None for d in didx) or not _adjacent_arrays(items) and n_adv:
        from ..interpreters.batching import loop_batch_rule
        return loop_batch_rule(I.gather_p)(size, vals, dims, indexer=indexer)
    new = Indexer((slice(None),) + tuple(i if not isinstance(i, tuple) else slice(*i[1:])
                                         for i in items))
    return bind(I.gather_p, to_front(x, dx, size), *idx, indexer=new), 0


I.gather_p.batch = _gather_batch


def _scatter_add_batch(size: int, vals: list, dims: list, *, indexer: Indexer,
                       shape: tuple) -> tuple:
    v, *idx = vals
    dv, *didx = dims
    items = indexer.items
    n_adv = sum(1 for i in items if i is ARRAY)
    if any(d is not None for d in didx) or n_adv and not _adjacent_arrays(items):
        from ..interpreters.batching import loop_batch_rule
        return loop_batch_rule(I.scatter_add_p)(size, vals, dims, indexer=indexer,
                                                shape=shape)
    new = Indexer((slice(None),) + tuple(i if not isinstance(i, tuple) else slice(*i[1:])
                                         for i in items))
    return bind(I.scatter_add_p, to_front(v, dv, size), *idx, indexer=new,
                shape=(size,) + tuple(shape)), 0


I.scatter_add_p.batch = _scatter_add_batch


def _add_at_batch(size: int, vals: list, dims: list, *, indexer: Indexer,
                  sign: int = 1) -> tuple:
    """x ± scatter_add(v): the two rules above, composed."""
    x, v, *idx = vals
    dx, dv, *didx = dims
    shape = tuple(s for i, s in enumerate(shape_of(x)) if i != dx)  # x's logical shape
    scattered, ds = _scatter_add_batch(size, [v, *idx], [dv, *didx], indexer=indexer,
                                       shape=shape)
    return elementwise_batch(E.add_p if sign > 0 else E.sub_p)(size, [x, scattered], [dx, ds])


I.add_at_p.batch = _add_at_batch
