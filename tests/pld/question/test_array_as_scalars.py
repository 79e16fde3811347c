"""An array of deltas (or epsilons) gets, value by value, the bracket each value gets asked alone.

Every door that takes an array answers each element with the scalar question's bracket: the epsilon
at each delta is read alone (``default_reads.each_epsilon_bracket``), and the fine delta read takes
its tilt, tails and split from each epsilon's own bucket (``tilted_question.fine_delta_key``), so
the upper sides are the scalar's bit for bit.  The one difference left is the fixed grid's lower
delta, read from the composed window where many epsilons are asked and from the spectrum where few
are (``grid.distribution.direction_uppers``): both certified, the window's never below the
spectrum's, so an array's lower delta is at least the scalar's.

The references are the scalar calls themselves, on a fresh accountant each (nothing kept from an
earlier call); the runs are the README's DP-SGD run and a cross-device DP-FedAvg run.  The doors
over ``SubsampledGaussianPLD`` (the PLD accountant, the composed PLD object, the training words), a
grid given, an accuracy asked for epsilon, two kinds of round, the other PLD accountants and a
staged run are held to the same rule.  Delta to an ``accuracy`` is not: its refinement reads every
eps of a point on the grids the widest needs (G1's blocks), so an array's bracket may be tighter or,
by far less than the accuracy, looser than a scalar's.
"""

from __future__ import annotations

import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick.pld.question import tilted_question
from hockeystick.training import DPSGD, DPFedAvg

README = (1.1, 256 / 60_000, 14_100)
FEDAVG = (1.0, 1e-3, 5000)
# a run whose rounds sample a record 0.05 times on average: the split read applies (T q <= 0.1)
SPARSE = (0.8, 1e-5, 5000)


def scalars(ask, values):
    """The (lower, upper) of ``ask(value)`` for each value alone, as arrays."""
    pairs = [ask(float(v)) for v in values]
    return np.array([lo for lo, _ in pairs]), np.array([up for _, up in pairs])


def assert_as_scalars(array_bracket, scalar_bracket, lower_at_least=False):
    """Upper sides bit for bit; lower sides bit for bit, or (``lower_at_least``: the fixed grid's
    window read) never below the scalar's and never above the upper side."""
    (lo, up), (s_lo, s_up) = array_bracket, scalar_bracket
    np.testing.assert_array_equal(up, s_up)
    if lower_at_least:
        assert np.all(lo >= s_lo), (lo, s_lo)
        assert np.all(lo <= up)
    else:
        np.testing.assert_array_equal(lo, s_lo)


EPSILON_CASES = {
    "readme": (README, [1e-5, 1e-10, 1e-12]),
    "fedavg": (FEDAVG, [1e-5, 1e-7, 1e-10, 1e-12]),
    "fedavg repeated and unsorted": (FEDAVG, [1e-8, 1e-5, 1e-8]),
}


@pytest.mark.parametrize("case", list(EPSILON_CASES))
def test_epsilon_over_deltas_is_each_deltas_alone(case):
    """The README run's lower epsilon at 1e-10 was 3.740356 in the array against 3.740429 alone."""
    run, deltas = EPSILON_CASES[case]
    batch = pld.SubsampledGaussianPLD(*run).epsilon(np.array(deltas), bound="both")
    alone = scalars(lambda d: pld.SubsampledGaussianPLD(*run).epsilon(d, bound="both"), deltas)
    assert_as_scalars(batch, alone)


DELTA_CASES = {
    "fedavg": (FEDAVG, np.linspace(0.2, 6.0, 8)),
    "fedavg about 1.6": (FEDAVG, [0.2, 1.6, 6.0]),
    "readme": (README, [0.5, 1.0, 2.0, 4.0, 8.0]),
    "sparse": (SPARSE, [0.05, 0.2, 0.5, 1.0]),
}


@pytest.mark.parametrize("case", list(DELTA_CASES))
def test_delta_over_epsilons_is_each_epsilons_alone(case):
    """DP-FedAvg's upper delta at eps 1.6 was 2.5e-12 in an array of 50 eps against 2.6e-15
    alone: the fine read took its tilt at the array's median."""
    run, eps = DELTA_CASES[case]
    batch = pld.SubsampledGaussianPLD(*run).delta(np.array(eps), bound="both")
    alone = scalars(lambda e: pld.SubsampledGaussianPLD(*run).delta(e, bound="both"), eps)
    assert_as_scalars(batch, alone, lower_at_least=True)


@pytest.mark.slow
def test_delta_over_fifty_epsilons_is_each_epsilons_alone():
    """DP-FedAvg's 50 eps from 0.2 to 6 (more than one max-of-outputs call, many buckets)."""
    eps = np.linspace(0.2, 6.0, 50)
    batch = pld.SubsampledGaussianPLD(*FEDAVG).delta(eps, bound="both")
    alone = scalars(lambda e: pld.SubsampledGaussianPLD(*FEDAVG).delta(e, bound="both"), eps)
    assert_as_scalars(batch, alone, lower_at_least=True)


def test_a_grid_of_points_and_deltas_is_each_question_alone():
    """Several points (noise multipliers) broadcast against several deltas: each element is the
    question of its point and delta alone."""
    sigma = np.array([0.9, 1.3])
    deltas = np.array([1e-6, 1e-9])
    lo, up = pld.SubsampledGaussianPLD(sigma[:, None], 0.01, 1000).epsilon(
        deltas[None, :], bound="both"
    )
    for i, s in enumerate(sigma):
        alone = scalars(
            lambda d: pld.SubsampledGaussianPLD(float(s), 0.01, 1000).epsilon(d, bound="both"),
            deltas,
        )
        assert_as_scalars((lo[i], up[i]), alone)


def test_the_other_doors_give_each_value_alone():
    """The PLD accountant, the composed PLD object and the training words: arrays as scalars."""
    deltas, eps = np.array([1e-5, 1e-10]), np.array([0.5, 1.6])
    accountant = pld.PLDAccountant().compose_subsampled_gaussian(*FEDAVG)
    assert_as_scalars(
        accountant.epsilon(deltas, bound="both"),
        scalars(lambda d: accountant.epsilon(d, bound="both"), deltas),
    )
    composed = accountant.composed_pld
    assert composed is not None
    assert_as_scalars(
        composed.epsilon(deltas, bound="both"),
        scalars(lambda d: composed.epsilon(d, bound="both"), deltas),
    )
    assert_as_scalars(
        composed.delta(eps, bound="both"),
        scalars(lambda e: composed.delta(e, bound="both"), eps),
        lower_at_least=True,
    )
    fedavg = DPFedAvg(noise_multiplier=1.0, sample_rate=1e-3, rounds=5000)
    assert_as_scalars(
        fedavg.delta(eps, bound="both"),
        scalars(lambda e: fedavg.delta(e, bound="both"), eps),
        lower_at_least=True,
    )
    sgd = DPSGD(noise_multiplier=1.1, sample_rate=256 / 60_000, steps=14_100)
    assert_as_scalars(
        sgd.epsilon(deltas, bound="both"), scalars(lambda d: sgd.epsilon(d, bound="both"), deltas)
    )


@pytest.mark.parametrize(
    "eps, upper",
    [
        (1.0, 1e-12),
        (1.6, 2.6e-15),
        (0.2, 7e-4),
        (3.7, 1.0),
        (1e-3, 1e-300),
        (0.0, 0.5),
        (2.0**5, 1e-20),
        (2.0**-20, 5e-324),  # a subnormal upper side: its own level
    ],
)
def test_the_fine_delta_key_brackets_its_epsilon_and_delta(eps, upper):
    """The bucket's centre is at most eps and above eps / ratio, its level at most the upper delta
    and above it / 10^decades: every eps of a bucket is read from below its centre's tilt."""
    centre, level = tilted_question.fine_delta_key(eps, upper)
    ratio, decades = tilted_question.FINE_DELTA_RATIO, tilted_question.FINE_DELTA_DECADES
    if eps > 0:
        assert eps / ratio < centre <= eps
    else:
        assert centre == 0.0
    assert upper / 10.0**decades < level <= upper or level == upper


@pytest.mark.parametrize("k", [-7, 0, 3, 10])
def test_the_fine_delta_keys_edges_fall_in_the_bucket_and_level_they_start(k):
    """A power of the ratio (as the doubles compute it) is its own centre and the double below it
    has the centre below; a power 10^(decades j) is its own level and the double below it has
    the level below."""
    ratio, decades = tilted_question.FINE_DELTA_RATIO, tilted_question.FINE_DELTA_DECADES
    edge, level = ratio**k, 10.0 ** (decades * (k - 10))
    assert tilted_question.fine_delta_key(edge, level) == (edge, level)
    below = tilted_question.fine_delta_key(
        float(np.nextafter(edge, 0.0)), float(np.nextafter(level, 0.0))
    )
    assert below == (ratio ** (k - 1), 10.0 ** (decades * (k - 11)))


@pytest.mark.slow
def test_two_kinds_of_round_give_each_value_alone():
    """A PLD accountant over two kinds of round (the tilted composition of the factors)."""

    def accountant():
        built = pld.PLDAccountant().compose_subsampled_gaussian(1.0, 0.01, 500)
        return built.compose_subsampled_gaussian(1.5, 0.02, 300)

    deltas, eps = np.array([1e-5, 1e-8, 1e-11]), np.array([0.3, 1.0, 2.5])
    assert_as_scalars(
        accountant().epsilon(deltas, bound="both"),
        scalars(lambda d: accountant().epsilon(d, bound="both"), deltas),
    )
    assert_as_scalars(
        accountant().delta(eps, bound="both"),
        scalars(lambda e: accountant().delta(e, bound="both"), eps),
    )


@pytest.mark.parametrize(
    "settings",
    [{"value_discretization_interval": 1e-4}, {"accuracy": 1e-2}],
    ids=["grid", "accuracy"],
)
def test_epsilon_on_a_grid_or_to_an_accuracy_is_each_deltas_alone(settings):
    """A grid given, or an accuracy: each delta of an array asked alone."""
    deltas = np.array([1e-5, 1e-8, 1e-11])
    batch = pld.SubsampledGaussianPLD(*FEDAVG, **settings).epsilon(deltas, bound="both")
    alone = scalars(
        lambda d: pld.SubsampledGaussianPLD(*FEDAVG, **settings).epsilon(d, bound="both"), deltas
    )
    assert_as_scalars(batch, alone)


def test_points_to_an_accuracy_finer_than_the_default_are_each_question_alone():
    """Two round counts broadcast against two deltas to an accuracy finer than the default's: the
    refined brackets are intersected with the default's, each point and delta asked alone
    (``default_reads.by_value``), whose chain would otherwise share the least tail of the points."""
    rounds, deltas = np.array([300, 3000]), np.array([1e-6, 1e-10])
    lo, up = pld.SubsampledGaussianPLD(1.0, 0.01, rounds[:, None], accuracy=5e-4).epsilon(
        deltas[None, :], bound="both"
    )
    for i, count in enumerate(rounds):
        alone = scalars(
            lambda d: pld.SubsampledGaussianPLD(1.0, 0.01, int(count), accuracy=5e-4).epsilon(
                d, bound="both"
            ),
            deltas,
        )
        assert_as_scalars((lo[i], up[i]), alone)


OTHER_PLDS = {
    "balls in bins": lambda: pld.BallsInBinsGaussianPLD(1.0, 100, 300),
    "fixed batch": lambda: pld.FixedBatchGaussianPLD(1.0, 100, 10_000, 500),
    "shuffled batch": lambda: pld.ShuffledBatchGaussianPLD(1.0, 100, 10_000, 300),
    "staged DP-SGD": lambda: DPSGD(
        stages=[{"noise_multiplier": 1.0, "steps": 500}, {"noise_multiplier": 1.5, "steps": 300}],
        sample_rate=0.01,
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(OTHER_PLDS))
def test_the_other_pld_accountants_give_each_value_alone(name):
    """The other PLD accountants and a staged run: arrays as scalars, both questions."""
    make = OTHER_PLDS[name]
    deltas, eps = np.array([1e-5, 1e-9]), np.array([0.3, 2.5])
    assert_as_scalars(
        make().epsilon(deltas, bound="both"),
        scalars(lambda d: make().epsilon(d, bound="both"), deltas),
    )
    assert_as_scalars(
        make().delta(eps, bound="both"), scalars(lambda e: make().delta(e, bound="both"), eps)
    )
