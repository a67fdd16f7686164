"""einsum as one primitive: the gradient of each operand is itself an einsum of the output
gradient with the other operands, so any equation NumPy accepts is differentiable (to any order)
without decomposing it into matmuls and permutes."""

from __future__ import annotations

import math
import string

import numpy as np

from .. import dtypes
from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from .common import is_array, sum_to, wrap
from .elementwise import cast
from .movement import broadcast_to
from .reduce import mm


def parse(equation: str, shapes: list[tuple]) -> tuple[list[str], str]:
    """The equation with ``...`` spelled out as letters and the output made explicit."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != len(shapes):
        raise RuntimeError(
            f"einsum: the equation '{equation}' has {len(inputs)} operands but "
            f"{len(shapes)} tensors were given"
        )
    used = set(eq)
    spare = [c for c in string.ascii_letters if c not in used]
    ell_rank = 0
    for subs, shape in zip(inputs, shapes):
        letters = len(subs.replace("...", ""))
        if "..." in subs:
            ell_rank = max(ell_rank, len(shape) - letters)
        elif letters != len(shape):
            raise RuntimeError(
                f"einsum: the subscripts '{subs}' name {letters} dimensions but the operand has "
                f"shape {shape} ({len(shape)} dimensions)"
            )
    ell = "".join(spare[:ell_rank])
    out_inputs = []
    for subs, shape in zip(inputs, shapes):
        if "..." in subs:
            n = len(shape) - len(subs.replace("...", ""))
            subs = subs.replace("...", ell[ell_rank - n:] if n else "")
        out_inputs.append(subs)
    if arrow:
        output = rhs.replace("...", ell)
    else:
        counts = {c: "".join(out_inputs).count(c) for c in set("".join(out_inputs))}
        output = ell + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ell))
    return out_inputs, output


def _pair_by_matmul(inputs: list[str], output: str, a: np.ndarray, b: np.ndarray
                    ) -> np.ndarray | None:
    """A two-operand einsum as one (batched) matrix product, as PyTorch computes it: each
    operand transposed to (batch, kept, contracted) letters and folded to 3-D. NumPy's own
    einsum loops over a contraction without BLAS (``bnm,bmk->bnk`` 10x slower than matmul).
    None where that does not apply: other dtypes, a repeated letter (a diagonal), or a letter
    of different sizes in the two operands (broadcasting)."""
    left, right = inputs
    if (a.dtype != b.dtype or a.dtype not in (np.float32, np.float64)
            or len(set(left)) != len(left) or len(set(right)) != len(right)):
        return None
    sizes = dict(zip(left, a.shape))
    if any(sizes.get(c, n) != n for c, n in zip(right, b.shape)):
        return None
    sizes.update(zip(right, b.shape))
    # letters of one operand only that the output drops are summed out first
    a = a.sum(axis=tuple(i for i, c in enumerate(left) if c not in right + output)) \
        if any(c not in right + output for c in left) else a
    left = "".join(c for c in left if c in right + output)
    b = b.sum(axis=tuple(i for i, c in enumerate(right) if c not in left + output)) \
        if any(c not in left + output for c in right) else b
    right = "".join(c for c in right if c in left + output)
    batch = [c for c in output if c in left and c in right]
    kept_left = [c for c in output if c in left and c not in right]
    kept_right = [c for c in output if c in right and c not in left]
    summed = [c for c in left if c in right and c not in output]

    def folded(x: np.ndarray, subs: str, order: list[str], rows: list[str]) -> np.ndarray:
        moved = x.transpose([subs.index(c) for c in order])
        return moved.reshape(math.prod(sizes[c] for c in batch),
                             math.prod(sizes[c] for c in rows), -1)

    product = mm(folded(a, left, batch + kept_left + summed, kept_left),
                 folded(b, right, batch + summed + kept_right, summed))
    letters = batch + kept_left + kept_right
    product = product.reshape(tuple(sizes[c] for c in letters))
    return product.transpose([letters.index(c) for c in output])


def contract(inputs: list[str], output: str, *arrays: np.ndarray) -> np.ndarray:
    """``einsum`` of arrays with explicit subscripts (see ``parse``): two operands through
    BLAS where possible, more through NumPy's contraction-order optimiser."""
    if len(arrays) == 2 and all(x.size for x in arrays):
        result = _pair_by_matmul(inputs, output, *arrays)
        if result is not None:
            return result
    equation = ",".join(inputs) + "->" + output
    return np.asarray(np.einsum(equation, *arrays, optimize=len(arrays) > 2))


def run(equation: str, *operands):
    """``einsum`` on arrays, or the recorded op when any operand is a Tensor."""
    if all(is_array(x) for x in operands):
        inputs, output = equation.split("->")
        return contract(inputs.split(","), output, *operands)
    return einsum(equation, *[x if isinstance(x, TensorBase) else wrap(np.asarray(x))
                              for x in operands])


class EinsumBackward0(Node):
    inputs: list[str]  # each operand's subscripts, see parse
    output: str

    def backward(self, grad):
        operands = self.saved_tensors
        inputs, output = self.inputs, self.output
        grads = []
        for k, (edge, subs) in enumerate(zip(self.next_edges, inputs)):
            if edge is None:
                grads.append(None)
                continue
            others = [(s, x) for i, (s, x) in enumerate(zip(inputs, operands)) if i != k]
            available = set(output).union(*[set(s) for s, _ in others])
            unique = "".join(dict.fromkeys(subs))
            kept = "".join(c for c in unique if c in available)
            eq = ",".join([output] + [s for s, _ in others]) + "->" + kept
            g = run(eq, grad, *[x for _, x in others])
            shape_k = operands[k].shape
            sizes = {c: n for c, n in zip(subs, shape_k)}
            for c, x in [(output, grad)] + others:
                sizes.update({ch: n for ch, n in zip(c, x.shape) if sizes.get(ch, 1) == 1})
            if kept != unique:  # letters summed over only in this operand: broadcast back
                g = g.reshape(tuple(sizes[c] if c in kept else 1 for c in unique))
                g = broadcast_to(g, tuple(sizes[c] for c in unique))
            if len(unique) != len(subs):  # repeated letters (a diagonal): spread with identities
                g = _undiagonal(g, unique, subs, sizes)
            g_shape = g.shape if is_array(g) else g._data.shape
            if g_shape != shape_k:  # a letter of size 1 here, n in another operand: sum it,
                # or n here and 1 in all the others (the gradient's 1): spread it
                g = broadcast_to(g, np.broadcast_shapes(g_shape, shape_k))
            grads.append(sum_to(g, shape_k))
        return tuple(grads)


def _undiagonal(g, unique: str, subs: str, sizes: dict):
    """``g`` (indexed by ``unique``) placed on the diagonals that repeated letters in ``subs``
    denote, via einsum with identity matrices."""
    spare = iter(c for c in string.ascii_letters if c not in subs)
    target, eyes, seen = "", [], set()
    for c in subs:
        if c in seen:
            fresh = next(spare)
            target += fresh
            eyes.append((c + fresh, np.eye(sizes[c], dtype=g.dtype if is_array(g)
                                           else g._data.dtype)))
        else:
            seen.add(c)
            target += c
    eq = ",".join([unique] + [s for s, _ in eyes]) + "->" + target
    return run(eq, g, *[e for _, e in eyes])


def einsum(equation: str, *operands: TensorBase) -> TensorBase:
    """Einstein summation over ``operands`` as NumPy's ``einsum`` (``...`` and implicit output
    supported), with gradients for every operand."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    tensors = [t if isinstance(t, TensorBase) else wrap(np.asarray(t)) for t in operands]
    if not tensors:
        raise RuntimeError("einsum: at least one operand is required")
    dt = dtypes.result_type(*[t._data for t in tensors])
    if dt is dtypes.bfloat16.np:  # NumPy's einsum refuses ml_dtypes' bfloat16: sum in float32
        return cast(einsum(equation, *[cast(t, dtypes.float32.np) for t in tensors]), dt)
    tensors = [cast(t, dt) for t in tensors]
    inputs, output = parse(equation, [t._data.shape for t in tensors])
    try:
        out = contract(inputs, output, *[t._data for t in tensors])
    except ValueError as err:
        shapes = ", ".join(str(t._data.shape) for t in tensors)
        raise RuntimeError(f"einsum: equation '{equation}' does not fit operands of shapes "
                           f"{shapes}: {err}") from None
    if not (grad_state.enabled and any(t._requires_grad for t in tensors)):
        return wrap(out)
    node = EinsumBackward0(*tensors)
    node.save_for_backward(*tensors)
    node.inputs, node.output = inputs, output
    return wrap(out, node)
