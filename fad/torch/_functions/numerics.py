"""Statistics, searching, counting and integration under PyTorch's names: ``cov``,
``corrcoef``, ``dist``, ``searchsorted``, ``isin``, ``bincount``,
``unique_consecutive``, ``trapezoid``/``trapz``/``cumulative_trapezoid``, ``vander``,
``unravel_index``, ``gcd``/``lcm`` and ``frexp``. Each is a ``fad.numpy`` function
recorded as one operation (indices, counts and tests have no derivative)."""

from __future__ import annotations

import itertools
from collections import namedtuple
from typing import Any, Sequence

import numpy as np

from ... import numpy as fnp
from .. import _dtype
from .._creation import _place
from .._graph import host
from .._recorder import EW, EWF, Op, apply
from ..tensor import Tensor, _wrap_dim, wrap
from ._common import _t, exported
from .pointwise import ldexp


def _searchsorted(seq: Any, v: Any, order: Any = None, *, side: str = "left",
                  dt: str = "int64") -> Any:
    if order is not None:
        seq = fnp.take_along_axis(seq, order, axis=-1)
    if seq.ndim == 1:
        return fnp.searchsorted(seq, v, side=side).astype(dt)
    rows = [fnp.searchsorted(s, w, side=side) for s, w in
            zip(fnp.reshape(seq, (-1, seq.shape[-1])), fnp.reshape(v, (-1, v.shape[-1])))]
    return fnp.reshape(fnp.stack(rows), v.shape).astype(dt)


def _bincount(a: Any, w: Any = None, *, minlength: int = 0, dt: str = "int64") -> Any:
    return fnp.bincount(a, w, minlength=minlength).astype(dt)


# operations without a derivative: their inputs' values in, indices or tests out
_CONSTANTS = {name: Op(name, fun, "NotDifferentiable", None, False) for name, fun in {
    "searchsorted": _searchsorted,
    "isin": lambda a, b, invert=False: fnp.isin(a, b, invert=invert),
    "bincount": _bincount,
    "gcd": fnp.gcd, "lcm": fnp.lcm,
    "histogram": lambda a, edges, w=None, density=False: fnp.histogram(
        a, edges, weights=w, density=density)[0].astype(a.dtype),
}.items()}


def _constant(name: str, *args: Any, **params: Any) -> Tensor:
    return apply(_CONSTANTS[name], tuple(a.detach() if isinstance(a, Tensor) else a
                                         for a in args), params)


_COV = Op("cov", lambda a, fweights=None, aweights=None, correction=1: fnp.cov(
    a, ddof=correction, fweights=fweights, aweights=aweights), "CovBackward0", None, True)
_CORRCOEF = Op("corrcoef", lambda a: fnp.clip(fnp.corrcoef(a), -1, 1), "ClampBackward1", None,
               True)


def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    """The covariance matrix of the variables in ``input``'s rows (observations in
    its columns), with ``correction`` (1: Bessel's), integer frequency weights and
    observation weights.

    >>> import fad.torch as torch
    >>> torch.cov(torch.tensor([[1.0, 2.0, 4.0], [3.0, 1.0, 0.5]]))
    tensor([[ 2.3333, -1.7500],
            [-1.7500,  1.7500]])
    """
    dt = input.dtype.np if input.dtype.np.kind in "fc" else _dtype.get_default_dtype().np
    weights = {k: None if w is None else host(w._value).astype(dt)  # (constants)
               for k, w in (("fweights", fweights), ("aweights", aweights))}
    return apply(_COV, (_floating(input, "cov"),), {"correction": int(correction), **weights})


def _floating(input: Tensor, name: str) -> Tensor:
    """``input``, or its values in the default floating dtype when they are integers
    (PyTorch's statistics of integers are in that dtype; of booleans, refused)."""
    kind = input.dtype.np.kind
    if kind in "fc":
        return input
    if kind == "b":
        raise RuntimeError(f"{name}(): bool dtype is not supported for input")
    return input.to(_dtype.get_default_dtype())


def corrcoef(input: Tensor) -> Tensor:
    """Pearson's correlation coefficients of the variables in ``input``'s rows.

    >>> import fad.torch as torch
    >>> torch.corrcoef(torch.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 7.0]]))
    tensor([[1.0000, 0.9934],
            [0.9934, 1.0000]])
    """
    return apply(_CORRCOEF, (_floating(input, "cov"),))


_DIST = Op("dist", lambda a, b, p=2: fnp.linalg.norm(fnp.ravel(a - b), ord=p), "DistBackward0",
           EW, True)


def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """The ``p``-norm of ``input - other`` (broadcast), over all its elements.

    >>> import fad.torch as torch
    >>> torch.dist(torch.tensor([1.0, 2.0]), torch.tensor([4.0, 6.0]))
    tensor(5.)
    """
    if not isinstance(input, Tensor) or input.dtype.np.kind not in "fc":
        word = _dtype.type_word(_t(input).dtype)
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {word} instead.")
    return apply(_DIST, (input, other), {"p": float(p)})


def searchsorted(sorted_sequence: Tensor, input: Any, *, out_int32: bool = False,
                 right: bool = False, side: str | None = None, sorter: Tensor | None = None
                 ) -> Tensor:
    """Where each of ``input`` would go in ``sorted_sequence`` (1-d, or one sorted row
    per leading index of ``input``) to keep it sorted: the first such place, or the
    last with ``right=True`` / ``side="right"``; int64 (``out_int32``: int32).

    >>> import fad.torch as torch
    >>> torch.searchsorted(torch.tensor([1, 3, 5, 7]), torch.tensor([3, 6]))
    tensor([1, 3])
    """
    if side is not None and side not in ("left", "right"):
        raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                           f"got {side}")
    if side is not None and right and side == "left":
        raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                           "got side of left while right was True")
    side = side or ("right" if right else "left")
    values = input if isinstance(input, Tensor) else _t(input)
    if sorted_sequence.dim() > 1 and tuple(sorted_sequence.shape[:-1]) != \
            tuple(values.shape[:-1]):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(sorted_sequence.shape)} and input value tensor "
            f"{list(values.shape)}")
    args = (sorted_sequence, values) if sorter is None else (sorted_sequence, values, sorter)
    return _constant("searchsorted", *args, side=side, dt="int32" if out_int32 else "int64")


def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False,
              right: bool = False) -> Tensor:
    """The index of each element's bucket among the sorted ``boundaries``:
    ``boundaries[i-1] < x <= boundaries[i]`` (``right``: ``<=`` and ``<``);
    int64 (``out_int32``: int32); no derivative (``searchsorted`` with the
    arguments swapped).

    >>> import fad.torch as torch
    >>> torch.bucketize(torch.tensor([0.5, 1.0, 2.5]), torch.tensor([1.0, 2.0]))
    tensor([0, 0, 2])
    """
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries.dim()})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False,
         invert: bool = False) -> Tensor:
    """Whether each of ``elements`` is among ``test_elements`` (either may be a number).

    >>> import fad.torch as torch
    >>> torch.isin(torch.tensor([1, 2, 3]), torch.tensor([2, 5]))
    tensor([False,  True, False])
    """
    return _constant("isin", _t(elements), _t(test_elements), invert=bool(invert))


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """How many times each of ``0 .. max(input)`` occurs in ``input`` (1-d, non-negative
    integers), or the sum of ``weights`` there (in their dtype; float64 for integer
    weights), at least ``minlength`` entries.

    >>> import fad.torch as torch
    >>> torch.bincount(torch.tensor([0, 2, 2, 5]))
    tensor([1, 0, 2, 0, 0, 1])
    """
    if input.dim() != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if input.dtype.np.kind not in "iub":
        raise NotImplementedError(f'"bincount_cpu" not implemented for '
                                  f"'{_dtype.type_word(input.dtype)}'")
    if input.numel() and int(input.min()) < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return _constant("bincount", input, minlength=int(minlength))
    dt = weights.dtype.name if weights.dtype.np.kind == "f" else "float64"
    return _constant("bincount", input, weights, minlength=int(minlength), dt=dt)


def unique_consecutive(input: Tensor, return_inverse: bool = False,
                       return_counts: bool = False, dim: int | None = None) -> Any:
    """``input``'s values with each run of equal ones (along ``dim``: equal slices)
    kept once; with the index of each element's run and each run's length.

    >>> import fad.torch as torch
    >>> torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1, 1]))
    tensor([1, 2, 3, 1])
    """
    x = input.detach()
    if dim is None:
        x = x.reshape(-1)
    d = 0 if dim is None else _wrap_dim(dim, input.dim())
    moved = x.movedim(d, 0)
    n = moved.shape[0]
    if n:
        k = int(np.prod(moved.shape[1:], dtype=np.int64))  # (-1 cannot stand for it at n = 1)
        change = (moved[1:] != moved[:-1]).reshape(n - 1, k).any(1)
        starts = _cat_first(change)
    else:
        starts = change = moved.new_zeros((0,), dtype=_dtype.bool)
    values = moved[starts].movedim(0, d)
    out = [values]
    if return_inverse:
        inverse = starts.long().cumsum(0) - 1
        out.append(inverse if dim is not None else inverse.reshape(input.shape))
    if return_counts:
        positions = starts.nonzero().reshape(-1)
        ends = _cat_last(positions[1:], n)
        out.append(ends - positions)
    return out[0] if len(out) == 1 else tuple(out)


def _cat_first(change: Tensor) -> Tensor:
    from .shapes import cat
    return cat([change.new_ones((1,)), change])


def _cat_last(positions: Tensor, n: int) -> Tensor:
    from .shapes import cat
    return cat([positions, positions.new_full((1,), n)])


_TRAPEZOID = Op("trapezoid", lambda y, x=None, dx=1.0, dim=-1: fnp.trapezoid(
    y, x, dx=dx, axis=dim), "TrapezoidBackward0", EWF, True)


def _cumulative(y: Any, x: Any = None, dx: float = 1.0, dim: int = -1) -> Any:
    y = fnp.moveaxis(y, dim, -1)
    steps = dx if x is None else fnp.diff(fnp.moveaxis(x, dim, -1) if x.ndim > 1 else x)
    return fnp.moveaxis(fnp.cumsum((y[..., 1:] + y[..., :-1]) * steps / 2, axis=-1), -1, dim)


_CUMULATIVE = Op("cumulative_trapezoid", _cumulative, "CumsumBackward0", EWF, True)


def trapezoid(y: Tensor, x: Tensor | None = None, *, dx: float | None = None,
              dim: int = -1) -> Tensor:
    """The trapezoidal rule along ``dim``: the integral of ``y`` sampled at ``x`` (or
    ``dx`` apart, 1 by default).

    >>> import fad.torch as torch
    >>> torch.trapezoid(torch.tensor([1.0, 2.0, 4.0]))
    tensor(4.5000)
    """
    if x is not None and dx is not None:
        raise TypeError("trapezoid() received an invalid combination of arguments: x and "
                        "dx cannot both be given")
    d = _wrap_dim(dim, y.dim())
    if x is None:
        return apply(_TRAPEZOID, (y,), {"dx": 1.0 if dx is None else float(dx), "dim": d})
    return apply(_TRAPEZOID, (y, x), {"dim": d})


def trapz(y: Tensor, x: Any = None, *, dx: float | None = None, dim: int = -1) -> Tensor:
    """``trapezoid`` under its former name (``trapz(y, x, dim=...)`` or
    ``trapz(y, dx=..., dim=...)``).

    >>> import fad.torch as torch
    >>> torch.trapz(torch.tensor([1.0, 3.0]), torch.tensor([0.0, 2.0]))
    tensor(4.)
    """
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x: Tensor | None = None, *, dx: float | None = None,
                         dim: int = -1) -> Tensor:
    """The running trapezoidal integral along ``dim`` (one fewer entry than ``y``).

    >>> import fad.torch as torch
    >>> torch.cumulative_trapezoid(torch.tensor([1.0, 2.0, 4.0]))
    tensor([1.5000, 4.5000])
    """
    d = _wrap_dim(dim, y.dim())
    if x is None:
        return apply(_CUMULATIVE, (y,), {"dx": 1.0 if dx is None else float(dx), "dim": d})
    return apply(_CUMULATIVE, (y, x), {"dim": d})


_VANDER = Op("vander", lambda x, N=None, increasing=False: fnp.vander(x, N, increasing),
             "VanderBackward0", None, True)


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix of the 1-d ``x``: its powers ``N - 1`` down to 0
    (``increasing``: 0 up), one row per element.

    >>> import fad.torch as torch
    >>> torch.vander(torch.tensor([1, 2, 3]))
    tensor([[1, 1, 1],
            [4, 2, 1],
            [9, 3, 1]])
    """
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    if N is not None and N < 0:
        raise RuntimeError("N must be non-negative.")
    if x.dtype == _dtype.bool or x.dtype.np.kind in "iu" and x.dtype != _dtype.int64:
        x = x.long()  # (PyTorch's integer powers are int64)
    return apply(_VANDER, (x,), {"N": N, "increasing": bool(increasing)})


def unravel_index(indices: Any, shape: Sequence[int]) -> tuple:
    """The coordinates, in an array of ``shape``, of each flat index in ``indices``.

    >>> import fad.torch as torch
    >>> torch.unravel_index(torch.tensor([4, 5]), (2, 3))
    (tensor([1, 1]), tensor([1, 2]))
    """
    flat = _t(indices)
    if flat.dtype.np.kind not in "iu":
        raise TypeError("expected 'indices' to be integer dtype, but got "
                        f"{flat.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(int(n) for n in shape)
    if any(n < 0 for n in shape):
        raise ValueError("'shape' cannot have negative values, but got " f"{shape}")
    size = 1
    for n in shape:
        size *= n
    coords = []  # (indices outside the array wrap around, as PyTorch's)
    rest = flat.detach() % size if size else flat.detach()
    for n in reversed(shape):
        coords.append(rest % n if n else rest)
        rest = rest // n if n else rest
    return tuple(reversed(coords))


def _integers_only(name: str, *args: Tensor) -> None:
    for a in args:
        if isinstance(a, Tensor) and a.dtype.np.kind not in "iub":
            raise NotImplementedError(f'"{name}_cpu" not implemented for '
                                      f"'{_dtype.type_word(a.dtype)}'")


def gcd(input: Tensor, other: Tensor) -> Tensor:
    """The greatest common divisor of integers (broadcast; non-negative).

    >>> import fad.torch as torch
    >>> torch.gcd(torch.tensor([12, 18]), torch.tensor([8, 27]))
    tensor([4, 9])
    """
    _integers_only("gcd", input, other)
    return _constant("gcd", input, other)


def lcm(input: Tensor, other: Tensor) -> Tensor:
    """The least common multiple of integers (broadcast; non-negative).

    >>> import fad.torch as torch
    >>> torch.lcm(torch.tensor([4]), torch.tensor([6]))
    tensor([12])
    """
    _integers_only("lcm", input, other)
    return _constant("lcm", input, other)


histogram_result = namedtuple("histogram", ["hist", "bin_edges"])
histogram_result.__module__ = "torch.return_types"


def histogram(input: Tensor, bins: Any = 100, *, range: tuple | None = None,
              weight: Tensor | None = None, density: bool = False) -> Any:
    """``(hist, bin_edges)``: counts (or summed ``weight``; ``density``: normalised to
    integrate to 1) of ``input`` in ``bins`` equal bins over ``range`` (the data's by
    default), or between the given edges; no derivative.

    >>> import fad.torch as torch
    >>> torch.histogram(torch.tensor([1.0, 2.0, 1.0, 4.0]), bins=3).hist
    tensor([2., 1., 1.])
    """
    if not input.is_floating_point():
        raise RuntimeError(f"torch.histogram: input tensor and bins tensors should have the "
                           f"same dtype, but got input {input.dtype.np.name} and bins float")
    if isinstance(bins, Tensor):
        edges = bins.detach()
    else:
        values = host(input.detach()._value)
        lo, hi = range if range is not None else (
            (float(values.min()), float(values.max())) if values.size else (0.0, 0.0))
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5  # (NumPy's widening of an empty range; PyTorch's)
        edges = wrap(_place(np.linspace(lo, hi, int(bins) + 1).astype(input.dtype.np)))
    args = (input, edges) if weight is None else (input, edges, weight)
    return histogram_result(_constant("histogram", *args, density=bool(density)), edges)


def gradient(input: Tensor, *, spacing: Any = 1, dim: Any = None, edge_order: int = 1
             ) -> tuple:
    """The derivative of samples ``input`` along each of ``dim`` (all by default) by
    central differences inside and one-sided at the ends, ``spacing`` apart (a
    number, or one per dimension; coordinate tensors and ``edge_order=2`` are not
    supported): one tensor per dimension.

    >>> import fad.torch as torch
    >>> torch.gradient(torch.tensor([1.0, 2.0, 4.0, 8.0]))
    (tensor([1.0000, 1.5000, 3.0000, 4.0000]),)
    """
    dims = tuple(range(input.dim())) if dim is None else (
        (dim,) if isinstance(dim, int) else tuple(dim))
    dims = tuple(_wrap_dim(d, input.dim()) for d in dims)
    steps = tuple(spacing) if isinstance(spacing, list | tuple) else (spacing,) * len(dims)
    if edge_order != 1:
        raise NotImplementedError("torch.gradient: fad.torch supports edge_order=1 only")
    if not all(isinstance(s, int | float) for s in steps):
        raise NotImplementedError("torch.gradient: fad.torch takes numbers as spacing, not "
                                  "coordinate tensors")
    out = apply(_GRADIENT, (input,), {"steps": steps, "dims": dims,
                                      "edge_order": int(edge_order)})
    return tuple(out)


def _gradient(a: Any, steps: tuple = (), dims: tuple = (), edge_order: int = 1) -> list:
    got = fnp.gradient(a, *steps, axis=dims, edge_order=edge_order)
    return list(got) if isinstance(got, list | tuple) else [got]


_GRADIENT = Op("gradient", _gradient, "GradientBackward0", None, True, multi=True)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """Every combination of ``r`` elements of the 1-d ``input`` (in order; with
    repeats when ``with_replacement``), one per row.

    >>> import fad.torch as torch
    >>> torch.combinations(torch.tensor([1, 2, 3]))
    tensor([[1, 2],
            [1, 3],
            [2, 3]])
    """
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    rows = np.array(list(pick(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    if not rows.size:
        return input[wrap(_place(rows.reshape(-1)))].reshape(0, r) if r else input[:0]
    return input[wrap(_place(rows))]


frexp_result = namedtuple("frexp", ["mantissa", "exponent"])
frexp_result.__module__ = "torch.return_types"


def frexp(input: Tensor) -> Any:
    """``input = mantissa * 2 ** exponent`` with ``0.5 <= |mantissa| < 1`` (int32
    exponents). The exponents are read off the values (NumPy's ``frexp``, no
    derivative); the mantissa is ``input`` times a power of two, exact, so its
    gradient is ``2 ** -exponent``, as PyTorch's.

    >>> import fad.torch as torch
    >>> torch.frexp(torch.tensor([8.0])).exponent
    tensor([4], dtype=torch.int32)
    """
    if input.dtype.np.kind not in "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    exponent = wrap(_place(np.frexp(host(input._value))[1].astype(np.int32)))
    return frexp_result(ldexp(input, -exponent), exponent)


__all__ = [n for n in exported(globals()) if not n.endswith("_result")]
