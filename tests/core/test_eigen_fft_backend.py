"""cpp/backends/eigen_fft_backend.hpp, the default FFT backend (Eigen's FFT module, MPL-2.0) of the C interface and
the PLD example, holds the error model of pld/compose/fft_backend.hpp.

- Double, forward and inverse, at one length of every ``fft_length`` family: every output within 8 u ceil(log2 n)
  times the input's l1 norm and the error vector within 8 u ceil(log2 n) times the exact output's Euclidean norm
  (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., 2002, Thm 24.2), against scipy's long-double
  transforms (pocketfft, long-double twiddles) as the reference.
- Long double, forward_long (cpp/backends/eigen_long_fft.hpp: Eigen's butterflies with long-double twiddles): every
  bin within 8 u_L ceil(log2 n) ||x||_1 (u_L = 2^-64), against the DFT of the same long doubles computed in integers
  with 100-bit twiddles (mpmath), within 2^-93 ||x||_1 of the exact one, at every ``fft_length`` family, at odd
  lengths, at 2 mod 4 and at short ones.  And Eigen's own ``FFT<long double>`` (its twiddles from double cos and
  sin) misses that bound: the reason the backend installs its own twiddles, measured so that the day Eigen's does
  not, this test says so."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest
import scipy.fft

U = 2.0**-53
FULL_LONG_DOUBLE = (
    np.finfo(np.longdouble).nmant >= 63
)  # x86-64's 80-bit format: the reference ~2000x below u
pytestmark = [
    pytest.mark.slow,  # runs the probe, compiled against Eigen (conftest.py's eigen_programs)
    pytest.mark.skipif(
        not FULL_LONG_DOUBLE, reason="numpy's longdouble is not x87's 80-bit format"
    ),
]

# one length of each fft_length family (2^a f, f in {1, 9/8, 5/4, 45/32, 3/2, 27/16, 15/8}), small 5-smooth ones,
# and lengths of 2 mod 4 and odd, which Eigen transforms as complex signals rather than by its real-input pass
LENGTHS = [
    45,
    64,
    90,
    1 << 12,
    9 << 10,
    5 << 11,
    45 << 8,
    3 << 12,
    27 << 9,
    15 << 10,
    1 << 16,
    3375,
]


@pytest.fixture(scope="module")
def probe(eigen_programs) -> list[str]:
    """The command that runs eigen_fft_probe.cpp, as compiled into conftest.py's eigen_programs (its arguments
    follow)."""
    return [str(eigen_programs), "eigen_fft_probe"]


def _transform(
    probe: list[str], mode: str, n: int, rows: np.ndarray, out_dtype: type, tmp_path: Path
) -> np.ndarray:
    """The probe's transform of every row of ``rows`` (one array per row, in its dtype), one array per row."""
    source, target = tmp_path / f"{mode}.in", tmp_path / f"{mode}.out"
    np.ascontiguousarray(rows).tofile(source)
    subprocess.run([*probe, mode, str(n), str(len(rows)), str(source), str(target)], check=True)
    return np.fromfile(target, dtype=out_dtype).reshape(len(rows), -1)


def _inputs(n: int, rng: np.random.Generator) -> np.ndarray:
    """Real signals of length n: a spiky PMF (most mass on a few cells), a spread one, white noise."""
    spiky = np.zeros(n)
    spiky[rng.integers(0, n, 5)] = rng.dirichlet(np.ones(5))
    spiky += 1e-9 * rng.random(n)
    spread = np.exp(-0.5 * ((np.arange(n) - n / 2) / (n / 20)) ** 2)
    return np.stack([spiky / spiky.sum(), spread / spread.sum(), rng.standard_normal(n)])


def _full_norm(half: np.ndarray, n: int, order: int) -> float:
    """The l1 (order 1) or l2 (order 2) norm of the full spectrum whose half is ``half`` (bins 0 .. n // 2): every
    bin but 0 (and n / 2 for even n) stands for two."""
    weights = np.full(half.shape, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    magnitude = np.abs(half).astype(np.float64)
    return (
        float(np.sum(weights * magnitude))
        if order == 1
        else float(np.sqrt(np.sum(weights * magnitude**2)))
    )


@pytest.mark.parametrize("n", LENGTHS)
def test_eigen_holds_the_entrywise_and_normwise_bounds_forward_and_inverse(probe, n, tmp_path):
    rng = np.random.default_rng(n)
    bound = 8.0 * U * math.ceil(math.log2(n))
    signals = _inputs(n, rng)
    spectra = _transform(probe, "forward", n, signals, np.complex128, tmp_path)
    backs = _transform(probe, "inverse", n, spectra, np.float64, tmp_path)
    for x, spectrum, back in zip(signals, spectra, backs):
        exact = scipy.fft.rfft(x.astype(np.longdouble))
        err = (spectrum - exact).astype(np.complex128)
        assert np.max(np.abs(err)) <= bound * np.sum(np.abs(x))
        assert _full_norm(err, n, 2) <= bound * _full_norm(exact, n, 2)
        # the inverse of the double spectrum the composition would hand it: weights of modulus 1 / n
        exact_back = scipy.fft.irfft(spectrum.astype(np.clongdouble), n=n)
        err_back = (back - exact_back).astype(np.float64)
        assert np.max(np.abs(err_back)) <= bound * _full_norm(spectrum, n, 1) / n
        assert float(np.linalg.norm(err_back)) <= bound * float(
            np.linalg.norm(exact_back.astype(np.float64))
        )


# ---- the long-double forward transform against the exact DFT ----

U_LONG = 2.0**-64
TWIDDLE_BITS = 100  # the reference's twiddles, each part rounded to 2^-100
SCALE_BITS = (
    200  # long doubles as integers times 2^-200: exact above 2^-136, the rest below 2^-200 each
)

# every fft_length family at 2^10 (2^a f, f in {1, 9/8, 5/4, 45/32, 3/2, 27/16, 15/8}), one at 2^16, the short
# 5-smooth lengths fft_length gives to widths up to 64, odd and 2 mod 4 lengths (Eigen's complex path), and the
# lengths of the Taylor band's short transforms (m / B: 2^a f again)
LONG_LENGTHS = [1, 2, 3, 4, 5, 6, 8, 12, 45, 64, 90, 1 << 10, 9 << 7, 5 << 8, 45 << 5, 3 << 9, 27 << 6,
                15 << 7, 3375, 45 << 8, 1 << 16]  # fmt: skip


def _as_scaled_integers(values: np.ndarray) -> list[int]:
    """Each long double v as the integer nearest v 2^SCALE_BITS toward 0 (exact where |v| >= 2^-136)."""
    mantissa, exponent = np.frexp(values.astype(np.longdouble))
    digits = (np.abs(mantissa) * np.longdouble(2.0**64)).astype(
        np.uint64
    )  # exact: 64-bit significands
    out = []
    for d, e, negative in zip(digits.tolist(), exponent.tolist(), (mantissa < 0).tolist()):
        shift = int(e) - 64 + SCALE_BITS
        v = int(d) << shift if shift >= 0 else int(d) >> -shift
        out.append(-v if negative else v)
    return out


def _twiddles(n: int) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of 2 pi t / n, t < n, as integers times 2^-TWIDDLE_BITS: the powers of e^{2 pi i / n} (mpmath at
    300 bits) in 240-bit fixed point, each step off by at most 2^-239, so all n within n 2^-239 before rounding."""
    fixed = 240
    with mp.workprec(300):
        step_cos = int(mp.nint(mp.ldexp(mp.cos(2 * mp.pi / n), fixed)))
        step_sin = int(mp.nint(mp.ldexp(mp.sin(2 * mp.pi / n), fixed)))
    c, s, drop = 1 << fixed, 0, fixed - TWIDDLE_BITS
    cos, sin = [], []
    for _ in range(n):
        cos.append((c + (1 << (drop - 1))) >> drop)
        sin.append((s + (1 << (drop - 1))) >> drop)
        c, s = (c * step_cos - s * step_sin) >> fixed, (s * step_cos + c * step_sin) >> fixed
    return np.array(cos, dtype=object), np.array(sin, dtype=object)


def _rounded_shift(values: np.ndarray, bits: int) -> np.ndarray:
    """Integers divided by 2^bits, rounded to nearest (ties up)."""
    return (values + (1 << (bits - 1))) >> bits


def _fixed_point_dft(
    re: np.ndarray, im: np.ndarray, stride: int, twiddles
) -> tuple[np.ndarray, np.ndarray]:
    """The DFT of every row of re + i im (Python integers, one signal a row) by decimation in time over the smallest
    prime factor p of the length n: the p interleaved subsequences transformed alike, each multiplied by its
    twiddles w_n^(r k), then a p-point DFT across them; ``stride`` = N / n indexes the length-N twiddles. Every
    product is exact and each stage rounds once to the signals' scale, so a bin's error is at most
    stages * (2 sqrt(2) 2^-100 + 2^-200) ||x||_1 (each twiddle part within 2^-100, every intermediate bin at most
    ||x||_1): below 2^-93 ||x||_1 for the 16 stages of 2^16."""
    cos, sin = twiddles
    rows, n = re.shape
    if n == 1:
        return re, im
    p = next(f for f in range(2, n + 1) if n % f == 0)
    m = n // p
    sub_re, sub_im = (
        a.reshape(rows, m, p).transpose(0, 2, 1).reshape(rows * p, m) for a in (re, im)
    )
    y_re, y_im = (
        a.reshape(rows, p, m) for a in _fixed_point_dft(sub_re, sub_im, stride * p, twiddles)
    )
    index = (np.outer(np.arange(1, p), np.arange(m)) * stride) % len(cos)  # w_n^(r k), r >= 1
    c, s = cos[index], sin[index]
    # times 2^-(SCALE_BITS + TWIDDLE_BITS); w = cos - i sin, and w_n^0 = 1 exactly
    z_re = np.concatenate([y_re[:, :1] << TWIDDLE_BITS, y_re[:, 1:] * c + y_im[:, 1:] * s], axis=1)
    z_im = np.concatenate([y_im[:, :1] << TWIDDLE_BITS, y_im[:, 1:] * c - y_re[:, 1:] * s], axis=1)
    if p == 2:  # the 2-point DFT: sum and difference
        out_re = np.concatenate([z_re[:, 0] + z_re[:, 1], z_re[:, 0] - z_re[:, 1]], axis=1)
        out_im = np.concatenate([z_im[:, 0] + z_im[:, 1], z_im[:, 0] - z_im[:, 1]], axis=1)
        return _rounded_shift(out_re, TWIDDLE_BITS), _rounded_shift(out_im, TWIDDLE_BITS)
    # w_p^(k r), row k: bin k of the p-point DFT
    small = (np.outer(np.arange(p), np.arange(p)) % p) * (len(cos) // p)
    sc, ss = cos[small], sin[small]
    out_re = np.einsum("kr,brm->bkm", sc, z_re) + np.einsum("kr,brm->bkm", ss, z_im)
    out_im = np.einsum("kr,brm->bkm", sc, z_im) - np.einsum("kr,brm->bkm", ss, z_re)
    return (
        _rounded_shift(out_re.reshape(rows, n), 2 * TWIDDLE_BITS),
        _rounded_shift(out_im.reshape(rows, n), 2 * TWIDDLE_BITS),
    )


def _worst_bin_errors(signals: np.ndarray, spectra: np.ndarray, twiddles) -> np.ndarray:
    """For each row x of ``signals`` (long doubles, an even number of rows), the largest |computed - exact| over every
    bin (0 .. n // 2) of its DFT, the computed bins ``spectra``'s row as given (long double), the exact ones from
    _fixed_point_dft.

    Rows a and b (0 and 1, 2 and 3, ...) are transformed as one complex signal a + i b, so one transform serves two
    real rows: with Z its DFT, 2 A[k] = Z[k] + conj(Z[-k]) and 2 B[k] = -i (Z[k] - conj(Z[-k])), sums of integers,
    exact.  Each bin of Z is within _fixed_point_dft's bound times ||a||_1 + ||b||_1, so each of A and B is too:
    against the bound the bins are held to, 8 u_L ceil(log2 n) ||x||_1, below 2^-37 (1 + ||y||_1 / ||x||_1) for x
    paired with y, a millionth at most for the rows of _long_ratio (norms 1 to 0.8 n: 5e4 at 2^16)."""
    n = signals.shape[1]
    scaled = np.array([_as_scaled_integers(x) for x in signals], dtype=object).reshape(
        signals.shape
    )
    z_re, z_im = _fixed_point_dft(scaled[0::2], scaled[1::2], 1, twiddles)
    bins = np.arange(n // 2 + 1)
    mirror = (-bins) % n
    twice_re = np.empty((len(signals), len(bins)), dtype=object)
    twice_im = np.empty_like(twice_re)
    twice_re[0::2] = z_re[:, bins] + z_re[:, mirror]
    twice_im[0::2] = z_im[:, bins] - z_im[:, mirror]
    twice_re[1::2] = z_im[:, bins] + z_im[:, mirror]
    twice_im[1::2] = z_re[:, mirror] - z_re[:, bins]
    worst = []
    for spectrum, re, im in zip(spectra, twice_re, twice_im):
        got_re = np.array(_as_scaled_integers(spectrum.real), dtype=object)
        got_im = np.array(_as_scaled_integers(spectrum.imag), dtype=object)
        d_re = np.array([math.ldexp(float(d), -SCALE_BITS - 1) for d in (2 * got_re - re).tolist()])
        d_im = np.array([math.ldexp(float(d), -SCALE_BITS - 1) for d in (2 * got_im - im).tolist()])
        worst.append(float(np.max(np.hypot(d_re, d_im))))
    return np.array(worst)


def _long_ratio(probe: list[str], mode: str, n: int, tmp_path: Path) -> float:
    """The largest bin error of the probe's long-double transform ``mode`` at length n over _inputs(n) and n + 1
    equal masses (the transform's largest bins), relative to 8 u_L ceil(log2 n) ||x||_1 (its contract)."""
    rng = np.random.default_rng(n)
    signals = np.vstack([_inputs(n, rng), np.full(n, 1.0 / n)]).astype(np.longdouble)
    signals[0] += np.longdouble(1e-3) * rng.random(n).astype(
        np.longdouble
    )  # bits past the double's 53
    spectra = _transform(probe, mode, n, signals, np.clongdouble, tmp_path)
    stages = max(1, math.ceil(math.log2(n)))
    norms = np.sum(np.abs(signals.astype(np.float64)), axis=1)
    return float(
        np.max(_worst_bin_errors(signals, spectra, _twiddles(n)) / (8.0 * U_LONG * stages * norms))
    )


def test_eigen_offers_the_long_double_forward_transform(probe):
    assert (
        subprocess.run([*probe, "offers_long"], capture_output=True, text=True, check=True).stdout
        == "1\n"
    )


@pytest.mark.parametrize("n", LONG_LENGTHS)
def test_eigen_long_double_transform_holds_the_long_double_bound_at_every_bin(probe, n, tmp_path):
    """forward_long: every bin read within 8 u_L ceil(log2 n) ||x||_1 of the exact DFT (the bound the
    composition charges, pld/compose/long_spectrum.hpp)."""
    ratio = _long_ratio(probe, "forward_long", n, tmp_path)
    assert ratio <= 1.0, f"n = {n}: {ratio:.3g} times the bound"


@pytest.mark.parametrize("n", [12, 45 << 5, 3375])
def test_eigen_long_double_transform_keeps_bins_of_the_whole_half_spectrum(probe, n, tmp_path):
    """forward_long keeping bins 0 .. n / 4 of each row gives those bins of the transform that keeps every bin
    (the half spectrum written in place), equal row by row: pld/compose/fft_backend.hpp's promise that a row's bins
    are the same whichever number is kept, on which pld/compose/taylor_reuse.hpp reuses rows."""
    rng = np.random.default_rng(n)
    signals = _inputs(n, rng).astype(np.longdouble)
    signals += np.longdouble(1e-3) * rng.random(signals.shape).astype(np.longdouble)
    whole = _transform(probe, "forward_long", n, signals, np.clongdouble, tmp_path)
    kept = _transform(probe, "forward_long_kept", n, signals, np.clongdouble, tmp_path)
    assert whole.shape == (len(signals), n // 2 + 1) and kept.shape == (len(signals), n // 4 + 1)
    assert np.array_equal(kept, whole[:, : n // 4 + 1])


def test_eigens_own_long_double_transform_misses_the_bound(probe, tmp_path):
    """Eigen 3.4's FFT<long double> takes its twiddles from double cos and sin: ~u accurate, not u_L, so more than
    the bound; the backend's forward_long replaces those twiddles (eigen_long_fft.hpp)."""
    worst = max(_long_ratio(probe, "eigen_long", n, tmp_path) for n in (1 << 10, 45 << 5))
    assert worst > 2.0, f"Eigen's own long-double transform is within {worst:.2f} of the u_L bound"
