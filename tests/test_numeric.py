"""The package's torch.* constants, dtype and device names and aliases, and the numeric
functions of functions/numeric.py (renorm, frexp, vander, unravel_index, matrix_exp) against
PyTorch: values, dtypes, gradients and error types."""
import math

import numpy as np
import pytest

import tinygrad_lite as tl
from tests.oracle import pair, same, same_error, same_grads

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(0)


# -- constants, dtypes, devices -----------------------------------------------------------------
def test_constants_aliases_and_dtype_class():
    for name in ("pi", "e", "inf", "nan"):
        assert (getattr(tl, name) == getattr(torch, name)
                or (math.isnan(getattr(tl, name)) and math.isnan(getattr(torch, name))))
    assert tl.newaxis is None and torch.newaxis is None
    for name in ("int", "short", "long", "half", "double", "float"):
        assert getattr(tl, name).name == str(getattr(torch, name)).split(".")[-1]
    assert isinstance(tl.zeros(2).dtype, tl.dtype)
    assert tl.finfo().dtype == "float32" and tl.iinfo(tl.short).max == 32767


def test_is_complex_and_default_device():
    x = tl.zeros(2)
    assert tl.is_complex(x) is False and x.is_complex() is False
    same_error(lambda: tl.is_complex(1), lambda: torch.is_complex(1))
    assert tl.get_default_device() == "cpu" and isinstance(tl.get_default_device(), tl.device)
    assert str(tl.get_default_device()) == str(torch.get_default_device())
    tl.set_default_device("cpu")
    tl.set_default_device(None)
    tl.set_default_device(tl.device("cpu"))
    with pytest.raises(RuntimeError, match="not compiled with CUDA"):
        tl.set_default_device("cuda")
    with pytest.raises(AssertionError):  # PyTorch's type for an absent CUDA, too
        tl.set_default_device("cuda:0")


def test_clone_detach_vmap_compile():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    c = tl.clone(x)
    (c * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0] and c.data_ptr() != x.data_ptr()
    d = tl.detach(x)
    assert not d.requires_grad and d.grad_fn is None and d.data_ptr() == x.data_ptr()
    with tl.no_grad():
        x.add_(1)
    assert d._version == x._version and d.tolist() == [2.0, 3.0]
    assert tl.vmap is tl.func.vmap
    assert tl.vmap(lambda v: v.sum())(tl.ones(3, 2)).tolist() == [2.0, 2.0, 2.0]
    model = tl.nn.Linear(2, 2)
    compiled = tl.compile(model, backend="inductor", mode="max-autotune")
    assert compiled._orig_mod is model  # PyTorch's OptimizedModule wrapper

    @tl.compile(fullgraph=True)
    def f(v):
        return v * 2

    assert f(tl.ones(1)).tolist() == [2.0]


# -- renorm, frexp, vander, unravel_index, matrix_exp -------------------------------------------
@pytest.mark.parametrize("p,dim,maxnorm", [(2, 0, 1.0), (1, 1, 0.5), (3.5, -1, 2.0),
                                           (math.inf, 1, 1.0), (2, 1, 0.0)])
def test_renorm_matches_pytorch(p, dim, maxnorm):
    data = RNG.standard_normal((3, 4, 2))
    data[1] *= 0.1  # a slice under maxnorm, kept as it is
    a, b = pair(data)
    ours, theirs = tl.renorm(a, p, dim, maxnorm), torch.renorm(b, p, dim, maxnorm)
    same(ours, theirs, rtol=1e-12)
    same_grads(ours, theirs, [a], [b], rtol=1e-10, atol=1e-12)
    y = tl.tensor(data, dtype=tl.float32)
    y.renorm_(p, dim, maxnorm)
    same(y, torch.tensor(data, dtype=torch.float32).renorm(p, dim, maxnorm), rtol=1e-6)


def test_renorm_errors_match_pytorch():
    x, t = tl.ones(2, 3), torch.ones(2, 3)
    for args in ((0, 0, 1.0), (-1, 0, 1.0), (2, 0, -1.0), (2, 2, 1.0)):
        same_error(lambda a=args: tl.renorm(x, *a), lambda a=args: torch.renorm(t, *a))
    same_error(lambda: tl.renorm(tl.ones(3), 2, 0, 1),
                lambda: torch.renorm(torch.ones(3), 2, 0, 1))
    same_error(lambda: tl.renorm(tl.ones(2, 2, dtype=tl.int64), 2, 0, 1),
                lambda: torch.renorm(torch.ones(2, 2, dtype=torch.int64), 2, 0, 1))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_frexp_matches_pytorch(dtype):
    tiny = float(np.finfo(dtype).smallest_subnormal)
    data = np.array([1.0, 0.0, -3.0, 0.3, 1000.0, np.inf, -np.inf, np.nan, tiny, -5 * tiny],
                    dtype=dtype)
    ours, theirs = tl.frexp(tl.tensor(data)), torch.frexp(torch.tensor(data))
    assert ours._fields == ("mantissa", "exponent")
    same(ours.mantissa, theirs.mantissa)
    same(ours.exponent, theirs.exponent)
    same(tl.tensor(data).frexp()[1], theirs[1])


def test_frexp_gradient_and_errors():
    a, b = pair(RNG.standard_normal(5) * 10)
    same_grads(tl.frexp(a).mantissa, torch.frexp(b).mantissa, [a], [b], rtol=1e-15)
    same_error(lambda: tl.frexp(tl.tensor([1, 2])), lambda: torch.frexp(torch.tensor([1, 2])))


@pytest.mark.parametrize("data,n,increasing", [
    ([1.5, -2.0, 0.0], None, False), ([1.5, -2.0, 0.0, 0.5], 3, True),
    ([2.0, 3.0], 1, False), ([2.0, 3.0], 0, True)])
def test_vander_matches_pytorch(data, n, increasing):
    a, b = pair(np.array(data))
    ours, theirs = tl.vander(a, n, increasing), torch.vander(b, n, increasing)
    same(ours, theirs)
    assert ours.requires_grad == theirs.requires_grad  # N <= 1: ones only, outside the graph
    if theirs.requires_grad:  # PyTorch's own vander fails in backward (an in-place cumprod copy):
        # compare with the gradient of its powers
        k = torch.arange(theirs.shape[1], dtype=torch.float64)
        same_grads(ours, b.unsqueeze(1) ** (k if increasing else k.flip(0)), [a], [b])
    for ints, dtype in (([1, 2, 3], "int8"), ([True, False], "bool"), ([4, 5], "int64")):
        same(tl.vander(tl.tensor(np.array(ints, dtype))), torch.vander(torch.tensor(ints)))
    assert not hasattr(tl.Tensor, "vander")


def test_vander_errors_match_pytorch():
    same_error(lambda: tl.vander(tl.ones(2, 2)), lambda: torch.vander(torch.ones(2, 2)))
    same_error(lambda: tl.vander(tl.ones(2), -1), lambda: torch.vander(torch.ones(2), -1))


def test_unravel_index_matches_pytorch():
    for indices, shape in (([4, 1, 5], (2, 3)), (7, (2, 3, 4)), ([[0, 23], [6, -1]], (2, 3, 4)),
                           ([9, -7], [3, 3]), ([2], 5), ([3], ())):
        for dtype in ("int64", "int32"):
            ours = tl.unravel_index(tl.tensor(np.array(indices, dtype)), shape)
            theirs = torch.unravel_index(torch.tensor(np.array(indices, dtype)), shape)
            assert len(ours) == len(theirs)
            for o, t in zip(ours, theirs):
                same(o, t)
    idx, tidx = tl.tensor([1]), torch.tensor([1])
    same_error(lambda: tl.unravel_index(tl.tensor([1.0]), (2,)),
                lambda: torch.unravel_index(torch.tensor([1.0]), (2,)))
    same_error(lambda: tl.unravel_index(tl.tensor([True]), (2,)),
                lambda: torch.unravel_index(torch.tensor([True]), (2,)))
    same_error(lambda: tl.unravel_index(idx, (2, -3)), lambda: torch.unravel_index(tidx, (2, -3)))
    same_error(lambda: tl.unravel_index(idx, (2, 0)), lambda: torch.unravel_index(tidx, (2, 0)))
    same_error(lambda: tl.unravel_index(idx, 2.0), lambda: torch.unravel_index(tidx, 2.0))


@pytest.mark.parametrize("shape,scale", [((3, 3), 0.5), ((2, 4, 4), 3.0), ((1, 1), 1.0),
                                         ((5, 5), 20.0)])
def test_matrix_exp_matches_pytorch(shape, scale):
    data = RNG.standard_normal(shape) * scale
    a, b = pair(data)
    ours, theirs = tl.matrix_exp(a), torch.matrix_exp(b)
    same(ours, theirs, rtol=1e-9, atol=1e-12 * float(np.abs(theirs.detach().numpy()).max()))
    same_grads(ours, theirs, [a], [b], rtol=1e-8,
                atol=1e-10 * float(np.abs(theirs.detach().numpy()).max()))
    # float32: ours is the float64 result rounded once, PyTorch's rounds at every step
    same(tl.linalg.matrix_exp(tl.tensor(data, dtype=tl.float32)),
          torch.linalg.matrix_exp(torch.tensor(data, dtype=torch.float32)), rtol=1e-4,
          atol=1e-5 * float(np.abs(theirs.detach().numpy()).max()))


def test_matrix_exp_second_order_and_edges():
    a, b = pair(RNG.standard_normal((3, 3)))
    (ga,) = tl.autograd.grad(tl.matrix_exp(a).sin().sum(), a, create_graph=True)
    (gb,) = torch.autograd.grad(torch.matrix_exp(b).sin().sum(), b, create_graph=True)
    same_grads(ga, gb, [a], [b], rtol=1e-8, atol=1e-10)
    assert tl.matrix_exp(tl.ones(2, 0, 0)).shape == (2, 0, 0)
    same(tl.matrix_exp(tl.zeros(2, 2)), torch.matrix_exp(torch.zeros(2, 2)))
    same(tl.matrix_exp(tl.full((2, 2), math.nan)), torch.matrix_exp(torch.full((2, 2), math.nan)))
    same(tl.matrix_exp(tl.full((2, 2), 1000.0)), torch.matrix_exp(torch.full((2, 2), 1000.0)))
    for bad in (lambda m: m.ones(3), lambda m: m.ones(2, 3), lambda m: m.ones(2, 2, dtype=m.long)):
        same_error(lambda bad=bad: tl.matrix_exp(bad(tl)),
                    lambda bad=bad: torch.matrix_exp(bad(torch)))
