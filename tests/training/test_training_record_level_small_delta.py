"""Record-level FL with sampled local batches at delta 1e-10 and 1e-12, given no grid: the default bracket is read
below the FFT composition's round-off (the nested factor's upper PMF covering its targets by a relative raise,
``pld.sampling.grid_readback``; the plan read under an exponential tilt, ``pld.accountants.plan_tilted``, its
factors built from the inner's tail read under tilts, ``pld.accountants.plan_tilted_curves``).

Its upper side is checked against an independent lower bound: the largest per-round sum of the local steps' outputs
is a post-processing of the run, so for every threshold t, P_A(max_r T_r > t) - e^eps P_Q(max_r T_r > t) is at most
the run's delta(eps) (T_r ~ N(X_r, tau z^2) with X_r = 0 unless the client is sampled, then Binomial(tau, q_l); under
Q, X_r = 0), computed by mpmath at 50 digits.  And against the RDP conversion of the same plan (``plan_rdp``)."""

from __future__ import annotations

import math
import warnings

import mpmath
import pytest

from hockeystick.pld.accountants.composition_plan import CompositionPlan
from hockeystick.pld.accountants.plan import PoissonGeneric
from hockeystick.pld.accountants.plan_rdp import plan_rdp_delta, plan_rdp_epsilon
from hockeystick.pld.mechanisms.constructors import PoissonGaussian
from hockeystick.training import RecordLevelFedAvg

# (noise multiplier, client rate, local steps, rounds, local rate)
RUNS = {"100 rounds": (1.0, 0.01, 10, 100, 0.1), "20 rounds": (1.0, 0.05, 5, 20, 0.2)}


@pytest.fixture(scope="module")
def accountants() -> dict[str, RecordLevelFedAvg]:
    """One accountant a run, shared: each composes its plan once."""
    return {
        name: RecordLevelFedAvg(
            noise_multiplier=z,
            client_sample_rate=q_c,
            local_steps=tau,
            rounds=rounds,
            local_sample_rate=q_l,
        )
        for name, (z, q_c, tau, rounds, q_l) in RUNS.items()
    }


def _plan(z: float, q_c: float, tau: int, rounds: int, q_l: float) -> CompositionPlan:
    inner = CompositionPlan({PoissonGaussian(z, q_l).spec(): tau})
    return CompositionPlan({PoissonGeneric(q_c, inner.key()).spec(): rounds})


def _largest_round_sum_delta(
    eps: float, z: float, q_c: float, tau: int, rounds: int, q_l: float
) -> mpmath.mpf:
    """max over thresholds t in [0, 20) of P_A(max_r T_r > t) - e^eps P_Q(max_r T_r > t) (module docstring)."""
    mpmath.mp.dps = 50
    s = mpmath.sqrt(tau) * z
    weights = [
        mpmath.binomial(tau, x) * mpmath.mpf(q_l) ** x * (1 - mpmath.mpf(q_l)) ** (tau - x)
        for x in range(tau + 1)
    ]
    best = mpmath.mpf(0)
    for i in range(80):
        t = mpmath.mpf(i) / 4
        below_q = mpmath.ncdf(t / s)
        below_a = (1 - mpmath.mpf(q_c)) * below_q + mpmath.mpf(q_c) * mpmath.fsum(
            w * mpmath.ncdf((t - x) / s) for x, w in enumerate(weights)
        )
        exceed_a, exceed_q = (-mpmath.expm1(rounds * mpmath.log(b)) for b in (below_a, below_q))
        best = max(best, exceed_a - mpmath.exp(mpmath.mpf(eps)) * exceed_q)
    return best


@pytest.mark.parametrize("delta", [1e-10, 1e-12])
@pytest.mark.parametrize("name", list(RUNS))
def test_bracket_is_ordered_above_an_independent_lower_bound_and_below_the_rdp_side(
    accountants: dict[str, RecordLevelFedAvg], name: str, delta: float
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # read without a warning: no fall back to the RDP side
        lower, upper = accountants[name].epsilon(delta, bound="both")
    assert 0.0 < lower <= upper < plan_rdp_epsilon(_plan(*RUNS[name]), delta)
    assert _largest_round_sum_delta(upper, *RUNS[name]) <= delta


def test_independent_bound_is_sharp_enough_to_tell_a_wrong_upper_side() -> None:
    """At 20 rounds the largest round sum's delta exceeds 1e-10 at epsilon 4 (so an upper side below 4 would fail the
    test above), while the certified lower side is above 4."""
    assert _largest_round_sum_delta(4.0, *RUNS["20 rounds"]) > 1e-10


def test_hundred_rounds_at_1e_10_is_within_the_default_width(
    accountants: dict[str, RecordLevelFedAvg],
) -> None:
    """The default's readable width max(1e-2, 1e-2 eps) (``refine.question``), where the upper PMF's mass at +infinity
    once read to n ulps of the curve a round left only the RDP side (4.07 against a lower side of 1.43)."""
    lower, upper = accountants["100 rounds"].epsilon(1e-10, bound="both")
    assert upper - lower <= max(1e-2, 1e-2 * upper)


@pytest.mark.parametrize("name", list(RUNS))
def test_at_1e_12_within_the_default_width(
    accountants: dict[str, RecordLevelFedAvg], name: str
) -> None:
    """At 1e-12 the inner composition's own round-off (its plain curve's floor near 5e-13, carried q_c R times) would
    keep the upper side some 8 % wide; the inner's tail read under tilts (``plan_tilted_curves``) brings the bracket
    within the default width (the RDP side is about twice the lower side at 100 rounds)."""
    lower, upper = accountants[name].epsilon(1e-12, bound="both")
    assert upper - lower <= max(1e-2, 1e-2 * upper)


@pytest.mark.parametrize("eps", [1.5, 2.0])
def test_delta_bracket_below_round_off(
    accountants: dict[str, RecordLevelFedAvg], eps: float
) -> None:
    """delta near 1e-10 and 1e-11 at 100 rounds: ordered, within 5 % (relative), at least the independent lower
    bound and at most the RDP conversion's delta."""
    lower, upper = accountants["100 rounds"].delta(eps, bound="both")
    assert 0.0 < lower <= upper <= 1.05 * lower
    assert upper <= plan_rdp_delta(_plan(*RUNS["100 rounds"]), eps)
    assert _largest_round_sum_delta(eps, *RUNS["100 rounds"]) <= upper
    assert math.isfinite(upper)


def test_a_bracket_wide_for_its_grid_is_not_read_under_tilts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a coarse grid (h = 1e-2) the bracket at 1e-5 is wide for the grid's spacing, far above the composition's
    round-off: the sharp factors (dear to build, no narrower there) are not built."""

    def refused(self: PoissonGeneric, h: float) -> None:
        raise AssertionError("the tilted read was attempted")

    monkeypatch.setattr(PoissonGeneric, "sharp_pld", refused)
    z, q_c, tau, rounds, q_l = RUNS["100 rounds"]
    run = RecordLevelFedAvg(
        noise_multiplier=z,
        client_sample_rate=q_c,
        local_steps=tau,
        rounds=rounds,
        local_sample_rate=q_l,
        value_discretization_interval=1e-2,
    )
    lower, upper = run.epsilon(1e-5, bound="both")
    assert 0.0 < lower < upper and upper - lower > max(1e-2, 1e-2 * upper)  # wide, and answered
