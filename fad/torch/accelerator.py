"""``torch.accelerator``: the device-neutral questions PyTorch's tutorials ask
(``if torch.accelerator.is_available(): ...``), answered by ``torch.cuda`` (the
CuPy backend is fad.torch's one accelerator).

>>> import fad.torch as torch
>>> device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else "cpu"
>>> torch.ones(2, device=device).sum().item()
2.0
"""

from __future__ import annotations

from typing import Any

from . import cuda
from .tensor import device as _device

__all__ = ["is_available", "device_count", "current_accelerator", "current_device_index",
           "current_device_idx", "set_device_index", "set_device_idx", "synchronize",
           "empty_cache"]

_NONE = "Cannot access accelerator device when none is available."


def is_available() -> bool:
    """Whether an accelerator (CuPy with a GPU) is present.

    >>> import fad.torch as torch
    >>> torch.accelerator.is_available() == torch.cuda.is_available()
    True
    """
    return cuda.is_available()


def device_count() -> int:
    """How many accelerator devices there are (0 without one).

    >>> import fad.torch as torch
    >>> torch.accelerator.device_count() >= 0
    True
    """
    return cuda.device_count() if is_available() else 0


def current_accelerator(check_available: bool = False) -> Any:
    """``device('cuda')`` when an accelerator is present, else ``None``.

    >>> import fad.torch as torch
    >>> torch.accelerator.current_accelerator() in (None, torch.device("cuda"))
    True
    """
    return _device("cuda") if is_available() else None


def _require() -> None:
    if not is_available():
        raise RuntimeError(_NONE)


def current_device_index() -> int:
    """The index of the current accelerator device (always 0).

    >>> import fad.torch as torch
    >>> try:
    ...     torch.accelerator.current_device_index()
    ... except RuntimeError as e:
    ...     print(e)
    ... else:
    ...     print("Cannot access accelerator device when none is available.")
    Cannot access accelerator device when none is available.
    """
    _require()
    return 0


current_device_idx = current_device_index


def set_device_index(device: Any, /) -> None:
    """Select the accelerator device (only device 0 exists).

    >>> import fad.torch as torch
    >>> torch.accelerator.set_device_index(0) if torch.accelerator.is_available() else None
    """
    _require()


set_device_idx = set_device_index


def synchronize(device: Any = None, /) -> None:
    """Wait for the accelerator's queued work.

    >>> import fad.torch as torch
    >>> torch.accelerator.synchronize() if torch.accelerator.is_available() else None
    """
    _require()
    cuda.synchronize(device)


def empty_cache() -> None:
    """Release cached accelerator memory.

    >>> import fad.torch as torch
    >>> torch.accelerator.empty_cache() if torch.accelerator.is_available() else None
    """
    _require()
    cuda.empty_cache()
