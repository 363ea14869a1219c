"""The facade's operation table: each PyTorch operation as an ``Op`` of the
recorder (``fad/torch/_recorder.py``), a ``fad.numpy`` / ``fad.nn`` function or a
primitive, adapted to PyTorch's argument conventions, and the name PyTorch gives
its ``grad_fn``.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .. import numpy as fnp
from ..transforms.autodiff import stop_gradient
from ..transforms.autodiff import vjp as fad_vjp
from ._dtype import array_np_dtype
from ._recorder import CMP, EW, EWF, UF, Op, apply


# ------------------------------------------------------------------ adapters
def _ax(dim: Any) -> Any:
    return tuple(dim) if isinstance(dim, list) else dim


def _squeeze_dims(a: Any, dims: Any) -> Any:
    return fnp.squeeze(a, axis=dims) if dims != () else a


def _sum(a: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    return fnp.sum(a, axis=_ax(dim), keepdims=keepdim, dtype=dtype)


def _mean(a: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    return fnp.mean(a, axis=_ax(dim), keepdims=keepdim, dtype=dtype)


def _var(a: Any, dim: Any = None, correction: float = 1, keepdim: bool = False) -> Any:
    return fnp.var(a, axis=_ax(dim), ddof=correction, keepdims=keepdim)


def _std(a: Any, dim: Any = None, correction: float = 1, keepdim: bool = False) -> Any:
    return fnp.sqrt(_var(a, dim, correction, keepdim))


def _max_dim(a: Any, dim: int, keepdim: bool, arg: Callable) -> list:
    if a.ndim == 0:
        return [a, fnp.zeros((), dtype=np.int64)]
    idx = arg(a, axis=dim, keepdims=True)
    vals = fnp.take_along_axis(a, idx, axis=dim)
    if not keepdim:
        vals = fnp.squeeze(vals, axis=dim)
        idx = fnp.squeeze(idx, axis=dim)
    return [vals, idx]


def _logsumexp(a: Any, dim: Any, keepdim: bool = False) -> Any:
    m = stop_gradient(fnp.max(a, axis=_ax(dim), keepdims=True))
    m = fnp.where(fnp.isfinite(m), m, 0.0)
    out = fnp.log(fnp.sum(fnp.exp(a - m), axis=_ax(dim), keepdims=True)) + m
    return out if keepdim else _squeeze_dims(out, _ax(dim))


def _softmax(a: Any, dim: int) -> Any:
    if a.ndim == 0:
        return fnp.exp(a - a)
    m = stop_gradient(fnp.max(a, axis=dim, keepdims=True))
    e = fnp.exp(a - m)
    return e / fnp.sum(e, axis=dim, keepdims=True)


def _log_softmax(a: Any, dim: int) -> Any:
    if a.ndim == 0:
        return a - a
    m = stop_gradient(fnp.max(a, axis=dim, keepdims=True))
    s = a - m
    return s - fnp.log(fnp.sum(fnp.exp(s), axis=dim, keepdims=True))


def _cumsum(a: Any, dim: int) -> Any:
    if a.ndim == 0:
        return a
    n = a.shape[dim]
    upper = np.triu(np.ones((n, n), dtype=array_np_dtype(a)))
    moved = fnp.moveaxis(a, dim, -1)
    return fnp.moveaxis(fnp.matmul(moved, upper), -1, dim)


def _prod(a: Any, dim: Any = None, keepdim: bool = False) -> Any:
    if dim is None:
        flat = fnp.reshape(a, (-1,))
        out = _prod_axis(flat, 0)
        return fnp.reshape(out, (1,) * a.ndim) if keepdim else out
    out = _prod_axis(a, dim)
    return fnp.expand_dims(out, dim) if keepdim else out


def _prod_axis(a: Any, dim: int) -> Any:
    n = a.shape[dim] if a.ndim else 1
    if a.ndim == 0:
        return a
    index = [slice(None)] * a.ndim
    out = None
    for i in range(n):
        index[dim] = i
        part = a[tuple(index)]
        out = part if out is None else out * part
    if out is None:
        shape = tuple(s for d, s in enumerate(a.shape) if d != dim % a.ndim)
        return fnp.ones(shape, dtype=array_np_dtype(a))
    return out


def _norm(a: Any, p: Any = 2, dim: Any = None, keepdim: bool = False) -> Any:
    dim = _ax(dim)
    if p == 2 or p == "fro":
        s = fnp.sum(a * a, axis=dim, keepdims=keepdim)
        zero = s == 0
        return fnp.where(zero, 0.0, fnp.sqrt(fnp.where(zero, 1.0, s)))
    if p == 1:
        return fnp.sum(fnp.abs(a), axis=dim, keepdims=keepdim)
    if p in (math.inf, "inf"):
        return fnp.max(fnp.abs(a), axis=dim, keepdims=keepdim)
    if p == 0:
        return fnp.sum(fnp.asarray(a != 0, array_np_dtype(a)), axis=dim, keepdims=keepdim)
    return fnp.sum(fnp.abs(a) ** p, axis=dim, keepdims=keepdim) ** (1.0 / p)


def _erf(x: Any) -> Any:
    """erf by Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7), in fad operations (the
    core has no erf primitive yet)."""
    s = fnp.sign(x)
    a = fnp.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (
        -1.453152027 + t * 1.061405429))))
    return s * (1.0 - poly * fnp.exp(-a * a))


def _gelu(x: Any, approximate: str = "none") -> Any:
    if approximate == "tanh":
        return 0.5 * x * (1.0 + fnp.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    return 0.5 * x * (1.0 + _erf(x * 0.7071067811865476))


def _softplus(x: Any, beta: float = 1.0, threshold: float = 20.0) -> Any:
    z = x * beta
    big = z > threshold
    return fnp.where(big, x, fnp.log1p(fnp.exp(fnp.where(big, 0.0, z))) / beta)


def _elu(x: Any, alpha: float = 1.0) -> Any:
    pos = x > 0
    return fnp.where(pos, x, alpha * fnp.expm1(fnp.where(pos, 0.0, x)))


def _logsigmoid(x: Any) -> Any:
    # min(x, 0) written as -max(-x, 0): the core's min rule fails with a Python-scalar
    # operand (see the facade's report)
    return -fnp.maximum(-x, 0.0) - fnp.log1p(fnp.exp(-fnp.abs(x)))


def _reduce(loss: Any, reduction: str) -> Any:
    if reduction == "mean":
        return fnp.mean(loss)
    if reduction == "sum":
        return fnp.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _bce_logits(x: Any, t: Any, weight: Any = None, pos_weight: Any = None,
                reduction: str = "mean") -> Any:
    softplus_neg = fnp.log1p(fnp.exp(-fnp.abs(x))) + fnp.maximum(-x, 0.0)
    if pos_weight is not None:
        log_weight = 1.0 + (pos_weight - 1.0) * t
        loss = (1.0 - t) * x + log_weight * softplus_neg
    else:
        loss = (1.0 - t) * x + softplus_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _bce(p: Any, t: Any, weight: Any = None, reduction: str = "mean") -> Any:
    log_p = fnp.maximum(fnp.log(p), -100.0)
    log_q = fnp.maximum(fnp.log(1.0 - p), -100.0)
    loss = -(t * log_p + (1.0 - t) * log_q)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _nll(logp: Any, target: Any, weight: Any = None, ignore_index: int = -100,
         reduction: str = "mean") -> Any:
    if logp.ndim == 1:
        logp = fnp.expand_dims(logp, 0)
        target = fnp.reshape(target, (1,))
        squeeze = True
    else:
        squeeze = False
    valid = target != ignore_index
    safe = fnp.where(valid, target, 0)
    picked = fnp.squeeze(fnp.take_along_axis(logp, fnp.expand_dims(safe, 1), axis=1), 1)
    w = fnp.asarray(valid, array_np_dtype(logp))
    if weight is not None:
        w = w * fnp.take(weight, safe)
    loss = -picked * w
    if reduction == "mean":
        return fnp.sum(loss) / fnp.sum(w)
    if reduction == "sum":
        return fnp.sum(loss)
    return fnp.reshape(loss, ()) if squeeze else loss


def _soft_ce(x: Any, target: Any, dim: int, weight: Any, reduction: str,
             label_smoothing: float) -> Any:
    logp = _log_softmax(x, dim)
    n_cls = x.shape[dim]
    if label_smoothing:
        target = target * (1.0 - label_smoothing) + label_smoothing / n_cls
    if weight is not None:
        shape = [1] * x.ndim
        shape[dim] = n_cls
        logp = logp * fnp.reshape(weight, tuple(shape))
    return _reduce(-fnp.sum(target * logp, axis=dim), reduction)


def _smooth_ce(logp: Any, target: Any, weight: Any, ignore_index: int, reduction: str,
               eps: float) -> Any:
    """Label smoothing with class indices: (1-eps) * nll + eps * mean over classes."""
    nll = _nll(logp, target, weight, ignore_index, reduction)
    valid = fnp.asarray(target != ignore_index, array_np_dtype(logp))
    lp = logp if weight is None else logp * weight
    smooth = -fnp.mean(lp, axis=1) * valid
    if reduction == "mean":
        denom = fnp.sum(valid) if weight is None else fnp.sum(
            fnp.take(weight, fnp.where(target != ignore_index, target, 0)) * valid)
        smooth = fnp.sum(smooth) / denom
    elif reduction == "sum":
        smooth = fnp.sum(smooth)
    return (1.0 - eps) * nll + eps * smooth


def _repeat(a: Any, reps: tuple) -> Any:
    shape = (1,) * (len(reps) - a.ndim) + tuple(a.shape)
    a = fnp.reshape(a, shape)
    expanded = []
    target = []
    for r, s in zip(reps, shape):
        expanded += [1, s]
        target += [r, s]
    out = fnp.broadcast_to(fnp.reshape(a, tuple(expanded)), tuple(target))
    return fnp.reshape(out, tuple(r * s for r, s in zip(reps, shape)))


def _flip(a: Any, dims: tuple) -> Any:
    index = [slice(None)] * a.ndim
    for d in dims:
        index[d] = slice(None, None, -1)
    return a[tuple(index)]


def _roll(a: Any, shifts: tuple, dims: tuple | None) -> Any:
    if dims is None:
        flat = fnp.reshape(a, (-1,))
        return fnp.reshape(_roll(flat, shifts, (0,)), a.shape)
    for s, d in zip(shifts, dims):
        n = a.shape[d]
        if n == 0:
            continue
        s %= n
        if s:
            index_a = [slice(None)] * a.ndim
            index_b = [slice(None)] * a.ndim
            index_a[d] = slice(n - s, None)
            index_b[d] = slice(None, n - s)
            a = fnp.concatenate([a[tuple(index_a)], a[tuple(index_b)]], axis=d)
    return a


def _split(a: Any, sizes: list, dim: int) -> list:
    out, start = [], 0
    index = [slice(None)] * a.ndim
    for s in sizes:
        index[dim] = slice(start, start + s)
        out.append(a[tuple(index)])
        start += s
    return out


def _unbind(a: Any, dim: int) -> list:
    index = [slice(None)] * a.ndim
    out = []
    for i in range(a.shape[dim]):
        index[dim] = i
        out.append(a[tuple(index)])
    return out


def _gather(a: Any, dim: int, index: Any) -> Any:
    sl = tuple(slice(0, index.shape[d]) if d != dim else slice(None) for d in range(a.ndim))
    if any(index.shape[d] != a.shape[d] for d in range(a.ndim) if d != dim):
        a = a[sl]
    return fnp.take_along_axis(a, index, axis=dim)


def _tri(a: Any, diagonal: int, lower: bool) -> Any:
    n, m = a.shape[-2], a.shape[-1]
    mask = np.tri(n, m, diagonal, dtype=bool) if lower else ~np.tri(n, m, diagonal - 1,
                                                                    dtype=bool)
    return fnp.where(mask, a, 0)


def _index_put(a: Any, v: Any, index: Any = None, accumulate: bool = False) -> Any:
    """``a[index] = v`` out of place: ``v`` is placed by the transpose of the gather."""
    zeros = fnp.zeros_like(a)
    index = _full_index(index)
    picked, scatter = fad_vjp(lambda z: z[index], zeros)
    v = fnp.broadcast_to(fnp.asarray(v, array_np_dtype(a)), picked.shape)
    placed = scatter(v)[0]
    if accumulate:
        return a + placed
    mask = scatter(fnp.ones(picked.shape, dtype=array_np_dtype(a)))[0] != 0
    return fnp.where(mask, placed, a)


def _pad(a: Any, pad: tuple, value: float = 0.0) -> Any:
    for i in range(len(pad) // 2):
        d = a.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if lo < 0 or hi < 0:
            index = [slice(None)] * a.ndim
            index[d] = slice(max(-lo, 0), a.shape[d] - max(-hi, 0))
            a = a[tuple(index)]
            lo, hi = max(lo, 0), max(hi, 0)
        parts = []
        for n in (lo, None, hi):
            if n is None:
                parts.append(a)
            elif n:
                shape = list(a.shape)
                shape[d] = n
                parts.append(fnp.full(tuple(shape), value, dtype=array_np_dtype(a)))
        a = fnp.concatenate(parts, axis=d) if len(parts) > 1 else a
    return a


def _matmul_name(vals: list, params: dict) -> str:
    na, nb = len(vals[0].shape), len(vals[1].shape)
    return {(1, 1): "DotBackward0", (2, 2): "MmBackward0", (2, 1): "MvBackward0",
            (1, 2): "SqueezeBackward4"}.get((na, nb), "UnsafeViewBackward0")


def _index_name(vals: list, params: dict) -> str:
    last = "AliasBackward0"
    for i in params["index"]:
        if i is None:
            last = "UnsqueezeBackward0"
        elif i is Ellipsis:
            continue
        elif isinstance(i, slice):
            if i != slice(None) or last == "AliasBackward0":
                last = "SliceBackward0"
        elif isinstance(i, int | np.integer) and not isinstance(i, bool):
            last = "SelectBackward0"
        else:
            return "IndexBackward0"
    return last


def _full_index(index: tuple) -> tuple:
    """An explicit trailing ``...`` (the Array API requires every axis be indexed)."""
    if any(i is Ellipsis for i in index):
        return index
    return index + (Ellipsis,)


def _clone(a: Any) -> Any:
    return fnp.array(a, copy=True)


def _to(a: Any, dtype: Any) -> Any:
    return fnp.asarray(a, dtype)


def _where(a: Any, b: Any, cond: Any = None) -> Any:
    return fnp.where(cond, a, b)


def _mm(a: Any, b: Any) -> Any:
    return fnp.matmul(a, b)


# ------------------------------------------------------------------ THE TABLE
# name: (fad function, grad_fn name, dtype kind, saves tensors for backward)
_TABLE: dict[str, tuple] = {
    # arithmetic
    "add": (lambda a, b, alpha=1: fnp.add(a, b if alpha == 1 else fnp.multiply(b, alpha)),
            "AddBackward0", EW, False),
    "sub": (lambda a, b, alpha=1: fnp.subtract(a, b if alpha == 1 else fnp.multiply(b, alpha)),
            "SubBackward0", EW, False),
    "rsub": (lambda a, other=0, alpha=1: fnp.subtract(
        other, a if alpha == 1 else fnp.multiply(a, alpha)), "RsubBackward1", None, False),
    "rsub_t": (lambda a, b, alpha=1: fnp.subtract(
        b, a if alpha == 1 else fnp.multiply(a, alpha)), "RsubBackward0", EW, False),
    "mul": (fnp.multiply, "MulBackward0", EW, True),
    "div": (fnp.divide, "DivBackward0", EWF, True),
    "floor_divide": (fnp.floor_divide, "FloorDivideBackward0", EW, True),
    "remainder": (fnp.remainder, "RemainderBackward0", EW, True),
    "pow": (fnp.power, "PowBackward1", EW, True),
    "pow_scalar": (lambda a, exponent=1: a ** exponent, "PowBackward0", None, True),
    "rpow": (lambda a, base=1: fnp.power(base, a), "PowBackward2", None, True),
    "maximum": (fnp.maximum, "MaximumBackward0", EW, True),
    "minimum": (fnp.minimum, "MinimumBackward0", EW, True),
    "atan2": (fnp.arctan2, "Atan2Backward0", EWF, True),
    "neg": (fnp.negative, "NegBackward0", None, False),
    "abs": (fnp.abs, "AbsBackward0", None, True),
    "sign": (fnp.sign, "SignBackward0", None, True),
    "floor": (fnp.floor, "FloorBackward0", None, True),
    "ceil": (fnp.ceil, "CeilBackward0", None, True),
    "round": (lambda a: fnp.where(a - fnp.floor(a) == 0.5, 2.0 * fnp.floor(a / 2.0 + 0.5),
                                  fnp.floor(a + 0.5)), "RoundBackward0", None, True),
    "trunc": (lambda a: fnp.sign(a) * fnp.floor(fnp.abs(a)), "TruncBackward0", None, True),
    "frac": (lambda a: a - fnp.sign(a) * fnp.floor(fnp.abs(a)), "FracBackward0", None, True),
    # unary maths (integers become floats)
    "exp": (fnp.exp, "ExpBackward0", UF, True),
    "exp2": (lambda a: fnp.power(2.0, a), "Exp2Backward0", UF, True),
    "expm1": (fnp.expm1, "Expm1Backward0", UF, True),
    "log": (fnp.log, "LogBackward0", UF, True),
    "log2": (fnp.log2, "Log2Backward0", UF, True),
    "log10": (fnp.log10, "Log10Backward0", UF, True),
    "log1p": (fnp.log1p, "Log1PBackward0", UF, True),
    "sqrt": (fnp.sqrt, "SqrtBackward0", UF, True),
    "rsqrt": (lambda a: 1.0 / fnp.sqrt(a), "RsqrtBackward0", UF, True),
    "square": (lambda a: a * a, "PowBackward0", None, True),
    "reciprocal": (lambda a: 1.0 / a, "ReciprocalBackward0", UF, True),
    "sin": (fnp.sin, "SinBackward0", UF, True),
    "cos": (fnp.cos, "CosBackward0", UF, True),
    "tan": (fnp.tan, "TanBackward0", UF, True),
    "asin": (fnp.arcsin, "AsinBackward0", UF, True),
    "acos": (fnp.arccos, "AcosBackward0", UF, True),
    "atan": (fnp.arctan, "AtanBackward0", UF, True),
    "sinh": (fnp.sinh, "SinhBackward0", UF, True),
    "cosh": (fnp.cosh, "CoshBackward0", UF, True),
    "tanh": (fnp.tanh, "TanhBackward0", UF, True),
    "sigmoid": (fnp.sigmoid, "SigmoidBackward0", UF, True),
    "erf": (_erf, "ErfBackward0", UF, True),
    # activations
    "relu": (lambda a: fnp.where(a > 0, a, 0), "ReluBackward0", None, True),
    "leaky_relu": (lambda a, negative_slope=0.01: fnp.where(a > 0, a, a * negative_slope),
                   "LeakyReluBackward0", None, True),
    "elu": (_elu, "EluBackward0", None, True),
    "gelu": (_gelu, "GeluBackward0", None, True),
    "silu": (lambda a: a * fnp.sigmoid(a), "SiluBackward0", None, True),
    "softplus": (_softplus, "SoftplusBackward0", None, True),
    "logsigmoid": (_logsigmoid, "LogSigmoidBackward0", None, True),
    "hardtanh": (lambda a, min_val=-1.0, max_val=1.0: fnp.clip(a, min_val, max_val),
                 "HardtanhBackward0", None, True),
    "softmax": (_softmax, "SoftmaxBackward0", UF, True),
    "log_softmax": (_log_softmax, "LogSoftmaxBackward0", UF, True),
    "clamp": (lambda a, min=None, max=None: fnp.clip(a, min, max), "ClampBackward1", None,
              True),
    "clamp_t": (lambda a, min=None, max=None: fnp.clip(a, min, max), "ClampBackward0", None,
                True),
    "clamp_min": (lambda a, min=None: fnp.clip(a, min, None), "ClampMinBackward0", None,
                  True),
    "clamp_max": (lambda a, max=None: fnp.clip(a, None, max), "ClampMaxBackward0", None,
                  True),
    # comparisons and logic (never differentiable)
    "eq": (fnp.equal, None, CMP, False),
    "ne": (fnp.not_equal, None, CMP, False),
    "lt": (fnp.less, None, CMP, False),
    "le": (fnp.less_equal, None, CMP, False),
    "gt": (fnp.greater, None, CMP, False),
    "ge": (fnp.greater_equal, None, CMP, False),
    "logical_and": (lambda a, b: fnp.logical_and(a != 0, b != 0), None, None, False),
    "logical_or": (lambda a, b: fnp.logical_or(a != 0, b != 0), None, None, False),
    "logical_xor": (lambda a, b: fnp.logical_xor(a != 0, b != 0), None, None, False),
    "logical_not": (lambda a: fnp.logical_not(a != 0), None, None, False),
    "isnan": (fnp.isnan, None, None, False),
    "isfinite": (fnp.isfinite, None, None, False),
    "isinf": (lambda a: fnp.logical_not(fnp.logical_or(fnp.isfinite(a), fnp.isnan(a))),
              None, None, False),
    # reductions
    "sum": (_sum, "SumBackward0", None, False),
    "sum_dim": (_sum, "SumBackward1", None, False),
    "nansum": (lambda a, dim=None, keepdim=False: _sum(fnp.where(fnp.isnan(a), 0.0, a), dim,
                                                       keepdim), "NansumBackward0", None, True),
    "mean": (_mean, "MeanBackward0", None, False),
    "mean_dim": (_mean, "MeanBackward1", None, False),
    "prod": (_prod, "ProdBackward0", None, True),
    "prod_dim": (_prod, "ProdBackward1", None, True),
    "var": (_var, "VarBackward0", None, True),
    "std": (_std, "StdBackward0", None, True),
    "norm": (_norm, "LinalgVectorNormBackward0", None, True),
    "logsumexp": (_logsumexp, "LogsumexpBackward0", UF, True),
    "amax": (lambda a, dim=None, keepdim=False: fnp.max(a, axis=_ax(dim), keepdims=keepdim),
             "AmaxBackward0", None, True),
    "amin": (lambda a, dim=None, keepdim=False: fnp.min(a, axis=_ax(dim), keepdims=keepdim),
             "AminBackward0", None, True),
    "max": (fnp.max, "MaxBackward1", None, True),
    "min": (fnp.min, "MinBackward1", None, True),
    "max_dim": (lambda a, dim=0, keepdim=False: _max_dim(a, dim, keepdim, fnp.argmax),
                "MaxBackward0", None, True, True),
    "min_dim": (lambda a, dim=0, keepdim=False: _max_dim(a, dim, keepdim, fnp.argmin),
                "MinBackward0", None, True, True),
    "argmax": (lambda a, dim=None, keepdim=False: fnp.argmax(a, axis=dim, keepdims=keepdim),
               None, None, False),
    "argmin": (lambda a, dim=None, keepdim=False: fnp.argmin(a, axis=dim, keepdims=keepdim),
               None, None, False),
    "all": (lambda a, dim=None, keepdim=False: fnp.all(a, axis=_ax(dim), keepdims=keepdim),
            None, None, False),
    "any": (lambda a, dim=None, keepdim=False: fnp.any(a, axis=_ax(dim), keepdims=keepdim),
            None, None, False),
    "cumsum": (_cumsum, "CumsumBackward0", None, False),
    # shapes
    "view": (lambda a, shape=(): fnp.reshape(a, shape), "ViewBackward0", None, False),
    "unsqueeze": (lambda a, dim=0: fnp.expand_dims(a, dim), "UnsqueezeBackward0", None,
                  False),
    "squeeze": (lambda a, dims=(): _squeeze_dims(a, dims), "SqueezeBackward0", None, False),
    "squeeze_dim": (lambda a, dims=(): _squeeze_dims(a, dims), "SqueezeBackward1", None,
                    False),
    "squeeze_dims": (lambda a, dims=(): _squeeze_dims(a, dims), "SqueezeBackward2", None,
                     False),
    "permute": (lambda a, dims=(): fnp.transpose(a, dims), "PermuteBackward0", None, False),
    "transpose": (lambda a, dim0=0, dim1=1: fnp.swapaxes(a, dim0, dim1),
                  "TransposeBackward0", None, False),
    "t": (lambda a: fnp.transpose(a) if a.ndim == 2 else a, "TBackward0", None, False),
    "expand": (lambda a, shape=(): fnp.broadcast_to(a, shape), "ExpandBackward0", None,
               False),
    "repeat": (_repeat, "RepeatBackward0", None, False),
    "flip": (_flip, "FlipBackward0", None, False),
    "roll": (_roll, "RollBackward0", None, False),
    "cat": (lambda *xs, dim=0: fnp.concatenate(xs, axis=dim), "CatBackward0", EW, False),
    "stack": (lambda *xs, dim=0: fnp.stack(xs, axis=dim), "StackBackward0", EW, False),
    "split": (_split, "SplitBackward0", None, False, True),
    "split_sizes": (_split, "SplitWithSizesBackward0", None, False, True),
    "unbind": (_unbind, "UnbindBackward0", None, False, True),
    "getitem": (lambda a, index=(): a[_full_index(index)], _index_name, None, False),
    "index_select": (lambda a, dim=0, index=None: fnp.take(a, index, axis=dim),
                     "IndexSelectBackward0", None, True),
    "gather": (_gather, "GatherBackward0", None, True),
    "embedding": (lambda w, index=None: w[index], "EmbeddingBackward0", None, True),
    "masked_fill": (lambda a, mask=None, value=0.0: fnp.where(mask, value, a),
                    "MaskedFillBackward0", None, True),
    "where": (_where, "WhereBackward0", EW, True),
    "tril": (lambda a, diagonal=0: _tri(a, diagonal, True), "TrilBackward0", None, False),
    "triu": (lambda a, diagonal=0: _tri(a, diagonal, False), "TriuBackward0", None, False),
    "pad": (_pad, "ConstantPadNdBackward0", None, False),
    "index_put": (_index_put, "CopySlices", None, True),
    "trace": (fnp.trace, "TraceBackward0", None, False),
    "clone": (_clone, "CloneBackward0", None, False),
    "grad_copy": (_clone, "CopyBackwards", None, False),
    "to": (_to, "ToCopyBackward0", None, False),
    "copy": (lambda a, src, dtype=None: fnp.asarray(fnp.broadcast_to(src, a.shape), dtype),
             "CopyBackwards", None, False),
    "fill": (lambda a, value=0.0: fnp.full(a.shape, value, dtype=array_np_dtype(a)),
             "FillBackward0", None, False),
    "zero": (lambda a: fnp.zeros_like(a), "ZeroBackward0", None, False),
    # products
    "matmul": (fnp.matmul, _matmul_name, EW, True),
    "mm": (_mm, "MmBackward0", EW, True),
    "bmm": (_mm, "BmmBackward0", EW, True),
    "mv": (_mm, "MvBackward0", EW, True),
    "dot": (_mm, "DotBackward0", EW, True),
    "outer": (fnp.outer, "MulBackward0", EW, True),
    "addmm": (lambda c, a, b, beta=1, alpha=1: (c if beta == 1 else c * beta) + (
        fnp.matmul(a, b) if alpha == 1 else fnp.matmul(a, b) * alpha), "AddmmBackward0", EW,
              True),
    "einsum": (lambda *xs, equation="": fnp.einsum(equation, *xs), "ViewBackward0", EW,
               True),
    # losses
    "mse_loss": (lambda x, t, reduction="mean": _reduce((x - t) * (x - t), reduction),
                 "MseLossBackward0", EW, True),
    "l1_loss": (lambda x, t, reduction="mean": _reduce(fnp.abs(x - t), reduction),
                "L1LossBackward0", EW, True),
    "smooth_l1_loss": (lambda x, t, reduction="mean", beta=1.0: _reduce(fnp.where(
        fnp.abs(x - t) < beta, 0.5 * (x - t) * (x - t) / beta, fnp.abs(x - t) - 0.5 * beta),
        reduction), "SmoothL1LossBackward0", EW, True),
    "huber_loss": (lambda x, t, reduction="mean", delta=1.0: _reduce(fnp.where(
        fnp.abs(x - t) <= delta, 0.5 * (x - t) * (x - t),
        delta * (fnp.abs(x - t) - 0.5 * delta)), reduction), "HuberLossBackward0", EW, True),
    "bce_with_logits": (_bce_logits, "BinaryCrossEntropyWithLogitsBackward0", EW, True),
    "bce": (_bce, "BinaryCrossEntropyBackward0", EW, True),
    "nll_loss": (lambda logp, target=None, weight=None, ignore_index=-100,
                 reduction="mean": _nll(logp, target, weight, ignore_index, reduction),
                 "NllLossBackward0", None, True),
    "soft_cross_entropy": (lambda x, t, dim=1, weight=None, reduction="mean",
                           label_smoothing=0.0: _soft_ce(x, t, dim, weight, reduction,
                                                         label_smoothing),
                           "DivBackward1", EW, True),
    "smooth_cross_entropy": (lambda logp, target=None, weight=None, ignore_index=-100,
                             reduction="mean", eps=0.0: _smooth_ce(
                                 logp, target, weight, ignore_index, reduction, eps),
                             "AddBackward0", None, True),
    "kl_div": (lambda x, t, reduction="mean", log_target=False: _reduce(
        fnp.exp(t) * (t - x) if log_target else
        fnp.where(t > 0, t * (fnp.log(fnp.where(t > 0, t, 1.0)) - x), 0.0), reduction),
        "KlDivBackward0", EW, True),
    "dropout": (lambda a, mask=None, scale=1.0: a * mask * scale, "MulBackward0", None, True),
}

OPS: dict[str, Op] = {}
for _name, _entry in _TABLE.items():
    _fun, _gname, _kind, _saves, *_multi = _entry
    OPS[_name] = Op(_name, _fun, _gname or "NotDifferentiable", _kind, _saves,
                    bool(_multi and _multi[0]))
del _name, _entry, _fun, _gname, _kind, _saves, _multi


def call(name: str, *args: Any, **params: Any) -> Any:
    """Apply table operation ``name``."""
    return apply(OPS[name], args, params)
