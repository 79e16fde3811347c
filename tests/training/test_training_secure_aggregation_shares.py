"""Each sampled client adds its own noise share: the observer's true loss against DistributedDPFedAvg's bracket
(secagg's ``against="observer"``), and against Poisson subsampling's amplification for a fixed number of shares,
which it exceeds.

One share of N_Z(0, 20^2) a client (one survivor besides the differing client's share), d = 64, shift 20 on one
coordinate, q = 0.1, 50 rounds.  A round with the client holds two shares, one without it one share, on every
coordinate: the 63 noise-only coordinates tell the two apart.  A lower bound on the true loss is the pair after a
post-processing (which only lowers it): the shifted coordinate y_1 and G, the sum over the other coordinates of
their log-likelihood ratio log(A(y) / R(y)) rounded to a grid of 0.5 (A two shares, R one), whose laws under A
and R are their per-coordinate laws convolved 63 times; its PLD, composed over the rounds, is read on its
optimistic side.  The masses are doubles (relative errors near 1e-13, far inside the 30% margin asserted)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick.rdp.conversion import rdp_to_epsilon
from hockeystick.rdp.poisson_subsampled import poisson_subsampled_rdp
from hockeystick.secagg import DistributedDiscreteGaussian
from hockeystick.training import DistributedDPFedAvg

from ..secagg.share_pair import post_processed_pair_epsilon

SIGMA, SHIFT, RATE, ROUNDS, DIMENSION, BETA = 20.0, 20, 0.1, 50, 64, 0.99


@pytest.mark.slow  # ~1.5 s CPU, 2-4 s wall on two loaded cores: a 600k-outcome pair composed 50 times
def test_the_observer_s_true_loss_lies_in_our_bracket_and_above_a_fixed_share_amplification():
    truth_at_least = post_processed_pair_epsilon(SIGMA, 280, SHIFT, RATE, ROUNDS, DIMENSION, 1e-5)
    ours = DistributedDPFedAvg(
        noise="distributed_discrete_gaussian",
        clip_norm=float(SHIFT),
        granularity=1.0,
        local_stddev=SIGMA,
        bits=40,
        dimension=DIMENSION,
        clients_per_round=1,
        min_surviving_clients=1,
        rounds=ROUNDS,
        sample_rate=RATE,
        beta=BETA,
    )
    low, high = ours.epsilon(1e-5, bound="both", against="observer")
    assert low <= high and truth_at_least <= high  # the convexity bound covers the true loss
    secagg = DistributedDiscreteGaussian(
        clip_norm=float(SHIFT),
        granularity=1.0,
        dimension=DIMENSION,
        local_sigma=SIGMA,
        min_surviving_clients=1,
        rounds=ROUNDS,
        sampling_rate=RATE,
        beta=BETA,
    )
    assert secagg.epsilon(1e-5, bound="both", against="observer") == (low, high)
    # Poisson subsampling's amplification holds for a fixed number of shares only: here the true loss passes it
    orders = np.asarray(secagg.orders)
    fixed_shares = poisson_subsampled_rdp(secagg.round_rdp(orders), orders, RATE) * ROUNDS
    assert float(rdp_to_epsilon(fixed_shares, orders, 1e-5)) < truth_at_least / 1.2
    assert math.isfinite(truth_at_least) and truth_at_least < secagg.epsilon(
        1e-5
    )  # below the server's
