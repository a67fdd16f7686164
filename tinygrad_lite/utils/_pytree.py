"""``tinygrad_lite.utils._pytree``: PyTorch's ``torch.utils._pytree``, nested containers as trees.

A pytree is a container node (tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque,
``tl.Size``, the ``tl.return_types`` results, or a type given to ``register_pytree_node``) whose
children are pytrees; anything else (Tensors, numbers, ``None``, strings) is a leaf.
``tree_flatten`` splits a tree into its leaves and a ``TreeSpec`` describing the containers;
``tree_unflatten`` puts them back together; ``tree_map`` & co work leaf by leaf. Dict keys keep
insertion order, as in current PyTorch; ``None`` is a leaf, as in current PyTorch.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import json
import threading
import types
from collections import OrderedDict, defaultdict, deque, namedtuple
from collections.abc import Callable, Iterable, Iterator, Mapping
from enum import Enum
from typing import Any, NamedTuple

from .._core.size import Size
from .._core.warnings import warn
from ..ops import return_types as _return_types

# PyTorch's __all__; its other public names (SUPPORTED_NODES, register_dataclass, the key
# classes, treespec_leaf, ...) are importable here too, as there.
__all__ = [
    "PyTree", "Context", "FlattenFn", "UnflattenFn", "DumpableContext", "ToDumpableContextFn",
    "FromDumpableContextFn", "PyTreeSpec", "TreeSpec", "LeafSpec", "keystr", "key_get",
    "register_pytree_node", "tree_is_leaf", "tree_flatten", "tree_flatten_with_path",
    "tree_unflatten", "tree_iter", "tree_leaves", "tree_leaves_with_path", "tree_structure",
    "tree_map", "tree_map_with_path", "tree_map_", "tree_map_only", "tree_map_only_", "tree_all",
    "tree_any", "tree_all_only", "tree_any_only", "treespec_dumps", "treespec_loads",
    "treespec_pprint", "is_namedtuple", "is_namedtuple_class", "is_namedtuple_instance",
    "is_structseq", "is_structseq_class", "is_structseq_instance",
]

PyTree = Any
Context = Any
DumpableContext = Any
KeyEntry = Any
KeyPath = tuple[Any, ...]
FlattenFn = Callable[[Any], tuple[list[Any], Any]]
UnflattenFn = Callable[[Iterable[Any], Any], Any]
FlattenWithKeysFn = Callable[[Any], tuple[list[tuple[Any, Any]], Any]]
ToDumpableContextFn = Callable[[Any], Any]
FromDumpableContextFn = Callable[[Any], Any]
IsLeaf = Callable[[Any], bool] | None

NO_SERIALIZED_TYPE_NAME_FOUND = "NO_SERIALIZED_TYPE_NAME_FOUND"
DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL = 1


class NodeDef(NamedTuple):
    """How one node type splits into children plus context, and is rebuilt from them."""

    type: Any
    flatten_fn: FlattenFn
    unflatten_fn: UnflattenFn
    flatten_with_keys_fn: FlattenWithKeysFn | None


class _SerializeNodeDef(NamedTuple):
    typ: Any
    serialized_type_name: str
    to_dumpable_context: ToDumpableContextFn | None
    from_dumpable_context: FromDumpableContextFn | None


SUPPORTED_NODES: dict[Any, NodeDef] = {}
SUPPORTED_SERIALIZED_TYPES: dict[Any, _SerializeNodeDef] = {}
SERIALIZED_TYPE_TO_PYTHON_TYPE: dict[str, Any] = {}
_LOCK = threading.RLock()  # registration may happen from several threads at import time
# Types whose registration wins over the generic namedtuple rule (see _node_type).
_EXACT_TYPES: set[type] = set()


def _register(cls: Any, flatten_fn: FlattenFn, unflatten_fn: UnflattenFn, *,
              serialized_type_name: str | None = None,
              to_dumpable_context: ToDumpableContextFn | None = None,
              from_dumpable_context: FromDumpableContextFn | None = None,
              flatten_with_keys_fn: FlattenWithKeysFn | None = None) -> None:
    if (to_dumpable_context is None) != (from_dumpable_context is None):
        raise ValueError(f"Both to_dumpable_context and from_dumpable_context for {cls} must "
                         "be None or registered.")
    name = serialized_type_name or NO_SERIALIZED_TYPE_NAME_FOUND
    with _LOCK:
        if cls in SUPPORTED_NODES:
            warn(f"{cls} is already registered as pytree node. Overwriting the "
                 "previous registration.")
        SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
        SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(
            cls, name, to_dumpable_context, from_dumpable_context)
        SERIALIZED_TYPE_TO_PYTHON_TYPE[name] = cls


def register_pytree_node(
    cls: type[Any], flatten_fn: FlattenFn, unflatten_fn: UnflattenFn, *,
    serialized_type_name: str | None = None,
    to_dumpable_context: ToDumpableContextFn | None = None,
    from_dumpable_context: FromDumpableContextFn | None = None,
    flatten_with_keys_fn: FlattenWithKeysFn | None = None,
) -> None:
    """Make ``cls`` a node type: ``flatten_fn(obj) -> (children, context)`` and
    ``unflatten_fn(children, context) -> obj``."""
    with _LOCK:
        if cls in SUPPORTED_NODES:
            raise ValueError(f"{cls} is already registered as pytree node.")
        _register(cls, flatten_fn, unflatten_fn, serialized_type_name=serialized_type_name,
                  to_dumpable_context=to_dumpable_context,
                  from_dumpable_context=from_dumpable_context,
                  flatten_with_keys_fn=flatten_with_keys_fn)


def _register_pytree_node(cls: type[Any], flatten_fn: FlattenFn, unflatten_fn: UnflattenFn,
                          to_str_fn: Any = None, maybe_from_str_fn: Any = None,
                          **kwargs: Any) -> None:
    """The older private spelling (still used by some libraries): re-registering overwrites."""
    warn("`torch.utils._pytree._register_pytree_node` is deprecated. Please use "
         "`torch.utils._pytree.register_pytree_node` instead.", FutureWarning)
    _register(cls, flatten_fn, unflatten_fn, **kwargs)


def register_dataclass(cls: type[Any], *, field_names: list[str] | None = None,
                       drop_field_names: list[str] | None = None,
                       serialized_type_name: str | None = None) -> None:
    """Make a dataclass (or a class built from keyword fields) a node; fields that are None
    are kept in the context rather than as leaves."""
    if not dataclasses.is_dataclass(cls):
        if field_names is None:
            raise ValueError("field_names must be specified with a list of all fields used to "
                             f"initialize {cls}, as it is not a dataclass.")
    else:
        init_fields = [f.name for f in dataclasses.fields(cls) if f.init]
        if field_names is None:
            field_names = init_fields
        else:
            expected = set(init_fields) - set(drop_field_names or [])
            if expected != set(field_names):
                raise ValueError(f"field_names does not include all dataclass fields: missing "
                                 f"{expected - set(field_names)}, unexpected "
                                 f"{set(field_names) - expected}.")
    names = list(field_names)

    def flatten(obj: Any) -> tuple[list[Any], Any]:
        present = [n for n in names if getattr(obj, n) is not None]
        return [getattr(obj, n) for n in present], [present, [n for n in names
                                                              if n not in present]]

    def unflatten(values: Iterable[Any], context: Any) -> Any:
        present, absent = context
        return cls(**dict(zip(present, values)), **dict.fromkeys(absent))

    def flatten_with_keys(obj: Any) -> tuple[list[tuple[Any, Any]], Any]:
        values, (present, _) = flatten(obj)
        return [(GetAttrKey(n), v) for n, v in zip(present, values)], present

    _register(cls, flatten, unflatten, serialized_type_name=serialized_type_name,
              flatten_with_keys_fn=flatten_with_keys)


@dataclasses.dataclass(frozen=True)
class SequenceKey:
    """A step of a key path: an index into a sequence (prints as ``[0]``)."""

    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"

    def get(self, sequence: Any) -> Any:
        """The child this key names."""
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    """A step of a key path: a mapping key (prints as ``['a']``)."""

    key: Any

    def __str__(self) -> str:
        return f"[{self.key!r}]"

    def get(self, mapping: Any) -> Any:
        """The child this key names."""
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    """A step of a key path: an attribute (prints as ``.name``)."""

    name: str

    def __str__(self) -> str:
        return f".{self.name}"

    def get(self, obj: Any) -> Any:
        """The child this key names."""
        return getattr(obj, self.name)


def is_namedtuple_class(cls: type) -> bool:
    """Whether ``cls`` is a namedtuple type (a tuple subclass with ``_fields``, ``_make``...)."""
    return (isinstance(cls, type) and issubclass(cls, tuple)
            and isinstance(getattr(cls, "_fields", None), tuple)
            and all(type(f) is str for f in cls._fields)  # type: ignore[attr-defined]
            and callable(getattr(cls, "_make", None)) and callable(getattr(cls, "_asdict", None)))


def is_namedtuple(obj: object) -> bool:
    """Whether ``obj`` is a namedtuple type or instance."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_namedtuple_instance(obj: object) -> bool:
    """Whether ``obj`` is a namedtuple instance."""
    return is_namedtuple_class(type(obj))


def is_structseq_class(cls: type) -> bool:
    """Whether ``cls`` is a C struct-sequence type (``os.stat_result``, ``time.struct_time``)."""
    # Such types derive from tuple directly, carry the n_*fields counts and cannot be subclassed
    # (Py_TPFLAGS_BASETYPE, 1 << 10, unset).
    return (isinstance(cls, type) and cls.__bases__ == (tuple,)
            and all(isinstance(getattr(cls, a, None), int)
                    for a in ("n_fields", "n_sequence_fields", "n_unnamed_fields"))
            and not cls.__flags__ & (1 << 10))


def is_structseq(obj: object) -> bool:
    """Whether ``obj`` is a struct-sequence type or instance."""
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


def is_structseq_instance(obj: object) -> bool:
    """Whether ``obj`` is a struct-sequence instance."""
    return is_structseq_class(type(obj))


def _node_type(tree: Any) -> Any:
    """The key of ``tree``'s entry in SUPPORTED_NODES. Every namedtuple type maps to the one
    ``namedtuple`` entry (its class becomes the context), as in PyTorch; the result types of
    ``tl.return_types`` are namedtuples here but structseqs in PyTorch, registered by type."""
    cls = type(tree)
    if cls not in _EXACT_TYPES and is_namedtuple_class(cls):
        return namedtuple
    return cls


def _seq_keys(values: list[Any]) -> list[tuple[Any, Any]]:
    return [(SequenceKey(i), v) for i, v in enumerate(values)]


def _map_keys(keys: list[Any], values: list[Any]) -> list[tuple[Any, Any]]:
    return [(MappingKey(k), v) for k, v in zip(keys, values)]


def _namedtuple_to_json(cls: Any) -> str:
    entry = SUPPORTED_SERIALIZED_TYPES.get(cls)
    if entry is None or entry.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(f"Can't serialize TreeSpec of namedtuple class {cls} because "
                                  "no serialized_type_name was registered for it. Please "
                                  "register using `_register_namedtuple`.")
    return entry.serialized_type_name


def _namedtuple_from_json(name: str) -> Any:
    if name not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(f"Can't deserialize TreeSpec of namedtuple class {name} "
                                  "because no type was registered under that name.")
    return SERIALIZED_TYPE_TO_PYTHON_TYPE[name]


def _register_namedtuple(cls: type[Any], *, serialized_type_name: str) -> None:
    """Give a namedtuple type a name, so that specs holding it can be serialized."""
    _register(cls, lambda t: (list(t), type(t)), lambda v, c: c(*v),
              serialized_type_name=serialized_type_name,
              to_dumpable_context=_namedtuple_to_json, from_dumpable_context=_namedtuple_from_json,
              flatten_with_keys_fn=lambda t: (_map_attrs(t), type(t)))


def _map_attrs(t: Any) -> list[tuple[Any, Any]]:
    return [(GetAttrKey(f), v) for f, v in zip(type(t)._fields, t)]


def _defaultdict_to_json(context: Any) -> Any:
    factory, keys = context
    return {"default_factory_module": factory.__module__,
            "default_factory_name": factory.__qualname__, "dict_context": keys}


def _defaultdict_from_json(obj: Any) -> Any:
    factory = getattr(importlib.import_module(obj["default_factory_module"]),
                      obj["default_factory_name"])
    return [factory, obj["dict_context"]]


# The built-in node types, under the serialized names PyTorch writes (so dumped specs agree).
_register(tuple, lambda t: (list(t), None), lambda v, c: tuple(v),
          serialized_type_name="builtins.tuple", flatten_with_keys_fn=lambda t: (
              _seq_keys(list(t)), None))
_register(list, lambda t: (t, None), lambda v, c: list(v), serialized_type_name="builtins.list",
          flatten_with_keys_fn=lambda t: (_seq_keys(t), None))
_register(dict, lambda d: (list(d.values()), list(d)), lambda v, c: dict(zip(c, v)),
          serialized_type_name="builtins.dict",
          flatten_with_keys_fn=lambda d: (_map_keys(list(d), list(d.values())), list(d)))
_register(namedtuple, lambda t: (list(t), type(t)), lambda v, c: c(*v),
          serialized_type_name="collections.namedtuple", to_dumpable_context=_namedtuple_to_json,
          from_dumpable_context=_namedtuple_from_json,
          flatten_with_keys_fn=lambda t: (_map_attrs(t), type(t)))
_register(OrderedDict, lambda d: (list(d.values()), list(d)),
          lambda v, c: OrderedDict(zip(c, v)), serialized_type_name="collections.OrderedDict",
          flatten_with_keys_fn=lambda d: (_map_keys(list(d), list(d.values())), list(d)))
_register(defaultdict, lambda d: (list(d.values()), [d.default_factory, list(d)]),
          lambda v, c: defaultdict(c[0], zip(c[1], v)),
          serialized_type_name="collections.defaultdict", to_dumpable_context=_defaultdict_to_json,
          from_dumpable_context=_defaultdict_from_json,
          flatten_with_keys_fn=lambda d: (_map_keys(list(d), list(d.values())),
                                          [d.default_factory, list(d)]))
_register(deque, lambda d: (list(d), d.maxlen), lambda v, c: deque(v, maxlen=c),
          serialized_type_name="collections.deque",
          flatten_with_keys_fn=lambda d: (_seq_keys(list(d)), d.maxlen))
# A mapped shape may hold other things than ints, so it comes back as a tuple (as in PyTorch).
_register(Size, lambda s: (list(s), None), lambda v, c: tuple(v),
          serialized_type_name="torch.Size", flatten_with_keys_fn=lambda s: (
              _seq_keys(list(s)), None))
for _name in _return_types.__all__:
    _cls = getattr(_return_types, _name)
    if isinstance(_cls, type) and issubclass(_cls, _return_types.StructSeq) \
            and _cls is not _return_types.StructSeq:
        _EXACT_TYPES.add(_cls)
        _register(_cls, lambda t: (list(t), None), functools.partial(
            lambda cls, v, c: cls(list(v)), _cls), flatten_with_keys_fn=lambda t: (
            _seq_keys(list(t)), None))
del _name, _cls
# The container types Python itself provides, and the dict flavours tree_map lets stand in for
# one another (a dict where the spec has an OrderedDict is fine: keys matter, not the flavour).
BUILTIN_TYPES: frozenset[Any] = frozenset({tuple, list, dict, namedtuple, OrderedDict,
                                          defaultdict, deque})
STANDARD_DICT_TYPES: frozenset[Any] = frozenset({dict, OrderedDict, defaultdict})


class TreeSpec:
    """The shape of a pytree: the root's node type and context, and a spec per child
    (``num_nodes``, ``num_leaves``, ``num_children`` count them). Immutable and hashable."""

    __slots__ = ("_type", "_context", "_children", "_num_nodes", "_num_leaves")

    def __init__(self, type: Any, context: Context, children_specs: list[TreeSpec]) -> None:
        self._type, self._context, self._children = type, context, list(children_specs)
        if type is None:  # the leaf
            if context is not None or self._children:
                raise AssertionError("leaf node should not have a context or children")
            self._num_nodes = self._num_leaves = 1
        else:
            self._num_nodes = 1 + sum(c.num_nodes for c in self._children)
            self._num_leaves = sum(c.num_leaves for c in self._children)

    type = property(lambda self: self._type, doc="The root's node type (None for a leaf).")
    context = property(lambda self: self._context, doc="What the root's unflatten needs.")
    num_nodes = property(lambda self: self._num_nodes, doc="Nodes and leaves in the tree.")
    num_leaves = property(lambda self: self._num_leaves, doc="Leaves in the tree.")
    num_children = property(lambda self: len(self._children), doc="The root's child count.")
    children_specs = property(lambda self: self._children, doc="The children's specs.")

    def __getstate__(self) -> tuple[Any, ...]:
        return self._type, self._context, self._children

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        TreeSpec.__init__(self, *state)

    def is_leaf(self) -> bool:
        """Whether this spec is a single leaf."""
        return self._num_nodes == 1 and self._num_leaves == 1

    def children(self) -> list[TreeSpec]:
        """The children's specs (a new list)."""
        return list(self._children)

    def child(self, index: int) -> TreeSpec:
        """The spec of child ``index``."""
        return self._children[index]

    def __repr__(self, indent: int = 0) -> str:
        if self._type is None:
            return "*"
        # Children after the first go on their own lines, indented one step per level.
        inner = indent + 2
        body = (",\n" + " " * inner).join(c.__repr__(inner) for c in self._children)
        return f"TreeSpec({self._type.__name__}, {self._context}, [{body}])"

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, TreeSpec):
            return NotImplemented
        # Types compare by name, so a spec still matches one made before a module reload.
        return (str(self._type) == str(other._type) and self._context == other._context
                and self._children == other._children)

    def __hash__(self) -> int:
        try:
            context = hash(_frozen(self._context))
        except TypeError:  # a custom node's context need not be hashable: equal specs
            context = 0    # still hash alike, they just share a bucket with their kind
        return hash((self._type, context, tuple(self._children)))

    def unflatten(self, leaves: Iterable[Any]) -> PyTree:
        """The pytree of this shape holding ``leaves`` in order."""
        leaves = leaves if isinstance(leaves, (list, tuple)) else list(leaves)
        if len(leaves) != self._num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} "
                             f"but the spec refers to a pytree that holds {self._num_leaves} "
                             f"items ({self}).")
        return self._build(iter(leaves))

    def _build(self, leaves: Iterator[Any]) -> PyTree:
        if self._type is None:
            return next(leaves)
        children = [c._build(leaves) for c in self._children]
        return SUPPORTED_NODES[self._type].unflatten_fn(children, self._context)

    def flatten_up_to(self, tree: PyTree) -> list[PyTree]:
        """The subtrees of ``tree`` where this spec has leaves (``tree`` must have this spec
        as a prefix of its own; ValueError where it does not)."""
        out: list[PyTree] = []
        self._up_to(tree, out)
        return out

    def _up_to(self, node: PyTree, out: list[PyTree]) -> None:
        if self._type is None:
            out.append(node)
            return
        kind, want = _node_type(node), self._type
        if want in STANDARD_DICT_TYPES and kind in STANDARD_DICT_TYPES:
            # The dict flavours are interchangeable here; keys must agree, as a set.
            keys = self._context[1] if want is defaultdict else self._context
            if set(node) != set(keys):
                missing, extra = set(keys) - set(node), set(node) - set(keys)
                raise ValueError("Node keys mismatch" + (f"; missing key(s): {missing}"
                                 if missing else "") + (f"; extra key(s): {extra}" if extra
                                                        else "") + ".")
            children = [node[k] for k in keys]
        else:
            if kind != want:
                raise ValueError(f"Node type mismatch; expected {want!r}, but got {kind!r}.")
            children, context = SUPPORTED_NODES[kind].flatten_fn(node)
            if len(children) != len(self._children):
                raise ValueError(f"Node arity mismatch; expected {len(self._children)}, but "
                                 f"got {len(children)}.")
            if kind is not deque and context != self._context:  # a deque's maxlen may differ
                raise ValueError(f"Node context mismatch for node type {want!r}; expected "
                                 f"{self._context!r}, but got {context!r}.")
        for child, spec in zip(children, self._children):
            spec._up_to(child, out)


PyTreeSpec = TreeSpec


def _frozen(context: Any) -> Any:
    """Lists (dict keys, defaultdict contexts) as tuples, for hashing."""
    return tuple(_frozen(c) for c in context) if isinstance(context, list) else context


class LeafSpec(TreeSpec):
    """The spec of a single leaf (prints as ``*``)."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(None, None, [])


_LEAF = LeafSpec()  # every leaf shares one spec: they are all alike


def treespec_leaf() -> LeafSpec:
    """The spec of a leaf."""
    return _LEAF


def treespec_tuple(iterable: Iterable[TreeSpec] = (), /) -> TreeSpec:
    """The spec of a tuple whose children have the given specs."""
    children = list(iterable)
    if not all(isinstance(c, TreeSpec) for c in children):
        raise ValueError(f"Expected a tuple of TreeSpec values, got: {children!r}.")
    return TreeSpec(tuple, None, children)


def treespec_dict(mapping: Mapping[Any, TreeSpec] | Iterable[tuple[Any, TreeSpec]] = (), /,
                  **kwargs: TreeSpec) -> TreeSpec:
    """The spec of a dict whose values have the given specs."""
    entries = dict(mapping, **kwargs)
    if not all(isinstance(c, TreeSpec) for c in entries.values()):
        raise ValueError(f"Expected a dictionary of TreeSpec values, got: {entries!r}.")
    return TreeSpec(dict, list(entries), list(entries.values()))


def tree_is_leaf(tree: PyTree, is_leaf: IsLeaf = None) -> bool:
    """Whether ``tree`` is a leaf: ``is_leaf`` says so, or its type is no registered node."""
    return (is_leaf is not None and is_leaf(tree)) or _node_type(tree) not in SUPPORTED_NODES


def tree_flatten(tree: PyTree, is_leaf: IsLeaf = None) -> tuple[list[Any], TreeSpec]:
    """The leaves of ``tree`` (depth first, in child order) and its TreeSpec."""
    leaves: list[Any] = []

    def walk(node: PyTree) -> TreeSpec:
        if tree_is_leaf(node, is_leaf):
            leaves.append(node)
            return _LEAF
        kind = _node_type(node)
        children, context = SUPPORTED_NODES[kind].flatten_fn(node)
        return TreeSpec(kind, context, [walk(c) for c in children])

    return leaves, walk(tree)


def tree_unflatten(leaves: Iterable[Any], treespec: TreeSpec) -> PyTree:
    """The pytree of shape ``treespec`` holding ``leaves`` (the inverse of tree_flatten)."""
    if not isinstance(treespec, TreeSpec):
        if not isinstance(leaves, TreeSpec):
            raise TypeError(f"Expected `treespec` to be an instance of PyTreeSpec but got "
                            f"item of type {type(treespec)}.")
        leaves, treespec = treespec, leaves  # the arguments may come in either order
    return treespec.unflatten(leaves)


def tree_iter(tree: PyTree, is_leaf: IsLeaf = None) -> Iterator[Any]:
    """The leaves of ``tree``, lazily."""
    if tree_is_leaf(tree, is_leaf):
        yield tree
        return
    for child in SUPPORTED_NODES[_node_type(tree)].flatten_fn(tree)[0]:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree: PyTree, is_leaf: IsLeaf = None) -> list[Any]:
    """The leaves of ``tree`` as a list."""
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree: PyTree, is_leaf: IsLeaf = None) -> TreeSpec:
    """The TreeSpec of ``tree``."""
    return tree_flatten(tree, is_leaf)[1]


def arg_tree_leaves(*args: PyTree, **kwargs: PyTree) -> list[Any]:
    """The leaves of all positional then keyword arguments (``tree_leaves((args, kwargs))``)."""
    return [leaf for a in (*args, *kwargs.values()) for leaf in tree_iter(a)]


def tree_map(func: Callable[..., Any], tree: PyTree, *rests: PyTree,
             is_leaf: IsLeaf = None) -> PyTree:
    """A tree like ``tree`` with ``func(leaf, *matching_parts_of_rests)`` at each leaf
    (``rests`` must have ``tree``'s structure, or that structure as a prefix)."""
    leaves, spec = tree_flatten(tree, is_leaf)
    columns = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(map(func, *columns))


def tree_map_(func: Callable[..., Any], tree: PyTree, *rests: PyTree,
              is_leaf: IsLeaf = None) -> PyTree:
    """Call ``func`` on each leaf (with ``rests`` as in tree_map) for its effect; returns
    ``tree`` itself."""
    leaves, spec = tree_flatten(tree, is_leaf)
    for args in zip(leaves, *(spec.flatten_up_to(r) for r in rests)):
        func(*args)
    return tree


TypeAny = type[Any] | tuple[type[Any], ...] | types.UnionType


def map_only(type_or_types_or_pred: TypeAny | Callable[[Any], bool], /,
             ) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    """A decorator: the function applies to values of the given type(s), or that pass the
    predicate; other values pass through unchanged."""
    only = type_or_types_or_pred
    pred: Callable[[Any], bool]
    if isinstance(only, (type, tuple, types.UnionType)):
        pred = lambda x: isinstance(x, only)
    elif callable(only):
        pred = only
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")

    def wrap(func: Callable[[Any], Any]) -> Callable[[Any], Any]:
        @functools.wraps(func)
        def apply(x: Any) -> Any:
            return func(x) if pred(x) else x
        return apply

    return wrap


def tree_map_only(type_or_types_or_pred: TypeAny | Callable[[Any], bool], /,
                  func: Callable[[Any], Any], tree: PyTree, is_leaf: IsLeaf = None) -> PyTree:
    """tree_map of ``func`` over the leaves of the given type(s) (or passing a predicate);
    other leaves stay as they are."""
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred: TypeAny | Callable[[Any], bool], /,
                   func: Callable[[Any], Any], tree: PyTree, is_leaf: IsLeaf = None) -> PyTree:
    """tree_map_ of ``func`` over the leaves of the given type(s) (or passing a predicate)."""
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred: Callable[[Any], bool], tree: PyTree, is_leaf: IsLeaf = None) -> bool:
    """Whether ``pred`` holds for every leaf."""
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred: Callable[[Any], bool], tree: PyTree, is_leaf: IsLeaf = None) -> bool:
    """Whether ``pred`` holds for some leaf."""
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types: TypeAny, /, pred: Callable[[Any], bool], tree: PyTree,
                  is_leaf: IsLeaf = None) -> bool:
    """Whether ``pred`` holds for every leaf of the given type(s)."""
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types: TypeAny, /, pred: Callable[[Any], bool], tree: PyTree,
                  is_leaf: IsLeaf = None) -> bool:
    """Whether ``pred`` holds for some leaf of the given type(s)."""
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def _key_paths(path: KeyPath, tree: PyTree, is_leaf: IsLeaf) -> Iterator[tuple[KeyPath, Any]]:
    if tree_is_leaf(tree, is_leaf):
        yield path, tree
        return
    kind = _node_type(tree)
    with_keys = SUPPORTED_NODES[kind].flatten_with_keys_fn
    if with_keys is None:
        raise ValueError(f"Did not find a flatten_with_keys_fn for type: {kind}. Please pass "
                         "a flatten_with_keys_fn argument to register_pytree_node.")
    for key, child in with_keys(tree)[0]:
        yield from _key_paths((*path, key), child, is_leaf)


def tree_flatten_with_path(tree: PyTree, is_leaf: IsLeaf = None,
                           ) -> tuple[list[tuple[KeyPath, Any]], TreeSpec]:
    """tree_flatten, with each leaf paired with its key path."""
    return list(_key_paths((), tree, is_leaf)), tree_structure(tree, is_leaf)


def tree_leaves_with_path(tree: PyTree, is_leaf: IsLeaf = None) -> list[tuple[KeyPath, Any]]:
    """The (key path, leaf) pairs of ``tree``."""
    return list(_key_paths((), tree, is_leaf))


def tree_map_with_path(func: Callable[..., Any], tree: PyTree, *rests: PyTree,
                       is_leaf: IsLeaf = None) -> PyTree:
    """tree_map, with the leaf's key path as ``func``'s first argument."""
    pairs, spec = tree_flatten_with_path(tree, is_leaf)
    columns = [[p for p, _ in pairs], [x for _, x in pairs]]
    return spec.unflatten(map(func, *columns, *(spec.flatten_up_to(r) for r in rests)))


def keystr(kp: KeyPath) -> str:
    """A key path as text, e.g. ``['a'][0].x``."""
    return "".join(str(k) for k in kp)


def key_get(obj: Any, kp: KeyPath) -> Any:
    """The value at key path ``kp`` in ``obj``."""
    for key in kp:
        obj = key.get(obj)
    return obj


class _EnumEncoder(json.JSONEncoder):
    """JSON for enum members in contexts (dict keys may be enums): module, class and name."""

    def default(self, o: Any) -> Any:
        if isinstance(o, Enum):
            cls = type(o)
            return {"__enum__": True, "fqn": f"{cls.__module__}:{cls.__qualname__}",
                    "name": o.name}
        return super().default(o)


def _enum_hook(obj: dict[str, Any]) -> Any:
    if "__enum__" not in obj:
        return obj
    module, _, qualname = obj["fqn"].partition(":")
    found: Any = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found[obj["name"]]


def _to_json(spec: TreeSpec) -> dict[str, Any]:
    if spec.is_leaf():
        return {"type": None, "context": None, "children_spec": []}
    entry = SUPPORTED_SERIALIZED_TYPES.get(spec.type)
    if entry is None:
        raise NotImplementedError(f"Serializing {spec.type} in pytree is not registered.")
    if entry.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(f"No registered serialization name for {spec.type} found. "
                                  "Please update your register_pytree_node call with a "
                                  "`serialized_type_name` kwarg.")
    if entry.to_dumpable_context is not None:
        context = entry.to_dumpable_context(spec.context)
    else:
        try:
            context = json.dumps(spec.context, cls=_EnumEncoder)
        except TypeError as e:
            raise TypeError("Unable to serialize context. Please make the context json "
                            "dump-able, or register a custom serializer.") from e
    return {"type": entry.serialized_type_name, "context": context,
            "children_spec": [_to_json(c) for c in spec.children_specs]}


def _from_json(obj: dict[str, Any]) -> TreeSpec:
    if obj["type"] is None and obj["context"] is None and not obj["children_spec"]:
        return _LEAF
    if obj["type"] not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(f"Deserializing {obj['type']} in pytree is not registered.")
    kind = SERIALIZED_TYPE_TO_PYTHON_TYPE[obj["type"]]
    entry = SUPPORTED_SERIALIZED_TYPES[kind]
    context = (entry.from_dumpable_context(obj["context"]) if entry.from_dumpable_context
               else json.loads(obj["context"], object_hook=_enum_hook))
    return TreeSpec(kind, context, [_from_json(c) for c in obj["children_spec"]])


def treespec_dumps(treespec: TreeSpec, protocol: int | None = None) -> str:
    """The spec as a JSON string (PyTorch's format, protocol 1)."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"Expected `treespec` to be an instance of PyTreeSpec but got item of "
                        f"type {type(treespec)}.")
    protocol = DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL if protocol is None else protocol
    if protocol != 1:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: [1]")
    return json.dumps([protocol, _to_json(treespec)], cls=_EnumEncoder)


@functools.lru_cache
def treespec_loads(serialized: str) -> TreeSpec:
    """The spec a ``treespec_dumps`` string describes."""
    protocol, body = json.loads(serialized)
    if protocol != 1:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: [1]")
    return _from_json(body)


class _Star(str):
    """A string that prints bare as ``*``, to stand for the leaves in treespec_pprint."""

    def __repr__(self) -> str:
        return "*"


def treespec_pprint(treespec: TreeSpec) -> str:
    """The spec drawn as its pytree with ``*`` for each leaf, e.g. ``{'a': [*, *]}``."""
    return repr(tree_unflatten([_Star("*")] * treespec.num_leaves, treespec))
