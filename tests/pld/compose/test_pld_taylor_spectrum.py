"""Band bins from block moments (pld/compose/taylor_spectrum.hpp) against exact DFT values and the long-double transform."""

import mpmath
import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick import _core


def _exact_bin(p: np.ndarray, m: int, k: int) -> complex:
    """X_k = sum_j p_j e^{-2 pi i j k / m} at 40 digits."""
    with mpmath.workdps(40):
        total = mpmath.mpc(0)
        for j in np.flatnonzero(p):
            total += mpmath.mpf(float(p[j])) * mpmath.expjpi(-2 * mpmath.mpf(int(j) * k % m) / m)
        return total


@pytest.mark.parametrize(
    "sigma, q, h, m, keep",
    [
        (0.7, 3e-3, 2e-3, 2**16, 40),  # n ~ 3000 << m: many rounds' band
        (2.0, 0.02, 5e-3, 9 * 2**11, 24),
        (0.5, 0.1, 1e-2, 5 * 2**12, 60),  # n comparable to m
    ],
)
def test_taylor_bins_hold_their_bound(sigma, q, h, m, keep):
    p = next(
        iter(pld.subsampled_gaussian(sigma, q, value_discretization_interval=h).directions[0])
    ).upper.p
    values, (block, length, terms, reach), bound, bound_double = _core.pld_compose.taylor_bins(
        p, m=m, keep=keep
    )
    assert block * length == m and block >= 16 and keep <= length // 2 + 1 and reach <= 0.25
    assert bound <= bound_double < 1e-15 * p.sum()
    for k in sorted({0, 1, keep // 2, keep - 1}):
        exact = _exact_bin(p, m, k)
        got = mpmath.mpc(
            float(values[k].real), float(values[k].imag)
        )  # within u of the long-double value
        assert abs(got - exact) <= bound_double, (k, abs(got - exact), bound_double)
    long_values, long_bound, _ = _core.pld_compose.long_fft_bins(p, m=m)
    assert np.all(np.abs((values - long_values[:keep]).astype(np.complex128)) <= bound + long_bound)


def test_taylor_bins_refuse_a_band_no_block_fits():
    p = np.full(100, 0.01)
    with pytest.raises(ValueError, match="no block"):
        _core.pld_compose.taylor_bins(
            p, m=1000, keep=400
        )  # a wide band: no block of 16 within reach
    with pytest.raises(ValueError, match="keep"):
        _core.pld_compose.taylor_bins(p, m=1024, keep=0)


@pytest.mark.parametrize(
    "p",
    [
        np.r_[np.zeros(40), 1.0, np.zeros(40)],  # one atom: |X_k| = 1 at every bin
        np.full(300, 5e-324),  # subnormal masses
        np.r_[1.0 - 1e-12, np.full(2000, 5e-16)],  # a unit atom beside a long faint tail
    ],
)
def test_taylor_bins_at_the_edges_of_their_masses(p):
    m, keep = 2**14, 8
    values, plan, bound, bound_double = _core.pld_compose.taylor_bins(p, m=m, keep=keep)
    assert np.isfinite(bound) and bound > 0.0
    for k in range(keep):
        exact = _exact_bin(p, m, k)
        got = mpmath.mpc(float(values[k].real), float(values[k].imag))
        assert abs(got - exact) <= bound_double, (k, abs(got - exact), bound_double)


def _in_fresh_thread(calls):
    """``taylor_bins`` of each (p, m, keep) in ``calls``, in order, on a new thread: its band reuse cache
    (pld/compose/taylor_reuse.hpp, one per thread) starts empty."""
    import threading

    out = []
    worker = threading.Thread(
        target=lambda: out.extend(
            _core.pld_compose.taylor_bins(p, m=m, keep=keep)[0] for p, m, keep in calls
        )
    )
    worker.start()
    worker.join()
    return out


def test_taylor_bins_reused_are_the_bits_computed_afresh():
    """Bands of one factor asked in sequence (fewer terms and bins after more, more after fewer, another length
    of the same block, other masses in between, more factors than the cache keeps) give, bit for bit, what each
    gives computed alone on a thread that never computed another."""
    p = next(
        iter(pld.subsampled_gaussian(0.7, 3e-3, value_discretization_interval=2e-3).directions[0])
    ).upper.p
    nudged = p.copy()
    nudged[np.argmax(p)] *= 1.0 + 1e-9  # another factor, of the same size
    others = [np.roll(p, s) for s in (1, 2, 3, 4)]
    m = 2**16
    # keep 40 and 30 share the block (64) at different terms; 2^17 the block at another length
    sequence = [(p, m, 40), (p, m, 30), (nudged, m, 30), (p, m, 40), (p, 2**17, 60), (p, m, 20)]
    sequence += [(o, m, 40) for o in others] + [(p, m, 30), (p, m, 40)]
    reused = _in_fresh_thread(sequence)
    for (q, mq, keep), got in zip(sequence, reused):
        alone = _in_fresh_thread([(q, mq, keep)])[0]
        assert got.dtype == alone.dtype == np.clongdouble
        assert np.array_equal(got, alone), (mq, keep)
    # the nudged masses are not served the original's band
    assert not np.array_equal(reused[1], reused[2])
