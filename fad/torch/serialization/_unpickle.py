"""The unpicklers of a checkpoint's pickle: the weights-only one (resolves only
allow-listed globals and checks every opcode that runs code), the trusted one (full
pickle, with PyTorch's globals mapped to fad's) and the scanning one, which walks a
pickle calling nothing to learn the globals it names and the types of its storages.
The reader that runs them supplies the storages (``_setup``).
"""

from __future__ import annotations

import _compat_pickle
import collections
import copyreg
import pickle
import struct
import sys
from typing import Any, Callable

import numpy as np

from .. import _dtype
from ..tensor import Size
from ._allowlist import _DEFAULT, _DEFAULT_CALLS, _TORCH_ONLY_DTYPES, _not_allowed, _user_globals
from ._storage import _attributes, _no_objects, _set_dtype_state, _Storage, _StorageType


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


def _load_bytearray8(self: Any) -> None:
    """BYTEARRAY8 reading what the file holds, before allocating its claimed size
    (pickle's own allocates first: ten bytes of file would ask for any amount)."""
    (n,) = struct.unpack("<Q", self.read(8))
    data = self.read(n) if n <= sys.maxsize else b""
    if len(data) != n:
        raise pickle.UnpicklingError(f"the file ends inside a bytearray of {n} bytes")
    self.append(bytearray(data))


def _get_extension(self: Any, code: int) -> None:
    """EXT1/2/4: the global copyreg registers under ``code``, always looked up with
    ``find_class`` (pickle's own lookup returns what copyreg's cache holds from an
    earlier, trusted unpickling without asking ``find_class``)."""
    key = copyreg._inverted_registry.get(code)  # type: ignore[attr-defined]
    if not key:
        raise pickle.UnpicklingError(f"the file uses extension code {code}, which is "
                                     "not registered with copyreg")
    self.append(self.find_class(*key))


class _WeightsUnpickler(_Loading, pickle._Unpickler):  # type: ignore[name-defined]
    """An unpickler that resolves only allow-listed globals and calls only
    allow-listed callables. The pure-Python unpickler is used because every
    opcode that runs code (REDUCE, BUILD, NEWOBJ, APPEND, SETITEM...) must be
    checked, not only the global lookups."""

    dispatch = dict(pickle._Unpickler.dispatch)  # type: ignore[attr-defined]
    get_extension = _get_extension

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
        elif isinstance(inst, np.dtype):
            _set_dtype_state(inst, state)
        elif tp is np.ndarray:
            if type(state) is tuple and len(state) == 5:
                _no_objects(state[2])
            inst.__setstate__(state)
            _no_objects(inst.dtype)
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
                     (pickle.ADDITEMS, load_additems), (pickle.BYTEARRAY8, _load_bytearray8)):
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


class _ScanUnpickler(pickle._Unpickler):  # type: ignore[name-defined]
    """Walks a pickle without calling anything (every global, call or object
    built is a placeholder) to collect the storage types of its persistent ids."""

    dispatch = dict(pickle._Unpickler.dispatch)  # type: ignore[attr-defined]
    get_extension = _get_extension
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
                     (pickle.ADDITEMS, lambda self: self._pop(0, mark=True, push=False)),
                     (pickle.BYTEARRAY8, _load_bytearray8)):
        dispatch[_op[0]] = _fn
    del _op, _fn
