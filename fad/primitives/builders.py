"""Builders shared by the primitives, so each rule is one line.

Derivative rules:

* ``defjvp(prim, *partials)``: one entry per operand, ``partial(g, ans, *args)``
  returns the output tangent contributed by tangent ``g`` of that operand
  (``None`` for a non-differentiable operand). The contributions are summed.
* ``deflinear(prim, transpose, linear=...)``: ``prim`` is linear in the listed
  operands, so its jvp is ``prim`` itself applied to the tangents.
* ``defmultilinear(prim)``: linear in each operand separately (products).
* ``defnondiff(prim)``: the output carries no tangent (integer/bool results).

Batching rules ``batch(size, vals, dims, **params) -> (out, out_dim)`` receive
the operands with their batch axis (``None``: not batched):

* ``unary_batch(prim)``: the batch axis stays where it is (one operand, acting
  on each element); ``elementwise_batch(prim)``: operands aligned for NumPy
  broadcasting, batch axis first.
* ``batch_moving_axis(prim, param)``: the batch axis to the front and the axis
  parameter ``param`` (an int or a tuple of ints) shifted by one.
* ``loop_batch_rule(prim)``: ``prim`` once per example, stacked (correct, slower;
  ``stack`` joins the examples, as NumPy's ``stack``).

``unary`` and ``binary`` make a whole elementwise primitive: implementation,
shape rule, jvp, batching rule and jit's kernel.

Rules are written in fad's operations, so they are themselves traceable and
differentiable: higher derivatives come for free.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Callable

import numpy as np

from ..backends import backend_for, default_xp
from ..core.ir import ShapedArray
from ..core.primitive import Primitive
from ..core.trace import aval_of, bind, same_dtype, shape_of
from . import shapes


# ---------------------------------------------------------------- derivatives
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
        if out_t is not None and (out_t.shape != ans.shape or not same_dtype(out_t, ans)):
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
    if not same_dtype(t, ans):
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


# ---------------------------------------------------------------- zeros
def zeros_like(x: Any) -> Any:
    """Zeros of ``x``'s shape, dtype and backend (an equation when ``x`` is traced)."""
    return bind(_ops().zeros_like_p, x)


def zeros_where_none(ts: list, xs: list) -> list:
    """``ts`` with each ``None`` (a symbolic zero) made the zeros of its ``xs``."""
    return [zeros_like(x) if t is None else t for t, x in zip(ts, xs)]


def _zeros(shape: tuple, dtype: np.dtype) -> Any:
    """Zeros on the default backend."""
    xp = default_xp()
    return xp.zeros(shape, dtype=getattr(xp, np.dtype(dtype).name))


# ---------------------------------------------------------------- elementwise
def _ufunc_kernel(prim: Primitive, xp_name: str | Callable) -> None:
    """For jit's generated code: the backend's own function, which allocates its
    result and accepts ``out=`` (NumPy and CuPy ufuncs). ``xp_name`` is its name
    in the namespace, or ``lookup(xp) -> function`` for one found elsewhere (looked
    up on first use, so that its library is imported only then)."""
    prim.fresh_output = True
    if callable(xp_name):
        prim.kernel = xp_name
        return
    prim.kernel = lambda xp: getattr(xp, xp_name) if xp is np else \
        _weak_operands(backend_for(xp).function(prim.name, xp_name))
    prim.numpy_fn = getattr(np, xp_name)


def chunkwise(impl: Callable) -> Callable:
    """An elementwise implementation ``impl(xp, *operands)`` composed of several
    namespace calls, handed to the backend to run (``Backend.elementwise``): on
    NumPy directly; on a chunked backend (Dask) once per chunk, as one operation."""
    def run(xp: Any, *args: Any) -> Any:
        return impl(xp, *args) if xp is np else backend_for(xp).elementwise(impl, args)
    return run


def unary(name: str, xp_name: str | Callable, partial: Callable | None,
          out_dtype: Any = None) -> Primitive:
    """An elementwise primitive of one operand, computed by the namespace's
    ``xp_name`` (or by ``xp_name(xp)``, a lookup); ``partial=None``: no derivative."""
    def aval(x):
        return x if out_dtype is None else x.__class__(x.shape, out_dtype)
    if callable(xp_name):
        prim = Primitive(name, lambda xp, x: xp_name(xp)(x), aval)
    else:
        prim = Primitive(name, lambda xp, x: getattr(xp, xp_name)(x) if xp is np else
                         backend_for(xp).function(name, xp_name)(x), aval)
    _ufunc_kernel(prim, xp_name)
    if partial is None:
        defnondiff(prim)
    else:
        defjvp(prim, partial)
    prim.batch = unary_batch(prim)
    return prim


def _weak(x: Any) -> Any:
    """A NumPy scalar as the Python scalar it stands for (other namespaces take
    Python scalars beside their arrays, not NumPy's)."""
    return x.item() if isinstance(x, np.generic) else x


def _weak_operands(f: Callable) -> Callable:
    """``f`` taking NumPy scalars as Python scalars (for other namespaces)."""
    def call(*args: Any, **kwargs: Any) -> Any:
        return f(*[_weak(a) for a in args], **kwargs)
    return call


def binary(name: str, xp_name: str, *partials: Callable | None,
           out_dtype: Any = None) -> Primitive:
    """An elementwise primitive of two operands (NumPy broadcasting), computed by
    the namespace's ``xp_name``; no partials: no derivative."""
    def aval(x, y):
        return shapes.elementwise(x, y, dtype=out_dtype)
    prim = Primitive(name, lambda xp, x, y: getattr(xp, xp_name)(x, y) if xp is np else
                     backend_for(xp).function(name, xp_name)(_weak(x), _weak(y)), aval)
    _ufunc_kernel(prim, xp_name)
    if not partials:
        defnondiff(prim)
    else:
        defjvp(prim, *partials)
    prim.batch = elementwise_batch(prim)
    return prim


# ---------------------------------------------------------------- batching
def move_axis(x: Any, src: int | None, dst: int, size: int) -> Any:
    """Move axis ``src`` to ``dst``; an unbatched value (src None) is broadcast."""
    ops = _ops()
    shape = shape_of(x)
    if src is None:
        x = ops.broadcast_to(x, (size,) + tuple(shape))
        src = 0
        shape = (size,) + tuple(shape)
    nd = len(shape)
    dst = dst % nd
    if src == dst:
        return x
    perm = [i for i in range(nd) if i != src]
    perm.insert(dst, src)
    return ops.transpose(x, tuple(perm))


def to_front(x: Any, d: int | None, size: int | None = None) -> Any:
    """The batch axis ``d`` of ``x`` first (an unbatched ``x`` is broadcast when
    ``size`` is given, else left alone)."""
    if d is None:
        return x if size is None else move_axis(x, None, 0, size)
    return move_axis(x, d, 0, 0)


def index_example(x: Any, d: int | None, i: int) -> Any:
    """Example ``i`` of a batched value."""
    if d is None:
        return x
    return _ops().gather(x, (slice(None),) * d + (i,))


def logical_ndim(x: Any, d: int | None) -> int:
    """The rank of one example of ``x`` (batch axis ``d``)."""
    return len(shape_of(x)) - (d is not None)


def align(vals: list, dims: list) -> list:
    """Batch axis to the front and ranks padded so NumPy broadcasting lines up
    the logical axes (unbatched operands are left alone: they broadcast)."""
    rank = max(logical_ndim(v, d) for v, d in zip(vals, dims))
    out = []
    for v, d in zip(vals, dims):
        if d is None:
            out.append(v)
            continue
        v = to_front(v, d)
        shape = shape_of(v)
        pad = rank - (len(shape) - 1)
        if pad:
            v = _ops().reshape(v, shape[:1] + (1,) * pad + shape[1:])
        out.append(v)
    return out


def elementwise_batch(prim: Primitive) -> Callable:
    def rule(size: int, vals: list, dims: list, **params: Any) -> tuple:
        return bind(prim, *align(vals, dims), **params), 0
    return rule


def unary_batch(prim: Primitive) -> Callable:
    def rule(size: int, vals: list, dims: list, **params: Any) -> tuple:
        return bind(prim, *vals, **params), dims[0]
    return rule


def batch_moving_axis(prim: Primitive, param: str = "axis") -> Callable:
    """The rule of a primitive of one operand acting along the axis (an int) or
    axes (a tuple) in parameter ``param``: the batch axis goes first and the
    parameter shifts by one."""
    def rule(size: int, vals: list, dims: list, **params: Any) -> tuple:
        (x,), (d,) = vals, dims
        a = params[param]
        params[param] = tuple(i + 1 for i in a) if isinstance(a, tuple) else a + 1
        return bind(prim, to_front(x, d), **params), 0
    return rule


def loop_batch_rule(prim: Primitive) -> Callable:
    """Run ``prim`` once per example and stack the results along axis 0."""
    def rule(size: int, vals: list, dims: list, **params: Any) -> tuple:
        if size == 0:  # no example to run: the outputs' shapes from abstract evaluation
            return _no_examples(prim, vals, dims, params)
        results = [bind(prim, *[index_example(v, d, i) for v, d in zip(vals, dims)],
                        **params) for i in range(size)]
        if prim.multiple_results:
            return [stack(list(r)) for r in zip(*results)], [0] * len(results[0])
        return stack(results), 0
    return rule


def stack(xs: list) -> Any:
    """Same-shaped arrays joined along a new leading axis, in their common dtype
    (NumPy's ``stack``, for the layers below ``fad.numpy``).

    >>> import numpy as np
    >>> y = stack([np.zeros(2, np.float32), np.ones(2)])
    >>> y.shape, y.dtype
    ((2, 2), dtype('float64'))
    """
    ops = _ops()
    avals = [aval_of(x) for x in xs]
    dtype = np.result_type(*[a.dtype for a in avals])
    rows = [ops.reshape(x if a.dtype == dtype else ops.convert_element_type(x, dtype),
                        (1,) + a.shape) for x, a in zip(xs, avals)]
    return rows[0] if len(rows) == 1 else bind(ops.concatenate_p, *rows, axis=0)


def _no_examples(prim: Primitive, vals: list, dims: list, params: dict) -> tuple:
    avals = []
    for v, d in zip(vals, dims):
        a = aval_of(v)
        shape = a.shape if d is None else a.shape[:d] + a.shape[d + 1:]
        avals.append(ShapedArray(shape, a.dtype))
    out = prim.abstract_eval(*avals, **params)
    if prim.multiple_results:
        return [_zeros((0,) + o.shape, o.dtype) for o in out], [0] * len(out)
    return _zeros((0,) + out.shape, out.dtype), 0


# ---------------------------------------------------------------- structural operations
_STRUCTURAL: Any = None


def _ops() -> Any:
    """The structural primitives (and ``reduce_sum``, ``gather``) the builders use:
    defined with these builders, so looked up once, on first use."""
    global _STRUCTURAL
    if _STRUCTURAL is None:
        from . import indexing, reductions, structural
        _STRUCTURAL = SimpleNamespace(**vars(structural), reduce_sum_p=reductions.reduce_sum_p,
                                      gather=indexing.gather)
    return _STRUCTURAL
