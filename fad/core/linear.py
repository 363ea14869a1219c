"""The placeholder of transposition: a linear operand whose value is unknown.

A ``transpose`` rule receives its linear operands as ``UndefinedPrimal`` (only
their abstract value is known) and its other operands as values; it returns one
cotangent per operand (``None`` for the operands that are not linear).
"""

from __future__ import annotations

from typing import Any

from .ir import ShapedArray


class UndefinedPrimal:
    """Stands for the linear operand of a primitive being transposed.

    >>> import numpy as np
    >>> UndefinedPrimal(ShapedArray((3,), np.dtype("float32")))
    UndefinedPrimal(f32[3])
    """

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self) -> str:
        return f"UndefinedPrimal({self.aval.str_short()})"


def is_undefined(x: Any) -> bool:
    """Whether ``x`` is a linear operand being transposed (not a value).

    >>> import numpy as np
    >>> is_undefined(UndefinedPrimal(ShapedArray((), np.dtype("float64")))), is_undefined(1.0)
    (True, False)
    """
    return type(x) is UndefinedPrimal
