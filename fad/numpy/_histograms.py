"""Histograms: ``histogram_bin_edges``, ``histogram``, ``histogram2d``,
``histogramdd``.

Each sample's bin is found by comparisons with the edges (one row of
indicators per sample), and the counts are a contraction of those rows (with
the weights), so a histogram has static shapes and works under ``jit`` and
``vmap``. As JAX's, the counts have no derivative in the samples (a sample
moved by a small amount stays in its bin); they are differentiable in the
weights, and the edges computed from the data's range are differentiable in
the data's minimum and maximum. String bin rules (``"auto"``...) need concrete
data (NumPy chooses the number of bins from the values). The counts are
floating-point arrays (JAX's convention; NumPy's unweighted counts are integers).
"""

from __future__ import annotations

import builtins
from typing import Any, Sequence

import numpy as np

from ..core.errors import ConcretizationError
from ..core.trace import concrete_or_none
from . import _contractions as C
from . import _math as M
from . import _reductions as R
from . import _shape as S
from ._base import asarray, cast, dtype_of
from ._creation import linspace


def _float(x: Any) -> Any:
    x = asarray(x)
    return x if dtype_of(x).kind == "f" else cast(x, np.dtype(np.float64))


def histogram_bin_edges(a: Any, bins: Any = 10, range: Any = None,
                        weights: Any = None) -> Any:
    """The edges of ``histogram``'s bins: ``bins + 1`` evenly spaced edges over
    ``range`` (default: the data's minimum and maximum), or ``bins`` itself.

    >>> import fad.numpy as fnp
    >>> fnp.histogram_bin_edges(fnp.array([0.0, 1.0, 4.0]), bins=4).tolist()
    [0.0, 1.0, 2.0, 3.0, 4.0]
    """
    a = S.ravel(_float(a))
    if isinstance(bins, str):
        c, w = concrete_or_none(a), None if weights is None else concrete_or_none(weights)
        if c is None or (weights is not None and w is None):
            raise ConcretizationError(
                f"fad.numpy.histogram_bin_edges: bins={bins!r} chooses the number of bins "
                "from the values, which are traced abstractly here; pass an integer or "
                "the edges")
        return asarray(np.histogram_bin_edges(np.asarray(c), bins, range, w))
    if not isinstance(bins, (int, np.integer)):
        edges = asarray(bins)
        if edges.ndim != 1:
            raise ValueError("fad.numpy.histogram_bin_edges: bins must be an integer, a "
                             "string, or a 1-d array of edges")
        return edges
    if bins < 1:
        raise ValueError("fad.numpy.histogram_bin_edges: bins must be a positive integer")
    if range is not None:
        lo, hi = range
        if lo > hi:
            raise ValueError("max must be larger than min in range parameter.")
        lo, hi = float(lo), float(hi)
        if lo == hi:  # NumPy widens an empty range by 0.5 on each side
            lo, hi = lo - 0.5, hi + 0.5
        return linspace(lo, hi, bins + 1, dtype=dtype_of(a))
    if a.shape[0] == 0:
        lo, hi = asarray(0.0, dtype_of(a)), asarray(1.0, dtype_of(a))
    else:
        lo, hi = R.min(a), R.max(a)
    same = M.equal(lo, hi)
    lo, hi = M.where(same, M.subtract(lo, 0.5), lo), M.where(same, M.add(hi, 0.5), hi)
    return linspace(lo, hi, bins + 1, dtype=dtype_of(a))


def _indicators(x: Any, edges: Any) -> Any:
    """``(n, bins)`` floats: 1 where sample ``i`` lies in bin ``k`` (half-open
    ``[e_k, e_k+1)``, the last bin closed, as NumPy)."""
    col = S.reshape(x, (-1, 1))
    above = M.greater_equal(col, edges[:-1])
    below = M.less(col, edges[1:])
    last = M.equal(col, edges[-1:])
    nb = edges.shape[0] - 1
    in_last = M.logical_and(last, asarray(np.arange(nb) == nb - 1))
    return cast(M.logical_or(M.logical_and(above, below), in_last), dtype_of(x))


def histogramdd(sample: Any, bins: Any = 10, range: Sequence[Any] | None = None,
                density: bool | None = None, weights: Any = None) -> tuple:
    """A D-dimensional histogram of ``sample`` (``(n, D)``): the counts (or sums
    of ``weights``) and the list of each dimension's edges.

    >>> import fad.numpy as fnp
    >>> h, edges = fnp.histogramdd(fnp.array([[0.0, 0.0], [1.0, 1.0]]), bins=2)
    >>> h.tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    sample = _float(sample)
    if sample.ndim == 1:
        sample = S.reshape(sample, (-1, 1))
    if sample.ndim != 2:
        raise ValueError("fad.numpy.histogramdd: sample must be (n, D)")
    d = sample.shape[1]
    per_dim = list(bins) if isinstance(bins, (list, tuple)) else [bins] * d
    ranges = list(range) if range is not None else [None] * d
    if len(per_dim) != d or len(ranges) != d:
        raise ValueError("fad.numpy.histogramdd: the dimension of bins (and range) must "
                         "equal the dimension of the sample")
    edges = [histogram_bin_edges(sample[:, k], b, r) for k, (b, r) in
             enumerate(zip(per_dim, ranges))]
    rows = [_indicators(sample[:, k], e) for k, e in enumerate(edges)]
    letters = "abcdefghijklmnopqrstuvwxyz"[:d]
    operands = rows
    spec = ",".join("z" + c for c in letters)
    if weights is not None:
        operands = rows + [cast(asarray(weights), dtype_of(sample))]
        spec += ",z"
    hist = C.einsum(spec + "->" + letters, *operands)
    if density:
        widths = [R.diff(e) for e in edges]
        volume = widths[0]
        for k in builtins.range(1, d):
            volume = M.multiply(S.expand_dims(volume, -1), widths[k])
        hist = M.divide(hist, M.multiply(R.sum(hist), volume))
    return hist, edges


def histogram(a: Any, bins: Any = 10, range: Any = None, density: bool | None = None,
              weights: Any = None) -> tuple:
    """The counts (or sums of ``weights``) of ``a`` in ``bins``, and the edges.

    >>> import fad.numpy as fnp
    >>> h, e = fnp.histogram(fnp.array([0.0, 0.5, 1.0, 3.0]), bins=3, range=(0, 3))
    >>> h.tolist(), e.tolist()
    ([2.0, 1.0, 1.0], [0.0, 1.0, 2.0, 3.0])
    """
    a = S.ravel(_float(a))
    edges = histogram_bin_edges(a, bins, range, weights)
    w = None if weights is None else S.ravel(asarray(weights))
    hist, _ = histogramdd(S.reshape(a, (-1, 1)), [edges], None, density, w)
    return hist, edges


def histogram2d(x: Any, y: Any, bins: Any = 10, range: Any = None,
                density: bool | None = None, weights: Any = None) -> tuple:
    """A two-dimensional histogram of the points ``(x, y)``: counts, x edges,
    y edges.

    >>> import fad.numpy as fnp
    >>> h, ex, ey = fnp.histogram2d(fnp.array([0.0, 1.0]), fnp.array([1.0, 1.0]), bins=2)
    >>> h.tolist()
    [[0.0, 1.0], [0.0, 1.0]]
    """
    # NumPy's reading of bins: two entries are (x bins, y bins), else both share it
    two = not isinstance(bins, (int, np.integer, str)) and len(bins) == 2
    per_dim = list(bins) if two else [bins, bins]
    hist, (ex, ey) = histogramdd(S.stack([S.ravel(_float(x)), S.ravel(_float(y))], axis=1),
                                 per_dim, range, density, weights)
    return hist, ex, ey


__all__ = ["histogram", "histogram2d", "histogram_bin_edges", "histogramdd"]
