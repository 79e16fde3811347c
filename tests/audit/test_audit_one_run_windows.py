"""The one-run search's bracketed delta term (``one_run_windows``) gives the very booleans of Steinke et al.'s
p-value written out as its definition.

Reference: the p-value min(beta + alpha delta 2 m, 1), alpha the max over i = 1..c of the window sums of
scipy's pmf at c - 1, ..., c - i (added one at a time, in that order), widened by the tail margin and
divided by i; written here as a plain loop.  The search must agree with it at the p-value itself and one
ulp either side, where a skipped head's bracket straddles the significance and the sums are read in full.
The bracket's one premise, scipy's pmf within 1 % of the exact mass (or below 1e-300), is checked against
50-digit mpmath far into both tails.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import special, stats

from hockeystick import audit
from hockeystick.audit import one_run, one_run_windows
from hockeystick.audit.tails import binomial_sf_upper, tail_margin


def direct_p_value(m: int, g: int, c: int, eps: float, delta: float) -> float:
    q = min(float(special.expit(eps)) * (1.0 + 4 * 2.0**-53), 1.0)
    beta = float(binomial_sf_upper(c, g, q))
    if delta == 0.0 or c == 0:
        return beta
    pmf = stats.binom.pmf(np.arange(c), g, q).tolist()  # P(X = k), k = 0..c-1
    widen = 1.0 + float(tail_margin(g))
    window, alpha = 0.0, 0.0
    for i in range(1, c + 1):
        window += pmf[c - i]  # P(c - i <= X <= c - 1)
        alpha = max(alpha, window * widen / i)
    return min(beta + alpha * delta * 2 * m, 1.0)


def test_the_bracketed_search_gives_the_direct_p_values_verdict():
    rng = np.random.default_rng(8)
    skipped = compared = 0
    for _ in range(60):
        g = int(rng.integers(2, 20000))
        m = int(rng.integers(g, 3 * g))
        eps = float(rng.uniform(0.0, 3.0))
        q = float(special.expit(eps))
        sd = math.sqrt(g * q * (1.0 - q))
        c = int(np.clip(round(g * q + rng.uniform(-4.0, 80.0) * sd), 1, g))
        delta = float(rng.choice([1e-6, 1e-4, 1e-2]))
        p = direct_p_value(m, g, c, eps, delta)
        assert p == one_run.one_run_p_value(m, g, c, eps, delta)
        skipped += one_run_windows._head(g, c, q) > 0
        for sig in (p, np.nextafter(p, 0.0), np.nextafter(p, 1.0), 0.05):
            if 0.0 < sig < 1.0:
                compared += 1
                assert one_run.one_run_refutes(m, g, c, eps, delta, float(sig)) == (p <= sig), (
                    m,
                    g,
                    c,
                    eps,
                    delta,
                )
    assert skipped > 20 and compared > 150


def test_epsilon_one_run_is_the_direct_searchs_double(monkeypatch):
    rng = np.random.default_rng(3)
    scores = audit.as_scores(rng.normal(1.5, 1.0, 6000), rng.normal(0.0, 1.0, 6000))
    fast = audit.epsilon_one_run(scores, significance=0.05, delta=1e-5)
    monkeypatch.setattr(
        one_run, "one_run_refutes", lambda m, g, c, e, d, s: direct_p_value(m, g, c, e, d) <= s
    )
    assert fast == audit.epsilon_one_run(scores, significance=0.05, delta=1e-5)
    assert fast > 0.0


@pytest.mark.parametrize("g", [10**4, 10**7])
def test_scipy_pmf_is_within_the_premise_far_into_both_tails(g):
    mpmath.mp.dps = 50
    for q in (0.5, 0.9, 0.999):
        sd = math.sqrt(g * q * (1 - q))
        for z in (-60.0, -9.0, 0.0, 9.0, 60.0):
            k = round(g * q + z * sd)
            if not 0 <= k <= g:
                continue
            exact = mpmath.binomial(g, k) * mpmath.mpf(q) ** k * (1 - mpmath.mpf(q)) ** (g - k)
            value = float(stats.binom.pmf(k, g, q))
            if exact >= 1e-300:
                assert exact / mpmath.mpf(1.01) <= value <= exact * mpmath.mpf(1.01), (g, q, k)
            else:
                assert value <= 1e-300 + 1.01 * float(exact), (g, q, k)


def test_the_bracket_holds_the_full_sums_after_any_head():
    """T_i (1 - (2n + 4) u) <= S_i <= (S_s + T_i)(1 + (4n + 16) u), S the sums from i = 1 and T those
    restarted after the head, whatever the head's share of the mass."""
    rng = np.random.default_rng(4)
    for head_share in (0.0, 1e-12, 0.3, 0.9):
        terms = rng.exponential(1.0, 3000) * rng.choice([1e-9, 1.0, 1e3], 3000)
        skip = 1000
        terms[:skip] *= head_share * terms[skip:].sum() / terms[:skip].sum()
        full = np.cumsum(terms)
        restarted = np.cumsum(terms[skip:])
        lower, upper = one_run_windows._bracket(
            restarted, np.arange(1, restarted.size + 1), float(full[skip - 1])
        )
        assert np.all(lower <= full[skip:]) and np.all(full[skip:] <= upper)
        assert np.all(
            lower > 0.99 * full[skip:] - full[skip - 1]
        )  # a bracket, not a pair of bounds far off
