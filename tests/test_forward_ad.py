"""Forward-mode AD with dual tensors (``tl.autograd.forward_ad``): tangents against central
differences and PyTorch, the module patterns of PyTorch's tutorial (parameters swapped for dual
tensors, ``functional_call``), levels and the errors PyTorch raises."""

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.autograd.forward_ad as fwAD  # noqa: N812 - PyTorch's spelling


def _f(a, w):
    return (a.sin() @ w).tanh().sum(1) * 3 + a.exp().mean()


def test_tangent_is_the_directional_derivative():
    rng = np.random.default_rng(0)
    x, t, w = rng.standard_normal((3, 4)), rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    with fwAD.dual_level():
        dual = fwAD.make_dual(tl.tensor(x), tl.tensor(t))
        primal, tangent = fwAD.unpack_dual(_f(dual, tl.tensor(w)))
    eps = 1e-6
    plus = _f(tl.tensor(x + eps * t), tl.tensor(w)).numpy()
    minus = _f(tl.tensor(x - eps * t), tl.tensor(w)).numpy()
    np.testing.assert_allclose(tangent.numpy(), (plus - minus) / (2 * eps), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(primal.numpy(), _f(tl.tensor(x), tl.tensor(w)).numpy())
    assert not primal.requires_grad  # the primal of a plain computation carries no graph


def test_levels_and_what_has_no_tangent():
    x = tl.randn(3, dtype=tl.float64)
    with fwAD.dual_level() as level:
        assert level == 0
        dual = fwAD.make_dual(x, tl.ones(3, dtype=tl.float64))
        assert fwAD.unpack_dual(x).tangent is None  # the plain tensor is not the dual one
        assert fwAD.unpack_dual(tl.randn(2)).tangent is None
        np.testing.assert_array_equal(fwAD.unpack_dual(dual).tangent.numpy(), np.ones(3))
        assert fwAD.unpack_dual(dual).primal is x
        np.testing.assert_array_equal(fwAD.unpack_dual(dual * 0).tangent.numpy(), np.zeros(3))
        out = dual * 2
    assert fwAD.unpack_dual(out).tangent is None  # the level is closed
    level = fwAD.enter_dual_level()
    fwAD.exit_dual_level(level=level)


def test_errors_match_pytorch():
    with pytest.raises(RuntimeError, match="no level exists"):
        fwAD.make_dual(tl.randn(2), tl.randn(2))
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match="different size"):
            fwAD.make_dual(tl.randn(3), tl.randn(4))
        with pytest.raises(ValueError, match="floating point"):
            fwAD.make_dual(tl.arange(3), tl.ones(3))
    outer = fwAD.enter_dual_level()
    fwAD.enter_dual_level()
    with pytest.raises(RuntimeError, match="not the last one"):
        fwAD.exit_dual_level(level=outer)
    fwAD.exit_dual_level()
    fwAD.exit_dual_level()


def _module_tangents(lib, fw, func):
    """The tutorial's two ways of pushing parameter tangents through a module."""
    lib.manual_seed(0)
    rng = np.random.default_rng(0)
    model = lib.nn.Linear(5, 4).double()
    with lib.no_grad():
        model.weight.copy_(lib.tensor(rng.standard_normal((4, 5))))
        model.bias.copy_(lib.tensor(rng.standard_normal(4)))
    inp = lib.tensor(rng.standard_normal((6, 5)))
    params = dict(model.named_parameters())
    tangents = {name: lib.tensor(rng.standard_normal(tuple(p.shape))) for name, p in
                params.items()}
    with fw.dual_level():
        dual_params = {name: fw.make_dual(p, tangents[name]) for name, p in params.items()}
        by_call = fw.unpack_dual(func.functional_call(model, dual_params, inp)).tangent
    with fw.dual_level():
        for name, p in params.items():
            delattr(model, name)
            setattr(model, name, fw.make_dual(p, tangents[name]))
        by_swap = fw.unpack_dual(model(inp)).tangent
    return by_call.detach().numpy(), by_swap.detach().numpy()


def test_module_parameters_as_dual_tensors():
    by_call, by_swap = _module_tangents(tl, fwAD, tl.func)
    np.testing.assert_allclose(by_call, by_swap, rtol=1e-12)


def test_matches_pytorch():
    torch = pytest.importorskip("torch")
    torch_func = pytest.importorskip("torch.func")
    ours = _module_tangents(tl, fwAD, tl.func)
    theirs = _module_tangents(torch, torch.autograd.forward_ad, torch_func)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    rng = np.random.default_rng(3)
    x, t, w = rng.standard_normal((3, 4)), rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    results = []
    for lib, fw in ((tl, fwAD), (torch, torch.autograd.forward_ad)):
        with fw.dual_level():
            dual = fw.make_dual(lib.tensor(x), lib.tensor(t))
            results.append(fw.unpack_dual(_f(dual, lib.tensor(w))).tangent.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


class _ExpWithJvp(tl.autograd.Function):
    """PyTorch tutorial's custom Function with only a forward-mode rule."""

    @staticmethod
    def forward(ctx, x):
        result = tl.exp(x)
        ctx.save_for_forward(result)
        return result

    @staticmethod
    def jvp(ctx, tangent):
        (result,) = ctx.saved_tensors
        return tangent * result


def test_custom_function_with_only_jvp_and_gradcheck_forward_mode():
    x = tl.tensor(np.random.default_rng(5).standard_normal((3, 2)), requires_grad=True)
    tangent = tl.ones(3, 2, dtype=tl.float64)
    with fwAD.dual_level():
        out = _ExpWithJvp.apply(fwAD.make_dual(x, tangent)).sin()
        pushed = fwAD.unpack_dual(out).tangent
    np.testing.assert_allclose(pushed.numpy(), np.cos(np.exp(x.detach().numpy()))
                               * np.exp(x.detach().numpy()), rtol=1e-12)
    assert tl.autograd.gradcheck(_ExpWithJvp.apply, (x,), check_forward_ad=True,
                                 check_backward_ad=False, check_undefined_grad=False,
                                 check_batched_grad=False)
    # both modes on a built-in composite
    assert tl.autograd.gradcheck(lambda a: (a * a.sin()).sum(0), (x,), check_forward_ad=True)

    class WrongJvp(_ExpWithJvp):
        @staticmethod
        def jvp(ctx, tangent):
            (result,) = ctx.saved_tensors
            return 2 * tangent * result

    with pytest.raises(tl.autograd.GradcheckError, match="forward mode"):
        tl.autograd.gradcheck(WrongJvp.apply, (x,), check_forward_ad=True,
                              check_backward_ad=False)
