"""hockeystick.audit's refusals (a ValueError or TypeError naming the argument and its rule; never a NaN or
an internal error), its results' shapes and invariants, the report and the canary calculator."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick import audit, pld, registry
from hockeystick.fdp.gaussian_mechanism import GaussianMechanism

RNG = np.random.default_rng(21)
IN, OUT = RNG.normal(1.0, 1.0, 300), RNG.normal(0.0, 1.0, 300)


@pytest.mark.parametrize(
    "call, kind, message",
    [
        (lambda: audit.as_scores([], OUT), ValueError, "in_scores must hold at least one score"),
        (lambda: audit.as_scores(IN, [1.0, np.nan]), ValueError, "out_scores must not be NaN"),
        (lambda: audit.as_scores(IN, [1.0, np.inf]), ValueError, "out_scores must be finite"),
        (lambda: audit.as_scores(["1", "2"], OUT), TypeError, "in_scores must be"),
        (lambda: audit.as_scores([True, False], OUT), TypeError, "in_scores must be"),
        (lambda: audit.as_scores(IN), ValueError, "out_scores must be given"),
        (
            lambda: audit.as_scores(np.stack([IN, OUT]), OUT),
            ValueError,
            "in_scores must be one-dimensional",
        ),
        (
            lambda: audit.epsilon_clopper_pearson(IN, OUT, significance=0.0),
            ValueError,
            "significance must lie",
        ),
        (
            lambda: audit.epsilon_clopper_pearson(IN, OUT, significance="0.05"),
            TypeError,
            "significance must be",
        ),
        (
            lambda: audit.epsilon_clopper_pearson(IN, OUT, significance=0.05, delta=1.0),
            ValueError,
            "delta must lie",
        ),
        (
            lambda: audit.epsilon_clopper_pearson(
                IN, OUT, significance=0.05, threshold_strategy="bonferroni"
            ),
            ValueError,
            "threshold_strategy must be one of",
        ),
        (
            lambda: audit.epsilon_clopper_pearson(
                IN, OUT, significance=0.05, one_sided=False, threshold_strategy=audit.Simultaneous()
            ),
            ValueError,
            "one_sided must be True with Simultaneous()",
        ),
        (
            lambda: audit.epsilon_clopper_pearson(
                IN, OUT, significance=0.05, threshold_strategy=audit.Split(1.0)
            ),
            ValueError,
            "threshold_estimation_frac must lie",
        ),
        (
            lambda: audit.epsilon_clopper_pearson(
                IN[:1], OUT, significance=0.05, threshold_strategy=audit.Split()
            ),
            ValueError,
            "threshold_estimation_frac must leave canaries of both kinds",
        ),
        (
            lambda: audit.epsilon_clopper_pearson(
                IN, OUT, significance=0.05, threshold_strategy=audit.Explicit(np.inf)
            ),
            ValueError,
            "threshold must be finite",
        ),
        (
            lambda: audit.epsilon_clopper_pearson(
                IN, OUT, significance=0.05, threshold_strategy=audit.MultiSplit(0)
            ),
            ValueError,
            "num_samples must be an integer >= 1",
        ),
        (
            lambda: audit.epsilon_raw_counts(IN, OUT, min_count=0),
            ValueError,
            "min_count must be an integer >= 1",
        ),
        (
            lambda: audit.epsilon_raw_counts(IN, OUT, one_sided="yes"),
            TypeError,
            "one_sided must be True or False",
        ),
        (
            lambda: audit.epsilon_gdp(IN, OUT, significance=0.05, delta=0.0),
            ValueError,
            "delta must lie",
        ),
        (
            lambda: audit.epsilon_one_run(IN, OUT, significance=0.05, delta=1e-5, one_sided=False),
            ValueError,
            "one_sided must be True",
        ),
        (
            lambda: audit.epsilon_one_run(
                IN, OUT, significance=0.05, delta=1e-5, threshold_strategy=audit.Simultaneous()
            ),
            ValueError,
            "threshold_strategy must be one of",
        ),
        (
            lambda: audit.tpr_at_fpr(audit.as_scores(IN, OUT), 1.5),
            ValueError,
            "fpr must lie in [0, 1]",
        ),
        (
            lambda: audit.max_accuracy(audit.as_scores(IN, OUT), prevalence=2.0),
            ValueError,
            "prevalence must lie",
        ),
        (lambda: audit.BootstrapParams(quantiles=(0.0, 0.5)), ValueError, "quantiles must lie"),
        (
            lambda: audit.BootstrapParams(bias_correction=False, acceleration=True),
            ValueError,
            "acceleration needs",
        ),
        (
            lambda: audit.Auditor(IN, OUT).attack_auroc(bootstrap_params=100),
            TypeError,
            "bootstrap_params must be",
        ),
        (
            lambda: audit.audit_curve(
                IN, OUT, accountant=GaussianMechanism(sigma=1.0), method="exact"
            ),
            ValueError,
            "method must be one of",
        ),
        (
            lambda: audit.audit_curve(
                IN,
                OUT,
                accountant=GaussianMechanism(sigma=1.0),
                method="one_run_fdp",
                direction="remove",
            ),
            ValueError,
            'direction must be "symmetric" with method="one_run_fdp"',
        ),
        (
            lambda: audit.audit_curve(
                IN,
                OUT,
                accountant=GaussianMechanism(sigma=1.0),
                method="one_run_fdp",
                threshold_strategy=audit.Simultaneous(),
            ),
            ValueError,
            "threshold_strategy must be one of",
        ),
        (
            lambda: audit.canaries_needed(1.0, 1.0, fpr=0.01),
            ValueError,
            "factor must be finite and > 1",
        ),
        (
            lambda: audit.canaries_needed(1.0, 2.0, fpr=0.5),
            ValueError,
            "fpr must leave the true TPR",
        ),
        (
            lambda: audit.canaries_needed(-1.0, 2.0, fpr=0.01),
            ValueError,
            "epsilon must be finite and > 0",
        ),
    ],
)
def test_bad_input_is_refused_naming_the_argument(call, kind, message):
    with pytest.raises(kind, match=None) as info:
        call()
    assert message in str(info.value)


def test_estimates_are_floats_and_bounds_are_ordered():
    scores = audit.as_scores(IN, OUT)
    values = {
        "raw": audit.epsilon_raw_counts(scores, min_count=10),
        "bonferroni": audit.epsilon_clopper_pearson(scores, significance=0.05),
        "simultaneous": audit.epsilon_clopper_pearson(
            scores, significance=0.05, threshold_strategy=audit.Simultaneous()
        ),
        "gdp": audit.epsilon_gdp(scores, significance=0.05, delta=1e-5),
    }
    assert all(type(v) is float and v >= 0.0 for v in values.values())
    # a bound at a higher confidence is lower: the limits widen
    assert audit.epsilon_clopper_pearson(scores, significance=0.001) <= values["bonferroni"]
    assert audit.tpr_at_fpr(scores, np.array([[0.1, 0.2]])).shape == (1, 2)


def test_scores_are_read_from_a_csv_file(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("id,in,score\na,1,2.5\nb,0,0.5\nc,1,1.5\n")
    scores = audit.read_csv(path)
    np.testing.assert_array_equal(scores.held_in, [1.5, 2.5])
    np.testing.assert_array_equal(scores.held_out, [0.5])


def test_report_sets_the_audit_beside_the_accountants_bracket():
    accountant = registry.get("gaussian").build(sigma=1.0)
    result = audit.report(IN, OUT, accountant=accountant, delta=1e-5)
    lower, upper = accountant.epsilon(1e-5, bound="both")
    assert result.epsilon_lower == lower and result.epsilon_upper == upper
    assert result.gap == upper - result.epsilon_audit > 0
    assert not result.refuted  # mu = 1 scores against the mu = 1 Gaussian
    table = result.table()
    assert f"{result.epsilon_audit:.6g}" in table and "consistent with the accountant" in table


def test_report_of_an_accountant_without_a_lower_side_shows_a_dash():
    accountant = registry.get("trusted_aggregator").build(
        n=60000, batch_size=100, sigma=1.0, learning_rate=0.5, lipschitz=1.0, radius=1.0
    )
    result = audit.report(IN, OUT, accountant=accountant, delta=1e-5)
    assert result.epsilon_lower is None
    assert "\t-\t" in result.table()


def test_curve_audit_in_the_remove_direction_of_a_pld():
    accountant = pld.SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.5, rounds=4)
    verdict = audit.audit_curve(IN, OUT, accountant=accountant, direction="remove")
    assert isinstance(verdict.refuted, bool) and verdict.excess is not None


def test_canaries_needed_shrinks_with_the_factor_and_its_runs_refute_about_half_the_time():
    fewer, more = (
        audit.canaries_needed(1.0, 2.0, fpr=0.05),
        audit.canaries_needed(1.0, 1.5, fpr=0.05),
    )
    assert fewer < more
    # randomized-response-like scores at that size: the explicit threshold refutes eps = 1 in about half the runs
    rng = np.random.default_rng(22)
    tpr, runs = np.exp(2.0) * 0.05, 200
    refuted = []
    for _ in range(runs):
        held_in = (rng.random(fewer) < tpr).astype(float)
        held_out = (rng.random(fewer) < 0.05).astype(float)
        bound = audit.epsilon_clopper_pearson(
            held_in, held_out, significance=0.05, threshold_strategy=audit.Explicit(0.5)
        )
        refuted.append(bound > 1.0)
    assert 0.35 < np.mean(refuted) < 0.85
