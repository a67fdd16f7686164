"""Reductions and scans of float16 and bfloat16 tensors accumulate as PyTorch's CPU kernels do:
sums, means and the scans (cumsum, cumprod, logcumsumexp) in float32, rounding each result once;
prod in the input's own dtype, rounding after every factor. The result keeps the input's dtype,
and the gradients come out as PyTorch's, bit for bit (PyTorch as the oracle; skipped without it).
"""

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

DTYPES = ["float16", "bfloat16"]

# the values that tell the accumulations apart: overflow of a running float16 sum, a product
# that passes through inf, zeros (prod's and cumprod's gradients), many small terms
INPUTS = {
    "overflow": [[6e4, 300.0, 1.0], [6e4, 300.0, 2.0], [-6e4, 1 / 300, 3.0], [1.0, 1 / 300, 4.0]],
    "zeros": [[0.0, 2.0, 3.0], [1.0, 0.0, 0.0]],
    "many": np.random.default_rng(0).uniform(0.5, 1.5, (512, 2)).tolist(),
    "scalar": 3.0,
}

REDUCTIONS = ["sum", "mean", "prod", "nansum", "nanmean"]
SCANS = ["cumsum", "cumprod", "logcumsumexp"]


def calls(data):
    ndim = np.ndim(data)
    for op in REDUCTIONS:
        yield op, (), {}
        for dim in range(ndim):
            for keepdim in (False, True):
                yield op, (dim,), {"keepdim": keepdim}
    for op in SCANS:
        for dim in range(max(ndim, 1)):
            yield op, (dim,), {}


CASES = [(dtype, name, op, args, kwargs) for dtype in DTYPES for name in INPUTS
         for op, args, kwargs in calls(INPUTS[name])]


@pytest.mark.parametrize("dtype,name,op,args,kwargs", CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[2]}{c[3]}{c[4]}" for c in CASES])
def test_half_precision_reductions_and_scans_match_pytorch(dtype, name, op, args, kwargs):
    data = np.asarray(INPUTS[name], np.float32)
    tx = torch.tensor(data).to(getattr(torch, dtype)).requires_grad_(True)
    expected = getattr(tx, op)(*args, **kwargs)
    x = tl.tensor(data).to(getattr(tl, dtype)).requires_grad_(True)
    got = getattr(x, op)(*args, **kwargs)
    assert got.dtype == getattr(tl, dtype) and got.shape == tuple(expected.shape)
    # a long product rounds after every factor, and PyTorch's vectorised loop multiplies in
    # another order than one running product: those agree to a few roundings, not bit for bit
    compare = (np.testing.assert_array_equal if (op, name) != ("prod", "many")
               else lambda a, b: np.testing.assert_allclose(a, b, rtol=0.03))
    compare(got.detach().float().numpy(), expected.detach().float().numpy())
    seed = torch.linspace(0.5, 2.0, max(expected.numel(), 1))[:expected.numel()]
    tgrad = seed.reshape(expected.shape).to(expected.dtype)
    (texpected,) = torch.autograd.grad(expected, tx, tgrad)
    (grad,) = tl.autograd.grad(got, x, tl.tensor(tgrad.float().numpy()).to(got.dtype))
    assert grad.dtype == x.dtype
    compare(grad.float().numpy(), texpected.float().numpy())


def test_float16_cumsum_recovers_from_an_intermediate_overflow():
    # the example: PyTorch's running sum is float32, so only the middle entry is inf
    x = tl.tensor([6e4, 6e4, -6e4], dtype=tl.float16)
    expected = torch.tensor([6e4, 6e4, -6e4], dtype=torch.float16).cumsum(0)
    assert x.cumsum(0).tolist() == expected.tolist() == [6e4, float("inf"), 6e4]
    assert x.cumsum(0).dtype == tl.float16
    # an outer-axis sum and a mean whose float16 sum would overflow
    column = x.reshape(3, 1).expand(3, 2)
    assert column.sum(0).tolist() == [6e4, 6e4]
    assert tl.tensor([6e4, 6e4], dtype=tl.float16).mean().item() == 6e4
