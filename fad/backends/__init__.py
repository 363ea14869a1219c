"""Array backends: the namespaces the IR is evaluated on.

A backend is a small object: its Array API namespace (``xp``), how to recognise
its arrays, and the few extras the standard lacks (``index_add``, ``einsum``).
Inputs decide the backend of an operation: NumPy arrays in, NumPy arrays out;
CuPy in, CuPy out; mixing two backends in one operation is an error.

>>> import numpy as np
>>> from fad.backends import namespace_of
>>> namespace_of((np.ones(2), 1.0)) is np
True
"""

from __future__ import annotations

import contextvars
import sys
import threading
from typing import Any

import numpy as np

from . import x64
from .base import NUMPY, Backend
from .dask_backend import is_dask_array

_BY_TYPE: dict[type, Any] = {np.ndarray: np, np.float64: np, np.float32: np,
                             np.int64: np, np.bool_: np, np.int32: np,
                             np.complex128: np, np.complex64: np, np.float16: np}
_PY_SCALARS = (int, float, complex, bool)
_BACKENDS: dict[str, Backend] = {"numpy": NUMPY}
_DEFAULT = contextvars.ContextVar("fad_default_backend", default="numpy")


class BackendMismatchError(TypeError):
    """Arrays of two different backends met in one operation."""


def _namespace_of_type(tp: type, value: Any) -> Any:
    if issubclass(tp, np.ndarray | np.generic):
        xp = np
    elif hasattr(value, "__array_namespace__"):
        xp = value.__array_namespace__()
        backend_for(xp)  # registered when first met (array_api_strict's set-up runs then)
    elif is_dask_array(tp):
        xp = get_backend("dask").xp
    else:
        return None
    _BY_TYPE[tp] = xp
    return xp


def namespace_of(args: tuple | list) -> Any:
    """The array namespace shared by ``args`` (NumPy when there are no arrays).

    NumPy scalars (``np.float64(0.5)``...) are weak, as Python scalars are:
    beside another backend's arrays they do not make the operation NumPy's; so
    are NumPy integer and bool arrays (the index arrays fad builds), which that
    backend's ``getitem`` / ``index_add`` take.
    """
    found = None
    for a in args:
        tp = type(a)
        xp = _BY_TYPE.get(tp)
        if xp is None:
            if tp in _PY_SCALARS or a is None:
                continue
            xp = _namespace_of_type(tp, a)
            if xp is None:
                continue
        if found is None:
            found = xp
        elif xp is not found:
            return _mixed(args)
    return np if found is None else found


def is_array(x: Any) -> bool:
    """Whether ``x`` is an array of some backend: it has ``__array_namespace__``,
    or it is a Dask array (which has none).

    >>> import numpy as np
    >>> is_array(np.ones(2)), is_array([1.0])
    (True, False)
    """
    return hasattr(x, "__array_namespace__") or is_dask_array(type(x))


def _mixed(args: tuple | list) -> Any:
    """The namespace of ``args`` that hold arrays of two namespaces: the other
    one when NumPy's values among them are all weak; else an error."""
    strong = []
    for a in args:
        xp = _BY_TYPE.get(type(a))
        if xp is None or (xp is np and _weak(a)) or xp in strong:
            continue
        strong.append(xp)
    if len(strong) == 1:
        return strong[0]
    if len(strong) == 2 and np in strong:
        other = strong[0] if strong[1] is np else strong[1]
        if backend_for(other).absorbs_numpy:  # Dask: NumPy arrays join its graph
            return other
    names = [backend_for(xp).name for xp in strong]
    raise BackendMismatchError(_mismatch(names[0], names[1]))


def _weak(a: Any) -> bool:
    return isinstance(a, np.generic) or (type(a) is np.ndarray and a.dtype.kind in "iub")


def _mismatch(a: str, b: str) -> str:
    """The message for arrays of backends ``a`` and ``b`` met in one operation."""
    if {a, b} == {"cupy", "numpy"}:
        fix = ("move the NumPy array to the GPU with cupy.asarray(x), or the CuPy array to "
               "the host with x.get()")
    elif "cupy" in (a, b):
        other = b if a == "cupy" else a
        fix = (f"bring the CuPy array to the host with x.get() (then {other}.asarray), or "
               f"the {other} array to the GPU with cupy.asarray(x) or cupy.from_dlpack(x)")
    else:
        fix = (f"convert one with the other's asarray or from_dlpack (e.g. "
               f"{b.split('#')[0]}.from_dlpack(x))")
    return f"arrays from two backends ({a} and {b}) were mixed in one operation; {fix}"


# By identity: a namespace is its module object, never its name (another module
# calling itself "numpy" gets a backend of its own, and NumPy's entry stays).
_BY_NAMESPACE: dict[int, Backend] = {id(np): NUMPY}
_BUILTIN = ("numpy", "cupy", "array_api_strict", "strict", "dask")


def backend_for(xp: Any) -> Backend:
    """The ``Backend`` object of the namespace ``xp`` (found by identity).

    >>> import numpy as np
    >>> backend_for(np).name
    'numpy'
    """
    b = _BY_NAMESPACE.get(id(xp))  # (the entry keeps xp alive: its id is not reused)
    if b is None:
        b = _register(xp)
    return b


# Registration runs once per namespace, under a lock: threads meeting new
# namespaces at once must not see the registry mid-update nor give two of them one name.
_REGISTERING = threading.RLock()


def _register(xp: Any) -> Backend:
    with _REGISTERING:
        b = _BY_NAMESPACE.get(id(xp))
        return b if b is not None else _register_new(xp)


def _register_new(xp: Any) -> Backend:
    for b in _BACKENDS.values():
        if b.xp is xp:
            break
    else:
        name = getattr(xp, "__name__", "array_api")
        if name in _BUILTIN and sys.modules.get(name) is xp:
            b = get_backend(name)  # the real CuPy / array_api_strict, with their extras
        else:
            b = Backend(_free_name(name), xp)
            _BACKENDS[b.name] = b
    _BY_NAMESPACE[id(xp)] = b
    return b


def _free_name(name: str) -> str:
    """``name``, or ``name#2``, ``name#3``... when a backend (or a built-in one
    not loaded yet) has it already."""
    taken = set(_BACKENDS) | set(_BUILTIN)
    if name not in taken:
        return name
    k = 2
    while f"{name}#{k}" in taken:
        k += 1
    return f"{name}#{k}"


def get_backend(name: str) -> Backend:
    """The backend registered as ``name`` (``'numpy'``, ``'cupy'``,
    ``'array_api_strict'``, or the name a namespace got when first met).

    >>> get_backend("numpy").xp is np
    True
    """
    b = _BACKENDS.get(name)
    if b is None:
        with _REGISTERING:
            b = _BACKENDS.get(name) or _make_builtin(name)
    return b


def _make_builtin(name: str) -> Backend:
    if name == "cupy":
        from .cupy_backend import make_cupy_backend
        b = make_cupy_backend()
    elif name in ("array_api_strict", "strict"):
        from .strict import make_strict_backend
        b = make_strict_backend()
    elif name == "dask":
        from .dask_backend import make_dask_backend
        b = make_dask_backend()
    else:
        raise ValueError(f"unknown backend {name!r}; known: numpy, cupy, array_api_strict, "
                         "dask")
    _BACKENDS[name] = b
    _BY_NAMESPACE.setdefault(id(b.xp), b)
    return b


def set_backend(name: str) -> None:
    """Choose what fad's array-creation functions (``fnp.zeros`` ...) produce.

    >>> import fad
    >>> fad.set_backend("numpy"); fad.default_backend()
    'numpy'
    """
    get_backend(name)
    _DEFAULT.set(name)


def default_backend() -> str:
    """Name of the backend array-creation functions use (``'numpy'`` unless set)."""
    return _DEFAULT.get()


def default_xp() -> Any:
    return get_backend(_DEFAULT.get()).xp


def asarray(x: Any, dtype: Any = None) -> Any:
    """``x`` (a Python scalar, a nested list, another library's array) as an array
    of the default backend, of ``dtype`` (a NumPy dtype or its name) when given.

    >>> asarray([1, 2], "float32").dtype
    dtype('float32')
    """
    xp = default_xp()
    if not x64.ENABLED and dtype is not None:
        dtype = x64.requested(dtype, "asarray")
    try:
        a = xp.asarray(x) if dtype is None else \
            xp.asarray(x, dtype=getattr(xp, np.dtype(dtype).name))
    except (TypeError, ValueError) as e:
        if isinstance(x, (*_PY_SCALARS, list, tuple, np.ndarray, np.generic)):
            raise
        raise TypeError(_unknown_type(x)) from e
    if type(a) is np.ndarray and a.dtype.kind == "O" and not isinstance(x, np.ndarray):
        raise TypeError(_unknown_type(_object_leaf(x)))
    return a if x64.ENABLED else x64.narrow(a)


def _object_leaf(x: Any) -> Any:
    """The first element of nested lists ``x`` that is not a number or a list."""
    while isinstance(x, list | tuple):
        for e in x:
            if not isinstance(e, _PY_SCALARS) and not hasattr(e, "dtype"):
                x = e
                break
        else:
            break
    return x


def _unknown_type(x: Any) -> str:
    tp = type(x)
    hint = "; it has __dlpack__: fnp.from_dlpack(x) reads it" if hasattr(x, "__dlpack__") \
        else ""
    return (f"fad cannot use an object of type {tp.__module__}.{tp.__qualname__} as an "
            "array: no backend recognises it (fad takes NumPy and CuPy arrays, any Array "
            "API array (with __array_namespace__, e.g. array_api_strict's), objects NumPy "
            "converts (with __array__, e.g. PyTorch tensors), Python numbers and nested "
            "lists of them; backends registered here: " + ", ".join(sorted(_BACKENDS)) + ")"
            + hint)


def device_put(x: Any, backend: str | Backend) -> Any:
    """``x`` (an array of any backend, or a Python scalar) as an array of
    ``backend`` (a name such as ``'numpy'`` or ``'array_api_strict'``, or a
    ``Backend``): through DLPack where both sides support it, else through the
    host. An array already on ``backend`` is returned as it is.

    >>> import numpy as np
    >>> y = device_put(np.arange(3.0), "array_api_strict")
    >>> type(y).__module__.split(".")[0], device_put(y, "numpy").tolist()
    ('array_api_strict', [0.0, 1.0, 2.0])
    """
    b = backend if isinstance(backend, Backend) else get_backend(backend)
    if type(x) in _PY_SCALARS:
        return b.xp.asarray(x)
    if namespace_of((x,)) is b.xp:
        return x
    from_dlpack = getattr(b.xp, "from_dlpack", None)
    if from_dlpack is not None and hasattr(x, "__dlpack__"):
        try:
            return from_dlpack(x)
        except (BufferError, TypeError, ValueError, RuntimeError, NotImplementedError):
            pass  # another device, or a layout DLPack cannot share: through the host
    return b.xp.asarray(_to_host(x))


def _to_host(x: Any) -> Any:
    """A NumPy copy of ``x``: DLPack first, then ``.get()`` (CuPy), then ``__array__``."""
    if hasattr(x, "__dlpack__"):
        try:
            return np.from_dlpack(x)
        except (BufferError, TypeError, ValueError, RuntimeError, NotImplementedError):
            pass
    get = getattr(x, "get", None)
    return np.asarray(get() if callable(get) else x)


__all__ = ["Backend", "BackendMismatchError", "namespace_of", "backend_for",
           "get_backend", "set_backend", "is_array", "default_backend", "default_xp", "asarray",
           "device_put"]
