"""What a checkpoint's pickle may build: the storage types (``torch.FloatStorage``...)
and the storages read from a file, PyTorch's rebuild functions of tensors and
parameters (``torch._utils._rebuild_tensor_v2``...) done by fad's own, the rebuilders
of tensors pickled by earlier fad versions, and NumPy's array, dtype and scalar
constructors, checked to build no arrays of Python objects. Each checks what the
file gives it and raises ``pickle.UnpicklingError`` for a corrupt or forged file.
"""

from __future__ import annotations

import codecs
import pickle
from typing import Any

import numpy as np

from .. import _dtype
from ..nn.modules import Parameter
from ..tensor import Size, Tensor, wrap


# ------------------------------------------------------------------ storages
class _StorageType:
    """What a ``torch.FloatStorage``-style global stands for: the element dtype
    of a storage record (``load`` is the dtype the tensors get)."""

    __slots__ = ("name", "np", "load")

    def __init__(self, name: str, np_dtype: Any, load: Any = None):
        self.name, self.np = name, np.dtype(np_dtype)
        self.load = self.np if load is None else np.dtype(load)

    def __repr__(self) -> str:
        return f"torch.{self.name}"


_STORAGE_TYPES = {t.name: t for t in (
    _StorageType("FloatStorage", np.float32), _StorageType("DoubleStorage", np.float64),
    _StorageType("HalfStorage", np.float16),
    _StorageType("BFloat16Storage", np.uint16, np.float32),
    _StorageType("LongStorage", np.int64), _StorageType("IntStorage", np.int32),
    _StorageType("ShortStorage", np.int16), _StorageType("CharStorage", np.int8),
    _StorageType("ByteStorage", np.uint8), _StorageType("BoolStorage", np.bool_),
    _StorageType("ComplexFloatStorage", np.complex64),
    _StorageType("ComplexDoubleStorage", np.complex128),
    _StorageType("UntypedStorage", np.uint8))}
_STORAGE_OF_NP = {t.np: t for t in _STORAGE_TYPES.values()
                  if t.name not in ("BFloat16Storage", "UntypedStorage")}


class _Storage:
    """A storage read from a checkpoint: a 1-D array of its elements."""

    __slots__ = ("type", "array")

    def __init__(self, stype: _StorageType, array: np.ndarray):
        self.type, self.array = stype, array

    def strided(self, offset: Any, size: Any, stride: Any, dtype: Any = None) -> np.ndarray:
        """The tensor ``(offset, size, stride)`` of this storage, as a fresh array;
        every index is checked to lie inside the storage."""
        a = self.array
        if dtype is not None:  # _rebuild_tensor_v3: an untyped storage read as ``dtype``
            d = _dtype.as_dtype(dtype).np
            raw = a.view(np.uint8)
            a = raw[:raw.size - raw.size % d.itemsize].view(d)
        size, stride = _ints(size, "size"), _ints(stride, "stride")
        (offset,) = _ints((offset,), "storage offset")
        if len(size) != len(stride) or min(size + stride + (offset,), default=0) < 0:
            raise pickle.UnpicklingError(
                f"invalid tensor layout in the checkpoint: size {list(size)}, stride "
                f"{list(stride)}, storage offset {offset}")
        if 0 not in size:
            last = offset + sum((n - 1) * s for n, s in zip(size, stride))
            if last >= a.size:
                raise pickle.UnpicklingError(
                    f"the checkpoint's tensor of size {list(size)} (stride {list(stride)}, "
                    f"offset {offset}) reaches element {last} of a storage of {a.size} "
                    "elements: the file is corrupt")
        base = a[offset:] if offset < a.size else a[:0]
        out = np.lib.stride_tricks.as_strided(
            base, shape=size, strides=tuple(s * a.itemsize for s in stride), writeable=False)
        out = np.array(out, dtype=out.dtype.newbyteorder("="))
        if self.type.load != self.type.np and dtype is None:  # bfloat16: the high half of a float32
            out = (out.astype(np.uint32) << 16).view(np.float32)
        return out


def _ints(xs: Any, what: str) -> tuple:
    if type(xs) not in (tuple, list, Size) or any(type(x) is not int for x in xs):
        raise pickle.UnpicklingError(f"invalid tensor {what} in the checkpoint: {xs!r}")
    return tuple(xs)


# ------------------------------------------------------------------ rebuild functions
def _rebuild_tensor(storage: _Storage, storage_offset: int, size: Any, stride: Any) -> Tensor:
    return _tensor_of(storage, storage_offset, size, stride, False)


def _rebuild_tensor_v2(storage: _Storage, storage_offset: int, size: Any, stride: Any,
                       requires_grad: bool, backward_hooks: Any, metadata: Any = None) -> Tensor:
    return _tensor_of(storage, storage_offset, size, stride, requires_grad)


def _rebuild_tensor_v3(storage: _Storage, storage_offset: int, size: Any, stride: Any,
                       requires_grad: bool, backward_hooks: Any, dtype: Any,
                       metadata: Any = None) -> Tensor:
    return _tensor_of(storage, storage_offset, size, stride, requires_grad, dtype)


def _tensor_of(storage: Any, offset: Any, size: Any, stride: Any, requires_grad: Any,
               dtype: Any = None) -> Tensor:
    if type(storage) is not _Storage:
        raise pickle.UnpicklingError(
            f"a tensor in the checkpoint is built from {type(storage).__name__}, not from a "
            "storage record")
    t = wrap(storage.strided(offset, size, stride, dtype))
    if requires_grad:
        t.requires_grad = True
    return t


def _rebuild_parameter(data: Tensor, requires_grad: bool, backward_hooks: Any) -> Parameter:
    if not isinstance(data, Tensor):
        raise pickle.UnpicklingError(f"a Parameter in the checkpoint wraps a "
                                     f"{type(data).__name__}, not a tensor")
    return Parameter(data, bool(requires_grad))


def _rebuild_parameter_with_state(data: Tensor, requires_grad: bool, backward_hooks: Any,
                                  state: Any) -> Parameter:
    return _with_state(_rebuild_parameter(data, requires_grad, backward_hooks), state)


def _rebuild_from_type_v2(func: Any, new_type: Any, args: Any, state: Any) -> Tensor:
    if not any(func is f for f in _TENSOR_BUILDERS) or not (new_type is Tensor
                                                            or new_type is Parameter):
        raise pickle.UnpicklingError(
            f"cannot rebuild a tensor of type {new_type!r} with {func!r}")
    t = func(*args)
    if new_type is Parameter and type(t) is not Parameter:
        t = Parameter(t, t.requires_grad)
    return _with_state(t, state)


def _with_state(t: Tensor, state: Any) -> Tensor:
    """Python attributes saved with a tensor (``t.__dict__``), never its slots."""
    if isinstance(state, tuple) and len(state) == 2:
        state = state[0]
    if state:
        t.__dict__.update(_attributes(type(t), state))
    return t


def _attributes(cls: type, state: Any) -> dict:
    """An instance ``__dict__`` from a file: string keys that shadow nothing of
    the class (a loaded object's methods stay its class's)."""
    if type(state) is not dict or any(type(k) is not str or hasattr(cls, k) for k in state):
        raise pickle.UnpicklingError(f"invalid state of a {cls.__name__} in the file: "
                                     f"{sorted(map(repr, state))[:5]}")
    return state


def _rebuild_fad_tensor(a: Any, requires_grad: bool, cls: Any = Tensor) -> Tensor:
    """Tensors pickled by earlier fad versions (a NumPy array and a class)."""
    if type(a) is not np.ndarray or cls not in (Tensor, Parameter):
        raise pickle.UnpicklingError("invalid fad tensor in the file")
    t = wrap(a, cls=cls)
    if requires_grad:
        t.requires_grad = True
    return t


def _rebuild_fad_parameter(a: Any, requires_grad: bool) -> Parameter:
    return _rebuild_fad_tensor(a, requires_grad, Parameter)


_TENSOR_BUILDERS = (_rebuild_tensor, _rebuild_tensor_v2, _rebuild_tensor_v3,
                    _rebuild_parameter, _rebuild_parameter_with_state)


# ------------------------------------------------------------------ NumPy, checked
def _no_objects(d: Any) -> Any:
    if isinstance(d, np.dtype) and d.hasobject:
        raise pickle.UnpicklingError("NumPy arrays of Python objects are not weights: "
                                     "load them with weights_only=False (trusted files only)")
    return d


_NP_RECONSTRUCT = np.zeros(1).__reduce__()[0]
_NP_SCALAR = np.float64(0).__reduce__()[0]


def _np_reconstruct(subtype: Any, shape: Any, dtype: Any) -> np.ndarray:
    if subtype is not np.ndarray:
        raise pickle.UnpicklingError(f"cannot rebuild an array of type {subtype!r}")
    _no_objects(np.dtype(dtype) if type(dtype) in (bytes, str) else dtype)
    return _NP_RECONSTRUCT(np.ndarray, shape, dtype)


def _np_dtype(obj: Any, align: bool = False, copy: bool = False) -> np.dtype:
    if type(obj) is not str:
        raise pickle.UnpicklingError(f"invalid NumPy dtype {obj!r} in the file")
    return _no_objects(np.dtype(obj, bool(align), True))


def _np_scalar(dtype: Any, data: Any = None) -> Any:
    if not isinstance(dtype, np.dtype) or type(data) is not bytes:
        raise pickle.UnpicklingError("invalid NumPy scalar in the file")
    return _NP_SCALAR(_no_objects(dtype), data)


def _np_frombuffer(buf: Any, dtype: Any, shape: Any, order: str) -> np.ndarray:
    if type(buf) not in (bytes, bytearray) or not isinstance(dtype, np.dtype):
        raise pickle.UnpicklingError("invalid NumPy array in the file")
    return np.frombuffer(buf, _no_objects(dtype)).reshape(_ints(shape, "shape"),
                                                          order="F" if order == "F" else "C")


def _codecs_encode(s: Any, encoding: str = "utf-8") -> bytes:
    """How protocol-2 pickles spell ``bytes`` (``_codecs.encode(text, 'latin1')``)."""
    if type(s) is not str or encoding not in ("latin1", "latin-1"):
        raise pickle.UnpicklingError(f"_codecs.encode with {encoding!r}: only latin1 text "
                                     "(how pickle writes bytes) is allowed")
    return codecs.encode(s, "latin1")
