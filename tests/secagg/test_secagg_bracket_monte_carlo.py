"""A Monte Carlo of the exact discrete mechanism at small d and n, against each certified bracket.

The mechanism is run as it is deployed, per coordinate and per client: each of n clients draws its own noise
share on each of d coordinates (the discrete Gaussian from its PMF on +-40 s, the mass beyond below 1e-300;
Skellam as the difference of two Poissons of mean mu / 2), the shares are summed and the integer shift is added,
independently over T rounds.  The privacy loss L of an outcome is the log-ratio of the neighbouring laws, the
product over coordinates of the exact summed PMFs (``secagg.lattice_pld``'s masses), summed over the rounds, and
delta(eps) = E_P[(1 - e^{eps - L})_+] is estimated by its sample mean with its standard error (SE).  Every
test asserts lower - 4 SE <= estimate <= upper + 4 SE at several eps; a Monte Carlo estimate, not a certified
value.

* Against the server, the accountant's lower side is the shift k e_1 (k = floor(c / gamma) = 8): its estimate must
  also lie within 4 SE (plus the lower side's grid allowance) of the lower side, which is that pair's exact
  divergence.  A second realizable shift spread over every coordinate (integer, L2 norm <= c / gamma, so an
  input of norm <= c rounds to it) must stay below the upper side.
* Against an observer at q = 0.4, the pair is d-dimensional: with probability q the client's share and shift
  are in the sum (n + 1 shares on every coordinate), else n shares.  The lower side keeps the shifted
  coordinate alone (a post-processing), so the d-dimensional divergence lies above it and below the
  convexity bound.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick.secagg import DistributedDiscreteGaussian, DistributedSkellam

SAMPLES = 40_000
EPSILONS = np.array([0.25, 0.5, 1.0, 2.0])
GAMMA = 0.125  # c / gamma = 8 exactly (a double): the realizable shift k = 8 on one coordinate
BETA = math.exp(
    -0.5
)  # conditional rounding: Delta_2 = 8.55 at d = 2, 8.58 at d = 3 (KLS21, Thm. 1)
SPREAD = {2: (5, 6), 3: (5, 4, 4)}  # integer shifts of L2 norm <= 8 over every coordinate
LOCAL_SIGMA = 1.0  # s = 8 in integer units: delta of the order of 0.1 over a few rounds, each upper side below 1


def _shares(cls: type, s: float, size: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Independent one-client noise shares in integer units, s the share's sigma."""
    if cls is DistributedSkellam:
        return rng.poisson(s * s / 2, size) - rng.poisson(s * s / 2, size)
    half = int(40 * s) + 1  # the mass beyond is below e^{-800}
    y = np.arange(-half, half + 1)
    w = np.exp(-(y.astype(float) ** 2) / (2 * s * s))
    return rng.choice(y, size=size, p=w / w.sum())


def _log_pmf(acc, clients: int, y: np.ndarray) -> np.ndarray:
    """log P(N = y) for N the sum of ``clients`` shares, from the accountant's exact masses."""
    x0, masses, _, _ = acc.noise_masses(clients)
    index = y - x0
    assert index.min() >= 0 and index.max() < masses.size  # outside the window: below 1e-15 a draw
    return np.log(masses[index])


def _estimate(loss: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """delta(eps) = E[(1 - e^{eps - L})_+] at EPSILONS and its standard error."""
    terms = -np.expm1(np.minimum(EPSILONS[:, None] - loss[None, :], 0.0))
    return terms.mean(axis=1), terms.std(axis=1, ddof=1) / math.sqrt(loss.size)


def _server_loss(acc, shift: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """T-round privacy loss of n summed shares shifted by ``shift``, sampled under the shifted law."""
    n, t, d = acc.min_surviving_clients, acc.rounds, acc.dimension
    k = np.asarray(shift + (0,) * (d - len(shift)))
    noise = _shares(type(acc), acc.integer_sigma, (SAMPLES, t, d, n), rng).sum(axis=-1)
    y = noise + k
    per_coordinate = _log_pmf(acc, n, y - k) - _log_pmf(acc, n, y)
    return per_coordinate.sum(axis=(1, 2))


def _observer_loss(acc, rng: np.random.Generator) -> np.ndarray:
    """T-round privacy loss of the d-dimensional observer pair (module docstring), sampled under P."""
    n, t, d, q = acc.min_surviving_clients, acc.rounds, acc.dimension, acc.sampling_rate
    k = np.zeros(d, dtype=int)
    k[0] = acc.sensitivity.realizable_shift
    shares = _shares(type(acc), acc.integer_sigma, (SAMPLES, t, d, n + 1), rng)
    sampled = rng.random((SAMPLES, t)) < q
    y = np.where(sampled[..., None], shares.sum(axis=-1) + k, shares[..., :n].sum(axis=-1))

    def log_mixture(shifted: np.ndarray) -> np.ndarray:
        with_client = np.log(q) + _log_pmf(acc, n + 1, y - shifted).sum(axis=-1)
        without = np.log1p(-q) + _log_pmf(acc, n, y).sum(axis=-1)
        return np.logaddexp(with_client, without)

    return (log_mixture(k) - log_mixture(np.zeros(d, dtype=int))).sum(axis=1)


CASES = [(2, 1, 1), (2, 2, 3), (2, 3, 2), (3, 1, 3), (3, 2, 1), (3, 3, 2)]  # (d, n, T)


def _accountant(cls: type, d: int, n: int, rounds: int, rate: float = 1.0):
    return cls(
        clip_norm=1.0,
        granularity=GAMMA,
        dimension=d,
        local_sigma=LOCAL_SIGMA,
        beta=BETA,
        min_surviving_clients=n,
        rounds=rounds,
        sampling_rate=rate,
    )


@pytest.mark.parametrize("cls", [DistributedDiscreteGaussian, DistributedSkellam])
@pytest.mark.parametrize(("d", "n", "rounds"), CASES)
def test_server_monte_carlo_inside_the_bracket(cls, d, n, rounds):
    """Monte Carlo (seeded): the realized shift k e_1 lands on the lower side within 4 SE and below the upper
    side; the shift spread over every coordinate lands below the upper side."""
    acc = _accountant(cls, d, n, rounds)
    assert acc.sensitivity.realizable_shift == 8
    rng = np.random.default_rng(1000 * d + 10 * n + rounds)
    lower, upper = acc.delta(EPSILONS, bound="both")
    estimate, se = _estimate(_server_loss(acc, (8,), rng))
    assert (lower - 4 * se <= estimate).all() and (estimate <= upper + 4 * se).all()
    assert (
        np.abs(estimate - lower) <= 4 * se + 1e-3 * lower
    ).all()  # the lower side is this pair's divergence
    assert (estimate[:2] > 0.05).all()  # a bracket of nothing checks nothing
    spread, spread_se = _estimate(_server_loss(acc, SPREAD[d], rng))
    assert (spread <= upper + 4 * spread_se).all()


@pytest.mark.parametrize("cls", [DistributedDiscreteGaussian, DistributedSkellam])
@pytest.mark.parametrize(("d", "n", "rounds"), [(2, 1, 2), (3, 2, 3)])
def test_observer_monte_carlo_inside_the_bracket(cls, d, n, rounds):
    """Monte Carlo (seeded) of the d-dimensional observer pair at q = 0.4: above the one-coordinate lower side
    and below the convexity upper side, each within 4 SE."""
    acc = _accountant(cls, d, n, rounds, rate=0.4)
    rng = np.random.default_rng(7 * d + n)
    lower, upper = acc.delta(EPSILONS, bound="both", against="observer")
    estimate, se = _estimate(_observer_loss(acc, rng))
    assert (lower - 4 * se <= estimate).all() and (estimate <= upper + 4 * se).all()
    assert (estimate[:2] > 0.01).all()
