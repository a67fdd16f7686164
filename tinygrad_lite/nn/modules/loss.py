"""PyTorch's ``torch.nn.modules.loss``: the loss layers, thin Modules over ``nn.functional``."""

from __future__ import annotations

from ..._core.tensor_base import TensorBase
from ...tensor import Tensor
from .. import functional as F  # noqa: N812 - PyTorch's conventional alias
from .module import Module

__all__ = ["MSELoss", "L1Loss", "HuberLoss", "SmoothL1Loss", "CrossEntropyLoss", "NLLLoss",
           "BCELoss", "BCEWithLogitsLoss", "KLDivLoss"]


class _Loss(Module):
    """A loss with a ``reduction``."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction


class _WeightedLoss(_Loss):
    """A loss with per-class ``weight`` (a buffer) and a ``reduction``."""

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    """Mean squared error."""

    def forward(self, input: TensorBase, target: TensorBase) -> TensorBase:
        """The loss."""
        return F.mse_loss(input, target, self.reduction)


class L1Loss(_Loss):
    """Mean absolute error."""

    def forward(self, input: TensorBase, target: TensorBase) -> TensorBase:
        """The loss."""
        return F.l1_loss(input, target, self.reduction)


class HuberLoss(_Loss):
    """Huber loss with threshold ``delta``."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction)
        self.delta = delta

    def forward(self, input: TensorBase, target: TensorBase) -> TensorBase:
        """The loss."""
        return F.huber_loss(input, target, self.reduction, self.delta)


class SmoothL1Loss(_Loss):
    """Smooth L1 loss with threshold ``beta``."""

    def __init__(self, reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__(reduction)
        self.beta = beta

    def forward(self, input: TensorBase, target: TensorBase) -> TensorBase:
        """The loss."""
        return F.smooth_l1_loss(input, target, self.reduction, self.beta)


class CrossEntropyLoss(_WeightedLoss):
    """Cross entropy of logits against class indices or class probabilities."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(weight, reduction)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input: TensorBase, target: TensorBase) -> TensorBase:
        """The loss."""
        return F.cross_entropy(input, target, self.weight, self.ignore_index, self.reduction,
                               self.label_smoothing)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of log-probabilities at class indices."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100,
                 reduction: str = "mean") -> None:
        super().__init__(weight, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: TensorBase, target: TensorBase) -> TensorBase:
        """The loss."""
        return F.nll_loss(input, target, self.weight, self.ignore_index, self.reduction)


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities."""

    def forward(self, input: TensorBase, target: TensorBase) -> TensorBase:
        """The loss."""
        return F.binary_cross_entropy(input, target, self.weight, self.reduction)


class BCEWithLogitsLoss(_WeightedLoss):
    """Binary cross entropy of logits (sigmoid inside), with ``pos_weight``."""

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean",
                 pos_weight: Tensor | None = None) -> None:
        super().__init__(weight, reduction)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: TensorBase, target: TensorBase) -> TensorBase:
        """The loss."""
        return F.binary_cross_entropy_with_logits(input, target, self.weight, self.reduction,
                                                  self.pos_weight)


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence of log-probabilities ``input`` from ``target``."""

    def __init__(self, reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__(reduction)
        self.log_target = log_target

    def forward(self, input: TensorBase, target: TensorBase) -> TensorBase:
        """The loss."""
        return F.kl_div(input, target, self.reduction, self.log_target)
