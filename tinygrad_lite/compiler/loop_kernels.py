"""Loop kernels: one fused group of elementwise ops as generated numba source, compiled through
the on-disk kernel cache, and the callable a replay runs in the group's place.

A ``LoopKernel`` is built by ``loop_fusion`` from a ``KernelPlan``: the group's ops (in order),
the arrays it reads and writes, and the shape it iterates over. Its source is a tensor program
over those arrays: explicit nested loops over the shape, one pass over memory, each op one
typed scalar expression per element (the intermediates live in registers, never in memory).
Only the outermost loop runs on threads (``numba.prange``), and only for very large arrays
(``PARALLEL_MIN_ELEMENTS``, far above ``threads.PARALLEL_MIN_ELEMENTS`` of the hand-written
kernels: in a training step a loop kernel runs right after a BLAS product, whose threads are
still spinning, and waking numba's pool then cost 20-35 ms per call on a 2-core machine, against
0.05-1 ms for the serial loop). The source names no sizes, so every group of the same
structure (each layer's layer norm, each parameter's optimizer update of one kind) shares one
source text, one cache entry and one compiled function.

Dtypes follow NumPy exactly: each op computes in NumPy's loop dtype for its operands (Python
scalars are weak, ``np.result_type`` decides) and rounds its result to the dtype the trace
recorded, so a float32 chain stays float32. Division by zero, NaN and inf behave as in NumPy
(``error_model="numpy"``, no fastmath, so no contraction into fused multiply-adds). The ops a
kernel runs are the correctly rounded ones (``+ - * /``, ``sqrt``, comparisons, selects, casts;
see ``EXPRESSIONS``), so its results are the NumPy replay's, bit for bit.

Compiling happens in the call that traced (``LoopKernel.start``), or, with
``tl._dynamo.config.kernels_in_background = True``, on one background thread while the replays
run each group's original NumPy ops (``fallback``) until its kernel is ready; ``wait`` blocks
until it is done. Measured on the small GPT of bench_models.py on a 2-core machine under heavy
load (load average 14), cold on-disk cache, 214 kernels of 17 structures: compiling in the call
blocked it 12 s, then steps took 2 s; in the background every call took 4-7 s meanwhile (the
traced call took 4 s: numba's compiler holds the interpreter lock much of the time) and all
kernels were ready after 38 s instead of 26 s. From a warm cache the compile costs about 1.5 s
either way. Compiling in the call is the default: it is sooner done, and numba's compiler enters
``warnings.catch_warnings``, which is process-wide: on another thread it can undo a
``catch_warnings`` (a ``pytest.warns``) the program is inside, losing the program's warnings.
"""

from __future__ import annotations

import atexit
import hashlib
import math
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._kernels import cache, threads
from . import logs
from .config import config
from .ir import Const, Op, Ref, callable_name

__all__ = ["KernelPlan", "Arg", "LoopKernel", "EXPRESSIONS", "COMPARISONS", "compile_queue"]

# ufunc -> scalar expression of its (already cast) operands; ``{one}`` is 1 in the loop dtype.
# Only IEEE-exact operations (each correctly rounded, as NumPy's are): a kernel's results are
# the NumPy replay's bits. ``exp``, ``log``, ``tanh``, ``power`` and the like stay NumPy calls
# between kernels: numba's versions are scalar libm calls, several times slower than NumPy's
# vectorised loops (measured: a GELU backward's kernel with ``exp`` took longer than its NumPy
# ops), and differ from them in the last bits (numba's float32 ``tanh`` by hundreds of ulps
# near 0).
EXPRESSIONS: dict[Any, str] = {
    np.add: "({0} + {1})", np.subtract: "({0} - {1})", np.multiply: "({0} * {1})",
    np.true_divide: "({0} / {1})",
    np.maximum: "({0} if ({0} >= {1} or {0} != {0}) else {1})",
    np.minimum: "({0} if ({0} <= {1} or {0} != {0}) else {1})",
    np.negative: "(-{0})", np.positive: "(+{0})", np.absolute: "np.abs({0})",
    np.sqrt: "np.sqrt({0})", np.reciprocal: "({one} / {0})", np.square: "({0} * {0})",
    np.greater: "({0} > {1})", np.greater_equal: "({0} >= {1})", np.less: "({0} < {1})",
    np.less_equal: "({0} <= {1})", np.equal: "({0} == {1})", np.not_equal: "({0} != {1})",
}
COMPARISONS = frozenset({np.greater, np.greater_equal, np.less, np.less_equal, np.equal,
                         np.not_equal})
_NUMBA_DTYPES = {np.dtype(np.float32): "np.float32", np.dtype(np.float64): "np.float64",
                 np.dtype(np.int64): "np.int64", np.dtype(np.int32): "np.int32"}


@dataclass
class Arg:
    """One array the kernel reads or writes: its op template (``Ref``/``Const``), shape,
    dtype, whether its memory is C-ordered, and whether the kernel writes it."""

    template: Any
    shape: tuple
    dtype: np.dtype
    c_order: bool
    written: bool = False


@dataclass
class Step:
    """One op of the group as the kernel computes it: ``form`` (``ufunc``, ``clip``,
    ``where``, ``cast``), its ufunc (for ``ufunc``), operand keys or literal scalars, the key
    it writes, the loop dtype and the result dtype."""

    form: str
    ufunc: Any
    operands: list[Any]  # ("arg", k) | ("reg", key) | ("lit", value) | None (clip's no-bound)
    target: Any  # key of the value it defines (a produced vid or an argument index)
    loop: np.dtype
    result: np.dtype


@dataclass
class KernelPlan:
    """What ``loop_fusion`` hands over: the shape, the arguments (in call order), the steps,
    which argument each stored key goes to, and the original ops (the fallback)."""

    shape: tuple
    args: list[Arg]
    steps: list[Step]
    stores: dict[Any, int]  # key (a value number or ("arg", k)) -> argument index
    ops: list[Op]
    produced: list[int]  # value numbers the group's ops make (materialized or not)
    materialized: list[int] = field(default_factory=list)  # of ``produced``: kernel outputs
    arg_vids: list[int | None] = field(default_factory=list)  # per argument: its Ref's value


def _literal(value: Any, dtype: np.dtype) -> str:
    """``value`` as a typed numba literal of ``dtype`` (exactly: repr of a float round-trips)."""
    if dtype.kind == "b":
        return "True" if bool(value) else "False"
    name = _NUMBA_DTYPES[dtype]
    if dtype.kind in "iu":
        return f"{name}({int(value)})"
    number = float(value)
    if math.isnan(number):
        text = "np.nan"
    elif math.isinf(number):
        text = "np.inf" if number > 0 else "-np.inf"
    else:
        text = repr(number)
    return f"{name}({text})"


def _cast(expr: str, source: np.dtype | None, dtype: np.dtype) -> str:
    """``expr`` (of ``source`` dtype) as ``dtype``; nothing to write when they agree."""
    if source == dtype:
        return expr
    if dtype.kind == "b":
        return f"({expr} != 0)"
    return f"{_NUMBA_DTYPES[dtype]}({expr})"


def generate_source(plan: KernelPlan) -> str:
    """The numba source of ``plan``: ``serial`` and ``parallel`` (threads over the outer loop)
    versions of one loop nest. Sizes come from the arrays, so the text depends only on the
    group's structure."""
    n = len(plan.shape)
    names = [f"a{k}" for k in range(len(plan.args))]
    full = next(k for k, a in enumerate(plan.args) if tuple(a.shape) == tuple(plan.shape))
    index: list[str] = []
    for a in plan.args:
        offset = n - len(a.shape)
        parts = [f"i{offset + j}" if a.shape[j] == plan.shape[offset + j] else "0"
                 for j in range(len(a.shape))]
        index.append(", ".join(parts) if parts else "()")
    body: list[str] = []
    regs: dict[Any, tuple[str, np.dtype]] = {}  # key -> (register, dtype)
    count = 0
    for step in plan.steps:
        operands: list[str | None] = []
        for position, operand in enumerate(step.operands):
            if operand is None:
                operands.append(None)
                continue
            kind, what = operand
            if kind == "lit":
                operands.append(_literal(what, step.loop))
                continue
            key = ("arg", what) if kind == "arg" else what
            if key not in regs:  # first read of an argument: load it
                k = what
                reg = f"x{k}"
                if plan.args[k].shape:
                    body.append(f"{reg} = {names[k]}[{index[k]}]")
                else:  # a 0-d value (a learning rate, a statistic) comes in as a scalar
                    reg = names[k]
                regs[key] = (reg, plan.args[k].dtype)
            reg, dtype = regs[key]
            condition = step.form == "where" and position == 0  # (tested as it is)
            operands.append(reg if condition else _cast(reg, dtype, step.loop))
        count += 1
        reg = f"t{count}"
        expr = _expression(step, operands)
        if not (step.form == "ufunc" and step.ufunc in COMPARISONS):
            expr = _cast(expr, None if step.form != "cast" else step.loop, step.result)
        body.append(f"{reg} = {expr}")
        regs[step.target] = (reg, step.result)
    for key, k in plan.stores.items():
        reg, dtype = regs[key]
        body.append(f"{names[k]}[{index[k]}] = {_cast(reg, dtype, plan.args[k].dtype)}")
    signature = ", ".join(names)
    lines = ["import numba", "import numpy as np", ""]
    for variant, loop in (("serial", "range"), ("parallel", "numba.prange")):
        parallel = variant == "parallel"
        lines += ["", f"@numba.njit(cache=True, nogil=True, error_model=\"numpy\", "
                  f"parallel={parallel})", f"def {variant}({signature}):"]
        sizes = ", ".join(f"n{d}" for d in range(n))
        lines.append(f"    {sizes}{',' if n == 1 else ''} = {names[full]}.shape")
        for d in range(n):
            lines.append("    " * (d + 1) + f"for i{d} in {loop if d == 0 else 'range'}(n{d}):")
        lines += ["    " * (n + 1) + line for line in body]
    return "\n".join(lines) + "\n"


def _expression(step: Step, operands: list[str | None]) -> str:
    if step.form == "ufunc":
        return EXPRESSIONS[step.ufunc].format(*operands, one=_literal(1, step.loop))
    if step.form == "cast":
        return str(operands[0])
    if step.form == "where":
        return f"({operands[1]} if {operands[0]} else {operands[2]})"
    value, low, high = operands  # clip: NumPy's maximum then minimum, NaN kept
    expr = str(value)
    if low is not None:
        expr = EXPRESSIONS[np.maximum].format(expr, low)
    if high is not None:
        expr = EXPRESSIONS[np.minimum].format(expr, high)
    return expr


class _Compiler:
    """The one background thread that compiles kernels, in the order they were asked for."""

    def __init__(self) -> None:
        self.jobs: queue.Queue = queue.Queue()
        self.thread: threading.Thread | None = None
        self.lock = threading.Lock()
        self.modules: dict[str, Any] = {}  # source -> loaded module (shared by equal groups)
        self.closing = False
        self.registered = False

    def submit(self, kernel: LoopKernel) -> None:
        with self.lock:
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._work, name="tl.compile kernels",
                                               daemon=True)
                self.thread.start()
                if not self.registered:
                    atexit.register(self.close)
                    self.registered = True
        self.jobs.put(kernel)

    def close(self) -> None:
        """At exit: drop the kernels not started and let the one compiling finish (a thread
        stopped inside LLVM as the interpreter shuts down can crash it)."""
        self.closing = True
        self.jobs.put(None)
        thread = self.thread
        if thread is not None and thread.is_alive():
            thread.join(timeout=120)

    def _work(self) -> None:
        while True:
            kernel = self.jobs.get()
            try:
                if kernel is None or self.closing:
                    if kernel is None:
                        return
                    kernel.give_up("the interpreter is exiting")
                    continue
                kernel.build(self)
            finally:
                self.jobs.task_done()

    def module(self, name: str, source: str) -> Any:
        found = self.modules.get(source)
        if found is None:
            found = self.modules[source] = cache.load_source(name, source)
            threads.sync_numba_threads()
        return found


compile_queue = _Compiler()
PARALLEL_MIN_ELEMENTS = 1 << 24  # threads only from here (see the module's docstring)


class LoopKernel:
    """A fused group of elementwise ops: called by the replay with the group's arrays, it runs
    the compiled loop kernel once ready and the group's NumPy ops until then."""

    def __init__(self, plan: KernelPlan, number: int) -> None:
        self.plan = plan
        self.source = generate_source(plan)
        digest = hashlib.sha256(self.source.encode()).hexdigest()[:10]
        self.name = f"loop_{digest}"  # one name per structure: equal groups share it
        self.number = number
        self.ops = [op.label for op in plan.ops]
        self.shape = tuple(plan.shape)
        size = math.prod(plan.shape)
        self.parallel = size >= PARALLEL_MIN_ELEMENTS and plan.shape[0] > 1 and \
            threads.budget() > 1
        short = ", ".join(label.replace("np.", "") for label in self.ops)
        self.ir_label = f"kernel{number}[{short}]"  # the IR table's name of the op
        self.kernel_name = f"kernel{number}"  # the generated replay's name of it
        self.__name__ = self.kernel_name
        self.scalars = [k for k, a in enumerate(plan.args) if not a.shape]
        self.compiled: Any = None
        self.error: str | None = None
        self.compile_seconds: float | None = None
        self._done = threading.Event()

    def __repr__(self) -> str:
        state = "ready" if self.compiled is not None else (
            f"failed: {self.error}" if self.error else "compiling")
        return (f"<{self.kernel_name} {self.name} over {self.shape}: "
                f"{' -> '.join(self.ops)} ({state})>")

    @property
    def ready(self) -> bool:
        """Whether the compiled kernel runs (else the NumPy ops do)."""
        return self.compiled is not None

    def start(self) -> None:
        """Compile now, or on the background thread (``config.kernels_in_background``)."""
        if config.kernels_in_background:
            compile_queue.submit(self)
        else:
            self.build(compile_queue)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until compiling ended; whether the kernel is ready."""
        self._done.wait(timeout)
        return self.ready

    def build(self, compiler: _Compiler) -> None:
        """Load the source from the kernel cache and compile it for the arguments' types."""
        start = time.perf_counter()
        try:
            module = compiler.module(self.name, self.source)
            dispatcher = getattr(module, "parallel" if self.parallel else "serial")
            dispatcher.compile(self._signature())
            self.compiled = dispatcher
        except Exception as error:  # noqa: BLE001 - the NumPy ops keep running
            self.error = f"{type(error).__name__}: {error}"
            logs.report("fusion", f"{self.kernel_name} could not be compiled ({self.error}); "
                        "its NumPy ops run instead")
        finally:
            self.compile_seconds = time.perf_counter() - start
            self._done.set()

    def give_up(self, reason: str) -> None:
        """Never compile (its NumPy ops keep running)."""
        self.error = reason
        self._done.set()

    def _signature(self) -> tuple:
        """numba's argument types, from the traced arrays' dtypes, ranks and layouts."""
        import numba  # optional dependency: only the numba backend gets here

        types = []
        for arg in self.plan.args:
            template = arg.template
            if not arg.shape:
                types.append(numba.from_dtype(arg.dtype))
                continue
            if isinstance(template, Const):
                types.append(numba.typeof(template.obj))
                continue
            base = numba.from_dtype(arg.dtype)
            array_type: Any = numba.types.Array
            types.append(array_type(base, len(arg.shape), "C" if arg.c_order else "A"))
        return tuple(types)

    def __call__(self, *arrays: np.ndarray) -> None:
        compiled = self.compiled
        if compiled is None:
            self.fallback(*arrays)
            return
        scalars = self.scalars
        if scalars:  # a 0-d value is a 0-d array or a NumPy scalar: the kernel takes a scalar
            given = list(arrays)
            for k in scalars:
                given[k] = given[k][()]
            arrays = tuple(given)
        try:
            compiled(*arrays)
        except Exception as error:  # noqa: BLE001 - argument types it was not compiled for
            # (numba types the arguments before the kernel runs: nothing was written)
            self.compiled, self.error = None, f"{type(error).__name__}: {error}"
            logs.report("fusion", f"{self.kernel_name} failed ({self.error}); its NumPy ops "
                        "run instead")
            self.fallback(*arrays)

    def fallback(self, *arrays: np.ndarray) -> None:
        """The group's original NumPy ops, on the given arrays (while the kernel compiles)."""
        plan = self.plan
        env: dict[int, Any] = {}
        produced = set(plan.produced)
        for vid, arr in zip(plan.arg_vids, arrays):
            if vid is not None and vid not in produced:
                env[vid] = arr
        for op in plan.ops:
            args = _resolve(op.args, env)
            kwargs = _resolve(op.kwargs, env)
            if op.kind == "method":
                result = getattr(args[0], op.target)(*args[1:], **kwargs)
            else:
                result = op.target(*args, **kwargs)
            if op.outputs:
                env[op.outputs[0]] = result
        for vid in plan.materialized:
            k = plan.arg_vids.index(vid)
            np.copyto(arrays[k], env[vid])


def _resolve(template: Any, env: dict[int, Any]) -> Any:
    kind = type(template)
    if kind is Ref:
        return env[template.vid]
    if kind is Const:
        return template.obj
    if kind is tuple or kind is list:
        return kind(_resolve(t, env) for t in template)
    if kind is dict:
        return {k: _resolve(v, env) for k, v in template.items()}
    return template


def describe(kernels: list[LoopKernel]) -> str:
    """One line per kernel: its number, structure name, shape and the ops it fused."""
    return "\n".join(f"kernel{k.number} {k.name} {k.shape}: " + ", ".join(
        callable_name(op.target) if op.kind == "call" else op.label for op in k.plan.ops)
        for k in kernels)
