"""PyTorch's ``torch.nn.modules``: the layer classes, one module per theme (PyTorch's file
names), re-exported here; each theme's ``__all__`` says what it adds."""

from . import (
    activation,
    adaptive,
    batchnorm,
    channelshuffle,
    container,
    conv,
    distance,
    dropout,
    flatten,
    fold,
    instancenorm,
    lazy,  # noqa: F401 - PyTorch's torch.nn.modules.lazy path (LazyModuleMixin)
    linear,
    loss,
    normalization,
    padding,
    pixelshuffle,
    pooling,
    rnn,
    sparse,
    transformer,
    upsampling,
    utils,  # noqa: F401 - PyTorch's torch.nn.modules.utils path
)
from .activation import *  # noqa: F403
from .adaptive import *  # noqa: F403
from .batchnorm import *  # noqa: F403
from .channelshuffle import *  # noqa: F403
from .container import *  # noqa: F403
from .conv import *  # noqa: F403
from .distance import *  # noqa: F403
from .dropout import *  # noqa: F403
from .flatten import *  # noqa: F403
from .fold import *  # noqa: F403
from .instancenorm import *  # noqa: F403
from .linear import *  # noqa: F403
from .loss import *  # noqa: F403
from .module import Module
from .normalization import *  # noqa: F403
from .padding import *  # noqa: F403
from .pixelshuffle import *  # noqa: F403
from .pooling import *  # noqa: F403
from .rnn import *  # noqa: F403
from .sparse import *  # noqa: F403
from .transformer import *  # noqa: F403
from .upsampling import *  # noqa: F403

__all__ = [
    "Module", *activation.__all__, *batchnorm.__all__, *container.__all__, *conv.__all__,
    *distance.__all__, *dropout.__all__, *flatten.__all__, *linear.__all__, *loss.__all__,
    *normalization.__all__, *pooling.__all__, *rnn.__all__, *sparse.__all__,
    *transformer.__all__, *instancenorm.__all__, *padding.__all__, *upsampling.__all__,
    *pixelshuffle.__all__, *fold.__all__, *channelshuffle.__all__, *adaptive.__all__,
]
