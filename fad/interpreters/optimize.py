"""The optimisation pipeline ``fad.jit`` runs before code generation.

Each pass is an IR -> IR rewrite in its own module: ``inline`` (nested calls),
``simplify`` (each primitive's algebraic identities), ``fold`` (constant
folding), ``cse`` (common subexpressions), ``dce`` (dead code). They only use
what every primitive declares — never a primitive's maths by name.
"""

from __future__ import annotations

from typing import Callable

from ..core.ir import ClosedJaxpr
from .cse import cse
from .dce import dce
from .fold import FOLD_LIMIT, fold_constants
from .inline import inline_calls
from .simplify import simplify

PASSES: list[Callable[[ClosedJaxpr], ClosedJaxpr]] = [
    inline_calls, simplify, fold_constants, simplify, cse, dce]


def optimize(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Run every pass, twice (one pass's output feeds another's opportunities)."""
    for _ in range(2):
        for p in PASSES:
            closed = p(closed)
    return closed

__all__ = ["optimize", "PASSES", "inline_calls", "simplify", "fold_constants", "cse", "dce",
           "FOLD_LIMIT"]
