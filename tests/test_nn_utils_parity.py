"""Parity of ``nn.init`` and ``nn.utils`` with PyTorch (the oracle): sparse_'s permutation
stream, the fan-mode check, orthogonal_ on 16-bit tensors, clip_grad_norm_'s coefficient and
total-norm dtype, parameters_to_vector / vector_to_parameters as PyTorch writes them, random
pruning's streams, the conv weight memory-format converters, and skip_init's type check."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")
pytest.importorskip("torch.nn.utils.prune")  # (a submodule PyTorch does not import itself)


def _np(t):
    return t.detach().numpy()


# -- nn.init ---------------------------------------------------------------------------------

@pytest.mark.parametrize("use_generator", [False, True])
def test_sparse_permutes_rows_from_default_generator(use_generator):
    # PyTorch draws the normal values from ``generator`` but the per-column randperm from the
    # global generator.
    out = []
    for lib in (torch, tl):
        lib.manual_seed(123)
        gen = lib.Generator().manual_seed(7) if use_generator else None
        t = lib.empty(7, 5, dtype=lib.float64)
        assert lib.nn.init.sparse_(t, 0.4, std=0.1, generator=gen) is t
        out.append(_np(t))
    np.testing.assert_array_equal(out[1], out[0])
    assert (out[1] == 0).sum(0).tolist() == [3] * 5


def test_fan_mode_is_case_insensitive_and_error_lists_modes():
    for lib in (torch, tl):
        lib.manual_seed(0)
    a = torch.nn.init.kaiming_uniform_(torch.empty(3, 5), mode="FAN_OUT")
    b = tl.nn.init.kaiming_uniform_(tl.empty(3, 5), mode="FAN_OUT")
    np.testing.assert_array_equal(_np(b), _np(a))
    msg = "Mode fan_avg not supported, please use one of ['fan_in', 'fan_out']"
    with pytest.raises(ValueError) as theirs:
        torch.nn.init._calculate_correct_fan(torch.empty(3, 4), "fan_avg")
    assert str(theirs.value) == msg
    with pytest.raises(ValueError) as ours:
        tl.nn.init._calculate_correct_fan(tl.empty(3, 4), "fan_avg")
    assert str(ours.value) == msg


@pytest.mark.parametrize("dtype,name", [("float16", "Half"), ("bfloat16", "BFloat16")])
def test_orthogonal_rejects_16_bit(dtype, name):
    with pytest.raises(NotImplementedError) as theirs:
        torch.nn.init.orthogonal_(torch.empty(3, 4, dtype=getattr(torch, dtype)))
    with pytest.raises(NotImplementedError) as ours:
        tl.nn.init.orthogonal_(tl.empty(3, 4, dtype=getattr(tl, dtype)))
    assert str(ours.value) == str(theirs.value) == f'"geqrf_cpu" not implemented for \'{name}\''


# -- clip_grad -------------------------------------------------------------------------------

def _params(lib, dtypes, seed=0):
    rs = np.random.RandomState(seed)
    params = []
    for i, dt in enumerate(dtypes):
        shape = (3 + i, 4)
        p = lib.nn.Parameter(lib.tensor(rs.randn(*shape), dtype=getattr(lib, dt)))
        p.grad = lib.tensor(rs.randn(*shape), dtype=getattr(lib, dt))
        params.append(p)
    return params


@pytest.mark.parametrize("norm_type", [2.0, float("inf")])
def test_clip_grad_norm_float16_coefficient_like_pytorch(norm_type):
    # max_norm stays float32 in the coefficient's arithmetic (not rounded to float16 first)
    res = []
    for lib in (torch, tl):
        ps = _params(lib, ["float16"] * 3)
        total = lib.nn.utils.clip_grad_norm_(ps, 0.1, norm_type=norm_type)
        res.append((_np(total), [_np(p.grad) for p in ps]))
    assert res[1][0].dtype == np.float16
    if norm_type == float("inf"):  # (the 2-norm itself may differ by an ulp)
        np.testing.assert_array_equal(res[1][0], res[0][0])
        for ours, theirs in zip(res[1][1], res[0][1]):
            np.testing.assert_array_equal(ours, theirs)


def test_clip_grad_norm_total_promotes_mixed_dtypes():
    for dts, expected in ((["float16", "float32", "float64"], "float64"),
                          (["float16", "float32"], "float32")):
        r_t = torch.nn.utils.clip_grad_norm_(_params(torch, dts), 0.1)
        r_l = tl.nn.utils.clip_grad_norm_(_params(tl, dts), 0.1)
        assert str(r_t.dtype) == f"torch.{expected}"
        assert str(r_l.dtype).split(".")[-1] == expected
        np.testing.assert_allclose(_np(r_l), _np(r_t), rtol=1e-6)


def test_clip_grad_norm_tensor_max_norm_and_empty_generator_warning():
    r_t = torch.nn.utils.clip_grad_norm_(ps_t := _params(torch, ["float64"] * 2),
                                         max_norm=torch.tensor(0.5))
    r_l = tl.nn.utils.clip_grad_norm_(ps_l := _params(tl, ["float64"] * 2),
                                      max_norm=tl.tensor(0.5))
    np.testing.assert_allclose(_np(r_l), _np(r_t), rtol=1e-12)
    for a, b in zip(ps_l, ps_t):
        np.testing.assert_allclose(_np(a.grad), _np(b.grad), rtol=1e-12)
    with pytest.warns(UserWarning, match="empty generator, no gradient clipping"):
        total = tl.nn.utils.clip_grad_norm_((p for p in []), 1.0)
    assert total.item() == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tl.nn.utils.clip_grad_norm_([], 1.0)  # an empty list does not warn


def test_get_total_norm_rejects_missing_tensor():
    msg = ("Tensors of the first list of nested Tensor lists are supposed to be defined but "
           "the 1-th Tensor is not.")
    with pytest.raises(RuntimeError, match="supposed to be defined"):
        torch.nn.utils.get_total_norm([torch.ones(2), None])
    with pytest.raises(RuntimeError) as ours:
        tl.nn.utils.get_total_norm([tl.ones(2), None])
    assert str(ours.value) == msg


# -- convert_parameters ----------------------------------------------------------------------

def _linear(lib, dtype="float64"):
    m = lib.nn.Linear(4, 3).to(getattr(lib, dtype))
    rs = np.random.RandomState(0)
    with lib.no_grad():
        m.weight.copy_(lib.tensor(rs.randn(3, 4)))
        m.bias.copy_(lib.tensor(rs.randn(3)))
    return m


def test_parameters_to_vector_is_differentiable():
    grads = []
    for lib in (torch, tl):
        m = _linear(lib)
        vec = lib.nn.utils.parameters_to_vector(m.parameters())
        assert vec.requires_grad
        (vec * lib.arange(15, dtype=lib.float64)).sum().backward()
        grads.append((_np(m.weight.grad), _np(m.bias.grad)))
    np.testing.assert_array_equal(grads[1][0], grads[0][0])
    np.testing.assert_array_equal(grads[1][1], grads[0][1])
    with pytest.raises(ValueError, match=r"torch.cat\(\): expected a non-empty list"):
        tl.nn.utils.parameters_to_vector([])


def test_vector_to_parameters_aliases_and_accepts_long_vector():
    for lib in (torch, tl):
        m = _linear(lib, "float32")
        vec = lib.arange(20, dtype=lib.float64)
        lib.nn.utils.vector_to_parameters(vec, m.parameters())
        vec[0] = 100.0  # the parameters view the vector
        assert m.weight.dtype == lib.float64 and m.weight.requires_grad
        assert isinstance(m.weight, lib.nn.Parameter)
        assert m.weight[0, 0].item() == 100.0
        assert m.bias.tolist() == [12.0, 13.0, 14.0]
    with pytest.raises(TypeError, match="^expected torch.Tensor, but got: list$"):
        tl.nn.utils.vector_to_parameters([0.0] * 15, _linear(tl).parameters())
    with pytest.raises(RuntimeError):
        tl.nn.utils.vector_to_parameters(tl.zeros(10), _linear(tl).parameters())


# -- prune -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_random_pruning_matches_pytorch_stream(dtype):
    masks = []
    for lib in (torch, tl):
        lib.manual_seed(2)
        m = lib.nn.Linear(6, 5).to(getattr(lib, dtype))
        lib.manual_seed(3)
        lib.nn.utils.prune.random_structured(m, "weight", 2, dim=0)
        lib.nn.utils.prune.random_unstructured(m, "weight", 0.3)
        lib.nn.utils.prune.random_unstructured(m, "bias", 2)
        masks.append((_np(m.weight_mask), _np(m.bias_mask)))
    np.testing.assert_array_equal(masks[1][0], masks[0][0])
    np.testing.assert_array_equal(masks[1][1], masks[0][1])
    assert masks[1][1].sum() == 3


def test_global_random_pruning_matches_pytorch():
    masks = []
    for lib in (torch, tl):
        lib.manual_seed(1)
        a, b = lib.nn.Linear(5, 4), lib.nn.Linear(4, 3)
        lib.nn.utils.prune.global_unstructured(
            [(a, "weight"), (b, "bias")], pruning_method=lib.nn.utils.prune.RandomUnstructured,
            amount=0.4)
        masks.append((_np(a.weight_mask), _np(b.bias_mask)))
    np.testing.assert_array_equal(masks[1][0], masks[0][0])
    np.testing.assert_array_equal(masks[1][1], masks[0][1])


# -- memory format, skip_init ----------------------------------------------------------------

def test_convert_conv_weight_memory_format():
    strides = []
    for lib in (torch, tl):
        m = lib.nn.Sequential(lib.nn.Conv2d(2, 3, 3),
                              lib.nn.Sequential(lib.nn.ConvTranspose2d(3, 2, 3)),
                              lib.nn.Conv1d(2, 2, 1), lib.nn.Conv3d(2, 2, 3))
        w0 = m[0].weight
        assert lib.nn.utils.convert_conv2d_weight_memory_format(m, lib.channels_last) is m
        assert m[0].weight is w0 and m[0].weight.requires_grad
        assert m[0].weight.is_contiguous(memory_format=lib.channels_last)
        lib.nn.utils.convert_conv3d_weight_memory_format(m, lib.channels_last_3d)
        strides.append([m[0].weight.stride(), m[1][0].weight.stride(), m[2].weight.stride(),
                        m[3].weight.stride()])
    assert strides[1] == strides[0]


def test_skip_init_rejects_non_module():
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.utils.skip_init(int, 1)
    with pytest.raises(RuntimeError) as ours:
        tl.nn.utils.skip_init(int, 1)
    assert str(ours.value) == str(theirs.value) == "Expected a Module; got <class 'int'>"


@pytest.mark.parametrize("case", ["empty", "lengths-count", "lengths-2d", "total-length"])
def test_packed_sequence_errors_are_pytorchs(case):
    def run(lib):
        rnn = lib.nn.utils.rnn
        padded = lib.ones(4, 2, 3)
        return {"empty": lambda: rnn.pad_sequence([]),
                "lengths-count": lambda: rnn.pack_padded_sequence(padded, [3, 2, 1]),
                "lengths-2d": lambda: rnn.pack_padded_sequence(padded, lib.tensor([[3, 2]])),
                "total-length": lambda: rnn.pad_packed_sequence(
                    rnn.pack_padded_sequence(padded, [4, 2]), total_length=2)}[case]()
    with pytest.raises(Exception) as theirs:
        run(torch)
    with pytest.raises(theirs.type) as ours:
        run(tl)
    assert str(ours.value).split(",")[0] == str(theirs.value).split(",")[0]


def test_functional_call_errors_are_pytorchs():
    """torch.func.functional_call and nn.utils.stateless share one implementation here, with
    PyTorch's strict-mode and repeated-key texts."""
    for lib in (tl, torch):
        m, x = lib.nn.Linear(2, 2), lib.ones(1, 2)
        with pytest.raises(RuntimeError, match="Error\\(s\\) in reparametrizing for Linear:\n\t"
                                               "Unexpected key\\(s\\): 'foo'.\n\tMissing key"):
            lib.func.functional_call(m, {"weight": lib.ones(2, 2), "foo": lib.ones(1)}, (x,),
                                     strict=True)
        with pytest.raises(ValueError, match=r"\['weight'\] appeared in multiple dictionaries"):
            lib.func.functional_call(m, ({"weight": lib.ones(2, 2)}, {"weight": lib.ones(2, 2)}),
                                     (x,))
