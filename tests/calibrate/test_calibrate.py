"""Calibration: against closed forms and 50-digit references, always on the safe side, clear errors."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hockeystick as hs
from hockeystick.calibrate import calibrate
from hockeystick.fdp.gaussian_mechanism import GaussianMechanism
from hockeystick.sweep import registry
from hockeystick.sweep.registry import AccountantEntry, Calibratable

from .. import reference


def _delta_50_digits(sigma: float, rounds: float, eps: float) -> mp.mpf:
    return reference.theta(float(mp.sqrt(rounds) / mp.mpf(sigma)), eps)


def test_sigma_matches_the_inverse_of_theta_and_is_minimal_at_50_digits():
    rounds = np.array([1, 10, 100, 1000, 10**6])
    eps, delta = 1.0, 1e-5
    sigma = calibrate("gaussian", "sigma", epsilon=eps, delta=delta, rounds=rounds)
    # closed form: sigma = sqrt(T) / r with theta(r, eps) = delta (the core's Newton solve, a different method)
    np.testing.assert_allclose(sigma, np.sqrt(rounds) / hs.theta_radius(eps, delta), rtol=2e-10)
    for s, t in zip(sigma, rounds):
        assert _delta_50_digits(s, t, eps) <= delta  # valid
        assert _delta_50_digits(s * (1 - 1e-9), t, eps) > delta  # and no more than 1e-9 too large


def test_largest_rounds_is_exact():
    sigma = np.array([5.0, 50.0, 500.0])
    rounds = calibrate("gaussian", "rounds", epsilon=1.0, delta=1e-5, sigma=sigma)
    # theta(sqrt(T)/sigma) <= delta  <=>  T <= (sigma r*)^2
    np.testing.assert_array_equal(rounds, np.floor((sigma * hs.theta_radius(1.0, 1e-5)) ** 2))
    for s, t in zip(sigma, rounds):
        assert _delta_50_digits(s, t, 1.0) <= 1e-5 < _delta_50_digits(s, t + 1, 1.0)


@settings(max_examples=40, deadline=None)
@given(
    eps=st.floats(0.0, 30.0),
    log_delta=st.floats(-250, -0.5),
    rounds=st.integers(1, 10**8),
    sens=st.floats(0.01, 100.0),
)
def test_calibrated_sigma_is_always_valid_and_tight(eps, log_delta, rounds, sens):
    delta = 10.0**log_delta
    sigma = calibrate(
        "gaussian", "sigma", epsilon=eps, delta=delta, rounds=rounds, sensitivity=sens
    )
    mech = GaussianMechanism(sigma=sigma, rounds=rounds, sensitivity=sens)
    assert mech.delta(eps) <= delta
    assert (
        GaussianMechanism(sigma=sigma * (1 - 1e-8), rounds=rounds, sensitivity=sens).delta(eps)
        > delta
    )


def test_vectorized_over_broadcast_parameters_and_scalar_in_scalar_out():
    eps = np.array([0.5, 1.0, 2.0])[:, None]
    rounds = np.array([1, 100])[None, :]
    sigma = calibrate("gaussian", "sigma", epsilon=eps, delta=1e-6, rounds=rounds)
    assert sigma.shape == (3, 2)
    np.testing.assert_allclose(sigma, np.sqrt(rounds) / hs.theta_radius(eps, 1e-6), rtol=2e-10)
    one = calibrate("gaussian", "sigma", epsilon=1.0, delta=1e-6)
    assert isinstance(one, float) and one == pytest.approx(sigma[1, 0], rel=1e-12)


class _Capped:
    """Half the composed Gaussian's delta, with a cap on rounds: exercises the range ends."""

    def __init__(self, *, sigma, rounds=1, max_rounds=np.inf):
        self.inner = GaussianMechanism(sigma=sigma, rounds=rounds)
        if np.any(np.asarray(rounds) > np.asarray(max_rounds)):
            raise ValueError("rounds must be <= max_rounds")

    def delta(self, epsilon):
        return 0.5 * self.inner.delta(epsilon)

    def epsilon(self, delta):  # pragma: no cover - not used by calibration
        return self.inner.epsilon(2 * np.asarray(delta))


@pytest.fixture
def capped():
    entry = registry.register(
        AccountantEntry(
            "capped_test",
            _Capped,
            "test double",
            integers=frozenset({"rounds", "max_rounds"}),
            calibratable={
                "sigma": Calibratable("decreasing", 0.0, np.inf),
                "rounds": Calibratable(
                    "increasing", 1.0, lambda p: p.get("max_rounds", np.inf), integer=True
                ),
            },
        )
    )
    yield entry
    del registry.REGISTRY["capped_test"]


def test_range_ends(capped):
    # delta <= 1/2 always: a target of 0.6 is met by every sigma: the smallest sigma searched is
    # returned, a value the accountant accepts (0 is outside every accountant's domain) ...
    smallest = calibrate(capped, "sigma", epsilon=0.0, delta=0.6)
    assert 0.0 < smallest <= 1e-70
    assert GaussianMechanism(sigma=smallest).delta(0.0) <= 1.0
    with pytest.raises(ValueError, match="sigma"):
        GaussianMechanism(sigma=0.0)
    # ... and by every allowed number of rounds, whatever the cap (per point)
    got = calibrate(capped, "rounds", epsilon=0.0, delta=0.6, sigma=1.0, max_rounds=[3, 50])
    np.testing.assert_array_equal(got, [3, 50])
    # an uncapped parameter that never breaks the target gives inf
    assert calibrate(capped, "rounds", epsilon=0.0, delta=0.6, sigma=1.0) == np.inf
    # the cap binds only where it is below the unconstrained answer
    free = calibrate("gaussian", "rounds", epsilon=1.0, delta=2e-5, sigma=20.0)
    got = calibrate(capped, "rounds", epsilon=1.0, delta=1e-5, sigma=20.0, max_rounds=[10, 10**9])
    np.testing.assert_array_equal(got, [10, free])


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            dict(parameter="rounds", epsilon=0.1, delta=1e-5, sigma=1.0),
            r"unreachable.*even rounds=1 gives delta=0\.35",
        ),
        (dict(parameter="sensitivity", epsilon=1, delta=1e-5), "cannot calibrate 'sensitivity'"),
        (dict(parameter="sigma", epsilon=1, delta=1e-5, sigma=2.0), "do not also give it a value"),
        (
            dict(parameter="sigma", epsilon=1, delta=1e-5, clients=2.0),
            "takes no parameter 'clients'",
        ),
        (dict(parameter="rounds", epsilon=1, delta=1e-5), "needs 'sigma'"),
        (dict(parameter="sigma", epsilon=1, delta=1.5), "delta must lie strictly between 0 and 1"),
        (dict(parameter="sigma", epsilon=-1, delta=1e-5), "epsilon must be >= 0"),
        (dict(parameter="sigma", epsilon=1, delta=1e-5, rtol=0), "rtol"),
    ],
)
def test_errors_say_what_to_change(kwargs, message):
    with pytest.raises(ValueError, match=message):
        calibrate("gaussian", **kwargs)


def test_a_finite_cap_beyond_the_search_span_is_returned_not_inf(capped):
    # the cap (1e20) lies beyond 2^52 from the start: it is evaluated, and returned when it meets the target
    assert calibrate(capped, "rounds", epsilon=0.0, delta=0.6, sigma=1.0, max_rounds=1e20) == 1e20
    # the registered one-pass cap floor(n / batch_size) of the trusted aggregator, with a target every
    # number of rounds meets (the contraction bound does not grow without limit in the rounds)
    params = dict(n=1e20, batch_size=1, learning_rate=0.5, lipschitz=1.0, radius=1.0, sigma=1.0)
    rounds = calibrate("trusted_aggregator", "rounds", epsilon=1.0, delta=0.5, **params)
    assert rounds == 1e20
    assert registry.get("trusted_aggregator").build(rounds=rounds, **params).delta(1.0) <= 0.5
    # a cap that does NOT meet the target, with the answer beyond 2^53 (doubles 8 apart there): the
    # search ends at a feasible value at the answer (sigma r)^2, r = theta_radius (to the bound's ~1e-13 accuracy)
    sigma = 1e9
    exact = (sigma * hs.theta_radius(1.0, 2e-5)) ** 2
    got = calibrate(capped, "rounds", epsilon=1.0, delta=1e-5, sigma=sigma, max_rounds=1e20)
    assert got > 2.0**53 and got == pytest.approx(exact, rel=1e-11)
    assert _Capped(sigma=sigma, rounds=got).delta(1.0) <= 1e-5


def test_both_sides_of_a_calibration_bracket_the_exact_sigma():
    """bound="both": (the sigma below which the lower bound of delta already breaks the target, the
    sigma the upper bound allows); the exact sigma of the composed Gaussian (mpmath, 50 digits) lies
    between them, and every sigma at or below the lower side truly breaks the target."""

    from .. import reference

    lo, up = calibrate(
        "gaussian", "sigma", epsilon=1.0, delta=1e-5, rounds=np.array([1, 100]), bound="both"
    )
    with mp.workdps(50):
        r = mp.findroot(lambda x: reference.theta(x, 1.0) - mp.mpf("1e-5"), 0.27)
        exact = [float(mp.sqrt(t) / r) for t in (1, 100)]
        for t, low in zip((1, 100), lo):
            assert reference.theta(mp.sqrt(t) / mp.mpf(low), 1.0) > mp.mpf("1e-5")
    assert np.all(lo <= exact) and np.all(np.array(exact) <= up) and np.all(up - lo < 1e-9 * up)


def test_lower_side_of_a_pld_calibration_is_certain_and_below_the_safe_side():
    kwargs = dict(epsilon=1.0, delta=1e-5, sampling_rate=0.01, rounds=1000)
    lo, up = calibrate("pld_subsampled_gaussian", "sigma", bound="both", **kwargs)
    assert (
        lo == calibrate("pld_subsampled_gaussian", "sigma", bound="lower", **kwargs)
        and lo < up < 1.001 * lo
    )
    from hockeystick.pld import SubsampledGaussianPLD

    assert (
        SubsampledGaussianPLD(sigma=lo, sampling_rate=0.01, rounds=1000).delta(1.0, bound="lower")
        > 1e-5
    )
    assert SubsampledGaussianPLD(sigma=up, sampling_rate=0.01, rounds=1000).delta(1.0) <= 1e-5
    # rounds (increasing, integer): the safe count <= the largest count the lower bound allows
    t_lo, t_up = calibrate(
        "pld_subsampled_gaussian",
        "rounds",
        epsilon=1.0,
        delta=1e-5,
        sampling_rate=0.01,
        sigma=1.0,
        bound="both",
    )
    assert t_up <= t_lo
    assert (
        SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=t_lo + 1).delta(
            1.0, bound="lower"
        )
        > 1e-5
    )
    with pytest.raises(ValueError, match="bound must be"):
        calibrate(
            "rdp_subsampled_gaussian",
            "sigma",
            bound="lower",
            epsilon=1.0,
            delta=1e-5,
            sampling_rate=0.1,
        )


class _Floored:
    """The Gaussian mechanism at sigma >= 0.1 (a smaller sigma refused, as a PLD refuses its loss grid), counting
    the sigmas its delta is asked at."""

    asked: list[float] = []

    def __init__(self, sigma, rounds=1):
        if np.any(np.asarray(sigma) < 0.1):
            _Floored.asked.extend(np.ravel(sigma).tolist())
            raise ValueError("sigma below 0.1 refused")
        self.sigma = sigma
        self.inner = GaussianMechanism(sigma=sigma, rounds=rounds)

    def delta(self, epsilon):
        _Floored.asked.extend(np.ravel(self.sigma).tolist())
        return self.inner.delta(epsilon)


def test_a_lone_refused_trial_is_not_evaluated_again():
    """Every sigma meets the target: the search walks down to the accountant's refusal and answers the last
    value accepted; the refused trial of a lone target is asked once (its joint call was that point alone)."""
    entry = AccountantEntry(
        "floored_test",
        _Floored,
        "test double",
        calibratable={"sigma": Calibratable("decreasing", 0.0, np.inf)},
    )
    _Floored.asked = []
    got = calibrate(entry, "sigma", epsilon=1e300, delta=0.5, rounds=1)
    assert got >= 0.1 and GaussianMechanism(sigma=got).delta(1e300) <= 0.5
    refused = [s for s in _Floored.asked if s < 0.1]
    assert len(refused) == 1, _Floored.asked
