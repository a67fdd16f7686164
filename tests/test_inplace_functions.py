"""The torch.* in-place functions (``torch.sqrt_(x)``) and the in-place methods added with them
(``addmm_`` & co, ``float_power_``): values, gradients through the in-place change, and errors
against PyTorch."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")
# every tl.* in-place function (torch.sqrt_ & co), as the functions' declarations make them
TORCH_INPLACE = sorted(name for name in tl.functions.__all__ if name.endswith("_"))

rng = np.random.default_rng(5)

POS = rng.uniform(0.2, 0.9, (3, 4))

REAL = rng.standard_normal((3, 4))



# torch.<name>_ in-place functions: (input array, extra arguments as (tl, torch) makers)
INPLACE_ARGS = {
    "clamp_": (REAL, lambda m: (-0.1, 0.2)), "clip_": (REAL, lambda m: (-0.1, 0.2)),
    "index_put_": (REAL, lambda m: ((m.tensor([0, 2]),), m.tensor(1.5, dtype=m.float64))),
    "clamp_max_": (REAL, lambda m: (0.2,)), "clamp_min_": (REAL, lambda m: (-0.1,)),
    "fill_": (REAL, lambda m: (2.5,)), "gcd_": (np.array([4, 6, 9]), lambda m: (m.tensor(6),)),
    "lcm_": (np.array([4, 6, 9]), lambda m: (m.tensor(6),)),
    "ldexp_": (REAL, lambda m: (m.tensor([1, 2, 0, -1]),)), "logit_": (POS, lambda m: (1e-3,)),
    "nan_to_num_": (np.array([np.nan, np.inf, -1.0]), lambda m: (0.0, 5.0, -5.0)),
    "xlogy_": (REAL, lambda m: (m.tensor(POS),)), "zero_": (REAL, lambda m: ()),
    "addmv_": (REAL[:, 0], lambda m: (m.tensor(REAL), m.tensor(REAL[0]))),
    "i0_": (REAL, lambda m: ()), "conj_physical_": (REAL, lambda m: ()),
    "resize_as_": (REAL, lambda m: (m.ones(2, 6),)),
    "as_strided_": (REAL, lambda m: ((2, 2), (1, 3), 1)),
    "acosh_": (POS + 1.0, lambda m: ()), "arccosh_": (POS + 1.0, lambda m: ()),
    "log_": (POS, lambda m: ()), "log2_": (POS, lambda m: ()), "log10_": (POS, lambda m: ()),
    "sqrt_": (POS, lambda m: ()), "rsqrt_": (POS, lambda m: ()), "reciprocal_": (POS, lambda m: ()),
}



def _fresh(lib, array):
    return lib.tensor(array.copy())



@pytest.mark.parametrize("name", TORCH_INPLACE)
def test_torch_inplace_function_matches_torch(name):
    array, make_args = INPLACE_ARGS.get(name, (POS, lambda m: ()))
    ours, theirs = _fresh(tl, array), _fresh(torch, array)
    version = ours._version_counter[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = getattr(tl, name)(ours, *make_args(tl))
        getattr(torch, name)(theirs, *make_args(torch))
    assert result is ours
    assert ours.shape == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10)
    assert ours._version_counter[0] > version or name == "conj_physical_"



@pytest.mark.parametrize("name", ["sqrt_", "tanh_", "sigmoid_", "abs_", "i0_", "square_"])
def test_inplace_function_is_recorded_for_autograd(name):
    grads = []
    for lib in (tl, torch):
        leaf = lib.tensor(POS, requires_grad=True)
        out = getattr(lib, name)(leaf * 1.5)
        (out * lib.tensor(REAL)).sum().backward()
        grads.append(leaf.grad.numpy())
        with pytest.raises(RuntimeError, match="leaf"):
            getattr(lib, name)(leaf)
    np.testing.assert_allclose(*grads, rtol=1e-10)



@pytest.mark.parametrize("name,shapes", [
    ("addmm_", [(3, 4), (3, 2), (2, 4)]), ("addmv_", [(3,), (3, 4), (4,)]),
    ("addr_", [(3, 4), (3,), (4,)]), ("addbmm_", [(3, 4), (2, 3, 5), (2, 5, 4)]),
    ("baddbmm_", [(2, 3, 4), (2, 3, 5), (2, 5, 4)]),
])
def test_add_product_inplace_methods(name, shapes):
    arrays = [rng.standard_normal(s) for s in shapes]
    results = []
    for lib in (tl, torch):
        leaves = [lib.tensor(a, requires_grad=True) for a in arrays]
        target = leaves[0] * 1.0
        out = getattr(target, name)(leaves[1], leaves[2], beta=0.5, alpha=-2.0)
        assert out is target
        out.pow(2).sum().backward()
        results.append([out.detach().numpy()] + [t.grad.numpy() for t in leaves])
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10)



def test_float_power_inplace_needs_float64():
    x = tl.tensor([1.5, 2.0], dtype=tl.float64)
    assert x.float_power_(2).tolist() == [2.25, 4.0]
    assert x.float_power_(tl.tensor(0.5)).tolist() == [1.5, 2.0]
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="the base given to float_power_ has dtype"):
            lib.ones(2).float_power_(2)


def test_shape_changing_in_place_ops_on_graph_tensors():
    """t_, unsqueeze_, squeeze_, swapdims_ on a tensor in the graph (not a leaf) give it the
    view's node, as PyTorch; a backward that saved the old shape reports the change; leaves
    that require grad are refused with PyTorch's in-place error."""
    torch = pytest.importorskip("torch")
    w = np.arange(6.0).reshape(1, 3, 2)
    grads = []
    for lib in (tl, torch):
        x = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        y = x * 2
        y.t_()
        y.unsqueeze_(0)
        assert tuple(y.shape) == (1, 3, 2)
        (y * lib.tensor(w)).sum().backward()
        grads.append(x.grad.numpy())
        z = x * 2
        product = z * z
        z.swapdims_(0, 1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            product.sum().backward()
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            x.t_()
    np.testing.assert_array_equal(grads[0], grads[1])
