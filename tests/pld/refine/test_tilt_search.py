"""The tilt search's coarse scores (pld/refine/tilt_search.py's ``coarse_scores``): a tilt
skipped scores below the best, so the search picks the tilt the whole ladder's scores pick, against
every tilt evaluated by ``GridPMF.log_mgf`` directly."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick.pld.grid.pmf import GridPMF
from hockeystick.pld.refine.tilt_search import COARSE_STEP, LAMBDAS, coarse_scores
from hockeystick.pld.refine.tilted_question import (
    ROUND_OFF_PER_ROUND,
    exponent_tilt,
    one_direction,
)

from .read_tail import delta_tilt

# rounds of Poisson-subsampled Gaussians (sigma, q, T), one direction on a grid coarse enough to
# keep the PMFs small: few-rounds, many-rounds and rare-participation shapes of the log-moment
RUNS = [(0.6, 0.01, 1000), (3.0, 0.01, 1000), (1.0, 1e-3, 5000), (2.0, 0.5, 5), (0.6, 1e-5, 10**6)]
H = 2e-3


def _pmf(sigma: float, q: float, direction: str) -> GridPMF:
    factor = one_direction((sigma, q, 1.0), direction, H, 1e-20, False)  # type: ignore[arg-type]
    return factor.upper


def _scores(pmf: GridPMF, rounds: int, kind: str, at: float) -> np.ndarray:
    """The score at every tilt of ``LAMBDAS``, K from one direct call."""
    with np.errstate(over="ignore", invalid="ignore"):
        k = rounds * pmf.log_mgf(LAMBDAS)
        if kind == "exponent":
            return LAMBDAS * at - k
        ratio = -math.log(at) if kind == "delta" else math.log(ROUND_OFF_PER_ROUND * rounds / at)
        return -(k + ratio) / LAMBDAS


def _ladder_best(scores: np.ndarray) -> float:
    """The search's rule on the whole ladder's scores: the best of every ``COARSE_STEP``-th
    tilt, then the best between its neighbours (the first where several tie)."""
    coarse = scores[::COARSE_STEP]
    best = int(np.argmax(np.where(np.isfinite(coarse), coarse, -np.inf))) * COARSE_STEP
    near = slice(max(0, best - COARSE_STEP + 1), best + COARSE_STEP)
    fine = scores[near]
    return float(LAMBDAS[near][int(np.argmax(np.where(np.isfinite(fine), fine, -np.inf)))])


@pytest.mark.parametrize("sigma, q, rounds", RUNS)
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_the_search_picks_the_tilt_of_the_whole_ladder(sigma, q, rounds, direction):
    pmf = _pmf(sigma, q, direction)
    for eps in (0.05, 0.5, 2.0, 8.0):
        assert exponent_tilt(pmf, rounds, eps) == _ladder_best(
            _scores(pmf, rounds, "exponent", eps)
        )
    for delta in (1e-3, 1e-8, 1e-14):
        assert delta_tilt(pmf, rounds, delta) == _ladder_best(_scores(pmf, rounds, "delta", delta))


@pytest.mark.parametrize("sigma, q, rounds", RUNS[:3])
def test_a_tilt_skipped_scores_below_the_best_and_most_are_skipped(sigma, q, rounds):
    pmf = _pmf(sigma, q, "remove")
    every = LAMBDAS[::COARSE_STEP]
    for eps in (0.1, 1.0, 4.0):
        found = coarse_scores(pmf, rounds, lambda lam, k: lam * eps - k, every)
        whole = _scores(pmf, rounds, "exponent", eps)[::COARSE_STEP]
        skipped = np.isneginf(found) & np.isfinite(whole)
        kept = ~np.isneginf(found)
        assert np.array_equal(found[kept], whole[kept])  # the scores evaluated, bit for bit
        assert np.all(whole[skipped] < np.max(whole[np.isfinite(whole)]))
        assert skipped.sum() >= every.size // 2  # the search skips, not only evaluates


def test_a_point_mass_whose_moment_is_a_line_reads_every_tilt_it_needs():
    # K(lam) = lam l exactly: the secants are the line itself, the scores lam (eps - T l) - the
    # best at the ladder's top where eps > T l, its bottom where below
    point = GridPMF(3, 1e-3, np.array([1.0]), 0.0, 0.0, True)
    for eps in (0.5, 5.0):
        assert exponent_tilt(point, 100, eps) == _ladder_best(_scores(point, 100, "exponent", eps))


def test_a_ladder_that_is_not_increasing_is_refused():
    pmf = GridPMF(3, 1e-3, np.array([0.5, 0.5]), 0.0, 0.0, True)
    with pytest.raises(ValueError, match="lams must be increasing"):
        coarse_scores(pmf, 10, lambda lam, k: lam - k, np.array([2.0, 1.0]))
    with pytest.raises(ValueError, match="rounds must be > 0"):
        coarse_scores(pmf, 0, lambda lam, k: lam - k, np.array([1.0, 2.0]))
