"""Layers and containers of ``torch.nn``: ``Linear``, activations, ``Dropout``,
``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList``."""

from __future__ import annotations

import math
from typing import Any

from ... import _functions as F
from ..._creation import empty
from ...tensor import Tensor
from .. import functional as NF
from .. import init
from .container import ModuleDict, ModuleList, ParameterList, Sequential  # noqa: F401
from .module import Module, Parameter

__all__ = ["Linear", "Bilinear", "Embedding", "EmbeddingBag", "ReLU", "ReLU6", "Sigmoid",
           "Tanh", "GELU", "SiLU",
           "ELU", "LeakyReLU", "Softplus", "Softmax", "LogSoftmax", "Identity",
           "Flatten", "Dropout", "Sequential", "ModuleList", "ModuleDict",
           "ParameterList"]




def weight_and_bias(module: Module, shape: tuple, out: int, bias: bool, dtype: Any) -> None:
    """``module.weight`` of ``shape`` and ``module.bias`` of ``out`` (or a ``None``
    bias, registered as PyTorch does), then ``module.reset_parameters()``."""
    module.weight = Parameter(empty(*shape, dtype=dtype))
    if bias:
        module.bias = Parameter(empty(out, dtype=dtype))
    else:
        module.register_parameter("bias", None)
    module.reset_parameters()


def reset_kaiming(weight: Tensor, bias: Tensor | None, fan_in: int,
                  empty_draws: bool = False) -> None:
    """PyTorch's default for ``Linear`` and the convolutions: kaiming_uniform with
    ``a = sqrt(5)`` for the weight, uniform(+-1/sqrt(fan_in)) for the bias. With no
    inputs (``fan_in`` 0) the bias is drawn from uniform(0, 0) when
    ``empty_draws`` (``Linear``), else left alone (the convolutions), as PyTorch:
    the generator's stream afterwards depends on it."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None and (fan_in > 0 or empty_draws):
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(bias, -bound, bound)

class Linear(Module):
    """``y = x @ W.T + b`` with PyTorch's default initialisation."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        weight_and_bias(self, (out_features, in_features), out_features, bias, dtype)

    def reset_parameters(self) -> None:
        reset_kaiming(self.weight, self.bias, self.in_features, empty_draws=True)

    def forward(self, input: Tensor) -> Tensor:
        return NF.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    """``y = x1^T A x2 + b`` with a weight ``(out_features, in1_features,
    in2_features)``, both initialised uniform in ``+-1/sqrt(in1_features)``.

    >>> import fad.torch as torch
    >>> torch.nn.Bilinear(4, 3, 2)
    Bilinear(in1_features=4, in2_features=3, out_features=2, bias=True)
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device: Any = None, dtype: Any = None):
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        bound = 1 / math.sqrt(in1_features)
        self.weight = Parameter(init.uniform_(empty(out_features, in1_features, in2_features,
                                                    dtype=dtype), -bound, bound))
        if bias:
            self.bias = Parameter(init.uniform_(empty(out_features, dtype=dtype), -bound, bound))
        else:
            self.register_parameter("bias", None)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return NF.bilinear(input1, input2, self.weight, self.bias)


class Embedding(Module):
    """A lookup table of ``num_embeddings`` rows; the options are ``F.embedding``'s
    (the ``padding_idx`` row starts at zero and gets no gradient).

    >>> import fad.torch as torch
    >>> e = torch.nn.Embedding(4, 2, padding_idx=0)
    >>> e, e.weight[0].tolist()
    (Embedding(4, 2, padding_idx=0), [0.0, 0.0])
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, sparse: bool = False, _weight: Any = None,
                 _freeze: bool = False, device: Any = None, dtype: Any = None):
        super().__init__()
        _embedding_table(self, num_embeddings, embedding_dim, padding_idx, max_norm, norm_type,
                         scale_grad_by_freq, sparse, _weight, _freeze, dtype)

    def forward(self, input: Tensor) -> Tensor:
        return NF.embedding(input, self.weight, self.padding_idx, self.max_norm,
                            self.norm_type, self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        parts = [f"{self.num_embeddings}, {self.embedding_dim}"]
        for name, default in (("padding_idx", None), ("max_norm", None), ("norm_type", 2.0),
                              ("scale_grad_by_freq", False)):
            if getattr(self, name) != default:
                parts.append(f"{name}={getattr(self, name)}")
        return ", ".join(parts)


def _embedding_table(module: Module, num_embeddings: int, embedding_dim: int,
                     padding_idx: int | None, max_norm: float | None, norm_type: float,
                     scale_grad_by_freq: bool, sparse: bool, _weight: Any, _freeze: bool,
                     dtype: Any) -> None:
    """The options and the ``weight`` of ``Embedding`` and ``EmbeddingBag``: drawn
    from ``N(0, 1)`` (the ``padding_idx`` row zero), or ``_weight``."""
    if sparse:
        raise NotImplementedError(f"{type(module).__name__}(sparse=True): fad.torch has no "
                                  "sparse tensors; use sparse=False (dense gradients)")
    module.num_embeddings, module.embedding_dim = num_embeddings, embedding_dim
    if padding_idx is not None:
        padding_idx = NF._padding_index(padding_idx, num_embeddings)
    module.padding_idx, module.max_norm, module.norm_type = padding_idx, max_norm, norm_type
    module.scale_grad_by_freq, module.sparse = scale_grad_by_freq, sparse
    if _weight is None:
        weight = init.normal_(empty(num_embeddings, embedding_dim, dtype=dtype))
        if padding_idx is not None:
            weight[padding_idx] = 0.0
    else:
        if list(_weight.shape) != [num_embeddings, embedding_dim]:
            raise AssertionError("Shape of weight does not match num_embeddings and "
                                 "embedding_dim")
        weight = _weight.detach()
    module.weight = Parameter(weight, requires_grad=not _freeze)


class EmbeddingBag(Module):
    """An embedding table whose lookups are reduced bag by bag (``F.embedding_bag``).

    >>> import fad.torch as torch
    >>> torch.nn.EmbeddingBag(10, 3, mode="sum")
    EmbeddingBag(10, 3, mode='sum')
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm: float | None = None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
                 sparse: bool = False, _weight: Any = None, include_last_offset: bool = False,
                 padding_idx: int | None = None, device: Any = None, dtype: Any = None):
        super().__init__()
        _embedding_table(self, num_embeddings, embedding_dim, padding_idx, max_norm, norm_type,
                         scale_grad_by_freq, sparse, _weight, False, dtype)
        self.mode, self.include_last_offset = mode, include_last_offset

    def forward(self, input: Tensor, offsets: Tensor | None = None,
                per_sample_weights: Tensor | None = None) -> Tensor:
        return NF.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                                self.scale_grad_by_freq, self.mode, self.sparse,
                                per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self) -> str:
        parts = [f"{self.num_embeddings}, {self.embedding_dim}"]
        for name, default in (("max_norm", None), ("norm_type", 2.0),
                              ("scale_grad_by_freq", False)):
            if getattr(self, name) != default:
                parts.append(f"{name}={getattr(self, name)}")
        parts.append(f"mode='{self.mode}'")
        if self.padding_idx is not None:
            parts.append(f"padding_idx={self.padding_idx}")
        return ", ".join(parts)


class _Simple(Module):
    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__()
        self._args = args
        self._kwargs = kwargs

    def extra_repr(self) -> str:
        parts = [repr(a) for a in self._args] + [f"{k}={v}" for k, v in self._kwargs.items()]
        return ", ".join(parts)


class _WithInplace(Module):
    """An activation whose options are PyTorch's, shown as PyTorch shows them."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def _inplace_repr(self) -> str:
        return ", inplace=True" if self.inplace else ""

    def extra_repr(self) -> str:
        return self._inplace_repr().removeprefix(", ")


class ReLU(_WithInplace):
    """``max(x, 0)``.

    >>> import fad.torch as torch
    >>> torch.nn.ReLU(inplace=True)
    ReLU(inplace=True)
    """

    def forward(self, input: Tensor) -> Tensor:
        return NF.relu_(input) if self.inplace else NF.relu(input)


class ReLU6(_WithInplace):
    """``min(max(x, 0), 6)``.

    >>> import fad.torch as torch
    >>> torch.nn.ReLU6()(torch.tensor([-1.0, 7.0]))
    tensor([0., 6.])
    """

    min_val, max_val = 0.0, 6.0

    def forward(self, input: Tensor) -> Tensor:
        return NF.relu6(input, self.inplace)


class Sigmoid(_Simple):
    def forward(self, input: Tensor) -> Tensor:
        return F.sigmoid(input)


class Tanh(_Simple):
    def forward(self, input: Tensor) -> Tensor:
        return F.tanh(input)


class GELU(Module):
    """``x * Phi(x)`` (``approximate="tanh"``: its tanh form).

    >>> import fad.torch as torch
    >>> torch.nn.GELU("tanh")
    GELU(approximate='tanh')
    """

    def __init__(self, approximate: str = "none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return NF.gelu(input, self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(_WithInplace):
    """``x * sigmoid(x)``.

    >>> import fad.torch as torch
    >>> torch.nn.SiLU()(torch.tensor([0.0]))
    tensor([0.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return NF.silu(input, self.inplace)


class ELU(_WithInplace):
    """``x`` where positive, ``alpha (e^x - 1)`` elsewhere.

    >>> import fad.torch as torch
    >>> torch.nn.ELU()
    ELU(alpha=1.0)
    """

    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__(inplace)
        self.alpha = alpha

    def forward(self, input: Tensor) -> Tensor:
        return NF.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + self._inplace_repr()


class LeakyReLU(_WithInplace):
    """``x`` where positive, ``negative_slope * x`` elsewhere.

    >>> import fad.torch as torch
    >>> torch.nn.LeakyReLU(0.2, True)
    LeakyReLU(negative_slope=0.2, inplace=True)
    """

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False):
        super().__init__(inplace)
        self.negative_slope = negative_slope

    def forward(self, input: Tensor) -> Tensor:
        return NF.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + self._inplace_repr()


class Softplus(Module):
    """``log(1 + e^(beta x)) / beta``, ``x`` itself where ``beta x > threshold``.

    >>> import fad.torch as torch
    >>> torch.nn.Softplus(beta=2)
    Softplus(beta=2, threshold=20.0)
    """

    def __init__(self, beta: float = 1.0, threshold: float = 20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input: Tensor) -> Tensor:
        return NF.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


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
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input: Tensor) -> Tensor:
        return NF.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


def _embedding_from_pretrained(cls: type, embeddings: Tensor, freeze: bool = True,
                               padding_idx: int | None = None, **options: Any) -> Embedding:
    """An ``Embedding`` whose weight is ``embeddings`` (rows: the vectors), trained
    unless ``freeze``.

    >>> import fad.torch as torch
    >>> e = torch.nn.Embedding.from_pretrained(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    >>> e(torch.tensor([1])), e.weight.requires_grad
    (tensor([[3., 4.]]), False)
    """
    if embeddings.dim() != 2:
        raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
    rows, cols = embeddings.shape
    module = cls(rows, cols, padding_idx=padding_idx, **options)
    module.weight = Parameter(embeddings.detach(), requires_grad=not freeze)
    return module


Embedding.from_pretrained = classmethod(_embedding_from_pretrained)
