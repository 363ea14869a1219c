"""Array creation on the default backend (``fad.set_backend``); constants, so
they carry no derivative."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backends import default_xp
from ..core.trace import Tracer
from ._base import asarray, dtype_of, static_shape, static_value


def _xp_dtype(xp: Any, dtype: Any) -> Any:
    return None if dtype is None else getattr(xp, np.dtype(dtype).name)


def array(object: Any, dtype: Any = None, copy: bool = True) -> Any:
    """Make an array (or pass a traced one through).

    >>> import fad.numpy as fnp
    >>> fnp.array([1.0, 2.0]).dtype
    dtype('float64')
    """
    x = asarray(object, dtype)
    if copy and not isinstance(x, Tracer) and x is object:
        return default_xp().asarray(x, copy=True) if hasattr(x, "__array_namespace__") \
            else x
    return x


def zeros(shape: Any, dtype: Any = float) -> Any:
    """Array of zeros (float64 by default).

    >>> import fad.numpy as fnp
    >>> fnp.zeros((2, 3)).shape
    (2, 3)
    """
    xp = default_xp()
    return xp.zeros(static_shape(shape, "fnp.zeros"), dtype=_xp_dtype(xp, dtype))


def ones(shape: Any, dtype: Any = float) -> Any:
    """Array of ones (float64 by default)."""
    xp = default_xp()
    return xp.ones(static_shape(shape, "fnp.ones"), dtype=_xp_dtype(xp, dtype))


def empty(shape: Any, dtype: Any = float) -> Any:
    """Uninitialised array (zeros here: fad never exposes garbage)."""
    return zeros(shape, dtype)


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Any:
    """Array filled with ``fill_value`` (a constant; use ``broadcast_to`` for a
    differentiable fill)."""
    xp = default_xp()
    shape = static_shape(shape, "fnp.full")
    if isinstance(fill_value, Tracer):
        from ._shape import broadcast_to
        return broadcast_to(asarray(fill_value, dtype), shape)
    return xp.full(shape, fill_value, dtype=_xp_dtype(xp, dtype))


def _like(a: Any, dtype: Any) -> tuple:
    a = asarray(a)
    return a.shape, (dtype if dtype is not None else dtype_of(a))


def zeros_like(a: Any, dtype: Any = None) -> Any:
    """Zeros of ``a``'s shape and dtype."""
    shape, dt = _like(a, dtype)
    return zeros(shape, dt)


def ones_like(a: Any, dtype: Any = None) -> Any:
    """Ones of ``a``'s shape and dtype."""
    shape, dt = _like(a, dtype)
    return ones(shape, dt)


def empty_like(a: Any, dtype: Any = None) -> Any:
    return zeros_like(a, dtype)


def full_like(a: Any, fill_value: Any, dtype: Any = None) -> Any:
    shape, dt = _like(a, dtype)
    return full(shape, fill_value, dt)


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = float) -> Any:
    """Identity-like matrix with ones on diagonal ``k``."""
    xp = default_xp()
    what = "A shape for fnp.eye"
    return xp.eye(static_value(N, what), static_value(M, what), k=static_value(k, what),
                  dtype=_xp_dtype(xp, dtype))


def identity(n: int, dtype: Any = float) -> Any:
    return eye(n, dtype=dtype)


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Any:
    """Evenly spaced values in ``[start, stop)``, dtypes as NumPy.

    >>> import fad.numpy as fnp
    >>> fnp.arange(3).tolist()
    [0, 1, 2]
    """
    xp = default_xp()
    what = "A shape for fnp.arange (its start, stop and step)"
    start, stop, step = (static_value(v, what) for v in (start, stop, step))
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    if dtype is None:
        dtype = np.arange(start, stop, step).dtype if not hasattr(start, "dtype") else None
    return xp.arange(start, stop, step, dtype=_xp_dtype(xp, dtype))


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
             dtype: Any = None) -> Any:
    """``num`` evenly spaced samples from ``start`` to ``stop`` (differentiable in
    traced ends)."""
    if isinstance(start, Tracer) or isinstance(stop, Tracer):
        from ._extra import traced_linspace
        return traced_linspace(start, stop, num, endpoint, dtype)
    xp = default_xp()
    return xp.linspace(start, stop, num, endpoint=endpoint, dtype=_xp_dtype(xp, dtype))
