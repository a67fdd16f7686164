"""``parallelize_module``: apply a tensor-parallel plan (one ParallelStyle, or styles by
submodule name, ``fnmatch`` patterns allowed) to a module over a 1-D DeviceMesh."""

from __future__ import annotations

from fnmatch import fnmatch
from typing import Any

from ...._core.warnings import warn
from ....nn.modules.module import Module
from ...device_mesh import DeviceMesh
from .style import ParallelStyle, mesh_group

__all__ = ["parallelize_module"]


def parallelize_module(module: Module, device_mesh: DeviceMesh | None = None,
                       parallelize_plan: ParallelStyle | dict[str, ParallelStyle] | None = None,
                       *, src_data_rank: int | None = 0) -> Module:
    """Parallelize ``module`` in place by ``parallelize_plan`` and return it. Parameters are
    sharded from group rank ``src_data_rank``'s values (None: each rank's own). Every rank of
    the mesh calls it with the same plan."""
    if device_mesh is None:
        raise ValueError("parallelize_module: pass the DeviceMesh to parallelize over (for a "
                         "2-D mesh, its tensor-parallel dimension: mesh['tp'])")
    mesh_group(device_mesh)  # a 1-D mesh, or a clear error now
    if parallelize_plan is None:
        warn("No parallelize_plan is provided and auto-parallel is not supported at the moment, "
             "so this parallelize_module call will do nothing.")
        return module
    if isinstance(parallelize_plan, ParallelStyle):
        parallelize_plan.src_data_rank = src_data_rank
        return parallelize_plan._apply(module, device_mesh)
    if not isinstance(parallelize_plan, dict):
        raise TypeError("Expect Union[ParallelStyle, Dict[str, ParallelStyle]] for "
                        f"parallelize_plan, {type(parallelize_plan)} found!")
    for path, style in parallelize_plan.items():
        if path == "":
            parallelize_module(module, device_mesh, style, src_data_rank=src_data_rank)
            continue
        token, _, rest = path.partition(".")
        matched: list[Any] = [child for name, child in module.named_children()
                              if fnmatch(name, token)]
        if not matched:
            warn(f"Parallelize plan key '{path}' could not be resolved: no submodule matching "
                 f"token '{token}' in module {type(module).__name__}, skipping this plan entry.")
            continue
        for child in matched:
            parallelize_module(child, device_mesh, {rest: style} if rest else style,
                               src_data_rank=src_data_rank)
    return module
