"""Pass: constant folding of small constant subexpressions."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.ir import ClosedJaxpr, Literal, ShapedArray, Var
from ..core.trace import Tracer, hide_dynamic
from .dce import dce
from .rewrite import rebuild, renamed
from .staging import owned

FOLD_LIMIT = 4096  # elements: never materialise a large constant at compile time


def fold_constants(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Evaluate at compile time the equations whose inputs are all known."""
    jaxpr = closed.jaxpr
    known: dict[Var, Any] = {v: c for v, c in zip(jaxpr.constvars, closed.consts)
                             if not isinstance(c, Tracer)}
    env: dict = {}
    eqns = []
    new_constvars = list(jaxpr.constvars)
    new_consts = list(closed.consts)
    for eqn in closed.eqns:
        eqn = renamed(eqn, env)
        small = all(_size(v.aval) <= FOLD_LIMIT for v in eqn.outvars)
        if small and not eqn.primitive.multiple_results and eqn.primitive.inline is None \
                and not eqn.primitive.effect \
                and all(type(a) is Literal or a in known for a in eqn.invars):
            args = [a.val if type(a) is Literal else known[a] for a in eqn.invars]
            with hide_dynamic():
                value = eqn.primitive.impl(*args, **eqn.params)
            out = eqn.outvars[0]
            if np.ndim(value) == 0 and isinstance(value, np.generic | np.ndarray):
                env[out] = Literal(np.asarray(value)[()], out.aval)
            else:
                value = owned(value)  # (a small copy once: re-staging never copies it)
                known[out] = value
                new_constvars.append(out)
                new_consts.append(value)
            continue
        eqns.append(eqn)
    return dce(rebuild(closed, eqns, env, new_consts, new_constvars))


def _size(aval: ShapedArray) -> int:
    return int(np.prod(aval.shape, dtype=np.int64))
