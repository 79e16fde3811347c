"""libhockeystick_c, the C interface (cpp/capi): the installed wheel's for the default configuration, built with CMake
for the others (conftest.py's capi_build), then called from C (cpp/capi/tests/capi_check.c), from Python through
ctypes and from Rust (cpp/capi/tests/capi_check.rs, no crates).

theta, log theta, Q, log Q and theta's inverses are the Python package's bit for bit (the same kernels, the same
facade steps); so is a one-round PLD's certified bracket (no transform: the same cells and reads).  A composed
PLD's bracket goes through the library's FFT backend (cpp/backends/: Eigen's by default, FFTW with
-DHOCKEYSTICK_C_FFT=fftw; each built and tested where installed) where the package uses scipy.fft, so the two
agree within their charged round-off and both contain the exact value of a Gaussian composition (theta of the
composed radius, paper 000 eq. 6).
Refusals name the argument and the rule, and each thread keeps its own last error.
"""

from __future__ import annotations

import ctypes
import math
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path
from typing import cast

import numpy as np
import pytest

import hockeystick as hs
import hockeystick.pld as pld

from .program_flags import cxx_on_path

ROOT = Path(__file__).resolve().parents[2]
CAPI = ROOT / "cpp" / "capi"
pytestmark = (
    pytest.mark.slow
)  # conftest.py's capi_build configures and compiles the library, once per run

HS_OK, HS_INVALID_ARGUMENT, HS_UNAVAILABLE, HS_ACCURACY_NOT_MET = 0, 1, 3, 5
# the FFT backends of the PLD calls -> the system package CI installs for each (.ci/run)
BACKEND_PACKAGES = {"eigen": "libeigen3-dev", "fftw": "libfftw3-dev"}
_D = ctypes.c_double
_PD = ctypes.POINTER(ctypes.c_double)
_PLD = ctypes.c_void_p


def _missing(what: str) -> None:
    """Skip saying why; under CI, which has every tool the C interface's tests need, fail instead."""
    if os.environ.get("CI"):
        pytest.fail(f"CI must have {what} to test the C interface")
    pytest.skip(f"no {what} on this machine")


def _c_compiler() -> str:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        _missing("a C compiler")
    return str(cc)


def _run(*command: str | Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True, env=env)
    assert done.returncode == 0, (
        f"{' '.join(map(str, command))} failed:\n{done.stdout}\n{done.stderr}"
    )
    return done.stdout


def _cmake() -> str:
    cmake = shutil.which("cmake")
    cxx = cxx_on_path()
    if cmake is None or cxx is None:
        _missing("cmake and a C++ compiler")
    return str(cmake)


def _build(build: Path, *options: str) -> Path:
    """Configure and build libhockeystick_c alone (its install prefix: ``prefix`` beside ``build``); the library's
    path.

    Release, as the wheel's, in one unity translation unit: the library's sources instantiate the same core
    templates, so compiled together they cost less than half the CPU of one unit each (the wheel's build compiles
    them one by one; conftest.py's capi_build and tests/core/test_wheel_cpp_package.py load that library)."""
    cmake = _cmake()
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    prefix = f"-DCMAKE_INSTALL_PREFIX={build.parent / 'prefix'}"
    configure = (
        "-DHOCKEYSTICK_BUILD_PYTHON=OFF",
        "-DHOCKEYSTICK_INSTALL=ON",
        prefix,
        "-DHOCKEYSTICK_BUILD_C=ON",
        "-DCMAKE_UNITY_BUILD=ON",
    )
    _run(
        str(cmake),
        "-S",
        ROOT,
        "-B",
        build,
        *generator,
        "-DCMAKE_BUILD_TYPE=Release",
        *configure,
        *options,
    )
    _run(str(cmake), "--build", build, "--target", "hockeystick_c")
    (path,) = [p for p in (build / "capi").glob("libhockeystick_c.*") if not p.is_symlink()]
    return path


class Library:
    """ctypes over hockeystick/hockeystick.h: each call's argument and result types declared."""

    def __init__(self, path: Path) -> None:
        self.path = path
        lib = ctypes.CDLL(str(path))
        for name in ("hs_version", "hs_last_error", "hs_fft_backend"):
            getattr(lib, name).restype = ctypes.c_char_p
            getattr(lib, name).argtypes = []
        lib.hs_has_pld.restype = ctypes.c_int
        for name in ("hs_gaussian_tail", "hs_log_gaussian_tail"):
            getattr(lib, name).argtypes = [_D, _PD]
        for name in ("hs_theta", "hs_log_theta", "hs_theta_epsilon", "hs_theta_radius"):
            getattr(lib, name).argtypes = [_D, _D, _PD]
        lib.hs_gaussian_sigma.argtypes = [_D, _D, _D, _PD]
        lib.hs_pld_subsampled_gaussian.argtypes = [_D, _D, _D, ctypes.POINTER(_PLD)]
        lib.hs_pld_self_compose.argtypes = [_PLD, ctypes.c_longlong, ctypes.POINTER(_PLD)]
        lib.hs_pld_epsilon_bracket.argtypes = [_PLD, _D, _PD, _PD]
        lib.hs_pld_delta_bracket.argtypes = [_PLD, _D, _PD, _PD]
        lib.hs_pld_composition_epsilon_bracket.argtypes = [_PLD, _D, _PD, _PD]
        lib.hs_pld_composition_delta_bracket.argtypes = [_PLD, _D, _PD, _PD]
        lib.hs_pld_rounds.argtypes = [_PLD, ctypes.POINTER(ctypes.c_longlong)]
        lib.hs_pld_free.argtypes = [_PLD]
        lib.hs_pld_free.restype = None
        self.lib = lib

    def last_error(self) -> str:
        return self.lib.hs_last_error().decode()

    def fft_backend(self) -> str:
        return self.lib.hs_fft_backend().decode()

    def value(self, name: str, *args: float) -> float:
        """The call's output; an AssertionError with the library's message when it fails."""
        out = _D()
        status = getattr(self.lib, name)(*args, ctypes.byref(out))
        assert status == HS_OK, f"{name}{args}: {status} {self.last_error()}"
        return out.value

    def refusal(self, name: str, *args: object) -> tuple[int, str]:
        """The status and message of a call expected to fail (its output pointer valid unless given as None)."""
        given = args if args and args[-1] is None else (*args, ctypes.byref(_D()))
        status = getattr(self.lib, name)(*given)
        return status, self.last_error()

    def subsampled_gaussian(self, sigma: float, q: float, h: float, rounds: int = 1) -> _PLD:
        one = _PLD()
        assert self.lib.hs_pld_subsampled_gaussian(sigma, q, h, ctypes.byref(one)) == HS_OK, (
            self.last_error()
        )
        if rounds == 1:
            return one
        composed = _PLD()
        status = self.lib.hs_pld_self_compose(one, rounds, ctypes.byref(composed))
        self.lib.hs_pld_free(one)
        assert status == HS_OK, self.last_error()
        return composed

    def bracket(
        self, handle: _PLD, method: str, x: float, composition_only: bool = False
    ) -> tuple[float, float]:
        """``hs_pld_{method}_bracket`` at ``x``; ``composition_only``: the handle's own composition's
        (``hs_pld_composition_{method}_bracket``, the package's ``composition_only=True``)."""
        lower, upper = _D(), _D()
        call = (
            f"hs_pld_composition_{method}_bracket"
            if composition_only
            else f"hs_pld_{method}_bracket"
        )
        status = getattr(self.lib, call)(handle, x, ctypes.byref(lower), ctypes.byref(upper))
        assert status == HS_OK, self.last_error()
        return lower.value, upper.value


def _backend_found(lib: Library, backend: str) -> bool:
    """Whether the library was built with its PLD calls on ``backend``; under CI, which installs every backend, it
    must have been."""
    if not lib.lib.hs_has_pld():
        if os.environ.get("CI"):
            pytest.fail(
                f"CI installs {BACKEND_PACKAGES[backend]} (.ci/run): the C interface must have its PLD calls"
            )
        assert lib.fft_backend() == ""
        return False
    assert lib.fft_backend() == backend
    return True


@pytest.fixture(scope="module")
def library(capi_build) -> Library:
    """The library as configured by default: Eigen's FFT (MPL-2.0) where its headers are found (the installed
    wheel's where the package comes from one: conftest.py's capi_build)."""
    lib = Library(capi_build())
    _backend_found(lib, "eigen")
    return lib


@pytest.fixture(scope="module", params=sorted(BACKEND_PACKAGES))
def pld_library(request, capi_build) -> Library:
    """The library with each FFT backend: the default build (Eigen), and one with -DHOCKEYSTICK_C_FFT=fftw."""
    if request.param == "eigen":
        lib = cast("Library", request.getfixturevalue("library"))
    else:
        lib = Library(capi_build("-DHOCKEYSTICK_C_FFT=fftw"))
    if not _backend_found(lib, request.param):
        pytest.skip(
            f"{request.param} is absent: install {BACKEND_PACKAGES[request.param]} for the PLD calls with it"
        )
    return lib


def _needs_pld(library: Library) -> None:
    if not library.lib.hs_has_pld():
        pytest.skip(
            "libhockeystick_c was built without the PLD calls: install libeigen3-dev (Eigen) for them"
        )


def _python_bracket(
    sigma: float, q: float, rounds: int, h: float, delta: float
) -> tuple[pld.PrivacyLossDistribution, tuple[float, float], float]:
    """The package's certified epsilon bracket, and the tolerance for the C one: how far epsilon moves when delta
    moves by both sides' round-off charges (the library's and scipy's transforms differ by at most those)."""
    dist = pld.subsampled_gaussian(sigma, q, value_discretization_interval=h).self_compose(rounds)
    charge = max(pmf.total_error for side in (True, False) for pmf in dist.composed(side))
    assert charge > 0  # the composition is numerical, and charged
    low, up = cast(
        "tuple[np.ndarray, np.ndarray]",
        dist.epsilon([delta - 4 * charge, delta + 4 * charge], bound="both", composition_only=True),
    )
    tolerance = float(max(low[0] - low[1], up[0] - up[1])) + 1e-12
    return (
        dist,
        cast("tuple[float, float]", dist.epsilon(delta, bound="both", composition_only=True)),
        tolerance,
    )


def _check_composed_bracket(
    lower: float, upper: float, python: tuple[float, float], tolerance: float
) -> None:
    assert lower <= upper
    assert max(lower, python[0]) <= min(
        upper, python[1]
    )  # both certified: the two brackets overlap
    assert abs(lower - python[0]) <= tolerance and abs(upper - python[1]) <= tolerance


# ---- from C ----


@pytest.fixture(scope="module")
def printed(pld_library: Library, tmp_path_factory) -> dict[str, list[list[str]]]:
    """What cpp/capi/tests/capi_check.c prints, linked to the library with each FFT backend."""
    library = pld_library
    exe = tmp_path_factory.mktemp("capi_c") / "capi_check"
    libdir = library.path.parent
    flags = ("-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic")
    _run(_c_compiler(), *flags, "-I", CAPI / "include", CAPI / "tests" / "capi_check.c", "-L", libdir,
         "-lhockeystick_c", f"-Wl,-rpath,{libdir}", "-o", exe)  # fmt: skip
    output = _run(exe)
    cxx = cxx_on_path()
    if (
        cxx is not None
    ):  # the header is C++ too (extern "C"): the same program compiled as C++ prints the same
        cpp_exe = exe.with_name("capi_check_cpp")
        _run(cxx, "-x", "c++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-I", CAPI / "include",
             CAPI / "tests" / "capi_check.c", "-x", "none", "-L", libdir, "-lhockeystick_c", f"-Wl,-rpath,{libdir}",
             "-o", cpp_exe)  # fmt: skip
        assert _run(cpp_exe) == output
    lines: dict[str, list[list[str]]] = {}
    for line in output.splitlines():
        key, *fields = line.split(" ", 1 if line.startswith("refused") else -1)
        lines.setdefault(key, []).append(fields if key != "refused" else fields[0].split(" ", 1))
    return lines


def test_c_program_gets_the_packages_version_and_kernels_bit_for_bit(printed):
    assert printed["version"] == [[hs.__version__]]
    assert len(printed["theta"]) == 5 and len(printed["tail"]) == 6 and len(printed["inverse"]) == 3
    for r, eps, value, log_value in printed["theta"]:
        assert float(value) == hs.theta(float(r), float(eps))
        assert float(log_value) == hs.log_theta(float(r), float(eps))
    for x, q, log_q in printed["tail"]:
        assert float(q) == hs.gaussian_tail(float(x))
        assert float(log_q) == hs.log_gaussian_tail(float(x))
    for r, eps, delta, eps_at, r_at, sigma in printed["inverse"]:
        assert float(eps_at) == hs.theta_epsilon(float(r), float(delta))
        assert float(r_at) == hs.theta_radius(float(eps), float(delta))
        assert float(sigma) == np.nextafter(1.0 / hs.theta_radius(float(eps), float(delta)), np.inf)
        assert hs.theta(1.0 / float(sigma), float(eps)) <= float(delta)  # the safe side
    ((status, message),) = printed["refused"]
    assert (
        int(status) == HS_INVALID_ARGUMENT
        and message == "delta must lie strictly between 0 and 1, got 1.5"
    )


def test_c_program_brackets_agree_with_the_package_and_contain_the_exact_value(
    pld_library, printed
):
    assert printed["backend"] == [
        [pld_library.fft_backend()]
    ]  # the header's hs_fft_backend, called from C
    brackets = {fields[0]: fields[1:] for fields in printed["bracket"]}
    deltas = {fields[0]: fields[1:] for fields in printed["delta_bracket"]}
    assert set(brackets) == set(deltas) == {"poisson", "gaussian"}
    for name, fields in brackets.items():
        sigma, q, rounds, h, delta, lower, upper = (float(v) for v in fields)
        dist, python, tolerance = _python_bracket(sigma, q, int(rounds), h, delta)
        _check_composed_bracket(lower, upper, python, tolerance)
        eps, d_lower, d_upper = (float(v) for v in deltas[name])
        py_lower, py_upper = dist.delta(eps, bound="both", composition_only=True)
        assert d_lower <= d_upper and max(d_lower, py_lower) <= min(d_upper, py_upper)
        if (
            name == "gaussian"
        ):  # T rounds of the Gaussian mechanism are one with radius sqrt(T) / sigma
            radius = math.sqrt(rounds) / sigma
            assert lower <= hs.theta_epsilon(radius, delta) <= upper
            assert d_lower <= hs.theta(radius, eps) <= d_upper
    assert (
        brackets["poisson"][-1] != "inf"
        and float(brackets["poisson"][-1]) - float(brackets["poisson"][-2]) < 1e-3
    )


def test_pkg_config_gives_the_installed_c_librarys_flags(capi_build):
    """hockeystick-c.pc, installed with the library (the build without an FFT backend: the file is the same for
    every backend, which the library links privately): ``pkg-config --cflags --libs hockeystick-c`` alone builds
    capi_check.c against the installed header and library, and the program prints the package's version and theta;
    the header-only core's hockeystick.pc names no library."""
    pkg_config = shutil.which("pkg-config")
    if pkg_config is None:
        _missing("pkg-config")
    build = capi_build("-DHOCKEYSTICK_C_FFT=none").parent.parent
    prefix = build.parent / "prefix"
    _run(_cmake(), "--install", build)
    (pc,) = prefix.glob(
        "*/pkgconfig/hockeystick-c.pc"
    )  # lib/ (or lib64/, the platform's library folder)
    assert pc.parent.parent.name != "share"  # it names one architecture's library
    env = {
        **os.environ,
        "PKG_CONFIG_PATH": os.pathsep.join([str(pc.parent), str(prefix / "share" / "pkgconfig")]),
    }
    version = re.match(r"\d+\.\d+\.\d+", hs.__version__)
    assert version is not None and _run(
        pkg_config, "--modversion", "hockeystick-c", env=env
    ).strip() == version.group(0)
    flags = _run(pkg_config, "--cflags", "--libs", "hockeystick-c", env=env).split()
    assert "-lhockeystick_c" in flags
    assert "-l" not in _run(pkg_config, "--libs", "hockeystick", env=env)
    libdir = _run(pkg_config, "--variable=libdir", "hockeystick-c", env=env).strip()
    exe = build.parent / "capi_check_pkg_config"
    _run(
        _c_compiler(),
        "-std=c99",
        CAPI / "tests" / "capi_check.c",
        *flags,
        f"-Wl,-rpath,{libdir}",
        "-o",
        exe,
    )
    lines = [line.split() for line in _run(exe).splitlines()]
    assert ["version", hs.__version__] in lines
    thetas = [fields for fields in lines if fields[0] == "theta"]
    assert thetas and all(
        float(value) == hs.theta(float(r), float(eps)) for _, r, eps, value, _ in thetas
    )


def test_the_wheels_pkg_config_file_finds_the_wheels_c_library():
    """The installed package's hockeystick-c.pc sits beside hockeystick.pc (one PKG_CONFIG_PATH finds both) and
    names the package's own header folder and library folder, found from its own place."""
    from hockeystick.cpp import get_include, get_library_dir, get_pkgconfig_dir

    pkg_config = shutil.which("pkg-config")
    if pkg_config is None:
        _missing("pkg-config")
    env = {**os.environ, "PKG_CONFIG_PATH": get_pkgconfig_dir()}
    include = _run(pkg_config, "--variable=includedir", "hockeystick-c", env=env).strip()
    libdir = _run(pkg_config, "--variable=libdir", "hockeystick-c", env=env).strip()
    assert Path(include).resolve() == Path(get_include()).resolve()
    assert Path(libdir).resolve() == Path(get_library_dir()).resolve()
    assert _run(pkg_config, "--libs", "hockeystick-c", env=env).split()[-1] == "-lhockeystick_c"


# ---- from Python through ctypes ----

_RADII = [0.0, 2.0**-1000, 1e-300, 1e-6, 0.1, 1.0, 3.0, 40.0, math.inf]
_EPSILONS = [0.0, 1e-290, 1e-5, 0.5, 1.0, 8.0, 200.0, 1e6, math.inf]


def test_ctypes_kernels_are_the_packages_bit_for_bit(library):
    for r in _RADII:
        for eps in _EPSILONS:
            if math.isinf(r) and math.isinf(eps):
                continue
            assert library.value("hs_theta", r, eps) == hs.theta(r, eps), (r, eps)
            assert library.value("hs_log_theta", r, eps) == hs.log_theta(r, eps), (r, eps)
    for x in [-math.inf, -40.0, -3.0, -1e-300, 0.0, 0.66, 1.0, 37.5, 1e100, 1e152, 1e160, math.inf]:
        assert library.value("hs_gaussian_tail", x) == hs.gaussian_tail(x), x
        assert library.value("hs_log_gaussian_tail", x) == hs.log_gaussian_tail(x), x
    for delta in [1e-300, 1e-12, 1e-5, 0.3, 0.999]:
        for r in [0.0, 1e-6, 0.5, 2.0, 30.0, math.inf]:
            assert library.value("hs_theta_epsilon", r, delta) == hs.theta_epsilon(r, delta), (
                r,
                delta,
            )
        for eps in [0.0, 1e-8, 0.5, 1.0, 10.0, 1e6, 1e307]:
            radius = hs.theta_radius(eps, delta)
            assert library.value("hs_theta_radius", eps, delta) == radius, (eps, delta)
            sigma = library.value("hs_gaussian_sigma", eps, delta, 2.5)
            assert (
                sigma == np.nextafter(2.5 / radius, np.inf) and hs.theta(2.5 / sigma, eps) <= delta
            )


_REFUSALS = [
    (("hs_theta", -1.0, 1.0), "r must be >= 0, got -1"),
    (("hs_theta", math.nan, 1.0), "r must not be NaN"),
    (("hs_log_theta", 1.0, -0.5), "epsilon must be >= 0, got -0.5"),
    (("hs_theta", math.inf, math.inf), "r and epsilon cannot both be infinite"),
    (("hs_gaussian_tail", math.nan), "x must not be NaN"),
    (("hs_theta_epsilon", 1.0, 0.0), "delta must lie strictly between 0 and 1, got 0"),
    (("hs_theta_radius", 1.0, 1.0), "delta must lie strictly between 0 and 1, got 1"),
    (("hs_theta_radius", 1e308, 1e-5), "epsilon must be <= 1e+307 for theta_radius"),
    (("hs_gaussian_sigma", 1.0, 1e-5, 0.0), "sensitivity must be finite and > 0, got 0"),
    (("hs_gaussian_sigma", 1.0, 1e-5, math.inf), "sensitivity must be finite and > 0, got inf"),
    (("hs_theta", 1.0, 1.0, None), "out must not be NULL"),
]


@pytest.mark.parametrize(
    ("call", "message"), _REFUSALS, ids=[f"{c[0]}{c[1:]}" for c, _ in _REFUSALS]
)
def test_ctypes_refusals_name_the_argument_and_the_rule(library, call, message):
    status, said = library.refusal(*call)
    assert status == HS_INVALID_ARGUMENT
    assert said.startswith(message), said


def test_the_last_error_is_the_calling_threads_own(library):
    barrier = threading.Barrier(2)
    seen: dict[str, str] = {}

    def fail_then_read(name: str, call: tuple[object, ...]) -> None:
        seen[f"{name} before"] = library.last_error()  # a new thread has no error yet
        library.refusal(*call)
        barrier.wait()  # both have failed before either reads
        library.value("hs_theta", 1.0, 1.0)  # a successful call leaves the message as it was
        barrier.wait()
        seen[name] = library.last_error()

    threads = [
        threading.Thread(target=fail_then_read, args=("r", ("hs_theta", -2.0, 1.0))),
        threading.Thread(target=fail_then_read, args=("delta", ("hs_theta_epsilon", 1.0, 2.0))),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == {
        "r before": "",
        "delta before": "",
        "r": "r must be >= 0, got -2",
        "delta": "delta must lie strictly between 0 and 1, got 2",
    }


def test_one_round_pld_brackets_are_the_packages_bit_for_bit(pld_library):
    """A mechanism as discretized (one round: no transform) reads the same cells the same way as the package."""
    library = pld_library
    for sigma, q, h in [(1.0, 0.1, 1e-4), (0.7, 1.0, 1e-3), (2.0, 0.01, 1e-3)]:
        handle = library.subsampled_gaussian(sigma, q, h)
        python = pld.subsampled_gaussian(sigma, q, value_discretization_interval=h)
        try:
            for delta in [1e-3, 1e-6]:
                assert library.bracket(handle, "epsilon", delta) == python.epsilon(
                    delta, bound="both", composition_only=True
                )
            for eps in [-1.0, 0.0, 0.5, 2.0]:
                assert library.bracket(handle, "delta", eps) == python.delta(
                    eps, bound="both", composition_only=True
                )
        finally:
            library.lib.hs_pld_free(handle)


def test_composed_pld_from_two_threads_is_the_sequential_one(pld_library):
    """Compositions made on two threads at once give what one thread gives: Eigen's backend shares nothing between
    calls, and FFTW's makes and destroys its plans under one lock (its planner is not thread-safe).  Both the
    handle's own composition's bracket and its bracket read as its run (whose reads compose too)."""
    library = pld_library
    settings = [(1.0, 0.05, 400, 1e-3), (0.8, 0.02, 1000, 1e-3)]

    def brackets(sigma: float, q: float, rounds: int, h: float) -> list[tuple[float, float]]:
        handle = library.subsampled_gaussian(sigma, q, h, rounds)
        rounds_out = ctypes.c_longlong()
        assert library.lib.hs_pld_rounds(handle, ctypes.byref(rounds_out)) == HS_OK
        assert rounds_out.value == rounds
        try:
            return [library.bracket(handle, "epsilon", 1e-6, only) for only in (True, False)]
        finally:
            library.lib.hs_pld_free(handle)

    sequential = [brackets(*s) for s in settings]
    threaded: dict[int, list[tuple[float, float]]] = {}
    threads = [
        threading.Thread(target=lambda i=i: threaded.update({i: brackets(*settings[i])}))
        for i in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [threaded[0], threaded[1]] == sequential
    for (sigma, q, rounds, h), (own, run) in zip(settings, sequential):
        _, python, tolerance = _python_bracket(sigma, q, rounds, h, 1e-6)
        _check_composed_bracket(*own, python, tolerance)
        assert own[0] <= run[0] <= run[1] <= own[1]  # the run's read, never looser than the grid's


def test_skipping_a_dominated_directions_optimistic_side_leaves_the_bracket_unchanged(pld_library):
    """A bracket composes the leading direction's optimistic side and those of the directions whose upper value
    exceeds its lower value (the Python package's rule); every optimistic side composed so far is read too.  A fresh
    handle (the add direction's optimistic side skipped: its upper value lies below the remove direction's lower one
    at these deltas) and a handle on which a delta read at eps = -1 composed the add direction's optimistic side
    first (there the add direction leads and the remove direction's upper value lies below its lower value) give
    the same brackets of their own composition bit for bit: a skipped side can raise no maximum."""
    library = pld_library

    def own(handle: _PLD, method: str, x: float) -> tuple[float, float]:
        return library.bracket(handle, method, x, composition_only=True)

    settings = [(1.0, 0.01, 10_000, 1e-4), (0.5, 0.1, 100, 1e-3), (2.0, 0.5, 10, 1e-3)]
    for sigma, q, rounds, h in settings:
        python = pld.subsampled_gaussian(sigma, q, value_discretization_interval=h).self_compose(
            rounds
        )
        ups = [pmf.delta(np.array([-1.0]))[0] for pmf in python.composed(True)]
        lows = [pmf.delta(np.array([-1.0]))[0] for pmf in python.composed(False)]
        assert ups[1] > ups[0] and ups[0] <= lows[1]  # at eps = -1 the add direction leads alone
        fresh, warmed = (library.subsampled_gaussian(sigma, q, h, rounds) for _ in range(2))
        try:
            assert own(warmed, "delta", -1.0) == own(fresh, "delta", -1.0)
            for delta in (1e-2, 1e-5, 1e-10):
                fresh_bracket = own(fresh, "epsilon", delta)
                assert own(warmed, "epsilon", delta) == fresh_bracket, (sigma, q, delta)
                assert own(fresh, "epsilon", delta) == fresh_bracket  # and read again, the same
            for eps in (0.0, 0.5, 3.0):
                assert own(warmed, "delta", eps) == own(fresh, "delta", eps), (sigma, q, eps)
            _, python_bracket, tolerance = _python_bracket(sigma, q, rounds, h, 1e-5)
            _check_composed_bracket(*own(fresh, "epsilon", 1e-5), python_bracket, tolerance)
        finally:
            library.lib.hs_pld_free(fresh)
            library.lib.hs_pld_free(warmed)


def test_a_direction_the_lead_does_not_dominate_raises_the_lower_side_as_in_the_package(
    pld_library,
):
    """At eps = 0 one round of these mechanisms has the add direction leading (the larger upper delta) with the
    smaller lower delta, and the remove direction's upper delta above the add direction's lower one: the rule must
    compose both optimistic sides, and the bracket is the package's bit for bit (one round: no transform)."""
    library = pld_library
    for sigma, q, h in [(1.0, 0.01, 1e-4), (2.0, 0.01, 1e-3)]:
        python = pld.subsampled_gaussian(sigma, q, value_discretization_interval=h)
        ups = [pmf.delta(np.array([0.0]))[0] for pmf in python.composed(True)]
        lows = [pmf.delta(np.array([0.0]))[0] for pmf in python.composed(False)]
        assert (
            ups[1] > ups[0] > lows[1] and lows[0] > lows[1]
        )  # the add direction leads; the remove one counts
        handle = library.subsampled_gaussian(sigma, q, h)
        try:
            assert (
                library.bracket(handle, "delta", 0.0)
                == python.delta(0.0, bound="both", composition_only=True)
                == (lows[0], ups[1])
            )
        finally:
            library.lib.hs_pld_free(handle)


def test_one_handle_read_from_two_threads_at_once_composes_its_sides_once(pld_library):
    """Both threads' first reads need the optimistic sides (eps = 0: both directions' at one round), which the
    handle composes on the first read that needs them, once (std::call_once); each thread reads what a fresh
    handle read on one thread gives."""
    library = pld_library
    sigma, q, rounds, h = 1.0, 0.01, 200, 1e-3
    reference = library.subsampled_gaussian(sigma, q, h, rounds)
    shared = library.subsampled_gaussian(sigma, q, h, rounds)
    try:
        expected = [
            library.bracket(reference, "delta", 0.0),
            library.bracket(reference, "epsilon", 1e-5),
        ]
        barrier = threading.Barrier(2)
        seen: dict[int, list[tuple[float, float]]] = {}

        def read(i: int) -> None:
            barrier.wait()
            seen[i] = [
                library.bracket(shared, "delta", 0.0),
                library.bracket(shared, "epsilon", 1e-5),
            ]

        threads = [threading.Thread(target=read, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert seen == {0: expected, 1: expected}
    finally:
        library.lib.hs_pld_free(reference)
        library.lib.hs_pld_free(shared)


_PLD_REFUSALS = [
    ((0.0, 0.1, 1e-4), "sigma must be finite and > 0, got 0"),
    ((math.inf, 0.1, 1e-4), "sigma must be finite and > 0, got inf"),
    ((1.0, 0.0, 1e-4), "sampling_rate must lie in (0, 1], got 0"),
    ((1.0, 1.5, 1e-4), "sampling_rate must lie in (0, 1], got 1.5"),
    ((1.0, 0.1, 0.0), "value_discretization_interval must lie in (0, 100]"),
    ((1.0, 0.1, 101.0), "value_discretization_interval must lie in (0, 100]"),
    (
        (1e-3, 0.1, 1e-6),
        "value_discretization_interval=1e-06 with sigma = 0.001 would need more than 67108864",
    ),
]


def test_pld_refusals_name_the_argument_and_the_rule(library):
    _needs_pld(library)
    lib = library.lib
    for args, message in _PLD_REFUSALS:
        out = _PLD()
        assert lib.hs_pld_subsampled_gaussian(*args, ctypes.byref(out)) == HS_INVALID_ARGUMENT
        assert library.last_error().startswith(message), library.last_error()
        assert out.value is None  # nothing written on failure
    handle = library.subsampled_gaussian(1.0, 0.1, 1e-3)
    try:
        lower, upper, composed = _D(), _D(), _PLD()
        for delta in (0.0, 1.0, math.nan):
            assert (
                lib.hs_pld_epsilon_bracket(handle, delta, ctypes.byref(lower), ctypes.byref(upper))
                == 1
            )
            assert library.last_error().startswith("delta must")
        for call in ("hs_pld_delta_bracket", "hs_pld_composition_delta_bracket"):
            assert (
                getattr(lib, call)(handle, math.nan, ctypes.byref(lower), ctypes.byref(upper)) == 1
            )
            assert library.last_error() == "epsilon must not be NaN, got nan"
        for delta in (0.0, 1.0, math.nan):
            assert (
                lib.hs_pld_composition_epsilon_bracket(
                    handle, delta, ctypes.byref(lower), ctypes.byref(upper)
                )
                == 1
            )
            assert library.last_error().startswith("delta must lie strictly between 0 and 1")
        for call in ("hs_pld_composition_epsilon_bracket", "hs_pld_composition_delta_bracket"):
            assert getattr(lib, call)(None, 0.5, ctypes.byref(lower), ctypes.byref(upper)) == 1
            assert library.last_error().startswith("pld must not be NULL")
            assert getattr(lib, call)(handle, 0.5, ctypes.byref(lower), None) == 1
            assert library.last_error() == "upper must not be NULL"
        for count in (0, -3, 2**53 + 1):
            assert (
                lib.hs_pld_self_compose(handle, count, ctypes.byref(composed))
                == HS_INVALID_ARGUMENT
            )
            assert library.last_error().startswith("count must be an integer with 1 <= count")
        # the core's own refusal (a C++ exception inside) crosses the boundary as a status and its message
        assert (
            lib.hs_pld_self_compose(handle, 10**12, ctypes.byref(composed)) == HS_INVALID_ARGUMENT
        )
        assert "grid points" in library.last_error() and composed.value is None
        assert lib.hs_pld_epsilon_bracket(None, 1e-5, ctypes.byref(lower), ctypes.byref(upper)) == 1
        assert library.last_error().startswith("pld must not be NULL")
        assert lib.hs_pld_epsilon_bracket(handle, 1e-5, None, ctypes.byref(upper)) == 1
        assert library.last_error() == "lower must not be NULL"
    finally:
        lib.hs_pld_free(handle)
    lib.hs_pld_free(None)  # allowed, does nothing


def test_without_a_backend_the_pld_calls_say_they_are_unavailable(capi_build):
    library = Library(capi_build("-DHOCKEYSTICK_C_FFT=none"))
    assert library.lib.hs_has_pld() == 0 and library.fft_backend() == ""
    assert library.value("hs_theta", 1.0, 1.0) == hs.theta(1.0, 1.0)  # the kernels are there
    out = _PLD()
    assert (
        library.lib.hs_pld_subsampled_gaussian(1.0, 0.1, 1e-4, ctypes.byref(out)) == HS_UNAVAILABLE
    )
    assert "configured without an FFT backend" in library.last_error()


# ---- from Rust ----


def test_rust_program_gets_the_packages_values(library, tmp_path):
    rustc = shutil.which("rustc")
    if rustc is None:
        pytest.skip("no rustc on this machine: the Rust caller is not tested")
    if shutil.which("cc") is None:
        pytest.skip("no C linker (cc) for rustc on PATH: the Rust caller is not tested")
    exe = tmp_path / "capi_check_rs"
    libdir = library.path.parent
    _run(rustc, "--edition", "2021", CAPI / "tests" / "capi_check.rs", "-L", libdir, "-l", "hockeystick_c",
         "-C", f"link-arg=-Wl,-rpath,{libdir}", "-o", exe)  # fmt: skip
    lines = {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in _run(exe).splitlines()}
    assert lines["version"] == hs.__version__
    r, eps, value = (float(v) for v in lines["theta"].split())
    assert value == hs.theta(r, eps)
    eps, delta, sigma = (float(v) for v in lines["sigma"].split())
    assert sigma == np.nextafter(1.0 / hs.theta_radius(eps, delta), np.inf)
    assert lines["refused"] == "1 r must be >= 0, got -1"
    if library.lib.hs_has_pld():
        sigma, q, rounds, h, delta, lower, upper = (float(v) for v in lines["bracket"].split())
        # the grid 1e-3 leaves the composition's bracket wider than the default tolerance, so both doors read the
        # run its factors describe (cpp/capi/pld.cpp's run reads, the package's question reader): certified, they
        # overlap, and their upper sides agree within max(1e-3, 0.1 % of epsilon)
        dist = pld.subsampled_gaussian(sigma, q, value_discretization_interval=h).self_compose(
            int(rounds)
        )
        py_lower, py_upper = dist.epsilon(delta, bound="both")
        assert lower <= upper and max(lower, py_lower) <= min(upper, py_upper)
        assert abs(upper - py_upper) <= max(1e-3, 1e-3 * py_upper)
