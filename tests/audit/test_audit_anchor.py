"""hockeystick.audit against jax_privacy 2.0's CanaryScoreAuditor (live, where jax_privacy is installed) and
against the estimators' formulas written out here.

jax_privacy's package imports jax on import, but its auditing module needs only numpy, scipy and
dp_accounting: where ``import jax_privacy.auditing`` fails for want of jax, the module is loaded from the
installed package's file (``pip install --no-deps jax-privacy``).  Agreement: to round-off (1e-14) for the
ROC, AUROC, accuracy, raw counts and bootstrap quantiles (the same draws); within 1e-9 relative for the Clopper-Pearson
bounds, this package's never above (its limits are rounded outward); within jax_privacy's root tolerance
(1e-6) for the searched epsilons.  The GDP fit differs where jax_privacy's max |mu| is reached at a negative
mu (module docstring of hockeystick.audit.epsilon)."""

from __future__ import annotations

import importlib.util
import math
import sys

import numpy as np
import pytest
from scipy import special, stats

from hockeystick import audit
from hockeystick.audit.one_run import gaussian_blow_up, one_run_p_value
from hockeystick.numerics.hockey_stick import theta_epsilon, theta_radius


def _load_anchor():
    try:
        import jax_privacy.auditing as module  # the whole package, where jax is installed

        return module
    except ImportError:
        pass
    spec = importlib.util.find_spec("jax_privacy")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = f"{spec.submodule_search_locations[0]}/auditing.py"
    loaded = importlib.util.spec_from_file_location("jax_privacy_auditing", path)
    if loaded is None or loaded.loader is None:
        return None
    module = importlib.util.module_from_spec(loaded)
    sys.modules["jax_privacy_auditing"] = module
    try:
        loaded.loader.exec_module(module)
    except ImportError:
        return None
    return module


ANCHOR = _load_anchor()
live = pytest.mark.skipif(
    ANCHOR is None, reason="jax_privacy is not installed (pip install --no-deps jax-privacy)"
)


def score_sets():
    """Four score sets: weak, medium and strong Gaussian separation, and rounded scores (ties)."""
    rng = np.random.default_rng(1)
    out = []
    for mu, decimals in ((0.5, None), (1.0, None), (2.0, None), (3.0, 1)):
        n_in, n_out = (int(v) for v in rng.integers(50, 400, 2))
        held_in, held_out = rng.normal(mu, 1.0, n_in), rng.normal(0.0, 1.0, n_out)
        if decimals is not None:
            held_in, held_out = np.round(held_in, decimals), np.round(held_out, decimals)
        out.append((held_in, held_out))
    return out


SETS = score_sets()


def close_below(ours: float, theirs: float) -> None:
    """Ours within 1e-9 relative of theirs and not above it by more than round-off."""
    assert ours <= theirs + 1e-12 * max(1.0, abs(theirs))
    assert theirs - ours <= 1e-9 * max(1.0, abs(theirs))


@live
@pytest.mark.parametrize("index", range(len(SETS)))
def test_roc_estimates_equal_jax_privacy(index):
    held_in, held_out = SETS[index]
    theirs, ours = ANCHOR.CanaryScoreAuditor(held_in, held_out), audit.Auditor(held_in, held_out)
    fprs = np.array([0.0, 1e-3, 0.01, 0.1, 0.5, 1.0])
    np.testing.assert_allclose(
        ours.tpr_at_given_fpr(fprs), theirs.tpr_at_given_fpr(fprs), rtol=1e-14
    )
    assert ours.attack_auroc() == pytest.approx(
        theirs.attack_auroc(), rel=1e-14
    )  # summed in other coordinates
    assert ours.max_accuracy() == pytest.approx(theirs.max_accuracy(), rel=1e-14)
    assert ours.max_accuracy(prevalence=0.3) == pytest.approx(
        theirs.max_accuracy(prevalence=0.3), rel=1e-14
    )
    # Clopper-Pearson upper limits rounded outward: the accuracy bound at most 1e-8 above
    upper_theirs, upper_ours = (
        theirs.max_accuracy(significance=0.05),
        ours.max_accuracy(significance=0.05),
    )
    assert upper_theirs <= upper_ours <= upper_theirs + 1e-8
    for min_count, delta, one_sided in (
        (5, 0.0, True),
        (5, 1e-3, True),
        (10, 0.0, False),
        (3, 0.01, False),
    ):
        assert ours.epsilon_raw_counts(min_count, delta, one_sided) == pytest.approx(
            theirs.epsilon_raw_counts(min_count, delta, one_sided), rel=1e-14
        )


def strategy_pairs():
    return [
        (lambda a: a.Bonferroni(), audit.Bonferroni()),
        (lambda a: a.Explicit(0.7), audit.Explicit(0.7)),
        (lambda a: a.Split(0.5, 3), audit.Split(0.5, 3)),
        (lambda a: a.MultiSplit(10, 0.5, 4), audit.MultiSplit(10, 0.5, 4)),
    ]


@live
@pytest.mark.parametrize("index", range(len(SETS)))
def test_clopper_pearson_bounds_equal_jax_privacy(index):
    held_in, held_out = SETS[index]
    theirs, ours = ANCHOR.CanaryScoreAuditor(held_in, held_out), audit.Auditor(held_in, held_out)
    for delta, one_sided in ((0.0, True), (1e-3, True), (0.0, False)):
        for make, strategy in strategy_pairs():
            close_below(
                ours.epsilon_clopper_pearson(0.05, delta, one_sided, threshold_strategy=strategy),
                theirs.epsilon_clopper_pearson(
                    0.05, delta, one_sided, threshold_strategy=make(ANCHOR)
                ),
            )


@live
@pytest.mark.parametrize(
    "index", [1, pytest.param(2, marks=pytest.mark.slow), pytest.param(3, marks=pytest.mark.slow)]
)
def test_one_run_bounds_equal_jax_privacy(index):
    held_in, held_out = SETS[index]
    theirs, ours = ANCHOR.CanaryScoreAuditor(held_in, held_out), audit.Auditor(held_in, held_out)
    for make, strategy in strategy_pairs()[:3]:
        for method in ("epsilon_one_run", "epsilon_one_run_fdp"):
            expected = getattr(theirs, method)(0.05, 1e-5, threshold_strategy=make(ANCHOR))
            got = getattr(ours, method)(0.05, 1e-5, threshold_strategy=strategy)
            assert got == pytest.approx(expected, abs=2e-6), (method, strategy)


@live
@pytest.mark.parametrize("index", [1, 2, 3])
def test_gdp_fit_equals_jax_privacy_where_the_best_mu_is_positive(index):
    held_in, held_out = SETS[index]
    theirs, ours = ANCHOR.CanaryScoreAuditor(held_in, held_out), audit.Auditor(held_in, held_out)
    assert ours.epsilon_from_gdp(0.05, 1e-5) == pytest.approx(
        theirs.epsilon_from_gdp(0.05, 1e-5), abs=1e-6
    )


@live
def test_jax_privacys_gdp_fit_reads_a_negative_mu_and_exceeds_the_true_epsilon():
    # mu = 0.5 scores: eps(1e-5) = 1.99; jax_privacy's max |mu| comes from FPR_up + FNR_up > 1 and gives 5.35
    held_in, held_out = SETS[0]
    truth = theta_epsilon(0.5, 1e-5)
    theirs = ANCHOR.CanaryScoreAuditor(held_in, held_out).epsilon_from_gdp(0.05, 1e-5)
    ours = audit.epsilon_gdp(held_in, held_out, significance=0.05, delta=1e-5)
    assert theirs > truth > ours


@live
def test_bootstrap_quantiles_equal_jax_privacy():
    held_in, held_out = SETS[1]
    theirs, ours = ANCHOR.CanaryScoreAuditor(held_in, held_out), audit.Auditor(held_in, held_out)
    for options in ({}, {"bias_correction": False}, {"acceleration": True}):
        a = theirs.attack_auroc(
            bootstrap_params=ANCHOR.BootstrapParams(num_samples=40, seed=1, **options)
        )
        b = ours.attack_auroc(
            bootstrap_params=audit.BootstrapParams(num_samples=40, seed=1, **options)
        )
        np.testing.assert_allclose(a, b, rtol=1e-14)
    a = theirs.epsilon_raw_counts(
        5, bootstrap_params=ANCHOR.BootstrapParams(num_samples=20, seed=2)
    )
    b = ours.epsilon_raw_counts(5, bootstrap_params=audit.BootstrapParams(num_samples=20, seed=2))
    np.testing.assert_allclose(a, b, rtol=1e-14)
    a = theirs.tpr_at_given_fpr(
        0.05, bootstrap_params=ANCHOR.BootstrapParams(num_samples=20, seed=3)
    )
    b = ours.tpr_at_given_fpr(0.05, bootstrap_params=audit.BootstrapParams(num_samples=20, seed=3))
    np.testing.assert_allclose(a, b, rtol=1e-14)


# --- the formulas, written out ------------------------------------------------------------------


def test_roc_of_separated_scores_is_perfect_and_of_a_hand_example_as_drawn():
    scores = audit.as_scores([3.0, 2.0], [1.0, 0.0])
    assert audit.tpr_at_fpr(scores, 0.0) == 1.0 and audit.auroc(scores) == 1.0
    # in 2, 0; out 1, -1: thresholds +inf, 2, 1, 0, -1 give (FP, TP) = (0, 0), (0, 1), (1, 1), (1, 2), (2, 2); the
    # hull drops (1, 1): TPR at FPR 1/4 is halfway from 1/2 to 1, the area 1/4 + 1/2 = 3/4 + 1/8 ...
    scores = audit.as_scores([2.0, 0.0], [1.0, -1.0])
    assert audit.tpr_at_fpr(scores, 0.25) == 0.75
    assert audit.auroc(scores) == 0.5 * 0.5 * (0.5 + 1.0) + 0.5 * 1.0


def test_hull_auroc_is_at_least_the_mann_whitney_statistic():
    rng = np.random.default_rng(3)
    held_in, held_out = rng.normal(0.7, 1.0, 300), rng.normal(0.0, 1.0, 250)
    mann_whitney = stats.mannwhitneyu(held_in, held_out).statistic / (held_in.size * held_out.size)
    assert audit.auroc(audit.as_scores(held_in, held_out)) >= mann_whitney


def test_clopper_pearson_at_a_threshold_is_the_beta_quantile_formula():
    rng = np.random.default_rng(4)
    held_in, held_out = rng.normal(1.0, 1.0, 400), rng.normal(0.0, 1.0, 300)
    t, s, delta = 1.2, 0.05, 1e-3
    tp, fp = int(np.sum(held_in >= t)), int(np.sum(held_out >= t))
    tpr_low = stats.beta.ppf(s / 2, tp, held_in.size - tp + 1)
    fpr_up = stats.beta.ppf(1 - s / 2, fp + 1, held_out.size - fp)
    expected = math.log(tpr_low - delta) - math.log(fpr_up)
    got = audit.epsilon_clopper_pearson(
        held_in, held_out, significance=s, delta=delta, threshold_strategy=audit.Explicit(t)
    )
    assert expected - 1e-9 <= got <= expected


def test_one_run_p_value_is_the_binomial_tail_without_delta():
    for guesses, correct, eps in ((100, 80, 1.0), (1000, 600, 0.3), (10, 10, 2.0)):
        expected = stats.binom.sf(correct - 1, guesses, special.expit(eps))
        got = one_run_p_value(2 * guesses, guesses, correct, eps, 0.0)
        assert expected <= got <= expected * (1 + 1e-6)


def test_gaussian_blow_up_is_the_gdp_trade_off_below_its_value():
    f = gaussian_blow_up(2.0, 1e-5)
    mu = theta_radius(2.0, 1e-5)
    for x in (0.0, 1e-6, 0.01, 0.5, 0.99):
        exact = stats.norm.cdf(stats.norm.ppf(1 - x) - mu)
        assert exact * (1 - 1e-7) <= f(x) <= exact


def random_score_sets():
    """Six small random score sets (separation, sizes and rounding drawn from their seeds), among them sets where
    a split's threshold part has no positive bound (seeds 114, 121, 125: the case where Split returned 0)."""
    out = []
    for seed in (113, 114, 115, 116, 121, 125):
        rng = np.random.default_rng(seed)
        mu = rng.uniform(0.0, 1.5)
        n_in, n_out = (int(v) for v in rng.integers(20, 200, 2))
        held_in, held_out = rng.normal(mu, 1.0, n_in), rng.normal(0.0, 1.0, n_out)
        if seed % 3 == 0:
            held_in, held_out = np.round(held_in, 1), np.round(held_out, 1)
        out.append((held_in, held_out))
    return out


@live
def test_every_threshold_strategy_equals_jax_privacy_over_random_score_sets():
    """Bonferroni, Explicit, Split and MultiSplit (seeds of any size), Clopper-Pearson both ways and the
    one-run bound: the same threshold chosen, so the same bound to the tolerances above."""
    strategies = [
        (lambda a: a.Bonferroni(), audit.Bonferroni()),
        (lambda a: a.Explicit(0.5), audit.Explicit(0.5)),
        (lambda a: a.Split(0.5, 2), audit.Split(0.5, 2)),
        (lambda a: a.Split(0.3, 2**62), audit.Split(0.3, 2**62)),
        (lambda a: a.MultiSplit(7, 0.4, 4), audit.MultiSplit(7, 0.4, 4)),
    ]
    for held_in, held_out in random_score_sets():
        theirs, ours = (
            ANCHOR.CanaryScoreAuditor(held_in, held_out),
            audit.Auditor(held_in, held_out),
        )
        for make, strategy in strategies:
            for delta, one_sided in ((0.0, True), (1e-3, False)):
                close_below(
                    ours.epsilon_clopper_pearson(
                        0.05, delta, one_sided, threshold_strategy=strategy
                    ),
                    theirs.epsilon_clopper_pearson(
                        0.05, delta, one_sided, threshold_strategy=make(ANCHOR)
                    ),
                )
            expected = theirs.epsilon_one_run(0.05, 1e-3, threshold_strategy=make(ANCHOR))
            assert ours.epsilon_one_run(0.05, 1e-3, threshold_strategy=strategy) == pytest.approx(
                expected, abs=2e-6
            )
