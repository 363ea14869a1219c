"""Views at a stride over a tensor's memory: ``Tensor.unfold`` (windows along one
dimension), ``as_strided`` (any sizes and strides) and ``storage_offset``.

PyTorch counts ``as_strided``'s strides and offset in its storage, the memory the
tensor shares with its base. fad's ``as_strided`` primitive reads its operand's own
elements in row-major order, so the facade maps storage positions onto the
tensor's elements: directly when the tensor is contiguous, through a permutation
of its dimensions when it is laid out without gaps or overlaps in another order
(a transpose). A position the tensor does not hold (storage of its base outside
a slice) is refused, where PyTorch would read its base.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ... import numpy as fnp
from ...primitives.strided import as_strided as _as_strided
from ...primitives.strided import windows
from .._memory import address, owner
from .._recorder import Op, apply
from ..tensor import Tensor, _wrap_dim
from ._common import _shape, exported


def storage_offset(input: Tensor) -> int:
    """How many elements into its storage (the memory of the array owning it) the
    tensor's first element lies.

    >>> import fad.torch as torch
    >>> torch.arange(6.0)[2:].storage_offset()
    2
    """
    v = input._value
    if type(v) is not np.ndarray or not v.itemsize:
        return 0
    return (address(v) - address(owner(v))) // v.itemsize


def _storage_size(input: Tensor) -> int:
    """The elements (of the tensor's size) its storage holds."""
    v = input._value
    if type(v) is not np.ndarray or not v.itemsize:
        return math.prod(v.shape)
    return owner(v).nbytes // v.itemsize


class UntypedStorage:
    """The memory a tensor lives in (its owning array's), seen as bytes: tensors
    that share it report the same ``data_ptr()``.

    >>> import fad.torch as torch
    >>> x = torch.arange(6.0)
    >>> s = x.untyped_storage()
    >>> x[2:].untyped_storage().data_ptr() == s.data_ptr(), len(s)
    (True, 24)
    """

    def __init__(self, input: Tensor):
        v = input._value
        self._owner = owner(v) if type(v) is np.ndarray else None
        self._nbytes = self._owner.nbytes if self._owner is not None else \
            math.prod(v.shape) * input.element_size()

    def data_ptr(self) -> int:
        return address(self._owner) if self._owner is not None else 0

    def nbytes(self) -> int:
        return self._nbytes

    def size(self) -> int:
        return self._nbytes

    def __len__(self) -> int:
        return self._nbytes


class TypedStorage(UntypedStorage):
    """``UntypedStorage`` counted in elements of the tensor's dtype (deprecated in
    PyTorch, with its warning)."""

    def __init__(self, input: Tensor):
        super().__init__(input)
        self.dtype = input.dtype

    def size(self) -> int:
        return self._nbytes // max(self.dtype.np.itemsize, 1)

    def __len__(self) -> int:
        return self.size()


def untyped_storage(input: Tensor) -> UntypedStorage:
    return UntypedStorage(input)


def typed_storage(input: Tensor) -> TypedStorage:
    warnings.warn("TypedStorage is deprecated. It will be removed in the future and "
                  "UntypedStorage will be the only storage class. This should only matter to "
                  "you if you are using storages directly.  To access UntypedStorage directly, "
                  "use tensor.untyped_storage() instead of tensor.storage()", UserWarning,
                  stacklevel=2)
    return TypedStorage(input)


def as_strided(input: Tensor, size: Any, stride: Any, storage_offset: int | None = None
               ) -> Tensor:
    """A view of ``input``'s storage with these sizes and strides (in elements),
    starting ``storage_offset`` elements in (``input``'s own by default): element
    ``i`` is the storage's element ``storage_offset + sum(i_k * stride_k)``;
    elements may be read more than once (their gradients add up).

    >>> import fad.torch as torch
    >>> torch.arange(5.0).as_strided((3, 2), (1, 1))
    tensor([[0., 1.],
            [1., 2.],
            [2., 3.]])
    """
    size, stride = tuple(_shape((size,))), tuple(int(s) for s in _shape((stride,)))
    start = _offset_of(input) if storage_offset is None else int(storage_offset)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if min(stride, default=0) < 0:
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, "
                           f"got strides: {list(stride)}")
    if start < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {start}")
    if min(size, default=0) < 0:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} "
                           f"and strides={list(stride)}")
    count = math.prod(size)
    reach = sum((n - 1) * s for n, s in zip(size, stride)) if count else 0
    itemsize = input.element_size()
    if count and start + reach >= _storage_size(input):
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {start}, "
            f"and itemsize {itemsize} requiring a storage size of "
            f"{(start + reach + 1) * itemsize} are out of bounds for storage of size "
            f"{_storage_size(input) * itemsize}")
    source, first = _row_major(input)
    if count and (source is None or not first <= start <= start + reach < first
                  + input.numel()):
        raise RuntimeError(
            f"as_strided: storage positions {start} to {start + reach} are not all elements "
            f"of this tensor (sizes {list(input.shape)}, strides {list(input.stride())}, "
            f"storage offset {first}): fad.torch's as_strided reads only the tensor's own "
            "elements, laid out without gaps or overlaps")
    return apply(_AS_STRIDED, (input if source is None else source,),
                 {"shape": size, "strides": stride, "offset": start - first if count else 0})


_offset_of = storage_offset
_AS_STRIDED = Op("as_strided", _as_strided, "AsStridedBackward0", None, False)


def _row_major(input: Tensor) -> tuple[Tensor | None, int]:
    """``(input's dimensions permuted so that its elements are in row-major order in
    memory, the storage offset of the first)``, or ``(None, offset)`` when they lie
    with gaps or overlaps."""
    first = storage_offset(input)
    if input.is_contiguous():
        return input, first
    dims = sorted((d for d in range(input.dim()) if input.shape[d] != 1),
                  key=lambda d: -input.stride(d))
    expected = 1
    for d in reversed(dims):
        if input.stride(d) != expected:
            return None, first
        expected *= input.shape[d]
    order = dims + [d for d in range(input.dim()) if input.shape[d] == 1]
    return input.permute(order), first


def _windows(a: Any, dim: int = 0, size: int = 1, step: int = 1) -> Any:
    """The windows of ``size`` entries every ``step`` along ``dim``: that dimension
    becomes the window count, and a last dimension of ``size`` is appended; a view
    of ``a``, sharing its memory, as PyTorch's."""
    if a.ndim == 0:
        return fnp.reshape(a, (1,))[:size]
    return windows(a, dim, size, step)  # (a view, as PyTorch's)


_WINDOWS = Op("unfold", _windows, "UnfoldBackward0", None, False)


def unfold_windows(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """``Tensor.unfold``: every window of ``size`` entries along ``dimension``,
    ``step`` apart, that dimension becoming the window index and a new last
    dimension holding each window.

    >>> import fad.torch as torch
    >>> torch.arange(5.0).unfold(0, 2, 2)
    tensor([[0., 1.],
            [2., 3.]])
    """
    dim = _wrap_dim(dimension, max(input.dim(), 1))
    length = input.shape[dim] if input.dim() else 1
    size, step = int(size), int(step)
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {dim} is {length} but size "
                           f"is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    return apply(_WINDOWS, (input,), {"dim": dim, "size": size, "step": step})


__all__ = [n for n in exported(globals()) if n not in (
    "storage_offset", "unfold_windows", "untyped_storage", "typed_storage", "UntypedStorage",
    "TypedStorage")]
