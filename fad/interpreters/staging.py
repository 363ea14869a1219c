"""Abstract tracing: record primitives into a ``Jaxpr`` instead of running them.

Used by ``make_jaxpr`` and ``jit`` (as the *dynamic* trace, so that every
operation, even on constants, is staged) and by ``linearize`` (to record the
linear tangent program between known primal values).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..core.errors import ShapeError, user_source
from ..core.ir import ClosedJaxpr, Eqn, Jaxpr, Literal, ShapedArray, Var
from ..core.trace import MainTrace, Trace, Tracer, aval_of, new_main, primitive_error


class JaxprTracer(Tracer):
    """A traced array that is only a shape, a dtype and an IR variable."""

    __slots__ = ("ir_var",)

    def __init__(self, trace: Trace, var: Var):
        self._trace = trace
        self.ir_var = var

    @property
    def aval(self) -> ShapedArray:
        return self.ir_var.aval


class JaxprBuilder:
    """The growing program of one abstract trace."""

    def __init__(self, record_source: bool = True):
        self.eqns: list[Eqn] = []
        self.consts: dict[int, tuple[Var, Any]] = {}
        self.record_source = record_source


_PY_SCALARS = (bool, int, float, complex)


def _is_scalar_literal(x: Any) -> bool:
    if isinstance(x, bool | int | float | complex):
        return True
    return isinstance(x, np.generic | np.ndarray) and x.ndim == 0


class JaxprTrace(Trace):
    def __init__(self, main: MainTrace, payload: JaxprBuilder):
        super().__init__(main, payload)
        self.builder = payload

    def new_arg(self, aval: ShapedArray) -> JaxprTracer:
        return JaxprTracer(self, Var(aval))

    def atom(self, x: Any, weak_dtype: Any = None) -> Var | Literal:
        """The IR atom of an operand: its variable, a literal, or a new constvar.

        A Python scalar is weakly typed (NEP 50): its literal takes
        ``weak_dtype``, the dtype of the array operands it meets.
        """
        if isinstance(x, JaxprTracer) and x._trace is self:
            return x.ir_var
        if weak_dtype is not None and type(x) in _PY_SCALARS:
            return Literal(x, ShapedArray((), weak_dtype))
        aval = aval_of(x)
        if not isinstance(x, Tracer) and _is_scalar_literal(x):
            return Literal(x, aval)
        entry = self.builder.consts.get(id(x))
        if entry is None:
            entry = self.builder.consts[id(x)] = (Var(aval), x)
        return entry[0]

    def process_primitive(self, prim: Any, args: Any, params: dict) -> Any:
        weak = None
        if any(type(a) in _PY_SCALARS for a in args):
            dtypes = [aval_of(a).dtype for a in args if type(a) not in _PY_SCALARS]
            weak = next((d for d in dtypes if d.kind != "b"), dtypes[0] if dtypes else None)
        invars = [self.atom(a, weak) for a in args]
        avals = [a.aval for a in invars]
        try:
            out = prim.abstract_eval(*avals, **params)
        except (ShapeError, ValueError, IndexError) as e:  # name the primitive and line
            raise primitive_error(prim, args, params, e) from e
        source = user_source() if self.builder.record_source else None
        if prim.multiple_results:
            outvars = [Var(a) for a in out]
            self.builder.eqns.append(Eqn(prim, invars, params, outvars, source))
            return [JaxprTracer(self, v) for v in outvars]
        outvar = Var(out)
        self.builder.eqns.append(Eqn(prim, invars, params, [outvar], source))
        return JaxprTracer(self, outvar)

    def to_jaxpr(self, in_tracers: list[JaxprTracer], outs: list[Any]) -> ClosedJaxpr:
        outvars = [self.atom(o) for o in outs]
        consts = list(self.builder.consts.values())
        jaxpr = Jaxpr([v for v, _ in consts], [t.ir_var for t in in_tracers],
                      self.builder.eqns, outvars)
        return ClosedJaxpr(jaxpr, [c for _, c in consts])


def trace_to_jaxpr(fun: Callable, in_avals: list[ShapedArray], label: str = "make_jaxpr",
                   ) -> tuple[ClosedJaxpr, Any]:
    """Trace ``fun(*flat_args)`` (returning a flat list) at ``in_avals``."""
    with new_main(JaxprTrace, JaxprBuilder(), dynamic=True, label=label) as main:
        trace = main.trace
        ins = [trace.new_arg(a) for a in in_avals]
        outs = fun(*ins)
        return trace.to_jaxpr(ins, outs), outs


def inputs_behind(value: Any, in_tracers: list) -> list[int] | None:
    """The positions of the ``in_tracers`` (the inputs of one abstract trace) that
    ``value`` is computed from, following the equations recorded so far; None
    when ``value`` is not a value of that trace. (For error messages.)

    >>> from fad.core.ir import ShapedArray
    >>> seen = []
    >>> def f(x, n):
    ...     seen.append(inputs_behind(n * 2, [x, n]))
    ...     return [x]
    >>> _ = trace_to_jaxpr(f, [ShapedArray((2,), "float64"), ShapedArray((), "int64")])
    >>> seen
    [[1]]
    """
    if not in_tracers or not isinstance(in_tracers[0], JaxprTracer):
        return None
    trace = in_tracers[0]._trace
    while isinstance(value, Tracer) and not (
            isinstance(value, JaxprTracer) and value._trace is trace):
        value = value.inner()  # a transformation's tracer wrapping a staged value
    if not isinstance(value, JaxprTracer):
        return None
    needed = {value.ir_var}
    for eqn in reversed(trace.builder.eqns):
        if any(v in needed for v in eqn.outvars):
            needed.update(v for v in eqn.invars if isinstance(v, Var))
    return [i for i, t in enumerate(in_tracers) if t.ir_var in needed]
