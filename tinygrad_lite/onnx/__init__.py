"""``tl.onnx``: the names of ``torch.onnx`` that programs import. tinygrad_lite does not write
ONNX graphs: ``export`` raises ``OnnxExporterError`` saying so (and what to do instead), so a
program that imports ``torch.onnx`` and exports only on request runs unchanged."""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Iterator
from typing import Any

__all__ = ["export", "is_in_onnx_export", "OnnxExporterError", "TrainingMode",
           "select_model_mode_for_export"]


class OnnxExporterError(RuntimeError):
    """An ONNX export failed (here: always, there is no exporter)."""


class TrainingMode(enum.IntEnum):
    """The mode a model is exported in."""

    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


def export(model: Any, args: Any = (), f: Any = None, **kwargs: Any) -> None:
    """Not available: tinygrad_lite has no ONNX exporter. Raises ``OnnxExporterError``."""
    raise OnnxExporterError(
        f"torch.onnx.export: tinygrad_lite does not export ONNX graphs (model "
        f"{type(model).__name__}). Save the weights with tl.save(model.state_dict(), path) "
        "(safetensors), load them into the same model in PyTorch, and export from there.")


def is_in_onnx_export() -> bool:
    """False: no ONNX export ever runs."""
    return False


@contextlib.contextmanager
def select_model_mode_for_export(model: Any, mode: TrainingMode) -> Iterator[None]:
    """Put ``model`` in training or eval mode for the block, as an export would, and back."""
    if not isinstance(mode, TrainingMode):
        raise TypeError(f"select_model_mode_for_export: 'mode' should be a TrainingMode, got "
                        f"{type(mode).__name__}")
    was_training = model.training
    if mode is not TrainingMode.PRESERVE:
        model.train(mode is TrainingMode.TRAINING)
    try:
        yield
    finally:
        model.train(was_training)
