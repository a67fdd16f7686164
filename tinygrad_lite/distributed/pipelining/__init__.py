"""``tl.distributed.pipelining``: pipeline parallelism with ``torch.distributed.pipelining``'s
API over the MPI process groups. A model is cut into stages (by hand, or by ``pipeline`` at
``split_spec`` paths and ``pipe_split()`` marks), each stage runs on a rank as a
``PipelineStage``, and a schedule (``ScheduleGPipe``, ``Schedule1F1B``,
``ScheduleInterleaved1F1B``) runs the microbatches of a batch through them, activations and
gradients moving between ranks with non-blocking point-to-point messages.
"""

from .microbatch import TensorChunkSpec, merge_chunks, split_args_kwargs_into_chunks
from .schedules import (
    PipelineScheduleMulti,
    PipelineScheduleSingle,
    Schedule1F1B,
    ScheduleGPipe,
    ScheduleInterleaved1F1B,
    get_schedule_class,
)
from .splitting import Pipe, SplitPoint, pipe_split, pipeline
from .stage import PipelineStage, PipeliningShapeError, build_stage

__all__ = ["Pipe", "PipelineStage", "SplitPoint", "pipe_split", "pipeline", "build_stage",
           "PipelineScheduleSingle", "PipelineScheduleMulti", "ScheduleGPipe", "Schedule1F1B",
           "ScheduleInterleaved1F1B", "get_schedule_class", "TensorChunkSpec",
           "split_args_kwargs_into_chunks", "merge_chunks", "PipeliningShapeError"]
