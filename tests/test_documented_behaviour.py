"""Behaviours that PyTorch's documented examples rely on and that published programs met,
each against PyTorch: the ``is_<device>`` and layout properties, ``dim_order``'s ambiguity
check, ``Sequential``'s list operations, ``ConvTranspose*d(output_size=)``, ``Threshold`` on
integers, ``masked_scatter`` broadcasting ``self``, sizes given as tensors, einsum's sublist
format, float sparse indices, and the ``__torch_function__`` helpers."""

import numpy as np
import pytest

import tinygrad_lite as tl
from tests.oracle import same_error, torch

DEVICE_PROPERTIES = ["is_cuda", "is_cpu", "is_mps", "is_xpu", "is_ipu", "is_xla", "is_mtia",
                     "is_maia", "is_meta", "is_vulkan", "is_quantized", "is_mkldnn",
                     "is_nested", "is_sparse", "is_sparse_csr"]


@pytest.mark.parametrize("name", DEVICE_PROPERTIES)
def test_device_and_layout_properties(name):
    assert getattr(tl.ones(2), name) == getattr(torch.ones(2), name)


@pytest.mark.parametrize("make", [
    lambda lib: lib.empty(1, 1, 2, 2), lambda lib: lib.empty(2, 3, 4, 5),
    lambda lib: lib.empty(2, 3, 1, 5).to(memory_format=lib.channels_last),
    lambda lib: lib.empty(3, 4).t()])
@pytest.mark.parametrize("check", [False, True, [], "formats"])
def test_dim_order_and_its_ambiguity_check(make, check):
    def run(lib):
        formats = [lib.channels_last, lib.contiguous_format] if check == "formats" else check
        return make(lib).dim_order(ambiguity_check=formats)
    try:
        expected = run(torch)
    except RuntimeError:
        with pytest.raises(RuntimeError, match="unique dim order"):
            run(tl)
        return
    assert run(tl) == expected


def _sequential_story(lib):
    nn = lib.nn
    s = nn.Sequential(nn.ReLU(), nn.Tanh())
    s.insert(-1, nn.Sigmoid())
    s.insert(3, nn.ELU())
    story = [[type(m).__name__ for m in s], list(dict(s.named_children()))]
    story.append(type(s.pop(1)).__name__)
    story.append([type(m).__name__ for m in s + nn.Sequential(nn.GELU())])
    story.append((len(s * 2), len(2 * s)))
    s *= 2
    story.append((len(s), [type(m).__name__ for m in s]))
    s += nn.Sequential(nn.Identity())
    story.append(len(s))
    errors = []
    for bad in (lambda: s.insert(99, nn.ReLU()), lambda: s.insert(0, 3), lambda: s + 3,
                lambda: s * 0, lambda: s * 1.5):
        try:
            bad()
        except Exception as e:  # noqa: BLE001 - the type is what is compared
            errors.append(type(e).__name__)
    return story, errors


def test_sequential_insert_pop_add_and_repeat():
    assert _sequential_story(tl) == _sequential_story(torch)
    x = tl.randn(3, 4)
    block = tl.nn.Sequential(tl.nn.Linear(4, 4))
    doubled = block * 2  # the same Linear twice: shared parameters
    assert len(list(doubled.parameters())) == 2
    np.testing.assert_allclose(doubled(x).detach().numpy(), block(block(x)).detach().numpy())


@pytest.mark.parametrize("nd,shape,size", [(1, (1, 2, 4), [8]), (2, (1, 2, 4, 4), [8, 7]),
                                           (2, (2, 4, 4), [2, 8, 8]),
                                           (3, (1, 2, 3, 3, 3), [1, 3, 5, 6, 5])])
def test_conv_transpose_output_size(nd, shape, size):
    theirs = getattr(torch.nn, f"ConvTranspose{nd}d")(2, 3, 3, stride=2, padding=1).double()
    ours = getattr(tl.nn, f"ConvTranspose{nd}d")(2, 3, 3, stride=2, padding=1).double()
    ours.load_state_dict({k: tl.tensor(v.detach().numpy()) for k, v in
                          theirs.state_dict().items()})
    x = np.random.default_rng(0).standard_normal(shape)
    got = ours(tl.tensor(x), output_size=size).detach().numpy()
    np.testing.assert_allclose(got, theirs(torch.tensor(x), output_size=size).detach().numpy(),
                               rtol=1e-12, atol=1e-12)
    for bad in ([20] * nd, [5] * (nd + 5)):
        same_error(lambda bad=bad: ours(tl.tensor(x), output_size=bad),
                   lambda bad=bad: theirs(torch.tensor(x), output_size=bad))


@pytest.mark.parametrize("dtype", ["int64", "uint8", "float16", "float32"])
@pytest.mark.parametrize("threshold,value", [(1, 20.7), (1.5, 20)])
def test_threshold_keeps_the_input_dtype(dtype, threshold, value):
    data = np.array([0, 1, 2, 3], dtype=dtype)
    ours = tl.nn.Threshold(threshold, value)(tl.tensor(data))
    theirs = torch.nn.Threshold(threshold, value)(torch.tensor(data))
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_masked_scatter_broadcasts_self_with_the_mask():
    def run(lib, inplace=False):
        base = lib.tensor([0, 0, 0, 0, 0])
        mask = lib.tensor([[0, 0, 0, 1, 1], [1, 1, 0, 1, 1]], dtype=lib.bool)
        source = lib.tensor([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]])
        return (base.masked_scatter_ if inplace else base.masked_scatter)(mask, source)
    assert run(tl).tolist() == run(torch).tolist()
    same_error(lambda: run(tl, True), lambda: run(torch, True))
    grads = []
    for lib in (tl, torch):
        x = lib.ones(5, dtype=lib.float64, requires_grad=True)
        mask = lib.tensor([[0, 0, 0, 1, 1], [1, 1, 0, 1, 1]], dtype=lib.bool)
        x.masked_scatter(mask, lib.zeros(10, dtype=lib.float64)).sum().backward()
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1]


@pytest.mark.parametrize("size", [(tl.tensor(3), 2), (tl.tensor([3]),), (np.int64(2), 3)])
def test_sizes_given_as_integer_tensors(size):
    torch_size = tuple(torch.tensor(s.tolist()) if isinstance(s, tl.Tensor) else s for s in size)
    assert tuple(tl.zeros(*size).shape) == tuple(torch.zeros(*torch_size).shape)


@pytest.mark.parametrize("size", [(-1,), (2.5,), (3.0, 2)])
def test_bad_sizes_raise_pytorchs_error_types(size):
    same_error(lambda: tl.zeros(*size), lambda: torch.zeros(*size))


def test_ctc_loss_example_with_lengths_drawn_as_tensors():
    def run(lib):
        lib.manual_seed(0)
        T, C, N = 50, 20, 16
        logits = lib.randn(T, N, C, dtype=lib.float64).log_softmax(2).detach().requires_grad_()
        input_lengths = lib.full((N,), T, dtype=lib.long)
        target_lengths = lib.randint(1, T, (N,), dtype=lib.long)
        target = lib.randint(1, C, (sum(target_lengths),), dtype=lib.long)
        loss = lib.nn.CTCLoss()(logits, target, input_lengths, target_lengths)
        loss.backward()
        return loss.item(), logits.grad.numpy()
    (ours, ours_grad), (theirs, theirs_grad) = run(tl), run(torch)
    assert ours == pytest.approx(theirs, rel=1e-12)
    np.testing.assert_allclose(ours_grad, theirs_grad, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("args", [
    lambda a, b: (a, [0, 1], b, [1, 2]),
    lambda a, b: (a, [0, 1], b, [1, 2], [2, 0]),
    lambda a, b: (a, [Ellipsis, 0, 1], b, [Ellipsis, 1, 2], [Ellipsis, 0, 2]),
    lambda a, b: (a, [27, 26], b, [26, 40]),
])
def test_einsum_sublist_format(args):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((5, 2, 3)), rng.standard_normal((5, 3, 4))
    if len(args(0, 0)[1]) == 2:
        a, b = a[0], b[0]
    ta, tb = tl.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ours = tl.einsum(*args(ta, tl.tensor(b)))
    theirs = torch.einsum(*args(tb, torch.tensor(b)))
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(ta.grad.numpy(), tb.grad.numpy(), rtol=1e-12)
    same_error(lambda: tl.einsum(tl.tensor(a), [0, 60]), lambda: torch.einsum(tb, [0, 60]))


@pytest.mark.parametrize("indices", [[[0.0, 1.0], [1.0, 0.0]], [[0.5, 1.0], [1.0, 0.0]],
                                     [[True, False], [False, True]]])
def test_sparse_coo_tensor_converts_float_and_bool_indices(indices):
    ours = tl.sparse_coo_tensor(indices, [3.0, 4.0], (2, 2)).to_dense()
    theirs = torch.sparse_coo_tensor(indices, [3.0, 4.0], (2, 2),
                                     check_invariants=False).to_dense()
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_native_channel_shuffle_is_channel_shuffle():
    x = np.arange(16.0).reshape(1, 8, 2)
    np.testing.assert_array_equal(
        tl.nn.functional.native_channel_shuffle(tl.tensor(x), 4).numpy(),
        torch.nn.functional.native_channel_shuffle(torch.tensor(x), 4).numpy())


class _TensorLike:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return ("handled", func.__name__, len(args))


class _Declines:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented


def test_torch_function_helpers():
    for lib in (tl, torch):
        assert lib.autograd.is_tensor_like(_TensorLike())
        assert lib.overrides.is_tensor_like(lib.ones(1))
        assert not lib.overrides.is_tensor_like(6)
        functional = lib.nn.functional

        def func(a, b=None, functional=functional):
            if functional.has_torch_function((a, b)):
                return functional.handle_torch_function(func, (a, b), a, b=b)
            return a + 0

        assert func(_TensorLike()) == ("handled", "func", 1)
        assert func(lib.ones(1)).tolist() == [1.0]
        assert not functional.has_torch_function_unary(lib.ones(1))
        assert functional.has_torch_function_variadic(1, _TensorLike())
        with pytest.raises(TypeError):
            functional.handle_torch_function(func, (_Declines(),), _Declines())


def _inference_story(lib):
    x = lib.ones(1, 2, 3, requires_grad=True)
    with lib.inference_mode():
        y = x * x
        z = lib.zeros(2)
        z.add_(1)  # inside the block: allowed
    w = x * 2
    story = [y.requires_grad, y.is_inference(), z.is_inference(), w.is_inference()]
    for attempt in (lambda: y._version, lambda: z.add_(1), lambda: z.clone().add_(1),
                    lambda: z.mul_(lib.ones(2)), lambda: z.copy_(lib.ones(2)),
                    lambda: z.zero_(), lambda: z[0].fill_(3), lambda: w._version):
        try:
            attempt()
            story.append("ok")
        except RuntimeError:
            story.append("RuntimeError")

    @lib.inference_mode()
    def called(t):
        return t * t

    @lib.inference_mode
    def bare(t):
        return t * 2

    out = called(x)
    story += [out.requires_grad, out.is_inference(), bare(x).is_inference()]
    with lib.inference_mode(False):
        story.append((x * 1).is_inference())
    with lib.inference_mode():
        with lib.inference_mode(False):
            story.append((x * 1).is_inference())
    return story


def test_inference_tensors_as_in_pytorch():
    assert _inference_story(tl) == _inference_story(torch)


def test_inference_tensors_are_marked_only_in_the_thread_inside_the_block():
    import threading
    made = {}

    def other_thread():
        made["t"] = tl.ones(2) * 2

    with tl.inference_mode():
        worker = threading.Thread(target=other_thread)
        worker.start()
        worker.join()
        inside = tl.ones(2) * 2
    assert inside.is_inference() and not made["t"].is_inference()
    assert not (tl.ones(2) * 2).is_inference()  # after the block: ordinary tensors again


def test_from_file_reads_or_maps_raw_values(tmp_path):
    path = tmp_path / "storage.pt"
    values = np.random.default_rng(0).standard_normal(10)
    values.tofile(path)
    for lib in (tl, torch):
        read = lib.from_file(str(path), shared=False, size=10, dtype=lib.float64)
        np.testing.assert_array_equal(read.numpy(), values)
        assert lib.from_file(str(path), size=0, dtype=lib.float64).numel() == 0
    mapped = tl.from_file(str(path), shared=True, size=4, dtype=tl.float64)
    mapped.add_(1)  # a shared mapping writes through to the file
    del mapped
    np.testing.assert_array_equal(np.fromfile(path)[:4], values[:4] + 1)
    same_error(lambda: tl.from_file(str(path), size=11, dtype=tl.float64),
               lambda: torch.from_file(str(path), size=11, dtype=torch.float64))


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
def test_storages_built_as_pytorch_builds_them():
    for lib in (tl, torch):
        t = lib.tensor([1, 2, 3])
        typed = lib.TypedStorage(5, dtype=lib.float32)
        assert lib.is_storage(t.untyped_storage()) and lib.is_storage(typed)
        assert not lib.is_storage(t) and not lib.is_storage([1, 2, 3])
        assert typed.size() == 5 and len(lib.UntypedStorage(7)) == 7
        assert lib.TypedStorage([1, 2], dtype=lib.int64).tolist() == [1, 2]
        assert lib.TypedStorage(dtype=lib.float64).size() == 0


def test_sparse_methods_before_the_sparse_package_loads_and_narrow_copy():
    import subprocess
    import sys
    script = ("import tinygrad_lite as tl\n"
              "s = tl.arange(16).reshape(2, 2, 2, 2).to_sparse(2)\n"
              "print(type(s).__name__, tl.narrow_copy(s, 0, 0, 1).to_dense().sum().item())\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["SparseTensor", "28"]
    for dim, start, length in [(0, 0, 1), (1, 1, 1), (3, 0, 1), (2, 1, 1)]:
        ours = tl.narrow_copy(tl.arange(16).reshape(2, 2, 2, 2).to_sparse(2), dim, start,
                              length)
        theirs = torch.narrow_copy(torch.arange(16).reshape(2, 2, 2, 2).to_sparse(2), dim,
                                   start, length)
        assert ours.to_dense().tolist() == theirs.to_dense().tolist()


def test_vmap_of_a_function_that_runs_backward_once():
    """PyTorch's vmap example: a vector-Jacobian product per row of the identity, with
    ``autograd.grad`` called without retain_graph (once on the batch in PyTorch)."""
    results = []
    for lib in (tl, torch):
        lib.manual_seed(0)
        x = lib.randn(5, dtype=lib.float64, requires_grad=True)
        y = x ** 2

        def get_vjp(v, lib=lib, x=x, y=y):
            return lib.autograd.grad(y, x, v)

        (jacobian,) = lib.vmap(get_vjp)(lib.eye(5, dtype=lib.float64))
        results.append(jacobian.numpy())
        with pytest.raises(RuntimeError):  # outside vmap the graph is freed as usual
            lib.autograd.grad(y, x, lib.ones(5, dtype=lib.float64))
            lib.autograd.grad(y, x, lib.ones(5, dtype=lib.float64))
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)
