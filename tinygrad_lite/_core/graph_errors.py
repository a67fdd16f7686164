"""The errors a node raises when a saved value is gone (a second backward through a freed
graph) or was changed in place since it was saved: PyTorch's text first, word for word (what
programs and tests match on), then which node it was and where it was created."""

from __future__ import annotations

import re
from typing import Any

from .tensor_base import wrap

__all__ = ["released_error", "modified_error"]

_RELEASED = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward."
)
# the version-counter error names the op that made a tensor without the suffix: "Mul", "MyExp"
_BACKWARD_SUFFIX = re.compile(r"Backward\d*$")


def released_error(node: Any) -> RuntimeError:
    """A second backward through ``node`` after its saved values were freed."""
    return RuntimeError(
        f"{_RELEASED}\n{node.name()}: trying to backward through the graph a second time; pass "
        f"retain_graph=True to the first backward through it.{node._where()}")


def modified_error(node: Any, data: Any, source: Any, saved: int, now: int,
                   detail: str) -> RuntimeError:
    """A value ``node`` saved (the array ``data``, made by ``source``, a (node, output index)
    pair, or None for a leaf) was at version ``saved`` and is at ``now``; ``detail`` says which
    of the node's saved values it is."""
    which = "" if source is None else \
        f", which is output {source[1]} of {_BACKWARD_SUFFIX.sub('', source[0].name())},"
    hint = ("enable anomaly detection to find the operation that failed to compute its "
            "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
            if node._creation_trace is None else
            "the backtrace further above shows the operation that failed to compute its "
            "gradient. The variable in question was changed in there or anywhere later. "
            "Good luck!")
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{wrap(data).type()} [{', '.join(map(str, data.shape))}]]{which} is at "
        f"version {now}; expected version {saved} instead. Hint: {hint}\n{node.name()}: "
        f"{detail} was modified by an in-place operation: it was at version {saved} when saved "
        f"and is now at version {now}.{node._where()}")
