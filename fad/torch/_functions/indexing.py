"""Indexing: ``x[index]``, ``narrow``, ``gather``, ``index_select``,
``masked_fill``, ``where``, ``nonzero``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import numpy as fnp
from ...core.trace import Tracer
from .._dtype import array_np_dtype, cpp_name, type_word
from .._graph import host
from .._ops import OPS, call
from .._recorder import Op, _broadcast_message, apply
from .._warnings import warn_once
from ..tensor import Tensor, _wrap_dim, wrap
from ._common import _idx, exported


def narrow(input: Tensor, dim: int, start: Any, length: int) -> Tensor:
    """``length`` entries of ``input`` along ``dim`` from ``start`` (which may count
    from the end), a view; PyTorch's errors when they do not fit.

    >>> import fad.torch as torch
    >>> torch.arange(5).narrow(0, -3, 2)
    tensor([2, 3])
    """
    if input.dim() == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = _wrap_dim(dim, input.dim())
    size = input.shape[dim]
    start = int(host(start._value)) if isinstance(start, Tensor) else int(start)
    length = int(length)
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    start = start + size if start < 0 else start
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    index = (slice(None),) * dim + (slice(start, start + length),)
    return call("getitem", input, index=index)


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    if not isinstance(index, Tensor):
        raise TypeError(f"index_select(): argument 'index' (position 2) must be Tensor, "
                        f"not {type(index).__name__}")
    if index.dim() > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index.dim() == 0:
        index = index.reshape(1)
    dim = _wrap_dim(dim, input.dim())
    bad = _outside(index, input.shape[dim] if input.dim() else 1)
    if bad is not None:
        raise IndexError("index out of range in self")
    return call("index_select", input, dim=dim, index=_idx(index))


def gather(input: Tensor, dim: int, index: Tensor) -> Tensor:
    dim = _wrap_dim(dim, input.dim())
    size = input.shape[dim] if input.dim() else 1
    bad = _outside(index, size)
    if bad is not None:
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
    return call("gather", input, dim=dim, index=_idx(index))


def _outside(index: Any, size: int) -> int | None:
    """The first entry of a concrete ``index`` outside ``[0, size)``, or ``None``."""
    if not isinstance(index, Tensor) or isinstance(index._value, Tracer) or not index.numel():
        return None
    idx = np.asarray(host(index._value)).ravel()
    wrong = np.nonzero((idx < 0) | (idx >= size))[0]
    return int(idx[wrong[0]]) if wrong.size else None


def scatter(input: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
            reduce: str | None = None) -> Tensor:
    """``out[..., index[p], ...] = src[p]`` along ``dim`` (a copy of ``input``);
    ``value``: a number instead of ``src``; ``reduce="add"`` / ``"multiply"``: summed
    into / multiplied into ``input``.

    >>> import fad.torch as torch
    >>> torch.zeros(3).scatter(0, torch.tensor([2, 0]), torch.tensor([5.0, 7.0])).tolist()
    [7.0, 0.0, 5.0]
    >>> torch.ones(3).scatter(0, torch.tensor([0, 0]), 2.0, reduce="multiply").tolist()
    [4.0, 1.0, 1.0]
    """
    if reduce not in (None, "add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    src = value if src is None else src
    if isinstance(src, Tensor):
        _same_scatter_dtype(input, src)
        if src.dim() == 0:
            src = src.item()
    dim = _wrap_dim(dim, input.dim())
    index = _idx(index)
    if reduce is None and isinstance(src, Tensor) and src._requires_grad and \
            _repeats_along(index, dim):
        # every element of src gets the gradient at its destination (PyTorch's
        # ``grad.gather``), also those whose write another element overrides
        return call("scatter_all_grads", input, src, dim=dim, index=index)
    return call("scatter", input, src, dim=dim, index=index, reduce=reduce)


def _same_scatter_dtype(input: Tensor, src: Tensor) -> None:
    if src.dtype is not input.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")


def _repeats_along(index: Any, dim: int) -> bool:
    """Whether two elements of ``index`` at the same position along the other axes
    hold the same value (two writes to one destination)."""
    at = np.sort(np.asarray(host(index)), axis=dim)
    return at.ndim > 0 and bool((np.diff(at, axis=dim) == 0).any())


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """``out[..., index[p], ...] += src[p]`` along ``dim`` (repeated indices summed).

    >>> import fad.torch as torch
    >>> torch.zeros(2).scatter_add(0, torch.tensor([1, 1, 0]), torch.ones(3)).tolist()
    [1.0, 2.0]
    """
    _same_scatter_dtype(input, src)
    return call("scatter", input, src, dim=_wrap_dim(dim, input.dim()), index=_idx(index),
                reduce="add")


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1
              ) -> Tensor:
    """``out[..., index[i], ...] += alpha * source[..., i, ...]`` along ``dim``.

    >>> import fad.torch as torch
    >>> torch.zeros(3).index_add(0, torch.tensor([0, 0, 2]), torch.ones(3)).tolist()
    [2.0, 0.0, 1.0]
    """
    if source.dtype is not input.dtype:
        raise RuntimeError(f"index_add_(): self ({type_word(input.dtype)}) and source "
                           f"({type_word(source.dtype)}) must have the same scalar type")
    return call("index_add", input, source, dim=_wrap_dim(dim, input.dim()),
                index=_idx(index), alpha=alpha)


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """``input``'s entries at ``indices`` along ``dim`` (of the flattened ``input``
    without ``dim``); the other dimensions of the two broadcast, as PyTorch's.

    >>> import fad.torch as torch
    >>> torch.take_along_dim(torch.tensor([[1, 2, 3], [4, 5, 6]]), torch.tensor([[2]]), 1)
    tensor([[3],
            [6]])
    """
    if indices.dtype.name != "int64":
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but "
                           f"got {type_word(indices.dtype)}")
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    if input.dim() != indices.dim():
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {input.dim()} dimensions for "
                           f"input, and {indices.dim()} dimensions for indices")
    dim = _wrap_dim(dim, input.dim())
    a, i = list(input.shape), list(indices.shape)
    a[dim] = i[dim] = 1
    msg = _broadcast_message([tuple(a), tuple(i)])
    if msg is not None:
        raise RuntimeError(msg)
    shape = list(np.broadcast_shapes(tuple(a), tuple(i)))
    keep = list(shape)
    keep[dim], shape[dim] = input.shape[dim], indices.shape[dim]
    return gather(input.expand(*keep), dim, indices.expand(*shape))


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """``value`` where ``mask`` (a boolean tensor) is true, cast to ``input``'s dtype.

    >>> import fad.torch as torch
    >>> torch.tensor([1, 2]).masked_fill(torch.tensor([True, False]), 2.7)
    tensor([2, 2])
    """
    if isinstance(mask, Tensor) and mask.dtype.name != "bool":
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with "
                           f"dtype {cpp_name(mask.dtype)}")
    if isinstance(value, Tensor):
        if value.dim():
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, "
                               f"but got tensor with {value.dim()} dimension(s).")
        value = value.item()
    kind = input.dtype.np.kind
    if kind in "iub" and isinstance(value, float | complex):  # (PyTorch casts the value)
        value = bool(value) if kind == "b" else int(value.real)
    return call("masked_fill", input, mask=_idx(mask), value=value)


def where(condition: Tensor, input: Any = None, other: Any = None) -> Any:
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if isinstance(condition, Tensor) and condition.dtype.name != "bool":
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a "
                           f"tensor with dtype {type_word(condition.dtype)}")
    return call("where", input, other, cond=_idx(condition))


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,
           return_counts: bool = False, dim: int | None = None) -> Any:
    """The distinct values (sorted), with the inverse indices and the counts when
    asked; ``dim`` takes distinct slices along it. Never differentiable.

    >>> import fad.torch as torch
    >>> torch.unique(torch.tensor([3, 1, 1, 2]), return_counts=True)
    (tensor([1, 2, 3]), tensor([2, 1, 1]))
    """
    if dim is not None:
        dim = _wrap_dim(dim, input.dim())
    # (a data-dependent shape, as nonzero's: computed on the host, like it)
    vals, inv, counts = np.unique(np.asarray(host(input._value)), return_inverse=True,
                                  return_counts=True, axis=dim,
                                  equal_nan=False)  # (each NaN its own value, as PyTorch)
    vals, counts = wrap(vals), wrap(counts.astype(np.int64))
    inv = wrap(inv.astype(np.int64).reshape(tuple(input.shape) if dim is None else (-1,)))
    out = (vals,) + ((inv,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return out if len(out) > 1 else vals


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:
    """The indices of the non-zero entries, one row each (a tuple of index vectors with
    ``as_tuple``; a 0-d input counts as one-dimensional there, as PyTorch's).

    >>> import fad.torch as torch
    >>> torch.nonzero(torch.tensor([0, 3, 5])).tolist(), torch.nonzero(torch.tensor(2.0)).shape
    ([[1], [2]], torch.Size([1, 0]))
    """
    a = np.asarray(host(input._value))
    if a.ndim == 0:
        hit = np.array([0] if a != 0 else [], dtype=np.int64)
        return (wrap(hit),) if as_tuple else wrap(np.zeros((hit.size, 0), np.int64))
    idx = np.nonzero(a)
    if as_tuple:
        return tuple(wrap(i.astype(np.int64)) for i in idx)
    return wrap(np.stack(idx, axis=1).astype(np.int64))


def _index(index: Any) -> tuple:
    if isinstance(index, list) and any(isinstance(i, list | tuple | slice) or i is None or
                                       i is Ellipsis for i in index):
        index = tuple(index)  # (a list holding sequences is a tuple index, as PyTorch's)
    if not isinstance(index, tuple):
        index = (index,)
    out = []
    for i in index:
        if isinstance(i, slice) and i.step is not None and not isinstance(i.step, Tracer) \
                and int(i.step) <= 0:
            raise ValueError("step must be greater than zero")
        if isinstance(i, Tensor):
            v = i._value
            if not v.shape and array_np_dtype(v).kind in "iu" and not isinstance(v, Tracer):
                out.append(int(host(v)))
                continue
            if array_np_dtype(v).kind == "u" and not isinstance(v, Tracer):
                v = np.asarray(host(v)) != 0  # (a uint8 index is a mask, as PyTorch's)
            out.append(v)
        elif isinstance(i, list) and any(isinstance(e, Tensor) for e in i):
            out.append(np.asarray([host(e._value) if isinstance(e, Tensor) else e for e in i]))
        else:
            out.append(i)
    return tuple(out)


_PLAIN = (int, type(None))
_GETITEM = OPS["getitem"]


def getitem(input: Tensor, index: Any) -> Tensor:
    ti = type(index)
    if ti is slice and type(index.start) in _PLAIN and type(index.stop) in _PLAIN \
            and (index.step is None or type(index.step) is int and index.step > 0) \
            and input._value.ndim:  # ``x[a:b]``, the most frequent index: no checks apply
        return apply(_GETITEM, (input,), {"index": (index,)})
    if ti is int and input._value.ndim and -input.shape[0] <= index < input.shape[0]:
        return apply(_GETITEM, (input,), {"index": (index,)})
    index = _index(index)
    if input.dim() == 0 and any(isinstance(i, int) and not isinstance(i, bool)
                                for i in index):
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    try:
        if _is_basic(index) and sum(_nontrivial(i) for i in index) > 1:
            return _sequential_getitem(input, index)
        first, rest = _integers_first(index)
        if first is not None:
            return getitem(getitem(input, first), rest)
        _check_bounds(input.shape, index)
        return call("getitem", input, index=index)
    except IndexError as e:
        raise IndexError(str(e)) from None


def _check_bounds(shape: tuple, index: tuple) -> None:
    """PyTorch's ``IndexError`` for an integer or a concrete index array outside its
    dimension."""
    dim, ell = 0, False
    for i in index:
        if i is Ellipsis and not ell:
            ell = True
            dim = len(shape) - sum(1 for j in index if j is not None and j is not Ellipsis
                                   and not _is_mask(j)) - sum(
                getattr(j, "ndim", 0) for j in index if _is_mask(j))
            continue
        if i is None:
            continue
        if _is_mask(i):
            dim += getattr(i, "ndim", 1)
            continue
        if dim >= len(shape):
            return
        size = shape[dim]
        if isinstance(i, int | np.integer) and not isinstance(i, bool):
            bad = int(i) if not -size <= int(i) < size else None
        elif isinstance(i, np.ndarray | list) and not isinstance(i, Tracer):
            idx = np.asarray(i).ravel()
            wrong = idx[(idx < -size) | (idx >= size)] if idx.dtype.kind in "iu" else ()
            bad = int(wrong[0]) if len(wrong) else None
        else:
            bad = None
        if bad is not None:
            raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size "
                             f"{size}")
        dim += 1


def _is_mask(i: Any) -> bool:
    return hasattr(i, "dtype") and getattr(i, "ndim", 0) > 0 and array_np_dtype(i).kind == "b"


def _advanced(i: Any) -> bool:
    return isinstance(i, list | np.ndarray | Tracer) or hasattr(i, "shape") and \
        getattr(i, "ndim", 0) > 0


def _integers_first(index: tuple) -> tuple[Any, Any]:
    """PyTorch applies the integers of an index that also holds index arrays first,
    as basic indexing (NumPy counts them among the advanced indices, which moves the
    result's dimensions): ``(first, rest)`` to apply in turn, or ``(None, None)``."""
    if not any(isinstance(i, int | np.integer) and not isinstance(i, bool) for i in index) \
            or not any(_advanced(i) for i in index):
        return None, None
    first, rest = [], []
    for i in index:
        if isinstance(i, int | np.integer) and not isinstance(i, bool):
            first.append(int(i))
        elif i is None:
            first.append(None)
            rest.append(slice(None))
        elif i is Ellipsis:
            first.append(i)
            rest.append(i)
        else:
            arr = np.asarray(i) if isinstance(i, list) else i
            mask = hasattr(arr, "dtype") and array_np_dtype(arr).kind == "b"
            first.extend([slice(None)] * (arr.ndim if mask else 1))
            rest.append(i)
    return tuple(first), tuple(rest)


def _is_basic(index: tuple) -> bool:
    return all(i is None or i is Ellipsis or isinstance(i, slice) or
                        (isinstance(i, int | np.integer) and not isinstance(i, bool))
                        for i in index)


def _nontrivial(i: Any) -> bool:
    return i is not Ellipsis and i != slice(None)


def _sequential_getitem(t: Tensor, index: tuple) -> Tensor:
    """``x[0, 1:]`` as PyTorch records it: one node per indexing step."""
    dim = 0
    for k, i in enumerate(index):
        if i is Ellipsis:  # skip the dims that the items after it do not consume
            dim = t.dim() - sum(1 for j in index[k + 1:] if j is not None)
            continue
        if i is None:
            t = call("getitem", t, index=(slice(None),) * dim + (None,))
            dim += 1
        elif isinstance(i, slice):
            if i != slice(None):
                t = call("getitem", t, index=(slice(None),) * dim + (i,))
            dim += 1
        else:
            if not -t.shape[dim] <= int(i) < t.shape[dim]:
                raise IndexError(f"index {int(i)} is out of bounds for dimension {dim} with "
                                 f"size {t.shape[dim]}")
            t = call("getitem", t, index=(slice(None),) * dim + (int(i),))
    return t


def index_put(input: Tensor, indices: tuple, values: Tensor, accumulate: bool = False
              ) -> Tensor:
    index = _index(tuple(indices))
    if not accumulate and isinstance(values, Tensor) and values.requires_grad and \
            repeats(input.shape, index):
        return call("index_put", input, values, index=index, repeated=True)
    return call("index_put", input, values, index=index, accumulate=accumulate)


def repeats(shape: tuple, index: tuple) -> bool:
    """Whether ``index`` (with index arrays) names a position more than once: then
    the last value written there stays, and PyTorch's gradient reaches every value
    written there (``index_put``'s ``repeated``)."""
    if not any(isinstance(i, list) or getattr(i, "ndim", 0) > 0 for i in index):
        return False  # (slices and integers name each position once)
    try:
        named = np.arange(math.prod(shape)).reshape(shape)[
            tuple(np.asarray(host(i._value if isinstance(i, Tensor) else i))
                  if getattr(i, "ndim", 0) > 0 else i for i in index)].ravel()
    except (IndexError, TypeError, ValueError):  # (the operation reports it)
        return False
    return np.unique(named).size < named.size


_REDUCE_IDENTITY = {"sum": 0, "mean": 0, "prod": 1, "amax": -np.inf, "amin": np.inf}


def _scatter_reduce(a: Any, src: Any, dim: int = 0, index: Any = None, reduce: str = "sum",
                    include_self: bool = True) -> Any:
    """``scatter_reduce`` on ``fad.numpy``'s ``.at[]`` updates at the full index
    (``index`` along ``dim``, each element's own position along the other axes):
    without ``include_self`` the targets first take the reduction's identity."""
    grid = np.indices(index.shape, sparse=True)
    idx = tuple(index if d == dim else grid[d] for d in range(index.ndim))
    src = src[tuple(slice(0, n) for n in index.shape)]
    base = a
    if not include_self:
        ident = _REDUCE_IDENTITY[reduce]
        if a.dtype.kind in "iub" and not np.isfinite(ident):
            info = np.iinfo(a.dtype)
            ident = info.min if ident < 0 else info.max
        base = fnp.at(a)[idx].set(ident)
    if reduce in ("sum", "mean"):
        out = fnp.at(base)[idx].add(src)
    else:  # one update per round, each round's targets distinct (no index repeats)
        full = np.broadcast_arrays(*idx)
        flat = np.ravel_multi_index(tuple(full), a.shape).ravel()
        order = np.argsort(flat, kind="stable")
        first = np.searchsorted(flat[order], flat[order])
        rank = np.empty_like(flat)
        rank[order] = np.arange(flat.size) - first
        out = base
        for r in range(int(rank.max()) + 1 if flat.size else 0):
            pos = np.unravel_index(np.nonzero(rank == r)[0], index.shape)
            at = fnp.at(out)[tuple(f[pos] for f in full)]
            update = {"prod": at.multiply, "amax": at.max, "amin": at.min}[reduce]
            out = update(src[pos], unique_indices=True)
    if reduce != "mean":
        return out
    count = np.zeros(a.shape, dtype=np.int64)
    np.add.at(count, tuple(np.broadcast_arrays(*idx)), 1)
    count = count + int(include_self)
    count = np.where(count == 0, 1, count).astype(a.dtype)
    return out // count if a.dtype.kind in "iu" else out / count


_SCATTER_REDUCE = Op("scatter_reduce", _scatter_reduce, "ScatterReduceBackward0")


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    """``out[..., index[p], ...] = reduce(out[..., index[p], ...], src[p])`` along
    ``dim`` (``reduce``: ``"sum" "prod" "mean" "amax" "amin"``; the target's own
    value joins unless ``include_self=False``).

    >>> import fad.torch as torch
    >>> torch.zeros(2).scatter_reduce(0, torch.tensor([0, 0, 1]), torch.tensor([1.0, 3.0, 2.0]),
    ...                               "amax", include_self=False)
    tensor([3., 2.])
    """
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # (accepted, as PyTorch)
    if reduce not in _REDUCE_IDENTITY:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    return apply(_SCATTER_REDUCE, (input, src), {
        "dim": _wrap_dim(dim, input.dim()), "index": host(_idx(index)), "reduce": reduce,
        "include_self": include_self})


_INDEX_REDUCE = Op("index_reduce", _scatter_reduce, "IndexReduceBackward0")


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    """``out[..., index[i], ...] = reduce(out[..., index[i], ...], source[..., i, ...])``
    along ``dim``: whole slices of ``source`` reduced into the slices of ``input``
    that ``index`` names (``reduce``: ``"prod" "mean" "amax" "amin"``; the target's
    own value joins unless ``include_self=False``). It is ``scatter_reduce`` with
    ``index`` repeated along the other axes of ``source``.

    >>> import fad.torch as torch, warnings
    >>> warnings.simplefilter("ignore")  # (PyTorch's "in beta" warning)
    >>> torch.ones(2).index_reduce(0, torch.tensor([1, 1]), torch.tensor([2.0, 3.0]),
    ...                            "prod")
    tensor([1., 6.])
    """
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    warn_once("index_reduce() is in beta and the API may change at any time.")
    d = _wrap_dim(dim, max(input.dim(), 1))
    idx = host(_idx(index)).reshape(-1)
    shape = [1] * source.dim()
    if shape:
        shape[d] = -1
    full = np.ascontiguousarray(np.broadcast_to(idx.reshape(shape), tuple(source.shape)))
    return apply(_INDEX_REDUCE, (input, source), {
        "dim": d, "index": full, "reduce": reduce, "include_self": include_self})


__all__ = exported(globals())
