"""nn.Module API and layer construction against PyTorch: the printed form of layers and
containers (ModuleList's ``(0-2): 3 x Block(...)`` compression, norms' ``bias=``, conv's
argument order), ``reset_parameters`` of every layer that has it in PyTorch, state-dict loading
(``_IncompatibleKeys``, error texts, ``assign=True``, 0.3-era scalars), registration errors,
container editing (ModuleList/Sequential/ParameterList) and the gradients that full backward
hooks see for inputs that need none."""

from collections import OrderedDict

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")


def both(build):
    """``build(lib)`` for PyTorch and tinygrad_lite."""
    return build(torch), build(tl)


def raised(fn, lib):
    """The (type name, message) of what ``fn(lib)`` raises."""
    try:
        fn(lib)
    except Exception as exc:  # noqa: BLE001 - we compare whatever is raised
        return type(exc).__name__, str(exc)
    raise AssertionError("nothing raised")


@pytest.mark.parametrize("build", [
    lambda nn: nn.Conv1d(2, 3, 3, stride=2, padding=1, bias=False, padding_mode="reflect"),
    lambda nn: nn.Conv2d(2, 4, 3, padding=1, bias=False, padding_mode="circular"),
    lambda nn: nn.LayerNorm(4),
    lambda nn: nn.LayerNorm((4, 5), elementwise_affine=False),
    lambda nn: nn.LayerNorm(4, bias=False),
    lambda nn: nn.GroupNorm(2, 4),
    lambda nn: nn.GroupNorm(2, 4, affine=False, eps=1e-3),
    lambda nn: nn.Hardsigmoid(inplace=True),
    lambda nn: nn.Hardswish(inplace=True),
    lambda nn: nn.RNNCell(3, 4, bias=False, nonlinearity="relu"),
    lambda nn: nn.RNNCell(3, 4),
    lambda nn: nn.Unflatten(1, [2, 3]),
    lambda nn: nn.Unflatten(1, (2, 3)),
    lambda nn: nn.Upsample(scale_factor=(2, 3), mode="bicubic"),
    lambda nn: nn.TripletMarginWithDistanceLoss(),
    lambda nn: nn.ModuleList(),
    lambda nn: nn.ModuleList([nn.Linear(2, 2) for _ in range(3)]),
    lambda nn: nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Linear(2, 2), nn.Linear(2, 2),
                              nn.Linear(2, 3)]),
    lambda nn: nn.ModuleList([nn.Sequential(nn.Linear(2, 2), nn.ReLU()) for _ in range(4)]),
    lambda nn: nn.Sequential(*[nn.Linear(2, 2) for _ in range(3)]),  # not compressed
    lambda nn: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2),
])
def test_repr_matches_pytorch(build):
    ref, ours = both(lambda lib: repr(build(lib.nn)))
    assert ours == ref


def test_parameter_list_repr_names_tensors_and_other_objects():
    def build(lib):
        return lib.nn.ParameterList([lib.ones(2, 3), 3, None])
    ref, ours = both(build)
    dtype = str(tl.float32)  # tinygrad_lite prints its own dtype names
    assert repr(ours) == repr(ref).replace(str(torch.float32), dtype)
    assert len(ours) == 3 and ours[1] == 3 and ours[2] is None
    assert list(ours.state_dict()) == list(ref.state_dict()) == ["0"]
    with pytest.raises(RuntimeError, match="ParameterList should not be called."):
        ours(1)
    with pytest.raises(TypeError, match="ParameterList.extend should be called with an "
                                        "iterable, but got Tensor"):
        ours.extend(tl.ones(2))
    assert [type(p).__name__ for p in ours[0:1]] == ["Parameter"]


@pytest.mark.parametrize("build", [
    lambda nn: nn.BatchNorm1d(3), lambda nn: nn.InstanceNorm2d(3, affine=True,
                                                               track_running_stats=True),
    lambda nn: nn.LayerNorm(3), lambda nn: nn.GroupNorm(1, 3), lambda nn: nn.RMSNorm(3),
    lambda nn: nn.PReLU(3, init=0.1),
])
def test_norm_and_prelu_reset_parameters(build):
    for lib in (torch, tl):
        m = build(lib.nn)
        with lib.no_grad():
            for t in [*m.parameters(), *m.buffers()]:
                t.fill_(7)
        m.reset_parameters()
        ref = build(torch.nn)
        for (name, a), b in zip(m.state_dict().items(), ref.state_dict().values()):
            np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=name)
    assert tl.nn.PReLU(init=0.3).init == 0.3


def test_instance_norm_reset_running_stats():
    m = tl.nn.InstanceNorm1d(2, track_running_stats=True)
    m.running_mean.fill_(3)
    m.reset_running_stats()
    assert m.running_mean.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("build", [
    lambda nn: nn.LSTM(3, 4, 2, bidirectional=True), lambda nn: nn.GRUCell(3, 4),
    lambda nn: nn.RNNCell(3, 4, bias=False), lambda nn: nn.Transformer(8, 2, 1, 1, 16),
])
def test_recurrent_and_transformer_reset_draws_as_pytorch(build):
    def values(lib):
        lib.manual_seed(3)
        m = build(lib.nn)
        if hasattr(m, "reset_parameters"):
            m.reset_parameters()
        else:
            m._reset_parameters()
        return [p.detach().numpy() for p in m.parameters()]
    for a, b in zip(*both(values)):
        np.testing.assert_array_equal(a, b)


def test_incompatible_keys_repr_and_load_errors():
    ref, ours = both(lambda lib: lib.nn.Linear(2, 3).load_state_dict(
        {"weight": lib.ones(3, 2), "x": lib.ones(1)}, strict=False))
    assert repr(ours) == repr(ref)
    assert repr(ours).startswith("_IncompatibleKeys(")

    def not_tensor(lib):
        lib.nn.Linear(2, 3).load_state_dict({"weight": [[1, 2]] * 3, "bias": lib.ones(3)})
    assert raised(not_tensor, tl) == raised(not_tensor, torch)

    def bad_shape(lib):
        lib.nn.Linear(2, 3).load_state_dict({"weight": lib.ones(3, 3), "bias": lib.ones(3)})
    name, msg = raised(bad_shape, tl)
    assert name == "RuntimeError"
    assert (f"copying a param with shape {tl.Size([3, 3])!r} from checkpoint, the shape "
            f"in current model is {tl.Size([3, 2])!r}.") in msg


def test_load_one_element_vector_into_scalar_buffer():
    for lib in (torch, tl):
        m = lib.nn.BatchNorm1d(2)
        sd = m.state_dict()
        sd["num_batches_tracked"] = lib.tensor([5])
        m.load_state_dict(sd)
        assert int(m.num_batches_tracked) == 5 and m.num_batches_tracked.ndim == 0


def test_load_state_dict_assign_adopts_the_tensors():
    m = tl.nn.Linear(2, 3)
    m.weight.requires_grad_(False)
    w, b = tl.ones(3, 2, dtype=tl.float64), tl.zeros(3)
    m.load_state_dict({"weight": w, "bias": b}, assign=True)
    assert isinstance(m.weight, tl.nn.Parameter) and m.weight.dtype == tl.float64
    assert not m.weight.requires_grad and m.bias.requires_grad
    assert m.bias.data_ptr() == b.data_ptr()
    bn = tl.nn.BatchNorm1d(2)
    mean = tl.full((2,), 4.0)
    bn.load_state_dict({**bn.state_dict(), "running_mean": mean}, assign=True)
    assert bn.running_mean is mean


def test_to_refuses_integer_dtypes_with_pytorch_text():
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point or complex "
                                        "dtypes, but got desired dtype="):
        tl.nn.Linear(1, 1).to(tl.int32)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.Module().register_buffer("a.b", lib.ones(1)),
    lambda lib: lib.nn.Module().register_buffer("", lib.ones(1)),
    lambda lib: lib.nn.Module().register_buffer(1, lib.ones(1)),
    lambda lib: lib.nn.Module().register_buffer("x", 3),
    lambda lib: lib.nn.Linear(1, 1).register_buffer("weight", lib.ones(1)),
    lambda lib: lib.nn.BatchNorm1d(1).register_parameter("running_mean",
                                                         lib.nn.Parameter(lib.ones(1))),
    lambda lib: lib.nn.Module().register_parameter("a.b", lib.nn.Parameter(lib.ones(1))),
    lambda lib: lib.nn.Module().register_parameter("", lib.nn.Parameter(lib.ones(1))),
    lambda lib: lib.nn.Module().register_parameter("x", lib.ones(1)),
    lambda lib: lib.nn.Module().add_module("a.b", lib.nn.ReLU()),
    lambda lib: lib.nn.Module().add_module("", lib.nn.ReLU()),
    lambda lib: lib.nn.Module().add_module(1, lib.nn.ReLU()),
    lambda lib: setattr(lib.nn.Linear(1, 1), "weight", lib.ones(1, 1)),
    lambda lib: setattr(lib.nn.Sequential(lib.nn.ReLU()), "0", 3),
    lambda lib: setattr(lib.nn.BatchNorm1d(1), "running_mean", 3),
    lambda lib: lib.nn.Linear(1, 1, bias=False).get_parameter("bias"),
    lambda lib: lib.nn.ModuleList([lib.nn.ReLU()])[3],
    lambda lib: lib.nn.Sequential(lib.nn.ReLU())[-2],
    lambda lib: lib.nn.ModuleList().extend(lib.nn.ReLU()),
    lambda lib: lib.nn.ModuleList([lib.nn.ReLU(), lib.nn.Tanh()]).insert(-1, lib.nn.ReLU()),
    lambda lib: lib.nn.Sequential() + lib.nn.ModuleList(),
    lambda lib: lib.nn.Sequential(lib.nn.ReLU()) * 0,
    lambda lib: lib.nn.Sequential(lib.nn.ReLU()).insert(5, lib.nn.ReLU()),
    lambda lib: lib.nn.Linear(1, 1).get_extra_state(),
])
def test_errors_match_pytorch(fn):
    name, msg = raised(fn, tl)
    ref_name, ref_msg = raised(fn, torch)
    assert name == ref_name
    assert msg.replace("tinygrad_lite", "torch") == ref_msg


def test_module_list_editing_as_pytorch():
    def edit(lib):
        nn = lib.nn
        ml = nn.ModuleList([nn.ReLU(), nn.Tanh(), nn.Sigmoid()])
        ml += [nn.ELU()]
        popped = ml.pop(1)
        del ml[0:1]
        combined = ml + nn.ModuleList([nn.GELU()])
        ml.insert(1, nn.SiLU())
        return (type(popped).__name__, [type(m).__name__ for m in ml],
                list(ml._modules), repr(combined), [k for k in dir(ml) if k.isdigit()])
    ref, ours = both(edit)
    assert ours == ref


def test_module_dir_and_type_and_apply():
    m = tl.nn.Sequential(tl.nn.Linear(2, 2), tl.nn.BatchNorm1d(2))
    assert not [k for k in dir(m) if k[0].isdigit()]
    assert {"type", "compile", "dump_patches", "call_super_init", "T_destination"} <= set(dir(m))
    assert m.type(tl.float64) is m
    assert m[1].num_batches_tracked.dtype == tl.float64  # type() converts integers too
    assert m[0].weight.dtype == tl.float64
    w = m[0].weight
    m._apply(lambda t: t.float())
    assert m[0].weight is w and w.dtype == tl.float32


def test_module_compile_keeps_results_and_training():
    m = tl.nn.Linear(3, 2)
    x = tl.ones(4, 3)
    eager = m(x).detach().numpy()
    assert m.compile() is None
    np.testing.assert_allclose(m(x).detach().numpy(), eager, rtol=1e-6)
    m(x).sum().backward()
    assert m.weight.grad is not None


def test_full_backward_hook_sees_zeros_for_inputs_without_grad():
    def grads(lib):
        class M(lib.nn.Module):
            def forward(self, a, b):
                return a * 2 + b
        seen = []
        m = M()
        m.register_full_backward_hook(lambda mod, gi, go: seen.append(
            [None if g is None else g.tolist() for g in gi]))
        a = lib.ones(2, requires_grad=True)
        m(a, lib.ones(2)).sum().backward()
        return seen, a.grad.tolist()
    ref, ours = both(grads)
    assert ours == ref == ([[[2.0, 2.0], [0.0, 0.0]]], [2.0, 2.0])


def test_unflatten_checks_its_size():
    for bad in (3, (2, 1.5)):
        ref, ours = both(lambda lib, bad=bad: raised(lambda _: lib.nn.Unflatten(1, bad), lib))
        assert ours == ref


def test_sequential_slice_and_mul_keep_pytorch_names():
    def build(lib):
        named = lib.nn.Sequential(OrderedDict(a=lib.nn.ReLU(), b=lib.nn.Tanh()))
        s = lib.nn.Sequential(lib.nn.ReLU(), lib.nn.Tanh())
        s *= 2
        return list(s._modules), list((named * 2)._modules), repr(named[1:])
    ref, ours = both(build)
    assert ours == ref
