"""PyTorch's ``torch.nn.utils.parametrizations``: ``weight_norm`` (``w = g v / ||v||``),
``spectral_norm`` (``w / sigma(w)`` with sigma from power iteration) and ``orthogonal`` (see
``_orthogonal``), as parametrizations registered with ``nn.utils.parametrize``."""

from __future__ import annotations

from typing import Any

from ... import functions as _fn
from ..._core.grad_mode import no_grad
from ...tensor import Tensor
from .. import functional as F  # noqa: N812 - PyTorch's conventional alias
from ..modules.conv import _ConvNd
from ..modules.module import Module
from . import parametrize
from ._orthogonal import MAPS, Orthogonal
from .spectral_norm import random_unit_vector, unit

__all__ = ["weight_norm", "spectral_norm", "orthogonal", "norm_except_dim"]


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Any:
    """The ``pow``-norm of ``v`` over every dim but ``dim`` (kept with size 1); the norm of the
    whole tensor (0-d) when ``dim`` is -1."""
    if dim == -1:
        return _fn.norm(v, pow)
    dim = dim % v.ndim
    others = tuple(d for d in range(v.ndim) if d != dim)
    return _fn.norm(v, pow, others, keepdim=True) if others else v.abs() if pow else v


def weight_norm_value(v: Tensor, g: Tensor, dim: int) -> Any:
    """``v * g / ||v||`` (PyTorch's ``_weight_norm``)."""
    return v * (g / norm_except_dim(v, 2, dim))


class _WeightNorm(Module):
    """``weight = original0 * original1 / ||original1||`` (g and v)."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        """The weight from its magnitude and direction."""
        return weight_norm_value(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        """(g, v) = (||weight||, weight)."""
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Reparametrize ``module.<name>`` by magnitude ``original0`` and direction
    ``original1``."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    """``weight / sigma``, sigma the largest singular value of the weight viewed as a matrix,
    estimated by power iteration on the buffers ``_u`` and ``_v`` (updated in training)."""

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps, self.n_power_iterations = eps, n_power_iterations
        if ndim > 1:
            mat = self._reshape_weight_to_matrix(weight)
            h, w = mat.shape
            u = random_unit_vector(h, weight._data.dtype, eps)
            v = random_unit_vector(w, weight._data.dtype, eps)
            self.register_buffer("_u", u)
            self.register_buffer("_v", v)
            self._power_method(mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.movedim(self.dim, 0)
        return weight.flatten(1)

    def _power_method(self, mat: Tensor, n: int) -> None:
        """``n`` power-iteration steps, in place on ``_u`` and ``_v`` (outside the graph)."""
        with no_grad():
            w = mat._data
            u, v = self._u._data, self._v._data
            for _ in range(n):
                u[...] = unit(w @ v, self.eps)
                v[...] = unit(w.T @ u, self.eps)
            self._u._version_counter[0] += 1
            self._v._version_counter[0] += 1

    def forward(self, weight: Tensor) -> Any:
        """The weight divided by its estimated spectral norm."""
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = (u * (mat @ v)).sum()
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        """Assigning a weight stores it as is (it is normalised when read)."""
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """Reparametrize ``module.<name>`` as itself divided by its spectral norm (dim 1 for
    transposed convolutions, else 0, is the output dimension)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, _ConvNd) and module.transposed else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Constrain ``module.<name>`` (a matrix or a batch of them) to be orthogonal; the map
    defaults to ``matrix_exp`` for square (or complex) matrices, else ``householder``."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. Got a tensor of "
                         f"{weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square or weight._data.dtype.kind == "c" else "householder"
    if orthogonal_map not in MAPS:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    orth = Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
