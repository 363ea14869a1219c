"""Primitives with an effect (``Primitive.effect``): they are run for what they
do, not for a value, so jit's optimiser never removes, merges or folds them."""

from __future__ import annotations

from typing import Any

from ..core.primitive import Primitive
from .builders import loop_batch_rule


# ------------------------------------------------------------------ debug_callback
# ``callback(*arrays)`` called with the concrete operands, whenever the program
# runs (eagerly, or in jit's generated code); no outputs. Its operands never carry
# a derivative (``fad.debug`` stops their gradients), and ``vmap`` calls it once
# per example (as JAX's ``debug.print``).
def _debug_callback(xp: Any, *args: Any, callback: Any) -> list:
    callback(*args)
    return []


debug_callback_p = Primitive("debug_callback", _debug_callback,
                             lambda *avals, callback: [], multiple_results=True)
debug_callback_p.effect = True
debug_callback_p.batch = loop_batch_rule(debug_callback_p)
