"""64-bit mode (``fad.config.update("fad_enable_x64", False)``: float32 mode).

On by default: arrays are created as NumPy creates them (float64, int64). Off
(or ``FAD_ENABLE_X64=0`` / ``JAX_ENABLE_X64=0`` in the environment), as JAX
without x64: creation functions and Python scalars default to float32 and
int32, and 64-bit arrays entering ``fad.numpy`` or a transformation become
32-bit (an explicit request for a 64-bit dtype warns and is narrowed).

The mode is this module's ``ENABLED``, which the switch rebinds (with the
narrowing table): readers look it up once per array created or converted,
never per operation of a traced program.

>>> import numpy as np
>>> narrow_dtype(np.float64), ENABLED
(dtype('float64'), True)
"""

from __future__ import annotations

import os
import warnings
from typing import Any, Callable

import numpy as np

_WIDE = {np.dtype(np.float64): np.dtype(np.float32), np.dtype(np.int64): np.dtype(np.int32),
         np.dtype(np.uint64): np.dtype(np.uint32),
         np.dtype(np.complex128): np.dtype(np.complex64)}


def _from_env() -> bool:
    for name in ("FAD_ENABLE_X64", "JAX_ENABLE_X64"):
        v = os.environ.get(name)
        if v is not None:
            return v.strip().lower() not in ("0", "false", "no", "off", "")
    return True


ENABLED: bool = _from_env()
NARROW: dict = {} if ENABLED else _WIDE  # dtype -> its 32-bit replacement (off: all)
_LISTENERS: list[Callable[[], None]] = []


def narrow_dtype(dtype: Any) -> np.dtype:
    """``dtype`` as the current mode has it (float64 -> float32 when off).

    >>> narrow_dtype("int32")
    dtype('int32')
    """
    d = np.dtype(dtype)
    return NARROW.get(d, d)


def requested(dtype: Any, where: str) -> np.dtype | None:
    """An explicitly requested ``dtype`` in the current mode: a 64-bit one when
    off is narrowed, with JAX's warning; ``None`` stays ``None``, and Python's
    ``float``, ``int`` and ``complex`` mean the mode's default (no warning)."""
    if dtype is None:
        return None
    d = np.dtype(dtype)
    n = NARROW.get(d)
    if n is None or dtype in (float, int, complex):
        return d if n is None else n
    warnings.warn(f"Explicitly requested dtype {d.name} requested in {where} is not "
                  f"available, and will be truncated to dtype {n.name}. To enable more "
                  "dtypes, set fad.config.update('fad_enable_x64', True) or the "
                  "FAD_ENABLE_X64 environment variable.", UserWarning, stacklevel=3)
    return n


def narrow(x: Any) -> Any:
    """A concrete array (anything with ``dtype`` and ``astype``) in the current
    mode's dtype."""
    n = NARROW.get(getattr(x, "dtype", None))
    return x if n is None else x.astype(n)


def set_enabled(flag: bool) -> None:
    """Switch 64-bit mode; the layers above that depend on it are told."""
    global ENABLED, NARROW
    ENABLED = bool(flag)
    NARROW = {} if ENABLED else _WIDE
    for listener in _LISTENERS:
        listener()


def on_change(listener: Callable[[], None]) -> None:
    """Call ``listener()`` now and whenever the mode changes."""
    _LISTENERS.append(listener)
    listener()


__all__ = ["ENABLED", "narrow_dtype", "requested", "narrow", "set_enabled", "on_change"]
