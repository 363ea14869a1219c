"""Helpers shared by the IR passes: substituting variables and rebuilding jaxprs."""

from __future__ import annotations

from typing import Any

from ..core.ir import ClosedJaxpr, Eqn, Jaxpr, Var


def subst(atom: Any, env: dict) -> Any:
    while type(atom) is Var and atom in env:
        atom = env[atom]
    return atom


def rebuild(closed: ClosedJaxpr, eqns: list[Eqn], env: dict,
             consts: list | None = None, constvars: list | None = None) -> ClosedJaxpr:
    jaxpr = closed.jaxpr
    outvars = [subst(v, env) for v in jaxpr.outvars]
    new = Jaxpr(constvars if constvars is not None else jaxpr.constvars, jaxpr.invars,
                eqns, outvars)
    return ClosedJaxpr(new, consts if consts is not None else closed.consts,
                       closed.in_tree, closed.out_tree)


def renamed(eqn: Eqn, env: dict) -> Eqn:
    return eqn._replace(invars=[subst(a, env) for a in eqn.invars])
