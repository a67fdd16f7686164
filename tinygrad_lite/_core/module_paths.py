"""PyTorch's module paths for objects this package keeps elsewhere.

PyTorch keeps one distribution (or optimizer, or layer family) per module, and programs import
from those paths: ``from torch.distributions.normal import Normal``, ``from torch.optim.adamw
import AdamW``. Here several share a module. ``expose`` makes each of PyTorch's paths an
importable module holding the same objects (registered in ``sys.modules``, so ``import`` and
``from ... import`` both find it), without a file per path.
"""

from __future__ import annotations

import sys
import types
from typing import Any

__all__ = ["expose"]


def expose(package: Any, paths: dict[str, tuple[str, ...]]) -> None:
    """For each ``name: symbols`` of ``paths``, make ``package.name`` a module holding
    ``package``'s objects ``symbols``."""
    for name, symbols in paths.items():
        full = f"{package.__name__}.{name}"
        module = types.ModuleType(full, f"PyTorch's ``{full.split('.', 1)[-1]}`` path: "
                                        f"{', '.join(symbols)}.")
        for symbol in symbols:
            setattr(module, symbol, getattr(package, symbol))
        module.__all__ = list(symbols)  # type: ignore[attr-defined]
        sys.modules[full] = module
        setattr(package, name, module)
