"""What every ``fad.numpy`` function starts with: turning its inputs into arrays
or tracers, and NumPy's dtype promotion (NEP 50: Python scalars are weak)."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ..backends import asarray as backend_asarray
from ..backends import is_array, x64
from ..core.errors import ConcretizationError
from ..core.trace import Tracer, _np_dtype, concrete_or_none
from ..primitives.shapes import ufunc_result_dtype
from ..primitives.structural import convert_element_type

PY_SCALARS = (bool, int, float, complex)


def asarray(x: Any, dtype: Any = None) -> Any:
    """A tracer or backend array for ``x`` (lists and scalars go to the default backend).

    >>> import fad.numpy as fnp
    >>> fnp.asarray([1, 2], "float32").dtype
    dtype('float32')
    """
    if not x64.ENABLED:  # float32 mode: 64-bit requests and arrays become 32-bit
        dtype = x64.requested(dtype, "asarray") if dtype is not None else \
            x64.NARROW.get(getattr(x, "dtype", None))
    if isinstance(x, Tracer):
        return x if dtype is None else convert_element_type(x, dtype)
    conv = getattr(x, "__fad_array__", None)
    if conv is not None:
        return asarray(conv(), dtype)
    if is_array(x) or isinstance(x, np.generic):
        return x if dtype is None or _np_dtype(x.dtype) == np.dtype(dtype) \
            else convert_element_type(x, dtype)
    if isinstance(x, list | tuple) and any(isinstance(e, Tracer) or
                                           hasattr(e, "__fad_array__") for e in _flat(x)):
        from ._shape import stack
        return stack([asarray(e, dtype) for e in x])
    return backend_asarray(x, dtype)


def static_value(x: Any, what: str) -> Any:
    """``x``, or the concrete value (a Python scalar or list) of a traced ``x``,
    which decides a shape (``what``: ``"A shape for fnp.zeros"``): a
    ``ConcretizationError`` saying so when it is traced abstractly.

    >>> static_value(3, "A shape for fnp.zeros")
    3
    """
    if isinstance(x, Tracer):
        v = x._concrete(what)
        return v.tolist() if hasattr(v, "tolist") else np.asarray(v).tolist()
    return x


def static_shape(shape: Any, fn: str) -> tuple[int, ...]:
    """``shape`` (an int or a sequence of ints) as a tuple of Python ints; ``fn``
    names the function that needs it, for the message when an entry is traced.

    >>> static_shape(3, "fnp.zeros"), static_shape([2, 3], "fnp.zeros")
    ((3,), (2, 3))
    """
    if type(shape) is tuple:
        for d in shape:
            if type(d) is not int:
                break
        else:
            return shape  # (the common case, at no cost)
    elif isinstance(shape, int | np.integer):
        return (int(shape),)
    if isinstance(shape, Tracer):
        shape = static_value(shape, f"A shape for {fn}")
    if not isinstance(shape, list | tuple):
        return (operator.index(shape),)  # (an int, or a 0-d integer array)
    return tuple([operator.index(static_value(d, f"A shape for {fn}")
                                 if isinstance(d, Tracer) else d) for d in shape])


def _flat(x: Any) -> Any:
    for e in x:
        if isinstance(e, list | tuple):
            yield from _flat(e)
        else:
            yield e


def operand(x: Any) -> Any:
    """Like ``asarray`` but keeps Python scalars, which are weak operands."""
    if type(x) in PY_SCALARS or isinstance(x, Tracer) or type(x) is np.ndarray:
        return x
    return asarray(x)


def dtype_key(x: Any) -> Any:
    """The dtype of an operand, or the Python type of a weak scalar."""
    tp = type(x)
    if tp in PY_SCALARS:
        return tp
    d = x.dtype
    return d if isinstance(d, np.dtype) else _np_dtype(d)


def dtype_of(x: Any) -> np.dtype:
    tp = type(x)
    if tp in PY_SCALARS:
        return np.result_type(tp(0))
    return _np_dtype(x.dtype)


def cast(x: Any, dtype: np.dtype) -> Any:
    if type(x) in PY_SCALARS:
        return x
    if _np_dtype(x.dtype) == dtype:
        return x
    return convert_element_type(x, dtype)


def index_result(x: Any) -> Any:
    """An index array computed as int64 (``argmax``, ``argsort``, ...) in the
    mode's integer: int32 in float32 mode, as JAX without x64.

    >>> index_result(np.arange(2)).dtype.name
    'int64'
    """
    return x if x64.ENABLED else cast(x, np.dtype(np.int32))


def promote_all(*xs: Any) -> list:
    """``xs`` as arrays of their common dtype (``np.result_type``: Python scalars
    count as arrays, as in ``concatenate`` and the products, not weakly); at least
    one is needed.

    >>> [x.dtype.name for x in promote_all(np.ones(2, np.float32), 1.0)]
    ['float64', 'float64']
    """
    if not xs:
        raise ValueError("need at least one array to concatenate")
    xs = [asarray(x) for x in xs]
    dt = np.result_type(*[dtype_of(x) for x in xs])
    return [cast(x, dt) for x in xs]


_WEAK_FITS = {float: "fc", int: "iufc", bool: "biufc", complex: "c"}


def promote(ufunc: str, *xs: Any) -> tuple[np.dtype | None, list]:
    """NumPy's result dtype of ``ufunc`` on ``xs`` and the operands cast to it.

    The first lines are fast paths for the common cases (float arrays, or an
    array with a weak Python scalar of a kind it holds); the general case asks
    NumPy itself (``ufunc_result_dtype``, cached).
    """
    if len(xs) == 2 and ufunc not in _SPECIAL:
        x, y = xs
        tx, ty = type(x), type(y)
        if tx in PY_SCALARS:
            if ty not in PY_SCALARS:
                d = y.dtype
                if isinstance(d, np.dtype) and d.kind in _WEAK_FITS[tx]:
                    return d, [x, y]
        elif ty in PY_SCALARS:
            d = x.dtype
            if isinstance(d, np.dtype) and d.kind in _WEAK_FITS[ty]:
                return d, [x, y]
        else:
            d = x.dtype
            # ``is``: NumPy's built-in dtypes are singletons, and an array_api_strict
            # dtype must not be compared with a NumPy one (it warns)
            if d is y.dtype and isinstance(d, np.dtype) and d.kind in "fc":
                return d, [x, y]
    elif len(xs) == 1 and type(xs[0]) not in PY_SCALARS:
        d = xs[0].dtype
        if isinstance(d, np.dtype) and d.kind in "fc":
            return d, list(xs)
    keys = tuple(dtype_key(x) for x in xs)
    dtype = ufunc_result_dtype(ufunc, *keys)
    if not x64.ENABLED:  # (NumPy's int32 -> float64 promotions stay 32-bit)
        dtype = x64.NARROW.get(dtype, dtype)
    if all(k == dtype for k in keys):
        return dtype, list(xs)
    if all(type(x) in PY_SCALARS for x in xs):
        xs = tuple(asarray(x) for x in xs)
    return dtype, [cast(x, dtype) for x in xs]


# ufuncs whose result dtype differs from their operands' even for floats/ints
_SPECIAL = frozenset({"divide", "true_divide", "logical_and", "logical_or",
                      "logical_xor", "arctan2"})


def is_inexact(dtype: Any) -> bool:
    return np.dtype(dtype).kind in "fc"


def no_out(out: Any) -> None:
    """fad arrays are immutable: NumPy's ``out=`` is rejected with a clear message."""
    if out is not None:
        raise TypeError("fad.numpy does not support out=: arrays are immutable here; "
                        "use the returned value")


def concrete_array(x: Any, fn: str) -> np.ndarray:
    """The concrete value of ``x``, whose data decide the shape of ``fn``'s result:
    a ``ConcretizationError`` naming ``fn`` when ``x`` is traced abstractly."""
    c = concrete_or_none(asarray(x))
    if c is None:
        raise ConcretizationError(f"{fn}: the argument must be concrete (its result's "
                                  "shape depends on the data); it is traced abstractly "
                                  "here (under fad.jit / make_jaxpr)")
    return np.asarray(c)


def numpy_constant(name: str, module: str) -> Any:
    """NumPy's function ``name`` as a function of static arguments whose result
    is a constant (its arrays made backend arrays); ``module`` is the module that
    exports it (its doctest runs with that module's)."""
    f = getattr(np, name)

    def fn(*args: Any, **kwargs: Any) -> Any:
        out = f(*args, **kwargs)
        if isinstance(out, np.ndarray):
            return asarray(out)
        return tuple(asarray(o) for o in out) if isinstance(out, tuple) else out
    fn.__name__ = name
    fn.__module__ = module
    fn.__doc__ = (f"``numpy.{name}`` of static arguments (a constant result).\n\n"
                  f"    >>> import fad.numpy as fnp\n    >>> callable(fnp.{name})\n    True\n")
    return fn
