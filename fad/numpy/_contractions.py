"""Products of ``fad.numpy``: ``matmul dot einsum tensordot outer inner trace``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.errors import ShapeError, user_source
from ..core.trace import bind
from ..primitives import contractions as C
from ..primitives.structural import reshape
from ._base import asarray, cast, dtype_of
from ._math import multiply


def _promote_all(*xs: Any) -> list:
    xs = [asarray(x) for x in xs]
    dt = np.result_type(*[dtype_of(x) for x in xs])
    return [cast(x, dt) for x in xs]


def matmul(a: Any, b: Any) -> Any:
    """Matrix product with NumPy's rules (1-d operands, batch broadcasting).

    >>> import fad.numpy as fnp
    >>> fnp.matmul(fnp.ones((5, 2, 3)), fnp.ones(3)).shape
    (5, 2)
    """
    a, b = _promote_all(a, b)
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
    last axis of ``a`` and the second-to-last of ``b``."""
    a, b = _promote_all(a, b)
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


def einsum(subscripts: str, *operands: Any, optimize: Any = None) -> Any:
    """Einstein summation (explicit or implicit output, ``...`` for broadcast axes).

    >>> import fad.numpy as fnp
    >>> fnp.einsum("ij,jk->ik", fnp.ones((2, 3)), fnp.ones((3, 4))).shape
    (2, 4)
    """
    ops = _promote_all(*operands)
    in_specs, out = C.parse_spec(_spell_ellipsis(subscripts, ops), len(ops))
    return bind(C.einsum_p, *ops, spec=",".join(in_specs) + "->" + out)


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
    """Outer product of the flattened inputs."""
    a, b = _promote_all(a, b)
    return multiply(reshape(a, (a.size, 1)), reshape(b, (1, b.size)))


def inner(a: Any, b: Any) -> Any:
    """Sum over the last axes of ``a`` and ``b``."""
    a, b = _promote_all(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    letters = "abcdefghijklmnopqrstuvwxyz"
    sa = letters[:a.ndim - 1] + "z"
    sb = letters[a.ndim - 1:a.ndim + b.ndim - 2] + "z"
    return einsum(f"{sa},{sb}->{sa[:-1]}{sb[:-1]}", a, b)


def tensordot(a: Any, b: Any, axes: Any = 2) -> Any:
    """Sum products over the given axes (``axes`` an int or a pair of lists)."""
    a, b = _promote_all(a, b)
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


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None,
          out: Any = None) -> Any:
    """Sum along diagonals (any ``offset`` and pair of axes).

    >>> import fad.numpy as fnp
    >>> float(fnp.trace(fnp.eye(3)))
    3.0
    """
    from ._extra import trace as _trace
    return _trace(a, offset, axis1, axis2, dtype, out)
