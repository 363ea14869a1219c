"""Operators and methods of ``Tensor``, bound to the ``torch.*`` functions (which
themselves run the operation table)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _dtype, cuda
from . import _functions as F
from ._creation import (
    _finish,
    _place,
    bernoulli,
    default_generator,
    empty_strided,
    full,
    multinomial,
    ones,
    tensor,
    zeros,
)
from ._graph import host
from ._warnings import warn_once
from .autograd import _sum_to
from .linalg import (
    _inverse,
    _pinverse,
    _torch_cholesky,
    _torch_qr,
    _torch_slogdet,
    _torch_svd,
    cholesky_inverse,
    cholesky_solve,
    det,
    logdet,
    matrix_exp,
    matrix_power,
)
from .tensor import Tensor

# methods whose signature is the function's with ``self`` as ``input``
_SAME = """diagonal diag diag_embed repeat_interleave tensor_split hsplit vsplit dsplit rot90
select quantile nanquantile
add sub subtract mul multiply div divide true_divide floor_divide remainder fmod pow
float_power maximum minimum fmax fmin atan2 arctan2 neg negative abs absolute sign sgn floor
ceil trunc fix frac exp exp2 expm1 log log2 log10 log1p sqrt rsqrt square reciprocal sin cos
tan asin arcsin acos arccos atan arctan sinh cosh tanh sigmoid erf erfc erfinv lgamma digamma relu
isnan isfinite isinf
logical_not logical_and logical_or logical_xor round clamp clip clamp_min clamp_max softmax
log_softmax eq ne not_equal lt less le less_equal gt greater ge greater_equal equal isclose
allclose sum nansum mean prod var std norm logsumexp amax amin max min argmax argmin all any
count_nonzero cumsum sort argsort topk reshape view view_as reshape_as flatten unflatten
squeeze unsqueeze permute transpose swapaxes swapdims t movedim moveaxis expand expand_as
broadcast_to repeat tile flip fliplr flipud roll split chunk unbind narrow index_select gather
take_along_dim masked_fill nonzero tril triu trace clone to type_as matmul mm bmm mv dot vdot
inner outer ger addmm baddbmm scatter scatter_add index_add diff kron histc bucketize conj
conj_physical resolve_conj is_conj bitwise_and bitwise_or bitwise_xor bitwise_not unique cross
index_put is_nonzero scatter_reduce median nanmedian kthvalue mode msort aminmax cummax cummin
cumprod logcumsumexp nanmean bitwise_left_shift bitwise_right_shift take masked_select argwhere
index_fill index_copy masked_scatter asinh arcsinh acosh arccosh atanh arctanh deg2rad
rad2deg i0 angle signbit isneginf isposinf isreal hypot logaddexp logaddexp2 copysign heaviside
ldexp nan_to_num positive lerp addcmul addcdiv ravel sinc logit xlogy diagflat
split_with_sizes select_scatter slice_scatter diagonal_scatter cov corrcoef dist isin bincount
unique_consecutive vander gcd lcm frexp addmv addr addbmm igamma igammac mvlgamma renorm
histogram index_reduce""".split()

# in-place variants ``x.add_(...)``: computed out of place, then stored into ``x``
# (cast to ``x``'s dtype, as PyTorch does for comparisons and logic)
_INPLACE = """add sub subtract mul multiply div divide true_divide floor_divide pow
clamp clip clamp_min clamp_max exp log log2 log10 sqrt abs absolute neg negative relu sigmoid
tanh sin cos tan asin arcsin acos arccos atan arctan atan2 arctan2 sinh cosh floor ceil round
trunc fix frac sign sgn reciprocal square masked_fill remainder fmod exp2 expm1 log1p rsqrt erf
erfc erfinv lgamma digamma cumsum tril triu addmm baddbmm scatter scatter_add index_add
scatter_reduce index_fill index_copy masked_scatter
eq ne not_equal lt less le less_equal gt
greater ge greater_equal logical_and logical_or logical_xor logical_not bitwise_and bitwise_or
bitwise_xor bitwise_not conj_physical cumprod asinh arcsinh acosh arccosh atanh arctanh deg2rad
rad2deg i0 hypot copysign heaviside ldexp nan_to_num lerp addcmul addcdiv
sinc logit xlogy gcd lcm addmv addr addbmm igamma igammac mvlgamma renorm bitwise_left_shift
bitwise_right_shift index_reduce""".split()

# the in-place methods PyTorch also offers as functions, ``torch.sin_(x)``
FUNCTIONAL_INPLACE = """abs acos arccos arcsin arctan asin atan ceil clamp clamp_max clamp_min
clip conj_physical cos cosh detach erf erfc exp exp2 expm1 fill fix floor frac index_put log10
log1p log2 log neg negative reciprocal relu round rsqrt sigmoid sin sinh sqrt square tan tanh
trunc zero asinh arcsinh acosh arccosh atanh arctanh deg2rad rad2deg i0 sinc logit
nan_to_num xlogy ldexp gcd lcm addmv as_strided""".split()

# in-place views ``x.t_()``: ``x`` takes the view's shape
_INPLACE_VIEWS = "t transpose swapaxes swapdims squeeze unsqueeze as_strided".split()


# the in-place writes PyTorch lets into an expanded tensor, with a warning
_INDEXED_WRITES = {"masked_fill": "masked_fill_", "index_fill": "index_fill_"}


def _inplace(name: str) -> Any:
    fn = getattr(F, name)
    write = _INDEXED_WRITES.get(name)

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return F.inplace(self, lambda s: fn(s, *args, **kwargs), write)
    method.__name__ = name + "_"
    method.__doc__ = f"In-place ``{name}``."
    return method


def _inplace_view(name: str) -> Any:
    fn = getattr(F, name)

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return F.inplace_view(self, lambda s: fn(s, *args, **kwargs))
    method.__name__ = name + "_"
    method.__doc__ = f"In-place ``{name}``: ``self`` takes the view's shape."
    return method


def _spectral(name: str) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        from . import _spectral as spectral  # (imported after the methods are bound)
        return getattr(spectral, name)(self, *args, **kwargs)
    method.__name__ = name
    return method


def _legacy_new(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``x.new(...)``, the legacy constructor: ``x.new(2, 3)`` (or a size) is an
    uninitialised tensor, ``x.new(data)`` a tensor of ``data``, both of ``x``'s
    dtype."""
    if len(args) == 1 and not isinstance(args[0], int | tuple) and \
            not type(args[0]).__name__ == "Size":
        return tensor(args[0], dtype=self.dtype)
    return _new("empty")(self, *args, **kwargs) if args else _new("empty")(self, 0)


def _is_signed(self: Tensor) -> bool:
    """Whether the dtype holds negative numbers (every one but ``uint8`` and ``bool``)."""
    return self.dtype.np.kind not in "ub"


def _functional() -> Any:
    from .nn import functional  # (fad.torch.nn is imported after the methods are bound)
    return functional


def _empty_strided(self: Tensor, size: Any, stride: Any, **kw: Any) -> Tensor:
    kw.setdefault("dtype", self.dtype)
    return empty_strided(size, stride, **kw)


def _resize_(self: Tensor, *sizes: Any) -> Tensor:
    """``self`` with another shape, keeping its first elements in row-major order
    (new ones are zeros; PyTorch leaves them uninitialised). Refused for a tensor
    that requires grad, as PyTorch's."""
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    shape = F._shape(sizes)
    flat = host(self._value).reshape(-1)
    n = int(np.prod(shape))
    new = np.zeros(n, flat.dtype)
    new[:min(n, flat.size)] = flat[:n]
    self._value = _place(new.reshape(shape))
    self._vc[0] += 1
    return self


def _put(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """``self`` (a copy) with ``source`` at the flat (row-major) positions ``index``
    (added there with ``accumulate``)."""
    flat = self.reshape(-1)
    return flat.index_put((index.reshape(-1),), source.reshape(-1), accumulate).reshape(
        self.shape)


def _share_memory_(self: Tensor) -> Tensor:
    self.__dict__["_shared"] = True  # (one process: the memory is already the caller's)
    return self


def _float_power_(self: Tensor, exponent: Any) -> Tensor:
    if self.dtype.name not in ("float64", "complex128"):
        word = _dtype.type_word(self.dtype)
        raise RuntimeError(f"the base given to float_power_ has dtype {word} but the "
                           "operation's result requires dtype Double")
    return F.inplace(self, lambda s: F.float_power(s, exponent))


def _iop(fn: Any) -> Any:
    def method(self: Tensor, other: Any) -> Tensor:
        return F.inplace(self, lambda s: fn(s, other))
    return method


def _zero_(self: Tensor) -> Tensor:
    return F.inplace(self, lambda s: F.call("zero", s), "fill")


def _fill_(self: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        value = value.item()
    return F.inplace(self, lambda s: F.call("fill", s, value=value), "fill")


def _copy_(self: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    if not isinstance(src, Tensor):
        src = F._t(src)
    np_dt = self.dtype.np
    return F.inplace(self, lambda s: F.call("copy", s, src, dtype=np_dt))


def _random_(draw: Any) -> Any:
    def method(self: Tensor, *args: Any, generator: Any = None) -> Tensor:
        rng = (generator or default_generator).rng
        shape = tuple(self.shape)
        value = np.asarray(draw(rng, shape, *args)).astype(self.dtype.np)
        return F.inplace(self, lambda s: _finish(_place(value), False))
    return method


def _new(kind: str) -> Any:
    def method(self: Tensor, *args: Any, dtype: Any = None, device: Any = None,
               requires_grad: bool = False, **_: Any) -> Tensor:
        dtype = self.dtype if dtype is None else dtype
        if kind == "full":
            size, value = args
            return full(size, value, dtype=dtype, requires_grad=requires_grad)
        if kind == "tensor":
            return tensor(args[0], dtype=dtype, requires_grad=requires_grad)
        maker = zeros if kind in ("zeros", "empty") else ones
        return maker(*args, dtype=dtype, requires_grad=requires_grad)
    return method


def _cast(dt: _dtype.dtype) -> Any:
    def method(self: Tensor, memory_format: Any = None) -> Tensor:
        return F.to(self, dt)
    return method


def _where(self: Tensor, condition: Tensor, y: Any) -> Tensor:
    return F.where(condition, self, y)


def _T(self: Tensor) -> Tensor:
    """``x.T``: the dimensions reversed (deprecated by PyTorch but for matrices)."""
    d = self.dim()
    if d == 0:
        warn_once("Tensor.T is deprecated on 0-D tensors. This function is the identity in "
                  "these cases.")
    elif d != 2:
        warn_once("The use of `x.T` on tensors of dimension other than 2 to reverse their "
                  "shape is deprecated and it will throw an error in a future release. "
                  "Consider `x.mT` to transpose batches of matrices or "
                  "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions "
                  "of a tensor.")
    return F.call("permute", self, dims=tuple(range(d))[::-1])


def _matrix_transpose(self: Tensor, name: str, conjugate: bool) -> Tensor:
    """``x.mT``, ``x.mH`` and ``x.adjoint()`` (``name``): the last two dimensions
    swapped, conjugated for ``mH`` and ``adjoint`` (a real tensor's is the transpose)."""
    d = self.dim()
    if d == 0:
        warn_once(f"{'Tensor.' if name[0] == 'm' else ''}{name} is deprecated on 0-D tensors. "
                  + ("Consider using x.conj()." if conjugate else
                     "This function is the identity in these cases."))
        out = self
    elif d == 1:
        raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of "
                           "matrices. Got 1-D tensor.")
    else:
        out = F.transpose(self, -2, -1)
    return F.conj(out) if conjugate and out.is_complex() else out


def _H(self: Tensor) -> Tensor:
    """``x.H``: the conjugate transpose of a matrix."""
    d = self.dim()
    if d == 0:
        warn_once("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().")
        return F.conj(self) if self.is_complex() else self
    if d != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {d}-D "
                           "tensor." + (" For batches of matrices, consider using tensor.mH"
                                        if d > 2 else ""))
    return _matrix_transpose(self, "mH", True)


def adjoint(input: Tensor) -> Tensor:
    """The conjugate transpose of a matrix or of each matrix of a batch (a view).

    >>> import fad.torch as torch
    >>> torch.adjoint(torch.tensor([[1 + 2j, 3 - 1j]]))
    tensor([[1.-2.j],
            [3.+1.j]])
    """
    return _matrix_transpose(input, "adjoint()", True)


def _mT(self: Tensor) -> Tensor:
    return _matrix_transpose(self, "mT", False)


def _mH(self: Tensor) -> Tensor:
    return _matrix_transpose(self, "mH", True)


def _rtruediv(self: Tensor, other: Any) -> Tensor:
    return F.mul(F.reciprocal(self), other)


def _rfloordiv(self: Tensor, other: Any) -> Tensor:
    if not isinstance(other, int | float):
        return F.floor_divide(F._t(other), self)
    return F.floor_divide(other, self)


def _rmod(self: Tensor, other: Any) -> Tensor:
    return F.remainder(other, self)


def _unary_bool(name: str) -> Any:
    def method(self: Tensor, other: Any = None) -> Tensor:
        if other is None:
            return F.logical_not(self)
        return getattr(F, name)(self, other)
    return method


def _invert(self: Tensor) -> Tensor:
    if self.dtype.np.kind not in "biu":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return F.bitwise_not(self)


def _contiguous(self: Tensor, memory_format: Any = None) -> Tensor:
    """``self`` if its memory is in row-major order, else a recorded copy that is.

    >>> import fad.torch as torch
    >>> torch.ones(2, 3).t().contiguous().is_contiguous()
    True
    """
    if self.is_contiguous():
        return self
    out = F.clone(self)
    out._value = np.ascontiguousarray(out._value)  # (same values: only the layout changes)
    return out


def _pin_memory(self: Tensor, device: Any = None) -> Tensor:
    """``self`` (page-locked memory matters to an accelerator only; PyTorch's error
    without one)."""
    if not cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return self


METHODS: dict[str, Any] = {name: getattr(F, name) for name in _SAME}
METHODS.update({name + "_": _inplace(name) for name in _INPLACE})
METHODS.update({name + "_": _inplace_view(name) for name in _INPLACE_VIEWS})
METHODS.update({
    "__add__": F.add, "__radd__": F.add, "__iadd__": _iop(F.add),
    "__sub__": F.sub, "__rsub__": F.rsub, "__isub__": _iop(F.sub),
    "__mul__": F.mul, "__rmul__": F.mul, "__imul__": _iop(F.mul),
    "__truediv__": F.div, "__rtruediv__": _rtruediv, "__itruediv__": _iop(F.div),
    "__floordiv__": F.floor_divide, "__rfloordiv__": _rfloordiv,
    "__ifloordiv__": _iop(F.floor_divide),
    "__mod__": F.remainder, "__rmod__": _rmod, "__imod__": _iop(F.remainder),
    "__pow__": F.pow, "__rpow__": F.rpow, "__ipow__": _iop(F.pow),
    "__matmul__": F.matmul, "__rmatmul__": lambda self, other: F.matmul(other, self),
    "__neg__": F.neg, "__pos__": lambda self: self, "__abs__": F.abs,
    "__invert__": _invert,
    "__lshift__": F.bitwise_left_shift, "__rshift__": F.bitwise_right_shift,
    "__rlshift__": lambda self, other: F.bitwise_left_shift(other, self),
    "__rrshift__": lambda self, other: F.bitwise_right_shift(other, self),
    "__ilshift__": _iop(F.bitwise_left_shift), "__irshift__": _iop(F.bitwise_right_shift),
    "__and__": F.bitwise_and, "__rand__": F.bitwise_and, "__iand__": _iop(F.bitwise_and),
    "__or__": F.bitwise_or, "__ror__": F.bitwise_or, "__ior__": _iop(F.bitwise_or),
    "__xor__": F.bitwise_xor, "__rxor__": F.bitwise_xor, "__ixor__": _iop(F.bitwise_xor),
    "__eq__": F.eq, "__ne__": F.ne, "__lt__": F.lt, "__le__": F.le, "__gt__": F.gt,
    "__ge__": F.ge,
    "__getitem__": F.getitem, "__setitem__": F.setitem,
    "zero_": _zero_, "fill_": _fill_, "copy_": _copy_, "float_power_": _float_power_,
    "uniform_": _random_(lambda r, s, a=0.0, b=1.0: r.uniform(a, b, s)),
    "normal_": _random_(lambda r, s, mean=0.0, std=1.0: r.normal(mean, std, s)),
    "bernoulli_": _random_(lambda r, s, p=0.5: r.random(s) < p),
    "random_": _random_(lambda r, s, lo=0, hi=2 ** 24: r.integers(lo, hi, s)),
    "exponential_": _random_(lambda r, s, lambd=1.0: r.exponential(1.0 / lambd, s)),
    "index_put_": lambda self, indices, values, accumulate=False: F.inplace(
        self, lambda s: F.index_put(s, indices, values, accumulate), "index_put_"),
    "new_zeros": _new("zeros"), "new_ones": _new("ones"), "new_empty": _new("empty"),
    "new_full": _new("full"), "new_tensor": _new("tensor"),
    "float": _cast(_dtype.float32), "double": _cast(_dtype.float64),
    "half": _cast(_dtype.float16), "long": _cast(_dtype.int64), "int": _cast(_dtype.int32),
    "short": _cast(_dtype.int16), "char": _cast(_dtype.int8), "byte": _cast(_dtype.uint8),
    "bool": _cast(_dtype.bool), "cfloat": _cast(_dtype.complex64),
    "contiguous": _contiguous,
    "where": _where,
    "T": property(_T), "mT": property(_mT), "H": property(_H), "mH": property(_mH),
    "adjoint": adjoint,
    "real": property(F.real), "imag": property(F.imag),
    "dim_order": lambda self: tuple(range(self.dim())),
    "sum_to_size": lambda self, *size: _sum_to_size(self, F._shape(size)),
    "apply_": lambda self, fn: F.inplace(self, lambda s: _apply_py(s, fn)),
    "map_": lambda self, tensor, callable: F.inplace(
        self, lambda s: _apply_py(s, callable, tensor)),
    "resize_": _resize_, "resize_as_": lambda self, other, **_: _resize_(self, other.shape),
    "put": _put, "put_": lambda self, index, source, accumulate=False: F.inplace(
        self, lambda s: _put(s, index, source, accumulate)),
    "share_memory_": _share_memory_, "is_shared": lambda self: "_shared" in self.__dict__,
    "det": det, "inverse": _inverse, "logdet": logdet, "slogdet": _torch_slogdet,
    "pinverse": _pinverse, "matrix_power": matrix_power, "matrix_exp": matrix_exp,
    "cholesky": _torch_cholesky, "qr": _torch_qr, "cholesky_solve": cholesky_solve,
    "cholesky_inverse": cholesky_inverse,
    "polygamma": lambda self, n: F.polygamma(n, self),
    "polygamma_": lambda self, n: F.inplace(self, lambda s: F.polygamma(n, s)),
    "hardshrink": lambda self, lambd=0.5: _functional().hardshrink(self, lambd),
    "prelu": lambda self, weight: _functional().prelu(self, weight),
    "is_neg": lambda self: False, "resolve_neg": lambda self: self,
    "cdouble": _cast(_dtype.complex128), "layout": property(lambda self: "torch.strided"),
    "new_empty_strided": _empty_strided,
    "svd": _torch_svd, "multinomial": multinomial,
    "fill_diagonal_": F.matrices.fill_diagonal_, "is_signed": _is_signed,
    "is_inference": lambda self: False,
    "is_same_size": lambda self, other: self.shape == other.shape,
    "nbytes": property(lambda self: self.numel() * self.element_size()),
    "itemsize": property(lambda self: self.element_size()),
    "bernoulli": bernoulli, "pin_memory": _pin_memory,
    "is_pinned": lambda self, device=None: False, "unfold": F.strided.unfold_windows,
    "as_strided": F.as_strided, "storage_offset": F.strided.storage_offset,
    "untyped_storage": F.strided.untyped_storage, "storage": F.strided.typed_storage,
    "new": _legacy_new, "stft": _spectral("stft"), "istft": _spectral("istft"),
})


def _sum_to_size(self: Tensor, shape: tuple) -> Tensor:
    return _sum_to(self, shape, "sum_to_size", 0)


def _apply_py(t: Tensor, fn: Any, other: Tensor | None = None) -> Tensor:
    """``fn`` of each element (and of ``other``'s, broadcast), in Python."""
    a = host(t._value)
    args = (a,) if other is None else (a, np.broadcast_to(host(other._value), a.shape))
    out = np.vectorize(fn, otypes=[a.dtype])(*args) if a.size else a.copy()
    return _finish(_place(out), False)


def install(namespace: dict) -> None:
    """Bind the methods to ``Tensor`` and the functional in-place forms
    (``torch.sin_``) into ``namespace``."""
    for name, fn in METHODS.items():
        setattr(Tensor, name, fn)
    for name in FUNCTIONAL_INPLACE:
        namespace[name + "_"] = getattr(Tensor, name + "_")
    namespace["adjoint"] = adjoint
    namespace["is_neg"], namespace["resolve_neg"] = Tensor.is_neg, Tensor.resolve_neg
