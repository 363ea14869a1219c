"""What the distributions share: arguments as real arrays of one dtype, the
standardised variable ``(x - loc) / scale``, NaN where a parameter is invalid
(as ``scipy.stats``), and guards that keep NaN out of derivatives.

>>> import fad.numpy as fnp
>>> z, scale, ok, (a,) = location_scale("gamma.pdf", 3.0, 1.0, 2.0, 0.5)
>>> float(z), bool(ok), float(a)
(1.0, True, 0.5)
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ... import numpy as fnp
from .._args import reals


def arguments(name: str, *args: Any) -> list:
    """``args`` as real float arrays of one dtype (``name``: ``"norm.pdf"``...)."""
    return reals(f"fad.scipy.stats.{name}", *args)


def location_scale(name: str, x: Any, loc: Any, scale: Any, *shapes: Any) -> tuple:
    """``(z, scale, scale > 0, shapes)`` with ``z = (x - loc) / scale``."""
    x, loc, scale, *shapes = arguments(name, x, loc, scale, *shapes)
    return (x - loc) / scale, scale, scale > 0, shapes


def shifted(name: str, k: Any, *parameters_and_loc: Any, floor: bool = False) -> tuple:
    """``(k - loc, parameters)`` of a discrete distribution's function (its
    arguments ``k, *parameters, loc`` as real arrays); ``floor(k - loc)`` with
    ``floor``, for a distribution function."""
    k, *parameters, loc = arguments(name, k, *parameters_and_loc)
    k = k - loc
    return (fnp.floor(k) if floor else k), parameters


def nan_unless(ok: Any, value: Any) -> Any:
    """``value`` where ``ok``, NaN elsewhere (an invalid parameter, as SciPy)."""
    return fnp.where(ok, value, np.nan)


def on_support(inside: Any, z: Any, f: Callable, outside: Any, safe: float = 0.5) -> Any:
    """``f(z)`` where ``inside``, ``outside`` elsewhere; ``f`` sees ``safe`` outside,
    so that no NaN or infinity reaches a derivative (the double where)."""
    return fnp.where(inside, f(fnp.where(inside, z, safe)), outside)


def log_probability(p: Any, complement: Any) -> Any:
    """``log(p)``, given ``p`` and ``1 - p`` computed each with full precision:
    ``log1p(-complement)`` where ``p`` is close to 1 (the double where keeps each
    branch's operand in its own range, for the derivatives)."""
    small = p < 0.5
    return fnp.where(small, fnp.log(fnp.where(small, p, 0.5)),
                     fnp.log1p(-fnp.where(small, 0.5, complement)) + 0.0)  # (+0, not -0)


def whole_number_quantile(q: Any, high: Any, reaches: Callable, bisections: int) -> Any:
    """The least whole ``k`` in ``[0, high]`` with ``reaches(k)`` (``cdf(k) >= q``),
    by bisection on the whole numbers, ``bisections`` halvings; ``-1`` at ``q = 0``
    (as SciPy) and ``high`` where even it falls short.

    >>> import fad.numpy as fnp
    >>> float(whole_number_quantile(fnp.array(0.5), fnp.array(10.0), lambda k: k >= 3, 8))
    3.0
    """
    low = -1.0 + 0 * (q + high)  # invariant: not reaches(low), reaches(high)
    high = high + 0 * q
    for _ in range(bisections):
        mid = fnp.floor((low + high) / 2)
        above = reaches(fnp.maximum(mid, 0.0)) & (mid >= 0)
        low, high = fnp.where(above, low, mid), fnp.where(above, mid, high)
    return fnp.where(q == 0, -1.0, high)


def integer_valued(k: Any) -> Any:
    """Where ``k`` is a whole number (a discrete distribution's support)."""
    return k == fnp.floor(k)


__all__: list[str] = []
