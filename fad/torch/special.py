"""``torch.special``: PyTorch's special functions on ``fad.scipy.special``,
``fad.numpy`` and ``fad.nn`` (recorded for ``.backward()``, derivatives fad's); the
Bessel functions and orthogonal polynomials PyTorch does not differentiate come
from ``_special_host``.

>>> import fad.torch as torch
>>> x = torch.tensor([0.5], requires_grad=True)
>>> torch.special.expit(x)
tensor([0.6225], grad_fn=<SigmoidBackward0>)
"""

from __future__ import annotations

from typing import Any, Callable

from .. import nn
from .. import numpy as fnp
from ..scipy import special as sp
from . import _special_host
from ._functions.pointwise import i0, igamma, igammac, logit, mvlgamma, polygamma, sinc, xlogy
from ._functions.writes import accept_out_in
from ._recorder import EWF, UF, Op, apply
from ._special_host import *  # noqa: F403  (the functions PyTorch does not differentiate)
from .tensor import Tensor

__all__ = ["erf", "erfc", "erfinv", "expit", "logit", "gammaln", "digamma", "psi", "polygamma",
           "xlogy", "xlog1py", "log_softmax", "softmax", "logsumexp", "log1p", "expm1", "sinc",
           "round", "exp2", "i0", "gammainc", "gammaincc", "multigammaln", "entr", "ndtr",
           "ndtri", "log_ndtr", "i0e", "i1", "i1e", "zeta", "erfcx", *_special_host.__all__]

gammainc, gammaincc, multigammaln = igamma, igammac, mvlgamma


def _unary(name: str, fun: Callable, grad_fn: str, summary: str, argument: str,
           result: str) -> Callable:
    """``torch.special.<name>``, documented by ``summary`` and the doctest
    ``<name>(torch.tensor([argument]))``, which shows ``result``."""
    op = Op(name, fun, grad_fn, UF, True)

    def f(input: Tensor) -> Tensor:
        return apply(op, (input,))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"{summary}\n\n>>> import fad.torch as torch\n"
                 f">>> torch.special.{name}(torch.tensor([{argument}]))\n{result}\n")
    return f


def _binary(name: str, fun: Callable, grad_fn: str, doc: str) -> Callable:
    op = Op(name, fun, grad_fn, EWF, True)

    def f(input: Any, other: Any) -> Tensor:
        return apply(op, (input, other))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


erf = _unary("erf", sp.erf, "ErfBackward0", "The error function.", "0.0", "tensor([0.])")
erfc = _unary("erfc", sp.erfc, "ErfcBackward0", "The complementary error function.",
              "0.0", "tensor([1.])")
erfcx = _unary("erfcx", sp.erfcx, "SpecialErfcxBackward0",
               "The scaled complementary error function ``exp(x ** 2) erfc(x)``.", "0.0",
               "tensor([1.])")
erfinv = _unary("erfinv", sp.erfinv, "ErfinvBackward0", "The inverse error function.",
                "0.0", "tensor([0.])")
expit = _unary("expit", sp.expit, "SigmoidBackward0", "The logistic sigmoid.",
               "0.0", "tensor([0.5000])")
gammaln = _unary("gammaln", sp.gammaln, "LgammaBackward0", "``log |Gamma(x)|``.",
                 "1.0", "tensor([0.])")
digamma = _unary("digamma", sp.digamma, "DigammaBackward0", "The digamma function.",
                 "1.0", "tensor([-0.5772])")
psi = digamma
entr = _unary("entr", sp.entr, "SpecialEntrBackward0", "``-x log x`` (0 at 0, ``-inf`` below).",
              "0.5", "tensor([0.3466])")
ndtr = _unary("ndtr", sp.ndtr, "MulBackward1", "The standard normal distribution function.",
              "0.0", "tensor([0.5000])")
ndtri = _unary("ndtri", sp.ndtri, "SpecialNdtriBackward0", "The inverse of ``ndtr``.",
               "0.5", "tensor([0.])")
log_ndtr = _unary("log_ndtr", sp.log_ndtr, "SpecialLogNdtrBackward0", "``log(ndtr(x))``, "
                  "accurate far in the left tail.", "-3.0", "tensor([-6.6077])")
i0e = _unary("i0e", sp.i0e, "SpecialI0EBackward0", "``exp(-|x|) i0(x)``.", "1.0",
             "tensor([0.4658])")
i1 = _unary("i1", sp.i1, "SpecialI1Backward0", "The modified Bessel function of order 1.",
            "1.0", "tensor([0.5652])")
i1e = _unary("i1e", sp.i1e, "SpecialI1EBackward0", "``exp(-|x|) i1(x)``.", "1.0",
             "tensor([0.2079])")
zeta = _binary("zeta", lambda x, q: sp.zeta(x, q), "SpecialZetaBackward0",
               """The Hurwitz zeta function ``sum_k (k + q) ** -x``.

>>> import fad.torch as torch
>>> torch.special.zeta(torch.tensor([2.0]), torch.tensor([1.0]))
tensor([1.6449])
""")
log1p = _unary("log1p", fnp.log1p, "Log1PBackward0", "``log(1 + x)``, accurate near 0.",
               "0.0", "tensor([0.])")
expm1 = _unary("expm1", fnp.expm1, "Expm1Backward0", "``exp(x) - 1``, accurate near 0.",
               "0.0", "tensor([0.])")
exp2 = _unary("exp2", fnp.exp2, "Exp2Backward0", "``2 ** x``.", "3.0", "tensor([8.])")
xlog1py = _binary("xlog1py", sp.xlog1py, "SpecialXlog1pyBackward0",
                  """``x * log1p(y)``, 0 where ``x == 0``.

>>> import fad.torch as torch
>>> torch.special.xlog1py(torch.tensor([0.0, 2.0]), torch.tensor([-1.0, 0.0]))
tensor([0., 0.])
""")

_ROUND = Op("round", lambda a, decimals=0: fnp.round(a, decimals), "RoundBackward1", None, True)
_SOFTMAX = Op("softmax", lambda a, dim=-1: nn.softmax(a, axis=dim), "SoftmaxBackward0", UF,
              True)
_LOG_SOFTMAX = Op("log_softmax", lambda a, dim=-1: nn.log_softmax(a, axis=dim),
                  "LogSoftmaxBackward0", UF, True)
_LOGSUMEXP = Op("logsumexp", lambda a, dim=None, keepdim=False: sp.logsumexp(
    a, axis=dim, keepdims=keepdim), "LogsumexpBackward0", UF, True)
def round(input: Tensor, *, decimals: int = 0) -> Tensor:
    """Round half to even, to ``decimals`` places.

    >>> import fad.torch as torch
    >>> torch.special.round(torch.tensor([0.5, 1.5, 1.26]), decimals=0)
    tensor([0., 2., 1.])
    """
    return apply(_ROUND, (input,), {"decimals": decimals})


def _with_dtype(input: Tensor, dtype: Any) -> Tensor:
    return input if dtype is None else input.to(dtype)


def softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim``.

    >>> import fad.torch as torch
    >>> torch.special.softmax(torch.zeros(2), 0)
    tensor([0.5000, 0.5000])
    """
    return apply(_SOFTMAX, (_with_dtype(input, dtype),), {"dim": dim})


def log_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """``log(softmax(x))`` along ``dim``, computed stably.

    >>> import fad.torch as torch
    >>> torch.special.log_softmax(torch.zeros(2), 0)
    tensor([-0.6931, -0.6931])
    """
    return apply(_LOG_SOFTMAX, (_with_dtype(input, dtype),), {"dim": dim})


def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """``log(sum(exp(x)))`` over ``dim``, computed stably.

    >>> import fad.torch as torch
    >>> torch.special.logsumexp(torch.zeros(2), 0)
    tensor(0.6931)
    """
    dim = tuple(dim) if isinstance(dim, (list, tuple)) else dim
    return apply(_LOGSUMEXP, (input,), {"dim": dim, "keepdim": keepdim})


accept_out_in(globals())  # (PyTorch's out= on every function)
