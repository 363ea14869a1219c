"""The recorder of a cached program, as generated code.

An operation of several primitives is recorded by its cached program
(``fad/torch/_recorder.py``): the program's generated forward runs on the arrays,
the values its pullback reads are kept for the node, and the node and the output
Tensors are made. Which argument feeds which input of the program, which of the
forward's results are outputs or read by the pullback, which outputs are floating
(and so get the node) or are an input itself, which are guarded as saved: all of it
is fixed by the program's signature. So each program records through a function
generated for it, in which those decisions are already taken, instead of walking
its environment of slots at every call. ``_recorder._apply_program`` keeps the
general walk for a program whose forward is not generated code (another backend
than NumPy).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ._direct import (
    _DIFF,
    _aliasing,
    _edges,
    _saved_tensors,
    _with_views,
    generated_function,
)
from ._graph import make_node, save_output
from .tensor import wrap


def program_recorder(prog: Any, op: Any, diff: tuple, n_vals: int, out_avals: list
                     ) -> Callable | None:
    """``record(args, vals, params, dt)`` for ``prog`` (a ``_recorder._Program`` of
    ``op`` with ``n_vals`` arguments, recording those at ``diff``; ``out_avals``: its
    outputs' abstract values), or ``None`` when the general walk must be kept.
    ``record`` gives the output Tensor(s), or ``None`` on an error or an output of
    another dtype than the program's (the general path then records the call)."""
    if prog.run is None or not diff:  # (no diff: a call recording nothing)
        return None
    inputs = {s: (f"vals[{src}]" if type(src) is int else f"params[{src!r}]")
              for s, src in zip(prog.in_slots, prog.sources)}
    ran = {s: f"r[{k}]" for k, s in enumerate(prog.run_slots)}

    def value(s: int) -> str:
        return ran.get(s) or inputs[s]

    ts = [f"args[{i}]" for i in diff]
    lines = ["def record(args, vals, params, dt):", "    try:",
             f"        r = _run({', '.join(inputs[s] for s in prog.in_slots)})",
             "    except Exception:", "        return None",
             f"    pull = _pull_of([{', '.join(value(s) for s in prog.plan.slots)}])",
             f"    tensors = ({', '.join(ts)},)"]
    if len(diff) == n_vals:  # every argument is a recorded input
        consts = "_NO_CONSTS"
    else:
        consts = "(" + ", ".join("None" if i in diff else f"vals[{i}]"
                                 for i in range(n_vals)) + ",)"
    if prog.derived:  # computed values the backward reads: they may view an argument
        lines.append(f"    saved = _saved_tensors(_with_views(_SAVED, "
                     f"({', '.join(value(s) for s in prog.derived)},), _diff, args, vals), "
                     f"args, tensors)")
        saved = "saved"
    elif prog.saved is _DIFF:
        saved = "tensors"
    elif prog.saved:
        saved = "(" + ", ".join(f"args[{i}]" for i in prog.saved) + ",)"
    else:
        saved = "None"
    n_out = len(prog.out_slots)
    lines += ["    nexts, nrs = _edges(tensors)",
              f"    node = _make_node(_cls, pull, (_op, {consts}, _diff, dt, params), tensors,"
              f" nexts, nrs, _layout, _saves, {n_out}, {saved})"]
    scope: dict = {"_run": prog.run, "_pull_of": prog.plan.pull_values, "_edges": _edges,
                   "_make_node": make_node, "_cls": prog.cls, "_op": op, "_diff": diff,
                   "_layout": prog.layout, "_saves": op.saves, "_NO_CONSTS": (None,) * len(diff),
                   "_wrap": wrap, "_aliasing": _aliasing, "_save_output": save_output,
                   "_asarray": np.asarray, "_SAVED": prog.saved, "_with_views": _with_views,
                   "_saved_tensors": _saved_tensors}
    for k, (s, aval) in enumerate(zip(prog.out_slots, out_avals)):
        o, t = f"o{k}", f"t{k}"
        scope[f"_DT{k}"] = dtype = np.dtype(aval.dtype)
        lines.append(f"    {o} = {value(s)}")
        if not aval.shape:  # (NumPy gives a scalar for a 0-d result)
            lines.append(f"    {o} = _asarray({o})")
        lines += [f"    if {o}.dtype is not _DT{k}:", "        return None"]
        recorded = dtype.kind in "fc" and not prog.pruned[k]
        lines.append(f"    {t} = _wrap({o}, True, node, {k})" if recorded
                     else f"    {t} = _wrap({o})")
        if prog.same[k]:  # an input itself
            lines.append(f"    _aliasing({t}, args)")
        else:
            lines += [f"    if {o}.base is not None:", f"        _aliasing({t}, args)"]
    for k in prog.out_saved:
        lines.append(f"    _save_output(node, {k}, t{k})")
    outs = ", ".join(f"t{k}" for k in range(n_out))
    lines.append(f"    return ({outs},)" if op.multi else "    return t0")
    return generated_function("\n".join(lines) + "\n", scope, "record")

