"""Against an observer, each sampled client adding its own noise share: secagg's sides cover a post-processed pair
that Poisson subsampling's fixed-share amplification does not, agree with DistributedDPFedAvg's, and the lower side
holds where the noise's window is cut (masses summing below 1)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from hockeystick.interop.dp_accounting import secagg_events
from hockeystick.rdp.conversion import rdp_to_epsilon
from hockeystick.rdp.poisson_subsampled import poisson_subsampled_rdp
from hockeystick.secagg import DistributedDiscreteGaussian, DistributedSkellam, observer_shares
from hockeystick.secagg.lattice_pld import skellam_masses
from hockeystick.secagg.observer_participations import participation_count_epsilon
from hockeystick.training import DistributedDPFedAvg, secure_aggregation

from .share_pair import post_processed_pair_epsilon

# one share of N_Z(0, 5^2) a client, one survivor besides the differing client, d = 24, shift 5, q = 0.02, 20 rounds
SIGMA, SHIFT, RATE, ROUNDS, DIMENSION, BETA = 5.0, 5, 0.02, 20, 24, 0.99


def _accountant() -> DistributedDiscreteGaussian:
    return DistributedDiscreteGaussian(
        clip_norm=float(SHIFT),
        granularity=1.0,
        dimension=DIMENSION,
        local_sigma=SIGMA,
        min_surviving_clients=1,
        rounds=ROUNDS,
        sampling_rate=RATE,
        beta=BETA,
    )


def test_the_observer_upper_side_covers_a_post_processed_pair_the_fixed_share_amplification_misses():
    truth_at_least = post_processed_pair_epsilon(SIGMA, 70, SHIFT, RATE, ROUNDS, DIMENSION, 1e-5)
    acc = _accountant()
    low, high = acc.epsilon(1e-5, bound="both", against="observer")
    assert low <= truth_at_least <= high
    assert high < acc.epsilon(1e-5)  # still amplified below the server's
    # Poisson subsampling's amplification for a fixed number of shares, at the same round curve: below the pair
    orders = np.asarray(acc.orders)
    fixed = poisson_subsampled_rdp(acc.round_rdp(orders), orders, RATE) * ROUNDS
    assert float(rdp_to_epsilon(fixed, orders, 1e-5)) < truth_at_least / 1.3


@pytest.mark.parametrize("noise", ["distributed_discrete_gaussian", "distributed_skellam"])
def test_the_observer_sides_are_distributed_dp_fedavg_s(noise):
    run = DistributedDPFedAvg(
        noise=noise,
        clip_norm=1.0,
        bits=16,
        dimension=500,
        clients_per_round=50,
        min_surviving_clients=40,
        rounds=30,
        total_clients=2000,
        noise_multiplier=1.0,
    )
    cls = (
        DistributedDiscreteGaussian
        if noise == "distributed_discrete_gaussian"
        else DistributedSkellam
    )
    acc = cls(
        clip_norm=1.0,
        granularity=run.granularity,
        dimension=500,
        local_sigma=run.local_stddev,
        min_surviving_clients=40,
        rounds=30,
        beta=math.exp(-0.5),
        sampling_rate=0.025,
    )
    ours = acc.epsilon(np.array([1e-7, 1e-5]), bound="both", against="observer")
    theirs = run.epsilon(np.array([1e-7, 1e-5]), bound="both", against="observer")
    np.testing.assert_array_equal(ours, theirs)
    assert (0 < ours[0]).all() and (ours[0] <= ours[1]).all()
    # joint convexity's curve, log1p(q expm1((alpha - 1) eps)) / (alpha - 1) per round, bounds the upper side
    orders = np.asarray(acc.orders)
    with mpmath.workdps(40):
        curve = [
            float(
                30
                * mpmath.log1p(mpmath.mpf("0.025") * mpmath.expm1((a - 1) * mpmath.mpf(e)))
                / (a - 1)
            )
            for a, e in zip(orders, acc.round_rdp(orders), strict=True)
        ]
    reference = float(rdp_to_epsilon(np.array(curve), orders, 1e-5))
    # the least of joint convexity's conversion and the participation count's reading (observer_participations)
    by_count = participation_count_epsilon(
        acc.round_rdp(orders), orders, 0.025, 30, np.array([1e-5]), np.inf
    )
    assert ours[1][1] <= reference * (1 + 1e-9)
    assert ours[1][1] == pytest.approx(min(reference, float(by_count[0])), rel=1e-9)


def test_the_per_share_analysis_has_one_home():
    for name in ("shares_pair_pld", "shares_sampled_rdp"):
        assert getattr(secure_aggregation, name) is getattr(observer_shares, name)
        assert getattr(secagg_events, name) is getattr(observer_shares, name)


def _dg(s: float, half: int = 12) -> dict[int, mpmath.mpf]:
    w = {
        y: mpmath.exp(-(mpmath.mpf(y) ** 2) / (2 * mpmath.mpf(s) ** 2))
        for y in range(-half, half + 1)
    }
    z = mpmath.fsum(w.values())
    return {y: v / z for y, v in w.items()}


def _two(one: dict) -> dict:
    out: dict = {}
    for x, p in one.items():
        for y, q in one.items():
            out[x + y] = out.get(x + y, 0) + p * q
    return out


@mpmath.workdps(50)
def test_a_cut_window_still_gives_a_certified_lower_side():
    """s = 1/2, one client, shift 3: the direct convolution's window (+-5) leaves Q's outcomes -5 .. -3 (mass
    ~1.2e-8) out of the pair, so its masses sum below 1; both sides still bracket the exact divergence, against
    the server (N + 3 against N) and the observer (q (N_2 + 3) + (1 - q) N_1 against q N_2 + (1 - q) N_1)."""
    acc = DistributedDiscreteGaussian(
        clip_norm=3,
        granularity=1,
        dimension=2,
        local_sigma=0.5,
        min_surviving_clients=1,
        sampling_rate=0.3,
    )
    q = mpmath.mpf("0.3")
    one = _dg(0.5)
    two = _two(one)
    outcomes = range(-30, 31)
    laws = {
        "server": ({x: one.get(x - 3, 0) for x in outcomes}, {x: one.get(x, 0) for x in outcomes}),
        "observer": (
            {x: q * two.get(x - 3, 0) + (1 - q) * one.get(x, 0) for x in outcomes},
            {x: q * two.get(x, 0) + (1 - q) * one.get(x, 0) for x in outcomes},
        ),
    }
    for against, (p, r) in laws.items():
        for eps in (0.0, 1.0, 5.0, 20.0):
            exact = float(mpmath.fsum(max(p[x] - mpmath.exp(eps) * r[x], 0) for x in outcomes))
            lower, upper = acc.delta(eps, bound="both", against=against)
            assert lower <= exact * (1 + 1e-12) <= upper * (1 + 1e-12)
            assert lower >= exact - 1e-4  # the pair itself, up to the grid


def test_the_pair_refuses_a_grid_spacing_outside_its_range_and_a_rate_outside_0_1():
    fewer, more = skellam_masses(25.0, 2), skellam_masses(30.0, 2)
    with pytest.raises(ValueError, match=r"value_discretization_interval must lie in \(0, 100\]"):
        observer_shares.shares_pair_pld(fewer, more, 2, 0.5, 0.0)
    with pytest.raises(ValueError, match=r"rate must lie in \(0, 1\]"):
        observer_shares.shares_sampled_rdp(np.array([1.0]), np.array([2.0]), 0.0)
