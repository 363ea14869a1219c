"""``torch.nn``: ``Module``, ``Parameter``, common layers and losses, ``functional``,
``init`` and ``utils``."""

from __future__ import annotations

from . import functional, init, utils
from .modules import (
                      ELU,
                      GELU,
                      AdaptiveAvgPool2d,
                      AvgPool2d,
                      BCELoss,
                      BCEWithLogitsLoss,
                      Bilinear,
                      Conv1d,
                      Conv2d,
                      ConvTranspose2d,
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
                      MaxPool1d,
                      MaxPool2d,
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
                      Unflatten,
)

__all__ = ["functional", "init", "utils", "Module", "Parameter", "ParameterList", "Linear",
           "Bilinear", "Embedding", "ReLU", "ReLU6", "Sigmoid", "Tanh", "GELU", "SiLU", "ELU",
           "LeakyReLU", "Softplus", "Softmax", "LogSoftmax", "Identity", "Flatten", "Dropout",
           "Sequential", "ModuleList", "ModuleDict", "MSELoss", "L1Loss", "SmoothL1Loss",
           "HuberLoss", "BCELoss", "BCEWithLogitsLoss", "NLLLoss", "CrossEntropyLoss",
           "KLDivLoss"]
# convolution and pooling
__all__ += ["Conv1d", "Conv2d", "ConvTranspose2d", "MaxPool1d", "MaxPool2d", "AvgPool2d",
            "AdaptiveAvgPool2d", "Unflatten"]
