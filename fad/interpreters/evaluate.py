"""Evaluate a ``Jaxpr`` by binding each equation's primitive.

With concrete arrays this runs the program; with tracers as inputs it re-traces
the program into whatever transformation is active (invariant 2: transformations
compose by re-tracing). Every intermediate is dropped after its last use.
"""

from __future__ import annotations

from typing import Any

from ..core.ir import ClosedJaxpr, Jaxpr, Literal, Var
from ..core.trace import bind


def last_uses(jaxpr: Jaxpr) -> list[list[Var]]:
    """For each equation, the variables read there for the last time."""
    seen: set[Var] = set(v for v in jaxpr.outvars if type(v) is Var)
    out: list[list[Var]] = [[] for _ in jaxpr.eqns]
    for i in range(len(jaxpr.eqns) - 1, -1, -1):
        for a in jaxpr.eqns[i].invars:
            if type(a) is Var and a not in seen:
                seen.add(a)
                out[i].append(a)
    return out


def eval_jaxpr(jaxpr: Jaxpr, consts: list, *args: Any) -> list:
    """Run ``jaxpr`` on ``consts`` and ``args``; returns the list of outputs.

    >>> import fad, fad.numpy as fnp
    >>> cj = fad.make_jaxpr(lambda x: fnp.sin(x) * 2.0)(0.5)
    >>> float(eval_jaxpr(cj.jaxpr, cj.consts, 0.0)[0])
    0.0
    """
    env: dict[Var, Any] = {}
    for v, x in zip(jaxpr.constvars, consts):
        env[v] = x
    for v, x in zip(jaxpr.invars, args):
        env[v] = x
    frees = last_uses(jaxpr)
    for eqn, dead in zip(jaxpr.eqns, frees):
        ins = [a.val if type(a) is Literal else env[a] for a in eqn.invars]
        out = bind(eqn.primitive, *ins, **eqn.params)
        if eqn.primitive.multiple_results:
            for v, o in zip(eqn.outvars, out):
                env[v] = o
        else:
            env[eqn.outvars[0]] = out
        for v in dead:
            env.pop(v, None)
    return [a.val if type(a) is Literal else env[a] for a in jaxpr.outvars]


def eval_closed(closed: ClosedJaxpr, *args: Any) -> list:
    return eval_jaxpr(closed.jaxpr, closed.consts, *args)
