"""Products of ``fad.numpy``: ``matmul dot einsum tensordot outer inner vdot
vecdot kron cross trace``..., and the sliding products ``convolve`` and
``correlate``."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from ..core.errors import ShapeError, user_source
from ..core.trace import bind
from ..primitives import contractions as C
from ..primitives import cumulative as Cu
from ..primitives.sorting import constant
from ..primitives.structural import reshape
from . import _indexing as I
from . import _math as M
from . import _reductions as R
from . import _shape as S
from ._base import asarray, promote_all
from ._base import no_out as _no_out
from ._complex import conj
from ._indexing import diagonal
from ._math import multiply
from ._shape import _bcast, _slice, flip


def matmul(a: Any, b: Any) -> Any:
    """Matrix product with NumPy's rules (1-d operands, batch broadcasting).

    >>> import fad.numpy as fnp
    >>> fnp.matmul(fnp.ones((5, 2, 3)), fnp.ones(3)).shape
    (5, 2)
    """
    a, b = promote_all(a, b)
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeError("matmul: input operand does not have enough dimensions "
                         f"(shapes {a.shape} and {b.shape}); use * for scalars")
    a_vec, b_vec = a.ndim == 1, b.ndim == 1
    if a.shape[-1] != (b.shape[0] if b_vec else b.shape[-2]):
        raise _inner_mismatch("matmul", a.shape, b.shape)  # (the user's shapes)
    if a_vec:
        a = reshape(a, (1, a.shape[0]))
    if b_vec:
        b = reshape(b, (b.shape[0], 1))
    out = bind(C.matmul_p, a, b)
    if a_vec or b_vec:
        shape = out.shape
        shape = shape[:-2] + (() if a_vec else shape[-2:-1]) + (() if b_vec else shape[-1:])
        out = reshape(out, shape)
    return out


def _inner_mismatch(fn: str, a: tuple, b: tuple) -> ShapeError:
    """The error for a product whose contracted axes differ, in the user's shapes."""
    k = b[0] if len(b) == 1 else b[-2]
    return ShapeError(
        f"'{fn}' failed at {user_source()}:\n  the last axis of the first operand {a} has "
        f"length {a[-1]} but the second operand {b} "
        f"{f'has length {k}' if len(b) == 1 else f'has {k} rows'}; they must be equal")


def dot(a: Any, b: Any) -> Any:
    """``numpy.dot``: products of scalars, vectors, matrices, and N-d sums over the
    last axis of ``a`` and the second-to-last of ``b``.

    >>> import fad.numpy as fnp
    >>> float(fnp.dot(fnp.array([1.0, 2.0]), fnp.array([3.0, 4.0])))
    11.0
    """
    a, b = promote_all(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    if b.ndim <= 2:
        if a.shape[-1] != b.shape[0 if b.ndim == 1 else -2]:
            raise _inner_mismatch("dot", a.shape, b.shape)
        return matmul(a, b)
    letters = "abcdefghijklmnopqrstuvwxyz"
    sa = letters[:a.ndim]
    sb = letters[a.ndim:a.ndim + b.ndim - 2] + sa[-1] + letters[a.ndim + b.ndim - 2]
    return einsum(f"{sa},{sb}->{sa[:-1]}{sb[:-2]}{sb[-1]}", a, b)


def einsum(subscripts: Any, *operands: Any, optimize: Any = None) -> Any:
    """Einstein summation (explicit or implicit output, ``...`` for broadcast
    axes), in the string form or NumPy's sublist form
    ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` (integer labels, ``Ellipsis``).

    >>> import fad.numpy as fnp
    >>> fnp.einsum("ij,jk->ik", fnp.ones((2, 3)), fnp.ones((3, 4))).shape
    (2, 4)
    >>> fnp.einsum(fnp.ones((2, 3)), [0, 1], fnp.ones((3, 4)), [1, 2], [0, 2]).shape
    (2, 4)
    """
    if not isinstance(subscripts, str):
        subscripts, operands = _from_sublists(subscripts, operands)
    ops = promote_all(*operands)
    in_specs, out = C.parse_spec(_spell_ellipsis(subscripts, ops), len(ops))
    return bind(C.einsum_p, *ops, spec=",".join(in_specs) + "->" + out)


def _from_sublists(first: Any, rest: tuple) -> tuple[str, tuple]:
    """NumPy's ``(op0, sub0, op1, sub1, ..., [out])`` as a subscript string and
    the operands (labels 0-51 become letters)."""
    args = (first,) + tuple(rest)
    operands, subs = args[0::2], list(args[1::2])
    out = None
    if len(args) % 2:  # a trailing output sublist
        operands, out = operands[:-1], args[-1]

    def spell(sub: Any) -> str:
        letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
        try:
            return "".join("..." if s is Ellipsis else letters[s] for s in sub)
        except (IndexError, TypeError):
            raise ValueError("fad.numpy.einsum: a sublist holds integers in [0, 52) or "
                             f"Ellipsis, got {sub!r}") from None
    spec = ",".join(spell(s) for s in subs)
    return (spec if out is None else spec + "->" + spell(out)), operands


def _spell_ellipsis(subscripts: str, ops: list) -> str:
    """Write NumPy's ``...`` with letters the spec does not use: the broadcast
    dimensions, right-aligned across operands as NumPy aligns them."""
    spec = subscripts.replace(" ", "")
    if "..." not in spec:
        return spec
    ins, arrow, out = spec.partition("->")
    in_specs = ins.split(",")
    free = [c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in spec]
    widths = [op.ndim - len(s) + 3 if "..." in s else 0 for s, op in zip(in_specs, ops)]
    batch = "".join(free[:max(widths)])
    in_specs = [s.replace("...", batch[len(batch) - w:]) for s, w in zip(in_specs, widths)]
    if not arrow:  # implicit output: the broadcast dimensions, then the lone letters
        letters = ins.replace(".", "").replace(",", "")
        out = "..." + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    return ",".join(in_specs) + "->" + out.replace("...", batch)


def outer(a: Any, b: Any) -> Any:
    """Outer product of the flattened inputs.

    >>> import fad.numpy as fnp
    >>> fnp.outer(fnp.array([1.0, 2.0]), fnp.array([1.0, 0.0, -1.0])).tolist()
    [[1.0, 0.0, -1.0], [2.0, 0.0, -2.0]]
    """
    a, b = promote_all(a, b)
    return multiply(reshape(a, (a.size, 1)), reshape(b, (1, b.size)))


def inner(a: Any, b: Any) -> Any:
    """Sum over the last axes of ``a`` and ``b``.

    >>> import fad.numpy as fnp
    >>> float(fnp.inner(fnp.array([1.0, 2.0]), fnp.array([3.0, 4.0])))
    11.0
    """
    a, b = promote_all(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    letters = "abcdefghijklmnopqrstuvwxyz"
    sa = letters[:a.ndim - 1] + "z"
    sb = letters[a.ndim - 1:a.ndim + b.ndim - 2] + "z"
    return einsum(f"{sa},{sb}->{sa[:-1]}{sb[:-1]}", a, b)


def tensordot(a: Any, b: Any, axes: Any = 2) -> Any:
    """Sum products over the given axes (``axes`` an int or a pair of lists).

    >>> import fad.numpy as fnp
    >>> fnp.tensordot(fnp.ones((2, 3)), fnp.ones((3, 4)), axes=1).shape
    (2, 4)
    >>> float(fnp.tensordot(fnp.ones((2, 3)), fnp.ones((2, 3))))
    6.0
    """
    a, b = promote_all(a, b)
    if isinstance(axes, int):
        ax_a, ax_b = list(range(a.ndim - axes, a.ndim)), list(range(axes))
    else:
        ax_a, ax_b = (list(np.atleast_1d(x)) for x in axes)
    ax_a = [int(i) % a.ndim for i in ax_a]
    ax_b = [int(i) % b.ndim for i in ax_b]
    letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    sa = [next(letters) for _ in range(a.ndim)]
    sb = [next(letters) for _ in range(b.ndim)]
    for i, j in zip(ax_a, ax_b):
        sb[j] = sa[i]
    out = [c for k, c in enumerate(sa) if k not in ax_a] + \
          [c for k, c in enumerate(sb) if k not in ax_b]
    return einsum(f"{''.join(sa)},{''.join(sb)}->{''.join(out)}", a, b)


def convolve(a: Any, v: Any, mode: str = "full") -> Any:
    """Discrete linear convolution of two 1-d arrays (``full``, ``same``, ``valid``).

    >>> import fad.numpy as fnp
    >>> fnp.convolve(fnp.array([1.0, 2.0]), fnp.array([1.0, 1.0])).tolist()
    [1.0, 3.0, 2.0]
    """
    a, v = promote_all(a, v)
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError("convolve: both inputs must be 1-d")
    if a.shape[0] < v.shape[0]:
        a, v = v, a
    n, m = a.shape[0], v.shape[0]
    if m == 0:
        raise ValueError("v cannot be empty")
    padded = Cu.pad(a, ((m - 1, m - 1),), 0.0)
    # window k holds padded[k : k + m]; full convolution = windows @ reversed v
    idx = np.arange(n + m - 1)[:, None] + np.arange(m)[None, :]
    full = matmul(I.getitem(padded, (constant(idx, padded),)), flip(v))
    if mode == "full":
        return full
    if mode == "same":
        start = (m - 1) // 2
        return _slice(full, 0, start, start + n)
    if mode == "valid":
        return _slice(full, 0, m - 1, n)
    raise ValueError(f"mode must be 'full', 'same' or 'valid', got {mode!r}")


def correlate(a: Any, v: Any, mode: str = "valid") -> Any:
    """Cross-correlation of two 1-d arrays (real): ``convolve(a, v[::-1])``.

    >>> import fad.numpy as fnp
    >>> fnp.correlate(fnp.array([1.0, 2.0, 3.0]), fnp.array([0.0, 1.0])).tolist()
    [2.0, 3.0]
    """
    a, v = promote_all(a, v)
    return _correlate(a, conj(v), mode)  # NumPy conjugates v (complex arrays)


def _correlate(a: Any, v: Any, mode: str) -> Any:
    if a.shape[0] < v.shape[0]:
        return flip(_correlate(v, a, mode))
    return convolve(a, flip(v), mode)


def vdot(a: Any, b: Any, /) -> Any:
    """Dot product of the flattened arrays.

    >>> import fad.numpy as fnp
    >>> float(fnp.vdot(fnp.ones((2, 2)), fnp.ones((2, 2))))
    4.0
    """
    a, b = promote_all(a, b)
    return matmul(S.ravel(conj(a)), S.ravel(b))  # conj(a): NumPy's, for complex


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    """Dot product of vectors along ``axis`` (broadcasting the rest).

    >>> import fad.numpy as fnp
    >>> fnp.vecdot(fnp.ones((2, 3)), fnp.ones(3)).tolist()
    [3.0, 3.0]
    """
    return R.sum(M.multiply(conj(asarray(x1)), x2), axis=axis)  # conj(x1), as NumPy


def matvec(x1: Any, x2: Any, /) -> Any:
    """Matrix-vector products over stacks.

    >>> import fad.numpy as fnp
    >>> fnp.matvec(fnp.eye(2), fnp.array([1.0, 2.0])).tolist()
    [1.0, 2.0]
    """
    return S.squeeze(matmul(x1, S.expand_dims(x2, -1)), -1)


def vecmat(x1: Any, x2: Any, /) -> Any:
    """Vector-matrix products over stacks.

    >>> import fad.numpy as fnp
    >>> fnp.vecmat(fnp.array([1.0, 2.0]), fnp.eye(2)).tolist()
    [1.0, 2.0]
    """
    return S.squeeze(matmul(S.expand_dims(conj(asarray(x1)), -2), x2), -2)  # as NumPy


def kron(a: Any, b: Any) -> Any:
    """Kronecker product (an outer product regrouped: exact).

    >>> import fad.numpy as fnp
    >>> fnp.kron(fnp.eye(2), fnp.ones((1, 2))).tolist()
    [[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]]
    """
    a, b = promote_all(a, b)
    nd = builtins.max(a.ndim, b.ndim)
    a = S.reshape(a, (1,) * (nd - a.ndim) + a.shape)
    b = S.reshape(b, (1,) * (nd - b.ndim) + b.shape)
    ai = S.reshape(a, tuple(x for n in a.shape for x in (n, 1)))
    bi = S.reshape(b, tuple(x for n in b.shape for x in (1, n)))
    return S.reshape(M.multiply(ai, bi), tuple(p * q for p, q in zip(a.shape, b.shape)))


def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: int | None = None) -> Any:
    """Cross product of 3-vectors (or 2-vectors, giving the z component).

    >>> import fad.numpy as fnp
    >>> fnp.cross(fnp.array([1.0, 0.0, 0.0]), fnp.array([0.0, 1.0, 0.0])).tolist()
    [0.0, 0.0, 1.0]
    """
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = promote_all(a, b)
    a, b = S.moveaxis(a, axisa, -1), S.moveaxis(b, axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("incompatible dimensions for cross product (dimension must be 2 or 3)")
    comp = [lambda x, i=i: x[..., i] for i in range(3)]
    a0, a1 = comp[0](a), comp[1](a)
    b0, b1 = comp[0](b), comp[1](b)
    z = M.subtract(M.multiply(a0, b1), M.multiply(a1, b0))
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return z
    a2 = comp[2](a) if a.shape[-1] == 3 else 0.0
    b2 = comp[2](b) if b.shape[-1] == 3 else 0.0
    x = M.subtract(M.multiply(a1, b2), M.multiply(a2, b1))
    y = M.subtract(M.multiply(a2, b0), M.multiply(a0, b2))
    out = S.stack(_bcast([x, y, z]), axis=-1)
    return S.moveaxis(out, -1, axisc)


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None,
          out: Any = None) -> Any:
    """Sum along diagonals (any ``offset`` and pair of axes).

    >>> import fad.numpy as fnp
    >>> float(fnp.trace(fnp.eye(3)))
    3.0
    """
    _no_out(out)
    return R.sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)
