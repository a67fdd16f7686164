"""``tinygrad_lite.utils.benchmark``: PyTorch's ``torch.utils.benchmark`` for Python statements.

``Timer(stmt, setup, globals=...)`` times a statement with a fixed BLAS thread count
(``num_threads``, 1 by default; set through threadpoolctl when installed) and returns
``Measurement`` objects (median, IQR, a readable repr); ``Compare`` prints many of them as
tables. Left out: what needs Valgrind or a C++ toolchain (``Timer.collect_callgrind``,
``CallgrindStats``, C++ statements) and the tensor fuzzers (``Fuzzer`` & co)."""

from .utils.common import (
    Measurement,
    TaskSpec,
    ordered_unique,
    select_unit,
    set_torch_threads,
    trim_sigfig,
    unit_to_english,
)
from .utils.compare import Colorize, Compare
from .utils.timer import Language, Timer, timer

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig",
           "ordered_unique", "set_torch_threads", "Timer", "timer", "Language", "Colorize",
           "Compare"]
