"""The rest of NumPy's namespace: more elementwise math, scans and products,
shape and indexing helpers, sorting, creation helpers, and the functional forms
of the array methods.

Most functions are exact composites of primitives (a gather with a reversed
slice is ``flip``; a select with a constant mask is ``triu``); the others bind
the primitives of ``fad/primitives/{cumulative,sorting,special}.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.trace import Tracer
from . import _indexing as I
from . import _math as M
from ._base import asarray, cast
from ._contractions import trace
from ._creation import copy
from ._indexing import choose, compress, diagonal
from ._reductions import cumprod, cumsum, prod
from ._shape import repeat
from ._sorting import argsort, searchsorted
from ._statistics import ptp


def astype(x: Any, dtype: Any, /, *, copy: bool = True) -> Any:
    """Convert to ``dtype`` (float to float keeps the derivative).

    >>> import fad.numpy as fnp
    >>> fnp.astype(fnp.ones(2), fnp.float32).dtype
    dtype('float32')
    """
    return cast(asarray(x), np.dtype(dtype))


def _immutable(name: str) -> Any:
    def fn(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"fad.numpy.{name} is not supported: it modifies its argument in place, and "
            "fad's arrays are immutable. Build the result functionally instead (fnp.where, "
            "fnp.concatenate, or x[idx] gathers).")
    fn.__name__ = name
    fn.__doc__ = f"Not supported: ``numpy.{name}`` mutates its argument."
    return fn


# ================================================================== tracer methods
def _sort_method(self: Any, axis: int = -1, kind: Any = None, order: Any = None) -> None:
    raise TypeError("x.sort() sorts in place, and fad's arrays are immutable: "
                    "use x = fnp.sort(x)")


METHODS = {
    "prod": prod, "cumsum": cumsum, "cumprod": cumprod, "argsort": argsort,
    "repeat": repeat, "round": M.round, "__round__": lambda self, nd=None: M.round(self, nd or 0),
    "diagonal": diagonal, "trace": trace, "nonzero": I.nonzero, "copy": copy,
    "compress": lambda self, condition, axis=None, out=None: compress(condition, self, axis,
                                                                      out),
    "choose": lambda self, choices, out=None, mode="raise": choose(self, choices, out, mode),
    "searchsorted": searchsorted, "sort": _sort_method, "ptp": ptp,
    "__divmod__": M.divmod, "__rdivmod__": lambda self, other: M.divmod(other, self),
    "fill": _immutable("ndarray.fill"), "put": _immutable("ndarray.put"),
    "itemset": _immutable("ndarray.itemset"),
}


def install() -> None:
    for name, fn in METHODS.items():
        setattr(Tracer, name, fn)


install()

