"""MMCC's pieces against independent computations on small cases: the conditional participation bounds against
the exact posterior and the exact tail probability (patterns enumerated, Gaussian tails from scipy); the
dominating row law against the exact law of the weighted Bernoulli sum (every upper tail at or above it)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from hockeystick.matrix import PoissonSampling
from hockeystick.matrix.mmcc_participation import participation_bounds
from hockeystick.matrix.mmcc_rows import dominating_law

MATRICES = {
    "ones": np.tril(np.ones((5, 5))),
    "banded": np.tril(np.ones((5, 5))) - np.tril(np.ones((5, 5)), -2),
    "non_toeplitz": np.tril(np.random.default_rng(3).uniform(0.0, 1.5, (5, 5))),
}


def patterns(n: int) -> np.ndarray:
    return np.array(list(itertools.product((0, 1), repeat=n)), dtype=float)


def exact_tail(
    c: np.ndarray, i: int, j: int, eps: float, z: float, q: float
) -> tuple[float, float]:
    """P(L_ij > eps) with and without the record: L_ij = (<a, y> - |a|^2/2) / z^2, a = C[:i, j], y = C S + z N
    (or z N), S over every pattern; each probability a Gaussian tail given S."""
    a = c[:i, j]
    norm = float(np.linalg.norm(a))
    s = patterns(c.shape[1])
    prior = np.prod(np.where(s == 1, q, 1 - q), axis=1)
    means = s @ c[:i].T @ a  # <a, C[:i] s>
    threshold = eps * z * z + norm * norm / 2
    with_record = float(prior @ stats.norm.sf((threshold - means) / (z * norm)))
    without = float(stats.norm.sf(threshold / (z * norm)))
    return with_record, without


@pytest.mark.parametrize("z", [1.3, 4.0])
@pytest.mark.parametrize("name", sorted(MATRICES))
def test_tail_share_holds_exactly(name: str, z: float) -> None:
    c = MATRICES[name]
    q, tail = 0.2, 1e-3
    bounds = participation_bounds(c, z, q, tail)
    assert bounds.events * bounds.tail_share <= tail
    checked = 0
    for i, j in itertools.product(range(5), range(5)):
        p = bounds.bounds[i, j]
        if c[i, j] > 0 and np.any(c[:i, j] > 0):
            eps = float(np.log(p * (1 - q) / (q * (1 - p)))) if p < 1 else np.inf
            with_record, without = exact_tail(c, i, j, eps * (1 - 1e-6), z, q)
            assert with_record <= bounds.tail_share and without <= bounds.tail_share
            # not vacuous: with noise well above the shifts the Chernoff bound is within 2 orders of the exact tail
            assert p < 1 and (z < 4.0 or with_record > bounds.tail_share * 1e-2)
            checked += 1
        else:
            assert p == q
    assert checked == bounds.events > 0


@pytest.mark.parametrize("name", sorted(MATRICES))
def test_posterior_below_bound_where_loss_is_small(name: str) -> None:
    """Exact posterior P(S_j = 1 | y[:i], S_<j = s) over every s, at draws y of the pair with the record, is at
    most q~_ij wherever L_ij(y) <= eps_ij."""
    c = MATRICES[name]
    z, q = 1.0, 0.3
    bounds = participation_bounds(c, z, q, 0.05)
    rng = np.random.default_rng(7)
    n = c.shape[1]
    s_all = patterns(n)
    prior = np.prod(np.where(s_all == 1, q, 1 - q), axis=1)
    for _ in range(40):
        s_true = (rng.random(n) < q).astype(float)
        y = c @ s_true + z * rng.standard_normal(n)
        for i in range(1, n):
            like = prior * np.exp(-((y[:i] - s_all @ c[:i].T) ** 2).sum(axis=1) / (2 * z * z))
            for j in range(i):
                a = c[:i, j]
                p = bounds.bounds[i, j]
                if not a.any() or c[i, j] == 0 or p >= 1:
                    continue
                eps = np.log(p * (1 - q) / (q * (1 - p)))
                loss = (a @ y[:i] - a @ a / 2) / (z * z)
                if loss > eps:
                    continue
                for prefix in itertools.product((0, 1), repeat=j):
                    match = np.all(s_all[:, :j] == np.array(prefix), axis=1)
                    posterior = like[match & (s_all[:, j] == 1)].sum() / like[match].sum()
                    assert posterior <= p * (1 + 1e-9)


def exact_law(entries: np.ndarray, probabilities: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = patterns(entries.size)
    weights = np.prod(np.where(s == 1, probabilities, 1 - probabilities), axis=1)
    return s @ entries, weights


@pytest.mark.parametrize("seed", range(6))
def test_dominating_law_tails_above_exact(seed: int) -> None:
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 9))
    entries = rng.uniform(1e-3, 2.0, k) * (10.0 ** rng.integers(-3, 1, k))
    probabilities = rng.uniform(0.0, 1.0, k)
    cells = int(rng.choice([4, 64, 1024]))
    shifts, weights = dominating_law(entries, probabilities, cells)
    assert weights.sum() == 1.0 and (weights > 0).all() and np.all(np.diff(shifts) > 0)
    totals, exact = exact_law(entries, probabilities)
    for t in np.unique(np.concatenate([totals, shifts])):
        assert exact[totals >= t].sum() <= weights[shifts >= t].sum() * (1 + 1e-12)
    # not vacuous: the mean moves up by at most one lattice step per entry, then by the coarse grid's 1/64
    step = 2.0 ** np.ceil(np.log2(entries.sum() / cells))
    assert weights @ shifts <= (exact @ totals + k * step) * (1 + 1 / 64) + 1e-12


def test_dominating_law_exact_where_entries_are_whole_steps() -> None:
    shifts, weights = dominating_law(np.array([1.0, 2.0, 3.0]), np.array([0.5, 0.25, 0.125]), 64)
    totals, exact = exact_law(np.array([1.0, 2.0, 3.0]), np.array([0.5, 0.25, 0.125]))
    for t, w in zip(shifts, weights):
        assert w == pytest.approx(exact[totals == t].sum(), abs=1e-13)


@pytest.mark.parametrize(
    ("q", "tail", "truncates"), [(0.05, 1e-6, True), (0.3, 1e-9, False), (1.0, 1e-30, False)]
)
def test_poisson_law_truncated_within_its_weight_error(
    q: float, tail: float, truncates: bool
) -> None:
    """PoissonSampling's law against every pattern of 12 rounds: each computed atom at most the exact one (the
    truncation only drops patterns), the L1 distance within ``weight_error``, and the mass above ``most`` at
    most ``tail`` (so the cap is a valid Chernoff bound, below the largest total where that has more mass)."""
    units = np.random.default_rng(5).integers(0, 9, 12)
    sampling = PoissonSampling(q, tail=tail)
    totals, weights = sampling.law(units)
    s = patterns(12)
    exact_totals = (s @ units).astype(int)
    exact = np.bincount(exact_totals, weights=np.prod(np.where(s == 1, q, 1 - q), axis=1))
    computed = np.zeros(exact.size)
    computed[totals] = weights
    assert (computed <= exact * (1 + 1e-12) + 1e-300).all()
    assert np.abs(computed - exact).sum() <= sampling.weight_error(12)
    cap = sampling.most(units)
    assert exact[cap + 1 :].sum() <= tail
    assert (cap < units.sum()) == truncates


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"sampling_prob": 0.0}, "sampling_prob must lie in"),
        ({"sampling_prob": 1.5}, "sampling_prob must lie in"),
        ({"sampling_prob": 0.5, "tail": 1e-2}, "tail must lie in"),
        ({"sampling_prob": 0.5, "tail": 0.0}, "tail must lie in"),
    ],
)
def test_poisson_sampling_refusals_name_the_argument(
    kwargs: dict[str, float], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        PoissonSampling(**kwargs)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("cut", [5e-4, 1e-6, 1e-12])
def test_dominating_law_cut_drops_at_most_cut_and_dominates_the_rest(seed: int, cut: float) -> None:
    """With ``cut``, the exact law's mass at or above the largest shift kept plus one lattice step is at most
    ``cut`` (what ``mmcc`` charges), and the exact law conditioned below that point has every upper tail at or
    below the computed one; the cut happens (the largest shift is below the entries' total) where the exact
    top tail is below ``cut``."""
    rng = np.random.default_rng(100 + seed)
    k = int(rng.integers(4, 11))
    entries = rng.uniform(0.2, 2.0, k)
    probabilities = rng.uniform(0.01, 0.4, k)
    shifts, weights = dominating_law(entries, probabilities, 1024, cut)
    assert weights.sum() == 1.0 and (weights > 0).all() and np.all(np.diff(shifts) > 0)
    totals, exact = exact_law(entries, probabilities)
    step = 2.0 ** np.ceil(np.log2(entries.sum() / 1024))
    # every kept total rounds up to at most the largest shift: what lies above it was dropped
    dropped = exact[np.ceil(totals / step) * step > shifts[-1]].sum()
    assert dropped <= cut
    kept = 1.0 - dropped
    for t in np.unique(np.concatenate([totals, shifts])):
        conditional = (
            exact[(totals >= t) & (np.ceil(totals / step) * step <= shifts[-1])].sum()
        ) / kept
        assert conditional <= weights[shifts >= t].sum() * (1 + 1e-12) + 1e-300
    if exact[totals >= totals.max()].sum() < cut / 2:
        assert shifts[-1] < np.ceil(totals.max() / step) * step


def test_dominating_law_keeps_few_atoms_exactly() -> None:
    """One entry (C = I's rows): the atoms 0 and 1 themselves, not moved up to a coarse grid point (which would
    be 1.0054 at 16384 cells)."""
    shifts, weights = dominating_law(np.array([1.0]), np.array([0.1]), 2**14)
    assert shifts.tolist() == [0.0, 1.0]
    assert weights[1] == pytest.approx(0.1, rel=1e-15) and weights[1] >= 0.1


@pytest.mark.parametrize("cut", [-1e-3, 0.5])
def test_dominating_law_refuses_a_cut_outside_its_range(cut: float) -> None:
    with pytest.raises(ValueError, match="cut must lie in"):
        dominating_law(np.array([1.0]), np.array([0.1]), 64, cut)
