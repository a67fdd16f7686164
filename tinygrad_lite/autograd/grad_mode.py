"""``torch.autograd.grad_mode``'s path: the grad-mode switches (they live in ``_core``)."""

from .._core.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled"]
