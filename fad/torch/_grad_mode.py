"""Grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``.

The flag lives in a ``contextvars.ContextVar``, so threads and asyncio tasks each
have their own (PyTorch's grad mode is thread-local too).
"""

from __future__ import annotations

import contextvars
import functools
import inspect
from typing import Any, Callable

from ..core.trace import enter_onto, switch

GRAD_ENABLED: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "fad_torch_grad_enabled", default=True)
is_grad_enabled = GRAD_ENABLED.get


def grad_mode(mode: bool) -> switch:
    """``with grad_mode(mode):`` runs the block in grad mode ``mode`` and restores the
    mode before it however the block ends (an interrupt included).

    >>> import fad.torch as torch
    >>> with grad_mode(False):
    ...     torch.is_grad_enabled()
    False
    >>> torch.is_grad_enabled()
    True
    """
    return switch(GRAD_ENABLED, mode)


class _GradModeContext:
    """A context manager that is also a decorator (with or without parentheses)."""

    _mode: bool = True

    def __init__(self, orig_func: Callable | None = None):
        self._switches: list = []
        if orig_func is not None and callable(orig_func):
            self._wrapped = self._decorate(orig_func)
        else:
            self._wrapped = None

    def _decorate(self, func: Callable) -> Callable:
        mode = self._mode
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen_wrapper(*args: Any, **kwargs: Any) -> Any:
                gen = func(*args, **kwargs)
                with grad_mode(mode):
                    value = next(gen)
                while True:
                    sent = yield value
                    try:
                        with grad_mode(mode):
                            value = gen.send(sent)
                    except StopIteration as stop:
                        return stop.value
            return gen_wrapper

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with grad_mode(mode):
                return func(*args, **kwargs)
        return wrapper

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._wrapped is not None:
            return self._wrapped(*args, **kwargs)
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return self._decorate(args[0])
        raise TypeError(f"{type(self).__name__}() used as a decorator takes one function")

    def __enter__(self) -> None:
        enter_onto(self._switches, grad_mode(self._mode))

    def __exit__(self, *exc: Any) -> None:
        self._switches.pop().__exit__()

    def clone(self) -> "_GradModeContext":
        return type(self)()


class no_grad(_GradModeContext):
    """Disable gradient recording: ``with torch.no_grad():`` or ``@torch.no_grad()``.

    Operations inside produce tensors with ``requires_grad=False`` and no
    ``grad_fn``; in-place updates of leaves that require grad are allowed.
    """

    _mode = False


class enable_grad(_GradModeContext):
    """Enable gradient recording inside a ``no_grad`` block."""

    _mode = True


class inference_mode(_GradModeContext):
    """Like ``no_grad`` (fad has no separate inference tensors)."""

    def __init__(self, mode: Any = True):
        if callable(mode):  # used as a bare decorator
            self._mode = False
            super().__init__(mode)
            return
        self._mode = not mode
        super().__init__()


class set_grad_enabled(_GradModeContext):
    """``torch.set_grad_enabled(mode)``: sets the mode now (as a function) or for a
    block (as a context manager) or a function (as a decorator)."""

    def __init__(self, mode: bool):
        self._mode = bool(mode)
        self._switches = []
        self._wrapped = None
        self._now = grad_mode(self._mode)
        self._now.__enter__()  # at once, as PyTorch's (a function as much as a block)

    def __call__(self, func: Callable) -> Callable:  # type: ignore[override]
        self._now.__exit__()
        return self._decorate(func)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        self._now.__exit__()
