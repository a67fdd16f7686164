"""The catalogue's table: ``row(...)`` adds one op with its NumPy reference; ``make_inputs``
draws a row's float64 inputs from its value domain."""

from __future__ import annotations

import numpy as np

CATALOG: list[tuple[str, object, list[tuple], str]] = []
REFERENCE: dict[str, object] = {}
SAME = "same"  # the row's function applied to NumPy arrays is its own reference
NO_FLOAT16: set[str] = set()  # rows PyTorch refuses in float16 (linear algebra): must raise


def row(name: str, fn, shapes: list[tuple], domain: str, reference=SAME) -> None:
    """Add one op (or variant) to the catalogue, with its NumPy reference."""
    assert name not in REFERENCE, f"duplicate catalogue id {name}"
    CATALOG.append((name, fn, shapes, domain))
    REFERENCE[name] = reference


def make_inputs(shapes: list[tuple], domain: str, seed: int = 0) -> list[np.ndarray]:
    """Random float64 inputs of ``shapes`` drawn from ``domain``."""
    rng = np.random.default_rng(seed)
    arrays = []
    for shape in shapes:
        size = int(np.prod(shape, dtype=np.int64))
        if domain == "positive":
            a = rng.uniform(0.5, 2.0, size)
        elif domain == "nonzero":
            a = rng.uniform(0.5, 2.0, size) * rng.choice([-1.0, 1.0], size)
        elif domain == "unit":
            a = rng.uniform(-0.9, 0.9, size)
        elif domain == "distinct":
            a = rng.permutation(size).astype(np.float64) * 0.25 - size / 8 + 0.1 * len(arrays)
        else:
            a = rng.standard_normal(size)
        arrays.append(a.reshape(shape))
    return arrays
