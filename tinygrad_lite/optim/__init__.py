"""``tinygrad_lite.optim``: optimizers and learning-rate schedulers, PyTorch style."""

from . import lr_scheduler, swa_utils
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adaptive import ASGD, Adadelta, Adamax, NAdam, RAdam, Rprop
from .lbfgs import LBFGS
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD
from .sparse_adam import SparseAdam

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "NAdam", "RAdam",
           "Adadelta", "Rprop", "ASGD", "LBFGS", "lr_scheduler", "swa_utils", "Adafactor",
           "SparseAdam"]
