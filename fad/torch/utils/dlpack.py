"""``torch.utils.dlpack``: ``from_dlpack`` and ``to_dlpack``, exchanging tensors
with NumPy, PyTorch, JAX, CuPy... through DLPack without copying.

>>> import numpy as np, fad.torch as torch
>>> a = np.zeros(3, dtype=np.float32)
>>> t = torch.utils.dlpack.from_dlpack(a)
>>> t += 1
>>> a
array([1., 1., 1.], dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as fnp
from .. import cuda
from ..tensor import Tensor, export_dlpack, mark_shared, wrap
from ..tensor import device as _device


def from_dlpack(ext_tensor: Any, *, device: Any = None, copy: bool | None = None) -> Tensor:
    """A tensor sharing the memory of ``ext_tensor``: an array of another library
    (anything with ``__dlpack__``) or a DLPack capsule (as ``to_dlpack`` makes).
    Writes through either are seen by the other. ``device`` (``"cpu"``/``"cuda"``)
    asks for the data there; ``copy=True`` copies, ``copy=False`` never does.

    >>> import numpy as np
    >>> from_dlpack(np.arange(3.))
    tensor([0., 1., 2.], dtype=torch.float64)
    """
    legacy = type(ext_tensor).__name__ == "PyCapsule" and _is_legacy(ext_tensor)
    target = None if device is None else _device(device).type
    source = getattr(ext_tensor, "__dlpack_device__", None)
    if target == "cuda" or (target is None and source is not None and
                            int(source()[0]) in _CUDA_MEMORY):
        cuda.namespace()  # (says in one sentence what is missing, if anything)
    value = fnp.from_dlpack(ext_tensor, device=target, copy=copy)
    if legacy and type(value) is np.ndarray and not value.flags.writeable:
        value = _writable(value)
    t = wrap(value)
    if not copy:
        mark_shared(t)
    return t


_CUDA_MEMORY = (2, 10, 13)  # DLPack's kDLCUDA, kDLROCM, kDLCUDAManaged: read with CuPy


def to_dlpack(tensor: Tensor) -> Any:
    """A DLPack capsule of ``tensor``'s memory (an opaque object for one
    ``from_dlpack`` of any library; it shares memory with ``tensor``).

    >>> import numpy as np, fad.torch as torch
    >>> t = torch.zeros(2)
    >>> back = torch.utils.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(t))
    >>> back[0] = 7.0
    >>> t
    tensor([7., 0.])
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack(): argument 'tensor' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    return export_dlpack(tensor)


def _is_legacy(capsule: Any) -> bool:
    import ctypes
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    return get_name(capsule) == b"dltensor"


class _Buffer:
    """The memory of a NumPy array, offered writable (``__array_interface__``), and
    the array kept alive with it."""

    def __init__(self, array: np.ndarray):
        face = dict(array.__array_interface__)
        face["data"] = (face["data"][0], False)
        self.__array_interface__ = face
        self._array = array


def _writable(value: np.ndarray) -> np.ndarray:
    """A writable view of an array NumPy imported read-only from a legacy DLPack
    capsule: the legacy format has no read-only flag, and its producers (PyTorch's
    ``to_dlpack``, ``torch.utils.dlpack.to_dlpack`` here) hand over writable
    memory, which PyTorch's ``from_dlpack`` writes into."""
    return np.asarray(_Buffer(value))


__all__ = ["from_dlpack", "to_dlpack"]
