"""``torch.nn``: ``Module``, ``Parameter``, common layers and losses, ``functional``,
``init`` and ``utils``."""

from __future__ import annotations

from . import functional, init, utils
from .modules import (
                      ELU,
                      GELU,
                      BCELoss,
                      BCEWithLogitsLoss,
                      Bilinear,
                      CrossEntropyLoss,
                      Dropout,
                      Embedding,
                      Flatten,
                      HuberLoss,
                      Identity,
                      KLDivLoss,
                      L1Loss,
                      LeakyReLU,
                      Linear,
                      LogSoftmax,
                      Module,
                      ModuleDict,
                      ModuleList,
                      MSELoss,
                      NLLLoss,
                      Parameter,
                      ParameterList,
                      ReLU,
                      ReLU6,
                      Sequential,
                      Sigmoid,
                      SiLU,
                      SmoothL1Loss,
                      Softmax,
                      Softplus,
                      Tanh,
)

# isort: split
# normalisation and attention
from .modules import (
    BatchNorm1d,
    BatchNorm2d,
    GroupNorm,
    LayerNorm,
    MultiheadAttention,
    TransformerEncoder,
    TransformerEncoderLayer,
)

__all__ = ["functional", "init", "utils", "Module", "Parameter", "ParameterList", "Linear",
           "Bilinear", "Embedding", "ReLU", "ReLU6", "Sigmoid", "Tanh", "GELU", "SiLU", "ELU",
           "LeakyReLU", "Softplus", "Softmax", "LogSoftmax", "Identity", "Flatten", "Dropout",
           "Sequential", "ModuleList", "ModuleDict", "MSELoss", "L1Loss", "SmoothL1Loss",
           "HuberLoss", "BCELoss", "BCEWithLogitsLoss", "NLLLoss", "CrossEntropyLoss",
           "KLDivLoss"]
__all__ += ["BatchNorm1d", "BatchNorm2d", "LayerNorm", "GroupNorm", "MultiheadAttention",
            "TransformerEncoderLayer", "TransformerEncoder"]
