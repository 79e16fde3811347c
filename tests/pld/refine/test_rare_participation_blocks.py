"""The block reads (the core's pld/refine/block_reads.hpp and pld/grid/dilation.hpp, through
pld/question/block_reads.py): the split of a fine PMF onto a coarser grid against 50-digit mpmath (P-mass and Q-mass
kept, the curve at least the fine one's everywhere and equal to it at the coarse points), and the blocks' bracket of
many rounds of a small sampling rate against independent certified bounds (the max-of-outputs test below, RDP above)
and the one-round tilted reads where those are tight."""

from __future__ import annotations

import math
import time

import mpmath
import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld.grid.pmf import GridPMF
from hockeystick.pld.question.block_reads import block_bracket
from hockeystick.pld.question.tilted_factors import tilted_factors_bracket
from hockeystick.pld.reads.max_of_outputs import max_of_outputs_epsilon
from hockeystick.pld.refine import question

mpmath.mp.dps = 50


def dilated(fine: GridPMF, ratio: int) -> GridPMF:
    """A pessimistic fine PMF (a composed block, its charges and loss shift included) split onto the
    grid ratio * fine.h by the core (``_core.pld_refine.dilated``, pld/grid/dilation.hpp): a fresh
    pessimistic GridPMF without charges or loss shift, whose curve bounds the fine one's true curve
    from above at every eps.

    Raises
    ------
    ValueError
        If ``fine`` is optimistic, carries a shift, or its loss shift is negative or not finite.
    """
    if not fine.pessimistic or fine.shift != 0.0:
        raise ValueError(
            "dilated: the fine PMF must be pessimistic (an upper side) without a constant shift"
        )
    out = _core.pld_refine.dilated(
        np.ascontiguousarray(fine.p, dtype=np.float64),
        k_lo=int(fine.k_lo),
        h=float(fine.h),
        p_inf=float(fine.p_inf),
        entry_error=float(fine.entry_error),
        loss_shift=float(fine.loss_shift),
        ratio=int(ratio),
    )
    return GridPMF(int(out.k_lo), float(out.h), np.array(out.p), float(out.p_inf), 0.0, True)


def grids(point: tuple[float, float, float, float], tail: float) -> tuple[float, float]:
    """The fine grid h_f = 2^k and the coarse grid of the blocks of ``point`` (sigma, q, rounds,
    sensitivity) at ``tail`` (the core's ``block_grids``).

    Raises
    ------
    ValueError
        Where one round's loss span does not fit the fine grid (a small sigma reaches far in loss).
    """
    sigma, q, _, sensitivity = point
    fine, coarse = _core.pld_refine.block_grids(
        float(sigma), sampling_rate=float(q), sensitivity=float(sensitivity), tail=float(tail)
    )
    return float(fine), float(coarse)


def curve(k_lo: int, h: float, p, eps: float, p_inf: float = 0.0):
    e = mpmath.mpf(eps)
    total = mpmath.mpf(p_inf)
    for i, m in enumerate(p):
        loss = mpmath.mpf(k_lo + i) * mpmath.mpf(h)
        if loss > e:
            total += mpmath.mpf(float(m)) * (1 - mpmath.exp(e - loss))
    return total


@pytest.mark.parametrize("ratio, shift", [(4, 0.0), (8, 3e-9), (1, 0.0)])
def test_split_keeps_both_masses_and_dominates_the_fine_curve(ratio, shift):
    rng = np.random.default_rng(ratio)
    p = rng.random(37) * 0.02
    fine = GridPMF(-9, 0.01, p, 1e-6, 0.0, True, loss_shift=shift, entry_error=1e-12)
    coarse = dilated(fine, ratio)
    assert coarse.h == pytest.approx(ratio * 0.01, rel=1e-15)
    raised = [
        mpmath.mpf(float(m)) + mpmath.mpf(1e-12) for m in p
    ]  # each fine mass plus its round-off bound
    fine_losses = [
        (mpmath.mpf(-9 + i) * mpmath.mpf(0.01) + mpmath.mpf(shift)) for i in range(p.size)
    ]
    p_mass = mpmath.fsum(raised)
    q_mass = mpmath.fsum(m * mpmath.exp(-loss) for m, loss in zip(raised, fine_losses))
    c_losses = [mpmath.mpf(coarse.k_lo + i) * mpmath.mpf(coarse.h) for i in range(coarse.p.size)]
    c_p = mpmath.fsum(mpmath.mpf(float(m)) for m in coarse.p)
    c_q = mpmath.fsum(
        mpmath.mpf(float(m)) * mpmath.exp(-loss) for m, loss in zip(coarse.p, c_losses)
    )
    assert c_p >= p_mass and c_p - p_mass <= 1e-13 * p_mass  # rounded up, by a few ulps
    assert c_q >= q_mass * (1 - mpmath.mpf(1e-15)) and c_q - q_mass <= 1e-13 * q_mass
    assert coarse.p_inf >= fine.p_inf
    for eps in np.linspace(-0.2, 0.35, 23):
        fine_curve = mpmath.fsum(
            m * (1 - mpmath.exp(mpmath.mpf(eps) - loss))
            for m, loss in zip(raised, fine_losses)
            if loss > eps
        )
        assert curve(coarse.k_lo, coarse.h, coarse.p, eps) >= fine_curve * (1 - mpmath.mpf(1e-14))
    for i in range(
        coarse.p.size
    ):  # at the coarse points the split is exact (up to its rounding up)
        eps = (coarse.k_lo + i) * coarse.h
        fine_curve = mpmath.fsum(
            m * (1 - mpmath.exp(mpmath.mpf(eps) - loss))
            for m, loss in zip(raised, fine_losses)
            if loss > eps
        )
        assert (
            curve(coarse.k_lo, coarse.h, coarse.p, eps)
            <= fine_curve * (1 + mpmath.mpf(1e-12)) + 1e-30
        )


def test_split_refuses_an_optimistic_pmf():
    with pytest.raises(ValueError, match="pessimistic"):
        dilated(GridPMF(0, 0.01, np.ones(3) / 3, 0.0, 0.0, False), 4)


def test_grids_refuse_a_round_too_long_for_the_fine_grid():
    with pytest.raises(ValueError, match="spans"):
        grids((0.5, 1e-6, 1e8, 1.0), 1e-26)
    fine, coarse = grids((2.0, 1e-6, 1e8, 1.0), 1e-26)
    assert fine <= 1e-6 / 256 and coarse == 1024 * fine


@pytest.mark.parametrize(
    "sigma, q, rounds, delta",
    [(2.0, 1e-6, 10**8, 1e-8), (2.0, 1e-6, 10**6, 1e-12), (2.0, 1e-6, 10**8, 1e-12)],
)
def test_blocks_bracket_many_rounds_of_a_small_rate_within_the_tolerance(sigma, q, rounds, delta):
    segments = [((sigma, q, 1.0), rounds)]
    tail = question.question_tail(rounds, delta, question.TILTED_TAIL_SHARE)
    start = time.process_time()
    lower, upper = block_bracket(segments, delta, 1e-9, math.inf, tail)
    spent = time.process_time() - start
    assert question.within_tolerance(np.array(lower), np.array(upper))
    assert max_of_outputs_epsilon(segments, delta) <= upper
    assert upper <= float(question.rdp_upper((sigma, q, float(rounds), 1.0), np.array([delta]))[0])
    assert spent < 30.0  # a generous guard (about half a CPU second each)


def test_blocks_overlap_the_one_round_reads_where_those_are_tight():
    """sigma 2, q 2e-4, 5 10^4 rounds, delta 1e-8: the one-round tilted reads meet the tolerance; the blocks' bracket
    (read on its own fine and coarse grids) overlaps theirs and is as narrow."""
    segments, delta = [((2.0, 2e-4, 1.0), 5 * 10**4)], 1e-8
    one_round = tilted_factors_bracket(segments, delta, 0.0, math.inf, fine=False)
    tail = question.question_tail(5 * 10**4, delta, question.TILTED_TAIL_SHARE)
    blocks = block_bracket(segments, delta, 1e-9, math.inf, tail)
    assert question.within_tolerance(np.array(one_round[0]), np.array(one_round[1]))
    assert blocks[0] <= one_round[1] and one_round[0] <= blocks[1]
    assert question.within_tolerance(np.array(blocks[0]), np.array(blocks[1]))
