"""The CMake package: hockeystick::core installed (headers, hockeystickConfig.cmake and its version file, the
pkg-config file) and used by cpp/examples/cmake_consumer through find_package and add_subdirectory; what the
consumer prints is the Python package's version and its scalar theta, bit for bit."""

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
CONSUMER = ROOT / "cpp" / "examples" / "cmake_consumer"
pytestmark = pytest.mark.slow  # configures four CMake projects and compiles three tiny programs


def _numeric_version() -> str:
    """__version__'s X.Y.Z, as CMake's project(VERSION) and pkg-config carry it (CMake's versions are numeric)."""
    found = re.match(r"\d+\.\d+\.\d+", hs.__version__)
    assert found is not None, hs.__version__
    return found.group(0)


VERSION = _numeric_version()


def _tools() -> tuple[str, list[str]]:
    """cmake, and the generator arguments (Ninja where it is on PATH); skipped, saying why, without a compiler
    or cmake, except under CI, which must have both."""
    cxx = cxx_on_path()
    cmake = shutil.which("cmake")
    missing = [name for name, found in (("a C++ compiler", cxx), ("cmake", cmake)) if found is None]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(
                f"CI must have {' and '.join(missing)} to prove the CMake package builds a consumer"
            )
        pytest.skip(f"no {' and no '.join(missing)} on this machine")
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    return str(cmake), generator


def _run(*command: str | Path) -> str:
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True)
    assert done.returncode == 0, (
        f"{' '.join(map(str, command))} failed:\n{done.stdout}\n{done.stderr}"
    )
    return done.stdout


def _consumer(cmake: str, generator: list[str], build: Path, *options: str) -> list[str]:
    """Configure, build and run the consumer project; its printed lines."""
    _run(cmake, "-S", CONSUMER, "-B", build, *generator, "-DCMAKE_BUILD_TYPE=Release", *options)
    _run(cmake, "--build", build)
    return _run(build / "consumer").splitlines()


def _check(lines: list[str]) -> None:
    assert lines[0] == f"version {VERSION}"
    thetas = [line.split() for line in lines[1:]]
    assert len(thetas) == 3 and all(t[0] == "theta" for t in thetas)
    for _, r, eps, value in thetas:
        # the same scalar theta as the package's, bit for bit (hs.theta's array kernel may differ by an ulp)
        assert float(value) == float(_core.hockey_stick._theta_scalar(float(r), float(eps)))
        assert float(value) == pytest.approx(hs.theta(float(r), float(eps)), rel=1e-15, abs=0)


def test_installed_package_subdirectory_and_fetchcontent_build_a_consumer(tmp_path):
    cmake, generator = _tools()
    prefix = tmp_path / "prefix"
    hockeystick = ("-DHOCKEYSTICK_BUILD_PYTHON=OFF", f"-DCMAKE_INSTALL_PREFIX={prefix}")
    _run(cmake, "-S", ROOT, "-B", tmp_path / "hockeystick", *generator, *hockeystick)
    _run(cmake, "--install", tmp_path / "hockeystick")
    assert (prefix / "include" / "hockeystick" / "hockeystick.hpp").is_file()
    assert (prefix / "include" / "hockeystick" / "pld" / "grid" / "grid_pmf.hpp").is_file()
    package = prefix / "share" / "cmake" / "hockeystick"
    version_file = (package / "hockeystickConfigVersion.cmake").read_text()
    assert f'set(PACKAGE_VERSION "{VERSION}")' in version_file
    assert (
        "CMAKE_SIZEOF_VOID_P" not in version_file
    )  # ARCH_INDEPENDENT: a 32-bit consumer may use it too
    pc = (prefix / "share" / "pkgconfig" / "hockeystick.pc").read_text()
    assert f"Version: {VERSION}" in pc and "-ffp-contract=off" in pc

    _check(_consumer(cmake, generator, tmp_path / "found", f"-DCMAKE_PREFIX_PATH={prefix}"))
    for how in ("subdirectory", "fetchcontent"):
        options = (f"-DHOCKEYSTICK_FROM={how}", f"-DHOCKEYSTICK_SOURCE_DIR={ROOT}")
        _check(_consumer(cmake, generator, tmp_path / how, *options))
