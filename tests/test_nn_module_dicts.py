"""``nn.ModuleDict`` and ``nn.ParameterDict`` as PyTorch's: the types keys()/values()/items()
return, order, iteration, ``in``, ``len``, update from dicts/pairs/containers (a plain dict
sorted for ParameterDict), pop/clear/setdefault/popitem/get/copy/fromkeys, ``|``, non-tensor
values, the repr and PyTorch's errors."""

import copy
from collections import OrderedDict

import numpy as np
import pytest

import tinygrad_lite as tl

nn = tl.nn


def _both():
    torch = pytest.importorskip("torch")
    return [(tl, tl.nn), (torch, torch.nn)]


def test_module_dict_views_are_dicts_views_in_insertion_order():
    for _, lnn in _both():
        m = lnn.ModuleDict({"b": lnn.Linear(1, 1), "a": lnn.ReLU()})
        keys, values, items = m.keys(), m.values(), m.items()
        assert type(keys) is type({}.keys()) and type(values) is type({}.values())
        assert type(items) is type({}.items())
        assert list(keys) == ["b", "a"] and repr(keys) == "dict_keys(['b', 'a'])"
        m["c"] = lnn.Tanh()  # live views
        assert list(keys) == ["b", "a", "c"] and len(values) == 3
        assert [k for k, _ in items] == list(m) == ["b", "a", "c"]
        assert "a" in m and "z" not in m and "a" in keys and len(m) == 3
        assert keys & {"a", "z"} == {"a"}  # a set-like view


def test_module_dict_update_pop_clear():
    for _, lnn in _both():
        m = lnn.ModuleDict([("x", lnn.ReLU()), ["y", lnn.Tanh()]])
        m.update([("z", lnn.Sigmoid())])
        m.update(lnn.ModuleDict({"w": lnn.Tanh()}))
        m.update(OrderedDict([("v", lnn.ReLU()), ("u", lnn.ReLU())]))
        m.update({"t": lnn.ReLU(), "s": lnn.ReLU()})  # a dict keeps its order here
        assert list(m) == ["x", "y", "z", "w", "v", "u", "t", "s"]
        m.update({"x": lnn.Sigmoid()})  # replacing keeps the position
        assert list(m)[0] == "x" and type(m["x"]).__name__ == "Sigmoid"
        assert type(m.pop("y")).__name__ == "Tanh" and "y" not in m
        with pytest.raises(KeyError):
            m.pop("y")
        del m["z"]
        assert len(list(m.parameters())) == 0 and len(m) == 6
        m.clear()
        assert len(m) == 0 and list(m.keys()) == [] and list(m.children()) == []


def test_module_dict_registers_its_modules():
    m = nn.ModuleDict({"lin": nn.Linear(2, 3)})
    assert [n for n, _ in m.named_parameters()] == ["lin.weight", "lin.bias"]
    m.pop("lin")
    assert list(m.named_parameters()) == []


@pytest.mark.parametrize("bad", [3, [("a",)], [3], [("a", None, None)]])
def test_module_dict_update_errors_are_pytorchs(bad):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as ref:
        torch.nn.ModuleDict().update(bad)
    with pytest.raises(type(ref.value)) as got:
        nn.ModuleDict().update(bad)
    assert str(got.value) == str(ref.value)


def _tensor(lib, *values):
    return lib.tensor(np.array(values, np.float32))


def test_parameter_dict_views_order_and_values():
    for lib, lnn in _both():
        p = lnn.ParameterDict({"b": lnn.Parameter(_tensor(lib, 1.0)), "a": _tensor(lib, 1, 2),
                               "c": 3})
        assert list(p) == list(p.keys()) == ["a", "b", "c"]  # a plain dict: sorted
        assert type(p.keys()) is type({}.keys())
        assert type(p.values()).__name__ == type(p.items()).__name__ == "generator"
        assert type(p["a"]).__name__ == "Parameter" and p["a"].requires_grad
        assert p["c"] == 3 and p.c == 3  # other objects: plain attributes
        assert [n for n, _ in p.named_parameters()] == ["a", "b"]
        assert list(reversed(p)) == ["c", "b", "a"]
        assert [k for k, _ in p.items()] == ["a", "b", "c"] and len(list(p.values())) == 3
        assert "a" in p and "z" not in p and len(p) == 3


def test_parameter_dict_update_keeps_ordered_inputs_in_order():
    for lib, lnn in _both():
        p = lnn.ParameterDict(OrderedDict([("z", _tensor(lib, 1.0)), ("y", _tensor(lib, 2.0))]))
        p.update([("x", _tensor(lib, 3.0)), ("a", _tensor(lib, 4.0))])
        p.update(lnn.ParameterDict(OrderedDict([("m", _tensor(lib, 5.0))])))
        assert list(p) == ["z", "y", "x", "a", "m"]
        p.update({"k": _tensor(lib, 6.0), "j": _tensor(lib, 7.0)})
        assert list(p)[-2:] == ["j", "k"]


def test_parameter_dict_dict_methods():
    for lib, lnn in _both():
        p = lnn.ParameterDict([("a", _tensor(lib, 1.0)), ("b", _tensor(lib, 2.0))])
        d = p.setdefault("d", _tensor(lib, 4.0))
        assert type(d).__name__ == "Parameter" and p.setdefault("d", None) is d
        assert p.get("zz", 5) == 5 and p.get("a") is p["a"]
        q = p.copy()
        assert type(q) is type(p) and list(q) == list(p) and q["a"] is p["a"]
        assert p.popitem()[0] == "d" and list(p) == ["a", "b"]
        assert p.pop("a") is q["a"] and list(p) == ["b"]
        merged = p | lnn.ParameterDict({"z": _tensor(lib, 1.0)})
        assert list(merged) == ["b", "z"] and list(p) == ["b"]
        p |= lnn.ParameterDict({"y": _tensor(lib, 1.0)})
        assert list(p) == ["b", "y"]
        f = p.fromkeys(["x", "w"], _tensor(lib, 0.0))
        assert list(f) == ["x", "w"] and f["x"] is not f["w"]  # each wrapped on its own
        p.clear()
        assert len(p) == 0 and list(p.parameters()) == []
        p["n"] = None  # None: a plain attribute, as PyTorch's
        assert p["n"] is None and list(p) == ["n"] and list(p.parameters()) == []


def test_parameter_dict_repr_is_pytorchs():
    torch = pytest.importorskip("torch")
    ours = nn.ParameterDict({"w": tl.ones(2, 3), "n": 3, "s": "x"})
    theirs = torch.nn.ParameterDict({"w": torch.ones(2, 3), "n": 3, "s": "x"})
    assert repr(ours) == repr(theirs)
    assert repr(nn.ParameterDict({"n": None})) == repr(torch.nn.ParameterDict({"n": None}))


def _same_error(ours, theirs):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as ref:
        theirs(torch)
    with pytest.raises(type(ref.value)) as got:
        ours(tl)
    assert str(got.value) == str(ref.value)


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.ParameterDict().update(3),
    lambda lib: lib.nn.ParameterDict().update([("a",)]),
    lambda lib: lib.nn.ParameterDict().update([3]),
    lambda lib: lib.nn.ParameterDict().__setitem__(1, lib.ones(1)),
    lambda lib: lib.nn.ParameterDict()(lib.ones(1)),
    lambda lib: lib.nn.ParameterDict().pop("a"),
    lambda lib: lib.nn.ParameterDict().__delitem__("a"),
])
def test_parameter_dict_errors_are_pytorchs(call):
    _same_error(call, call)


def test_parameter_dict_refused_key_is_not_kept():
    p = nn.ParameterDict()
    with pytest.raises(TypeError):
        p[1] = tl.ones(1)
    assert len(p) == 0


def test_containers_survive_state_dict_and_deepcopy():
    p = nn.ParameterDict({"a": tl.ones(2), "b": tl.zeros(3)})
    m = nn.ModuleDict({"p": p, "lin": nn.Linear(2, 2)})
    assert list(m.state_dict()) == ["p.a", "p.b", "lin.weight", "lin.bias"]
    clone = copy.deepcopy(m)
    assert list(clone.keys()) == ["p", "lin"] and list(clone["p"].keys()) == ["a", "b"]
    assert clone["p"]["a"] is not p["a"]
    clone["p"]["c"] = tl.ones(1)
    assert "c" not in p
