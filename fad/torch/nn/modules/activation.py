"""More activation modules of ``torch.nn`` (``SELU``, ``PReLU``, ``Softshrink``...):
each holds PyTorch's options under PyTorch's attribute names and calls the
``functional`` form."""

from __future__ import annotations

from typing import Any

from ... import _functions as F
from ..._creation import empty
from ...tensor import Tensor
from .. import functional as NF
from .. import init
from .module import Module, Parameter

__all__ = ["SELU", "CELU", "Mish", "Hardswish", "Hardsigmoid", "Hardtanh", "Softsign",
           "Softmin", "Softmax2d", "LogSigmoid", "Tanhshrink", "Softshrink", "Hardshrink",
           "Threshold", "GLU", "PReLU", "RReLU"]


class _Inplace(Module):
    """An activation whose only option is ``inplace`` (shown when set)."""

    _fn = staticmethod(NF.selu)
    _show = True

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace and self._show else ""


class SELU(_Inplace):
    """``scale * elu(x, alpha)`` with the self-normalising constants.

    >>> import fad.torch as torch
    >>> torch.nn.SELU(inplace=True)
    SELU(inplace=True)
    """

    _fn = staticmethod(NF.selu)


class Mish(_Inplace):
    """``x * tanh(softplus(x))``.

    >>> import fad.torch as torch
    >>> torch.nn.Mish()(torch.tensor([0.0]))
    tensor([0.])
    """

    _fn = staticmethod(NF.mish)


class Hardswish(_Inplace):
    """``x * relu6(x + 3) / 6``.

    >>> import fad.torch as torch
    >>> torch.nn.Hardswish()(torch.tensor([3.0]))
    tensor([3.])
    """

    _fn = staticmethod(NF.hardswish)
    _show = False


class Hardsigmoid(_Inplace):
    """``relu6(x + 3) / 6``.

    >>> import fad.torch as torch
    >>> torch.nn.Hardsigmoid()(torch.tensor([0.0]))
    tensor([0.5000])
    """

    _fn = staticmethod(NF.hardsigmoid)
    _show = False


class CELU(Module):
    """``x`` where positive, ``alpha (e^(x/alpha) - 1)`` elsewhere.

    >>> import fad.torch as torch
    >>> torch.nn.CELU(2.0)
    CELU(alpha=2.0)
    """

    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Tensor) -> Tensor:
        return NF.celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Hardtanh(Module):
    """``x`` clipped to ``[min_val, max_val]``.

    >>> import fad.torch as torch
    >>> torch.nn.Hardtanh(-2.0, 2.0)(torch.tensor([-3.0, 1.0, 3.0]))
    tensor([-2.,  1.,  2.])
    """

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False,
                 min_value: float | None = None, max_value: float | None = None):
        super().__init__()
        self.min_val = min_val if min_value is None else min_value
        self.max_val = max_val if max_value is None else max_value
        self.inplace = inplace
        if not self.max_val > self.min_val:
            raise AssertionError

    def forward(self, input: Tensor) -> Tensor:
        return NF.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + (
            ", inplace=True" if self.inplace else "")


class _Plain(Module):
    """An activation without options."""

    _fn = staticmethod(NF.softsign)

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input)


class Softsign(_Plain):
    """``x / (|x| + 1)``.

    >>> import fad.torch as torch
    >>> torch.nn.Softsign()(torch.tensor([1.0]))
    tensor([0.5000])
    """

    _fn = staticmethod(NF.softsign)


class LogSigmoid(_Plain):
    """``log(sigmoid(x))``.

    >>> import fad.torch as torch
    >>> torch.nn.LogSigmoid()(torch.tensor([0.0]))
    tensor([-0.6931])
    """

    _fn = staticmethod(NF.logsigmoid)


class Tanhshrink(_Plain):
    """``x - tanh(x)``.

    >>> import fad.torch as torch
    >>> torch.nn.Tanhshrink()(torch.tensor([0.0]))
    tensor([0.])
    """

    _fn = staticmethod(NF.tanhshrink)


class Softmax2d(Module):
    """``softmax`` over the channels of ``(N, C, H, W)`` or ``(C, H, W)`` input.

    >>> import fad.torch as torch
    >>> torch.nn.Softmax2d()(torch.zeros(2, 1, 1)).flatten()
    tensor([0.5000, 0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D "
                             "instead")
        return F.softmax(input, -3)


class Softmin(Module):
    """``softmax(-x)`` over ``dim``.

    >>> import fad.torch as torch
    >>> torch.nn.Softmin(0)(torch.tensor([0.0, 0.0]))
    tensor([0.5000, 0.5000])
    """

    def __init__(self, dim: int | None = None):
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return NF.softmin(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class GLU(Softmin):
    """The first half along ``dim`` times the sigmoid of the second.

    >>> import fad.torch as torch
    >>> torch.nn.GLU()
    GLU(dim=-1)
    """

    def __init__(self, dim: int = -1):
        super().__init__(dim)

    def forward(self, input: Tensor) -> Tensor:
        return NF.glu(input, self.dim)


class Softshrink(Module):
    """``x`` moved towards 0 by ``lambd``, 0 inside ``[-lambd, lambd]``.

    >>> import fad.torch as torch
    >>> torch.nn.Softshrink()
    Softshrink(0.5)
    """

    _fn = staticmethod(NF.softshrink)

    def __init__(self, lambd: float = 0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class Hardshrink(Softshrink):
    """``x`` outside ``[-lambd, lambd]``, 0 inside.

    >>> import fad.torch as torch
    >>> torch.nn.Hardshrink(0.3)
    Hardshrink(0.3)
    """

    _fn = staticmethod(NF.hardshrink)


class Threshold(Module):
    """``x`` where ``x > threshold``, ``value`` elsewhere.

    >>> import fad.torch as torch
    >>> torch.nn.Threshold(0.1, 20)
    Threshold(threshold=0.1, value=20)
    """

    def __init__(self, threshold: float, value: float, inplace: bool = False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: Tensor) -> Tensor:
        return NF.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}" + (
            ", inplace=True" if self.inplace else "")


class PReLU(Module):
    """``x`` where positive, ``weight * x`` elsewhere, with a learnable ``weight`` of
    ``num_parameters`` slopes (one, or one per channel) filled with ``init``.

    >>> import fad.torch as torch
    >>> m = torch.nn.PReLU(3)
    >>> m, m.weight.shape
    (PReLU(num_parameters=3), torch.Size([3]))
    """

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: Any = None,
                 dtype: Any = None):
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(empty(num_parameters, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return NF.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """``x`` where positive, ``a x`` elsewhere, ``a`` uniform in ``[lower, upper]`` in
    training and their mean in evaluation.

    >>> import fad.torch as torch
    >>> torch.nn.RReLU()
    RReLU(lower=0.125, upper=0.3333333333333333)
    """

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input: Tensor) -> Tensor:
        return NF.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}" + (
            ", inplace=True" if self.inplace else "")
