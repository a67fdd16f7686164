"""L-BFGS (``torch.optim.LBFGS``): quasi-Newton steps from the last ``history_size`` curvature
pairs, several iterations per ``step(closure)``; the closure re-evaluates the loss and its
gradients. The iteration, its stopping tests and the first step length follow PyTorch's."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from .._core.grad_mode import enable_grad, no_grad
from ..tensor import Tensor
from ._line_search import strong_wolfe
from ._update_inputs import check_lr
from .optimizer import Optimizer

__all__ = ["LBFGS"]


class LBFGS(Optimizer):
    """L-BFGS over all parameters as one vector (a single parameter group)."""

    def __init__(self, params: Iterable[Any], lr: float = 1, max_iter: int = 20,
                 max_eval: int | None = None, tolerance_grad: float = 1e-7,
                 tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        check_lr(lr)
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

    def _directional_evaluate(self, closure: Callable[[], Any], x: list[np.ndarray], t: float,
                              *, d: np.ndarray) -> tuple[float, np.ndarray]:
        """Loss and flat gradient at ``x + t * d``; the parameters are put back to ``x``."""
        self._add(t, d)
        with enable_grad():
            loss = float(closure())
        grad = self._flat_grad()
        for p, saved in zip(self._params, x):
            np.copyto(p._data, saved)
            p._version_counter[0] += 1
        return loss, grad

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Run up to ``max_iter`` iterations; returns the loss the closure gave first."""
        if closure is None:
            raise RuntimeError("LBFGS requires a closure that re-evaluates the model and "
                               "returns the loss")
        group = self.param_groups[0]
        # (a Tensor lr is read as a Python float, as PyTorch's LBFGS reads it)
        lr, max_iter, max_eval = float(group["lr"]), group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        history, line_search = group["history_size"], group["line_search_fn"]
        if line_search not in (None, "strong_wolfe"):
            raise RuntimeError("only 'strong_wolfe' is supported")
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
        # the state holds Tensors (as PyTorch's does); the iteration works on their arrays
        d, prev_grad = _array(state.get("d")), _array(state.get("prev_flat_grad"))
        t = _number(state.get("t"))
        old_dirs = [_array(v) for v in state.get("old_dirs", [])]
        old_steps = [_array(v) for v in state.get("old_stps", [])]
        ro = [_number(v) for v in state.get("ro", [])]
        h_diag, prev_loss = _number(state.get("H_diag", 1.0)), _number(state.get("prev_loss"))
        n_iter = 0
        with no_grad():
            while n_iter < max_iter:
                n_iter += 1
                state["n_iter"] += 1
                if state["n_iter"] == 1:
                    d, old_dirs, old_steps, ro, h_diag = -grad, [], [], [], 1.0
                else:
                    d, h_diag = _direction(grad, grad - prev_grad, d * t, old_dirs, old_steps,
                                           ro, h_diag, history)
                prev_grad, prev_loss = grad.copy(), loss
                t = min(1.0, 1.0 / np.abs(grad).sum()) * lr if state["n_iter"] == 1 else lr
                gtd = float(grad @ d)
                if gtd > -tol_change:
                    break
                ls_evals = 0
                if line_search is not None:
                    x = [p._data.copy() for p in self._params]
                    loss, grad, t, ls_evals = strong_wolfe(
                        functools.partial(self._directional_evaluate, closure, x, d=d),
                        t, d, loss, grad, gtd, max_ls=max_eval - evals)
                    self._add(t, d)
                elif n_iter != max_iter:
                    self._add(t, d)
                    # the last iteration's point is not evaluated (as in PyTorch)
                    with enable_grad():
                        loss = float(closure())
                    grad = self._flat_grad()
                    ls_evals = 1
                else:
                    self._add(t, d)
                evals += ls_evals
                state["func_evals"] += ls_evals
                if n_iter == max_iter or evals >= max_eval:
                    break
                if np.abs(grad).max() <= tol_grad:
                    break
                if np.abs(d * t).max() <= tol_change or abs(loss - prev_loss) < tol_change:
                    break
        state.update(d=_tensor(d), t=t, old_dirs=[_tensor(v) for v in old_dirs],
                     old_stps=[_tensor(v) for v in old_steps], ro=[_tensor(v) for v in ro],
                     H_diag=_tensor(h_diag), prev_flat_grad=_tensor(prev_grad),
                     prev_loss=prev_loss)
        return orig_loss


def _direction(grad: np.ndarray, y: np.ndarray, s: np.ndarray, old_dirs: list, old_steps: list,
               ro: list, h_diag: float, history: int) -> tuple[np.ndarray, float]:
    """Record the newest curvature pair ``(y, s)`` (if its curvature is positive, rescaling the
    initial inverse Hessian ``h_diag``) and return the two-loop recursion's direction
    ``-H grad`` with ``h_diag``."""
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
        q -= alphas[i] * old_dirs[i]
    r = q * h_diag
    for i in range(len(old_dirs)):
        beta = float(old_dirs[i] @ r) * ro[i]
        r += (alphas[i] - beta) * old_steps[i]
    return r, h_diag


def _array(value: Any) -> Any:
    """A state entry's array (Tensors, as loaded from a state dict, or arrays); None stays."""
    if value is None:
        return None
    return np.asarray(value._data if isinstance(value, Tensor) else value, dtype=np.float64)


def _number(value: Any) -> Any:
    """A state entry's Python float (0-d Tensors or numbers); None stays."""
    if value is None:
        return None
    return float(value._data if isinstance(value, Tensor) else value)


def _tensor(value: Any) -> Any:
    """A state entry as a Tensor, as PyTorch keeps it; None stays."""
    return None if value is None else Tensor._wrap(np.asarray(value, dtype=np.float64))
