"""User mistakes that PyTorch refuses with a clear error: tinygrad_lite must refuse them too,
with the same exception type and a message naming the op and the offending values."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl


def _torch_raises(exc: type[BaseException], fn) -> None:
    torch = pytest.importorskip("torch")
    with pytest.raises(exc):
        fn(torch)


def test_reshape_rejects_negative_size_other_than_minus_one():
    with pytest.raises(RuntimeError, match=r"reshape.*invalid shape dimension -2.*\[-2, 3\]"):
        tl.zeros(2, 3).reshape(-2, 3)
    _torch_raises(RuntimeError, lambda torch: torch.zeros(2, 3).reshape(-2, 3))


def test_tensor_rejects_dtype_given_as_string():
    with pytest.raises(TypeError, match=r"tensor\(\).*dtype.*'float32'"):
        tl.tensor([1.0], dtype="float32")
    _torch_raises(TypeError, lambda torch: torch.tensor([1.0], dtype="float32"))


def test_flatten_start_after_end():
    with pytest.raises(RuntimeError, match=r"flatten\(\).*start_dim cannot come after end_dim"
                                           r".*\(2, 3, 4\)"):
        tl.zeros(2, 3, 4).flatten(2, 0)
    _torch_raises(RuntimeError, lambda torch: torch.zeros(2, 3, 4).flatten(2, 0))


def test_tensor_from_string():
    with pytest.raises(TypeError, match=r"tensor.*invalid data type 'str'"):
        tl.tensor("abc")
    _torch_raises(TypeError, lambda torch: torch.tensor("abc"))


def test_tensor_plus_string():
    with pytest.raises(TypeError, match=r"unsupported operand.*float32.*\(2, 3\).*str 'a'"):
        tl.zeros(2, 3) + "a"
    _torch_raises(TypeError, lambda torch: torch.zeros(2, 3) + "a")


def test_unbind_zero_dim():
    with pytest.raises(IndexError, match=r"unbind.*dimension specified as 0 but tensor has no "
                                         r"dimensions"):
        tl.tensor(1.0).unbind(0)
    _torch_raises(IndexError, lambda torch: torch.tensor(1.0).unbind(0))


def test_to_cuda_on_cpu_only_build():
    with pytest.raises(AssertionError, match=r"to: device 'cuda'.*not compiled with CUDA.*CPU"):
        tl.zeros(2).to("cuda")
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("torch has CUDA here")
    with pytest.raises(AssertionError):
        torch.zeros(2).to("cuda")


# Only above expand's small-copy threshold: below it expand returns a private copy, and an in-place
# write into it is accepted (PyTorch refuses it). Marking that copy read-only was tried and undone:
# NumPy then reshapes it as a read-only view where PyTorch copies (expand(...).reshape(-1).add_()
# works in PyTorch), which would refuse valid programs.
@pytest.mark.parametrize("rows", [200])
def test_inplace_into_large_expanded_tensor_raises(rows):
    e = tl.zeros(1, 300).expand(rows, 300)
    with pytest.raises(RuntimeError, match=rf"add_: unsupported operation.*\({rows}, 300\)"):
        e.add_(1)
    _torch_raises(RuntimeError, lambda torch: torch.zeros(1, 300).expand(rows, 300).add_(1))


def test_expand_to_same_shape_stays_writable():
    e = tl.zeros(2, 3).expand(2, 3)
    e.add_(1)
    assert np.all(e.numpy() == 1)
    c = tl.zeros(1, 3).expand(4, 3).contiguous()
    c.add_(1)
    assert np.all(c.numpy() == 1)


def test_save_for_backward_rejects_non_tensor():
    class F(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(3)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with pytest.raises(TypeError, match=r"save_for_backward.*argument 0 is of type int"):
        F.apply(tl.ones(2, requires_grad=True))
    torch = pytest.importorskip("torch")

    class TF(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(3)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with pytest.raises(TypeError):
        TF.apply(torch.ones(2, requires_grad=True))


def test_save_for_backward_accepts_none():
    class Linear(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x, w, b=None):
            ctx.save_for_backward(x, w, b)
            out = x @ w.t()
            return out if b is None else out + b

        @staticmethod
        def backward(ctx, g):
            x, w, b = ctx.saved_tensors
            assert b is None
            return g @ w, g.t() @ x, None

    x = tl.ones(2, 3, requires_grad=True)
    w = tl.ones(4, 3, requires_grad=True)
    Linear.apply(x, w).sum().backward()
    assert np.all(x.grad.numpy() == 4) and np.all(w.grad.numpy() == 2)


def test_numpy_of_tensor_requiring_grad():
    x = tl.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"numpy\(\).*requires grad"):
        x.numpy()
    with tl.no_grad():
        assert x.numpy().shape == (3,)  # allowed under no_grad, as in PyTorch
    torch = pytest.importorskip("torch")
    y = torch.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError):
        y.numpy()
    with torch.no_grad():
        y.numpy()


def test_save_into_missing_directory(tmp_path):
    pytest.importorskip("safetensors")
    target = tmp_path / "missing_dir" / "file.safetensors"
    with pytest.raises(RuntimeError, match=r"save: parent directory .*missing_dir.* does not "
                                           r"exist"):
        tl.save({"w": tl.zeros(2)}, target)
    assert not (tmp_path / "missing_dir").exists()
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.save({}, str(tmp_path / "missing_dir" / "f.pt"))


@pytest.mark.parametrize("n", [3, 5000])  # small expands are private copies, large ones views
def test_inplace_write_into_an_expanded_tensor_raises_whatever_its_size(n):
    x = tl.ones(1, n)
    for write in (lambda e: e.add_(1), lambda e: e.mul_(2), lambda e: e.zero_(),
                  lambda e: e[0].add_(1), lambda e: e.copy_(tl.zeros(3, n))):
        with pytest.raises(RuntimeError, match="share one memory location"):
            write(x.expand(3, n))
    assert np.all(x.numpy() == 1)
    y = x.expand(3, n).clone()
    y.add_(1)                              # a clone is an ordinary tensor
    assert np.all(y.numpy() == 2)


def test_inplace_write_refusals_say_why():
    """Overlapping unfold windows, broadcasts (and views of them) and read-only NumPy memory
    are refused, each naming its own reason."""
    frozen = np.ones(3)
    frozen.flags.writeable = False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # from_numpy's non-writable warning
        shared = tl.from_numpy(frozen)
    for write, why in ((lambda: tl.arange(6.0).unfold(0, 3, 1).add_(1), "overlap in memory"),
                       (lambda: tl.ones(1, 5000).expand(3, 5000)[0].add_(1), "broadcast view"),
                       (lambda: shared.add_(1), "read-only memory")):
        with pytest.raises(RuntimeError, match=why):
            write()
