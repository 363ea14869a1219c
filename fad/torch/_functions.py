"""``torch.*`` functions and ``Tensor`` methods: PyTorch's argument conventions
(``dim``, ``keepdim``, ``*sizes``...) mapped onto the operation table."""

from __future__ import annotations

import builtins
import collections
import math
import warnings
from typing import Any, Sequence

import numpy as np

from . import _dtype
from ._dtype import array_np_dtype
from ._grad_mode import GRAD_ENABLED
from ._graph import rebind_saved_output
from ._ops import OPS, call
from ._recorder import _aliasing, _broadcast_message, apply
from .tensor import Tensor, _wrap_dim, live_aliases, wrap

_PYS = (bool, int, float, complex)
_ADD, _SUB, _MUL, _DIV = OPS["add"], OPS["sub"], OPS["mul"], OPS["div"]


def _t(x: Any) -> Tensor:
    if isinstance(x, Tensor):
        return x
    from ._creation import tensor
    return tensor(x)


def _dims(dim: Any, ndim: int) -> tuple:
    if isinstance(dim, int | np.integer):
        return (_wrap_dim(int(dim), ndim),)
    return tuple(_wrap_dim(int(d), ndim) for d in dim)


def _dim_param(dim: Any, ndim: int) -> Any:
    """A normalised ``dim`` for reductions: ``None``, an int or a tuple."""
    if dim is None:
        return None
    if isinstance(dim, int | np.integer):
        return _wrap_dim(int(dim), ndim)
    d = _dims(dim, ndim)
    return d if d else None


def _shape(args: tuple) -> tuple:
    if len(args) == 1 and isinstance(args[0], Sequence | np.ndarray | Tensor):
        args = tuple(args[0])
    return tuple(int(a) for a in args)


def _float_if_int(x: Tensor, scalar: Any) -> Tensor:
    if isinstance(scalar, float) and x.dtype.np.kind not in "fc":
        return to(x, _dtype.get_default_dtype())
    return x


# ------------------------------------------------------------------ arithmetic
def add(input: Any, other: Any, *, alpha: Any = 1, out: Any = None) -> Tensor:
    if out is not None:
        return into("add", out, (input, other), lambda: add(input, other, alpha=alpha))
    if alpha == 1:
        return apply(_ADD, (input, other))
    return apply(_ADD, (input, other), {"alpha": alpha})


def sub(input: Any, other: Any, *, alpha: Any = 1, out: Any = None) -> Tensor:
    if out is not None:
        return into("sub", out, (input, other), lambda: sub(input, other, alpha=alpha))
    if alpha == 1:
        return apply(_SUB, (input, other))
    return apply(_SUB, (input, other), {"alpha": alpha})


subtract = sub


def rsub(input: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    if isinstance(other, Tensor) or isinstance(other, np.ndarray):
        return call("rsub_t", input, other, alpha=alpha)
    input = _float_if_int(input, other)
    return call("rsub", input, other=other, alpha=alpha)


def mul(input: Any, other: Any, *, out: Any = None) -> Tensor:
    if out is not None:
        return into("mul", out, (input, other), lambda: mul(input, other))
    return apply(_MUL, (input, other))


multiply = mul


def div(input: Any, other: Any, *, rounding_mode: str | None = None, out: Any = None
        ) -> Tensor:
    if out is not None:
        return into("div", out, (input, other),
                    lambda: div(input, other, rounding_mode=rounding_mode))
    if rounding_mode is None:
        return apply(_DIV, (input, other))
    if rounding_mode == "floor":
        return call("floor_divide", input, other)
    if rounding_mode == "trunc":
        r = trunc(apply(_DIV, (input, other)))
        ints = builtins.all(isinstance(x, int) or isinstance(x, Tensor) and
                            x.dtype.np.kind in "biu" for x in (input, other))
        return to(r, _dtype.int64) if ints else r
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                       f"but found '{rounding_mode}'")


divide = true_divide = div


def floor_divide(input: Any, other: Any) -> Tensor:
    return call("floor_divide", input, other)


def remainder(input: Any, other: Any) -> Tensor:
    return call("remainder", input, other)


def fmod(input: Any, other: Any) -> Tensor:
    """C's remainder (the sign of ``input``); integer in, integer out."""
    return sub(input, mul(div(input, other, rounding_mode="trunc"), other))


def pow(input: Any, exponent: Any) -> Tensor:
    if not isinstance(input, Tensor):
        return rpow(exponent, input)
    if isinstance(exponent, Tensor):
        return call("pow", input, exponent)
    return call("pow_scalar", _float_if_int(input, exponent), exponent=exponent)


def rpow(input: Tensor, base: Any) -> Tensor:
    return call("rpow", _float_if_int(input, base), base=base)


def float_power(input: Any, exponent: Any) -> Tensor:
    return pow(to(_t(input), _dtype.float64), exponent)


def maximum(input: Tensor, other: Tensor) -> Tensor:
    return call("maximum", input, other)


def minimum(input: Tensor, other: Tensor) -> Tensor:
    return call("minimum", input, other)


fmax, fmin = maximum, minimum


def atan2(input: Tensor, other: Tensor) -> Tensor:
    return call("atan2", input, other)


arctan2 = atan2


def _unary(name: str) -> Any:
    op = OPS[name]

    def fn(input: Tensor, *, out: Any = None) -> Tensor:
        if out is not None:
            return into(name, out, (input,), lambda: apply(op, (input,)))
        return apply(op, (input,))
    fn.__name__ = name
    fn.__doc__ = f"Elementwise ``{name}`` (``grad_fn`` {op.grad_fn})."
    return fn


neg = negative = _unary("neg")
abs = absolute = _unary("abs")
sign = sgn = _unary("sign")
floor = _unary("floor")
ceil = _unary("ceil")
trunc = fix = _unary("trunc")
frac = _unary("frac")
exp = _unary("exp")
exp2 = _unary("exp2")
expm1 = _unary("expm1")
log = _unary("log")
log2 = _unary("log2")
log10 = _unary("log10")
log1p = _unary("log1p")
sqrt = _unary("sqrt")
rsqrt = _unary("rsqrt")
square = _unary("square")
reciprocal = _unary("reciprocal")
sin = _unary("sin")
cos = _unary("cos")
tan = _unary("tan")
asin = arcsin = _unary("asin")
acos = arccos = _unary("acos")
atan = arctan = _unary("atan")
sinh = _unary("sinh")
cosh = _unary("cosh")
tanh = _unary("tanh")
sigmoid = _unary("sigmoid")
erf = _unary("erf")
relu = _unary("relu")
isnan = _unary("isnan")
isfinite = _unary("isfinite")
isinf = _unary("isinf")
logical_not = _unary("logical_not")


def round(input: Tensor, *, decimals: int = 0) -> Tensor:
    if decimals:
        scale = 10.0 ** decimals
        return div(call("round", mul(input, scale)), scale)
    return call("round", input)


def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        lo = min._value if isinstance(min, Tensor) else min
        hi = max._value if isinstance(max, Tensor) else max
        return call("clamp_t", input, min=lo, max=hi)
    return call("clamp", input, min=min, max=max)


clip = clamp


def clamp_min(input: Tensor, min: Any) -> Tensor:
    if isinstance(min, Tensor):
        return clamp(input, min=min)
    return call("clamp_min", input, min=min)


def clamp_max(input: Tensor, max: Any) -> Tensor:
    if isinstance(max, Tensor):
        return clamp(input, max=max)
    return call("clamp_max", input, max=max)


def softmax(input: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:
    if dtype is not None:
        input = to(input, dtype)
    if dim is None:
        dim = 0 if input.dim() in (0, 1, 3) else 1
    return call("softmax", input, dim=_wrap_dim(dim, input.dim()))


def log_softmax(input: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:
    if dtype is not None:
        input = to(input, dtype)
    if dim is None:
        dim = 0 if input.dim() in (0, 1, 3) else 1
    return call("log_softmax", input, dim=_wrap_dim(dim, input.dim()))


# ------------------------------------------------------------------ comparisons
def _cmp(name: str) -> Any:
    op = OPS[name]

    def fn(input: Any, other: Any) -> Tensor:
        if other is None:
            return NotImplemented
        return apply(op, (input, other))
    fn.__name__ = name
    return fn


eq = _cmp("eq")
ne = not_equal = _cmp("ne")
lt = less = _cmp("lt")
le = less_equal = _cmp("le")
gt = greater = _cmp("gt")
ge = greater_equal = _cmp("ge")


def logical_and(input: Tensor, other: Tensor) -> Tensor:
    return call("logical_and", input, other)


def logical_or(input: Tensor, other: Tensor) -> Tensor:
    return call("logical_or", input, other)


def logical_xor(input: Tensor, other: Tensor) -> Tensor:
    return call("logical_xor", input, other)


def equal(input: Tensor, other: Tensor) -> bool:
    a, b = _t(input), _t(other)
    return a.shape == b.shape and bool(eq(a, b).all().item())


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    a, b = _t(input).detach(), _t(other).detach()
    close = le(abs(sub(a, b)), add(mul(abs(b), rtol), atol))
    if equal_nan:
        close = logical_or(close, logical_and(isnan(a), isnan(b)))
    return close


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    return bool(isclose(input, other, rtol, atol, equal_nan).all().item())


# ------------------------------------------------------------------ reductions
def sum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    d = _dim_param(dim, input.dim())
    dt = None if dtype is None else _dtype.np_dtype(dtype)
    if d is None and dim is None:
        if dt is None and not keepdim:
            return apply(_SUM, (input,))
        return call("sum", input, keepdim=keepdim, dtype=dt)
    return call("sum_dim", input, dim=d, keepdim=keepdim, dtype=dt)


_SUM = OPS["sum"]


def nansum(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    return call("nansum", input, dim=_dim_param(dim, input.dim()), keepdim=keepdim)


def mean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
         ) -> Tensor:
    dt = input.dtype if dtype is None else _dtype.as_dtype(dtype)
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either "
                           "a floating point or complex dtype. Got: "
                           f"{_type_word(dt)}")
    d = _dim_param(dim, input.dim())
    dtp = None if dtype is None else dt.np
    if dim is None:
        return call("mean", input, keepdim=keepdim, dtype=dtp)
    return call("mean_dim", input, dim=d, keepdim=keepdim, dtype=dtp)


def _type_word(dt: _dtype.dtype) -> str:
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool"}.get(dt.name, dt.name)


def prod(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
         ) -> Tensor:
    if dtype is not None:
        input = to(input, dtype)
    if dim is None:
        return call("prod", input)
    return call("prod_dim", input, dim=_wrap_dim(dim, input.dim()), keepdim=keepdim)


def _correction(unbiased: Any, correction: Any) -> float:
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def var(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    return call("var", input, dim=_dim_param(dim, input.dim()),
                correction=_correction(unbiased, correction), keepdim=keepdim)


def std(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    return call("std", input, dim=_dim_param(dim, input.dim()),
                correction=_correction(unbiased, correction), keepdim=keepdim)


def var_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False,
             *, correction: Any = None) -> tuple:
    return (var(input, dim, unbiased, keepdim, correction=correction),
            mean(input, dim, keepdim))


def std_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False,
             *, correction: Any = None) -> tuple:
    return (std(input, dim, unbiased, keepdim, correction=correction),
            mean(input, dim, keepdim))


def norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False,
         dtype: Any = None) -> Tensor:
    if dtype is not None:
        input = to(input, dtype)
    if isinstance(p, str) and p not in ("fro", "inf"):
        raise NotImplementedError(f"norm with p={p!r} is not supported")
    return call("norm", input, p=p, dim=_dim_param(dim, input.dim()), keepdim=keepdim)


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


def argmax(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    if dim is None:
        out = call("argmax", input)
        return reshape(out, (1,) * input.dim()) if keepdim else out
    return call("argmax", input, dim=_wrap_dim(dim, input.dim()), keepdim=keepdim)


def argmin(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    if dim is None:
        out = call("argmin", input)
        return reshape(out, (1,) * input.dim()) if keepdim else out
    return call("argmin", input, dim=_wrap_dim(dim, input.dim()), keepdim=keepdim)


def all(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    return call("all", input, dim=_dim_param(dim, input.dim()), keepdim=keepdim)


def any(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    return call("any", input, dim=_dim_param(dim, input.dim()), keepdim=keepdim)


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    return sum(ne(input, 0), dim)


def cumsum(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    if dtype is not None:
        input = to(input, dtype)
    elif input.dtype.np.kind in "bui":
        input = to(input, _dtype.int64)
    return call("cumsum", input, dim=_wrap_dim(dim, input.dim()))


def _argsort_array(v: Any, dim: int, descending: bool) -> Any:
    xp = v.__array_namespace__() if hasattr(v, "__array_namespace__") else np
    if type(v) is np.ndarray:
        idx = np.argsort(-v if descending and v.dtype.kind != "b" else v, axis=dim,
                         kind="stable")
        return idx.astype(np.int64)
    return xp.argsort(v, axis=dim, descending=descending, stable=True)


def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Any:
    if input.dim() == 0:
        return _sort_result(input * 1, zeros_like_int(input))
    dim = _wrap_dim(dim, input.dim())
    idx = wrap(_argsort_array(input._value, dim, descending))
    return _sort_result(_named("SortBackward0", input, dim, idx), idx)


def _named(grad_name: str, input: Tensor, dim: int, idx: Tensor) -> Tensor:
    from ._recorder import Op
    op = _GATHERS.get(grad_name)
    if op is None:
        op = _GATHERS[grad_name] = Op(grad_name, OPS["gather"].fun, grad_name, None, True)
    return apply(op, (input,), {"dim": dim, "index": idx._value})


_GATHERS: dict = {}


def zeros_like_int(input: Tensor) -> Tensor:
    from ._creation import zeros
    return zeros(tuple(input.shape), dtype=_dtype.int64)


def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False
            ) -> Tensor:
    return wrap(_argsort_array(input._value, _wrap_dim(dim, input.dim()), descending))


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True
         ) -> Any:
    dim = _wrap_dim(dim, input.dim())
    idx = _argsort_array(input._value, dim, largest)
    idx = wrap(idx).narrow(dim, 0, k)
    return _topk_result(_named("TopkBackward0", input, dim, idx), idx)


# ------------------------------------------------------------------ shapes
def _view_shape(input: Tensor, shape: tuple) -> tuple:
    size = input.numel()
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = math.prod(s for s in shape if s != -1)
    if neg:
        if known == 0 or size % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
        shape = tuple(size // known if s == -1 else s for s in shape)
    elif known != size:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
    return shape


def reshape(input: Tensor, *shape: Any) -> Tensor:
    shape = _view_shape(input, _shape(shape))
    if shape == tuple(input.shape):
        return call("view", input, shape=shape)
    return call("view", input, shape=shape)


def view(input: Tensor, *shape: Any) -> Tensor:
    if len(shape) == 1 and isinstance(shape[0], _dtype.dtype):
        return _aliasing(wrap(input._value.view(shape[0].np)), (input,))
    return reshape(input, *shape)


def view_as(input: Tensor, other: Tensor) -> Tensor:
    return reshape(input, tuple(other.shape))


reshape_as = view_as


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    n = input.dim()
    if n == 0:
        return reshape(input, (1,))
    s, e = _wrap_dim(start_dim, n), _wrap_dim(end_dim, n)
    shape = tuple(input.shape)
    return reshape(input, shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:])


def unflatten(input: Tensor, dim: int, sizes: Any) -> Tensor:
    dim = _wrap_dim(dim, input.dim())
    shape = tuple(input.shape)
    sizes = tuple(sizes)
    if -1 in sizes:
        known = math.prod(s for s in sizes if s != -1)
        sizes = tuple(shape[dim] // known if s == -1 else s for s in sizes)
    return reshape(input, shape[:dim] + sizes + shape[dim + 1:])


def squeeze(input: Tensor, dim: Any = None) -> Tensor:
    shape = tuple(input.shape)
    if dim is None:
        return call("squeeze", input, dims=tuple(i for i, s in enumerate(shape) if s == 1))
    name = "squeeze_dim" if isinstance(dim, int | np.integer) else "squeeze_dims"
    dims = tuple(d for d in _dims(dim, input.dim()) if input.dim() and shape[d] == 1)
    return call(name, input, dims=dims)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    n = input.dim() + 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}]"
                         f", but got {dim})")
    return call("unsqueeze", input, dim=dim % n)


def permute(input: Tensor, *dims: Any) -> Tensor:
    dims = _shape(dims)
    if len(dims) != input.dim():
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input "
                           f"does not match the length of the desired ordering of dimensions "
                           f"i.e. input.dim() = {input.dim()} is not equal to len(dims) = "
                           f"{len(dims)}")
    return call("permute", input, dims=_dims(dims, input.dim()))


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    n = input.dim()
    return call("transpose", input, dim0=_wrap_dim(dim0, n), dim1=_wrap_dim(dim1, n))


swapaxes = swapdims = transpose


def t(input: Tensor) -> Tensor:
    if input.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{input.dim()}D")
    return call("t", input)


def movedim(input: Tensor, source: Any, destination: Any) -> Tensor:
    n = input.dim()
    src = _dims(source, n)
    dst = _dims(destination, n)
    order = [i for i in range(n) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return call("permute", input, dims=tuple(order))


moveaxis = movedim


def expand(input: Tensor, *sizes: Any) -> Tensor:
    sizes = _shape(sizes)
    shape = tuple(input.shape)
    lead = len(sizes) - len(shape)
    if lead < 0:
        raise RuntimeError(f"expand(torch.FloatTensor{{{list(shape)}}}, size={list(sizes)}): "
                           f"the number of sizes provided ({len(sizes)}) must be greater or "
                           f"equal to the number of dimensions in the tensor ({len(shape)})")
    return call("expand", input, shape=_expanded(shape, sizes))


def _expanded(shape: tuple, sizes: tuple) -> tuple:
    """``sizes`` with its ``-1`` resolved, or PyTorch's error when ``shape`` cannot be
    expanded to it."""
    lead = len(sizes) - len(shape)
    target = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s == -1:
                raise RuntimeError("The expanded size of the tensor (-1) isn't allowed in a "
                                   "leading, non-existing dimension 0")
            target.append(s)
            continue
        cur = shape[i - lead]
        if s == -1:
            s = cur
        if cur != s and cur != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({cur}) "
                f"at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor "
                f"sizes: {list(shape)}")
        target.append(s)
    return tuple(target)


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    return expand(input, tuple(other.shape))


def broadcast_to(input: Tensor, size: Any) -> Tensor:
    return expand(input, tuple(size))


def broadcast_tensors(*tensors: Tensor) -> tuple:
    shape = np.broadcast_shapes(*[tuple(t.shape) for t in tensors])
    return tuple(expand(t, shape) for t in tensors)


def repeat(input: Tensor, *repeats: Any) -> Tensor:
    reps = _shape(repeats)
    if len(reps) < input.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than "
                           "number of dimensions of tensor")
    return call("repeat", input, reps=reps)


def tile(input: Tensor, dims: Any) -> Tensor:
    reps = _shape((dims,))
    reps = (1,) * (input.dim() - len(reps)) + reps
    return repeat(input, reps)


def flip(input: Tensor, dims: Any) -> Tensor:
    return call("flip", input, dims=_dims(dims, input.dim()))


def fliplr(input: Tensor) -> Tensor:
    return flip(input, (1,))


def flipud(input: Tensor) -> Tensor:
    return flip(input, (0,))


def roll(input: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = None if dims is None else _dims(dims, input.dim())
    return call("roll", input, shifts=shifts, dims=dims)


def cat(tensors: Sequence[Tensor], dim: int = 0, *, axis: int | None = None) -> Tensor:
    if axis is not None:
        dim = axis
    tensors = [_t(x) for x in tensors]
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    tensors = [x for x in tensors if not (x.dim() == 1 and x.numel() == 0)] or tensors[:1]
    ref = tensors[0]
    d = _wrap_dim(dim, ref.dim())
    for i, x in enumerate(tensors[1:], 1):
        if x.dim() != ref.dim():
            raise RuntimeError(f"Tensors must have same number of dimensions: got "
                               f"{ref.dim()} and {x.dim()}")
        for k in range(ref.dim()):
            if k != d and x.shape[k] != ref.shape[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{ref.shape[k]} but got size {x.shape[k]} for tensor number {i} in the "
                    "list.")
    return call("cat", *tensors, dim=d)


concat = concatenate = cat


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    tensors = [_t(x) for x in tensors]
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, x in enumerate(tensors[1:], 1):
        if x.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(tensors[0].shape)} at entry 0 and {list(x.shape)} at "
                               f"entry {i}")
    n = tensors[0].dim() + 1
    return call("stack", *tensors, dim=_wrap_dim(dim, n))


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    tensors = [atleast_1d(_t(x)) for x in tensors]
    return cat(tensors, 0 if tensors[0].dim() == 1 else 1)


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    return cat([atleast_2d(_t(x)) for x in tensors], 0)


def atleast_1d(input: Tensor) -> Tensor:
    return reshape(input, (1,)) if input.dim() == 0 else input


def atleast_2d(input: Tensor) -> Tensor:
    return reshape(input, (1,) * (2 - input.dim()) + tuple(input.shape)) \
        if input.dim() < 2 else input


def split(input: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple:
    dim = _wrap_dim(dim, input.dim())
    n = input.shape[dim]
    if isinstance(split_size_or_sections, int):
        s = split_size_or_sections
        sizes = [s] * (n // s) + ([n % s] if n % s else []) if s else [n]
        return call("split", input, sizes=sizes or [0], dim=dim)
    sizes = list(split_size_or_sections)
    if builtin_sum(sizes) != n:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input "
                           f"tensor's size at dimension {dim}), but got split_sizes={sizes}")
    return call("split_sizes", input, sizes=sizes, dim=dim)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    dim = _wrap_dim(dim, input.dim())
    n = input.shape[dim]
    return split(input, builtin_max(1, -(-n // chunks)), dim)


def unbind(input: Tensor, dim: int = 0) -> tuple:
    return call("unbind", input, dim=_wrap_dim(dim, input.dim()))


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    dim = _wrap_dim(dim, input.dim())
    index = (slice(None),) * dim + (slice(int(start), int(start) + int(length)),)
    return call("getitem", input, index=index)


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    return call("index_select", input, dim=_wrap_dim(dim, input.dim()), index=_idx(index))


def gather(input: Tensor, dim: int, index: Tensor) -> Tensor:
    return call("gather", input, dim=_wrap_dim(dim, input.dim()), index=_idx(index))


def take_along_dim(input: Tensor, indices: Tensor, dim: int) -> Tensor:
    return gather(input, dim, indices)


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        value = value.item()
    return call("masked_fill", input, mask=_idx(mask), value=value)


def where(condition: Tensor, input: Any = None, other: Any = None) -> Any:
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    return call("where", input, other, cond=_idx(condition))


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:
    idx = np.nonzero(np.asarray(_host(input._value)))
    if as_tuple:
        return tuple(wrap(i.astype(np.int64)) for i in idx)
    return wrap(np.stack(idx, axis=1).astype(np.int64))


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    return call("tril", input, diagonal=diagonal)


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    return call("triu", input, diagonal=diagonal)


def trace(input: Tensor) -> Tensor:
    return call("trace", input)


def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:
    return call("clone", input)


def detach(input: Tensor) -> Tensor:
    return input.detach()


def to(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``t.to(dtype)``, ``t.to(device)``, ``t.to(other)``; returns ``t`` itself when
    nothing changes (as PyTorch)."""
    from .tensor import device as _device
    dtype = kwargs.pop("dtype", None)
    dev = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    for a in args:
        if isinstance(a, _dtype.dtype) or (isinstance(a, type) and a in (float, int, bool)):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, dev = a.dtype, a.device
        elif isinstance(a, str | _device):
            dev = a
        elif isinstance(a, np.dtype):
            dtype = a
    out = input
    if dev is not None and _device(dev).type != input.device.type:
        from ._creation import _place
        out = wrap(_place(_host(input._value), dev), input._requires_grad)
    if dtype is not None:
        dt = _dtype.np_dtype(dtype)
        if dt != array_np_dtype(out._value):
            out = call("to", out, dtype=dt)
    if copy and out is input:
        out = clone(input)
    return out


def _host(v: Any) -> np.ndarray:
    from ._graph import host
    return host(v)


def type_as(input: Tensor, other: Tensor) -> Tensor:
    return to(input, other.dtype)


# ------------------------------------------------------------------ products
def _matrix_check(x: Tensor, name: str, n: int) -> None:
    if x.dim() != n:
        raise RuntimeError(f"{name} must be a {'matrix' if n == 2 else f'{n}D tensor'}")


def matmul(input: Tensor, other: Tensor) -> Tensor:
    try:
        return call("matmul", input, other)
    except RuntimeError:  # in PyTorch's words (checked on failure: matmul is hot)
        _matmul_shapes(tuple(_t(input).shape), tuple(_t(other).shape))
        raise


def _matmul_shapes(sa: tuple, sb: tuple) -> None:
    """Raise PyTorch's error for ``matmul`` of these shapes: the words of the kernel
    ``torch.matmul`` dispatches to (``dot``, ``mv``, ``mm`` after folding the batch
    dimensions of the left operand, or ``bmm``)."""
    na, nb = len(sa), len(sb)
    if na == 0 or nb == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{na}D and {nb}D")
    ka = sa[-1]
    kb = sb[-2] if nb >= 2 else sb[0]
    if na == 1 and nb == 1:
        _dot_shapes(sa, sb)
    elif nb == 1:  # mv, with the batch dimensions of the matrix folded
        _mv_shapes((math.prod(sa[:-1]), ka), sb)
    elif nb == 2:  # mm, likewise
        _mm_shapes((math.prod(sa[:-1]), ka), sb)
    else:  # bmm over the broadcast batch dimensions
        msg = _broadcast_message([sa[:-2], sb[:-2]])
        if msg is not None:
            raise RuntimeError(msg)
        n = math.prod(np.broadcast_shapes(sa[:-2], sb[:-2]))
        if ka != kb:
            raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to "
                               f"be: [{n}, {ka}] but got: [{n}, {kb}].")


def _mm_shapes(sa: tuple, sb: tuple) -> None:
    if sa[1] != sb[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({sa[0]}x{sa[1]} and "
                           f"{sb[0]}x{sb[1]})")


def _mv_shapes(sa: tuple, sb: tuple) -> None:
    if len(sb) != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {len(sa)}, {len(sb)}")
    if sa[1] != sb[0]:
        raise RuntimeError(f"size mismatch, got input ({sa[0]}), mat ({sa[0]}x{sa[1]}), vec "
                           f"({sb[0]})")


def _dot_shapes(sa: tuple, sb: tuple) -> None:
    if sa[0] != sb[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{sa[0]}] and src "
                           f"[{sb[0]}] to have the same number of elements, but got {sa[0]} "
                           f"and {sb[0]} elements respectively")


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    _matrix_check(input, "self", 2)
    _matrix_check(mat2, "mat2", 2)
    try:
        return call("mm", input, mat2)
    except RuntimeError:
        _mm_shapes(tuple(input.shape), tuple(mat2.shape))
        raise


def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    _matrix_check(input, "batch1", 3)
    _matrix_check(mat2, "batch2", 3)
    if input.shape[0] != mat2.shape[0] or input.shape[2] != mat2.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{input.shape[0]}, {input.shape[2]}] but got: [{mat2.shape[0]}, "
                           f"{mat2.shape[1]}].")
    return call("bmm", input, mat2)


def mv(input: Tensor, vec: Tensor) -> Tensor:
    _matrix_check(input, "self", 2)
    _mv_shapes(tuple(input.shape), tuple(vec.shape))
    return call("mv", input, vec)


def dot(input: Tensor, other: Tensor) -> Tensor:
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D "
                           "tensors")
    _dot_shapes(tuple(input.shape), tuple(other.shape))
    return call("dot", input, other)


vdot = inner = dot


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    return call("outer", input, vec2)


ger = outer


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1
          ) -> Tensor:
    if mat1.dim() != 2 or mat2.dim() != 2:
        name, m = ("mat1", mat1) if mat1.dim() != 2 else ("mat2", mat2)
        raise RuntimeError(f"{name} must be a matrix, got {m.dim()}-D tensor")
    try:
        return call("addmm", input, mat1, mat2, beta=beta, alpha=alpha)
    except RuntimeError:  # in PyTorch's words (checked on failure: addmm is hot)
        _mm_shapes(tuple(mat1.shape), tuple(mat2.shape))
        _expanded(tuple(input.shape), (mat1.shape[0], mat2.shape[1]))
        raise


def einsum(equation: str, *operands: Any) -> Tensor:
    if len(operands) == 1 and isinstance(operands[0], list | tuple):
        operands = tuple(operands[0])
    return call("einsum", *operands, equation=equation)


# ------------------------------------------------------------------ indexing
def _idx(i: Any) -> Any:
    if isinstance(i, Tensor):
        return i._value
    return i


def _index(index: Any) -> tuple:
    if not isinstance(index, tuple):
        index = (index,)
    out = []
    for i in index:
        if isinstance(i, Tensor):
            v = i._value
            if not v.shape and array_np_dtype(v).kind in "iu":
                out.append(int(_host(v)))
                continue
            out.append(v)
        elif isinstance(i, list) and builtin_any(isinstance(e, Tensor) for e in i):
            out.append(np.asarray([_host(e._value) if isinstance(e, Tensor) else e for e in i]))
        else:
            out.append(i)
    return tuple(out)


def getitem(input: Tensor, index: Any) -> Tensor:
    index = _index(index)
    if input.dim() == 0 and builtin_any(isinstance(i, int) for i in index):
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    try:
        if _is_basic(index) and builtin_sum(_nontrivial(i) for i in index) > 1:
            return _sequential_getitem(input, index)
        return call("getitem", input, index=index)
    except IndexError as e:
        raise IndexError(str(e)) from None


def _is_basic(index: tuple) -> bool:
    return builtins.all(i is None or i is Ellipsis or isinstance(i, slice) or
                        (isinstance(i, int | np.integer) and not isinstance(i, bool))
                        for i in index)


def _nontrivial(i: Any) -> bool:
    return i is not Ellipsis and i != slice(None)


def _sequential_getitem(t: Tensor, index: tuple) -> Tensor:
    """``x[0, 1:]`` as PyTorch records it: one node per indexing step."""
    dim = 0
    for k, i in enumerate(index):
        if i is Ellipsis:  # skip the dims that the items after it do not consume
            dim = t.dim() - builtin_sum(1 for j in index[k + 1:] if j is not None)
            continue
        if i is None:
            t = call("getitem", t, index=(slice(None),) * dim + (None,))
            dim += 1
        elif isinstance(i, slice):
            if i != slice(None):
                t = call("getitem", t, index=(slice(None),) * dim + (i,))
            dim += 1
        else:
            if not -t.shape[dim] <= int(i) < t.shape[dim]:
                raise IndexError(f"index {int(i)} is out of bounds for dimension {dim} with "
                                 f"size {t.shape[dim]}")
            t = call("getitem", t, index=(slice(None),) * dim + (int(i),))
    return t


def setitem(input: Tensor, index: Any, value: Any) -> None:
    index = _index(index)
    grad_on = GRAD_ENABLED.get()
    v_req = isinstance(value, Tensor) and value._requires_grad
    if grad_on:
        _check_recordable(input)
    if not grad_on or not (input._requires_grad or v_req):
        val = value._value if isinstance(value, Tensor) else value
        arr = input._value
        if type(arr) is np.ndarray and (input._cow or not arr.flags.writeable):
            input._value = arr = arr.copy()
            input._cow = False
        try:
            arr[index] = val
        except (TypeError, ValueError) as e:
            raise RuntimeError(str(e)) from None
        input._version += 1
        return
    shared = _shared(input)
    snap = _snapshot(input, shared)
    if isinstance(value, Tensor):
        out = call("index_put", snap, value, index=index)
    else:
        out = call("index_put", snap, v=value, index=index)
    _rebind(input, out, shared)


def index_put(input: Tensor, indices: tuple, values: Tensor, accumulate: bool = False
              ) -> Tensor:
    return call("index_put", input, values, index=_index(tuple(indices)), accumulate=accumulate)


# ------------------------------------------------------------------ in place
_CAST_OK = {"b": "b", "u": "bu", "i": "bui", "f": "buif", "c": "buifc"}


def _snapshot(t: Tensor, copy: bool) -> Tensor:
    """``t`` as an operation's input before an in-place write into ``t``: its buffer,
    or (``copy``) a copy of it, for when the write will go into the buffer
    (``_shared``) and the operation may save its input."""
    v = t._value
    s = wrap(v.copy() if copy else v, t._requires_grad, t._grad_fn, t._output_nr)
    s._version = t._version
    return s


def _shared(t: Tensor) -> bool:
    """Whether another live tensor shares ``t``'s NumPy buffer: a view, a base, a
    ``detach()`` alias."""
    vc = t._vc
    return len(vc) > 1 and type(t._value) is np.ndarray and \
        (t._base is not None or None in vc or builtin_any(u is not t for u in live_aliases(t)))


def _rebind(t: Tensor, out: Tensor, shared: bool) -> None:
    """Make ``t`` hold ``out``, the recorded result of an in-place operation on it
    (``shared``: ``_shared(t)``)."""
    if out.dtype is not t.dtype:
        out = to(out, t.dtype)
    if shared:
        write_through(t, out)
        return
    t._value = out._value
    if t._retains_grad:
        _take_node(t, out)
    else:  # (_take_node, inlined: the hot path of in-place operations)
        t._grad_fn, t._output_nr = out._grad_fn, out._output_nr
        t._requires_grad = out._requires_grad or t._requires_grad
    t._cow = True
    t._vc[0] += 1
    if out._grad_fn is not None:  # ``t`` may now hold a saved output: watch its counter
        rebind_saved_output(out._grad_fn, out._vc, t._vc)


def inplace(self: Tensor, compute: Any) -> Tensor:
    """Run ``compute(self)`` out of place, then make ``self`` hold the result:
    recorded (self becomes the op's output) or written into its buffer."""
    grad_on = GRAD_ENABLED.get()
    if grad_on and (self._requires_grad and self._grad_fn is None or self._base is not None):
        _check_recordable(self)
    shared = grad_on and len(self._vc) > 1 and _shared(self)  # (the test inlined: hot path)
    out = compute(_snapshot(self, shared) if grad_on else self)
    if tuple(out.shape) != tuple(self.shape):
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                           f"shape {list(out.shape)}")
    _check_cast(out, self)
    if out._grad_fn is not None:
        _rebind(self, out, shared)
    else:
        self._write(out._value)
        self._version += 1
    return self


def write_through(t: Tensor, out: Tensor) -> None:
    """The recorded in-place result ``out`` written into the buffer that ``t`` shares
    with other tensors, as PyTorch's ``CopySlices`` does: every tensor viewing that
    buffer sees the new values, ``t``'s gradient goes through ``out``'s node, and that
    of each other view, and of the base, through a node that takes the overlapping
    elements from ``out`` and the others from its former value.

    >>> import fad.torch as torch
    >>> x = torch.ones(3, requires_grad=True)
    >>> a = x * 1
    >>> a[:2].mul_(5)
    tensor([5., 5.], grad_fn=<MulBackward0>)
    >>> a.sum().backward(); a.tolist(), x.grad.tolist()
    ([5.0, 5.0, 1.0], [5.0, 5.0, 1.0])
    """
    arr = t._own() if t._cow else t._value  # (no live view shares a _cow array)
    if not arr.flags.writeable:
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    np.copyto(arr, out._value, casting="unsafe")
    _take_node(t, out)
    t._vc[0] += 1
    rebind_saved_output(out._grad_fn, out._vc, t._vc)
    base = t if t._base is None else t._base
    others = [u for u in (base, *live_aliases(t))
              if u is not t and (u is base or u._base is base) and u.dtype is t.dtype]
    if not others:
        return
    written = _addresses(arr).ravel()
    order = np.argsort(written, kind="stable")
    flat_out = None
    for u in others:
        at = _addresses(u._value)
        k = np.searchsorted(written, at, sorter=order).clip(0, len(written) - 1)
        src = order[k]
        hit = written[src] == at
        if not hit.any():
            continue
        if flat_out is None:
            flat_out = reshape(out, -1)
        part = getitem(flat_out, src[hit])
        if hit.ndim:
            new = call("index_put", _snapshot(u, False), part, index=np.nonzero(hit))
        else:  # a 0-d view, wholly written
            new = reshape(part, ())
        _take_node(u, new)


def _take_node(t: Tensor, new: Tensor) -> None:
    """``t`` now holds the value of ``new``, an operation's output that requires grad:
    take its ``grad_fn``, and its ``retain_grad()`` moves there (``t.grad`` is the
    gradient of the new value, as PyTorch's)."""
    old, old_nr = t._grad_fn, t._output_nr
    t._grad_fn = node = new._grad_fn
    t._output_nr = new._output_nr
    t._requires_grad = new._requires_grad or t._requires_grad
    if t._retains_grad and node is not None and old is not None and old._retain:
        ref = old._retain.pop(old_nr, None)
        if ref is not None:
            if node._retain is None:
                node._retain = {}
            node._retain[t._output_nr] = ref


def _addresses(a: np.ndarray) -> np.ndarray:
    """The memory address of each element of ``a``."""
    addr = np.full(a.shape, a.__array_interface__["data"][0], dtype=np.int64)
    for k, (n, stride) in enumerate(zip(a.shape, a.strides)):
        addr += (np.arange(n, dtype=np.int64) * stride).reshape((n,) + (1,) * (a.ndim - k - 1))
    return addr


def _check_recordable(t: Tensor) -> None:
    """Refuse, in PyTorch's words, an in-place write into ``t`` with grad mode on
    that autograd cannot record: into a leaf that requires grad, into a view of one,
    or into a view made under ``no_grad`` of a tensor that requires grad (its base's
    gradient would ignore the write)."""
    if t._requires_grad and t._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    base = t._base
    if base is None or not base._requires_grad:
        return
    if not t._requires_grad:
        raise RuntimeError(
            "A view was created in no_grad mode and is being modified inplace with grad "
            "mode enabled. Given that this use case is ambiguous and error-prone, it is "
            "forbidden. You can clarify your code by moving both the view and the inplace "
            "either both inside the no_grad block (if you don't want the inplace to be "
            "tracked) or both outside (if you want the inplace to be tracked).")
    if base._grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")


def _check_cast(result: Tensor, dest: Tensor) -> None:
    if result.dtype.np.kind not in _CAST_OK[dest.dtype.np.kind]:
        raise RuntimeError(f"result type {_res_word(result.dtype)} can't be cast to the "
                           f"desired output type {_res_word(dest.dtype)}")


def into(name: str, out: Any, args: tuple, compute: Any) -> Tensor:
    """``torch.<name>(*args, out=out)``: the result of ``compute()`` written into
    ``out`` (resized if its shape differs, as PyTorch does) and ``out`` returned.
    Refused, in PyTorch's words, when autograd would have to record it.

    >>> import fad.torch as torch
    >>> y = torch.zeros(2)
    >>> torch.add(torch.ones(2), 1, out=y) is y, y.tolist()
    (True, [2.0, 2.0])
    """
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if GRAD_ENABLED.get() and builtin_any(isinstance(a, Tensor) and a._requires_grad
                                          for a in (*args, out)):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires "
                           "grad.")
    result = compute()
    _check_cast(result, out)
    if tuple(result.shape) != tuple(out.shape):
        if out.numel():
            warnings.warn(f"An output with one or more elements was resized since it had "
                          f"shape {list(out.shape)}, which does not match the required "
                          f"output shape {list(result.shape)}.", UserWarning, stacklevel=3)
        out._value = result._value.astype(out._value.dtype, copy=True)
        out._cow = False
    else:
        out._write(result._value)
    out._version += 1
    return out


def _res_word(dt: _dtype.dtype) -> str:
    return {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
            "int32": "Int", "bool": "Bool", "complex64": "ComplexFloat"}.get(dt.name, dt.name)


builtin_sum, builtin_max, builtin_any = builtins.sum, builtins.max, builtins.any


def numel(input: Tensor) -> int:
    return input.numel()


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> bool:
    return input.is_floating_point()


def is_complex(input: Tensor) -> bool:
    return input.is_complex()


def result_type(tensor1: Any, tensor2: Any) -> _dtype.dtype:
    vals = [x._value if isinstance(x, Tensor) else x for x in (tensor1, tensor2)]
    return _dtype.of_np(_dtype.result_type(vals))


def promote_types(type1: Any, type2: Any) -> _dtype.dtype:
    return _dtype.of_np(_dtype.promote_types(_dtype.np_dtype(type1), _dtype.np_dtype(type2)))


def can_cast(from_: Any, to: Any) -> bool:
    return _dtype.np_dtype(from_).kind in _CAST_OK[_dtype.np_dtype(to).kind]


_INTERNAL = {"inplace", "into", "zeros_like_int", "getitem", "setitem", "builtin_sum",
             "builtin_max", "builtin_any", "to", "wrap", "apply", "call", "rpow", "rsub"}
__all__ = [n for n, v in list(globals().items())
           if not n.startswith("_") and n not in _INTERNAL and callable(v)
           and getattr(v, "__module__", None) == __name__]
