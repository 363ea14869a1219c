"""Array creation on the default backend (``fad.set_backend``): from shapes
(constants, so they carry no derivative), from existing data, numerical ranges
(differentiable in traced ends) and building matrices (``diag``, ``tri``,
``vander``)."""

from __future__ import annotations

import builtins
import functools
import inspect
from typing import Any, Sequence

import numpy as np

from ..backends import backend_for, default_xp, namespace_of, x64
from ..core.trace import Tracer, bind, concrete_or_none
from ..primitives import cumulative as Cu
from ..primitives.sorting import constant
from ..primitives.structural import convert_element_type, copy_of, copy_p
from . import _math as M
from . import _shape as S
from ._base import asarray, dtype_of, numpy_constant, static_shape, static_value
from ._indexing import diagonal
from ._shape import _bcast, _slice, broadcast_to, flip


def _xp_dtype(xp: Any, dtype: Any) -> Any:
    return None if dtype is None else getattr(xp, np.dtype(dtype).name)


def array(object: Any, dtype: Any = None, copy: bool = True) -> Any:
    """Make an array (or pass a traced one through).

    >>> import fad.numpy as fnp
    >>> fnp.array([1.0, 2.0]).dtype
    dtype('float64')
    """
    x = asarray(object, dtype)
    if copy and x is object:
        if isinstance(x, Tracer):
            return bind(copy_p, x)
        return copy_of(default_xp(), x) if hasattr(x, "__array_namespace__") else x
    return x


def zeros(shape: Any, dtype: Any = float) -> Any:
    """Array of zeros (float64 by default).

    >>> import fad.numpy as fnp
    >>> fnp.zeros((2, 3)).shape
    (2, 3)
    """
    xp = default_xp()
    return xp.zeros(static_shape(shape, "fnp.zeros"), dtype=_xp_dtype(xp, dtype))


def ones(shape: Any, dtype: Any = float) -> Any:
    """Array of ones (float64 by default).

    >>> import fad.numpy as fnp
    >>> fnp.ones((2,)).tolist(), fnp.ones(2, "int32").dtype
    ([1.0, 1.0], dtype('int32'))
    """
    xp = default_xp()
    return xp.ones(static_shape(shape, "fnp.ones"), dtype=_xp_dtype(xp, dtype))


def empty(shape: Any, dtype: Any = float) -> Any:
    """Uninitialised array (zeros here: fad never exposes garbage).

    >>> import fad.numpy as fnp
    >>> fnp.empty((2, 1)).tolist()
    [[0.0], [0.0]]
    """
    return zeros(shape, dtype)


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Any:
    """Array filled with ``fill_value`` (a constant; use ``broadcast_to`` for a
    differentiable fill).

    >>> import fad.numpy as fnp
    >>> fnp.full((2,), 7).tolist()
    [7, 7]
    """
    xp = default_xp()
    shape = static_shape(shape, "fnp.full")
    if isinstance(fill_value, Tracer):
        return broadcast_to(asarray(fill_value, dtype), shape)
    return xp.full(shape, fill_value, dtype=_xp_dtype(xp, dtype))


def _like(a: Any, dtype: Any) -> tuple:
    """``(namespace, shape, dtype)`` of a ``*_like`` result: allocated beside ``a``
    (behind a tracer, when its value is concrete) as NumPy's and the Array API's
    ``zeros_like`` allocate, else on the default backend (under ``jit``, and for a
    backend that takes NumPy arrays in, as Dask does)."""
    v = concrete_or_none(a)
    a = asarray(a)
    xp = default_xp()
    if v is not None and type(v) is not np.ndarray and hasattr(v, "__array_namespace__"):
        b = backend_for(namespace_of([v]))
        if not b.absorbs_numpy:
            xp = b.xp
    return xp, a.shape, (dtype if dtype is not None else dtype_of(a))


def beside(v: Any, a: Any) -> Any:
    """``asarray(v)``, with host data (Python numbers, NumPy arrays) on ``a``'s backend
    where ``_like`` would allocate (a value to combine with ``a``).

    >>> import numpy as np, array_api_strict as xp
    >>> beside(0.5, xp.ones(2))
    Array(0.5, dtype=array_api_strict.float64)
    """
    xp = _like(a, None)[0]
    if xp is default_xp() or isinstance(v, Tracer) or hasattr(v, "__array_namespace__") \
            and type(v) is not np.ndarray:
        return asarray(v)
    return xp.asarray(np.asarray(v))


def zeros_like(a: Any, dtype: Any = None) -> Any:
    """Zeros of ``a``'s shape and dtype.

    >>> import fad.numpy as fnp
    >>> fnp.zeros_like(fnp.ones((1, 2))).tolist()
    [[0.0, 0.0]]
    """
    xp, shape, dt = _like(a, dtype)
    return xp.zeros(shape, dtype=_xp_dtype(xp, dt))


def ones_like(a: Any, dtype: Any = None) -> Any:
    """Ones of ``a``'s shape and dtype.

    >>> import fad.numpy as fnp
    >>> fnp.ones_like(fnp.arange(3)).tolist()
    [1, 1, 1]
    """
    xp, shape, dt = _like(a, dtype)
    return xp.ones(shape, dtype=_xp_dtype(xp, dt))


def empty_like(a: Any, dtype: Any = None) -> Any:
    """``zeros_like`` (fad never exposes uninitialised memory).

    >>> import fad.numpy as fnp
    >>> fnp.empty_like(fnp.ones(2, "float32")).dtype
    dtype('float32')
    """
    return zeros_like(a, dtype)


def full_like(a: Any, fill_value: Any, dtype: Any = None) -> Any:
    """An array of ``a``'s shape (and dtype, unless given) filled with ``fill_value``.

    >>> import fad.numpy as fnp
    >>> fnp.full_like(fnp.zeros(2), 0.5).tolist()
    [0.5, 0.5]
    """
    xp, shape, dt = _like(a, dtype)
    if isinstance(fill_value, Tracer) or xp is default_xp():
        return full(shape, fill_value, dt)
    return xp.full(shape, fill_value, dtype=_xp_dtype(xp, dt))


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = float) -> Any:
    """Identity-like matrix with ones on diagonal ``k``.

    >>> import fad.numpy as fnp
    >>> fnp.eye(2, 3, k=1).tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    xp = default_xp()
    what = "A shape for fnp.eye"
    return xp.eye(static_value(N, what), static_value(M, what), k=static_value(k, what),
                  dtype=_xp_dtype(xp, dtype))


def identity(n: int, dtype: Any = float) -> Any:
    """The ``n x n`` identity matrix.

    >>> import fad.numpy as fnp
    >>> fnp.identity(2).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return eye(n, dtype=dtype)


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Any:
    """Evenly spaced values in ``[start, stop)``, dtypes as NumPy.

    >>> import fad.numpy as fnp
    >>> fnp.arange(3).tolist()
    [0, 1, 2]
    """
    xp = default_xp()
    what = "A shape for fnp.arange (its start, stop and step)"
    start, stop, step = (static_value(v, what) for v in (start, stop, step))
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    if dtype is None:
        dtype = np.arange(start, stop, step).dtype if not hasattr(start, "dtype") else None
    return xp.arange(start, stop, step, dtype=_xp_dtype(xp, dtype))


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
             dtype: Any = None) -> Any:
    """``num`` evenly spaced samples from ``start`` to ``stop`` (differentiable in
    traced ends).

    >>> import fad.numpy as fnp
    >>> fnp.linspace(0.0, 1.0, 5).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    if isinstance(start, Tracer) or isinstance(stop, Tracer):
        return traced_linspace(start, stop, num, endpoint, dtype)
    xp = default_xp()
    return xp.linspace(start, stop, num, endpoint=endpoint, dtype=_xp_dtype(xp, dtype))


def diag(v: Any, k: int = 0) -> Any:
    """The ``k``-th diagonal of a matrix, or a matrix with ``v`` on that diagonal.
    The matrix is built by padding and reshaping (no multiplication by 0).

    >>> import fad.numpy as fnp
    >>> fnp.diag(fnp.array([1.0, 2.0])).tolist()
    [[1.0, 0.0], [0.0, 2.0]]
    >>> fnp.diag(fnp.array([[1, 2], [3, 4]]), 1).tolist()
    [2]
    """
    v = asarray(v)
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise ValueError("Input must be 1- or 2-d.")
    n = v.shape[0]
    m = n + builtins.abs(k)
    # element i goes to flat index i (m + 1) + front of the (m, m) matrix
    front = k if k >= 0 else -k * m
    flat = S.ravel(Cu.pad(S.reshape(v, (n, 1)), ((0, 0), (0, m)), 0))
    total = front + n * (m + 1)
    flat = Cu.pad(flat, ((front, builtins.max(m * m - total, 0)),), 0)
    return S.reshape(_slice(flat, 0, 0, m * m), (m, m))


def diagflat(v: Any, k: int = 0) -> Any:
    """A matrix with the flattened ``v`` on diagonal ``k``.

    >>> import fad.numpy as fnp
    >>> fnp.diagflat(fnp.array([[1, 2]])).tolist()
    [[1, 0], [0, 2]]
    """
    return diag(S.ravel(asarray(v)), k)


def copy(a: Any, order: str = "K", subok: bool = False) -> Any:
    """A copy (arrays are immutable here, so the same value).

    >>> import fad.numpy as fnp
    >>> fnp.copy(fnp.array([1.0])).tolist()
    [1.0]
    """
    return array(a, copy=True)


def asanyarray(a: Any, dtype: Any = None) -> Any:
    """``asarray``.

    >>> import fad.numpy as fnp
    >>> fnp.asanyarray([1, 2]).tolist()
    [1, 2]
    """
    return asarray(a, dtype)


ascontiguousarray = asanyarray


# DLPack's device types (``__dlpack_device__()[0]``) that a fad backend reads
_DLPACK_HOST = {1: "CPU", 3: "CUDA host (pinned)"}
_DLPACK_CUDA = {2: "CUDA", 13: "CUDA managed", 10: "ROCm"}
_DLPACK_OTHER = {4: "OpenCL", 7: "Vulkan", 8: "Metal", 9: "VPI", 11: "ROCm host",
                 12: "ext_dev", 14: "oneAPI", 15: "WebGPU", 16: "Hexagon", 17: "MAIA"}


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> Any:
    """The array ``x`` of another library (anything with ``__dlpack__``: NumPy,
    PyTorch, JAX, CuPy, ``fad.torch``...) or a DLPack capsule, as an array of
    fad's backend for its memory, sharing that memory (no copy), as
    ``numpy.from_dlpack``. Host memory becomes an array of the default backend (or
    NumPy when that is CuPy), CUDA memory a CuPy array. ``device="cpu"`` asks the
    producer for a host copy; ``copy=True`` always copies, ``copy=False`` never.

    >>> import numpy as np, fad.numpy as fnp
    >>> a = np.zeros(3)
    >>> b = fnp.from_dlpack(a)
    >>> np.shares_memory(a, b)
    True
    """
    if isinstance(x, Tracer):
        raise TypeError("fnp.from_dlpack reads the memory of a concrete array; a traced "
                        "value (inside jit, grad, vmap...) has none: use fnp.asarray(x)")
    capsule = type(x).__name__ == "PyCapsule"
    if capsule:
        x = _Capsule(x)
    elif not hasattr(x, "__dlpack__") or not hasattr(x, "__dlpack_device__"):
        raise TypeError(f"fnp.from_dlpack needs an array with __dlpack__ and "
                        f"__dlpack_device__ (NumPy, PyTorch, JAX, CuPy...) or a DLPack "
                        f"capsule, not {type(x).__module__}.{type(x).__qualname__}")
    kind = int(x.__dlpack_device__()[0])
    target = None if device is None else str(device).split(":")[0]
    if target not in (None, "cpu", "cuda"):
        raise ValueError(f"fnp.from_dlpack: unknown device {device!r}; fad's are 'cpu' "
                         "(NumPy, or the default backend) and 'cuda' (CuPy)")
    kwargs: dict = {} if copy is None or capsule else {"copy": copy}
    if target == "cuda" or (target is None and kind in _DLPACK_CUDA):
        xp = _cupy_namespace(_DLPACK_CUDA.get(kind, _DLPACK_HOST.get(kind, str(kind))))
    elif target == "cpu" or kind in _DLPACK_HOST:
        xp = default_xp()
        if getattr(xp, "__name__", "").split(".")[0] == "cupy" or \
                not hasattr(xp, "from_dlpack"):
            xp = np
        if kind not in _DLPACK_HOST:  # (the producer is asked for a host copy)
            xp = np
            kwargs["device"] = "cpu"
    else:
        name = _DLPACK_OTHER.get(kind, f"type {kind}")
        raise BufferError(f"fnp.from_dlpack: the array is in {name} memory, which no fad "
                          "backend reads (fad reads CPU memory with NumPy and CUDA memory "
                          "with CuPy)")
    out = xp.from_dlpack(x, **kwargs)
    if capsule and copy:
        out = xp.asarray(out, copy=True)
    return out


def _cupy_namespace(memory: str) -> Any:
    try:
        import cupy
    except ImportError:
        raise RuntimeError(f"fnp.from_dlpack: the array is in {memory} memory, which fad "
                           "reads with CuPy, and CuPy is not installed (pip install "
                           '"fad[cuda]"); or pass device="cpu" for a host copy') from None
    return cupy


class _Capsule:
    """A DLPack capsule seen as an array: its ``__dlpack__`` hands over the capsule,
    its ``__dlpack_device__`` reads the device from the capsule's tensor."""

    def __init__(self, capsule: Any):
        self._capsule = capsule
        self._device = _capsule_device(capsule)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._device

    def __dlpack__(self, **_: Any) -> Any:
        return self._capsule


def _capsule_device(capsule: Any) -> tuple[int, int]:
    """``(device type, index)`` of the tensor in a DLPack capsule: the ``DLDevice``
    after the data pointer of its ``DLTensor``, which starts a legacy
    ``DLManagedTensor`` and follows the version, context, deleter and flags of a
    ``DLManagedTensorVersioned``."""
    import ctypes
    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    name = api.PyCapsule_GetName(capsule)
    word = ctypes.sizeof(ctypes.c_void_p)
    if name == b"dltensor":
        offset = word
    elif name == b"dltensor_versioned":
        offset = 8 + 2 * word + 8 + word
    elif name in (b"used_dltensor", b"used_dltensor_versioned"):
        raise BufferError("this DLPack capsule was imported already (a capsule can be "
                          "imported once); export the array again")
    else:
        raise TypeError(f"not a DLPack capsule (its name is {name!r})")
    pointer = api.PyCapsule_GetPointer(capsule, name)
    kind, index = (ctypes.c_int32 * 2).from_address(pointer + offset)
    return kind, index


def tri(N: int, M: int | None = None, k: int = 0, dtype: Any = float) -> Any:
    """Ones at and below diagonal ``k``.

    >>> import fad.numpy as fnp
    >>> fnp.tri(2).tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    return asarray(np.tri(N, M, k, dtype=dtype))


def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy"
             ) -> tuple:
    """Coordinate grids from coordinate vectors (differentiable in each vector).

    >>> import fad.numpy as fnp
    >>> [g.shape for g in fnp.meshgrid(fnp.ones(2), fnp.ones(3))]
    [(3, 2), (3, 2)]
    """
    xs = [S.ravel(asarray(x)) for x in xi]
    nd = len(xs)
    out = []
    for i, x in enumerate(xs):
        shape = [1] * nd
        shape[i] = -1
        if indexing == "xy" and nd > 1 and i < 2:
            shape[0], shape[1] = shape[1], shape[0]
        out.append(S.reshape(x, tuple(shape)))
    if not sparse:
        out = _bcast(out)
    return tuple(out)


def _traced(*values: Any) -> bool:
    return any(isinstance(v, Tracer) for v in values)


def traced_linspace(start: Any, stop: Any, num: int, endpoint: bool = True,
                    dtype: Any = None) -> Any:
    """``linspace`` with traced ends, differentiable in them: NumPy's formula
    ``start + k (stop - start) / div``, the last sample exactly ``stop``."""
    start, stop = asarray(start), asarray(stop)
    start, stop = M.add(start, 0.0), M.add(stop, 0.0)  # (integer ends: float samples)
    div = num - 1 if endpoint else num
    k = arange(num, dtype=np.result_type(start.dtype, stop.dtype))
    k = S.reshape(k, (num,) + (1,) * builtins.max(np.ndim(start), np.ndim(stop)))
    out = start + k * ((stop - start) / builtins.max(div, 1))
    if endpoint and num > 1:
        out = S.concatenate([out[:-1], M.add(zeros_like(out[-1:]), stop)])
    return out if dtype is None else out.astype(dtype)


def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
             base: float = 10.0, dtype: Any = None, axis: int = 0) -> Any:
    """``base ** linspace(start, stop)`` (differentiable in traced ends).

    >>> import fad.numpy as fnp
    >>> fnp.logspace(0, 2, 3).tolist()
    [1.0, 10.0, 100.0]
    """
    if _traced(start, stop, base) and axis == 0:
        out = M.power(base, traced_linspace(start, stop, num, endpoint))
        return out if dtype is None else out.astype(dtype)
    return asarray(np.logspace(start, stop, num, endpoint, base, dtype, axis))


def geomspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
              dtype: Any = None, axis: int = 0) -> Any:
    """A geometric progression from ``start`` to ``stop`` (differentiable in
    traced ends, which keep their sign).

    >>> import fad.numpy as fnp
    >>> fnp.geomspace(1, 100, 3).tolist()
    [1.0, 10.0, 100.0]
    """
    if _traced(start, stop) and axis == 0:
        start, stop = asarray(start), asarray(stop)
        sign = M.sign(start)
        out = sign * M.exp(traced_linspace(M.log(M.abs(start)), M.log(M.abs(stop)), num,
                                           endpoint))
        if num > 0:  # the ends exactly, as NumPy
            ends = [M.add(zeros_like(out[:1]), start), out[1:-1] if endpoint else out[1:]]
            ends += [M.add(zeros_like(out[-1:]), stop)] if endpoint and num > 1 else []
            out = S.concatenate(ends)
        return out if dtype is None else out.astype(dtype)
    return asarray(np.geomspace(start, stop, num, endpoint, dtype, axis))


def indices(dimensions: Sequence[int], dtype: Any = int, sparse: bool = False) -> Any:
    """Grid indices (constants).

    >>> import fad.numpy as fnp
    >>> fnp.indices((2, 2)).shape
    (2, 2, 2)
    """
    out = np.indices(dimensions, dtype, sparse)
    return tuple(asarray(o) for o in out) if sparse else asarray(out)


def fromfunction(function: Any, shape: Sequence[int], *, dtype: Any = float,
                 **kwargs: Any) -> Any:
    """Call ``function`` on the index grids of ``shape``.

    >>> import fad.numpy as fnp
    >>> fnp.fromfunction(lambda i, j: i + j, (2, 2)).tolist()
    [[0.0, 1.0], [1.0, 2.0]]
    """
    return function(*[asarray(g) for g in np.indices(shape, dtype=dtype)], **kwargs)


def vander(x: Any, N: int | None = None, increasing: bool = False) -> Any:
    """Vandermonde matrix (powers of ``x`` by repeated products).

    >>> import fad.numpy as fnp
    >>> fnp.vander(fnp.array([2.0, 3.0]), 3).tolist()
    [[4.0, 2.0, 1.0], [9.0, 3.0, 1.0]]
    """
    x = asarray(x)
    N = x.shape[0] if N is None else N
    col = S.reshape(x, (-1, 1))
    cols = [constant(np.ones(col.shape, dtype_of(col)), col)] if N else []  # x's backend
    for _ in range(1, N):
        cols.append(M.multiply(cols[-1], col))
    out = S.concatenate(cols, axis=1) if cols else S.reshape(x, (-1, 0))
    return out if increasing else flip(out, 1)


def asarray_chkfinite(a: Any, dtype: Any = None, order: Any = None) -> Any:
    """``asarray``, raising ``ValueError`` if a (concrete) value is inf or NaN.

    >>> import fad.numpy as fnp
    >>> fnp.asarray_chkfinite([1.0, 2.0]).tolist()
    [1.0, 2.0]
    """
    x = asarray(a, dtype)
    c = concrete_or_none(x)
    if c is not None and np.asarray(c).dtype.kind in "fc" and not np.isfinite(c).all():
        raise ValueError("array must not contain infs or NaNs")
    return x


def asfortranarray(a: Any, dtype: Any = None) -> Any:
    """``asarray`` (memory layout is not observable here).

    >>> import fad.numpy as fnp
    >>> fnp.asfortranarray([1.0]).tolist()
    [1.0]
    """
    return asarray(a, dtype)


def require(a: Any, dtype: Any = None, requirements: Any = None) -> Any:
    """``asarray`` with ``dtype`` (layout requirements are moot here).

    >>> import fad.numpy as fnp
    >>> fnp.require([1, 2], float).dtype
    dtype('float64')
    """
    return asarray(a, dtype)


fromiter = numpy_constant("fromiter", __name__)
frombuffer = numpy_constant("frombuffer", __name__)


# ---------------------------------------------------------------- float32 mode
def _narrowed(x: Any) -> Any:
    n = x64.NARROW.get(getattr(x, "dtype", None))
    if n is None:
        return x
    return convert_element_type(x, n) if isinstance(x, Tracer) else x.astype(n)


def _in_mode(fn: Any) -> Any:
    """``fn`` whose results follow 64-bit mode: narrowed to 32 bits when it is off
    (an explicit 64-bit ``dtype`` warns). Nothing is added when it is on."""
    params = list(inspect.signature(fn).parameters)
    at = params.index("dtype") if "dtype" in params else None

    @functools.wraps(fn)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        out = fn(*args, **kwargs)
        if x64.ENABLED:
            return out
        dtype = kwargs.get("dtype", args[at] if at is not None and len(args) > at else None)
        x64.requested(dtype, f"fnp.{fn.__name__}")
        return [_narrowed(o) for o in out] if isinstance(out, list | tuple) \
            else _narrowed(out)
    return wrapped


(array, zeros, ones, empty, full, zeros_like, ones_like, empty_like, full_like, eye, identity,
 arange, linspace, logspace, geomspace, tri, indices, fromfunction, meshgrid, vander) = map(
    _in_mode, (array, zeros, ones, empty, full, zeros_like, ones_like, empty_like, full_like,
               eye, identity, arange, linspace, logspace, geomspace, tri, indices,
               fromfunction, meshgrid, vander))
