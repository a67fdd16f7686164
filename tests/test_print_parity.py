"""What programs print besides a tensor's data, against PyTorch: ``nn.Parameter``, shapes,
dtypes and their classes, ``finfo``/``iinfo``, storages, ``f"{t:.3f}"``, ``item()``/``tolist()``,
gradients and ``set_printoptions`` profiles.

Each case is a small program run twice, with ``torch`` bound to PyTorch and to tinygrad_lite;
its printed output must be the same once the package name is spelled as PyTorch's
(``tinygrad_lite.float64`` prints where PyTorch prints ``torch.float64``). The layout of the
tensor data itself is checked in detail by tests/test_format_parity.py."""

from __future__ import annotations

import contextlib
import io
import pickle
import warnings

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")


def _printed(lib, program: str) -> str:
    """What ``program`` prints with ``torch`` bound to ``lib``, its exception as a last line;
    the package name spelled as PyTorch's."""
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # TypedStorage's deprecation warning
            exec(program, {"torch": lib, "np": np})
    except Exception as exc:  # noqa: BLE001 - the exception is part of what is compared
        out.write(f"!! {type(exc).__name__}: {exc}")
    finally:
        lib.set_printoptions(profile="default")
        lib.set_default_dtype(lib.float32)
    return out.getvalue().replace("tinygrad_lite", "torch")


PROGRAMS = {
    "parameter": "print(torch.nn.Parameter(torch.tensor([1., 2.])))",
    "parameter_no_grad_2d_float64": (
        "print(repr(torch.nn.Parameter(torch.zeros(2, 3, dtype=torch.float64),"
        " requires_grad=False)))"),
    "parameter_empty_and_scalar":
        "print(torch.nn.Parameter(), torch.nn.Parameter(torch.tensor(3.)))",
    "parameter_in_list": "print([torch.nn.Parameter(torch.ones(2))])",
    "parameter_subclass": (
        "class P(torch.nn.Parameter): pass\nprint(P(torch.ones(2)))"),
    "parameter_summarised": "print(torch.nn.Parameter(torch.arange(2000.)))",
    "parameter_result_and_grad": (
        "p = torch.nn.Parameter(torch.ones(3)); print(p * 1, p[0])\n"
        "p.sum().backward(); print(p.grad, type(p.grad).__name__)"),
    "grad_after_backward": (
        "x = torch.tensor([1., 2.], requires_grad=True); print(x.grad)\n"
        "(x * x).sum().backward(); print(str(x.grad), repr(x.grad))"),
    "retained_grad": (
        "x = torch.tensor([1., 2.], requires_grad=True); y = x * 2; y.retain_grad()\n"
        "y.sum().backward(); print(y.grad, x.grad)"),
    "shape_and_size": (
        "x = torch.zeros(2, 3); print(x.shape, repr(x.size()), x.size(1), torch.Size([]))\n"
        "print(torch.Size([2, 3])[1:], torch.Size([2]) + (4,), f'{x.shape}')"),
    "dtypes": (
        "for d in (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,"
        " torch.float16, torch.bfloat16, torch.float32, torch.float64):\n"
        "    print(d, repr(d), str(d))\n"
        "print(torch.float, torch.double, torch.half, torch.long, torch.int, torch.short)\n"
        "print(torch.tensor([1.]).dtype, torch.get_default_dtype())"),
    "classes": (
        "x = torch.zeros(2)\n"
        "print(type(x), type(x.shape), type(x.dtype), torch.dtype, torch.Size, type(x.device))\n"
        "print(type(x.storage()), type(x.untyped_storage()), torch.typename(x.storage()))"),
    "dtype_attributes": (
        "for d in (torch.bool, torch.uint8, torch.int8, torch.int64, torch.uint16,"
        " torch.float16, torch.bfloat16, torch.float64):\n"
        "    print(d.is_signed, d.is_complex, d.is_floating_point, d.itemsize, d.abbr,"
        " d.to_real())"),
    "finfo": (
        "for d in (torch.float16, torch.bfloat16, torch.float32, torch.float64):\n"
        "    f = torch.finfo(d); print(f, f.eps, f.max, f.tiny, f.resolution, f.bits, f.dtype)\n"
        "print(torch.finfo())"),
    "iinfo": (
        "for d in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64):\n"
        "    i = torch.iinfo(d); print(i, i.bits, i.min, i.max, i.dtype)"),
    "iinfo_of_bool": "print(torch.iinfo(torch.bool))",
    "info_equality": (
        "print(torch.finfo(torch.float32) == torch.finfo(), torch.finfo(torch.float32) =="
        " torch.finfo(torch.float16), torch.iinfo(torch.int8) == torch.iinfo(torch.int8),"
        " torch.iinfo(torch.int8) != torch.iinfo(torch.int16), torch.finfo() == 3)"),
    "info_classes": "print(type(torch.finfo()), torch.iinfo)",
    "typed_storages": (
        "print(torch.tensor([1.5, 2.], dtype=torch.float16).storage())\n"
        "print(torch.tensor([True]).storage()); print(torch.tensor([1, 2]).storage())\n"
        "print(torch.tensor([0.1, 1e-10]).storage())\n"
        "print(torch.tensor([float('nan'), -0.0, 1e20, float('inf')]).storage())\n"
        "print(repr(torch.tensor([1., 2.], dtype=torch.bfloat16)[1:].storage()))\n"
        "print(torch.zeros(0, dtype=torch.float64).storage())"),
    "untyped_storages": (
        "print(torch.tensor([1, 2], dtype=torch.int16).untyped_storage())\n"
        "print(repr(torch.zeros(0).untyped_storage())); print(torch.UntypedStorage([1, 255]))\n"
        "print([torch.tensor([[1., 2.], [3., 4.]]).t().untyped_storage()[4]])"),
    "format_of_scalars": (
        "t = torch.tensor(3.14159); print(f'{t:.3f}', f'{t}', f'{t:e}', f'{t:10.2f}|')\n"
        "print(f'{torch.tensor(3):d}', f'{torch.tensor(3):5}', f'{torch.tensor(True)}')\n"
        "print('%.2f' % torch.tensor(1.5), '{:.1f}'.format(torch.tensor([1., 2.]).mean()))\n"
        "x = torch.tensor(2., requires_grad=True); print(f'{x:.3f}', f'{x * 2:.1f}', f'{x}')"),
    "format_of_tensors": (
        "t = torch.tensor([1., 2.]); print(f'{t}', f'{t!r}', '%s' % t)\n"
        "print(f'{t:.3f}')"),
    "format_of_a_parameter": "print(f'{torch.nn.Parameter(torch.tensor(1.5)):.2f}')",
    "item_and_tolist": (
        "x = torch.tensor([0.1, 0.2]); print(x.tolist(), x[0].item(), repr(x.sum().item()))\n"
        "print(torch.tensor([0.1], dtype=torch.float16).tolist(),"
        " torch.tensor([0.1], dtype=torch.bfloat16).tolist())\n"
        "print(torch.tensor([1, 2], dtype=torch.uint8).tolist(), torch.tensor(3.7).tolist(),"
        " torch.zeros(2, 0).tolist(), torch.tensor([True]).tolist())\n"
        "print(torch.tensor(float('nan')).item(), torch.tensor(-0.0).item(),"
        " type(torch.tensor(5).item()).__name__, torch.tensor(True).item())"),
    "containers": (
        "print([torch.tensor(1.), torch.tensor(2)], {'a': torch.tensor([1., 2.])},"
        " (torch.tensor(1.), torch.tensor([2, 3])))"),
    "return_types": (
        "print(torch.max(torch.tensor([[1., 5.], [3., 2.]]), dim=1))\n"
        "print(torch.sort(torch.tensor([3, 1, 2])))"),
    "unknown_profile_changes_nothing": (
        "torch.set_printoptions(precision=2)\n"
        "torch.set_printoptions(profile='bogus', linewidth=30); print(torch.arange(12.) / 7)"),
    "printoptions_positional_and_reset": (
        "torch.set_printoptions(2, 5, 1, 60); print(torch.arange(10.) / 3)\n"
        "torch.set_printoptions(profile='default'); print(torch.arange(10.) / 3)"),
    "default_dtype_float64": (
        "torch.set_default_dtype(torch.float64)\n"
        "print(torch.tensor([1.5]), torch.tensor([1.5], dtype=torch.float32), torch.zeros(2, 0))"),
    "empty_with_grad_and_dtype": (
        "print(torch.zeros(2, 0, dtype=torch.float64, requires_grad=True),"
        " torch.zeros(0, dtype=torch.float16, requires_grad=True))"),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_prints_as_pytorch(name):
    assert _printed(tl, PROGRAMS[name]) == _printed(torch, PROGRAMS[name])


def test_finfo_and_iinfo_are_unhashable_as_pytorchs():
    for lib in (tl, torch):
        with pytest.raises(TypeError, match="unhashable"):
            hash(lib.finfo(lib.float32))
        with pytest.raises(TypeError, match="unhashable"):
            hash(lib.iinfo(lib.int8))


def test_storage_repr_exact_text():
    # one element a line, each after a space, then the storage's kind, dtype and size
    assert repr(tl.tensor([1.5, 2.0]).storage()) == (
        " 1.5\n 2.0\n[tinygrad_lite.storage.TypedStorage(dtype=tinygrad_lite.float32, "
        "device=cpu) of size 2]")
    assert repr(tl.tensor([1], dtype=tl.int16).untyped_storage()) == (
        " 1\n 0\n[tinygrad_lite.storage.UntypedStorage(device=cpu) of size 2]")


def test_classes_under_their_printed_names_still_pickle():
    # Size, dtype and the storages print as living in tinygrad_lite(.storage), so they must be
    # found there when unpickled
    import tinygrad_lite.storage as storage_module

    assert storage_module.TypedStorage is type(tl.zeros(1).storage())
    assert tl.storage is storage_module
    for dtype in (tl.float32, tl.bfloat16, tl.bool, tl.uint16):
        assert pickle.loads(pickle.dumps(dtype)) is dtype
    shape = pickle.loads(pickle.dumps(tl.zeros(2, 3).shape))
    assert type(shape) is tl.Size and shape == (2, 3)
    assert pickle.loads(pickle.dumps(tl.device("cpu"))) == tl.device("cpu")
    storage = pickle.loads(pickle.dumps(tl.tensor([1, 2], dtype=tl.int8).untyped_storage()))
    assert storage.tolist() == [1, 2]
