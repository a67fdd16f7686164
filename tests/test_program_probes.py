"""What published PyTorch programs stopped at when run unchanged (pytorch/examples, classic
tutorials): a replaced submodule keeps its place, dense-sparse arithmetic and products, the
size=/shape=/dims= keyword spellings, dropout2d on 3-D input."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl

nn = tl.nn


def test_replacing_a_child_or_parameter_keeps_its_position():
    # siamese_network: resnet.conv1 = Conv2d(1, ...); list(resnet.children())[:-1] drops fc
    net = nn.Sequential()
    net.a, net.b, net.c = nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2)
    net.a = nn.Linear(2, 3)
    assert [name for name, _ in net.named_children()] == ["a", "b", "c"]
    assert list(net.state_dict()) == ["a.weight", "a.bias", "c.weight", "c.bias"]
    layer = nn.Linear(2, 2)
    layer.weight = nn.Parameter(tl.ones(2, 2))
    assert [name for name, _ in layer.named_parameters()] == ["weight", "bias"]
    holder = nn.Module()
    holder.x, holder.y = nn.Buffer(tl.zeros(2)), nn.Buffer(tl.zeros(1))
    holder.x = nn.Buffer(tl.ones(3), persistent=False)
    assert list(holder._buffers) == ["x", "y"] and list(holder.state_dict()) == ["y"]
    holder.x = nn.Parameter(tl.ones(1))  # another kind: moves to its own store
    assert list(holder._buffers) == ["y"] and list(holder._parameters) == ["x"]


def _adjacency():
    values = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return tl.sparse_coo_tensor(tl.tensor([[0, 1, 2], [1, 2, 0]]), values, (3, 3)), values


def test_dense_and_sparse_operands_mix_as_in_pytorch():
    # gcn/gat: x + adj, torch.mm(adj, h), h @ adj, torch.sum(adj, dim=1)
    adj, values = _adjacency()
    dense = adj.to_dense().detach().numpy()
    d = tl.randn(3, 3, dtype=tl.float32, requires_grad=True)
    dn = d.detach().numpy()
    np.testing.assert_allclose((d + adj).detach().numpy(), dn + dense)
    np.testing.assert_allclose((d - adj).detach().numpy(), dn - dense)
    np.testing.assert_allclose(tl.add(d, adj).detach().numpy(), dn + dense)
    np.testing.assert_allclose((d * adj).detach().numpy(), dn * dense)
    for product, expected in ((d @ adj, dn @ dense), (tl.mm(adj, d), dense @ dn),
                              (tl.mm(d, adj), dn @ dense), (tl.matmul(adj, d), dense @ dn),
                              (tl.matmul(tl.ones(3), adj), np.ones(3) @ dense)):
        np.testing.assert_allclose(product.detach().numpy(), expected, rtol=1e-6)
    assert tl.sum(adj, dim=1).to_dense().tolist() == [1.0, 2.0, 3.0]
    (d @ adj).sum().backward()
    np.testing.assert_allclose(d.grad.numpy(), np.ones((3, 3)) @ dense.T)
    np.testing.assert_allclose(values.grad.numpy(), dn.sum(0)[[0, 1, 2]])
    with pytest.raises(RuntimeError, match="1-D or 2-D"):
        tl.matmul(tl.ones(2, 3, 3), adj)


def test_size_shape_and_dims_keywords():
    x = tl.ones(2, 3)
    assert tl.zeros(size=(2, 3)).shape == (2, 3) and tl.ones(size=[2]).shape == (2,)
    assert tl.empty(size=(1, 2)).shape == (1, 2) and tl.zeros(size=()).shape == ()
    assert tl.rand(size=(2,)).shape == (2,) and tl.randn(size=(1, 2)).shape == (1, 2)
    assert x.view(size=(3, 2)).shape == (3, 2) and x.view(dtype=tl.int32).dtype == tl.int32
    assert x.reshape(shape=(3, 2)).shape == (3, 2) and tl.reshape(x, shape=(6,)).shape == (6,)
    assert x.expand(size=(4, 2, 3)).shape == (4, 2, 3)
    assert x.permute(dims=(1, 0)).shape == (3, 2) and tl.permute(x, dims=(1, 0)).shape == (3, 2)
    assert x.flip(dims=(0,)).shape == (2, 3) and x.tile(dims=(2,)).shape == (2, 6)
    assert x.repeat(repeats=(2, 1)).shape == (4, 3)
    assert x.sum_to_size(size=(1, 3)).tolist() == [[2.0, 2.0, 2.0]]
    assert tl.arange(end=3).tolist() == [0, 1, 2] and tl.arange(start=1, end=3).tolist() == [1, 2]
    # new_zeros(size=...) gave a 0-d tensor: the keyword went into **options
    for make in (x.new_zeros, x.new_ones, x.new_empty):
        assert make(size=(2,)).shape == (2,) and make(2, 2).shape == (2, 2)
    with pytest.raises(TypeError, match="multiple values for argument 'size'"):
        tl.zeros(2, size=(2,))
    with pytest.raises(TypeError, match="bogus"):
        x.new_zeros((2,), bogus=1)
    with pytest.raises(TypeError, match="unexpected keyword"):
        tl.ones(2, requires_gradient=True)


def test_dropout2d_reads_3d_input_as_batched_channels():
    tl.manual_seed(0)
    with pytest.warns(UserWarning, match="interpreted as shape \\(N, C, L\\)"):
        out = nn.Dropout2d(0.5)(tl.ones(16, 8, 5))
    # one decision per (sample, channel): whole rows of L kept or zeroed, not whole samples
    rows = out.numpy()
    assert np.all(rows == rows[:, :, :1])
    kept = rows[:, :, 0] > 0
    assert 0 < kept.mean() < 1 and not np.all(kept == kept[:, :1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert nn.Dropout2d(0.5)(tl.ones(2, 3, 4, 5)).shape == (2, 3, 4, 5)


def test_variable_is_a_new_leaf_sharing_the_data():
    # Morvan's 202_variable: the tensor wrapped must not start requiring grad itself
    a = tl.ones(2)
    v = tl.autograd.Variable(a, requires_grad=True)
    assert v is not a and not a.requires_grad and v.requires_grad and v.is_leaf
    a.add_(1)  # allowed: a is no leaf requiring grad
    assert v.tolist() == [2.0, 2.0]  # shares the memory
    b = tl.ones(2, requires_grad=True) * 2
    w = tl.autograd.Variable(b)
    assert not w.requires_grad and w.grad_fn is None and isinstance(w, tl.autograd.Variable)
    assert tl.autograd.Variable([1.0, 2.0]).tolist() == [1.0, 2.0]


def test_python_scalars_of_many_elements_and_cuda_types():
    with pytest.raises(ValueError, match="only one element tensors"):
        int(tl.ones(2))
    with pytest.raises(ValueError, match="only one element tensors"):
        float(tl.ones(2, 1))
    with pytest.raises(RuntimeError):
        tl.ones(2).item()
    assert int(tl.ones(1, 1)) == 1 and float(tl.tensor(2)) == 2.0
    assert not isinstance(tl.ones(1), tl.cuda.FloatTensor)
    assert not isinstance(tl.ones(1, dtype=tl.int64), tl.cuda.LongTensor)
    with pytest.raises(TypeError, match="not compiled with CUDA"):
        tl.cuda.FloatTensor(2)


def test_sampling_with_replacement_is_lazy():
    # makemore and minGPT's trainer: RandomSampler(replacement=True, num_samples=int(1e10))
    data = tl.utils.data
    sampler = data.RandomSampler(range(10), replacement=True, num_samples=int(1e10))
    assert len(sampler) == 10 ** 10 and 0 <= next(iter(sampler)) < 10
    weighted = data.WeightedRandomSampler([0.0, 1.0], num_samples=int(1e10))
    assert next(iter(weighted)) == 1
    loader = data.DataLoader(data.TensorDataset(tl.arange(10)), batch_size=4, sampler=sampler)
    assert next(iter(loader))[0].shape == (4,)
    small = list(data.RandomSampler(range(3), replacement=True, num_samples=5000,
                                    generator=tl.Generator().manual_seed(0)))
    assert len(small) == 5000 and set(small) == {0, 1, 2}


def _gradient_penalty(lib, critic, real, fake, alpha):
    """WGAN-GP's penalty as the published training scripts write it."""
    mixed = real * alpha + fake * (1 - alpha)
    mixed.requires_grad_(True)
    scores = critic(mixed)
    gradient = lib.autograd.grad(outputs=scores, inputs=mixed,
                                 grad_outputs=lib.ones_like(scores), create_graph=True,
                                 retain_graph=True)[0]
    gradient = gradient.view(gradient.shape[0], -1)  # needs contiguous memory
    return ((gradient.norm(2, dim=1) - 1) ** 2).mean()


def _critic(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(1, 4, 4, 2, 1), nn.LeakyReLU(0.2),
                         nn.Conv2d(4, 4, 3, 1, 1), nn.InstanceNorm2d(4, affine=True),
                         nn.LeakyReLU(0.2), nn.Conv2d(4, 1, 4, 1, 0)).double()


def test_create_graph_gradients_are_contiguous_like_plain_ones():
    # WGAN-GP: autograd.grad(..., create_graph=True) through padded convolutions, then .view
    x = tl.randn(2, 1, 8, 8, requires_grad=True)
    for make in (lambda t: nn.functional.conv2d(t, tl.ones(3, 1, 3, 3), padding=1),
                 lambda t: nn.functional.pad(t, (1, 1, 2, 0)) * 2,
                 lambda t: t.transpose(2, 3) * 2):
        out = make(x)
        (plain,) = tl.autograd.grad((out * out).sum(), x)
        (graphed,) = tl.autograd.grad((make(x) ** 2).sum(), x, create_graph=True)
        assert graphed.is_contiguous() and plain.is_contiguous()
        assert graphed.grad_fn is not None
        np.testing.assert_allclose(graphed.detach().numpy(), plain.numpy(), rtol=1e-5,
                                   atol=1e-4)
        graphed.view(2, -1)
    critic = _critic(tl)
    real, fake, alpha = tl.randn(4, 1, 8, 8).double(), tl.randn(4, 1, 8, 8).double(), \
        tl.rand(4, 1, 1, 1).double()
    penalty = _gradient_penalty(tl, critic, real, fake, alpha)
    penalty.backward()
    assert all(p.grad is not None for p in critic[0].parameters())


def test_gradient_penalty_matches_pytorch():
    torch = pytest.importorskip("torch")
    ours, theirs = _critic(tl), _critic(torch)
    for p, q in zip(ours.parameters(), theirs.parameters()):
        with torch.no_grad():
            q.copy_(torch.from_numpy(p.detach().numpy()))
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((4, 1, 8, 8)), rng.standard_normal((4, 1, 8, 8)),
              rng.random((4, 1, 1, 1))]
    penalty = _gradient_penalty(tl, ours, *(tl.from_numpy(a) for a in arrays))
    expected = _gradient_penalty(torch, theirs, *(torch.from_numpy(a) for a in arrays))
    penalty.backward()
    expected.backward()
    np.testing.assert_allclose(penalty.item(), expected.item(), rtol=1e-10)
    for p, q in zip(ours.parameters(), theirs.parameters()):
        # (a parameter the penalty does not depend on: PyTorch's LeakyReLU double backward
        # links it with a zero gradient, ours leaves it without one)
        mine = np.zeros(p.shape) if p.grad is None else p.grad.numpy()
        reference = np.zeros(p.shape) if q.grad is None else q.grad.numpy()
        np.testing.assert_allclose(mine, reference, rtol=1e-8, atol=1e-12)


def test_cuda_names_programs_touch_answer_as_a_cpu_only_pytorch():
    # timing scripts make tl.cuda.Event(enable_timing=True); memory reports read the counters
    assert tl.cuda.memory_allocated() == tl.cuda.max_memory_reserved() == 0
    tl.cuda.reset_peak_memory_stats()
    assert tl.cuda.get_arch_list() == []
    for make in (lambda: tl.cuda.Event(enable_timing=True), tl.cuda.Stream,
                 tl.cuda.get_device_properties, tl.cuda.current_stream,
                 lambda: tl.cuda.device(0)):
        with pytest.raises(RuntimeError, match="CUDA|GPU"):
            make()
    with tl.cuda.stream(None), tl.cuda.device(-1):
        pass


@pytest.mark.parametrize("slope", [0.2, 0.01, 1.0, 1.5, -0.3, 0.0])
def test_leaky_relu_is_one_node_with_pytorch_values_at_the_edges(slope):
    # GAN discriminators: LeakyReLU(0.2) over large activations, one branch-free node
    x = np.array([-np.inf, -2, -0.0, 0.0, 1e-30, 3, np.inf, np.nan], np.float32)
    t = tl.tensor(x, requires_grad=True)
    out = nn.functional.leaky_relu(t, slope)
    assert out.grad_fn.name() == "LeakyReluBackward0"
    with np.errstate(invalid="ignore"):  # (inf * 0 in the expectation, for slope 0)
        expected = np.where(x > 0, x, x * np.float32(slope))
        expected_grad = np.where(x > 0, grad_values := np.array(
            [1, 2, 3, 4, 5, np.inf, np.nan, 7], np.float32), grad_values * np.float32(slope))
    np.testing.assert_array_equal(out.detach().numpy(), expected)
    assert np.array_equal(np.signbit(out.detach().numpy()[:4]), np.signbit(expected[:4]))
    out.backward(tl.tensor(grad_values))
    np.testing.assert_array_equal(t.grad.numpy(), expected_grad)
    d = tl.tensor(np.random.default_rng(1).standard_normal(6), requires_grad=True)
    assert tl.autograd.gradgradcheck(lambda v: nn.functional.leaky_relu(v, slope), (d,))
    inplace = d.detach().clone().requires_grad_()
    result = nn.functional.leaky_relu(inplace * 1, slope, inplace=True)
    result.sum().backward()
    np.testing.assert_allclose(inplace.grad.numpy(), np.where(d.detach().numpy() > 0, 1, slope))
