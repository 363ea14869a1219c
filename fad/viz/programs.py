"""Pictures of programs: a jaxpr, or a function at example arguments, and beside
it the gradient program (``make_jaxpr(grad(f))``, or the pull-back of ``vjp``).
Variables carry the names the jaxpr printer gives them."""

from __future__ import annotations

import inspect
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..core.ir import (
    ClosedJaxpr,
    Jaxpr,
    Literal,
    ShapedArray,
    Var,
    literal_text,
    pp_param,
    var_names,
)
from ..core.trace import aval_of
from ..interpreters.evaluate import eval_jaxpr
from ..transforms import autodiff
from ..tree import tree_leaf_paths, tree_leaves, tree_structure, tree_unflatten
from .graph import (
    _BWD_OP,
    _CONST,
    _COTANGENT,
    _FWD_OP,
    _GRAD_OUT,
    _INPUT,
    _OUTPUT,
    Graph,
    _Canvas,
    _label,
    _names_by_identity,
)

_PARAM_WIDTH = 40


def _aval_text(x: Any) -> str:
    aval = getattr(x, "aval", None)
    if isinstance(aval, ShapedArray):
        return aval.str_short()
    return "?"


def _literal_text(lit: Literal) -> str:
    """The printer's text of a literal, or its ``repr`` when its value does not
    convert to its dtype's kind."""
    try:
        return literal_text(lit)
    except (TypeError, ValueError):
        return repr(lit.val)


def _param_text(value: Any) -> str:
    if isinstance(value, ClosedJaxpr | Jaxpr):
        inner = value.jaxpr if isinstance(value, ClosedJaxpr) else value
        return f"{{ {len(inner.eqns)} eqns }}"
    try:
        text = pp_param(value)
    except Exception:  # noqa: BLE001 - a parameter that cannot print itself
        text = object.__repr__(value)
    text = " ".join(str(text).split())
    return text if len(text) <= _PARAM_WIDTH else text[:_PARAM_WIDTH - 3] + "..."


def _param_key(value: Any) -> str:
    try:
        return pp_param(value)
    except Exception:  # noqa: BLE001
        return f"<{id(value)}>"


def _draw_program(canvas: _Canvas, sub: Any, jaxpr: Jaxpr, consts: Sequence | None, *,
                  prefix: str, in_labels: Sequence[str], out_labels: Sequence[str],
                  op_color: str = _FWD_OP, in_color: Sequence[str] | None = None,
                  out_color: str = _OUTPUT,
                  shared: Mapping[Var, tuple[str, str]] | None = None,
                  skip: set[int] | None = None, names_from: int = 0
                  ) -> dict[Var, tuple[str, str]]:
    """Draw ``jaxpr``'s nodes into ``sub`` and its edges into ``canvas``.

    ``shared`` maps variables already drawn elsewhere to ``(node id, name)``;
    equations whose index is in ``skip`` are not drawn (their outputs are in
    ``shared``); the other variables are named from the ``names_from``-th
    name on. Returns every variable's ``(producing node id, display name)``.
    """
    shared = shared or {}
    names = var_names(jaxpr, shared, names_from)
    env: dict[Var, tuple[str, str]] = {}
    skip = skip or set()

    def source(v: Var) -> tuple[str, str]:
        if v in env:
            return env[v]
        if v in shared:
            return shared[v]
        nid = f"{prefix}undef{len(env)}"
        canvas.node(sub, nid, _label("?", names.get(v, "?")), shape="box", fillcolor="white")
        env[v] = (nid, names.get(v, "?"))
        return env[v]

    for i, v in enumerate(jaxpr.constvars):
        if v in shared:
            continue
        nid = f"{prefix}const{i}"
        tip = ""
        if consts is not None and i < len(consts):
            tip = " ".join(repr(consts[i]).split())[:200]
        canvas.node(sub, nid, _label(f"const {names[v]}", _aval_text(v)), shape="box",
                    style="filled,rounded", fillcolor=_CONST, tooltip=tip or names[v])
        env[v] = (nid, names[v])
    for i, v in enumerate(jaxpr.invars):
        if v in shared:
            continue
        nid = f"{prefix}in{i}"
        user = in_labels[i] if i < len(in_labels) else names[v]
        first = user if user == names[v] else f"{user} ({names[v]})"
        color = in_color[i] if in_color is not None and i < len(in_color) else _INPUT
        canvas.node(sub, nid, _label(first, _aval_text(v)), shape="box", style="filled,rounded",
                    fillcolor=color)
        env[v] = (nid, names[v])

    n_lit = 0

    def literal_node(lit: Literal) -> str:
        nonlocal n_lit
        nid = f"{prefix}lit{n_lit}"
        n_lit += 1
        text = _literal_text(lit)
        canvas.node(sub, nid, _label(text), shape="plaintext", style="", fontsize="9",
                    tooltip=f"{text}:{_aval_text(lit)}")
        return nid

    def connect(a: Any, nid: str) -> None:
        """An edge from the node that holds ``a`` (a literal: a node of its own) to ``nid``."""
        if type(a) is Literal:
            canvas.edge(literal_node(a), nid)
        else:
            tail, nm = source(a)
            canvas.edge(tail, nid, label=_label(f"{nm}:{_aval_text(a)}"))

    for k, eqn in enumerate(jaxpr.eqns):
        if k in skip:
            continue
        nid = f"{prefix}eq{k}"
        prim = getattr(eqn.primitive, "name", str(eqn.primitive))
        lines = [prim] + [f"{p}={_param_text(val)}" for p, val in eqn.params.items()]
        args_text = []
        for a in eqn.invars:
            if type(a) is Literal:
                args_text.append(f"{_literal_text(a)}:{_aval_text(a)}")
            else:
                args_text.append(source(a)[1])
        outs_text = " ".join(f"{names[v]}:{_aval_text(v)}" for v in eqn.outvars)
        params_text = ""
        if eqn.params:
            params_text = "[" + " ".join(f"{p}={_param_text(val)}"
                                         for p, val in eqn.params.items()) + "]"
        tip = f"{outs_text} = {prim}{params_text} {' '.join(args_text)}"
        src = getattr(eqn, "source", None)
        if src:
            tip += f"  ({src})"
        canvas.node(sub, nid, _label(*lines), shape="box", fillcolor=op_color, tooltip=tip)
        for a in eqn.invars:
            connect(a, nid)
        for v in eqn.outvars:
            env[v] = (nid, names[v])

    for i, v in enumerate(jaxpr.outvars):
        nid = f"{prefix}out{i}"
        label = out_labels[i] if i < len(out_labels) else f"out[{i}]"
        canvas.node(sub, nid, _label(label, _aval_text(v)), shape="box", style="filled,bold",
                    fillcolor=out_color)
        connect(v, nid)
    return env


def _eqn_key(eqn: Any, lookup: Callable[[Var], Any]) -> tuple | None:
    ins: list = []
    for a in eqn.invars:
        if type(a) is Literal:
            ins.append(("lit", _literal_text(a), _aval_text(a)))
        else:
            target = lookup(a)
            if target is None:
                return None
            ins.append(("var", id(target)))
    params = tuple((k, _param_key(v)) for k, v in sorted(eqn.params.items()))
    return (id(eqn.primitive), params, tuple(ins))


def _match_forward(fwd: Jaxpr, fconsts: Sequence, bwd: Jaxpr, bconsts: Sequence,
                   n_inputs: int) -> tuple[dict[Var, Var], set[int]]:
    """Which variables and equations of ``bwd`` merely recompute ``fwd``'s.

    Returns ``(bwd var -> fwd var, indices of bwd equations to leave out)``.
    """
    mapping: dict[Var, Var] = {}
    for bv, fv in zip(bwd.invars[:n_inputs], fwd.invars[:n_inputs]):
        if getattr(bv, "aval", None) == getattr(fv, "aval", None):
            mapping[bv] = fv
    by_id = {id(c): fv for fv, c in zip(fwd.constvars, fconsts)}
    for bv, c in zip(bwd.constvars, bconsts):
        if id(c) in by_id:
            mapping[bv] = by_id[id(c)]
    ident = {v: v for v in fwd.constvars + fwd.invars}
    table: dict[tuple, list] = {}
    for eqn in fwd.eqns:
        key = _eqn_key(eqn, lambda v: ident.get(v, v))
        if key is not None:
            table.setdefault(key, eqn.outvars)
    skip: set[int] = set()
    for k, eqn in enumerate(bwd.eqns):
        key = _eqn_key(eqn, mapping.get)
        outs = table.get(key) if key is not None else None
        if outs is None or len(outs) != len(eqn.outvars):
            continue
        if any(getattr(b, "aval", None) != getattr(f, "aval", None)
               for b, f in zip(eqn.outvars, outs)):
            continue
        for b, f in zip(eqn.outvars, outs):
            mapping[b] = f
        skip.add(k)
    return mapping, skip


def _draw_programs(fwd: ClosedJaxpr | Jaxpr, *, in_labels: Sequence[str],
                   out_labels: Sequence[str], grad: tuple | None,
                   fwd_title: str | None) -> Graph:
    """Draw ``fwd`` alone, or, with ``grad``, in a cluster beside its gradient program.

    ``grad`` is ``(bwd closed jaxpr, n inputs shared with fwd, bwd input labels,
    bwd output labels, bwd input colours, title)``.
    """
    fj, fconsts = _split_closed(fwd)
    if grad is None:
        canvas = _Canvas()
        _draw_program(canvas, canvas.graph, fj, fconsts, prefix="",
                      in_labels=in_labels, out_labels=out_labels)
        return canvas.finish()
    bwd, n_shared, b_in, b_out, b_colors, title = grad
    bj, bconsts = _split_closed(bwd)
    canvas = _Canvas()
    with canvas.graph.subgraph(name="cluster_forward") as sub:
        sub.attr(label=_label(fwd_title or "forward program"), style="rounded",
                 color="#999999", fontname="Helvetica-Bold")
        fenv = _draw_program(canvas, sub, fj, fconsts, prefix="fwd_",
                             in_labels=in_labels, out_labels=out_labels)
    mapping, skip = _match_forward(fj, fconsts or [], bj, bconsts or [], n_shared)
    shared = {b: fenv[f] for b, f in mapping.items() if f in fenv}
    with canvas.graph.subgraph(name="cluster_backward") as sub:
        sub.attr(label=_label(title), style="rounded", color="#cc4125",
                 fontname="Helvetica-Bold")
        _draw_program(canvas, sub, bj, bconsts, prefix="bwd_", in_labels=b_in,
                      out_labels=b_out, op_color=_BWD_OP, in_color=b_colors,
                      out_color=_GRAD_OUT, shared=shared, skip=skip,
                      names_from=len(var_names(fj)))
    return canvas.finish()


def _split_closed(obj: ClosedJaxpr | Jaxpr) -> tuple[Jaxpr, list | None]:
    if isinstance(obj, ClosedJaxpr):
        return obj.jaxpr, list(obj.consts)
    return obj, None


def _is_float_leaf(x: Any) -> bool:
    aval = _aval_of(x)
    return aval is not None and aval.dtype.kind in "fc"


def _aval_of(x: Any) -> ShapedArray | None:
    if isinstance(x, ShapedArray):
        return x
    try:
        return aval_of(x)
    except Exception:  # noqa: BLE001
        try:
            arr = np.asarray(x)
            return ShapedArray(arr.shape, arr.dtype)
        except Exception:  # noqa: BLE001
            return None


def _param_names(fun: Callable, n: int) -> list[str]:
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    out: list[str] = []
    for i in range(n):
        if i < len(params) and params[i].kind in (params[i].POSITIONAL_ONLY,
                                                  params[i].POSITIONAL_OR_KEYWORD):
            out.append(params[i].name)
        elif params and params[-1].kind is params[-1].VAR_POSITIONAL and i >= len(params) - 1:
            out.append(f"{params[-1].name}[{i - len(params) + 1}]")
        else:
            out.append(f"arg{i}")
    return out


def _fun_name(fun: Callable) -> str:
    name = getattr(fun, "__name__", "")
    return name if name.isidentifier() else ""


def _grad_program(fun: Callable, args: tuple, nums: tuple[int, ...],
                  out_avals: Sequence[ShapedArray], out_tree: Any,
                  arg_labels: Sequence[Sequence[str]], out_labels: Sequence[str]) -> tuple:
    """The gradient (or pull-back) program of ``fun`` at ``args``, with its labels."""
    in_labels = [lab for labs in arg_labels for lab in labs]
    grad_labels = [f"grad {lab}" for i in nums for lab in arg_labels[i]]
    scalar = (len(out_avals) == 1 and out_avals[0].shape == ()
              and out_avals[0].dtype.kind in "fc" and out_tree == tree_structure(0))
    name = _fun_name(fun) or "f"
    if scalar:
        bwd = autodiff.make_jaxpr(autodiff.grad(fun, argnums=nums))(*args)
        title = f"gradient program: make_jaxpr(grad({name}))"
        return bwd, len(in_labels), in_labels, grad_labels, None, title

    def pullback(*primals_and_ct: Any) -> Any:
        primals, ct = primals_and_ct[:-1], primals_and_ct[-1]

        def partial(*diff: Any) -> Any:
            full = list(primals)
            for i, d in zip(nums, diff):
                full[i] = d
            return fun(*full)

        _, pull = autodiff.vjp(partial, *[primals[i] for i in nums])
        return pull(ct)

    ct = tree_unflatten(out_tree, [np.zeros(a.shape, a.dtype) for a in out_avals])
    bwd = autodiff.make_jaxpr(pullback)(*args, ct)
    ct_labels = [f"cotangent of {lab}" for lab in out_labels]
    grad_labels = [f"cotangent of {lab}" for i in nums for lab in arg_labels[i]]
    colors = [_INPUT] * len(in_labels) + [_COTANGENT] * len(ct_labels)
    title = f"backward program: the pull-back of vjp({name})"
    return bwd, len(in_labels), in_labels + ct_labels, grad_labels, colors, title


def _resolve_argnums(argnums: int | Sequence[int] | None, args: Sequence,
                     what: str) -> tuple[int, ...]:
    n = len(args)
    if argnums is None:
        nums = tuple(i for i, a in enumerate(args)
                     if tree_leaves(a) and all(_is_float_leaf(x) for x in tree_leaves(a)))
        if not nums:
            raise TypeError(f"fad.viz.draw(..., backward=True): {what} has no floating-point "
                            "input to differentiate with respect to")
        return nums
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    return tuple(i % n if -n <= i < n else _bad_argnum(i, n) for i in nums)


def _bad_argnum(i: int, n: int) -> int:
    raise ValueError(f"argnums {i} is out of range for {n} inputs")


def _draw_function(fun: Callable, args: tuple, *, backward: bool, names: Any,
                   argnums: Any) -> Graph:
    fwd = autodiff.make_jaxpr(fun)(*args)
    bases = _param_names(fun, len(args))
    if isinstance(names, Mapping):
        by_id = _names_by_identity(names)
        bases = [by_id.get(id(a), b) for a, b in zip(args, bases)]
    arg_labels = [tree_leaf_paths(a, b) for a, b in zip(args, bases)]
    in_labels = [lab for labs in arg_labels for lab in labs]
    if names is not None and not isinstance(names, Mapping):
        given = [str(s) for s in names]
        in_labels = given + in_labels[len(given):]
        it = iter(in_labels)
        arg_labels = [[next(it) for _ in labs] for labs in arg_labels]
    out_labels = _out_labels(fun, len(fwd.jaxpr.outvars))
    grad = None
    if backward:
        nums = _resolve_argnums(argnums, args, f"function {_fun_name(fun) or fun!r}")
        grad = _grad_program(fun, args, nums, fwd.out_avals, fwd.out_tree, arg_labels,
                             out_labels)
    name = _fun_name(fun)
    return _draw_programs(fwd, in_labels=in_labels, out_labels=out_labels, grad=grad,
                          fwd_title=f"forward program: make_jaxpr({name or 'f'})")


def _out_labels(fun: Callable | None, n: int) -> list[str]:
    base = _fun_name(fun) if fun is not None else ""
    if n == 1:
        return [base or "out"]
    return [f"{base or 'out'}[{i}]" for i in range(n)]


def _draw_jaxpr(obj: ClosedJaxpr | Jaxpr, *, backward: bool, names: Any,
                argnums: Any) -> Graph:
    jaxpr, consts = _split_closed(obj)
    printed = var_names(jaxpr)
    in_labels = [printed[v] for v in jaxpr.invars]
    if names is not None:
        if isinstance(names, Mapping) or isinstance(names, str):
            raise TypeError("for a jaxpr, names is a sequence of names for its inputs, "
                            "in order: names=['x', 'w']")
        given = [str(s) for s in names]
        in_labels = given + in_labels[len(given):]
    out_labels = _out_labels(None, len(jaxpr.outvars))
    grad = None
    if backward:
        if consts is None and jaxpr.constvars:
            raise TypeError("fad.viz.draw(jaxpr, backward=True) needs the constants' values: "
                            "pass the ClosedJaxpr (as fad.make_jaxpr returns it)")
        grad = _jaxpr_grad_program(jaxpr, consts or [], in_labels, out_labels, argnums)
    return _draw_programs(obj, in_labels=in_labels, out_labels=out_labels, grad=grad,
                          fwd_title="forward program")


def _jaxpr_grad_program(jaxpr: Jaxpr, consts: list, in_labels: list[str],
                        out_labels: list[str], argnums: Any) -> tuple:
    """The gradient program of a jaxpr, obtained by re-tracing it: ``eval_jaxpr``
    binds each equation again, under ``grad`` or ``vjp``."""
    avals = [v.aval for v in jaxpr.invars]
    args = tuple(np.zeros(a.shape, a.dtype) for a in avals)
    out_avals = [v.aval for v in jaxpr.outvars]
    single = len(out_avals) == 1

    def program(*xs: Any) -> Any:
        outs = eval_jaxpr(jaxpr, consts, *xs)
        return outs[0] if single else tuple(outs)

    program.__name__ = "jaxpr"
    out_tree = tree_structure(0) if single else tree_structure(tuple(range(len(out_avals))))
    nums = _resolve_argnums(argnums, args, "the jaxpr")
    return _grad_program(program, args, nums, out_avals, out_tree,
                         [[lab] for lab in in_labels], out_labels)
