"""Autograd API parity with PyTorch: ``autograd.grad``/``backward`` argument handling, their
error texts, grad-mode decorators on generators, custom Function checks, anomaly/gradcheck and
``autograd.functional`` messages. Each case runs the same code in both libraries."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

LIBS = [tl, torch]


def _err(fn, lib):
    with pytest.raises(Exception) as info:
        fn(lib)
    return type(info.value).__name__, str(info.value)


def _same_error(fn):
    """Both libraries raise the same exception type, and ours starts with PyTorch's text."""
    ours, theirs = _err(fn, tl), _err(fn, torch)
    assert ours[0] == theirs[0] or (ours[0] == "AnomalyError" and theirs[0] == "RuntimeError")
    assert ours[1].startswith(theirs[1].split("\n")[0]), (ours, theirs)


def xs(t):
    return t.tensor([1.0, 2.0, 3.0], requires_grad=True)


@pytest.mark.parametrize("case", [
    lambda t: t.autograd.grad((xs(t) * 2).sum(), [xs(t)]),                    # unused input
    lambda t: t.autograd.grad((xs(t) * t.ones(3)).sum(), t.ones(3)),         # input w/o grad
    lambda t: t.autograd.grad(t.ones(3).sum(), t.ones(3)),                   # output w/o grad
    lambda t: t.autograd.grad((xs(t) * 2).sum(), []),
    lambda t: (xs(t) * 2).sum().backward(inputs=[]),
    lambda t: (xs(t) * 2).sum().backward(inputs=[t.ones(3)]),
    lambda t: (lambda a: t.autograd.grad([a * 2, a * 3], a, [t.ones(3)]))(xs(t)),
    lambda t: t.autograd.grad(xs(t) * 2, xs(t)),
    lambda t: (xs(t) * 2).requires_grad_(False),
], ids=["unused", "input_noreq", "output_noreq", "grad_empty", "backward_empty",
        "backward_input_noreq", "too_few_grads", "implicit_nonscalar",
        "requires_grad_nonleaf"])
def test_grad_and_backward_errors_match(case):
    _same_error(case)


def test_backward_twice_and_version_errors_start_with_pytorch_text():
    def twice(t):
        x = xs(t)
        y = (x * x).sum()
        y.backward()
        y.backward()

    def modified_nonleaf(t):
        x = xs(t)
        h = x * 2
        y = h * h
        h.add_(1)  # h is now output 0 of Add
        y.sum().backward()

    def modified_leaf(t):
        x, y = xs(t), t.tensor([1.0, 2.0, 3.0])
        z = x * y
        y.add_(1)
        z.sum().backward()

    def modified_output(t):
        x = t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True)
        h = x.sigmoid()
        h.mul_(2)
        h.sum().backward()

    for case in (twice, modified_nonleaf, modified_leaf, modified_output):
        _same_error(case)
    ours = _err(modified_nonleaf, tl)[1]
    assert "[torch.FloatTensor [3]], which is output 0 of Add, is at version 1; expected " \
           "version 0 instead." in ours


def test_grad_too_many_grad_outputs_are_ignored_and_duplicate_inputs():
    for t in LIBS:
        a = xs(t)
        (g,) = t.autograd.grad([a * 2], a, [t.ones(3), t.ones(3)])
        assert g.tolist() == [2.0, 2.0, 2.0]
        g1, g2 = t.autograd.grad([a.sum(), a.sum() * 2], [a, a])
        assert g1.tolist() == g2.tolist() == [3.0, 3.0, 3.0]


def test_is_grads_batched():
    results = []
    for t in LIBS:
        a, b = xs(t), xs(t)
        y = a * a
        (g,) = t.autograd.grad(y.sum(), a, t.tensor([1.0, 2.0]), is_grads_batched=True,
                               retain_graph=True)
        ga, gb = t.autograd.grad(y, [a, b], t.ones(2, 3), is_grads_batched=True,
                                 materialize_grads=True)
        results.append((g.tolist(), ga.tolist(), gb.tolist()))
    assert results[0] == results[1]
    assert results[0][0] == [[2.0, 4.0, 6.0], [4.0, 8.0, 12.0]]
    assert results[0][2] == [0.0, 0.0, 0.0]  # materialized zeros are not batched


def test_only_inputs_false_warns():
    for t in LIBS:
        x = xs(t)
        with pytest.warns(FutureWarning, match="only_inputs argument is deprecated"):
            t.autograd.grad(x.sum(), x, only_inputs=False)


@pytest.mark.parametrize("name", ["no_grad", "enable_grad", "inference_mode"])
def test_grad_mode_decorated_generator_applies_only_inside(name):
    results = []
    for t in LIBS:
        outer = name == "enable_grad"  # the mode around the generator differs from its own
        with t.set_grad_enabled(not outer):
            @getattr(t, name)()
            def gen(t=t):
                for _ in range(2):
                    yield t.is_grad_enabled()

            g = gen()
            results.append((next(g), t.is_grad_enabled(), next(g), list(g)))
    assert results[0] == results[1]
    assert results[0][0] != results[0][1]


def test_set_grad_enabled_type_and_clone():
    for t in LIBS:
        with pytest.raises(TypeError, match=r"argument 'enabled' \(position 1\) must be bool, "
                                            "not int"):
            t.set_grad_enabled(1)
        assert t.is_grad_enabled()
        try:
            c = t.set_grad_enabled(False).clone()
            assert c.mode is False
            with c:
                assert not t.is_grad_enabled()
        finally:
            t.set_grad_enabled(True)
        assert type(t.no_grad().clone()).__name__ == "no_grad"


def test_post_accumulate_grad_hook_must_return_none():
    for t in LIBS:
        x = xs(t)
        x.register_post_accumulate_grad_hook(lambda p: p * 0)
        with pytest.raises(RuntimeError, match="post accumulate grad hooks should return None"):
            (x * x).sum().backward()


def _fn(t, fwd, bwd):
    return type("MyFn", (t.autograd.Function,),
                {"forward": staticmethod(fwd), "backward": staticmethod(bwd)})


@pytest.mark.parametrize("case", [
    lambda t: _fn(t, lambda c, x: x * 2, lambda c, g: (g, g)).apply(xs(t)).sum().backward(),
    lambda t: _fn(t, lambda c, x, y: x * y, lambda c, g: g).apply(xs(t), xs(t)).sum().backward(),
    lambda t: _fn(t, lambda c, x: x * 2, lambda c, g: g.sum()).apply(xs(t)).sum().backward(),
    lambda t: _fn(t, lambda c, x: x * 2, lambda c, g: 3).apply(xs(t)).sum().backward(),
    lambda t: _fn(t, lambda c, x: (c.save_for_backward(x, 3), x)[1], lambda c, g: g).apply(xs(t)),
    lambda t: type("F", (t.autograd.Function,),
                   {"forward": staticmethod(lambda c, x: x * 2)}).apply(xs(t)).sum().backward(),
    lambda t: type("F", (t.autograd.Function,), {}).apply(xs(t)),
], ids=["too_many", "too_few", "bad_shape", "not_tensor", "save_int", "no_backward",
        "no_forward"])
def test_custom_function_errors_match(case):
    _same_error(case)


def test_custom_function_broadcast_gradient_is_summed_and_instantiation_warns():
    for t in LIBS:
        x = xs(t)
        _fn(t, lambda c, x: x * 2, lambda c, g: g.expand(2, 3)).apply(x).sum().backward()
        assert x.grad.tolist() == [2.0, 2.0, 2.0]
        F = _fn(t, lambda c, x: x, lambda c, g: g)
        with pytest.warns(DeprecationWarning, match="should not be instantiated"):
            F()
        assert F.generate_vmap_rule is False
        with pytest.raises(NotImplementedError, match="override the vmap staticmethod"):
            F.vmap(None, (0,), t.ones(1))


def test_anomaly_mode_warns_when_enabled_and_nan_message():
    def nan(t):
        x = t.tensor([-1.0, 1.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with t.autograd.detect_anomaly():
                x.sqrt().sum().backward()

    _same_error(nan)
    for t in LIBS:
        with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
            t.autograd.detect_anomaly()


def test_gradcheck_messages():
    class Bad:
        @staticmethod
        def make(t):
            def fwd(ctx, x):
                ctx.save_for_backward(x)
                return x ** 2
            return _fn(t, fwd, lambda ctx, g: g * ctx.saved_tensors[0])

    for t in LIBS:
        x = t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True)
        with pytest.raises(RuntimeError,
                           match="^Jacobian mismatch for output 0 with respect to input 0,\n") \
                as info:
            t.autograd.gradcheck(Bad.make(t).apply, (x,))
        assert type(info.value).__name__ == "GradcheckError"
        with pytest.raises(ValueError, match="none of them have requires_grad=True"):
            t.autograd.gradcheck(lambda a: a.sum(), (x.detach(),))


@pytest.mark.parametrize("case", [
    lambda t: t.autograd.functional.jacobian(lambda x: x, t.ones(2), strategy="x"),
    lambda t: t.autograd.functional.jacobian(lambda x: x, t.ones(2), strategy="forward-mode"),
    lambda t: t.autograd.functional.jacobian(lambda x: 3, t.ones(2)),
    lambda t: t.autograd.functional.jacobian(lambda x: x, [t.ones(2)]),
    lambda t: t.autograd.functional.hessian(lambda x: x * 2, t.ones(2)),
    lambda t: t.autograd.functional.hvp(lambda x: x * 2, t.ones(2), t.ones(2)),
    lambda t: t.autograd.functional.vhp(lambda x: x * 2, t.ones(2), t.ones(2)),
    lambda t: t.autograd.functional.vjp(lambda x: x * 2, t.ones(2)),
    lambda t: t.autograd.functional.jvp(lambda x: x * 2, t.ones(2)),
], ids=["strategy", "forward_no_vectorize", "int_output", "list_inputs", "hessian_nonscalar",
        "hvp_nonscalar", "vhp_nonscalar", "vjp_v_none", "jvp_v_none"])
def test_functional_errors_match(case):
    _same_error(case)


def test_jacobian_forward_mode_vectorized_values():
    got = tl.autograd.functional.jacobian(lambda x: x ** 2, tl.tensor([1.0, 2.0]),
                                          vectorize=True, strategy="forward-mode")
    np.testing.assert_allclose(got.numpy(), [[2.0, 0.0], [0.0, 4.0]])


@pytest.mark.parametrize("case", ["setitem", "add_", "view-mul_", "detach_-view", "grad-size",
                                  "grad-dtype", "grad-type"])
def test_leaf_misuse_raises_pytorchs_error(case):
    """In-place writes to a leaf that requires grad (an index write is a write through a view),
    detach_ on any view, and a .grad of the wrong size, dtype or type: PyTorch's exception
    and text."""
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        return {"setitem": lambda: x.__setitem__(0, 5.0), "add_": lambda: x.add_(1),
                "view-mul_": lambda: x[:2].mul_(2),
                "detach_-view": lambda: x.detach()[:2].detach_(),
                "grad-size": lambda: setattr(x, "grad", lib.ones(2)),
                "grad-dtype": lambda: setattr(x, "grad", lib.ones(3, dtype=lib.float64)),
                "grad-type": lambda: setattr(x, "grad", 3)}[case]()
    with pytest.raises(Exception) as theirs:
        run(torch)
    with pytest.raises(theirs.type) as ours:
        run(tl)
    expected = str(theirs.value).split(". ")[0]
    assert str(ours.value).startswith(expected), (str(ours.value), expected)


def test_non_leaf_grad_warning_is_pytorchs():
    for lib in (tl, torch):
        y = lib.ones(2, requires_grad=True) * 2
        with pytest.warns(UserWarning, match="The .grad attribute of a Tensor that is not a leaf "
                                             "Tensor is being accessed"):
            assert y.grad is None


def test_as_subclass_is_an_alias_in_the_graph():
    for lib in (tl, torch):
        class Marked(lib.Tensor):
            pass
        x = lib.ones(2, requires_grad=True)
        y = x.as_subclass(Marked)
        assert type(y) is Marked and not y.is_leaf and y.requires_grad
        (y * 2).sum().backward()
        assert x.grad.tolist() == [2.0, 2.0]
        plain = lib.ones(2)
        plain.as_subclass(Marked).add_(1)  # shares memory
        assert plain.tolist() == [2.0, 2.0]
        with pytest.raises(TypeError, match="does not inherit from Tensor"):
            x.as_subclass(int)
