"""Pass: dead-code elimination (every primitive without an ``effect`` is pure)."""

from __future__ import annotations

from ..core.ir import ClosedJaxpr, Jaxpr, Var


def dce(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Drop equations none of whose outputs is used, unless their primitive has an
    ``effect``."""
    live = set(v for v in closed.jaxpr.outvars if type(v) is Var)
    kept = []
    for eqn in reversed(closed.eqns):
        if eqn.primitive.effect or any(v in live for v in eqn.outvars):
            kept.append(eqn)
            live.update(a for a in eqn.invars if type(a) is Var)
    kept.reverse()
    jaxpr = closed.jaxpr
    used = [(v, c) for v, c in zip(jaxpr.constvars, closed.consts) if v in live]
    return ClosedJaxpr(Jaxpr([v for v, _ in used], jaxpr.invars, kept, jaxpr.outvars),
                       [c for _, c in used], closed.in_tree, closed.out_tree)
