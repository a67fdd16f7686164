"""Learning-rate schedulers with PyTorch's names, formulas and state dicts."""

from __future__ import annotations

import bisect
import math
import types
import weakref
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from .._core.warnings import warn
from .optimizer import Optimizer, awaiting_first_step, awaits_first_step

__all__ = ["LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR",
           "LinearLR", "LambdaLR", "OneCycleLR", "ReduceLROnPlateau", "ConstantLR",
           "PolynomialLR", "MultiplicativeLR", "CosineAnnealingWarmRestarts", "SequentialLR",
           "CyclicLR", "ChainedScheduler"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)
_STEP_ORDER_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
    "In PyTorch 1.1.0 and later, you should call them in the opposite order: "
    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
    "will result in PyTorch skipping the first value of the learning rate schedule. "
    "See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"
)


class LRScheduler:
    """Base class: ``step()`` advances ``last_epoch`` and writes ``get_lr()`` into the groups.

    The bookkeeping attributes are PyTorch's (they appear in ``state_dict()`` as there):
    ``_step_count`` counts steps, the initial one included; ``_is_initial`` is set while the
    constructor's step runs; ``_get_lr_called_within_step`` while ``step()`` calls
    ``get_lr()``."""

    _get_lr_called_within_step: bool = False
    _is_initial: bool = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming scheduler with last_epoch >= 0.\n"
                        "This typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't "
                        "properly loaded the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run (not "
                        "recommended)")
        self.base_lrs = [g["initial_lr"] for g in optimizer.param_groups]
        self.last_epoch = last_epoch
        # (to warn if step() comes before optimizer.step())
        awaiting_first_step[id(optimizer)] = weakref.ref(optimizer)
        self._initial_step()

    def _initial_step(self) -> None:
        """Reset the step count and take the constructor's step (PyTorch's ``_initial_step``)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self) -> list[float]:
        """The learning rates for the current ``last_epoch``."""
        raise NotImplementedError

    def get_last_lr(self) -> list[float]:
        """The learning rates set by the last ``step()``."""
        return self._last_lr

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch (or jump to ``epoch``) and update the optimizer's learning rates.

        Stepping uses each schedule's recursive ("chainable") form, which scales the rate the
        group has now, as PyTorch does: so schedulers stepped together (ChainedScheduler)
        compose. Jumping to an explicit ``epoch`` uses the closed form (with PyTorch's
        deprecation warning). The first step after the constructor's warns, as PyTorch's does,
        when the optimizer has not stepped since the scheduler was made."""
        if self._step_count == 1 and awaits_first_step(self.optimizer):
            warn(_STEP_ORDER_WARNING)
        self._step_count += 1
        if epoch is not None:
            warn(EPOCH_DEPRECATION_WARNING)
        self._update_lr(epoch)

    def _update_lr(self, epoch: Any = None) -> None:
        """Advance ``last_epoch`` (or set it to ``epoch``) and write the new rates."""
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                lrs = self.get_lr()
            else:
                self.last_epoch = epoch
                lrs = self._closed_form_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, lrs):
            group["lr"] = lr
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]

    def _current(self) -> list[float]:
        return [g["lr"] for g in self.optimizer.param_groups]

    def _closed_form_lr(self) -> list[float]:
        """The rates at ``last_epoch`` from the base rates (schedules without a closed form
        use ``get_lr``)."""
        return self.get_lr()

    def state_dict(self) -> dict:
        """Everything but the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore what ``state_dict`` returned."""
        self.__dict__.update(state_dict)


def _functions_state(fns: list) -> list:
    """PyTorch's saved form of schedule functions: None for a plain function or lambda, the
    attribute dict of a callable object."""
    return [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy() for fn in fns]


class _LambdaState:
    """``state_dict``/``load_state_dict`` of the schedulers built on ``lr_lambdas`` (LambdaLR,
    MultiplicativeLR), as PyTorch's: the functions themselves are not saved."""

    lr_lambdas: list
    __dict__: dict

    def state_dict(self) -> dict:
        """Everything but the optimizer, with ``lr_lambdas`` in its saved form."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = _functions_state(self.lr_lambdas)
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore what ``state_dict`` returned (callable objects' attributes included)."""
        saved = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        state_dict["lr_lambdas"] = saved  # (the caller's dict left as it was)
        for fn, attrs in zip(self.lr_lambdas, saved):
            if attrs is not None:
                fn.__dict__.update(attrs)


class StepLR(LRScheduler):
    """``lr = base_lr * gamma ** (epoch // step_size)``."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """Decayed by ``gamma`` every ``step_size`` epochs."""
        if self.last_epoch == 0 or self.last_epoch % self.step_size:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _closed_form_lr(self) -> list[float]:
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


class MultiStepLR(LRScheduler):
    """``lr = base_lr * gamma ** (number of milestones <= epoch)``."""

    def __init__(self, optimizer: Optimizer, milestones: Sequence[int], gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.milestones, self.gamma = Counter(milestones), gamma  # (a Counter, as PyTorch's)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """Decayed by ``gamma`` at each milestone (repeated milestones count twice)."""
        hits = self.milestones[self.last_epoch] if self.last_epoch in self.milestones else 0
        return [lr * self.gamma ** hits for lr in self._current()]

    def _closed_form_lr(self) -> list[float]:
        n = bisect.bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [b * self.gamma ** n for b in self.base_lrs]


class ExponentialLR(LRScheduler):
    """``lr = base_lr * gamma ** epoch``."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """Decayed by ``gamma`` every epoch (not at the constructor's step, whatever
        ``last_epoch`` it resumes from, as in PyTorch)."""
        if self._is_initial:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _closed_form_lr(self) -> list[float]:
        return [b * self.gamma ** self.last_epoch for b in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """``lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2``."""

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0,  # noqa: N803
                 last_epoch: int = -1) -> None:
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The cosine schedule, one step on from the current rate (PyTorch's recursion)."""
        e, t, lo = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:  # (the constructor's step keeps the rate, as in PyTorch)
            return self._current()
        if self._step_count == 1 and e > 0:
            return [lo + (b - lo) * (1 + math.cos(e * math.pi / t)) / 2 for b in self.base_lrs]
        if (e - 1 - t) % (2 * t) == 0:
            return [lr + (b - lo) * (1 - math.cos(math.pi / t)) / 2
                    for lr, b in zip(self._current(), self.base_lrs)]
        ratio = (1 + math.cos(math.pi * e / t)) / (1 + math.cos(math.pi * (e - 1) / t))
        return [ratio * (lr - lo) + lo for lr in self._current()]

    def _closed_form_lr(self) -> list[float]:
        c = (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
        return [self.eta_min + (b - self.eta_min) * c for b in self.base_lrs]


class LinearLR(LRScheduler):
    """The factor goes linearly from ``start_factor`` to ``end_factor`` over ``total_iters``."""

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3,
                 end_factor: float = 1.0, total_iters: int = 5, last_epoch: int = -1) -> None:
        if not 0 < start_factor <= 1 or not 0 <= end_factor <= 1:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and "
                             "less or equal to 1.")
        self.start_factor, self.end_factor = start_factor, end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The current rate times this epoch's change of factor."""
        e, start, end, n = self.last_epoch, self.start_factor, self.end_factor, self.total_iters
        if e == 0:
            return [lr * start for lr in self._current()]
        if self._is_initial or e > n:
            return self._current()
        change = 1.0 + (end - start) / (n * start + (e - 1) * (end - start))
        return [lr * change for lr in self._current()]

    def _closed_form_lr(self) -> list[float]:
        t = min(self.last_epoch, self.total_iters)
        f = self.start_factor + (self.end_factor - self.start_factor) * t / self.total_iters
        return [b * f for b in self.base_lrs]


class LambdaLR(_LambdaState, LRScheduler):
    """``lr = base_lr * lr_lambda(epoch)`` (one function, or one per group)."""

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable | list,
                 last_epoch: int = -1) -> None:
        n = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != n:
                raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * n
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """``base_lr * lambda(epoch)`` per group."""
        return [b * f(self.last_epoch) for b, f in zip(self.base_lrs, self.lr_lambdas)]


class OneCycleLR(LRScheduler):
    """The 1cycle policy: warm up from ``max_lr / div_factor`` to ``max_lr`` over
    ``pct_start`` of the steps, then anneal to ``initial_lr / final_div_factor`` (momentum or
    Adam's beta1 cycles the other way)."""

    def __init__(self, optimizer: Optimizer, max_lr: float | list, total_steps: int | None = None,
                 epochs: int | None = None, steps_per_epoch: int | None = None,
                 pct_start: float = 0.3, anneal_strategy: str = "cos",
                 cycle_momentum: bool = True, base_momentum: float = 0.85,
                 max_momentum: float = 0.95, div_factor: float = 25.0,
                 final_div_factor: float = 1e4, three_phase: bool = False,
                 last_epoch: int = -1) -> None:
        if total_steps is None:
            if epochs is None or steps_per_epoch is None:
                raise ValueError("You must define either total_steps OR (epochs AND "
                                 "steps_per_epoch)")
            total_steps = epochs * steps_per_epoch
        if total_steps <= 0:
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self.total_steps, self._anneal_func_type = total_steps, anneal_strategy
        n = len(optimizer.param_groups)
        max_lrs = list(max_lr) if isinstance(max_lr, (list, tuple)) else [max_lr] * n
        if three_phase:
            self._phases = [
                (float(pct_start * total_steps) - 1, "initial_lr", "max_lr", "max_momentum",
                 "base_momentum"),
                (float(2 * pct_start * total_steps) - 2, "max_lr", "initial_lr", "base_momentum",
                 "max_momentum"),
                (total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
            ]
        else:
            self._phases = [
                (float(pct_start * total_steps) - 1, "initial_lr", "max_lr", "max_momentum",
                 "base_momentum"),
                (total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"),
            ]
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:  # (PyTorch's attribute name, set only when momentum cycles)
            self.use_beta1 = "betas" in optimizer.defaults
        for group, mlr in zip(optimizer.param_groups, max_lrs):
            if last_epoch == -1:
                group["initial_lr"] = mlr / div_factor
                group["max_lr"] = mlr
                group["min_lr"] = group["initial_lr"] / final_div_factor
            if cycle_momentum:
                if self.use_beta1:
                    group["betas"] = (max_momentum, *group["betas"][1:])
                elif "momentum" in group:
                    group["momentum"] = max_momentum
                else:
                    raise ValueError("optimizer must support momentum or beta1 with "
                                     "`cycle_momentum` option enabled")
                group["max_momentum"], group["base_momentum"] = max_momentum, base_momentum
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start: float, end: float, pct: float) -> float:
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> list[float]:
        """The learning rate of the current phase at the current step."""
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps "
                             f"is {self.total_steps}")
        lrs = []
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, (end, lr0, lr1, m0, m1) in enumerate(self._phases):
                if step <= end or i == len(self._phases) - 1:
                    pct = (step - start) / (end - start)
                    lr = self._anneal(group[lr0], group[lr1], pct)
                    if self.cycle_momentum:
                        mom = self._anneal(group[m0], group[m1], pct)
                    break
                start = end
            lrs.append(lr)
            if self.cycle_momentum:
                if self.use_beta1:
                    group["betas"] = (mom, *group["betas"][1:])
                else:
                    group["momentum"] = mom
        return lrs


class ReduceLROnPlateau(LRScheduler):
    """Multiply the learning rate by ``factor`` once the metric passed to ``step(metric)`` has
    not improved for ``patience`` epochs (an LRScheduler, as in PyTorch, though its constructor
    takes no initial step)."""

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1,
                 patience: int = 10, threshold: float = 1e-4, threshold_mode: str = "rel",
                 cooldown: int = 0, min_lr: float | list = 0.0, eps: float = 1e-8) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        n = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != n:
                raise ValueError(f"expected {n} min_lrs, got {len(min_lr)}")
            self.default_min_lr: float | None = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * n
        self.patience, self.cooldown, self.eps = patience, cooldown, eps
        self.last_epoch = 0
        self._last_lr = [g["lr"] for g in optimizer.param_groups]
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _init_is_better(self, mode: str, threshold: float, threshold_mode: str) -> None:
        if mode not in ("min", "max"):
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    @property
    def in_cooldown(self) -> bool:
        """Whether the cooldown after a reduction is still running."""
        return self.cooldown_counter > 0

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min":
            limit = best * (1.0 - self.threshold) if self.threshold_mode == "rel" else \
                best - self.threshold
            return a < limit
        limit = best * (self.threshold + 1.0) if self.threshold_mode == "rel" else \
            best + self.threshold
        return a > limit

    def step(self, metrics: Any, epoch: Any = None) -> None:  # type: ignore[override]
        """Record one epoch's metric and reduce the learning rate if it has plateaued."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warn(EPOCH_DEPRECATION_WARNING)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]

    def _reduce_lr(self) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):  # a param group was added since construction
            if self.default_min_lr is None:
                raise RuntimeError(
                    "The number of param groups in the `optimizer` "
                    f"({len(groups)}) differs from when `ReduceLROnPlateau` was initialized "
                    f"({len(self.min_lrs)}), usually due to a new param group being added to "
                    "the optimizer. Please modify the `min_lrs` field to match the length of "
                    "the `optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, min_lr in zip(groups, self.min_lrs):
            old = float(group["lr"])
            new = max(old * self.factor, min_lr)
            if old - new > self.eps:
                group["lr"] = new

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore what ``state_dict`` returned."""
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)


class ConstantLR(LRScheduler):
    """``base_lr * factor`` until ``total_iters``, then ``base_lr``."""

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1) -> None:
        if not 0 <= factor <= 1:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The current rate, scaled by ``factor`` at epoch 0 and back at ``total_iters``."""
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._current()]
        if self.last_epoch != self.total_iters:
            return self._current()
        return [lr / self.factor for lr in self._current()]

    def _closed_form_lr(self) -> list[float]:
        f = self.factor if self.last_epoch < self.total_iters else 1.0
        return [b * f for b in self.base_lrs]


class PolynomialLR(LRScheduler):
    """``base_lr * (1 - min(epoch, total_iters) / total_iters) ** power``."""

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0,
                 last_epoch: int = -1) -> None:
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The polynomial decay, one step on from the current rate."""
        e, n = self.last_epoch, self.total_iters
        if self._is_initial or e > n:
            return self._current()
        factor = ((1.0 - e / n) / (1.0 - (e - 1) / n)) ** self.power
        return [lr * factor for lr in self._current()]

    def _closed_form_lr(self) -> list[float]:
        t = min(self.last_epoch, self.total_iters)
        return [b * (1.0 - t / self.total_iters) ** self.power for b in self.base_lrs]


class MultiplicativeLR(_LambdaState, LRScheduler):
    """Each step multiplies the current rate by ``lr_lambda(epoch)``."""

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable | list,
                 last_epoch: int = -1) -> None:
        n = len(optimizer.param_groups)
        self.lr_lambdas = list(lr_lambda) if isinstance(lr_lambda, (list, tuple)) \
            else [lr_lambda] * n
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The current rates times the factors (unchanged at the first step)."""
        if not self._is_initial:
            return [g["lr"] * f(self.last_epoch) for g, f in
                    zip(self.optimizer.param_groups, self.lr_lambdas)]
        return [g["lr"] for g in self.optimizer.param_groups]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every ``T_0`` epochs, the period growing by ``T_mult``."""

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1,  # noqa: N803
                 eta_min: float = 0.0, last_epoch: int = -1) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        self.T_0, self.T_i, self.T_mult, self.eta_min = T_0, T_0, T_mult, eta_min
        self.T_cur: float = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The cosine schedule within the current period."""
        c = (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
        return [self.eta_min + (b - self.eta_min) * c for b in self.base_lrs]

    def step(self, epoch: Any = None) -> None:
        """Advance one epoch (fractions allowed when ``epoch`` is given)."""
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i, self.T_cur = self.T_0, epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            lrs = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, lrs):
            group["lr"] = lr
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]


class SequentialLR(LRScheduler):
    """Hand over from one scheduler to the next at the ``milestones`` (e.g. warm-up, then
    cosine); each scheduler restarts from its epoch 0 when its turn comes."""

    def __init__(self, optimizer: Optimizer, schedulers: list, milestones: list[int],
                 last_epoch: int = -1) -> None:
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(f"Sequential Schedulers expects number of schedulers provided to be "
                             f"one more than the number of milestone points, but got number of "
                             f"schedulers {len(schedulers)} and the number of milestones to be "
                             f"equal to {len(milestones)}")
        for index, s in enumerate(schedulers):
            if isinstance(s, ReduceLROnPlateau):
                raise ValueError(_no_plateau_message(type(self).__name__, index))
            if s.optimizer is not optimizer:
                raise ValueError("Sequential Schedulers expects all schedulers to belong to the "
                                 "same optimizer")
        self._schedulers, self._milestones = schedulers, milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:  # undo the steps the schedulers took when built
            group["lr"] = group["initial_lr"]
        for s in schedulers:
            _undo_initial_step(s)
        first = schedulers[bisect.bisect_right(milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def step(self) -> None:  # type: ignore[override]
        """Advance the active scheduler (restarting the next one at a milestone)."""
        self.last_epoch += 1
        index = bisect.bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler._update_lr(0)  # (a restart: no deprecation warning, as in PyTorch)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self) -> dict:
        """Its own state and each scheduler's."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore what ``state_dict`` returned."""
        saved = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        state_dict["_schedulers"] = saved
        for s, sd in zip(self._schedulers, saved):
            s.load_state_dict(sd)


def _undo_initial_step(scheduler: Any) -> None:
    """Take back the ``last_epoch`` advance of a scheduler's constructor (recursively through
    nested SequentialLR/ChainedScheduler), as SequentialLR does in PyTorch."""
    if hasattr(scheduler, "_schedulers"):
        for s in scheduler._schedulers:
            _undo_initial_step(s)
    elif hasattr(scheduler, "last_epoch"):
        scheduler.last_epoch -= 1


def _no_plateau_message(owner: str, index: int) -> str:
    return (f"{owner} does not support `ReduceLROnPlateau` scheduler as it requires additional "
            "kwargs to be specified when calling `step`, but got one at index "
            f"{index} in the given schedulers sequence.")


class CyclicLR(LRScheduler):
    """The rate cycles between ``base_lr`` and ``max_lr`` (triangular, triangular2 or
    exp_range), one step per batch; momentum cycles inversely when ``cycle_momentum``."""

    def __init__(self, optimizer: Optimizer, base_lr: float | list, max_lr: float | list,
                 step_size_up: int = 2000, step_size_down: int | None = None,
                 mode: str = "triangular", gamma: float = 1.0, scale_fn: Callable | None = None,
                 scale_mode: str = "cycle", cycle_momentum: bool = True,
                 base_momentum: float = 0.8, max_momentum: float = 0.9,
                 last_epoch: int = -1) -> None:
        n = len(optimizer.param_groups)
        base = list(base_lr) if isinstance(base_lr, (list, tuple)) else [base_lr] * n
        if last_epoch == -1:
            for lr, group in zip(base, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = list(max_lr) if isinstance(max_lr, (list, tuple)) else [max_lr] * n
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size, self.step_ratio = up + down, up / (up + down)
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom, self.scale_mode = scale_fn, scale_mode if scale_fn else \
            ("iterations" if mode == "exp_range" else "cycle")
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with "
                                 "`cycle_momentum` option enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            self.base_momentums = list(base_momentum) if isinstance(
                base_momentum, (list, tuple)) else [base_momentum] * n
            self.max_momentums = list(max_momentum) if isinstance(
                max_momentum, (list, tuple)) else [max_momentum] * n
            if last_epoch == -1:
                for hi, lo, group in zip(self.max_momentums, self.base_momentums,
                                         optimizer.param_groups):
                    self._set_momentum(group, hi)
                    group["max_momentum"], group["base_momentum"] = hi, lo
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base

    def _set_momentum(self, group: dict, value: float) -> None:
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    def state_dict(self) -> dict:
        """Everything but the optimizer; a custom ``scale_fn`` saved as PyTorch saves it (None
        for a function, its attributes for a callable object)."""
        state = super().state_dict()
        state["_scale_fn_custom"] = None if self._scale_fn_custom is None else \
            _functions_state([self._scale_fn_custom])[0]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore what ``state_dict`` returned (keeping this scheduler's ``scale_fn``)."""
        fn, custom = state_dict.pop("_scale_fn_custom"), self._scale_fn_custom
        super().load_state_dict(state_dict)
        state_dict["_scale_fn_custom"] = fn
        self._scale_fn_custom = custom
        if fn is not None and custom is not None:
            custom.__dict__.update(fn)

    def scale_fn(self, x: float) -> float:
        """The amplitude scale of cycle (or iteration) ``x``."""
        if self._scale_fn_custom is not None:
            return float(self._scale_fn_custom(x))
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1.0 / (2.0 ** (x - 1))
        return self.gamma ** x

    def get_lr(self) -> list[float]:
        """The rates at this iteration of the cycle (and the momenta, set on the groups)."""
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        scale = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        where = cycle if self.scale_mode == "cycle" else self.last_epoch
        base_lrs = getattr(self, "base_lrs", [g["lr"] for g in self.optimizer.param_groups])
        lrs = [b + (m - b) * scale * self.scale_fn(where)
               for b, m in zip(base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, lo, hi in zip(self.optimizer.param_groups, self.base_momentums,
                                     self.max_momentums):
                self._set_momentum(group, hi - (hi - lo) * scale * self.scale_fn(where))
        return lrs


class ChainedScheduler(LRScheduler):
    """Steps every scheduler in ``schedulers`` at once, so their factors compose (e.g. a
    constant warm-up factor times an exponential decay)."""

    def __init__(self, schedulers: Sequence[Any], optimizer: Optimizer | None = None) -> None:
        if len(schedulers) < 1:
            raise ValueError("ChainedScheduler expects at least one scheduler to be chained, "
                             "but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        for index, s in enumerate(schedulers):
            if isinstance(s, ReduceLROnPlateau):
                raise ValueError(_no_plateau_message(type(self).__name__, index))
            if s.optimizer is not optimizer:
                raise ValueError(f"ChainedScheduler expects all schedulers to belong to the same "
                                 f"optimizer, but got scheduler {type(s).__name__} at index "
                                 f"{index} with a different one")
        self._schedulers, self.optimizer = schedulers, optimizer
        self._last_lr = [group["lr"] for group in optimizer.param_groups]

    def step(self) -> None:  # type: ignore[override]
        """Step each scheduler in order."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def state_dict(self) -> dict:
        """Its own state and each scheduler's."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore what ``state_dict`` returned."""
        saved = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        state_dict["_schedulers"] = saved
        for s, sd in zip(self._schedulers, saved):
            s.load_state_dict(sd)
