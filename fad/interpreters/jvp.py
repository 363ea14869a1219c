"""Forward mode: tracers carry a primal and a tangent; each primitive's ``jvp`` rule
maps both forward. A tangent of ``None`` is a symbolic zero (nothing is computed
for it), and integer or boolean values never carry a tangent.
"""

from __future__ import annotations

from typing import Any, Callable

from ..core.trace import PrimalTracer, Trace, new_main
from ..tree import tree_map


class JVPTracer(PrimalTracer):
    __slots__ = ("tangent",)

    def __init__(self, trace: Trace, primal: Any, tangent: Any):
        self._trace = trace
        self.primal = primal
        self.tangent = tangent

    def carries_derivative(self) -> bool:
        return self.tangent is not None  # None: a symbolic zero


class JVPTrace(Trace):
    differentiates = True

    def process_primitive(self, prim: Any, args: Any, params: dict) -> Any:
        primals, tangents, any_tangent = [], [], False
        for a in args:  # one pass: this runs for every operation under jvp
            if type(a) is JVPTracer and a._trace is self:
                primals.append(a.primal)
                t = a.tangent
                tangents.append(t)
                any_tangent = any_tangent or t is not None
            else:
                primals.append(a)
                tangents.append(None)
        if not any_tangent:
            out = prim.bind(*primals, **params)
            if prim.multiple_results:
                return [JVPTracer(self, o, None) for o in out]
            return JVPTracer(self, out, None)
        if prim.jvp is None:
            raise NotImplementedError(
                f"differentiation of primitive '{prim.name}' is not implemented "
                "(it has no jvp rule)")
        out, out_t = prim.jvp(primals, tangents, **params)
        if prim.multiple_results:
            return [JVPTracer(self, o, t) for o, t in zip(out, out_t)]
        return JVPTracer(self, out, out_t)


def unpack(trace: Trace, x: Any) -> tuple[Any, Any]:
    """(primal, tangent) of an output; constants have a zero (``None``) tangent."""
    if isinstance(x, JVPTracer) and x._trace is trace:
        return x.primal, x.tangent
    return x, None


def lower_aux(trace: Trace, aux_box: list | None) -> None:
    """Auxiliary outputs leave a differentiation (forward or reverse mode, whose
    tracers carry a ``primal``) as plain primal values."""
    if aux_box:
        aux_box[0] = tree_map(
            lambda x: x.primal if isinstance(x, PrimalTracer) and x._trace is trace else x,
            aux_box[0])


def forward(trace: Trace, fun: Callable, primals: list, tangents: list,
            aux_box: list | None = None) -> tuple[list, list]:
    """Run ``fun`` on tracers of ``trace`` (a ``JVPTrace``) carrying ``primals``
    and ``tangents``; its flat primal and tangent outputs."""
    outs = fun(*[JVPTracer(trace, p, t) for p, t in zip(primals, tangents)])
    pairs = [unpack(trace, o) for o in outs]
    lower_aux(trace, aux_box)
    return [p for p, _ in pairs], [t for _, t in pairs]


def jvp_flat(fun: Callable, primals: list, tangents: list, label: str = "fad.jvp",
             aux_box: list | None = None) -> tuple[list, list]:
    """Run ``fun`` on flat lists; returns flat primal and tangent outputs."""
    with new_main(JVPTrace, label=label) as main:
        return forward(main.trace, fun, primals, tangents, aux_box)
