"""``load`` and ``get_unsafe_globals_in_checkpoint``: reading a checkpoint from a
path or a file object, in PyTorch's zip layout, its legacy non-zip format or as the
plain pickle earlier fad versions wrote, turning its storage records into arrays
for the unpicklers, and moving the result where ``map_location`` asks.
"""

from __future__ import annotations

import io
import pickle
import pickletools
import zipfile
from typing import IO, Any, Callable

import numpy as np

from ..tensor import Tensor, device
from ._allowlist import _DEFAULT, _user_globals
from ._storage import _ints, _Storage, _StorageType
from ._unpickle import _ascii, _ScanUnpickler, _TrustedUnpickler, _WeightsUnpickler

_LEGACY_MAGIC = 0x1950a86a20f9469cfc6c
_LEGACY_PROTOCOL = 1001

FileLike = Any  # a path (str / os.PathLike) or a binary file object


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
    return root.view(offset, size)


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
