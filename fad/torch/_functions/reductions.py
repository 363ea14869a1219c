"""Reductions (``sum``, ``mean``, ``var``, ``max`` along ``dim``...) and sorting."""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

from ... import numpy as fnp
from .. import _dtype
from .._creation import zeros
from .._dtype import type_word
from .._ops import OPS, call
from .._recorder import Op, apply
from ..tensor import Tensor, _wrap_dim, wrap
from ._common import _dim_param, _dims, exported
from .arithmetic import maximum, minimum, ne
from .conversions import to
from .shapes import reshape


def _int64_if_integer(input: Tensor) -> Tensor:
    """``input`` in int64 if it holds integers or booleans: PyTorch's sums and
    products of them are int64 (NumPy's of unsigned integers are uint64, which
    the facade does not have)."""
    return to(input, _dtype.int64) if input.dtype.np.kind in "bui" else input


def sum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    if dim is None and dtype is None and not keepdim and type(input) is Tensor and \
            type(input._value) is np.ndarray and input._value.dtype.kind in "fc":
        return apply(_SUM, (input,))  # (the common case: the whole of a float tensor)
    d = _dim_param(dim, input.dim())
    dt = None if dtype is None else _dtype.np_dtype(dtype)
    if dt is None and input.dtype.np.kind in "bu":  # PyTorch: int64 (NumPy: uint64)
        dt = _dtype.int64.np
    if d is None and dim is None:
        if dt is None and not keepdim:
            return apply(_SUM, (input,))
        return call("sum", input, keepdim=keepdim, dtype=dt)
    return call("sum_dim", input, dim=d, keepdim=keepdim, dtype=dt)


_SUM = OPS["sum"]


def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
           ) -> Tensor:
    input = to(input, dtype) if dtype is not None else _int64_if_integer(input)
    return _as(call("nansum", input, dim=_dim_param(dim, input.dim()), keepdim=keepdim),
               dtype)


def mean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
         ) -> Tensor:
    dt = input.dtype if dtype is None else _dtype.as_dtype(dtype)
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either "
                           "a floating point or complex dtype. Got: "
                           f"{type_word(dt)}")
    d = _dim_param(dim, input.dim())
    dtp = None if dtype is None else dt.np
    if dim is None:
        return call("mean", input, keepdim=keepdim, dtype=dtp)
    return call("mean_dim", input, dim=d, keepdim=keepdim, dtype=dtp)


def prod(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
         ) -> Tensor:
    input = to(input, dtype) if dtype is not None else _int64_if_integer(input)
    if dim is None:
        return _as(call("prod", input), dtype)
    return _as(call("prod_dim", input, dim=_wrap_dim(dim, input.dim()), keepdim=keepdim),
               dtype)


def _as(out: Tensor, dtype: Any) -> Tensor:
    """``out`` in the ``dtype`` asked for (NumPy's products and sums of small integers
    are int64)."""
    return out if dtype is None else to(out, dtype)


def _correction(unbiased: Any, correction: Any) -> float:
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def _spread(name: str) -> Any:
    """``var`` / ``std``: ``unbiased`` (also as the second positional argument) or
    ``correction``."""
    def fn(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
           correction: Any = None) -> Tensor:
        if isinstance(dim, bool):
            dim, unbiased = None, dim
        _floating_spread("std and var", input)
        return call(name, input, dim=_dim_param(dim, input.dim()),
                    correction=_correction(unbiased, correction), keepdim=keepdim)
    fn.__name__ = fn.__qualname__ = name
    return fn


var = _spread("var")
std = _spread("std")


def _floating_spread(name: str, input: Tensor) -> None:
    if input.dtype.np.kind not in "fc":
        raise RuntimeError(f"{name} only support floating point and complex dtypes")


def var_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False,
             *, correction: Any = None) -> tuple:
    _floating_spread("var_mean", input)
    return (var(input, dim, unbiased, keepdim, correction=correction),
            mean(input, dim, keepdim))


def std_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False,
             *, correction: Any = None) -> tuple:
    _floating_spread("std_mean", input)
    return (std(input, dim, unbiased, keepdim, correction=correction),
            mean(input, dim, keepdim))


def norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False,
         dtype: Any = None) -> Tensor:
    if input.dtype.np.kind not in "fc":
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor "
                           f"as input. Got {type_word(input.dtype)}")
    if dtype is not None:
        input = to(input, dtype)
    if isinstance(p, str) and p not in ("fro", "inf"):
        raise NotImplementedError(f"norm with p={p!r} is not supported")
    out = call("norm", input, p=p, dim=_dim_param(dim, input.dim()), keepdim=keepdim)
    return to(out, input.dtype.to_real()) if input.dtype.name == "float16" else out


def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    return call("logsumexp", input, dim=_dims(dim, input.dim()), keepdim=keepdim)


def amax(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    return call("amax", input, dim=_dim_param(dim, input.dim()), keepdim=keepdim)


def amin(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    return call("amin", input, dim=_dim_param(dim, input.dim()), keepdim=keepdim)


_max_result = collections.namedtuple("max", ["values", "indices"])
_min_result = collections.namedtuple("min", ["values", "indices"])
_sort_result = collections.namedtuple("sort", ["values", "indices"])
_topk_result = collections.namedtuple("topk", ["values", "indices"])


def _empty_check(input: Tensor, name: str) -> None:
    if input.numel() == 0:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                           "input.numel() == 0. Specify the reduction dim with the 'dim' "
                           "argument.")


def _extremum(name: str, elementwise: Any, result: Any) -> Any:
    """``torch.max`` / ``torch.min``: of all elements, along ``dim`` (values and
    indices), or elementwise against a second tensor."""
    def fn(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
        if isinstance(dim, Tensor):
            return elementwise(input, dim)
        if dim is None:
            _empty_check(input, name)
            return call(name, input)
        v, i = call(f"{name}_dim", input, dim=_wrap_dim(dim, input.dim()), keepdim=keepdim)
        return result(v, i)
    fn.__name__ = fn.__qualname__ = name
    return fn


max = _extremum("max", maximum, _max_result)
min = _extremum("min", minimum, _min_result)


def _arg_extremum(name: str) -> Any:
    """``argmax`` / ``argmin``: of the flattened input, or along ``dim``."""
    def fn(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
        if input.dtype.np.kind == "b":
            raise RuntimeError(f"{name}(): does not support bool input")
        if dim is None:
            out = call(name, input)
            return reshape(out, (1,) * input.dim()) if keepdim else out
        return call(name, input, dim=_wrap_dim(dim, input.dim()), keepdim=keepdim)
    fn.__name__ = fn.__qualname__ = name
    return fn


argmax = _arg_extremum("argmax")
argmin = _arg_extremum("argmin")


def all(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    out = ne(input, 0) if dim == () else \
        call("all", input, dim=_dim_param(dim, input.dim()), keepdim=keepdim)
    return to(out, _dtype.uint8) if input.dtype.name == "uint8" else out  # (as PyTorch)


def any(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    out = ne(input, 0) if dim == () else \
        call("any", input, dim=_dim_param(dim, input.dim()), keepdim=keepdim)
    return to(out, _dtype.uint8) if input.dtype.name == "uint8" else out


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    return sum(ne(input, 0), dim)


def cumsum(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    input = to(input, dtype) if dtype is not None else _int64_if_integer(input)
    return _as(call("cumsum", input, dim=_wrap_dim(dim, input.dim())), dtype)


def _argsort_array(v: Any, dim: int, descending: bool) -> Any:
    """The stable sorting permutation of ``v`` along ``dim``, or ``[0]`` for a 0-d
    ``v``. Descending, as PyTorch's: largest first (NaN first), equal values in
    their original order, for every dtype (bool and unsigned too): the ascending
    permutation of ``v`` reversed along ``dim``, read backwards."""
    if not descending or not v.ndim:
        return fnp.argsort(v, axis=dim if v.ndim else None)
    backwards = fnp.argsort(fnp.flip(v, axis=dim), axis=dim)
    return (v.shape[dim] - 1) - fnp.flip(backwards, axis=dim)


def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Any:
    if input.dim() == 0:
        return _sort_result(input * 1, zeros_like_int(input))
    dim = _wrap_dim(dim, input.dim())
    idx = wrap(_argsort_array(input._value, dim, descending))
    return _sort_result(_named("SortBackward0", input, dim, idx), idx)


def _named(grad_name: str, input: Tensor, dim: int, idx: Tensor) -> Tensor:
    op = _GATHERS.get(grad_name)
    if op is None:
        op = _GATHERS[grad_name] = Op(grad_name, OPS["gather"].fun, grad_name, None, True)
    return apply(op, (input,), {"dim": dim, "index": idx._value})


_GATHERS: dict = {}


def zeros_like_int(input: Tensor) -> Tensor:
    return zeros(tuple(input.shape), dtype=_dtype.int64)


def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False
            ) -> Tensor:
    if input.dim() == 0:
        return zeros_like_int(input)
    return wrap(_argsort_array(input._value, _wrap_dim(dim, input.dim()), descending))


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True
         ) -> Any:
    if input.dtype.np.kind == "b":
        raise RuntimeError("topk does not support bool dtypes on CPU")
    if input.dim() == 0:  # (one element: k is 0 or 1, and both give it)
        if k not in (0, 1):
            raise RuntimeError("selected index k out of range")
        return _topk_result(_named("TopkBackward0", input, 0, zeros_like_int(input)),
                            zeros_like_int(input))
    if not 0 <= k <= (input.shape[_wrap_dim(dim, input.dim())] if input.dim() else 1):
        raise RuntimeError("selected index k out of range")
    dim = _wrap_dim(dim, input.dim())
    idx = _argsort_array(input._value, dim, largest)
    idx = wrap(idx).narrow(dim, 0, k)
    return _topk_result(_named("TopkBackward0", input, dim, idx), idx)


def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:
    """Counts of ``input`` in ``bins`` equal bins over ``[min, max]`` (both 0: the
    data's range, widened by 1 each way when it is one value), elements outside
    ignored; the input's dtype; no derivative.

    >>> import fad.torch as torch
    >>> torch.histc(torch.tensor([1.0, 2.0, 2.5, 7.0]), bins=3)
    tensor([3., 0., 1.])
    """
    if not input.is_floating_point():
        word = type_word(input.dtype)
        raise NotImplementedError(f'"histogram_cpu" not implemented for \'{word}\'')
    if bins <= 0:
        raise RuntimeError(f"torch.histc: bins must be > 0, but got {bins} for dimension 0")
    low, high = float(min), float(max)
    if low == high and input.numel():
        low, high = float(input.min()), float(input.max())
    if low == high:
        low, high = low - 1, high + 1
    if low > high:
        raise RuntimeError(f"torch.histc: max must be larger than min, but got min {low} "
                           f"max {high}")
    return call("histc", input.detach(), bins=int(bins), low=low, high=high)


__all__ = exported(globals())
