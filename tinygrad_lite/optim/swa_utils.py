"""``optim.swa_utils``: stochastic weight averaging and exponential moving averages of a model's
weights (``AveragedModel``), the SWA learning-rate schedule (``SWALR``) and ``update_bn`` to
recompute BatchNorm statistics for the averaged weights, as in PyTorch."""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from .._core.grad_mode import no_grad
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from ..tensor import Tensor
from .lr_scheduler import LRScheduler
from .optimizer import Optimizer

__all__ = ["AveragedModel", "SWALR", "update_bn", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """An in-place update of all averaged tensors at once: ``avg = decay avg + (1 - decay) p``."""

    def ema_update(averaged: list, current: list, num_averaged: Any) -> None:
        for a, c in zip(averaged, current):  # integer buffers truncate, as copy_ does
            np.copyto(a._data, decay * a._data + (1.0 - decay) * c._data, casting="unsafe")
    return ema_update


def get_swa_multi_avg_fn() -> Callable:
    """An in-place running mean of all averaged tensors: ``avg += (p - avg) / (n + 1)``."""

    def swa_update(averaged: list, current: list, num_averaged: Any) -> None:
        n = float(np.asarray(num_averaged._data if isinstance(num_averaged, Tensor)
                             else num_averaged))
        for a, c in zip(averaged, current):  # integer buffers truncate, as copy_ does
            np.copyto(a._data, a._data + (c._data - a._data) / (n + 1.0), casting="unsafe")
    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    """``avg_fn(averaged, current, num_averaged)`` returning the exponential moving average."""

    def ema(averaged: Tensor, current: Tensor, num_averaged: Any) -> Tensor:
        return decay * averaged + (1.0 - decay) * current
    return ema


def get_swa_avg_fn() -> Callable:
    """``avg_fn(averaged, current, num_averaged)`` returning the running mean."""

    def swa(averaged: Tensor, current: Tensor, num_averaged: Any) -> Tensor:
        return averaged + (current - averaged) / (num_averaged + 1)
    return swa


class AveragedModel(Module):
    """A copy of ``model`` whose parameters (and buffers, with ``use_buffers``) hold an average
    of the weights ``update_parameters`` is called with: SWA's equal-weight mean by default, or
    the rule ``avg_fn``/``multi_avg_fn`` gives (e.g. ``get_ema_multi_avg_fn(0.999)``)."""

    def __init__(self, model: Module, device: Any = None, avg_fn: Callable | None = None,
                 multi_avg_fn: Callable | None = None, use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise ValueError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        self.register_buffer("n_averaged", Tensor._wrap(np.zeros((), np.int64)))
        self.avg_fn, self.multi_avg_fn, self.use_buffers = avg_fn, multi_avg_fn, use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The averaged model's forward."""
        return self.module(*args, **kwargs)

    def _tracked(self, model: Module) -> list:
        if self.use_buffers:
            return list(itertools.chain(model.parameters(), model.buffers()))
        return list(model.parameters())

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current weights into the average (the first call copies them)."""
        averaged = self._tracked(self.module)
        current = [t.detach() for t in self._tracked(model)]
        with no_grad():
            if int(self.n_averaged._data) == 0:
                for a, c in zip(averaged, current):
                    np.copyto(a._data, c._data)
            elif self.multi_avg_fn is not None:
                self.multi_avg_fn(averaged, current, self.n_averaged)
            elif self.avg_fn is not None:
                for a, c in zip(averaged, current):
                    np.copyto(a._data, self.avg_fn(a.detach(), c, self.n_averaged)._data,
                              casting="unsafe")
            else:
                get_swa_multi_avg_fn()(averaged, current, self.n_averaged)
            for a in averaged:
                a._version_counter[0] += 1
        if not self.use_buffers:  # buffers follow the latest model (BatchNorm statistics)
            for a, c in zip(self.module.buffers(), model.buffers()):
                np.copyto(a._data, c._data)
        self.n_averaged._data += 1


def update_bn(loader: Iterable, model: Module, device: Any = None) -> None:
    """Recompute the running statistics of every BatchNorm in ``model`` with one pass over
    ``loader`` (a cumulative average over all batches, as PyTorch's momentum=None)."""
    norms = [m for m in model.modules() if isinstance(m, _BatchNorm)]
    if not norms:
        return
    momenta = {}
    for m in norms:
        if m.running_mean is not None:
            m.running_mean._data[...] = 0
            m.running_var._data[...] = 1
            m.num_batches_tracked._data[...] = 0
        momenta[m] = m.momentum
        m.momentum = None
    was_training = model.training
    model.train()
    with no_grad():
        for batch in loader:
            inputs = batch[0] if isinstance(batch, (list, tuple)) else batch
            model(inputs)
    for m in norms:
        m.momentum = momenta[m]
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's learning rate to ``swa_lr`` over ``anneal_epochs`` steps ('cos' or
    'linear'), then holds it: the schedule for the SWA phase of training."""

    def __init__(self, optimizer: Optimizer, swa_lr: float | list, anneal_epochs: int = 10,
                 anneal_strategy: str = "cos", last_epoch: int = -1) -> None:
        rates = list(swa_lr) if isinstance(swa_lr, (list, tuple)) else \
            [swa_lr] * len(optimizer.param_groups)
        if len(rates) != len(optimizer.param_groups):
            raise ValueError(f"swa_lr must have the same length as optimizer.param_groups: "
                             f"swa_lr has {len(rates)}, optimizer.param_groups has "
                             f"{len(optimizer.param_groups)}")
        for group, rate in zip(optimizer.param_groups, rates):
            group["swa_lr"] = rate
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must by one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs, self.anneal_strategy = anneal_epochs, anneal_strategy
        super().__init__(optimizer, last_epoch)

    def _anneal(self, t: float) -> float:
        if self.anneal_strategy == "cos":
            return (1 - math.cos(math.pi * t)) / 2
        return t

    def get_lr(self) -> list[float]:
        """Move each rate the fraction of the way to ``swa_lr`` that this step's progress
        along the annealing curve calls for (PyTorch's recursion)."""
        step = self.last_epoch
        prev_t = max(0.0, min(1.0, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self._anneal(prev_t)
        prev_lrs = [self._previous_lr(g["lr"], g["swa_lr"], prev_alpha)
                    for g in self.optimizer.param_groups]
        t = max(0.0, min(1.0, step / max(1, self.anneal_epochs)))
        alpha = self._anneal(t)
        return [g["swa_lr"] * alpha + lr * (1 - alpha)
                for g, lr in zip(self.optimizer.param_groups, prev_lrs)]

    @staticmethod
    def _previous_lr(lr: float, swa_lr: float, alpha: float) -> float:
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)
