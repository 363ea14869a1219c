"""Discrete samplers: ``bernoulli``, ``categorical``, ``randint``,
``permutation``, ``choice`` and ``poisson``."""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from .. import lax
from .. import numpy as fnp
from ..backends import x64
from ..core.trace import bind
from ..primitives.special_functions import gammaln_p
from ._continuous import _bound, float_dtype, gumbel_noise, unit_uniform
from ._keys import check_key, fold_in, raw_bits, shape_tuple, split, unflat


def _int_dtype(dtype: Any, fname: str) -> np.dtype:
    dt = np.dtype(x64.narrow_dtype(np.int64) if dtype is None else dtype)  # (float32 mode)
    if dt.kind not in "iu":
        raise ValueError(f"fad.random.{fname}: dtype must be an integer type, got {dt}")
    return dt


def bernoulli(key: Any, p: Any = 0.5, shape: Any = None) -> Any:
    """Booleans, ``True`` with probability ``p``: ``uniform < p``.

    >>> import fad.random as fr
    >>> fr.bernoulli(fr.key(0), 0.3, (4,)).dtype
    dtype('bool')
    """
    key = check_key(key, "bernoulli")
    p = fnp.asarray(p)
    if p.dtype.kind != "f":
        p = fnp.astype(p, np.float64)
    shape = p.shape if shape is None else shape_tuple(shape, "bernoulli")
    return fnp.less(unit_uniform(key, tuple(shape), p.dtype), p)


def categorical(key: Any, logits: Any, axis: int = -1, shape: Any = None,
                replace: bool = True) -> Any:
    """Category indices drawn with probabilities ``softmax(logits)`` along
    ``axis`` (the Gumbel-max trick); ``shape`` must end with the other axes of
    ``logits``, its leading axes being the draws. ``replace=False`` draws them
    without replacement (the top indices of one Gumbel-perturbed ``logits``).

    >>> import fad.random as fr, numpy as np
    >>> fr.categorical(fr.key(0), np.array([-np.inf, 0.0, -np.inf])).tolist()
    1
    >>> sorted(fr.categorical(fr.key(0), np.zeros(4), shape=(4,), replace=False).tolist())
    [0, 1, 2, 3]
    """
    key = check_key(key, "categorical")
    logits = fnp.asarray(logits)
    if logits.dtype.kind != "f":
        logits = fnp.astype(logits, np.float64)
    ax = operator.index(axis) % logits.ndim
    batch = logits.shape[:ax] + logits.shape[ax + 1:]
    shape = batch if shape is None else shape_tuple(shape, "categorical")
    tail = tuple(shape[len(shape) - len(batch):])
    if len(shape) < len(batch) or fnp.broadcast_shapes(tail, batch) != tail:
        raise ValueError(f"fad.random.categorical: shape {tuple(shape)} must end with the "
                         f"logits' other axes {batch}")
    prefix = tuple(shape[:len(shape) - len(batch)])
    k = logits.shape[ax]
    with_axis = tail[:ax] + (k,) + tail[ax:]
    if replace:
        noisy = fnp.add(gumbel_noise(key, prefix + with_axis, logits.dtype), logits)
        return fnp.argmax(noisy, axis=len(prefix) + ax)
    draws = math.prod(prefix)
    if draws > k:
        raise ValueError(f"fad.random.categorical: cannot draw {draws} of {k} categories "
                         "without replacement; pass replace=True or fewer draws")
    noisy = fnp.add(gumbel_noise(key, with_axis, logits.dtype), logits)
    top = fnp.argsort(fnp.negative(noisy), axis=ax, stable=True)
    first = fnp.moveaxis(fnp.take(top, fnp.arange(draws), axis=ax), ax, 0)
    return fnp.reshape(first, prefix + tail)


def randint(key: Any, shape: Any, minval: Any, maxval: Any, dtype: Any = None) -> Any:
    """Integers uniform in ``[minval, maxval)`` (``minval`` where ``maxval <=
    minval``): 64 random bits modulo the span (bias below ``span / 2**64``).

    >>> import fad.random as fr
    >>> x = fr.randint(fr.key(0), (1000,), 3, 7)
    >>> int(x.min()), int(x.max())
    (3, 6)
    """
    key = check_key(key, "randint")
    dt = _int_dtype(dtype, "randint")
    shape = shape_tuple(shape, "randint")
    lo = fnp.astype(fnp.asarray(minval), np.int64)
    hi = fnp.astype(fnp.asarray(maxval), np.int64)
    info = np.iinfo(dt)
    lo = fnp.clip(lo, max(info.min, -2 ** 63), min(info.max, 2 ** 63 - 1))
    hi = fnp.clip(hi, max(info.min, -2 ** 63), min(int(info.max) + 1, 2 ** 63 - 1))
    span = fnp.where(fnp.greater(hi, lo), fnp.subtract(hi, lo), 1)
    offset = fnp.remainder(raw_bits(key, 64, shape), fnp.astype(span, np.uint64))
    out = fnp.add(lo, fnp.astype(unflat(offset, shape), np.int64))
    return fnp.astype(fnp.broadcast_to(out, shape), dt)


def _sort_keys(key: Any, shape: tuple[int, ...]) -> Any:
    return unflat(raw_bits(key, 64, shape), shape)


def _as_count(x: Any) -> Any:
    """``x`` as a Python int when it is an integer scalar (a concrete 0-d integer
    array included), else ``x`` itself."""
    if isinstance(x, int | np.integer) and not isinstance(x, bool | np.bool_):
        return operator.index(x)
    if np.ndim(x) == 0 and np.dtype(getattr(x, "dtype", np.float64)).kind in "iu":
        return int(x)
    return x


def permutation(key: Any, x: Any, axis: int = 0, independent: bool = False) -> Any:
    """A random permutation of ``range(x)`` (an int ``x``), or ``x`` shuffled along
    ``axis`` (each slice on its own with ``independent``): the order of random
    64-bit sort keys.

    >>> import fad.random as fr
    >>> sorted(fr.permutation(fr.key(0), 5).tolist())
    [0, 1, 2, 3, 4]
    """
    key = check_key(key, "permutation")
    x = _as_count(x)
    if isinstance(x, int):
        n = x
        if n < 0:
            raise ValueError(f"fad.random.permutation: x must be non-negative, got {n}")
        return fnp.argsort(_sort_keys(key, (n,)), stable=True)
    x = fnp.asarray(x)
    if x.ndim == 0:
        raise ValueError("fad.random.permutation: x must be an int or an array with at "
                         "least one axis, got a 0-d array")
    ax = operator.index(axis) % x.ndim
    if independent:
        order = fnp.argsort(_sort_keys(key, tuple(x.shape)), axis=ax, stable=True)
        return fnp.take_along_axis(x, order, axis=ax)
    return fnp.take(x, fnp.argsort(_sort_keys(key, (x.shape[ax],)), stable=True), axis=ax)


def choice(key: Any, a: Any, shape: Any = (), replace: bool = True, p: Any = None,
           axis: int = 0) -> Any:
    """Entries of ``a`` (or of ``range(a)`` for an int) along ``axis``, drawn with
    or without replacement, uniformly or with probabilities ``p``.

    >>> import fad.random as fr
    >>> sorted(fr.choice(fr.key(0), 5, (5,), replace=False).tolist())
    [0, 1, 2, 3, 4]
    """
    key = check_key(key, "choice")
    shape = shape_tuple(shape, "choice")
    a = _as_count(a)
    if isinstance(a, int):
        n, arr = a, None
    else:
        arr = fnp.asarray(a)
        if arr.ndim == 0:
            raise ValueError("fad.random.choice: a must be an int or an array with at least "
                             "one axis, got a 0-d array")
        axis = operator.index(axis) % arr.ndim
        n = arr.shape[axis]
    k = math.prod(shape)
    if n <= 0 and k:
        raise ValueError("fad.random.choice: a is empty, so there is nothing to choose")
    if not replace and k > n:
        raise ValueError(f"fad.random.choice: cannot take {k} samples from {n} without "
                         f"replacement; pass replace=True or a smaller shape")
    if p is not None:
        p = fnp.asarray(p)
        if p.shape != (n,):
            raise ValueError(f"fad.random.choice: p must have shape ({n},), the length of a "
                             f"along axis, got {tuple(p.shape)}")
        if p.dtype.kind != "f":
            p = fnp.astype(p, np.float64)
    if replace and p is None:
        ind = randint(key, shape, 0, n)
    elif replace:
        cdf = fnp.cumsum(p)
        u = fnp.multiply(cdf[-1], fnp.subtract(1.0, unit_uniform(key, shape, p.dtype)))
        ind = fnp.minimum(fnp.searchsorted(cdf, u), n - 1)
    elif p is None:
        ind = fnp.reshape(permutation(key, n)[:k], shape)
    else:  # the k largest of log p + Gumbel noise: a draw without replacement
        noisy = fnp.add(gumbel_noise(key, (n,), p.dtype), fnp.log(p))
        ind = fnp.reshape(fnp.argsort(fnp.negative(noisy), stable=True)[:k], shape)
    return ind if arr is None else fnp.take(arr, ind, axis=axis)


def _ptrs_constants(lam: Any) -> tuple:
    """Hormann's PTRS constants (transformed rejection with squeeze, lam >= 10)."""
    b = 0.931 + 2.53 * fnp.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2.0)
    return a, b, inv_alpha, vr


def poisson(key: Any, lam: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Poisson(``lam``) counts: Knuth's product of uniforms for ``lam < 10``,
    Hormann's transformed rejection (PTRS) above, in one ``while_loop`` (round
    ``i`` draws from ``fold_in(key, i)`` for every element); -1 where ``lam`` is
    negative, infinite or NaN.

    >>> import fad.random as fr
    >>> x = fr.poisson(fr.key(0), 4.0, (2000,))
    >>> bool(abs(float(x.mean()) - 4.0) < 0.2)
    True
    """
    key = check_key(key, "poisson")
    dt = _int_dtype(dtype, "poisson")
    lam = _bound(lam, float_dtype(None, "poisson"))
    shape = lam.shape if shape is None else shape_tuple(shape, "poisson")
    lam = lam if lam.shape == shape else fnp.broadcast_to(lam, shape)
    valid = fnp.logical_and(fnp.isfinite(lam), fnp.greater_equal(lam, 0.0))
    lam_ok = fnp.where(valid, lam, 0.0)
    big = fnp.greater_equal(lam_ok, 10.0)
    lam_big = fnp.where(big, lam_ok, 10.0)
    a, b, inv_alpha, vr = _ptrs_constants(lam_big)
    log_lam = fnp.log(lam_big)
    neg_lam = fnp.negative(fnp.where(big, 0.0, lam_ok))

    def body(carry: tuple) -> tuple:
        i, count, log_prod, out, done = carry
        k1, k2 = split(fold_in(key, i))
        u1 = unit_uniform(k1, tuple(shape), lam.dtype)
        u2 = fnp.subtract(1.0, unit_uniform(k2, tuple(shape), lam.dtype))  # in (0, 1]
        # Knuth: count the uniforms whose running product stays above e^-lam
        log_prod = fnp.add(log_prod, fnp.log1p(fnp.negative(u1)))
        knuth_end = fnp.less(log_prod, neg_lam)
        # PTRS: a proposal k from u = u1 - 1/2, v = u2
        u = fnp.subtract(u1, 0.5)
        us = fnp.maximum(fnp.subtract(0.5, fnp.abs(u)), 1e-30)
        k = fnp.floor((2.0 * a / us + b) * u + lam_big + 0.43)
        quick = fnp.logical_and(fnp.greater_equal(us, 0.07), fnp.less_equal(u2, vr))
        bad = fnp.logical_or(fnp.less(k, 0.0),
                             fnp.logical_and(fnp.less(us, 0.013), fnp.greater(u2, us)))
        log_v = fnp.log(u2 * inv_alpha / (a / (us * us) + b))
        slow = log_v <= -lam_big + k * log_lam - bind(gammaln_p, fnp.maximum(k, 0.0) + 1.0)
        ptrs_ok = fnp.logical_or(quick, fnp.logical_and(fnp.logical_not(bad), slow))
        ends = fnp.where(big, ptrs_ok, knuth_end)
        value = fnp.where(big, k, count)
        take = fnp.logical_and(ends, fnp.logical_not(done))
        out = fnp.where(take, value, out)
        return (i + 1, fnp.add(count, 1.0), log_prod, out, fnp.logical_or(done, ends))

    zeros = fnp.zeros(shape, lam.dtype)
    init = (fnp.asarray(np.uint32(0)), zeros, zeros, zeros, fnp.logical_not(valid))
    out = lax.while_loop(lambda c: fnp.logical_not(fnp.all(c[4])), body, init)[3]
    return fnp.astype(fnp.where(valid, out, -1.0), dt)


__all__ = ["bernoulli", "categorical", "randint", "permutation", "choice", "poisson"]
