"""SparseAdam, as ``torch.optim.SparseAdam``: Adam whose moments and parameters are updated
only at the entries a sparse gradient holds.

It needs sparse gradients, as PyTorch's does, and raises PyTorch's RuntimeError for a dense
one. In tinygrad_lite, autograd always produces dense gradients (``nn.Embedding(sparse=True)``
included), so a sparse gradient is one a caller stores itself: a ``tl.sparse`` COO tensor in
the parameter's ``_grad``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from .._core.grad_mode import enable_grad, no_grad
from ..tensor import Tensor
from .optimizer import Optimizer, state_like

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """Lazy Adam for sparse gradients: at the gradient's (coalesced) entries only,
    ``m += (1 - b1)(g - m)``, ``v += (1 - b2)(g^2 - v)`` and
    ``p -= lr sqrt(1 - b2^t) / (1 - b1^t) m / (sqrt(v) + eps)``."""

    def __init__(self, params: Iterable[Any], lr: float | Tensor = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 maximize: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < float(lr):
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize})
        complex_params = [[i, j] for i, group in enumerate(self.param_groups)
                          for j, p in enumerate(group["params"]) if p._data.dtype.kind == "c"]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not "
                             "support complex parameters")

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a (sparse) gradient."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    grad = p._grad
                    if grad is None:
                        continue
                    if not getattr(grad, "is_sparse", False):
                        raise RuntimeError("SparseAdam does not support dense gradients, please "
                                           "consider Adam instead")
                    state = self.state[p]
                    if not state:
                        state["step"] = 0
                        state["exp_avg"] = state_like(p)
                        state["exp_avg_sq"] = state_like(p)
                    state["step"] += 1
                    self._sparse_update(p, grad, group, state)
        return loss

    def _sparse_update(self, p: Tensor, grad: Any, group: dict, state: dict) -> None:
        grad = grad.coalesce()
        index = tuple(np.asarray(grad._indices()._data))
        values = np.asarray(grad._values()._data, dtype=p._data.dtype)
        if values.size == 0:
            return
        if group["maximize"]:
            values = -values
        b1, b2 = group["betas"]
        exp_avg, exp_avg_sq = state["exp_avg"]._data, state["exp_avg_sq"]._data
        old_avg, old_sq = exp_avg[index], exp_avg_sq[index]
        avg_update = (values - old_avg) * (1 - b1)
        sq_update = (values * values - old_sq) * (1 - b2)
        exp_avg[index] = old_avg + avg_update
        exp_avg_sq[index] = old_sq + sq_update
        step = state["step"]
        step_size = float(group["lr"]) * math.sqrt(1 - b2 ** step) / (1 - b1 ** step)
        denom = np.sqrt(sq_update + old_sq) + group["eps"]
        p._data[index] += -step_size * ((avg_update + old_avg) / denom)
        p._version_counter[0] += 1
