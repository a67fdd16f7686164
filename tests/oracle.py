"""PyTorch as the tests' oracle: the same data through both libraries, and their outputs,
dtypes, gradients and errors compared. Imported by test modules that already skip without
torch (importing this module skips them too)."""

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")
_RNG = np.random.default_rng(0)  # upstream gradients for same_grads


def both(fn, *arrays, grad=()):
    """``fn(lib, *tensors)`` with both libraries: outputs and the gradients of ``grad``."""
    results = []
    for lib in (tl, torch):
        tensors = [lib.tensor(a, requires_grad=i in grad) for i, a in enumerate(arrays)]
        out = fn(lib, *tensors)
        if grad:
            (out * lib.tensor(np.arange(out.numel()).reshape(out.shape) % 3 + 1.0)
             ).sum().backward()
        results.append((out.detach().numpy(), [tensors[i].grad.numpy() for i in grad]))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-9, atol=1e-12)
    for a, b in zip(results[0][1], results[1][1], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-12)
    return results[0][0]


def rng(seed=0):
    return np.random.default_rng(seed)


def compare(tl_fn, th_fn, *arrays, grad=True, rtol=1e-10, atol=1e-12):
    """Run both frameworks on float64 copies; compare outputs (tuple outputs: values then
    indices) and, when ``grad``, the gradients of every float input under one upstream."""
    a = [tl.tensor(x, requires_grad=grad and x.dtype.kind == "f") for x in arrays]
    b = [torch.tensor(x, requires_grad=grad and x.dtype.kind == "f") for x in arrays]
    out, ref = tl_fn(*a), th_fn(*b)
    if isinstance(ref, tuple):
        (out, idx), (ref, ref_idx) = out, ref
        np.testing.assert_array_equal(idx.numpy(), ref_idx.numpy())
        assert idx.dtype == tl.int64
    assert tuple(out.shape) == tuple(ref.shape)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=rtol, atol=atol)
    if grad:
        g = rng(9).standard_normal(tuple(ref.shape))
        out.backward(tl.tensor(g))
        ref.backward(torch.tensor(g))
        for x, y in zip(a, b):
            if y.requires_grad:
                np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-9, atol=1e-12)
    return out


def pair(data, requires_grad=True):
    """The same float64 data as a tinygrad_lite and a torch tensor."""
    return (tl.tensor(data, requires_grad=requires_grad),
            torch.tensor(data, requires_grad=requires_grad))


def same(ours, theirs, **tol):
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), equal_nan=True,
                               **tol)


def same_grads(ours_out, theirs_out, ours_in, theirs_in, **tol):
    """Backward the same random upstream gradient through both; compare the inputs' grads."""
    g = _RNG.standard_normal(tuple(theirs_out.shape))
    (ours_out * tl.tensor(g)).sum().backward()
    (theirs_out * torch.tensor(g)).sum().backward()
    for a, b in zip(ours_in, theirs_in):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), **tol)


def same_error(ours, theirs):
    """Both calls raise, and the same type (the first of the MRO that PyTorch raised)."""
    with pytest.raises(Exception) as expected:
        theirs()
    with pytest.raises(expected.type):
        ours()
