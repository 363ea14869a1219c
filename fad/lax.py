"""Structured control flow that survives abstract tracing (as ``jax.lax``).

When the deciding values are concrete (plain arrays, or tracing under
``grad``/``jvp``/``vjp`` without ``jit``) these run as ordinary Python control
flow, so every transformation sees the operations actually executed. When they
are abstract (under ``jit``/``make_jaxpr``, or a per-example predicate under
``vmap``) they become primitives carrying their bodies as jaxprs:

* ``cond``: both branches traced; forward mode transforms both; reverse mode
  re-runs the taken branch's vjp in the backward pass; under ``vmap`` with a
  batched predicate both branches run and ``select`` merges them.
* ``scan``: forward mode scans the jvp of the body; reverse mode stores the
  carries of every step and scans the body's vjp backwards.
* ``while_loop``: forward mode only (the number of steps is data-dependent), as
  in JAX; under concrete tracing reverse mode works too (it is a Python loop).
* ``fori_loop``: a ``scan`` when the bounds are Python ints, else a ``while_loop``.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .api import _leaf_array
from .core.ir import ClosedJaxpr
from .core.primitive import Primitive
from .core.trace import Tracer, aval_of, bind, concrete_or_none
from .interpreters.evaluate import eval_jaxpr
from .interpreters.jvp import jvp_flat
from .interpreters.staging import derived, lift_tracers, trace_to_jaxpr, writable
from .tree import tree_flatten, tree_unflatten


def _concrete(x: Any) -> Any:
    """The concrete value of ``x``, or ``None`` while tracing abstractly."""
    return concrete_or_none(x) if isinstance(x, Tracer) else x


def _trace(fun: Callable, avals: list, label: str) -> ClosedJaxpr:
    return trace_to_jaxpr(fun, avals, label=label)[0]


def _run(closed: ClosedJaxpr, *args: Any) -> list:
    return eval_jaxpr(closed.jaxpr, closed.consts, *args)


def _zeros(x: Any) -> Any:
    from .primitives.structural import zeros_like_p
    return bind(zeros_like_p, x)


def _avals(xs: list) -> list:
    return [aval_of(x) for x in xs]


# ---------------------------------------------------------------- cond
def cond(pred: Any, true_fun: Callable, false_fun: Callable, *operands: Any) -> Any:
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``.

    >>> import fad, fad.numpy as fnp
    >>> f = fad.jit(lambda x: fad.lax.cond(x > 0, lambda x: x * 2.0, lambda x: -x, x))
    >>> float(f(3.0)), float(f(-3.0))
    (6.0, 3.0)
    >>> float(fad.grad(f)(3.0))
    2.0
    """
    p = _concrete(pred)
    if p is not None:
        return (true_fun if bool(np.asarray(p)) else false_fun)(*operands)
    leaves, in_tree = tree_flatten(list(operands))
    leaves = [_leaf_array(x) for x in leaves]
    out_trees: list = []

    def flat(fun: Callable) -> Callable:
        def f(*xs: Any) -> list:
            out, tree = tree_flatten(fun(*tree_unflatten(in_tree, xs)))
            out_trees.append(tree)
            return [_leaf_array(o) for o in out]
        return f

    avals = _avals(leaves)
    branches = (_trace(flat(false_fun), avals, "cond's false branch"),
                _trace(flat(true_fun), avals, "cond's true branch"))
    if out_trees[0] != out_trees[1] or branches[0].out_avals != branches[1].out_avals:
        raise TypeError("cond branches must return the same structure, shapes and "
                        f"dtypes: {out_trees[0]} {branches[0].out_avals} vs "
                        f"{out_trees[1]} {branches[1].out_avals}")
    (bf, kf), (bt, kt) = lift_tracers(branches[0]), lift_tracers(branches[1])
    if kf or kt:  # both branches take every lifted constant, each ignoring the other's
        nf, nt = len(kf), len(kt)
        branches = (
            _trace(lambda *a: _run(bf, *a[:nf], *a[nf + nt:]),
                   _avals(kf + kt) + avals, "cond's false branch"),
            _trace(lambda *a: _run(bt, *a[nf:nf + nt], *a[nf + nt:]),
                   _avals(kf + kt) + avals, "cond's true branch"))
        leaves = kf + kt + leaves
    from .primitives.structural import convert_element_type
    index = convert_element_type(pred, np.dtype(np.int32))
    outs = bind(cond_p, index, *leaves, branches=branches)
    return tree_unflatten(out_trees[0], outs)


def _cond_impl(xp: Any, index: Any, *ops: Any, branches: tuple) -> list:
    return writable(_run(branches[int(index)], *ops))


def _cond_jvp(primals: list, tangents: list, *, branches: tuple) -> tuple:
    index, ops = primals[0], primals[1:]
    ts = _zeros_where_none(tangents[1:], ops)
    n = len(ops)
    jvp_branches = tuple(_jvp_jaxpr(b, n) for b in branches)
    outs = bind(cond_p, index, *ops, *ts, branches=jvp_branches)
    k = len(outs) // 2
    return outs[:k], outs[k:]


def _zeros_where_none(ts: list, xs: list) -> list:
    return [_zeros(x) if t is None else t for t, x in zip(ts, xs)]


def _jvp_jaxpr(closed: ClosedJaxpr, n: int) -> ClosedJaxpr:
    """``(primals, tangents) -> (outs, out_tangents)`` for a body jaxpr (made once,
    kept with the body)."""
    return derived(closed, ("jvp", n), lambda: _make_jvp_jaxpr(closed, n))


def _make_jvp_jaxpr(closed: ClosedJaxpr, n: int) -> ClosedJaxpr:
    def f(*args: Any) -> list:
        outs, ts = jvp_flat(lambda *xs: _run(closed, *xs), list(args[:n]),
                            list(args[n:]))
        return outs + [_zeros(o) if t is None else t for o, t in zip(outs, ts)]
    avals = closed.in_avals
    return _trace(f, avals + avals, "a jvp of a control-flow body")


def _vjp_jaxpr(closed: ClosedJaxpr, n: int) -> ClosedJaxpr:
    """``(primals, out_cts) -> in_cts`` for a body jaxpr (recomputes the body; made
    once, kept with the body)."""
    return derived(closed, ("vjp", n), lambda: _make_vjp_jaxpr(closed, n))


def _make_vjp_jaxpr(closed: ClosedJaxpr, n: int) -> ClosedJaxpr:
    from .interpreters.vjp import vjp_flat

    def f(*args: Any) -> list:
        outs, pull = vjp_flat(lambda *xs: _run(closed, *xs), list(args[:n]))
        cts = pull(list(args[n:]))
        return [_zeros(x) if c is None else c for c, x in zip(cts, args[:n])]
    return _trace(f, closed.in_avals + closed.out_avals, "a vjp of a control-flow body")


def _cond_vjp_rule(primals: list, *, branches: tuple) -> tuple:
    index, ops = primals[0], primals[1:]
    outs = bind(cond_p, index, *ops, branches=branches)

    def pullback(cts: list) -> list:
        cts = _zeros_where_none(cts, outs)
        vjp_branches = tuple(_vjp_jaxpr(b, len(ops)) for b in branches)
        return [None] + list(bind(cond_p, index, *ops, *cts, branches=vjp_branches))
    return outs, pullback


def _cond_batch(size: int, vals: list, dims: list, *, branches: tuple) -> tuple:
    from .primitives.batching import move_axis
    from .vmap import vmap
    index, ops = vals[0], vals[1:]
    op_dims = dims[1:]
    run = [vmap(lambda *xs, b=b: _run(b, *xs), in_axes=tuple(op_dims))
           if any(d is not None for d in op_dims) else
           (lambda *xs, b=b: [move_axis(o, None, 0, size) for o in _run(b, *xs)])
           for b in branches]
    if dims[0] is None:  # one predicate for the whole batch: a cond of batched bodies
        fns = tuple(_trace(lambda *xs, r=r: list(r(*xs)), _avals(ops), "a batched branch")
                    for r in run)
        return bind(cond_p, index, *ops, branches=fns), [0] * len(branches[0].out_avals)
    # a predicate per example: run both branches, keep each example's choice
    from .numpy import where
    from .primitives.batching import to_front
    picks = to_front(index, dims[0])
    outs_f, outs_t = run[0](*ops), run[1](*ops)
    merged = []
    for f_out, t_out in zip(outs_f, outs_t):
        mask = picks.reshape((size,) + (1,) * (len(f_out.shape) - 1))
        merged.append(where(mask != 0, t_out, f_out))
    return merged, [0] * len(merged)


cond_p = Primitive("cond", _cond_impl,
                   lambda index, *ops, branches: branches[0].out_avals,
                   multiple_results=True)
cond_p.jvp = _cond_jvp
cond_p.vjp_rule = _cond_vjp_rule
cond_p.batch = _cond_batch


# ---------------------------------------------------------------- scan
def scan(f: Callable, init: Any, xs: Any = None, length: int | None = None,
         reverse: bool = False) -> tuple:
    """``carry, y = f(carry, x)`` over the leading axis of ``xs``; returns the final
    carry and the stacked ``y``.

    >>> import fad, fad.numpy as fnp
    >>> def cumsum(xs):
    ...     return fad.lax.scan(lambda c, x: (c + x, c + x), 0.0, xs)[1]
    >>> fad.jit(cumsum)(fnp.arange(4.0)).tolist()
    [0.0, 1.0, 3.0, 6.0]
    >>> fad.grad(lambda xs: fnp.sum(fad.jit(cumsum)(xs)))(fnp.ones(3)).tolist()
    [3.0, 2.0, 1.0]
    """
    from .numpy import stack
    c_leaves, c_tree = tree_flatten(init)
    x_leaves, x_tree = tree_flatten(xs)
    c_leaves = [_leaf_array(c) for c in c_leaves]
    x_leaves = [_leaf_array(x) for x in x_leaves]
    n = length if length is not None else (x_leaves[0].shape[0] if x_leaves else None)
    if n is None:
        raise ValueError("scan needs xs or length")
    y_tree: list = []

    def body(*args: Any) -> list:
        carry = tree_unflatten(c_tree, args[:len(c_leaves)])
        x = tree_unflatten(x_tree, args[len(c_leaves):])
        new_c, y = f(carry, x)
        nc, t = tree_flatten(new_c)
        if t != c_tree:
            raise TypeError(f"scan body must return a carry structured like init {c_tree}, "
                            f"got {t}")
        ys, yt = tree_flatten(y)
        y_tree[:] = [yt]
        return [_leaf_array(v) for v in nc] + [_leaf_array(v) for v in ys]

    abstract = any(isinstance(v, Tracer) and _concrete(v) is None
                   for v in c_leaves + x_leaves)
    if not abstract:  # concrete: a Python loop, differentiable by every mode
        carry, ys = c_leaves, []
        order = range(n - 1, -1, -1) if reverse else range(n)
        for i in order:
            out = body(*carry, *[x[i] for x in x_leaves])
            carry, y = out[:len(c_leaves)], out[len(c_leaves):]
            ys.append(y)
        if reverse:
            ys.reverse()
        stacked = [stack([y[k] for y in ys]) for k in range(len(ys[0]))] if ys and ys[0] \
            else []
        return tree_unflatten(c_tree, carry), tree_unflatten(y_tree[0], stacked) \
            if y_tree else None
    x_avals = [aval_of(x) for x in x_leaves]
    slice_avals = [type(a)(a.shape[1:], a.dtype) for a in x_avals]
    closed = _trace(body, _avals(c_leaves) + slice_avals, "scan's body")
    closed, consts = lift_tracers(closed)
    nk, nc = len(consts), len(c_leaves)
    if consts:  # lifted constants ride along as carries that never change
        inner = closed
        closed = _trace(lambda *a: (lambda o: o[:nc] + list(a[nc:nc + nk]) + o[nc:])(
            _run(inner, *a[nc:nc + nk], *a[:nc], *a[nc + nk:])),
            _avals(c_leaves) + _avals(consts) + slice_avals, "scan's body")
    outs = bind(scan_p, *c_leaves, *consts, *x_leaves, body=closed, length=n,
                reverse=reverse, n_carry=nc + nk)
    return (tree_unflatten(c_tree, outs[:nc]),
            tree_unflatten(y_tree[0], outs[nc + nk:]))


def _scan_impl(xp: Any, *args: Any, body: ClosedJaxpr, length: int, reverse: bool,
               n_carry: int) -> list:
    carry, xs = list(args[:n_carry]), args[n_carry:]
    ys = []
    for i in (range(length - 1, -1, -1) if reverse else range(length)):
        out = _run(body, *carry, *[x[i] for x in xs])
        carry, y = out[:n_carry], out[n_carry:]
        ys.append(y)
    if reverse:
        ys.reverse()
    n_y = len(body.out_avals) - n_carry
    stacked = [xp.stack([y[k] for y in ys]) if ys else
               xp.zeros((0,) + body.out_avals[n_carry + k].shape,
                        dtype=body.out_avals[n_carry + k].dtype) for k in range(n_y)]
    return writable(carry) + stacked


def _scan_avals(*avals: Any, body: ClosedJaxpr, length: int, reverse: bool,
                n_carry: int) -> list:
    outs = body.out_avals
    return outs[:n_carry] + [type(a)((length,) + a.shape, a.dtype) for a in outs[n_carry:]]


def _scan_jvp(primals: list, tangents: list, *, body: ClosedJaxpr, length: int,
              reverse: bool, n_carry: int) -> tuple:
    """Scan the jvp of the body: carry (c, dc), scanned (x, dx), out (y, dy)."""
    n_in = len(primals)
    ts = _zeros_where_none(tangents, primals)
    jb = _jvp_jaxpr(body, n_in)
    n_x = n_in - n_carry
    n_y = len(body.out_avals) - n_carry

    # jb takes (c, x, dc, dx) and returns (c', y, dc', dy); reorder for scan
    def reordered(*args: Any) -> list:
        c, dc = args[:n_carry], args[n_carry:2 * n_carry]
        x, dx = args[2 * n_carry:2 * n_carry + n_x], args[2 * n_carry + n_x:]
        out = _run(jb, *c, *x, *dc, *dx)
        k = n_carry + n_y
        new_c, y, new_dc, dy = out[:n_carry], out[n_carry:k], out[k:k + n_carry], out[k + n_carry:]
        return list(new_c) + list(new_dc) + list(y) + list(dy)

    avals = body.in_avals
    rb = _trace(reordered, avals[:n_carry] * 2 + avals[n_carry:] * 2, "scan's jvp body")
    outs = bind(scan_p, *primals[:n_carry], *ts[:n_carry], *primals[n_carry:],
                *ts[n_carry:], body=rb, length=length, reverse=reverse, n_carry=2 * n_carry)
    c, dc = outs[:n_carry], outs[n_carry:2 * n_carry]
    y, dy = outs[2 * n_carry:2 * n_carry + n_y], outs[2 * n_carry + n_y:]
    return list(c) + list(y), list(dc) + list(dy)


def _scan_vjp_rule(primals: list, *, body: ClosedJaxpr, length: int, reverse: bool,
                   n_carry: int) -> tuple:
    """Forward: scan, also stacking each step's incoming carry. Backward: scan the
    body's vjp in the opposite direction, carrying the carry's cotangent."""
    n_x = len(primals) - n_carry
    n_y = len(body.out_avals) - n_carry

    def with_carries(*args: Any) -> list:
        out = _run(body, *args)
        return out + list(args[:n_carry])

    fb = _trace(with_carries, body.in_avals, "scan's forward body")
    outs = bind(scan_p, *primals, body=fb, length=length, reverse=reverse, n_carry=n_carry)
    results, carries = outs[:n_carry + n_y], outs[n_carry + n_y:]
    vb = _vjp_jaxpr(body, n_carry + n_x)

    def pullback(cts: list) -> list:
        cts = _zeros_where_none(cts, results)
        ct_carry, ct_ys = cts[:n_carry], cts[n_carry:]

        def back(*args: Any) -> list:
            ct_c = args[:n_carry]
            c_in = args[n_carry:2 * n_carry]
            x = args[2 * n_carry:2 * n_carry + n_x]
            ct_y = args[2 * n_carry + n_x:]
            got = _run(vb, *c_in, *x, *ct_c, *ct_y)
            return got[:n_carry] + got[n_carry:]   # new carry ct, then xs cts

        avals = body.in_avals
        bb = _trace(back, avals[:n_carry] + [type(a)(a.shape, a.dtype) for a in
                                             avals[:n_carry]] + avals[n_carry:] +
                    body.out_avals[n_carry:], "scan's vjp body")
        got = bind(scan_p, *ct_carry, *carries, *primals[n_carry:], *ct_ys, body=bb,
                   length=length, reverse=not reverse, n_carry=n_carry)
        return list(got[:n_carry]) + list(got[n_carry:])
    return list(results), pullback


def _scan_batch(size: int, vals: list, dims: list, *, body: ClosedJaxpr, length: int,
                reverse: bool, n_carry: int) -> tuple:
    from .primitives.batching import move_axis
    from .vmap import vmap
    carries = [move_axis(v, d, 0, size) for v, d in zip(vals[:n_carry], dims[:n_carry])]
    xs = [move_axis(v, d, 1, size) for v, d in zip(vals[n_carry:], dims[n_carry:])]
    batched = vmap(lambda *a: _run(body, *a))
    avals = [type(a)((size,) + a.shape, a.dtype) for a in body.in_avals]
    bb = _trace(lambda *a: list(batched(*a)), avals, "scan's batched body")
    outs = bind(scan_p, *carries, *xs, body=bb, length=length, reverse=reverse,
                n_carry=n_carry)
    return outs, [0] * n_carry + [1] * (len(outs) - n_carry)


scan_p = Primitive("scan", _scan_impl, _scan_avals, multiple_results=True)
scan_p.jvp = _scan_jvp
scan_p.vjp_rule = _scan_vjp_rule
scan_p.batch = _scan_batch


# ---------------------------------------------------------------- while / fori
def while_loop(cond_fun: Callable, body_fun: Callable, init_val: Any) -> Any:
    """``while cond_fun(val): val = body_fun(val)``; forward-mode differentiable.

    >>> import fad
    >>> float(fad.jit(lambda x: fad.lax.while_loop(lambda v: v < 100.0, lambda v: v * 2.0, x))(3.0))
    192.0
    """
    leaves, tree = tree_flatten(init_val)
    leaves = [_leaf_array(v) for v in leaves]

    def c(*xs: Any) -> list:
        return [_leaf_array(cond_fun(tree_unflatten(tree, xs)))]

    def b(*xs: Any) -> list:
        out, t = tree_flatten(body_fun(tree_unflatten(tree, xs)))
        if t != tree:
            raise TypeError(f"while_loop body must keep the structure {tree}, got {t}")
        return [_leaf_array(o) for o in out]

    if all(not isinstance(v, Tracer) or _concrete(v) is not None for v in leaves):
        val = leaves
        while True:
            p = _concrete(c(*val)[0])
            if p is None:
                break
            if not bool(np.asarray(p)):
                return tree_unflatten(tree, val)
            val = b(*val)
        leaves = val
    avals = _avals(leaves)
    cj, kc = lift_tracers(_trace(c, avals, "while_loop's condition"))
    bj, kb = lift_tracers(_trace(b, avals, "while_loop's body"))
    n, n1 = len(leaves), len(kc)
    if kc or kb:  # lifted constants ride along as unchanging carries
        all_avals = avals + _avals(kc + kb)
        c0, b0 = cj, bj
        cj = _trace(lambda *a: _run(c0, *a[n:n + n1], *a[:n]), all_avals, "while cond")
        bj = _trace(lambda *a: _run(b0, *a[n + n1:], *a[:n]) + list(a[n:]), all_avals,
                    "while body")
    outs = bind(while_p, *leaves, *kc, *kb, cond=cj, body=bj)
    return tree_unflatten(tree, outs[:n])


def _while_impl(xp: Any, *val: Any, cond: ClosedJaxpr, body: ClosedJaxpr) -> list:
    val = list(val)
    while bool(_run(cond, *val)[0]):
        val = _run(body, *val)
    return writable(val)


def _while_jvp(primals: list, tangents: list, *, cond: ClosedJaxpr, body: ClosedJaxpr
               ) -> tuple:
    n = len(primals)
    ts = _zeros_where_none(tangents, primals)
    jb = _jvp_jaxpr(body, n)
    cond2 = _trace(lambda *a: _run(cond, *a[:n]), body.in_avals * 2, "while cond")
    outs = bind(while_p, *primals, *ts, cond=cond2, body=jb)
    return outs[:n], outs[n:]


while_p = Primitive("while", _while_impl, lambda *avals, cond, body: body.out_avals,
                    multiple_results=True)
while_p.jvp = _while_jvp


def _while_batch(size: int, vals: list, dims: list, *, cond: ClosedJaxpr,
                 body: ClosedJaxpr) -> tuple:
    """Each example runs its own number of steps: loop over the examples."""
    from .interpreters.batching import loop_batch_rule
    return loop_batch_rule(while_p)(size, vals, dims, cond=cond, body=body)


while_p.batch = _while_batch


def fori_loop(lower: int, upper: int, body_fun: Callable, init_val: Any) -> Any:
    """``for i in range(lower, upper): val = body_fun(i, val)``. With Python-int
    bounds this is a ``scan`` (differentiable in both modes).

    >>> import fad
    >>> float(fad.grad(lambda x: fad.lax.fori_loop(0, 3, lambda i, v: v * x, 1.0))(2.0))
    12.0
    """
    lo, hi = _concrete(lower), _concrete(upper)
    if lo is not None and hi is not None:
        lo, hi = int(lo), int(hi)

        def step(carry: Any, i: Any) -> tuple:
            return body_fun(i, carry), None
        from .numpy import arange
        return scan(step, init_val, arange(lo, hi))[0] if hi > lo else init_val

    def c(state: tuple) -> Any:
        return state[0] < upper

    def b(state: tuple) -> tuple:
        i, val = state
        return i + 1, body_fun(i, val)
    return while_loop(c, b, (lower, init_val))[1]


__all__ = ["cond", "scan", "while_loop", "fori_loop"]
