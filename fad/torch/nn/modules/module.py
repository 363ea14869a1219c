"""``torch.nn.Module`` and ``torch.nn.Parameter``: registration, depth-first
traversal, ``state_dict``/``load_state_dict``, hooks, conversions and ``repr``."""

from __future__ import annotations

import warnings
from collections import OrderedDict, namedtuple
from typing import Any, Callable, Iterator

from ... import _dtype
from ... import _functions as F
from ..._creation import empty, empty_like
from ..._grad_mode import no_grad
from ..._graph import RemovableHandle, host
from ...autograd import Function
from ...tensor import Tensor, wrap

__all__ = ["Parameter", "Module"]



class Parameter(Tensor):
    """A leaf tensor that ``Module`` registers as a parameter (requires grad).

    >>> import fad.torch as torch
    >>> torch.nn.Parameter(torch.ones(2))
    Parameter containing:
    tensor([1., 1.], requires_grad=True)
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> "Parameter":
        if data is None:
            data = empty(0)
        t = wrap(data._value if isinstance(data, Tensor) else data, cls=cls)
        if requires_grad:
            t.requires_grad = True
        return t

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol: int) -> Any:
        return (_rebuild_param, (host(self._value).copy(), self._requires_grad))


class _BufferMeta(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj.__dict__.get("_is_buffer", False)


class Buffer(metaclass=_BufferMeta):
    """A tensor that a ``Module`` registers as a buffer when assigned to it
    (``self.stats = nn.Buffer(t)``, PyTorch's alternative to ``register_buffer``).

    >>> import fad.torch as torch
    >>> class M(torch.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.count = torch.nn.Buffer(torch.zeros(1))
    >>> list(M().state_dict())
    ['count']
    """

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Any:
        t = empty(0) if data is None else data.detach()
        t.__dict__["_is_buffer"], t.__dict__["_persistent"] = True, persistent
        return t


def _rebuild_param(a: Any, requires_grad: bool) -> Parameter:
    return Parameter(wrap(a), requires_grad)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it missed and those it did not use."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class _BackwardHookIdentity(Function):
    """The identity, whose backward hands the gradients to ``hook``: placed on a
    module's inputs (``hook`` gets ``grad_input``) and outputs (``grad_output``)."""

    @staticmethod
    def forward(ctx: Any, hook: Callable, *args: Any) -> Any:
        ctx.hook = hook
        return args

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        res = ctx.hook(grads)
        return (None,) + tuple(grads if res is None else res)


_STORES = ("_parameters", "_modules", "_buffers")
_HOOKS = ("_forward_pre_hooks", "_forward_hooks", "_backward_hooks")
_NO_INPUT_GRAD_HOOK = (
    "Full backward hook is firing when gradients are computed with respect to module "
    "outputs since no inputs require gradients. See https://docs.pytorch.org/docs/main/"
    "generated/torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more "
    "details.")


def _add_hook(hooks: OrderedDict, fn: Callable, prepend: bool, with_kwargs: dict | None = None
              ) -> RemovableHandle:
    """Key ``fn`` in ``hooks`` by its handle's id (and mark it in ``with_kwargs``, the
    dict of the hooks that take keyword arguments, when given)."""
    extra = () if with_kwargs is None else (with_kwargs,)
    handle = RemovableHandle(hooks, fn, *extra)
    if with_kwargs is not None:
        with_kwargs[handle.id] = True
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


class Module:
    """Base class of layers: attributes that are ``Parameter``/``Module`` are
    registered; ``__call__`` runs the forward pre-hooks, ``forward`` and the
    forward hooks. Traversals are depth-first in registration order.

    >>> import fad.torch as torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Sequential(torch.nn.ReLU()))
    >>> [name for name, _ in net.named_modules()]
    ['', '0', '1', '1.0']
    >>> list(net.state_dict())
    ['0.weight', '0.bias']
    """

    training: bool

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        d = self.__dict__
        for store in _STORES + _HOOKS:  # (hooks keyed by their handle's id, as PyTorch's)
            d[store] = OrderedDict()
        d["_forward_pre_hooks_with_kwargs"] = {}
        d["_forward_hooks_with_kwargs"] = {}
        d["_non_persistent_buffers_set"] = set()
        d["training"] = True

    def __setattr__(self, name: str, value: Any) -> None:
        if "_parameters" not in self.__dict__:
            Module.__init__(self)
        if isinstance(value, Parameter):
            self._forget(name, keep="_parameters")
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._forget(name, keep="_modules")
            self._modules[name] = value
        elif isinstance(value, Buffer):
            self.register_buffer(name, value, value.__dict__.get("_persistent", True))
        elif name in self._parameters:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter "
                                f"'{name}' (torch.nn.Parameter or None expected)")
            self._parameters[name] = None
        elif name in self._buffers and (value is None or isinstance(value, Tensor)):
            self._buffers[name] = value
        else:
            self._forget(name)
            object.__setattr__(self, name, value)

    def _forget(self, name: str, keep: str | None = None) -> None:
        """Drop ``name`` from the stores (but ``keep``, where a value assigned
        again keeps its position, as in PyTorch) and the plain attributes."""
        for store in _STORES:
            if store != keep:
                self.__dict__[store].pop(name, None)
        self.__dict__.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for store in _STORES:
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for store in _STORES:
            if name in self.__dict__.get(store, {}):
                del self.__dict__[store][name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def _check_name(self, name: Any, kind: str) -> None:
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and not any(name in self.__dict__[s] for s in _STORES):
            raise KeyError(f"attribute '{name}' already exists")

    def _register(self, store: str, kind: str, name: str, value: Any, cls: type,
                  required: str) -> None:
        """Put ``value`` (a ``cls`` or ``None``) under ``name`` in ``store``."""
        if store not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        self._check_name(name, kind)
        if value is not None and not isinstance(value, cls):
            raise TypeError(f"cannot assign '{type(value).__name__}' object to {kind} "
                            f"'{name}' ({required} or None required)")
        self._forget(name, keep=store)
        self.__dict__[store][name] = value

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add ``param`` (a ``Parameter`` or ``None``) under ``name``."""
        self._register("_parameters", "parameter", name, param, Parameter,
                       "torch.nn.Parameter")

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True
                        ) -> None:
        """Add a tensor that is state but not a parameter (saved in ``state_dict``
        unless ``persistent=False``)."""
        self._register("_buffers", "buffer", name, tensor, Tensor, "torch Tensor")
        if not persistent:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: "Module | None") -> None:
        """Add the child ``module`` under ``name``."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._check_name(name, "module")
        self._forget(name, keep="_modules")
        self._modules[name] = module

    register_module = add_module

    # ------------------------------------------------------------ calling and hooks
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        d = self.__dict__
        if not (d.get("_forward_pre_hooks") or d.get("_forward_hooks")
                or d.get("_backward_hooks")):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args: tuple, kwargs: dict) -> Any:
        with_kwargs = self._forward_pre_hooks_with_kwargs
        for k, hook in list(self._forward_pre_hooks.items()):
            if k in with_kwargs:
                res = hook(self, args, kwargs)
                if res is not None:
                    args, kwargs = res
            else:
                res = hook(self, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
        state: dict = {}
        if self._backward_hooks:
            args = self._hook_inputs(args, state)
        out = self.forward(*args, **kwargs)
        with_kwargs = self._forward_hooks_with_kwargs
        for k, hook in list(self._forward_hooks.items()):
            res = hook(self, args, kwargs, out) if k in with_kwargs else hook(self, args, out)
            if res is not None:
                out = res
        if self._backward_hooks:
            out = self._hook_outputs(out, state)
        return out

    def _hook_inputs(self, args: tuple, state: dict) -> tuple:
        """Route the tensor inputs through an identity whose backward calls the
        backward hooks with ``grad_input`` (and the ``grad_output`` seen before)."""
        pos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        state["n_in"] = len(pos)
        if not any(args[i].requires_grad for i in pos):
            return args

        def on_grad_input(grads: tuple) -> Any:
            grads = tuple(g if args[i].requires_grad else None for i, g in zip(pos, grads))
            return self._run_backward_hooks(grads, state.get("grad_output", ()))
        state["inputs_hooked"] = True
        new = _BackwardHookIdentity.apply(on_grad_input, *(args[i] for i in pos))
        full = list(args)
        for i, t in zip(pos, new):
            full[i] = t
        return tuple(full)

    def _hook_outputs(self, out: Any, state: dict) -> Any:
        outs = out if isinstance(out, tuple) else (out,)
        pos = [i for i, o in enumerate(outs) if isinstance(o, Tensor) and o.requires_grad]
        if not pos:
            return out

        def on_grad_output(grads: tuple) -> None:
            state["grad_output"] = grads
            if not state.get("inputs_hooked"):  # (no input needs a gradient)
                warnings.warn(_NO_INPUT_GRAD_HOOK, UserWarning, stacklevel=2)
                self._run_backward_hooks((None,) * state["n_in"], grads)
        new = _BackwardHookIdentity.apply(on_grad_output, *(outs[i] for i in pos))
        full = list(outs)
        for i, t in zip(pos, new):
            full[i] = t
        return tuple(full) if isinstance(out, tuple) else full[0]

    def _run_backward_hooks(self, grad_input: tuple, grad_output: tuple) -> Any:
        for hook in list(self._backward_hooks.values()):
            res = hook(self, grad_input, grad_output)
            if res is not None:
                res = tuple(res) if isinstance(res, tuple | list) else (res,)
                if len(res) != len(grad_input):
                    raise RuntimeError(f"Backward hook returned an invalid number of grad_input,"
                                       f" got {len(res)}, but expected {len(grad_input)}")
                grad_input = res
        return grad_input

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """``hook(module, args)`` runs before ``forward``; a non-``None`` result
        replaces the inputs (``hook(module, args, kwargs)`` -> ``(args, kwargs)``
        with ``with_kwargs=True``)."""
        return _add_hook(self._forward_pre_hooks, hook, prepend,
                         self._forward_pre_hooks_with_kwargs if with_kwargs else None)

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False,
                              with_kwargs: bool = False, always_call: bool = False
                              ) -> RemovableHandle:
        """``hook(module, args, output)`` runs after ``forward``; a non-``None``
        result replaces the output.

        >>> import fad.torch as torch
        >>> lin = torch.nn.Linear(2, 2)
        >>> h = lin.register_forward_hook(lambda m, args, out: out * 0)
        >>> lin(torch.ones(1, 2)).abs().sum().item()
        0.0
        >>> h.remove()
        """
        return _add_hook(self._forward_hooks, hook, prepend,
                         self._forward_hooks_with_kwargs if with_kwargs else None)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False
                                    ) -> RemovableHandle:
        """``hook(module, grad_input, grad_output)`` runs when the gradients with
        respect to the module's inputs are computed; it may return new
        ``grad_input``."""
        return _add_hook(self._backward_hooks, hook, prepend)

    # ------------------------------------------------------------ traversal
    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple]:
        """``(name, module)`` of this module and its descendants, depth first."""
        memo = set() if memo is None else memo
        stack: list = [(prefix, self)]
        while stack:  # (an explicit stack in pre-order: the first child on top)
            name, m = stack.pop()
            if remove_duplicate:
                if id(m) in memo:
                    continue
                memo.add(id(m))
            yield name, m
            subs = [(f"{name}.{k}" if name else k, s) for k, s in m._modules.items()
                    if s is not None]
            stack.extend(reversed(subs))

    def modules(self) -> Iterator["Module"]:
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[tuple]:
        seen: set = set()
        for k, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield k, m

    def children(self) -> Iterator["Module"]:
        for _, m in self.named_children():
            yield m

    def _named_members(self, store: str, prefix: str, recurse: bool,
                       remove_duplicate: bool) -> Iterator[tuple]:
        seen: set = set()
        mods = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                if recurse else [(prefix, self)])
        for mname, m in mods:
            for k, v in m.__dict__[store].items():
                if v is None or (remove_duplicate and id(v) in seen):
                    continue
                seen.add(id(v))
                yield (f"{mname}.{k}" if mname else k), v

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple]:
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple]:
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def get_submodule(self, target: str) -> "Module":
        """The descendant named by the dotted path ``target`` (``""``: ``self``)."""
        mod = self
        for item in target.split(".") if target else []:
            if not hasattr(mod, item):
                raise AttributeError(f"{type(mod).__name__} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def _get_leaf(self, target: str, store: str, kind: str) -> Any:
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if not hasattr(mod, name):
            raise AttributeError(f"{type(mod).__name__} has no attribute `{name}`")
        if name not in mod.__dict__[store]:
            raise AttributeError(f"`{name}` is not an nn.{kind}" if kind == "Parameter"
                                 else f"`{name}` is not a buffer")
        return mod.__dict__[store][name]

    def get_parameter(self, target: str) -> Parameter:
        """The parameter named by the dotted path ``target``."""
        return self._get_leaf(target, "_parameters", "Parameter")

    def get_buffer(self, target: str) -> Tensor:
        """The buffer named by the dotted path ``target``."""
        return self._get_leaf(target, "_buffers", "buffer")

    # ------------------------------------------------------------ state
    def train(self, mode: bool = True) -> "Module":
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.__dict__["training"] = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.detach_()
                p.grad.zero_()

    def apply(self, fn: Callable) -> "Module":
        """Call ``fn`` on every submodule (children first), then on ``self``."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def to(self, *args: Any, **kwargs: Any) -> "Module":
        """Convert the floating parameters and buffers (``to(dtype)``) or move them
        all (``to(device)``)."""
        dtype = kwargs.get("dtype") or next((a for a in args if isinstance(a, _dtype.dtype)),
                                            None)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, "
                            f"but got desired dtype={dtype}")
        try:
            return self._convert(lambda t: F.to(t, *args, **kwargs)
                                 if t.is_floating_point() or t.is_complex() or dtype is None
                                 else F.to(t, *[a for a in args if a is not dtype],
                                           **{k: v for k, v in kwargs.items() if k != "dtype"}))
        except NotImplementedError as e:
            if "meta tensor" not in str(e):
                raise
            raise NotImplementedError(f"{e} Please use torch.nn.Module.to_empty() instead of "
                                      "torch.nn.Module.to() when moving module from meta to a "
                                      "different device.") from None

    def to_empty(self, *, device: Any, recurse: bool = True) -> "Module":
        """Give the parameters and buffers new, uninitialised storage on ``device`` (the
        facade's uninitialised tensors are zeros)."""
        return self._convert(lambda t: empty_like(t, device=device), recurse)

    def _convert(self, fn: Callable, recurse: bool = True) -> "Module":
        for m in (self.modules() if recurse else [self]):
            for p in m._parameters.values():
                if p is not None:
                    new = fn(p.detach())
                    if new._value is not p._value:
                        p.data = new
                        if p.grad is not None:
                            p.grad = fn(p.grad)
            for k, b in m._buffers.items():
                if b is not None:
                    m._buffers[k] = fn(b)
        return self

    def _cast_floats(self, dt: Any) -> "Module":
        return self._convert(lambda t: F.to(t, dt) if t.is_floating_point() else t)

    def float(self) -> "Module":
        return self._cast_floats(_dtype.float32)

    def double(self) -> "Module":
        return self._cast_floats(_dtype.float64)

    def half(self) -> "Module":
        return self._cast_floats(_dtype.float16)

    def type(self, dst_type: Any) -> "Module":
        return self._convert(lambda t: F.to(t, dst_type))

    def cpu(self) -> "Module":
        return self._convert(lambda t: F.to(t, "cpu"))

    def cuda(self, device: Any = None) -> "Module":
        return self._convert(lambda t: t.cuda(device))

    def state_dict(self, *args: Any, destination: Any = None, prefix: str = "",
                   keep_vars: bool = False) -> OrderedDict:
        """Parameters then persistent buffers of each module, depth first, by
        dotted name (shared tensors appear under each of their names)."""
        if args:  # (the positional form state_dict(destination, prefix, keep_vars))
            destination, prefix, keep_vars = (list(args) + [prefix, keep_vars])[:3]
        out = OrderedDict() if destination is None else destination
        for name, m in self.named_modules(prefix=prefix.rstrip("."), remove_duplicate=False):
            p = f"{name}." if name else ""
            for k, v in m._parameters.items():
                if v is not None:
                    out[p + k] = v if keep_vars else v.detach()
            for k, v in m._buffers.items():
                if v is not None and k not in m._non_persistent_buffers_set:
                    out[p + k] = v if keep_vars else v.detach()
        return out

    def _local_state(self) -> dict:
        state = {k: v for k, v in self._parameters.items() if v is not None}
        state.update((k, v) for k, v in self._buffers.items()
                     if v is not None and k not in self._non_persistent_buffers_set)
        return state

    def load_state_dict(self, state_dict: Any, strict: bool = True, assign: bool = False
                        ) -> _IncompatibleKeys:
        """Copy ``state_dict``'s tensors into the parameters and buffers; returns
        ``(missing_keys, unexpected_keys)``; raises PyTorch's ``RuntimeError``
        for size mismatches, and for missing or unexpected keys when ``strict``."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing: list = []
        unexpected: list = []
        errors: list = []
        for name, m in self.named_modules(remove_duplicate=False):
            prefix = f"{name}." if name else ""
            local = m._local_state()
            for k, param in local.items():
                key = prefix + k
                if key not in state_dict:
                    missing.append(key)
                    continue
                errors.extend(_load_one(m, k, key, param, state_dict[key], assign))
            for key in state_dict:
                if key.startswith(prefix):
                    head = key[len(prefix):].split(".", 1)[0]
                    if head not in m._modules and head not in local:
                        unexpected.append(key)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    # ------------------------------------------------------------ printing
    def extra_repr(self) -> str:
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for k, m in self._modules.items():
            lines.append(f"({k}): " + repr(m).replace("\n", "\n  "))
        if not self._modules and len(lines) <= 1:
            return f"{self._get_name()}({extra})"
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self) -> list:
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._modules)
                      | set(self._buffers))


def _load_one(m: Module, k: str, key: str, param: Tensor, value: Any, assign: bool) -> list:
    """Load ``value`` into ``m``'s tensor ``k`` (named ``key``): the error messages."""
    if not isinstance(value, Tensor):
        return [f'While copying the parameter named "{key}", expected torch.Tensor or '
                f"Tensor-like object from checkpoint but received {type(value)}"]
    if tuple(value.shape) != tuple(param.shape):
        return [f"size mismatch for {key}: copying a param with shape {value.shape} from "
                f"checkpoint, the shape in current model is {param.shape}."]
    with no_grad():
        if assign:
            if k in m._parameters:
                m._parameters[k] = (value if isinstance(value, Parameter)
                                    else Parameter(value, param.requires_grad))
            else:
                m._buffers[k] = value
        else:
            param.copy_(value)
    return []
