"""The C++ package inside the installed Python package (CMakeLists.txt under scikit-build-core): every header of
cpp/include, hockeystickConfig.cmake with its version file and targets, hockeystick.pc, and the C library
libhockeystick_c with its header, found by hockeystick.cpp's functions and ``python -m hockeystick.cpp``,
relocatable, at the Python package's version; a consumer built against them through ``-Dhockeystick_DIR=`` and
through ``--includes`` prints the package's own scalar theta bit for bit, and so does the C library, loaded through
ctypes and linked by a C program through ``--includes`` and ``--libdir``.  Without a compiler only the layout and
the library's answers are checked (CI's suite venv); .ci/run builds the consumers beside the suite."""

from __future__ import annotations

import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import hockeystick as hs
from hockeystick import _core
from hockeystick.cpp import get_cmake_dir, get_include, get_library_dir, get_pkgconfig_dir
from hockeystick.cpp.__main__ import main

from .program_flags import cxx_on_path

ROOT = Path(__file__).resolve().parents[2]
CONSUMER = ROOT / "cpp" / "examples" / "cmake_consumer"
REINSTALL = (
    "the installed package is older than this tree's headers: reinstall it (pip install -e .)"
)


def _numeric_version() -> str:
    """__version__'s X.Y.Z, the version CMake's project() and pkg-config carry."""
    found = re.match(r"\d+\.\d+\.\d+", hs.__version__)
    assert found is not None, hs.__version__
    return found.group(0)


VERSION = _numeric_version()


def _files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def _pc_fields(pc: Path) -> dict[str, str]:
    """The pkg-config file's variables and fields, ``${var}`` expanded as pkg-config does (``pcfiledir`` is the
    file's folder)."""
    values = {"pcfiledir": str(pc.parent)}
    for line in pc.read_text().splitlines():
        found = re.match(r"^([\w.]+)\s*[=:]\s*(.*)$", line)
        if found:
            values[found[1]] = re.sub(r"\$\{(\w+)\}", lambda m: values[m[1]], found[2]).strip()
    return values


def test_the_wheel_holds_every_header_of_the_tree():
    include = Path(get_include())
    assert include.is_absolute() and (include / "hockeystick" / "hockeystick.hpp").is_file()
    c_header = {"hockeystick.h"}  # the C interface's (cpp/capi/include), beside the core's
    assert (
        _files(include / "hockeystick")
        == _files(ROOT / "cpp" / "include" / "hockeystick") | c_header
    ), REINSTALL


def test_the_cmake_package_is_the_python_package_version_and_relocatable():
    package = Path(get_cmake_dir())
    assert {
        "hockeystickConfig.cmake",
        "hockeystickConfigVersion.cmake",
        "hockeystickTargets.cmake",
    } <= {p.name for p in package.iterdir()}
    version_file = (package / "hockeystickConfigVersion.cmake").read_text()
    assert f'set(PACKAGE_VERSION "{VERSION}")' in version_file
    assert "CMAKE_SIZEOF_VOID_P" not in version_file  # ARCH_INDEPENDENT
    # the include directory is found from the targets file's own place, never a path of the build machine
    targets = (package / "hockeystickTargets.cmake").read_text()
    assert set(re.findall(r"add_library\(hockeystick::(\w+) ", targets)) == {"core", "c"}
    includes = re.findall(r'INTERFACE_INCLUDE_DIRECTORIES "([^"]*)"', targets)
    assert includes and set(includes) == {"${_IMPORT_PREFIX}/hockeystick/include"}
    # the C library's file, found from the same prefix
    locations = re.findall(
        r'IMPORTED_LOCATION_\w+ "([^"]*)"',
        "".join(p.read_text() for p in package.glob("*-*.cmake")),
    )
    assert [Path(loc).parent.as_posix() for loc in locations] == [
        "${_IMPORT_PREFIX}/hockeystick/lib"
    ]
    assert Path(get_include()) == package.parents[2] / "include"


def test_the_pkgconfig_file_finds_the_wheels_headers_from_its_own_place():
    pc = Path(get_pkgconfig_dir()) / "hockeystick.pc"
    fields = _pc_fields(pc)
    assert fields["prefix"].startswith(
        str(pc.parent)
    )  # ${pcfiledir}-relative: the install can move
    assert Path(fields["includedir"]).resolve() == Path(get_include()).resolve()
    assert fields["Version"] == VERSION
    assert fields["Cflags"].split() == [f"-I{fields['includedir']}", "-ffp-contract=off"]
    pkg_config = shutil.which("pkg-config")
    if pkg_config is None:
        return  # the file's own reading above is the check
    env = {**os.environ, "PKG_CONFIG_PATH": get_pkgconfig_dir()}
    done = subprocess.run(
        [pkg_config, "--cflags", "hockeystick"], capture_output=True, text=True, env=env, check=True
    )
    flag, fp_contract = done.stdout.split()
    assert (
        Path(flag.removeprefix("-I")).resolve() == Path(get_include()).resolve()
        and fp_contract == "-ffp-contract=off"
    )


def test_the_command_prints_the_asked_paths_in_order(capsys):
    assert main(["--pkgconfigdir", "--libdir", "--includes", "--cmakedir"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        get_pkgconfig_dir(),
        get_library_dir(),
        f"-I{get_include()}",
        get_cmake_dir(),
    ]
    done = subprocess.run(
        [sys.executable, "-m", "hockeystick.cpp", "--cmakedir"], capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout == get_cmake_dir() + "\n"


def test_the_command_without_a_flag_prints_every_path_beside_its_flag(capsys):
    assert main([]) == 0
    head, *rows = capsys.readouterr().out.splitlines()
    assert "--help" in head
    assert [row.split() for row in rows] == [
        ["--includes", f"-I{get_include()}"],
        ["--cmakedir", get_cmake_dir()],
        ["--pkgconfigdir", get_pkgconfig_dir()],
        ["--libdir", get_library_dir()],
    ]
    done = subprocess.run(
        [sys.executable, "-m", "hockeystick.cpp"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stderr == "" and get_cmake_dir() in done.stdout


def test_a_package_without_the_cpp_files_says_to_reinstall(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(hs, "__path__", [str(tmp_path)])
    for get in (get_include, get_cmake_dir, get_pkgconfig_dir, get_library_dir):
        with pytest.raises(FileNotFoundError, match="reinstall hockeystick"):
            get()
    assert main(["--includes"]) == 2
    assert "reinstall hockeystick" in capsys.readouterr().err


def _compiler() -> str:
    """The C++ compiler; skipped, saying why, without one, except under CI, which must have one."""
    cxx = cxx_on_path()
    if cxx is None:
        if os.environ.get("CI"):
            pytest.fail(
                "CI must have a C++ compiler to prove a consumer builds against the wheel's C++ package"
            )
        pytest.skip("no C++ compiler on this machine")
    return cxx


def _run(*command: str | Path) -> str:
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True)
    assert done.returncode == 0, (
        f"{' '.join(map(str, command))} failed:\n{done.stdout}\n{done.stderr}"
    )
    return done.stdout


def _check(lines: list[str]) -> None:
    assert lines[0] == f"version {VERSION}"
    thetas = [line.split() for line in lines[1:]]
    assert len(thetas) == 3 and all(t[0] == "theta" for t in thetas)
    for _, r, eps, value in thetas:  # the package's own scalar theta, bit for bit
        assert float(value) == float(_core.hockey_stick._theta_scalar(float(r), float(eps)))


@pytest.mark.slow  # configures a CMake project and compiles two tiny programs
def test_a_consumer_builds_against_the_wheels_headers(tmp_path):
    cxx = _compiler()
    cmake = shutil.which("cmake")
    if cmake is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have cmake to prove a consumer finds the wheel's CMake package")
        pytest.skip("no cmake on this machine")
    build = tmp_path / "cmake"
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    _run(cmake, "-S", CONSUMER, "-B", build, *generator, "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_CXX_COMPILER={cxx}",
         "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", f"-Dhockeystick_DIR={get_cmake_dir()}")  # fmt: skip
    _run(cmake, "--build", build)
    (unit,) = json.loads((build / "compile_commands.json").read_text())
    assert (
        f"-isystem {get_include()}" in unit["command"]
        and str(ROOT / "cpp" / "include") not in unit["command"]
    )
    _check(_run(build / "consumer").splitlines())

    # without CMake: the flags python -m hockeystick.cpp --includes prints
    (includes,) = _run(sys.executable, "-m", "hockeystick.cpp", "--includes").split()
    exe = tmp_path / "direct"
    version = f'-DHOCKEYSTICK_PACKAGE_VERSION="{VERSION}"'
    _run(
        cxx,
        "-std=c++17",
        "-O2",
        "-ffp-contract=off",
        includes,
        version,
        CONSUMER / "consumer.cpp",
        "-o",
        exe,
    )
    _check(_run(exe).splitlines())


def _c_library() -> ctypes.CDLL:
    """The wheel's libhockeystick_c, with the types of the calls read here declared."""
    (path,) = [
        p
        for p in Path(get_library_dir()).glob("*hockeystick_c.*")
        if p.suffix in (".so", ".dylib", ".dll")
    ]
    lib = ctypes.CDLL(str(path))
    for name in ("hs_version", "hs_fft_backend"):
        getattr(lib, name).restype = ctypes.c_char_p
    lib.hs_theta.argtypes = [ctypes.c_double, ctypes.c_double, ctypes.POINTER(ctypes.c_double)]
    return lib


def test_the_wheels_c_library_is_the_packages_with_the_permissive_backend():
    lib = _c_library()
    assert lib.hs_version().decode() == hs.__version__
    # its PLD calls compose with Eigen's FFT (MPL-2.0; cmeel-eigen is a build requirement), never FFTW (GPL), and
    # Eigen's notice comes beside it
    assert lib.hs_has_pld() == 1 and lib.hs_fft_backend() == b"eigen"
    notice = Path(get_cmake_dir()).parents[1] / "licenses" / "hockeystick_c" / "eigen_notice.txt"
    assert "Mozilla Public License" in notice.read_text()
    out = ctypes.c_double()
    for r, eps in [(1.0, 1.0), (0.5, 3.0), (1e-6, 1e-5)]:
        assert lib.hs_theta(r, eps, ctypes.byref(out)) == 0
        assert out.value == hs.theta(r, eps)


@pytest.mark.slow  # compiles and runs a C program
def test_a_c_program_links_the_wheels_library(tmp_path):
    """cpp/capi/tests/capi_check.c built with the flags the command prints: the header from --includes, the library
    from --libdir."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have a C compiler to prove a C program links the wheel's library")
        pytest.skip("no C compiler on this machine")
    includes, libdir = _run(
        sys.executable, "-m", "hockeystick.cpp", "--includes", "--libdir"
    ).split()
    exe = tmp_path / "capi_check"
    _run(cc, "-std=c99", includes, ROOT / "cpp" / "capi" / "tests" / "capi_check.c", f"-L{libdir}",
         "-lhockeystick_c", f"-Wl,-rpath,{libdir}", "-o", exe)  # fmt: skip
    lines = [line.split() for line in _run(exe).splitlines()]
    assert lines[0] == ["version", hs.__version__]
    assert ["backend", "eigen"] in lines
    thetas = [fields[1:] for fields in lines if fields[0] == "theta"]
    assert len(thetas) == 5
    for r, eps, value, _ in thetas:
        assert float(value) == hs.theta(float(r), float(eps))
