"""``torch.nn``'s modules: ``Module`` and ``Parameter`` (``module``), layers and
containers (``layers``), losses (``loss``), recurrent layers and cells
(``rnn``), convolutions and pooling (``conv``, ``pooling``). Every class prints (and pickles) as
``fad.torch.nn.modules.<Name>``."""

from __future__ import annotations

from .container import ParameterDict
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .layers import (
    ELU,
    GELU,
    Bilinear,
    Dropout,
    Embedding,
    EmbeddingBag,
    Flatten,
    Identity,
    LeakyReLU,
    Linear,
    LogSoftmax,
    ModuleDict,
    ModuleList,
    ParameterList,
    ReLU,
    ReLU6,
    Sequential,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Tanh,
)
from .lazy import (
    LazyBatchNorm1d,
    LazyBatchNorm2d,
    LazyBatchNorm3d,
    LazyConv1d,
    LazyConv2d,
    LazyConv3d,
    LazyConvTranspose1d,
    LazyConvTranspose2d,
    LazyConvTranspose3d,
    LazyInstanceNorm1d,
    LazyInstanceNorm2d,
    LazyInstanceNorm3d,
    LazyLinear,
)
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
    CrossEntropyLoss,
    CTCLoss,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MarginRankingLoss,
    MSELoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    NLLLoss,
    PoissonNLLLoss,
    SmoothL1Loss,
    SoftMarginLoss,
    TripletMarginLoss,
    TripletMarginWithDistanceLoss,
)
from .module import Buffer, Module, Parameter, _IncompatibleKeys, _rebuild_param
from .pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveAvgPool3d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AdaptiveMaxPool3d,
    AvgPool1d,
    AvgPool2d,
    AvgPool3d,
    Fold,
    LPPool1d,
    LPPool2d,
    LPPool3d,
    MaxPool1d,
    MaxPool2d,
    MaxPool3d,
    MaxUnpool1d,
    MaxUnpool2d,
    MaxUnpool3d,
    Unflatten,
    Unfold,
)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .wrappers import DataParallel, UninitializedBuffer, UninitializedParameter

# isort: split
# normalisation and attention
from .attention import (
    MultiheadAttention,
    NonDynamicallyQuantizableLinear,
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from .normalization import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    GroupNorm,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
    LayerNorm,
    LocalResponseNorm,
    RMSNorm,
    SyncBatchNorm,
)

# isort: split
# more activations, losses and layers
from .activation import (
    CELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LogSigmoid,
    Mish,
    PReLU,
    RReLU,
    Softmax2d,
    Softmin,
    Softshrink,
    Softsign,
    Tanhshrink,
    Threshold,
)
from .dropout import AlphaDropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout
from .padding import (
    CircularPad1d,
    CircularPad2d,
    CircularPad3d,
    ConstantPad1d,
    ConstantPad2d,
    ConstantPad3d,
    ReflectionPad1d,
    ReflectionPad2d,
    ReflectionPad3d,
    ReplicationPad1d,
    ReplicationPad2d,
    ReplicationPad3d,
    ZeroPad1d,
    ZeroPad2d,
    ZeroPad3d,
)
from .upsampling import (
    ChannelShuffle,
    CosineSimilarity,
    PairwiseDistance,
    PixelShuffle,
    PixelUnshuffle,
    Upsample,
    UpsamplingBilinear2d,
    UpsamplingNearest2d,
)

__all__ = ["Module", "Parameter", "ParameterList", "Linear", "Bilinear", "Embedding", "ReLU",
           "ReLU6", "Sigmoid", "Tanh", "GELU", "SiLU", "ELU", "LeakyReLU", "Softplus",
           "Softmax", "LogSoftmax", "Identity", "Flatten", "Dropout", "Sequential",
           "ModuleList", "ModuleDict", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss",
           "BCELoss", "BCEWithLogitsLoss", "NLLLoss", "CrossEntropyLoss", "KLDivLoss"]
# recurrent layers
__all__ += ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]
# convolution and pooling
__all__ += ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "MaxPool1d",
            "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
            "Unflatten", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "Fold", "Unfold",
            "LPPool1d", "LPPool2d"]
# normalisation and attention
__all__ += ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm",
            "MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder",
            "TransformerDecoderLayer", "TransformerDecoder", "Transformer"]
# more activations, losses and layers
__all__ += ["SELU", "CELU", "Mish", "Hardswish", "Hardsigmoid", "Hardtanh", "Softsign",
            "Softmin", "Softmax2d", "LogSigmoid", "Tanhshrink", "Softshrink", "Hardshrink",
            "Threshold", "GLU", "PReLU", "CosineEmbeddingLoss", "MarginRankingLoss",
            "HingeEmbeddingLoss", "TripletMarginLoss", "SoftMarginLoss",
            "MultiLabelSoftMarginLoss", "MultiMarginLoss", "PoissonNLLLoss", "GaussianNLLLoss",
            "CTCLoss",
            "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
            "ZeroPad1d", "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d",
            "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d", "CircularPad1d",
            "CircularPad2d", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d",
            "PixelShuffle", "PixelUnshuffle", "CosineSimilarity", "PairwiseDistance",
            "InstanceNorm1d", "InstanceNorm2d", "LocalResponseNorm", "RReLU",
            "MultiLabelMarginLoss", "TripletMarginWithDistanceLoss", "ZeroPad3d",
            "ConstantPad3d", "ReflectionPad3d", "ReplicationPad3d", "CircularPad3d",
            "InstanceNorm3d", "RMSNorm", "ChannelShuffle"]
__all__ += ["ParameterDict", "Buffer", "DataParallel", "LazyLinear", "UninitializedParameter",
            "MaxPool3d", "AvgPool3d", "ConvTranspose3d", "MaxUnpool1d", "MaxUnpool2d",
            "EmbeddingBag", "MaxUnpool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "LPPool3d",
            "UninitializedBuffer", "LazyConv1d", "LazyConv2d", "LazyConv3d",
            "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
            "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
            "LazyInstanceNorm2d", "LazyInstanceNorm3d", "SyncBatchNorm"]

for _obj in [globals()[n] for n in __all__] + [_rebuild_param, _IncompatibleKeys,
                                              NonDynamicallyQuantizableLinear]:
    _obj.__module__ = __name__
del _obj
