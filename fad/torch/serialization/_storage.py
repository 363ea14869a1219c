"""What a checkpoint's pickle may build: the storage types (``torch.FloatStorage``...)
and the storages read from a file, PyTorch's rebuild functions of tensors and
parameters (``torch._utils._rebuild_tensor_v2``...) done by fad's own, the rebuilders
of tensors pickled by earlier fad versions, NumPy's array, dtype and scalar
constructors and dtype states, checked to build no arrays of Python objects and no
dtype reaching past its items, and ``bytes``/``bytearray``. Each checks what the
file gives it and raises ``pickle.UnpicklingError`` for a corrupt or forged file;
none lets a few bytes of file claim an amount of memory of their choosing.
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


_COPIES = 4  # the copies of one storage's tensors add up to at most this many storages


class _Storage:
    """A storage read from a checkpoint: a 1-D array of its elements (or a slice
    of one, ``view``, sharing its converted elements and its copy allowance)."""

    __slots__ = ("type", "array", "_root", "_start", "_loaded", "_copyable")

    def __init__(self, stype: _StorageType, array: np.ndarray, root: _Storage | None = None,
                 start: int = 0):
        self.type, self.array, self._root, self._start = stype, array, root, start
        self._loaded: np.ndarray | None = None
        self._copyable = _COPIES * array.nbytes if root is None else 0

    def view(self, offset: int, size: int) -> _Storage:
        """Elements ``offset`` to ``offset + size`` (a legacy checkpoint's storage view)."""
        return _Storage(self.type, self.array[offset:offset + size], self, offset)

    def loaded(self) -> np.ndarray:
        """The elements as tensors get them: native byte order, bfloat16 as float32."""
        if self._root is not None:
            return self._root.loaded()[self._start:self._start + self.array.size]
        if self._loaded is None:
            a = self.array.astype(self.array.dtype.newbyteorder("="), copy=False)
            if self.type.load != self.type.np:  # bfloat16: the high half of a float32
                a = (a.astype(np.uint32) << 16).view(np.float32)
            self._loaded = a
        return self._loaded

    def _may_copy(self, nbytes: int) -> bool:
        """Whether ``nbytes`` more may be copied out of this storage (and take them)."""
        owner = self if self._root is None else self._root
        if nbytes > owner._copyable:
            return False
        owner._copyable -= nbytes
        return True

    def strided(self, offset: Any, size: Any, stride: Any, dtype: Any = None) -> np.ndarray:
        """The tensor ``(offset, size, stride)`` of this storage, every index
        checked to lie inside the storage. A fresh array, except that a few bytes
        of file must not claim any amount of memory: a tensor with more elements
        than its storage (an expanded one, with zero strides), and the tensors of a
        storage whose copies reach ``_COPIES`` times its size (many views of it),
        stay read-only views of the storage, as PyTorch keeps every tensor (fad
        copies them on their first in-place write)."""
        a = self.loaded()
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
        try:
            out = np.lib.stride_tricks.as_strided(
                base, shape=size, strides=tuple(s * a.itemsize for s in stride),
                writeable=False)
        except (ValueError, OverflowError) as e:  # a size or stride beyond NumPy's range
            raise pickle.UnpicklingError(
                f"invalid tensor layout in the checkpoint: size {list(size)}, stride "
                f"{list(stride)} ({e})") from None
        if out.size > a.size or not self._may_copy(out.nbytes):
            return out
        return out.copy(order="K")


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
    if type(shape) is not tuple or shape != (0,):  # NumPy writes (0,): BUILD gives the data
        raise pickle.UnpicklingError(f"invalid NumPy array shape {shape!r:.100} in the file: "
                                     "an array's data comes from its state")
    _no_objects(np.dtype(dtype) if type(dtype) in (bytes, str) else dtype)
    return _NP_RECONSTRUCT(np.ndarray, shape, dtype)


def _set_dtype_state(d: np.dtype, state: Any) -> None:
    """BUILD of a NumPy dtype from a file. NumPy's ``__setstate__`` trusts its
    input (field offsets past the item, a subarray larger than the item, extra
    field entries, a new item size under arrays built with the dtype already),
    which would let a loaded array read outside its memory; so the state is
    tried on a copy first, and must describe a dtype NumPy's constructor builds,
    with no Python objects and ``d``'s item size."""
    if not _dtype_state_shaped(state):  # NumPy's C code is not robust to others
        raise pickle.UnpicklingError(f"invalid NumPy dtype state in the file: {state!r:.200}")
    trial = np.dtype(d.str, False, True)  # a new dtype of d's kind (np.dtype(d, copy=True) is d)
    try:
        trial.__setstate__(state)
        ok = trial.itemsize == d.itemsize and _constructible(trial)
    except (TypeError, ValueError, KeyError, IndexError, RecursionError):
        ok = False
    if not ok:
        raise pickle.UnpicklingError(f"invalid NumPy dtype state in the file: {state!r:.200}")
    d.__setstate__(state)


def _dtype_state_shaped(state: Any) -> bool:
    """Whether ``state`` has the form NumPy's ``dtype.__reduce__`` writes:
    ``(3, order, subarray, names, fields, itemsize, alignment, flags)``, or version
    4 with metadata (a dict, or a datetime unit ``(dict | None, (unit, num, 1, 1))``)."""
    if type(state) is not tuple or (state[:1], len(state)) not in (((3,), 8), ((4,), 9)):
        return False
    _, order, sub, names, fields, *numbers = state[:8]
    meta = state[8] if len(state) == 9 else None
    return (type(order) is str and len(order) == 1 and all(type(n) is int for n in numbers)
            and (sub is None or (type(sub) is tuple and len(sub) == 2
                                 and isinstance(sub[0], np.dtype) and _is_ints(sub[1])))
            and (names is None or (type(names) is tuple and all(type(n) is str for n in names)))
            and (fields is None or (type(fields) is dict and all(
                type(k) is str and type(f) is tuple and len(f) in (2, 3)
                and isinstance(f[0], np.dtype) and type(f[1]) is int
                and (len(f) == 2 or type(f[2]) is str) for k, f in fields.items())))
            and (meta is None or type(meta) is dict
                 or (type(meta) is tuple and len(meta) == 2 and type(meta[0]) in (dict, type(None))
                     and type(meta[1]) is tuple and len(meta[1]) == 4
                     and type(meta[1][0]) is bytes and _is_ints(meta[1][1:]))))


def _is_ints(xs: Any) -> bool:
    return type(xs) is tuple and all(type(x) is int for x in xs)


def _constructible(d: np.dtype) -> bool:
    """Whether ``d`` (its fields, offsets, subarray, item size and alignment) is
    what ``np.dtype`` builds from its description, holding no Python objects."""
    if d.names is not None and d.subdtype is None:
        fields = d.fields
        if not all(_constructible(f[0]) for f in fields.values()):
            return False
        named = [fields[n] for n in d.names]
        made = np.dtype({"names": list(d.names), "formats": [f[0] for f in named],
                         "offsets": [f[1] for f in named],
                         "titles": [f[2] if len(f) > 2 else None for f in named],
                         "itemsize": d.itemsize}, align=d.isalignedstruct)
        same = made.fields == fields
    elif d.subdtype is not None and d.fields is None:
        base, shape = d.subdtype
        made = np.dtype((base, shape))
        same = _constructible(base) and made.subdtype == d.subdtype
    elif d.fields is None:
        made, same = np.dtype(d.str), True
    else:
        return False
    return (same and made == d and made.itemsize == d.itemsize
            and made.alignment == d.alignment and not (made.hasobject or d.hasobject))


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


def _bytes_of(cls: type) -> Any:
    """``bytes`` / ``bytearray`` as a file may call them: from bytes (or latin1
    text), never from a count, which would let a few bytes of file allocate any
    amount of memory (``bytearray(10**12)``)."""
    def build(*args: Any) -> Any:
        if not (args == () or (len(args) == 1 and type(args[0]) in (bytes, bytearray))
                or (len(args) == 2 and type(args[0]) is str and args[1] in ("latin1", "latin-1"))):
            raise pickle.UnpicklingError(
                f"{cls.__name__} of {args!r:.100} in the file: only bytes or latin1 text (how "
                "pickle writes them) are allowed")
        return cls(*args)
    build.__name__ = build.__qualname__ = cls.__name__
    return build


def _codecs_encode(s: Any, encoding: str = "utf-8") -> bytes:
    """How protocol-2 pickles spell ``bytes`` (``_codecs.encode(text, 'latin1')``)."""
    if type(s) is not str or encoding not in ("latin1", "latin-1"):
        raise pickle.UnpicklingError(f"_codecs.encode with {encoding!r}: only latin1 text "
                                     "(how pickle writes bytes) is allowed")
    return codecs.encode(s, "latin1")
