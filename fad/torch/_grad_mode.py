"""Grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``.

The flag lives in a ``contextvars.ContextVar``, so threads and asyncio tasks each
have their own (PyTorch's grad mode is thread-local too). Every switch for a block
of code happens inside the ``try`` whose ``finally`` puts the previous mode back
(by value, not by token), so that an exception arriving anywhere, a
``KeyboardInterrupt`` included, leaves the mode as it was.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
from typing import Any, Callable

GRAD_ENABLED: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "fad_torch_grad_enabled", default=True)
is_grad_enabled = GRAD_ENABLED.get


class _GradModeContext:
    """A context manager that is also a decorator (with or without parentheses)."""

    _mode: bool = True

    def __init__(self, orig_func: Callable | None = None):
        self._prevs: list = []
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
                grad_was = GRAD_ENABLED.get()
                try:  # (switched inside the try: see the module docstring)
                    GRAD_ENABLED.set(mode)
                    value = next(gen)
                finally:
                    GRAD_ENABLED.set(grad_was)
                while True:
                    sent = yield value
                    grad_was = GRAD_ENABLED.get()
                    try:
                        GRAD_ENABLED.set(mode)
                        value = gen.send(sent)
                    except StopIteration as stop:
                        return stop.value
                    finally:
                        GRAD_ENABLED.set(grad_was)
            return gen_wrapper

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            grad_was = GRAD_ENABLED.get()
            try:  # (switched inside the try: see the module docstring)
                GRAD_ENABLED.set(mode)
                return func(*args, **kwargs)
            finally:
                GRAD_ENABLED.set(grad_was)
        return wrapper

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._wrapped is not None:
            return self._wrapped(*args, **kwargs)
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return self._decorate(args[0])
        raise TypeError(f"{type(self).__name__}() used as a decorator takes one function")

    def __enter__(self) -> None:
        prevs = self._prevs  # the mode before each active ``with`` of this object
        depth = len(prevs)
        try:
            prevs.append(GRAD_ENABLED.get())
            GRAD_ENABLED.set(self._mode)
        except BaseException:  # interrupted: neither the mode nor ``prevs`` changes
            if len(prevs) > depth:
                GRAD_ENABLED.set(prevs.pop())
            raise

    def __exit__(self, *exc: Any) -> None:
        GRAD_ENABLED.set(self._prevs.pop())

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
        self._prev = GRAD_ENABLED.get()
        self._prevs = []
        self._wrapped = None
        GRAD_ENABLED.set(self._mode)  # at once, as PyTorch's (a function as much as a block)

    def __call__(self, func: Callable) -> Callable:  # type: ignore[override]
        GRAD_ENABLED.set(self._prev)
        return self._decorate(func)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        GRAD_ENABLED.set(self._prev)
