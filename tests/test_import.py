"""``import tinygrad_lite`` loads the core, the Tensor and the tl.* functions; the other
subsystems load on first access (PEP 562 ``__getattr__`` in ``tinygrad_lite/__init__.py`` and
``tinygrad_lite/utils/__init__.py``), with the same public names, ``dir()`` and import paths as
when everything loaded with the package. Each check runs in a fresh interpreter, since this
test session has loaded most of the package already. No timing here: benchmarks/bench_import.py
measures it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import tinygrad_lite as tl

ROOT = Path(__file__).resolve().parent.parent

# Modules the lazy ones need and nothing in the core does (the standard library's too)
HEAVY_STDLIB = ["multiprocessing", "logging", "zipfile"]


def fresh(code: str) -> str:
    """Run ``code`` in a new interpreter that imports this checkout; its stdout."""
    done = subprocess.run([sys.executable, "-c", f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
                           + code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def lazy_modules() -> list[str]:
    """Every module the table says loads on first use, dotted from the package."""
    names = {*tl._LAZY_SUBMODULES, *tl._LAZY_NAMES_BY_MODULE}
    return sorted(f"tinygrad_lite.{name}" for name in names)


def test_import_leaves_the_lazy_modules_unloaded():
    loaded = json.loads(fresh("import tinygrad_lite\nimport json\n"
                              "print(json.dumps(sorted(sys.modules)))"))
    assert "tinygrad_lite.functions" in loaded and "tinygrad_lite.tensor" in loaded
    early = [name for name in lazy_modules() if name in loaded]
    assert not early, f"loaded by import tinygrad_lite: {early}"
    # nor anything below them (tinygrad_lite.nn.functional, tinygrad_lite.compiler.api, ...)
    below = [name for name in loaded
             if any(name.startswith(lazy + ".") for lazy in lazy_modules())]
    assert not below, below
    assert not [name for name in HEAVY_STDLIB if name in loaded]


def test_every_name_resolves_to_its_modules_object():
    """Each lazy name is its module's object, each lazy submodule the module itself, and no
    name the package binds at import time hides one of them."""
    out = fresh(
        "import importlib, json\n"
        "import tinygrad_lite as tl\n"
        "eager = set(vars(tl))\n"
        "hidden = [n for n in [*tl._LAZY_SUBMODULES, *tl._LAZY_NAMES] if n in eager]\n"
        "wrong = [n for n, m in tl._LAZY_NAMES.items() if getattr(tl, n) is not getattr(\n"
        "    importlib.import_module('tinygrad_lite.' + m), n)]\n"
        "wrong += [n for n in tl._LAZY_SUBMODULES\n"
        "          if getattr(tl, n) is not sys.modules['tinygrad_lite.' + n]]\n"
        "missing = [n for n in [*tl.__all__, *dir(tl)] if not hasattr(tl, n)]\n"
        "print(json.dumps([hidden, wrong, missing]))\n")
    hidden, wrong, missing = json.loads(out)
    assert hidden == [] and wrong == [] and missing == []


def test_star_modules_table_matches_their_all():
    """The names listed for a module tl.* used to star-import are that module's ``__all__``."""
    for module in ("_nn_functional_forms", "_settings"):
        assert list(tl._LAZY_NAMES_BY_MODULE[module]) == getattr(tl, module).__all__, module


def test_same_objects_as_an_eager_import():
    """Every name of ``__all__`` and ``dir()`` is the object it is when every submodule is
    loaded before the package is used (as ``import tinygrad_lite`` used to do)."""
    # an object across interpreters: a module's name; a function's or class's module and
    # qualified name; anything else's type and repr (addresses left out)
    dump = ("import json, re, types\n"
            "def key(obj):\n"
            "    if isinstance(obj, types.ModuleType):\n"
            "        return obj.__name__\n"
            "    name = getattr(obj, '__qualname__', None) or re.sub('0x\\w+', '', repr(obj))\n"
            "    return '%s %s %s' % (type(obj).__name__, getattr(obj, '__module__', None), name)\n"
            "names = sorted({*tl.__all__, *(n for n in dir(tl) if not n.startswith('_'))})\n"
            "keys = {n: key(getattr(tl, n)) for n in names}\n"
            "print(json.dumps({'dir': dir(tl), 'keys': keys}))\n")
    lazy = json.loads(fresh("import tinygrad_lite as tl\n" + dump))
    eager = json.loads(fresh("import importlib\nimport tinygrad_lite as tl\n"
                             "for n in tl._LAZY_SUBMODULES:\n"
                             "    importlib.import_module('tinygrad_lite.' + n)\n" + dump))
    assert lazy["keys"] == eager["keys"]
    public = {n for n in eager["dir"] if not n.startswith("_")}
    assert public <= set(lazy["dir"])


def test_dir_lists_the_lazy_names():
    names = set(dir(tl))
    assert set(tl.__all__) <= names
    assert {*tl._LAZY_SUBMODULES, *tl._LAZY_NAMES} <= names
    assert {"data", "tensorboard", "benchmark", "_pytree"} <= set(dir(tl.utils))


def test_import_paths_and_attribute_access():
    out = fresh(
        "import tinygrad_lite as tl\n"
        "from tinygrad_lite.distributions.normal import Normal\n"
        "import tinygrad_lite.distributions.normal\n"
        "from tinygrad_lite.optim import SGD\n"
        "from tinygrad_lite.nn import Linear\n"
        "from tinygrad_lite.nn.functional import relu\n"
        "from tinygrad_lite.utils.data import DataLoader, TensorDataset\n"
        "from tinygrad_lite import compile, nn, save, autocast, conv2d, channels_last\n"
        "from tinygrad_lite.compiler import compile as compile2\n"
        "assert tl.distributions.Normal is Normal is tl.distributions.normal.Normal\n"
        "assert tl.optim.SGD is SGD and tl.nn.Linear is Linear and tl.compile is compile\n"
        "assert compile is compile2 and tl.nn is nn and tl.nn.functional.relu is relu\n"
        "assert tl.utils.data.DataLoader is DataLoader\n"
        "m = Linear(3, 2)\n"
        "loss = tl.nn.functional.mse_loss(m(tl.ones(4, 3)), tl.zeros(4, 2))\n"
        "loss.backward()\n"
        "SGD(m.parameters(), lr=0.1).step()\n"
        "assert tl.compile(lambda x: x * 2)(tl.ones(2)).tolist() == [2.0, 2.0]\n"
        "try:\n"
        "    tl.no_such_name\n"
        "except AttributeError as error:\n"
        "    print(error)\n"
        "assert not hasattr(tl, 'no_such_name')\n")
    assert out.strip() == "module 'tinygrad_lite' has no attribute 'no_such_name'"


def test_star_import_binds_every_name():
    fresh("from tinygrad_lite import *\nimport tinygrad_lite as tl\n"
          "missing = [n for n in tl.__all__ if n not in globals()]\n"
          "assert not missing, missing\n")


def test_pickles_load_in_a_fresh_interpreter(tmp_path):
    """A tensor, a model and a dtype pickled here unpickle where only the package is loaded."""
    import pickle

    path = tmp_path / "objects.pkl"
    model = tl.nn.Linear(3, 2)
    path.write_bytes(pickle.dumps({"t": tl.arange(4.0), "model": model, "dtype": tl.float16,
                                   "format": tl.channels_last}))
    out = fresh("import pickle, tinygrad_lite as tl\n"
                f"obj = pickle.loads(open({str(path)!r}, 'rb').read())\n"
                "assert obj['dtype'] is tl.float16 and obj['format'] is tl.channels_last\n"
                "print(obj['t'].tolist(), type(obj['model']).__name__,\n"
                "      obj['model'].weight.shape == (2, 3))\n")
    assert out.split() == ["[0.0,", "1.0,", "2.0,", "3.0]", "Linear", "True"]


def test_multiprocessing_loads_before_memory_is_shared():
    """Its reducers must be registered before a shared tensor can be pickled by the standard
    library's multiprocessing (as when it loaded with the package)."""
    out = fresh("import tinygrad_lite as tl\n"
                "from multiprocessing.reduction import ForkingPickler\n"
                "before = 'tinygrad_lite.multiprocessing' in sys.modules\n"
                "t = tl.zeros(2).share_memory_()\n"
                "print(before, 'tinygrad_lite.multiprocessing' in sys.modules,\n"
                "      type(t) in ForkingPickler._extra_reducers)\n")
    assert out.split() == ["False", "True", "True"]
