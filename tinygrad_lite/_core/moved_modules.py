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

# old dotted path -> the module that defines (or re-exports) every public name the old one had
MOVED: dict[str, str] = {}


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
