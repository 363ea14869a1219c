"""Builders for the derivative rules of primitives, so each rule is one line.

* ``defjvp(prim, *partials)``: one entry per operand, ``partial(g, ans, *args)``
  returns the output tangent contributed by tangent ``g`` of that operand
  (``None`` for a non-differentiable operand). The contributions are summed.
* ``deflinear(prim, transpose, linear=...)``: ``prim`` is linear in the listed
  operands, so its jvp is ``prim`` itself applied to the tangents.
* ``defmultilinear(prim)``: linear in each operand separately (products).
* ``defnondiff(prim)``: the output carries no tangent (integer/bool results).

Rules are written in fad's operations, so they are themselves traceable and
differentiable: higher derivatives come for free.
"""

from __future__ import annotations

from typing import Any, Callable

from ..core.primitive import Primitive
from ..core.trace import aval_of, bind, shape_of


def defjvp(prim: Primitive, *partials: Callable | None, elementwise: bool = True) -> None:
    """Per-operand partials. ``elementwise=True`` declares that each partial is a
    diagonal linear map of ``g`` (true of every elementwise primitive), so that
    reverse mode may apply the same partial to a cotangent."""
    def jvp(primals: list, tangents: list, **params: Any) -> tuple[Any, Any]:
        ans = bind(prim, *primals, **params)
        out_t = None
        for partial, g in zip(partials, tangents):
            if g is not None and partial is not None:
                if partial is negated and out_t is not None:
                    out_t = out_t - g  # one subtraction, not a negation and an add
                    continue
                contribution = partial(g, ans, *primals, **params)
                out_t = contribution if out_t is None else out_t + contribution
        if out_t is not None and (out_t.shape != ans.shape or out_t.dtype != ans.dtype):
            out_t = match_shape(out_t, ans)
        return ans, out_t
    prim.jvp = jvp
    prim.partials = partials if elementwise else None


def negated(g: Any, ans: Any, *primals: Any, **params: Any) -> Any:
    """The partial ``-g`` (of ``x - y`` in ``y``), which ``defjvp`` folds into a
    subtraction when another operand's contribution comes first."""
    return -g


def deflinear(prim: Primitive, transpose: Callable, linear: tuple[int, ...] = (0,)) -> None:
    """``prim`` is linear in the operands ``linear``; the others are constants."""
    def jvp(primals: list, tangents: list, **params: Any) -> tuple[Any, Any]:
        ans = bind(prim, *primals, **params)
        if all(tangents[i] is None for i in linear):
            return ans, None
        args = list(primals)
        for i in linear:
            g = tangents[i]
            args[i] = g if g is not None else zeros_like(primals[i])
        return ans, bind(prim, *args, **params)
    prim.jvp = jvp
    prim.transpose = transpose
    prim.linear_in = tuple(linear)


def defmultilinear(prim: Primitive) -> None:
    """``prim`` is linear in each operand separately (a product): the tangent is
    the sum over operands of ``prim`` with that operand replaced by its tangent."""
    def jvp(primals: list, tangents: list, **params: Any) -> tuple[Any, Any]:
        ans = bind(prim, *primals, **params)
        out_t = None
        for i, g in enumerate(tangents):
            if g is not None:
                term = bind(prim, *primals[:i], g, *primals[i + 1:], **params)
                out_t = term if out_t is None else out_t + term
        return ans, out_t
    prim.jvp = jvp
    prim.multilinear = True


def defnondiff(prim: Primitive) -> None:
    def jvp(primals: list, tangents: list, **params: Any) -> tuple[Any, Any]:
        out = bind(prim, *primals, **params)
        if prim.multiple_results:
            return out, [None] * len(out)
        return out, None
    prim.jvp = jvp


def match_shape(t: Any, ans: Any) -> Any:
    """Broadcast a tangent contribution to the output's shape (and dtype)."""
    shape = shape_of(ans)
    if shape_of(t) != shape:
        t = bind(_ops().broadcast_to_p, t, shape=shape)
    dtype = ans.dtype
    if t.dtype != dtype:
        t = bind(_ops().convert_element_type_p, t, new_dtype=aval_of(ans).dtype)
    return t


def unbroadcast(ct: Any, shape: tuple[int, ...]) -> Any:
    """Sum ``ct`` down to ``shape``: the transpose of NumPy broadcasting."""
    ct_shape = shape_of(ct)
    if ct_shape == shape:
        return ct
    lead = len(ct_shape) - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and ct_shape[lead + i] != 1)
    if axes:
        ct = bind(_ops().reduce_sum_p, ct, axes=axes)
    if shape_of(ct) != shape:
        ct = bind(_ops().reshape_p, ct, new_sizes=shape)
    return ct


def zeros_like(x: Any) -> Any:
    return bind(_ops().zeros_like_p, x)


_STRUCTURAL: Any = None


def _ops() -> Any:
    """The structural and reduction primitives (imported once, on first use: they
    import this module)."""
    global _STRUCTURAL
    if _STRUCTURAL is None:
        from types import SimpleNamespace

        from . import reductions, structural
        _STRUCTURAL = SimpleNamespace(**vars(structural), reduce_sum_p=reductions.reduce_sum_p)
    return _STRUCTURAL
