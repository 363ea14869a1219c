"""``fad.lax.associative_scan``: all prefix combinations of an associative
operator in O(log n) rounds of vectorised calls (the odd-even recursion of
Ladner and Fischer). It is written in fad's operations (strided slices,
concatenations, reshapes), so every transformation applies to it unchanged."""

from __future__ import annotations

from typing import Any, Callable

from ...core.trace import aval_of, bind
from ...primitives.indexing import gather
from ...primitives.structural import concatenate_p, reshape
from ...tree import tree_flatten, tree_unflatten
from ..leaves import leaf_array


def associative_scan(fn: Callable, elems: Any, reverse: bool = False, axis: int = 0) -> Any:
    """The inclusive prefix combinations of ``elems`` along ``axis`` by ``fn``:
    ``[a, fn(a, b), fn(fn(a, b), c), ...]`` (with ``reverse``, from the end:
    ``[..., fn(fn(z, y), x), fn(z, y), z]``).

    ``fn(a, b)`` must be associative and vectorised: it takes two pytrees shaped
    like ``elems`` (every leaf with some length along ``axis``) and returns one
    of the same structure and shapes. It runs on O(log n) slices, so the result
    matches a sequential loop only up to rounding when ``fn`` is not exactly
    associative (floating-point sums).

    >>> import fad, fad.numpy as fnp
    >>> fad.lax.associative_scan(fnp.add, fnp.arange(5.0)).tolist()
    [0.0, 1.0, 3.0, 6.0, 10.0]
    >>> fad.lax.associative_scan(fnp.maximum, fnp.array([1.0, 3.0, 2.0]), reverse=True).tolist()
    [3.0, 3.0, 2.0]
    """
    if not callable(fn):
        raise TypeError(f"fad.lax.associative_scan's fn must be callable, got "
                        f"{type(fn).__name__}.")
    leaves, tree = tree_flatten(elems)
    leaves = [leaf_array(x) for x in leaves]
    if not leaves:
        return elems
    shapes = [aval_of(x).shape for x in leaves]
    ndim = len(shapes[0])
    if not -ndim <= axis < ndim:
        raise ValueError(f"fad.lax.associative_scan's axis {axis} is out of range for "
                         f"elems of shape {shapes[0]}.")
    axis %= ndim
    lengths = {s[axis] if len(s) > axis else None for s in shapes}
    if len(lengths) != 1:
        raise ValueError(
            "fad.lax.associative_scan needs every leaf of elems to have the same length "
            f"along axis {axis}, got shapes {shapes}.")

    def combine(a: list, b: list) -> list:
        out, out_tree = tree_flatten(fn(tree_unflatten(tree, a), tree_unflatten(tree, b)))
        if out_tree != tree:
            raise TypeError(
                "fad.lax.associative_scan's fn must return the structure of elems "
                f"({tree}), got {out_tree}.")
        return [leaf_array(o) for o in out]

    if reverse:
        leaves = [_slice(x, axis, None, None, -1) for x in leaves]
    out = _prefixes(combine, leaves, axis)
    if reverse:
        out = [_slice(x, axis, None, None, -1) for x in out]
    return tree_unflatten(tree, out)


def _slice(x: Any, axis: int, start: Any, stop: Any, step: Any = None) -> Any:
    return gather(x, (slice(None),) * axis + (slice(start, stop, step),))


def _prefixes(combine: Callable, xs: list, axis: int) -> list:
    """Combine neighbouring pairs, recurse on the half as long sequence (giving
    the prefixes that end at odd positions), then extend those by one element to
    get the prefixes that end at even positions, and interleave."""
    n = aval_of(xs[0]).shape[axis]
    if n < 2:
        return xs
    odd = _prefixes(combine, combine([_slice(x, axis, 0, n - 1, 2) for x in xs],
                                     [_slice(x, axis, 1, n, 2) for x in xs]), axis)
    first = [_slice(x, axis, 0, 1) for x in xs]
    if n == 2:
        return [bind(concatenate_p, f, o, axis=axis) for f, o in zip(first, odd)]
    tail = [_slice(x, axis, 2, n, 2) for x in xs]
    even = combine([_slice(o, axis, 0, n // 2 - (n % 2 == 0)) for o in odd], tail)
    even = [bind(concatenate_p, f, e, axis=axis) for f, e in zip(first, even)]
    return [_interleave(e, o, axis) for e, o in zip(even, odd)]


def _interleave(even: Any, odd: Any, axis: int) -> Any:
    """``even[0], odd[0], even[1], odd[1], ...`` along ``axis`` (``even`` as long as
    ``odd`` or one longer)."""
    shape = aval_of(odd).shape
    m = shape[axis]
    lead = _slice(even, axis, 0, m)
    pairs = [reshape(v, shape[:axis + 1] + (1,) + shape[axis + 1:]) for v in (lead, odd)]
    merged = reshape(bind(concatenate_p, *pairs, axis=axis + 1),
                     shape[:axis] + (2 * m,) + shape[axis + 1:])
    if aval_of(even).shape[axis] == m:
        return merged
    return bind(concatenate_p, merged, _slice(even, axis, m, m + 1), axis=axis)


__all__ = ["associative_scan"]
