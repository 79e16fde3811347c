"""The aligned cells' lower PMF as the core builds it (cpp/include/hockeystick/pld/refine/aligned_lower.hpp through
``_core.pld_refine``, read here through ``aligned_core``).

Held against 30-digit mpmath: one round's PMF has its mean loss at most the round's (every atom at most its
cell's conditional mean: Jensen) and within a small share of a grid step of it (a PMF rounded down a cell per round
is a half step below), and its mass at most 1 and close to it.  The centring certificate is worth something (the
PMF with every rounded cell a step lower has a lower mean), the core's constants are the front end's, the reads
do not depend on the thread count, and bad input is refused with a ValueError naming the argument."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from hockeystick import _core

from .aligned_core import RareRound, aligned_pmf, cells, mean_at_least


def mean_loss_30_digits(sigma: float, q: float) -> mpmath.mpf:
    """E_P[log(1 + q (e^z - 1))], P = (1 - q) N(0, s^2) + q N(1, s^2), z = (2 x - 1) / (2 s^2), by mpmath's
    quadrature at 30 digits (the line split where the loss and the density turn).  In the cases tested the PMF's
    mean lies 1.4e-4 to 5.3e-4 of the mean loss below it, and these quadratures agree with 50-digit ones to 5e-28
    relative: each comparison is decided far above the reference's own error."""
    with mpmath.workdps(30):
        s, qq = mpmath.mpf(sigma), mpmath.mpf(q)

        def integrand(x: mpmath.mpf) -> mpmath.mpf:
            density = (1 - qq) * mpmath.npdf(x, 0, s) + qq * mpmath.npdf(x, 1, s)
            return mpmath.log1p(qq * mpmath.expm1((2 * x - 1) / (2 * s * s))) * density

        ends = [
            -mpmath.inf,
            -4 * s,
            -s,
            0,
            mpmath.mpf(0.5),
            1,
            1 + s,
            1 + 4 * s,
            1 + 12 * s,
            mpmath.inf,
        ]
        return mpmath.quad(integrand, ends)


def pmf_mean(pmf, offset: float) -> float:
    """sum_k p_k (offset + k h), summed correctly rounded (its roundings far below the gaps tested)."""
    k = pmf.k_lo + np.arange(pmf.p.size)
    return math.fsum((pmf.p * (offset + k * pmf.h)).tolist())


@pytest.mark.parametrize(
    ("sigma", "q", "h"), [(0.6, 1e-5, 2.5e-5), (0.5, 1e-4, 5e-5), (2.0, 1e-6, 2.5e-5)]
)
def test_one_rounds_pmf_has_its_mean_loss_at_most_the_rounds_and_close_to_it(sigma, q, h):
    pmf, offset = aligned_pmf(sigma, q, h)
    exact = mean_loss_30_digits(sigma, q)
    mean = pmf_mean(pmf, offset)
    assert mean <= exact  # each atom at most its cell's conditional mean
    # far closer than rounding down a cell per round, which loses ~h / 2 of mean loss a round
    assert float(exact) - mean < 1e-3 * h
    assert 1.0 - 1e-9 < float(np.sum(pmf.p)) <= 1.0


def test_the_centring_certificate_raises_the_pmf():
    """Past u = ALIGNED_UP_TO each cell's atom is its grid loss where its mean x is certified at least the edge, a
    step lower elsewhere: with none certified the PMF's mean falls (sigma 0.5, q 1e-4, where most of the run's loss
    under the tilt lies past ALIGNED_UP_TO)."""
    pmf, offset = aligned_pmf(0.5, 1e-4, 2.5e-5)
    rounded, rounded_offset = aligned_pmf(0.5, 1e-4, 2.5e-5, centred=False)
    assert rounded_offset == offset and rounded.k_lo <= pmf.k_lo
    assert pmf_mean(rounded, offset) < pmf_mean(pmf, offset)
    # the same cells: the masses agree in sum
    assert math.isclose(float(np.sum(rounded.p)), float(np.sum(pmf.p)), rel_tol=1e-14)


def test_the_cell_reads_do_not_depend_on_the_thread_count():
    rng = np.random.default_rng(7)
    lo = rng.uniform(-5.0, 5.0, 3000)
    hi = lo + rng.uniform(0.0, 0.5, 3000)
    one = _core.pld_refine.aligned_cell(sigma=0.6, sampling_rate=1e-5, lo=lo, hi=hi, threads=1)
    two = _core.pld_refine.aligned_cell(sigma=0.6, sampling_rate=1e-5, lo=lo, hi=hi, threads=2)
    for a, b in zip(one, two, strict=True):
        assert np.array_equal(a, b)
    r = RareRound(0.6, 1e-5)
    assert cells(r, lo[:3], hi[:3])[2].tolist() == [r.cell(a, b)[2] for a, b in zip(lo[:3], hi[:3])]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0.0, 1e-5, 1e-4), "sigma must be finite and > 0"),
        ((math.inf, 1e-5, 1e-4), "sigma must be finite and > 0"),
        ((0.6, 0.0, 1e-4), "sampling_rate must lie strictly between 0 and 1"),
        ((0.6, 1.0, 1e-4), "sampling_rate must lie strictly between 0 and 1"),
        ((0.6, 1e-5, 0.0), "interval must be finite and > 0"),
        ((0.6, 1e-5, math.nan), "interval must be finite and > 0"),
    ],
)
def test_bad_input_names_the_argument_and_the_rule(args, message):
    with pytest.raises(ValueError, match=message):
        aligned_pmf(*args)


def test_the_bindings_refuse_what_the_core_cannot_read():
    core = _core.pld_refine
    with pytest.raises(ValueError, match="sampling_rate must lie strictly between 0 and 1"):
        core.aligned_pmf(sigma=0.6, sampling_rate=1.5, interval=1e-4)
    with pytest.raises(ValueError, match="interval must be finite and > 0"):
        core.aligned_pmf(sigma=0.6, sampling_rate=1e-5, interval=-1.0)
    with pytest.raises(ValueError, match="lo must not be NaN"):
        core.aligned_cell(
            sigma=0.6, sampling_rate=1e-5, lo=np.array([math.nan]), hi=np.array([1.0])
        )
    with pytest.raises(ValueError, match="lo and hi must be arrays of one shape"):
        core.aligned_cell(sigma=0.6, sampling_rate=1e-5, lo=np.zeros(2), hi=np.zeros(3))
    with pytest.raises(ValueError, match="k must hold integers"):
        core.aligned_verified_edges(
            sigma=0.6, sampling_rate=1e-5, k=np.array([0.5]), offset=0.0, interval=1e-4
        )
    with pytest.raises(ValueError, match="must not be NaN"):
        mean_at_least(RareRound(0.6, 1e-5), np.array([1.0]), np.array([math.nan]), np.array([1.0]))
