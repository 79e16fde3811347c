"""Shuffling (eps0, delta0)-DP randomizers (FMT Thm 3.8 evaluated with the exact clone sum) and paper 003's
shuffled Noisy MB-SGD: reductions, direction against exact shuffled mechanisms, monotonicity, refusals."""

import math

import numpy as np
import pytest
from scipy import stats

from hockeystick import registry
from hockeystick.isrl import (
    NoisyMBSGD,
    ShuffledApproximateLDP,
    ShuffledLDP,
    ShuffledNoisyMBSGD,
    fmt_theorem_3_8_charge,
)
from hockeystick.isrl.shuffle import clone_delta
from hockeystick.numerics.certified_theta import theta_lower


def shuffled_leaky_response_delta(eps0: float, delta0: float, n: int, eps: float) -> float:
    """Exact delta of n shuffled (eps0, delta0)-DP randomizers: with probability delta0 a user reveals its
    bit, otherwise it sends binary randomized response (truth with probability e^eps0 / (1 + e^eps0)).
    The other n - 1 users hold 0, the target 1 (P) or 0 (Q); the shuffled output is the counts
    (#revealed ones, #revealed zeros, #ones sent).  Worst of the two orders: any valid bound is above it."""
    q = 1 / (1 + math.exp(eps0))
    r0 = np.arange(n + 1)[:, None]
    k = np.arange(n + 1)[None, :]
    others = np.maximum(n - 1 - r0, 0)
    base = np.where(
        r0 <= n - 1, stats.binom.pmf(r0, n - 1, delta0) * stats.binom.pmf(k, others, q), 0.0
    )  # (r0, k)
    down_k = np.pad(base, ((0, 0), (1, 0)))[:, :-1]  # base[r0, k - 1]
    down_r = np.pad(base, ((1, 0), (0, 0)))[:-1, :]  # base[r0 - 1, k]
    p_hidden = (1 - delta0) * ((1 - q) * down_k + q * base)
    q_hidden = delta0 * down_r + (1 - delta0) * (q * down_k + (1 - q) * base)
    p_all = np.concatenate(
        [p_hidden.ravel(), delta0 * base.ravel()]
    )  # second block: the target revealed 1
    q_all = np.concatenate([q_hidden.ravel(), np.zeros(base.size)])
    e = math.exp(eps)
    return max(np.maximum(p_all - e * q_all, 0).sum(), np.maximum(q_all - e * p_all, 0).sum())


def test_delta0_zero_is_exactly_the_pure_clone_bound():
    eps = np.linspace(0, 2.5, 26)
    for eps0, n in [(1.0, 1000), (2.0, 50), (0.3, 10)]:
        approx, pure = (
            ShuffledApproximateLDP(epsilon0=eps0, delta0=0.0, n=n),
            ShuffledLDP(epsilon0=eps0, n=n),
        )
        assert np.array_equal(approx.delta(eps), pure.delta(eps))
        for d in (1e-3, 1e-6, 1e-9):
            assert approx.epsilon(d) == pure.epsilon(d)


@pytest.mark.parametrize(
    "eps0, delta0, n", [(1.0, 1e-3, 20), (0.5, 1e-2, 40), (2.0, 1e-4, 60), (1.0, 0.05, 8)]
)
def test_bound_is_above_an_exact_shuffled_approximate_dp_mechanism(eps0, delta0, n):
    acc = ShuffledApproximateLDP(epsilon0=eps0, delta0=delta0, n=n)
    tight = 0
    for eps in np.linspace(0, eps0 + 0.5, 12):
        exact = shuffled_leaky_response_delta(eps0, delta0, n, float(eps))
        bound = acc.delta(float(eps))
        assert bound >= exact - 1e-15, (eps, bound, exact)
        tight += bound < 2 * exact + 1e-3
    assert tight >= 1  # not a vacuous bound: within a factor 2 (plus 1e-3) somewhere


@pytest.mark.parametrize(
    "eps0, delta0, n", [(1.0, 1e-8, 1000), (0.5, 1e-6, 200), (3.0, 1e-10, 10_000)]
)
def test_between_the_pure_clone_bound_and_fmt_theorem_3_8_as_stated(eps0, delta0, n):
    acc = ShuffledApproximateLDP(epsilon0=eps0, delta0=delta0, n=n)
    for eps in np.linspace(0, eps0 * 0.99, 8):
        bound = acc.delta(float(eps))
        pure = clone_delta(eps0, n, float(eps), 1e-17)
        stated = pure + fmt_theorem_3_8_charge(
            epsilon=float(eps), epsilon0=eps0, delta0=delta0, n=n
        )
        assert pure <= bound <= stated * (1 + 1e-12), (eps, pure, bound, stated)


def test_monotone_in_epsilon_delta0_and_epsilon0():
    eps = np.linspace(0, 2.0, 41)
    curve = ShuffledApproximateLDP(epsilon0=1.5, delta0=1e-6, n=500).delta(eps)
    assert np.all(np.diff(curve) <= 0)
    assert curve[-1] == 1e-6  # from eps0 on: the local guarantee (delta0)
    by_delta0 = ShuffledApproximateLDP(
        epsilon0=1.5, delta0=np.array([0, 1e-9, 1e-7, 1e-5, 1e-3]), n=500
    )
    for e in (0.1, 0.4, 1.0):
        assert np.all(np.diff(by_delta0.delta(e)) >= 0)
    by_eps0 = ShuffledApproximateLDP(
        epsilon0=np.array([0.5, 1.0, 1.5, 2.0, 3.0]), delta0=1e-8, n=500
    )
    for e in (0.1, 0.3):
        assert np.all(np.diff(by_eps0.delta(e)) >= 0)
    eps_curve = ShuffledApproximateLDP(epsilon0=1.5, delta0=1e-9, n=500).epsilon(
        np.array([1e-2, 1e-4, 1e-6, 1e-8])
    )
    assert np.all(np.diff(eps_curve) >= 0)


def test_epsilon_is_certified_and_falls_back_to_the_local_guarantee():
    acc = ShuffledApproximateLDP(epsilon0=1.0, delta0=1e-9, n=1000)
    eps = acc.epsilon(1e-4)
    assert acc.delta(eps) <= 1e-4 < acc.delta(eps * 0.99)
    # the charge n delta0 (1 + e^-eps0/2) ~ 1e-6 exceeds 1e-7: only the local (eps0, delta0) meets it
    assert acc.epsilon(1e-7) == 1.0
    assert acc.epsilon(1e-10) == math.inf


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(epsilon0=1.0, delta0=-1e-3, n=10), r"delta0 must lie in \[0, 1\)"),
        (dict(epsilon0=1.0, delta0=1.0, n=10), r"delta0 must lie in \[0, 1\)"),
        (dict(epsilon0=0.0, delta0=1e-3, n=10), "epsilon0 must be finite and > 0"),
        (dict(epsilon0=1.0, delta0=1e-3, n=1), "n must be an integer >= 2"),
    ],
)
def test_refusals(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ShuffledApproximateLDP(**kwargs)


# --- paper 003's shuffled Noisy MB-SGD -------------------------------------------------------------


@pytest.mark.slow
def test_shuffled_noisy_mb_sgd_amplifies_one_record_silos_and_never_exceeds_the_unshuffled_bound():
    kw = dict(
        sigma=10.0,
        lipschitz=1.0,
        batch_size=1,
        silo_size=1,
        rounds=10,
        value_discretization_interval=5e-3,
    )
    shuffled = ShuffledNoisyMBSGD(silos=10_000, **kw)
    unshuffled = NoisyMBSGD(**kw)
    assert shuffled.epsilon(1e-6) < 0.5 * unshuffled.epsilon(1e-6)
    eps = np.array([0.0, 0.5, 1.0, 2.0, 4.0])
    assert np.all(shuffled.delta(eps) <= unshuffled.delta(eps))
    # large silos: each message moves by up to 2L between silos, so nothing is gained, nothing lost
    big = dict(
        sigma=1.0,
        lipschitz=1.0,
        batch_size=10,
        silo_size=100,
        rounds=5,
        value_discretization_interval=5e-3,
    )
    assert ShuffledNoisyMBSGD(silos=100, **big).epsilon(1e-6) == NoisyMBSGD(**big).epsilon(1e-6)


@pytest.mark.parametrize(
    "sigma, silos, rounds",
    [
        pytest.param(5.0, 10_000, 10, marks=pytest.mark.slow),
        (2.0, 500, 3),
        pytest.param(10.0, 2000, 20, marks=pytest.mark.slow),
    ],
)
def test_shuffled_noisy_mb_sgd_is_above_the_sum_of_the_shuffled_messages(sigma, silos, rounds):
    """The sum of the shuffled messages (a post-processing) is N(sum of means, M sigma^2): one record moving
    its silo's mean by 2L gives the Gaussian mechanism with mu = sqrt(R) 2L / (sigma sqrt(M)) (1-D
    gradients at +-L, K = n = 1): a lower bound on the true delta every upper bound must clear."""
    acc = ShuffledNoisyMBSGD(
        sigma=sigma,
        lipschitz=1.0,
        batch_size=1,
        silo_size=1,
        silos=silos,
        rounds=rounds,
        value_discretization_interval=5e-3,
    )
    mu = math.sqrt(rounds) * 2 / (sigma * math.sqrt(silos))
    for eps in (0.0, 0.05, 0.2, 0.5, 1.0):
        assert acc.delta(eps) >= theta_lower(mu, eps)


@pytest.mark.slow
def test_shuffled_noisy_mb_sgd_is_monotone():
    base = dict(lipschitz=1.0, batch_size=1, silo_size=1, value_discretization_interval=5e-3)
    eps = np.linspace(0, 3, 13)
    curve = ShuffledNoisyMBSGD(sigma=5.0, silos=1000, rounds=10, **base).delta(eps)
    assert np.all(np.diff(curve) <= 0)
    by_sigma = [
        ShuffledNoisyMBSGD(sigma=s, silos=1000, rounds=10, **base).epsilon(1e-6) for s in (3.0, 8.0)
    ]
    assert by_sigma[0] >= by_sigma[1]
    by_rounds = [
        ShuffledNoisyMBSGD(sigma=5.0, silos=1000, rounds=r, **base).epsilon(1e-6) for r in (1, 20)
    ]
    assert by_rounds[0] <= by_rounds[1]


def test_shuffled_noisy_mb_sgd_refusals():
    base = dict(sigma=5.0, lipschitz=1.0, batch_size=1, silo_size=1, rounds=2)
    with pytest.raises(ValueError, match=r"silos must lie in \[2"):
        ShuffledNoisyMBSGD(silos=1, **base)
    with pytest.raises(ValueError, match=r"silos must lie in \[2"):
        ShuffledNoisyMBSGD(silos=10**7, **base)
    with pytest.raises(ValueError, match='bound must be "upper"'):
        ShuffledNoisyMBSGD(silos=100, **base).delta(1.0, bound="lower")


@pytest.mark.slow
def test_shuffled_noisy_mb_sgd_registry_entry_broadcasts_sigma():
    entry = registry.get("isrl_shuffled_noisy_mb_sgd")
    acc = entry.build(
        sigma=np.array([5.0, 8.0]),
        lipschitz=1.0,
        batch_size=1,
        silo_size=1,
        silos=5000,
        rounds=10,
        value_discretization_interval=5e-3,
    )
    both = acc.epsilon(1e-6)
    assert both.shape == (2,) and both[1] <= both[0]


def test_theorem_d5_round_is_fmt_closed_form_at_one_record_and_refused_where_its_condition_fails():
    from hockeystick.isrl import closed_form_shuffle_epsilon, theorem_d5_round

    eps_r, delta_r = theorem_d5_round(
        epsilon0=1.0, delta0=1e-12, silo_size=1, silos=10_000, delta=1e-6
    )
    assert eps_r == pytest.approx(
        closed_form_shuffle_epsilon(epsilon0=1.0, n=10_000, delta=1e-6), rel=1e-14
    )
    assert delta_r == pytest.approx(1e-6 + 2 * 10_000 * 1e-12, rel=1e-14)
    with pytest.raises(
        ValueError, match=r"epsilon0 must be <= ln\(silos / \(16 ln\(2/delta\)\)\) / silo_size"
    ):
        theorem_d5_round(
            epsilon0=0.01, delta0=1e-12, silo_size=1238, silos=25, delta=1e-6
        )  # App. I: N = 25


@pytest.mark.slow
def test_errata_shuffle_rows_numerical_bound_is_below_theorem_d5_and_the_unshuffled_silo():
    from hockeystick.reproduce.errata_003 import shuffle_rows

    rows = shuffle_rows(((10_000, 1, 1, 10.0), (25, 1238, 91, 1.0)))
    fmt_row, app_i = rows
    assert (
        fmt_row["shuffled_eps"] < 0.5 * fmt_row["paper_eps"]
        and fmt_row["shuffled_eps"] < fmt_row["unshuffled_eps"]
    )
    assert app_i["paper_eps"] is None and app_i["shuffled_eps"] <= app_i["unshuffled_eps"]
