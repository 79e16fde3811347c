"""The matrix mechanism's L2 sensitivity against dense brute force on small strategies.

Brute force: every participation pattern of the schema, and for each every sign vector s, the value
||C (s * 1_pi)||^2 (each contribution +-u for one unit vector u).  That is the sensitivity when X = C^T C is
entrywise non-negative (all signs +), and a lower bound on it otherwise; the routine's exact answers must
equal it and its upper bounds must not fall below it, its lower sides never above the truth.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest

from hockeystick.matrix import (
    BLT,
    Banded,
    DenseStrategy,
    FixedEpochs,
    MinSeparation,
    Tree,
    l2_sensitivity,
)
from hockeystick.matrix import sensitivity as sensitivity_module
from hockeystick.matrix.participation import Participation
from hockeystick.matrix.selection import count_patterns, patterns
from hockeystick.matrix.tree_levels import tree_level_bound
from hockeystick.rdp.tree_aggregation import tree_depth


def _schema_patterns(rounds: int, schema: Participation) -> list[tuple[int, ...]]:
    """Every pattern by plain enumeration of subsets (independent of selection.patterns); under fixed epochs
    every part of an offset's rounds s, s + b, ... in the first k' epochs (a user may skip a round)."""
    k = schema.participations(rounds)
    out = []
    for size in range(1, k + 1):
        for subset in itertools.combinations(range(rounds), size):
            gaps = np.diff(subset)
            if schema.fixed:
                b = schema.separation
                ok = len({r % b for r in subset}) == 1 and all(r // b < k for r in subset)
            else:
                ok = (gaps >= schema.separation).all()
            if ok:
                out.append(subset)
    return out


def brute_force(c: np.ndarray, schema: Participation) -> float:
    """max over patterns and sign vectors of ||C (s * 1_pi)||^2, in 50-digit arithmetic."""
    mpmath.mp.dps = 50
    cm = mpmath.matrix(c.tolist())
    best = mpmath.mpf(0)
    for pattern in _schema_patterns(c.shape[1], schema):
        for signs in itertools.product((1, -1), repeat=len(pattern) - 1):
            signs = (1, *signs)  # a global sign changes nothing
            total = mpmath.mpf(0)
            for r in range(c.shape[0]):
                row = mpmath.fsum(cm[r, j] * s for j, s in zip(pattern, signs))
                total += row * row
            best = max(best, total)
    return float(best)


def _schemas(rounds: int) -> list[Participation]:
    out = []
    for b in range(1, rounds + 1):
        for k in (None, 1, 2, 3):
            out.append(MinSeparation(b, k))
            out.append(FixedEpochs(b, k))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_nonnegative_matrices_are_exact_and_equal_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    c = np.tril(rng.uniform(0, 1, size=(n, n)) * (rng.uniform(size=(n, n)) < 0.7))
    c[np.diag_indices(n)] += 0.1
    for schema in _schemas(n):
        got = l2_sensitivity(DenseStrategy(c), n, schema)
        truth = brute_force(c, schema)
        assert got.kind == "exact", (schema, got)
        assert got.lower**2 <= truth <= got.upper**2, (schema, got, truth)
        assert got.upper**2 == pytest.approx(truth, rel=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_signed_matrices_are_bounded_above_and_exact_where_labelled(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(2, 6))
    c = np.tril(rng.normal(size=(n, n)))
    for schema in _schemas(n):
        got = l2_sensitivity(DenseStrategy(c), n, schema)
        rank_one = brute_force(c, schema)  # <= the truth; equal to it for one participation
        assert got.upper**2 >= rank_one * (1 - 1e-15), (schema, got, rank_one)
        assert got.lower <= got.upper
        if got.kind == "exact":
            assert got.upper**2 == pytest.approx(rank_one, rel=1e-12), (schema, got)
        if schema.participations(n) == 1:
            assert got.kind == "exact"


def test_random_unit_contributions_never_exceed_the_upper_side():
    """Contributions in many dimensions (not one direction with signs) stay within the bound."""
    rng = np.random.default_rng(5)
    c = np.tril(rng.normal(size=(6, 6)))
    for schema in (MinSeparation(1), MinSeparation(2, 2), FixedEpochs(2)):
        got = l2_sensitivity(DenseStrategy(c), 6, schema)
        for pattern in _schema_patterns(6, schema):
            x = rng.normal(size=(2000, len(pattern), 8))
            x /= np.linalg.norm(x, axis=-1, keepdims=True)
            moved = np.einsum("ri,tid->trd", c[:, list(pattern)], x)
            assert np.linalg.norm(moved, axis=(1, 2)).max() <= got.upper


def test_the_row_bound_covers_the_exact_value_when_enumeration_is_switched_off(monkeypatch):
    rng = np.random.default_rng(11)
    monkeypatch.setattr(sensitivity_module, "MAX_ENUMERATED", 0)
    for n, b, k in ((6, 1, 3), (6, 2, None), (5, 2, 2), (6, 3, None)):
        c = np.tril(rng.uniform(0, 1, size=(n, n)))
        got = l2_sensitivity(DenseStrategy(c), n, MinSeparation(b, k))
        truth = brute_force(c, MinSeparation(b, k))
        assert got.kind == "upper bound"
        assert got.lower**2 <= truth * (1 + 1e-15) and truth <= got.upper**2


@pytest.mark.parametrize("seed", range(4))
def test_non_increasing_toeplitz_reference_pattern_equals_brute_force(seed):
    """BLT with decays in [0, 1] and output scales summing to at most 1 (and non-increasing bands): the
    O(k n) pattern {0, b, 2b, ...} against every pattern on the dense matrix."""
    rng = np.random.default_rng(20 + seed)
    n = 7
    d = int(rng.integers(1, 4))
    omega = rng.dirichlet(np.ones(d)) * rng.uniform(0.2, 1.0)
    blt = BLT(rng.uniform(0, 1, size=d), omega)
    bands = Banded(np.sort(rng.uniform(0, 1, size=int(rng.integers(1, n + 1))))[::-1])
    for strategy in (blt, bands):
        assert strategy.decreasing_toeplitz(n) is not None
        dense = strategy.matrix(n)[0]
        for schema in _schemas(n):
            got = l2_sensitivity(strategy, n, schema)
            assert got.kind == "exact" and got.method.startswith("non-increasing Toeplitz")
            truth = brute_force(dense, schema)
            assert got.lower**2 <= truth <= got.upper**2
            assert got.upper**2 == pytest.approx(truth, rel=1e-12)


def test_an_increasing_toeplitz_is_not_given_the_reference_pattern():
    """c = (1, 2): the reference pattern is not the worst one, so the dense path must be taken."""
    strategy = Banded([1.0, 2.0])
    assert strategy.decreasing_toeplitz(5) is None
    got = l2_sensitivity(strategy, 5, MinSeparation(2, 2))
    assert got.upper**2 == pytest.approx(
        brute_force(strategy.matrix(5)[0], MinSeparation(2, 2)), rel=1e-12
    )


def test_blt_sums_of_output_scales_just_above_one_are_not_certified_decreasing():
    """omega = (0.75, 0.25 + 2^-54): the exact sum is 1 + 2^-54 (c_1 > c_0, not monotone), though its
    floating-point sum rounds to 1.0; the check is in exact rational arithmetic."""
    omega = [0.75, 0.25 + 2.0**-54]
    assert sum(omega) == 1.0  # what a float check would see
    assert BLT([0.5, 0.5], omega).decreasing_toeplitz(4) is None
    assert BLT([0.5, 0.5], [0.75, 0.25]).decreasing_toeplitz(4) is not None


def test_tree_single_participation_is_the_depth():
    """One participation: the largest column norm^2 of the tree is its depth floor(log2 n) + 1 (Kairouz
    et al. 2021, App. D), hockeystick's rdp.tree_aggregation.tree_depth."""
    for n in range(1, 130):
        got = l2_sensitivity(Tree(), n, MinSeparation(1, 1))
        assert got.kind == "exact"
        assert got.lower**2 <= tree_depth(n) <= got.upper**2
        assert got.upper**2 == pytest.approx(tree_depth(n), rel=1e-13)
        restarted = l2_sensitivity(Tree(restart_every=8), n, MinSeparation(8))
        blocks = -(-n // 8)
        expected = sum(tree_depth(min(8, n - 8 * j)) for j in range(blocks))
        assert restarted.kind == "exact"
        assert restarted.upper**2 == pytest.approx(expected, rel=1e-13)


def test_tree_every_round_is_the_sum_of_squared_node_counts():
    """Every round, every contribution the same vector: each node of 2^l rounds contributes 4^l."""
    for n in range(1, 40):
        expected = sum((n >> level) * 4**level for level in range(n.bit_length()))
        got = l2_sensitivity(Tree(), n, MinSeparation(1))
        assert got.kind == "exact" and got.lower**2 <= expected <= got.upper**2
        assert got.upper**2 == pytest.approx(expected, rel=1e-12)


def test_pattern_enumeration_and_count_agree_with_subsets():
    for n in range(1, 9):
        for b in range(1, n + 1):
            for k in (1, 2, 3, n):
                schema = MinSeparation(b, k)
                listed = sorted(patterns(n, b, schema.participations(n)))
                assert listed == sorted(_schema_patterns(n, schema))
                assert count_patterns(n, b, schema.participations(n), 10**6) == len(listed)


def test_blt_sensitivity_against_50_digit_arithmetic():
    """The BLT of federated-compute's accounting test at 100 rounds, min separation 50: the certified
    bracket holds the 50-digit value, within 1e-13 relative."""
    theta = [0.9999999999921251, 0.9944453083640997, 0.8985923474607591, 0.4912001418098778]
    omega = [0.0070314825502323835, 0.10613806907600574, 0.1898159060327625, 0.1966594748073734]
    mpmath.mp.dps = 50
    coef = [mpmath.mpf(1)] + [
        mpmath.fsum(mpmath.mpf(w) * mpmath.mpf(t) ** (k - 1) for t, w in zip(theta, omega))
        for k in range(1, 100)
    ]
    column_sum = [coef[m] + (coef[m - 50] if m >= 50 else 0) for m in range(100)]
    exact = mpmath.sqrt(mpmath.fsum(v * v for v in column_sum))
    got = l2_sensitivity(BLT(theta, omega), 100, MinSeparation(50))
    assert got.lower <= exact <= got.upper
    assert float((got.upper - exact) / exact) < 1e-13 and float((exact - got.lower) / exact) < 1e-13


def test_refusals_name_the_argument():
    with pytest.raises(ValueError, match="rounds must equal"):
        l2_sensitivity(DenseStrategy(np.eye(3)), 4, MinSeparation(1))
    with pytest.raises(ValueError, match="matrix must have a non-zero entry"):
        DenseStrategy(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="coefficients must have a non-zero entry"):
        Banded([0.0, 0.0])
    late = np.zeros((3, 3))
    late[2, 2] = 1.0  # only round 2, which one fixed epoch of 2 rounds (rounds 0, 1) never reaches
    with pytest.raises(
        ValueError, match="non-zero column among the rounds a user may take part in"
    ):
        l2_sensitivity(DenseStrategy(late), 3, FixedEpochs(2, 1))
    with pytest.raises(ValueError, match="buffer_decay and output_scale"):
        BLT([0.5], [0.1, 0.2])
    with pytest.raises(ValueError, match=r"buffer_decay must lie in \[0, 1\]"):
        BLT([1e300], [1.0])
    with pytest.raises(ValueError, match="output_scale must keep the BLT coefficients finite"):
        l2_sensitivity(BLT([1.0, 1.0], [1e308, 1e308]), 4, MinSeparation(1))
    with pytest.raises(ValueError, match="rounds must be <= 2048"):
        l2_sensitivity(Tree(), 4096, MinSeparation(1))
    with pytest.raises(ValueError, match="separation must be an integer >= 1"):
        MinSeparation(0)


def test_long_toeplitz_window_sums_against_correctly_rounded_sums():
    """3000 rounds, separation 7, every participation (k' = 429): the O(n log k) window sums' bracket holds the
    sensitivity from correctly rounded column sums (math.fsum) squared and summed in 40-digit arithmetic."""
    rng = np.random.default_rng(3)
    bands = np.sort(rng.uniform(0, 1, size=3000))[::-1]
    n, b = 3000, 7
    k = -(-n // b)
    v = [math.fsum(bands[m - j * b] for j in range(k) if j * b <= m) for m in range(n)]
    mpmath.mp.dps = 40
    exact = mpmath.sqrt(mpmath.fsum(mpmath.mpf(x) ** 2 for x in v))
    got = l2_sensitivity(Banded(bands), n, MinSeparation(b))
    assert got.kind == "exact"
    margin = 4 * 2.0**-53  # fsum's correctly rounded v: each within half an ulp
    assert got.lower <= exact * (1 + margin) and exact * (1 - margin) <= got.upper
    assert float((got.upper - got.lower) / exact) < 1e-10


def _subset_values(c: np.ndarray, schema: Participation) -> float:
    """max over every valid pattern of ||C 1_pi||^2 for a non-negative integer C: all 2^n subsets at once."""
    n = c.shape[1]
    subsets = (np.arange(1, 2**n)[:, None] >> np.arange(n)) & 1  # row s: the rounds of subset s
    k = schema.participations(n)
    ok = subsets.sum(axis=1) <= k
    rounds = np.arange(n)
    for i in range(n):
        for j in range(i + 1, n):
            both = (subsets[:, i] == 1) & (subsets[:, j] == 1)
            if schema.fixed:
                bad = (
                    (j - i) % schema.separation != 0
                    or j // schema.separation >= k
                    or i // schema.separation >= k
                )
            else:
                bad = j - i < schema.separation
            if bad:
                ok &= ~both
    if schema.fixed:
        ok &= ~((subsets == 1) & (rounds // schema.separation >= k)).any(axis=1)
    moved = subsets[ok] @ c.T  # each valid pattern's C 1_pi, in integers
    return float((moved.astype(np.int64) ** 2).sum(axis=1).max())


def test_tree_level_bound_covers_every_pattern_and_attained_bounds_are_exact(monkeypatch):
    """The tree's level-by-level bound is never below the brute-force maximum (restarted or not, min
    separation or fixed epochs), and where the search's pattern reaches it the result is labelled exact."""
    monkeypatch.setattr(sensitivity_module, "MAX_ENUMERATED", 0)
    for n in (1, 2, 5, 8, 11, 12):
        for restart in (None, 3, 4):
            c = Tree(restart_every=restart).matrix(n)[0].astype(np.int64)
            for schema in _schemas(n):
                truth = _subset_values(c, schema)
                assert tree_level_bound(n, restart, schema) >= truth - 1e-9, (n, restart, schema)
                got = l2_sensitivity(Tree(restart_every=restart), n, schema)
                assert got.lower**2 <= truth + 1e-9 <= got.upper**2 + 2e-9
                if got.kind == "exact":
                    assert got.upper**2 == pytest.approx(truth, rel=1e-15)
