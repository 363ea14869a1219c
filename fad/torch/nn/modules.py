"""A minimal ``torch.nn``: ``Module``, ``Parameter`` and the common layers/losses."""

from __future__ import annotations

import collections
import math
from collections import OrderedDict
from typing import Any, Iterator

from .. import _dtype
from .. import _functions as F
from .._creation import empty
from .._grad_mode import no_grad
from .._graph import host
from ..tensor import Tensor, wrap
from . import functional as NF
from . import init


class Parameter(Tensor):
    """A leaf tensor that ``Module`` registers as a parameter (requires grad)."""

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


def _rebuild_param(a: Any, requires_grad: bool) -> Parameter:
    return Parameter(wrap(a), requires_grad)


class Module:
    """Base class of layers: attributes that are ``Parameter``/``Module`` are
    registered; ``__call__`` runs ``forward``."""

    training: bool

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)

    def __setattr__(self, name: str, value: Any) -> None:
        if "_parameters" not in self.__dict__:
            Module.__init__(self)
        for store in ("_parameters", "_modules", "_buffers"):
            self.__dict__[store].pop(name, None)
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        elif value is None and name in self.__dict__.get("_parameters", {}):
            self._parameters[name] = None
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for store in ("_parameters", "_modules", "_buffers"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for store in ("_parameters", "_modules", "_buffers"):
            if name in self.__dict__.get(store, {}):
                del self.__dict__[store][name]
                return
        object.__delattr__(self, name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True
                        ) -> None:
        self._buffers[name] = tensor

    def add_module(self, name: str, module: "Module | None") -> None:
        self._modules[name] = module

    register_module = add_module

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    # ------------------------------------------------------------ traversal
    def named_modules(self, memo: set | None = None, prefix: str = "") -> Iterator[tuple]:
        memo = set() if memo is None else memo
        stack = [(prefix, self)]
        while stack:
            name, m = stack.pop(0)
            if id(m) in memo:
                continue
            memo.add(id(m))
            yield name, m
            for k, sub in m._modules.items():
                if sub is not None:
                    stack.append((f"{name}.{k}" if name else k, sub))

    def modules(self) -> Iterator["Module"]:
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[tuple]:
        for k, m in self._modules.items():
            if m is not None:
                yield k, m

    def children(self) -> Iterator["Module"]:
        for _, m in self.named_children():
            yield m

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple]:
        seen: set = set()
        mods = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for mname, m in mods:
            for k, p in m._parameters.items():
                if p is None or (remove_duplicate and id(p) in seen):
                    continue
                seen.add(id(p))
                yield (f"{mname}.{k}" if mname else k), p

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple]:
        mods = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for mname, m in mods:
            for k, b in m._buffers.items():
                if b is not None:
                    yield (f"{mname}.{k}" if mname else k), b

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # ------------------------------------------------------------ state
    def train(self, mode: bool = True) -> "Module":
        for m in self.modules():
            object.__setattr__(m, "training", mode)
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
                p.grad.zero_()

    def apply(self, fn: Any) -> "Module":
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def to(self, *args: Any, **kwargs: Any) -> "Module":
        for m in self.modules():
            for k, p in m._parameters.items():
                if p is not None:
                    new = F.to(p.detach(), *args, **kwargs)
                    if new._value is not p._value:
                        p.data = new
            for k, b in m._buffers.items():
                if b is not None:
                    m._buffers[k] = F.to(b, *args, **kwargs)
        return self

    def float(self) -> "Module":
        return self.to(_dtype.float32)

    def double(self) -> "Module":
        return self.to(_dtype.float64)

    def cpu(self) -> "Module":
        return self.to("cpu")

    def cuda(self, device: Any = None) -> "Module":
        return self.to("cuda")

    def state_dict(self, destination: Any = None, prefix: str = "", keep_vars: bool = False
                   ) -> OrderedDict:
        out = OrderedDict() if destination is None else destination
        for k, p in self.named_parameters(prefix=prefix.rstrip(".")):
            out[k] = p if keep_vars else p.detach()
        for k, b in self.named_buffers(prefix=prefix.rstrip(".")):
            out[k] = b
        return out

    def load_state_dict(self, state_dict: dict, strict: bool = True, assign: bool = False
                        ) -> Any:
        own = dict(self.named_parameters())
        own.update(dict(self.named_buffers()))
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and (missing or unexpected):
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}: "
                               f"missing keys {missing}, unexpected keys {unexpected}")
        with no_grad():
            for k, v in state_dict.items():
                if k in own:
                    own[k].copy_(v)
        return collections.namedtuple("IncompatibleKeys", "missing_keys unexpected_keys")(
            missing, unexpected)

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        lines = []
        for k, m in self._modules.items():
            sub = repr(m).replace("\n", "\n  ")
            lines.append(f"({k}): {sub}")
        extra = self.extra_repr()
        if not lines:
            return f"{type(self).__name__}({extra})"
        body = "\n  ".join(([extra] if extra else []) + lines)
        return f"{type(self).__name__}(\n  {body}\n)"

    def __dir__(self) -> list:
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._modules))


class Linear(Module):
    """``y = x @ W.T + b`` with PyTorch's default initialisation."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty(out_features, in_features, dtype=dtype))
        self.bias = Parameter(empty(out_features, dtype=dtype)) if bias else None
        if not bias:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return NF.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    def __init__(self, in1: int, in2: int, out: int, bias: bool = True):
        super().__init__()
        bound = 1 / math.sqrt(in1)
        self.weight = Parameter(init.uniform_(empty(out, in1, in2), -bound, bound))
        self.bias = Parameter(init.uniform_(empty(out), -bound, bound)) if bias else None

    def forward(self, a: Tensor, b: Tensor) -> Tensor:
        return NF.bilinear(a, b, self.weight, self.bias)


class Embedding(Module):
    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 **_: Any):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.weight = Parameter(init.normal_(empty(num_embeddings, embedding_dim)))

    def forward(self, input: Tensor) -> Tensor:
        return NF.embedding(input, self.weight)

    def extra_repr(self) -> str:
        return f"{self.num_embeddings}, {self.embedding_dim}"


class _Simple(Module):
    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__()
        self._args = args
        self._kwargs = kwargs

    def extra_repr(self) -> str:
        parts = [repr(a) for a in self._args] + [f"{k}={v}" for k, v in self._kwargs.items()]
        return ", ".join(parts)


class ReLU(_Simple):
    def forward(self, input: Tensor) -> Tensor:
        return NF.relu(input)


class ReLU6(_Simple):
    def forward(self, input: Tensor) -> Tensor:
        return NF.relu6(input)


class Sigmoid(_Simple):
    def forward(self, input: Tensor) -> Tensor:
        return F.sigmoid(input)


class Tanh(_Simple):
    def forward(self, input: Tensor) -> Tensor:
        return F.tanh(input)


class GELU(_Simple):
    def forward(self, input: Tensor) -> Tensor:
        return NF.gelu(input, self._kwargs.get("approximate", "none"))


class SiLU(_Simple):
    def forward(self, input: Tensor) -> Tensor:
        return NF.silu(input)


class ELU(_Simple):
    def forward(self, input: Tensor) -> Tensor:
        return NF.elu(input, self._kwargs.get("alpha", self._args[0] if self._args else 1.0))


class LeakyReLU(_Simple):
    def forward(self, input: Tensor) -> Tensor:
        slope = self._kwargs.get("negative_slope", self._args[0] if self._args else 0.01)
        return NF.leaky_relu(input, slope)


class Softplus(_Simple):
    def forward(self, input: Tensor) -> Tensor:
        return NF.softplus(input, self._kwargs.get("beta", 1.0),
                           self._kwargs.get("threshold", 20.0))


class Softmax(Module):
    def __init__(self, dim: int | None = None):
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim)


class Identity(_Simple):
    def forward(self, input: Tensor) -> Tensor:
        return input


class Flatten(Module):
    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:
        return F.flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Dropout(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        self.p, self.inplace = p, inplace

    def forward(self, input: Tensor) -> Tensor:
        return NF.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class _Ordered(Module):
    """A container of the values of one of its dictionaries (``_modules``, or
    ``_parameters``), in order: ``c[i]``, ``len(c)``, ``iter(c)``."""

    _held = "_modules"

    def __init__(self, items: Any = None):
        super().__init__()
        for x in items or []:
            self.append(x)

    def __getitem__(self, i: Any) -> Any:
        return list(getattr(self, self._held).values())[i]

    def __len__(self) -> int:
        return len(getattr(self, self._held))

    def __iter__(self) -> Iterator[Any]:
        return iter(getattr(self, self._held).values())


class Sequential(_Ordered):
    """Modules applied one after the other."""

    def __init__(self, *args: Any):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for k, m in args[0].items():
                self.add_module(k, m)
        else:
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def forward(self, input: Any) -> Any:
        for m in self._modules.values():
            input = m(input)
        return input

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return Sequential(*list(self._modules.values())[i])
        return super().__getitem__(i)

    def append(self, module: Module) -> "Sequential":
        self.add_module(str(len(self)), module)
        return self


class ModuleList(_Ordered):
    def __init__(self, modules: Any = None):
        super().__init__(modules)

    def append(self, module: Module) -> "ModuleList":
        self.add_module(str(len(self._modules)), module)
        return self

    def extend(self, modules: Any) -> "ModuleList":
        for m in modules:
            self.append(m)
        return self


class ModuleDict(Module):
    def __init__(self, modules: Any = None):
        super().__init__()
        for k, m in (dict(modules) if modules else {}).items():
            self.add_module(k, m)

    def __getitem__(self, k: str) -> Module:
        return self._modules[k]

    def __setitem__(self, k: str, m: Module) -> None:
        self.add_module(k, m)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __len__(self) -> int:
        return len(self._modules)

    def keys(self) -> Any:
        return self._modules.keys()

    def items(self) -> Any:
        return self._modules.items()

    def values(self) -> Any:
        return self._modules.values()


class ParameterList(_Ordered):
    _held = "_parameters"

    def __init__(self, values: Any = None):
        super().__init__(values)

    def append(self, value: Any) -> "ParameterList":
        p = value if isinstance(value, Parameter) else Parameter(value)
        self.register_parameter(str(len(self._parameters)), p)
        return self


# ------------------------------------------------------------------ losses
class _Loss(Module):
    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                 **kwargs: Any):
        super().__init__()
        self.reduction = NF._reduction(size_average, reduce, reduction)
        for k, v in kwargs.items():
            setattr(self, k, v)

    def extra_repr(self) -> str:
        return ""


class MSELoss(_Loss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                 beta: float = 1.0):
        super().__init__(size_average, reduce, reduction, beta=beta)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    def __init__(self, reduction: str = "mean", delta: float = 1.0):
        super().__init__(reduction=reduction, delta=delta)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class BCELoss(_Loss):
    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 reduce: Any = None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction, weight=weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 reduce: Any = None, reduction: str = "mean", pos_weight: Tensor | None = None):
        super().__init__(size_average, reduce, reduction, weight=weight, pos_weight=pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.binary_cross_entropy_with_logits(input, target, self.weight,
                                                   reduction=self.reduction,
                                                   pos_weight=self.pos_weight)


class NLLLoss(_Loss):
    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 ignore_index: int = -100, reduce: Any = None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction, weight=weight,
                         ignore_index=ignore_index)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.nll_loss(input, target, self.weight, ignore_index=self.ignore_index,
                           reduction=self.reduction)


class CrossEntropyLoss(_Loss):
    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                 label_smoothing: float = 0.0):
        super().__init__(size_average, reduce, reduction, weight=weight,
                         ignore_index=ignore_index, label_smoothing=label_smoothing)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.cross_entropy(input, target, self.weight, ignore_index=self.ignore_index,
                                reduction=self.reduction,
                                label_smoothing=self.label_smoothing)


class KLDivLoss(_Loss):
    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                 log_target: bool = False):
        super().__init__(size_average, reduce, reduction, log_target=log_target)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return NF.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)

