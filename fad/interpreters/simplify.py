"""Pass: algebraic simplification with each primitive's identities."""

from __future__ import annotations

from ..core.ir import ClosedJaxpr, Eqn
from .dce import dce
from .rewrite import rebuild, renamed


def simplify(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Apply each primitive's algebraic identities (``prim.simplify``, declared in
    ``fad/primitives/identities.py``): what differentiation leaves behind, such as
    ``x * 1``, ``x + 0``, ``-(-x)``, a reshape to the same shape. A rule returns
    an atom equal to the output, or a list of equations computing it."""
    env: dict = {}
    producers: dict = {}
    eqns = []
    for eqn in closed.eqns:
        eqn = renamed(eqn, env)
        rule = eqn.primitive.simplify
        replacement = rule(eqn, producers) if rule is not None else None
        if replacement is None:
            replacement = [eqn]
        elif isinstance(replacement, Eqn):
            replacement = [replacement]
        elif not isinstance(replacement, list):  # an atom equal to the output
            env[eqn.outvars[0]] = replacement
            continue
        for new in replacement:  # a few equations computing the same outputs
            for v in new.outvars:
                producers[v] = new
            eqns.append(new)
    return dce(rebuild(closed, eqns, env))
