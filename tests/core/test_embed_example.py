"""The C++ core embeds without Python: build cpp/examples/embed.cpp and check what it prints."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import hockeystick as hs

from .program_flags import OPTIMIZATION, cxx_on_path

ROOT = Path(__file__).resolve().parents[2]


def _compiler() -> str | None:
    return cxx_on_path()


@pytest.mark.slow
def test_embed_example_builds_and_agrees_with_python(tmp_path):
    cxx = _compiler()
    if cxx is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have a C++ compiler to prove the core embeds")
        pytest.skip("no C++ compiler on this machine")
    exe = tmp_path / "embed"
    subprocess.run(
        [
            cxx,
            "-std=c++17",
            OPTIMIZATION,
            "-ffp-contract=off",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-Wno-unknown-pragmas",
            "-I",
            str(ROOT / "cpp" / "include"),
            str(ROOT / "cpp" / "examples" / "embed.cpp"),
            "-o",
            str(exe),
        ],
        check=True,
    )
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.splitlines()
    thetas = [line.split() for line in out if line.startswith("theta ")]
    assert len(thetas) == 5
    for _, r, eps, value, log_value in thetas:
        assert float(value) == pytest.approx(hs.theta(float(r), float(eps)), rel=1e-15, abs=0)
        assert float(log_value) == pytest.approx(
            hs.log_theta(float(r), float(eps)), rel=1e-15, abs=0
        )
    ((_, eps, delta, _, sigma),) = [line.split() for line in out if line.startswith("calibration ")]
    assert float(sigma) == pytest.approx(1.0 / hs.theta_radius(float(eps), float(delta)), rel=1e-15)
