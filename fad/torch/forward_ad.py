"""``torch.autograd.forward_ad``: forward-mode differentiation with dual tensors,
on fad's forward mode. ``dual_level()`` opens a ``JVPTrace``; ``make_dual(x, t)``
is a tensor whose value is a tracer of it carrying ``x`` and the tangent ``t``, so
every facade operation on it (which runs fad functions) carries the tangent
forward by fad's rules; ``unpack_dual`` reads the primal and tangent back.

>>> import fad.torch as torch
>>> import fad.torch.autograd.forward_ad as fwAD
>>> with fwAD.dual_level():
...     y = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0])) ** 2
...     fwAD.unpack_dual(y).tangent
tensor([2., 0.])
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from ..core.trace import new_main
from ..interpreters.jvp import JVPTrace, JVPTracer
from .tensor import Tensor, wrap

__all__ = ["dual_level", "make_dual", "unpack_dual", "UnpackedDualTensor", "enter_dual_level",
           "exit_dual_level"]

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])

_LEVELS: list = []  # the open levels, innermost last: (new_main context, its trace)


def enter_dual_level() -> int:
    """Open a forward-mode level (``dual_level``'s ``__enter__``); its index."""
    if _LEVELS:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    cm = new_main(JVPTrace, label="torch.autograd.forward_ad.dual_level")
    main = cm.__enter__()
    _LEVELS.append((cm, main))
    return len(_LEVELS) - 1


def exit_dual_level(*, level: int | None = None) -> None:
    """Close the innermost forward-mode level: the dual tensors made in it lose their
    tangents' meaning (unpack them inside it)."""
    if not _LEVELS:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    cm, _ = _LEVELS.pop()
    cm.__exit__(None, None, None)


class dual_level:
    """``with dual_level():`` the block in which dual tensors carry tangents.

    >>> import fad.torch.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level() as level:
    ...     level
    0
    """

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc: Any) -> None:
        exit_dual_level()


def _trace(level: int | None) -> Any:
    if not _LEVELS:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    return _LEVELS[-1 if level is None else level][1].trace


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """``tensor`` carrying ``tangent`` (of its shape) through the operations that follow.

    >>> import fad.torch as torch
    >>> import fad.torch.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     fwAD.unpack_dual(fwAD.make_dual(torch.ones(2), torch.zeros(2)).sin()).tangent
    tensor([0., 0.])
    """
    trace = _trace(level)
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(f"Trying to set a forward gradient that has a different size than "
                           f"that of the original Tensor, this is not supported. Tensor is of "
                           f"size {list(tensor.shape)} while the given forward gradient is of "
                           f"size {list(tangent.shape)}.")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    value = tangent._value.astype(tensor._value.dtype) if tangent.dtype != tensor.dtype \
        else tangent._value
    dual = wrap(JVPTracer(trace, tensor._value, value), tensor.requires_grad)
    dual._tangent = tangent  # (unpack_dual gives this very tensor back, as PyTorch's)
    return dual


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """``(primal, tangent)`` of a dual tensor (``tangent`` ``None`` for a tensor
    without one).

    >>> import fad.torch as torch
    >>> import fad.torch.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     fwAD.unpack_dual(torch.ones(1)).tangent is None
    True
    """
    v = tensor._value
    if _LEVELS and type(v) is JVPTracer and v._trace is _trace(level):
        given = tensor.__dict__.get("_tangent")
        if given is not None and given._value is v.tangent:
            return UnpackedDualTensor(wrap(v.primal), given)
        return UnpackedDualTensor(wrap(v.primal), None if v.tangent is None else wrap(v.tangent))
    return UnpackedDualTensor(tensor, None)
