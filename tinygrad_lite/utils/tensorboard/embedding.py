"""``SummaryWriter.add_embedding``: the projector plugin's files, laid out as PyTorch's writer
lays them out: ``<log_dir>/<step:05d>/<tag>/`` holds tensors.tsv (one row per point),
metadata.tsv (labels, a header row first for several columns) and sprite.png (the label images
tiled into a square); ``<log_dir>/projector_config.pbtxt`` lists every embedding written so far.
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from ..._core.warnings import warn
from .summaries import _grid, _numpy, _png

__all__ = ["write_embedding"]


def _encode(tag: str) -> str:
    """The tag as one path component: '%', '/' and '\\' percent-encoded."""
    return tag.replace("%", "%25").replace("/", "%2f").replace("\\", "%5c")


def _metadata_tsv(metadata: Any, header: Any) -> str:
    if not header:
        lines = [str(label) for label in metadata]
    else:
        if len(header) != len(metadata[0]):
            raise AssertionError("len of header must be equal to the number of columns in "
                                 "metadata")
        lines = ["\t".join(str(e) for e in row) for row in [header, *metadata]]
    return "\n".join(lines) + "\n"


def _sprite(images: np.ndarray) -> bytes:
    """(N, C, H, W) images (C 1 or 3, values in [0, 1]) tiled ceil(sqrt(N)) a row into a
    square RGB PNG."""
    grid = _grid(images, math.ceil(images.shape[0] ** 0.5)).transpose(1, 2, 0)
    side = max(grid.shape[:2])  # PyTorch's square is as wide as the grid
    square = np.zeros((side, side, 3))
    square[:grid.shape[0], :grid.shape[1]] = grid
    return _png(np.uint8((square * 255).clip(0, 255)))


def write_embedding(log_dir: str, config: Any, mat: Any, metadata: Any, label_img: Any,
                    global_step: int | None, tag: str, metadata_header: Any) -> str:
    """Write one embedding's files and add it to ``config`` (a ProjectorConfig); returns the
    config's text for projector_config.pbtxt."""
    from tensorboard.plugins.projector.projector_config_pb2 import EmbeddingInfo

    matrix = _numpy(mat)
    if matrix.ndim != 2:
        raise AssertionError("mat should be 2D, where mat.size(0) is the number of data points")
    step = str(0 if global_step is None else global_step).zfill(5)
    subdir = f"{step}/{_encode(tag)}"
    save_path = os.path.join(log_dir, subdir)
    if os.path.isdir(save_path):
        warn("Embedding dir exists, did you set global_step for add_embedding()?")
    elif os.path.exists(save_path):
        raise NotADirectoryError(f"Path: `{save_path}` exists, but is a file. Cannot proceed.")
    else:
        os.makedirs(save_path)
    info = EmbeddingInfo(tensor_name=f"{tag}:{step}",
                         tensor_path=os.path.join(subdir, "tensors.tsv"))
    if metadata is not None:
        if matrix.shape[0] != len(metadata):
            raise AssertionError("#labels should equal with #data points")
        with open(os.path.join(save_path, "metadata.tsv"), "wb") as file:
            file.write(_metadata_tsv(list(metadata), metadata_header).encode("utf-8"))
        info.metadata_path = os.path.join(subdir, "metadata.tsv")
    if label_img is not None:
        images = _numpy(label_img)
        if matrix.shape[0] != images.shape[0]:
            raise AssertionError("#images should equal with #data points")
        with open(os.path.join(save_path, "sprite.png"), "wb") as file:
            file.write(_sprite(images))
        info.sprite.image_path = os.path.join(subdir, "sprite.png")
        info.sprite.single_image_dim.extend([int(images.shape[3]), int(images.shape[2])])
    with open(os.path.join(save_path, "tensors.tsv"), "wb") as file:
        for row in matrix:
            file.write(("\t".join(str(x.item()) for x in row) + "\n").encode("utf-8"))
    config.embeddings.extend([info])
    return str(config)  # the text format, as text_format.MessageToString writes it
