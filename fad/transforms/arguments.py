"""A call's keyword arguments as positions, from the function's signature (read
once per function): what ``jit``'s static arguments and the custom-rule functions
(whose rules receive every argument positionally, as in JAX) need; the checks
every transformation makes on what it is given (``argnums``, callables); and the
names messages give to functions, arguments and the call of a transformation."""

from __future__ import annotations

import inspect
import sys
import weakref
from typing import Any, Callable, Sequence

import numpy as np

from ..core.errors import FAD_DIR

_SIGNATURES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def signature(fun: Callable) -> inspect.Signature | None:
    """``fun``'s signature, or None when it has none (some builtins).

    >>> signature(lambda x, n=2: x).parameters["n"].default
    2
    """
    try:
        return _SIGNATURES[fun]
    except (KeyError, TypeError):  # (TypeError: not weakly referenceable)
        pass
    try:
        sig = inspect.signature(fun)
    except (TypeError, ValueError):
        sig = None
    try:
        _SIGNATURES[fun] = sig
    except TypeError:
        pass
    return sig


def as_positional(fun: Callable, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """``(args, kwargs)`` with every argument that can go by position moved there
    and defaults filled in; what is left in ``kwargs`` is keyword-only. Raises
    ``TypeError`` for a call the signature does not accept.

    >>> as_positional(lambda x, n=2, *, k=0: x, (1.0,), {"k": 3})
    ((1.0, 2), {'k': 3})
    """
    sig = signature(fun)
    if sig is None:
        if kwargs:
            raise TypeError(f"{getattr(fun, '__name__', fun)} takes no keyword "
                            "arguments here: its signature is unknown")
        return args, kwargs
    if not kwargs and len(args) == len(sig.parameters):
        return args, kwargs
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.args, bound.kwargs


def parameter_name(fun: Callable, position: int) -> str | None:
    """The name of the parameter that takes positional argument ``position`` of
    ``fun``, or None (no signature, or a ``*args`` parameter takes it).

    >>> parameter_name(lambda x, n: x, 1), parameter_name(lambda *xs: 0, 0)
    ('n', None)
    """
    sig = signature(fun)
    if sig is None:
        return None
    params = list(sig.parameters.values())
    if position < len(params) and params[position].kind in (
            inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
        return params[position].name
    return None


def positional_parameter(fun: Callable, name: str) -> bool:
    """Whether ``fun`` has a parameter ``name`` that can be passed by position.

    >>> positional_parameter(lambda x, *, k: x, "x"), positional_parameter(lambda x, *, k: x, "k")
    (True, False)
    """
    sig = signature(fun)
    p = sig.parameters.get(name) if sig is not None else None
    return p is not None and p.kind in (inspect.Parameter.POSITIONAL_ONLY,
                                        inspect.Parameter.POSITIONAL_OR_KEYWORD)


def require_callable(fun: Any, transformation: str) -> None:
    """Raise ``TypeError`` at once if ``fun``, given to ``transformation``, cannot be
    called (rather than later, when the transformed function is).

    >>> require_callable(3, "fad.grad")
    Traceback (most recent call last):
    TypeError: fad.grad expected a callable (the function to transform), got int: 3
    """
    if not callable(fun):
        raise TypeError(f"{transformation} expected a callable (the function to "
                        f"transform), got {type(fun).__name__}: {fun!r}")


def function_name(fun: Any) -> str:
    """``fun``'s qualified name, for messages.

    >>> function_name(function_name)
    'function_name'
    """
    return getattr(fun, "__qualname__", None) or getattr(fun, "__name__", None) or repr(fun)


def describe_argument(fun: Any, i: int) -> str:
    """``argument 1 (y)``: position ``i`` of a call of ``fun``, with its parameter's
    name when the signature has one there.

    >>> describe_argument(lambda x, y: x, 1)
    'argument 1 (y)'
    """
    name = parameter_name(fun, i)
    return f"argument {i} ({name})" if name else f"argument {i}"


class CallLabel:
    """``fad.grad of f (called at file:line)``, built only if an error needs it: a
    transformation call records just its caller's code object and line."""

    __slots__ = ("name", "fun", "code", "line")

    def __init__(self, name: str, fun: Callable, depth: int = 2):
        frame = sys._getframe(depth)
        while frame.f_back is not None and frame.f_code.co_filename.startswith(FAD_DIR):
            frame = frame.f_back  # the first frame outside fad: the user's call
        self.name, self.fun, self.code, self.line = name, fun, frame.f_code, frame.f_lineno

    def __str__(self) -> str:
        return (f"fad.{self.name} of {function_name(self.fun)} "
                f"(called at {self.code.co_filename}:{self.line})")

    def __bool__(self) -> bool:
        return True


def call_label(name: str, f: Callable) -> CallLabel:
    return CallLabel(name, f, depth=3)


def check_argnums(argnums: Any) -> int | tuple[int, ...]:
    """``argnums`` as an int or a tuple of ints (from any sequence of them)."""
    def is_int(i: Any) -> bool:
        return isinstance(i, int | np.integer) and not isinstance(i, bool)
    if is_int(argnums):
        return int(argnums)
    if isinstance(argnums, tuple | list) and all(is_int(i) for i in argnums):
        return tuple(int(i) for i in argnums)
    raise TypeError(f"argnums must be an int or a tuple of ints, got "
                    f"{type(argnums).__name__}: {argnums!r}")


def argnums_tuple(argnums: int | tuple[int, ...], nargs: int, what: str, fun: Callable
                  ) -> tuple[int, ...]:
    """The positions ``argnums`` names in a call with ``nargs`` positional
    arguments, negative ones counted from the end."""
    nums = (argnums,) if isinstance(argnums, int) else argnums
    for i in nums:
        if not -nargs <= i < nargs:
            raise ValueError(
                f"argnums={argnums!r} is out of range: {what} of {function_name(fun)} "
                f"was called with {nargs} positional argument(s), so argnums must be "
                f"between {-nargs} and {nargs - 1} (keyword arguments are not "
                "differentiated)")
    return tuple(i % nargs for i in nums)


def distinct_argnums(nums: tuple[int, ...]) -> tuple[int, ...]:
    """Each position once: one asked for twice is one input to differentiate."""
    return nums if len(nums) == 1 else tuple(dict.fromkeys(nums))


def per_argnum(per_arg: list, diff: tuple, nums: tuple, argnums: Any) -> Any:
    """The values for the positions ``argnums`` asks for, from one value per
    distinct position ``diff``: a repeated position gets the same value."""
    if isinstance(argnums, int):
        return per_arg[0]
    if diff == nums:
        return tuple(per_arg)
    by_position = dict(zip(diff, per_arg))
    return tuple(by_position[i] for i in nums)


def require_inputs(fun: Callable, args: Sequence, positions: Sequence[int], what: str
                   ) -> None:
    """A differentiated argument that is ``None`` (an empty pytree) is a mistake."""
    for i in positions:
        if args[i] is None:
            raise TypeError(
                f"{what} of {function_name(fun)}: {describe_argument(fun, i)} is None, "
                f"but {what} differentiates with respect to float arrays (or pytrees of "
                "them). Pass an array (e.g. fnp.asarray(1.0)), or differentiate with "
                "respect to the other arguments only (argnums, or a function that "
                "closes over this one).")


def substitute(args: tuple, argnums: tuple, values: tuple) -> list:
    new = list(args)
    for i, v in zip(argnums, values):
        new[i] = v
    return new
