"""The one-run search's early stops (``one_run_refutes``) give the very answers of the full p-value.

Reference: ``one_run_p_value``, which sums every window of the Steinke, Nasr & Jagielski p-value (the
algorithm the search used before it stopped early); the booleans must agree on every input, including a
significance one ulp either side of the p-value, and ``epsilon_one_run`` must return the same double."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick import audit
from hockeystick.audit import one_run
from hockeystick.audit.one_run import one_run_p_value, one_run_refutes


def test_the_early_stops_give_the_full_p_values_verdict():
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(150):
        m = int(rng.integers(2, 5000))
        g = int(rng.integers(1, m + 1))
        c = int(rng.integers(0, g + 1))
        eps = float(rng.choice([0.0, rng.uniform(0, 3), rng.uniform(0, 40)]))
        delta = float(rng.choice([0.0, 1e-8, 1e-5, 1e-3, 0.2]))
        p = one_run_p_value(m, g, c, eps, delta)
        for sig in (0.05, p, np.nextafter(p, 0.0), np.nextafter(p, 1.0)):
            if 0.0 < sig < 1.0:
                checked += 1
                assert one_run_refutes(m, g, c, eps, delta, float(sig)) == (p <= sig), (
                    m,
                    g,
                    c,
                    eps,
                    delta,
                    sig,
                )
    assert checked > 300


@pytest.mark.parametrize(
    ("shift", "n", "delta"),
    [
        (1.0, 3000, 1e-5),
        (10.0, 10000, 20 / 10000),
    ],  # the second: separable scores, 2 m delta = 40, yet eps > 0
)
def test_epsilon_one_run_is_the_same_double_as_the_full_search(monkeypatch, shift, n, delta):
    rng = np.random.default_rng(11)
    scores = audit.as_scores(rng.normal(shift, 1.0, n // 2), rng.normal(0.0, 1.0, n // 2))
    fast = audit.epsilon_one_run(scores, significance=0.05, delta=delta)
    monkeypatch.setattr(
        one_run, "one_run_refutes", lambda m, g, c, e, d, s: one_run_p_value(m, g, c, e, d) <= s
    )
    assert fast == audit.epsilon_one_run(scores, significance=0.05, delta=delta)
    assert fast > 0.0
