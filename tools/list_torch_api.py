"""Write ``tests/data/torch_api.json``: PyTorch's public names, per module we mirror.

Needs torch installed (it is only the test oracle: the package never imports it). The list is
checked in so that ``tests/test_api_coverage.py`` runs without torch; rerun this after a torch
upgrade and review the diff. A name is public when it does not start with ``_``, is not a module
(except the submodules we mirror, listed as names of their parent) and is defined by torch (not
``typing.Optional``, ``math`` or ``warnings`` re-exported by a torch file); plus the entries of a
module's ``__all__``. For ``torch.Tensor``: its methods and properties and the operator dunders.

    .venv/bin/python tools/list_torch_api.py [--out tests/data/torch_api.json]
"""

from __future__ import annotations

import argparse
import importlib
import json
import types
import warnings
from pathlib import Path
from typing import Any

# The submodules tinygrad_lite mirrors (torch.fft is listed so its coverage shows, though it is
# out of scope: see tests/data/api_out_of_scope.json).
MODULES = (
    "torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.linalg", "torch.optim",
    "torch.optim.lr_scheduler", "torch.utils.data", "torch.autograd", "torch.distributions",
    "torch.func", "torch.special", "torch.fft", "torch.random", "torch.amp", "torch.sparse",
    "torch.multiprocessing", "torch.distributed",
)
# Submodule attributes of ``torch`` that count as names (we mirror them as ``tl.<name>``).
MIRRORED_SUBMODULES = {
    "nn", "linalg", "optim", "utils", "autograd", "distributions", "func", "special", "fft",
    "random", "amp", "sparse", "multiprocessing", "distributed", "backends", "cuda",
    "accelerator", "cpu", "mps", "xpu", "testing", "hub", "jit", "onnx", "profiler",
    "quantization", "overrides", "export", "compiler", "library", "masked", "nested", "mtia",
    "futures", "types", "storage", "serialization", "monitor", "package", "signal", "ao",
    "fx", "quasirandom", "return_types", "version", "ops", "classes",
}
# Plain values (not torch objects) that are public API of ``torch``: the math constants.
CONSTANTS = {"e", "pi", "inf", "nan", "newaxis"}
# Helpers a submodule's file imports for its own use (``F.handle_torch_function``,
# ``F.BroadcastingList2``): they are not the submodule's API, whoever defines them.
REEXPORTED_FROM = {"torch.overrides", "torch._jit_internal", "torch._C"}
# Tensor dunders a program uses through Python syntax or NumPy interop; the rest of
# ``dir(torch.Tensor)``'s dunders are object plumbing (__class__, __reduce_ex__, ...).
TENSOR_DUNDERS = {
    "__abs__", "__add__", "__and__", "__array__", "__bool__", "__contains__", "__deepcopy__",
    "__eq__", "__float__", "__floordiv__", "__ge__", "__getitem__", "__gt__", "__iadd__",
    "__iand__", "__ifloordiv__", "__ilshift__", "__imod__", "__imul__", "__index__", "__int__",
    "__invert__", "__ior__", "__ipow__", "__irshift__", "__isub__", "__iter__", "__itruediv__",
    "__ixor__", "__le__", "__len__", "__lshift__", "__lt__", "__matmul__", "__mod__", "__mul__",
    "__ne__", "__neg__", "__or__", "__pos__", "__pow__", "__radd__", "__rand__", "__reversed__",
    "__rfloordiv__", "__rlshift__", "__rmatmul__", "__rmod__", "__rmul__", "__ror__", "__rpow__",
    "__rrshift__", "__rshift__", "__rsub__", "__rtruediv__", "__rxor__", "__setitem__",
    "__sub__", "__truediv__", "__xor__", "__hash__", "__repr__", "__format__", "__complex__",
    "__dlpack__", "__dlpack_device__", "__torch_function__", "__array_wrap__",
    "__cuda_array_interface__", "__reduce_ex__", "__setstate__",
}


def _torch_defined(obj: Any) -> bool:
    """Whether ``obj`` comes from torch itself (functions, classes, dtypes, builtin ops)."""
    module = getattr(obj, "__module__", None)
    if module is None and not isinstance(obj, type):
        module = getattr(type(obj), "__module__", None)
    return isinstance(module, str) and module.split(".")[0] == "torch"


def public_names(modname: str) -> list[str]:
    """The public names of one torch module (see the module docstring for the rule)."""
    mod = importlib.import_module(modname)
    names = set(getattr(mod, "__all__", ()))
    for name in dir(mod):
        if name.startswith("_"):
            continue
        obj = getattr(mod, name)
        if isinstance(obj, types.ModuleType):
            if modname == "torch" and name in MIRRORED_SUBMODULES:
                names.add(name)
            continue
        if modname == "torch":
            if name in CONSTANTS or _torch_defined(obj):
                names.add(name)
        elif _torch_defined(obj) and not _reexport(obj):
            names.add(name)
    # ``__all__`` may name submodules (torch.utils.data.dataset) or re-exports (torch.fft's
    # Tensor): keep only the submodule's own attributes
    return sorted(n for n in names if not n.startswith("_") and hasattr(mod, n)
                  and (modname == "torch" or not _reexport(getattr(mod, n))))


def _reexport(obj: Any) -> bool:
    """Whether a submodule attribute is something it only imports: a module, torch.Tensor or
    one of the helpers of ``REEXPORTED_FROM``."""
    import torch

    return (isinstance(obj, types.ModuleType) or obj is torch.Tensor
            or getattr(obj, "__module__", None) in REEXPORTED_FROM)


def tensor_names() -> list[str]:
    """``torch.Tensor``'s methods, properties and the operator dunders."""
    import torch

    return sorted(n for n in dir(torch.Tensor)
                  if (not n.startswith("_")) or n in TENSOR_DUNDERS)


def main(argv: list[str] | None = None) -> int:
    """Write the JSON list."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(__file__).resolve().parent.parent / "tests" / "data" / "torch_api.json"
    p.add_argument("--out", type=Path, default=default)
    args = p.parse_args(argv)
    import torch

    warnings.simplefilter("ignore")  # deprecated names warn on getattr (dist.reduce_op)
    modules = {"torch": public_names("torch"), "torch.Tensor": tensor_names()}
    for modname in MODULES[1:]:
        modules[modname] = public_names(modname)
    doc = {"torch_version": torch.__version__.split("+")[0],
           "generated_by": "tools/list_torch_api.py", "modules": modules}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    total = sum(len(v) for v in modules.values())
    print(f"wrote {args.out}: {total} names in {len(modules)} modules "
          f"(torch {doc['torch_version']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
