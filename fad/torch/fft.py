"""``torch.fft``: discrete Fourier transforms on ``fad.numpy.fft`` (recorded for
``.backward()``, derivatives fad's), with PyTorch's arguments (``n``/``s``,
``dim``, ``norm``), dtypes (integers become the default float, then complex;
float32 gives complex64) and ``grad_fn`` names (``FftR2CBackward0``,
``FftC2CBackward0``, ``FftC2RBackward0``).

>>> import fad.torch as torch
>>> torch.fft.fft(torch.tensor([1.0, 2.0, 3.0, 4.0]))
tensor([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import numpy as fnp
from . import _dtype
from ._creation import _finish, _place
from ._functions import roll
from ._recorder import Op, apply
from .tensor import Tensor, _wrap_dim

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
           "fftn", "ifftn", "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_NORMS = (None, "backward", "ortho", "forward")
# what each transform takes and gives: real or complex
_REAL_IN = {"rfft", "ihfft", "rfft2", "rfftn"}
_REAL_OUT = {"irfft", "hfft", "irfft2", "irfftn"}


def _grad_fn(name: str) -> Callable:
    """PyTorch's node for ``name``: complex to real, real to complex (``rfft*``, and
    ``fft`` of a real input), the conjugate of one (``ihfft``, ``ifft`` of a real
    input), else complex to complex (the many-dimension ones even of a real input)."""
    def pick(vals: list, params: dict) -> str:
        real = getattr(vals[0], "dtype", np.dtype(float)).kind != "c"
        if name in _REAL_OUT:
            return "FftC2RBackward0"
        if name.startswith("rfft") or name == "fft" and real:
            return "FftR2CBackward0"
        if name == "ihfft" or name == "ifft" and real:
            return "ConjBackward0"
        return "FftC2CBackward0"
    return pick


_OPS = {name: Op(name, lambda a, _f=getattr(fnp.fft, name), **p: _f(a, **p), _grad_fn(name),
                 None, True) for name in __all__[:14]}


def _prepared(name: str, input: Tensor, norm: str | None) -> Tensor:
    """``input`` checked and cast as PyTorch does before a transform: integers and
    booleans become the default float dtype."""
    if norm not in _NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    if input.is_complex() and name in _REAL_IN:
        raise RuntimeError(f"{name} expects a real input tensor, but got "
                           f"{_dtype.type_word(input.dtype)}")
    if not (input.is_floating_point() or input.is_complex()):
        input = input.to(_dtype.get_default_dtype())
    return input


def _named(transform: Callable, name: str, summary: str, example: str, probe: str,
           result: str) -> Callable:
    """``transform`` named ``name`` and documented: ``summary`` (the input cropped or
    zero-padded) and the doctest ``torch.fft.<name>(<example>)<probe>``."""
    transform.__name__ = transform.__qualname__ = name
    transform.__doc__ = (f"``{name}`` {summary} (the input cropped or zero-padded).\n\n"
                         f">>> import fad.torch as torch\n>>> torch.fft.{name}({example})"
                         f"{probe}\n{result}\n")
    return transform


def _one_dim(name: str) -> Callable:
    def transform(input: Tensor, n: int | None = None, dim: int = -1,
                  norm: str | None = None) -> Tensor:
        input = _prepared(name, input, norm)
        d = _wrap_dim(dim, input.dim())
        if n is not None and n < 1:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
        return apply(_OPS[name], (input,), {"n": n, "axis": d, "norm": norm})
    return _named(transform, name, "along ``dim``, of ``n`` points", "torch.ones(4)",
                  ".shape[0] > 0", "True")


def _many_dims(name: str, default_dims: tuple | None) -> Callable:
    def transform(input: Tensor, s: Any = None, dim: Any = default_dims,
                  norm: str | None = None) -> Tensor:
        input = _prepared(name, input, norm)
        if dim is None and s is not None:
            dim = tuple(range(-len(s), 0))
        axes = None if dim is None else tuple(_wrap_dim(d, input.dim()) for d in (
            (dim,) if isinstance(dim, int) else dim))
        shape = None if s is None else tuple(int(k) for k in s)
        return apply(_OPS[name], (input,), {"s": shape, "axes": axes, "norm": norm})
    return _named(transform, name, "over ``dim``, of sizes ``s``", "torch.ones(2, 2)",
                  ".dim()", "2")


fft, ifft, rfft, irfft, hfft, ihfft = (_one_dim(n) for n in __all__[:6])
fft2, ifft2, rfft2, irfft2 = (_many_dims(n, (-2, -1)) for n in __all__[6:10])
fftn, ifftn, rfftn, irfftn = (_many_dims(n, None) for n in __all__[10:14])


def fftfreq(n: int, d: float = 1.0, *, dtype: Any = None, device: Any = None,
            requires_grad: bool = False, **_: Any) -> Tensor:
    """The sample frequencies of an ``n``-point transform, ``d`` apart in time.

    >>> import fad.torch as torch
    >>> torch.fft.fftfreq(4)
    tensor([ 0.0000,  0.2500, -0.5000, -0.2500])
    """
    dt = (_dtype.get_default_dtype() if dtype is None else dtype).np
    return _finish(_place(np.fft.fftfreq(int(n), d).astype(dt), device), requires_grad)


def rfftfreq(n: int, d: float = 1.0, *, dtype: Any = None, device: Any = None,
             requires_grad: bool = False, **_: Any) -> Tensor:
    """The non-negative sample frequencies of an ``n``-point ``rfft``.

    >>> import fad.torch as torch
    >>> torch.fft.rfftfreq(5, d=0.5)
    tensor([0.0000, 0.4000, 0.8000])
    """
    dt = (_dtype.get_default_dtype() if dtype is None else dtype).np
    return _finish(_place(np.fft.rfftfreq(int(n), d).astype(dt), device), requires_grad)


def _shift(input: Tensor, dim: Any, sign: int) -> Tensor:
    dims = tuple(range(input.dim())) if dim is None else (
        (dim,) if isinstance(dim, int) else tuple(dim))
    dims = tuple(_wrap_dim(d, input.dim()) for d in dims)
    # ifftshift moves by -(n // 2): for odd n it is not fftshift's opposite shift
    return roll(input, tuple(sign * (input.shape[d] // 2) for d in dims), dims)


def fftshift(input: Tensor, dim: Any = None) -> Tensor:
    """The zero frequency moved to the middle of ``dim`` (all by default).

    >>> import fad.torch as torch
    >>> torch.fft.fftshift(torch.arange(4))
    tensor([2, 3, 0, 1])
    """
    return _shift(input, dim, 1)


def ifftshift(input: Tensor, dim: Any = None) -> Tensor:
    """``fftshift`` undone.

    >>> import fad.torch as torch
    >>> torch.fft.ifftshift(torch.fft.fftshift(torch.arange(5)))
    tensor([0, 1, 2, 3, 4])
    """
    return _shift(input, dim, -1)
