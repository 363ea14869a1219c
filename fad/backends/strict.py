"""The ``array_api_strict`` backend.

``array_api_strict``'s operators raise ``TypeError`` on an operand type they do
not know instead of returning ``NotImplemented``, so ``array * tracer`` never
reaches the tracer's reflected method (``tracer.__rmul__``), which every
derivative rule written ``g * f(x)`` needs. Python's protocol is restored for
such operands: an operand that is neither one of its arrays, a Python scalar,
nor a NumPy value gets ``NotImplemented`` (NumPy values are still refused, by
the library's own check).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Backend

# operator -> its reflected form (what Python tries on the other operand)
_REFLECTED = {"add": "radd", "sub": "rsub", "mul": "rmul", "truediv": "rtruediv",
              "floordiv": "rfloordiv", "mod": "rmod", "pow": "rpow", "matmul": "rmatmul",
              "and": "rand", "or": "ror", "xor": "rxor", "lt": "gt", "le": "ge",
              "gt": "lt", "ge": "le"}
_KNOWN = (bool, int, float, complex, np.ndarray, np.generic)


def _deferring(method: Any, array_type: type, reflected: str) -> Any:
    def op(self: Any, other: Any) -> Any:
        if not isinstance(other, array_type) and not isinstance(other, _KNOWN) \
                and hasattr(type(other), reflected):
            return NotImplemented
        return method(self, other)
    op.__name__, op.__doc__ = method.__name__, method.__doc__
    op._fad_defers = True  # type: ignore[attr-defined]
    return op


def defer_to_reflected(array_type: type) -> None:
    """Make ``array_type``'s binary operators return ``NotImplemented`` for
    operand types that define the reflected operator (idempotent).

    >>> import array_api_strict as xp
    >>> defer_to_reflected(type(xp.ones(1)))
    >>> class Other:
    ...     def __rmul__(self, a): return "reflected"
    >>> xp.ones(1) * Other()
    'reflected'
    """
    for name, reflected in _REFLECTED.items():
        method = getattr(array_type, f"__{name}__", None)
        if method is None or getattr(method, "_fad_defers", False):
            continue
        setattr(array_type, f"__{name}__", _deferring(method, array_type, f"__{reflected}__"))
        if name in ("lt", "le", "gt", "ge"):
            continue
        r = getattr(array_type, f"__{reflected}__", None)
        if r is not None and not getattr(r, "_fad_defers", False):
            setattr(array_type, f"__{reflected}__", _deferring(r, array_type, f"__{name}__"))


def make_strict_backend() -> Backend:
    """Import ``array_api_strict`` and return its backend."""
    import array_api_strict
    defer_to_reflected(type(array_api_strict.asarray(0)))
    return Backend("array_api_strict", array_api_strict)
