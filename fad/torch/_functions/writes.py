"""In-place writes: ``x[index] = v``, ``x.add_(...)``, ``out=`` arguments, and
the write through a buffer that views share."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._dtype import array_np_dtype, type_word
from .._grad_mode import GRAD_ENABLED
from .._graph import rebind_saved_output
from .._memory import (
    OVERLAP_MESSAGE,
    check_overlapping_write,
    internal_overlap,
    writable_alias,
)
from .._ops import call
from ..tensor import Tensor, live_aliases, wrap
from ._common import exported
from .conversions import _check_cast, to
from .indexing import _index, _integers_first, getitem, repeats
from .shapes import reshape


def setitem(input: Tensor, index: Any, value: Any) -> None:
    index = _index(index)
    value = _cast_value(input, index, value)
    first, rest = _integers_first(index)
    if first is not None:  # (the integers select first, as in PyTorch's indexing)
        return setitem(getitem(input, first), rest, value)
    grad_on = GRAD_ENABLED.get()
    v_req = isinstance(value, Tensor) and value._requires_grad
    if grad_on:
        _check_recordable(input)
    if not grad_on or not (input._requires_grad or v_req):
        val = value._value if isinstance(value, Tensor) else value
        arr = input._value
        if type(arr) is np.ndarray and (input._cow or not arr.flags.writeable):
            w = None if input._cow else writable_alias(arr)
            if w is None:  # (copy on write, or memory handed over read-only)
                input._value = arr = arr.copy()
                input._cow = False
            else:  # an expanded view: the write goes into what it views
                _check_indexed_overlap(arr, index, value)
                arr = w
        try:
            arr[index] = val
        except (TypeError, ValueError) as e:
            raise RuntimeError(str(e)) from None
        input._version += 1
        return
    if type(input._value) is np.ndarray and internal_overlap(input._value):
        # an expanded view: as PyTorch, ``x[index].copy_(value)`` for a basic index (an
        # index array's write fad.torch refuses to record here: see the README)
        if _advanced(index):
            raise RuntimeError(OVERLAP_MESSAGE)
        getitem(input, index).copy_(value)
        return
    shared = _shared(input)
    snap = _snapshot(input, shared)
    extra = {"repeated": True} if v_req and repeats(input.shape, index) else {}
    if isinstance(value, Tensor):
        out = call("index_put", snap, value, index=index, **extra)
    else:
        out = call("index_put", snap, v=value, index=index, **extra)
    _rebind(input, out, shared)


def _check_indexed_overlap(arr: np.ndarray, index: tuple, value: Any) -> None:
    """PyTorch's rule for ``x[index] = value`` into an expanded ``x`` (``arr``): a
    basic index writes the part it selects, refused if cells are shared there; an
    index with index arrays or masks is PyTorch's ``index_put_`` (with a mask and a
    number, its ``masked_fill_`` too), which warns."""
    if not internal_overlap(arr):
        return
    advanced = _advanced(index)
    if not advanced:
        if internal_overlap(arr[index]):
            raise RuntimeError(OVERLAP_MESSAGE)
        return
    check_overlapping_write(arr, "index_put_")
    if all(np.asarray(i).dtype == bool for i in advanced) and not isinstance(value, Tensor):
        check_overlapping_write(arr, "masked_fill_")  # (PyTorch's index_put_ calls it)


def _advanced(index: tuple) -> list:
    """The index arrays and masks of ``index`` (empty for a basic index)."""
    return [i for i in index if isinstance(i, list) or getattr(i, "ndim", 0) > 0]


def _cast_value(input: Tensor, index: tuple, value: Any) -> Any:
    """PyTorch's rules for the value of ``x[index] = value``: a list is refused; an
    index with index arrays (PyTorch's ``index_put_``) takes only a value of
    ``x``'s dtype (or a 0-d tensor under a mask); a Python integer must fit an
    integer ``x``'s dtype (a negative one wraps around into ``uint8``)."""
    if isinstance(value, list | tuple):
        raise TypeError(f"can't assign a {type(value).__name__} to a "
                        f"torch.{type_word(input.dtype)}Tensor")
    arrays = _advanced(index)
    masks_only = all(np.asarray(i).dtype == bool if isinstance(i, list)
                     else array_np_dtype(i).kind == "b" for i in arrays)
    if isinstance(value, Tensor) and arrays and value.dtype != input.dtype and not (
            masks_only and value.dim() == 0):
        raise RuntimeError(f"Index put requires the source and destination dtypes match, "
                           f"got {type_word(input.dtype)} for the destination and "
                           f"{type_word(value.dtype)} for the source.")
    if type(value) is int and input.dtype.np.kind in "iu":
        info = np.iinfo(input.dtype.np)
        if input.dtype.name == "uint8" and -255 <= value < 0:
            value += 256  # (PyTorch wraps a negative byte around)
        elif not info.min <= value <= info.max:
            raise RuntimeError(f"value cannot be converted to type {input.dtype.name}_t "
                               f"without overflow")
    return value


def _snapshot(t: Tensor, copy: bool) -> Tensor:
    """``t`` as an operation's input before an in-place write into ``t``: its buffer,
    or (``copy``) a copy of it, for when the write will go into the buffer
    (``_shared``) and the operation may save its input."""
    v = t._value
    s = wrap(v.copy() if copy else v, t._requires_grad, t._grad_fn, t._output_nr)
    s._version = t._version
    return s


def _shared(t: Tensor) -> bool:
    """Whether another live tensor shares ``t``'s NumPy buffer: a view, a base, a
    ``detach()`` alias."""
    vc = t._vc
    return len(vc) > 1 and type(t._value) is np.ndarray and \
        (t._base is not None or None in vc or any(u is not t for u in live_aliases(t)))


def _rebind(t: Tensor, out: Tensor, shared: bool) -> None:
    """Make ``t`` hold ``out``, the recorded result of an in-place operation on it
    (``shared``: ``_shared(t)``)."""
    if out.dtype is not t.dtype:
        out = to(out, t.dtype)
    if shared:
        write_through(t, out)
        return
    t._value = out._value
    if t._retains_grad:
        _take_node(t, out)
    else:  # (_take_node, inlined: the hot path of in-place operations)
        t._grad_fn, t._output_nr = out._grad_fn, out._output_nr
        t._requires_grad = out._requires_grad or t._requires_grad
    t._cow = True
    t._vc[0] += 1
    if out._grad_fn is not None:  # ``t`` may now hold a saved output: watch its counter
        rebind_saved_output(out._grad_fn, out._vc, t._vc)


def inplace(self: Tensor, compute: Any, write: str | None = None) -> Tensor:
    """Run ``compute(self)`` out of place, then make ``self`` hold the result:
    recorded (self becomes the op's output) or written into its buffer. ``write``:
    what kind of write it is, for an ``expand()``ed ``self`` (``"fill"``, an indexed
    write's name, or ``None``: see ``fad/torch/_memory.py``)."""
    v = self._value
    shares_cells = type(v) is np.ndarray and not v.flags.writeable and internal_overlap(v)
    if shares_cells:
        check_overlapping_write(v, write)
    grad_on = GRAD_ENABLED.get()
    if grad_on and (self._requires_grad and self._grad_fn is None or self._base is not None):
        _check_recordable(self)
    shared = grad_on and len(self._vc) > 1 and _shared(self)  # (the test inlined: hot path)
    out = compute(_snapshot(self, shared) if grad_on else self)
    if tuple(out.shape) != tuple(self.shape):
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                           f"shape {list(out.shape)}")
    _check_cast(out, self)
    if out._grad_fn is not None:
        if shares_cells and write != "fill":
            raise RuntimeError(OVERLAP_MESSAGE)  # (recorded: fad.torch refuses, see the README)
        _rebind(self, out, shared)
    else:
        self._write(out._value)
        self._version += 1
    return self


def inplace_view(self: Tensor, compute: Any) -> Tensor:
    """``self.t_()``, ``self.unsqueeze_(0)``...: ``self`` takes the shape (and the
    recorded node) of the view ``compute(self)``; its memory is unchanged."""
    if GRAD_ENABLED.get() and self._requires_grad and self._grad_fn is None:
        _check_recordable(self)
    out = compute(self)
    self._value = out._value
    if out._grad_fn is not None:
        self._grad_fn, self._output_nr = out._grad_fn, out._output_nr
    self._vc[0] += 1
    return self


def write_through(t: Tensor, out: Tensor) -> None:
    """The recorded in-place result ``out`` written into the buffer that ``t`` shares
    with other tensors, as PyTorch's ``CopySlices`` does: every tensor viewing that
    buffer sees the new values, ``t``'s gradient goes through ``out``'s node, and that
    of each other view, and of the base, through a node that takes the overlapping
    elements from ``out`` and the others from its former value.

    >>> import fad.torch as torch
    >>> x = torch.ones(3, requires_grad=True)
    >>> a = x * 1
    >>> a[:2].mul_(5)
    tensor([5., 5.], grad_fn=<MulBackward0>)
    >>> a.sum().backward(); a.tolist(), x.grad.tolist()
    ([5.0, 5.0, 1.0], [5.0, 5.0, 1.0])
    """
    arr = t._own() if t._cow else t._value  # (no live view shares a _cow array)
    w = writable_alias(arr)  # (an expanded view being filled: into what it views)
    if w is None:
        raise RuntimeError(OVERLAP_MESSAGE)
    np.copyto(w, out._value, casting="unsafe")
    _take_node(t, out)
    t._vc[0] += 1
    rebind_saved_output(out._grad_fn, out._vc, t._vc)
    base = t if t._base is None else t._base
    others = [u for u in (base, *live_aliases(t))
              if u is not t and (u is base or u._base is base) and u.dtype is t.dtype]
    if not others or not arr.size:  # (an empty view writes nothing into the others)
        return
    written = _addresses(arr).ravel()
    order = np.argsort(written, kind="stable")
    flat_out = None
    for u in others:
        at = _addresses(u._value)
        k = np.searchsorted(written, at, sorter=order).clip(0, len(written) - 1)
        src = order[k]
        hit = written[src] == at
        if not hit.any():
            continue
        if flat_out is None:
            flat_out = reshape(out, -1)
        part = getitem(flat_out, src[hit])
        if hit.ndim:
            new = call("index_put", _snapshot(u, False), part, index=np.nonzero(hit))
        else:  # a 0-d view, wholly written
            new = reshape(part, ())
        _take_node(u, new)


def _take_node(t: Tensor, new: Tensor) -> None:
    """``t`` now holds the value of ``new``, an operation's output that requires grad:
    take its ``grad_fn``, and its ``retain_grad()`` moves there (``t.grad`` is the
    gradient of the new value, as PyTorch's)."""
    old, old_nr = t._grad_fn, t._output_nr
    t._grad_fn = node = new._grad_fn
    t._output_nr = new._output_nr
    t._requires_grad = new._requires_grad or t._requires_grad
    if t._retains_grad and node is not None and old is not None and old._retain:
        ref = old._retain.pop(old_nr, None)
        if ref is not None:
            if node._retain is None:
                node._retain = {}
            node._retain[t._output_nr] = ref


def _addresses(a: np.ndarray) -> np.ndarray:
    """The memory address of each element of ``a``."""
    addr = np.full(a.shape, a.__array_interface__["data"][0], dtype=np.int64)
    for k, (n, stride) in enumerate(zip(a.shape, a.strides)):
        addr += (np.arange(n, dtype=np.int64) * stride).reshape((n,) + (1,) * (a.ndim - k - 1))
    return addr


def _check_recordable(t: Tensor) -> None:
    """Refuse, in PyTorch's words, an in-place write into ``t`` with grad mode on
    that autograd cannot record: into a leaf that requires grad, into a view of one,
    or into a view made under ``no_grad`` of a tensor that requires grad (its base's
    gradient would ignore the write)."""
    if t._requires_grad and t._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    base = t._base
    if base is None or not base._requires_grad:
        return
    if not t._requires_grad:
        raise RuntimeError(
            "A view was created in no_grad mode and is being modified inplace with grad "
            "mode enabled. Given that this use case is ambiguous and error-prone, it is "
            "forbidden. You can clarify your code by moving both the view and the inplace "
            "either both inside the no_grad block (if you don't want the inplace to be "
            "tracked) or both outside (if you want the inplace to be tracked).")
    if base._grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")


def into(name: str, out: Any, args: tuple, compute: Any) -> Tensor:
    """``torch.<name>(*args, out=out)``: the result of ``compute()`` written into
    ``out`` (resized if its shape differs, as PyTorch does) and ``out`` returned.
    Refused, in PyTorch's words, when autograd would have to record it.

    >>> import fad.torch as torch
    >>> y = torch.zeros(2)
    >>> torch.add(torch.ones(2), 1, out=y) is y, y.tolist()
    (True, [2.0, 2.0])
    """
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if GRAD_ENABLED.get() and any(isinstance(a, Tensor) and a._requires_grad
                                          for a in (*args, out)):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires "
                           "grad.")
    result = compute()
    _check_cast(result, out)
    if tuple(result.shape) != tuple(out.shape):
        if out.numel():
            warnings.warn(f"An output with one or more elements was resized since it had "
                          f"shape {list(out.shape)}, which does not match the required "
                          f"output shape {list(result.shape)}.", UserWarning, stacklevel=3)
        out._value = result._value.astype(out._value.dtype, copy=True)
        out._cow = False
    else:
        check_overlapping_write(out._value, None)
        out._write(result._value)
    out._version += 1
    return out


def accepts_out(fn: Any, name: str | None = None) -> Any:
    """``fn`` taking PyTorch's ``out=`` keyword too: the result written into
    ``out`` (a tensor, or a tuple of tensors for a function returning several)
    by ``into``; without ``out``, ``fn`` itself runs.

    >>> import fad.torch as torch
    >>> y = torch.empty(0)
    >>> torch.cat([torch.ones(1), torch.zeros(1)], out=y) is y, y.tolist()
    (True, [1.0, 0.0])
    """
    name = name or fn.__name__

    def wrapper(*args: Any, out: Any = None, **kwargs: Any) -> Any:
        if out is None:
            return fn(*args, **kwargs)
        flat = [b for a in args for b in (a if isinstance(a, list | tuple) else (a,))]
        if isinstance(out, list | tuple):
            result = fn(*args, **kwargs)
            if not isinstance(result, tuple) or len(result) != len(out):
                raise TypeError(f"{name}(): argument 'out' must be a Tensor or a tuple of "
                                f"{len(result) if isinstance(result, tuple) else 1}")
            for o, r in zip(out, result):
                into(name, o, flat, lambda r=r: r)
            return type(result)(*out) if hasattr(result, "_fields") else tuple(out)
        return into(name, out, flat, lambda: fn(*args, **kwargs))
    wrapper.__name__ = wrapper.__qualname__ = name
    wrapper.__doc__ = fn.__doc__
    wrapper.__wrapped__ = fn
    return wrapper


def accept_out_in(namespace: dict) -> None:
    """Give the public functions of a module (its ``__all__``) PyTorch's ``out=``
    keyword; their examples stay doctests through the module's ``__test__``."""
    tests = namespace.setdefault("__test__", {})
    for name in namespace["__all__"]:
        fn = namespace[name]
        if callable(fn) and not isinstance(fn, type):
            tests[name] = fn
            namespace[name] = accepts_out(fn, name)


__all__ = exported(globals())
