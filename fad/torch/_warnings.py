"""PyTorch's once-per-process warnings (its ``TORCH_WARN_ONCE``), and
``torch.set_warn_always``, which makes them warn every time."""

from __future__ import annotations

import warnings

_ALWAYS = [False]
_WARNED: set = set()


def set_warn_always(b: bool) -> None:
    """Whether the warnings PyTorch gives once per process are given every time.

    >>> import fad.torch as torch
    >>> torch.set_warn_always(True); torch.is_warn_always_enabled()
    True
    >>> torch.set_warn_always(False)
    """
    _ALWAYS[0] = bool(b)


def is_warn_always_enabled() -> bool:
    """What ``set_warn_always`` set (``False`` by default)."""
    return _ALWAYS[0]


def warn_once(message: str, stacklevel: int = 3) -> None:
    """A ``UserWarning`` with PyTorch's ``message``: the first time only, unless
    ``set_warn_always(True)``."""
    if _ALWAYS[0]:  # (as PyTorch's: a warning given this way still counts as not given)
        warnings.warn(message, UserWarning, stacklevel=stacklevel)
    elif message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(message, UserWarning, stacklevel=stacklevel)
