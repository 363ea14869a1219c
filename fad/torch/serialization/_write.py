"""``save``: the pickler that writes tensors, parameters, dtypes, devices and sizes
under PyTorch's global names (``torch._utils._rebuild_tensor_v2``...) without
importing torch, and the zip layout, with 64-byte-aligned records, that PyTorch's
``torch.load`` reads.
"""

from __future__ import annotations

import collections
import io
import math
import os
import pickle
import zipfile
from typing import IO, Any

import numpy as np

from .. import _dtype
from .._graph import host
from ..nn.modules import Parameter
from ..tensor import Size, Tensor, device, user_attributes, wrap
from ._read import FileLike, _is_path
from ._storage import _STORAGE_OF_NP

DEFAULT_PROTOCOL = 2


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
        state = user_attributes(obj)
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
