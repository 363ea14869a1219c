"""``torch.save`` / ``torch.load``: PyTorch's checkpoint format, loaded without
running the file's code.

``save`` writes PyTorch's zip layout (``<name>/data.pkl`` plus one record per
storage under ``<name>/data/``), so real PyTorch reads fad's files and fad reads
PyTorch's (and PyTorch's legacy non-zip format). ``load`` defaults to
``weights_only=True``, as PyTorch >= 2.6 does: the pickle is read by an
unpickler that resolves only allow-listed globals (tensors, NumPy arrays,
dtypes, containers, plain Python values) and lets no opcode call anything else,
so a file cannot run code by being loaded. PyTorch's rebuild functions
(``torch._utils._rebuild_tensor_v2``...) are mapped to fad's own: torch is never
imported. ``bfloat16`` storages load as float32 (fad has no bfloat16).

>>> import io, fad.torch as torch
>>> buf = io.BytesIO()
>>> torch.save({"w": torch.tensor([1.5, 2.0], requires_grad=True), "step": 3}, buf)
>>> _ = buf.seek(0)
>>> torch.load(buf)
{'w': tensor([1.5000, 2.0000], requires_grad=True), 'step': 3}
"""

from __future__ import annotations

import _compat_pickle
import codecs
import collections
import contextvars
import io
import math
import os
import pickle
import pickletools
import zipfile
from typing import IO, Any, Callable, Iterable

import numpy as np

from . import _dtype
from ._graph import host
from .nn.modules import Parameter
from .tensor import Size, Tensor, device, wrap

__all__ = ["DEFAULT_PROTOCOL", "add_safe_globals", "clear_safe_globals", "get_safe_globals",
           "get_unsafe_globals_in_checkpoint", "load", "safe_globals", "save"]

DEFAULT_PROTOCOL = 2
_LEGACY_MAGIC = 0x1950a86a20f9469cfc6c
_LEGACY_PROTOCOL = 1001

FileLike = Any  # a path (str / os.PathLike) or a binary file object


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


# ------------------------------------------------------------------ the allow-list
def _default_globals() -> tuple[dict[str, Any], set[int]]:
    """``module.name`` -> object, and the ids of those objects a pickle may call."""
    calls: dict[str, Any] = {
        "collections.OrderedDict": collections.OrderedDict,
        "builtins.set": set, "builtins.frozenset": frozenset, "builtins.complex": complex,
        "builtins.bytearray": bytearray, "builtins.slice": slice,
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
# of code in the current thread / task only.
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
    seen = {**_USER_GLOBALS, **_entries(_SCOPED_GLOBALS.get())}
    return list(seen.values())


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
        self._tokens: list[contextvars.Token] = []

    def __enter__(self) -> None:
        self._tokens.append(_SCOPED_GLOBALS.set(_SCOPED_GLOBALS.get() + tuple(self.safe_globals)))

    def __exit__(self, *exc: Any) -> None:
        _SCOPED_GLOBALS.reset(self._tokens.pop())


def _user_globals() -> dict[str, Any]:
    scoped = _SCOPED_GLOBALS.get()
    return {**_USER_GLOBALS, **_entries(scoped)} if scoped else _USER_GLOBALS


def _not_allowed(what: str, name: str) -> pickle.UnpicklingError:
    return pickle.UnpicklingError(
        f"Weights only load failed: {what} `{name}`, which fad.torch.load(weights_only=True) "
        "does not allow (it rebuilds only tensors, NumPy arrays, dtypes, containers and "
        "plain Python values, so that loading a file cannot run code). If you trust the "
        "source of this file, either allow it with "
        f"fad.torch.serialization.add_safe_globals([{name}]) (or the "
        f"fad.torch.serialization.safe_globals([{name}]) context manager), or load with "
        "weights_only=False, which runs whatever code the file contains.")


# ------------------------------------------------------------------ unpicklers
class _Loading:
    """What both unpicklers share: storages come from the checkpoint's records."""

    def _setup(self, storages: Callable[[Any], _Storage] | None) -> None:
        self._storages = storages

    def persistent_load(self, pid: Any) -> Any:
        kind = _ascii(pid[0]) if type(pid) is tuple and pid else None
        if kind == "module" and len(pid) == 4:  # a class saved with its source (legacy)
            return pid[1]
        if kind != "storage" or len(pid) not in (5, 6) or self._storages is None:
            raise pickle.UnpicklingError(f"unsupported persistent id {pid!r} in the file")
        return self._storages(pid[1:])


def _ascii(s: Any) -> Any:
    return s.decode("ascii") if type(s) is bytes else s


class _WeightsUnpickler(_Loading, pickle._Unpickler):  # type: ignore[name-defined]
    """An unpickler that resolves only allow-listed globals and calls only
    allow-listed callables. The pure-Python unpickler is used because every
    opcode that runs code (REDUCE, BUILD, NEWOBJ, APPEND, SETITEM...) must be
    checked, not only the global lookups."""

    dispatch = dict(pickle._Unpickler.dispatch)  # type: ignore[attr-defined]

    def find_class(self, module: str, name: str) -> Any:
        if self.proto < 3 and self.fix_imports:  # Python 2 names (``__builtin__.set``)
            module, name = _py2_name(module, name)
        full = f"{module}.{name}"
        user = _user_globals()
        if full in user:
            return user[full]
        if full in _DEFAULT:
            return _DEFAULT[full]
        if module == "torch" and (name.endswith("Storage") or name in _TORCH_ONLY_DTYPES):
            raise pickle.UnpicklingError(
                f"fad cannot load tensors of PyTorch's `torch.{name}`: fad's dtypes are "
                f"{', '.join(d.name for d in _dtype.ALL)} (and bfloat16, read as float32)")
        raise _not_allowed("the file refers to the global", full)

    def _user_allowed(self, obj: Any) -> bool:
        return any(obj is v for v in _user_globals().values())

    def load_reduce(self) -> None:
        args = self.stack.pop()
        func = self.stack[-1]
        if id(func) not in _DEFAULT_CALLS and not self._user_allowed(func):
            raise _not_allowed("the file calls", _describe(func))
        if type(args) is not tuple:
            raise pickle.UnpicklingError("invalid REDUCE arguments in the file")
        self.stack[-1] = func(*args)

    def load_newobj(self) -> None:
        args = self.stack.pop()
        cls = self.stack.pop()
        self.append(self._new(cls, args, {}))

    def load_newobj_ex(self) -> None:
        kwargs = self.stack.pop()
        args = self.stack.pop()
        cls = self.stack.pop()
        self.append(self._new(cls, args, kwargs))

    def _new(self, cls: Any, args: Any, kwargs: Any) -> Any:
        if not isinstance(cls, type) or not (
                cls in (collections.OrderedDict, set, frozenset, Size) or self._user_allowed(cls)):
            raise _not_allowed("the file creates an object of type", _describe(cls))
        if type(args) is not tuple or type(kwargs) is not dict:
            raise pickle.UnpicklingError("invalid NEWOBJ arguments in the file")
        return cls.__new__(cls, *args, **kwargs)

    def load_obj_or_inst(self) -> None:
        raise pickle.UnpicklingError(
            "Weights only load failed: the file uses the INST/OBJ opcodes of pickle "
            "protocols 0 and 1 to build objects; load it with weights_only=False if you "
            "trust its source")

    def load_build(self) -> None:
        state = self.stack.pop()
        inst = self.stack[-1]
        tp = type(inst)
        if tp is collections.OrderedDict:
            inst.__dict__.update(_attributes(tp, state))
        elif tp is np.ndarray or isinstance(inst, np.dtype):
            if tp is np.ndarray and type(state) is tuple and len(state) == 5:
                _no_objects(state[2])
            inst.__setstate__(state)
            _no_objects(inst if tp is not np.ndarray else inst.dtype)
        elif self._user_allowed(tp):
            _set_state(inst, state)
        else:
            raise _not_allowed("the file sets the state of an object of type", _describe(tp))

    def load_append(self) -> None:
        item = self.stack.pop()
        self._list().append(item)

    def load_appends(self) -> None:
        items = self.pop_mark()
        self._list().extend(items)

    def _list(self) -> list:
        obj = self.stack[-1]
        if type(obj) is not list:
            raise pickle.UnpicklingError(f"the file appends to a {type(obj).__name__}, "
                                         "not to a list")
        return obj

    def load_setitem(self) -> None:
        value = self.stack.pop()
        key = self.stack.pop()
        self._dict()[key] = value

    def load_setitems(self) -> None:
        items = self.pop_mark()
        d = self._dict()
        for i in range(0, len(items), 2):
            d[items[i]] = items[i + 1]

    def _dict(self) -> dict:
        obj = self.stack[-1]
        if type(obj) not in (dict, collections.OrderedDict):
            raise pickle.UnpicklingError(f"the file sets items of a {type(obj).__name__}, "
                                         "not of a dict")
        return obj

    def load_additems(self) -> None:
        items = self.pop_mark()
        obj = self.stack[-1]
        if type(obj) is not set:
            raise pickle.UnpicklingError(f"the file adds items to a {type(obj).__name__}, "
                                         "not to a set")
        obj.update(items)

    for _op, _fn in ((pickle.REDUCE, load_reduce), (pickle.NEWOBJ, load_newobj),
                     (pickle.NEWOBJ_EX, load_newobj_ex), (pickle.INST, load_obj_or_inst),
                     (pickle.OBJ, load_obj_or_inst), (pickle.BUILD, load_build),
                     (pickle.APPEND, load_append), (pickle.APPENDS, load_appends),
                     (pickle.SETITEM, load_setitem), (pickle.SETITEMS, load_setitems),
                     (pickle.ADDITEMS, load_additems)):
        dispatch[_op[0]] = _fn
    del _op, _fn


def _py2_name(module: str, name: str) -> tuple[str, str]:
    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


def _describe(obj: Any) -> str:
    if isinstance(obj, type) or callable(obj):
        mod = getattr(obj, "__module__", None)
        name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", repr(obj))
        return f"{mod}.{name}" if mod else name
    return repr(obj)


def _set_state(inst: Any, state: Any) -> None:
    """What pickle's BUILD does, for an instance of a class the user allowed."""
    setstate = getattr(inst, "__setstate__", None)
    if setstate is not None and getattr(type(inst), "__setstate__", None) is not \
            getattr(object, "__setstate__", None):
        setstate(state)
        return
    slots = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
    if state:
        inst.__dict__.update(state)
    for k, v in (slots or {}).items():
        setattr(inst, k, v)


class _TrustedUnpickler(_Loading, pickle.Unpickler):
    """Full pickle (``weights_only=False``), with PyTorch's globals mapped to fad's."""

    def find_class(self, module: str, name: str) -> Any:
        full = f"{module}.{name}"
        if module.split(".")[0] == "torch" and full in _DEFAULT:
            return _DEFAULT[full]
        return super().find_class(module, name)


# ------------------------------------------------------------------ load
def load(f: FileLike, map_location: Any = None, pickle_module: Any = None, *,
         weights_only: bool | None = True, mmap: Any = None, **pickle_load_args: Any) -> Any:
    """Load what ``save`` (fad's or PyTorch's ``torch.save``) wrote.

    With ``weights_only=True`` (the default) only tensors, NumPy arrays, dtypes,
    containers and plain Python values are rebuilt, and any other global the
    file names raises ``pickle.UnpicklingError`` naming it: loading cannot run
    code. ``weights_only=False`` is full pickle — for trusted files only.
    Tensors are loaded on the CPU (``map_location`` ``'cuda'`` moves them).

    >>> import io, fad.torch as torch
    >>> buf = io.BytesIO(); torch.save([torch.arange(3), torch.float64], buf); _ = buf.seek(0)
    >>> torch.load(buf, map_location="cpu")
    [tensor([0, 1, 2]), torch.float64]
    """
    if weights_only is None:
        weights_only = True
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                           "specified: pass weights_only=False to use your own pickle module")
    pickle_load_args.setdefault("encoding", "utf-8")
    out = _with_file(f, lambda fh: _load(fh, bool(weights_only), pickle_load_args))
    target = _map_target(map_location)
    return out if target is None else _move(out, target)


def get_unsafe_globals_in_checkpoint(f: FileLike) -> list[str]:
    """The globals a checkpoint names that ``load(weights_only=True)`` refuses,
    found without running anything: what ``add_safe_globals`` would need (for
    files you trust).

    >>> import io, fad.torch as torch
    >>> from fractions import Fraction
    >>> buf = io.BytesIO(); torch.save({"w": torch.ones(2), "x": Fraction(1, 3)}, buf)
    >>> _ = buf.seek(0); torch.serialization.get_unsafe_globals_in_checkpoint(buf)
    ['fractions.Fraction']
    """
    return _with_file(f, _unsafe_globals)


def _unsafe_globals(f: IO[bytes]) -> list[str]:
    names: set[str] = set()

    def scan(stream: IO[bytes]) -> Any:
        u = _ScanUnpickler(stream, encoding="utf-8")
        out = u.load()
        names.update(u.globals)
        return out

    if _zip_start(f):
        with zipfile.ZipFile(f) as z:
            scan(io.BytesIO(z.read(_data_pkl(z))))
    elif scan(f) == _LEGACY_MAGIC:
        for _ in range(3):  # protocol version, system information, the object
            scan(f)
    user = _user_globals()
    return sorted(n for n in names if n not in _DEFAULT and n not in user)


def _with_file(f: FileLike, fn: Callable[[IO[bytes]], Any]) -> Any:
    if _is_path(f):
        with open(f, "rb") as fh:
            return fn(fh)
    if not (hasattr(f, "seekable") and f.seekable()):
        f = io.BytesIO(f.read())
    return fn(f)


def _zip_start(f: IO[bytes]) -> bool:
    """Whether ``f`` is a zip archive (the file position is kept)."""
    start = f.tell()
    found = zipfile.is_zipfile(f)
    f.seek(start)
    return found


def _data_pkl(z: zipfile.ZipFile) -> str:
    pkl = [n for n in z.namelist() if n.endswith("/data.pkl") and n.count("/") == 1]
    if not pkl:
        raise RuntimeError("this zip archive is not a torch.save checkpoint (no data.pkl); "
                           "TorchScript archives are read by torch.jit.load, which fad lacks")
    return pkl[0]


def _load(f: IO[bytes], weights_only: bool, args: dict) -> Any:
    if _zip_start(f):
        with zipfile.ZipFile(f) as z:
            return _load_zip(z, weights_only, args)
    unpickler = _WeightsUnpickler if weights_only else _TrustedUnpickler

    def read(storages: Callable | None = None) -> Any:
        u = unpickler(f, **args)
        u._setup(storages)
        return u.load()

    first = read()
    if type(first) is not int or first != _LEGACY_MAGIC:
        return first  # a plain pickle (what fad wrote before it wrote PyTorch's format)
    if read() != _LEGACY_PROTOCOL:
        raise RuntimeError("Invalid protocol version in a legacy PyTorch checkpoint")
    read()  # system info
    return _load_legacy(f, read, args)


def _load_legacy(f: IO[bytes], read: Callable, args: dict) -> Any:
    """PyTorch's non-zip format: pickles of a magic number, a protocol version and
    system information, the object (storages as persistent ids), the list of
    storage keys, then each storage as an int64 element count and its bytes."""
    main = f.tell()
    for _ in pickletools.genops(f):  # skip the object: its storages come after it
        pass
    keys = read()
    if type(keys) is not list:
        raise pickle.UnpicklingError("invalid storage list in a legacy PyTorch checkpoint")
    data = f.tell()
    end = f.seek(0, 2)
    f.seek(main)
    scan = _ScanUnpickler(f, **args)
    scan.load()  # learns each storage's type, running nothing
    f.seek(data)
    storages = {}
    for key in keys:
        key = str(_ascii(key))
        if key not in scan.types:
            raise pickle.UnpicklingError(f"storage {key!r} of a legacy checkpoint is used by "
                                         "no tensor")
        stype = scan.types[key]
        n = int.from_bytes(f.read(8), "little", signed=True)
        if n * stype.np.itemsize > end - f.tell():
            raise pickle.UnpicklingError(f"storage {key!r} of the checkpoint claims {n} "
                                         "elements, more than the file holds")
        blob = f.read(max(n, 0) * stype.np.itemsize)
        storages[key] = _Storage(stype, _elements(blob, stype, n, "="))

    def storage(pid: tuple) -> _Storage:
        stype, key, _, numel = _storage_pid(pid[:4])
        if key not in storages:
            raise pickle.UnpicklingError(f"the checkpoint has no storage {key!r}")
        return _view(storages[key], pid)

    f.seek(main)
    return read(storage)


class _ScanUnpickler(pickle._Unpickler):  # type: ignore[name-defined]
    """Walks a pickle without calling anything (every global, call or object
    built is a placeholder) to collect the storage types of its persistent ids."""

    dispatch = dict(pickle._Unpickler.dispatch)  # type: ignore[attr-defined]
    _STUB = object()

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.types: dict[str, _StorageType] = {}
        self.globals: list[str] = []

    def find_class(self, module: str, name: str) -> Any:
        if self.proto < 3 and self.fix_imports:
            module, name = _py2_name(module, name)
        self.globals.append(f"{module}.{name}")
        found = _DEFAULT.get(f"{module}.{name}")
        return found if type(found) is _StorageType else self._STUB

    def persistent_load(self, pid: Any) -> Any:
        if type(pid) is tuple and len(pid) == 6 and type(pid[1]) is _StorageType:
            self.types.setdefault(str(_ascii(pid[2])), pid[1])
        return self._STUB

    def _pop(self, n: int, mark: bool = False, push: bool = True) -> None:
        if mark:
            self.pop_mark()
        del self.stack[len(self.stack) - n:]
        if push:
            self.append(self._STUB)

    def load_inst(self) -> None:
        self.readline(), self.readline()
        self._pop(0, mark=True)

    for _op, _fn in ((pickle.REDUCE, lambda self: self._pop(2)),
                     (pickle.NEWOBJ, lambda self: self._pop(2)),
                     (pickle.NEWOBJ_EX, lambda self: self._pop(3)),
                     (pickle.OBJ, lambda self: self._pop(0, mark=True)),
                     (pickle.INST, load_inst),
                     (pickle.BUILD, lambda self: self._pop(1, push=False)),
                     (pickle.APPEND, lambda self: self._pop(1, push=False)),
                     (pickle.SETITEM, lambda self: self._pop(2, push=False)),
                     (pickle.APPENDS, lambda self: self._pop(0, mark=True, push=False)),
                     (pickle.SETITEMS, lambda self: self._pop(0, mark=True, push=False)),
                     (pickle.ADDITEMS, lambda self: self._pop(0, mark=True, push=False))):
        dispatch[_op[0]] = _fn
    del _op, _fn


def _view(root: _Storage, pid: tuple) -> _Storage:
    """A legacy storage view ``(view_key, offset, size)`` of a root storage."""
    meta = pid[4] if len(pid) == 5 else None
    if meta is None:
        return root
    if type(meta) is not tuple or len(meta) != 3:
        raise pickle.UnpicklingError(f"invalid storage view {meta!r} in the checkpoint")
    _, (offset, size) = meta[0], _ints(meta[1:], "storage view")
    if offset < 0 or size < 0 or offset + size > root.array.size:
        raise pickle.UnpicklingError(f"a storage view of the checkpoint ({offset}, {size}) "
                                     f"lies outside its storage of {root.array.size} elements")
    return _Storage(root.type, root.array[offset:offset + size])


def _load_zip(z: zipfile.ZipFile, weights_only: bool, args: dict) -> Any:
    names = z.namelist()
    pkl = _data_pkl(z)
    prefix = pkl[:-len("data.pkl")]
    order = "<"
    if prefix + "byteorder" in names:
        order = "<" if z.read(prefix + "byteorder").strip() == b"little" else ">"
    cache: dict[str, _Storage] = {}

    def storage(data: tuple) -> _Storage:
        stype, key, location, numel = _storage_pid(data[:4])
        if key not in cache:
            try:
                blob = z.read(f"{prefix}data/{key}")
            except KeyError:
                raise pickle.UnpicklingError(f"the checkpoint has no record for storage "
                                             f"{key!r}") from None
            cache[key] = _Storage(stype, _elements(blob, stype, numel, order))
        return cache[key]

    u = (_WeightsUnpickler if weights_only else _TrustedUnpickler)(
        io.BytesIO(z.read(pkl)), **args)
    u._setup(storage)
    return u.load()


def _storage_pid(data: tuple) -> tuple:
    stype, key, location, numel = data
    if type(stype) is not _StorageType or type(numel) is not int or numel < 0:
        raise pickle.UnpicklingError(f"invalid storage record {data!r} in the checkpoint")
    return stype, str(_ascii(key)), _ascii(location), numel


def _elements(blob: bytes, stype: _StorageType, numel: int, order: str) -> np.ndarray:
    d = stype.np.newbyteorder(order) if stype.np.itemsize > 1 else stype.np
    if len(blob) < numel * d.itemsize:
        raise pickle.UnpicklingError(f"a storage of the checkpoint holds {len(blob)} bytes, "
                                     f"less than its {numel} elements of {stype!r}")
    return np.frombuffer(blob, d, count=numel)


def _is_path(f: Any) -> bool:
    return isinstance(f, (str, bytes)) or hasattr(f, "__fspath__")


def _map_target(map_location: Any) -> str | None:
    if map_location is None:
        return None
    if isinstance(map_location, dict):
        targets = {str(device(v)).split(":")[0] for v in map_location.values()}
        return "cuda" if targets == {"cuda"} else None
    if callable(map_location) and not isinstance(map_location, (str, device)):
        raise TypeError("fad.torch.load takes map_location as a device, a string or a dict; "
                        "a function of (storage, location) is not supported")
    target = device(map_location).type
    return None if target == "cpu" else target


def _move(obj: Any, target: str) -> Any:
    if isinstance(obj, Tensor):
        return obj.to(target)
    if type(obj) in (list, tuple):
        return type(obj)(_move(x, target) for x in obj)
    if isinstance(obj, dict):
        for k, v in obj.items():
            obj[k] = _move(v, target)
    return obj


# ------------------------------------------------------------------ save
class _Global:
    """A global the pickle names without fad importing it (``torch._utils...``)."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def __call__(self, *args: Any) -> Any:  # pickle's save_reduce wants a callable
        raise TypeError(f"{self.module}.{self.name} is only a name in a checkpoint")


_V2 = _Global("torch._utils", "_rebuild_tensor_v2")
_PARAM = _Global("torch._utils", "_rebuild_parameter")
_PARAM_STATE = _Global("torch._utils", "_rebuild_parameter_with_state")
_FROM_TYPE = _Global("torch._tensor", "_rebuild_from_type_v2")
_GLOBALS: dict[str, _Global] = {}


def _torch_global(name: str) -> _Global:
    g = _GLOBALS.get(name)
    if g is None:
        g = _GLOBALS[name] = _Global("torch", name)
    return g


class _OutStorage:
    __slots__ = ("key", "array")

    def __init__(self, key: str, array: np.ndarray):
        self.key, self.array = key, array


class _Pickler(pickle._Pickler):  # type: ignore[name-defined]
    """Pickles tensors as PyTorch does: ``_rebuild_tensor_v2`` of a storage record."""

    dispatch = dict(pickle._Pickler.dispatch)  # type: ignore[attr-defined]

    def __init__(self, file: IO[bytes], protocol: int):
        super().__init__(file, protocol)
        self.storages: list[_OutStorage] = []

    def persistent_id(self, obj: Any) -> Any:
        if type(obj) is _OutStorage:
            stype = _STORAGE_OF_NP[obj.array.dtype]
            return ("storage", _torch_global(stype.name), obj.key, "cpu", obj.array.size)
        return None

    def reducer_override(self, obj: Any) -> Any:
        if not isinstance(obj, Tensor):
            return NotImplemented
        state = obj.__dict__
        if isinstance(obj, Parameter):
            args = (wrap(obj._value), obj.requires_grad, collections.OrderedDict())
            return (_PARAM_STATE, args + (state,)) if state else (_PARAM, args)
        if state:  # Python attributes set on the tensor, as PyTorch saves them
            plain = wrap(obj._value, obj.requires_grad)
            return _FROM_TYPE, (_V2, _torch_global("Tensor"), self.reducer_override(plain)[1],
                                state)
        a = host(obj._value)
        if a.dtype not in _STORAGE_OF_NP:
            raise TypeError(f"cannot save a tensor of dtype {a.dtype}")
        s = _OutStorage(str(len(self.storages)),
                        np.asarray(a, dtype=a.dtype.newbyteorder("<"), order="C"))
        self.storages.append(s)
        strides = tuple(math.prod(a.shape[i + 1:]) for i in range(a.ndim))
        return _V2, (s, 0, tuple(a.shape), strides, obj.requires_grad,
                     collections.OrderedDict())

    def save_global_name(self, obj: _Global) -> None:
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("utf-8"))
        self.memoize(obj)

    def save_dtype(self, obj: _dtype.dtype) -> None:
        self.save_global_name(_torch_global(obj.name))

    def save_device(self, obj: device) -> None:
        self.save_reduce(_torch_global("device"), (str(obj),), obj=obj)

    def save_size(self, obj: Size) -> None:
        self.save_reduce(_torch_global("Size"), (tuple(obj),), obj=obj)

    dispatch[_Global] = save_global_name
    dispatch[_dtype.dtype] = save_dtype
    dispatch[device] = save_device
    dispatch[Size] = save_size


def save(obj: object, f: FileLike, pickle_module: Any = None,
         pickle_protocol: int = DEFAULT_PROTOCOL, _use_new_zipfile_serialization: bool = True,
         **_: Any) -> None:
    """Save ``obj`` (state dicts, tensors, containers...) in PyTorch's zip format.

    ``f`` is a path or a binary file object; real PyTorch's ``torch.load`` reads
    the result (``weights_only=True`` included, for tensors, dtypes, containers
    and plain values).

    >>> import io, fad.torch as torch
    >>> buf = io.BytesIO(); torch.save({"b": torch.zeros(2)}, buf)
    >>> buf.getvalue()[:2]
    b'PK'
    """
    out = io.BytesIO()
    p = _Pickler(out, pickle_protocol)
    p.dump(obj)
    name = os.path.splitext(os.path.basename(os.fsdecode(f)))[0] if _is_path(f) else "archive"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        records = [("data.pkl", out.getvalue()), (".format_version", b"1"),
                   (".storage_alignment", b"64"), ("byteorder", b"little")]
        records += [(f"data/{s.key}", s.array.tobytes()) for s in p.storages]
        records += [("version", b"3\n")]
        for rec, data in records:
            _write_aligned(z, f"{name}/{rec}", data)
    if _is_path(f):
        with open(f, "wb") as fh:
            fh.write(buf.getvalue())
    else:
        f.write(buf.getvalue())


def _write_aligned(z: zipfile.ZipFile, name: str, data: bytes) -> None:
    """Write a stored record whose data starts at a multiple of 64 bytes, as
    PyTorch's writer does (its reader may map the storages in place)."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    start = z.fp.tell() + 30 + len(name.encode("utf-8")) + 4
    pad = -start % 64
    info.extra = b"FB" + pad.to_bytes(2, "little") + b"Z" * pad
    z.writestr(info, data)

