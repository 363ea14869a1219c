"""``torch.utils.hooks``: ``RemovableHandle``, what registering a hook returns.

>>> import fad.torch as torch
>>> from fad.torch.utils.hooks import RemovableHandle
>>> isinstance(torch.nn.Linear(1, 1).register_forward_hook(print), RemovableHandle)
True
"""

from __future__ import annotations

from .._graph import RemovableHandle

__all__ = ["RemovableHandle"]
