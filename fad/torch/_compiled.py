"""The facade's backward passes as generated code.

A node recorded by a direct form (one primitive) or by a cached program pulls
its cotangents back with fad's own rules: ``entry_vjp`` of the primitive, or
the core's ``pullback`` of the program's tape, which binds each rule's
primitives one by one. For a form or a program that is pulled back again and
again, that work is the same every time: so on its second pullback it is
traced once (``fad.make_jaxpr``, abstract over the arrays, its constants
baked in), stripped of dead equations and turned into one Python function
by ``jit``'s code generator, which later pullbacks call with the arrays. A
pullback at other shapes or dtypes than those compiled (a hook's cotangent of
another dtype, a missing cotangent), or a rule that needs concrete values to
be traced, runs the rules as before.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..interpreters.codegen import compile_jaxpr
from ..interpreters.dce import dce
from ..interpreters.tape import TapeEntry, tape_pullback
from ..transforms.autodiff import make_jaxpr


def compiled_vjp(vjp: Any, prim: Any, n_inputs: int) -> Any:
    """``vjp(res, ct)`` as generated code (``jit``'s), compiled at its second call at
    the shapes and dtypes of that call's operands, output and cotangent (a call at
    others runs ``vjp``); ``vjp`` itself for an elementwise primitive (its partials
    are already NumPy calls). Operands that are not all NumPy arrays, or a rule
    that cannot be traced abstractly, keep ``vjp``."""
    if prim.partials is not None:
        return vjp
    state: list = [0, None]  # calls so far, (compiled function, its signature)

    def run(res: tuple, ct: Any) -> list:
        got = state[1]
        if got is None:
            state[0] += 1
            if state[0] < 2:
                return vjp(res, ct)
            got = state[1] = _compile_vjp(vjp, res, ct) or (None, None)
        fn, sig = got
        if fn is None or type(ct) is not np.ndarray or (ct.shape, ct.dtype) != sig:
            return vjp(res, ct)
        out = [None] * n_inputs
        for i, g in zip(fn.positions, fn(*res, ct)):
            out[i] = g
        return out
    return run


def _compile_vjp(vjp: Any, res: tuple, ct: Any) -> tuple | None:
    if type(ct) is not np.ndarray or not all(type(r) is np.ndarray for r in res):
        return None
    return _generated(lambda *a: vjp(a[:-1], a[-1]), (*res, ct), (ct.shape, ct.dtype))


class PullPlan:
    """How the nodes of one cached program (``fad/torch/_recorder.py``) pull back:
    the slots of its environment that the taped equations read at run time
    (``slots``; the others are the program's constants), and once compiled, the
    generated pullback and the cotangents' shapes and dtypes it was compiled at."""

    __slots__ = ("prog", "slots", "taped", "pulls", "fn", "sig")

    def __init__(self, prog: Any):
        self.prog = prog
        self.taped = [c for c in prog.code if c[4] is not None]
        read = {a for _, _, ins, out, _ in self.taped for a in (*ins, out)}
        self.slots = tuple(sorted(s for s in read if prog.env0[s] is None))
        self.pulls = 0
        self.fn = self.sig = None

    def tape(self, vals: list) -> list:
        """The program's tape, from the values of ``slots``."""
        env = list(self.prog.env0)
        for s, v in zip(self.slots, vals):
            env[s] = v
        return [TapeEntry(prim, eparams, [env[a] for a in ins], env[out], nodes, out)
                for prim, eparams, ins, out, nodes in self.taped]

    def pull(self, env: list) -> Callable:
        """``pull(cts, consume=False)`` of one evaluation of the program (its
        environment ``env``), as ``tape_pullback`` of its tape gives."""
        return self.pull_values([env[s] for s in self.slots])

    def pull_values(self, vals: list) -> Callable:
        """``pull`` from the values of ``slots`` alone."""
        prog = self.prog

        def pull(cts: list, consume: bool = False) -> list:
            if self.fn is None:
                self.pulls += 1
                if self.pulls == 2:
                    self.fn, self.sig = _compile(self, vals, cts) or (False, None)
            if self.fn and _signature(cts) == self.sig:
                out = [None] * len(prog.in_nodes)
                for i, g in zip(self.fn.positions, self.fn(*vals, *cts)):
                    out[i] = g
                return out
            return tape_pullback(self.tape(vals), prog.out_nodes, prog.in_nodes)(cts, consume)
        return pull


def _signature(cts: list) -> tuple | None:
    sig = []
    for c in cts:
        if type(c) is not np.ndarray:
            return None
        sig.append((c.shape, c.dtype))
    return tuple(sig)


def _compile(plan: PullPlan, vals: list, cts: list) -> tuple | None:
    sig = _signature(cts)
    if sig is None or not all(type(v) is np.ndarray or isinstance(v, np.generic)
                              for v in vals):  # (a reduction to 0-d gives a NumPy scalar)
        return None
    prog, n = plan.prog, len(vals)
    return _generated(lambda *a: tape_pullback(plan.tape(list(a[:n])), prog.out_nodes,
                                               prog.in_nodes)(list(a[n:])),
                      (*vals, *cts), sig)


def _generated(f: Callable, args: tuple, sig: Any) -> tuple | None:
    """``(g, sig)``: ``f`` (arrays to a list of cotangents, ``None`` for no
    dependence) as generated code ``g``, which returns the cotangents at
    ``g.positions``; ``None`` if ``f`` cannot be traced abstractly."""
    positions: list = []

    def traced(*a: Any) -> list:
        out = f(*a)
        positions[:] = [i for i, c in enumerate(out) if c is not None]
        return [out[i] for i in positions]
    try:
        fn = compile_jaxpr(dce(make_jaxpr(traced)(*args)), np)
    except Exception:  # a rule that needs concrete values
        return None
    fn.positions = tuple(positions)
    return fn, sig
