"""``torch.jit``, for code written with TorchScript in mind: fad.torch has no
TorchScript compiler, so ``script`` and ``trace`` hand back the function or module
they are given, which runs eagerly (with PyTorch's deprecation warning, which
points to ``torch.compile``), and the decorators and queries scripted code uses
(``ignore``, ``unused``, ``export``, ``is_scripting``, ``annotate``,
``fork``/``wait``...) behave as they do in eager PyTorch. Saving or loading a
TorchScript archive is refused: save a module's ``state_dict`` with ``torch.save``.

>>> import warnings
>>> import fad.torch as torch
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")  # (PyTorch's deprecation warning)
...     @torch.jit.script
...     def double(x: torch.Tensor) -> torch.Tensor:
...         return 2 * x
>>> double(torch.ones(2)), torch.jit.is_scripting()
(tensor([2., 2.]), False)
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Generic, TypeVar

__all__ = ["script", "trace", "trace_module", "ignore", "unused", "export", "interface",
           "is_scripting", "is_tracing", "annotate", "Final", "Attribute", "fork", "wait",
           "Future", "freeze", "optimize_for_inference", "save", "load", "ScriptModule",
           "ScriptFunction", "enable_onednn_fusion", "onednn_fusion_enabled"]

_T = TypeVar("_T")


def _eager(what: str) -> None:
    warnings.warn(f"`torch.jit.{what}` is deprecated. Please switch to `torch.compile` or "
                  "`torch.export`.", DeprecationWarning, stacklevel=3)


def script(obj: Any, optimize: Any = None, _frames_up: int = 0, _rcb: Any = None,
           example_inputs: Any = None) -> Any:
    """``obj`` itself (a function, method or module), run eagerly."""
    _eager("script")
    return obj


def trace(func: Any, example_inputs: Any = None, *args: Any, **kwargs: Any) -> Any:
    """``func`` itself (a function or module), run eagerly: unlike a trace, its
    Python control flow still follows each input."""
    _eager("trace")
    return func


def trace_module(mod: Any, inputs: Any, *args: Any, **kwargs: Any) -> Any:
    _eager("trace_module")
    return mod


def _decorator(fn: Any = None, **kwargs: Any) -> Any:
    """A decorator with or without arguments that returns its function."""
    if fn is None or not callable(fn):
        return lambda f: f
    return fn


ignore = unused = export = interface = _decorator


def is_scripting() -> bool:
    """``False``: code runs eagerly."""
    return False


def is_tracing() -> bool:
    return False


def annotate(the_type: Any, the_value: _T) -> _T:
    return the_value


class Final(Generic[_T]):
    """A class attribute's type marker (no effect when running eagerly)."""


def Attribute(value: _T, type: Any = None) -> _T:  # noqa: A002  (PyTorch's name)
    return value


class Future:
    """A finished asynchronous result (``fork`` runs its function at once)."""

    def __init__(self, value: Any):
        self._value = value

    def wait(self) -> Any:
        return self._value

    def done(self) -> bool:
        return True

    def value(self) -> Any:
        return self._value


def fork(func: Callable, *args: Any, **kwargs: Any) -> Future:
    return Future(func(*args, **kwargs))


def wait(future: Future) -> Any:
    return future.wait()


def freeze(mod: Any, preserved_attrs: Any = None, optimize_numerics: bool = True) -> Any:
    return mod


def optimize_for_inference(mod: Any, other_methods: Any = None) -> Any:
    return mod


def enable_onednn_fusion(enabled: bool) -> None:
    pass


def onednn_fusion_enabled() -> bool:
    return False


def save(m: Any, f: Any, _extra_files: Any = None) -> None:
    raise NotImplementedError("torch.jit.save: fad.torch has no TorchScript archives; save "
                              "the module's state_dict with torch.save instead")


def load(f: Any, map_location: Any = None, _extra_files: Any = None) -> None:
    raise NotImplementedError("torch.jit.load: fad.torch has no TorchScript archives; load "
                              "a state_dict with torch.load and Module.load_state_dict")


class ScriptModule:
    """The type ``isinstance`` checks name; nothing fad.torch makes is one."""


class ScriptFunction:
    """The type ``isinstance`` checks name; nothing fad.torch makes is one."""
