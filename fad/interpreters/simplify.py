"""Pass: algebraic simplification with each primitive's identities."""

from __future__ import annotations

from ..core.ir import ClosedJaxpr, Eqn, Var
from .dce import dce
from .rewrite import rebuild, renamed


class Producers(dict):
    """Variable -> the equation that produced it, plus ``uses``: how many times
    each variable is read in the IR being simplified (an identity that would
    duplicate work when a value has other readers checks it), and ``readers``:
    the equations kept so far that read each variable."""

    def __init__(self, uses: dict):
        super().__init__()
        self.uses = uses
        self.readers: dict = {}

    def keep(self, eqn: Eqn) -> None:
        for v in eqn.outvars:
            self[v] = eqn
        for a in eqn.invars:
            if type(a) is Var:
                self.readers.setdefault(a, []).append(eqn)


def count_uses(closed: ClosedJaxpr) -> dict:
    uses: dict = {}
    for eqn in closed.eqns:
        for a in eqn.invars:
            if type(a) is Var:
                uses[a] = uses.get(a, 0) + 1
    for v in closed.jaxpr.outvars:
        if type(v) is Var:
            uses[v] = uses.get(v, 0) + 1
    return uses


def simplify(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Apply each primitive's algebraic identities (``prim.simplify``, declared in
    ``fad/primitives/identities.py``): what differentiation leaves behind, such as
    ``x * 1``, ``x + 0``, ``-(-x)``, a reshape to the same shape. A rule returns
    an atom equal to the output, or a list of equations computing it."""
    env: dict = {}
    producers = Producers(count_uses(closed))
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
            producers.keep(new)
            eqns.append(new)
    return dce(rebuild(closed, eqns, env))
