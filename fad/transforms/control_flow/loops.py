"""``fad.lax.scan``, ``while_loop`` and ``fori_loop``: a Python loop when the
carry is concrete, else the ``scan`` or ``while`` primitive carrying its body.
Forward mode scans (or loops) the jvp of the body; reverse mode stores the
carries of every step and scans the body's vjp backwards (``scan`` only: a
``while_loop`` under ``jit`` has no known number of steps)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ...backends import default_xp
from ...core.errors import ConcretizationError
from ...core.ir import ClosedJaxpr
from ...core.primitive import Primitive
from ...core.trace import Tracer, aval_of, bind, concrete_or_none
from ...interpreters.staging import lift_tracers, writable
from ...primitives.builders import (
    index_example,
    loop_batch_rule,
    move_axis,
    stack,
    zeros_where_none,
)
from ...primitives.indexing import slice_axis
from ...primitives.structural import concatenate_p, reshape
from ...tree import tree_flatten, tree_unflatten
from ..leaves import leaf_array
from ..programs import avals_of, jvp_program, run, trace_program, vjp_program
from ..vmap import vmap
from .checks import Carry, describe, param_name, scalar, scan_length

_JVP, _VJP = "a jvp of a control-flow body", "a vjp of a control-flow body"


# ---------------------------------------------------------------- scan
def scan(f: Callable, init: Any, xs: Any = None, length: int | None = None,
         reverse: bool = False, unroll: int | bool = 1) -> tuple:
    """``carry, y = f(carry, x)`` over the leading axis of ``xs``; returns the final
    carry and the stacked ``y``.

    The carry keeps its structure, shapes and dtypes from step to step (a Python
    scalar in ``init`` takes the dtype the body gives it, as in JAX); every leaf of
    ``xs`` has the same leading length, which ``length`` must equal when given
    (``length`` alone scans ``xs=None``). Zero steps give ``ys`` of leading
    length 0. Violations are a ``TypeError``/``ValueError`` in every mode.

    >>> import fad, fad.numpy as fnp
    >>> def cumsum(xs):
    ...     return fad.lax.scan(lambda c, x: (c + x, c + x), 0.0, xs)[1]
    >>> fad.jit(cumsum)(fnp.arange(4.0)).tolist()
    [0.0, 1.0, 3.0, 6.0]
    >>> fad.grad(lambda xs: fnp.sum(fad.jit(cumsum)(xs)))(fnp.ones(3)).tolist()
    [3.0, 2.0, 1.0]
    >>> fad.lax.scan(lambda c, x: (c + fnp.sum(x), 2 * x), 0.0, fnp.zeros((0, 2)))[1].shape
    (0, 2)
    """
    k = _unroll_factor(unroll)
    where, name = "fad.lax.scan's body f", lambda: param_name(f, 0)
    if k is None or k > 1:
        x_leaves, x_tree = tree_flatten(xs)
        x_leaves = [leaf_array(x) for x in x_leaves]
        n = scan_length(x_leaves, x_tree, length)
        k = n if k is None else min(k, n)
        if k > 1 and _is_abstract(Carry(init, where, name).leaves + x_leaves):
            return _unrolled(f, init, x_leaves, x_tree, n, k, reverse, where, name)
    return _scan(f, init, xs, length, reverse, where, name)


def _unroll_factor(unroll: Any) -> int | None:
    """Steps per iteration; None: all of them."""
    if isinstance(unroll, bool | np.bool_):
        return None if unroll else 1
    if isinstance(unroll, int | np.integer) and unroll >= 1:
        return int(unroll)
    raise ValueError(f"fad.lax.scan's unroll must be a positive int or a bool, got "
                     f"{unroll!r:.60}. Pass 1 for no unrolling, True to unroll fully.")


def _is_abstract(leaves: list) -> bool:
    return any(isinstance(v, Tracer) and concrete_or_none(v) is None for v in leaves)


def _unrolled(f: Callable, init: Any, x_leaves: list, x_tree: Any, n: int, k: int,
              reverse: bool, where: str, name: Callable[[], str]) -> tuple:
    """A scan of ``n`` steps as a scan of ``n // k`` blocks of ``k`` steps (the
    ``xs`` reshaped to ``(n // k, k, ...)``), then one of the remaining steps (the
    first ones when ``reverse``)."""
    m = n // k * k
    lo, hi = (n - m, n) if reverse else (0, m)
    blocks = [reshape(slice_axis(x, 0, lo, hi), (m // k, k) + aval_of(x).shape[1:])
              for x in x_leaves]
    order = range(k - 1, -1, -1) if reverse else range(k)

    def block(c: Any, xb: Any) -> tuple:
        ys: list = [None] * k
        leaves = tree_flatten(xb)[0]
        for j in order:
            c, ys[j] = f(c, tree_unflatten(x_tree, [index_example(x, 0, j) for x in leaves]))
        flat = [tree_flatten(y) for y in ys]
        return c, tree_unflatten(flat[0][1], [stack([leaf_array(y[0][i]) for y in flat])
                                              for i in range(len(flat[0][0]))])

    c, yb = _scan(block, init, tree_unflatten(x_tree, blocks), m // k, reverse, where,
                  name)
    y_leaves, y_tree = tree_flatten(yb)
    ys = [reshape(y, (m,) + aval_of(y).shape[2:]) for y in y_leaves]
    if m == n:
        return c, tree_unflatten(y_tree, ys)
    rest = [slice_axis(x, 0, 0, n - m) if reverse else slice_axis(x, 0, m, n)
            for x in x_leaves]
    c, yr = _scan(f, c, tree_unflatten(x_tree, rest), n - m, reverse, where, name)
    parts = [(r, y) if reverse else (y, r) for y, r in zip(ys, tree_flatten(yr)[0])]
    return c, tree_unflatten(y_tree, [bind(concatenate_p, *p, axis=0) for p in parts])


def map(f: Callable, xs: Any, batch_size: int | None = None) -> Any:
    """``f`` applied to each slice of ``xs`` along its leading axis, the results
    stacked: a ``scan`` with no carry. With ``batch_size`` the slices go through
    ``vmap(f)`` that many at a time (the remainder in one more call).

    >>> import fad, fad.numpy as fnp
    >>> fad.lax.map(lambda x: x * x, fnp.arange(4.0)).tolist()
    [0.0, 1.0, 4.0, 9.0]
    >>> fad.lax.map(lambda x: fnp.sum(x), fnp.ones((5, 2)), batch_size=2).tolist()
    [2.0, 2.0, 2.0, 2.0, 2.0]
    """
    if batch_size is None:
        return scan(lambda _, x: (None, f(x)), None, xs)[1]
    if isinstance(batch_size, bool) or not isinstance(batch_size, int | np.integer) or \
            batch_size < 1:
        raise ValueError(f"fad.lax.map's batch_size must be a positive int, got "
                         f"{batch_size!r:.60}. Pass None to map one slice at a time.")
    bs = int(batch_size)
    x_leaves, x_tree = tree_flatten(xs)
    x_leaves = [leaf_array(x) for x in x_leaves]
    n = scan_length(x_leaves, x_tree, None)
    m = n // bs * bs
    fb = vmap(f)
    blocks = [reshape(slice_axis(x, 0, 0, m), (m // bs, bs) + aval_of(x).shape[1:])
              for x in x_leaves]
    yb = scan(lambda _, xb: (None, fb(xb)), None, tree_unflatten(x_tree, blocks),
              length=m // bs)[1]
    y_leaves, y_tree = tree_flatten(yb)
    ys = [reshape(y, (m,) + aval_of(y).shape[2:]) for y in y_leaves]
    if m < n:
        rest = fb(tree_unflatten(x_tree, [slice_axis(x, 0, m, n) for x in x_leaves]))
        ys = [bind(concatenate_p, y, r, axis=0) for y, r in zip(ys, tree_flatten(rest)[0])]
    return tree_unflatten(y_tree, ys)


def _scan(f: Callable, init: Any, xs: Any, length: Any, reverse: bool, where: str,
          name: Callable[[], str]) -> tuple:
    x_leaves, x_tree = tree_flatten(xs)
    x_leaves = [leaf_array(x) for x in x_leaves]
    n = scan_length(x_leaves, x_tree, length)
    carry = Carry(init, where, name)
    nc = len(carry.leaves)
    y_tree: list = []

    def body(*args: Any) -> list:
        out = f(tree_unflatten(carry.tree, args[:nc]), tree_unflatten(x_tree, args[nc:]))
        if not isinstance(out, tuple | list) or len(out) != 2:
            raise TypeError(f"{where} must return a pair (new carry, y), got "
                            f"{type(out).__name__} {out!r:.60}")
        ys, yt = tree_flatten(out[1])
        y_tree[:] = [yt]
        return carry.flatten(out[0]) + [leaf_array(v) for v in ys]

    x_avals = avals_of(x_leaves)
    slice_avals = [type(a)(a.shape[1:], a.dtype) for a in x_avals]
    if not _is_abstract(carry.leaves + x_leaves):  # a Python loop: every mode differentiates it
        c, ys = _scan_eagerly(body, carry, x_leaves, slice_avals, n, reverse)
        return tree_unflatten(carry.tree, c), tree_unflatten(y_tree[0], ys)
    closed = carry.settle_abstractly(body, slice_avals, "scan's body")
    c_leaves = carry.leaves
    closed, consts = lift_tracers(closed)
    nk = len(consts)
    if consts:  # lifted constants ride along as carries that never change
        inner = closed
        closed = trace_program(lambda *a: (lambda o: o[:nc] + list(a[nc:nc + nk]) + o[nc:])(
            run(inner, *a[nc:nc + nk], *a[:nc], *a[nc + nk:])),
            avals_of(c_leaves) + avals_of(consts) + slice_avals, "scan's body")
    outs = bind(scan_p, *c_leaves, *consts, *x_leaves, body=closed, length=n,
                reverse=reverse, n_carry=nc + nk)
    return (tree_unflatten(carry.tree, outs[:nc]),
            tree_unflatten(y_tree[0], outs[nc + nk:]))


def _scan_eagerly(body: Callable, carry: Carry, x_leaves: list, slice_avals: list,
                  n: int, reverse: bool) -> tuple[list, list]:
    """Run a scan as a Python loop; ``(final carry leaves, stacked ys)``. The types
    are checked on the first step (or on an abstract trace when there is none)."""
    nc = len(carry.leaves)
    if n == 0:  # the body's output types give ys of leading length 0
        try:
            closed = carry.settle_abstractly(body, slice_avals, "scan's body")
        except ConcretizationError as e:
            raise ConcretizationError(
                f"{carry.where} is traced abstractly for a scan of 0 steps, to know "
                f"the shapes and dtypes of its outputs: {e}", batched=e.batched) from None
        xp = default_xp()
        return carry.leaves, [xp.zeros((0,) + a.shape, dtype=getattr(xp, a.dtype.name))
                              for a in closed.out_avals[nc:]]
    while True:  # once more if a weakly typed carry leaf takes the body's dtype
        c, ys = carry.leaves, []
        for i in (range(n - 1, -1, -1) if reverse else range(n)):
            out = body(*c, *[x[i, ...] for x in x_leaves])
            c = out[:nc]
            if not ys and carry.settle(avals_of(c)):
                break
            ys.append(out[nc:])
        else:
            if reverse:
                ys.reverse()
            return c, [stack([y[k] for y in ys]) for k in range(len(ys[0]))]


def _scan_impl(xp: Any, *args: Any, body: ClosedJaxpr, length: int, reverse: bool,
               n_carry: int) -> list:
    carry, xs = list(args[:n_carry]), args[n_carry:]
    ys = []
    for i in (range(length - 1, -1, -1) if reverse else range(length)):
        out = run(body, *carry, *[x[i, ...] for x in xs])
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
    ts = zeros_where_none(tangents, primals)
    jb = jvp_program(body, (True,) * n_in, _JVP)
    n_x = n_in - n_carry
    n_y = len(body.out_avals) - n_carry

    # jb takes (c, x, dc, dx) and returns (c', y, dc', dy); reorder for scan
    def reordered(*args: Any) -> list:
        c, dc = args[:n_carry], args[n_carry:2 * n_carry]
        x, dx = args[2 * n_carry:2 * n_carry + n_x], args[2 * n_carry + n_x:]
        out = run(jb, *c, *x, *dc, *dx)
        k = n_carry + n_y
        new_c, y, new_dc, dy = out[:n_carry], out[n_carry:k], out[k:k + n_carry], out[k + n_carry:]
        return list(new_c) + list(new_dc) + list(y) + list(dy)

    avals = body.in_avals
    rb = trace_program(reordered, avals[:n_carry] * 2 + avals[n_carry:] * 2, "scan's jvp body")
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
        out = run(body, *args)
        return out + list(args[:n_carry])

    fb = trace_program(with_carries, body.in_avals, "scan's forward body")
    outs = bind(scan_p, *primals, body=fb, length=length, reverse=reverse, n_carry=n_carry)
    results, carries = outs[:n_carry + n_y], outs[n_carry + n_y:]
    vb = vjp_program(body, n_carry + n_x, _VJP)

    def pullback(cts: list) -> list:
        cts = zeros_where_none(cts, results)
        ct_carry, ct_ys = cts[:n_carry], cts[n_carry:]

        def back(*args: Any) -> list:
            ct_c = args[:n_carry]
            c_in = args[n_carry:2 * n_carry]
            x = args[2 * n_carry:2 * n_carry + n_x]
            ct_y = args[2 * n_carry + n_x:]
            got = run(vb, *c_in, *x, *ct_c, *ct_y)
            return got[:n_carry] + got[n_carry:]   # new carry ct, then xs cts

        avals = body.in_avals
        bb = trace_program(back, avals[:n_carry] + [type(a)(a.shape, a.dtype) for a in
                                                    avals[:n_carry]] + avals[n_carry:] +
                           body.out_avals[n_carry:], "scan's vjp body")
        got = bind(scan_p, *ct_carry, *carries, *primals[n_carry:], *ct_ys, body=bb,
                   length=length, reverse=not reverse, n_carry=n_carry)
        return list(got[:n_carry]) + list(got[n_carry:])
    return list(results), pullback


def _scan_batch(size: int, vals: list, dims: list, *, body: ClosedJaxpr, length: int,
                reverse: bool, n_carry: int) -> tuple:
    carries = [move_axis(v, d, 0, size) for v, d in zip(vals[:n_carry], dims[:n_carry])]
    xs = [move_axis(v, d, 1, size) for v, d in zip(vals[n_carry:], dims[n_carry:])]
    batched = vmap(lambda *a: run(body, *a))
    avals = [type(a)((size,) + a.shape, a.dtype) for a in body.in_avals]
    bb = trace_program(lambda *a: list(batched(*a)), avals, "scan's batched body")
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

    ``cond_fun`` returns a boolean scalar; ``body_fun`` keeps the structure,
    shapes and dtypes of ``val`` (a Python scalar in ``init_val`` takes the dtype
    the body gives it), else a ``TypeError`` in every mode. Reverse mode needs the
    number of steps: without ``jit`` the loop runs in Python and ``fad.grad``
    differentiates it; under ``jit`` use ``fori_loop`` with concrete bounds or
    ``scan``.

    >>> import fad
    >>> float(fad.jit(lambda x: fad.lax.while_loop(lambda v: v < 100.0, lambda v: v * 2.0, x))(3.0))
    192.0
    """
    carry = Carry(init_val, "fad.lax.while_loop's body_fun",
                  lambda: param_name(body_fun, 0))
    return tree_unflatten(carry.tree, _while(cond_fun, body_fun, carry))


def _loop_predicate(out: Any) -> Any:
    if type(out) is np.bool_:  # (the common case, checked at once: this runs per step)
        return out
    leaves, tree = tree_flatten(out)
    if tree.node is not None:
        raise TypeError("fad.lax.while_loop's cond_fun must return a boolean scalar, but "
                        f"it returned {describe(tree)} ({tree}). Return one boolean.")
    return scalar(leaves[0], "fad.lax.while_loop's cond_fun must return a boolean scalar",
                  "b", "Reduce an array with fnp.all or fnp.any, or compare (v < limit) "
                  "to get a boolean.")


def _while(cond_fun: Callable, body_fun: Callable, carry: Carry) -> list:
    """The final carry leaves of ``while cond_fun(val): val = body_fun(val)``."""
    tree = carry.tree

    def c(*xs: Any) -> list:
        return [_loop_predicate(cond_fun(tree_unflatten(tree, xs)))]

    def b(*xs: Any) -> list:
        return carry.flatten(body_fun(tree_unflatten(tree, xs)))

    if all(not isinstance(v, Tracer) or concrete_or_none(v) is not None for v in carry.leaves):
        done = _while_eagerly(c, b, carry)
        if done is not None:
            return done
    # the predicate is abstract (under jit, or a per-example predicate under vmap)
    cj = trace_program(c, avals_of(carry.leaves), "while_loop's condition")
    bj = carry.settle_abstractly(b, [], "while_loop's body")
    if cj.in_avals != bj.in_avals:  # a weakly typed leaf was converted
        cj = trace_program(c, avals_of(carry.leaves), "while_loop's condition")
    leaves = carry.leaves
    cj, kc = lift_tracers(cj)
    bj, kb = lift_tracers(bj)
    n, n1 = len(leaves), len(kc)
    if kc or kb:  # lifted constants ride along as unchanging carries
        all_avals = avals_of(leaves) + avals_of(kc + kb)
        c0, b0 = cj, bj
        cj = trace_program(lambda *a: run(c0, *a[n:n + n1], *a[:n]), all_avals, "while cond")
        bj = trace_program(lambda *a: run(b0, *a[n + n1:], *a[:n]) + list(a[n:]), all_avals,
                           "while body")
    outs = bind(while_p, *leaves, *kc, *kb, cond=cj, body=bj)
    return list(outs[:n])


def _while_eagerly(c: Callable, b: Callable, carry: Carry) -> list | None:
    """Run the loop in Python; its final carry leaves, or None when the predicate
    turns out abstract (``carry.leaves`` then holds the values reached). The types
    are checked on the first step, or on an abstract trace when there is none."""
    while True:  # once more if a weakly typed carry leaf takes the body's dtype
        val, first = carry.leaves, True
        while True:
            p = concrete_or_none(c(*val)[0])
            if p is None:
                carry.leaves = val
                return None
            if not bool(np.asarray(p)):
                if first:  # no step ran: check the body's types abstractly
                    try:
                        carry.settle_abstractly(b, [], "while_loop's body")
                    except ConcretizationError:  # it needs concrete values: unchecked
                        pass
                    if carry.leaves is not val:  # a weakly typed leaf was converted
                        break
                return val
            new = b(*val)
            if first:
                first = False
                if carry.settle(avals_of(new)):
                    break
            val = new


def _while_impl(xp: Any, *val: Any, cond: ClosedJaxpr, body: ClosedJaxpr) -> list:
    val = list(val)
    while bool(run(cond, *val)[0]):
        val = run(body, *val)
    return writable(val)


def _while_jvp(primals: list, tangents: list, *, cond: ClosedJaxpr, body: ClosedJaxpr
               ) -> tuple:
    n = len(primals)
    ts = zeros_where_none(tangents, primals)
    jb = jvp_program(body, (True,) * n, _JVP)
    cond2 = trace_program(lambda *a: run(cond, *a[:n]), body.in_avals * 2, "while cond")
    outs = bind(while_p, *primals, *ts, cond=cond2, body=jb)
    return outs[:n], outs[n:]


while_p = Primitive("while", _while_impl, lambda *avals, cond, body: body.out_avals,
                    multiple_results=True)
while_p.jvp = _while_jvp


def _while_reverse_error(*args: Any, **params: Any) -> None:
    raise ValueError(
        "fad.lax.while_loop (or fori_loop with traced bounds) cannot be differentiated "
        "in reverse mode when its number of steps is not known while tracing (under "
        "fad.jit, or a per-example predicate under fad.vmap): reverse mode must store "
        "every step. Use a bounded loop: fad.lax.fori_loop with concrete (Python int) "
        "bounds, or fad.lax.scan (a bound passed to a jitted function stays a Python "
        "int when marked static: fad.jit(f, static_argnums=...)); or forward mode "
        "(fad.jvp, fad.jacfwd). Without jit, fad.grad runs the loop in Python and "
        "differentiates it.")


def _while_vjp_rule(primals: list, *, cond: ClosedJaxpr, body: ClosedJaxpr) -> tuple:
    """The forward loop runs; a cotangent reaching it is an error (see above)."""
    return list(bind(while_p, *primals, cond=cond, body=body)), _while_reverse_error


while_p.vjp_rule = _while_vjp_rule
while_p.transpose = _while_reverse_error


def _while_batch(size: int, vals: list, dims: list, *, cond: ClosedJaxpr,
                 body: ClosedJaxpr) -> tuple:
    """Each example runs its own number of steps: loop over the examples."""
    return loop_batch_rule(while_p)(size, vals, dims, cond=cond, body=body)


while_p.batch = _while_batch


def fori_loop(lower: int, upper: int, body_fun: Callable, init_val: Any, *,
              unroll: int | bool | None = None) -> Any:
    """``for i in range(lower, upper): val = body_fun(i, val)``. With concrete bounds
    (Python ints) this is a ``scan`` (differentiable in both modes; ``unroll`` is
    passed to it, as JAX's); with traced ones a ``while_loop`` (forward mode only
    under ``jit``; ``unroll`` is then a ``ValueError``, as JAX's).

    The bounds are integer scalars (a float bound is a ``TypeError``, as in JAX);
    ``body_fun`` keeps the structure, shapes and dtypes of ``val``.

    >>> import fad
    >>> float(fad.grad(lambda x: fad.lax.fori_loop(0, 3, lambda i, v: v * x, 1.0))(2.0))
    12.0
    """
    fix = ("Pass ints (int(b), or b.astype(int) for a traced bound); to step through "
           "floats, loop over an int and compute the float in the body.")
    lower = scalar(lower, "fad.lax.fori_loop's lower bound must be an integer scalar",
                   "iu", fix)
    upper = scalar(upper, "fad.lax.fori_loop's upper bound must be an integer scalar",
                   "iu", fix)
    where, name = "fad.lax.fori_loop's body_fun", lambda: param_name(body_fun, 1)
    lo, hi = concrete_or_none(lower), concrete_or_none(upper)
    if lo is not None and hi is not None:
        lo, hi = int(lo), int(hi)

        def step(carry: Any, i: Any) -> tuple:
            return body_fun(i, carry), None
        xp = default_xp()
        steps = xp.arange(lo, max(lo, hi), dtype=getattr(xp, np.dtype(np.int_).name))
        if unroll is not None:
            return scan(step, init_val, steps, unroll=unroll)[0]
        return _scan(step, init_val, steps, None, False, where, name)[0]
    if unroll is not None:
        raise ValueError("fad.lax.fori_loop: unroll applies only when the loop bounds are "
                         "concrete (the loop is then a scan); these are traced")

    def c(state: tuple) -> Any:
        return state[0] < upper

    val = Carry(init_val, where, name)  # checks the body's structure in its names

    def b(state: tuple) -> tuple:
        i, v = state
        new = body_fun(i, v)
        val.flatten(new)
        return i + 1, new

    carry = Carry((lower, init_val), where, name, indexed=True)
    return tree_unflatten(carry.tree, _while(c, b, carry))[1]

