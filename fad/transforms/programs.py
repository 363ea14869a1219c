"""Programs made from a staged body (the ``ClosedJaxpr`` that ``jit``, ``cond``,
``scan`` and ``while_loop`` carry): running it, and its jvp and vjp programs,
each made once and kept with the body."""

from __future__ import annotations

from typing import Any, Callable

from ..core.ir import ClosedJaxpr, ShapedArray
from ..core.trace import aval_of
from ..interpreters.evaluate import eval_jaxpr
from ..interpreters.jvp import jvp_flat
from ..interpreters.staging import derived, trace_to_jaxpr
from ..interpreters.tape import vjp_flat
from ..primitives.builders import zeros_where_none


def run(closed: ClosedJaxpr, *args: Any) -> list:
    """The outputs of the program ``closed`` on ``args``."""
    return eval_jaxpr(closed.jaxpr, closed.consts, *args)


def trace_program(fun: Callable, avals: list, label: str) -> ClosedJaxpr:
    """``fun`` (flat inputs to a flat list of outputs) traced at ``avals``."""
    return trace_to_jaxpr(fun, avals, label=label)[0]


def avals_of(xs: list) -> list[ShapedArray]:
    return [aval_of(x) for x in xs]


def jvp_program(closed: ClosedJaxpr, live: tuple[bool, ...], label: str,
                finish: Callable[[ClosedJaxpr], ClosedJaxpr] | None = None) -> ClosedJaxpr:
    """``(primals, tangents of the inputs marked in live) -> (outs, out tangents)``
    for the body ``closed`` (its output tangents are all present: zeros where
    symbolically zero), passed through ``finish`` (``jit``'s optimiser) if given;
    made once and kept with the body."""
    return derived(closed, ("jvp", live, finish),
                   lambda: _make_jvp_program(closed, live, label, finish))


def _make_jvp_program(closed: ClosedJaxpr, live: tuple[bool, ...], label: str,
                      finish: Callable | None) -> ClosedJaxpr:
    in_avals = closed.in_avals
    n = len(in_avals)

    def body(*args: Any) -> list:
        tangents = iter(args[n:])
        ts = [next(tangents) if keep else None for keep in live]
        outs, out_ts = jvp_flat(lambda *xs: run(closed, *xs), list(args[:n]), ts)
        return outs + zeros_where_none(out_ts, outs)

    program = trace_program(body, in_avals + [a for a, keep in zip(in_avals, live) if keep],
                            label)
    return finish(program) if finish is not None else program


def vjp_program(closed: ClosedJaxpr, n: int, label: str) -> ClosedJaxpr:
    """``(primals, out cotangents) -> in cotangents`` for the body ``closed`` of
    ``n`` inputs (it recomputes the body; made once and kept with the body)."""
    return derived(closed, ("vjp", n), lambda: _make_vjp_program(closed, n, label))


def _make_vjp_program(closed: ClosedJaxpr, n: int, label: str) -> ClosedJaxpr:
    def f(*args: Any) -> list:
        outs, pull = vjp_flat(lambda *xs: run(closed, *xs), list(args[:n]))
        return zeros_where_none(pull(list(args[n:])), args[:n])
    return trace_program(f, closed.in_avals + closed.out_avals, label)
