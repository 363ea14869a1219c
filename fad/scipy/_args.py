"""Arguments of ``fad.scipy``'s functions as real float arrays (as ``jax.scipy``).

>>> real(2, "fad.scipy.special.erf").dtype
dtype('float64')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import numpy as fnp
from ..core.trace import _np_dtype


def real(x: Any, where: str) -> Any:
    """``x`` as an array of real floats: integers and booleans become float64, a
    float keeps its dtype; complex input raises a ``TypeError`` naming ``where``."""
    x = fnp.asarray(x)
    kind = _np_dtype(x.dtype).kind
    if kind == "f":
        return x
    if kind == "c":
        raise TypeError(f"{where} takes real numbers, not {x.dtype} (as jax.scipy)")
    return fnp.asarray(x, np.float64)


def reals(where: str, *args: Any) -> list:
    """The arguments as real float arrays of one dtype: a Python number takes the
    arrays' dtype (as JAX's weak types), integers and booleans become float64.

    >>> [a.dtype.name for a in reals("f", np.float32(1), 2.0, 3)]
    ['float32', 'float32', 'float32']
    >>> [a.dtype.name for a in reals("f", np.ones(1, np.float32), 2.0)]
    ['float32', 'float32']
    """
    arrays = [None if isinstance(a, int | float) and not isinstance(a, bool | np.generic) else
              real(a, where) for a in args]
    given = [_np_dtype(a.dtype) for a in arrays if a is not None]
    dtype = np.result_type(*given) if given else np.float64
    return [fnp.asarray(a if b is None else b, dtype) for a, b in zip(args, arrays)]


__all__: list[str] = []
