"""The truncated-Poisson-sampled Gaussian (pld/sampling/truncated_subsampling.py) against exact enumeration.

For small n and B the mechanism's output on a dataset of one-dimensional contributions is a finite
Gaussian mixture, found here by enumerating every Poisson sample and every B-subset a cut keeps,
with no use of the module's formulas; its hockey-stick divergence is summed from normal CDFs between
the roots of p - e^eps q (in doubles, the roots refined to the doubles' spacing).  The certified upper
side must lie above every dataset's value and the certified lower side below the largest of them, one
round and two.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from hockeystick import _core, pld
from hockeystick.pld.mechanisms.monotone import core_side_factor
from hockeystick.pld.sampling import truncated_subsampling as T


def outputs(contributions: list[float], q: Fraction, b: int) -> dict[Fraction, Fraction]:
    """The law of the kept sum: every Poisson sample of the records, cut to each B-subset alike."""
    law: dict[Fraction, Fraction] = {}
    n = len(contributions)
    values = [Fraction(c) for c in contributions]
    for pattern in itertools.product((0, 1), repeat=n):
        sample = [v for v, s in zip(values, pattern) if s]
        weight = q ** len(sample) * (1 - q) ** (n - len(sample))
        kept = (
            [sample] if len(sample) <= b else [list(c) for c in itertools.combinations(sample, b)]
        )
        for batch in kept:
            atom = sum(batch, Fraction(0))
            law[atom] = law.get(atom, Fraction(0)) + weight / len(kept)
    return law


class MixturePair:
    """P * N(0, sigma^2) and Q * N(0, sigma^2) for finite P, Q (atom -> mass), in doubles."""

    def __init__(self, p: dict, q: dict, sigma: float):
        self.pa = [(float(a), float(w)) for a, w in p.items() if w > 0]
        self.qa = [(float(a), float(w)) for a, w in q.items() if w > 0]
        self.sigma = sigma
        means = [a for a, _ in self.pa + self.qa]
        self.lo, self.hi = min(means), max(means)
        self.grid = np.linspace(self.lo - 40 * sigma, self.hi + 40 * sigma, 20001)
        self.grid_loss = self.log_p(self.grid) - self.log_q(self.grid)

    def _log_density(self, y, atoms: list) -> np.ndarray:
        s = self.sigma
        terms = [
            np.log(w) - 0.5 * ((np.asarray(y) - a) / s) ** 2 - np.log(s * np.sqrt(2 * np.pi))
            for a, w in atoms
        ]
        return np.logaddexp.reduce(terms, axis=0)

    def log_p(self, y):
        return self._log_density(y, self.pa)

    def log_q(self, y):
        return self._log_density(y, self.qa)

    def loss(self, y: float) -> float:
        return float(self.log_p(y) - self.log_q(y))

    def _mass(self, lo: float, hi: float, atoms: list) -> float:
        from scipy.special import ndtr

        return sum(
            w * (ndtr((hi - a) / self.sigma) - ndtr((lo - a) / self.sigma)) for a, w in atoms
        )

    def divergence(self, t: float) -> float:
        """E_{e^t}(P || Q): P - e^t Q summed from normal CDFs over the intervals where the loss exceeds t,
        between its roots (sign changes on a grid 40 sigma past every atom, refined by brentq)."""
        from scipy.optimize import brentq

        above = self.grid_loss > t
        grid = self.grid
        roots = [
            brentq(lambda y: self.loss(y) - t, grid[i], grid[i + 1], xtol=1e-15, rtol=1e-15)
            for i in np.flatnonzero(above[1:] != above[:-1])
        ]
        cuts = [-np.inf, *roots, np.inf]
        total = 0.0
        for a, b in zip(cuts[:-1], cuts[1:]):
            if self.loss(_interior(a, b)) > t:
                total += self._mass(a, b, self.pa) - np.exp(t) * self._mass(a, b, self.qa)
        return total


def _interior(a, b):
    """A point inside (a, b), either end possibly infinite."""
    if a == -np.inf:
        return 0.0 if b == np.inf else b - 1
    return a + 1 if b == np.inf else (a + b) / 2


def datasets(n: int):
    """x = 1 and the other n - 1 contributions from {-1, 0, 1}, as multisets."""
    for others in itertools.combinations_with_replacement((-1.0, 0.0, 1.0), n - 1):
        yield [1.0, *others]


SETTINGS = [
    (5, Fraction(1), 2, 1.0),
    (5, Fraction(1, 2), 2, 1.0),
    (6, Fraction(3, 10), 1, 0.8),
    (6, Fraction(7, 10), 3, 2.0),
]
EPSILONS = [0.0, 0.5, 1.5]


def exact_deltas(n: int, q: Fraction, b: int, sigma: float) -> np.ndarray:
    """max over datasets and both directions of the exact delta at EPSILONS."""
    best = np.zeros(len(EPSILONS))
    for data in datasets(n):
        with_x, without_x = outputs(data, q, b), outputs(data[1:], q, b)
        pairs = MixturePair(with_x, without_x, sigma), MixturePair(without_x, with_x, sigma)
        for i, eps in enumerate(EPSILONS):
            best[i] = max(best[i], *(pair.divergence(eps) for pair in pairs))
    return best


@pytest.fixture(scope="module")
def exact() -> dict:
    return {s: exact_deltas(*s) for s in SETTINGS}


@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize("analysis", ["conditioned", "dp_accounting"])
def test_one_round_brackets_the_worst_dataset(exact, setting, analysis):
    n, q, b, sigma = setting
    dist = T.truncated_subsampled_gaussian(
        n, float(q), b, sigma, analysis=analysis, value_discretization_interval=1e-4
    )
    lower, upper = dist.delta(np.array(EPSILONS), bound="both")
    assert np.all(upper >= exact[setting]), (upper, exact[setting])
    assert np.all(lower <= exact[setting]), (lower, exact[setting])


def test_conditioned_pair_is_exact_at_q_one(exact):
    """q = 1: K = n - 1 always, the conditioned pair is one realizable pair (others at -1): the bracket
    closes on the exact worst case, to the grid's width."""
    setting = SETTINGS[0]
    lower, upper = T.truncated_subsampled_gaussian(
        5, 1.0, 2, 1.0, value_discretization_interval=1e-4
    ).delta(np.array(EPSILONS), bound="both")
    assert np.all(upper - lower <= 1e-3 * upper + 1e-12)
    assert np.all((lower <= exact[setting]) & (exact[setting] <= upper))


def _composed_exact(p: dict, q: dict, sigma: float, eps: float) -> float:
    """E_{e^eps}(P x P || Q x Q) = integral of p(y) E_{e^eps q(y) / p(y)}(P || Q) dy (two rounds), in doubles:
    the inner is ``MixturePair.divergence``, the outer adaptive Gauss-Kronrod (QUADPACK), which bisects onto
    the kinks where the inner's count of roots changes (a tanh-sinh rule converges slowly there).  Its error
    estimate is held below 1e-12, far under the distance of either side to the truth."""
    from scipy import integrate

    pair = MixturePair(p, q, sigma)
    lo, hi = pair.lo - 12 * sigma, pair.hi + 12 * sigma  # the outer mass beyond: < 1e-32

    def outer(y: float) -> float:
        return float(np.exp(pair.log_p(y))) * pair.divergence(eps - pair.loss(y))

    value, error = integrate.quad(
        outer, lo, hi, points=np.linspace(lo, hi, 9)[1:-1], epsabs=1e-14, epsrel=1e-13, limit=500
    )
    assert error < 1e-12, error
    return value


@pytest.mark.slow
@pytest.mark.parametrize("others", [0.0, -1.0])
def test_two_rounds_realizable_pairs_below_their_dataset(others):
    """Each candidate lower side is its dataset's pair: its two-round lower delta is below that
    dataset's exact two-round delta, and the certified upper side above it."""
    n, q, b, sigma, eps = 4, 0.5, 1, 1.0, 0.5
    data = [1.0] + [others] * (n - 1)
    with_x, without_x = outputs(data, Fraction(1, 2), b), outputs(data[1:], Fraction(1, 2), b)
    truth = max(
        float(_composed_exact(with_x, without_x, sigma, eps)),
        float(_composed_exact(without_x, with_x, sigma, eps)),
    )
    pair = (
        T.others_at_zero(n, q, b, sigma, 1e-3)
        if others == 0.0
        else T.others_opposite(n, q, b, sigma, 1e-3)
    )
    assert pair.self_compose(2).delta(eps, bound="lower") <= truth
    upper = T.truncated_subsampled_gaussian(
        n, q, b, sigma, value_discretization_interval=1e-3
    ).self_compose(2)
    assert upper.delta(eps) >= truth


def test_old_lower_side_was_above_the_truth(exact):
    """The optimistic side of arXiv:2508.15089's mixture is no lower bound: at q = 1 it exceeds the
    worst dataset's exact delta (the realizable lower side does not)."""
    sigma = 1.0  # n = 5 records, q = 1, B = 2: the record kept with probability 2 / 5
    raw, _ = _core.pld_sampling.replace_one_mixture(
        sigma=sigma / 2, sampling_rate=2 / 5, tail=1e-15, h=1e-4, max_cells=1 << 26
    )
    forward = core_side_factor("replace", raw)
    old_lower = pld.PrivacyLossDistribution([{forward: 1}]).delta(np.array(EPSILONS), bound="lower")
    assert np.any(old_lower > exact[SETTINGS[0]] * (1 + 1e-6))


def test_published_jax_privacy_value_bracketed():
    """n = 50 000, q = 1, B = 1 024, sigma = 8, 10 000 steps, delta = 1e-5: the exact value is Poisson
    sampling at q = B / n with the sensitivity doubled, 2.09245 as published (jax_privacy's tests)."""
    lower, upper = (
        T.truncated_subsampled_gaussian(50_000, 1.0, 1024, 8.0)
        .self_compose(10_000)
        .epsilon(1e-5, bound="both")
    )
    exact = (
        pld.subsampled_gaussian(4.0, 1024 / 50_000).self_compose(10_000).epsilon(1e-5, bound="both")
    )
    assert lower <= exact[1] and upper >= exact[0]
    assert lower <= 2.09246 and upper >= 2.09245 and upper - lower < 1e-3


def test_conditioned_upper_tighter_than_dp_accounting_where_the_count_is_known():
    """Where the others' count is (nearly) fixed, the conditioned pair is far tighter (and both valid)."""
    args = (50_000, 0.05, 1024, 8.0)
    ours = T.truncated_subsampled_gaussian(*args).self_compose(1000).epsilon(1e-5)
    theirs = (
        T.truncated_subsampled_gaussian(*args, analysis="dp_accounting")
        .self_compose(1000)
        .epsilon(1e-5)
    )
    assert ours < 0.75 * theirs


def test_components_cover_the_count_law():
    """The weights cover K's law (each raised, so they sum to a little above 1); rates fall with k."""
    for n, q, b in [(1000, 0.05, 40), (50_000, 0.02048, 1056), (100, 1.0, 10), (10, 0.3, 20)]:
        w, rates, sens = T.conditioned_components(n, q, b)
        assert 1.0 <= w.sum() <= 1.0 + 1e-12
        assert np.all(rates <= q) and np.all(np.diff(rates[1:]) <= 0)
        assert np.all(sens[1:] == 2.0) and (sens[0] == 1.0) == (b > n - 1 or q < 1.0)


def test_arguments_refused():
    with pytest.raises(ValueError, match="analysis"):
        T.truncated_subsampled_gaussian(10, 0.5, 2, 1.0, analysis="exact")
    with pytest.raises(ValueError, match="truncated_batch_size"):
        T.truncated_subsampled_gaussian(10, 0.5, 0, 1.0)
