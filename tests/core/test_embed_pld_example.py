"""The PLD composition embeds without Python: cpp/examples/embed_pld.cpp with FFTW as its FFT backend.

G4 (docs/references.md): its certified epsilon bracket agrees with the Python facade's (scipy.fft
backend) within their charged round-off, and on a Gaussian composition both contain the exact
value (theta_epsilon of the composed radius, paper 000 eq. 6).  With direct bins, FFTW's
long-double transform (the backend's optional forward_long) cuts the round-off charge of a
many-round composition as scipy's does in the facade.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import hockeystick as hs
import hockeystick.pld as pld
from hockeystick.pld.compose import fft

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # the module's fixture compiles and runs the C++ example


def _compiler() -> str | None:
    return os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")


def _has_fftw(cxx: str) -> bool:
    probe = subprocess.run([cxx, "-x", "c++", "-E", "-"], input="#include <fftw3.h>\n", capture_output=True, text=True)
    return probe.returncode == 0


@pytest.fixture(scope="module")
def printed(tmp_path_factory) -> dict[str, list[str]]:
    cxx = _compiler()
    if cxx is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have a C++ compiler to prove the core embeds")
        pytest.skip("no C++ compiler on this machine")
    if not _has_fftw(cxx):
        if os.environ.get("CI"):
            pytest.fail("CI installs libfftw3-dev (.ci/run): fftw3.h must be present")
        pytest.skip("fftw3.h is absent: install libfftw3-dev to build cpp/examples/embed_pld.cpp")
    exe = tmp_path_factory.mktemp("embed_pld") / "embed_pld"
    subprocess.run(
        [
            cxx,
            "-std=c++17",
            "-O2",
            "-ffp-contract=off",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-Wno-unknown-pragmas",
            "-I",
            str(ROOT / "cpp" / "include"),
            str(ROOT / "cpp" / "examples" / "embed_pld.cpp"),
            "-lfftw3",
            "-lfftw3l",
            "-o",
            str(exe),
        ],
        check=True,
    )
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.splitlines()
    return {line.split()[0]: line.split()[1:] for line in out}


def _facade(fields: list[str]) -> tuple[tuple[float, float], tuple[float, float], float]:
    """(C++ bracket, Python bracket, tolerance): the tolerance is how far epsilon moves when delta
    moves by both sides' round-off charges (the two backends' transforms differ by at most that)."""
    sigma, q, rounds, h, delta, lo, up = (float(v) for v in fields)
    dist = pld.subsampled_gaussian(sigma, q, value_discretization_interval=h).self_compose(int(rounds))
    charge = max(pmf.total_error for side in (True, False) for pmf in dist.composed(side))
    assert charge > 0  # the composition is numerical, and charged
    wide = dist.epsilon([delta - 4 * charge, delta + 4 * charge], bound="both")
    tolerance = max(wide[0][0] - wide[0][1], wide[1][0] - wide[1][1]) + 1e-12
    return (lo, up), dist.epsilon(delta, bound="both"), tolerance


def test_poisson_subsampled_gaussian_bracket_agrees_with_the_facade(printed):
    (lo, up), (py_lo, py_up), tol = _facade(printed["poisson"])
    assert lo <= up
    assert abs(lo - py_lo) <= tol
    assert abs(up - py_up) <= tol
    assert up - lo < 1e-3  # W2 at h = 1e-4: the bracket is informative


def test_gaussian_bracket_contains_the_exact_value(printed):
    (lo, up), (py_lo, py_up), tol = _facade(printed["gaussian"])
    sigma, _, rounds, _, delta = (float(v) for v in printed["gaussian"][:5])
    exact = hs.theta_epsilon(math.sqrt(rounds) / sigma, delta)
    assert float(printed["exact_gaussian"][0]) == pytest.approx(exact, rel=1e-14)
    assert lo <= exact <= up
    assert py_lo <= exact <= py_up
    assert abs(lo - py_lo) <= tol and abs(up - py_up) <= tol


def test_long_double_fftw_bins_cut_the_charge_as_the_facade_does(printed):
    """47149 rounds of the subsampled Gaussian (sigma 0.5, rate 1e-4): with direct bins from FFTW's
    long-double transform the charge falls >= 500x (direct sums alone: ~100x), to the facade's charge
    with scipy's long-double transform."""
    sigma, q, rounds, h, fft_only, direct = (float(v) for v in printed["charges"])
    assert 0.0 < direct * 500 <= fft_only
    dist = pld.subsampled_gaussian(sigma, q, value_discretization_interval=h)
    ((factor, count),) = dist.directions[0].items()
    facade = fft.compose([(factor.upper, count * int(rounds))], pessimistic=True, direct_bins=True)
    assert direct == pytest.approx(facade.total_error, rel=1e-3)
