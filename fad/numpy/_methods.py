"""NumPy's operators and methods on tracers (``x + y``, ``x[i]``, ``x.sum()``...)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import numpy as fnp  # (the package, complete by the time a ufunc is dispatched)
from ..core.trace import Tracer
from ..primitives.structural import convert_element_type
from . import _contractions as C
from . import _creation as K
from . import _indexing as I
from . import _math as M
from . import _reductions as R
from . import _shape as S
from ._at import at
from ._sorting import argsort, searchsorted
from ._statistics import mean, ptp, std, var
from ._unsupported import MUTATES, sort_method, unsupported


def _swap(f: Any) -> Any:
    return lambda self, other: f(other, self)


def _shape_args(args: tuple) -> Any:
    return args[0] if len(args) == 1 and not isinstance(args[0], int) else args


def _astype(self: Any, dtype: Any, copy: bool = True) -> Any:
    return convert_element_type(self, np.dtype(dtype))


def _ufunc(self: Any, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
    """``np.sin(tracer)`` and friends dispatch to fad.numpy."""
    fn = getattr(fnp, ufunc.__name__, None)
    if method != "__call__" or fn is None or kwargs.get("out") is not None:
        return NotImplemented
    return fn(*inputs)


METHODS = {
    "__add__": M.add, "__radd__": _swap(M.add),
    "__sub__": M.subtract, "__rsub__": _swap(M.subtract),
    "__mul__": M.multiply, "__rmul__": _swap(M.multiply),
    "__truediv__": M.divide, "__rtruediv__": _swap(M.divide),
    "__floordiv__": M.floor_divide, "__rfloordiv__": _swap(M.floor_divide),
    "__mod__": M.remainder, "__rmod__": _swap(M.remainder),
    "__pow__": M.power, "__rpow__": _swap(M.power),
    "__matmul__": C.matmul, "__rmatmul__": _swap(C.matmul),
    "__neg__": M.negative, "__pos__": lambda self: self, "__abs__": M.absolute,
    # NumPy's operators are bitwise (logical on booleans); they raise on floats
    "__invert__": M.invert,
    "__and__": M.bitwise_and, "__rand__": _swap(M.bitwise_and),
    "__or__": M.bitwise_or, "__ror__": _swap(M.bitwise_or),
    "__xor__": M.bitwise_xor, "__rxor__": _swap(M.bitwise_xor),
    "__lshift__": M.bitwise_left_shift,
    "__rlshift__": _swap(M.bitwise_left_shift),
    "__rshift__": M.bitwise_right_shift,
    "__rrshift__": _swap(M.bitwise_right_shift),
    "__lt__": M.less, "__le__": M.less_equal, "__gt__": M.greater,
    "__ge__": M.greater_equal, "__eq__": M.equal, "__ne__": M.not_equal,
    "__getitem__": I.getitem,
    "__array_ufunc__": _ufunc,
    "sum": R.sum, "mean": mean, "max": R.max, "min": R.min, "var": var,
    "std": std, "argmax": R.argmax, "argmin": R.argmin, "any": R.any, "all": R.all,
    "reshape": lambda self, *shape, order="C": S.reshape(self, _shape_args(shape), order),
    "transpose": lambda self, *axes: S.transpose(self, _shape_args(axes) if axes else None),
    "swapaxes": S.swapaxes, "squeeze": S.squeeze, "ravel": S.ravel, "flatten": S.ravel,
    "astype": _astype, "dot": C.dot, "clip": M.clip, "take": I.take,
    "T": property(lambda self: S.transpose(self)),
    "mT": property(lambda self: S.swapaxes(self, -1, -2)),
    "prod": R.prod, "cumsum": R.cumsum, "cumprod": R.cumprod, "argsort": argsort,
    "repeat": S.repeat, "round": M.round, "__round__": lambda self, nd=None: M.round(self, nd or 0),
    "diagonal": I.diagonal, "trace": C.trace, "nonzero": I.nonzero, "copy": K.copy,
    "compress": lambda self, condition, axis=None, out=None: I.compress(condition, self, axis,
                                                                        out),
    "choose": lambda self, choices, out=None, mode="raise": I.choose(self, choices, out, mode),
    "searchsorted": searchsorted, "sort": sort_method, "ptp": ptp,
    "__divmod__": M.divmod, "__rdivmod__": lambda self, other: M.divmod(other, self),
    "fill": unsupported("ndarray.fill", MUTATES), "put": unsupported("ndarray.put", MUTATES),
    "itemset": unsupported("ndarray.itemset", MUTATES),
    "at": property(at),
}


def install() -> None:
    for name, fn in METHODS.items():
        setattr(Tracer, name, fn)
