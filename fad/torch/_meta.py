"""The ``meta`` device: tensors with a shape and a dtype but no data, as PyTorch's
(``torch.empty(3, device="meta")``, ``module.to("meta")``, ``with
torch.device("meta"):``), printed ``tensor(..., device='meta', size=...)``.

A meta tensor's array is a ``MetaArray``: one zero seen at every position (a
zero-strided, read-only NumPy view). Operations on meta tensors run on those
zeros, so that shapes, dtypes and autograd follow the facade's usual rules, and
their results are meta again; reading values (``item``, ``tolist``, ``numpy``,
moving to another device) is refused with PyTorch's errors, writes (``uniform_``,
``copy_``...) store nothing, and ``Module.to_empty(device=...)`` gives a module
real (uninitialised) storage. Operations whose output shape depends on values
(``nonzero``, ``unique``...) see zeros, where PyTorch refuses them.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

NO_DATA = "Cannot copy out of meta tensor; no data!"


class MetaArray(np.ndarray):
    """The array of a meta tensor (see the module's docstring); ``byte_strides``:
    the layout it stands for (``None``: row-major), what ``stride()`` reports."""

    byte_strides: tuple | None = None


def meta_array(shape: tuple, dtype: Any, byte_strides: tuple | None = None) -> MetaArray:
    """A meta array of this shape and dtype (no memory beyond one element)."""
    m = np.broadcast_to(np.zeros((), dtype), tuple(shape)).view(MetaArray)
    m.byte_strides = byte_strides
    return m


def as_meta(a: Any) -> MetaArray:
    """A meta array standing for array ``a`` (its shape, dtype and layout)."""
    if type(a) is MetaArray:
        return meta_array(a.shape, a.dtype, a.byte_strides)
    a = np.asarray(a)
    return meta_array(a.shape, a.dtype, a.strides if a.size else None)


def is_meta(v: Any) -> bool:
    return type(v) is MetaArray


def plain(v: Any) -> Any:
    """A meta array as the NumPy array of zeros it stands for, laid out as it says
    (others unchanged)."""
    if type(v) is not MetaArray:
        return v
    strides = v.byte_strides
    if strides is None or v.size == 0 or min(strides, default=0) < 0:
        return np.zeros(v.shape, v.dtype)
    cells = 1 + sum((n - 1) * s for n, s in zip(v.shape, strides)) // v.itemsize
    return np.lib.stride_tricks.as_strided(np.zeros(cells, v.dtype), v.shape, strides)


class _MetaNamespace:
    """The array namespace of the ``meta`` device for the creation functions: NumPy's
    functions, their results made meta (dtypes and the rest: NumPy's names)."""

    __name__ = "meta"

    def __getattr__(self, name: str) -> Any:
        value = getattr(np, name)
        if not callable(value) or isinstance(value, type):
            return value

        def made_meta(*args: Any, **kwargs: Any) -> Any:
            return as_meta(value(*args, **kwargs))
        return made_meta


META = _MetaNamespace()


def on_meta(compute: Callable[[list], Any], vals: list) -> Any:
    """``compute(values)`` with meta arrays replaced by plain zeros, its tensors'
    arrays then made meta (an operation with a meta operand has meta results)."""
    out = compute([plain(v) for v in vals])
    for t in (out if isinstance(out, tuple | list) else (out,)):
        v = getattr(t, "_value", None)
        if isinstance(v, np.ndarray):
            t._value = as_meta(v)
    return out
