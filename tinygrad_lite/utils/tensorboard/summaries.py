"""The ``Summary`` protos behind ``SummaryWriter``'s plugin methods: hparams, PR curves, custom
scalars, raw tensors, audio, video, meshes, images with boxes and ONNX graphs.

Each builds the same protos that ``torch.utils.tensorboard.summary`` does (plugin names, tags,
metadata contents), from NumPy arrays. The tensorboard modules are imported inside the functions:
the package stays importable without tensorboard, and ``SummaryWriter`` says how to install it.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import struct
import tempfile
import wave
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..._core.tensor_base import TensorBase
from ..._core.warnings import warn

__all__ = ["audio", "custom_scalars", "hparams", "image_with_boxes", "mesh", "onnx_graph",
           "pr_curve", "pr_curve_raw", "tensor", "video"]


def _numpy(value: Any) -> np.ndarray:
    """A tensor, array, list or number as a NumPy array (detached)."""
    if isinstance(value, TensorBase):
        return np.asarray(value.detach()._data)
    return np.asarray(value)


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


def _optional(package: str, purpose: str) -> Any:
    """An optional package, imported on first use; an ImportError naming it when absent."""
    try:
        return importlib.import_module(package)
    except ImportError as error:
        raise ImportError(f"{purpose} needs the {package} package: pip install {package}") \
            from error


def _pil() -> Any:
    """Pillow's Image, ImageDraw and ImageFont modules, or None when Pillow is absent."""
    try:
        return [importlib.import_module(f"PIL.{name}") for name in ("Image", "ImageDraw",
                                                                     "ImageFont")]
    except ImportError:
        return None


def _summary(values: list) -> Any:
    from tensorboard.compat.proto.summary_pb2 import Summary

    return Summary(value=values)


def _metadata(plugin_name: str, content: bytes = b"") -> Any:
    from tensorboard.compat.proto.summary_pb2 import SummaryMetadata

    return SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name=plugin_name,
                                                                  content=content))


def _tensor_proto(dtype: str, shape: Sequence[int], **values: Any) -> Any:
    from tensorboard.compat.proto.tensor_pb2 import TensorProto
    from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

    dims = [TensorShapeProto.Dim(size=int(size)) for size in shape]
    return TensorProto(dtype=dtype, tensor_shape=TensorShapeProto(dim=dims), **values)


# hparams -----------------------------------------------------------------------------------

def hparams(hparam_dict: Any, metric_dict: Any, domain_discrete: Any) -> tuple[Any, Any, Any]:
    """The hparams plugin's experiment, session-start and session-end summaries (PyTorch's
    rules: bools are numbers, as ``bool`` is an ``int``; ``None`` values are left out)."""
    from tensorboard.compat.proto.summary_pb2 import Summary
    from tensorboard.plugins.hparams import api_pb2, metadata, plugin_data_pb2

    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    discrete = domain_discrete or {}
    if not isinstance(discrete, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing "
                        "logged.")
    for key, values in discrete.items():
        if key not in hparam_dict or not isinstance(values, list) or \
                not all(isinstance(v, type(hparam_dict[key])) for v in values):
            raise TypeError(f"parameter: hparam_domain_discrete[{key}] should be a list of same "
                            f"type as hparam_dict[{key}].")
    infos = []
    start = plugin_data_pb2.SessionStartInfo()
    for key, value in hparam_dict.items():
        if value is None:
            continue
        if isinstance(value, (int, float)):
            start.hparams[key].number_value = value
            kind, field = "DATA_TYPE_FLOAT64", "number_value"
        elif isinstance(value, str):
            start.hparams[key].string_value = value
            kind, field = "DATA_TYPE_STRING", "string_value"
        elif isinstance(value, (TensorBase, np.ndarray, np.generic)):  # its first element
            start.hparams[key].number_value = float(_numpy(value).reshape(-1)[0])
            infos.append(api_pb2.HParamInfo(name=key,
                                            type=api_pb2.DataType.Value("DATA_TYPE_FLOAT64")))
            continue
        else:
            raise ValueError("value should be one of int, float, str, bool, or a tensor")
        info = api_pb2.HParamInfo(name=key, type=api_pb2.DataType.Value(kind))
        if key in discrete:
            info.domain_discrete.SetInParent()
            for v in discrete[key]:
                info.domain_discrete.values.add(**{field: v})
        infos.append(info)

    def summary(tag: str, **data: Any) -> Any:
        content = plugin_data_pb2.HParamsPluginData(version=metadata.PLUGIN_DATA_VERSION, **data)
        return _summary([Summary.Value(tag=tag, metadata=_metadata(
            metadata.PLUGIN_NAME, content.SerializeToString()))])

    experiment = api_pb2.Experiment(
        hparam_infos=infos, metric_infos=[api_pb2.MetricInfo(name=api_pb2.MetricName(tag=k))
                                          for k in metric_dict])
    end = plugin_data_pb2.SessionEndInfo(status=api_pb2.Status.Value("STATUS_SUCCESS"))
    return (summary(metadata.EXPERIMENT_TAG, experiment=experiment),
            summary(metadata.SESSION_START_INFO_TAG, session_start_info=start),
            summary(metadata.SESSION_END_INFO_TAG, session_end_info=end))


# PR curves, custom scalars, raw tensors ----------------------------------------------------

def _pr_summary(tag: str, data: np.ndarray, num_thresholds: int) -> Any:
    from tensorboard.compat.proto.summary_pb2 import Summary
    from tensorboard.plugins.pr_curve.plugin_data_pb2 import PrCurvePluginData

    content = PrCurvePluginData(version=0, num_thresholds=num_thresholds).SerializeToString()
    proto = _tensor_proto("DT_FLOAT", data.shape[:2], float_val=data.reshape(-1).tolist())
    return _summary([Summary.Value(tag=tag, metadata=_metadata("pr_curves", content),
                                   tensor=proto)])


def pr_curve(tag: str, labels: np.ndarray, predictions: np.ndarray, num_thresholds: int,
             weights: np.ndarray | None) -> Any:
    """A PR curve from binary labels and predicted probabilities: a (6, thresholds) tensor of
    TP, FP, TN, FN, precision, recall (TensorBoard's pr_curve algorithm, at most 127)."""
    num_thresholds = min(num_thresholds, 127)  # more breaks the plugin, as PyTorch notes
    weight = 1.0 if weights is None else weights
    buckets = np.floor(predictions * (num_thresholds - 1)).astype(np.int32)
    truth = labels.astype(np.float64)
    span = (0, num_thresholds - 1)
    tp_buckets = np.histogram(buckets, num_thresholds, span, weights=truth * weight)[0]
    fp_buckets = np.histogram(buckets, num_thresholds, span, weights=(1.0 - truth) * weight)[0]
    tp = np.cumsum(tp_buckets[::-1])[::-1]  # counts at or above each threshold
    fp = np.cumsum(fp_buckets[::-1])[::-1]
    tn, fn = fp[0] - fp, tp[0] - tp
    precision = tp / np.maximum(1e-7, tp + fp)
    recall = tp / np.maximum(1e-7, tp + fn)
    return _pr_summary(tag, np.stack((tp, fp, tn, fn, precision, recall)), num_thresholds)


def pr_curve_raw(tag: str, counts: list[np.ndarray], num_thresholds: int) -> Any:
    """A PR curve from its six precomputed rows (TP, FP, TN, FN, precision, recall)."""
    return _pr_summary(tag, np.stack(counts), min(num_thresholds, 127))


def custom_scalars(layout: dict) -> Any:
    """The custom_scalars plugin's layout: {category: {title: ['Multiline'|'Margin', tags]}}."""
    from tensorboard.compat.proto.summary_pb2 import Summary
    from tensorboard.plugins.custom_scalar import layout_pb2

    categories = []
    for category, charts in layout.items():
        protos = []
        for title, (kind, tags) in charts.items():
            if kind == "Margin":
                if len(tags) != 3:
                    raise AssertionError("len(tags) != 3")
                series = layout_pb2.MarginChartContent.Series(value=tags[0], lower=tags[1],
                                                              upper=tags[2])
                protos.append(layout_pb2.Chart(
                    title=title, margin=layout_pb2.MarginChartContent(series=[series])))
            else:
                protos.append(layout_pb2.Chart(
                    title=title, multiline=layout_pb2.MultilineChartContent(tag=tags)))
        categories.append(layout_pb2.Category(title=category, chart=protos))
    config = layout_pb2.Layout(category=categories).SerializeToString()
    return _summary([Summary.Value(tag="custom_scalars__config__",
                                   metadata=_metadata("custom_scalars"),
                                   tensor=_tensor_proto("DT_STRING", (), string_val=[config]))])


def _float32_bits(array: np.ndarray) -> list[int]:
    """Halves as PyTorch writes them: each value's float32 bit pattern as an int."""
    return [struct.unpack("i", struct.pack("f", x))[0]
            for x in array.astype(np.float32).tolist()]


def _interleaved(array: np.ndarray) -> list[float]:
    return np.stack([array.real, array.imag], axis=-1).reshape(-1).tolist()


# NumPy dtype name -> (TensorProto dtype, its values field, conversion), as PyTorch's
_TENSOR_FIELDS: dict[str, tuple[str, str, Callable[[np.ndarray], list]]] = {
    "float16": ("DT_HALF", "half_val", _float32_bits),
    "bfloat16": ("DT_BFLOAT16", "half_val", _float32_bits),
    "float32": ("DT_FLOAT", "float_val", np.ndarray.tolist),
    "float64": ("DT_DOUBLE", "double_val", np.ndarray.tolist),
    "int8": ("DT_INT8", "int_val", np.ndarray.tolist),
    "uint8": ("DT_UINT8", "uint32_val", np.ndarray.tolist),
    "int16": ("DT_INT16", "int_val", np.ndarray.tolist),
    "int32": ("DT_INT32", "int_val", np.ndarray.tolist),
    "int64": ("DT_INT64", "int64_val", np.ndarray.tolist),
    "complex64": ("DT_COMPLEX64", "scomplex_val", _interleaved),
    "complex128": ("DT_COMPLEX128", "dcomplex_val", _interleaved),
    "bool": ("DT_BOOL", "bool_val", np.ndarray.tolist),
}


def tensor(tag: str, array: np.ndarray) -> Any:
    """The whole tensor as a TensorProto, under the 'tensor' plugin."""
    from tensorboard.compat.proto.summary_pb2 import Summary

    if array.nbytes >= 1 << 31:
        raise ValueError("tensor is bigger than protocol buffer's hard limit of 2GB in size")
    if array.dtype.name not in _TENSOR_FIELDS:
        raise ValueError(f"{tag} has unsupported tensor dtype {array.dtype}")
    dtype, field, convert = _TENSOR_FIELDS[array.dtype.name]
    proto = _tensor_proto(dtype, array.shape, **{field: convert(array.reshape(-1))})
    return _summary([Summary.Value(tag=tag, metadata=_metadata("tensor"), tensor=proto)])


# audio, video, mesh ------------------------------------------------------------------------

def audio(tag: str, array: np.ndarray, sample_rate: int) -> Any:
    """Mono audio in [-1, 1] as a 16-bit WAV file (out-of-range samples are clipped)."""
    from tensorboard.compat.proto.summary_pb2 import Summary

    array = array.squeeze()
    if np.abs(array).max() > 1:
        warn("add_audio: audio amplitude out of range, auto clipped.")
        array = array.clip(-1, 1)
    if array.ndim != 1:
        raise AssertionError("input tensor should be 1 dimensional.")
    samples = (array * np.iinfo(np.int16).max).astype("<i2")
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(sample_rate)
        wav.writeframes(samples.tobytes())
    proto = Summary.Audio(sample_rate=sample_rate, num_channels=1,
                          length_frames=samples.shape[-1],
                          encoded_audio_string=buffer.getvalue(), content_type="audio/wav")
    return _summary([Summary.Value(tag=tag, audio=proto)])


def _video_frames(video: np.ndarray) -> np.ndarray:
    """(N, T, C, H, W) -> (T, H', W', C) uint8: the N clips tiled into each frame, N padded to
    a power of two (PyTorch's layout)."""
    batch, frames, channels, height, width = video.shape
    if video.dtype == np.uint8:
        video = np.float32(video) / 255.0
    if batch & (batch - 1):  # pad to the next power of two
        pad = 2 ** batch.bit_length() - batch
        video = np.concatenate([video, np.zeros((pad, frames, channels, height, width))])
    rows = 2 ** ((batch.bit_length() - 1) // 2)
    columns = video.shape[0] // rows
    video = video.reshape(rows, columns, frames, channels, height, width)
    video = video.transpose(2, 0, 4, 1, 5, 3).reshape(frames, rows * height, columns * width,
                                                      channels)
    return (video.astype(np.float32) * 255).clip(0, 255).astype(np.uint8)


def video(tag: str, array: np.ndarray, fps: float) -> Any:
    """An (N, T, C, H, W) video as an animated GIF, encoded by moviepy."""
    from tensorboard.compat.proto.summary_pb2 import Summary

    moviepy = _optional("moviepy", "add_video")
    clip_class = getattr(moviepy, "ImageSequenceClip", None)  # moviepy 2
    if clip_class is None:
        try:
            editor = importlib.import_module("moviepy.editor")  # moviepy 1
        except ImportError as error:
            raise ImportError("moviepy is installed, but moviepy.editor cannot be imported: "
                              "some of its dependencies (imageio) may be missing") from error
        clip_class = editor.ImageSequenceClip
    frames = _video_frames(array)
    clip = clip_class(list(frames), fps=fps)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "video.gif")
        clip.write_gif(path, logger=None)
        with open(path, "rb") as file:
            gif = file.read()
    _, height, width, channels = frames.shape
    proto = Summary.Image(height=height, width=width, colorspace=channels,
                          encoded_image_string=gif)
    return _summary([Summary.Value(tag=tag, image=proto)])


def mesh(tag: str, vertices: np.ndarray, colors: np.ndarray | None, faces: np.ndarray | None,
         config_dict: dict | None) -> Any:
    """The mesh plugin's summaries: one (B, N, 3) float tensor each for vertices, faces and
    colors (those given), tagged ``<tag>_VERTEX`` and so on."""
    from tensorboard.compat.proto.summary_pb2 import Summary
    from tensorboard.plugins.mesh import metadata
    from tensorboard.plugins.mesh.plugin_data_pb2 import MeshPluginData

    config = "{}" if config_dict is None else json.dumps(config_dict, sort_keys=True)
    parts = [(array, kind) for array, kind in ((vertices, MeshPluginData.VERTEX),
                                               (faces, MeshPluginData.FACE),
                                               (colors, MeshPluginData.COLOR))
             if array is not None]
    components = metadata.get_components_bitmask([kind for _, kind in parts])
    values = []
    for array, kind in parts:
        shape = [int(size) for size in array.shape]
        proto_metadata = metadata.create_summary_metadata(tag, None, kind, components, shape,
                                                          None, json_config=config)
        proto = _tensor_proto("DT_FLOAT", shape[:3], float_val=array.reshape(-1).tolist())
        values.append(Summary.Value(tag=metadata.get_instance_name(tag, kind), tensor=proto,
                                    metadata=proto_metadata))
    return _summary(values)


# images with boxes -------------------------------------------------------------------------

def _grid(images: np.ndarray, columns: int = 8) -> np.ndarray:
    """(N, C, H, W) with C 1 or 3 -> one (3, H', W') image, ``columns`` images a row."""
    if images.ndim == 4 and images.shape[1] == 1:
        images = np.concatenate([images] * 3, axis=1)
    if images.ndim != 4 or images.shape[1] != 3:
        raise AssertionError("Input should be a 4D array with 1 or 3 channels")
    count, _, height, width = images.shape
    columns = min(count, columns)
    rows = -(-count // columns)
    canvas = np.zeros((3, height * rows, width * columns), images.dtype)
    for index in range(count):
        row, column = divmod(index, columns)
        canvas[:, row * height:(row + 1) * height, column * width:(column + 1) * width] = \
            images[index]
    return canvas


def _rgb_hwc(image: np.ndarray, dataformats: str) -> np.ndarray:
    """An image or a batch (tiled) as (H, W, C), grey made RGB: PyTorch's conversion."""
    formats = dataformats.upper()
    if len(set(formats)) != len(formats) or image.ndim != len(formats):
        raise AssertionError(f"image of shape {image.shape} does not match dataformats "
                             f"{dataformats!r}")
    if len(formats) == 4:
        return _grid(image.transpose([formats.find(c) for c in "NCHW"])).transpose(1, 2, 0)
    if len(formats) == 3:
        image = image.transpose([formats.find(c) for c in "HWC"])
        return np.concatenate([image] * 3, axis=2) if image.shape[2] == 1 else image
    return np.stack([image.transpose([formats.find(c) for c in "HW"])] * 3, axis=2)


def _segment(image: np.ndarray, x0: int, y0: int, x1: int, y1: int, colour: tuple) -> None:
    """A 2-pixel line between axis-aligned points, on the side PIL's ``line(width=2)`` puts it:
    below a rightward line, above a leftward one, right of a downward one, left of an upward."""
    if x0 == x1 and y0 == y1:
        rows, columns = [y0, y0], [x0, x0]
    elif y0 == y1:
        rows, columns = sorted((y0, y0 + (1 if x1 > x0 else -1))), sorted((x0, x1))
    else:
        rows, columns = sorted((y0, y1)), sorted((x0, x0 + (1 if y1 > y0 else -1)))
    top, bottom = max(rows[0], 0), min(rows[1], image.shape[0] - 1)
    left, right = max(columns[0], 0), min(columns[1], image.shape[1] - 1)
    if top <= bottom and left <= right:
        image[top:bottom + 1, left:right + 1] = colour


def _label(image: np.ndarray, left: float, bottom: float, text: str, colour: tuple) -> Any:
    """``text`` on a box of ``colour`` above the point (PIL's default font); None without PIL."""
    pil = _pil()
    if pil is None:
        return None
    font = pil[2].load_default()
    picture = pil[0].fromarray(image)
    draw = pil[1].Draw(picture)
    x0, y0, x1, y1 = font.getbbox(text)
    width, height = x1 - x0, y1 - y0
    margin = np.ceil(0.05 * height)
    draw.rectangle([(left, bottom - height - 2 * margin), (left + width, bottom)], fill=colour)
    draw.text((left + margin, bottom - height - margin), text, fill="black", font=font)
    return np.asarray(picture)


def _resize(image: np.ndarray, height: int, width: int) -> np.ndarray:
    """Resized with PIL's Lanczos filter (as PyTorch), else nearest neighbour in NumPy."""
    if (height, width) == image.shape[:2]:
        return image
    pil = _pil()
    if pil is None:
        rows = (np.arange(height) * image.shape[0] // max(height, 1)).clip(0, image.shape[0] - 1)
        columns = (np.arange(width) * image.shape[1] // max(width, 1)).clip(0, image.shape[1] - 1)
        return image[rows][:, columns]
    image_module = pil[0]
    return np.asarray(image_module.fromarray(image).resize((width, height),
                                                           image_module.Resampling.LANCZOS))


def image_with_boxes(image: np.ndarray, boxes: np.ndarray, rescale: float, dataformats: str,
                     labels: list | None) -> tuple[np.ndarray, tuple[int, int]]:
    """The (H, W, C) uint8 image with each (x1, y1, x2, y2) box drawn in red, 2 pixels wide
    (PIL's pixels), its label above its bottom-left corner when PIL is installed; rescaled, and
    the (height, width) it had before."""
    image = _rgb_hwc(image, dataformats)
    scale = 1 if image.dtype == np.uint8 else 255
    image = (image.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    image = np.ascontiguousarray(image)
    red = (255, 0, 0, 255)[:image.shape[2]]
    for index, box in enumerate(boxes):
        left, top, right, bottom = (int(v) for v in box)  # PIL truncates the points too
        corners = [(left, top), (left, bottom), (right, bottom), (right, top), (left, top)]
        for (x0, y0), (x1, y1) in zip(corners[:-1], corners[1:]):
            _segment(image, x0, y0, x1, y1, red)
        if labels is not None and labels[index]:
            labelled = _label(image, float(box[0]), float(box[3]), labels[index], red)
            image = image if labelled is None else np.array(labelled)
    height, width = image.shape[:2]
    return _resize(image, int(height * rescale), int(width * rescale)), (height, width)


# ONNX --------------------------------------------------------------------------------------

def onnx_graph(path: str) -> Any:
    """The GraphDef of the ONNX model file at ``path`` (inputs and outputs as Variable nodes,
    then one node per ONNX op), as PyTorch builds it; needs the onnx package."""
    onnx = _optional("onnx", "add_onnx_graph")
    from tensorboard.compat.proto.attr_value_pb2 import AttrValue
    from tensorboard.compat.proto.graph_pb2 import GraphDef
    from tensorboard.compat.proto.node_def_pb2 import NodeDef
    from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
    from tensorboard.compat.proto.versions_pb2 import VersionDef

    graph = onnx.load(path).graph
    nodes = []
    for value in list(graph.input) + list(graph.output):
        kind = value.type.tensor_type
        shape = TensorShapeProto(dim=[TensorShapeProto.Dim(size=d.dim_value)
                                      for d in kind.shape.dim])
        nodes.append(NodeDef(name=value.name, op="Variable", input=[],
                             attr={"dtype": AttrValue(type=kind.elem_type),
                                   "shape": AttrValue(shape=shape)}))
    for node in graph.node:
        parameters = ", ".join(" = ".join(str(field[1]) for field in attribute.ListFields())
                               for attribute in node.attribute)
        nodes.append(NodeDef(name=node.output[0], op=node.op_type, input=node.input,
                             attr={"parameters": AttrValue(s=parameters.encode("utf-8"))}))
    return GraphDef(node=nodes, versions=VersionDef(producer=22))
