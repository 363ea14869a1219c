"""Data type routines of ``fad.numpy``: NumPy's promotion rules and type
information, and ``astype``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.trace import Tracer
from ._base import asarray, cast


def result_type(*arrays_and_dtypes: Any) -> np.dtype:
    """NumPy's promotion of the arguments' dtypes (traced arrays included).

    >>> import fad.numpy as fnp
    >>> fnp.result_type(fnp.ones(2, fnp.float32), 1.0)
    dtype('float32')
    """
    keys = [x.dtype if isinstance(x, Tracer) else x for x in arrays_and_dtypes]
    return np.result_type(*keys)


can_cast, promote_types, min_scalar_type = np.can_cast, np.promote_types, np.min_scalar_type
issubdtype, isdtype, finfo, iinfo = np.issubdtype, np.isdtype, np.finfo, np.iinfo


def astype(x: Any, dtype: Any, /, *, copy: bool = True) -> Any:
    """Convert to ``dtype`` (float to float keeps the derivative).

    >>> import fad.numpy as fnp
    >>> fnp.astype(fnp.ones(2), fnp.float32).dtype
    dtype('float32')
    """
    return cast(asarray(x), np.dtype(dtype))
