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
from ..core.trace import MainTrace, Trace, Tracer, aval_of, current_state, new_main, primitive_error


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
    """The growing program of one abstract trace.

    With ``own_consts`` (``jit``, ``make_jaxpr``, control-flow bodies), a concrete
    array that becomes a constant of the program is captured by value: the program
    keeps a read-only copy (``owned``), so writing into the user's array later does
    not change what the program computes, as in JAX. Programs traced inside one
    another (a ``cond`` branch inside a jitted function) share ``snapshots``: one
    copy per array.
    """

    def __init__(self, record_source: bool = True, own_consts: bool = False,
                 snapshots: dict | None = None):
        self.eqns: list[Eqn] = []
        # id(value) -> (constvar, the program's value, the value itself: kept alive
        # while tracing so that its id is not reused by another object)
        self.consts: dict[int, tuple[Var, Any, Any]] = {}
        self.record_source = record_source
        self.own_consts = own_consts
        self.snapshots: dict[int, tuple[Any, Any]] = {} if snapshots is None else snapshots

    def constant(self, x: Any) -> Any:
        """The program's value for the concrete ``x`` (see ``own_consts``): its value
        at this use, should the traced function write into ``x`` between uses."""
        if not self.own_consts:
            return x
        hit = self.snapshots.get(id(x))
        if hit is None or hit[1] is not x and _written(x, hit[1]):
            hit = self.snapshots[id(x)] = (x, owned(x))
        return hit[1]

    def closed(self, invars: list[Var], outvars: list[Any]) -> ClosedJaxpr:
        """The program: its constants, ``invars``, the equations so far, ``outvars``."""
        consts = list(self.consts.values())
        return ClosedJaxpr(Jaxpr([v for v, _, _ in consts], invars, self.eqns, outvars),
                           [c for _, c, _ in consts])


def owned(x: Any) -> Any:
    """``x`` as a constant that a program owns: a mutable array becomes a read-only
    copy (a NumPy subclass, a plain ``ndarray``); an array a program already owns
    (read-only, its memory read-only too), and immutable values, stay as they are.

    >>> import numpy as np
    >>> c = np.ones(2); k = owned(c); c[0] = 5.0
    >>> k.tolist(), k.flags.writeable, owned(k) is k
    ([1.0, 1.0], False, True)
    """
    if isinstance(x, np.ndarray):
        if not x.flags.writeable:
            base = x
            while isinstance(base.base, np.ndarray):
                base = base.base
            if base.flags.owndata and not base.flags.writeable:
                return x
        x = np.array(x, copy=True, subok=False)
        x.flags.writeable = False
        return x
    if isinstance(x, np.generic | Tracer) or type(x) in _PY_SCALARS:
        return x
    copy = getattr(x, "copy", None)  # another backend's array (no read-only flag)
    return copy() if callable(copy) else x


def _written(x: Any, snapshot: Any) -> bool:
    """Whether the NumPy array ``x`` no longer holds the values of ``snapshot``."""
    return type(snapshot) is np.ndarray and isinstance(x, np.ndarray) and \
        x.flags.writeable and not np.array_equal(x, snapshot,
                                                 equal_nan=x.dtype.kind in "fc")


def writable(values: list) -> list:
    """``values`` with every read-only NumPy array (a program's constant, returned
    as a result) replaced by a copy: the caller may write into what it gets.

    >>> k = owned(np.ones(2))
    >>> writable([k])[0].flags.writeable, writable([k])[0] is k
    (True, False)
    """
    return [v.copy() if type(v) is np.ndarray and not v.flags.writeable else v
            for v in values]


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
            return Literal(self.builder.constant(x), aval)
        value = x if isinstance(x, Tracer) else self.builder.constant(x)
        entry = self.builder.consts.get(id(value))  # (one constvar per value used)
        if entry is None:
            entry = self.builder.consts[id(value)] = (Var(aval), value, x)
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
        return self.builder.closed([t.ir_var for t in in_tracers], outvars)


def lift_tracers(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list]:
    """Closure conversion: the constants that are tracers of an enclosing trace
    become leading inputs (returned too), so that the enclosing transformations
    see them as operands.

    >>> import fad
    >>> cj = fad.make_jaxpr(lambda x: x * 2.0)(1.0)
    >>> lift_tracers(cj) == (cj, [])  # no tracer among its constants: unchanged
    True
    """
    pairs = list(zip(closed.jaxpr.constvars, closed.consts))
    lifted = [(v, c) for v, c in pairs if isinstance(c, Tracer)]
    if not lifted:
        return closed, []
    kept = [(v, c) for v, c in pairs if not isinstance(c, Tracer)]
    j = closed.jaxpr
    new = ClosedJaxpr(Jaxpr([v for v, _ in kept], [v for v, _ in lifted] + j.invars, j.eqns,
                            j.outvars), [c for _, c in kept])
    return new, [c for _, c in lifted]


def derived(closed: ClosedJaxpr, key: Any, build: Callable[[], Any]) -> Any:
    """``build()``, made once per ``key`` and kept with ``closed`` (a transformed
    program, compiled code): it lives exactly as long as ``closed`` does, and so
    do the constants it holds.

    >>> import fad
    >>> cj = fad.make_jaxpr(lambda x: x * 2.0)(1.0)
    >>> derived(cj, "n", lambda: len(cj.eqns)), derived(cj, "n", lambda: 0)
    (1, 1)
    """
    hit = closed.cache.get(key)
    if hit is None:
        hit = closed.cache[key] = build()
    return hit


def trace_to_jaxpr(fun: Callable, in_avals: list[ShapedArray], label: str = "make_jaxpr",
                   ) -> tuple[ClosedJaxpr, Any]:
    """Trace ``fun(*flat_args)`` (returning a flat list) at ``in_avals``; the
    program owns its constants (captured at trace time, see ``JaxprBuilder``)."""
    outer = current_state().dynamic  # (a program traced inside another shares copies)
    outer = outer.trace if outer is not None else None
    snapshots = outer.builder.snapshots if isinstance(outer, JaxprTrace) else None
    with new_main(JaxprTrace, JaxprBuilder(own_consts=True, snapshots=snapshots),
                  dynamic=True, label=label) as main:
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
