"""The wrap-around bound against a Monte Carlo of the whole round at small n and d: rotation, rounding, noise, sum.

Each trial runs the pipeline ``modular_wrap`` describes: n clients with the same update c e_1 (every client's
signal adds up: the bound's worst case), the randomized Walsh-Hadamard rotation, scaling by 1 / gamma,
randomized rounding (conditional: re-drawn until KLS21's norm bound holds at beta = e^{-1/2}), each
client's noise (the discrete Gaussian sampled from its PMF on +-20 s, the rest below 1e-80; Skellam as a
difference of Poissons), and the sum.  The event counted is the bound's, some |S_j| >= 2^{b-1}.  With N
independent trials the frequency exceeds its mean by t = sqrt(log(1/eta) / (2N)) with probability at most eta
(Hoeffding), eta = 1e-9 here: the test asserts frequency <= bound + t.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick.secagg import bits_for, wrap_probability
from hockeystick.secagg.modular_wrap import log_chernoff_tail

TRIALS = 20_000
ETA = 1e-9


def _hadamard(d: int) -> np.ndarray:
    h = np.ones((1, 1))
    while h.shape[0] < d:
        h = np.block([[h, h], [h, -h]])
    return h / math.sqrt(d)


def _rounded(
    y: np.ndarray, clients: int, conditional: bool, rng: np.random.Generator
) -> np.ndarray:
    """TRIALS x clients randomized roundings of y, re-drawn until KLS21's bound holds when conditional."""
    d = y.size
    norm = float(np.linalg.norm(y))
    bound = norm**2 + d / 4 + math.sqrt(2 * 0.5) * (norm + math.sqrt(d) / 2)  # log(1 / beta) = 1/2
    floor, frac = np.floor(y), y - np.floor(y)
    out = np.empty((TRIALS, clients, d))
    todo = np.argwhere(np.ones((TRIALS, clients), dtype=bool))
    while todo.size:
        draws = floor + (rng.random((len(todo), d)) < frac)
        ok = (draws * draws).sum(axis=1) <= bound if conditional else np.ones(len(todo), dtype=bool)
        out[todo[ok, 0], todo[ok, 1]] = draws[ok]
        todo = todo[~ok]
    return out


def _noise(kind: str, s: float, clients: int, d: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "skellam":  # the sum of n Skellam(s^2) is Pois(n s^2 / 2) - Pois(n s^2 / 2)
        half = clients * s * s / 2
        return rng.poisson(half, (TRIALS, d)) - rng.poisson(half, (TRIALS, d))
    support = np.arange(-int(20 * s) - 2, int(20 * s) + 3)
    weights = np.exp(-np.square(support) / (2 * s * s))
    return rng.choice(support, (TRIALS, clients, d), p=weights / weights.sum()).sum(axis=1)


def _wrap_frequency(
    kind, rounding, *, bits, clients, dimension, clip_norm, granularity, local_sigma, seed
):
    rng = np.random.default_rng(seed)
    update = np.zeros(dimension)
    update[0] = clip_norm
    rotated = _hadamard(dimension) @ (rng.choice([-1.0, 1.0], dimension) * update) / granularity
    total = _rounded(rotated, clients, rounding == "conditional", rng).sum(axis=1)
    total += _noise(kind, local_sigma / granularity, clients, dimension, rng)
    return float((np.abs(total) >= 2.0 ** (bits - 1)).any(axis=1).mean())


@pytest.mark.parametrize("kind", ["distributed_discrete_gaussian", "skellam"])
@pytest.mark.parametrize(
    ("rounding", "granularity", "local_sigma", "seed"),
    [
        ("conditional", 0.08, 0.5, 11),
        ("conditional", 0.1, 0.6, 12),
        ("unconditional", 0.08, 0.45, 13),
    ],
)
def test_the_wrap_frequency_stays_below_the_bound(kind, rounding, granularity, local_sigma, seed):
    run = dict(
        bits=7,
        clients=5,
        dimension=16,
        clip_norm=1.0,
        granularity=granularity,
        local_sigma=local_sigma,
    )
    bound = wrap_probability(**run, noise=kind, rounding=rounding)
    assert 0.01 < bound < 1.0  # an informative case: the bound is neither vacuous nor negligible
    frequency = _wrap_frequency(kind, rounding, **run, seed=seed)
    assert frequency > 0.0  # the pipeline does wrap here: the simulation reaches the event
    assert frequency <= bound + math.sqrt(math.log(1 / ETA) / (2 * TRIALS))


@pytest.mark.parametrize("kind", ["distributed_discrete_gaussian", "skellam"])
def test_one_bit_fewer_wraps_often(kind):
    # the bound is not far from the truth on the bits it picks: at one bit fewer the round wraps in a visible
    # share of the trials
    run = dict(clients=5, dimension=16, clip_norm=1.0, granularity=0.1, local_sigma=0.3)
    assert wrap_probability(bits=7, **run, noise=kind) < 0.01
    assert _wrap_frequency(kind, "conditional", bits=6, **run, seed=5) > 0.01


def _wrapped_fraction(kind, *, bits, clients, dimension, clip_norm, granularity, local_sigma, seed):
    """The mean over trials of the fraction of the d coordinates that wrap (the same pipeline as above)."""
    rng = np.random.default_rng(seed)
    update = np.zeros(dimension)
    update[0] = clip_norm
    rotated = _hadamard(dimension) @ (rng.choice([-1.0, 1.0], dimension) * update) / granularity
    total = _rounded(rotated, clients, True, rng).sum(axis=1)
    total += _noise(kind, local_sigma / granularity, clients, dimension, rng)
    return float((np.abs(total) >= 2.0 ** (bits - 1)).mean())


@pytest.mark.parametrize("kind", ["distributed_discrete_gaussian", "skellam"])
def test_the_per_coordinate_bound_holds_the_wrapped_fraction(kind):
    """per="coordinate" bounds one coordinate's wrap, so the expected fraction of wrapped coordinates: the trials'
    mean fraction (each trial's in [0, 1], independent across trials) stays below it within Hoeffding's margin."""
    run = dict(bits=7, clients=5, dimension=16, clip_norm=1.0, granularity=0.08, local_sigma=0.5)
    bound = wrap_probability(**run, noise=kind, per="coordinate")
    assert 1e-3 < bound < 0.2
    fraction = _wrapped_fraction(kind, **run, seed=21)
    assert 0.0 < fraction <= bound + math.sqrt(math.log(1 / ETA) / (2 * TRIALS))
    assert (
        bound < wrap_probability(**run, noise=kind) / 4
    )  # well below the round's union over 16 coordinates


@pytest.mark.parametrize("kind", ["distributed_discrete_gaussian", "skellam"])
def test_the_noise_tail_is_tighter_than_the_joint_chernoff_bound(kind):
    """The round's bound reads the noise's masses (log_noise_tail_bound) where they are tighter than the Chernoff
    bound alone: at the cross-device example's discrete Gaussian noise and 20 bits, about 10 times; Skellam's summed
    variance (5.8e9) is past scipy's Bessel function there, and the Chernoff bound stands."""
    run = dict(
        bits=20, clients=1000, dimension=10**6, clip_norm=1.0, granularity=3.4073954964729036e-4
    )
    sigma = 0.8178681542682358
    ours = wrap_probability(**run, local_sigma=sigma, noise=kind)
    s = sigma / run["granularity"]
    signal = (1000 / run["granularity"]) ** 2 / 10**6
    m = 2.0**19 - 1000
    v, big_v = (signal + 1000 * s * s, 0.0) if kind != "skellam" else (signal, 1000 * s * s)
    chernoff = 2e6 * math.exp(log_chernoff_tail(m, v, big_v))
    assert ours <= chernoff * (1 + 1e-8)
    if kind != "skellam":
        assert ours < chernoff / 5


def test_bits_for_picks_bits_the_simulation_confirms():
    """bits_for(0.02): at its bits the round's simulated wrap frequency is below 0.02 (within Hoeffding's margin),
    and one bit fewer wraps in a visible share of the rounds (the bits are not spent for nothing)."""
    run = dict(clients=5, dimension=16, clip_norm=1.0, granularity=0.1, local_sigma=0.3)
    bits = bits_for(0.02, **run)
    margin = math.sqrt(math.log(1 / ETA) / (2 * TRIALS))
    assert (
        _wrap_frequency("distributed_discrete_gaussian", "conditional", bits=bits, **run, seed=31)
        <= 0.02 + margin
    )
    assert (
        _wrap_frequency(
            "distributed_discrete_gaussian", "conditional", bits=bits - 1, **run, seed=32
        )
        > 0.002
    )
