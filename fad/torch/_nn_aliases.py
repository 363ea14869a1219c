"""The ``torch.*`` names of ``torch.nn.functional`` operations (``torch.conv2d``,
``torch.dropout``, ``torch.layer_norm``...), in PyTorch's argument order for them,
which for some differs from the ``nn.functional`` one (``torch.embedding(weight,
indices)``, ``torch.batch_norm(input, weight, bias, running_mean, ...)``)."""

from __future__ import annotations

from typing import Any

from .nn import functional as F
from .tensor import Tensor

# the same arguments as the nn.functional function of the same name
conv1d, conv2d, conv3d = F.conv1d, F.conv2d, F.conv3d
conv_transpose1d, conv_transpose2d = F.conv_transpose1d, F.conv_transpose2d
avg_pool1d, adaptive_avg_pool1d = F.avg_pool1d, F.adaptive_avg_pool1d
max_pool1d, max_pool2d = F.max_pool1d, F.max_pool2d
bilinear, hardshrink, prelu = F.bilinear, F.hardshrink, F.prelu
cosine_similarity, pairwise_distance = F.cosine_similarity, F.pairwise_distance
pixel_shuffle, pixel_unshuffle, channel_shuffle = (F.pixel_shuffle, F.pixel_unshuffle,
                                                   F.channel_shuffle)


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``max(0, x) + min(0, alpha (exp(x / alpha) - 1))``.

    >>> import fad.torch as torch
    >>> torch.celu(torch.tensor([-1.0, 2.0]))
    tensor([-0.6321,  2.0000])
    """
    return F.celu(input, alpha)


def selu(input: Tensor) -> Tensor:
    """The scaled ELU of self-normalising networks.

    >>> import fad.torch as torch
    >>> torch.selu(torch.tensor([0.0, 1.0]))
    tensor([0.0000, 1.0507])
    """
    return F.selu(input)


def rrelu(input: Tensor, lower: float = 1 / 8, upper: float = 1 / 3, training: bool = False,
          generator: Any = None) -> Tensor:
    """The randomised leaky ReLU (its mean slope when not ``training``).

    >>> import fad.torch as torch
    >>> torch.rrelu(torch.tensor([-3.0, 1.0]), 0.25, 0.25)
    tensor([-0.7500,  1.0000])
    """
    return F.rrelu(input, lower, upper, training)


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    """``input`` where it is above ``threshold``, ``value`` elsewhere.

    >>> import fad.torch as torch
    >>> torch.threshold(torch.tensor([0.5, 2.0]), 1.0, -1.0)
    tensor([-1.,  2.])
    """
    return F.threshold(input, threshold, value)


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``nn.functional.dropout`` with ``train`` required.

    >>> import fad.torch as torch
    >>> torch.dropout(torch.ones(3), 0.5, False)
    tensor([1., 1., 1.])
    """
    return F.dropout(input, p, train)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``nn.functional.alpha_dropout`` with ``train`` required.

    >>> import fad.torch as torch
    >>> torch.alpha_dropout(torch.ones(2), 0.5, False)
    tensor([1., 1.])
    """
    return F.alpha_dropout(input, p, train)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``nn.functional.feature_alpha_dropout`` with ``train`` required.

    >>> import fad.torch as torch
    >>> torch.feature_alpha_dropout(torch.ones(1, 2), 0.5, False)
    tensor([[1., 1.]])
    """
    return F.feature_alpha_dropout(input, p, train)


# in-place forms (``torch.celu_(x)``): ``input`` itself, written
celu_, selu_, threshold_ = F.celu_, F.selu_, F.threshold_


def rrelu_(input: Tensor, lower: float = 1 / 8, upper: float = 1 / 3, training: bool = False,
           generator: Any = None) -> Tensor:
    """``rrelu``, written into ``input``.

    >>> import fad.torch as torch
    >>> x = torch.tensor([-3.0, 1.0]); _ = torch.rrelu_(x, 0.25, 0.25); x
    tensor([-0.7500,  1.0000])
    """
    return F.rrelu_(input, lower, upper, training)


def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """``dropout``, written into ``input``.

    >>> import fad.torch as torch
    >>> torch.dropout_(torch.ones(3), 0.5, False)
    tensor([1., 1., 1.])
    """
    return F.dropout(input, p, train, inplace=True)


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """``alpha_dropout``, written into ``input``.

    >>> import fad.torch as torch
    >>> torch.alpha_dropout_(torch.ones(2), 0.5, False)
    tensor([1., 1.])
    """
    return F.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """``feature_alpha_dropout``, written into ``input``.

    >>> import fad.torch as torch
    >>> torch.feature_alpha_dropout_(torch.ones(1, 2), 0.5, False)
    tensor([[1., 1.]])
    """
    return F.feature_alpha_dropout(input, p, train, inplace=True)


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5, cudnn_enable: bool = True
               ) -> Tensor:
    """``nn.functional.layer_norm`` (``cudnn_enable`` is accepted and ignored).

    >>> import fad.torch as torch
    >>> torch.layer_norm(torch.tensor([[1.0, 3.0]]), [2])
    tensor([[-1.0000,  1.0000]])
    """
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5, cudnn_enabled: bool = True
               ) -> Tensor:
    """``nn.functional.group_norm`` (``cudnn_enabled`` is accepted and ignored).

    >>> import fad.torch as torch
    >>> torch.group_norm(torch.tensor([[[1.0], [3.0]]]), 1)
    tensor([[[-1.0000],
             [ 1.0000]]])
    """
    return F.group_norm(input, num_groups, weight, bias, eps)


def rms_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    """``nn.functional.rms_norm``.

    >>> import fad.torch as torch
    >>> torch.rms_norm(torch.tensor([[3.0, 4.0]]), [2])
    tensor([[0.8485, 1.1314]])
    """
    return F.rms_norm(input, normalized_shape, weight, eps)


def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
               running_mean: Tensor | None, running_var: Tensor | None, training: bool,
               momentum: float, eps: float, cudnn_enabled: bool = True) -> Tensor:
    """``nn.functional.batch_norm`` with the weight and bias first.

    >>> import fad.torch as torch
    >>> torch.batch_norm(torch.tensor([[1.0], [3.0]]), None, None, None, None, True, 0.1,
    ...                  0.0)
    tensor([[-1.],
            [ 1.]])
    """
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                        eps)


def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
                  running_mean: Tensor | None, running_var: Tensor | None,
                  use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool = True) -> Tensor:
    """``nn.functional.instance_norm`` with the weight and bias first.

    >>> import fad.torch as torch
    >>> torch.instance_norm(torch.tensor([[[1.0, 3.0]]]), None, None, None, None, True, 0.1,
    ...                     0.0)
    tensor([[[-1.,  1.]]])
    """
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                           momentum, eps)


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """The rows of ``weight`` at ``indices`` (the weight first; ``padding_idx`` -1:
    none).

    >>> import fad.torch as torch
    >>> torch.embedding(torch.tensor([[1.0], [2.0]]), torch.tensor([1, 1]))
    tensor([[2.],
            [2.]])
    """
    return F.embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple:
    """``(values, indices)`` of adaptive max pooling to ``output_size``.

    >>> import fad.torch as torch
    >>> torch.adaptive_max_pool1d(torch.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)[0]
    tensor([[[3., 2.]]])
    """
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


__all__ = [n for n in dir() if not n.startswith("_") and n not in ("annotations", "Any", "F",
                                                                   "Tensor")]
