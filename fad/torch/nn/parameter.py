"""``torch.nn.parameter``: the parameter and buffer classes, where PyTorch code
imports them from (``from torch.nn.parameter import Parameter``).

>>> from fad.torch.nn.parameter import Parameter
>>> import fad.torch as torch
>>> Parameter(torch.ones(2)).requires_grad
True
"""

from __future__ import annotations

from .modules.module import Buffer, Parameter
from .modules.wrappers import UninitializedBuffer, UninitializedParameter, is_lazy

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "is_lazy"]
