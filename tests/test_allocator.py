"""The glibc allocator setting applied at import (see tinygrad_lite/_core/allocator.py): on by
default on glibc, off when the user sets glibc's own tunables or opts out."""

import os
import platform
import subprocess
import sys

import pytest

PROBE = ("import tinygrad_lite\n"
         "from tinygrad_lite._core.allocator import allocator_tuned\n"
         "print(allocator_tuned())")


def _tuned(extra_env: dict) -> bool:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("MALLOC_") and k not in ("GLIBC_TUNABLES",
                                                         "TINYGRAD_LITE_KEEP_MALLOC")}
    env.update(extra_env)
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True,
                         check=True)
    return out.stdout.strip() == "True"


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
                    reason="the setting exists on glibc only")
def test_applied_by_default_and_the_users_choice_wins():
    assert _tuned({})
    assert not _tuned({"MALLOC_ARENA_MAX": "2"})  # any glibc tunable of the user's
    assert not _tuned({"TINYGRAD_LITE_KEEP_MALLOC": "1"})


def test_the_package_works_either_way():
    for env in ({}, {"TINYGRAD_LITE_KEEP_MALLOC": "1"}):
        code = ("import tinygrad_lite as tl\n"
                "x = tl.randn(512, 512, requires_grad=True)\n"
                "for _ in range(3):\n"
                "    (x @ x).relu().sum().backward()\n"
                "print(float(x.grad.abs().sum()) > 0)")
        out = subprocess.run([sys.executable, "-c", code], env={**os.environ, **env},
                             capture_output=True, text=True, check=True)
        assert out.stdout.strip() == "True"
