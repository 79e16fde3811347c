"""The PLD composition embeds without Python: cpp/examples/embed_pld.cpp with its default FFT backend, Eigen's
FFT module (MPL-2.0), and with FFTW (GPL, -DHOCKEYSTICK_EXAMPLE_FFTW).

G4 (docs/references.md): with either backend its certified epsilon bracket agrees with the Python facade's
(scipy.fft backend) within their charged round-off, and on a Gaussian composition both contain the exact
value (theta_epsilon of the composed radius, paper 000 eq. 6).  With direct bins, either backend's long-double
transform (its forward_long: FFTW's long-double library, Eigen's kissfft with long-double twiddles,
tests/core/test_eigen_fft_backend.py) cuts the round-off charge of a many-round composition as scipy's does in
the facade.
"""

from __future__ import annotations

import math
import os
import subprocess

import pytest

import hockeystick as hs
import hockeystick.pld as pld
from hockeystick.pld.compose import fft

from .program_flags import FFTW_HEADER, FFTW_PACKAGE, cxx_on_path, fftw_found

pytestmark = (
    pytest.mark.slow
)  # the module's fixture runs the C++ example with each backend, compiled once per run

BACKENDS = ("eigen", "fftw")


@pytest.fixture(scope="module", params=BACKENDS)
def printed(request) -> dict[str, list[str]]:
    """What the example prints with each backend, as compiled into conftest.py's eigen_programs (its own includes
    first, so they alone compile it): embed_pld on Eigen's, embed_pld_fftw on FFTW's (the example built with
    -DHOCKEYSTICK_EXAMPLE_FFTW in the same unit)."""
    programs = str(request.getfixturevalue("eigen_programs"))
    if request.param == "fftw":
        _require_fftw()
    name = "embed_pld" if request.param == "eigen" else "embed_pld_fftw"
    out = subprocess.run(
        [programs, name], check=True, capture_output=True, text=True
    ).stdout.splitlines()
    lines = {line.split()[0]: line.split()[1:] for line in out}
    assert lines["backend"] == [request.param]
    return lines


def _require_fftw() -> None:
    """Skip, saying why, where the compiler finds no FFTW header (eigen_programs then holds no embed_pld_fftw),
    except under CI, which installs it."""
    cxx = cxx_on_path()
    if cxx is not None and fftw_found(cxx):
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI installs {FFTW_PACKAGE} (.ci/run): <{FFTW_HEADER}> must be present")
    pytest.skip(
        f"<{FFTW_HEADER}> is absent: install {FFTW_PACKAGE} to build cpp/examples/embed_pld.cpp with it"
    )


def _facade(fields: list[str]) -> tuple[tuple[float, float], tuple[float, float], float]:
    """(C++ bracket, Python bracket, tolerance): the tolerance is how far epsilon moves when delta
    moves by both sides' round-off charges (the two backends' transforms differ by at most that)."""
    sigma, q, rounds, h, delta, lo, up = (float(v) for v in fields)
    dist = pld.subsampled_gaussian(sigma, q, value_discretization_interval=h).self_compose(
        int(rounds)
    )
    charge = max(pmf.total_error for side in (True, False) for pmf in dist.composed(side))
    assert charge > 0  # the composition is numerical, and charged
    wide = dist.epsilon(
        [delta - 4 * charge, delta + 4 * charge], bound="both", composition_only=True
    )
    tolerance = max(wide[0][0] - wide[0][1], wide[1][0] - wide[1][1]) + 1e-12
    return (lo, up), dist.epsilon(delta, bound="both", composition_only=True), tolerance


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


def _charges(printed: dict[str, list[str]]) -> tuple[float, float, float, float]:
    """(the example's FFT-only charge, its direct-bins charge, the facade's of each) for the "charges" line."""
    sigma, q, rounds, h, fft_only, direct = (float(v) for v in printed["charges"])
    dist = pld.subsampled_gaussian(sigma, q, value_discretization_interval=h)
    ((factor, count),) = dist.directions[0].items()
    terms = [(factor.upper, count * int(rounds))]
    facade_fft_only = fft.compose(terms, pessimistic=True).total_error
    facade_direct = fft.compose(terms, pessimistic=True, direct_bins=True).total_error
    return fft_only, direct, facade_fft_only, facade_direct


def test_long_double_bins_cut_the_charge_as_the_facade_does(printed):
    """47149 rounds of the subsampled Gaussian (sigma 0.5, rate 1e-4): FFT bins charge what the facade's do (the
    same bound on the same length), and with direct bins from the backend's long-double transform the charge
    falls >= 500x (direct sums in double alone: ~100x), to the facade's charge with scipy's long-double
    transform."""
    fft_only, direct, facade_fft_only, facade_direct = _charges(printed)
    assert fft_only == pytest.approx(facade_fft_only, rel=1e-6)
    assert 0.0 < direct * 500 <= fft_only
    assert direct == pytest.approx(facade_direct, rel=1e-3)
