"""``SummaryWriter``: scalars, histograms, images, figures, text, graphs and the plugins'
data (hparams, PR curves, custom scalars, embeddings, audio, video, meshes) as TensorBoard events.

The protocol buffers and the event file come from the ``tensorboard`` package itself (its
``EventFileWriter`` queues events and flushes them from a background thread, as PyTorch's writer
does), so the files are exactly what ``tensorboard --logdir runs`` reads. Only the conversions
are ours: tensors to NumPy, histograms with TensorFlow's default buckets, images to PNG; the
plugins' protos are built in ``summaries.py``, the projector's files in ``embedding.py``.
"""

from __future__ import annotations

import io
import os
import socket
import time
from datetime import datetime
from typing import Any

import numpy as np

from . import summaries
from .embedding import write_embedding
from .graph import graph_def
from .summaries import _numpy, _png

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


def _to_hwc(image: np.ndarray, dataformats: str) -> np.ndarray:
    """Reorder an image to (H, W, C) from ``dataformats`` (CHW, HWC, HW, or NCHW/NHWC for a batch
    tiled into a grid), grey made RGB, and scale to uint8 as PyTorch does (non-uint8 values
    times 255, clipped, truncated)."""
    formats = dataformats.upper()
    if sorted(formats) not in (sorted("NCHW"), sorted("CHW"), sorted("HW")) \
            or image.ndim != len(formats):
        raise ValueError(f"add_image: image of shape {image.shape} does not match dataformats "
                         f"{dataformats!r} (use 'CHW', 'HWC', 'HW', 'NCHW' or 'NHWC')")
    if len(formats) == 4:  # a batch, tiled into one grid as PyTorch's make_grid
        image = summaries._grid(np.transpose(image, [formats.index(axis) for axis in "NCHW"]))
        formats = "CHW"
    if formats == "HW":
        image = image[..., None]
    else:
        image = np.transpose(image, [formats.index(axis) for axis in "HWC"])
    if image.shape[2] == 2 or image.shape[2] > 4:
        raise ValueError(f"add_image: expected 1, 3 or 4 channels, got {image.shape[2]}")
    if image.shape[2] == 1:  # PyTorch writes grey images as RGB
        image = np.concatenate([image] * 3, axis=2)
    if image.dtype != np.uint8:
        image = (image.astype(np.float32) * 255).clip(0, 255).astype(np.uint8)
    return image


class SummaryWriter:
    """Writes TensorBoard event files into ``log_dir`` (default ``runs/<time>_<host><comment>``),
    with PyTorch's methods and arguments. After ``close()`` the next ``add_*`` call opens a new
    event file in the same directory, as PyTorch's writer does."""

    def __init__(self, log_dir: str | None = None, comment: str = "",
                 purge_step: int | None = None, max_queue: int = 10, flush_secs: int = 120,
                 filename_suffix: str = "") -> None:
        self._protos = _tensorboard()
        if not log_dir:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")
        self.log_dir = str(log_dir)
        self.purge_step = purge_step
        self.max_queue, self.flush_secs, self.filename_suffix = max_queue, flush_secs, \
            filename_suffix
        self._writer: Any = None  # the event file, reopened on demand after close()
        self._children: dict[str, Any] = {}  # add_scalars writes one run per tag
        self._projector_config: Any = None  # add_embedding's projector_config.pbtxt
        self._file_writer()

    def _file_writer(self) -> Any:
        """The main event file's writer, opened anew when closed (PyTorch's _get_file_writer)."""
        if self._writer is None:
            event_pb2 = self._protos[0]
            self._writer = self._protos[4](self.log_dir, self.max_queue, self.flush_secs,
                                           self.filename_suffix)
            if self.purge_step is not None:  # TensorBoard drops older events from this step on
                self._writer.add_event(event_pb2.Event(
                    wall_time=time.time(), step=self.purge_step, file_version="brain.Event:2"))
                self._writer.add_event(event_pb2.Event(
                    wall_time=time.time(), step=self.purge_step, session_log=event_pb2.SessionLog(
                        status=event_pb2.SessionLog.START)))
                self.purge_step = None  # once only, as PyTorch
        return self._writer

    def get_logdir(self) -> str:
        """The directory the event files go to."""
        return self.log_dir

    def _add_summary(self, summary: Any, global_step: int | None, walltime: float | None,
                     writer: Any = None) -> None:
        event = self._protos[0].Event(summary=summary,
                                      wall_time=time.time() if walltime is None else walltime)
        if global_step is not None:
            event.step = int(global_step)
        (writer or self._file_writer()).add_event(event)

    def _add(self, value: Any, global_step: int | None, walltime: float | None,
             writer: Any = None) -> None:
        self._add_summary(self._protos[1].Summary(value=[value]), global_step, walltime, writer)

    def add_hparams(self, hparam_dict: dict, metric_dict: dict,
                    hparam_domain_discrete: dict | None = None, run_name: str | None = None,
                    global_step: int | None = None) -> None:
        """Hyperparameters and their metrics for the HParams tab, as the sub-run
        ``log_dir/<run_name or time>`` (metrics are also written there as scalars)."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        protos = summaries.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        log_dir = os.path.join(self._file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=log_dir) as run:
            for summary in protos:
                run._add_summary(summary, global_step, None)
            for tag, value in metric_dict.items():
                run.add_scalar(tag, value, global_step)

    def add_scalar(self, tag: str, scalar_value: Any, global_step: int | None = None,
                   walltime: float | None = None, new_style: bool = False,
                   double_precision: bool = False) -> None:
        """One point of the curve ``tag``; ``new_style`` writes it as a tensor of the 'scalars'
        plugin (float64 with ``double_precision``), as PyTorch does."""
        scalar = _scalar(scalar_value, "add_scalar")
        if new_style:
            proto = (self._protos[2].TensorProto(double_val=[scalar], dtype="DT_DOUBLE")
                     if double_precision else
                     self._protos[2].TensorProto(float_val=[scalar], dtype="DT_FLOAT"))
            value = self._protos[1].Summary.Value(tag=tag, tensor=proto,
                                                  metadata=summaries._metadata("scalars"))
        else:
            value = self._protos[1].Summary.Value(tag=tag, simple_value=scalar)
        self._add(value, global_step, walltime)

    def add_scalars(self, main_tag: str, tag_scalar_dict: dict[str, Any],
                    global_step: int | None = None, walltime: float | None = None) -> None:
        """Several curves in one chart: each tag goes to its own run ``main_tag_tag``."""
        walltime = time.time() if walltime is None else walltime
        log_dir = self._file_writer().get_logdir()
        for tag, scalar in tag_scalar_dict.items():
            run = os.path.join(log_dir, f"{main_tag.replace('/', '_')}_{tag}")
            if run not in self._children:
                self._children[run] = self._protos[4](run, self.max_queue, self.flush_secs,
                                                      self.filename_suffix)
            value = self._protos[1].Summary.Value(tag=main_tag,
                                                  simple_value=_scalar(scalar, "add_scalars"))
            self._add(value, global_step, walltime, self._children[run])

    def add_tensor(self, tag: str, tensor: Any, global_step: int | None = None,
                   walltime: float | None = None) -> None:
        """The whole tensor (values, shape, dtype) under the 'tensor' plugin."""
        self._add_summary(summaries.tensor(tag, _numpy(tensor)), global_step, walltime)

    def add_histogram(self, tag: str, values: Any, global_step: int | None = None,
                      bins: Any = "tensorflow", walltime: float | None = None,
                      max_bins: int | None = None) -> None:
        """The distribution of ``values`` (``bins``: 'tensorflow', an int, or a NumPy rule)."""
        data = _numpy(values).astype(np.float64).reshape(-1)
        if data.size == 0:
            raise ValueError("add_histogram: the input has no element")
        counts, limits = np.histogram(data, bins=_tensorflow_buckets() if bins == "tensorflow"
                                      else bins)
        if max_bins is not None and counts.size > max_bins:  # merge neighbours, as PyTorch
            step = counts.size // max_bins
            counts = np.pad(counts, (0, -counts.size % step)).reshape(-1, step).sum(axis=-1)
            limits = np.append(limits[:-1:step], limits[-1])
        # keep the populated range only, plus the empty bucket left of it (TensorBoard records
        # right limits only, so that bucket carries the leftmost limit), as PyTorch does
        used = np.nonzero(counts)[0]
        if used.size == 0:  # every value outside explicit ``bins``
            raise ValueError("add_histogram: the histogram is empty (no value falls inside "
                             "`bins`)")
        start, end = int(used[0]), int(used[-1]) + 1
        counts = counts[start - 1:end] if start > 0 else np.concatenate([[0], counts[:end]])
        limits = limits[start:end + 1]
        proto = self._protos[1].HistogramProto(
            min=float(data.min()), max=float(data.max()), num=int(data.size),
            sum=float(data.sum()), sum_squares=float(data.dot(data)),
            bucket_limit=[float(x) for x in limits], bucket=[float(c) for c in counts])
        self._add(self._protos[1].Summary.Value(tag=tag, histo=proto), global_step, walltime)

    def add_histogram_raw(self, tag: str, min: Any, max: Any, num: Any, sum: Any,
                          sum_squares: Any, bucket_limits: Any, bucket_counts: Any,
                          global_step: int | None = None, walltime: float | None = None) -> None:
        """A histogram from its statistics and buckets (upper limit and count of each)."""
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        proto = self._protos[1].HistogramProto(
            min=_scalar(min, "min"), max=_scalar(max, "max"), num=_scalar(num, "num"),
            sum=_scalar(sum, "sum"), sum_squares=_scalar(sum_squares, "sum_squares"),
            bucket_limit=_numpy(bucket_limits).astype(np.float64).reshape(-1).tolist(),
            bucket=_numpy(bucket_counts).astype(np.float64).reshape(-1).tolist())
        self._add(self._protos[1].Summary.Value(tag=tag, histo=proto), global_step, walltime)

    def add_image(self, tag: str, img_tensor: Any, global_step: int | None = None,
                  walltime: float | None = None, dataformats: str = "CHW") -> None:
        """An image (floats in [0, 1] or uint8), stored as PNG."""
        self._add_png(tag, _to_hwc(_numpy(img_tensor), dataformats), global_step, walltime)

    def _add_png(self, tag: str, image: np.ndarray, global_step: int | None,
                 walltime: float | None, size: tuple[int, int] | None = None) -> None:
        height, width = size or image.shape[:2]
        proto = self._protos[1].Summary.Image(height=height, width=width,
                                              colorspace=image.shape[2],
                                              encoded_image_string=_png(image))
        self._add(self._protos[1].Summary.Value(tag=tag, image=proto), global_step, walltime)

    def add_images(self, tag: str, img_tensor: Any, global_step: int | None = None,
                   walltime: float | None = None, dataformats: str = "NCHW") -> None:
        """A batch of images tiled into one grid (as PyTorch's, up to 8 per row); like PyTorch,
        this is ``add_image`` with a batch format as default."""
        self.add_image(tag, img_tensor, global_step, walltime, dataformats)

    def add_image_with_boxes(self, tag: str, img_tensor: Any, box_tensor: Any,
                             global_step: int | None = None, walltime: float | None = None,
                             rescale: float = 1, dataformats: str = "CHW",
                             labels: list[str] | str | None = None) -> None:
        """An image with (x1, y1, x2, y2) boxes drawn in red (PIL's pixels, drawn in NumPy);
        ``labels`` are written above the boxes only when Pillow is installed, skipped without.
        Height and width record the image before ``rescale``, as PyTorch's do."""
        boxes = _numpy(box_tensor).reshape(-1, 4)
        if isinstance(labels, str):
            labels = [labels]
        if labels is not None and len(labels) != boxes.shape[0]:
            labels = None  # PyTorch ignores labels that do not match the boxes
        drawn, size = summaries.image_with_boxes(_numpy(img_tensor), boxes, rescale, dataformats,
                                                 labels)
        self._add_png(tag, drawn, global_step, walltime, size)

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

    def add_video(self, tag: str, vid_tensor: Any, global_step: int | None = None,
                  fps: float = 4, walltime: float | None = None) -> None:
        """An (N, T, C, H, W) video as an animated GIF; needs moviepy, as PyTorch's does."""
        self._add_summary(summaries.video(tag, _numpy(vid_tensor), fps), global_step, walltime)

    def add_audio(self, tag: str, snd_tensor: Any, global_step: int | None = None,
                  sample_rate: int = 44100, walltime: float | None = None) -> None:
        """Mono audio with samples in [-1, 1], stored as a 16-bit WAV file."""
        self._add_summary(summaries.audio(tag, _numpy(snd_tensor), sample_rate), global_step,
                          walltime)

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

    def add_onnx_graph(self, prototxt: str) -> None:
        """The graph of the ONNX model file ``prototxt``; needs onnx, as PyTorch's does."""
        graph = summaries.onnx_graph(prototxt)
        self._file_writer().add_event(self._protos[0].Event(wall_time=time.time(),
                                                            graph_def=graph.SerializeToString()))

    def add_graph(self, model: Any, input_to_model: Any = None, verbose: bool = False,
                  use_strict_trace: bool = True) -> None:
        """The graph autograd records for ``model(*input_to_model)``, for TensorBoard's Graphs
        tab: ops scoped by module, parameters and inputs as nodes (see ``graph.py``).
        ``verbose`` and ``use_strict_trace`` are PyTorch's tracing options, accepted."""
        from tensorboard.compat.proto import attr_value_pb2, graph_pb2, node_def_pb2

        graph = graph_def(model, input_to_model, graph_pb2, node_def_pb2, attr_value_pb2,
                          self._protos[3])
        self._file_writer().add_event(self._protos[0].Event(wall_time=time.time(),
                                                            graph_def=graph.SerializeToString()))

    def add_embedding(self, mat: Any, metadata: Any = None, label_img: Any = None,
                      global_step: int | None = None, tag: str = "default",
                      metadata_header: Any = None) -> None:
        """Points for the Projector tab: ``<log_dir>/<step>/<tag>/`` tensors.tsv, metadata.tsv
        and sprite.png, and the embedding appended to ``<log_dir>/projector_config.pbtxt``."""
        from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig

        if self._projector_config is None:
            self._projector_config = ProjectorConfig()
        log_dir = self._file_writer().get_logdir()
        text = write_embedding(log_dir, self._projector_config, mat, metadata, label_img,
                               global_step, tag, metadata_header)
        with open(os.path.join(log_dir, "projector_config.pbtxt"), "wb") as file:
            file.write(text.encode("utf-8"))

    def add_pr_curve(self, tag: str, labels: Any, predictions: Any,
                     global_step: int | None = None, num_thresholds: int = 127,
                     weights: Any = None, walltime: float | None = None) -> None:
        """A precision-recall curve from binary ``labels`` and ``predictions`` in [0, 1]."""
        summary = summaries.pr_curve(tag, _numpy(labels), _numpy(predictions), num_thresholds,
                                     None if weights is None else _numpy(weights))
        self._add_summary(summary, global_step, walltime)

    def add_pr_curve_raw(self, tag: str, true_positive_counts: Any, false_positive_counts: Any,
                         true_negative_counts: Any, false_negative_counts: Any, precision: Any,
                         recall: Any, global_step: int | None = None, num_thresholds: int = 127,
                         weights: Any = None, walltime: float | None = None) -> None:
        """A precision-recall curve from its precomputed counts, precision and recall."""
        rows = [_numpy(r) for r in (true_positive_counts, false_positive_counts,
                                    true_negative_counts, false_negative_counts, precision,
                                    recall)]
        self._add_summary(summaries.pr_curve_raw(tag, rows, num_thresholds), global_step,
                          walltime)

    def add_custom_scalars_multilinechart(self, tags: list[str], category: str = "default",
                                          title: str = "untitled") -> None:
        """A Custom Scalars chart of several scalar ``tags`` as lines."""
        self.add_custom_scalars({category: {title: ["Multiline", tags]}})

    def add_custom_scalars_marginchart(self, tags: list[str], category: str = "default",
                                       title: str = "untitled") -> None:
        """A Custom Scalars margin chart of three ``tags``: value, lower and upper bound."""
        if len(tags) != 3:
            raise AssertionError(f"Expected 3 tags, got {len(tags)}.")
        self.add_custom_scalars({category: {title: ["Margin", tags]}})

    def add_custom_scalars(self, layout: dict) -> None:
        """The Custom Scalars layout: {category: {title: ['Multiline' or 'Margin', tags]}}."""
        self._add_summary(summaries.custom_scalars(layout), None, None)

    def add_mesh(self, tag: str, vertices: Any, colors: Any = None, faces: Any = None,
                 config_dict: dict | None = None, global_step: int | None = None,
                 walltime: float | None = None) -> None:
        """A mesh or point cloud: (B, N, 3) vertices, optional colors and faces, and a
        three.js ``config_dict`` (camera, lights, material)."""
        summary = summaries.mesh(tag, _numpy(vertices),
                                 None if colors is None else _numpy(colors),
                                 None if faces is None else _numpy(faces), config_dict)
        self._add_summary(summary, global_step, walltime)

    def flush(self) -> None:
        """Write pending events to disk."""
        for writer in [self._writer, *self._children.values()]:
            if writer is not None:
                writer.flush()

    def close(self) -> None:
        """Flush and close the event files (a later add_* call opens new ones)."""
        for writer in [self._writer, *self._children.values()]:
            if writer is not None:
                writer.close()
        self._writer, self._children = None, {}

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
