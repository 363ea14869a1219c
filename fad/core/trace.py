"""Tracing: tracers, the trace stack (in a ``contextvars.ContextVar``) and ``bind``.

Every operation of fad ends in ``bind(prim, *args, **params)``. ``bind`` looks
at its arguments: when none is a tracer of a live transformation (and no
abstract trace is being staged) it simply runs the primitive on the arrays;
otherwise it hands the operation to the innermost transformation involved
(the one with the highest level), which may call ``bind`` again on lower-level
values. That recursion through levels is the whole mechanism by which
transformations compose (``grad(grad(f))``, ``jvp(grad(f))``...).
"""

from __future__ import annotations

import contextvars
import sys
from typing import Any, Iterator

import numpy as np

from ..backends import BackendMismatchError
from .errors import (
    FAD_DIR,
    ConcretizationError,
    IndexShapeError,
    ShapeError,
    UnexpectedTracerError,
    concretization_message,
    derivative_lost_message,
    user_source,
)
from .ir import ShapedArray


class MainTrace:
    """One active transformation: its level in the stack and its trace object."""

    __slots__ = ("level", "trace", "label", "alive", "differentiates", "__weakref__")

    def __init__(self, level: int, trace_type: type, label: str, payload: Any):
        self.level = level
        self.label = label
        self.alive = True
        self.differentiates = trace_type.differentiates
        self.trace = trace_type(self, payload)

    def __repr__(self) -> str:
        return f"MainTrace({self.level}, {type(self.trace).__name__})"


class TraceState:
    """Immutable snapshot of the trace stack; lives in ``_STATE``."""

    __slots__ = ("stack", "dynamic", "no_grad", "rebound", "empty")

    def __init__(self, stack: tuple, dynamic: MainTrace | None, no_grad: Any,
                 rebound: dict | None = None):
        self.stack = stack
        self.dynamic = dynamic
        self.no_grad = no_grad  # the innermost NoGradScope, or None
        self.rebound = rebound  # id(tracer) -> value, see ``rebinding``
        self.empty = not stack


class NoGradScope:
    """A ``no_grad`` block: transformations below ``level`` must see constants.

    Differentiation tracers from below are replaced by their primal values. Other
    tracers from below (an abstract trace being staged, a batch) get a
    ``stop_gradient`` instead, so that the staged program remembers the block
    when it is differentiated later; values made inside the block are exempt.
    """

    __slots__ = ("level", "made", "wrapped")

    def __init__(self, level: int):
        self.level = level
        self.made: dict[int, Any] = {}
        self.wrapped: dict[int, Any] = {}


_STATE: contextvars.ContextVar[TraceState] = contextvars.ContextVar(
    "fad_trace_state", default=TraceState((), None, None))


# () -> TraceState: the ContextVar's own getter (no Python frame: every operation asks)
current_state = _STATE.get


class switch:
    """``with switch(var, value):`` runs the block with ``ContextVar`` ``var`` set to
    ``value``, and gives it back the value it had when the switch was made, however
    the block ends; ``as`` receives ``result``.

    An exception may arrive at any point (a ``KeyboardInterrupt``): the variable
    changes as the last step of ``__enter__``, inside the ``try`` that undoes it,
    and ``__exit__`` restores it first, idempotently, by value rather than by token.

    >>> import contextvars
    >>> v = contextvars.ContextVar("v", default=0)
    >>> with switch(v, 1, result="in"):
    ...     v.get()
    1
    >>> v.get()
    0
    """

    __slots__ = ("var", "outer", "inner", "result")

    def __init__(self, var: contextvars.ContextVar, value: Any, result: Any = None):
        self.var = var
        self.outer = var.get()
        self.inner = value
        self.result = result

    def __enter__(self) -> Any:
        var = self.var
        try:
            var.set(self.inner)
            return self.result
        except BaseException:  # interrupted once switched: no __exit__ will follow
            var.set(self.outer)
            raise

    def __exit__(self, *exc: Any) -> None:
        self.var.set(self.outer)


def enter_onto(stack: list, cm: switch, result: Any = None) -> Any:
    """Enter ``cm`` and push it on ``stack`` as one step: interrupted anywhere, neither
    is done. For context managers that may be entered again while active (each
    ``with`` enters a fresh ``cm``; their ``__exit__`` is ``stack.pop().__exit__()``).
    Returns ``result``.

    >>> import contextvars
    >>> v = contextvars.ContextVar("v", default=0)
    >>> stack = []
    >>> enter_onto(stack, switch(v, 1)); v.get()
    1
    >>> stack.pop().__exit__(); v.get()
    0
    """
    try:
        stack.append(cm)
        cm.__enter__()
        return result
    except BaseException:
        cm.__exit__()
        if stack and stack[-1] is cm:
            stack.pop()
        raise


class new_main(switch):
    """Push a transformation on the stack for the duration of a ``with`` block.

    (A class rather than a generator-based context manager: it runs once per
    transformation call, on the hot path of ``grad`` and of the facade.)
    """

    __slots__ = ()

    def __init__(self, trace_type: type, payload: Any = None, dynamic: bool = False,
                 label: str = ""):
        self.var = _STATE
        self.outer = state = _STATE.get()
        self.result = main = MainTrace(len(state.stack), trace_type, label, payload)
        self.inner = TraceState(state.stack + (main,), main if dynamic else state.dynamic,
                                state.no_grad, state.rebound)

    def __exit__(self, *exc: Any) -> None:
        _STATE.set(self.outer)
        main = self.result
        main.alive = False
        main.trace = None  # break main <-> trace: the call's memory is freed on return


def no_grad_scope() -> switch:
    """Within the block, every differentiation already running sees constants."""
    state = _STATE.get()
    return switch(_STATE, TraceState(state.stack, state.dynamic,
                                     NoGradScope(len(state.stack)), state.rebound))


def outside_traces() -> switch:
    """Run with no transformation active (a host callback, on concrete arrays)."""
    return switch(_STATE, TraceState((), None, None))


def hide_dynamic() -> switch:
    """Run without staging into the current abstract trace (used for constants)."""
    state = _STATE.get()
    return switch(_STATE, TraceState(state.stack, None, state.no_grad, state.rebound))


class Trace:
    """How one transformation interprets primitives applied to its tracers."""

    differentiates = False

    def __init__(self, main: MainTrace, payload: Any):
        self.main = main

    def process_primitive(self, prim: Any, args: list, params: dict) -> Any:
        raise NotImplementedError


class Tracer:
    """A stand-in for an array while a function is transformed.

    Subclasses hold what their transformation needs (a primal and a tangent, an
    IR variable...); all share NumPy's operators and methods, which fad.numpy
    installs on this class.

    A Python or NumPy value of a float or complex tracer that a differentiation
    tracks (``float(x)``, ``int(x)``, ``bool(x)``, ``x.item()``, ``x.tolist()``,
    ``math.sin(x)``, ``np.asarray(x)``) would carry no derivative, so the user's
    code gets a ``ConcretizationError`` instead; comparisons, integer values,
    ``stop_gradient`` values and values inside ``no_grad`` convert as before.
    """

    __slots__ = ("_trace", "__weakref__")
    __array_priority__ = 1000
    _trace: Trace

    @property
    def aval(self) -> ShapedArray:
        raise NotImplementedError

    @property
    def shape(self) -> tuple[int, ...]:
        return self.aval.shape

    @property
    def dtype(self) -> np.dtype:
        return self.aval.dtype

    @property
    def ndim(self) -> int:
        return len(self.aval.shape)

    @property
    def size(self) -> int:
        return self.aval.size

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object (a 0-d traced array)")
        return self.shape[0]

    def __iter__(self) -> Iterator[Any]:
        if not self.shape:
            raise TypeError("iteration over a 0-d traced array")
        return (self[i] for i in range(self.shape[0]))

    def concrete_value(self) -> Any:
        """The value behind the tracer, or raise ``ConcretizationError``."""
        raise ConcretizationError(concretization_message("The value", self.aval))

    def _concrete(self, what: str, integral: bool = False) -> Any:
        """The concrete value, for a conversion (``what``) that the code two frames
        up asked for; refused when that is the user's code and the value is being
        differentiated (the Python or NumPy value would carry no derivative).
        ``integral`` conversions (``int(x)``, ``np.int64(x)``) are allowed: an
        integer part is piecewise constant, so its derivative is exactly 0."""
        try:
            value = self.concrete_value()
        except ConcretizationError as e:  # (no local name for the new error: no cycle)
            raise ConcretizationError(concretization_message(what, self.aval, e.batched),
                                      batched=e.batched, tracer=self) from None
        inexact = _INEXACT.get(getattr(value, "dtype", None))
        if inexact is None:
            inexact = _inexact(value, self)
        if inexact and not integral and self._tracked() and \
                not sys._getframe(2).f_code.co_filename.startswith(FAD_DIR):
            raise ConcretizationError(derivative_lost_message(what, self.aval))
        return value

    def _tracked(self) -> bool:
        """Whether a running differentiation (not one stopped by an enclosing
        ``no_grad`` block) tracks this tracer's value."""
        scope = _STATE.get().no_grad
        t: Any = self
        while isinstance(t, Tracer):
            main = t._trace.main
            if main.alive and main.differentiates and t.carries_derivative() and \
                    (scope is None or main.level >= scope.level):
                return True
            t = t.inner()
        return False

    def carries_derivative(self) -> bool:
        """Whether this tracer of a differentiation has a (possibly) nonzero
        derivative. Overridden where a tracer can hold a known zero derivative
        (forward mode's symbolic zero tangent)."""
        return True

    def __bool__(self) -> bool:
        return bool(self._concrete("The truth value"))

    def __float__(self) -> float:
        return float(self._concrete("A Python float"))

    def __int__(self) -> int:
        return int(self._concrete("A Python int", integral=True))

    def __complex__(self) -> complex:
        return complex(self._concrete("A Python complex"))

    def __index__(self) -> int:
        return int(self._concrete("An index", integral=True))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        # np.int64(x) asks for an integer dtype: piecewise constant, derivative 0
        integral = dtype is not None and np.dtype(dtype).kind in "biu"
        if not integral and self.aval.dtype.kind in "fc" and self._tracked() and not \
                sys._getframe(1).f_code.co_filename.startswith(FAD_DIR):
            # the user's plain NumPy function (np.dot, np.asarray) on a value being
            # differentiated (checked before the value: under vmap too)
            raise ConcretizationError(derivative_lost_message(
                "A NumPy array", self.aval, "a NumPy function (or np.asarray)",
                "Use the fad.numpy function instead (fnp.dot for np.dot)"))
        value = np.asarray(self._concrete("A NumPy array", integral))
        return value if dtype is None else value.astype(dtype)

    def __setitem__(self, index: Any, value: Any) -> None:
        raise TypeError(
            f"a traced array {self.aval.str_short()} cannot be assigned to (x[i] = v): "
            "transformed functions must not modify their values. Build the result "
            "instead: fnp.where(mask, v, x) for a masked update, or fnp.concatenate / "
            "fnp.stack of the pieces.")

    def inner(self) -> Any:
        """The value this tracer wraps, for transformations that wrap one (a
        primal, a batch); else None."""
        return None

    def item(self) -> Any:
        return np.asarray(self._concrete("A Python scalar")).item()

    def tolist(self) -> Any:
        return np.asarray(self._concrete("A Python list")).tolist()

    def __hash__(self) -> int:
        raise TypeError("traced arrays are unhashable (as NumPy arrays are)")

    def __repr__(self) -> str:
        return f"{type(self).__name__}<{self.aval.str_short()}>"


_INEXACT: dict = {}  # dtype -> is it a float or complex dtype


def _inexact(value: Any, tracer: Tracer) -> bool:
    """Whether ``value``, the concrete value of ``tracer``, is float or complex."""
    dtype = getattr(value, "dtype", None)
    if dtype is None:  # a Python scalar
        return tracer.aval.dtype.kind in "fc"
    r = _INEXACT[dtype] = _np_dtype(dtype).kind in "fc"
    return r


class PrimalTracer(Tracer):
    """A tracer that carries a concrete-or-lower-level ``primal`` value (forward and
    reverse mode): its shape, dtype and, when known, value are the primal's."""

    __slots__ = ("primal",)

    @property
    def aval(self) -> ShapedArray:
        return aval_of(self.primal)

    @property
    def shape(self) -> tuple:
        return self.primal.shape

    @property
    def dtype(self) -> Any:
        return self.primal.dtype

    def concrete_value(self) -> Any:
        p = self.primal
        return p.concrete_value() if isinstance(p, Tracer) else p

    def inner(self) -> Any:
        return self.primal


def rebinding(tracers: list, values: list) -> switch:
    """Inside the block, an operation on one of ``tracers`` uses the matching value
    instead. A custom-rule function staged by ``jit`` keeps its Python closures:
    the tracers it closes over are passed to the staged call as explicit inputs,
    and this maps the closures onto those inputs whenever the call runs or is
    transformed, after the trace that made the tracers has finished too.

    (Keyed by ``id``: the caller holds ``tracers``, so the ids stay unique.)
    """
    state = _STATE.get()
    table = dict(state.rebound or {})
    table.update((id(t), v) for t, v in zip(tracers, values))
    return switch(_STATE, TraceState(state.stack, state.dynamic, state.no_grad, table))


def _revived(args: tuple, table: dict) -> tuple:
    """``args`` with the tracers of a ``rebinding`` replaced; not where the
    replacement wraps the tracer itself (a transformation of the replacement
    binding its own inner value, which must go through unchanged)."""
    out = []
    for a in args:
        if isinstance(a, Tracer):
            v = table.get(id(a))
            if v is not None and not _wraps(v, a):
                a = v
        out.append(a)
    return tuple(out)


def _wraps(v: Any, t: Tracer) -> bool:
    while isinstance(v, Tracer):
        if v is t:
            return True
        v = v.inner()
    return False


def _check_alive(t: Tracer) -> None:
    main = t._trace.main
    if not main.alive:
        raise UnexpectedTracerError(
            f"A tracer {t!r} created by {main.label or 'a transformation'} was used "
            "after that transformation returned. It escaped, for example through a "
            "global variable, a list or `self`, from the function being transformed. "
            "Return the value from the function instead, or compute it outside.")


# The identity that ``no_grad`` wraps outside tracers in: ``stop_gradient``, which
# the primitives layer defines with its rules and registers here.
_stop_gradient_p: Any = None


def register_stop_gradient(prim: Any) -> None:
    """Make ``prim`` the primitive ``no_grad`` lowers its operands with."""
    global _stop_gradient_p
    _stop_gradient_p = prim


def _lower_no_grad(args: tuple, scope: NoGradScope) -> tuple:
    """Make the operands of an operation inside a ``no_grad`` block constants."""
    out = []
    for a in args:
        while isinstance(a, Tracer) and a._trace.main.level < scope.level:
            if a._trace.main.differentiates:
                a = a.primal
                continue
            key = id(a)
            if key not in scope.made:
                if key not in scope.wrapped:
                    scope.made[key] = a  # the wrapping operation itself is inside
                    stopped = bind(_stop_gradient_p, a)
                    del scope.made[key]
                    scope.made[id(stopped)] = stopped
                    scope.wrapped[key] = (a, stopped)
                a = scope.wrapped[key][1]
            break
        out.append(a)
    return tuple(out)


def bind(prim: Any, *args: Any, **params: Any) -> Any:
    """Apply primitive ``prim`` to ``args``: evaluate it, or let a trace record it."""
    state = _STATE.get()
    if state.rebound is not None:
        args = _revived(args, state.rebound)
    scope = state.no_grad
    if scope is not None:
        args = _lower_no_grad(args, scope)
    # the innermost transformation involved: the live tracer of highest level
    # (one frame for the whole dispatch: this runs several times per operation)
    top = None
    level = -1
    for a in args:
        if isinstance(a, Tracer):
            main = a._trace.main
            if not main.alive:
                _check_alive(a)
            if main.level > level:
                level = main.level
                top = a._trace
    dyn = state.dynamic
    if dyn is not None and dyn.level > level:
        top = dyn.trace
    if top is not None:
        out = top.process_primitive(prim, args, params)
    else:
        try:
            out = prim.impl(*args, **params)
        except (ShapeError, UnexpectedTracerError, ConcretizationError):
            raise
        except Exception as e:  # name the primitive, the operands and the user's line
            raise primitive_error(prim, args, params, e) from e
    if scope is not None:
        for o in (out if prim.multiple_results else (out,)):
            if isinstance(o, Tracer):
                scope.made[id(o)] = o
    return out


def primitive_error(prim: Any, args: tuple, params: dict, err: Exception) -> Exception:
    avals = ", ".join(aval_of(a).str_short() if not isinstance(a, int | float | complex)
                      else repr(a) for a in args)
    detail = f"{type(err).__name__}: {err}" if not isinstance(err, ShapeError) else str(err)
    # (a singular matrix stays a LinAlgError, arrays of two backends a BackendMismatchError)
    cls = ShapeError if isinstance(err, ValueError | TypeError | IndexError) and \
        not isinstance(err, np.linalg.LinAlgError | BackendMismatchError) else type(err)
    cls = IndexShapeError if cls is ShapeError and isinstance(err, IndexError) else cls
    try:
        return cls(f"primitive '{prim.name}' failed on operands ({avals})"
                   f"{_fmt_params(params)} at {user_source()}:\n  {detail}")
    except TypeError:
        return err


def _fmt_params(params: dict) -> str:
    return (" with " + ", ".join(f"{k}={v!r}" for k, v in params.items())) if params else ""


# ---------------------------------------------------------------- abstract values

_PY_SCALAR_DTYPE = {bool: np.dtype(bool), int: np.dtype(np.int64),
                    float: np.dtype(np.float64), complex: np.dtype(np.complex128)}


def aval_of(x: Any) -> ShapedArray:
    """The ``ShapedArray`` of a tracer, an array or a Python scalar."""
    if isinstance(x, Tracer):
        return x.aval
    dtype = _PY_SCALAR_DTYPE.get(type(x))
    if dtype is not None:
        return ShapedArray.make((), dtype)
    try:
        dtype = x.dtype
        if not isinstance(dtype, np.dtype):
            dtype = _np_dtype(dtype)
        return ShapedArray.make(tuple(x.shape), dtype)
    except AttributeError:
        arr = np.asarray(x)
        return ShapedArray(arr.shape, arr.dtype)


def shape_of(x: Any) -> tuple:
    """The shape of an array, a tracer or a Python scalar (``()``)."""
    try:
        return x.shape
    except AttributeError:
        return ()


def same_dtype(x: Any, y: Any) -> bool:
    """Whether two tracers or arrays hold the same dtype, whatever namespace each
    dtype object comes from (NumPy's built-in dtypes are singletons: ``is``
    answers at once; an array_api_strict dtype is translated before comparing,
    as it refuses to be compared with NumPy's)."""
    dx, dy = x.dtype, y.dtype
    if dx is dy:
        return True
    if type(dx) is type(dy):
        return dx == dy
    return (dx if isinstance(dx, np.dtype) else _np_dtype(dx)) == (
        dy if isinstance(dy, np.dtype) else _np_dtype(dy))


def _np_dtype(dtype: Any) -> np.dtype:
    try:
        return np.dtype(dtype)
    except TypeError:  # array_api_strict and friends wrap their dtypes
        return np.dtype(str(dtype).split(".")[-1].rstrip("'>"))


def is_float(dtype: Any) -> bool:
    return np.dtype(dtype).kind in "fc"


def concrete_or_none(x: Any) -> Any:
    """The concrete array behind ``x`` if tracing is concrete, else ``None``."""
    while isinstance(x, Tracer):
        try:
            x = x.concrete_value()
        except ConcretizationError:
            return None
    return x
