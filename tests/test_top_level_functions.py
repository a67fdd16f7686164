"""Top-level ``torch.*`` functions PyTorch programs call (range, scalar_tensor, fill, asarray,
frombuffer, empty_strided, gradient, histogramdd, the Frobenius and nuclear norms): values,
gradients and errors against PyTorch, called the same way on both."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

rng = np.random.default_rng(11)

IMG = rng.standard_normal((2, 4, 5, 5))

SEQ = rng.standard_normal((2, 4, 7))

VOL = rng.standard_normal((1, 2, 4, 4, 4))

W2 = rng.standard_normal((6, 4, 3, 3))

W1 = rng.standard_normal((6, 4, 3))

W3 = rng.standard_normal((3, 2, 2, 2, 2))

B6 = rng.standard_normal(6)

X, Y, Z = (rng.standard_normal((4, 5)) for _ in range(3))

SIGN = np.array([1.0, -1.0, 1.0, -1.0])

C4, P4 = rng.standard_normal(4), np.abs(rng.standard_normal(4)) + 0.5



def test_range_is_inclusive_and_deprecated():
    cases = [(0, 4), (0, 1, 0.25), (0, 10, 3), (4, 0, -1), (0, 1, 0.3)]
    for args in cases:
        with pytest.warns(UserWarning, match="torch.range is deprecated"):
            ours = tl.range(*args)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = torch.range(*args)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
        assert ours.dtype == tl.float32
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert tl.range(0, 3, dtype=tl.int64).tolist() == [0, 1, 2, 3]
        with pytest.raises(RuntimeError, match="inconsistent with step sign"):
            tl.range(4, 0)



def test_scalar_tensor_fill_and_asarray():
    for value, kw in [(3, {}), (True, {}), (2.5, {"dtype": tl.int64})]:
        ours = tl.scalar_tensor(value, **kw)
        theirs = torch.scalar_tensor(value, **{k: torch.int64 for k in kw})
        assert ours.shape == () and ours.item() == theirs.item()
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    filled = tl.fill(tl.ones(2, dtype=tl.int64), 2.7)
    assert filled.tolist() == [2, 2] and filled.dtype == tl.int64
    v = tl.tensor(3.0, requires_grad=True)
    x = tl.ones(3, requires_grad=True)
    out = tl.fill(x, v)
    (out * tl.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert out.tolist() == [3.0] * 3 and v.grad.item() == 6.0 and x.grad.tolist() == [0.0] * 3
    with pytest.raises(RuntimeError, match="0-dimension value tensor"):
        tl.fill(tl.ones(2), tl.tensor([3.0]))
    t = tl.ones(3)
    assert tl.asarray(t) is t and tl.asarray(t, copy=True) is not t
    arr = np.arange(3.0)
    shared = tl.asarray(arr)
    arr[0] = 7.0
    assert shared.tolist() == [7.0, 1.0, 2.0] and shared.dtype == tl.float64
    assert tl.asarray(arr, dtype=tl.float32).dtype == tl.float32
    assert tl.asarray([1, 2]).dtype == tl.int64 and tl.asarray(3.5).dtype == tl.float32
    assert tl.asarray([1.0], requires_grad=True).requires_grad



def test_frombuffer_shares_memory():
    buf = bytearray(b"\x01\x00\x00\x00\x02\x00\x00\x00")
    ours = tl.frombuffer(buf, dtype=tl.int32)
    theirs = torch.frombuffer(bytearray(buf), dtype=torch.int32)
    assert ours.tolist() == theirs.tolist() == [1, 2]
    buf[0] = 5
    assert ours.tolist() == [5, 2]
    assert tl.frombuffer(bytearray(8), dtype=tl.float32, count=1, offset=4).tolist() == [0.0]
    assert tl.frombuffer(b"abc", dtype=tl.uint8).tolist() == [97, 98, 99]
    with pytest.raises(ValueError, match="multiple of element size"):
        tl.frombuffer(bytearray(6), dtype=tl.float32)



def test_empty_strided_and_permuted_report_torch_strides():
    for size, stride in [((2, 3), (1, 2)), ((2, 3, 4), (12, 4, 1)), ((4, 0), (1, 1))]:
        assert tl.empty_strided(size, stride).stride() == torch.empty_strided(size,
                                                                              stride).stride()
    ours, theirs = tl.empty_permuted((2, 3, 5), (0, 2, 1)), torch.empty_permuted((2, 3, 5),
                                                                                  (0, 2, 1))
    assert ours.shape == theirs.shape and ours.stride() == theirs.stride()
    assert tl.empty_strided((2, 2), (2, 1), dtype=tl.int64).dtype == tl.int64
    assert tl.ones(2).new_empty_strided((2, 3), (1, 2)).stride() == (1, 2)



GRADIENT_CASES = [
    ((4,), {}), ((4,), {"spacing": 2.0}), ((4,), {"spacing": [2.0]}),
    ((2, 3), {}), ((2, 3), {"dim": 1, "edge_order": 2}), ((2, 3), {"spacing": [1.0, 2.0]}),
    ((3, 5), {"dim": [1], "spacing": "coords"}), ((3, 5), {"dim": 1, "spacing": "coords",
                                                           "edge_order": 2}),
    ((3, 4, 3), {"dim": (0, 2), "edge_order": 2, "spacing": 0.5}),
]



@pytest.mark.parametrize("shape,kwargs", GRADIENT_CASES)
def test_gradient_matches_torch(shape, kwargs):
    data = rng.standard_normal(shape)
    results = []
    for lib in (tl, torch):
        kw = dict(kwargs)
        if kw.get("spacing") == "coords":
            kw["spacing"] = (lib.tensor([0.0, 1.0, 3.0, 4.0, 7.5], dtype=lib.float64),)
        x = lib.tensor(data, requires_grad=True)
        outs = lib.gradient(x, **kw)
        sum(((o * (k + 1)).sum() for k, o in enumerate(outs)), lib.tensor(0.0)).backward()
        results.append(([o.detach().numpy() for o in outs], x.grad.numpy()))
    for a, b in zip(results[0][0], results[1][0], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-10, atol=1e-12)



def test_gradient_integer_input_and_errors():
    assert tl.gradient(tl.tensor([1, 4, 9, 16]))[0].tolist() == [3.0, 4.0, 6.0, 7.0]
    assert tl.gradient(tl.tensor([1, 4, 9]))[0].dtype == tl.float32
    for bad in (lambda m: m.gradient(m.tensor([1.0])),
                lambda m: m.gradient(m.tensor([1.0, 2.0]), edge_order=2)):
        for lib in (tl, torch):
            with pytest.raises(RuntimeError, match="at least edge_order\\+1"):
                bad(lib)



def test_histogramdd_matches_torch():
    points = rng.standard_normal((50, 2)).astype(np.float32)
    w = rng.uniform(0, 1, 50).astype(np.float32)
    calls = [lambda m, p: m.histogramdd(p, bins=[3, 4]),
             lambda m, p: m.histogramdd(p, bins=2, range=[-1.0, 1.0, 0.0, 2.0], density=True),
             lambda m, p: m.histogramdd(p, bins=[m.tensor([-2.0, 0.0, 2.0]),
                                                 m.tensor([-1.0, 1.0])],
                                        weight=m.tensor(w)),
             lambda m, p: m.histogramdd(p[:2] * 0 + 1, bins=2)]
    for call in calls:
        ours, theirs = call(tl, tl.tensor(points)), call(torch, torch.tensor(points))
        np.testing.assert_allclose(ours.hist.numpy(), theirs.hist.numpy(), rtol=1e-5)
        for a, b in zip(ours.bin_edges, theirs.bin_edges, strict=True):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
        assert ours.hist.dtype == tl.float32



def test_frobenius_and_nuclear_norms():
    a = rng.standard_normal((2, 3, 4))
    for call in (lambda m, t: m.frobenius_norm(t, [1]), lambda m, t: m.frobenius_norm(t, [0, 2],
                                                                                    True),
                 lambda m, t: m.nuclear_norm(t, [1, 2]), lambda m, t: m.nuclear_norm(t[0]),
                 lambda m, t: m.nuclear_norm(t[0], True)):
        grads = []
        for lib in (tl, torch):
            t = lib.tensor(a, requires_grad=True)
            if lib is tl:
                with pytest.warns(UserWarning, match="deprecated"):
                    out = call(lib, t)
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # PyTorch warns once per process
                    out = call(lib, t)
            out.sum().backward()
            grads.append((out.detach().numpy(), t.grad.numpy()))
        np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-10)
        np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-8, atol=1e-12)
