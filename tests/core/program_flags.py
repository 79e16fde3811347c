"""The compiler and the optimization level of the C++ test programs compiled against the headers (cpp/examples/embed.cpp and
embed_pld.cpp, tests/core/eigen_fft_probe.cpp, cpp/capi/tests/tilted_gaussian.cpp; the last three with Eigen's FFT
in one unit, tests/core/eigen_programs.cpp, with embed_pld.cpp on FFTW's too where its header is found).

-O1: each program's checks compare what it prints with the package's values within tolerances (round-off charges,
``rel=1e-15``, certified brackets and error bounds), and its arithmetic is IEEE as written at every level (double in
SSE registers, long double in x87's 80 bits, ``-ffp-contract=off`` and no ``-ffast-math``: no level fuses or
reorders an operation), so the level changes no check; -O1 compiles the core's templates in about 70 % of -O2's
CPU, and still runs the data-flow analyses behind ``-Wmaybe-uninitialized``, which ``-Werror`` turns into a failure
(-O0 would skip them).  The level does matter where a test holds a compiled value bit for bit against the wheel's
own optimized build: the C library (test_capi*.py, Release) and the CMake and Conan consumers
(test_cmake_package.py, test_conan_recipe.py, test_wheel_cpp_package.py) keep their build types.
"""

from __future__ import annotations

import os
import shutil
import subprocess

OPTIMIZATION = "-O1"

# FFTW's backend of the programs (cpp/backends/fftw_backend.hpp): the header the compiler must find, the system
# package that installs it, the libraries a program on it links (FFTW's double and long-double ones)
FFTW_HEADER = "fftw3.h"
FFTW_PACKAGE = "libfftw3-dev"
FFTW_LIBRARIES = ("-lfftw3", "-lfftw3l")


def cxx_on_path() -> str | None:
    """The C++ compiler the tests build with: ``$CXX``, else the first of c++, g++ and clang++ on PATH (None
    where there is none; each test says what it then does)."""
    return (
        os.environ.get("CXX")
        or shutil.which("c++")
        or shutil.which("g++")
        or shutil.which("clang++")
    )


def fftw_found(cxx: str) -> bool:
    """Whether the compiler ``cxx`` finds FFTW's header (FFTW_HEADER) on its own include path."""
    probe = subprocess.run(
        [cxx, "-std=c++17", "-x", "c++", "-E", "-"],
        input=f"#include <{FFTW_HEADER}>\n",
        capture_output=True,
        text=True,
    )
    return probe.returncode == 0
