"""Bilinear and multilinear primitives: ``matmul`` and ``einsum``.

Each is linear in every operand separately, so the jvp is a sum of one term per
tangent and the transpose with respect to operand ``i`` contracts the cotangent
with the other operands.
"""

from __future__ import annotations

from typing import Any

from ..backends import backend_for, default_xp, namespace_of
from ..core.errors import ShapeError
from ..core.ir import ShapedArray
from ..core.linear import is_undefined
from ..core.primitive import Primitive
from ..core.trace import aval_of, bind, concrete_or_none, shape_of
from . import shapes
from .builders import align, defmultilinear, logical_ndim, move_axis, to_front, unbroadcast
from .structural import broadcast_to, reshape, transpose


# ------------------------------------------------------------------ matmul
def _matmul_aval(a: ShapedArray, b: ShapedArray) -> ShapedArray:
    if a.ndim < 2 or b.ndim < 2 or a.shape[-1] != b.shape[-2]:
        raise ShapeError(f"matmul: shapes {a.shape} and {b.shape} are not aligned "
                         f"(inner dimensions {a.shape[-1:]} and {b.shape[-2:-1]})")
    if a.dtype != b.dtype:
        raise ShapeError(f"matmul of different dtypes {a.dtype} and {b.dtype}")
    batch = shapes.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return ShapedArray(batch + (a.shape[-2], b.shape[-1]), a.dtype)


def _matmul_impl(xp: Any, a: Any, b: Any) -> Any:
    if a.shape[-1] == 1 and a.ndim > 2:  # outer products: a broadcast multiply is
        return a * b                     # exact and avoids a loop of tiny matmuls
    return xp.matmul(a, b)


matmul_p = Primitive("matmul", _matmul_impl, _matmul_aval)
defmultilinear(matmul_p)


def _mT(x: Any) -> Any:
    n = aval_of(x).ndim
    return transpose(x, tuple(range(n - 2)) + (n - 1, n - 2))


def _matmul_transpose(ct: Any, a: Any, b: Any) -> list:
    if is_undefined(a) and is_undefined(b):
        raise ValueError("matmul of two tangents is not linear")
    if is_undefined(a):
        return [unbroadcast(matmul(ct, _mT(b)), a.aval.shape), None]
    return [None, unbroadcast(matmul(_mT(a), ct), b.aval.shape)]


matmul_p.transpose = _matmul_transpose


def _matmul_batch(size: int, vals: list, dims: list) -> tuple:
    a, b = vals
    da, db = dims
    if da is not None and logical_ndim(a, da) < 2 or db is not None and \
            logical_ndim(b, db) < 2:
        raise ValueError("matmul operands must be at least 2-d")
    if da is not None and db is None and logical_ndim(a, da) == 2 and len(shape_of(b)) == 2:
        # a batch of matrices times one matrix: fold the batch into the rows
        a = to_front(a, da)
        n, m, k = shape_of(a)
        out = bind(matmul_p, reshape(a, (n * m, k)), b)
        return reshape(out, (n, m, shape_of(b)[1])), 0
    if db is not None and da is None and logical_ndim(b, db) == 2 and len(shape_of(a)) == 2:
        # one matrix times a batch of matrices: fold the batch into the columns
        b = move_axis(b, db, 1, size)  # (k, batch, n)
        k, n, c = shape_of(b)
        out = bind(matmul_p, a, reshape(b, (k, n * c)))
        return reshape(out, (shape_of(a)[0], n, c)), 1
    return bind(matmul_p, *align([a, b], [da, db])), 0


matmul_p.batch = _matmul_batch


def matmul(a: Any, b: Any) -> Any:
    return bind(matmul_p, a, b)


# ------------------------------------------------------------------ einsum
def parse_spec(spec: str, n: int) -> tuple[list[str], str]:
    spec = spec.replace(" ", "")
    if "..." in spec:
        raise NotImplementedError("einsum with '...' is not supported yet")
    ins, _, out = spec.partition("->")
    in_specs = ins.split(",")
    if len(in_specs) != n:
        raise ShapeError(f"einsum spec {spec!r} names {len(in_specs)} operands, got {n}")
    if not _:
        counts = {c: ins.count(c) for c in set(ins.replace(",", ""))}
        out = "".join(sorted(c for c, k in counts.items() if k == 1))
    return in_specs, out


def _einsum_aval(*ops: ShapedArray, spec: str) -> ShapedArray:
    in_specs, out = parse_spec(spec, len(ops))
    sizes: dict[str, int] = {}
    for s, op in zip(in_specs, ops):
        if len(s) != op.ndim:
            raise ShapeError(f"einsum: operand of shape {op.shape} does not match {s!r}")
        for c, n in zip(s, op.shape):
            if sizes.setdefault(c, n) != n and n != 1 and sizes[c] != 1:
                raise ShapeError(f"einsum: index {c!r} has sizes {sizes[c]} and {n}")
            sizes[c] = max(sizes[c], n)
    if any(o.dtype != ops[0].dtype for o in ops):
        raise ShapeError("einsum operands of different dtypes (promote first)")
    return ShapedArray(tuple(sizes[c] for c in out), ops[0].dtype)


einsum_p = Primitive(
    "einsum", lambda xp, *ops, spec: backend_for(xp).einsum(spec, *ops), _einsum_aval)

defmultilinear(einsum_p)


def _einsum_transpose(ct: Any, *ops: Any, spec: str) -> list:
    in_specs, out = parse_spec(spec, len(ops))
    (i,) = [k for k, o in enumerate(ops) if is_undefined(o)]
    target = in_specs[i]
    uniq = "".join(dict.fromkeys(target))  # a repeated index ("ii") counts once here
    others = [(s, o) for k, (s, o) in enumerate(zip(in_specs, ops)) if k != i]
    available = set(out).union(*[set(s) for s, _ in others])
    kept = "".join(c for c in uniq if c in available)
    new_spec = ",".join([out] + [s for s, _ in others]) + "->" + kept
    res = bind(einsum_p, ct, *[o for _, o in others], spec=new_spec)
    shape = ops[i].aval.shape
    size = dict(zip(target, shape))
    if kept != uniq:  # indices only this operand had were summed: broadcast back
        res = broadcast_to(reshape(res, tuple(size[c] if c in available else 1
                                              for c in uniq)), tuple(size[c] for c in uniq))
    if uniq != target:  # the cotangent of a diagonal ("ii") lives on the diagonal
        res = _embed_diagonals(res, uniq, target, spec)
    return [unbroadcast(res, shape) if k == i else None for k in range(len(ops))]


def _embed_diagonals(res: Any, uniq: str, target: str, spec: str) -> Any:
    """``res`` indexed by ``uniq`` -> indexed by ``target`` (repeats on diagonals):
    one identity matrix per repeated occurrence, e.g. ``i,ij->ij`` for ``ii``."""
    fresh = iter(sorted(set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
                        - set(spec)))
    size = dict(zip(uniq, aval_of(res).shape))
    seen: set = set()
    letters, eye_specs, eyes = [], [], []
    for c in target:
        if c in seen:
            d = next(fresh)
            letters.append(d)
            eye_specs.append(c + d)
            eyes.append(_eye(size[c], res))
        else:
            seen.add(c)
            letters.append(c)
    return bind(einsum_p, res, *eyes,
                spec=",".join([uniq] + eye_specs) + "->" + "".join(letters))


def _eye(n: int, like: Any) -> Any:
    c = concrete_or_none(like)
    xp = namespace_of([c]) if c is not None else default_xp()
    return xp.eye(n, dtype=getattr(xp, aval_of(like).dtype.name))


einsum_p.transpose = _einsum_transpose


def _einsum_batch(size: int, vals: list, dims: list, *, spec: str) -> tuple:
    in_specs, out = parse_spec(spec, len(vals))
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
    return bind(einsum_p, *ops, spec=",".join(specs) + "->" + letter + out), 0


einsum_p.batch = _einsum_batch
