"""``tl._logging`` (PyTorch's ``torch._logging``): turn on what ``tl.compile`` reports, e.g.
``tl._logging.set_logs(recompiles=True, graph_breaks=True)``; see ``compiler/logs.py``."""

from .compiler.logs import ARTIFACTS, set_logs

__all__ = ["set_logs", "ARTIFACTS"]
