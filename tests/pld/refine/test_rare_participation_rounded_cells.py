"""Rare participation's lower side past the aligned cells (the core's aligned_lower.hpp: losses of u =
q (e^z - 1) >= ``ALIGNED_UP_TO``): cells centred on the grid losses' edges, each atom at its grid
loss where the cell's mean x is certified at least that edge (Jensen in x: the loss is convex in
x), else a cell lower.

Held against 50-digit mpmath: each edge's loss is at least its grid loss; a cell certified centred
has a mean x at least its edge (the quadrature of x dP over the cell), and the certificate is not
vacuous (most cells of a real grid pass it).  The read's epsilon stays below an upper side read by
another discretization (the connect-the-dots pessimistic PMF, tilted, on a finer grid) and above the
read with every rounded cell's atom a cell lower."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from hockeystick import _core

from . import aligned_core
from .aligned_core import RareRound, mean_at_least, verified_edges

# past ALIGNED_UP_TO cell k starts this share of the way from x_k down to x_{k-1} (the core's)
CENTRED: float = _core.pld_refine.aligned_centred

POINTS = [(0.5, 1e-4, 2.5e-5, -7.7e-5), (1.0, 1e-5, 5e-5, -3e-7), (2.0, 1e-6, 2.5e-5, 1e-9)]


def loss_50_digits(sigma: float, q: float, x: float) -> mpmath.mpf:
    mpmath.mp.dps = 50
    s, qq = mpmath.mpf(sigma), mpmath.mpf(q)
    return mpmath.log1p(qq * mpmath.expm1((2 * mpmath.mpf(x) - 1) / (2 * s * s)))


def mean_x_50_digits(sigma: float, q: float, a: float, b: float) -> mpmath.mpf:
    """E_P[X | (a, b]], P = (1 - q) N(0, s^2) + q N(1, s^2), by quadrature at 50 digits."""
    mpmath.mp.dps = 50
    s, qq = mpmath.mpf(sigma), mpmath.mpf(q)

    def density(x: mpmath.mpf) -> mpmath.mpf:
        return (1 - qq) * mpmath.npdf(x, 0, s) + qq * mpmath.npdf(x, 1, s)

    ends = [mpmath.mpf(a), mpmath.mpf(b)]
    return mpmath.quad(lambda x: x * density(x), ends) / mpmath.quad(density, ends)


def rounded_region(
    sigma: float, q: float, h: float, offset: float
) -> tuple[np.ndarray, np.ndarray]:
    """Grid indices from u = ALIGNED_UP_TO up ~3 sigma of x, and their verified edges."""
    r = RareRound(sigma, q)
    a = r.at_loss(math.log1p(aligned_core.ALIGNED_UP_TO))
    first = math.floor((r.loss(a) - offset) / h)
    last = math.floor((r.loss(a + 3.0 * sigma) - offset) / h)
    ks = np.arange(first, last + 1)
    return ks, verified_edges(r, ks, offset, h)


@pytest.mark.parametrize("sigma, q, h, offset", POINTS)
def test_each_edges_loss_is_at_least_its_grid_loss(
    sigma: float, q: float, h: float, offset: float
) -> None:
    ks, edges = rounded_region(sigma, q, h, offset)
    for i in np.linspace(0, ks.size - 1, 40).astype(int).tolist():
        grid = mpmath.mpf(offset) + int(ks[i]) * mpmath.mpf(h)
        assert loss_50_digits(sigma, q, float(edges[i])) >= grid
        # and not far above it: about a relative 1e-12 of x past the inverse
        assert loss_50_digits(sigma, q, float(edges[i])) - grid < 1e-3 * h


@pytest.mark.parametrize("sigma, q, h, offset", POINTS)
def test_a_cell_certified_centred_has_its_mean_at_least_its_edge(
    sigma: float, q: float, h: float, offset: float
) -> None:
    _, x = rounded_region(sigma, q, h, offset)
    y = np.maximum(x[1:] - CENTRED * (x[1:] - x[:-1]), x[:-1])
    lo, hi, edge = y[:-1], y[1:], x[1:-1]
    centred = mean_at_least(RareRound(sigma, q), lo, hi, edge)
    assert centred.mean() > 0.9  # the certificate is not vacuous
    for i in np.linspace(0, lo.size - 1, 12).astype(int).tolist():
        if centred[i]:
            assert mean_x_50_digits(sigma, q, float(lo[i]), float(hi[i])) >= edge[i]
    # a cell shifted up by its whole width, its mean far above the edge, is certified too, and one
    # shifted down is not
    width = hi - lo
    assert mean_at_least(RareRound(sigma, q), lo + width, hi + width, edge).all()
    assert not mean_at_least(RareRound(sigma, q), lo - width, hi - width, edge).any()


@pytest.mark.slow
def test_the_read_lies_below_another_discretizations_upper_side_and_above_the_cell_lower_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """sigma 0.5, q 1e-4, 10^6 rounds, delta 1e-12, h 2.5e-5: most of the run's loss past
    ALIGNED_UP_TO under the tilt; its lower side below the pessimistic PMF's tilted upper side on
    the same grid (connect-the-dots, certified) and above the read with every rounded atom a cell
    lower (the same cells, all rounded down)."""
    from hockeystick.pld.question.tilted_question import MAX_POINTS

    from .aligned_reference import aligned_epsilon
    from .tilted_windows import upper_read

    sigma, q, rounds, delta, h = 0.5, 1e-4, 10**6, 1e-12, 2.5e-5
    upper, _ = upper_read((sigma, q, rounds, 1.0), delta, h, 9.6, 9.5, max_points=MAX_POINTS)
    assert math.isfinite(upper)

    def read() -> float:
        return aligned_epsilon(sigma, q, rounds, delta, upper, h, MAX_POINTS)

    centred = read()
    assert centred == aligned_core.aligned_lower_epsilon(
        sigma, q, rounds, delta, upper, h, MAX_POINTS
    )
    built = aligned_core.aligned_pmf
    monkeypatch.setattr(aligned_core, "aligned_pmf", lambda s, q, h: built(s, q, h, centred=False))
    rounded = read()
    assert rounded + 1e-3 < centred <= upper
