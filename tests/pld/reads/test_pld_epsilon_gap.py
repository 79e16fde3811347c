"""The epsilon gap of a delta bracket (pld/reads/epsilon_width.py ``epsilon_gap``) and the grids it sizes.

``epsilon_gap`` is a step model, not a bound: read between two arguments it must not undercut the true gap
of a convex-in-e^eps profile (it errs toward a finer grid), extended past the last argument it must not
exceed it.  Reference: the Gaussian mechanism's exact profile (closed form, Balle & Wang 2018, Thm 8), with
the lower side set to the profile a known distance g to the right, so the true gap is g by construction.

The accountant's capped arguments (no certified chord, ``_no_chord``) step by it: the brackets stay
certified (against a fine fixed grid of ours and dp_accounting's pessimistic PLD) and meet G1's criterion.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

import hockeystick.pld as pld
from hockeystick.pld.reads.epsilon_width import RIGHT_OFFSETS, certified_epsilon_width, epsilon_gap
from hockeystick.pld.refine import tuning
from hockeystick.pld.refine.grid_start import ladder_rung


def gaussian_delta(mu: float, eps: np.ndarray) -> np.ndarray:
    """delta(eps) of the mu-Gaussian mechanism (Balle & Wang 2018, Thm 8): convex in e^eps."""
    eps = np.asarray(eps, dtype=np.float64)
    return norm.cdf(-eps / mu + mu / 2) - np.exp(eps) * norm.cdf(-eps / mu - mu / 2)


@settings(max_examples=80, deadline=None)
@given(
    mu=st.floats(0.5, 3.0), g=st.floats(0.002, 1.5), spacing=st.sampled_from([0.01, 0.05, 0.2, 0.5])
)
def test_gap_read_between_arguments_is_never_below_the_true_gap(mu, g, spacing):
    eps = np.array([0.3, 1.0, 2.0])
    x = np.arange(0.0, 6.0, spacing)
    lo = gaussian_delta(mu, eps + g)
    got = epsilon_gap(eps, lo, gaussian_delta(mu, eps), x, gaussian_delta(mu, x))
    assert np.all(np.isfinite(got))
    assert np.all(got >= g * (1 - 1e-9) - 1e-12)  # the chord crosses at or right of the curve
    assert np.all(got <= g + spacing + 1e-12)  # and no further than the next argument


@settings(max_examples=60, deadline=None)
@given(mu=st.floats(0.5, 3.0), g=st.floats(0.3, 2.0))
def test_gap_extended_past_the_last_argument_is_never_above_the_true_gap(mu, g):
    eps = np.array([4.0])
    x = np.array([4.01, 4.04, 4.16])  # the accountant's offsets: the crossing lies beyond
    lo = gaussian_delta(mu, eps + g)
    got = float(epsilon_gap(eps, lo, gaussian_delta(mu, eps), x, gaussian_delta(mu, x))[0])
    assert math.isfinite(got) and 0.16 <= got <= g * (1 + 1e-9) + 1e-12


def test_no_gap_where_the_lower_side_is_zero_or_the_upper_side_is_flat():
    eps = np.array([1.0, 2.0])
    x = np.array([1.01, 1.04, 1.16, 2.01, 2.04, 2.16])
    up = np.full(2, 0.999)
    assert np.all(np.isinf(epsilon_gap(eps, np.zeros(2), up, x, np.full(6, 0.5))))
    assert np.all(np.isinf(epsilon_gap(eps, np.full(2, 0.99), up, x, np.full(6, 0.995))))
    assert np.all(np.isinf(epsilon_gap(eps, np.full(2, 0.99), up, np.array([]), np.array([]))))
    with np.errstate(all="raise"):  # eps = inf: no argument lies beyond it, and no warning either
        assert np.isinf(
            epsilon_gap(np.array([np.inf]), np.array([0.5]), np.array([0.6]), x, np.full(6, 0.1))[0]
        )


def _epsilon_widths(kw: dict, eps: np.ndarray, lo: np.ndarray, up: np.ndarray) -> np.ndarray:
    """G1's certified epsilon width at delta = up (the least over RIGHT_OFFSETS, upper sides by accuracy=)."""
    right = [
        pld.SubsampledGaussianPLD(**kw, accuracy=1e-2, delta_accuracy="epsilon").delta(eps + d)
        for d in RIGHT_OFFSETS
    ]
    return np.min(
        [certified_epsilon_width(eps, lo, up, eps + d, r) for d, r in zip(RIGHT_OFFSETS, right)],
        axis=0,
    )


def _pessimistic_dp_accounting(kw: dict, eps: np.ndarray, h: float) -> np.ndarray:
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    ref = pld_lib.from_gaussian_mechanism(
        kw["sigma"], sampling_prob=kw["sampling_rate"], value_discretization_interval=h
    ).self_compose(int(kw["rounds"]))
    return np.array([ref.get_delta_for_epsilon(float(e)) for e in eps])


def test_a_capped_argument_with_a_gap_steps_by_it_not_by_capped_step(visited_grids):
    """sigma 2.05, q 0.048, 56899 rounds: delta 0.9-0.99 at eps 1-8, every width capped on the first grid
    (h = 1.02e-2: gaps 0.5-0.7), which is far finer than the flat h / 32 needs; one step by the gap meets G1."""
    kw = dict(sigma=2.047, sampling_rate=0.0483, rounds=56899)
    eps = np.array([1.0, 3.0, 8.0])
    lo, up = pld.SubsampledGaussianPLD(**kw, accuracy=1e-2, delta_accuracy="epsilon").delta(
        eps, bound="both"
    )
    grids = list(visited_grids)
    assert len(grids) == 2 and grids[1] >= 2 * tuning.CAPPED_STEP * grids[0]
    assert np.all(_epsilon_widths(kw, eps, lo, up) <= 1e-2)
    f_lo, f_up = pld.SubsampledGaussianPLD(**kw, value_discretization_interval=2.5e-4).delta(
        eps, bound="both"
    )
    assert np.all(lo <= f_up) and np.all(f_lo <= up) and np.all((0 <= lo) & (lo <= up) & (up <= 1))


def test_a_blind_point_keeps_the_jump_of_its_cap_and_its_bracket_holds(visited_grids):
    """sigma 0.5, q = 1e-4, 1099 rounds: the lower side is 0 on the first grid (q < h), so no gap is read;
    the next grid is the h^2 jump of the widest cap eps (0.9 sqrt(accuracy / 3) h on the ladder: 8e-5, below
    q); the bracket there meets G1 at eps <= 2 (at 3, delta 6e-9, it stays 0.07 wide
    on every grid) and holds against dp_accounting's pessimistic PLD at h = 1e-4 and a finer grid of ours."""
    kw = dict(sigma=0.5, sampling_rate=1e-4, rounds=1099)
    eps = np.array([0.5, 1.0, 1.5, 2.0, 3.0])
    acc = pld.SubsampledGaussianPLD(**kw, accuracy=1e-2, delta_accuracy="epsilon")
    lo, up = acc.delta(eps, bound="both")
    grids = list(visited_grids)
    assert (
        len(grids) == 2
        and grids[1] == ladder_rung(grids[0] * 0.9 * math.sqrt(1e-2 / eps[-1])) < 1e-4
    )
    assert np.all(_epsilon_widths(kw, eps, lo, up)[:4] <= 1e-2)
    assert np.all(lo <= _pessimistic_dp_accounting(kw, eps, 1e-4))
    f_lo, f_up = pld.SubsampledGaussianPLD(**kw, value_discretization_interval=2e-5).delta(
        eps, bound="both"
    )
    assert np.all(lo <= f_up) and np.all(f_lo <= up)


def test_an_offset_limited_width_steps_by_its_gap_not_by_its_h2_law(visited_grids, monkeypatch):
    """sigma 4.34, q 0.0113, 82864 rounds (one of G1's rows): on the first grid (h = 1.28e-3) the certified widths
    at eps 2.5-3.5 are 0.7-3.5, set by the offsets they are certified through, their epsilon gaps 0.12-0.15.  Stepping
    by the gap (``_offset_limited``) lands on a grid at least 2.8x coarser than the widths' h^2 law (which went to
    5.66e-5), where every eps still meets G1 and both brackets hold against a fine fixed grid of ours."""
    kw = dict(sigma=4.343, sampling_rate=0.0113, rounds=82864)
    eps = np.array([0.5, 2.0, 2.5, 3.0, 3.5, 4.0])
    lo, up = pld.SubsampledGaussianPLD(**kw, accuracy=1e-2, delta_accuracy="epsilon").delta(
        eps, bound="both"
    )
    by_gap = list(visited_grids)
    visited_grids.clear()
    with monkeypatch.context() as patched:
        patched.setattr(tuning, "OFFSET_LIMITED", math.inf)  # no argument is offset-limited
        h2_lo, h2_up = pld.SubsampledGaussianPLD(
            **kw, accuracy=1e-2, delta_accuracy="epsilon"
        ).delta(eps, bound="both")
    by_width = list(visited_grids)
    assert len(by_gap) == len(by_width) == 2 and by_gap[0] == by_width[0]
    assert by_gap[1] >= 2.8 * by_width[1]
    assert np.all(_epsilon_widths(kw, eps, lo, up) <= 1e-2)
    f_lo, f_up = pld.SubsampledGaussianPLD(**kw, value_discretization_interval=5e-5).delta(
        eps, bound="both"
    )
    for low, high in ((lo, up), (h2_lo, h2_up)):
        assert (
            np.all(low <= f_up)
            and np.all(f_lo <= high)
            and np.all((0 <= low) & (low <= high) & (high <= 1))
        )
