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
    "einsum_path": "a contraction-order planner, not a computation; fad.numpy.einsum "
                   "plans its own contractions",
}


(put, put_along_axis, place, putmask, fill_diagonal, copyto, frexp, spacing, nextafter,
 einsum_path) = (unsupported(name, why) for name, why in NOT_SUPPORTED.items())


class NotProvidedError(NotImplementedError, AttributeError):
    """A public NumPy name that ``fad.numpy`` does not provide. It is also an
    ``AttributeError``, so that ``hasattr(fnp, name)`` and ``getattr(fnp, name,
    default)`` (feature detection) answer "absent" rather than raise."""


_SUBMODULE_HINTS = {
    "ma": "masked arrays are not supported: carry a boolean mask and use fnp.where",
    "polynomial": "the legacy functions fnp.polyval, fnp.polyfit, fnp.roots... are provided",
}


def not_provided(name: str) -> NotProvidedError:
    """The error for ``fad.numpy.<name>``, a public NumPy name fad lacks.

    >>> err = not_provided("savetxt")
    >>> isinstance(err, NotImplementedError) and "savetxt is not provided" in str(err)
    True
    """
    why = _SUBMODULE_HINTS.get(name, "not implemented (numpy." + name + " exists, fad has no "
                               "traced counterpart); call NumPy on concrete values")
    return NotProvidedError(f"fad.numpy.{name} is not provided: {why}")


def sort_method(self: Any, axis: int = -1, kind: Any = None, order: Any = None) -> None:
    raise TypeError("x.sort() sorts in place, and fad's arrays are immutable: "
                    "use x = fnp.sort(x)")
