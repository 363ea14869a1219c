"""Pass: common-subexpression elimination."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.ir import ClosedJaxpr, Eqn, Jaxpr, Literal
from .rewrite import rebuild, renamed


def _key(eqn: Eqn) -> Any:
    try:
        params = tuple(sorted((k, _hashable(v)) for k, v in eqn.params.items()))
        ins = tuple(("lit", np.asarray(a.val).item(), a.aval) if type(a) is Literal
                    else id(a) for a in eqn.invars)
        key = (eqn.primitive, params, ins)
        hash(key)
        return key
    except TypeError:
        return None


def _hashable(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        return ("ndarray", v.dtype, v.shape, v.tobytes()) if v.size <= 16 else id(v)
    if isinstance(v, ClosedJaxpr | Jaxpr):
        return id(v)
    return v


def cse(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Reuse the result of an identical earlier equation (same primitive, params, inputs)."""
    seen: dict = {}
    env: dict = {}
    eqns = []
    for eqn in closed.eqns:
        eqn = renamed(eqn, env)
        key = None if eqn.primitive.effect else _key(eqn)
        if key is not None and key in seen:
            env.update(zip(eqn.outvars, seen[key]))
            continue
        if key is not None:
            seen[key] = eqn.outvars
        eqns.append(eqn)
    return rebuild(closed, eqns, env)
