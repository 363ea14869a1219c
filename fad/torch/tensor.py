"""``fad.torch.Tensor``: a backend array plus PyTorch's autograd metadata.

The operators and most methods are generated from the operation table in
``fad/torch/_ops.py``; this module holds the state (``requires_grad``, ``grad``,
``grad_fn``, hooks, version counter) and the methods that are about state.
"""

from __future__ import annotations

import math
import warnings
import weakref
from typing import Any, Iterator

import numpy as np

from .. import numpy as fnp
from ..backends import namespace_of
from ..interpreters.batching import BatchTracer
from . import _dtype, _graph
from ._device import _CPU, _CUDA, _META, Size, device
from ._grad_mode import GRAD_ENABLED
from ._graph import RemovableHandle, host
from ._memory import store
from ._meta import MetaArray
from ._meta import as_meta as _meta_like
from ._tensor_str import tensor_repr

NONLEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
    ".grad attribute won't be populated during autograd.backward(). If you indeed want "
    "the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the "
    "non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access "
    "the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more "
    "information.")

_PYS = (bool, int, float, complex)


_TYPE_NAMES = {name: word + "Tensor" for name, word in _dtype.TYPE_WORDS.items()}


def _is_cupy(v: Any) -> bool:
    return type(v).__module__.startswith("cupy")


_HOST_DEVICES = (1, 3)  # DLPack's kDLCPU and kDLCUDAHost: memory the CPU reads
_NO_BUFFER = ("a traced tensor (inside a fad transformation) has no memory to export; "
              "export it outside the transformation")


def _on_host(v: Any) -> bool:
    """Whether the array ``v`` lives in host memory (NumPy can view it)."""
    if type(v) is np.ndarray:
        return True
    if _is_cupy(v):
        return False
    device_of = getattr(v, "__dlpack_device__", None)
    if device_of is None:
        return True
    try:
        return int(device_of()[0]) in _HOST_DEVICES
    except Exception:
        return True


def export_dlpack(t: "Tensor", **kwargs: Any) -> Any:
    """A DLPack capsule of ``t``'s memory (``kwargs``: ``__dlpack__``'s, the ``None``
    ones left out). ``t`` first gets a buffer of its own to share (see
    ``Tensor._own``) and a writable one; an array with negative strides is exported
    as a contiguous copy (PyTorch cannot import such strides), or refused when
    ``copy=False``.

    >>> import fad.torch as torch
    >>> type(export_dlpack(torch.zeros(2))).__name__
    'PyCapsule'
    """
    v = t._value
    if not hasattr(v, "__dlpack__"):
        raise BufferError(_NO_BUFFER)
    v = t._own()
    if type(v) is np.ndarray:
        if not v.flags.writeable:  # (a tensor's memory is writable: give t its own)
            t._value = v = v.copy()
        if any(s < 0 for s in v.strides):
            if kwargs.get("copy") is False:
                raise BufferError("can't export a tensor with negative strides without a "
                                  "copy; pass copy=None or call .contiguous() first")
            v = np.ascontiguousarray(v)
    mark_shared(t)
    return v.__dlpack__(**{k: a for k, a in kwargs.items() if a is not None})


class Tensor:
    """A PyTorch-style tensor. ``torch.Tensor(3, 5)`` makes an (zero-filled)
    float32 tensor of that size, ``torch.Tensor(data)`` a float32 tensor of the
    data; use ``torch.tensor`` for dtype inference."""

    # What every tensor sets lives in slots (``_base``: the tensor whose buffer a view
    # views, or ``None``); the state few tensors have (a ``.grad``, hooks, a leaf's
    # ``AccumulateGrad``, a retained gradient, a buffer to copy before writing) in the
    # instance's ``__dict__`` once set, the class giving the default: a tensor is made
    # per operation, and these would cost five stores each time.
    __slots__ = ("_value", "_requires_grad", "_grad_fn", "_output_nr", "_vc", "_base",
                 "__dict__", "__weakref__")
    _grad: "Tensor | None" = None
    _hooks: "list | None" = None
    _post_accumulate_hooks: "list | None" = None
    _acc: Any = None
    _retains_grad = False
    _cow = False
    __array_priority__ = 1000
    is_sparse = False
    is_quantized = False
    is_nested = False

    def __new__(cls, *args: Any, **kwargs: Any) -> "Tensor":
        from ._creation import legacy_new
        t = legacy_new(_dtype.get_default_dtype(), args, kwargs.pop("device", None))
        if kwargs:
            raise TypeError(f"Tensor(): unexpected keyword arguments {sorted(kwargs)}")
        if cls is not Tensor:
            return wrap(t._value, cls=cls)
        return t

    # ------------------------------------------------------------ autograd state
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        value = bool(value)
        if self._grad_fn is not None:
            if value:
                return
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to "
                "use a computed variable in a subgraph that doesn't require differentiation "
                "use var_no_grad = var.detach().")
        if value and _dtype.array_np_dtype(self._value).kind not in "fc":
            raise RuntimeError("only Tensors of floating point and complex dtype can "
                               "require gradients")
        self._requires_grad = value

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        self.requires_grad = requires_grad
        return self

    @property
    def grad_fn(self) -> Any:
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    @property
    def output_nr(self) -> int:
        return self._output_nr

    @property
    def grad(self) -> "Tensor | None":
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(NONLEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Any) -> None:
        if value is None:
            self._grad = None
            return
        if not isinstance(value, Tensor):
            raise TypeError("assigned grad expected to be a Tensor or None but got grad of "
                            f"type {type(value).__name__}")
        if value.shape != self.shape:
            raise RuntimeError(
                f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor "
                f"of size '{list(self.shape)}'. Please ensure that the gradient and the "
                "tensor are the same size")
        if value.dtype is not self.dtype:
            raise RuntimeError("attempting to assign a gradient with dtype "
                               f"'{value.dtype}' to a tensor with dtype '{self.dtype}'. "
                               "Please ensure that the gradient and the tensor have the "
                               "same dtype")
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def retain_grad(self) -> None:
        """Populate ``.grad`` for this non-leaf tensor during ``backward()``."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:
            return
        node = self._grad_fn
        if node._retain is None:
            node._retain = {}
        node._retain[self._output_nr] = weakref.ref(self)
        self._retains_grad = True

    def register_hook(self, hook: Any) -> RemovableHandle:
        """``hook(grad)`` runs when the gradient of this tensor is computed; it may
        return a replacement gradient."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                               "gradient")
        if self._grad_fn is not None:
            return self._grad_fn._register_tensor_hook(self._output_nr, hook)
        if self._hooks is None:
            self._hooks = []
        return RemovableHandle(self._hooks, hook)

    def register_post_accumulate_grad_hook(self, hook: Any) -> RemovableHandle:
        """``hook(self)`` runs after ``backward()`` has accumulated this leaf's
        gradient into its ``.grad`` (an optimiser step inside the backward pass);
        it must return ``None``.

        >>> import fad.torch as torch
        >>> w = torch.ones(2, requires_grad=True)
        >>> _ = w.register_post_accumulate_grad_hook(lambda p: print(p.grad))
        >>> (w * 3).sum().backward()
        tensor([3., 3.])
        """
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                               "gradient")
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        if self._post_accumulate_hooks is None:
            self._post_accumulate_hooks = []
        return RemovableHandle(self._post_accumulate_hooks, hook)

    def backward(self, gradient: Any = None, retain_graph: bool | None = None,
                 create_graph: bool = False, inputs: Any = None) -> None:
        """Accumulate the gradient of this tensor into the ``.grad`` of the leaves."""
        _autograd().backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self) -> "Tensor":
        """The same data (shared memory) and version counter, cut from the graph."""
        t = wrap(self._own() if self._cow else self._value)
        t._vc = self._vc
        mark_shared(t)
        return t

    def _own(self) -> Any:
        """This tensor's array, first copied if it was not its own to write (``_cow``:
        a buffer shared with other tensors' gradients or a value saved for backward),
        so that what will share it (``data``, ``detach()``, ``numpy()``, views) writes
        into this tensor only."""
        v = self._value
        if self._cow:
            self._value = v = v.copy(order="K")
            self._cow = False
        return v

    def detach_(self) -> "Tensor":
        self._grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self) -> "Tensor":
        return wrap(self._own())

    @data.setter
    def data(self, value: "Tensor") -> None:
        self._value = value._value if isinstance(value, Tensor) else value
        self._cow = False

    # ------------------------------------------------------------ metadata
    @property
    def shape(self) -> Size:
        return Size(self._value.shape)

    def size(self, dim: int | None = None) -> Any:
        shape = self._value.shape
        if dim is None:
            return Size(shape)
        return shape[_wrap_dim(dim, len(shape))]

    @property
    def dtype(self) -> _dtype.dtype:
        return _dtype.of_np(self._value.dtype)

    @property
    def device(self) -> device:
        v = self._value
        if type(v) is MetaArray:
            return _META
        return _CUDA if _is_cupy(v) else _CPU

    @property
    def is_meta(self) -> bool:
        return type(self._value) is MetaArray

    @property
    def is_cuda(self) -> bool:
        return _is_cupy(self._value)

    @property
    def ndim(self) -> int:
        return len(self._value.shape)

    def dim(self) -> int:
        return len(self._value.shape)

    ndimension = dim

    def numel(self) -> int:
        return math.prod(self._value.shape)

    nelement = numel

    def element_size(self) -> int:
        return _dtype.array_np_dtype(self._value).itemsize

    def is_floating_point(self) -> bool:
        return _dtype.array_np_dtype(self._value).kind == "f"

    def is_complex(self) -> bool:
        return _dtype.array_np_dtype(self._value).kind == "c"

    def is_contiguous(self, memory_format: Any = None) -> bool:
        v = self._value
        return bool(v.flags.c_contiguous) if type(v) is np.ndarray else True

    def stride(self, dim: int | None = None) -> Any:
        """The step, in elements, between neighbours along each dimension.

        >>> import fad.torch as torch
        >>> torch.ones(2, 3).stride(), torch.ones(2, 3).t().stride()
        ((3, 1), (1, 3))
        """
        v = self._value
        strides = v.strides if type(v) is np.ndarray else \
            v.byte_strides if type(v) is MetaArray else None  # (a meta tensor's layout)
        if strides is not None and v.itemsize and (v.size or any(strides)):
            st = [s // v.itemsize for s in strides]
            for d in range(len(st) - 1, -1, -1):  # a length-1 dimension NumPy gave stride
                if st[d] == 0 and v.shape[d] == 1:  # 0 (``x[None]``) has PyTorch's
                    st[d] = st[d + 1] * v.shape[d + 1] if d + 1 < len(st) else 1
            st = tuple(st)
        else:
            st, acc = [], 1
            for n in reversed(v.shape):
                st.insert(0, acc)
                acc *= max(n, 1)
            st = tuple(st)
        return st if dim is None else st[_wrap_dim(dim, len(st))]

    def type(self, dtype: Any = None, non_blocking: bool = False) -> Any:
        if dtype is None:
            prefix = "torch.cuda." if self.is_cuda else "torch."
            return prefix + _TYPE_NAMES[self.dtype.name]
        if isinstance(dtype, str):
            name = dtype.rsplit(".", 1)[-1]
            for k, v in _TYPE_NAMES.items():
                if v == name:
                    dtype = getattr(_dtype, k)
        if isinstance(dtype, type) and hasattr(dtype, "_dtype"):
            dtype = dtype._dtype
        return self.to(dtype)

    # The version counter is a one-element list shared by the tensors that alias one
    # buffer (``detach()``, views): an in-place write through any of them bumps it.
    @property
    def _version(self) -> int:
        return self._vc[0]

    @_version.setter
    def _version(self, value: int) -> None:
        self._vc[0] = value

    @property
    def _version_counter(self) -> int:
        return self._vc[0]

    def data_ptr(self) -> int:
        v = self._value
        if type(v) is np.ndarray:
            return v.__array_interface__["data"][0]
        return id(v)

    def get_device(self) -> int:
        return 0 if self.is_cuda else -1

    # ------------------------------------------------------------ conversion
    def item(self) -> Any:
        if isinstance(self._value, BatchTracer):
            raise RuntimeError(
                "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap "
                "over calling .item() on a Tensor, please try to rewrite what you're doing "
                "with other operations. If error is occurring somewhere inside PyTorch "
                "internals, please file a bug report.")
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        if type(self._value) is MetaArray:
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        return host(self._value).reshape(()).item()

    def tolist(self) -> Any:
        return host(self._value).tolist()

    def numpy(self, force: bool = False) -> np.ndarray:
        """The data as a NumPy array, sharing memory (CPU tensors)."""
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        v = self._own()
        if type(v) is np.ndarray:
            mark_shared(self)
            return v
        if not _on_host(v) or type(v) is MetaArray:
            if not force:
                raise TypeError(f"can't convert {self.device} device type tensor to numpy. "
                                "Use Tensor.cpu() to copy the tensor to host memory first.")
            return host(v)
        try:  # another host backend's array: NumPy's view of the same memory
            a = np.from_dlpack(v)
        except Exception:
            return host(v)
        mark_shared(self)
        return a

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """NumPy's view of the data (``np.asarray(t)``): host tensors only; a CUDA
        tensor says to call ``.cpu()`` first, as PyTorch's does.

        >>> import numpy as np, fad.torch as torch
        >>> t = torch.zeros(2)
        >>> np.asarray(t)[0] = 5.0
        >>> t
        tensor([5., 0.])
        """
        a = self.numpy()
        if dtype is not None and a.dtype != np.dtype(dtype):
            if copy is False:
                raise ValueError(f"can't view a {a.dtype} tensor as {np.dtype(dtype)} without "
                                 "a copy (copy=False)")
            return a.astype(dtype)
        return a.copy() if copy else a

    def __array_namespace__(self, *, api_version: str | None = None) -> Any:
        """The Array API namespace of the tensor's backend (``numpy`` for a CPU
        tensor, ``cupy`` for a CUDA one); ``api_version`` is accepted and ignored.

        >>> import numpy as np, fad.torch as torch
        >>> torch.zeros(2).__array_namespace__() is np
        True
        """
        return namespace_of([self._value])

    def __dlpack__(self, *, stream: Any = None, max_version: tuple[int, int] | None = None,
                   dl_device: tuple[int, int] | None = None,
                   copy: bool | None = None) -> Any:
        """The tensor's memory as a DLPack capsule, for ``numpy.from_dlpack``,
        ``torch.from_dlpack`` and other consumers (no copy unless ``copy=True``,
        or unless the layout has negative strides, which not every consumer
        reads). A tensor that requires grad refuses, as PyTorch's does.

        >>> import numpy as np, fad.torch as torch
        >>> t = torch.zeros(3)
        >>> np.from_dlpack(t)[0] = 1.0
        >>> t
        tensor([1., 0., 0.])
        """
        if self._requires_grad:
            raise BufferError("Can't export tensors that require gradient, use "
                              "tensor.detach()")
        return export_dlpack(self, stream=stream, max_version=max_version,
                             dl_device=dl_device, copy=copy)

    def __dlpack_device__(self) -> tuple[int, int]:
        """``(DLPack device type, index)`` of the tensor's memory: ``(1, 0)`` on the CPU.

        >>> import fad.torch as torch
        >>> tuple(int(n) for n in torch.zeros(1).__dlpack_device__())
        (1, 0)
        """
        device_of = getattr(self._value, "__dlpack_device__", None)
        if device_of is None:
            raise BufferError(_NO_BUFFER)
        return device_of()

    def __fad_array__(self) -> Any:
        """The backend array: what ``fad.numpy`` and fad's transformations see."""
        return self._value

    def cpu(self, memory_format: Any = None) -> "Tensor":
        """The tensor on the CPU (itself when it is there already).

        >>> import fad.torch as torch
        >>> t = torch.ones(2)
        >>> t.cpu() is t
        True
        """
        return self.to("cpu")

    def cuda(self, device: Any = None, non_blocking: bool = False,
             memory_format: Any = None) -> "Tensor":
        """The tensor on a CUDA device (CuPy); without CuPy or a GPU a one-sentence
        ``RuntimeError`` says which is missing.

        >>> import fad.torch as torch
        >>> torch.ones(2).cuda().is_cuda if torch.cuda.is_available() else True
        True
        """
        if device is None:
            device = "cuda"
        elif isinstance(device, int) and not isinstance(device, bool):
            device = f"cuda:{device}"
        return self.to(device)

    @property
    def is_cpu(self) -> bool:
        """Whether the tensor's memory is on the host.

        >>> import fad.torch as torch
        >>> torch.zeros(1).is_cpu
        True
        """
        return _on_host(self._value)

    def __bool__(self) -> bool:
        n = self.numel()
        if n != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is "
                               "ambiguous")
        return bool(self.item())

    def __float__(self) -> float:
        return float(self._python_scalar())

    def __int__(self) -> int:
        return int(self._python_scalar())

    def __complex__(self) -> complex:
        return complex(self._python_scalar())

    def _python_scalar(self) -> Any:
        if self.numel() != 1:  # (PyTorch's message for float(t), int(t), complex(t))
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __index__(self) -> int:
        if self.dtype.is_floating_point or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to "
                            "an index")
        return int(self.item())

    def __len__(self) -> int:
        shape = self._value.shape
        if not shape:
            raise TypeError("len() of a 0-d tensor")
        return shape[0]

    def __iter__(self) -> Iterator["Tensor"]:
        if not self._value.shape:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self, *, tensor_contents: Any = None) -> str:
        if not hasattr(self._value, "shape") or type(self._value).__name__.endswith("Tracer"):
            return f"Tensor(<traced {self._value!r}>)"
        return tensor_repr(self)

    def __str__(self) -> str:
        return self.__repr__()

    def __format__(self, spec: str) -> str:
        """A 0-d tensor formats as its number (``f"{loss:.4f}"``); any other
        tensor only without a spec (``str(t)``), as PyTorch.

        >>> import fad.torch as torch
        >>> f"{torch.tensor(2.5):.3f}", f"{torch.tensor([1, 2])}"
        ('2.500', 'tensor([1, 2])')
        """
        if self.dim() == 0:
            return format(self.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return str(self)

    def __deepcopy__(self, memo: dict) -> "Tensor":
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.  If you were "
                               "attempting to deepcopy a module, this may be because of a "
                               "torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        v = self._value
        new = wrap(v.copy() if hasattr(v, "copy") else v, self._requires_grad, cls=type(self))
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        new.__dict__.update(user_attributes(self))
        memo[id(self)] = new
        return new

    def __reduce_ex__(self, protocol: int) -> Any:
        return (_rebuild, (host(self._value).copy(), self._requires_grad, type(self)))

    # ------------------------------------------------------------ in place
    def _write(self, val: Any) -> None:
        """Store ``val`` into this tensor's buffer (shared memory is updated, that of an
        ``expand()``ed view included) or, when the buffer is not ours to write (copy
        on write, or memory handed over read-only), rebind to a fresh copy."""
        v = self._value
        if type(val) is not np.ndarray:
            val = _array(val)
        if tuple(val.shape) != tuple(v.shape):
            raise RuntimeError(f"output with shape {list(v.shape)} doesn't match the "
                               f"broadcast shape {list(val.shape)}")
        if type(v) is np.ndarray:
            if not self._cow and v.flags.writeable:
                np.copyto(v, val, casting="unsafe")
                return
            if not self._cow and store(v, val):  # (an expanded view: into what it views)
                return
            self._value = val.astype(v.dtype, copy=True)
            self._cow = False
            return
        if type(v) is MetaArray:  # (a meta tensor stores nothing)
            return
        if not self._cow:
            try:
                v[...] = val
                return
            except Exception:
                pass
        self._value = fnp.asarray(val, _dtype.array_np_dtype(v))
        self._cow = False


Tensor.__module__ = "fad.torch"  # (as PyTorch's ``<class 'torch.Tensor'>``)


def _autograd() -> Any:
    """``fad.torch.autograd`` (imported late: it imports this module)."""
    global _AUTOGRAD
    if _AUTOGRAD is None:
        from . import autograd
        _AUTOGRAD = autograd
    return _AUTOGRAD


_AUTOGRAD: Any = None


def _rebuild(a: np.ndarray, requires_grad: bool, cls: type) -> Tensor:
    return wrap(a, requires_grad, cls=cls)


def _array(v: Any) -> Any:
    """Normalise a computed value: NumPy scalars become 0-d arrays."""
    if isinstance(v, np.generic):
        return np.asarray(v)
    return v


_new = object.__new__


_STATE = frozenset(("_grad", "_hooks", "_acc", "_retains_grad", "_cow", "_tangent",
                    "_is_buffer", "_persistent", "_shared", "_post_accumulate_hooks"))


def user_attributes(t: Tensor) -> dict:
    """The Python attributes set on ``t`` by its user (what ``copy.deepcopy`` and
    ``torch.save`` carry over), without the autograd state kept beside them.

    >>> import fad.torch as torch
    >>> t = torch.ones(2, requires_grad=True)
    >>> t.note = "mine"; t.sum().backward()
    >>> user_attributes(t)
    {'note': 'mine'}
    """
    d = t.__dict__
    if not d:
        return d
    return {k: v for k, v in d.items() if k not in _STATE}


def wrap(value: Any, requires_grad: bool = False, grad_fn: Any = None,
         output_nr: int = 0, cls: type = Tensor) -> Tensor:
    """A Tensor (or ``cls``, a subclass) around a backend array (no copy)."""
    t = _new(cls)
    if type(value) is not np.ndarray and isinstance(value, np.generic):
        value = np.asarray(value)
    t._value = value
    t._requires_grad = requires_grad
    t._grad_fn = grad_fn
    t._output_nr = output_nr
    t._vc = [0]
    t._base = None
    return t


def note_alias(t: Tensor) -> None:
    """Remember that view ``t`` shares the buffer (and so the version counter ``_vc``)
    of other tensors: the counter, a list, also holds weak references to the views
    after the count, so that an in-place operation that autograd records on one of
    them can update the others (see ``_functions.write_through``). Other sharers,
    which need only the buffer written, add a ``None`` there once (``mark_shared``)."""
    vc = t._vc
    if len(vc) & 15 == 0:  # drop the dead now and then
        vc[1:] = [r for r in vc[1:] if r is None or r() is not None]
    vc.append(weakref.ref(t))


def mark_shared(t: Tensor) -> None:
    """Record that ``t``'s buffer is shared with something an in-place operation
    cannot update otherwise (a ``detach()`` alias, a NumPy array): one ``None`` after
    the count of its version counter (see ``note_alias``)."""
    vc = t._vc
    if None not in vc:
        vc.append(None)


def view_of_own(t: Tensor, source: Tensor) -> None:
    """Before ``t``, a view of the array of ``source``, shares it: when ``source``'s
    array is not its own to write (``Tensor._own``), give ``source`` its copy and
    point ``t`` at the same elements of that copy."""
    old = source._value
    new = source._own()
    v = t._value
    if new.strides == old.strides and (old.flags.c_contiguous or old.flags.f_contiguous):
        offset = v.__array_interface__["data"][0] - old.__array_interface__["data"][0]
        t._value = np.ndarray(v.shape, v.dtype, buffer=new, offset=offset, strides=v.strides)
    else:  # (a layout the copy does not keep: the view copies on its first write)
        t._cow = True


def live_aliases(t: Tensor) -> list:
    """The live views that share ``t``'s buffer, ``t`` included if it is one (see
    ``note_alias``)."""
    return [u for u in (r() for r in t._vc[1:] if r is not None) if u is not None]


def wrap_grad(g: Any, create_graph: bool, fresh: bool = False) -> Tensor:
    """A gradient as a Tensor (arrays from the engine may alias each other, so the
    Tensor copies before its first in-place write)."""
    if isinstance(g, Tensor):
        return g
    t = wrap(g)
    if not fresh:  # (the class default is False: no instance dict for a fresh one)
        t._cow = True
    return t


def accumulate_into(var: Tensor, g: Any, create_graph: bool) -> None:
    """``var.grad += g`` as PyTorch's ``AccumulateGrad`` does."""
    old = var._grad
    if type(var._value) is MetaArray:  # (a meta leaf's gradient is meta: no data)
        if old is None:
            var._grad = wrap(_meta_like(g._value if isinstance(g, Tensor) else g))
        return
    if isinstance(g, Tensor):  # create_graph: keep the graph of the gradient
        if old is None:
            if g._requires_grad:  # a copy, as PyTorch's AccumulateGrad makes
                from ._ops import call
                grad_was = GRAD_ENABLED.get()
                try:  # (switched inside the try: see _grad_mode)
                    GRAD_ENABLED.set(True)
                    var._grad = call("grad_copy", g)
                finally:
                    GRAD_ENABLED.set(grad_was)
            else:
                var._grad = wrap_grad(g._value, False)
        else:
            grad_was = GRAD_ENABLED.get()
            try:  # (switched inside the try: see _grad_mode)
                GRAD_ENABLED.set(True)
                var._grad = old + g
            finally:
                GRAD_ENABLED.set(grad_was)
        return
    if old is None:
        var._grad = wrap_grad(g, False)
        return
    if old._requires_grad:
        var._grad = wrap(old._value + g)
        return
    v = old._value
    if type(v) is np.ndarray and not old._cow and v.flags.writeable:
        np.add(v, g, out=v, casting="unsafe")
    else:
        old._value = v + g
        old._cow = False
    old._vc[0] += 1


def _wrap_dim(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}]"
                         f", but got {dim})")
    return dim % n


_graph._T = __import__(__name__, fromlist=["wrap"])
