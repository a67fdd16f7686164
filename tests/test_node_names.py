"""The names of the nodes ops record (``grad_fn``), against PyTorch's: what ``print(y)``,
``repr(y.grad_fn)``, ``type(y.grad_fn).__name__`` and graph drawings show. Composites recorded
as one node of another op (``sqrt`` as pow's, ``t`` as a permute) carry PyTorch's name for the
op; the gradient is unchanged. Composites that record several nodes keep their last node's
name (README, differences from PyTorch)."""

from __future__ import annotations

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

OPS = {
    "sqrt": lambda lib, x: x.abs().sqrt(),
    "rsqrt": lambda lib, x: (x * x + 1).rsqrt(),
    "reciprocal": lambda lib, x: lib.reciprocal(x),
    "exp2": lambda lib, x: lib.exp2(x),
    "pow-scalar": lambda lib, x: x ** 3,
    "pow-tensor": lambda lib, x: lib.pow(x.abs() + 1, x),
    "pow-number-base": lambda lib, x: 2 ** x,
    "digamma": lambda lib, x: lib.digamma(x.abs() + 1),
    "t": lambda lib, x: x.t(),
    "t-1d": lambda lib, x: x[0].t(),
    "transpose": lambda lib, x: x.transpose(0, 1),
    "swapaxes": lambda lib, x: x.swapaxes(0, 1),
    "mT": lambda lib, x: x.mT,
    "permute": lambda lib, x: x.permute(1, 0),
    "squeeze-all": lambda lib, x: x[None].squeeze(),
    "squeeze-dim": lambda lib, x: x[None].squeeze(0),
    "squeeze-dims": lambda lib, x: x[None].squeeze((0,)),
    "unsqueeze": lambda lib, x: x.unsqueeze(1),
    "max-dim": lambda lib, x: x.max(1).values,
    "min-dim-keepdim": lambda lib, x: x.min(0, keepdim=True).values,
    "sort": lambda lib, x: x.sort(1).values,
    "topk": lambda lib, x: x.topk(2).values,
    "cummax": lambda lib, x: x.cummax(1).values,
    "cummin": lambda lib, x: x.cummin(0).values,
    "gather": lambda lib, x: x.gather(1, lib.tensor([[0], [2], [1]])),
    "index_select": lambda lib, x: x.index_select(0, lib.tensor([2, 0])),
    "take": lambda lib, x: lib.take(x, lib.tensor([0, 5])),
    "masked_fill": lambda lib, x: x.masked_fill(x > 0, 0.5),
    "tril": lambda lib, x: x.tril(),
    "triu": lambda lib, x: x.triu(1),
    "flip": lambda lib, x: x.flip(0),
    "bmm": lambda lib, x: lib.bmm(x[None], x.t()[None]),
    "max_pool2d": lambda lib, x: lib.nn.functional.max_pool2d(x[None, None], 1),
    "max_pool3d": lambda lib, x: lib.nn.functional.max_pool3d(x[None, None, None], 1),
}


def _name(lib, node) -> str:
    return type(node).__name__ if lib is torch else node.name()


@pytest.mark.parametrize("op", sorted(OPS))
def test_node_name_is_pytorchs(op):
    data = np.random.default_rng(0).standard_normal((3, 4))
    names = []
    for lib in (tl, torch):
        x = lib.tensor(data, requires_grad=True)
        names.append(_name(lib, OPS[op](lib, x).grad_fn))
    assert names[0] == names[1]


@pytest.mark.parametrize("op", ["sqrt", "t", "transpose", "squeeze-dim", "max-dim",
                                "gather", "bmm"])
def test_renamed_node_keeps_its_rule_and_type(op):
    """The class is PyTorch's (``type(grad_fn).__name__`` too) and the gradient is right."""
    data = np.random.default_rng(1).standard_normal((3, 4))
    grads = []
    for lib in (tl, torch):
        x = lib.tensor(data, requires_grad=True)
        y = OPS[op](lib, x)
        assert type(y.grad_fn).__name__ == _name(torch, OPS[op](torch, torch.tensor(
            data, requires_grad=True)).grad_fn)
        (y * lib.tensor(np.arange(y.numel()).reshape(tuple(y.shape)) % 3 + 1.0)).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_rename_refuses_a_node_of_another_rule():
    """``Node.rename`` only renames a node whose class shares the new class's rule: a
    composite that took another path keeps its own node."""
    from tinygrad_lite.ops.elementwise import SqrtBackward0

    x = tl.tensor([1.0, 4.0], requires_grad=True)
    y = x * 2
    assert SqrtBackward0.rename(y).grad_fn.name() == "MulBackward0"
    z = x ** 0.5
    assert SqrtBackward0.rename(z).grad_fn.name() == "SqrtBackward0"
