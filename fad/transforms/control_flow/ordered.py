"""``fad.lax``'s running reductions (``cumsum cumprod cummax cummin
cumlogsumexp``) and orderings (``sort``, ``sort_key_val``, ``top_k``), with
``jax.lax``'s signatures: thin checks in front of the primitives of
``fad.primitives.cumulative`` and ``fad.primitives.sorting``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...core.primitive import Primitive
from ...core.trace import aval_of, bind
from ...primitives import cumulative as Cu
from ...primitives import sorting as So
from ..leaves import leaf_array


def _axis(where: str, axis: Any, ndim: int) -> int:
    if isinstance(axis, bool) or not isinstance(axis, int | np.integer):
        raise TypeError(f"{where}'s axis must be an int, got {type(axis).__name__} "
                        f"{axis!r:.60}.")
    if not -max(ndim, 1) <= axis < max(ndim, 1):
        raise ValueError(f"{where}'s axis {axis} is out of range for an operand of rank "
                         f"{ndim}.")
    return int(axis) % max(ndim, 1)


def _running(prim: Primitive, name: str, kinds: str, operand: Any, axis: int,
             reverse: bool) -> Any:
    x = leaf_array(operand)
    a = aval_of(x)
    if a.dtype.kind not in kinds:
        raise TypeError(f"fad.lax.{name} takes {_KINDS[kinds]} operands, got "
                        f"{a.str_short()}. Convert it with .astype(...).")
    axis = _axis(f"fad.lax.{name}", axis, len(a.shape))
    if not a.shape:  # a 0-d operand: its own running reduction
        return x
    return bind(prim, x, axis=axis, reverse=bool(reverse))


_NUMBERS, _ORDERED, _FLOATS = "biufc", "biuf", "f"
_KINDS = {_NUMBERS: "numeric", _ORDERED: "real (ordered)", _FLOATS: "floating-point"}


def cumsum(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """The running sum along ``axis`` (from the end when ``reverse``).

    >>> import fad, fad.numpy as fnp
    >>> fad.lax.cumsum(fnp.array([1.0, 2.0, 3.0]), reverse=True).tolist()
    [6.0, 5.0, 3.0]
    """
    return _running(Cu.cumsum_p, "cumsum", _NUMBERS, operand, axis, reverse)


def cumprod(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """The running product along ``axis`` (exact derivatives at zeros).

    >>> import fad, fad.numpy as fnp
    >>> fad.lax.cumprod(fnp.array([1.0, 2.0, 3.0])).tolist()
    [1.0, 2.0, 6.0]
    """
    return _running(Cu.cumprod_p, "cumprod", _NUMBERS, operand, axis, reverse)


def cummax(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """The running maximum along ``axis``; each output's derivative goes to the
    position of its running maximum (on ties the latest one in scan order).

    >>> import fad, fad.numpy as fnp
    >>> x = fnp.array([1.0, 3.0, 2.0, 5.0])
    >>> fad.lax.cummax(x).tolist()
    [1.0, 3.0, 3.0, 5.0]
    >>> fad.grad(lambda x: fnp.sum(fad.lax.cummax(x)))(x).tolist()
    [1.0, 2.0, 0.0, 1.0]
    """
    return _running(Cu.cummax_p, "cummax", _ORDERED, operand, axis, reverse)


def cummin(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """The running minimum along ``axis`` (derivatives as ``cummax``'s).

    >>> import fad, fad.numpy as fnp
    >>> fad.lax.cummin(fnp.array([3.0, 1.0, 2.0]), reverse=True).tolist()
    [1.0, 1.0, 2.0]
    """
    return _running(Cu.cummin_p, "cummin", _ORDERED, operand, axis, reverse)


def cumlogsumexp(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """``log(cumsum(exp(operand)))`` computed stably (no overflow for large
    values, no ``log(0)`` for very negative ones); its derivative is the running
    softmax: ``d out_i / d x_j = exp(x_j - out_i)`` for ``j`` up to ``i``.

    >>> import fad, fad.numpy as fnp
    >>> fad.lax.cumlogsumexp(fnp.array([-1000.0, 0.0, 1000.0])).tolist()
    [-1000.0, 0.0, 1000.0]
    """
    return _running(Cu.cumlogsumexp_p, "cumlogsumexp", _FLOATS, operand, axis, reverse)


def sort(operand: Any, dimension: int = -1, is_stable: bool = True,
         num_keys: int = 1) -> Any:
    """``operand`` sorted along ``dimension``; or, for a sequence of operands of one
    shape, all of them permuted into the lexicographic order of the first
    ``num_keys`` (a tuple back). The sort is stable (``is_stable`` is accepted
    for JAX's signature). Derivatives follow the values to their new places.

    >>> import fad, fad.numpy as fnp
    >>> fad.lax.sort(fnp.array([3.0, 1.0, 2.0])).tolist()
    [1.0, 2.0, 3.0]
    >>> k, v = fad.lax.sort((fnp.array([2, 1, 2]), fnp.array([1.0, 2.0, 3.0])))
    >>> k.tolist(), v.tolist()
    ([1, 2, 2], [2.0, 1.0, 3.0])
    """
    single = not isinstance(operand, Sequence)
    ops = [leaf_array(operand)] if single else [leaf_array(o) for o in operand]
    if not ops:
        raise ValueError("fad.lax.sort needs at least one operand.")
    avals = [aval_of(o) for o in ops]
    if any(a.shape != avals[0].shape for a in avals):
        raise TypeError("fad.lax.sort's operands must share one shape, got shapes "
                        f"{[a.shape for a in avals]}.")
    if isinstance(num_keys, bool) or not isinstance(num_keys, int) or \
            not 1 <= num_keys <= len(ops):
        raise ValueError(f"fad.lax.sort's num_keys must be an int in [1, {len(ops)}] "
                         f"(the number of operands), got {num_keys!r:.60}.")
    if any(a.dtype.kind == "c" for a in avals[:num_keys]):
        raise TypeError("fad.lax.sort's keys must be real (complex numbers have no "
                        "order); sort by their real part or modulus.")
    axis = _axis("fad.lax.sort", dimension, len(avals[0].shape))
    if not avals[0].shape:
        return ops[0] if single else tuple(ops)
    if len(ops) == 1 and single:
        return bind(So.sort_p, ops[0], axis=axis)
    return tuple(So.sort_by_keys(ops, axis, num_keys))


def sort_key_val(keys: Any, values: Any, dimension: int = -1, is_stable: bool = True
                 ) -> tuple:
    """``(keys, values)`` both permuted into the order that sorts ``keys``.

    >>> import fad, fad.numpy as fnp
    >>> k, v = fad.lax.sort_key_val(fnp.array([3, 1, 2]), fnp.array([30.0, 10.0, 20.0]))
    >>> k.tolist(), v.tolist()
    ([1, 2, 3], [10.0, 20.0, 30.0])
    """
    return sort((keys, values), dimension, is_stable, 1)


def top_k(operand: Any, k: int) -> tuple:
    """The ``k`` largest entries along the last axis, largest first, and their
    indices (int32; ties: the lower index first). The derivative reaches the
    selected entries only.

    >>> import fad, fad.numpy as fnp
    >>> v, i = fad.lax.top_k(fnp.array([1.0, 4.0, 2.0, 3.0]), 2)
    >>> v.tolist(), i.tolist()
    ([4.0, 3.0], [1, 3])
    """
    x = leaf_array(operand)
    a = aval_of(x)
    if not a.shape:
        raise ValueError("fad.lax.top_k needs an operand with at least one axis, got a "
                         f"0-d {a.str_short()}.")
    if a.dtype.kind not in _ORDERED:
        raise TypeError(f"fad.lax.top_k takes real (ordered) operands, got "
                        f"{a.str_short()}.")
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or \
            not 0 <= k <= a.shape[-1]:
        raise ValueError(f"fad.lax.top_k's k must be an int in [0, {a.shape[-1]}] (the "
                         f"length of the last axis), got {k!r:.60}.")
    return So.top_k(x, int(k))


__all__ = ["cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp", "sort",
           "sort_key_val", "top_k"]
