"""PyTorch's ``torch.nn.modules``: the layer classes, one module per theme (PyTorch's file
names), re-exported here; each theme's ``__all__`` says what it adds."""

import sys

from ..._core.module_paths import expose
from . import (
    activation,
    adaptive,
    batchnorm,
    container,
    conv,
    distance,
    dropout,
    flatten,
    instancenorm,
    lazy,
    legacy,
    linear,
    loss,
    normalization,
    padding,
    pooling,
    pooling_fractional,
    rnn,
    sparse,
    transformer,
    utils,  # noqa: F401 - PyTorch's torch.nn.modules.utils path
    vision,
)
from .activation import *  # noqa: F403
from .adaptive import *  # noqa: F403
from .batchnorm import *  # noqa: F403
from .container import *  # noqa: F403
from .conv import *  # noqa: F403
from .distance import *  # noqa: F403
from .dropout import *  # noqa: F403
from .flatten import *  # noqa: F403
from .instancenorm import *  # noqa: F403
from .lazy import *  # noqa: F403
from .legacy import *  # noqa: F403
from .linear import *  # noqa: F403
from .loss import *  # noqa: F403
from .module import Module
from .normalization import *  # noqa: F403
from .padding import *  # noqa: F403
from .pooling import *  # noqa: F403
from .pooling_fractional import *  # noqa: F403
from .rnn import *  # noqa: F403
from .sparse import *  # noqa: F403
from .transformer import *  # noqa: F403
from .vision import *  # noqa: F403

__all__ = [
    "Module", *activation.__all__, *batchnorm.__all__, *container.__all__, *conv.__all__,
    *distance.__all__, *dropout.__all__, *flatten.__all__, *linear.__all__, *loss.__all__,
    *normalization.__all__, *pooling.__all__, *rnn.__all__, *sparse.__all__,
    *transformer.__all__, *instancenorm.__all__, *padding.__all__, *vision.__all__,
    *adaptive.__all__, *lazy.__all__, *legacy.__all__, *pooling_fractional.__all__,
]

# PyTorch's file names for the layers vision.py groups (``from torch.nn.modules.upsampling
# import Upsample``)
expose(sys.modules[__name__], {
    "upsampling": ("Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"),
    "pixelshuffle": ("PixelShuffle", "PixelUnshuffle"), "fold": ("Fold", "Unfold"),
    "channelshuffle": ("ChannelShuffle",)})
