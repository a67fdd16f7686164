"""tools/setup.sh's apt-get wrapper (tools/apt_install.sh) against a fake apt-get: it waits for
the dpkg lock, retries once, and when apt still fails shows apt's own error and the command to
run by hand (the failure a fresh machine running unattended upgrades at boot hits)."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LOCKED = ("E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 "
          "(unattended-upgr)")

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def run_apt_install(tmp_path: Path, fake_body: str) -> tuple[subprocess.CompletedProcess, list]:
    """Call ``apt_install graphviz`` with ``fake_body`` as the apt-get on PATH; return the result
    and the argument lists apt-get was called with."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls"
    fake = bin_dir / "apt-get"
    fake.write_text(f'#!/usr/bin/env bash\necho "$*" >> {calls}\n{fake_body}\n')
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "APT_RETRY_DELAY": "0"}
    result = subprocess.run(
        ["bash", "-c", "source tools/apt_install.sh && apt_install graphviz"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    lines = calls.read_text().splitlines() if calls.exists() else []
    return result, lines


def test_held_lock_is_waited_for_retried_and_explained(tmp_path):
    result, calls = run_apt_install(tmp_path, f'echo "{LOCKED}" >&2; exit 100')
    assert result.returncode != 0
    assert len(calls) == 2                                     # tried, then retried once
    assert all("DPkg::Lock::Timeout=300" in c for c in calls)  # waits for the lock each time
    assert LOCKED in result.stdout                             # apt's own words
    assert "apt-get update && apt-get install -y graphviz" in result.stdout


def test_lock_released_before_the_retry_installs(tmp_path):
    flag = tmp_path / "second"
    body = (f'if [ -e {flag} ]; then exit 0; fi\n'
            f'if [ "$3" = install ]; then touch {flag}; echo "{LOCKED}" >&2; exit 100; fi')
    result, calls = run_apt_install(tmp_path, body)
    assert result.returncode == 0, result.stdout
    assert [c.split()[2] for c in calls] == ["update", "install", "update", "install"]
    assert result.stdout == ""
