"""L-BFGS (``torch.optim.LBFGS``): quasi-Newton steps from the last ``history_size`` curvature
pairs, several iterations per ``step(closure)``; the closure re-evaluates the loss and its
gradients. The iteration, its stopping tests and the first step length follow PyTorch's."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from .._core.grad_mode import enable_grad, no_grad
from .optimizer import Optimizer

__all__ = ["LBFGS"]


class LBFGS(Optimizer):
    """L-BFGS over all parameters as one vector (a single parameter group)."""

    def __init__(self, params: Iterable[Any], lr: float = 1, max_iter: int = 20,
                 max_eval: int | None = None, tolerance_grad: float = 1e-7,
                 tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if line_search_fn is not None:
            raise NotImplementedError(
                f"LBFGS: line_search_fn={line_search_fn!r} is not implemented yet; use "
                "line_search_fn=None (fixed step length lr)")
        max_eval = max_iter * 5 // 4 if max_eval is None else max_eval
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                                      tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change,
                                      history_size=history_size, line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self) -> np.ndarray:
        return np.concatenate([np.zeros(p._data.size) if p._grad is None
                               else p._grad._data.reshape(-1).astype(np.float64)
                               for p in self._params])

    def _add(self, step: float, direction: np.ndarray) -> None:
        offset = 0
        for p in self._params:
            n = p._data.size
            p._data += (step * direction[offset:offset + n]).reshape(p._data.shape).astype(
                p._data.dtype)
            p._version_counter[0] += 1
            offset += n

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Run up to ``max_iter`` iterations; returns the loss the closure gave first."""
        if closure is None:
            raise RuntimeError("LBFGS requires a closure that re-evaluates the model and "
                               "returns the loss")
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        history = group["history_size"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        evals = 1
        state["func_evals"] += 1
        grad = self._flat_grad()
        if np.abs(grad).max() <= tol_grad:
            return orig_loss
        d, t = state.get("d"), state.get("t")
        old_dirs, old_steps, ro = state.get("old_dirs", []), state.get("old_stps", []), \
            state.get("ro", [])
        h_diag = state.get("H_diag", 1.0)
        prev_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
        n_iter = 0
        with no_grad():
            while n_iter < max_iter:
                n_iter += 1
                state["n_iter"] += 1
                if state["n_iter"] == 1:
                    d, old_dirs, old_steps, ro, h_diag = -grad, [], [], [], 1.0
                else:
                    y = grad - prev_grad
                    s = d * t
                    ys = float(y @ s)
                    if ys > 1e-10:
                        if len(old_dirs) == history:
                            old_dirs.pop(0)
                            old_steps.pop(0)
                            ro.pop(0)
                        old_dirs.append(y)
                        old_steps.append(s)
                        ro.append(1.0 / ys)
                        h_diag = ys / float(y @ y)
                    alphas = [0.0] * len(old_dirs)
                    q = -grad
                    for i in range(len(old_dirs) - 1, -1, -1):
                        alphas[i] = float(old_steps[i] @ q) * ro[i]
                        q = q - alphas[i] * old_dirs[i]
                    d = r = q * h_diag
                    for i in range(len(old_dirs)):
                        beta = float(old_dirs[i] @ r) * ro[i]
                        r = r + (alphas[i] - beta) * old_steps[i]
                    d = r
                prev_grad, prev_loss = grad.copy(), loss
                t = min(1.0, 1.0 / np.abs(grad).sum()) * lr if state["n_iter"] == 1 else lr
                if float(grad @ d) > -tol_change:
                    break
                self._add(t, d)
                ls_evals = 0
                if n_iter != max_iter:
                    with enable_grad():
                        loss = float(closure())
                    grad = self._flat_grad()
                    ls_evals = 1
                evals += ls_evals
                state["func_evals"] += ls_evals
                if n_iter == max_iter or evals >= max_eval:
                    break
                if np.abs(grad).max() <= tol_grad:
                    break
                if np.abs(d * t).max() <= tol_change or abs(loss - prev_loss) < tol_change:
                    break
        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_steps, ro=ro, H_diag=h_diag,
                     prev_flat_grad=prev_grad, prev_loss=prev_loss)
        return orig_loss
