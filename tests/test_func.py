"""tl.func transforms against torch.func (float64): grad (argnums, has_aux, nesting),
grad_and_value, vjp, jvp, jacrev/jacfwd, hessian, vmap (in_dims/out_dims, nested structures,
composed with grad) and functional_call (gradients w.r.t. a parameter dict)."""

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite import func as tf

torch = pytest.importorskip("torch")
TF = torch.func
rng = np.random.default_rng(0)
X, Y = rng.standard_normal(4), rng.standard_normal(4)
M = rng.standard_normal((3, 4))


def both(fn):
    """``fn(tl)`` and ``fn(torch)``: one definition, written against either library."""
    return fn(tl), fn(torch)


def close(ours, theirs):
    if isinstance(ours, (tuple, list)):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            close(o, t)
    elif isinstance(ours, dict):
        assert ours.keys() == theirs.keys()
        for k in ours:
            close(ours[k], theirs[k])
    else:
        assert not ours.requires_grad  # results leave the transforms detached
        np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_grad_argnums_and_aux():
    def f(m):
        return lambda x, y: ((x.sin() * y).sum() + (x * x).sum(), x.cos())
    (fa, ft) = both(f)
    a, b = (tl.tensor(X), tl.tensor(Y)), (torch.tensor(X), torch.tensor(Y))
    close(tf.grad(fa, has_aux=True)(*a), TF.grad(ft, has_aux=True)(*b))
    close(tf.grad(fa, argnums=(0, 1), has_aux=True)(*a),
          TF.grad(ft, argnums=(0, 1), has_aux=True)(*b))
    close(tf.grad_and_value(fa, argnums=1, has_aux=True)(*a),
          TF.grad_and_value(ft, argnums=1, has_aux=True)(*b))
    with pytest.raises(RuntimeError, match="scalar"):
        tf.grad(lambda x: x * 2)(tl.tensor(X))


def test_nested_transforms_give_higher_derivatives():
    def f(m):
        return lambda x: (x ** 3).sum() + (x.sin() * x).sum()
    fa, ft = both(f)
    a, b = tl.tensor(X), torch.tensor(X)
    close(tf.grad(lambda x: tf.grad(fa)(x).sum())(a), TF.grad(lambda x: TF.grad(ft)(x).sum())(b))
    close(tf.hessian(fa)(a), TF.hessian(ft)(b))
    close(tf.jacrev(tf.grad(fa))(a), TF.jacrev(TF.grad(ft))(b))


def test_jacobians_of_vector_functions_and_several_arguments():
    def f(m):
        return lambda x, w: (w @ x).tanh()
    fa, ft = both(f)
    a, b = (tl.tensor(X), tl.tensor(M)), (torch.tensor(X), torch.tensor(M))
    close(tf.jacrev(fa)(*a), TF.jacrev(ft)(*b))
    close(tf.jacfwd(fa, argnums=(0, 1))(*a), TF.jacfwd(ft, argnums=(0, 1))(*b))


def test_vjp_and_jvp():
    def f(m):
        return lambda x, y: (x.exp() * y, (x * y).sum())
    fa, ft = both(f)
    a, b = (tl.tensor(X), tl.tensor(Y)), (torch.tensor(X), torch.tensor(Y))
    out_a, fn_a = tf.vjp(fa, *a)
    out_b, fn_b = TF.vjp(ft, *b)
    close(out_a, out_b)
    cot = (rng.standard_normal(4), np.array(0.7))
    close(fn_a(tuple(tl.tensor(c) for c in cot)), fn_b(tuple(torch.tensor(c) for c in cot)))
    tangents = (rng.standard_normal(4), rng.standard_normal(4))
    close(tf.jvp(fa, a, tuple(tl.tensor(t) for t in tangents)),
          TF.jvp(ft, b, tuple(torch.tensor(t) for t in tangents)))
    with pytest.raises(RuntimeError, match="cotangents"):
        fn_a((tl.ones(4),))


def test_vmap_in_dims_out_dims_and_structures():
    def f(m):
        return lambda row, v: {"dot": (row * v).sum(), "scaled": (row * 2, v)}
    fa, ft = both(f)
    close(tf.vmap(fa, in_dims=(0, None))(tl.tensor(M), tl.tensor(X)),
          TF.vmap(ft, in_dims=(0, None))(torch.tensor(M), torch.tensor(X)))
    close(tf.vmap(lambda c: c * 3, in_dims=1, out_dims=1)(tl.tensor(M)),
          TF.vmap(lambda c: c * 3, in_dims=1, out_dims=1)(torch.tensor(M)))
    # per-sample gradients: vmap over grad
    loss = both(lambda m: lambda w, x: ((w @ x).tanh() ** 2).sum())
    w = rng.standard_normal((2, 4))
    close(tf.vmap(tf.grad(loss[0]), in_dims=(None, 0))(tl.tensor(w), tl.tensor(M)),
          TF.vmap(TF.grad(loss[1]), in_dims=(None, 0))(torch.tensor(w), torch.tensor(M)))
    with pytest.raises(ValueError, match="same size"):
        tf.vmap(lambda a, b: a + b)(tl.ones(2), tl.ones(3))


def test_vmap_keeps_gradients_flowing_to_the_inputs():
    x = tl.tensor(M, requires_grad=True)
    tf.vmap(lambda r: (r ** 2).sum())(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * M)


def test_functional_call_with_parameter_dicts():
    layer = tl.nn.Linear(4, 2).double()
    theirs = torch.nn.Linear(4, 2).double()
    params = {"weight": rng.standard_normal((2, 4)), "bias": rng.standard_normal(2)}
    ours_p = {k: tl.tensor(v) for k, v in params.items()}
    theirs_p = {k: torch.tensor(v) for k, v in params.items()}
    before = layer.weight.detach().numpy().copy()
    close(tf.functional_call(layer, ours_p, (tl.tensor(X),)).detach(),
          TF.functional_call(theirs, theirs_p, (torch.tensor(X),)))
    assert np.array_equal(layer.weight.detach().numpy(), before)  # originals restored
    close(tf.grad(lambda p, x: tf.functional_call(layer, p, (x,)).pow(2).sum())(
        ours_p, tl.tensor(X)),
          TF.grad(lambda p, x: TF.functional_call(theirs, p, (x,)).pow(2).sum())(
        theirs_p, torch.tensor(X)))
    with pytest.raises(RuntimeError, match="Missing key"):
        tf.functional_call(layer, {"weight": ours_p["weight"]}, (tl.tensor(X),), strict=True)


def test_stack_module_state_ensembles_with_vmap():
    """PyTorch's model-ensembling recipe: stacked parameters, vmap over functional_call."""
    from tinygrad_lite.func import functional_call, stack_module_state, vmap

    models = [tl.nn.Linear(3, 2) for _ in range(4)]
    params, buffers = stack_module_state(models)
    assert {k: tuple(v.shape) for k, v in params.items()} == {"weight": (4, 2, 3),
                                                              "bias": (4, 2)}
    assert all(v.is_leaf and v.requires_grad for v in params.values()) and buffers == {}
    x = tl.randn(5, 3)
    out = vmap(lambda p, xx: functional_call(models[0], p, (xx,)), in_dims=(0, None))(params, x)
    expected = tl.stack([m(x) for m in models])
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-6)
    out.sum().backward()
    assert params["weight"].grad is not None and models[0].weight.grad is None
    with pytest.raises(RuntimeError, match="at least one model"):
        stack_module_state([])
    models[1].eval()
    with pytest.raises(RuntimeError, match="training/eval"):
        stack_module_state(models)
    with tl.autograd.inference_mode(), tl.autograd.set_multithreading_enabled(False):
        assert not tl.is_grad_enabled()


def test_vmap_randomness_modes():
    """'error' (the default) refuses random operations inside, 'same' gives every sample the
    same draws (PyTorch's values under a seed), 'different' independent ones; an unknown mode
    is refused; dropout in eval mode draws nothing."""
    x = np.ones((3, 4))
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="randomness error mode"):
            lib.func.vmap(lambda r, lib=lib: r + lib.rand(()))(lib.tensor(x))
        with pytest.raises(RuntimeError, match="randomness error mode"):
            lib.func.vmap(lambda r, lib=lib: lib.nn.functional.dropout(r, 0.5))(lib.tensor(x))
        with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
            lib.func.vmap(lambda r: r, randomness="bad")
    ours, theirs = both(lambda lib: lib.func.vmap(
        lambda r: lib.nn.functional.dropout(r, 0.5, training=False))(lib.tensor(x)))
    close(ours, theirs)
    tl.manual_seed(0)
    torch.manual_seed(0)
    ours, theirs = both(lambda lib: lib.func.vmap(lambda r: r * lib.rand(4),
                                                  randomness="same")(lib.tensor(x)))
    close(ours, theirs)
    assert float(tl.rand(())) == float(torch.rand(()))  # the generators advanced alike
    different = tl.func.vmap(lambda r: r * tl.rand(4), randomness="different")(tl.tensor(x))
    assert len({tuple(row) for row in different.tolist()}) == 3


def test_vmap_refuses_outputs_that_are_not_tensors():
    for lib in (tl, torch):
        with pytest.raises(ValueError, match="must only return Tensors, got type <class 'float'>"):
            lib.func.vmap(lambda r: 3.0)(lib.tensor(M))
        assert lib.func.vmap(lambda r: 3.0, out_dims=None)(lib.tensor(M)) == 3.0


def test_linearize_gives_output_and_reusable_jvp():
    def f(lib):
        return lambda a, b: (a * b).sin()

    a, b = rng.standard_normal(3), rng.standard_normal(3)
    runs = []
    for lib in (tl, torch):
        out, jvp_fn = lib.func.linearize(f(lib), lib.tensor(a), lib.tensor(b))
        runs.append((out, jvp_fn(lib.tensor(X[:3]), lib.tensor(Y[:3])),
                     jvp_fn(lib.ones(3, dtype=lib.float64), lib.zeros(3, dtype=lib.float64))))
    close(runs[0], runs[1])
    assert not runs[0][1].requires_grad
    _, jvp_fn = tf.linearize(lambda v: v.exp(), tl.tensor(a))
    with pytest.raises(RuntimeError, match="shape"):
        jvp_fn(tl.ones(4))


def test_replace_all_batch_norm_modules():
    """The per-sample-gradient recipe's helper: batch norms stop tracking running statistics
    (their buffers leave the state dict) and normalise with batch statistics in eval mode too,
    as PyTorch's."""
    results = []
    for lib in (tl, torch):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Conv2d(1, 2, 3), lib.nn.BatchNorm2d(2),
                                  lib.nn.Flatten())
        assert lib.func.replace_all_batch_norm_modules_(model) is model
        assert sorted(model.state_dict()) == ["0.bias", "0.weight", "1.bias", "1.weight"]
        assert not model[1].track_running_stats and model[1].running_mean is None
        model.eval()
        x = lib.tensor(M[:2, :, None, None].repeat(4, 2).repeat(4, 3)[:, :1])
        results.append(model(x.float()))
    np.testing.assert_allclose(results[0].detach().numpy(), results[1].detach().numpy(),
                               atol=1e-5)
