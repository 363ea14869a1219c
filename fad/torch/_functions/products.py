"""Matrix products, with PyTorch's words for their shape errors."""

from __future__ import annotations

import collections
import math
from typing import Any

import numpy as np

from ... import numpy as fnp
from ...numpy._contractions import _from_sublists
from .. import _dtype
from .._ops import call
from .._recorder import Op, _broadcast_message, apply
from ..tensor import Tensor, wrap
from ._common import _t, exported
from .conversions import promote_types, to
from .shapes import _expanded, meshgrid, stack


def _matrix_check(x: Tensor, name: str, n: int) -> None:
    if x.dim() != n:
        raise RuntimeError(f"{name} must be a {'matrix' if n == 2 else f'{n}D tensor'}")


def _same_dtype(a: Tensor, b: Tensor, style: str) -> None:
    """PyTorch's error for a matrix product of two different dtypes (NumPy would
    promote); called once the dtypes are known to differ."""
    da, db = a.dtype, b.dtype
    if style == "dot" or (style == "matmul" and a.dim() == 1 and b.dim() == 1):
        msg = (f"dot : expected both vectors to have same dtype, but found "
               f"{_dtype.type_word(da)} and {_dtype.type_word(db)}")
    elif style == "mv" or (style == "matmul" and a.dim() >= 2 and b.dim() == 1):
        msg = (f"addmv input tensors must have the same dtype, but got {_dtype.type_word(db)}, "
               f"{_dtype.type_word(da)}, and {_dtype.type_word(db)}")
    elif style in ("bmm", "einsum"):
        msg = f"expected scalar type {_dtype.type_word(da)} but found {_dtype.type_word(db)}"
    elif style == "addmm":
        msg = (f"mat1 and mat2 must have the same dtype, but got {_dtype.type_word(da)} and "
               f"{_dtype.type_word(db)}")
    else:
        msg = (f"expected m1 and m2 to have the same dtype, but got: "
               f"{_dtype.cpp_name(da)} != {_dtype.cpp_name(db)}")
    raise RuntimeError(msg)


def matmul(input: Tensor, other: Tensor) -> Tensor:
    if isinstance(input, Tensor) and isinstance(other, Tensor) and \
            input._value.dtype != other._value.dtype:
        _same_dtype(input, other, "matmul")
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
    if input._value.dtype != mat2._value.dtype:
        _same_dtype(input, mat2, "mm")
    try:
        return call("mm", input, mat2)
    except RuntimeError:
        _mm_shapes(tuple(input.shape), tuple(mat2.shape))
        raise


def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    _matrix_check(input, "batch1", 3)
    _matrix_check(mat2, "batch2", 3)
    if input._value.dtype != mat2._value.dtype:
        _same_dtype(input, mat2, "bmm")
    if input.shape[0] != mat2.shape[0] or input.shape[2] != mat2.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{input.shape[0]}, {input.shape[2]}] but got: [{mat2.shape[0]}, "
                           f"{mat2.shape[1]}].")
    return call("bmm", input, mat2)


def mv(input: Tensor, vec: Tensor) -> Tensor:
    _matrix_check(input, "self", 2)
    _mv_shapes(tuple(input.shape), tuple(vec.shape))
    if input._value.dtype != vec._value.dtype:
        _same_dtype(input, vec, "mv")
    return call("mv", input, vec)


def dot(input: Tensor, other: Tensor) -> Tensor:
    """The sum of the products of two vectors' elements (no conjugation).

    >>> import fad.torch as torch
    >>> torch.dot(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
    tensor(11.)
    """
    return call("dot", *_vectors(input, other))


def vdot(input: Tensor, other: Tensor) -> Tensor:
    """``sum(conj(input) * other)`` of two vectors.

    >>> import fad.torch as torch
    >>> torch.vdot(torch.tensor([1 + 2j]), torch.tensor([1 + 2j]))
    tensor(5.+0.j)
    """
    return call("vdot", *_vectors(input, other))


def _vectors(input: Tensor, other: Tensor) -> tuple:
    """``dot``'s and ``vdot``'s operands, checked with PyTorch's words."""
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D "
                           "tensors")
    _dot_shapes(tuple(input.shape), tuple(other.shape))
    if input._value.dtype != other._value.dtype:
        _same_dtype(input, other, "dot")
    return input, other


def inner(input: Tensor, other: Tensor) -> Tensor:
    """The sums of products over the last dimension of both (``dot`` for vectors,
    a product with a 0-d tensor); no conjugation.

    >>> import fad.torch as torch
    >>> torch.inner(torch.ones(2, 3), torch.tensor([[1.0, 2.0, 3.0]]))
    tensor([[6.],
            [6.]])
    """
    input, other = _t(input), _t(other)
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError("inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.shape)} and {list(other.shape)}")
    if input._value.dtype != other._value.dtype:
        raise RuntimeError("both inputs should have same dtype")
    return call("tensordot", input, other, dims=((-1,), (-1,)))


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    return call("outer", input, vec2)


ger = outer


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1
          ) -> Tensor:
    if mat1.dim() != 2 or mat2.dim() != 2:
        name, m = ("mat1", mat1) if mat1.dim() != 2 else ("mat2", mat2)
        raise RuntimeError(f"{name} must be a matrix, got {m.dim()}-D tensor")
    if mat1._value.dtype != mat2._value.dtype:
        _same_dtype(mat1, mat2, "addmm")
    try:
        return call("addmm", input, mat1, mat2, beta=beta, alpha=alpha)
    except RuntimeError:  # in PyTorch's words (checked on failure: addmm is hot)
        _mm_shapes(tuple(mat1.shape), tuple(mat2.shape))
        _expanded(tuple(input.shape), (mat1.shape[0], mat2.shape[1]))
        raise


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1
            ) -> Tensor:
    """``beta * input + alpha * (batch1 @ batch2)`` over a batch of matrices.

    >>> import fad.torch as torch
    >>> torch.baddbmm(torch.ones(1, 2, 2), torch.ones(1, 2, 3), torch.ones(1, 3, 2)).tolist()
    [[[4.0, 4.0], [4.0, 4.0]]]
    """
    bmm(batch1, batch2)  # PyTorch's shape and dtype checks, in its words
    return call("baddbmm", input, batch1, batch2, beta=beta, alpha=alpha)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (mat @ vec)``.

    >>> import fad.torch as torch
    >>> torch.addmv(torch.ones(2), torch.eye(2), torch.tensor([2.0, 3.0]), alpha=2)
    tensor([5., 7.])
    """
    if mat.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.dim()}, {mat.dim()}, "
                           f"{vec.dim()}")
    if mat.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input.shape[0] if input.dim() else 1}), "
                           f"mat ({mat.shape[0]}x{mat.shape[1]}), vec ({vec.shape[0]})")
    return call("addmv", input, mat, vec, beta=beta, alpha=alpha)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)``.

    >>> import fad.torch as torch
    >>> torch.addr(torch.zeros(2, 2), torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
    tensor([[3., 4.],
            [6., 8.]])
    """
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.dim()}-D")
    return call("addr", input, vec1, vec2, beta=beta, alpha=alpha)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1
           ) -> Tensor:
    """``beta * input + alpha * sum_i batch1[i] @ batch2[i]``.

    >>> import fad.torch as torch
    >>> torch.addbmm(torch.zeros(2, 2), torch.ones(3, 2, 1), torch.ones(3, 1, 2))
    tensor([[3., 3.],
            [3., 3.]])
    """
    for name, b in (("batch1", batch1), ("batch2", batch2)):
        if b.dim() != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    bmm(batch1, batch2)  # PyTorch's shape and dtype checks, in its words
    return call("addbmm", input, batch1, batch2, beta=beta, alpha=alpha)


def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    """The cross product of 3-vectors along ``dim`` (``None``: the first dimension
    of size 3, as PyTorch's deprecated default).

    >>> import fad.torch as torch
    >>> torch.cross(torch.tensor([1., 0, 0]), torch.tensor([0., 1, 0]), dim=0)
    tensor([0., 0., 1.])
    """
    if dim is None:
        dim = next((i for i, n in enumerate(_t(input).shape) if n == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    for x in (input, other):
        if x.shape[dim] != 3:
            raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                               f"{input.shape[dim]} and {other.shape[dim]}")
    return call("cross", input, other, dim=dim)


_svd_result = collections.namedtuple("svd", ["U", "S", "V"])


def svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> Any:
    """``(U, S, V)`` with ``input = U @ diag(S) @ V.mH`` (reduced when ``some``).

    >>> import fad.torch as torch
    >>> [tuple(x.shape) for x in torch.svd(torch.ones(3, 2))]
    [(3, 2), (2,), (2, 2)]
    """
    u, s, v = call("svd", input, some=some)
    if not compute_uv:
        return _svd_result(u.detach() * 0, s, v.detach() * 0)  # (PyTorch's zero U, V)
    return _svd_result(u, s, v)


def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Any = None) -> Tensor:
    """Contract the last ``dims`` axes of ``a`` with the first of ``b`` (or the
    axis lists ``dims = ([...], [...])``).

    >>> import fad.torch as torch
    >>> torch.tensordot(torch.ones(2, 3), torch.ones(3, 4), dims=1).shape
    torch.Size([2, 4])
    """
    if out is not None:
        raise TypeError("tensordot: out= is not supported by the facade; use the result")
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if not isinstance(dims, int):
        dims = tuple(tuple(d) if isinstance(d, list | tuple) else (d,) for d in dims)
    a, b = _t(a), _t(b)
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {_dtype.type_word(a.dtype)} but found "
                           f"{_dtype.type_word(b.dtype)}")
    return call("tensordot", a, b, dims=dims)


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product.

    >>> import fad.torch as torch
    >>> torch.kron(torch.tensor([1, 2]), torch.tensor([1, 10]))
    tensor([ 1, 10,  2, 20])
    """
    return call("kron", _t(input), _t(other))


def _block_diag(*blocks: Any) -> Any:
    """The matrices ``blocks`` along the diagonal of one matrix, zeros elsewhere."""
    cols = sum(b.shape[1] for b in blocks)
    rows, at = [], 0
    for b in blocks:
        r, c = b.shape
        rows.append(fnp.concatenate([fnp.zeros((r, at), b.dtype), b,
                                     fnp.zeros((r, cols - at - c), b.dtype)], axis=1))
        at += c
    return fnp.concatenate(rows, axis=0)


_BLOCK_DIAG = Op("block_diag", _block_diag, "BlockDiagBackward0", None, False)


def block_diag(*tensors: Tensor) -> Tensor:
    """The tensors (0-, 1- or 2-d, as 1 x 1, 1 x n and m x n blocks) along the
    diagonal of one matrix, in their promoted dtype.

    >>> import fad.torch as torch
    >>> torch.block_diag(torch.tensor([[1, 2]]), torch.tensor(3))
    tensor([[1, 2, 0],
            [0, 0, 3]])
    """
    tensors = [_t(t) for t in tensors]
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t.dim()} dimensions")
    if not tensors:  # (PyTorch's: one empty row)
        return wrap(np.zeros((1, 0), _dtype.np_dtype(_dtype.get_default_dtype())))
    dt = tensors[0].dtype
    for t in tensors[1:]:
        dt = promote_types(dt, t.dtype)
    blocks = [to(t if t.dim() == 2 else t.reshape(1, -1), dt) for t in tensors]
    return apply(_BLOCK_DIAG, tuple(blocks))


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of one entry of each 1-d tensor, one per row (the tensor
    itself when there is one).

    >>> import fad.torch as torch
    >>> torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3, 4])).tolist()
    [[1, 3], [1, 4], [2, 3], [2, 4]]
    """
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    if any(t.dtype != tensors[0].dtype for t in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str | None = None) -> Tensor:
    """The ``p``-norm distances between the rows of ``x1`` (``... x P x M``) and of
    ``x2`` (``... x R x M``): ``... x P x R``; the gradient at a zero distance is 0.

    >>> import fad.torch as torch
    >>> torch.cdist(torch.tensor([[0.0, 0.0]]), torch.tensor([[3.0, 4.0], [0.0, 1.0]]))
    tensor([[5., 1.]])
    """
    x1, x2 = _t(x1), _t(x2)
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X{1 if x1.dim() < 2 else 2}"
                           f" got: {min(x1.dim(), x2.dim())}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    return call("cdist", x1, x2, p=float(p))


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The ``p``-norm distance between every two rows ``i < j`` of the matrix
    ``input``, in row-major order of the pairs (``cdist``'s upper triangle).

    >>> import fad.torch as torch
    >>> torch.pdist(torch.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]]))
    tensor([ 5., 10.,  5.])
    """
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    rows, cols = np.triu_indices(input.shape[0], 1)
    return cdist(input, input, p)[wrap(rows), wrap(cols)]


def einsum(equation: Any, *operands: Any) -> Tensor:
    """Einstein summation: ``einsum("ij,jk->ik", a, b)``, or the sublist form
    ``einsum(a, [0, 1], b, [1, 2], [0, 2])``.

    >>> import fad.torch as torch
    >>> torch.einsum(torch.ones(2, 3), [0, 1], torch.ones(3), [1], [0])
    tensor([3., 3.])
    """
    if not isinstance(equation, str):
        equation, operands = _from_sublists(equation, operands)
    if len(operands) == 1 and isinstance(operands[0], list | tuple):
        operands = tuple(operands[0])
    for x in operands[1:]:
        if isinstance(x, Tensor) and x.dtype is not operands[0].dtype:
            _same_dtype(operands[0], x, "einsum")
    _check_einsum(equation, operands)
    return call("einsum", *operands, equation=equation)


def _check_einsum(equation: str, operands: tuple) -> None:
    """PyTorch's messages for subscripts whose sizes disagree (size 1 broadcasts)."""
    specs = equation.replace(" ", "").split("->")[0].split(",")
    if len(specs) != len(operands):
        return
    seen: dict = {}
    for k, (spec, op) in enumerate(zip(specs, operands)):
        shape = tuple(getattr(op, "shape", ()))
        pre, dots, post = spec.partition("...")
        if not dots and len(spec) != len(shape):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(spec)}) "
                               f"does not match the number of dimensions ({len(shape)}) for "
                               f"operand {k} and no ellipsis was given")
        sizes = list(zip(pre, shape)) + list(zip(post, shape[len(shape) - len(post):]))
        local: dict = {}
        for c, n in sizes:
            if c in local and local[c] != n:
                raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {k} but the "
                                   f"sizes don't match, {n} != {local[c]}")
            local[c] = n
        for c, n in local.items():
            prev = seen.get(c)
            if prev is not None and n != prev and 1 not in (n, prev):
                raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {k} which "
                                   f"does not broadcast with previously seen size {prev}")
            if prev in (None, 1):
                seen[c] = n


__all__ = exported(globals())
