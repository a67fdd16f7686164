"""Old module paths that saved files still name, and the modules that hold their objects now.

A pickle names each class and function by its module path: a model saved whole with
``tl.save(model, path)`` (or pickled by a user) before the package was regrouped by concept says
``tinygrad_lite.nn.modules.activation_extra.Mish`` where the class now lives in
``tinygrad_lite.nn.modules.activation``. Unpickling imports that path. Rather than keep files under
the old names, an import hook answers each old path with the module that now holds every object
it used to define (the new module itself, not a copy), so those files load unchanged and
``import tinygrad_lite.<old path>`` keeps working. Nothing here is loaded until such a path is
imported, and new code should import the new paths.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from types import ModuleType

__all__ = ["MOVED", "install"]

# old dotted path -> the module that defines (or re-exports) every name a saved file can carry
# from it: layer and distribution classes, optimizers, the legacy tensor types, memory formats,
# and the functions a tensor pickles through
MOVED: dict[str, str] = {
    # the Tensor's surface (rebuild_tensor is what every pickled tensor names)
    "tinygrad_lite._tensor_api": "tinygrad_lite._tensor.pickling",
    "tinygrad_lite._tensor_storage": "tinygrad_lite._tensor.storage",
    "tinygrad_lite._tensor_dlpack": "tinygrad_lite._tensor.dlpack",
    "tinygrad_lite._format": "tinygrad_lite._tensor.format",
    "tinygrad_lite._legacy": "tinygrad_lite._tensor.legacy",
    "tinygrad_lite._torch_misc": "tinygrad_lite._layout",
    "tinygrad_lite._torch_aliases": "tinygrad_lite._nn_functional_forms",
    "tinygrad_lite._runtime": "tinygrad_lite._settings",
    "tinygrad_lite._special_extra": "tinygrad_lite.special",
    "tinygrad_lite._special_bessel": "tinygrad_lite.special._bessel_kernels",
    "tinygrad_lite._special_poly": "tinygrad_lite.special._polynomial_kernels",
    # layers: PyTorch's file names now
    "tinygrad_lite.nn.modules.activation_extra": "tinygrad_lite.nn.modules.activation",
    "tinygrad_lite.nn.modules.pooling_fractional": "tinygrad_lite.nn.modules.pooling",
    "tinygrad_lite.nn.modules.vision": "tinygrad_lite.nn.modules",
    "tinygrad_lite.nn.modules.legacy": "tinygrad_lite.nn.modules",
    "tinygrad_lite.nn._functional.activation_extra": "tinygrad_lite.nn.functional",
    "tinygrad_lite.nn._functional.loss_extra": "tinygrad_lite.nn.functional",
    "tinygrad_lite.nn._functional.loss_more": "tinygrad_lite.nn.functional",
    "tinygrad_lite.nn._functional.pooling_more": "tinygrad_lite.nn.functional",
    # one module per optimizer and per distribution
    "tinygrad_lite.optim.adaptive": "tinygrad_lite.optim",
    "tinygrad_lite.distributions.continuous": "tinygrad_lite.distributions",
    "tinygrad_lite.distributions.continuous_extra": "tinygrad_lite.distributions",
    "tinygrad_lite.distributions.continuous_more": "tinygrad_lite.distributions",
    "tinygrad_lite.distributions.discrete": "tinygrad_lite.distributions",
    "tinygrad_lite.distributions.discrete_more": "tinygrad_lite.distributions",
    "tinygrad_lite.distributions.relaxed": "tinygrad_lite.distributions",
    "tinygrad_lite.distributions.transformed": "tinygrad_lite.distributions",
    "tinygrad_lite.distributions.transformed_more": "tinygrad_lite.distributions",
    "tinygrad_lite.distributions.lowrank_mvn":
        "tinygrad_lite.distributions.lowrank_multivariate_normal",
    "tinygrad_lite.distributions.transform_base": "tinygrad_lite.distributions.transforms.base",
    "tinygrad_lite.distributions.transforms_extra": "tinygrad_lite.distributions.transforms",
    # the tl.* functions
    "tinygrad_lite.functions.api_options": "tinygrad_lite.functions.conventions",
    "tinygrad_lite.functions.indexing_more": "tinygrad_lite.functions",
    "tinygrad_lite.functions.inplace_extra": "tinygrad_lite.functions",
    "tinygrad_lite.functions.inplace_more": "tinygrad_lite.functions",
    "tinygrad_lite.functions.math_more": "tinygrad_lite.functions",
    "tinygrad_lite.functions.shape_extra": "tinygrad_lite.functions",
    "tinygrad_lite.functions.torch_only": "tinygrad_lite.functions",
    "tinygrad_lite.functions.linalg_lu": "tinygrad_lite.functions.linalg.lu",
    "tinygrad_lite.functions.linalg_lobpcg": "tinygrad_lite.functions.linalg.eigen",
    "tinygrad_lite.functions.lowrank": "tinygrad_lite.functions.linalg.lowrank",
    "tinygrad_lite.functions.linalg_more": "tinygrad_lite.functions.linalg",
    "tinygrad_lite.sparse.kernels": "tinygrad_lite.ops.sparse_mm",
}


class _MovedModuleLoader(importlib.abc.Loader):
    """Loads an old path as the module that replaced it."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:
        """The target module ran when it was imported; nothing is left to execute."""


class _MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Finds the old paths listed in ``MOVED`` (and nothing else)."""

    def find_spec(self, fullname: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        new = MOVED.get(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _MovedModuleLoader(new))


_FINDER = _MovedModuleFinder()


def install() -> None:
    """Answer the old paths from now on (idempotent)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.append(_FINDER)
