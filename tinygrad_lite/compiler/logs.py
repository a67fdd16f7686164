"""What ``tl.compile`` reports while it works, PyTorch's ``torch._logging`` artifacts.

``set_logs(recompiles=True, graph_breaks=True)`` (or the ``TORCH_LOGS`` environment variable
PyTorch documents, ``TORCH_LOGS="recompiles,graph_breaks"``) turns reports on; each goes to the
``tinygrad_lite.compile`` logger (stderr unless the program configures logging itself):
- ``recompiles``: why a compiled function traces again (which guard failed);
- ``graph_breaks``: why a call runs eagerly (the graph break and its line);
- ``guards``: the guard of each new specialisation, readable;
- ``graph_code`` / ``graph``: the IR table of each compiled call;
- ``output_code``: the generated replay source;
- ``fusion``: the loop kernels a compiled call fused (which ops each runs), that its replays
  run the NumPy ops while the kernels compile, and when they switch over;
- ``kernel_code``: each loop kernel's generated numba source.
``dynamo`` (PyTorch's switch for its whole tracer) turns all of them on.
"""

from __future__ import annotations

import logging
import os
from typing import Any

__all__ = ["ARTIFACTS", "set_logs", "enabled", "report"]

ARTIFACTS = ("recompiles", "graph_breaks", "guards", "graph_code", "graph", "output_code",
             "fusion", "kernel_code")
_ALL_SWITCHES = ("dynamo", "all")  # PyTorch's names that cover every artifact above
_on: set[str] = set()
logger = logging.getLogger("tinygrad_lite.compile")


def set_logs(**switches: Any) -> None:
    """Turn the compiler's reports on or off, all at once as PyTorch's ``set_logs`` does (an
    artifact not named is off). Artifacts: ``recompiles``, ``graph_breaks``, ``guards``,
    ``graph_code``, ``graph``, ``output_code``; ``dynamo`` or ``all`` (a bool or a logging
    level) turns every one on. PyTorch's other switches (``inductor``, ``aot``, ...) are
    accepted and have nothing to report here."""
    chosen = {name for name, value in switches.items() if name in ARTIFACTS and value}
    if any(switches.get(name) for name in _ALL_SWITCHES):  # (True, or a logging level)
        chosen = set(ARTIFACTS)
    _on.clear()
    _on.update(chosen)
    if _on and not logger.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler()  # (stderr, as PyTorch's logs)
        logger.addHandler(handler)
        logger.propagate = False
    logger.setLevel(logging.INFO if _on else logging.WARNING)


def enabled(artifact: str) -> bool:
    """Whether reports of ``artifact`` are on."""
    return artifact in _on


def report(artifact: str, text: str) -> None:
    """Log ``text`` as ``artifact`` when that report is on."""
    if artifact in _on:
        logger.info("[%s] %s", artifact, text)


def _from_environment(spec: str) -> dict[str, bool]:
    """``TORCH_LOGS="recompiles,+dynamo,-inductor"`` as ``set_logs`` switches (names this
    compiler has nothing for are ignored)."""
    switches = {}
    for item in spec.replace(" ", "").split(","):
        name = item.lstrip("+-")
        if name in ARTIFACTS or name in _ALL_SWITCHES:
            switches[name] = not item.startswith("-")
    return switches


if os.environ.get("TORCH_LOGS"):
    set_logs(**_from_environment(os.environ["TORCH_LOGS"]))
