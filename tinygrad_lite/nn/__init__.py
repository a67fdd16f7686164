"""``tinygrad_lite.nn``: Module, Parameter, layers, losses, init and utils, PyTorch style."""

from . import functional, init, modules, utils
from .activation import (
    ELU,
    GELU,
    LeakyReLU,
    LogSoftmax,
    ReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Tanh,
)
from .attention import MultiheadAttention
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AvgPool1d,
    AvgPool2d,
    Conv1d,
    Conv2d,
    ConvTranspose1d,
    ConvTranspose2d,
    MaxPool1d,
    MaxPool2d,
)
from .linear import Bilinear, Dropout, Embedding, Flatten, Identity, Linear, Unflatten
from .losses import (
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
from .norm import BatchNorm1d, BatchNorm2d, GroupNorm, LayerNorm, RMSNorm
from .parameter import Buffer, Parameter

__all__ = [
    "functional", "init", "utils", "modules", "Module", "Parameter", "Buffer", "Identity",
    "Linear", "Bilinear", "Flatten", "Unflatten", "Embedding", "Dropout", "Conv1d", "Conv2d",
    "ConvTranspose1d", "ConvTranspose2d", "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d",
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "BatchNorm1d", "BatchNorm2d", "LayerNorm",
    "GroupNorm", "RMSNorm", "MultiheadAttention", "ReLU", "LeakyReLU", "GELU", "SiLU", "ELU",
    "Sigmoid", "Tanh", "Softplus", "Softmax", "LogSoftmax", "Sequential", "ModuleList",
    "ModuleDict", "ParameterList", "ParameterDict", "MSELoss", "L1Loss", "HuberLoss",
    "SmoothL1Loss", "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss",
]
