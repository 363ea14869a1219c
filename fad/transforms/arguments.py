"""A call's keyword arguments as positions, from the function's signature (read
once per function): what ``jit``'s static arguments and the custom-rule functions
(whose rules receive every argument positionally, as in JAX) need; and the
checks every transformation makes on what it is given."""

from __future__ import annotations

import inspect
import weakref
from typing import Any, Callable

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
