#!/usr/bin/env bash
# Set up a development environment: bash tools/setup.sh [EXTRAS]   (e.g. examples, test, viz)
# Installs Graphviz's `dot` (Debian package `graphviz`) when it is missing and we can (root with
# apt-get), creates .venv if needed, and installs the package editable with the given extras;
# with `test`, it also tries PyTorch, the tests' optional oracle. Optional parts that fail say
# why (the package manager's own words) and the set-up goes on without them.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"

source tools/apt_install.sh  # apt_install PACKAGE...: waits for the lock, retries, says why

can_apt() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }

if ! command -v dot >/dev/null 2>&1; then
    if can_apt; then
        apt_install graphviz ||
            echo "note: drawings can't be rendered without graphviz (tl.viz.to_dot still works)"
    else
        echo "note: Graphviz's dot is missing (Debian: apt-get install graphviz); drawings can't be rendered (tl.viz.to_dot still works)"
    fi
fi
if [ ! -x .venv/bin/python ] && ! python3 -m venv .venv >/dev/null 2>&1; then
    # Debian ships venv's pip bootstrap separately (python3-venv)
    rm -rf .venv
    if can_apt; then
        apt_install python3-venv || true
    fi
    python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".${extras:+[$extras]}"
if [[ ",$extras," == *",test,"* ]] && ! .venv/bin/python -c "import torch" >/dev/null 2>&1; then
    # PyTorch is the optional oracle of the tests: try it, and say why when it can't be had
    if ! log=$(.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[oracle]" 2>&1); then
        echo "note: PyTorch (the optional test oracle) could not be installed; its tests will be skipped. pip said:"
        echo "$log" | grep -v "^WARNING: Location" | tail -n 15
    fi
fi
