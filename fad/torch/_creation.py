"""Tensor creation: ``tensor``, ``zeros``, ``randn``..., ``from_numpy``, the RNG
(``manual_seed``) and the legacy constructors (``torch.Tensor(3, 5)``)."""

from __future__ import annotations

import builtins
import json
import math
from typing import Any, Sequence

import numpy as np

from .. import numpy as fnp
from ..backends import backend_for, default_xp, namespace_of
from ..core.trace import Tracer
from ..primitives.placement import device_put
from . import _dtype, cuda
from ._device import DEFAULT_DEVICE
from ._dtype import as_dtype, default_np
from ._grad_mode import GRAD_ENABLED
from ._graph import host
from ._meta import META, NO_DATA, as_meta, is_meta
from ._recorder import Op, apply
from .tensor import Size, Tensor, _is_cupy, mark_shared, wrap
from .tensor import device as _device

_REQ_MSG = "Only Tensors of floating point and complex dtype can require gradients"


# ------------------------------------------------------------------ placement
_DEFAULT_DEVICE = DEFAULT_DEVICE  # (set_default_device's choice; None: the default backend)


def set_default_device(device: Any) -> None:
    """The device where factory functions put tensors when given none
    (``None``: back to the CPU).

    >>> import fad.torch as torch
    >>> torch.set_default_device("cpu"); torch.get_default_device()
    device(type='cpu')
    >>> torch.set_default_device(None)
    """
    _DEFAULT_DEVICE[0] = None if device is None else _device(device)


def get_default_device() -> Any:
    """The device factory functions use when given none (``cpu`` unless set).

    >>> import fad.torch as torch
    >>> torch.get_default_device()
    device(type='cpu')
    """
    return _DEFAULT_DEVICE[0] or _device("cpu")


def _xp_for(device: Any) -> Any:
    """The array namespace of ``device``: the default backend for ``None``, CuPy
    for ``"cuda"`` (a one-sentence ``RuntimeError`` without CuPy or a GPU), and for
    ``"cpu"`` the default backend unless that is CuPy, then NumPy."""
    if device is None:
        device = _DEFAULT_DEVICE[0]
        if device is None:
            return default_xp()
    kind = _device(device).type
    if kind == "cuda":
        return cuda.namespace()
    if kind == "meta":
        return META
    if kind != "cpu":
        raise RuntimeError(f"PyTorch is not linked with support for {kind} devices")
    xp = default_xp()
    return np if _is_cupy_namespace(xp) else xp


def _is_cupy_namespace(xp: Any) -> bool:
    return getattr(xp, "__name__", "").split(".")[0] == "cupy"


def _place(arr: np.ndarray, device: Any = None) -> Any:
    """Put a host array on the backend of ``device`` (the default backend for ``None``)."""
    xp = _xp_for(device)
    if xp is np:
        return arr
    return xp.asarray(arr)


def _on_device(value: Any, device: Any) -> Any:
    """``value``, moved to the backend of ``device`` when one is given and ``value``
    is on another."""
    device = _DEFAULT_DEVICE[0] if device is None else device
    if device is None or isinstance(value, Tracer):
        return value
    xp = _xp_for(device)
    if namespace_of([value]) is xp:
        return value
    return _place(host(value), device)


# a recorded move (``fad.device_put``: its gradient goes back to the source device)
_MOVE = Op("to", device_put, "ToCopyBackward0")


def to_device(t: Tensor, device: Any) -> Tensor:
    """A copy of ``t`` on ``device``'s backend (``t.to(device)`` when the device
    differs). When autograd records, the move is an operation (``ToCopyBackward0``,
    as PyTorch's) whose gradient goes back to ``t``'s device.

    >>> import fad.torch as torch
    >>> to_device(torch.ones(2), "cpu").device
    device(type='cpu')
    """
    xp = _xp_for(device)  # (first: a missing CUDA is the error to see)
    if is_meta(t._value) or xp is META:  # (no data goes anywhere: nothing recorded)
        if xp is not META:
            raise NotImplementedError(NO_DATA)
        return _finish(as_meta(t._value), t._requires_grad)
    if t._requires_grad and GRAD_ENABLED.get():
        return apply(_MOVE, (t,), {"backend": backend_for(xp).name})
    value = host(t._value)
    return wrap(value if xp is np else xp.asarray(value))


def _finish(value: Any, requires_grad: bool) -> Tensor:
    t = wrap(value)
    if requires_grad:
        if _dtype.array_np_dtype(value).kind not in "fc":
            raise RuntimeError(_REQ_MSG)
        t._requires_grad = True
    return t


def _size(args: tuple, kwargs: dict | None = None) -> tuple[int, ...]:
    if kwargs and "size" in kwargs:
        args = (kwargs.pop("size"),)
    if len(args) == 1 and isinstance(args[0], Sequence | np.ndarray):
        args = tuple(args[0])
    for n in args:
        if isinstance(n, float | np.floating):
            raise TypeError(f"argument 'size' (position 1) must be tuple of ints, not "
                            f"{type(n).__name__}")
    shape = tuple(int(n) for n in args)
    for n in shape:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"{list(shape)}")
    return shape


def _np_or_default(dtype: Any) -> np.dtype:
    return default_np() if dtype is None else _dtype.np_dtype(dtype)


# ------------------------------------------------------------------ from data
def _host_data(data: Any) -> Any:
    """Python data with Tensors replaced by host values."""
    if isinstance(data, Tensor):
        return host(data._value)
    if isinstance(data, list | tuple):
        return [_host_data(d) for d in data]
    return data


def _python_data_array(data: Any, dtype: Any = None) -> np.ndarray:
    """Python data as an array: of ``dtype`` if given (converted from the exact
    values: Python floats are doubles), else of PyTorch's default dtype for it."""
    arr = np.array(_host_data(data))
    if arr.dtype == np.uint64 or arr.dtype == object and _huge_int(data):
        raise ValueError("Overflow when unpacking long long")
    if arr.dtype == object:
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    if dtype is not None and arr.dtype.kind not in "US":
        if np.dtype(dtype).kind in "iu" and arr.dtype.kind in "iuf":
            arr = _fit_integers(arr, np.dtype(dtype))
        return arr.astype(dtype)
    if arr.dtype.kind == "f":
        if not _contains_np_float(data):
            arr = arr.astype(default_np())
    elif arr.dtype.kind == "c":
        arr = arr.astype(np.complex128 if default_np() == np.float64 else np.complex64)
    elif arr.dtype.kind in "iu" and arr.dtype != np.int64 and not _contains_np_float(data):
        arr = arr.astype(np.int64)
    elif arr.dtype.kind in "US":
        raise TypeError(f"new(): invalid data type '{arr.dtype.kind == 'U' and 'str'}'")
    return arr


def _huge_int(data: Any) -> bool:
    if isinstance(data, list | tuple):
        return any(_huge_int(d) for d in data)
    return type(data) is int and not -2 ** 63 <= data < 2 ** 63


def _fit_integers(arr: np.ndarray, dt: np.dtype) -> np.ndarray:
    """``arr`` ready for a cast to the integer ``dt``: PyTorch refuses values outside
    its range (NaN included); a negative integer wraps into ``uint8``."""
    info = np.iinfo(dt)
    lo = -255 if dt == np.uint8 and arr.dtype.kind in "iu" else info.min
    with np.errstate(invalid="ignore"):
        if arr.size and not (np.all(arr >= lo) and np.all(arr <= info.max)):
            raise RuntimeError(f"value cannot be converted to type {dt.name} without "
                               f"overflow")
    if dt == np.uint8 and arr.dtype.kind in "iu":
        return np.where(arr < 0, arr + 256, arr)
    return arr


def _contains_np_float(data: Any) -> bool:
    if isinstance(data, np.ndarray | np.generic | Tensor):
        return True
    if isinstance(data, list | tuple) and data:
        return _contains_np_float(data[0])
    return False


def tensor(data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """A new leaf tensor with a copy of ``data`` (Python floats become float32,
    ints int64; NumPy arrays keep their dtype).

    >>> import fad.torch as torch
    >>> torch.tensor([3.], requires_grad=True)
    tensor([3.], requires_grad=True)
    """
    if isinstance(data, Tracer):  # inside a fad transformation: keep the traced value
        return _finish(data if dtype is None else fnp.asarray(data, _dtype.np_dtype(dtype)),
                       requires_grad)
    if isinstance(data, Tensor):
        value = data._value
        value = value.copy() if hasattr(value, "copy") else value
        if dtype is not None:
            value = fnp.asarray(value, _dtype.np_dtype(dtype))
        return _finish(_on_device(value, device), requires_grad)
    if _is_cupy(data) or (hasattr(data, "__array_namespace__") and
                          not isinstance(data, np.ndarray)):
        xp = data.__array_namespace__()
        value = xp.asarray(data, copy=True)
        if dtype is not None:
            value = xp.astype(value, getattr(xp, _dtype.np_dtype(dtype).name))
        return _finish(_on_device(value, device), requires_grad)
    if isinstance(data, np.ndarray | np.generic):
        arr = np.array(data, dtype=None if dtype is None else _dtype.np_dtype(dtype))
    else:
        arr = _python_data_array(data, None if dtype is None else _dtype.np_dtype(dtype))
    return _finish(_place(arr, device), requires_grad)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """Like ``tensor`` but shares memory with a NumPy array or Tensor when it can."""
    if isinstance(data, Tensor) and (dtype is None or as_dtype(dtype) is data.dtype) and \
            (device is None or _device(device).type == data.device.type):
        return data
    if isinstance(data, Tracer) and dtype is None:
        return wrap(data)
    if isinstance(data, np.ndarray) and (dtype is None or
                                         _dtype.np_dtype(dtype) == data.dtype):
        t = wrap(_place(data, device))
        if t._value is data:
            mark_shared(t)
        return t
    return tensor(data, dtype=dtype, device=device)


asarray = as_tensor


def from_numpy(a: np.ndarray) -> Tensor:
    """A tensor sharing memory with the NumPy array ``a`` (same dtype)."""
    if not isinstance(a, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(a).__name__})")
    if a.dtype not in _dtype._FROM_NP:
        raise TypeError(f"can't convert np.ndarray of type {a.dtype}. The only supported "
                        "types are: float64, float32, float16, complex64, complex128, int64, "
                        "int32, int16, int8, uint8, and bool.")
    t = wrap(a)
    mark_shared(t)
    return t


def legacy_new(dt: _dtype.dtype, args: tuple, device: Any = None) -> Tensor:
    """``torch.Tensor(...)`` / ``torch.FloatTensor(...)``: sizes or data."""
    if not args:
        return wrap(_place(np.zeros((0,), dt.np), device))
    if len(args) == 1 and isinstance(args[0], Tensor):
        t = args[0]
        if t.dtype is not dt:
            raise TypeError(f"expected {dt} (got {t.dtype})")
        return wrap(t._value)
    if all(isinstance(a, int | np.integer) and not isinstance(a, bool) for a in args) or \
            (len(args) == 1 and isinstance(args[0], Size)):
        return wrap(_place(np.zeros(_size(args), dt.np), device))
    if len(args) == 1:
        data = args[0]
        if isinstance(data, np.ndarray | np.generic):
            return wrap(_place(np.array(data, dtype=dt.np), device))
        return wrap(_place(np.array(_host_data(data), dtype=dt.np), device))
    raise TypeError(f"new() received an invalid combination of arguments: {args!r}")


class _LegacyType(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls._dtype

    def __call__(cls, *args: Any, device: Any = None) -> Tensor:
        return legacy_new(cls._dtype, args, device)


def _legacy(name: str, dt: _dtype.dtype) -> type:
    return _LegacyType(name, (), {"_dtype": dt, "__doc__": f"Legacy ``torch.{name}``."})


FloatTensor = _legacy("FloatTensor", _dtype.float32)
DoubleTensor = _legacy("DoubleTensor", _dtype.float64)
HalfTensor = _legacy("HalfTensor", _dtype.float16)
LongTensor = _legacy("LongTensor", _dtype.int64)
IntTensor = _legacy("IntTensor", _dtype.int32)
ShortTensor = _legacy("ShortTensor", _dtype.int16)
CharTensor = _legacy("CharTensor", _dtype.int8)
ByteTensor = _legacy("ByteTensor", _dtype.uint8)
BoolTensor = _legacy("BoolTensor", _dtype.bool)


# ------------------------------------------------------------------ filled
def _creation_args(args: tuple, kwargs: dict, ignored: tuple) -> tuple:
    """``(shape, np dtype, device, requires_grad, out)`` of a creation function
    called with ``*args, **kwargs`` (the keywords in ``ignored`` accepted and
    ignored; any other unknown keyword refused)."""
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    requires_grad = kwargs.pop("requires_grad", False)
    out = kwargs.pop("out", None)
    for k in ignored:
        kwargs.pop(k, None)
    shape = _size(args, kwargs)
    if kwargs:
        raise TypeError(f"unexpected keyword arguments {sorted(kwargs)}")
    dt = _np_or_default(dtype if dtype is not None or out is None else out.dtype)
    return shape, dt, device, requires_grad, out


def _filled(fill: Any, args: tuple, kwargs: dict) -> Tensor:
    shape, dt, device, requires_grad, out = _creation_args(
        args, kwargs, ("layout", "pin_memory", "memory_format"))
    xp = _xp_for(device)
    value = xp.zeros(shape, dtype=getattr(xp, dt.name)) if fill == 0 else \
        xp.ones(shape, dtype=getattr(xp, dt.name))
    return _into_out("ones" if fill else "zeros", out, _finish(value, requires_grad))


def _into_out(name: str, out: Any, t: Tensor) -> Tensor:
    """``t``, or ``t`` written into ``out`` (a creation function's ``out=``)."""
    if out is None:
        return t
    from ._functions import into
    return into(name, out, (), lambda: t)


def zeros(*size: Any, **kwargs: Any) -> Tensor:
    """A tensor of zeros (float32 unless ``dtype``)."""
    return _filled(0, size, kwargs)


def ones(*size: Any, **kwargs: Any) -> Tensor:
    """A tensor of ones (float32 unless ``dtype``)."""
    return _filled(1, size, kwargs)


def empty(*size: Any, **kwargs: Any) -> Tensor:
    """An uninitialised tensor: zeros here (fad never exposes garbage memory)."""
    return _filled(0, size, kwargs)


def empty_strided(size: Any, stride: Any, *, dtype: Any = None, device: Any = None,
                  requires_grad: bool = False, **_: Any) -> Tensor:
    """A tensor of ``size`` laid out at ``stride`` (in elements) in memory of its own,
    filled with zeros (PyTorch leaves it uninitialised).

    >>> import fad.torch as torch
    >>> torch.empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    size, stride = tuple(int(n) for n in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    dt = (_dtype.get_default_dtype() if dtype is None else dtype).np
    cells = 1 + sum((n - 1) * s for n, s in zip(size, stride)) if math.prod(size) else 0
    memory = np.zeros(cells, dt)
    arr = np.lib.stride_tricks.as_strided(memory, size, tuple(s * dt.itemsize for s in stride))
    return _finish(_place(arr if _xp_for(device) is np else np.ascontiguousarray(arr), device),
                   requires_grad)


def scalar_tensor(s: Any, *, dtype: Any = None, device: Any = None,
                  requires_grad: bool = False, **_: Any) -> Tensor:
    """A 0-d tensor holding the number ``s``, of the default float dtype unless
    ``dtype`` says otherwise (even for an integer ``s``).

    >>> import fad.torch as torch
    >>> torch.scalar_tensor(3)
    tensor(3.)
    """
    dt = _dtype.get_default_dtype() if dtype is None else dtype
    value = s.item() if isinstance(s, Tensor) else s
    return _finish(_place(np.asarray(value, dtype=dt.np), device), requires_grad)


def full(size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None,
         requires_grad: bool = False, **_: Any) -> Tensor:
    """A tensor filled with ``fill_value`` (its dtype inferred as PyTorch does)."""
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if dtype is None:
        dt = (np.dtype(np.bool_) if isinstance(fill_value, bool) else
              np.dtype(np.int64) if isinstance(fill_value, int) else
              _dtype.get_default_dtype().to_complex().np
              if isinstance(fill_value, complex) else default_np())
    else:
        dt = _dtype.np_dtype(dtype)
    xp = _xp_for(device)
    return _finish(xp.full(_size((size,)), fill_value, dtype=getattr(xp, dt.name)),
                   requires_grad)


def _like(t: Any, dtype: Any) -> tuple:
    if not isinstance(t, Tensor):
        t = tensor(t)
    dt = t.dtype.np if dtype is None else _dtype.np_dtype(dtype)
    return tuple(t.shape), dt, t


def zeros_like(t: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False,
               **_: Any) -> Tensor:
    """Zeros of ``t``'s shape, dtype and device (unless given)."""
    shape, dt, t = _like(t, dtype)
    return zeros(shape, dtype=dt, requires_grad=requires_grad,
                  device=t.device if device is None else device)


def ones_like(t: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False,
              **_: Any) -> Tensor:
    """Ones of ``t``'s shape, dtype and device (unless given)."""
    shape, dt, t = _like(t, dtype)
    return ones(shape, dtype=dt, requires_grad=requires_grad,
                device=t.device if device is None else device)


empty_like = zeros_like


def full_like(t: Any, fill_value: Any, *, dtype: Any = None, device: Any = None,
              requires_grad: bool = False, **_: Any) -> Tensor:
    shape, dt, t = _like(t, dtype)
    return full(shape, fill_value, dtype=dt, requires_grad=requires_grad,
                device=t.device if device is None else device)


def arange(start: Any = 0, end: Any = None, step: Any = 1, *, dtype: Any = None,
           device: Any = None, requires_grad: bool = False, **_: Any) -> Tensor:
    """``[start, end)`` by ``step``; int64 for integer arguments, float32 otherwise;
    an integer ``dtype`` truncates the three first, as PyTorch's.

    >>> import fad.torch as torch
    >>> torch.arange(1, 2, 0.25), torch.arange(0, 10, 3.5, dtype=torch.int64)
    (tensor([1.0000, 1.2500, 1.5000, 1.7500]), tensor([0, 3, 6, 9]))
    """
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if dtype is None:
        is_int = all(isinstance(v, int | np.integer) for v in vals)
        dt = np.dtype(np.int64) if is_int else default_np()
    else:
        dt = _dtype.np_dtype(dtype)
    if vals[2] == 0:
        raise RuntimeError("step must be nonzero")
    if not all(math.isfinite(v) for v in vals[:2]):
        raise RuntimeError(f"unsupported range: {vals[0]} -> {vals[1]}")
    if dt.kind in "iu":
        vals = [int(v) for v in vals]
        if vals[2] == 0:
            raise ValueError("step must be nonzero")
    if (vals[1] - vals[0]) * vals[2] < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = max(0, math.ceil((vals[1] - vals[0]) / vals[2]))
    arr = (vals[0] + np.arange(n, dtype=np.float64) * vals[2]) if dt.kind == "f" else \
        np.arange(vals[0], vals[1], vals[2])
    return _finish(_place(arr.astype(dt), device), requires_grad)


def linspace(start: Any, end: Any, steps: int, *, dtype: Any = None, device: Any = None,
             requires_grad: bool = False, **_: Any) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` (complex when either
    is, or with a complex ``dtype``).

    >>> import fad.torch as torch
    >>> torch.linspace(0, 1, 3)
    tensor([0.0000, 0.5000, 1.0000])
    """
    steps = _steps(steps)
    lo, hi = (v.item() if isinstance(v, Tensor) else v for v in (start, end))
    cplx = isinstance(lo, complex) or isinstance(hi, complex)
    if dtype is None and cplx:
        dtype = _dtype.get_default_dtype().to_complex()
    kind = _np_or_default(dtype).kind
    arr = np.linspace(complex(lo) if kind == "c" else float(lo),
                      complex(hi) if kind == "c" else float(hi), steps)
    return _finish(_place(arr.astype(_np_or_default(dtype)), device), requires_grad)


def _steps(steps: Any) -> int:
    if isinstance(steps, float):
        raise TypeError("linspace(): argument 'steps' must be int, not float")
    if int(steps) < 0:
        raise RuntimeError("number of steps must be non-negative")
    return int(steps)


def logspace(start: Any, end: Any, steps: int, base: float = 10.0, *, dtype: Any = None,
             device: Any = None, requires_grad: bool = False, **_: Any) -> Tensor:
    arr = np.logspace(float(start), float(end), _steps(steps), base=base)
    return _finish(_place(arr.astype(_np_or_default(dtype)), device), requires_grad)


def eye(n: int, m: int | None = None, *, dtype: Any = None, device: Any = None,
        requires_grad: bool = False, **_: Any) -> Tensor:
    for name, k in (("n", n), ("m", m)):
        if isinstance(k, int) and k < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {k}")
    arr = np.eye(n, m, dtype=_np_or_default(dtype))
    return _finish(_place(arr, device), requires_grad)


# ------------------------------------------------------------------ random
class Generator:
    """A random number generator (NumPy's PCG64). Values differ from PyTorch's."""

    def __init__(self, device: Any = "cpu"):
        self._seed = 67280421310721
        self.rng = np.random.default_rng(self._seed)
        self.device = _device(device)

    def manual_seed(self, seed: int) -> "Generator":
        self._seed = int(seed)
        self.rng = np.random.default_rng(self._seed)
        return self

    def seed(self) -> int:
        s = int(np.random.SeedSequence().entropy % (2 ** 63))
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> Tensor:
        """The generator's state as a ``uint8`` tensor (PyTorch's ``ByteTensor``):
        the bit generator's state, as JSON text.

        >>> import fad.torch as torch
        >>> g = torch.Generator().manual_seed(1)
        >>> s = g.get_state(); a = torch.rand(2, generator=g)
        >>> s.dtype, torch.rand(2, generator=g.set_state(s)).tolist() == a.tolist()
        (torch.uint8, True)
        """
        text = json.dumps(self.rng.bit_generator.state).encode()
        return wrap(np.frombuffer(text, dtype=np.uint8).copy())

    def set_state(self, new_state: Any) -> "Generator":
        """Restore a state ``get_state`` returned."""
        if isinstance(new_state, Tensor):
            if new_state.dtype.name != "uint8":
                raise TypeError(f"expected a torch.ByteTensor, but got {new_state.type()}")
            new_state = json.loads(np.asarray(host(new_state._value)).tobytes().decode())
        self.rng.bit_generator.state = new_state
        return self


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Seed the global generator (``torch.randn`` & co.)."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Any:
    return default_generator.get_state()


def set_rng_state(state: Any) -> None:
    default_generator.set_state(state)


def _rng(kwargs: dict) -> np.random.Generator:
    g = kwargs.pop("generator", None)
    return (g or default_generator).rng


def _random(draw: Any, size: tuple, kwargs: dict) -> Tensor:
    rng = _rng(kwargs)
    shape, dt, device, requires_grad, out = _creation_args(
        size, kwargs, ("layout", "pin_memory"))
    arr = np.asarray(draw(rng, shape)).astype(dt)
    return _into_out("random", out, _finish(_place(arr, device), requires_grad))


def _floating_only(kernel: str, kwargs: dict) -> None:
    dt = kwargs.get("dtype")
    if dt is not None and _dtype.np_dtype(dt).kind not in "fc":
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_dtype.type_word(_dtype.as_dtype(dt))}'")


def randn(*size: Any, **kwargs: Any) -> Tensor:
    """Standard normal samples (``torch.manual_seed`` seeds them)."""
    _floating_only("normal_kernel_cpu", kwargs)
    return _random(lambda r, s: r.standard_normal(s), size, kwargs)


def rand(*size: Any, **kwargs: Any) -> Tensor:
    """Uniform samples in ``[0, 1)``."""
    _floating_only("check_uniform_bounds", kwargs)
    return _random(lambda r, s: r.random(s), size, kwargs)


def randint(low: int, high: int | None = None, size: Any = None, **kwargs: Any) -> Tensor:
    """Integers in ``[low, high)`` (int64)."""
    if size is None:
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                           f"from={low} >= to={high}")
    kwargs.setdefault("dtype", _dtype.int64)
    return _random(lambda r, s: r.integers(low, high, s), (size,), kwargs)


def randperm(n: int, **kwargs: Any) -> Tensor:
    """A random permutation of ``0..n-1`` (int64)."""
    kwargs.setdefault("dtype", _dtype.int64)
    rng = _rng(kwargs)
    arr = rng.permutation(n)
    return _random(lambda r, s: arr, (n,), kwargs)


def randn_like(t: Tensor, **kwargs: Any) -> Tensor:
    kwargs.setdefault("dtype", t.dtype)
    kwargs.setdefault("device", t.device)
    return randn(tuple(t.shape), **kwargs)


def rand_like(t: Tensor, **kwargs: Any) -> Tensor:
    kwargs.setdefault("dtype", t.dtype)
    kwargs.setdefault("device", t.device)
    return rand(tuple(t.shape), **kwargs)


def randint_like(t: Tensor, low: int, high: int | None = None, **kwargs: Any) -> Tensor:
    kwargs.setdefault("dtype", t.dtype)
    kwargs.setdefault("device", t.device)
    return randint(low, high, tuple(t.shape), **kwargs)


def normal(mean: Any = 0.0, std: Any = 1.0, size: Any = None, **kwargs: Any) -> Tensor:
    """Normal samples with ``mean`` and ``std`` (numbers or tensors)."""
    m = mean._value if isinstance(mean, Tensor) else mean
    s = std._value if isinstance(std, Tensor) else std
    if size is None:
        size = np.broadcast_shapes(np.shape(m), np.shape(s))
    return _random(lambda r, sh: r.normal(np.asarray(m), np.asarray(s), sh), (size,), kwargs)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False,
                **kwargs: Any) -> Tensor:
    """``num_samples`` category indices (int64) drawn from each row of ``input``,
    non-negative weights of 1 or 2 dimensions (normalised here), with or without
    replacement; PyTorch's checks and messages.

    >>> import fad.torch as torch
    >>> torch.multinomial(torch.tensor([0.0, 1.0, 0.0]), 2, replacement=True).tolist()
    [1, 1]
    """
    weights = np.asarray(host(input._value), dtype=np.float64)
    if weights.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    rows = weights.reshape(-1, weights.shape[-1])
    totals = rows.sum(-1)
    if np.any(totals <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if not replacement and num_samples > rows.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    rng = _rng(kwargs)
    drawn = np.stack([rng.choice(rows.shape[-1], num_samples, replace=replacement, p=r / t)
                      for r, t in zip(rows, totals)]).reshape(weights.shape[:-1] + (num_samples,))
    kwargs.setdefault("dtype", _dtype.int64)
    return _random(lambda r, s: drawn, (drawn.shape,), kwargs)


def bernoulli(p: Tensor, **kwargs: Any) -> Tensor:
    probs = np.asarray(p._value)
    kwargs.setdefault("dtype", p.dtype)
    return _random(lambda r, s: r.random(s) < probs, (probs.shape,), kwargs)


__all__ = [n for n in dir() if not n.startswith("_") and n not in (
    "annotations", "builtins", "math", "np", "Any", "Sequence")]
del builtins
