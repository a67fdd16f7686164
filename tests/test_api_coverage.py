"""How much of PyTorch's public API tinygrad_lite provides, per module (no torch needed).

The names come from the checked-in ``tests/data/torch_api.json`` (``tools/list_torch_api.py``
writes it with torch installed); ``tests/data/api_out_of_scope.json`` lists the names left out on
purpose, with the reason. ``pytest -s tests/test_api_coverage.py`` (or ``tools/api_coverage.py``)
prints the table and the missing names. The floors below are a regression guard set a little
under the measured coverage, not a target: raise them as names are added.
"""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import api_coverage  # noqa: E402

# Covered percentage of the in-scope names, per module, that must not be lost.
FLOORS = {
    "torch": 98.0, "torch.Tensor": 98.0, "torch.nn": 98.0, "torch.nn.functional": 99.0,
    "torch.nn.init": 100.0, "torch.linalg": 63.0, "torch.optim": 88.0,
    "torch.optim.lr_scheduler": 100.0, "torch.utils.data": 100.0, "torch.autograd": 87.0,
    "torch.distributions": 100.0, "torch.func": 76.0, "torch.special": 100.0, "torch.fft": 0.0,
    "torch.random": 85.0, "torch.amp": 100.0, "torch.sparse": 55.0,
    "torch.multiprocessing": 100.0, "torch.distributed": 74.0,
}


@pytest.fixture(scope="module")
def coverages():
    """The measured coverage of every module, printed once (shown with ``pytest -s``)."""
    result = api_coverage.measure()
    print(f"\nPyTorch {api_coverage.load_api()['torch_version']} public API covered by "
          f"tinygrad_lite\n")
    print(api_coverage.table(result))
    return result


def test_list_is_well_formed():
    api = api_coverage.load_api()
    assert api["torch_version"] and set(api["modules"]) == set(FLOORS)
    for module, names in api["modules"].items():
        assert names == sorted(set(names)), f"{module}: names not sorted and unique"


def test_every_out_of_scope_group_has_a_reason():
    api = api_coverage.load_api()["modules"]
    ids = set()
    for group in api_coverage.load_out_of_scope():
        assert group["id"] not in ids, f"duplicate group {group['id']}"
        ids.add(group["id"])
        assert len(group.get("reason", "").strip()) > 20, f"{group['id']}: no reason given"
        for module, names in group.get("names", {}).items():
            assert module in api, f"{group['id']}: unknown module {module}"
            # a name that torch no longer has is stale: drop it when regenerating the list
            stale = sorted(set(names) - set(api[module]))
            assert not stale, f"{group['id']}: {module} has no {stale}"


def test_out_of_scope_names_are_really_absent(coverages):
    # The list stays truthful: once a name exists it counts as covered, not out of scope.
    groups = api_coverage.load_out_of_scope()
    present = [f"{c.module}.{name} ({api_coverage.out_of_scope_group(groups, c.module, name)})"
               for c in coverages for name in c.covered
               if api_coverage.out_of_scope_group(groups, c.module, name)]
    assert not present, f"provided but listed out of scope: {present}"


@pytest.mark.parametrize("module", sorted(FLOORS))
def test_coverage_does_not_regress(coverages, module):
    cov = next(c for c in coverages if c.module == module)
    assert cov.percent >= FLOORS[module], (
        f"{module}: coverage {cov.percent:.1f}% fell below its floor {FLOORS[module]}%; "
        f"missing: {' '.join(cov.missing)}")


if __name__ == "__main__":
    raise SystemExit(api_coverage.main())
