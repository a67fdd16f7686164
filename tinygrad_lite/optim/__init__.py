"""``tinygrad_lite.optim``: optimizers and learning-rate schedulers, PyTorch style."""

import sys

from .._core.module_paths import expose
from . import lr_scheduler, swa_utils
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adaptive import ASGD, Adadelta, Adamax, NAdam, RAdam, Rprop
from .lbfgs import LBFGS
from .muon import Muon
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD
from .sparse_adam import SparseAdam

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "NAdam", "RAdam",
           "Adadelta", "Rprop", "ASGD", "LBFGS", "lr_scheduler", "swa_utils", "Adafactor",
           "SparseAdam", "Muon"]

# PyTorch's one-module-per-optimizer paths (``from torch.optim.adamw import AdamW``)
expose(sys.modules[__name__], {
    "adamw": ("AdamW",), "adamax": ("Adamax",), "adadelta": ("Adadelta",), "nadam": ("NAdam",),
    "radam": ("RAdam",), "rprop": ("Rprop",), "asgd": ("ASGD",)})
