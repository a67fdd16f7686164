"""``SummaryWriter``: scalars, histograms, images, figures and text as TensorBoard events.

The protocol buffers and the event file come from the ``tensorboard`` package itself (its
``EventFileWriter`` queues events and flushes them from a background thread, as PyTorch's writer
does), so the files are exactly what ``tensorboard --logdir runs`` reads. Only the conversions
are ours: tensors to NumPy, histograms with TensorFlow's default buckets, images to PNG.
"""

from __future__ import annotations

import io
import os
import socket
import struct
import time
import zlib
from datetime import datetime
from typing import Any

import numpy as np

from ..._core.tensor_base import TensorBase
from .graph import graph_def

__all__ = ["SummaryWriter"]


def _tensorboard() -> Any:
    """The tensorboard modules this writer needs; a clear ImportError when it is absent."""
    try:
        from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2
        from tensorboard.summary.writer.event_file_writer import EventFileWriter
    except ImportError as error:
        raise ImportError("SummaryWriter needs the tensorboard package: pip install tensorboard "
                          "(or pip install 'tinygrad-lite[tensorboard]')") from error
    return event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2, EventFileWriter


def _numpy(value: Any) -> np.ndarray:
    """A tensor, array, list or number as a NumPy array (detached)."""
    if isinstance(value, TensorBase):
        return np.asarray(value.detach()._data)
    return np.asarray(value)


def _scalar(value: Any, what: str) -> float:
    array = _numpy(value)
    if array.size != 1:
        raise ValueError(f"{what}: scalar value must be a number or a one-element tensor, got "
                         f"shape {array.shape}")
    return float(array.reshape(()))


def _tensorflow_buckets() -> np.ndarray:
    """TensorFlow's default histogram bucket edges: +-1e-12 growing by 10 % to +-1e20."""
    positive = [1e-12]
    while positive[-1] < 1e20:
        positive.append(positive[-1] * 1.1)
    edges = np.array(positive)
    return np.concatenate([-edges[::-1], [0.0], edges])


def _png(image: np.ndarray) -> bytes:
    """A PNG file of an (H, W, C) uint8 image, C in 1 (grey), 3 (RGB) or 4 (RGBA)."""
    height, width, channels = image.shape
    colour_type = {1: 0, 3: 2, 4: 6}[channels]
    rows = np.concatenate([np.zeros((height, 1), np.uint8), image.reshape(height, -1)], axis=1)

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)) + chunk(b"IEND", b""))


def _to_hwc(image: np.ndarray, dataformats: str) -> np.ndarray:
    """Reorder an image to (H, W, C) from ``dataformats`` (CHW, HWC, HW) and scale to uint8
    (floats are taken to be in [0, 1], as in PyTorch)."""
    formats = dataformats.upper()
    if sorted(formats) not in (sorted("CHW"), sorted("HW")) or image.ndim != len(formats):
        raise ValueError(f"add_image: image of shape {image.shape} does not match dataformats "
                         f"{dataformats!r} (use 'CHW', 'HWC' or 'HW')")
    if formats == "HW":
        image = image[..., None]
    else:
        image = np.transpose(image, [formats.index(axis) for axis in "HWC"])
    if image.shape[2] == 2 or image.shape[2] > 4:
        raise ValueError(f"add_image: expected 1, 3 or 4 channels, got {image.shape[2]}")
    if image.dtype != np.uint8:
        image = (np.clip(image.astype(np.float64), 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8)
    return image


class SummaryWriter:
    """Writes TensorBoard event files into ``log_dir`` (default ``runs/<time>_<host><comment>``),
    with PyTorch's methods and arguments."""

    def __init__(self, log_dir: str | None = None, comment: str = "",
                 purge_step: int | None = None, max_queue: int = 10, flush_secs: int = 120,
                 filename_suffix: str = "") -> None:
        self._protos = _tensorboard()
        if log_dir is None:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")
        self.log_dir = str(log_dir)
        self.purge_step = purge_step
        self.max_queue, self.flush_secs, self.filename_suffix = max_queue, flush_secs, \
            filename_suffix
        self._writer = self._protos[4](self.log_dir, max_queue, flush_secs, filename_suffix)
        self._children: dict[str, Any] = {}  # add_scalars writes one run per tag
        event = self._protos[0].Event(wall_time=time.time(), file_version="brain.Event:2")
        self._writer.add_event(event)
        if purge_step is not None:  # TensorBoard drops older events from this step on
            self._writer.add_event(self._protos[0].Event(
                step=purge_step, session_log=self._protos[0].SessionLog(
                    status=self._protos[0].SessionLog.START)))

    def get_logdir(self) -> str:
        """The directory the event files go to."""
        return self.log_dir

    def _add(self, value: Any, global_step: int | None, walltime: float | None,
             writer: Any = None) -> None:
        event_pb2, summary_pb2 = self._protos[0], self._protos[1]
        event = event_pb2.Event(summary=summary_pb2.Summary(value=[value]),
                                wall_time=time.time() if walltime is None else walltime)
        if global_step is not None:
            event.step = int(global_step)
        (writer or self._writer).add_event(event)

    def add_scalar(self, tag: str, scalar_value: Any, global_step: int | None = None,
                   walltime: float | None = None, new_style: bool = False,
                   double_precision: bool = False) -> None:
        """One point of the curve ``tag``."""
        value = self._protos[1].Summary.Value(tag=tag,
                                              simple_value=_scalar(scalar_value, "add_scalar"))
        self._add(value, global_step, walltime)

    def add_scalars(self, main_tag: str, tag_scalar_dict: dict[str, Any],
                    global_step: int | None = None, walltime: float | None = None) -> None:
        """Several curves in one chart: each tag goes to its own run ``main_tag_tag``."""
        for tag, scalar in tag_scalar_dict.items():
            run = os.path.join(self.log_dir, f"{main_tag.replace('/', '_')}_{tag}")
            if run not in self._children:
                self._children[run] = self._protos[4](run, self.max_queue, self.flush_secs,
                                                      self.filename_suffix)
            value = self._protos[1].Summary.Value(tag=main_tag,
                                                  simple_value=_scalar(scalar, "add_scalars"))
            self._add(value, global_step, walltime, self._children[run])

    def add_histogram(self, tag: str, values: Any, global_step: int | None = None,
                      bins: Any = "tensorflow", walltime: float | None = None,
                      max_bins: int | None = None) -> None:
        """The distribution of ``values`` (``bins``: 'tensorflow', an int, or a NumPy rule)."""
        data = _numpy(values).astype(np.float64).reshape(-1)
        if data.size == 0:
            raise ValueError("add_histogram: the input has no element")
        edges = _tensorflow_buckets() if bins == "tensorflow" else bins
        counts, limits = np.histogram(data, bins=edges)
        if bins == "tensorflow":  # keep the populated range only, as TensorFlow does
            used = np.nonzero(counts)[0]
            first, last = max(used[0] - 1, 0), min(used[-1] + 1, counts.size - 1)
            counts, limits = counts[first:last + 1], limits[first:last + 2]
        proto = self._protos[1].HistogramProto(
            min=float(data.min()), max=float(data.max()), num=int(data.size),
            sum=float(data.sum()), sum_squares=float((data * data).sum()),
            bucket_limit=[float(x) for x in limits[1:]], bucket=[float(c) for c in counts])
        self._add(self._protos[1].Summary.Value(tag=tag, histo=proto), global_step, walltime)

    def add_image(self, tag: str, img_tensor: Any, global_step: int | None = None,
                  walltime: float | None = None, dataformats: str = "CHW") -> None:
        """An image (floats in [0, 1] or uint8), stored as PNG."""
        image = _to_hwc(_numpy(img_tensor), dataformats)
        proto = self._protos[1].Summary.Image(height=image.shape[0], width=image.shape[1],
                                              colorspace=image.shape[2],
                                              encoded_image_string=_png(image))
        self._add(self._protos[1].Summary.Value(tag=tag, image=proto), global_step, walltime)

    def add_images(self, tag: str, img_tensor: Any, global_step: int | None = None,
                   walltime: float | None = None, dataformats: str = "NCHW") -> None:
        """A batch of images tiled into one grid (as PyTorch's, up to 8 per row)."""
        batch = _numpy(img_tensor)
        if dataformats.upper() == "NHWC":
            batch = np.transpose(batch, (0, 3, 1, 2))
        elif dataformats.upper() != "NCHW":
            raise ValueError(f"add_images: dataformats must be 'NCHW' or 'NHWC', got "
                             f"{dataformats!r}")
        n, c, h, w = batch.shape
        columns = min(n, 8)
        rows = -(-n // columns)
        grid = np.zeros((c, rows * h, columns * w), batch.dtype)
        for index in range(n):
            r, col = divmod(index, columns)
            grid[:, r * h:(r + 1) * h, col * w:(col + 1) * w] = batch[index]
        self.add_image(tag, grid, global_step, walltime, "CHW")

    def add_figure(self, tag: str, figure: Any, global_step: int | None = None,
                   close: bool = True, walltime: float | None = None) -> None:
        """A matplotlib figure, rendered to PNG."""
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png")
        if close:
            import matplotlib.pyplot as plt  # optional: only a figure's owner calls this
            plt.close(figure)
        width, height = (int(v) for v in figure.canvas.get_width_height())
        proto = self._protos[1].Summary.Image(height=height, width=width, colorspace=4,
                                              encoded_image_string=buffer.getvalue())
        self._add(self._protos[1].Summary.Value(tag=tag, image=proto), global_step, walltime)

    def add_text(self, tag: str, text_string: str, global_step: int | None = None,
                 walltime: float | None = None) -> None:
        """Markdown text, shown by TensorBoard's text dashboard."""
        summary_pb2, tensor_pb2, shape_pb2 = self._protos[1], self._protos[2], self._protos[3]
        metadata = summary_pb2.SummaryMetadata(
            plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text"))
        tensor = tensor_pb2.TensorProto(
            dtype="DT_STRING", string_val=[text_string.encode("utf-8")],
            tensor_shape=shape_pb2.TensorShapeProto(dim=[shape_pb2.TensorShapeProto.Dim(size=1)]))
        value = summary_pb2.Summary.Value(tag=f"{tag}/text_summary", metadata=metadata,
                                          tensor=tensor)
        self._add(value, global_step, walltime)

    def add_graph(self, model: Any, input_to_model: Any = None, verbose: bool = False,
                  use_strict_trace: bool = True) -> None:
        """The graph autograd records for ``model(*input_to_model)``, for TensorBoard's Graphs
        tab: ops scoped by module, parameters and inputs as nodes (see ``graph.py``).
        ``verbose`` and ``use_strict_trace`` are PyTorch's tracing options, accepted."""
        from tensorboard.compat.proto import attr_value_pb2, graph_pb2, node_def_pb2

        graph = graph_def(model, input_to_model, graph_pb2, node_def_pb2, attr_value_pb2,
                          self._protos[3])
        self._writer.add_event(self._protos[0].Event(wall_time=time.time(),
                                                     graph_def=graph.SerializeToString()))

    def flush(self) -> None:
        """Write pending events to disk."""
        self._writer.flush()
        for child in self._children.values():
            child.flush()

    def close(self) -> None:
        """Flush and close the event files."""
        self._writer.close()
        for child in self._children.values():
            child.close()

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
