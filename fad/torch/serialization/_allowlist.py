"""The globals ``load(weights_only=True)`` resolves: the default allow-list
(``module.name`` -> object, and which of those objects a pickle may call) and the
safe-globals API that extends it, process-wide (``add_safe_globals``) or for one
block of code in the current thread / task (``safe_globals``); ``_not_allowed`` is
the error naming what the list refused and how to allow it.
"""

from __future__ import annotations

import collections
import contextvars
import pickle
from typing import Any, Callable, Iterable

import numpy as np

from .. import _dtype
from ..nn.modules import Parameter
from ..tensor import Size, Tensor, device
from ._storage import (
    _STORAGE_TYPES,
    _TENSOR_BUILDERS,
    _bytes_of,
    _codecs_encode,
    _np_dtype,
    _np_frombuffer,
    _np_reconstruct,
    _np_scalar,
    _rebuild_fad_parameter,
    _rebuild_fad_tensor,
    _rebuild_from_type_v2,
)


def _default_globals() -> tuple[dict[str, Any], set[int]]:
    """``module.name`` -> object, and the ids of those objects a pickle may call."""
    calls: dict[str, Any] = {
        "collections.OrderedDict": collections.OrderedDict,
        "builtins.set": set, "builtins.frozenset": frozenset, "builtins.complex": complex,
        "builtins.bytes": _bytes_of(bytes), "builtins.bytearray": _bytes_of(bytearray),
        "builtins.slice": slice,
        "_codecs.encode": _codecs_encode,
        "torch.Size": Size, "torch.device": device,
        "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
        "fad.torch.tensor._rebuild": _rebuild_fad_tensor,
        "fad.torch.nn.modules._rebuild_param": _rebuild_fad_parameter,
        "fad.torch.tensor.Size": Size, "fad.torch.tensor.device": device,
    }
    for f in _TENSOR_BUILDERS:
        calls[f"torch._utils.{f.__name__}"] = f
    for mod in ("numpy.core", "numpy._core"):
        calls[f"{mod}.multiarray._reconstruct"] = _np_reconstruct
        calls[f"{mod}.multiarray.scalar"] = _np_scalar
        calls[f"{mod}.numeric._frombuffer"] = _np_frombuffer
    calls["numpy.dtype"] = _np_dtype
    data: dict[str, Any] = {
        "numpy.ndarray": np.ndarray,
        "torch.Tensor": Tensor, "torch.nn.parameter.Parameter": Parameter,
        "fad.torch.tensor.Tensor": Tensor, "fad.torch.nn.modules.Parameter": Parameter,
        "fad.torch.Tensor": Tensor,
    }
    for d in _dtype.ALL:
        data[f"torch.{d.name}"] = data[f"fad.torch._dtype.{d.name}"] = d
        data[f"numpy.{d.np.type.__name__}"] = d.np.type
    data["torch.bfloat16"] = _dtype.float32
    for t in _STORAGE_TYPES.values():
        data[f"torch.{t.name}"] = t
    data["torch.storage.UntypedStorage"] = _STORAGE_TYPES["UntypedStorage"]
    return {**data, **calls}, {id(v) for v in calls.values()}


_DEFAULT, _DEFAULT_CALLS = _default_globals()
_TORCH_ONLY_DTYPES = {"uint16", "uint32", "uint64", "complex32", "chalf", "float8_e4m3fn",
                      "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu",
                      "qint8", "quint8", "qint32", "quint4x2", "quint2x4"}

# ``add_safe_globals`` is process-wide (as PyTorch's); ``safe_globals`` adds for a block
# of code in the current thread / task only: the blocks open there, as (block, objects).
_USER_GLOBALS: dict[str, Any] = {}
_SCOPED_GLOBALS: contextvars.ContextVar[tuple] = contextvars.ContextVar(
    "fad_torch_safe_globals", default=())


def _global_name(obj: Any) -> str:
    if isinstance(obj, tuple):
        obj, name = obj
        return name
    return f"{obj.__module__}.{getattr(obj, '__qualname__', obj.__name__)}"


def _entries(objs: Iterable[Any]) -> dict[str, Any]:
    out = {}
    for obj in objs:
        out[_global_name(obj)] = obj[0] if isinstance(obj, tuple) else obj
    return out


def add_safe_globals(safe_globals: list[Callable | tuple[Callable, str]]) -> None:
    """Let ``load(weights_only=True)`` rebuild these classes or call these functions.

    Only list what you trust: a listed class is instantiated with the file's
    arguments. Give ``(obj, "module.name")`` when the file names ``obj`` otherwise.

    >>> import io, fad.torch as torch
    >>> from fractions import Fraction
    >>> from fad.torch.serialization import add_safe_globals, clear_safe_globals
    >>> buf = io.BytesIO(); torch.save(Fraction(1, 3), buf); _ = buf.seek(0)
    >>> add_safe_globals([Fraction])
    >>> torch.load(buf)
    Fraction(1, 3)
    >>> clear_safe_globals()
    """
    _USER_GLOBALS.update(_entries(safe_globals))


def get_safe_globals() -> list[Any]:
    """The objects added by ``add_safe_globals`` (and enclosing ``safe_globals`` blocks).

    >>> from fad.torch.serialization import get_safe_globals
    >>> get_safe_globals()
    []
    """
    return list(_user_globals().values())


def clear_safe_globals() -> None:
    """Forget every object added by ``add_safe_globals``.

    >>> from fad.torch.serialization import add_safe_globals, clear_safe_globals, get_safe_globals
    >>> add_safe_globals([complex]); clear_safe_globals(); get_safe_globals()
    []
    """
    _USER_GLOBALS.clear()


class safe_globals:
    """``with safe_globals([MyClass]):``: ``add_safe_globals`` for one block of code.

    >>> import io, fad.torch as torch
    >>> from fractions import Fraction
    >>> buf = io.BytesIO(); torch.save(Fraction(1, 3), buf); _ = buf.seek(0)
    >>> with torch.serialization.safe_globals([Fraction]):
    ...     torch.load(buf)
    Fraction(1, 3)
    """

    def __init__(self, safe_globals: list[Callable | tuple[Callable, str]]):
        self.safe_globals = list(safe_globals)

    # Entered and left by value in the current context (no tokens kept on the
    # object), so one instance may be used by several threads or tasks at once.
    def __enter__(self) -> None:
        _SCOPED_GLOBALS.set(_SCOPED_GLOBALS.get() + ((self, tuple(self.safe_globals)),))

    def __exit__(self, *exc: Any) -> None:
        blocks = _SCOPED_GLOBALS.get()
        mine = max(i for i, (block, _) in enumerate(blocks) if block is self)
        _SCOPED_GLOBALS.set(blocks[:mine] + blocks[mine + 1:])


def _scoped_entries(blocks: tuple) -> dict[str, Any]:
    return _entries(obj for _, objs in blocks for obj in objs)


def _user_globals() -> dict[str, Any]:
    scoped = _SCOPED_GLOBALS.get()
    return {**_USER_GLOBALS, **_scoped_entries(scoped)} if scoped else _USER_GLOBALS


def _not_allowed(what: str, name: str) -> pickle.UnpicklingError:
    return pickle.UnpicklingError(
        f"Weights only load failed: {what} `{name}`, which fad.torch.load(weights_only=True) "
        "does not allow (it rebuilds only tensors, NumPy arrays, dtypes, containers and "
        "plain Python values, so that loading a file cannot run code). If you trust the "
        "source of this file, either allow it with "
        f"fad.torch.serialization.add_safe_globals([{name}]) (or the "
        f"fad.torch.serialization.safe_globals([{name}]) context manager), or load with "
        "weights_only=False, which runs whatever code the file contains.")
