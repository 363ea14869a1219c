"""Algebraic identities of primitives, used by ``fad.jit``'s optimiser.

Each rule receives an equation and a map from variables to the equations that
produced them, and returns a replacement atom, a rewritten equation (or a short
list of equations ending in one that defines the same output), or ``None``.
Every identity keeps the output's shape and dtype.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..core.ir import Eqn, Literal, ShapedArray, Var
from . import contractions as C
from . import elementwise as E
from . import indexing as I
from . import reductions as R
from . import structural as S


def known_scalar(atom: Any, producers: dict) -> Any:
    """The scalar an atom holds in every element, when the IR says so."""
    if type(atom) is Literal:
        return atom.val
    eqn = producers.get(atom)
    if eqn is not None and eqn.primitive is S.broadcast_to_p \
            and type(eqn.invars[0]) is Literal:
        return eqn.invars[0].val
    return None


def _equals(value: Any, target: float) -> bool:
    try:
        return value is not None and bool(np.all(np.asarray(value) == target))
    except (TypeError, ValueError):
        return False


def _same_type(a: Any, out: Var) -> bool:
    return a.aval.shape == out.aval.shape and a.aval.dtype == out.aval.dtype


def _unit(value: float, sides: tuple[int, ...]):
    """``op(x, unit) = x`` (and ``op(unit, x) = x`` when side 0 is listed)."""
    def rule(eqn: Eqn, producers: dict) -> Any:
        out = eqn.outvars[0]
        for side in sides:
            other = eqn.invars[1 - side]
            if _equals(known_scalar(eqn.invars[side], producers), value) \
                    and _same_type(other, out):
                return other
        return None
    return rule


def _involution(eqn: Eqn, producers: dict) -> Any:
    """``f(f(x)) = x``."""
    inner = producers.get(eqn.invars[0])
    if inner is not None and inner.primitive is eqn.primitive:
        return inner.invars[0]
    return None


def _no_op(eqn: Eqn, producers: dict) -> Any:
    """Converting, reshaping or broadcasting to the input's own type."""
    x = eqn.invars[0]
    if type(x) is Var and _same_type(x, eqn.outvars[0]):
        return x
    inner = producers.get(x)
    if inner is not None and inner.primitive is eqn.primitive is S.reshape_p:
        x = inner.invars[0]  # reshape(reshape(x)) = reshape(x)
        return x if type(x) is Var and _same_type(x, eqn.outvars[0]) else \
            eqn._replace(invars=[x])
    return None


def _transposes(eqn: Eqn, producers: dict) -> Any:
    """transpose(transpose(x, p1), p2) = transpose(x, p1 o p2); a transpose moving
    only length-1 axes is a reshape."""
    shape = eqn.invars[0].aval.shape
    moved = [p for p in eqn.params["permutation"] if shape[p] != 1]
    if moved == sorted(moved):
        as_reshape = eqn._replace(primitive=S.reshape_p,
                                  params={"new_sizes": eqn.outvars[0].aval.shape})
        return _no_op(as_reshape, producers) or as_reshape  # reshape(reshape(x))...
    inner = producers.get(eqn.invars[0])
    if inner is None or inner.primitive is not S.transpose_p:
        return None
    p1, p2 = inner.params["permutation"], eqn.params["permutation"]
    perm = tuple(p1[i] for i in p2)
    if perm == tuple(range(len(perm))):
        return inner.invars[0]
    return eqn._replace(invars=[inner.invars[0]], params={"permutation": perm})


def _unit_axes_round_trip(eqn: Eqn, producers: dict) -> Any:
    """``reshape(transpose(reshape(x)))`` where the reshapes only add and drop
    length-1 axes (what ``vmap`` leaves around a batched matmul) is a transpose
    of ``x``, or ``x`` itself."""
    t = producers.get(eqn.invars[0])
    r = producers.get(t.invars[0]) if t is not None and t.primitive is S.transpose_p else None
    if r is None or r.primitive is not S.reshape_p or type(r.invars[0]) is not Var:
        return None
    x = r.invars[0]
    shape = x.aval.shape
    unit_free = lambda s: tuple(d for d in s if d != 1)  # noqa: E731
    if 1 in shape or unit_free(r.outvars[0].aval.shape) != shape or \
            eqn.outvars[0].aval.shape != unit_free(t.outvars[0].aval.shape):
        return None
    axis_of = {}  # axis of r's output -> axis of x
    for k, d in enumerate(r.outvars[0].aval.shape):
        if d != 1:
            axis_of[k] = len(axis_of)
    perm = tuple(axis_of[p] for p in t.params["permutation"] if p in axis_of)
    if perm == tuple(range(len(perm))):
        return x
    return eqn._replace(primitive=S.transpose_p, invars=[x], params={"permutation": perm})


_ONE = "identity"


def _diagonal(atom: Any, producers: dict) -> Any:
    """``_ONE`` when ``atom`` is an identity matrix, ``s`` when it is the identity
    times ``s`` (``s`` of shape ``(n,)``, ``(1, n)``, ``(n, 1)`` or ``()``: all
    give the diagonal matrix of ``s``), else ``None``."""
    eqn = producers.get(atom)
    if eqn is None:
        return None
    if eqn.primitive is S.eye_like_p:
        return _ONE
    if eqn.primitive is S.transpose_p and eqn.params["permutation"] == (1, 0):
        return _diagonal(eqn.invars[0], producers)  # a diagonal matrix is symmetric
    if eqn.primitive is E.mul_p:
        n = atom.aval.shape[0]
        for k in (0, 1):
            s = eqn.invars[1 - k]
            if s.aval.shape in ((), (n,), (1, n), (n, 1)) and \
                    _diagonal(eqn.invars[k], producers) is _ONE:
                return s
    return None


def _matmul_by_diagonal(eqn: Eqn, producers: dict) -> Any:
    """``x @ diag(s) = x * s`` and ``diag(s) @ x = s[:, None] * x``: no O(n^3)
    product with the one-hot basis of ``jacrev`` / ``jacfwd``."""
    out = eqn.outvars[0]
    for k in (1, 0):
        d, x = eqn.invars[k], eqn.invars[1 - k]
        if d.aval.ndim != 2 or x.aval.dtype != out.aval.dtype:
            continue
        s = _diagonal(d, producers)
        if s is None:
            continue
        if s is _ONE:
            return x if x.aval == out.aval else None
        n = d.aval.shape[0]
        lined = (n,) if k == 1 or x.aval.ndim == 1 else (n, 1)  # s along x's axis
        eqns = []
        if s.aval.shape not in ((), lined):
            s_lined = Var(ShapedArray(lined, s.aval.dtype))
            eqns.append(Eqn(S.reshape_p, [s], {"new_sizes": lined}, [s_lined]))
            s = s_lined
        if s.aval.dtype != out.aval.dtype:
            return None
        eqns.append(Eqn(E.mul_p, [x, s], {}, [out]))
        return eqns if shapes_match(x, s, out) else None
    return None


def _outer_product(eqn: Eqn, producers: dict) -> Any:
    """A matmul with inner dimension 1 is a broadcast multiply:
    ``a[..., m, 1] @ b[..., 1, n] = a * b``."""
    a, b = eqn.invars
    if a.aval.shape[-1] == 1 and shapes_match(a, b, eqn.outvars[0]):
        return eqn._replace(primitive=E.mul_p)
    return None


def _dropped_unit_axes(shape: tuple, new: tuple) -> tuple[int, ...] | None:
    """The axes of ``shape`` a reshape to ``new`` removes, when all it does is
    remove length-1 axes; else ``None``."""
    dropped, k = [], 0
    for axis, d in enumerate(shape):
        if k < len(new) and new[k] == d and (d != 1 or
                                             len(shape) - axis <= len(new) - k):
            k += 1
        elif d == 1:
            dropped.append(axis)
        else:
            return None
    return tuple(dropped) if k == len(new) and dropped else None


def _reshaped(atom: Any, shape: tuple, producers: dict) -> tuple[Any, list]:
    """``atom`` reshaped to ``shape``: itself, its reshape's input, or a new
    reshape equation."""
    inner = producers.get(atom)
    if inner is not None and inner.primitive is S.reshape_p:
        atom = inner.invars[0]  # reshape(reshape(x)) = reshape(x)
    if atom.aval.shape == shape:
        return atom, []
    out = Var(ShapedArray(shape, atom.aval.dtype))
    return out, [Eqn(S.reshape_p, [atom], {"new_sizes": shape}, [out])]


_SQUEEZABLE = (E.mul_p, E.add_p, E.sub_p, E.div_p)


def _single_use(atom: Any, producers: dict) -> bool:
    """Whether the simplifier counted exactly one reader of ``atom``."""
    return producers.uses.get(atom) == 1


def _squeeze_an_elementwise(eqn: Eqn, producers: dict) -> Any:
    """Dropping length-1 axes after a broadcasting op is dropping them from its
    operands first: ``op(x, y).reshape(s) = op(x.reshape(sx), y.reshape(sy))``,
    when the reshape is the op's only reader. What ``vmap`` leaves around an
    outer product becomes a plain 2-D multiply."""
    z = eqn.invars[0]
    p = producers.get(z)
    if p is None or p.primitive not in _SQUEEZABLE or not _single_use(z, producers):
        return None
    shape = z.aval.shape
    dropped = _dropped_unit_axes(shape, eqn.outvars[0].aval.shape)
    if dropped is None:
        return None
    eqns, operands = [], []
    for x in p.invars:
        lead = len(shape) - x.aval.ndim  # x's axis j is the output's axis lead + j
        new = tuple(d for j, d in enumerate(x.aval.shape) if lead + j not in dropped)
        x, reshape_eqns = _reshaped(x, new, producers) if type(x) is Var else (x, [])
        eqns += reshape_eqns
        operands.append(x)
    return eqns + [p._replace(invars=operands, outvars=eqn.outvars)]


def shapes_match(x: Any, s: Any, out: Var) -> bool:
    return np.broadcast_shapes(x.aval.shape, s.aval.shape) == out.aval.shape


def _chain(*rules):
    def rule(eqn: Eqn, producers: dict) -> Any:
        for r in rules:
            out = r(eqn, producers)
            if out is not None:
                return out
        return None
    return rule


def _scalar_operands(eqn: Eqn, producers: dict) -> Any:
    """``op(broadcast(c), y) = op(c, y)`` when ``y`` already has the output's shape
    (NumPy broadcasts the scalar for free); both scalar: compute it once."""
    out = eqn.outvars[0]
    vals = [known_scalar(a, producers) for a in eqn.invars]
    if all(v is not None for v in vals):
        value = eqn.primitive.impl(*[np.asarray(v, a.aval.dtype)
                                     for v, a in zip(vals, eqn.invars)])
        lit = Literal(np.asarray(value)[()], ShapedArray((), out.aval.dtype))
        if out.aval.shape == ():
            return lit
        return [Eqn(S.broadcast_to_p, [lit], {"shape": out.aval.shape}, [out])]
    changed = False
    invars = list(eqn.invars)
    for k, (a, v) in enumerate(zip(eqn.invars, vals)):
        other = eqn.invars[1 - k]
        if v is not None and type(a) is Var and other.aval.shape == out.aval.shape:
            invars[k] = Literal(np.asarray(v, a.aval.dtype)[()], ShapedArray((), a.aval.dtype))
            changed = True
    return eqn._replace(invars=invars) if changed else None


def _add_of_neg(eqn: Eqn, producers: dict) -> Any:
    """``x + (-y) = x - y`` (``-y`` also as ``-1 * y``)."""
    x, y = eqn.invars
    for a, b in ((x, y), (y, x)):
        inner = _scale_of(b, producers)
        if inner is not None and _equals(inner[0], -1) and type(a) is Var and \
                _same_type(a, eqn.outvars[0]) and _same_type(inner[1], eqn.outvars[0]):
            return eqn._replace(primitive=E.sub_p, invars=[a, inner[1]])
    return None


def _add_of_scatters(eqn: Eqn, producers: dict) -> Any:
    """``scatter(a, i) + scatter(b, i) = scatter(a + b, i)`` (scatter is linear)."""
    px, py = (producers.get(a) for a in eqn.invars)
    if px is None or py is None or px.primitive is not I.scatter_add_p or \
            py.primitive is not I.scatter_add_p or px.params != py.params or \
            len(px.invars) != 1 or len(py.invars) != 1 or \
            px.invars[0].aval != py.invars[0].aval:
        return None
    total = Var(px.invars[0].aval)
    return [Eqn(E.add_p, [px.invars[0], py.invars[0]], {}, [total]),
            eqn._replace(primitive=I.scatter_add_p, invars=[total], params=px.params)]


def _plus_a_scatter(sign: int, positions: tuple) -> Callable:
    """``x ± scatter(v, i) = add_at(x, ±v, i)``: ``v`` is added into (or subtracted
    from) ``x``'s buffer, in place when ``x`` is dead, instead of into a fresh array
    of zeros. Static indices only (a slice-add; NumPy's ``add.at`` for index arrays
    is slow). ``positions``: where the scatter may stand."""
    def rule(eqn: Eqn, producers: dict) -> Any:
        out = eqn.outvars[0]
        for k in positions:
            p, x = producers.get(eqn.invars[k]), eqn.invars[1 - k]
            if p is not None and p.primitive is I.scatter_add_p and len(p.invars) == 1 \
                    and type(x) is Var and _same_type(x, out) \
                    and _same_type(eqn.invars[k], out) and p.invars[0].aval.dtype == out.aval.dtype:
                return eqn._replace(primitive=I.add_at_p, invars=[x, *p.invars],
                                    params={"indexer": p.params["indexer"], "sign": sign})
        return None
    return rule


def _product_with_a_scale(atom: Any, producers: dict) -> tuple[Any, Any, Any] | None:
    """``(c, x, y)`` when ``atom`` is ``(c * x) * y``, read only once, and its
    scaled factor ``c * x`` likewise; else None."""
    eqn = producers.get(atom)
    if eqn is None or eqn.primitive is not E.mul_p or not _single_use(atom, producers):
        return None
    for k in (0, 1):
        factor, other = eqn.invars[k], eqn.invars[1 - k]
        scaled = _scale_of(factor, producers) if _single_use(factor, producers) else None
        if scaled is not None and type(other) is Var and \
                scaled[1].aval.shape == factor.aval.shape:
            return scaled[0], scaled[1], other
    return None


def _add_of_scaled_products(eqn: Eqn, producers: dict) -> Any:
    """``(c x) y + (c z) w = c (x y + z w)``: one multiplication fewer (what the
    product rule leaves in second derivatives, e.g. a Hessian-vector product)."""
    left, right = (_product_with_a_scale(a, producers) for a in eqn.invars)
    out = eqn.outvars[0]
    if left is None or right is None or not _equals(left[0], right[0]):
        return None
    eqns, terms = [], []
    for _, x, y in (left, right):
        shape = np.broadcast_shapes(x.aval.shape, y.aval.shape)
        if x.aval.dtype != out.aval.dtype or y.aval.dtype != out.aval.dtype:
            return None
        term = Var(ShapedArray(shape, out.aval.dtype))
        eqns.append(Eqn(E.mul_p, [x, y], {}, [term]))
        terms.append(term)
    if np.broadcast_shapes(*(t.aval.shape for t in terms)) != out.aval.shape:
        return None
    total = Var(out.aval)
    c = left[0]
    lit = Literal(np.asarray(c, out.aval.dtype)[()], ShapedArray((), out.aval.dtype))
    return eqns + [Eqn(E.add_p, terms, {}, [total]), Eqn(E.mul_p, [lit, total], {}, [out])]


def _scale_of(atom: Any, producers: dict) -> tuple[Any, Any] | None:
    """``(c, x)`` when ``atom`` is ``c * x`` with a literal ``c`` (``-x``: c = -1)."""
    eqn = producers.get(atom)
    if eqn is None:
        return None
    if eqn.primitive is E.neg_p:
        return -1, eqn.invars[0]
    if eqn.primitive is E.mul_p:
        for k in (0, 1):
            if type(eqn.invars[k]) is Literal and \
                    _same_type(eqn.invars[1 - k], eqn.outvars[0]):
                return eqn.invars[k].val, eqn.invars[1 - k]
    return None


def _merge_scales(eqn: Eqn, producers: dict) -> Any:
    """``c1 * (c2 * x) = (c1 c2) * x`` and ``c * (-x) = (-c) * x``."""
    for k in (0, 1):
        lit, other = eqn.invars[k], eqn.invars[1 - k]
        if type(lit) is Literal:
            inner = _scale_of(other, producers)
            if inner is not None and _same_type(inner[1], eqn.outvars[0]):
                c = np.asarray(lit.val * inner[0], lit.aval.dtype)[()]
                return eqn._replace(invars=[Literal(c, lit.aval), inner[1]])
    return None


def _neg_of_scale(eqn: Eqn, producers: dict) -> Any:
    """``-(c * x) = (-c) * x`` when ``c * x`` has no other reader (otherwise the
    negation may still fold into an addition, see ``_negated_twin``)."""
    inner = _scale_of(eqn.invars[0], producers)
    if inner is not None and inner[0] != -1 and _single_use(eqn.invars[0], producers):
        out = eqn.outvars[0]
        c = np.asarray(-inner[0], out.aval.dtype)[()]
        return eqn._replace(primitive=E.mul_p,
                            invars=[Literal(c, ShapedArray((), out.aval.dtype)), inner[1]])
    return None


def _negated_twin(eqn: Eqn, producers: dict) -> Any:
    """``c * x = -((-c) * x)`` when ``(-c) * x`` is computed already: a negation
    costs the same pass as the scaling, and an addition or a product can absorb it
    (``_add_of_neg``, ``_product_of_a_neg``). Gradients scale one value by ``2``
    and ``-2`` (``d(b - a**2)``)."""
    for k in (0, 1):
        lit, x = eqn.invars[k], eqn.invars[1 - k]
        if type(lit) is not Literal or type(x) is not Var or lit.val == 0 or \
                lit.aval.dtype.kind == "b":  # (booleans have no negation)
            continue
        for twin in producers.readers.get(x, ()):
            scale = _scale_of(twin.outvars[0], producers)
            if twin.primitive is E.mul_p and scale is not None and scale[1] is x and \
                    scale[0] == -lit.val and _same_type(twin.outvars[0], eqn.outvars[0]):
                return eqn._replace(primitive=E.neg_p, invars=[twin.outvars[0]])
    return None


def _product_of_a_neg(eqn: Eqn, producers: dict) -> Any:
    """``x * (-y) = -(x * y)`` when ``-y`` has no other reader: the negation moves
    outwards, towards an addition that absorbs it."""
    for k in (0, 1):
        neg = producers.get(eqn.invars[k])
        other = eqn.invars[1 - k]
        if neg is not None and neg.primitive is E.neg_p and type(other) is Var and \
                _single_use(eqn.invars[k], producers) and \
                _same_type(neg.invars[0], eqn.outvars[0]):
            product = Var(eqn.outvars[0].aval)
            return [eqn._replace(invars=[other, neg.invars[0]], outvars=[product]),
                    Eqn(E.neg_p, [product], {}, eqn.outvars)]
    return None


def _square(eqn: Eqn, producers: dict) -> Any:
    """``x ** 2 = x * x``."""
    x, y = eqn.invars
    if _equals(known_scalar(y, producers), 2) and _same_type(x, eqn.outvars[0]):
        return eqn._replace(primitive=E.mul_p, invars=[x, x])
    return None


def _sum_of_broadcast(eqn: Eqn, producers: dict) -> Any:
    """Summing a broadcast scalar: ``sum(broadcast(c), axes) = c * n``."""
    inner = producers.get(eqn.invars[0])
    if inner is None or inner.primitive is not S.broadcast_to_p or \
            inner.invars[0].aval.shape != ():
        return None
    c = inner.invars[0]
    n = int(np.prod([inner.params["shape"][a] for a in eqn.params["axes"]]))
    out = eqn.outvars[0]
    scaled = Var(ShapedArray((), out.aval.dtype)) if out.aval.shape else out
    eqns = [Eqn(E.mul_p, [c, Literal(np.asarray(n, out.aval.dtype)[()],
                                     ShapedArray((), out.aval.dtype))], {}, [scaled])]
    if out.aval.shape:
        eqns.append(Eqn(S.broadcast_to_p, [scaled], {"shape": out.aval.shape}, [out]))
    return eqns


E.mul_p.simplify = _chain(_unit(1, (0, 1)), _scalar_operands, _merge_scales, _negated_twin,
                          _product_of_a_neg)
E.add_p.simplify = _chain(_unit(0, (0, 1)), _scalar_operands, _add_of_neg, _add_of_scatters,
                          _plus_a_scatter(1, (1, 0)), _add_of_scaled_products)
E.sub_p.simplify = _chain(_unit(0, (1,)), _scalar_operands, _plus_a_scatter(-1, (1,)))
E.div_p.simplify = _chain(_unit(1, (1,)), _scalar_operands)
E.pow_p.simplify = _chain(_square, _scalar_operands)
E.neg_p.simplify = _chain(_involution, _neg_of_scale)
S.convert_element_type_p.simplify = _no_op
S.broadcast_to_p.simplify = _no_op
S.reshape_p.simplify = _chain(_no_op, _unit_axes_round_trip, _squeeze_an_elementwise)
S.transpose_p.simplify = _transposes
R.reduce_sum_p.simplify = _sum_of_broadcast
C.matmul_p.simplify = _chain(_matmul_by_diagonal, _outer_product)
