"""bfloat16 through ml_dtypes: creation, PyTorch's promotion and printing, float32 accumulation,
training, autocast's CPU default, checkpoints, and the error without the package."""

import subprocess
import sys

import numpy as np
import pytest

import tinygrad_lite as tl

ml_dtypes = pytest.importorskip("ml_dtypes")

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
         "float64"]


def _name(dtype) -> str:
    return str(dtype).split(".")[-1]


def test_creation_conversion_and_dtype_facts():
    x = tl.randn(4, 3, dtype=tl.bfloat16)
    assert x.dtype == tl.bfloat16 and x._data.dtype == np.dtype(ml_dtypes.bfloat16)
    for made in (tl.zeros(2, dtype=tl.bfloat16), tl.ones(2, dtype=tl.bfloat16),
                 tl.full((2,), 1.5, dtype=tl.bfloat16), tl.empty(2, dtype=tl.bfloat16),
                 tl.rand(2, dtype=tl.bfloat16), tl.arange(3, dtype=tl.bfloat16),
                 tl.tensor([1, 2], dtype=tl.bfloat16), tl.ones(2).bfloat16(),
                 tl.ones(2).to(dtype=tl.bfloat16), tl.ones(2).type(tl.bfloat16),
                 tl.BFloat16Tensor([1.0, 2.0]), tl.zeros_like(x)):
        assert made.dtype == tl.bfloat16
    assert x.element_size() == 2 and x.is_floating_point() and tl.bfloat16.is_floating_point
    assert x.type() == "torch.BFloat16Tensor" and isinstance(x, tl.BFloat16Tensor)
    assert tl.tensor([1.0, 2.0], dtype=tl.bfloat16).tolist() == [1.0, 2.0]
    assert tl.tensor(2.5, dtype=tl.bfloat16).item() == 2.5
    # 1/3 rounds to 8 significant bits, as in PyTorch
    assert tl.tensor([1 / 3]).bfloat16().float().item() == 0.333984375
    from_numpy = tl.from_numpy(np.array([1.5, 2.0], dtype=ml_dtypes.bfloat16))
    assert from_numpy.dtype == tl.bfloat16
    info = tl.finfo(tl.bfloat16)
    assert (info.bits, info.eps, info.resolution) == (16, 2.0 ** -7, 0.01)
    assert info.max == float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)


def test_requires_grad_and_gradients_stay_bfloat16():
    x = tl.randn(3, 4, dtype=tl.bfloat16, requires_grad=True)
    (x * x).sum().backward()
    assert x.grad.dtype == tl.bfloat16
    np.testing.assert_allclose(x.grad.float().numpy(), 2 * x.detach().float().numpy(),
                               rtol=1e-2)


def test_promotion_matches_pytorch():
    torch = pytest.importorskip("torch")
    for a in NAMES:
        for b in NAMES:
            theirs = torch.promote_types(getattr(torch, a), getattr(torch, b))
            assert _name(tl.promote_types(getattr(tl, a), getattr(tl, b))) == _name(theirs)
    x, t = tl.ones(2, dtype=tl.bfloat16), torch.ones(2, dtype=torch.bfloat16)
    for other in (2, 2.5, True):
        assert _name((x * other).dtype) == _name((t * other).dtype) == "bfloat16"
    for name in ("float16", "float32", "int64"):
        zero_dim = tl.tensor(1, dtype=getattr(tl, name))
        assert _name((x + zero_dim).dtype) == _name((t + torch.tensor(1, dtype=getattr(torch,
                                                                                      name))).dtype)
    assert (x + tl.ones(2, dtype=tl.float16)).dtype == tl.float32


@pytest.mark.parametrize("values", [[1.5, -2.25, 3.0], [[0.001234, 1000.5], [3.14159, -2.0]],
                                    [1e10, 1e-10, 0.0], [1.0, 2.0],
                                    [float("nan"), float("inf"), 1.0]])
def test_printing_matches_pytorch(values):
    torch = pytest.importorskip("torch")
    theirs = str(torch.tensor(values).bfloat16()).replace("torch.", "")
    assert str(tl.tensor(values).bfloat16()).replace("tinygrad_lite.", "") == theirs


def test_reductions_accumulate_in_float32_as_pytorch():
    # 6144 = 3 * 2 ** 11 is a bfloat16; a bfloat16 accumulator stops at 256
    ones = tl.ones(6144, dtype=tl.bfloat16, requires_grad=True)
    assert ones.sum().item() == 6144
    assert ones.mean().item() == 1.0
    assert ones.cumsum(0)[-1].item() == 6144
    wide = tl.ones(4, 3072, dtype=tl.bfloat16)
    assert tl.softmax(wide, 1).sum(1).float().numpy() == pytest.approx(np.ones(4), rel=1e-2)
    assert (wide @ wide.T)[0, 0].item() == 3072
    # a broadcast gradient sums 6144 ones too
    b = tl.ones(1, dtype=tl.bfloat16, requires_grad=True)
    (b * ones.detach()).sum().backward()
    assert b.grad.item() == 6144


OPS = {
    "softmax": lambda lib, x: lib.softmax(x, 1),
    "log_softmax": lambda lib, x: lib.log_softmax(x, 1),
    "logsumexp": lambda lib, x: lib.logsumexp(x, 1),
    "var": lambda lib, x: x.var(1),
    "norm": lambda lib, x: x.norm(dim=1),
    "layer_norm": lambda lib, x: lib.nn.functional.layer_norm(x, (512,)),
    "cross_entropy": lambda lib, x: lib.nn.functional.cross_entropy(x, lib.arange(8) * 7),
    "mse_loss": lambda lib, x: lib.nn.functional.mse_loss(x, x.detach() * 0.5 + 1),
    "matmul": lambda lib, x: x @ x.T,
    "gelu": lambda lib, x: lib.nn.functional.gelu(x),
    "conv2d": lambda lib, x: lib.nn.functional.conv2d(x.reshape(2, 4, 16, 32), x[:3, :36]
                                                  .reshape(3, 4, 3, 3), padding=1),
    "batch_norm": lambda lib, x: lib.nn.functional.batch_norm(x.reshape(2, 4, 16, 32), None, None,
                                                          training=True),
    "attention": lambda lib, x: lib.nn.functional.scaled_dot_product_attention(
        *[x.reshape(2, 4, 32, 16)] * 3, is_causal=True),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_ops_and_gradients_match_pytorch(name):
    torch = pytest.importorskip("torch")
    data = np.random.RandomState(0).randn(8, 512).astype(np.float32)

    def run(lib):
        x = lib.tensor(data).to(lib.bfloat16).requires_grad_()
        out = OPS[name](lib, x)
        weights = lib.tensor(np.random.RandomState(1).randn(*out.shape), dtype=lib.float32)
        (out.float() * weights).sum().backward()
        return out, x.grad

    (out, grad), (ref, ref_grad) = run(tl), run(torch)
    assert out.dtype == tl.bfloat16 and grad.dtype == tl.bfloat16
    for mine, theirs in ((out, ref), (grad, ref_grad)):
        theirs = theirs.detach().float().numpy()
        np.testing.assert_allclose(mine.detach().float().numpy(), theirs, rtol=2e-2,
                                   atol=2e-2 * np.abs(theirs).max())


def _train(lib, steps=6):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(16, 32), lib.nn.GELU(), lib.nn.LayerNorm(32),
                              lib.nn.Linear(32, 4))
    state = {k: v.detach().numpy() for k, v in _reference_weights().items()}
    model.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
    model.bfloat16()
    opt = lib.optim.AdamW(model.parameters(), lr=1e-2)
    rng = np.random.RandomState(3)
    x = lib.tensor(rng.randn(64, 16).astype(np.float32)).bfloat16()
    y = lib.tensor(rng.randint(0, 4, 64))
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return model, losses


def _reference_weights():
    tl.manual_seed(0)
    model = tl.nn.Sequential(tl.nn.Linear(16, 32), tl.nn.GELU(), tl.nn.LayerNorm(32),
                             tl.nn.Linear(32, 4))
    return model.state_dict()


def test_training_a_bfloat16_model_matches_pytorch():
    torch = pytest.importorskip("torch")
    model, losses = _train(tl)
    _, ref_losses = _train(torch)
    assert all(p.dtype == tl.bfloat16 for p in model.parameters())
    assert losses[-1] < losses[0] * 0.8
    np.testing.assert_allclose(losses, ref_losses, rtol=3e-2)


def test_autocast_defaults_to_bfloat16_on_the_cpu_as_pytorch():
    torch = pytest.importorskip("torch")
    assert tl.get_autocast_dtype("cpu") == tl.bfloat16
    assert _name(tl.get_autocast_dtype("cpu")) == _name(torch.get_autocast_dtype("cpu"))

    def dtypes_under(lib):
        lin = lib.nn.Linear(4, 3)
        x = lib.ones(2, 4)
        with lib.autocast("cpu"):
            y = lin(x)
            results = [y, lib.softmax(y, -1), lib.nn.functional.cross_entropy(y, lib.arange(2)),
                       lib.nn.functional.layer_norm(y, (3,)), y @ y.T]
        results[2].backward()
        return [_name(r.dtype) for r in results] + [_name(lin.weight.grad.dtype)]

    assert dtypes_under(tl) == dtypes_under(torch)
    assert dtypes_under(tl)[0] == "bfloat16"


def test_checkpoints_keep_bfloat16_both_ways(tmp_path):
    state = {"w": tl.randn(3, 4).bfloat16(), "b": tl.arange(3, dtype=tl.bfloat16)}
    tl.save(state, tmp_path / "mine.safetensors")
    back = tl.load(tmp_path / "mine.safetensors")
    for k, v in state.items():
        assert back[k].dtype == tl.bfloat16 and tl.equal(back[k], v)
    torch = pytest.importorskip("torch")
    safetensors_torch = pytest.importorskip("safetensors.torch")
    theirs = safetensors_torch.load_file(str(tmp_path / "mine.safetensors"))
    assert theirs["w"].dtype == torch.bfloat16
    np.testing.assert_array_equal(theirs["w"].float().numpy(), state["w"].float().numpy())
    safetensors_torch.save_file({"w": theirs["w"] * 2}, str(tmp_path / "theirs.safetensors"))
    loaded = tl.load(tmp_path / "theirs.safetensors")["w"]
    assert loaded.dtype == tl.bfloat16
    np.testing.assert_array_equal(loaded.float().numpy(), 2 * state["w"].float().numpy())


def _run_without_ml_dtypes(code: str) -> subprocess.CompletedProcess:
    prelude = "import sys; sys.modules['ml_dtypes'] = None\nimport tinygrad_lite as tl\n"
    return subprocess.run([sys.executable, "-c", prelude + code], capture_output=True,
                          text=True, timeout=120)


def test_without_ml_dtypes_bfloat16_is_refused_with_the_install_command():
    done = _run_without_ml_dtypes("tl.zeros(2, dtype=tl.bfloat16)")
    assert done.returncode != 0
    assert "TypeError: bfloat16 needs the ml_dtypes package" in done.stderr
    assert "pip install" in done.stderr
    # everything else works, and autocast falls back to float16
    done = _run_without_ml_dtypes(
        "assert tl.get_autocast_dtype('cpu') == tl.float16\n"
        "with tl.autocast('cpu'):\n    assert (tl.ones(2, 2) @ tl.ones(2, 2)).dtype == tl.float16\n"
        "print((tl.ones(3) * 2).sum().item())")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "6.0"


def test_bfloat16_loads_only_when_used():
    done = subprocess.run([sys.executable, "-c", "import sys, tinygrad_lite as tl\n"
                           "assert 'ml_dtypes' not in sys.modules\n"
                           "tl.ones(2) @ tl.ones(2)\n"
                           "assert 'ml_dtypes' not in sys.modules\n"
                           "tl.ones(2).bfloat16()\n"
                           "assert 'ml_dtypes' in sys.modules"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_recurrent_gradients_in_bfloat16_are_as_accurate_as_pytorch(kind):
    # both frameworks in bfloat16 against PyTorch in float32 on the same (bfloat16-exact)
    # weights and inputs: bias gradients sum 1,600 rows, which a bfloat16 accumulator spoils
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    ref = getattr(torch.nn, kind)(16, 32, batch_first=True).bfloat16().float()
    theirs = getattr(torch.nn, kind)(16, 32, batch_first=True)
    theirs.load_state_dict(ref.state_dict())
    mine = getattr(tl.nn, kind)(16, 32, batch_first=True)
    mine.load_state_dict({k: tl.tensor(v.numpy()) for k, v in ref.state_dict().items()})
    theirs.bfloat16()
    mine.bfloat16()
    x = torch.randn(8, 200, 16).bfloat16().float().numpy()
    weights = np.random.RandomState(1).randn(8, 200, 32).astype(np.float32)

    def grads(lib, model, dtype):
        out, _ = model(lib.tensor(x).to(dtype))
        (out.float() * lib.tensor(weights)).sum().backward()
        return [p.grad.float().numpy() for p in model.parameters()]

    exact = grads(torch, ref, torch.float32)
    for g_mine, g_theirs, g_exact in zip(grads(tl, mine, tl.bfloat16),
                                         grads(torch, theirs, torch.bfloat16), exact):
        scale = np.abs(g_exact).max()
        err_mine = np.abs(g_mine - g_exact).max() / scale
        err_theirs = np.abs(g_theirs - g_exact).max() / scale
        assert err_mine <= max(1.5 * err_theirs, 1e-2)
