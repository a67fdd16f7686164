"""PyTorch's ``torch.nn.modules``: the layer classes, one module per theme, re-exported here."""

from .activation import (
    ELU,
    GELU,
    LeakyReLU,
    LogSoftmax,
    MultiheadAttention,
    ReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Tanh,
)
from .batchnorm import BatchNorm1d, BatchNorm2d
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d
from .dropout import Dropout
from .flatten import Flatten, Unflatten
from .linear import Bilinear, Identity, Linear
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from .module import Module
from .normalization import GroupNorm, LayerNorm, RMSNorm
from .pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AvgPool1d,
    AvgPool2d,
    MaxPool1d,
    MaxPool2d,
)
from .sparse import Embedding

__all__ = [
    "Module", "Identity", "Linear", "Bilinear", "Flatten", "Unflatten", "Embedding", "Dropout",
    "Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "MaxPool1d", "MaxPool2d",
    "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "BatchNorm1d",
    "BatchNorm2d", "LayerNorm", "GroupNorm", "RMSNorm", "MultiheadAttention", "ReLU",
    "LeakyReLU", "GELU", "SiLU", "ELU", "Sigmoid", "Tanh", "Softplus", "Softmax", "LogSoftmax",
    "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "MSELoss",
    "L1Loss", "HuberLoss", "SmoothL1Loss", "CrossEntropyLoss", "NLLLoss", "BCELoss",
    "BCEWithLogitsLoss", "KLDivLoss",
]
