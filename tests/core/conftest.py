"""What the compiler tests build once per test run and share between test files and pytest-xdist's workers: the C
interface's library for each configuration (test_capi.py, test_capi_mechanisms.py, test_capi_refinement.py,
test_capi_tilted.py), and the C++ programs on Eigen's FFT backend, with the PLD example on FFTW's too where FFTW is
found, one executable (eigen_programs.cpp: test_embed_pld_example.py, test_capi_tilted.py, test_eigen_fft_backend.py).

Each configuration compiles the whole core behind libhockeystick_c (half a minute of CPU and more), and the programs
a good part of it, so a build per file, and per worker under ``-n`` (module fixtures are per worker), repeated the
same work.  Under xdist the workers share the run's temporary directory (the parent of each worker's own): the
first worker to take a build's file lock builds it there while the others wait, then read its path (pytest-xdist's
documented pattern for a session fixture shared between workers).  Without workers the build goes to the run's own
directory.  A build that fails leaves no record, so the next test asking for it builds again and fails with the
compiler's message too.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock

import hockeystick
from hockeystick.cpp import get_library_dir

from .program_flags import FFTW_LIBRARIES, OPTIMIZATION, cxx_on_path, fftw_found
from .test_capi import ROOT, _build, _missing, _run


def _shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's temporary directory: under xdist the parent of each worker's own, which every worker sees."""
    root = tmp_path_factory.getbasetemp()
    return root.parent if os.environ.get("PYTEST_XDIST_WORKER") is not None else root


def _once(where: Path, make: Callable[[Path], Path]) -> Path:
    """``make(where)``'s path, made by the first caller of the run under ``where``'s file lock and recorded beside
    it; later callers, in any worker, read the record."""
    with FileLock(f"{where}.lock"):
        record = where.with_name(f"{where.name}-path.txt")
        if not record.is_file():
            record.write_text(str(make(where)))
        return Path(record.read_text())


def _installed_library() -> Path | None:
    """The installed package's libhockeystick_c where the package is installed from a wheel, None where it is this
    tree's (an editable install, whose library is only as new as its last build)."""
    if ROOT in Path(hockeystick.__file__).resolve().parents:
        return None
    (path,) = [
        p
        for p in Path(get_library_dir()).glob("*hockeystick_c.*")
        if p.suffix in (".so", ".dylib", ".dll")
    ]
    return path


@pytest.fixture(scope="session")
def capi_build(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """``capi_build(*cmake_options)``: the path of libhockeystick_c configured with those ``-D`` options, built once
    per run (its install prefix ``prefix`` beside its ``build`` folder, as ``_build`` lays it out).

    Without options, where the package is installed from a wheel, the wheel's own library: the default
    configuration (Eigen's FFT, Release), built from the same sources by the wheel's build (CI's, from this tree),
    so a second build of it would check nothing the wheel's does not; the options' builds are this tree's."""
    root = _shared_root(tmp_path_factory)
    built: dict[tuple[str, ...], Path] = {}

    def build(*options: str) -> Path:
        if options not in built:
            installed = None if options else _installed_library()
            if installed is not None:
                built[options] = installed
            else:
                slug = (
                    "-".join(o.removeprefix("-D").replace("=", "_").lower() for o in options)
                    or "default"
                )
                built[options] = _once(
                    root / f"capi-{slug}", lambda where: _build(where / "build", *options)
                )
        return built[options]

    return build


def _cxx() -> str:
    cxx = cxx_on_path()
    if cxx is None:
        _missing("a C++ compiler")
    return str(cxx)


def _eigen_include(cxx: str) -> list[str]:
    """The compiler flags that find <unsupported/Eigen/FFT>: pkg-config's eigen3, else Debian's folder; skipped,
    saying why, without Eigen, except under CI, which installs libeigen3-dev (.ci/run)."""
    candidates = []
    if shutil.which("pkg-config"):
        found = subprocess.run(["pkg-config", "--cflags", "eigen3"], capture_output=True, text=True)
        if found.returncode == 0:
            candidates.append(found.stdout.split())
    candidates.append(["-I/usr/include/eigen3"])
    for flags in candidates:
        probe = subprocess.run(
            [cxx, "-std=c++17", *flags, "-x", "c++", "-E", "-"],
            input="#include <unsupported/Eigen/FFT>\n",
            capture_output=True,
            text=True,
        )
        if probe.returncode == 0:
            return flags
    if os.environ.get("CI"):
        pytest.fail("CI installs libeigen3-dev (.ci/run): <unsupported/Eigen/FFT> must be found")
    pytest.skip(
        "Eigen is absent: install libeigen3-dev to build the programs on Eigen's FFT backend"
    )


@pytest.fixture(scope="session")
def eigen_programs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The executable of eigen_programs.cpp (embed_pld, tilted_gaussian and eigen_fft_probe on Eigen's FFT backend,
    and embed_pld_fftw, the PLD example on FFTW's, where the compiler finds FFTW's header; its first argument naming
    the one to run), compiled once per run at OPTIMIZATION with the examples' flags."""
    cxx = _cxx()
    flags = ["-std=c++17", OPTIMIZATION, "-ffp-contract=off", "-Wall", "-Wextra", "-Werror", "-Wno-unknown-pragmas",
             *_eigen_include(cxx), "-I", ROOT / "cpp" / "include", "-I", ROOT / "cpp" / "backends"]  # fmt: skip
    fftw = fftw_found(cxx)

    def compile_into(where: Path) -> Path:
        where.mkdir(parents=True, exist_ok=True)
        exe = where / "eigen_programs"
        _run(cxx, *flags, *(["-DHOCKEYSTICK_PROGRAMS_FFTW"] if fftw else []),
             Path(__file__).with_name("eigen_programs.cpp"), *(FFTW_LIBRARIES if fftw else ()), "-o", exe)  # fmt: skip
        return exe

    return _once(_shared_root(tmp_path_factory) / "eigen-programs", compile_into)
