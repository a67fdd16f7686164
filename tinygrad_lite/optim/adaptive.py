"""More of ``torch.optim``'s first-order optimizers: Adamax, NAdam, RAdam, Adadelta, Rprop and
ASGD, each following PyTorch's update rule (its single-tensor implementation) on the
parameter's array in place; the state holds Tensors as in the other optimizers (the 0-d ones,
``step``, ``mu_product``, ``eta``, ``mu``, in PyTorch's float32 scalar dtype)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, bump_step, scalar_dtype, state_like, state_scalar

__all__ = ["Adamax", "NAdam", "RAdam", "Adadelta", "Rprop", "ASGD"]


def _check(lr: float, eps: float = 0.0, weight_decay: float = 0) -> None:
    if lr < 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps < 0.0:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if weight_decay < 0.0:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _signed(grad: np.ndarray, group: dict) -> np.ndarray:
    """The gradient to descend along (negated with ``maximize``), as a fresh array."""
    return -grad if group.get("maximize") else grad.copy()


class Adamax(Optimizer):
    """Adam with the infinity norm: ``u = max(b2 u, |g| + eps)``, ``p -= lr / (1 - b1^t) m / u``."""

    def __init__(self, params: Iterable[Any], lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach: Any = None, *, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check(lr, eps, weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, maximize=maximize))

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        g = _signed(grad, group)
        (b1, b2), eps, wd, lr = group["betas"], group["eps"], group["weight_decay"], group["lr"]
        if not state:
            state.update(step=state_scalar(0.0), exp_avg=state_like(p), exp_inf=state_like(p))
        step = bump_step(state)
        if wd:
            g += wd * p._data
        m, u = state["exp_avg"]._data, state["exp_inf"]._data
        m += (1 - b1) * (g - m)
        np.maximum(u * b2, np.abs(g) + eps, out=u)
        p._data -= (lr / (1 - b1 ** step)) * m / u


class NAdam(Optimizer):
    """Adam with Nesterov momentum and the momentum schedule ``mu_t = b1 (1 - 0.5 *
    0.96^(t momentum_decay))``; ``decoupled_weight_decay`` makes it NAdamW."""

    def __init__(self, params: Iterable[Any], lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: Any = None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        _check(lr, eps, weight_decay)
        if momentum_decay < 0:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, momentum_decay=momentum_decay,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize))

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        g = _signed(grad, group)
        (b1, b2), eps, wd, lr = group["betas"], group["eps"], group["weight_decay"], group["lr"]
        if not state:
            state.update(step=state_scalar(0.0), mu_product=state_scalar(1.0),
                         exp_avg=state_like(p), exp_avg_sq=state_like(p))
        t = bump_step(state)
        if wd:
            if group["decoupled_weight_decay"]:
                p._data *= 1 - lr * wd
            else:
                g += wd * p._data
        decay = group["momentum_decay"]
        mu = b1 * (1.0 - 0.5 * 0.96 ** (t * decay))
        mu_next = b1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * decay))
        # the running product is kept in the scalar dtype (float32), rounding as PyTorch's does
        # (a float32 product of float32 values is exact in float64, so rounding it on the store
        # gives the float32 multiplication's result, without a ufunc call)
        product = state["mu_product"]._data
        product[()] = product.item() * float(product.dtype.type(mu))
        mu_product = product.item()
        m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
        m += (1 - b1) * (g - m)
        v *= b2
        v += (1 - b2) * g * g
        denom = np.sqrt(v / (1 - b2 ** t)) + eps
        p._data -= (lr * (1 - mu) / (1 - mu_product)) * g / denom
        p._data -= (lr * mu_next / (1 - mu_product * mu_next)) * m / denom


class RAdam(Optimizer):
    """Adam with the variance of the adaptive learning rate rectified: plain momentum SGD
    while the variance estimate is unreliable (rho_t <= 5)."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: Any = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        _check(lr, eps, weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize))

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        g = _signed(grad, group)
        (b1, b2), eps, wd, lr = group["betas"], group["eps"], group["weight_decay"], group["lr"]
        if not state:
            state.update(step=state_scalar(0.0), exp_avg=state_like(p), exp_avg_sq=state_like(p))
        t = bump_step(state)
        if wd:
            if group["decoupled_weight_decay"]:
                p._data *= 1 - lr * wd
            else:
                g += wd * p._data
        m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
        m += (1 - b1) * (g - m)
        v *= b2
        v += (1 - b2) * g * g
        bc1, bc2 = 1 - b1 ** t, 1 - b2 ** t
        corrected = m / bc1
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * t * b2 ** t / bc2
        if rho_t > 5.0:
            rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                             / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            adaptive = math.sqrt(bc2) / (np.sqrt(v) + eps)
            p._data -= lr * corrected * rect * adaptive
        else:
            p._data -= lr * corrected


class Adadelta(Optimizer):
    """``delta = sqrt(acc_delta + eps) / sqrt(square_avg + eps) * g``, ``p -= lr * delta``."""

    def __init__(self, params: Iterable[Any], lr: float = 1.0, rho: float = 0.9,
                 eps: float = 1e-6, weight_decay: float = 0, foreach: Any = None, *,
                 capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check(lr, eps, weight_decay)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize))

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        g = _signed(grad, group)
        rho, eps, wd, lr = group["rho"], group["eps"], group["weight_decay"], group["lr"]
        if not state:
            state.update(step=state_scalar(0.0), square_avg=state_like(p),
                         acc_delta=state_like(p))
        bump_step(state, traceable=True)  # (the count itself is not used here)
        if wd:
            g += wd * p._data
        sq, acc = state["square_avg"]._data, state["acc_delta"]._data
        sq *= rho
        sq += (1 - rho) * g * g
        delta = np.sqrt(acc + eps) / np.sqrt(sq + eps) * g
        acc *= rho
        acc += (1 - rho) * delta * delta
        p._data -= lr * delta


class Rprop(Optimizer):
    """Resilient backpropagation: a step size per element, grown by ``etas[1]`` while the
    gradient keeps its sign and shrunk by ``etas[0]`` when it flips; only the sign is used."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-2,
                 etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: Any = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, dict(lr=lr, etas=tuple(etas), step_sizes=tuple(step_sizes),
                                      maximize=maximize))

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        g = _signed(grad, group)
        (eta_minus, eta_plus), (step_min, step_max) = group["etas"], group["step_sizes"]
        if not state:
            state.update(step=state_scalar(0.0), prev=state_like(p),
                         step_size=state_like(p, group["lr"]))
        bump_step(state, traceable=True)  # (the count itself is not used here)
        prev = state["prev"]._data
        sign = np.sign(g * prev)
        factor = np.where(sign > 0, eta_plus, np.where(sign < 0, eta_minus, 1.0))
        step_size = state["step_size"]._data
        np.clip(step_size * factor, step_min, step_max, out=step_size)
        g = np.where(sign < 0, 0.0, g).astype(p._data.dtype)
        p._data -= np.sign(g) * step_size
        np.copyto(prev, g)


class ASGD(Optimizer):
    """Averaged SGD: SGD with a decaying step ``eta`` whose average over the iterates
    (``state["ax"]``) is kept, starting at step ``t0``."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lambd: float = 1e-4,
                 alpha: float = 0.75, t0: float = 1e6, weight_decay: float = 0,
                 foreach: Any = None, maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        _check(lr, 0.0, weight_decay)
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0,
                                      weight_decay=weight_decay, maximize=maximize))

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        g = _signed(grad, group)
        if not state:
            state.update(step=state_scalar(0.0), eta=state_scalar(group["lr"]),
                         mu=state_scalar(1.0), ax=state_like(p))
        step = bump_step(state)
        if group["weight_decay"]:
            g += group["weight_decay"] * p._data
        eta, mu, ax = state["eta"]._data, state["mu"]._data, state["ax"]._data
        p._data *= 1 - group["lambd"] * eta.item()
        p._data -= eta.item() * g
        if mu.item() != 1:
            ax += (p._data - ax) * mu.item()
        else:
            np.copyto(ax, p._data)
        # rounded to the scalar dtype (PyTorch makes them with as_tensor) whatever the dtype of
        # the Tensors they are written into (a loaded state dict's may be the parameter's)
        rounding = scalar_dtype()
        eta[...] = rounding(group["lr"] / (1 + group["lambd"] * group["lr"] * step)
                            ** group["alpha"])
        mu[...] = rounding(1 / max(1, step - group["t0"]))
