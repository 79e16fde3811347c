"""theta over arrays (hockeystick::theta_batch: AVX2 lanes, packed queues, scalar remainder, which
hs.theta runs) against the scalar hockeystick::theta (the test hook _core.hockey_stick._theta_scalar) and
50-digit mpmath, on awkward lengths and inputs; its independence of position and neighbours;
and the vector exp it uses.
"""

from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest

import hockeystick as hs
from hockeystick import _core

from .. import reference

# Each path is within 1.6e-14 of the truth (the scalar's worst: quadrature below x1 = 5.7, where
# N = 1 - x M(x) loses 5 bits and the two paths' roundings differ), so they differ by < 3.2e-14
# (1.8e-14 seen over 600 000 points); a few ulp elsewhere.
PATHS_AGREE = 3.2e-14


def _typical(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The benchmark's distribution: r log-uniform in [1e-2, 1e2], eps uniform in [0, 20]."""
    rng = np.random.default_rng(seed)
    return 10.0 ** rng.uniform(-2, 2, n), rng.uniform(0, 20, n)


def _wide(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """r log-uniform in [1e-8, 1e4], eps 0 or log-uniform in [1e-8, 1e4]."""
    rng = np.random.default_rng(seed)
    r, eps = 10.0 ** rng.uniform(-8, 4, n), 10.0 ** rng.uniform(-8, 4, n)
    eps[: n // 20] = 0.0
    return r, eps


def _regions(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Each regime of the vector code: quadrature with x1 across Cody's z = 4 (x1 = 5.66) and
    near 0.66, and in the tail (x1 > 5.66) for r from 1e-12 x1 to 0.1 x1; x1 near the direct/difference border 0.66; x1 near -0.66 (erf or M(-x1));
    phi(x1) near e^-700 and e^-745 (scalar hand-off, underflow); r near 16 and |x1| near 8
    (double-double switch); x2 near 9.5e7."""
    rng = np.random.default_rng(seed)
    k = n // 9
    parts = []
    r = 10.0 ** rng.uniform(-8, -0.5, k)  # quadrature: r <= 0.1 max(x1, 1)
    parts.append((r, r * (rng.uniform(0.6, 8.0, k) + r / 2)))
    x1 = rng.uniform(
        5.7, 38.0, k
    )  # quadrature in Cody's tail (divided differences), r down to 1e-12 x1
    r = x1 * 10.0 ** rng.uniform(-12, -1, k)
    parts.append((r, r * (x1 + r / 2)))
    r = rng.uniform(0.1, 5, k)
    parts.append((r, r * (rng.uniform(0.6, 0.7, k) + r / 2)))
    r = rng.uniform(1.4, 5, k)
    parts.append((r, np.maximum(r * (rng.uniform(-0.7, -0.6, k) + r / 2), 0.0)))
    r = rng.uniform(0.5, 30, k)
    parts.append((r, r * (rng.uniform(37.0, 38.8, k) + r / 2)))
    r = rng.uniform(15.5, 16.5, k)
    parts.append((r, np.maximum(r * (rng.uniform(-9, 9, k) + r / 2), 0.0)))
    sign = rng.choice([-1.0, 1.0], k)  # x1 = -8 needs r/2 > 8 (eps >= 0)
    r = np.where(sign > 0, rng.uniform(0.5, 3, k), rng.uniform(16.5, 30, k))
    parts.append((r, r * (sign * rng.uniform(7.9, 8.1, k) + r / 2)))
    r = rng.uniform(1e-3, 1, k)
    parts.append((r, r * (rng.uniform(9.3e7, 9.7e7, k) - r / 2)))
    m = n - 8 * k
    parts.append(_typical(m, seed + 1))
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _scalar_path(r: np.ndarray, eps: np.ndarray) -> np.ndarray:
    return _core.hockey_stick._theta_scalar(
        np.asarray(r, dtype=float), np.asarray(eps, dtype=float), threads=1
    )


@pytest.mark.parametrize(
    "points",
    [_typical(6000, 10), _wide(6000, 11), _regions(8000, 12)],
    ids=["typical", "wide", "regions"],
)
def test_batch_agrees_with_scalar_path(points):
    r, eps = points
    batch = hs.theta(r, eps, threads=1)
    scalar = _scalar_path(r, eps)
    assert np.all(np.isfinite(batch))
    # Relative agreement down to the smallest normal number; below it (results of the last
    # rounding of phi(x1) times a factor, or of the scalar code itself) to two subnormal ulps.
    np.testing.assert_allclose(batch, scalar, rtol=PATHS_AGREE, atol=2 * 5e-324)


def _worst_relative(r: np.ndarray, eps: np.ndarray) -> tuple[float, int]:
    got = hs.theta(r, eps)
    worst, counted = 0.0, 0
    for ri, ei, gi in zip(r, eps, got):
        ref = reference.theta(ri, ei)
        if ref >= mp.mpf("1e-300"):
            counted += 1
            worst = max(worst, float(abs(gi - ref) / ref))
    return worst, counted


def test_batch_relative_error_against_mpmath_typical_points():
    worst, counted = _worst_relative(*_typical(600, 13))
    assert counted > 300
    assert worst <= 1e-13, worst


def test_batch_relative_error_against_mpmath_regime_borders():
    worst, counted = _worst_relative(*_regions(800, 14))
    assert counted > 400
    assert worst <= 1e-13, worst


def test_large_radius_with_small_x1_agrees_with_scalar_path_and_mpmath():
    """r from 16 to 1e17 with x1 = eps/r - r/2 small: there eps/r rounds away up to r 2^-54 of x1 (5.5
    at r = 1e17), so the vector code's choice of form rests on x1 from the division's exact remainder
    (a choice from eps/r - r/2 alone returns 0 for theta ~ 1e-300 near x1 = 37.4), and its values on
    the double-double thresholds.  Near r = 1e17 every eps within 400 ulp of r (r/2 + x1), x1 at the
    borders -8.5, 37.4 and 38.6."""
    rng = np.random.default_rng(21)
    n = 3000
    r = 10.0 ** rng.uniform(np.log10(16.0), 17, n)
    eps = np.maximum(r * (rng.uniform(-12, 40, n) + r / 2), 0.0)
    batch = hs.theta(r, eps, threads=1)
    np.testing.assert_allclose(batch, _scalar_path(r, eps), rtol=PATHS_AGREE, atol=2 * 5e-324)
    worst, counted = 0.0, 0
    for ri, ei, gi in zip(r[:300], eps[:300], batch[:300]):
        ref = reference.theta(ri, ei)
        if ref >= mp.mpf("1e-300"):
            counted += 1
            worst = max(worst, float(abs(gi - ref) / ref))
    assert counted > 100
    assert worst <= 1e-13, worst
    steps = np.arange(-400, 401)
    radii, epsilons = [], []
    for big in (1e16, 1e17, 3.3e17):
        for x1 in (-8.5, 30.0, 37.4, 38.6):
            centre = np.array([big * (big / 2 + x1)])
            radii.append(np.full(steps.size, big))
            epsilons.append((centre.view(np.int64) + steps).view(np.float64))  # eps one ulp apart
    r, eps = np.concatenate(radii), np.concatenate(epsilons)
    np.testing.assert_allclose(
        hs.theta(r, eps, threads=1), _scalar_path(r, eps), rtol=PATHS_AGREE, atol=2 * 5e-324
    )


@pytest.mark.parametrize("log_density", [-700.0, -745.2])
def test_density_borders_take_the_scalar_path(log_density):
    """Within 50 ulp of x1 where log phi(x1) = -700 (below it the scalar code takes exp(log phi + log
    factor)) or -745.2 (below it theta rounds to 0), the vector code hands the lanes to the scalar
    code: the same bits, for the difference form (r = 5) and the quadrature (r = x1 / 20)."""
    x1_border = math.sqrt(2.0 * (-log_density - math.log(math.sqrt(2.0 * math.pi))))
    x1 = x1_border + np.arange(-50, 51) * math.ulp(x1_border)
    r = np.concatenate([np.full(x1.size, 5.0), x1 / 20.0])
    x1 = np.concatenate([x1, x1])
    eps = r * (x1 + r / 2)
    assert np.array_equal(hs.theta(r, eps, threads=1), _scalar_path(r, eps))


def test_results_do_not_depend_on_position_length_or_neighbours():
    # Sweeps split a grid into chunks and must get the same bits as in one call.
    r, eps = _regions(900, 15)
    whole = hs.theta(r, eps)
    for start in range(5):
        for n in range(1, 14):
            assert np.array_equal(
                hs.theta(r[start : start + n], eps[start : start + n]), whole[start : start + n]
            )
    assert np.array_equal(hs.theta(r[::3], eps[::3]), whole[::3])  # strided: copied by the facade
    shuffle = np.random.default_rng(19).permutation(r.size)
    assert np.array_equal(hs.theta(r[shuffle], eps[shuffle]), whole[shuffle])
    assert all(hs.theta(float(a), float(b)) == w for a, b, w in zip(r[:50], eps[:50], whole[:50]))


def test_special_inputs_match_scalar_path_and_limits():
    big = np.finfo(float).max
    sub = 5e-324
    pairs = [
        (0.0, 1.0),
        (0.0, 0.0),
        (2.0, np.inf),
        (np.inf, 3.0),
        (np.inf, 0.0),
        (1.0, 0.0),
        (sub, 1.0),
        (sub, 0.0),
        (1e-300, 1e-300),
        (1e300, 1.0),
        (big, big),
        (1e-10, 1e300),
        (1.0, 1e300),
        (40.0, 0.0),
        (1e-8, 1e-8 * 0.66291),
        (2.0, 2.0 * (0.66291 + 1.0)),
        (2.0, 2.0 * (-0.66291 + 1.0)),
        (1.0, 745.0),
        (1.0, 37.5 + 0.5),
        (1e-3, 1e-3 * 9.6e7),
    ]
    r = np.array([p[0] for p in pairs] * 3)  # three copies: the pairs fill whole vectors too
    eps = np.array([p[1] for p in pairs] * 3)
    batch = hs.theta(r, eps)
    scalar = _scalar_path(r, eps)
    np.testing.assert_allclose(batch, scalar, rtol=PATHS_AGREE, atol=0)
    assert batch[0] == batch[1] == batch[2] == 0.0 and batch[3] == batch[4] == 1.0
    assert batch[6] == batch[11] == 0.0  # eps/r overflows
    assert batch[5] == pytest.approx(
        math.erf(0.5 / math.sqrt(2)), rel=1e-15
    )  # theta(r, 0) = erf(r / 2 sqrt 2)


@pytest.mark.parametrize("threads", [1, 2])
def test_bad_input_in_a_large_array_raises_for_the_first(threads):
    r, eps = _typical(100_003, 16)
    r[77_777] = np.nan
    r[90_000] = -1.0
    with pytest.raises(ValueError, match=r"r must not be NaN.*flat index 77777"):
        hs.theta(r, eps, threads=threads)
    r, eps = _typical(100_003, 16)
    eps[5] = -0.5
    with pytest.raises(ValueError, match=r"epsilon must be >= 0.*flat index 5:"):
        hs.theta(r, eps, threads=threads)
    r[50_001], eps[50_001], eps[5] = np.inf, np.inf, 1.0
    with pytest.raises(ValueError, match=r"cannot both be infinite.*flat index 50001"):
        hs.theta(r, eps, threads=threads)


def test_thread_counts_give_identical_results():
    r, eps = _typical(200_001, 17)
    one = hs.theta(r, eps, threads=1)
    assert np.array_equal(one, hs.theta(r, eps, threads=2))
    assert np.array_equal(one, hs.theta(r, eps, threads=3))
    assert np.array_equal(one, hs.theta(r.reshape(-1, 1), eps.reshape(-1, 1)).ravel())


def _ulps(got: float, ref: mp.mpf) -> float:
    if ref == 0:
        return 0.0 if got == 0.0 else math.inf
    nearest = float(ref)
    ulp = math.ulp(nearest) if nearest != 0.0 else 5e-324
    return float(abs(mp.mpf(got) - ref) / ulp)


def test_vector_exp_within_one_ulp_over_its_whole_range():
    rng = np.random.default_rng(18)
    x = np.concatenate(
        [
            rng.uniform(-746.0, 710.0, 3000),  # everything, subnormal and overflow ends included
            rng.uniform(-1.0, 1.0, 500),
            rng.uniform(-745.2, -708.0, 500),  # results in the subnormal range
            rng.uniform(709.0, 709.782712893384, 200),  # up to the largest finite result
            [
                0.0,
                -0.0,
                1e-300,
                -1e-300,
                0.5 * math.log(2),
                -0.5 * math.log(2),
                709.782712893384,
                709.7827128933841,
                -708.3964185322641,
                -745.1332191019411,
                -745.1332191019412,
                -746.0,
                -800.0,
                800.0,
                1e308,
                -1e308,
            ],
        ]
    )
    got = _core.hockey_stick._exp_avx2(x)
    if got is None:
        pytest.skip("no AVX2 + FMA kernels on this machine")
    worst = 0.0
    with mp.workdps(40):
        for xi, gi in zip(x, got):
            ref = mp.exp(mp.mpf(float(xi)))
            if ref > mp.mpf(np.finfo(float).max):
                assert gi == math.inf, xi
                continue
            worst = max(worst, _ulps(float(gi), ref))
    assert worst <= 1.0, worst
    special = _core.hockey_stick._exp_avx2(np.array([np.inf, -np.inf, np.nan, 0.0]))
    assert (
        special[0] == math.inf
        and special[1] == 0.0
        and math.isnan(special[2])
        and special[3] == 1.0
    )


def test_vector_expm1_within_two_ulp_over_its_whole_range():
    """The PLD cells' quadrature takes e^x - 1 from expm1_avx2 (simd/exp_arrays.hpp): within 2 ulp of the
    40-digit value everywhere, across its two methods' seam at |x| = 1 and in arrays of any length
    (the last 1-3 values go through the padded vector)."""
    rng = np.random.default_rng(19)
    x = np.concatenate(
        [
            rng.uniform(-1.0, 1.0, 3000),  # the polynomial
            rng.uniform(-1e-6, 1e-6, 300),
            10.0 ** rng.uniform(-300, -1, 300) * rng.choice([-1, 1], 300),
            rng.uniform(-1.05, -0.95, 300),
            rng.uniform(0.95, 1.05, 300),  # the seam
            rng.uniform(-746.0, 710.0, 2000),  # exp(x) - 1 beyond
            [
                0.0,
                -0.0,
                1.0,
                -1.0,
                np.nextafter(1.0, 2.0),
                np.nextafter(-1.0, -2.0),
                5e-324,
                -5e-324,
                709.782712893384,
                -40.0,
                -745.0,
                -800.0,
            ],
        ]
    )
    with mp.workdps(40):
        for n in (x.size, 1, 2, 3, 5, 7):
            got = _core.hockey_stick._expm1_avx2(x[:n])
            if got is None:
                pytest.skip("no AVX2 + FMA kernels on this machine")
            worst = max(_ulps(float(g), mp.expm1(mp.mpf(float(xi)))) for xi, g in zip(x[:n], got))
            assert worst <= 2.0, (n, worst)
    special = _core.hockey_stick._expm1_avx2(
        np.array([np.inf, -np.inf, np.nan, 710.0, 1e308, -1e308])
    )
    assert special[0] == math.inf and special[1] == -1.0 and math.isnan(special[2])
    assert special[3] == math.inf and special[4] == math.inf and special[5] == -1.0


def test_portable_build_without_simd_kernels(tmp_path):
    """With HOCKEYSTICK_NO_SIMD (as on compilers or CPUs without the AVX2 kernels) the core still
    compiles warning-free and theta_batch is the scalar theta, element for element."""
    cxx = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no C++ compiler on this machine")
    source = tmp_path / "batch.cpp"
    source.write_text(r"""
#include <hockeystick/hockeystick.hpp>
#include <cstdio>
int main() {
    static_assert(!HOCKEYSTICK_HAVE_AVX2, "the SIMD kernels should be compiled out");
    const double r[5] = {1.0, 1e-6, 30.0, 0.5, 0.0}, eps[5] = {1.0, 1e-5, 2.0, 14.0, 1.0};
    double out[5];
    hockeystick::theta_batch(r, eps, out, 5);
    for (int i = 0; i < 5; ++i)
        if (out[i] != hockeystick::theta(r[i], eps[i])) return 1;
    std::printf("ok\n");
    return 0;
}
""")
    exe = tmp_path / "batch"
    include = Path(__file__).resolve().parents[2] / "cpp" / "include"
    subprocess.run(
        [
            cxx,
            "-std=c++17",
            "-O1",
            "-ffp-contract=off",
            "-DHOCKEYSTICK_NO_SIMD",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-Wno-unknown-pragmas",
            "-I",
            str(include),
            str(source),
            "-o",
            str(exe),
        ],
        check=True,
    )
    assert subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout == "ok\n"
