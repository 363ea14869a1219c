"""Weight initializers, as ``jax.nn.initializers``.

Each factory returns ``init(key, shape, dtype=float64)``, a function of a key
(``fad.random.key``). The variance-scaling family computes the fans as JAX
does: ``fan_in = shape[in_axis] * receptive_field``, ``fan_out =
shape[out_axis] * receptive_field``, the receptive field being the product of
the other axes (except ``batch_axis``).

>>> import fad.random as fr, fad.nn.initializers as init
>>> w = init.glorot_normal()(fr.key(0), (64, 32))
>>> w.shape, w.dtype
((64, 32), dtype('float64'))
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import numpy as fnp
from .. import random

Initializer = Callable[..., Any]

# the standard deviation of a standard normal truncated to (-2, 2)
_TRUNC2_STD = 0.87962566103423978


def _float(dtype: Any, name: str) -> np.dtype:
    dt = np.dtype(np.float64 if dtype is None else dtype)
    if dt.kind != "f":
        raise ValueError(f"fad.nn.initializers.{name}: dtype must be a real floating type, "
                         f"got {dt}")
    return dt


def zeros(key: Any, shape: Sequence[int], dtype: Any = None) -> Any:
    """An array of zeros (the key is not used).

    >>> import fad.random as fr, fad.nn.initializers as init
    >>> init.zeros(fr.key(0), (2,)).tolist()
    [0.0, 0.0]
    """
    return fnp.zeros(tuple(shape), np.dtype(np.float64 if dtype is None else dtype))


def ones(key: Any, shape: Sequence[int], dtype: Any = None) -> Any:
    """An array of ones (the key is not used).

    >>> import fad.random as fr, fad.nn.initializers as init
    >>> init.ones(fr.key(0), (2,)).tolist()
    [1.0, 1.0]
    """
    return fnp.ones(tuple(shape), np.dtype(np.float64 if dtype is None else dtype))


def constant(value: Any, dtype: Any = None) -> Initializer:
    """An initializer filling with ``value``.

    >>> import fad.random as fr, fad.nn.initializers as init
    >>> init.constant(-0.5)(fr.key(0), (2,)).tolist()
    [-0.5, -0.5]
    """
    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        dt = np.dtype(np.float64 if dtype is None else dtype)
        return fnp.full(tuple(shape), value, dtype=dt)
    return init


def normal(stddev: float = 1e-2, dtype: Any = None) -> Initializer:
    """An initializer drawing normal numbers of standard deviation ``stddev``.

    >>> import fad.random as fr, fad.nn.initializers as init
    >>> init.normal(0.5)(fr.key(0), (3, 2)).shape
    (3, 2)
    """
    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        dt = _float(dtype, "normal")
        return fnp.multiply(random.normal(key, shape, dt), np.asarray(stddev, dt))
    return init


def uniform(scale: float = 1e-2, dtype: Any = None) -> Initializer:
    """An initializer drawing uniform numbers in ``[0, scale)``.

    >>> import fad.random as fr, fad.nn.initializers as init
    >>> bool((init.uniform(2.0)(fr.key(0), (100,)) < 2.0).all())
    True
    """
    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        dt = _float(dtype, "uniform")
        return fnp.multiply(random.uniform(key, shape, dt), np.asarray(scale, dt))
    return init


def truncated_normal(stddev: float = 1e-2, dtype: Any = None, lower: float = -2.0,
                     upper: float = 2.0) -> Initializer:
    """An initializer drawing ``stddev`` times a standard normal truncated to
    ``(lower, upper)`` (so the standard deviation is below ``stddev``).

    >>> import fad.random as fr, fad.nn.initializers as init
    >>> bool((abs(init.truncated_normal(1.0)(fr.key(0), (100,))) < 2).all())
    True
    """
    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        dt = _float(dtype, "truncated_normal")
        x = random.truncated_normal(key, lower, upper, shape, dt)
        return fnp.multiply(x, np.asarray(stddev, dt))
    return init


def _axes_size(shape: tuple[int, ...], axes: int | Sequence[int]) -> int:
    return shape[axes] if isinstance(axes, int) else math.prod(shape[a] for a in axes)


def _axes_set(ndim: int, axes: int | Sequence[int]) -> set[int]:
    return {(axes if isinstance(axes, int) else a) % ndim
            for a in ((axes,) if isinstance(axes, int) else axes)}


def compute_fans(shape: Sequence[int], in_axis: int | Sequence[int] = -2,
                 out_axis: int | Sequence[int] = -1,
                 batch_axis: int | Sequence[int] = ()) -> tuple[float, float]:
    """``(fan_in, fan_out)`` of a weight of ``shape``: the sizes of ``in_axis`` and
    ``out_axis`` times the receptive field (the product of the axes that are none
    of ``in_axis``, ``out_axis`` and ``batch_axis``).

    >>> import fad.nn.initializers as init
    >>> init.compute_fans((3, 3, 16, 32))  # a 3x3 convolution kernel, HWIO
    (144.0, 288.0)
    """
    shape = tuple(shape)
    if len(shape) <= 1 and isinstance(in_axis, int) and in_axis == -2:
        raise ValueError(f"fad.nn.initializers: cannot compute the fans of a {len(shape)}-d "
                         "weight with the default in_axis; give a shape of at least 2 axes "
                         "or pass in_axis")
    in_size, out_size = _axes_size(shape, in_axis), _axes_size(shape, out_axis)
    named = set()
    for axes in (in_axis, out_axis, batch_axis):
        named |= _axes_set(len(shape), axes)
    receptive = math.prod(d for i, d in enumerate(shape) if i not in named)
    return float(in_size * receptive), float(out_size * receptive)


_MODES = ("fan_in", "fan_out", "fan_avg", "fan_geo_avg")
_DISTRIBUTIONS = ("truncated_normal", "normal", "uniform")


def variance_scaling(scale: float, mode: str, distribution: str,
                     in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
                     batch_axis: int | Sequence[int] = (), dtype: Any = None) -> Initializer:
    """An initializer of variance ``scale / n``, ``n`` the fan that ``mode``
    names (``"fan_in"``, ``"fan_out"``, ``"fan_avg"``: their mean, or
    ``"fan_geo_avg"``: their geometric mean), drawn from ``distribution``:
    ``"truncated_normal"`` (within two standard deviations, rescaled to the
    variance), ``"normal"`` or ``"uniform"`` (on ``+-sqrt(3 variance)``).

    >>> import fad.random as fr, fad.nn.initializers as init
    >>> w = init.variance_scaling(2.0, "fan_in", "normal")(fr.key(0), (200, 300))
    >>> round(float(w.var() * 200), 1)
    2.0
    """
    if mode not in _MODES:
        raise ValueError(f"fad.nn.initializers.variance_scaling: mode must be one of "
                         f"{_MODES}, got {mode!r}")
    if distribution not in _DISTRIBUTIONS:
        raise ValueError(f"fad.nn.initializers.variance_scaling: distribution must be one "
                         f"of {_DISTRIBUTIONS}, got {distribution!r}")

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        dt = _float(dtype, "variance_scaling")
        shape = tuple(shape)
        fan_in, fan_out = compute_fans(shape, in_axis, out_axis, batch_axis)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2,
             "fan_geo_avg": math.sqrt(fan_in * fan_out)}[mode]
        variance = scale / n
        if distribution == "truncated_normal":
            x = random.truncated_normal(key, -2.0, 2.0, shape, dt)
            std = math.sqrt(variance) / _TRUNC2_STD
        elif distribution == "normal":
            x, std = random.normal(key, shape, dt), math.sqrt(variance)
        else:
            x, std = random.uniform(key, shape, dt, -1.0, 1.0), math.sqrt(3 * variance)
        return fnp.multiply(x, np.asarray(std, dt))
    return init


def _family(scale: float, mode: str, distribution: str, name: str, doc: str) -> Callable:
    def factory(in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
                batch_axis: int | Sequence[int] = (), dtype: Any = None) -> Initializer:
        return variance_scaling(scale, mode, distribution, in_axis, out_axis, batch_axis,
                                dtype)
    factory.__name__ = factory.__qualname__ = name
    factory.__doc__ = doc
    return factory


def _doc(what: str, name: str) -> str:
    return (f"{what}\n\n    >>> import fad.random as fr, fad.nn.initializers as init\n"
            f"    >>> init.{name}()(fr.key(0), (4, 3)).shape\n    (4, 3)\n")


glorot_uniform = _family(1.0, "fan_avg", "uniform", "glorot_uniform", _doc(
    "Glorot (Xavier) uniform: ``variance_scaling(1, 'fan_avg', 'uniform')``.",
    "glorot_uniform"))
glorot_normal = _family(1.0, "fan_avg", "truncated_normal", "glorot_normal", _doc(
    "Glorot (Xavier) normal: ``variance_scaling(1, 'fan_avg', 'truncated_normal')``.",
    "glorot_normal"))
lecun_uniform = _family(1.0, "fan_in", "uniform", "lecun_uniform", _doc(
    "LeCun uniform: ``variance_scaling(1, 'fan_in', 'uniform')``.", "lecun_uniform"))
lecun_normal = _family(1.0, "fan_in", "truncated_normal", "lecun_normal", _doc(
    "LeCun normal: ``variance_scaling(1, 'fan_in', 'truncated_normal')``.",
    "lecun_normal"))
he_uniform = _family(2.0, "fan_in", "uniform", "he_uniform", _doc(
    "He (Kaiming) uniform: ``variance_scaling(2, 'fan_in', 'uniform')``.", "he_uniform"))
he_normal = _family(2.0, "fan_in", "truncated_normal", "he_normal", _doc(
    "He (Kaiming) normal: ``variance_scaling(2, 'fan_in', 'truncated_normal')``.",
    "he_normal"))
xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal


def orthogonal(scale: float = 1.0, column_axis: int = -1, dtype: Any = None) -> Initializer:
    """An initializer of (scaled) orthogonal matrices, uniformly distributed: the
    ``Q`` of a normal matrix's QR decomposition with ``R``'s diagonal made
    positive. Axis ``column_axis`` holds the columns; the other axes are flattened
    into rows; rows or columns, whichever are fewer, are orthonormal.

    >>> import fad.random as fr, fad.nn.initializers as init, numpy as np
    >>> q = init.orthogonal()(fr.key(0), (3, 3))
    >>> bool(np.allclose(q.T @ q, np.eye(3)))
    True
    """
    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        dt = _float(dtype, "orthogonal")
        shape = tuple(shape)
        if len(shape) < 2:
            raise ValueError("fad.nn.initializers.orthogonal needs a shape of at least 2 "
                             f"axes, got {shape}")
        if 0 in shape:
            return fnp.zeros(shape, dt)
        n_cols = shape[column_axis]
        n_rows = math.prod(shape) // n_cols
        a = random.normal(key, (max(n_rows, n_cols), min(n_rows, n_cols)), dt)
        q, r = fnp.linalg.qr(a)
        q = fnp.multiply(q, fnp.sign(fnp.diagonal(r)))
        if n_rows < n_cols:
            q = fnp.transpose(q)
        ax = column_axis % len(shape)
        rest = shape[:ax] + shape[ax + 1:]
        q = fnp.moveaxis(fnp.reshape(q, rest + (n_cols,)), -1, ax)
        return fnp.multiply(q, np.asarray(scale, dt))
    return init


__all__ = ["Initializer", "zeros", "ones", "constant", "normal", "uniform", "truncated_normal",
           "compute_fans", "variance_scaling", "glorot_uniform", "glorot_normal",
           "xavier_uniform", "xavier_normal", "lecun_uniform", "lecun_normal", "he_uniform",
           "he_normal", "kaiming_uniform", "kaiming_normal", "orthogonal"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
