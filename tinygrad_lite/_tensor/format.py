"""``repr(tensor)`` in PyTorch's style: ``tensor([1.0000, 2.5000], grad_fn=<MulBackward0>)``.

The layout follows PyTorch's ``torch/_tensor_str.py`` rule for rule, so printed tensors read the
same as in PyTorch's tutorials:

* one formatter for the whole tensor (the summarised entries when summarising): floats in
  ``1.`` form when every nonzero finite entry is whole, in scientific form when they span a wide
  range (max/min > 1e3, max > 1e8 or min < 1e-4; ``sci_mode`` forces it), else with
  ``precision`` decimals; every entry right-aligned to the widest nonzero finite one (ints and
  bools: to the widest entry);
* a row holds ``(linewidth - indent) // (width + 2)`` entries (at least one), ``indent`` being
  the column after the row's opening bracket;
* more than ``threshold`` entries: each dimension keeps ``edgeitems`` entries at each end around
  a ``...`` entry;
* suffixes (``size=``, ``dtype=``, ``grad_fn=``) follow the data, each on a new line when it
  would pass ``linewidth``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._core.device import is_meta_array
from .._core.tensor_base import TensorBase
from ..dtypes import bool as bool_dtype
from ..dtypes import get_default_dtype, int64, is_float_dtype

__all__ = ["format_tensor", "set_printoptions"]

_PROFILES: dict[str, dict[str, Any]] = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": float("inf"), "edgeitems": 3, "linewidth": 80},
}
_OPTIONS: dict[str, Any] = {**_PROFILES["default"], "sci_mode": None}
_PACKAGE = __name__.split(".")[0]


def set_printoptions(precision: int | None = None, threshold: float | None = None,
                     edgeitems: int | None = None, linewidth: int | None = None,
                     profile: str | None = None, sci_mode: bool | None = None) -> None:
    """How tensors print, as ``torch.set_printoptions``: digits after the point, how many
    elements before summarising with ``...``, elements kept at each end, line width, a profile
    ("default", "short", "full"), and scientific notation forced on/off (None: automatic).
    An unknown profile name changes nothing, as in PyTorch."""
    if profile in _PROFILES:
        _OPTIONS.update(_PROFILES[profile])
    for key, value in (("precision", precision), ("threshold", threshold),
                       ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            _OPTIONS[key] = value
    _OPTIONS["sci_mode"] = sci_mode  # as PyTorch: not passing it means automatic again


# -- one formatter for all entries -------------------------------------------------------------

Formatter = tuple[Callable[[Any], str], int]  # (entry -> text, padded to width), width


def _float_formatter(values: np.ndarray) -> Formatter:
    """PyTorch's ``_Formatter`` for floats, chosen from the nonzero finite ``values`` only."""
    precision = _OPTIONS["precision"]
    flat = values.reshape(-1)
    chosen = np.unique(flat[np.isfinite(flat) & (flat != 0)])  # the text depends on the value
    int_mode, sci, width = True, False, 1
    if chosen.size:
        int_mode = bool(np.all(chosen == np.ceil(chosen)))
        magnitude = np.abs(chosen)
        low, high = float(magnitude.min()), float(magnitude.max())
        sci = _OPTIONS["sci_mode"]
        if sci is None:
            sci = high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4
        sample = chosen.tolist()
        if sci:
            width = max(len(f"{v:.{precision}e}") for v in sample)
        elif int_mode:
            width = max(len(f"{v:.0f}") + 1 for v in sample)  # the "." of "2."
        else:
            width = max(len(f"{v:.{precision}f}") for v in sample)

    def fmt(v: float) -> str:
        if sci:
            text = f"{v:.{precision}e}"
        elif int_mode:
            text = f"{v:.0f}" + ("." if math.isfinite(v) else "")
        else:
            text = f"{v:.{precision}f}"
        return text.rjust(width)

    return fmt, width


def _plain_formatter(values: np.ndarray) -> Formatter:
    """PyTorch's ``_Formatter`` for ints and bools: ``str`` of each, padded to the widest."""
    texts = np.unique(values.reshape(-1)).tolist()
    width = max([1, *(len(str(v)) for v in texts)])
    return (lambda v: str(v).rjust(width)), width


# -- the layout --------------------------------------------------------------------------------

def _summarised(data: np.ndarray) -> np.ndarray:
    """The entries a summarised print shows (PyTorch's ``get_summarized_data``)."""
    edge = _OPTIONS["edgeitems"]  # with none, no entry shows and the formatter does not matter
    keep = [np.r_[0:edge, n - edge:n] if n > 2 * edge else np.arange(n) for n in data.shape]
    return data[np.ix_(*keep)] if data.ndim else data


def _python(data: np.ndarray) -> Any:
    """The entries as Python numbers (floats through float64: exact, bfloat16 included)."""
    return (data.astype(np.float64) if is_float_dtype(data.dtype) else data).tolist()


def _vector(data: np.ndarray, indent: int, summarise: bool, fmt: Formatter) -> str:
    """One row: as many entries per line as fit in ``linewidth`` after ``indent``."""
    text, width = fmt
    edge, n = _OPTIONS["edgeitems"], data.shape[0]
    per_line = max(1, int((_OPTIONS["linewidth"] - indent) // (width + 2)))
    if summarise and not edge:
        entries = ["..."]
    elif summarise and n > 2 * edge:
        entries = ([text(v) for v in _python(data[:edge])] + [" ..."]
                   + [text(v) for v in _python(data[n - edge:])])
    else:
        entries = [text(v) for v in _python(data)]
    lines = [", ".join(entries[i:i + per_line]) for i in range(0, len(entries), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _block(data: np.ndarray, indent: int, summarise: bool, fmt: Formatter) -> str:
    """The text of ``data`` whose opening bracket is at column ``indent``."""
    if data.ndim == 0:
        return fmt[0](_python(data))
    if data.ndim == 1:
        return _vector(data, indent, summarise, fmt)
    edge, n = _OPTIONS["edgeitems"], data.shape[0]
    if summarise and n > 2 * edge:
        rows = ([_block(data[i], indent + 1, summarise, fmt) for i in range(edge)] + ["..."]
                + [_block(data[i], indent + 1, summarise, fmt) for i in range(n - edge, n)])
    else:
        rows = [_block(row, indent + 1, summarise, fmt) for row in data]
    # blank lines between the blocks of higher dimensions, as PyTorch (and NumPy)
    return "[" + ("," + "\n" * (data.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _body(data: np.ndarray, indent: int) -> str:
    """The data part of the repr of a nonempty array."""
    summarise = data.size > _OPTIONS["threshold"]
    shown = _summarised(data) if summarise else data
    fmt = (_float_formatter(shown.astype(np.float64)) if is_float_dtype(data.dtype)
           else _plain_formatter(shown))
    return _block(data, indent, summarise, fmt)


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """``text`` with ``, suffix`` for each suffix (on a new line past ``linewidth``) and ``)``."""
    line = len(text) - text.rfind("\n") + 1  # PyTorch's count: one more than the line's length
    for suffix in suffixes:
        # measured as PyTorch's text ("torch.float64"), so that lines break where PyTorch's do
        size = len(suffix.replace("tinygrad_lite.", "torch."))
        if line + size + 2 > _OPTIONS["linewidth"]:
            text += ",\n" + " " * indent + suffix
            line = indent + size
        else:
            text += ", " + suffix
            line += size + 2
    return text + ")"


def _grad_suffix(t: TensorBase) -> list[str]:
    """``grad_fn=<...>`` for a computed tensor, ``requires_grad=True`` for a leaf that needs one."""
    if t.grad_fn is not None:
        return [f"grad_fn=<{t.grad_fn.name()}>"]
    return ["requires_grad=True"] if t._requires_grad else []


def format_tensor(t: TensorBase) -> str:
    """The repr of ``t``: data, then size and dtype where PyTorch shows them, then grad."""
    data = t._data
    # PyTorch names a subclass of its own (not Parameter or Buffer) in place of "tensor"
    own = type(t).__module__.split(".")[0] == _PACKAGE
    prefix = "tensor(" if own else f"{type(t).__name__}("
    dtype, suffixes = t.dtype, []
    if is_meta_array(data):  # no values to show
        body = "..."
        suffixes += ["device='meta'", f"size={tuple(data.shape)}"]
        if dtype != get_default_dtype():
            suffixes.append(f"dtype={dtype!r}")
    elif data.size == 0:
        body = "[]"
        if data.ndim != 1:
            suffixes.append(f"size={tuple(data.shape)}")
        if dtype != get_default_dtype():  # no entries to tell the dtype by
            suffixes.append(f"dtype={dtype!r}")
    else:
        if not _OPTIONS["edgeitems"]:
            suffixes.append(f"size={tuple(data.shape)}")
        if dtype not in (get_default_dtype(), int64, bool_dtype):
            suffixes.append(f"dtype={dtype!r}")
        body = _body(data, len(prefix))
    text = _add_suffixes(prefix + body, suffixes + _grad_suffix(t), len(prefix))
    if not own and any(c.__name__ == "Parameter" and c.__module__ == f"{_PACKAGE}.nn.parameter"
                       for c in type(t).__mro__):
        text = f"Parameter({text})"  # a subclass of Parameter says so around its own name
    return text

