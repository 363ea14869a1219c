"""The NumPy functions and array methods ``fad.numpy`` does not provide, and
why: each exists and raises, naming itself and the reason."""

from __future__ import annotations

from typing import Any


def unsupported(name: str, why: str) -> Any:
    """A function that raises ``NotImplementedError`` naming ``fad.numpy.{name}``
    (``name`` may name a submodule's function: ``"linalg.eig"``) and ``why``.

    >>> unsupported("linalg.eig", "complex results")()
    Traceback (most recent call last):
    NotImplementedError: fad.numpy.linalg.eig is not supported: complex results
    """
    def fn(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"fad.numpy.{name} is not supported: {why}")
    fn.__name__ = fn.__qualname__ = name.rpartition(".")[2]
    fn.__doc__ = f"Not supported: ``numpy.{name}`` ({why})."
    return fn


MUTATES = ("it modifies its argument in place and fad's arrays are immutable; build "
           "the result functionally with JAX's .at[]: y = x.at[idx].set(v) "
           "(.add, .multiply, .min, .max; fnp.at(x)[idx] for a NumPy array)")


# NumPy functions of the covered categories that fad.numpy does not provide, and why
# (tests/numpy/test_numpy_coverage.py checks that each raises NotImplementedError naming it).
NOT_SUPPORTED = {
    "put": MUTATES, "put_along_axis": MUTATES, "place": MUTATES, "putmask": MUTATES,
    "fill_diagonal": MUTATES, "copyto": MUTATES,
    "frexp": "mantissa/exponent split of the float representation (no derivative); "
             "use NumPy on concrete values",
    "spacing": "distance to the next float (representation-level, no derivative)",
    "nextafter": "next representable float (representation-level, no derivative)",
    "histogram": "data-dependent bins, no derivative; use NumPy on concrete values",
    "histogram2d": "data-dependent bins, no derivative; use NumPy on concrete values",
    "histogramdd": "data-dependent bins, no derivative; use NumPy on concrete values",
    "histogram_bin_edges": "data-dependent bins; use NumPy on concrete values",
    "einsum_path": "a contraction-order planner, not a computation; fad.numpy.einsum "
                   "plans its own contractions",
    "unwrap": "phase unwrapping (discontinuous): not implemented yet",
}


(put, put_along_axis, place, putmask, fill_diagonal, copyto, frexp, spacing, nextafter,
 histogram, histogram2d, histogramdd, histogram_bin_edges, einsum_path, unwrap) = (
    unsupported(name, why) for name, why in NOT_SUPPORTED.items())


def sort_method(self: Any, axis: int = -1, kind: Any = None, order: Any = None) -> None:
    raise TypeError("x.sort() sorts in place, and fad's arrays are immutable: "
                    "use x = fnp.sort(x)")
