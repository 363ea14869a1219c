"""The errors users meet, and how fad finds the user's own line of code."""

from __future__ import annotations

import os
import sys

# the package's directory, with its separator: a user's ``fad_demo.py`` beside it is
# the user's code, not fad's
FAD_DIR = _FAD_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class ConcretizationError(TypeError):
    """A traced value was used where Python needs a concrete one (``if x > 0:``
    under ``jit``), or a value being differentiated was turned into a Python or
    NumPy value (``float(x)``, ``x.item()``, ``math.sin(x)``, ``bool(x)`` of a
    float array), which would silently drop its derivative."""

    def __init__(self, message: str = "", batched: bool = False, tracer: object = None):
        super().__init__(message)
        self.batched = batched  # raised for a vmap batch (one value per example)
        self.tracer = tracer  # the traced value asked for, when known (jit names it)


class UnexpectedTracerError(Exception):
    """A tracer escaped the transformation that created it and was used later."""


class ShapeError(TypeError, ValueError):
    """A primitive was applied to operands of incompatible shapes or dtypes."""


class IndexShapeError(ShapeError, IndexError):
    """An index out of range for the indexed array's shape: also NumPy's
    ``IndexError``, so ``except IndexError`` catches it as it catches NumPy's."""


def user_frame() -> tuple[str, int] | None:
    """The innermost stack frame that is not inside the fad package."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_FAD_DIR) or "/tests/" in filename:
            if not filename.startswith("<frozen"):
                return filename, frame.f_lineno
        frame = frame.f_back
    return None


def user_source() -> str:
    """``file:line`` of the user's code that is running now, or ``'<unknown>'``."""
    where = user_frame()
    return f"{where[0]}:{where[1]}" if where else "<unknown>"


_SHAPE_NEEDS = ("A shape", "A slice bound")  # (``what`` of a value that decides a shape)


def concretization_message(what: str, aval: object, batched: bool = False) -> str:
    """Why a traced value has no concrete value here, and what to write instead;
    ``batched``: the value is a ``vmap`` batch (one value per example). A ``what``
    such as ``"A shape for fnp.zeros"`` or ``"A slice bound"`` says that an
    array's shape depends on the value."""
    if what.startswith(_SHAPE_NEEDS):
        return _shape_message(what, aval, batched)
    take = ("To index a NumPy array with a traced index, use fnp.take(array, index)."
            if what in ("An index", "A NumPy array") else "")
    if batched:
        return (f"{what} of a traced array {aval.str_short()} is needed here, but under "
                "fad.vmap each example has its own value.\n"
                "Use fnp.where for elementwise selection, or fad.lax.cond / "
                "fad.lax.while_loop for control flow that depends on the example. "
                + take).rstrip()
    return (
        f"{what} of a traced array {aval.str_short()} is needed here, but its value is not known "
        "while tracing abstractly (under fad.jit or fad.make_jaxpr).\n"
        "Use structured control flow instead of Python `if`/`while` on traced values: "
        "fad.lax.cond for branches, fad.lax.while_loop / fad.lax.fori_loop / "
        "fad.lax.scan for loops, "
        "or fnp.where for elementwise selection; or mark the argument static with "
        "static_argnums. (Under fad.grad / fad.jvp / fad.vjp without jit, tracing "
        "is concrete and Python control flow works.) " + take
    ).rstrip()


def _shape_message(what: str, aval: object, batched: bool) -> str:
    if batched:
        return (f"{what} is a traced array {aval.str_short()}, but under fad.vmap each "
                "example has its own value, and an array's shape cannot differ between "
                "examples. Pass it unbatched (in_axes=None for that argument) or as a "
                "Python int.")
    return (f"{what} is a traced array {aval.str_short()}, whose value is not known "
            "while tracing abstractly (under fad.jit or fad.make_jaxpr); array shapes must "
            "be fixed when the function is traced. Mark the argument it comes from "
            "static (fad.jit(f, static_argnums=...) or static_argnames=...), or compute "
            "it from an array's .shape, which is known while tracing.")


def derivative_lost_message(what: str, aval: object,
                            by: str = "Python (float(), int(), .item(), the math module)",
                            instead: str = "") -> str:
    """Why a value being differentiated cannot become a Python (or NumPy) value,
    and what to write instead."""
    instead = instead or ("Keep the computation in fad: fnp.sin(x) for math.sin(x), "
                          "x.astype(dtype) to change the dtype")
    truth = (" Comparisons work in Python control flow (if x > 0:), the truth value of "
             "a float array does not (if x:)." if what == "The truth value" else "")
    return (
        f"{what} of a traced array {aval.str_short()} was requested: {by} received a "
        "value being differentiated, and the result would carry no derivative (the "
        f"derivative would silently be zero). {instead}; or, if a constant is meant, "
        "take fad.stop_gradient(x) first (float(fad.stop_gradient(x)))." + truth)
