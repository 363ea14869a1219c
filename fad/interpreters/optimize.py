"""IR -> IR optimisation passes run by ``fad.jit`` before code generation.

Each pass takes a ``ClosedJaxpr`` and returns a new one; ``optimize`` chains
them. They only use what every primitive declares (its name, its parameters,
its implementation, whether it is a call) — never a primitive's maths, except
the small table of algebraic identities in ``simplify``, which names the
identities it uses.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..core.ir import ClosedJaxpr, Eqn, Jaxpr, Literal, ShapedArray, Var
from ..core.trace import hide_dynamic


def _subst(atom: Any, env: dict) -> Any:
    while type(atom) is Var and atom in env:
        atom = env[atom]
    return atom


def _rebuild(closed: ClosedJaxpr, eqns: list[Eqn], env: dict,
             consts: list | None = None, constvars: list | None = None) -> ClosedJaxpr:
    jaxpr = closed.jaxpr
    outvars = [_subst(v, env) for v in jaxpr.outvars]
    new = Jaxpr(constvars if constvars is not None else jaxpr.constvars, jaxpr.invars,
                eqns, outvars)
    return ClosedJaxpr(new, consts if consts is not None else closed.consts,
                       closed.in_tree, closed.out_tree)


def _renamed(eqn: Eqn, env: dict) -> Eqn:
    return eqn._replace(invars=[_subst(a, env) for a in eqn.invars])


# ---------------------------------------------------------------- inlining
def inline_calls(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Replace nested call primitives (``jit`` inside ``jit``) by their bodies."""
    if not any(e.primitive.inline is not None and "jaxpr" in e.params for e in closed.eqns):
        return closed
    eqns: list[Eqn] = []
    env: dict = {}
    consts = list(closed.consts)
    constvars = list(closed.jaxpr.constvars)
    for eqn in closed.eqns:
        eqn = _renamed(eqn, env)
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
            eqns.append(e._replace(invars=[_subst(a, local) for a in e.invars],
                                   outvars=outs))
        for v, o in zip(eqn.outvars, inner.jaxpr.outvars):
            env[v] = _subst(o, local)
    return _rebuild(closed, eqns, env, consts, constvars)


# ---------------------------------------------------------------- dead code
def dce(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Drop equations none of whose outputs is used (every primitive is pure)."""
    live = set(v for v in closed.jaxpr.outvars if type(v) is Var)
    kept = []
    for eqn in reversed(closed.eqns):
        if any(v in live for v in eqn.outvars):
            kept.append(eqn)
            live.update(a for a in eqn.invars if type(a) is Var)
    kept.reverse()
    jaxpr = closed.jaxpr
    used = [(v, c) for v, c in zip(jaxpr.constvars, closed.consts) if v in live]
    return ClosedJaxpr(Jaxpr([v for v, _ in used], jaxpr.invars, kept, jaxpr.outvars),
                       [c for _, c in used], closed.in_tree, closed.out_tree)


# ---------------------------------------------------------------- CSE
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
        eqn = _renamed(eqn, env)
        key = _key(eqn)
        if key is not None and key in seen:
            env.update(zip(eqn.outvars, seen[key]))
            continue
        if key is not None:
            seen[key] = eqn.outvars
        eqns.append(eqn)
    return _rebuild(closed, eqns, env)


# ---------------------------------------------------------------- constant folding
FOLD_LIMIT = 4096  # elements: never materialise a large constant at compile time


def fold_constants(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Evaluate at compile time the equations whose inputs are all known."""
    jaxpr = closed.jaxpr
    known: dict[Var, Any] = {v: c for v, c in zip(jaxpr.constvars, closed.consts)
                             if not _is_tracer(c)}
    env: dict = {}
    eqns = []
    new_constvars = list(jaxpr.constvars)
    new_consts = list(closed.consts)
    for eqn in closed.eqns:
        eqn = _renamed(eqn, env)
        small = all(_size(v.aval) <= FOLD_LIMIT for v in eqn.outvars)
        if small and not eqn.primitive.multiple_results and eqn.primitive.inline is None \
                and all(type(a) is Literal or a in known for a in eqn.invars):
            args = [a.val if type(a) is Literal else known[a] for a in eqn.invars]
            with hide_dynamic():
                value = eqn.primitive.impl(*args, **eqn.params)
            out = eqn.outvars[0]
            if np.ndim(value) == 0 and isinstance(value, np.generic | np.ndarray):
                env[out] = Literal(np.asarray(value)[()], out.aval)
            else:
                known[out] = value
                new_constvars.append(out)
                new_consts.append(value)
            continue
        eqns.append(eqn)
    return dce(_rebuild(closed, eqns, env, new_consts, new_constvars))


def _is_tracer(x: Any) -> bool:
    from ..core.trace import Tracer
    return isinstance(x, Tracer)


def _size(aval: ShapedArray) -> int:
    return int(np.prod(aval.shape, dtype=np.int64))


# ---------------------------------------------------------------- algebra
def simplify(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Apply each primitive's algebraic identities (``prim.simplify``, declared in
    ``fad/primitives/identities.py``): what differentiation leaves behind, such as
    ``x * 1``, ``x + 0``, ``-(-x)``, a reshape to the same shape. A rule returns
    an atom equal to the output, or a list of equations computing it."""
    env: dict = {}
    producers: dict = {}
    eqns = []
    for eqn in closed.eqns:
        eqn = _renamed(eqn, env)
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
    return dce(_rebuild(closed, eqns, env))


# ---------------------------------------------------------------- pipeline
PASSES: list[Callable[[ClosedJaxpr], ClosedJaxpr]] = [
    inline_calls, simplify, fold_constants, simplify, cse, dce]


def optimize(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Run every pass, twice (one pass's output feeds another's opportunities)."""
    for _ in range(2):
        for p in PASSES:
            closed = p(closed)
    return closed
