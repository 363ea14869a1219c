"""What every transformation does with the leaves of its arguments: each becomes
an array or a tracer (``leaf_array``), a masked array is refused
(``reject_masked``), and tangents or cotangents are checked against the values
they belong to (``check_like``)."""

from __future__ import annotations

import sys
from typing import Any, Callable, Sequence

import numpy as np

from ..backends import asarray, default_xp, is_array, namespace_of, x64
from ..core.ir import ShapedArray
from ..core.trace import Tracer, aval_of, concrete_or_none
from ..tree import tree_flatten
from .arguments import require_inputs


def leaf_array(x: Any) -> Any:
    """An input of a transformation as an array (or tracer); 64-bit arrays become
    32-bit in float32 mode."""
    if type(x) is np.ndarray or isinstance(x, np.generic):
        return x if x64.ENABLED else x64.narrow(x)
    if isinstance(x, Tracer | ShapedArray):
        return x
    conv = getattr(x, "__fad_array__", None)  # (before the namespace: a facade Tensor
    if conv is not None:                      # has both, and its array is what counts)
        return conv()
    if is_array(x):
        reject_masked(x)
        return x if x64.ENABLED else x64.narrow(x)
    return asarray(x)  # (a Python scalar or nested list)


def as_array(x: Any) -> Any:
    """A function's output leaf as a tracer or an array: a Python value (a scalar,
    a nested list) becomes an array of the default backend."""
    if isinstance(x, Tracer) or isinstance(x, np.generic):
        return x
    conv = getattr(x, "__fad_array__", None)
    if conv is not None:
        return as_array(conv())
    return x if is_array(x) else asarray(x)


def reject_masked(x: Any) -> None:
    """A ``numpy.ma.MaskedArray`` input is a TypeError: fad computes on its data and
    would silently drop the mask. (Every transformation converts its inputs
    through here, and ``jit``'s calls too.)

    >>> import fad, numpy as np
    >>> fad.grad(lambda x: (x * x).sum())(np.ma.array([1.0, 2.0], mask=[0, 1]))
    Traceback (most recent call last):
    ...
    TypeError: fad got a numpy.ma.MaskedArray (f64[2]) ...
    """
    ma = sys.modules.get("numpy.ma")  # (no masked array exists unless it is imported)
    if ma is not None and isinstance(x, ma.MaskedArray):
        raise TypeError(
            f"fad got a numpy.ma.MaskedArray ({aval_of(x).str_short()}) as an input: fad "
            "computes on the data of an array and would silently ignore its mask. Pass "
            "x.filled(value) to replace the masked entries, or np.asarray(x) to use the "
            "data as it is, and express the mask with fnp.where if it matters.")


def flatten_leaves(tree: Any) -> tuple[list, Any]:
    """The leaves of ``tree`` as arrays (``leaf_array``), and its structure."""
    leaves, treedef = tree_flatten(tree)
    return [leaf_array(x) for x in leaves], treedef


def differentiated(fun: Callable, args: Sequence, positions: Sequence[int], what: str
                   ) -> tuple[list, Any]:
    """The leaves (as arrays) and the structure of the arguments of ``fun`` at
    ``positions``, which ``what`` (``"fad.grad"``) differentiates: each one is
    given (not ``None``) and every leaf is a float or complex array."""
    require_inputs(fun, args, positions, what)
    leaves, tree = flatten_leaves([args[i] for i in positions])
    check_differentiable(leaves, what)
    return leaves, tree


def is_float(x: Any) -> bool:
    return aval_of(x).dtype.kind in "fc"


def check_differentiable(leaves: list, what: str) -> None:
    """A ``TypeError`` for a leaf that is not a float or complex array."""
    for x in leaves:
        dt = aval_of(x).dtype
        if dt.kind not in "fc":
            raise TypeError(
                f"{what} requires real- or complex-valued inputs (float32, float64...), "
                f"but got an input of dtype {dt}. Integer and boolean inputs are not "
                "differentiable: convert with x.astype(float), or exclude the argument "
                "with argnums.")


def zeros_like(x: Any) -> Any:
    """Zeros of ``x``'s shape and dtype, on its backend (a value, not an operation)."""
    return _filled_like(x, 0)


def ones_like(x: Any) -> Any:
    """Ones of ``x``'s shape and dtype, on its backend (a value, not an operation)."""
    return _filled_like(x, 1)


def _filled_like(x: Any, value: int) -> Any:
    c = concrete_or_none(x)
    if type(c) is np.ndarray or isinstance(c, np.generic):  # the common case, fast
        return np.full(c.shape, value, c.dtype)
    aval = aval_of(x)
    xp = _xp_of(x)
    return xp.full(aval.shape, value, dtype=getattr(xp, aval.dtype.name))


def _xp_of(x: Any) -> Any:
    c = concrete_or_none(x)
    return namespace_of([c]) if c is not None else default_xp()


_WEAK_SCALARS = (int, float, complex)


def check_like(values: list, avals: list, names: Callable[[], list], context: str,
               what: str, ints: bool = True, cast: bool = False) -> list:
    """Tangents or cotangents ``values`` checked, leaf by leaf, against the values
    they belong to (``avals``; ``names()`` names them): the same shape, and the
    same dtype for a float or complex value. An integer or boolean value has no
    derivative: with ``ints``, its tangent must be zero, of an integer, boolean
    or float0 (JAX's) dtype; without, only its shape is checked. A Python scalar
    is weakly typed (it takes the value's dtype); ``cast``: a float value of
    another dtype is converted rather than refused. Returns the arrays.
    """
    out = []
    for k, (v, a) in enumerate(zip(values, avals)):
        inexact = a.dtype.kind in "fc"
        if type(v) in _WEAK_SCALARS and inexact and (type(v) is not complex or
                                                     a.dtype.kind == "c"):
            xp = default_xp()
            v = xp.asarray(v, dtype=a.dtype if xp is np else getattr(xp, a.dtype.name))
        else:
            v = leaf_array(v)
        va = aval_of(v)
        if va.shape == a.shape and va.dtype == a.dtype and (inexact or not ints):  # fast
            out.append(v)
            continue
        problem = None
        if va.shape != a.shape:
            problem = (f"shapes {tuple(va.shape)} and {tuple(a.shape)} differ; a {what} "
                       "has the shape and dtype of its value")
        elif inexact and va.dtype != a.dtype:
            complex_for_real = va.dtype.kind == "c" and a.dtype.kind != "c"
            if cast and va.dtype.kind in "biuf" + a.dtype.kind:
                v = v.astype(a.dtype)
            elif complex_for_real:
                problem = (f"a complex {what} for a real value would lose its imaginary "
                           f"part; a {what} has its value's dtype, {a.dtype}")
            else:
                problem = (f"a {what} has its value's dtype, {a.dtype}: cast it with "
                           f".astype({a.dtype.name!r})")
        elif ints and not inexact and (va.dtype.kind in "fc" or not _is_zero(v)):
            problem = (f"{a.dtype} values have no derivative, so their {what} must be "
                       "zero, of an integer or boolean dtype (fnp.zeros_like of the "
                       "value) or JAX's float0; to differentiate with respect to it, "
                       "make the value a float array")
        if problem:
            raise TypeError(f"{context} {what} {va.str_short()} for {names()[k]} "
                            f"{a.str_short()}: {problem}")
        out.append(v)
    return out


def _is_zero(x: Any) -> bool:
    """Whether ``x`` (of an integer or boolean dtype) is all zero, or not concrete."""
    c = concrete_or_none(x)
    if c is None or aval_of(c).dtype.kind not in "biu":
        return True
    return not bool(namespace_of([c]).any(c != 0))
