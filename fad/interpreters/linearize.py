"""Linearize and transpose: the linear program of ``fad.linearize``, and the
reverse mode of the tape's entries that have no direct rule (``tape.py``: a
primitive with neither partials nor a ``transpose``, such as ``reduce_max``).

``linearize`` runs forward mode with *symbolic* tangents: the tangents are
tracers of an abstract trace one level below, so every primal operation runs
(concretely, Python control flow works) while every tangent operation is
recorded into a linear ``Jaxpr`` whose constants are the residuals.
``backward_pass`` then walks that linear program backwards, calling each linear
primitive's ``transpose`` rule: cotangents flow from outputs to inputs. No
derivative rule is written twice: reverse mode is the transpose of forward.
"""

from __future__ import annotations

from typing import Any, Callable

from ..core.ir import ClosedJaxpr, Jaxpr, Literal, Var
from ..core.linear import UndefinedPrimal
from ..core.trace import aval_of, new_main
from .jvp import JVPTrace, forward
from .staging import JaxprBuilder, JaxprTrace, JaxprTracer


def linearize_flat(fun: Callable, primals: list, label: str = "fad.vjp",
                   aux_box: list | None = None, later: bool = False
                   ) -> tuple[list, ClosedJaxpr, list[bool]]:
    """Primal outputs and the linear program mapping input to output tangents.

    Returns ``(out_primals, linear_jaxpr, out_is_zero)``; the linear jaxpr's
    invars are the input tangents and its outvars the output tangents.
    ``later``: the program may run after the caller has written into its arrays
    (``fad.linearize``), so it owns its constants, as ``jit``'s programs do.
    """
    builder = JaxprBuilder(record_source=False, own_consts=later)
    with new_main(JaxprTrace, builder, label=label) as tape_main:
        tape = tape_main.trace
        tangent_in = [tape.new_arg(aval_of(p)) for p in primals]
        with new_main(JVPTrace, label=label) as jvp_main:
            out_primals, out_tangents = forward(jvp_main.trace, fun, primals, tangent_in,
                                                aux_box)
        # a tangent that is not a tape variable (None, or a constant that a custom
        # rule returned: a linear map's constant output is zero) is a zero
        is_zero = [not isinstance(t, JaxprTracer) for t in out_tangents]
        outvars = [None if z else tape.atom(t) for t, z in zip(out_tangents, is_zero)]
    closed = builder.closed([t.ir_var for t in tangent_in],
                            [v for v in outvars if v is not None])
    return out_primals, closed, is_zero


def backward_pass(jaxpr: Jaxpr, consts: list, cts_out: list, consume: bool = False,
                  ) -> list:
    """Transpose the linear ``jaxpr``: cotangents of outvars -> of invars.

    ``None`` stands for a zero cotangent, in and out. With ``consume=True`` the
    residuals are dropped as soon as the pass is past their first use, so that
    memory shrinks as the backward pass proceeds.
    """
    const_env: dict[Var, Any] = dict(zip(jaxpr.constvars, consts))
    if consume:
        consts.clear()
    ct_env: dict[Var, Any] = {}

    def add_ct(v: Any, ct: Any) -> None:
        if ct is None or type(v) is not Var or v in const_env:
            return
        prev = ct_env.get(v)
        ct_env[v] = ct if prev is None else prev + ct

    for v, ct in zip(jaxpr.outvars, cts_out):
        add_ct(v, ct)

    last_use = _first_uses(jaxpr) if consume else {}
    eqns = jaxpr.eqns
    for i in range(len(eqns) - 1, -1, -1):
        eqn = eqns[i]
        if eqn.primitive.multiple_results:
            cts = [ct_env.pop(v, None) for v in eqn.outvars]
            if all(c is None for c in cts):
                continue
        else:
            cts = ct_env.pop(eqn.outvars[0], None)
            if cts is None:
                continue
        args = []
        for a in eqn.invars:
            if type(a) is Literal:
                args.append(a.val)
            elif a in const_env:
                args.append(const_env[a])
            else:
                args.append(UndefinedPrimal(a.aval))
        rule = eqn.primitive.transpose
        if rule is None:
            raise NotImplementedError(
                f"reverse-mode differentiation of primitive '{eqn.primitive.name}' is "
                "not implemented (it has no transpose rule)")
        cts_in = rule(cts, *args, **eqn.params)
        for a, ct in zip(eqn.invars, cts_in):
            add_ct(a, ct)
        for v in last_use.get(i, ()):
            del const_env[v]
    return [ct_env.get(v) for v in jaxpr.invars]


def _first_uses(jaxpr: Jaxpr) -> dict[int, list[Var]]:
    """For each equation index, the constvars whose earliest use it is."""
    seen: set[Var] = set()
    first: dict[int, list[Var]] = {}
    constvars = set(jaxpr.constvars)
    outs = set(v for v in jaxpr.outvars if type(v) is Var)
    for i, eqn in enumerate(jaxpr.eqns):
        for a in eqn.invars:
            if type(a) is Var and a in constvars and a not in seen and a not in outs:
                seen.add(a)
                first.setdefault(i, []).append(a)
    return first
