"""Algebraic identities of primitives, used by ``fad.jit``'s optimiser.

Each rule receives an equation and a map from variables to the equations that
produced them, and returns a replacement atom, a rewritten equation, or
``None``. Every identity keeps the output's shape and dtype.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.ir import Eqn, Literal, Var
from . import elementwise as E
from . import structural as S


def known_scalar(atom: Any, producers: dict) -> Any:
    """The scalar an atom holds in every element, when the IR says so."""
    if type(atom) is Literal:
        return atom.val
    eqn = producers.get(atom)
    if eqn is not None and eqn.primitive is S.broadcast_to_p \
            and type(eqn.invars[0]) is Literal:
        return eqn.invars[0].val
    return None


def _equals(value: Any, target: float) -> bool:
    try:
        return value is not None and bool(np.all(np.asarray(value) == target))
    except (TypeError, ValueError):
        return False


def _same_type(a: Any, out: Var) -> bool:
    return a.aval.shape == out.aval.shape and a.aval.dtype == out.aval.dtype


def _unit(value: float, sides: tuple[int, ...]):
    """``op(x, unit) = x`` (and ``op(unit, x) = x`` when side 0 is listed)."""
    def rule(eqn: Eqn, producers: dict) -> Any:
        out = eqn.outvars[0]
        for side in sides:
            other = eqn.invars[1 - side]
            if _equals(known_scalar(eqn.invars[side], producers), value) \
                    and _same_type(other, out):
                return other
        return None
    return rule


def _involution(eqn: Eqn, producers: dict) -> Any:
    """``f(f(x)) = x``."""
    inner = producers.get(eqn.invars[0])
    if inner is not None and inner.primitive is eqn.primitive:
        return inner.invars[0]
    return None


def _no_op(eqn: Eqn, producers: dict) -> Any:
    """Converting, reshaping or broadcasting to the input's own type."""
    x = eqn.invars[0]
    if type(x) is Var and _same_type(x, eqn.outvars[0]):
        return x
    inner = producers.get(x)
    if inner is not None and inner.primitive is eqn.primitive is S.reshape_p:
        return eqn._replace(invars=[inner.invars[0]])  # reshape(reshape(x)) = reshape(x)
    return None


def _transposes(eqn: Eqn, producers: dict) -> Any:
    """transpose(transpose(x, p1), p2) = transpose(x, p1 o p2)."""
    inner = producers.get(eqn.invars[0])
    if inner is None or inner.primitive is not S.transpose_p:
        return None
    p1, p2 = inner.params["permutation"], eqn.params["permutation"]
    perm = tuple(p1[i] for i in p2)
    if perm == tuple(range(len(perm))):
        return inner.invars[0]
    return eqn._replace(invars=[inner.invars[0]], params={"permutation": perm})


E.mul_p.simplify = _unit(1, (0, 1))
E.add_p.simplify = _unit(0, (0, 1))
E.sub_p.simplify = _unit(0, (1,))
E.div_p.simplify = _unit(1, (1,))
E.neg_p.simplify = _involution
S.convert_element_type_p.simplify = _no_op
S.broadcast_to_p.simplify = _no_op
S.reshape_p.simplify = _no_op
S.transpose_p.simplify = _transposes
