"""The tilted upper reads' window tail (the core's, pld/reads/tilted_read_tail.hpp): a function of the point
alone, its reads certified and within a millionth of the uncut window's, and the uncut window read
where a few rare large rounds make the saddle-point estimate far too low."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.pld.compose import tilted
from hockeystick.pld.compose.fft import fft_length
from hockeystick.pld.grid.pmf import GridPMF
from hockeystick.pld.grid.tail import DEFAULT_TAIL
from hockeystick.pld.question.tilted_question import MAX_POINTS
from hockeystick.pld.refine import question

from .read_tail import (
    READ_TAIL,
    WRAP_LAMBDAS,
    cut_charge_too_large,
    delta_tilt,
    exponent_tilt,
    read_tail,
    saddle_looseness,
    wrapped_mass,
)
from .tilted_core import tilted_brackets
from .tilted_windows import composed, remove_round, upper_read

README = 256 / 60_000
H = question.FINE_INTERVAL


def _remove(point: tuple[float, float, float, float], delta: float):
    """The point's remove direction's discretization tail and one round's factor on ``H``."""
    return remove_round(point, H, delta)


def _tilted(point: tuple[float, float, float, float], delta: float) -> tuple[float, float]:
    """A certified (lower, upper) epsilon of the point at delta: the core's tilted descent
    (``tilted_brackets``) from no bracket (0, inf)."""
    lower, upper = tilted_brackets(point, np.array([delta]), np.array([0.0]), np.array([math.inf]))
    return float(lower[0]), float(upper[0])


def _core_upper(point: tuple[float, float, float, float], delta: float, upper: float) -> float:
    """The core's upper read of the point on ``H`` under the Chernoff exponent's tilt at ``upper``
    (``tilted_windows.upper_read``, the tilted reads' window cap), searched from ``upper``."""
    return upper_read(point, delta, H, upper, 0.0, max_points=MAX_POINTS)[0]


def _upper(pmf, rounds, delta, lam, start, window_tail):
    side = composed([(pmf, rounds)], lam, True, window_tail)
    return tilted.upper_epsilon(side, delta, start), side


@pytest.mark.parametrize("q, rounds", [(README, 14_100), (0.01, 1000)])
def test_a_point_alone_reads_the_bracket_it_reads_among_a_hundred(q, rounds):
    sigmas = np.linspace(0.5, 5.0, 100)
    lower, upper = SubsampledGaussianPLD(sigma=sigmas, sampling_rate=q, rounds=rounds).epsilon(
        1e-10, bound="both"
    )
    for i in (3, 37, 71):
        alone = SubsampledGaussianPLD(sigma=float(sigmas[i]), sampling_rate=q, rounds=rounds)
        assert alone.epsilon(1e-10, bound="both") == (lower[i], upper[i])


def test_the_tail_does_not_follow_the_upper_side_already_read():
    # two fresh readers of one point given upper sides a calibration's re-ask could give (1e-7
    # apart, the same exponent tilt): the same answer bit for bit, the same window tail
    point, delta = (1.1, README, 14_100.0, 1.0), 1e-10
    answers = []
    for given in (3.7412, 3.7412001):
        _, factor = _remove(point, delta)
        lam = exponent_tilt(factor.upper, 14_100, given)
        answers.append((lam, _core_upper(point, delta, given)))
    assert answers[0][0] == answers[1][0]
    assert answers[0][1] == answers[1][1]
    assert math.isfinite(answers[0][1])


@pytest.mark.parametrize(
    "sigma, q, rounds, delta",
    [(1.1, README, 14_100, 1e-10), (0.8, 0.01, 1000, 1e-5), (3.0, 0.01, 1000, 1e-10)],
)
def test_the_saddle_point_looseness_is_within_a_factor_two_of_the_composition(
    sigma, q, rounds, delta
):
    # reference: the certified delta at the Chernoff epsilon of delta, read from the tilted
    # composition's two sides; the Chernoff bound there is delta by construction
    _, factor = _remove((sigma, q, float(rounds), 1.0), delta)
    pmf = factor.upper
    lam = delta_tilt(pmf, rounds, delta)
    log_bound = rounds * float(pmf.log_mgf(np.array([lam]))[0])
    eps = (log_bound - math.log(delta)) / lam
    up_side = composed([(pmf, rounds)], lam, True)
    terms = [(p, c) for p, c in factor.lower_terms(rounds) if p is not None and c > 0]
    low_side = composed(terms, lam, False)
    high, low = up_side.delta(eps), low_side.delta(eps)
    assert 0.0 < low <= high
    estimate, spread = saddle_looseness(pmf, rounds, lam)
    assert delta / high / 2.0 <= estimate <= delta / low * 2.0
    assert spread > 0.0


@pytest.mark.parametrize(
    "sigma, q, rounds, delta",
    [(1.1, README, 14_100, 1e-10), (0.5, 0.01, 1000, 1e-10), (5.0, README, 14_100, 1e-5)],
)
def test_a_cut_window_reads_within_a_billionth_of_the_uncut_one_on_fewer_points(
    sigma, q, rounds, delta
):
    _, factor = _remove((sigma, q, float(rounds), 1.0), delta)
    pmf = factor.upper
    cut_tail = read_tail(pmf, rounds, delta_tilt(pmf, rounds, delta))
    assert DEFAULT_TAIL < cut_tail <= READ_TAIL
    lower, upper = _tilted((sigma, q, float(rounds), 1.0), delta)
    lam = exponent_tilt(pmf, rounds, upper)
    cut, cut_side = _upper(pmf, rounds, delta, lam, 2.0 * upper, cut_tail)
    whole, whole_side = _upper(pmf, rounds, delta, lam, 2.0 * upper, DEFAULT_TAIL)
    assert lower <= cut  # certified: never below a certified lower side
    assert abs(cut - whole) <= 1e-9 * max(1.0, whole)
    assert cut_side.window.p.size <= 0.8 * whole_side.window.p.size
    at = cut - abs(cut_side.window.loss_shift)
    charge = cut_side.window.p_inf * cut_side.untilt_factor(max(at, cut_side.cut))
    wrapped = wrapped_mass(pmf, rounds, lam * H, at, fft_length(cut_side.window.p.size))
    assert not cut_charge_too_large(charge, wrapped, delta)


@pytest.mark.parametrize(
    "sigma, q, rounds, delta", [(1.0, 1e-3, 100, 1e-10), (1.0, 1e-4, 10_000, 1e-12)]
)
def test_a_few_rare_large_rounds_read_the_uncut_window(sigma, q, rounds, delta):
    # the loss is a few large rounds: the Chernoff bound is 1e7 or more times delta at the answer,
    # far above the saddle-point estimate, and what wraps around the cut window shows it
    _, factor = _remove((sigma, q, float(rounds), 1.0), delta)
    pmf = factor.upper
    _, upper = _tilted((sigma, q, float(rounds), 1.0), delta)
    lam = exponent_tilt(pmf, rounds, upper)
    cut_tail = read_tail(pmf, rounds, delta_tilt(pmf, rounds, delta))
    assert cut_tail > DEFAULT_TAIL
    cut, cut_side = _upper(pmf, rounds, delta, lam, 2.0 * upper, cut_tail)
    whole, _ = _upper(pmf, rounds, delta, lam, 2.0 * upper, DEFAULT_TAIL)
    at = cut - abs(cut_side.window.loss_shift) if math.isfinite(cut) else 2.0 * upper
    charge = cut_side.window.p_inf * cut_side.untilt_factor(max(at, cut_side.cut))
    wrapped = wrapped_mass(pmf, rounds, lam * H, at, fft_length(cut_side.window.p.size))
    assert cut_charge_too_large(charge, wrapped, delta)
    # the core's read (the add direction screened below the remove direction's answer) is the uncut
    # window's, bit for bit
    assert _core_upper((sigma, q, float(rounds), 1.0), delta, 2.0 * upper) == whole


def test_a_curvature_that_is_not_positive_takes_the_default_tail():
    # one loss: K(lam) is linear, K'' = 0, no estimate
    point_mass = GridPMF(3, 1e-3, np.array([1.0]), 0.0, 0.0, True)
    assert saddle_looseness(point_mass, 100, 5.0) == (math.inf, 0.0)
    assert read_tail(point_mass, 100, 5.0) == DEFAULT_TAIL


@pytest.mark.parametrize("sigma, q, rounds", [(0.6, 0.01, 1000), (1.0, 1e-3, 100)])
def test_a_wrapped_bound_enough_for_the_check_gives_the_check_of_the_least(sigma, q, rounds):
    # reference: the least of the Chernoff exponents over every tilt of WRAP_LAMBDAS, from one
    # direct log_mgf call; the bound taken where enough is never below it, and on the same side of
    # the check's limit
    factor = remove_round((sigma, q, float(rounds), 1.0), 2e-3, 1e-10)[1]
    pmf = factor.upper
    theta = exponent_tilt(pmf, rounds, 1.0) * pmf.h
    for x, length in ((0.5, 1 << 12), (2.0, 1 << 14), (8.0, 1 << 16)):
        lams = WRAP_LAMBDAS * (theta / pmf.h)
        with np.errstate(over="ignore", invalid="ignore"):
            exponent = rounds * pmf.log_mgf(lams) - lams * x - (lams * pmf.h - theta) * length
        least = math.exp(min(float(np.min(np.where(np.isfinite(exponent), exponent, np.inf))), 0.0))
        assert wrapped_mass(pmf, rounds, theta, x, length) == least
        for limit in (least / 2.0, least, 2.0 * least, 1e6 * least, 1.0):
            enough = wrapped_mass(pmf, rounds, theta, x, length, enough=limit)
            assert enough >= least
            assert (enough <= limit) == (least <= limit)
