"""``tl.backends.cpu``: the CPU backend's capability, as NumPy sees it."""

from __future__ import annotations

import numpy as np

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """The widest SIMD level NumPy's kernels can dispatch to here: "AVX512", "AVX2" or
    "DEFAULT" (PyTorch's names)."""
    # NumPy's runtime CPU feature table (a private name, so read defensively)
    features = getattr(getattr(np, "_core", np), "_multiarray_umath", None)
    table = getattr(features, "__cpu_features__", {}) or {}
    if table.get("AVX512F") and table.get("AVX512_SKX"):
        return "AVX512"
    if table.get("AVX2"):
        return "AVX2"
    return "DEFAULT"
