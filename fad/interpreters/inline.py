"""Pass: replace nested call primitives (``jit`` inside ``jit``) by their bodies."""

from __future__ import annotations

from ..core.ir import ClosedJaxpr, Eqn, Var
from .rewrite import rebuild, renamed, subst


def inline_calls(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Replace nested call primitives (``jit`` inside ``jit``) by their bodies."""
    if not any(e.primitive.inline is not None and "jaxpr" in e.params for e in closed.eqns):
        return closed
    eqns: list[Eqn] = []
    env: dict = {}
    consts = list(closed.consts)
    constvars = list(closed.jaxpr.constvars)
    for eqn in closed.eqns:
        eqn = renamed(eqn, env)
        inner = eqn.params.get("jaxpr") if eqn.primitive.inline is not None else None
        if not isinstance(inner, ClosedJaxpr):
            eqns.append(eqn)
            continue
        inner = inline_calls(inner)
        local: dict = dict(zip(inner.jaxpr.invars, eqn.invars))
        for cv, c in zip(inner.jaxpr.constvars, inner.consts):
            nv = Var(cv.aval)
            constvars.append(nv)
            consts.append(c)
            local[cv] = nv
        for e in inner.eqns:
            outs = [Var(v.aval) for v in e.outvars]
            local.update(zip(e.outvars, outs))
            eqns.append(e._replace(invars=[subst(a, local) for a in e.invars],
                                   outvars=outs))
        for v, o in zip(eqn.outvars, inner.jaxpr.outvars):
            env[v] = subst(o, local)
    return rebuild(closed, eqns, env, consts, constvars)
