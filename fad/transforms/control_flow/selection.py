"""``fad.lax.select`` and ``select_n``: elementwise choice between arrays of one
shape and dtype, as ``jax.lax`` (no broadcasting but of a scalar selector).
``select_n`` is a balanced tree of ``select``s, so it is differentiable and
batchable through ``select``'s own rules."""

from __future__ import annotations

from typing import Any

from ...core.trace import aval_of, bind
from ...primitives.elementwise import lt_p, sub_p
from ...primitives.elementwise import select as _select
from ..leaves import leaf_array


def _cases(where: str, cases: tuple) -> list:
    """The cases as arrays of one shape and dtype, else a TypeError."""
    arrays = [leaf_array(c) for c in cases]
    avals = [aval_of(c) for c in arrays]
    for k, a in enumerate(avals[1:], 1):
        if a.shape != avals[0].shape or a.dtype != avals[0].dtype:
            raise TypeError(
                f"{where} needs cases of one shape and dtype, but case 0 is "
                f"{avals[0].str_short()} and case {k} is {a.str_short()}. Broadcast or "
                "convert them first (fad.numpy.broadcast_to, .astype).")
    return arrays


def _selector(where: str, which: Any, shape: tuple, kinds: str, what: str) -> Any:
    which = leaf_array(which)
    a = aval_of(which)
    if a.dtype.kind not in kinds:
        raise TypeError(f"{where}'s selector must be {what}, got {a.str_short()}. Compare "
                        "(x > 0) for a boolean, or .astype(int) for indices.")
    if a.shape not in ((), shape):
        raise TypeError(
            f"{where}'s selector must be a scalar or have the cases' shape {shape}, got "
            f"{a.str_short()} (fad.lax does not broadcast it). Use fad.numpy.where to "
            "broadcast, or fad.numpy.broadcast_to the selector.")
    return which


def select(pred: Any, on_true: Any, on_false: Any) -> Any:
    """``on_true`` where ``pred`` else ``on_false``, elementwise.

    ``pred`` is boolean, a scalar or of the cases' shape; the cases share one
    shape and dtype (a ``TypeError`` otherwise, as ``jax.lax.select``).

    >>> import fad, fad.numpy as fnp
    >>> x = fnp.array([1.0, -2.0, 3.0])
    >>> fad.lax.select(x > 0, x, -x).tolist()
    [1.0, 2.0, 3.0]
    """
    on_true, on_false = _cases("fad.lax.select", (on_true, on_false))
    pred = _selector("fad.lax.select", pred, aval_of(on_true).shape, "b", "boolean")
    return _select(pred, on_true, on_false)


def select_n(which: Any, *cases: Any) -> Any:
    """``cases[which]`` elementwise: ``which`` is boolean (at most two cases,
    False picking ``cases[0]``) or an integer in ``[0, len(cases))``, a scalar or
    of the cases' shape.

    >>> import fad, fad.numpy as fnp
    >>> fad.lax.select_n(fnp.array([2, 0, 1]), fnp.zeros(3), fnp.ones(3),
    ...                  fnp.full(3, 2.0)).tolist()
    [2.0, 0.0, 1.0]
    """
    if not cases:
        raise ValueError("fad.lax.select_n needs at least one case.")
    arrays = _cases("fad.lax.select_n", cases)
    which = _selector("fad.lax.select_n", which, aval_of(arrays[0]).shape, "biu",
                      "boolean or integer")
    if aval_of(which).dtype.kind == "b":
        if len(arrays) > 2:
            raise TypeError(f"fad.lax.select_n with a boolean selector takes at most two "
                            f"cases, got {len(arrays)}. Pass integer indices instead.")
        return arrays[0] if len(arrays) == 1 else _select(which, arrays[1], arrays[0])
    return pick(which, arrays)


def pick(which: Any, cases: list) -> Any:
    """``cases[which]`` elementwise for integer ``which`` (which may broadcast
    against the cases): a balanced tree of ``select``s, depth log2(n)."""
    if len(cases) == 1:
        return cases[0]
    mid = len(cases) // 2  # (a Python int: weakly typed, on any backend)
    rest = cases[mid:]
    high = pick(bind(sub_p, which, mid), rest) if len(rest) > 1 else rest[0]
    return _select(bind(lt_p, which, mid), pick(which, cases[:mid]), high)


__all__ = ["select", "select_n"]
