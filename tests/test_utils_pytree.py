"""tl.utils._pytree: flatten / unflatten / map over nested containers, TreeSpec, registration,
key paths and spec serialization, as torch.utils._pytree (the installed PyTorch, when there, is
the oracle: same leaves, same spec reprs, same JSON, same errors)."""

import copy
import dataclasses
import enum
import inspect
import pickle
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple

import pytest

import tinygrad_lite as tl
import tinygrad_lite.utils._pytree as pt
from tinygrad_lite.utils._pytree import (
    LeafSpec,
    TreeSpec,
    tree_flatten,
    tree_leaves,
    tree_map,
    tree_structure,
    tree_unflatten,
)

Point = namedtuple("Point", "x y")


class Color(enum.Enum):
    RED = 1


def _trees():
    """Nested structures of plain Python values (both libraries treat them alike)."""
    return [
        None, 1, "abc", [], (), {}, [None], (1, "abc", 2.5, [3j]),
        {"b": [1, (2, None)], "a": Point(3, OrderedDict(z=4, y=5)),
         "c": defaultdict(int, {2: 6, 1: 7}), "d": deque([8, 9], maxlen=3)},
        {Color.RED: 1, "b": (1, deque([1], maxlen=2)), "c": OrderedDict(a=1),
         "d": defaultdict(list, x=1)},
        [[[[]]], ((),), {"x": {}}],
        {"z": 1, "a": 2, "m": [3, {"q": 4, "b": 5}]},
    ]


@pytest.fixture
def registry():
    """Registrations made by a test are undone after it."""
    saved = (dict(pt.SUPPORTED_NODES), dict(pt.SUPPORTED_SERIALIZED_TYPES),
             dict(pt.SERIALIZED_TYPE_TO_PYTHON_TYPE))
    yield
    for table, old in zip((pt.SUPPORTED_NODES, pt.SUPPORTED_SERIALIZED_TYPES,
                           pt.SERIALIZED_TYPE_TO_PYTHON_TYPE), saved):
        table.clear()
        table.update(old)


# ---------------------------------------------------------------- flatten / unflatten


@pytest.mark.parametrize("tree", _trees())
def test_flatten_unflatten_round_trip(tree):
    leaves, spec = tree_flatten(tree)
    assert spec.num_leaves == len(leaves) == len(tree_leaves(tree))
    back = tree_unflatten(leaves, spec)
    assert back == tree and type(back) is type(tree)
    assert tree_structure(tree) == spec and tree_unflatten(spec, leaves) == tree


def test_none_is_a_leaf_and_dicts_keep_insertion_order():
    assert tree_flatten(None) == ([None], pt.treespec_leaf())
    assert tree_leaves([None, {"b": None, "a": 1}]) == [None, None, 1]
    assert tree_structure({"b": 1, "a": 2}).context == ["b", "a"]
    assert pt.tree_is_leaf(None) and pt.tree_is_leaf(tl.ones(2)) and not pt.tree_is_leaf([1])


def test_container_specs():
    spec = tree_structure(Point(1, 2))
    assert spec.type is namedtuple and spec.context is Point
    spec = tree_structure(defaultdict(list, a=1))
    assert spec.type is defaultdict and spec.context == [list, ["a"]]
    back = tree_unflatten([5], spec)
    assert isinstance(back, defaultdict) and back.default_factory is list and back["a"] == 5
    d = tree_unflatten([1, 2], tree_structure(deque([0, 0], maxlen=4)))
    assert isinstance(d, deque) and d.maxlen == 4
    od = tree_unflatten([1, 2], tree_structure(OrderedDict(b=0, a=0)))
    assert type(od) is OrderedDict and list(od) == ["b", "a"]


def test_tensors_sizes_and_return_types():
    x = tl.randn(3, 2)
    leaves, spec = tree_flatten({"t": x, "s": x.shape, "r": x.max(0)})
    assert leaves[0] is x and leaves[1:3] == [3, 2] and len(leaves) == 5
    assert repr(spec) == ("TreeSpec(dict, ['t', 's', 'r'], [*,\n  TreeSpec(Size, None, [*,\n"
                          "    *]),\n  TreeSpec(max, None, [*,\n    *])])")
    back = tree_unflatten(leaves, spec)
    assert type(back["r"]) is type(x.max(0)) and back["s"] == (3, 2)
    doubled = tree_map(lambda t: t * 2, {"a": [x, (x,)]})
    assert isinstance(doubled["a"][1][0], tl.Tensor)
    assert doubled["a"][0].tolist() == (x * 2).tolist()


def test_is_leaf_stops_descent():
    tree = [(1, 2), [3, (4,)]]
    assert tree_leaves(tree, is_leaf=lambda n: isinstance(n, tuple)) == [(1, 2), 3, (4,)]
    sizes = tree_map(lambda n: len(n) if isinstance(n, tuple) else n, tree,
                     is_leaf=lambda n: isinstance(n, tuple))
    assert sizes == [2, [3, 1]]


# ---------------------------------------------------------------- TreeSpec


def test_treespec_fields_and_repr():
    spec = tree_structure({"b": [1, (2, None)], "a": 3})
    assert (spec.type, spec.context, spec.num_leaves, spec.num_nodes, spec.num_children) == (
        dict, ["b", "a"], 4, 7, 2)
    assert spec.children_specs[1] == spec.child(1) == pt.treespec_leaf()
    assert spec.children() == spec.children_specs and spec.children() is not spec._children
    assert not spec.is_leaf() and spec.child(1).is_leaf()
    assert repr(spec) == ("TreeSpec(dict, ['b', 'a'], [TreeSpec(list, None, [*,\n"
                          "    TreeSpec(tuple, None, [*,\n      *])]),\n  *])")
    assert str(pt.treespec_leaf()) == "*" and isinstance(pt.treespec_leaf(), LeafSpec)
    assert pt.treespec_pprint(spec) == "{'b': [*, (*, *)], 'a': *}"
    with pytest.raises(AttributeError):
        spec.type = list


def test_treespec_equality_hash_copy_pickle():
    a, b = tree_structure([1, {"a": 2}]), tree_structure([3, {"a": 4}])
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != tree_structure([1, {"b": 2}]) and a != tree_structure((1, {"a": 2}))
    assert a != 5 and not (a == "x")
    for c in (copy.deepcopy(a), pickle.loads(pickle.dumps(a))):
        assert c == a and hash(c) == hash(a)
    assert TreeSpec(list, None, [LeafSpec(), LeafSpec()]) == tree_structure([0, 0])
    assert pt.treespec_tuple([pt.treespec_leaf()] * 2) == tree_structure((1, 2))
    assert pt.treespec_dict(a=pt.treespec_leaf()) == tree_structure({"a": 1})
    assert pt.treespec_dict({"a": pt.treespec_leaf()}, b=pt.treespec_leaf()).context == ["a", "b"]
    with pytest.raises(ValueError):
        pt.treespec_tuple([1])
    with pytest.raises(ValueError):
        pt.treespec_dict(a=1)


def test_unflatten_errors():
    spec = tree_structure([1, 2])
    with pytest.raises(ValueError, match="has length 3"):
        tree_unflatten([1, 2, 3], spec)
    with pytest.raises(TypeError, match="PyTreeSpec"):
        tree_unflatten([1], 5)
    assert tree_unflatten(iter([7, 8]), spec) == [7, 8]


# ---------------------------------------------------------------- map and predicates


def test_tree_map_with_rests_and_prefixes():
    assert tree_map(lambda x: x + 1, {"x": 7, "y": (42, 64)}) == {"x": 8, "y": (43, 65)}
    assert tree_map(lambda x, y: [x] + y, [5, 6], [[7, 9], [1, 2]]) == [[5, 7, 9], [6, 1, 2]]
    assert tree_map(lambda a, b: (a, b), {"a": 1, "b": 2}, OrderedDict(b=3, a=4)) == {
        "a": (1, 4), "b": (2, 3)}
    assert tree_map(lambda a, b: a + b, deque([1], maxlen=2), deque([2])) == deque([3])
    with pytest.raises(ValueError, match="arity"):
        tree_map(lambda a, b: a, [1, 2], [1])
    with pytest.raises(ValueError, match="type mismatch"):
        tree_map(lambda a, b: a, [1, 2], (1, 2))
    with pytest.raises(ValueError, match="keys mismatch"):
        tree_map(lambda a, b: a, {"a": 1}, {"b": 1})
    with pytest.raises(ValueError, match="context mismatch"):
        tree_map(lambda a, b: a, Point(1, 2), namedtuple("Other", "x y")(1, 2))


def test_tree_map_inplace_and_only_variants():
    seen = []
    tree = [1, (2, "s")]
    assert pt.tree_map_(seen.append, tree) is tree and seen == [1, 2, "s"]
    mixed = [1, "a", 2.0, None]
    assert pt.tree_map_only(int, lambda x: x + 1, mixed) == [2, "a", 2.0, None]
    assert pt.tree_map_only((int, float), lambda x: x + 1, mixed) == [2, "a", 3.0, None]
    assert pt.tree_map_only(int | float, lambda x: x * 2, mixed) == [2, "a", 4.0, None]
    assert pt.tree_map_only(lambda x: x == "a", str.upper, mixed) == [1, "A", 2.0, None]
    with pytest.raises(TypeError, match="type"):
        pt.tree_map_only(5, lambda x: x, mixed)
    seen.clear()
    pt.tree_map_only_(str, seen.append, mixed)
    assert seen == ["a"]
    assert pt.map_only(int)(lambda x: -x)(3) == -3 and pt.map_only(int)(lambda x: -x)("3") == "3"


def test_all_any_and_leaves_helpers():
    tree = {"a": [1, 2], "b": ("x", 3.0)}
    assert pt.tree_any(lambda x: x == "x", tree) and not pt.tree_all(lambda x: x == "x", tree)
    assert pt.tree_all_only(int, lambda x: x > 0, tree)
    assert not pt.tree_any_only(float, lambda x: x > 5, tree)
    assert pt.tree_all_only((int, float), lambda x: x > 0, tree)
    assert list(pt.tree_iter(tree)) == [1, 2, "x", 3.0]
    assert pt.arg_tree_leaves(1, [2, 3], k={"a": 4}) == [1, 2, 3, 4]


# ---------------------------------------------------------------- registration


class Pair:
    def __init__(self, first, second):
        self.first, self.second = first, second

    def __eq__(self, other):
        return isinstance(other, Pair) and (self.first, self.second) == (other.first,
                                                                         other.second)


@dataclasses.dataclass
class Box:
    value: object
    extra: object = None
    tag: str = "t"


def test_register_pytree_node(registry):
    pt.register_pytree_node(Pair, lambda p: ([p.first, p.second], "ctx"),
                            lambda vals, ctx: Pair(*vals), serialized_type_name="test.Pair",
                            flatten_with_keys_fn=lambda p: ([(pt.GetAttrKey("first"), p.first),
                                                             (pt.GetAttrKey("second"),
                                                              p.second)], "ctx"))
    tree = {"p": Pair(1, [2, 3])}
    leaves, spec = tree_flatten(tree)
    assert leaves == [1, 2, 3] and spec.child(0).type is Pair and spec.child(0).context == "ctx"
    assert tree_unflatten(leaves, spec) == tree
    assert tree_map(lambda x: x * 10, tree) == {"p": Pair(10, [20, 30])}
    assert pt.treespec_loads(pt.treespec_dumps(spec)) == spec
    assert [pt.keystr(k) for k, _ in pt.tree_leaves_with_path(tree)] == [
        "['p'].first", "['p'].second[0]", "['p'].second[1]"]
    with pytest.raises(ValueError, match="already registered"):
        pt.register_pytree_node(Pair, lambda p: ([], None), lambda v, c: Pair(0, 0))
    with pytest.raises(ValueError, match="to_dumpable_context"):
        pt.register_pytree_node(Box, lambda b: ([], None), lambda v, c: Box(0),
                                to_dumpable_context=str)


def test_unnamed_node_types_cannot_be_serialized(registry):
    pt.register_pytree_node(Pair, lambda p: ([p.first, p.second], None),
                            lambda vals, ctx: Pair(*vals))
    with pytest.raises(NotImplementedError, match="serialized_type_name"):
        pt.treespec_dumps(tree_structure(Pair(1, 2)))
    with pytest.raises(ValueError, match="flatten_with_keys_fn"):
        pt.tree_flatten_with_path(Pair(1, 2))


def test_register_dataclass(registry):
    pt.register_dataclass(Box)
    leaves, spec = tree_flatten(Box([1, 2], None))
    assert leaves == [1, 2, "t"]  # None fields go into the context, not the leaves
    assert tree_unflatten([5, 6, "u"], spec) == Box([5, 6], None, "u")
    assert pt.keystr(pt.tree_leaves_with_path(Box(1))[0][0]) == ".value"
    with pytest.raises(ValueError, match="field_names"):
        pt.register_dataclass(Pair)


def test_old_private_registration_warns_and_overwrites(registry):
    with pytest.warns(FutureWarning):
        pt._register_pytree_node(Pair, lambda p: ([p.first], p.second),
                                 lambda v, c: Pair(v[0], c))
    with pytest.warns(UserWarning, match="Overwriting"), warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        pt._register_pytree_node(Pair, lambda p: ([p.second], p.first),
                                 lambda v, c: Pair(c, v[0]))
    assert tree_leaves(Pair(1, 2)) == [2]


# ---------------------------------------------------------------- key paths, serialization


def test_key_paths():
    tree = {"a": [1, (2, 3)], "n": Point(4, 5)}
    pairs, spec = pt.tree_flatten_with_path(tree)
    assert spec == tree_structure(tree)
    assert [pt.keystr(k) for k, _ in pairs] == ["['a'][0]", "['a'][1][0]", "['a'][1][1]",
                                               "['n'].x", "['n'].y"]
    assert all(pt.key_get(tree, k) == v for k, v in pairs)
    assert pairs[0][0] == (pt.MappingKey("a"), pt.SequenceKey(0))
    assert pt.tree_map_with_path(lambda k, v, w: pt.keystr(k) + str(v + w), [1, 2], [10, 20]) \
        == ["[0]11", "[1]22"]


def test_treespec_dumps_and_loads():
    for tree in _trees():
        spec = tree_structure(tree)
        if "namedtuple" in repr(spec):
            continue  # a namedtuple needs a registered name first (below)
        assert pt.treespec_loads(pt.treespec_dumps(spec)) == spec
    assert pt.treespec_dumps(tree_structure([1])) == (
        '[1, {"type": "builtins.list", "context": "null", "children_spec": '
        '[{"type": null, "context": null, "children_spec": []}]}]')
    with pytest.raises(ValueError, match="protocol"):
        pt.treespec_dumps(tree_structure([1]), protocol=7)
    with pytest.raises(ValueError, match="protocol"):
        pt.treespec_loads("[7, {}]")
    with pytest.raises(NotImplementedError, match="namedtuple"):
        pt.treespec_dumps(tree_structure(Point(1, 2)))


def test_registered_namedtuple_serializes(registry):
    pt._register_namedtuple(Point, serialized_type_name="test.Point")
    spec = tree_structure([Point(1, 2)])
    assert spec.child(0).type is namedtuple  # registration does not change its node kind
    assert pt.treespec_loads(pt.treespec_dumps(spec)) == spec


def test_namedtuple_and_structseq_checks():
    import os
    import time

    assert pt.is_namedtuple(Point) and pt.is_namedtuple(Point(1, 2))
    assert pt.is_namedtuple_class(Point) and not pt.is_namedtuple_class(tuple)
    assert pt.is_namedtuple_instance(tl.ones(2).max(0)) and not pt.is_namedtuple_instance((1,))
    assert pt.is_structseq(os.stat(".")) and pt.is_structseq_class(type(time.localtime()))
    assert not pt.is_structseq(Point) and not pt.is_structseq_instance((1, 2))


def test_public_names_have_docstrings():
    for name in pt.__all__:
        obj = getattr(pt, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            assert obj.__doc__, name


# ---------------------------------------------------------------- PyTorch as the oracle


@pytest.fixture
def tp():
    pytest.importorskip("torch")
    import torch.utils._pytree as tp

    return tp


@pytest.mark.parametrize("tree", _trees())
def test_flatten_matches_torch(tp, tree):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        l1, s1 = tp.tree_flatten(tree)
        l2, s2 = tree_flatten(tree)
        assert l1 == l2 and repr(s1) == repr(s2) and str(s1.context) == str(s2.context)
        assert (s1.num_nodes, s1.num_leaves, s1.num_children) == (
            s2.num_nodes, s2.num_leaves, s2.num_children)
        assert tp.treespec_pprint(s1) == pt.treespec_pprint(s2)
        assert tp.tree_unflatten(l1, s1) == tree_unflatten(l2, s2)
        assert [(tp.keystr(k), v) for k, v in tp.tree_flatten_with_path(tree)[0]] == [
            (pt.keystr(k), v) for k, v in pt.tree_flatten_with_path(tree)[0]]
        outs = []
        for mod, spec in ((tp, s1), (pt, s2)):
            try:
                outs.append(mod.treespec_dumps(spec))
            except NotImplementedError:
                outs.append("NotImplementedError")
        assert outs[0] == outs[1]
        if outs[1] != "NotImplementedError":
            assert repr(pt.treespec_loads(outs[0])) == repr(tp.treespec_loads(outs[1]))


@pytest.mark.parametrize("args", [
    ([1, 2], [1]), ([1, 2], (1, 2)), ({"a": 1}, {"b": 1}), ({"a": 1}, OrderedDict(a=[5])),
    ([5, 6], [[7, 9], [1, 2]]), (Point(1, 2), (1, 2)), (deque([1]), deque([2], maxlen=3)),
])
def test_tree_map_errors_match_torch(tp, args):
    results = []
    for mod in (tp, pt):
        try:
            results.append(mod.tree_map(lambda *xs: xs, *args))
        except Exception as e:  # noqa: BLE001 - comparing which error
            results.append(type(e))
    assert results[0] == results[1]


def test_only_variants_and_errors_match_torch(tp):
    mixed = [1, "a", 2.0, None, (3,)]
    for only in (int, (int, float), int | str, lambda x: x is None):
        assert tp.tree_map_only(only, repr, mixed) == pt.tree_map_only(only, repr, mixed)
    for types in (int, str, (float, int)):
        for fn in (tp.tree_all_only, tp.tree_any_only):
            mine = getattr(pt, fn.__name__)
            assert fn(types, bool, mixed) == mine(types, bool, mixed)
    for call in (lambda m: m.tree_map_only(5, repr, mixed),
                 lambda m: m.tree_unflatten([1], 5),
                 lambda m: m.tree_unflatten([1, 2, 3], m.tree_structure([1, 2])),
                 lambda m: m.register_pytree_node(list, None, None),
                 lambda m: m.treespec_tuple([1])):
        kinds = []
        for mod in (tp, pt):
            try:
                call(mod)
                kinds.append(None)
            except Exception as e:  # noqa: BLE001 - comparing which error
                kinds.append(type(e))
        assert kinds[0] == kinds[1]


def test_names_and_signatures_match_torch(tp):
    assert set(pt.__all__) == set(tp.__all__)
    extra = ["register_dataclass", "treespec_leaf", "treespec_tuple", "treespec_dict", "map_only",
             "arg_tree_leaves", "SUPPORTED_NODES", "NodeDef", "SequenceKey", "MappingKey",
             "GetAttrKey", "_register_namedtuple", "BUILTIN_TYPES", "STANDARD_DICT_TYPES"]
    for name in pt.__all__ + extra:
        assert hasattr(tp, name), name
        mine, theirs = getattr(pt, name), getattr(tp, name)
        if isinstance(mine, frozenset):
            assert {str(t) for t in mine} == {str(t) for t in theirs}, name
        if inspect.isfunction(mine):
            p1 = inspect.signature(mine).parameters
            p2 = inspect.signature(theirs).parameters
            assert [(p.name, p.kind, p.default) for p in p1.values()] == [
                (p.name, p.kind, p.default) for p in p2.values()], name
