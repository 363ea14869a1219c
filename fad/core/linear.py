"""The placeholder of transposition: a linear operand whose value is unknown.

A ``transpose`` rule receives its linear operands as ``UndefinedPrimal`` (only
their abstract value is known) and its other operands as values; it returns one
cotangent per operand (``None`` for the operands that are not linear).
"""

from __future__ import annotations

from typing import Any

from .ir import ShapedArray


class UndefinedPrimal:
    """Stands for the linear operand of a primitive being transposed."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self) -> str:
        return f"UndefinedPrimal({self.aval.str_short()})"


def is_undefined(x: Any) -> bool:
    return type(x) is UndefinedPrimal
