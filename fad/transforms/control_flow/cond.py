"""``fad.lax.cond`` and ``switch``: the branch taken runs when the predicate
(index) is concrete; under abstract tracing every branch is staged into the one
``cond`` primitive (its ``branches`` indexed by an int32 operand), whose rules
transform every branch (reverse mode re-runs the taken branch's vjp backwards;
under ``vmap`` with a per-example index every branch runs and a tree of
``select``s merges them)."""

from __future__ import annotations

import types
from collections.abc import Sequence
from typing import Any, Callable

import numpy as np

from ...backends.dask_backend import is_dask_array
from ...core.errors import ConcretizationError
from ...core.primitive import Primitive
from ...core.trace import Tracer, aval_of, bind, concrete_or_none
from ...interpreters.staging import lift_tracers, writable
from ...primitives.builders import move_axis, to_front, zeros_where_none
from ...primitives.elementwise import max_p, min_p
from ...primitives.structural import convert_element_type, reshape
from ...tree import PyTreeDef, tree_flatten, tree_unflatten, treedef_leaf_paths
from ..leaves import leaf_array
from ..programs import avals_of, jvp_program, run, trace_program, vjp_program
from ..vmap import vmap
from .checks import scalar, structure_difference, type_differences
from .selection import pick

_JVP, _VJP = "a jvp of a control-flow body", "a vjp of a control-flow body"


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
    pred = scalar(pred, "fad.lax.cond's predicate must be a scalar boolean or number",
                  "biuf", "Reduce an array predicate with fnp.all or fnp.any, or choose "
                  "elementwise with fnp.where.")
    p = concrete_or_none(pred)
    if p is not None:
        index: Any = int(bool(np.asarray(p)))
    else:
        truth = pred if aval_of(pred).dtype.kind == "b" else pred != 0
        index = convert_element_type(truth, np.dtype(np.int32))
    return _branch(index, (false_fun, true_fun), ("false_fun", "true_fun"), 1, "cond",
                   operands)


def switch(index: Any, branches: Sequence[Callable], *operands: Any) -> Any:
    """``branches[index](*operands)``, ``index`` clamped to ``[0, len(branches) - 1]``.

    One ``cond`` primitive holds every branch (no nesting): the branch taken runs
    when ``index`` is concrete; under ``jit`` every branch is staged; under
    ``vmap`` with a per-example index every branch runs and ``select_n`` keeps
    each example's. The branches return the same structure, shapes and dtypes.

    >>> import fad
    >>> fs = [lambda x: x + 1.0, lambda x: x * 10.0, lambda x: -x]
    >>> f = fad.jit(lambda i, x: fad.lax.switch(i, fs, x))
    >>> [float(f(i, 2.0)) for i in (-5, 1, 2, 7)]
    [3.0, 20.0, -2.0, -2.0]
    >>> float(fad.grad(lambda x: fad.lax.switch(1, fs, x))(2.0))
    10.0
    """
    if callable(branches) or not isinstance(branches, Sequence) or \
            not all(callable(b) for b in branches):
        raise TypeError("fad.lax.switch's branches must be a sequence of functions, got "
                        f"{type(branches).__name__} {branches!r:.60}. Pass a list "
                        "[f0, f1, ...].")
    if not branches:
        raise ValueError("fad.lax.switch needs at least one branch; got an empty "
                         "sequence.")
    index = scalar(index, "fad.lax.switch's index must be an integer scalar", "iu",
                   "Convert it with .astype(int) (a float index is not rounded; for a "
                   "boolean, use fad.lax.cond).")
    n = len(branches)
    p = concrete_or_none(index)
    if p is not None:
        k: Any = min(max(int(np.asarray(p)), 0), n - 1)
    else:
        k = convert_element_type(index, np.dtype(np.int32))
        k = bind(min_p, bind(max_p, k, 0), n - 1)
    return _branch(k, tuple(branches), tuple(f"branches[{i}]" for i in range(n)), 0,
                   "switch", operands)


def _branch(index: Any, funs: tuple, names: tuple, ref: int, label: str,
            operands: tuple) -> Any:
    """``funs[index](*operands)`` (``index`` an int, or an int32 tracer in range);
    every branch's output types are checked against branch ``ref``'s."""
    leaves, in_tree = tree_flatten(list(operands))
    leaves = [leaf_array(x) for x in leaves]
    avals = avals_of(leaves)
    if isinstance(index, int):  # run the branch taken; check the others abstractly
        out = funs[index](*operands)
        outs, tree = tree_flatten(out)
        mine = (tree, avals_of([leaf_array(o) for o in outs]))
        for j, fun in enumerate(funs):
            if j == index:
                continue
            other = _other_branch_types(fun, in_tree, avals, mine,
                                        f"{label}'s {names[j]}")
            if other is not None and other != mine:
                pair = (index, j) if index == ref or j != ref else (j, index)
                found = {index: mine, j: other}
                _check_branches(label, *(names[i] for i in pair),
                                *found[pair[0]], *found[pair[1]])
        return out
    out_trees: list = []
    programs = [trace_program(_flat_branch(f, in_tree, out_trees), avals,
                              f"{label}'s {name}") for f, name in zip(funs, names)]
    for j in range(len(funs)):
        if j != ref:
            _check_branches(label, names[ref], names[j], out_trees[ref],
                            programs[ref].out_avals, out_trees[j], programs[j].out_avals)
    lifted = [lift_tracers(p) for p in programs]
    consts = [k for _, ks in lifted for k in ks]
    if consts:  # every branch takes every lifted constant, ignoring the others'
        every = avals_of(consts) + avals
        starts = np.cumsum([0] + [len(ks) for _, ks in lifted]).tolist()
        nk = len(consts)
        programs = [trace_program(
            lambda *a, b=b, lo=lo, hi=hi: run(b, *a[lo:hi], *a[nk:]), every,
            f"{label}'s {name}")
            for (b, _), lo, hi, name in zip(lifted, starts, starts[1:], names)]
        leaves = consts + leaves
    outs = bind(cond_p, index, *leaves, branches=tuple(programs))
    return tree_unflatten(out_trees[ref], outs)


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
        closed = trace_program(_flat_branch(fun, in_tree, trees), avals, label)
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
        if isinstance(v, Tracer) or hasattr(type(v), "__array_namespace__") or \
                is_dask_array(type(v)):
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
        return [leaf_array(o) for o in out]
    return f


def _check_branches(label: str, a: str, b: str, a_tree: PyTreeDef, a_avals: list,
                    b_tree: PyTreeDef, b_avals: list) -> None:
    if a_tree != b_tree:
        raise TypeError(
            f"fad.lax.{label}'s branches must return the same structure, shapes and "
            "dtypes, but " + structure_difference(a_tree, b_tree, "the output",
                                                  (f"from {a}", f"from {b}"))
            + f" ({a} returns {a_tree}, {b} {b_tree}). Make the branches return the "
            "same containers.")
    if a_avals != b_avals:
        raise TypeError(
            f"fad.lax.{label}'s branches must return the same structure, shapes and "
            "dtypes, but " + type_differences(
                treedef_leaf_paths(a_tree, "the output"), a_avals, b_avals,
                lambda p, x, y: f"{p} is {x} from {a} but {y} from {b}")
            + ". Make the branches return the same types (for example with "
            ".astype(...) in one of them).")


def _cond_impl(xp: Any, index: Any, *ops: Any, branches: tuple) -> list:
    return writable(run(branches[int(index)], *ops))


def _cond_jvp(primals: list, tangents: list, *, branches: tuple) -> tuple:
    index, ops = primals[0], primals[1:]
    ts = zeros_where_none(tangents[1:], ops)
    n = len(ops)
    jvp_branches = tuple(jvp_program(b, (True,) * n, _JVP) for b in branches)
    outs = bind(cond_p, index, *ops, *ts, branches=jvp_branches)
    k = len(outs) // 2
    return outs[:k], outs[k:]


def _cond_vjp_rule(primals: list, *, branches: tuple) -> tuple:
    index, ops = primals[0], primals[1:]
    outs = bind(cond_p, index, *ops, branches=branches)

    def pullback(cts: list) -> list:
        cts = zeros_where_none(cts, outs)
        vjp_branches = tuple(vjp_program(b, len(ops), _VJP) for b in branches)
        return [None] + list(bind(cond_p, index, *ops, *cts, branches=vjp_branches))
    return outs, pullback


def _cond_batch(size: int, vals: list, dims: list, *, branches: tuple) -> tuple:
    index, ops = vals[0], vals[1:]
    op_dims = dims[1:]
    batched = [vmap(lambda *xs, b=b: run(b, *xs), in_axes=tuple(op_dims))
               if any(d is not None for d in op_dims) else
               (lambda *xs, b=b: [move_axis(o, None, 0, size) for o in run(b, *xs)])
               for b in branches]
    if dims[0] is None:  # one predicate for the whole batch: a cond of batched bodies
        fns = tuple(trace_program(lambda *xs, r=r: list(r(*xs)), avals_of(ops),
                                  "a batched branch") for r in batched)
        return bind(cond_p, index, *ops, branches=fns), [0] * len(branches[0].out_avals)
    # an index per example: run every branch, keep each example's choice
    picks = to_front(index, dims[0])
    results = [b(*ops) for b in batched]
    merged = []
    for outs in zip(*results):
        shape = aval_of(outs[0]).shape
        merged.append(pick(reshape(picks, (size,) + (1,) * (len(shape) - 1)), list(outs)))
    return merged, [0] * len(merged)


cond_p = Primitive("cond", _cond_impl,
                   lambda index, *ops, branches: branches[0].out_avals,
                   multiple_results=True)
cond_p.jvp = _cond_jvp
cond_p.vjp_rule = _cond_vjp_rule
cond_p.batch = _cond_batch
