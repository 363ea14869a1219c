"""Shape functions: views, permutations, expansion, joining and splitting,
triangles, grids, differences and ``Tensor.unfold``'s windows."""

from __future__ import annotations

import math
import warnings
from typing import Any, Sequence

import numpy as np

from .. import _dtype
from .._ops import call
from .._recorder import _aliasing
from ..tensor import Size, Tensor, _wrap_dim, wrap
from ._common import _dims, _shape, _t, exported


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
    """``input``'s elements with another shape: a view when its layout allows, else
    a view of a contiguous copy (``CloneBackward0`` then ``ViewBackward0``, as
    PyTorch's).

    >>> import fad.torch as torch
    >>> torch.arange(6.0).reshape(2, 3).t().reshape(6).tolist()
    [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    """
    new = _view_shape(input, _shape(shape))
    if not _view_fits(input, new):
        input = input.contiguous()
    return call("view", input, shape=new)


def _view_fits(input: Tensor, new: tuple) -> bool:
    """Whether ``input`` (a view, or a tensor laid out otherwise than row by row: a
    transposed tensor's elementwise result keeps its layout) can be seen at shape
    ``new`` without a copy."""
    v = input._value
    return type(v) is not np.ndarray or v.flags.c_contiguous or \
        _viewable(v.shape, [st // max(v.itemsize, 1) for st in v.strides], new)


def view(input: Tensor, *shape: Any) -> Tensor:
    """``input``'s elements seen with another shape, sharing its memory; refused,
    in PyTorch's words, for a view (a transpose, a slice...) whose layout the new
    shape cannot step through without copying: use ``reshape``.

    >>> import fad.torch as torch
    >>> torch.arange(6.0).reshape(2, 3).view(3, 2).tolist()
    [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    """
    if len(shape) == 1 and isinstance(shape[0], _dtype.dtype):
        return _aliasing(wrap(input._value.view(shape[0].np)), (input,))
    new = _view_shape(input, _shape(shape))
    if not _view_fits(input, new):
        raise RuntimeError("view size is not compatible with input tensor's size and "
                           "stride (at least one dimension spans across two contiguous "
                           "subspaces). Use .reshape(...) instead.")
    return call("view", input, shape=new)


def _viewable(shape: Sequence[int], strides: Sequence[int], new: Sequence[int]) -> bool:
    """Whether elements laid out with ``shape`` and ``strides`` can be seen with shape
    ``new`` without a copy: the dimensions (those of size 1 aside) fall into blocks
    whose elements are evenly spaced (each dimension steps over exactly one span of
    the next), and ``new``'s dimensions must split into consecutive groups whose
    sizes multiply to the blocks' sizes."""
    if math.prod(shape) == 0:
        return True
    dims = [(n, st) for n, st in zip(shape, strides) if n != 1]
    blocks: list[int] = []
    for k, (n, st) in enumerate(dims):
        if k and dims[k - 1][1] == n * st:
            blocks[-1] *= n
        else:
            blocks.append(n)
    sizes = [n for n in new if n != 1]
    i = 0
    for block in blocks:
        got = 1
        while got < block and i < len(sizes):
            got *= sizes[i]
            i += 1
        if got != block:
            return False
    return i == len(sizes)


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
    known = math.prod(s for s in sizes if s != -1)
    if (known != shape[dim] if -1 not in sizes else (known == 0 or shape[dim] % known)):
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {dim} ({shape[dim]}) in the input tensor")
    if -1 in sizes:
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


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor with at least three dimensions: ``(1, 1, 1)`` for a number,
    ``(1, n, 1)`` for a vector, ``(m, n, 1)`` for a matrix (a tuple for several).

    >>> import fad.torch as torch
    >>> torch.atleast_3d(torch.ones(2, 3)).shape
    torch.Size([2, 3, 1])
    """
    many = len(tensors) != 1 or isinstance(tensors[0], list | tuple)
    items = tensors[0] if len(tensors) == 1 and many else tensors
    out = []
    for t in items:
        t = _t(t)
        shape = tuple(t.shape)
        new = {0: (1, 1, 1), 1: (1,) + shape + (1,), 2: shape + (1,)}.get(t.dim(), shape)
        out.append(reshape(t, new) if new != shape else t)
    return tuple(out) if many else out[0]


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    """The tensors side by side as columns: vectors (and numbers) become columns.

    >>> import fad.torch as torch
    >>> torch.column_stack([torch.tensor([1, 2]), torch.tensor([[3], [4]])])
    tensor([[1, 3],
            [2, 4]])
    """
    cols = [_t(x) for x in tensors]
    return cat([reshape(c, (c.numel(), 1)) if c.dim() <= 1 else c for c in cols], 1)


def row_stack(tensors: Sequence[Tensor]) -> Tensor:
    """``vstack`` under its other name.

    >>> import fad.torch as torch
    >>> torch.row_stack([torch.tensor([1, 2]), torch.tensor([3, 4])]).shape
    torch.Size([2, 2])
    """
    return vstack(tensors)


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    """The tensors stacked along a third dimension (``atleast_3d`` first).

    >>> import fad.torch as torch
    >>> torch.dstack([torch.tensor([1, 2]), torch.tensor([3, 4])]).shape
    torch.Size([1, 2, 2])
    """
    return cat(list(atleast_3d(list(tensors))), 2)


def broadcast_shapes(*shapes: Any) -> Size:
    """The shape that tensors of ``shapes`` broadcast to (an ``int`` is a 1-d shape).

    >>> import fad.torch as torch
    >>> torch.broadcast_shapes((2, 1), (3,))
    torch.Size([2, 3])
    """
    shapes = [(s,) if isinstance(s, int) else tuple(int(n) for n in s) for s in shapes]
    out: list[int] = []
    for k, shape in enumerate(shapes):
        for i in range(1, len(shape) + 1):
            n = shape[-i]
            if i > len(out):
                out.insert(0, n)
            elif out[-i] == 1 or n == out[-i]:
                out[-i] = n if out[-i] == 1 else out[-i]
            elif n != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {n} at -{i}! Mismatching "
                    f"argument at index {k} had {shape}; but expected shape should be "
                    f"broadcastable to {out}")
    return Size(out)


def split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple:
    """``split`` into pieces of ``split_sizes`` along ``dim``.

    >>> import fad.torch as torch
    >>> [p.tolist() for p in torch.split_with_sizes(torch.arange(3), [1, 2])]
    [[0], [1, 2]]
    """
    return split(input, list(split_sizes), dim)


def split(input: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple:
    dim = _wrap_dim(dim, input.dim())
    n = input.shape[dim]
    if isinstance(split_size_or_sections, int):
        s = split_size_or_sections
        sizes = [s] * (n // s) + ([n % s] if n % s else []) if s else [n]
        return call("split", input, sizes=sizes or [0], dim=dim)
    sizes = list(split_size_or_sections)
    if sum(sizes) != n:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input "
                           f"tensor's size at dimension {dim}), but got split_sizes={sizes}")
    return call("split_sizes", input, sizes=sizes, dim=dim)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    dim = _wrap_dim(dim, input.dim())
    n = input.shape[dim]
    return split(input, max(1, -(-n // chunks)), dim)


def unbind(input: Tensor, dim: int = 0) -> tuple:
    return call("unbind", input, dim=_wrap_dim(dim, input.dim()))


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    return call("tril", input, diagonal=diagonal)


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    return call("triu", input, diagonal=diagonal)


def trace(input: Tensor) -> Tensor:
    """The sum of a matrix's diagonal (integers summed as ``int64``, as PyTorch's).

    >>> import fad.torch as torch
    >>> torch.ones(2, 2, dtype=torch.uint8).trace()
    tensor(2)
    """
    kind = input.dtype.np.kind
    if kind == "b":
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    if kind in "iu" and input.dtype is not _dtype.int64:
        input = input.to(_dtype.int64)
    return call("trace", input)


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple:
    """Coordinate grids of 0-d or 1-d tensors: ``indexing="ij"`` (the default, with
    PyTorch's warning when it is not given) or ``"xy"`` (the first two swapped).

    >>> import fad.torch as torch
    >>> x, y = torch.meshgrid(torch.tensor([1, 2]), torch.tensor([3, 4, 5]), indexing="ij")
    >>> x.shape, y[0]
    (torch.Size([2, 3]), tensor([3, 4, 5]))
    """
    if len(tensors) == 1 and isinstance(tensors[0], list | tuple):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass "
                      "the indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but '
                           f'received: {indexing}')
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {t}")
    n = len(tensors)
    order = list(range(n))
    if indexing == "xy" and n >= 2:
        order[0], order[1] = 1, 0
    sizes = [max(t.numel(), 1) if t.dim() else 1 for t in tensors]
    shape = tuple(sizes[order[i]] for i in range(n))
    grids = []
    for k, t in enumerate(tensors):
        view_shape = [1] * n
        view_shape[order.index(k)] = -1
        grids.append(t.reshape(view_shape).expand(*shape))
    return tuple(grids)


def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """The ``n``-th forward difference along ``dim`` (``prepend``/``append``
    concatenated first); booleans differ by ``!=``.

    >>> import fad.torch as torch
    >>> torch.diff(torch.tensor([1, 3, 6, 10]), n=2)
    tensor([1, 1])
    """
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    d = _wrap_dim(dim, input.dim())
    parts = [x for x in (prepend, input, append) if x is not None]
    x = cat(parts, dim=d) if len(parts) > 1 else input
    for _ in range(n):
        m = x.shape[d]
        later, earlier = x.narrow(d, min(1, m), max(m - 1, 0)), x.narrow(d, 0, max(m - 1, 0))
        x = later != earlier if x.dtype == _dtype.bool else later - earlier
    return x


__all__ = exported(globals())

