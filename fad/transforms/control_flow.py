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

Each one checks its program as JAX does, with the same outcome in every mode
(eagerly, under ``jit``, ``grad`` and ``vmap``): a loop body keeps its carry's
structure, shapes and dtypes (a Python scalar of the initial carry is weakly
typed: it takes the dtype the body gives it); ``scan``'s ``xs`` share one
leading length, which ``length`` must equal; predicates and bounds are scalars
of the right kind; ``cond``'s branches return the same types. Eagerly, a loop
checks its first step, or traces its body abstractly when it runs no step (a
zero-step ``scan`` thus stacks empty ``ys`` of the body's output types); an
eager ``cond`` traces the branch it does not take.
"""

from __future__ import annotations

import types
from typing import Any, Callable

import numpy as np

from ..core.errors import ConcretizationError
from ..core.ir import ClosedJaxpr
from ..core.primitive import Primitive
from ..core.trace import Tracer, aval_of, bind, concrete_or_none
from ..interpreters.evaluate import eval_jaxpr
from ..interpreters.jvp import jvp_flat
from ..interpreters.staging import derived, lift_tracers, trace_to_jaxpr, writable
from ..primitives.builders import zeros_where_none
from ..tree import (
    PyTreeDef,
    _NamedTuple,
    child_keys,
    tree_flatten,
    tree_unflatten,
    treedef_leaf_paths,
)
from .arguments import parameter_name
from .autodiff import _leaf_array

_WEAK = (int, float, complex)  # weakly typed Python scalars (a bool is a bool, as in JAX)


def _concrete(x: Any) -> Any:
    """The concrete value of ``x``, or ``None`` while tracing abstractly."""
    return concrete_or_none(x) if isinstance(x, Tracer) else x


def _trace(fun: Callable, avals: list, label: str) -> ClosedJaxpr:
    return trace_to_jaxpr(fun, avals, label=label)[0]


def _run(closed: ClosedJaxpr, *args: Any) -> list:
    return eval_jaxpr(closed.jaxpr, closed.consts, *args)


def _avals(xs: list) -> list:
    return [aval_of(x) for x in xs]


# ---------------------------------------------------------------- checks
# Every check runs on shapes and dtypes only, before or while a body is traced,
# so that a program is accepted or rejected alike eagerly, under jit, grad and
# vmap. Eagerly a loop checks its first step (a body that keeps its carry's
# types on one step keeps them on every step: its output types are a function
# of its input types), or traces the body abstractly when there is no step.

def _describe(td: PyTreeDef) -> str:
    if td.node is None:
        return "an array"
    if td.node is type(None):
        return "None"
    if td.node is dict:
        return f"a dict with keys {list(td.aux)}"
    if td.node is _NamedTuple:
        return f"a {td.aux.__name__}"
    if td.node in (tuple, list):
        return f"a {td.node.__name__} of {len(td.children)}"
    return f"a {td.node.__name__}"


def _structure_difference(a: PyTreeDef, b: PyTreeDef, prefix: str, names: tuple[str, str]
                          ) -> str:
    """Where two different pytree structures first differ, and how."""
    while a.node is b.node and a.aux == b.aux and len(a.children) == len(b.children):
        for key, ca, cb in zip(child_keys(a), a.children, b.children):
            if ca != cb:
                a, b, prefix = ca, cb, prefix + key
                break
        else:  # equal structures (not reached for different ones)
            break
    return f"{prefix} is {_describe(a)} {names[0]} but {_describe(b)} {names[1]}"


def _type_differences(paths: list[str], left: list, right: list,
                      say: Callable[[str, str, str], str]) -> str:
    """``say(path, left type, right type) (the dtypes differ)`` for each leaf whose
    shape or dtype differs, joined by ``;``."""
    out = []
    for path, a, b in zip(paths, left, right):
        if a != b:
            what = " and ".join(w for w, d in (("shapes", a.shape != b.shape),
                                               ("dtypes", a.dtype != b.dtype)) if d)
            out.append(f"{say(path, a.str_short(), b.str_short())} (the {what} differ)")
    return "; ".join(out)


def _param_name(fun: Callable, k: int) -> str:
    """The name of ``fun``'s ``k``-th positional parameter, else ``carry``."""
    return parameter_name(fun, k) or "carry"


class _Carry:
    """A loop's carry: the leaves of its current value, its structure, and its
    weakly typed leaves (Python scalars of ``init``).

    As in JAX, a weakly typed leaf takes the dtype the body gives it (an init
    ``0`` of a body that adds a float becomes ``0.0``): ``settle`` converts it
    and the loop starts again. It starts as a 64-bit array, as every Python
    scalar fad converts, so ``0`` plus float32 data is float64 here (JAX keeps
    float32): write ``np.float32(0)`` for a float32 carry. Any other change of
    structure, shape or dtype is a ``TypeError`` naming the leaf and both types."""

    def __init__(self, init: Any, where: str, name: Callable[[], str],
                 indexed: bool = False):
        leaves, self.tree = tree_flatten(init)
        self.weak = [x if type(x) in _WEAK else None for x in leaves]
        self.leaves = [_leaf_array(x) for x in leaves]
        self.where = where  # "fad.lax.scan's body"
        self.name = name    # the carry's name in the user's code, asked for on errors
        self.indexed = indexed  # init is (loop index, the user's value): fori_loop's

    def paths(self) -> list[str]:
        if self.indexed:
            return ["the loop index"] + treedef_leaf_paths(self.tree.children[1], self.name())
        return treedef_leaf_paths(self.tree, self.name())

    def flatten(self, new: Any) -> list:
        """The leaves of the body's new carry, once its structure is checked."""
        leaves, tree = tree_flatten(new)
        if tree != self.tree:
            raise TypeError(
                f"{self.where} must return its carry with the structure it receives, "
                "but " + _structure_difference(self.tree, tree, self.name(),
                                               ("in the input", "in the output"))
                + f" (input {self.tree}, output {tree}). Return the new carry in the "
                "same containers as the initial value.")
        return [_leaf_array(x) for x in leaves]

    def settle(self, out_avals: list) -> bool:
        """Check the body's carry output types against the carry's own; True when
        a weakly typed leaf was converted (the caller starts the loop again)."""
        in_avals = _avals(self.leaves)
        if in_avals == out_avals:
            return False
        leaves, changed = list(self.leaves), False
        for k, (w, a, b) in enumerate(zip(self.weak, in_avals, out_avals)):
            if w is not None and a.dtype != b.dtype:
                from ..numpy import asarray
                leaves[k] = asarray(w, np.result_type(b.dtype, w))
                changed = True
        self.weak = [None] * len(self.weak)
        if changed:  # (a new list: loops tell a restart by identity)
            self.leaves = leaves
            return True
        raise TypeError(
            f"{self.where} must return its carry with the shapes and dtypes it "
            "receives, but "
            + _type_differences(self.paths(), in_avals, out_avals,
                                lambda p, a, b: f"{p} goes in as {a} and comes out as {b}")
            + ". Keep each carry leaf's shape and dtype in the body (for example "
            "new.astype(old.dtype)), or start from an initial value of the types the "
            "body returns.")

    def settle_abstractly(self, body: Callable, extra_avals: list, label: str) -> ClosedJaxpr:
        """Trace ``body`` at the carry's types (plus ``extra_avals``), settling the
        carry's types first; the trace of the settled carry."""
        while True:
            closed = _trace(body, _avals(self.leaves) + extra_avals, label)
            if not self.settle(closed.out_avals[:len(self.leaves)]):
                return closed


def _scalar(x: Any, what: str, kinds: str, fix: str) -> Any:
    """``x`` as a 0-d array or tracer of a dtype kind in ``kinds``, else a TypeError
    saying ``what`` it must be and naming what it is."""
    if not isinstance(x, bool | int | float | complex | np.generic | Tracer) and not \
            hasattr(x, "__array_namespace__") and not hasattr(x, "__fad_array__"):
        raise TypeError(f"{what}, got {type(x).__name__} {x!r:.60}. {fix}")
    x = _leaf_array(x)
    a = aval_of(x)
    if a.shape != () or a.dtype.kind not in kinds:
        raise TypeError(f"{what}, got {a.str_short()}. {fix}")
    return x


# ---------------------------------------------------------------- cond
def cond(pred: Any, true_fun: Callable, false_fun: Callable, *operands: Any) -> Any:
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``.

    ``pred`` is a scalar boolean or number (a number is true when it is not 0). The
    branches must return the same structure, shapes and dtypes, in every mode:
    when ``pred`` is concrete only the branch taken runs, and the other one is
    traced abstractly to check its output types (unless it needs concrete values,
    as Python control flow on them does).

    >>> import fad, fad.numpy as fnp
    >>> f = fad.jit(lambda x: fad.lax.cond(x > 0, lambda x: x * 2.0, lambda x: -x, x))
    >>> float(f(3.0)), float(f(-3.0))
    (6.0, 3.0)
    >>> float(fad.grad(f)(3.0))
    2.0
    """
    pred = _scalar(pred, "fad.lax.cond's predicate must be a scalar boolean or number",
                   "biuf", "Reduce an array predicate with fnp.all or fnp.any, or choose "
                   "elementwise with fnp.where.")
    leaves, in_tree = tree_flatten(list(operands))
    leaves = [_leaf_array(x) for x in leaves]
    avals = _avals(leaves)
    p = _concrete(pred)
    if p is not None:  # run the branch taken; check the other one's types abstractly
        taken = bool(np.asarray(p))
        out = (true_fun if taken else false_fun)(*operands)
        outs, tree = tree_flatten(out)
        mine = (tree, _avals([_leaf_array(o) for o in outs]))
        other = _other_branch_types(false_fun if taken else true_fun, in_tree, avals, mine,
                                    f"cond's {'false' if taken else 'true'} branch")
        if other is not None and other != mine:
            _check_branches(*(mine + other if taken else other + mine))
        return out
    out_trees: list = []
    branches = (_trace(_flat_branch(false_fun, in_tree, out_trees), avals,
                       "cond's false branch"),
                _trace(_flat_branch(true_fun, in_tree, out_trees), avals,
                       "cond's true branch"))
    _check_branches(out_trees[1], branches[1].out_avals, out_trees[0],
                    branches[0].out_avals)
    (bf, kf), (bt, kt) = lift_tracers(branches[0]), lift_tracers(branches[1])
    if kf or kt:  # both branches take every lifted constant, each ignoring the other's
        nf, nt = len(kf), len(kt)
        branches = (
            _trace(lambda *a: _run(bf, *a[:nf], *a[nf + nt:]),
                   _avals(kf + kt) + avals, "cond's false branch"),
            _trace(lambda *a: _run(bt, *a[nf:nf + nt], *a[nf + nt:]),
                   _avals(kf + kt) + avals, "cond's true branch"))
        leaves = kf + kt + leaves
    from ..primitives.structural import convert_element_type
    truth = pred if aval_of(pred).dtype.kind == "b" else pred != 0
    index = convert_element_type(truth, np.dtype(np.int32))
    outs = bind(cond_p, index, *leaves, branches=branches)
    return tree_unflatten(out_trees[0], outs)


# The output types of branches not taken that matched the branch taken, by
# (code, closures, defaults, globals read, operand types): an eager cond in a
# Python loop traces its other branch once. Only agreements are remembered, so a
# stale entry (state the key does not see, as an attribute of a closed-over
# object, has changed) can at worst miss an error, never raise one; a mismatch
# is always traced afresh.
_AGREED: dict = {}


def _other_branch_types(fun: Callable, in_tree: PyTreeDef, avals: list, taken: tuple,
                        label: str) -> tuple | None:
    """``(out tree, out avals)`` of the branch not taken, traced abstractly; None
    when it needs concrete values (Python control flow on them: not stageable)."""
    key = _function_key(fun, (in_tree, tuple(avals)))
    if key is not None and _AGREED.get(key) == taken:
        return taken
    trees: list = []
    try:
        closed = _trace(_flat_branch(fun, in_tree, trees), avals, label)
    except ConcretizationError:
        return None
    types = (trees[0], closed.out_avals)
    if key is not None and types == taken:
        if len(_AGREED) >= 512:  # (bounded; clear() is atomic, safe across threads)
            _AGREED.clear()
        _AGREED[key] = types
    return types


# values a key may hold as themselves: they keep no user data alive
_PLAIN = (bool, int, float, complex, str, bytes, type(None), type, types.ModuleType,
          types.BuiltinFunctionType)


def _function_key(fun: Callable, extra: tuple) -> tuple | None:
    """What a Python function's output types depend on, hashable: its code, and
    the closure cells, defaults and globals it reads (arrays by shape and dtype,
    plain values as themselves, functions by their own key); None when some part
    is another object, which the key would keep alive."""
    code = getattr(fun, "__code__", None)
    if code is None:
        return None
    parts = [code, extra]
    names = getattr(fun, "__globals__", {})
    for v in [c.cell_contents for c in fun.__closure__ or () if _filled(c)] + \
            list(fun.__defaults__ or ()) + [names[k] for k in code.co_names if k in names]:
        if isinstance(v, Tracer) or hasattr(type(v), "__array_namespace__"):
            parts.append(aval_of(v))
        elif isinstance(v, _PLAIN):
            parts.append((type(v), v))
        elif isinstance(v, types.FunctionType) and not (v.__closure__ or v.__defaults__):
            parts.append(v.__code__)  # (a helper the branch calls: by its code)
        else:
            return None
    return tuple(parts)


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents
    except ValueError:  # (a cell not assigned yet)
        return False
    return True


def _flat_branch(fun: Callable, in_tree: PyTreeDef, out_trees: list) -> Callable:
    """``fun`` on flat operands, returning flat outputs (their structure is appended
    to ``out_trees``)."""
    def f(*xs: Any) -> list:
        out, tree = tree_flatten(fun(*tree_unflatten(in_tree, xs)))
        out_trees.append(tree)
        return [_leaf_array(o) for o in out]
    return f


def _check_branches(t_tree: PyTreeDef, t_avals: list, f_tree: PyTreeDef, f_avals: list
                    ) -> None:
    if t_tree != f_tree:
        raise TypeError(
            "fad.lax.cond's branches must return the same structure, shapes and dtypes, "
            "but " + _structure_difference(t_tree, f_tree, "the output",
                                           ("from true_fun", "from false_fun"))
            + f" (true_fun returns {t_tree}, false_fun {f_tree}). Make both branches "
            "return the same containers.")
    if t_avals != f_avals:
        raise TypeError(
            "fad.lax.cond's branches must return the same structure, shapes and dtypes, "
            "but " + _type_differences(
                treedef_leaf_paths(t_tree, "the output"), t_avals, f_avals,
                lambda p, a, b: f"{p} is {a} from true_fun but {b} from false_fun")
            + ". Make both branches return the same types (for example with "
            ".astype(...) in one of them).")


def _cond_impl(xp: Any, index: Any, *ops: Any, branches: tuple) -> list:
    return writable(_run(branches[int(index)], *ops))


def _cond_jvp(primals: list, tangents: list, *, branches: tuple) -> tuple:
    index, ops = primals[0], primals[1:]
    ts = zeros_where_none(tangents[1:], ops)
    n = len(ops)
    jvp_branches = tuple(_jvp_jaxpr(b, n) for b in branches)
    outs = bind(cond_p, index, *ops, *ts, branches=jvp_branches)
    k = len(outs) // 2
    return outs[:k], outs[k:]


def _jvp_jaxpr(closed: ClosedJaxpr, n: int) -> ClosedJaxpr:
    """``(primals, tangents) -> (outs, out_tangents)`` for a body jaxpr (made once,
    kept with the body)."""
    return derived(closed, ("jvp", n), lambda: _make_jvp_jaxpr(closed, n))


def _make_jvp_jaxpr(closed: ClosedJaxpr, n: int) -> ClosedJaxpr:
    def f(*args: Any) -> list:
        outs, ts = jvp_flat(lambda *xs: _run(closed, *xs), list(args[:n]),
                            list(args[n:]))
        return outs + zeros_where_none(ts, outs)
    avals = closed.in_avals
    return _trace(f, avals + avals, "a jvp of a control-flow body")


def _vjp_jaxpr(closed: ClosedJaxpr, n: int) -> ClosedJaxpr:
    """``(primals, out_cts) -> in_cts`` for a body jaxpr (recomputes the body; made
    once, kept with the body)."""
    return derived(closed, ("vjp", n), lambda: _make_vjp_jaxpr(closed, n))


def _make_vjp_jaxpr(closed: ClosedJaxpr, n: int) -> ClosedJaxpr:
    from ..interpreters.tape import vjp_flat

    def f(*args: Any) -> list:
        outs, pull = vjp_flat(lambda *xs: _run(closed, *xs), list(args[:n]))
        cts = pull(list(args[n:]))
        return zeros_where_none(cts, args[:n])
    return _trace(f, closed.in_avals + closed.out_avals, "a vjp of a control-flow body")


def _cond_vjp_rule(primals: list, *, branches: tuple) -> tuple:
    index, ops = primals[0], primals[1:]
    outs = bind(cond_p, index, *ops, branches=branches)

    def pullback(cts: list) -> list:
        cts = zeros_where_none(cts, outs)
        vjp_branches = tuple(_vjp_jaxpr(b, len(ops)) for b in branches)
        return [None] + list(bind(cond_p, index, *ops, *cts, branches=vjp_branches))
    return outs, pullback


def _cond_batch(size: int, vals: list, dims: list, *, branches: tuple) -> tuple:
    from ..primitives.builders import move_axis
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
    from ..numpy import where
    from ..primitives.builders import to_front
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
    return _scan(f, init, xs, length, reverse, "fad.lax.scan's body f",
                 lambda: _param_name(f, 0))


def _scan(f: Callable, init: Any, xs: Any, length: Any, reverse: bool, where: str,
          name: Callable[[], str]) -> tuple:
    x_leaves, x_tree = tree_flatten(xs)
    x_leaves = [_leaf_array(x) for x in x_leaves]
    n = _scan_length(x_leaves, x_tree, length)
    carry = _Carry(init, where, name)
    nc = len(carry.leaves)
    y_tree: list = []

    def body(*args: Any) -> list:
        out = f(tree_unflatten(carry.tree, args[:nc]), tree_unflatten(x_tree, args[nc:]))
        if not isinstance(out, tuple | list) or len(out) != 2:
            raise TypeError(f"{where} must return a pair (new carry, y), got "
                            f"{type(out).__name__} {out!r:.60}")
        ys, yt = tree_flatten(out[1])
        y_tree[:] = [yt]
        return carry.flatten(out[0]) + [_leaf_array(v) for v in ys]

    x_avals = _avals(x_leaves)
    slice_avals = [type(a)(a.shape[1:], a.dtype) for a in x_avals]
    abstract = any(isinstance(v, Tracer) and _concrete(v) is None
                   for v in carry.leaves + x_leaves)
    if not abstract:  # concrete: a Python loop, differentiable by every mode
        c, ys = _scan_eagerly(body, carry, x_leaves, slice_avals, n, reverse)
        return tree_unflatten(carry.tree, c), tree_unflatten(y_tree[0], ys)
    closed = carry.settle_abstractly(body, slice_avals, "scan's body")
    c_leaves = carry.leaves
    closed, consts = lift_tracers(closed)
    nk = len(consts)
    if consts:  # lifted constants ride along as carries that never change
        inner = closed
        closed = _trace(lambda *a: (lambda o: o[:nc] + list(a[nc:nc + nk]) + o[nc:])(
            _run(inner, *a[nc:nc + nk], *a[:nc], *a[nc + nk:])),
            _avals(c_leaves) + _avals(consts) + slice_avals, "scan's body")
    outs = bind(scan_p, *c_leaves, *consts, *x_leaves, body=closed, length=n,
                reverse=reverse, n_carry=nc + nk)
    return (tree_unflatten(carry.tree, outs[:nc]),
            tree_unflatten(y_tree[0], outs[nc + nk:]))


def _scan_eagerly(body: Callable, carry: _Carry, x_leaves: list, slice_avals: list,
                  n: int, reverse: bool) -> tuple[list, list]:
    """Run a scan as a Python loop; ``(final carry leaves, stacked ys)``. The types
    are checked on the first step (or on an abstract trace when there is none)."""
    from ..numpy import stack, zeros
    nc = len(carry.leaves)
    if n == 0:  # the body's output types give ys of leading length 0
        try:
            closed = carry.settle_abstractly(body, slice_avals, "scan's body")
        except ConcretizationError as e:
            raise ConcretizationError(
                f"{carry.where} is traced abstractly for a scan of 0 steps, to know "
                f"the shapes and dtypes of its outputs: {e}", batched=e.batched) from None
        return carry.leaves, [zeros((0,) + a.shape, a.dtype)
                              for a in closed.out_avals[nc:]]
    while True:  # once more if a weakly typed carry leaf takes the body's dtype
        c, ys = carry.leaves, []
        for i in (range(n - 1, -1, -1) if reverse else range(n)):
            out = body(*c, *[x[i] for x in x_leaves])
            c = out[:nc]
            if not ys and carry.settle(_avals(c)):
                break
            ys.append(out[nc:])
        else:
            if reverse:
                ys.reverse()
            return c, [stack([y[k] for y in ys]) for k in range(len(ys[0]))]


def _scan_length(x_leaves: list, x_tree: PyTreeDef, length: Any) -> int:
    """The number of steps: every leaf of ``xs`` has it as its leading length."""
    lengths = []
    for k, x in enumerate(x_leaves):
        shape = aval_of(x).shape
        if not shape:
            path = treedef_leaf_paths(x_tree, "xs")[k]
            raise ValueError(
                f"fad.lax.scan scans over the leading axis of xs, but {path} is a 0-d "
                f"value ({aval_of(x).str_short()}) with no leading axis. Give it a "
                "leading axis with one entry per step, or let the body close over it.")
        lengths.append(shape[0])
    if length is not None:
        n = _static_int(length)
        bad = [k for k, m in enumerate(lengths) if m != n]
        if bad:
            k = bad[0]
            which = "xs" if len(lengths) == 1 else treedef_leaf_paths(x_tree, "xs")[k]
            raise ValueError(
                f"fad.lax.scan got length={n} but {which} has leading length "
                f"{lengths[k]}. length must equal the leading length of every leaf of "
                "xs: drop it, or slice xs to the steps wanted.")
        return n
    if not lengths:
        raise ValueError("fad.lax.scan needs xs or length: with no arrays to scan over "
                         "(xs=None), pass length=, the number of steps.")
    if len(set(lengths)) > 1:
        paths = treedef_leaf_paths(x_tree, "xs")
        raise ValueError(
            "fad.lax.scan's xs must all have the same leading length (one entry per "
            "step), but " + ", ".join(f"{p} has {m}" for p, m in zip(paths, lengths))
            + ". Slice or pad them to one length.")
    return lengths[0]


def _static_int(length: Any) -> int:
    if isinstance(length, Tracer):
        value = _concrete(length)
        if value is None:
            raise ConcretizationError(
                "fad.lax.scan's length must be a concrete int, but it is traced "
                f"({length.aval.str_short()}): the number of steps fixes the shapes "
                "of ys. Pass a Python int (mark it static with static_argnums under "
                "fad.jit).")
        length = value
    if isinstance(length, bool) or np.ndim(length) != 0 or \
            np.asarray(length).dtype.kind not in "iu":
        raise TypeError(f"fad.lax.scan's length must be an int, got "
                        f"{type(length).__name__} {length!r:.40}")
    n = int(length)
    if n < 0:
        raise ValueError(f"fad.lax.scan's length must be >= 0, got {n}")
    return n


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
    ts = zeros_where_none(tangents, primals)
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
        cts = zeros_where_none(cts, results)
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
    from ..primitives.builders import move_axis
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
    carry = _Carry(init_val, "fad.lax.while_loop's body_fun",
                   lambda: _param_name(body_fun, 0))
    return tree_unflatten(carry.tree, _while(cond_fun, body_fun, carry))


def _loop_predicate(out: Any) -> Any:
    if type(out) is np.bool_:  # (the common case, checked at once: this runs per step)
        return out
    leaves, tree = tree_flatten(out)
    if tree.node is not None:
        raise TypeError("fad.lax.while_loop's cond_fun must return a boolean scalar, but "
                        f"it returned {_describe(tree)} ({tree}). Return one boolean.")
    return _scalar(leaves[0], "fad.lax.while_loop's cond_fun must return a boolean scalar",
                   "b", "Reduce an array with fnp.all or fnp.any, or compare (v < limit) "
                   "to get a boolean.")


def _while(cond_fun: Callable, body_fun: Callable, carry: _Carry) -> list:
    """The final carry leaves of ``while cond_fun(val): val = body_fun(val)``."""
    tree = carry.tree

    def c(*xs: Any) -> list:
        return [_loop_predicate(cond_fun(tree_unflatten(tree, xs)))]

    def b(*xs: Any) -> list:
        return carry.flatten(body_fun(tree_unflatten(tree, xs)))

    if all(not isinstance(v, Tracer) or _concrete(v) is not None for v in carry.leaves):
        done = _while_eagerly(c, b, carry)
        if done is not None:
            return done
    # the predicate is abstract (under jit, or a per-example predicate under vmap)
    cj = _trace(c, _avals(carry.leaves), "while_loop's condition")
    bj = carry.settle_abstractly(b, [], "while_loop's body")
    if cj.in_avals != bj.in_avals:  # a weakly typed leaf was converted
        cj = _trace(c, _avals(carry.leaves), "while_loop's condition")
    leaves = carry.leaves
    cj, kc = lift_tracers(cj)
    bj, kb = lift_tracers(bj)
    n, n1 = len(leaves), len(kc)
    if kc or kb:  # lifted constants ride along as unchanging carries
        all_avals = _avals(leaves) + _avals(kc + kb)
        c0, b0 = cj, bj
        cj = _trace(lambda *a: _run(c0, *a[n:n + n1], *a[:n]), all_avals, "while cond")
        bj = _trace(lambda *a: _run(b0, *a[n + n1:], *a[:n]) + list(a[n:]), all_avals,
                    "while body")
    outs = bind(while_p, *leaves, *kc, *kb, cond=cj, body=bj)
    return list(outs[:n])


def _while_eagerly(c: Callable, b: Callable, carry: _Carry) -> list | None:
    """Run the loop in Python; its final carry leaves, or None when the predicate
    turns out abstract (``carry.leaves`` then holds the values reached). The types
    are checked on the first step, or on an abstract trace when there is none."""
    while True:  # once more if a weakly typed carry leaf takes the body's dtype
        val, first = carry.leaves, True
        while True:
            p = _concrete(c(*val)[0])
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
                if carry.settle(_avals(new)):
                    break
            val = new


def _while_impl(xp: Any, *val: Any, cond: ClosedJaxpr, body: ClosedJaxpr) -> list:
    val = list(val)
    while bool(_run(cond, *val)[0]):
        val = _run(body, *val)
    return writable(val)


def _while_jvp(primals: list, tangents: list, *, cond: ClosedJaxpr, body: ClosedJaxpr
               ) -> tuple:
    n = len(primals)
    ts = zeros_where_none(tangents, primals)
    jb = _jvp_jaxpr(body, n)
    cond2 = _trace(lambda *a: _run(cond, *a[:n]), body.in_avals * 2, "while cond")
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
        "bounds, or fad.lax.scan; or forward mode (fad.jvp, fad.jacfwd). Without jit, "
        "fad.grad runs the loop in Python and differentiates it.")


def _while_vjp_rule(primals: list, *, cond: ClosedJaxpr, body: ClosedJaxpr) -> tuple:
    """The forward loop runs; a cotangent reaching it is an error (see above)."""
    return list(bind(while_p, *primals, cond=cond, body=body)), _while_reverse_error


while_p.vjp_rule = _while_vjp_rule
while_p.transpose = _while_reverse_error


def _while_batch(size: int, vals: list, dims: list, *, cond: ClosedJaxpr,
                 body: ClosedJaxpr) -> tuple:
    """Each example runs its own number of steps: loop over the examples."""
    from ..primitives.builders import loop_batch_rule
    return loop_batch_rule(while_p)(size, vals, dims, cond=cond, body=body)


while_p.batch = _while_batch


def fori_loop(lower: int, upper: int, body_fun: Callable, init_val: Any) -> Any:
    """``for i in range(lower, upper): val = body_fun(i, val)``. With concrete bounds
    (Python ints) this is a ``scan`` (differentiable in both modes); with traced
    ones a ``while_loop`` (forward mode only under ``jit``).

    The bounds are integer scalars (a float bound is a ``TypeError``, as in JAX);
    ``body_fun`` keeps the structure, shapes and dtypes of ``val``.

    >>> import fad
    >>> float(fad.grad(lambda x: fad.lax.fori_loop(0, 3, lambda i, v: v * x, 1.0))(2.0))
    12.0
    """
    fix = ("Pass ints (int(b), or b.astype(int) for a traced bound); to step through "
           "floats, loop over an int and compute the float in the body.")
    lower = _scalar(lower, "fad.lax.fori_loop's lower bound must be an integer scalar",
                    "iu", fix)
    upper = _scalar(upper, "fad.lax.fori_loop's upper bound must be an integer scalar",
                    "iu", fix)
    where, name = "fad.lax.fori_loop's body_fun", lambda: _param_name(body_fun, 1)
    lo, hi = _concrete(lower), _concrete(upper)
    if lo is not None and hi is not None:
        lo, hi = int(lo), int(hi)

        def step(carry: Any, i: Any) -> tuple:
            return body_fun(i, carry), None
        from ..numpy import arange
        return _scan(step, init_val, arange(lo, max(lo, hi)), None, False, where, name)[0]

    def c(state: tuple) -> Any:
        return state[0] < upper

    val = _Carry(init_val, where, name)  # checks the body's structure in its names

    def b(state: tuple) -> tuple:
        i, v = state
        new = body_fun(i, v)
        val.flatten(new)
        return i + 1, new

    carry = _Carry((lower, init_val), where, name, indexed=True)
    return tree_unflatten(carry.tree, _while(c, b, carry))[1]


__all__ = ["cond", "scan", "while_loop", "fori_loop"]
