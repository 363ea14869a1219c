"""Diagonals, rotations, uneven splits, interleaved repeats, quantiles, complex
tensors from two real ones, triangle indices and the dtype limits ``finfo`` /
``iinfo``: each a ``fad.numpy`` function (or existing facade operations) with
PyTorch's arguments, names and errors."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ... import numpy as fnp
from .. import _dtype
from .._graph import host
from .._recorder import Op, apply
from ..tensor import Tensor, _wrap_dim, wrap
from ._common import exported
from .indexing import getitem, index_select, narrow
from .shapes import reshape, unsqueeze


def _diagonal(a: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
    return fnp.diagonal(a, offset, dim1, dim2)


def _diag_embed(a: Any, offset: int = 0) -> Any:
    n = a.shape[-1]
    m = n + abs(offset)
    i = np.arange(n)
    rows, cols = (i, i + offset) if offset >= 0 else (i - offset, i)
    return fnp.at(fnp.zeros(a.shape[:-1] + (m, m), a.dtype))[..., rows, cols].set(a)


_DIAGONAL = Op("diagonal", _diagonal, "DiagonalBackward0", None, False)
_DIAGONAL_COPY = Op("diag", lambda a, offset=0: fnp.array(fnp.diagonal(a, offset), copy=True),
                    "DiagonalBackward0_copy", None, False)
_DIAG_EMBED = Op("diag_embed", _diag_embed, "DiagEmbedBackward0", None, False)
_ROT90 = Op("rot90", lambda a, k=1, dims=(0, 1): fnp.array(fnp.rot90(a, k, dims), copy=True),
            "Rot90Backward0", None, False)
_COMPLEX = Op("complex", lambda re, im: fnp.add(re, fnp.multiply(im, 1j)),
              "ComplexBackward0", None, False)


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal ``offset`` of the matrices in dimensions ``dim1`` and ``dim2``,
    moved last.

    >>> import fad.torch as torch
    >>> torch.arange(9.0).reshape(3, 3).diagonal(1)
    tensor([1., 5.])
    """
    n = input.dim()
    d1, d2 = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return apply(_DIAGONAL, (input,), {"offset": int(offset), "dim1": d1, "dim2": d2})


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices (in the last two dimensions) with the last dimension of ``input`` on
    their diagonal ``offset``.

    >>> import fad.torch as torch
    >>> torch.diag_embed(torch.tensor([1.0, 2.0]))
    tensor([[1., 0.],
            [0., 2.]])
    """
    if (dim1, dim2) not in ((-2, -1), (input.dim() - 1, input.dim())):
        raise NotImplementedError("diag_embed: only dim1=-2, dim2=-1 (the default)")
    return apply(_DIAG_EMBED, (input,), {"offset": int(offset)})


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """A matrix with the vector ``input`` on its diagonal ``diagonal``, or the diagonal
    of the matrix ``input`` (a copy).

    >>> import fad.torch as torch
    >>> torch.diag(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([1., 4.])
    """
    if input.dim() == 1:
        return apply(_DIAG_EMBED, (input,), {"offset": int(diagonal)})
    if input.dim() != 2:
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " f"{input.dim()}D")
    return apply(_DIAGONAL_COPY, (input,), {"offset": int(diagonal)})


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A matrix with ``input``'s elements, flattened, on its diagonal ``offset``.

    >>> import fad.torch as torch
    >>> torch.diagflat(torch.tensor([[1, 2]]))
    tensor([[1, 0],
            [0, 2]])
    """
    return apply(_DIAG_EMBED, (input.reshape(-1),), {"offset": int(offset)})


def _scatter_into(input: Tensor, src: Tensor, view: Any) -> Tensor:
    """A copy of ``input`` with ``src`` written into the part ``view`` picks (recorded,
    so the gradient flows to both)."""
    out = input.clone()
    part = view(out)
    if tuple(src.shape) != tuple(part.shape):
        raise RuntimeError("expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(part.shape)}")
    part.copy_(src)
    return out


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """``input`` with ``src`` in place of ``input.select(dim, index)`` (out of place).

    >>> import fad.torch as torch
    >>> torch.select_scatter(torch.zeros(2, 2), torch.ones(2), 0, 0)
    tensor([[1., 1.],
            [0., 0.]])
    """
    return _scatter_into(input, src, lambda t: t.select(dim, index))


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None,
                  end: int | None = None, step: int = 1) -> Tensor:
    """``input`` with ``src`` in place of the slice ``start:end:step`` along ``dim``
    (out of place).

    >>> import fad.torch as torch
    >>> torch.slice_scatter(torch.zeros(4), torch.ones(2), start=1, end=3)
    tensor([0., 1., 1., 0.])
    """
    d = _wrap_dim(dim, input.dim())
    return _scatter_into(input, src, lambda t: t[(slice(None),) * d + (slice(start, end, step),)])


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0,
                     dim2: int = 1) -> Tensor:
    """``input`` with ``src`` in place of its diagonal ``offset`` (out of place).

    >>> import fad.torch as torch
    >>> torch.diagonal_scatter(torch.zeros(2, 2), torch.ones(2))
    tensor([[1., 0.],
            [0., 1.]])
    """
    return _scatter_into(input, src, lambda t: t.diagonal(offset, dim1, dim2))


_index_tensor = wrap  # (fill_diagonal_'s argument ``wrap`` hides the name)


def fill_diagonal_(input: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """Fill the main diagonal of ``input`` (two or more dimensions, all of one length
    beyond two) with ``fill_value``, in place; ``wrap``: a tall matrix's diagonal
    starts again every ``columns + 1`` rows.

    >>> import fad.torch as torch
    >>> torch.zeros(2, 3).fill_diagonal_(5)
    tensor([[5., 0., 0.],
            [0., 5., 0.]])
    """
    if input.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if input.dim() > 2 and len(set(input.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    rows, cols = input.shape[0], input.shape[1]
    if input.dim() > 2 or not wrap or rows <= cols:
        k = np.arange(min(input.shape))
        index = (k,) * input.dim()
    else:  # (the flat positions k (cols + 1), as PyTorch's, rows and columns apart)
        flat = np.arange(0, rows * cols, cols + 1)
        index = (flat // cols, flat % cols)
    input[tuple(_index_tensor(i) for i in index)] = fill_value
    return input


def repeat_interleave(input: Tensor, repeats: Any = None, dim: int | None = None, *,
                      output_size: int | None = None) -> Tensor:
    """Each element (or slice along ``dim``) repeated ``repeats`` times in place, an
    int or one count per element; ``repeat_interleave(counts)`` alone gives the
    positions ``0, 0, ..., 1, ...`` each repeated its count.

    >>> import fad.torch as torch
    >>> torch.tensor([1.0, 2.0]).repeat_interleave(2)
    tensor([1., 1., 2., 2.])
    """
    if repeats is None:  # the one-argument form: input holds the counts
        counts = np.asarray(host(input._value))
        if counts.dtype.kind not in "iu":
            raise NotImplementedError("\"repeat_interleave_cpu\" not implemented for "
                                      f"'{_dtype.type_word(input.dtype)}'")
        if counts.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        return wrap(np.repeat(np.arange(counts.shape[0]), _counts(counts)).astype(np.int64))
    if dim is None:
        input, dim = reshape(input, (-1,)), 0
    dim = _wrap_dim(dim, input.dim())
    n = input.shape[dim]
    counts = np.asarray(host(repeats._value)) if isinstance(repeats, Tensor) else \
        np.asarray(repeats)
    if counts.ndim == 0 and not isinstance(repeats, Tensor):  # an int: each slice r times
        r = int(counts)
        if r < 0:
            raise RuntimeError("Repeats must be non-negative")
        shape = list(input.shape)
        wide = unsqueeze(input, dim + 1).expand(*shape[:dim + 1], r, *shape[dim + 1:])
        # (new memory, as PyTorch's: the expanded view copied before it is reshaped)
        return reshape(wide.contiguous(), (*shape[:dim], shape[dim] * r, *shape[dim + 1:]))
    if counts.ndim == 0 or counts.shape == (1,):
        counts = np.full(n, int(counts.reshape(())))
    elif counts.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    elif counts.shape[0] != n:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                           f"repeats.size(0) = {counts.shape[0]} and input.size({dim}) = {n}")
    index = np.repeat(np.arange(n), _counts(counts)).astype(np.int64)
    if output_size is not None and index.shape[0] != output_size:
        raise RuntimeError("allocated size does not match required size")
    return index_select(input, dim, wrap(index))


def _counts(counts: np.ndarray) -> np.ndarray:
    if counts.dtype.kind not in "iu":
        raise RuntimeError("repeats has to be Long or Int tensor")
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    return counts


def tensor_split(input: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple:
    """``input`` cut along ``dim`` into ``n`` nearly equal parts (the first ones one
    longer) or at the given indices; views.

    >>> import fad.torch as torch
    >>> [t.tolist() for t in torch.arange(5).tensor_split(2)]
    [[0, 1, 2], [3, 4]]
    """
    dim = _wrap_dim(dim, input.dim())
    size = input.shape[dim]
    if isinstance(indices_or_sections, Tensor) and indices_or_sections.dim() == 0:
        indices_or_sections = int(indices_or_sections.item())
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        lengths = [size // n + 1] * (size % n) + [size // n] * (n - size % n)
        bounds = np.cumsum([0] + lengths).tolist()
    else:
        cuts = [int(i) for i in (indices_or_sections.tolist()
                                 if isinstance(indices_or_sections, Tensor)
                                 else indices_or_sections)]
        bounds = [0] + [min(max(c, 0), size) for c in cuts] + [size]
    return tuple(narrow(input, dim, a, max(b - a, 0)) for a, b in zip(bounds, bounds[1:]))


def _split_along(name: str, least: int, dim: int) -> Any:
    """PyTorch's ``hsplit``/``vsplit``/``dsplit``: ``tensor_split`` along ``dim``
    (``hsplit`` of a vector: along 0) of a tensor of at least ``least`` dimensions, a
    number of sections having to divide that dimension."""
    def split(input: Tensor, indices_or_sections: Any) -> tuple:
        if input.dim() < least:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {least} "
                               f"dimension, but got a tensor with {input.dim()} dimensions!")
        d = 0 if name == "hsplit" and input.dim() == 1 else dim
        if isinstance(indices_or_sections, int) and (
                indices_or_sections <= 0 or input.shape[d] % indices_or_sections):
            raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the "
                               f"size of the dimension {input.shape[d]} is not divisible by "
                               f"the split_size {indices_or_sections}!")
        return tensor_split(input, indices_or_sections, d)
    split.__name__ = name
    split.__doc__ = (f"``tensor_split`` along dimension {dim} (views).\n\n"
                     f"    >>> import fad.torch as torch\n"
                     f"    >>> [tuple(t.shape) for t in torch.{name}(torch.ones(2, 2, 2), 2)]\n"
                     f"    {[tuple(2 if i != dim else 1 for i in range(3))] * 2}\n    ")
    return split


hsplit = _split_along("hsplit", 1, 1)
vsplit = _split_along("vsplit", 2, 0)
dsplit = _split_along("dsplit", 3, 2)


def rot90(input: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    """``input`` rotated by ``k`` quarter turns from ``dims[0]`` towards ``dims[1]``.

    >>> import fad.torch as torch
    >>> torch.rot90(torch.tensor([[1, 2], [3, 4]]))
    tensor([[2, 4],
            [1, 3]])
    """
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    d0, d1 = _wrap_dim(dims[0], input.dim()), _wrap_dim(dims[1], input.dim())
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and "
                           f"dim1 = {d1}")
    return apply(_ROT90, (input,), {"k": int(k) % 4, "dims": (d0, d1)})


def select(input: Tensor, dim: int, index: int) -> Tensor:
    """The slice at ``index`` along ``dim`` (that dimension removed), a view.

    >>> import fad.torch as torch
    >>> torch.arange(6).reshape(2, 3).select(1, -1)
    tensor([2, 5])
    """
    if input.dim() == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = _wrap_dim(dim, input.dim())
    n = input.shape[dim]
    index = int(index)
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {dim}")
    return getitem(input, (slice(None),) * dim + (index,))


def _quantile(name: str, nan: bool) -> Any:
    def fn(input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,
           interpolation: str = "linear") -> Tensor:
        if input.dtype.np.kind != "f":
            raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
        qs = np.asarray(host(q._value)) if isinstance(q, Tensor) else np.asarray(q)
        if qs.ndim > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if ((qs < 0) | (qs > 1)).any():
            raise RuntimeError(f"{name}() q values must be in the range [0, 1]"
                               if isinstance(q, Tensor) else
                               f"{name}() q must be in the range [0, 1] but got {q}")
        if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
            raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                               f"midpoint or nearest, but got {interpolation}")
        axis = None if dim is None else _wrap_dim(dim, input.dim())
        op = _QUANTILE_OPS[(nan, interpolation)]
        q = tuple(float(v) for v in qs) if qs.ndim else float(qs)
        return apply(op, (input,), {"q": q, "axis": axis, "keepdims": bool(keepdim)})
    what = "NaNs left out" if nan else "interpolated as ``interpolation`` says"
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"The ``q`` quantiles of ``input`` over ``dim`` (or all of it), {what}."
                  f"\n\n>>> import fad.torch as torch\n>>> torch.{name}(torch.tensor([1.0, "
                  "2.0, 3.0, 4.0]), 0.5)\ntensor(2.5000)\n")
    return fn


def _quantile_op(nan: bool, method: str) -> Op:
    f = fnp.nanquantile if nan else fnp.quantile

    def fun(a: Any, q: Any = 0.5, axis: Any = None, keepdims: bool = False) -> Any:
        return f(a, np.asarray(q, a.dtype), axis=axis, method=method, keepdims=keepdims)
    return Op("nanquantile" if nan else "quantile", fun, "SqueezeBackward4", None, False)


_QUANTILE_OPS = {(nan, m): _quantile_op(nan, m) for nan in (False, True)
                 for m in ("linear", "lower", "higher", "midpoint", "nearest")}
quantile = _quantile("quantile", False)
nanquantile = _quantile("nanquantile", True)


def complex(real: Tensor, imag: Tensor) -> Tensor:
    """The complex tensor ``real + imag * 1j`` (float32 parts give complex64).

    >>> import fad.torch as torch
    >>> torch.complex(torch.tensor([1.0]), torch.tensor([2.0]))
    tensor([1.+2.j])
    """
    a, b = real.dtype, imag.dtype
    if a.np.kind != "f" or b.np.kind != "f":
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{_dtype.type_word(a)} and {_dtype.type_word(b)}")
    if a != b:
        raise RuntimeError(f"Expected object of scalar type {_dtype.type_word(a)} but got "
                           f"scalar type {_dtype.type_word(b)} for second argument")
    return apply(_COMPLEX, (real, imag))


def _triangle(lower: bool) -> Any:
    def fn(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
           layout: Any = None) -> Tensor:
        rows, cols = (np.tril_indices if lower else np.triu_indices)(int(row), int(offset),
                                                                      int(col))
        dt = np.int64 if dtype is None else _dtype.np_dtype(dtype)
        return wrap(np.stack([rows, cols]).astype(dt))
    name = "tril_indices" if lower else "triu_indices"
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"The (row, column) indices of the {'lower' if lower else 'upper'} triangle "
                  f"of a ``row`` x ``col`` matrix (from diagonal ``offset``), a 2 x N "
                  f"tensor.\n\n>>> import fad.torch as torch\n>>> torch.{name}(2, 2)\n"
                  + ("tensor([[0, 1, 1],\n        [0, 0, 1]])\n" if lower else
                     "tensor([[0, 0, 1],\n        [0, 1, 1]])\n"))
    return fn


tril_indices = _triangle(True)
triu_indices = _triangle(False)


class finfo:
    """The limits of a floating dtype (the default one without an argument), with
    PyTorch's attribute names.

    >>> import fad.torch as torch
    >>> torch.finfo(torch.float32).eps
    1.1920928955078125e-07
    """

    def __init__(self, type: Any = None):
        d = _dtype.get_default_dtype() if type is None else _dtype.as_dtype(type)
        if d.np.kind not in "fc":
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        i = np.finfo(d.np)
        self.bits, self.eps, self.max, self.min = i.bits, float(i.eps), float(i.max), \
            float(i.min)
        self.tiny = self.smallest_normal = float(i.tiny)
        self.resolution = 10.0 ** -int(i.precision)
        self.dtype = np.dtype(i.dtype).name

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.tiny:g}, tiny={self.tiny:g}, "
                f"dtype={self.dtype})")


class iinfo:
    """The limits of an integer dtype, with PyTorch's attribute names.

    >>> import fad.torch as torch
    >>> torch.iinfo(torch.int8).max
    127
    """

    def __init__(self, type: Any):
        d = _dtype.as_dtype(type)
        if d.np.kind not in "iub":
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo "
                            "to handle 'torch.iinfo'")
        i = np.iinfo(np.uint8 if d.np.kind == "b" else d.np)
        self.bits, self.max, self.min = i.bits, int(i.max), int(i.min)
        self.dtype = d.np.name

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"

__all__ = [n for n in exported(globals()) if n != "fill_diagonal_"]  # (a method only)
