"""accuracy= refinement of SubsampledGaussianPLD: brackets of several grids intersected, hopeless steps skipped.

At small delta the bracket of a finer grid can be wider (the round-off charge of its larger window
dominates), so the refinement keeps, per argument, the intersection of every grid's certified
bracket, and stops building finer grids for arguments whose width no grid brings within tolerance.
Both are checked against fixed-grid evaluations (each certified, so every bracket must overlap them).
"""

from __future__ import annotations

import numpy as np

import hockeystick.pld as pld
from hockeystick.pld.refine import round_cache
from hockeystick.pld.refine.grid_start import StartGrid

from ..lower_envelope_reference import enveloped

EPS = np.linspace(0.5, 10.0, 20)
SIGMA, Q = 1.012, 1.27e-3


def _fixed(rounds: float, h: float) -> tuple[np.ndarray, np.ndarray]:
    return pld.SubsampledGaussianPLD(
        sigma=SIGMA, sampling_rate=Q, rounds=rounds, value_discretization_interval=h
    ).delta(EPS, bound="both")


def _windows(rounds: float, h: float) -> tuple[np.ndarray, np.ndarray]:
    """The bracket of grid h read from the composed windows, as the refinement reads its grids (a fixed grid's
    upper side reads the spectra instead, which is lower by up to the inverse transform's charge)."""
    return (
        pld.subsampled_gaussian(SIGMA, Q, value_discretization_interval=h)
        .self_compose(int(rounds))
        .delta(EPS, bound="both", composition_only=True)
    )


def test_refined_bracket_is_no_wider_than_its_start_grid_and_overlaps_fine_grids():
    acc = pld.SubsampledGaussianPLD(sigma=SIGMA, sampling_rate=Q, rounds=7197, accuracy=1e-2)
    lo, up = acc.delta(EPS, bound="both")
    start = StartGrid(acc.accuracy, acc.delta_accuracy).first((SIGMA, Q, 7197.0, 1.0), EPS, "delta")
    s_lo, s_up = _windows(7197, start)
    assert np.all(lo >= s_lo) and np.all(
        up <= s_up
    )  # the start grid's bracket, narrowed where others help
    assert np.all(lo <= _fixed(7197, start)[1])
    for h in (8e-5, 1e-5):
        f_lo, f_up = _fixed(7197, h)
        assert np.all(lo <= f_up) and np.all(f_lo <= up), h
    # at eps = 1 (delta ~ 3e-11) the finest grid's composition is wider than the refined bracket
    # (a grid given reads the default's bracket too where its composition cannot answer:
    # ``default_reads.grid_sides``)
    f_lo, f_up = _windows(7197, 1e-5)
    assert (up[1] - lo[1]) < (f_up[1] - f_lo[1])


def test_refinement_stops_where_the_width_is_set_by_charges(visited_grids):
    """26 827 rounds: eps = 1.5-2.5 (delta ~ 1e-10) stay ~0.5 wide from h = 8e-5 to 1e-5; no 1e-5 grid is built."""
    lo, up = pld.SubsampledGaussianPLD(
        sigma=SIGMA, sampling_rate=Q, rounds=26827, accuracy=1e-2
    ).delta(EPS, bound="both")
    assert visited_grids and min(visited_grids) > 2e-5, visited_grids
    f_lo, f_up = _fixed(26827, 1e-5)
    assert np.all(lo <= f_up) and np.all(f_lo <= up)
    clear = up >= 1e-8
    assert clear.any() and np.all((up - lo)[clear] <= 1e-2 * up[clear])


def _optimistic_pmfs():

    for s, q, t, h in (
        (0.5, 1e-4, 1000, 2e-5),
        (SIGMA, Q, 8685, 4.53e-4),
        (0.6, 0.1, 10_000, 1e-3),
    ):
        yield from (
            round_cache.discretized([(s, q, 1.0)], h, 1e-15, True)[0]
            .self_compose(t)
            .composed(False)
        )


def test_optimistic_delta_is_the_full_suffix_maxima():
    """The core's read visits [k, m) only where its probes suffice; it must find the same maxima as the full O(n)
    pass written in numpy."""
    rng = np.random.default_rng(1)
    for pmf in _optimistic_pmfs():
        assert pmf.total_error > 0  # the envelope is in play
        eps = np.concatenate([np.linspace(0.0, 12.0, 40), rng.uniform(-1.0, 15.0, 40)])
        low = pmf.delta(eps, envelope=False)
        assert pmf.delta(eps).tobytes() == enveloped(pmf, eps, low).tobytes()


def test_lower_without_envelope_is_a_looser_lower_bound():
    for pmf in _optimistic_pmfs():
        plain, enveloped = pmf.delta(EPS, envelope=False), pmf.delta(EPS)
        assert np.all(plain <= enveloped) and np.all(plain >= 0.0)
