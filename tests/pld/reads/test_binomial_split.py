"""The binomial split (``_core.pld_reads.BinomialSplit``, pld/reads/binomial_split.hpp) against the exact composition
of dyadic rounds (integers, then mpmath at 50 digits: tests/pld/compose/test_pld_tilted_composition.py's
``exact_curve``): each side on its side of the exact curve and within 1 % of it where the plain composition's charge
hides it, and its refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick import _core, pld
from hockeystick.pld.compose import fft
from hockeystick.pld.grid.pmf import GridPMF

from ..compose.test_pld_tilted_composition import BITS, ROUNDS, H, exact_curve, grid_pmf

# a round whose loss passes 0 rarely (24 / 1024 of its mass): 10 rounds read by the binomial split above 0.3
K_LO_RARE = -2
NUMERATORS_RARE = [500, 500, 20, 3, 1]  # sum 1024: losses -0.1 .. 0.1
ROUNDS_RARE = 10


def split(segments, floor, negligible=1e-40, tail=1e-40, **limits) -> _core.pld_reads.BinomialSplit:
    return _core.pld_reads.BinomialSplit(
        segments,
        floor=floor,
        negligible=negligible,
        tail=tail,
        max_points=fft.DEFAULT_MAX_POINTS,
        **limits,
    )


@pytest.mark.parametrize("pessimistic", [True, False])
def test_binomial_split_bounds_the_exact_curve_to_a_relative_round_off(pessimistic):
    """Each side of the split read against the exact composition: on its side of the exact delta at every eps above
    the floor, and within 1 % of it down to delta 3e-23 (eps 0.6), where the plain composition's charges, relative to
    the whole mass (1e-13), put it at least the exact delta away; each term's charges are relative to its own mass
    instead.  Its epsilon at delta 1e-18 on the right side of the exact one."""
    exact = exact_curve([(K_LO_RARE, NUMERATORS_RARE, ROUNDS_RARE)])
    pmf = grid_pmf(pessimistic, K_LO_RARE, NUMERATORS_RARE)
    read = split([(pmf, ROUNDS_RARE)], 0.3)
    plain = fft.compose([(pmf, ROUNDS_RARE)], pessimistic=pessimistic)
    for eps in (0.3, 0.45, 0.6, 0.8):
        truth, found = exact(eps), read.delta(eps)
        assert (found >= truth) if pessimistic else (found <= truth)
        if eps <= 0.6:
            assert abs(found - truth) <= 1e-2 * truth
            assert abs(float(plain.delta(np.array(eps))) - truth) >= truth
    eps = read.epsilon(1e-18, 1.0)  # in (0.3, 0.45)
    assert 0.3 < eps < 0.45
    assert (exact(eps) <= 1e-18) if pessimistic else (exact(eps) > 1e-18)


@pytest.mark.parametrize("pessimistic", [True, False])
def test_one_round_is_its_part_above_the_split(pessimistic):
    """T = 1: the one term is the round's part above the split, scaled back by its mass (no composition, no charge),
    so each side is the exact curve of the round to the rounding of its scale and sum (a few ulps), on its side."""
    exact = exact_curve([(K_LO_RARE, NUMERATORS_RARE, 1)])
    read = split([(grid_pmf(pessimistic, K_LO_RARE, NUMERATORS_RARE), 1)], 0.04)
    assert len(read.scales) == 1
    for eps in (0.04, 0.05, 0.07, 0.099):
        truth, found = exact(eps), read.delta(eps)
        assert (found >= truth) if pessimistic else (found <= truth)
        assert abs(found - truth) <= 1e-14 * truth


@pytest.mark.parametrize("pessimistic", [True, False])
def test_a_loss_shift_moves_the_read_outward(pessimistic):
    """Rounds whose losses may lie s = 0.004 from the grid's: the T-round curve is read at eps - T s (upper side) or
    eps + T s (lower side), so it bounds the exact curve of the grid's losses moved there, within 1 % of it."""
    s = 0.004
    exact = exact_curve([(K_LO_RARE, NUMERATORS_RARE, ROUNDS_RARE)])
    base = grid_pmf(pessimistic, K_LO_RARE, NUMERATORS_RARE)
    pmf = GridPMF(base.k_lo, base.h, base.p, 0.0, pessimistic=pessimistic, loss_shift=s)
    read = split([(pmf, ROUNDS_RARE)], 0.3)
    moved = -ROUNDS_RARE * s if pessimistic else ROUNDS_RARE * s
    for eps in (0.35, 0.45, 0.55):
        truth, found = exact(eps + moved), read.delta(eps)
        assert (found >= truth) if pessimistic else (found <= truth)
        assert abs(found - truth) <= 1e-2 * truth


def test_binomial_split_refuses_what_it_does_not_read():
    """Charges already on the PMF, rounds on two grids or sides, fewer than one round, nothing at or below the split,
    a floor that is no epsilon > 0, more than the most terms above negligible; the pessimistic side below the floor
    is 1 (the term j = 0 is not known to vanish there)."""
    pmf = grid_pmf(True, K_LO_RARE, NUMERATORS_RARE)
    charged = GridPMF(K_LO_RARE, H, pmf.p, 0.0, pessimistic=True, total_error=1e-16)
    with pytest.raises(ValueError, match="no charges"):
        split([(charged, ROUNDS_RARE)], 0.3)
    other_grid = GridPMF(K_LO_RARE, 2 * H, pmf.p, 0.0, pessimistic=True)
    for other in (other_grid, grid_pmf(False, K_LO_RARE, NUMERATORS_RARE)):
        with pytest.raises(ValueError, match="one grid and one side"):
            split([(pmf, ROUNDS_RARE), (other, ROUNDS_RARE)], 0.3)
    with pytest.raises(ValueError, match="rounds must be >= 1"):
        split([(pmf, 0)], 0.3)
    with pytest.raises(ValueError, match="at or below"):
        split([(grid_pmf(True, 3, NUMERATORS_RARE), ROUNDS_RARE)], 0.3)  # losses from 0.15
    for floor in (-2.0, 0.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="floor"):
            split([(pmf, ROUNDS_RARE)], floor)
    with pytest.raises(ValueError, match="terms"):
        split([(grid_pmf(True), ROUNDS)], 0.5)
    assert split([(pmf, ROUNDS_RARE)], 0.3).delta(0.25) == 1.0


def test_binomial_split_refuses_terms_spanning_more_than_its_budget():
    """The terms' spans (factor points times counts) summed against the budget: the rare-loss rounds' 10 terms span
    sum_j 2 (10 - j) + 3 j = 255 points, refused under a budget of 254, read under 255 and the default one."""
    pmf = grid_pmf(True, K_LO_RARE, NUMERATORS_RARE)
    assert len(split([(pmf, ROUNDS_RARE)], 0.3).scales) == 10
    split([(pmf, ROUNDS_RARE)], 0.3, max_span_points=255)
    with pytest.raises(ValueError, match="span 255 grid points"):
        split([(pmf, ROUNDS_RARE)], 0.3, max_span_points=254)


@pytest.mark.parametrize("pessimistic", [True, False])
def test_binomial_split_of_two_kinds_of_rounds_bounds_the_exact_curve(pessimistic):
    """Two segments (4 rounds of each of two rare-loss PMFs) split at floor / 8 each: on its side of the exact
    delta of their composition and within 1 % of it, where the terms are products over the segments (24 of them)."""
    other = [600, 400, 15, 6, 3]  # sum 1024: losses -0.1 .. 0.1
    exact = exact_curve([(K_LO_RARE, NUMERATORS_RARE, 4), (K_LO_RARE, other, 4)])
    segments = [
        (grid_pmf(pessimistic, K_LO_RARE, NUMERATORS_RARE), 4),
        (grid_pmf(pessimistic, K_LO_RARE, other), 4),
    ]
    read = split(segments, 0.3)
    assert len(read.scales) == 24
    for eps in (0.3, 0.4, 0.5):
        truth, found = exact(eps), read.delta(eps)
        assert (found >= truth) if pessimistic else (found <= truth)
        assert abs(found - truth) <= 1e-2 * truth


@pytest.mark.parametrize("pessimistic", [True, False])
def test_binomial_split_at_the_edges_of_its_arguments(pessimistic):
    """A floor of 1e308 (every loss below the split: the terms j != 0 are none, the curve its mass at +infinity,
    on the safe side of the exact 0) and subnormal negligible and tail deltas (every term kept, windows at the
    smallest tail) stay on their side of the exact curve."""
    exact = exact_curve([(K_LO_RARE, NUMERATORS_RARE, ROUNDS_RARE)])
    pmf = grid_pmf(pessimistic, K_LO_RARE, NUMERATORS_RARE)
    far = split([(pmf, ROUNDS_RARE)], 1e308)
    assert far.delta(1e308) == 0.0 and exact(1e308) == 0
    tiny = split([(pmf, ROUNDS_RARE)], 0.3, 5e-324, 5e-324)
    for eps in (0.3, 0.45):
        truth, found = exact(eps), tiny.delta(eps)
        assert (found >= truth) if pessimistic else (found <= truth)


def test_a_split_every_term_of_which_reaches_negligible_is_refused_not_overflowed():
    """sigma 0.3, q 1e-7, 10^4 rounds split at epsilon 100 with negligible 0 (a delta of 5e-324 times the tilted
    share): every term reaches it, so past the most terms the split refuses, as its terms' count would, before
    C(10^4, j) passes the double range (j ~ 133); the split's reader then keeps the bracket before it."""
    one_round = pld.subsampled_gaussian(0.3, 1e-7, value_discretization_interval=1e-3)
    factor = next(iter(one_round.directions[0]))
    with pytest.raises(ValueError, match=f"more than {_core.pld_reads.split_max_terms} terms"):
        split([(factor.upper, 10_000)], 100.0, 0.0)


@pytest.mark.parametrize("pessimistic", [True, False])
def test_a_scale_is_rounded_outward_by_its_units(pessimistic):
    """One round split below loss 0: its one term's scale is C(1, 1) m, m = 24 / 1024 exactly, moved outward by (3 j +
    4) u = 7 u; nothing is left out and nothing lies at +infinity, so the pessimistic side's rest is 0."""
    read = split([(grid_pmf(pessimistic, K_LO_RARE, NUMERATORS_RARE), 1)], 0.04)
    outward = 1.0 if pessimistic else -1.0
    assert read.scales == [24 / 2.0**BITS * (1.0 + outward * 7 * 2.0**-53)]
    assert read.rest == 0.0
