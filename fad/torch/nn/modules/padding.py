"""Padding layers of ``torch.nn``: ``ZeroPad1d/2d/3d``, ``ConstantPad1d/2d/3d``,
``ReflectionPad1d/2d/3d``, ``ReplicationPad1d/2d/3d``, ``CircularPad1d/2d/3d``,
each ``functional.pad`` in its mode."""

from __future__ import annotations

from typing import Any

from ...tensor import Tensor
from .. import functional as NF
from .module import Module

__all__ = ["ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d",
           "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d",
           "CircularPad2d", "CircularPad3d"]


class _Pad(Module):
    """Pad the last ``_dims`` dimensions by ``padding`` (an int for every side, or
    (left, right[, top, bottom]))."""

    _dims = 1
    _mode = "reflect"

    def __init__(self, padding: Any):
        super().__init__()
        self.padding = (padding,) * (2 * self._dims) if isinstance(padding, int) else \
            tuple(padding)

    def forward(self, input: Tensor) -> Tensor:
        return NF.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPad(_Pad):
    _mode = "constant"

    def __init__(self, padding: Any, value: float):
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return NF.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPad):
    """Pad the last dimension with ``value``.

    >>> import fad.torch as torch
    >>> torch.nn.ConstantPad1d(1, 3.5)(torch.zeros(1, 1, 1))
    tensor([[[3.5000, 0.0000, 3.5000]]])
    """


class ConstantPad2d(_ConstantPad):
    """Pad the last two dimensions with ``value``.

    >>> import fad.torch as torch
    >>> torch.nn.ConstantPad2d((1, 0, 0, 1), 2.0)(torch.zeros(1, 1, 1)).tolist()
    [[[2.0, 0.0], [2.0, 2.0]]]
    """

    _dims = 2


class ZeroPad1d(_ConstantPad):
    """Pad the last dimension with zeros.

    >>> import fad.torch as torch
    >>> torch.nn.ZeroPad1d(2)
    ZeroPad1d((2, 2))
    """

    def __init__(self, padding: Any):
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ZeroPad1d):
    """Pad the last two dimensions with zeros.

    >>> import fad.torch as torch
    >>> torch.nn.ZeroPad2d(1)(torch.ones(1, 1, 1)).tolist()
    [[[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]]
    """

    _dims = 2


class ReflectionPad1d(_Pad):
    """Pad the last dimension with its mirror image (the edge not repeated).

    >>> import fad.torch as torch
    >>> torch.nn.ReflectionPad1d(2)(torch.tensor([[[1.0, 2.0, 3.0]]])).tolist()
    [[[3.0, 2.0, 1.0, 2.0, 3.0, 2.0, 1.0]]]
    """


class ReflectionPad2d(_Pad):
    """Pad the last two dimensions with their mirror images.

    >>> import fad.torch as torch
    >>> torch.nn.ReflectionPad2d((1, 1, 2, 0))
    ReflectionPad2d((1, 1, 2, 0))
    """

    _dims = 2


class ReplicationPad1d(_Pad):
    """Pad the last dimension with copies of its edge.

    >>> import fad.torch as torch
    >>> torch.nn.ReplicationPad1d((1, 2))(torch.tensor([[[1.0, 2.0]]])).tolist()
    [[[1.0, 1.0, 2.0, 2.0, 2.0]]]
    """

    _mode = "replicate"


class ReplicationPad2d(ReplicationPad1d):
    """Pad the last two dimensions with copies of their edges.

    >>> import fad.torch as torch
    >>> torch.nn.ReplicationPad2d(1)(torch.ones(1, 1, 1)).shape
    torch.Size([1, 3, 3])
    """

    _dims = 2


class CircularPad1d(_Pad):
    """Pad the last dimension with the values at its other end.

    >>> import fad.torch as torch
    >>> torch.nn.CircularPad1d(1)(torch.tensor([[[1.0, 2.0, 3.0]]])).tolist()
    [[[3.0, 1.0, 2.0, 3.0, 1.0]]]
    """

    _mode = "circular"


class CircularPad2d(CircularPad1d):
    """Pad the last two dimensions with the values at their other ends.

    >>> import fad.torch as torch
    >>> torch.nn.CircularPad2d(1)(torch.ones(1, 2, 2)).shape
    torch.Size([1, 4, 4])
    """

    _dims = 2


def _three(base: type, doc: str) -> type:
    """The 3-d layer of a padding mode: ``base`` over the last three dimensions."""
    name = base.__name__.replace("2d", "3d")
    return type(name, (base,), {"_dims": 3, "__doc__": doc, "__module__": __name__,
                                "__qualname__": name})


ZeroPad3d = _three(ZeroPad2d, """Pad the last three dimensions with zeros.

    >>> import fad.torch as torch
    >>> torch.nn.ZeroPad3d(1)(torch.ones(1, 1, 1, 1)).shape
    torch.Size([1, 3, 3, 3])
    """)
ConstantPad3d = _three(ConstantPad2d, """Pad the last three dimensions with ``value``.

    >>> import fad.torch as torch
    >>> torch.nn.ConstantPad3d(1, 2.0)
    ConstantPad3d(padding=(1, 1, 1, 1, 1, 1), value=2.0)
    """)
ReflectionPad3d = _three(ReflectionPad2d, """Pad the last three dimensions with their
    mirror images.

    >>> import fad.torch as torch
    >>> torch.nn.ReflectionPad3d(1)(torch.ones(1, 2, 2, 2)).shape
    torch.Size([1, 4, 4, 4])
    """)
ReplicationPad3d = _three(ReplicationPad2d, """Pad the last three dimensions with copies of
    their edges.

    >>> import fad.torch as torch
    >>> torch.nn.ReplicationPad3d(1)(torch.ones(1, 1, 1, 1)).shape
    torch.Size([1, 3, 3, 3])
    """)
CircularPad3d = _three(CircularPad2d, """Pad the last three dimensions with the values at
    their other ends.

    >>> import fad.torch as torch
    >>> torch.nn.CircularPad3d(1)(torch.ones(1, 2, 2, 2)).shape
    torch.Size([1, 4, 4, 4])
    """)
