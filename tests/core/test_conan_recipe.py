"""The Conan recipe (packaging/conan): ``conan create`` offline packages this checkout's headers (no remote, no
requirement) and its test package, cpp/examples/cmake_consumer found through CMakeDeps, builds and prints the
package's version and its scalar theta, bit for bit."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import hockeystick as hs
from hockeystick import _core

from .program_flags import cxx_on_path

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # packages the headers and compiles one tiny program


def _conan() -> str:
    cxx = cxx_on_path()
    tools = {"a C++ compiler": cxx, "cmake": shutil.which("cmake"), "conan": shutil.which("conan")}
    missing = [name for name, found in tools.items() if found is None]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must have {' and '.join(missing)} to test the Conan recipe")
        pytest.skip(f"no {' and no '.join(missing)} on this machine")
    return str(tools["conan"])


def test_conan_create_offline_packages_the_headers_and_builds_a_consumer(tmp_path):
    conan = _conan()
    env = {
        **os.environ,
        "CONAN_HOME": str(tmp_path / "home"),
    }  # a cache of its own, with no remote asked

    def run(*args: str) -> str:
        done = subprocess.run([conan, *args], capture_output=True, text=True, env=env, cwd=tmp_path)
        assert done.returncode == 0, (
            f"conan {' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
        return done.stdout + done.stderr

    run("profile", "detect")
    out = run(
        "create",
        str(ROOT / "packaging" / "conan"),
        "--no-remote",
        "-c",
        f"tools.cmake.cmake_layout:test_folder={tmp_path / 'build'}",
        "-c",
        "tools.cmake.cmaketoolchain:user_presets=",  # nothing written into the checkout
    )
    version = re.match(r"\d+\.\d+\.\d+", hs.__version__)
    assert version is not None
    assert f"version {version.group(0)}" in out.splitlines()
    thetas = [line.split() for line in out.splitlines() if line.startswith("theta ")]
    assert len(thetas) == 3
    for _, r, eps, value in thetas:
        assert float(value) == float(_core.hockey_stick._theta_scalar(float(r), float(eps)))
    assert not (ROOT / "packaging" / "conan" / "test_package" / "build").exists()
