"""``scipy.signal``'s convolutions, traced and differentiable (as
``jax.scipy.signal``): ``convolve correlate`` (any number of dimensions, the
same for both inputs), ``convolve2d correlate2d``.

A convolution is bilinear. It is written as a gather of the windows of the
zero-padded larger input (indices fixed by the shapes) contracted with the
flipped smaller one, so that both derivatives follow from the rules of
``take`` (a scatter-add in reverse mode) and ``tensordot``: no primitive of its
own. Memory is the output's size times the smaller input's.

``convolve`` also takes HIPS autograd's extension, ``axes=([axes of in1],
[axes of in2])`` (the pairs of axes convolved; the others are kept, in1's then
in2's, before the convolved ones) and ``dot_axes`` (pairs of axes summed over,
as ``tensordot``'s): a convolutional layer in one call. That form is one
``fad.lax.conv_general_dilated`` (the kept axes of each input flattened into
its batch or output-feature axis, the summed ones into its feature axis).

>>> import fad, fad.numpy as fnp, fad.scipy.signal as fss
>>> fss.convolve(fnp.array([1.0, 2.0, 3.0]), fnp.array([0.0, 1.0, 0.5])).tolist()
[0.0, 1.0, 2.5, 4.0, 1.5]
>>> fad.grad(lambda k: fnp.sum(fss.convolve(fnp.array([1.0, 2.0]), k)))(fnp.ones(2)).tolist()
[3.0, 3.0]
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from .. import numpy as fnp
from ..lax import conv_general_dilated
from ..numpy._base import promote_all

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d"]

_MODES = ("full", "same", "valid")


@functools.lru_cache(maxsize=64)
def _window_index(padded: tuple, out: tuple, kernel: tuple) -> np.ndarray:
    """Flat indices into an array of shape ``padded``: entry ``(k, j)`` (output
    index, kernel index) is the element at ``k + j``."""
    grids = np.indices(out + kernel, sparse=True)
    d = len(out)
    strides = np.cumprod((1,) + padded[:0:-1])[::-1]
    return sum((grids[i] + grids[d + i]) * int(strides[i]) for i in range(d))


def _full_convolve(x: Any, k: Any) -> Any:
    """The full convolution ``out[n] = sum_j k[j] x[n - j]`` (zeros outside ``x``),
    with ``k`` the smaller input: the windows of ``x`` padded by ``len(k) - 1``
    zeros on each side, against ``k`` flipped."""
    ks = k.shape
    x = fnp.pad(x, [(m - 1, m - 1) for m in ks])
    out = tuple(n - m + 1 for n, m in zip(x.shape, ks))
    windows = fnp.take(fnp.ravel(x), _window_index(x.shape, out, ks))
    d = len(ks)
    flipped = fnp.flip(k, axis=tuple(range(d))) if d else k
    return fnp.tensordot(windows, flipped, axes=d)


def _check(in1: Any, in2: Any, mode: str, fn: str) -> tuple:
    if mode not in _MODES:
        raise ValueError(f"{fn}: mode must be 'full', 'same' or 'valid', got {mode!r}")
    in1, in2 = fnp.asarray(in1), fnp.asarray(in2)
    if in1.ndim != in2.ndim:
        raise ValueError(f"{fn}: in1 and in2 should have the same dimensionality, got "
                         f"shapes {in1.shape} and {in2.shape}")
    return tuple(promote_all(in1, in2))


def _crop(full: Any, s1: tuple, s2: tuple, mode: str, fn: str) -> Any:
    """``mode``'s part of the full result (SciPy's centring for 'same')."""
    if mode == "full":
        return full
    if mode == "same":
        size = s1
    else:
        if not (all(a >= b for a, b in zip(s1, s2)) or all(b >= a for a, b in zip(s1, s2))):
            raise ValueError(f"{fn}: for 'valid' mode, one input must be at least as large "
                             f"as the other in every dimension, got {s1} and {s2}")
        size = tuple(max(a, b) - min(a, b) + 1 for a, b in zip(s1, s2))
    index = tuple(slice((f - n) // 2 if mode == "same" else min(a, b) - 1,
                        ((f - n) // 2 if mode == "same" else min(a, b) - 1) + n)
                  for f, n, a, b in zip(full.shape, size, s1, s2))
    return full[index]


def _convolve(in1: Any, in2: Any, mode: str, fn: str) -> Any:
    s1, s2 = in1.shape, in2.shape
    if 0 in s1 or 0 in s2:
        raise ValueError(f"{fn}: in1 and in2 should not be empty, got shapes {s1} and {s2}")
    if not s1:  # 0-d: a product
        return in1 * in2
    # (convolution commutes: the smaller input is the kernel)
    big, small = (in1, in2) if math.prod(s1) >= math.prod(s2) else (in2, in1)
    return _crop(_full_convolve(big, small), s1, s2, mode, fn)


def _axes_convolve(a: Any, b: Any, axes: Any, dot_axes: Any, mode: str) -> Any:
    """autograd's ``convolve(A, B, axes, dot_axes, mode)``: shape ``A's kept axes
    + B's kept axes + the convolved axes``."""
    if mode not in _MODES:
        raise ValueError(f"convolve: mode must be 'full', 'same' or 'valid', got {mode!r}")
    a, b = promote_all(fnp.asarray(a), fnp.asarray(b))
    if axes is None:
        if a.ndim - len(dot_axes[0]) != b.ndim - len(dot_axes[1]):
            raise ValueError("convolve: without axes, in1 and in2 need as many axes besides "
                             f"dot_axes, got shapes {a.shape} and {b.shape}")
        axes = [[i for i in range(x.ndim) if i not in d] for x, d in zip((a, b), dot_axes)]
    (ca, cb), (da, db) = ([[int(i) % x.ndim for i in ax] for x, ax in zip((a, b), pair)]
                          for pair in (axes, dot_axes))
    if len(ca) != len(cb) or len(da) != len(db):
        raise ValueError(f"convolve: axes {axes} and dot_axes {dot_axes} must pair the axes "
                         "of in1 with as many axes of in2")
    if any(a.shape[i] != b.shape[j] for i, j in zip(da, db)):
        raise ValueError(f"convolve: dot_axes {dot_axes} pair axes of different lengths, "
                         f"shapes {a.shape} and {b.shape}")
    na, nb = [a.shape[i] for i in ca], [b.shape[j] for j in cb]
    if mode == "valid" and any(p < q for p, q in zip(na, nb)):
        if not all(p <= q for p, q in zip(na, nb)):
            raise ValueError("convolve: for 'valid' mode, one input must be at least as "
                             f"large as the other along every convolved axis, got {na} and {nb}")
        out = _axes_convolve(b, a, (cb, ca), (db, da), mode)   # convolution commutes
        kb = b.ndim - len(cb) - len(db)
        ka = a.ndim - len(ca) - len(da)
        return fnp.transpose(out, [*range(kb, kb + ka), *range(kb), *range(ka + kb, out.ndim)])
    keep_a = [i for i in range(a.ndim) if i not in ca and i not in da]
    keep_b = [j for j in range(b.ndim) if j not in cb and j not in db]
    lhs = fnp.reshape(fnp.transpose(a, keep_a + da + ca),
                      (math.prod(a.shape[i] for i in keep_a), -1, *na))
    rhs = fnp.reshape(fnp.transpose(b, keep_b + db + cb),
                      (math.prod(b.shape[j] for j in keep_b), -1, *nb))
    rhs = fnp.flip(rhs, axis=tuple(range(2, rhs.ndim)))   # a convolution, not a correlation
    pads = [(0, 0) if mode == "valid" else (q - 1, q - 1) for q in nb]
    out = conv_general_dilated(lhs, rhs, (1,) * len(na), pads)
    if mode == "same":   # SciPy's centring: in1's length, from (len(in2) - 1) // 2
        out = out[(slice(None), slice(None), *(slice((q - 1) // 2, (q - 1) // 2 + p)
                                                for p, q in zip(na, nb)))]
    return fnp.reshape(out, (*(a.shape[i] for i in keep_a), *(b.shape[j] for j in keep_b),
                             *out.shape[2:]))


def convolve(in1: Any, in2: Any, mode: str = "full", method: str = "auto",
             precision: Any = None, *, axes: Any = None, dot_axes: Any = None) -> Any:
    """The N-dimensional convolution ``out[n] = sum_j in1[j] in2[n - j]``: 'full'
    (every overlap), 'same' (``in1``'s shape, centred), 'valid' (no zero padding
    involved). ``method`` is accepted and ignored.

    With ``axes=([i...], [j...])`` and/or ``dot_axes=([k...], [l...])`` (HIPS
    autograd's extension; without ``axes`` every axis not in ``dot_axes`` is
    convolved), only axis ``i`` of ``in1`` is convolved with axis ``j`` of
    ``in2``, axes ``k`` and ``l`` are multiplied and summed, and the other axes
    are kept: the result has ``in1``'s kept axes, then ``in2``'s, then the
    convolved ones. That is a convolutional layer: images ``(batch, colour, y,
    x)`` and filters ``(colour, feature, y, x)`` give ``(batch, feature, y', x')``.

    >>> import fad.numpy as fnp, fad.scipy.signal as fss
    >>> fss.convolve(fnp.array([1.0, 2.0, 3.0]), fnp.array([1.0, 1.0]), mode="valid").tolist()
    [3.0, 5.0]
    >>> images, filters = fnp.ones((8, 3, 28, 28)), fnp.ones((3, 16, 5, 5))
    >>> fss.convolve(images, filters, axes=([2, 3], [2, 3]), dot_axes=([1], [0]),
    ...              mode="valid").shape
    (8, 16, 24, 24)
    """
    if axes is not None or dot_axes is not None:
        return _axes_convolve(in1, in2, axes, dot_axes or ((), ()), mode)
    in1, in2 = _check(in1, in2, mode, "convolve")
    return _convolve(in1, in2, mode, "convolve")


def correlate(in1: Any, in2: Any, mode: str = "full", method: str = "auto",
              precision: Any = None) -> Any:
    """The N-dimensional cross-correlation ``out[n] = sum_j in1[n + j] conj(in2[j])``
    (offsets as SciPy's): ``convolve`` of ``in1`` with ``in2`` flipped and
    conjugated.

    >>> import fad.numpy as fnp, fad.scipy.signal as fss
    >>> fss.correlate(fnp.array([1.0, 2.0, 3.0]), fnp.array([0.0, 1.0]), mode="valid").tolist()
    [2.0, 3.0]
    """
    in1, in2 = _check(in1, in2, mode, "correlate")
    in2 = fnp.conj(in2)
    if in2.ndim:
        in2 = fnp.flip(in2, axis=tuple(range(in2.ndim)))
    return _convolve(in1, in2, mode, "correlate")


def _two_d(in1: Any, in2: Any, boundary: str, fillvalue: Any, fn: str) -> None:
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError(f"{fn}: only boundary='fill' with fillvalue=0 is "
                                  "supported (pad the input yourself for other boundaries)")
    if fnp.ndim(in1) != 2 or fnp.ndim(in2) != 2:
        raise ValueError(f"{fn} inputs must both be 2-D arrays, got shapes "
                         f"{fnp.shape(in1)} and {fnp.shape(in2)}")


def convolve2d(in1: Any, in2: Any, mode: str = "full", boundary: str = "fill",
               fillvalue: Any = 0, precision: Any = None) -> Any:
    """``convolve`` of two 2-D arrays (zero fill at the boundary only).

    >>> import fad.numpy as fnp, fad.scipy.signal as fss
    >>> fss.convolve2d(fnp.eye(2), fnp.ones((1, 1)) * 2.0).tolist()
    [[2.0, 0.0], [0.0, 2.0]]
    """
    _two_d(in1, in2, boundary, fillvalue, "convolve2d")
    return convolve(in1, in2, mode)


def correlate2d(in1: Any, in2: Any, mode: str = "full", boundary: str = "fill",
                fillvalue: Any = 0, precision: Any = None) -> Any:
    """The cross-correlation of two 2-D arrays (zero fill at the boundary only), as
    SciPy's ``correlate2d``: ``correlate``, except that 'same' is centred
    differently for even-sized ``in2`` and 'valid' with a larger ``in2`` is
    reversed.

    >>> import fad.numpy as fnp, fad.scipy.signal as fss
    >>> fss.correlate2d(fnp.ones((2, 2)), fnp.ones((2, 2)), mode="valid").tolist()
    [[4.0]]
    """
    _two_d(in1, in2, boundary, fillvalue, "correlate2d")
    in1, in2 = _check(in1, in2, mode, "correlate2d")
    both = (0, 1)
    # SciPy's correlate2d centres 'same' on in1 flipped, and for 'valid' with
    # in2 the larger it correlates in2 with in1 and flips the result
    if mode == "same":
        return fnp.flip(convolve(fnp.flip(in1, axis=both), fnp.conj(in2), mode), axis=both)
    if mode == "valid" and in1.shape != in2.shape and \
            all(b >= a for a, b in zip(in1.shape, in2.shape)):
        return fnp.flip(correlate(in2, in1, mode), axis=both)
    return correlate(in1, in2, mode)


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
