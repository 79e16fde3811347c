"""The max-of-outputs reads of the core (cpp/include/hockeystick/pld/reads/max_of_outputs.hpp, through
pld/reads/max_of_outputs.py) are certified lower sides: at the threshold it reports, the epsilon read is never above a
50-digit mpmath evaluation of the bound (1) log((P(S) - delta) / Q(S)) there, on random runs and where P(S) is within
a hair of delta (where 1 - delta / P(S) cancels); the delta read is never above the exact P(S) - e^eps Q(S) at the
best threshold of its ladders; and both are never above the package's certified upper sides of the same run."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.pld.reads.max_of_outputs import (
    COARSE_Z,
    FINE_STEPS,
    best_threshold,
    log_bound,
    max_of_outputs_delta,
    max_of_outputs_deltas,
    max_of_outputs_epsilon,
)

DIGITS = 50


def exact_sides(segments, z: float) -> tuple[mpmath.mpf, mpmath.mpf]:
    """P(S) and Q(S) at threshold z in 50 digits (the module docstring's closed forms)."""
    with mpmath.workdps(DIGITS):
        z = mpmath.mpf(z)
        tail = lambda x: mpmath.erfc(x / mpmath.sqrt(2)) / 2  # noqa: E731
        log_keep_p, log_keep_q = mpmath.mpf(0), mpmath.mpf(0)
        for (sigma, q, c), rounds in segments:
            a = tail(z)
            b = (1 - mpmath.mpf(q)) * a + mpmath.mpf(q) * tail(
                z - mpmath.mpf(c) / mpmath.mpf(sigma)
            )
            log_keep_p += rounds * mpmath.log1p(-b)
            log_keep_q += rounds * mpmath.log1p(-a)
        return -mpmath.expm1(log_keep_p), -mpmath.expm1(log_keep_q)


def random_runs(count: int, seed: int) -> list[tuple[list, float]]:
    """Runs of 1 to 3 segments (sigma 0.3-5, q 1e-7-1, sensitivity 0.3-3, up to 10^8 rounds) and a delta
    (1e-300-0.5)."""
    rng = np.random.default_rng(seed)
    runs = []
    for _ in range(count):
        segments = []
        for _ in range(int(rng.integers(1, 4))):
            sigma = float(np.exp(rng.uniform(np.log(0.3), np.log(5.0))))
            q = 1.0 if rng.random() < 0.15 else float(10 ** rng.uniform(-7, -0.01))
            c = 1.0 if rng.random() < 0.6 else float(rng.uniform(0.3, 3.0))
            segments.append(((sigma, q, c), int(10 ** rng.uniform(0, 8))))
        runs.append((segments, float(10 ** rng.uniform(-300, -0.3))))
    return runs


@pytest.mark.parametrize("segments, delta", random_runs(24, 90))
def test_the_epsilon_read_is_below_the_exact_bound_at_its_threshold(segments, delta):
    """At the threshold the read reports, its epsilon is at most the 50-digit bound (1) there, and within 1e-8
    (relative) of it: certified and tight to the margins."""
    found = max_of_outputs_epsilon(segments, delta)
    z, value = best_threshold(segments, delta)
    assert found == max(0.0, value) if np.isfinite(value) else found == 0.0
    p, q_s = exact_sides(segments, z)
    if p <= delta:
        assert value == -np.inf
        return
    with mpmath.workdps(DIGITS):
        exact = float(mpmath.log((p - delta) / q_s))
    if value == -np.inf:  # not certified above delta: only where P(S) is within a hair of it
        assert float(p) <= delta * (1.0 + 1e-6)
        return
    assert value <= exact
    assert exact - value <= 1e-8 * (1.0 + abs(exact))


EDGE_RUNS = [
    ([((0.6, 1e-5, 1.0), 10**6)], 6.0),
    ([((1.0, 0.01, 1.0), 1000)], 4.0),
    ([((1.2, 1e-6, 1.0), 79)], 30.0),
    ([((0.5, 0.1, 1.0), 5)], 38.0),
]


@pytest.mark.parametrize("segments, z", EDGE_RUNS)
@pytest.mark.parametrize("gap", [1e-6, 1e-8, 3e-9, 1.2e-9])
def test_where_p_is_within_a_hair_of_delta_the_bound_stays_below_the_exact_one(segments, z, gap):
    """delta = P(S) (1 - gap): 1 - delta / P(S) cancels; the read's bound at z is -inf (not certified) or below the
    exact log((P(S) - delta) / Q(S))."""
    p, q_s = exact_sides(segments, z)
    with mpmath.workdps(DIGITS):
        delta = float(p * (1 - mpmath.mpf(gap)))
        exact = float(mpmath.log((p - mpmath.mpf(delta)) / q_s))
    (found,) = log_bound(segments, [z], delta)
    assert found <= exact
    if gap >= 1e-6:  # far from the edge the read certifies the bound, close to it
        assert exact - found <= 1e-3 * (1.0 + abs(exact))


def exact_delta_on_ladders(segments, eps: float) -> float:
    """The largest exact P(S) - e^eps Q(S) over COARSE_Z and the finer ladder around its best (the read's
    ladders), in 50 digits."""
    with mpmath.workdps(DIGITS):
        factor = mpmath.exp(mpmath.mpf(eps))

        def at(z: float) -> mpmath.mpf:
            p, q_s = exact_sides(segments, z)
            return p - factor * q_s

        coarse = [at(float(z)) for z in COARSE_Z]
        best = int(np.argmax([float(v) for v in coarse]))
        step = float(COARSE_Z[1] - COARSE_Z[0])
        fine = [
            at(float(z))
            for z in np.linspace(COARSE_Z[best] - step, COARSE_Z[best] + step, FINE_STEPS)
        ]
        return float(max(coarse + fine))


@pytest.mark.parametrize(
    "segments, eps",
    [
        ([((0.6, 1e-5, 1.0), 10**6)], 1.2),
        (
            [((0.6, 1e-5, 1.0), 10**6)],
            0.0,
        ),  # P(S) - Q(S): the read's r = log Q(S) - log P(S) cancels
        ([((1.0, 0.01, 1.0), 1000)], 0.5),
        ([((0.8, 0.01, 2.0), 50), ((1.3, 0.2, 1.0), 7)], 2.0),
    ],
)
def test_the_delta_read_is_below_the_exact_delta_on_its_ladders(segments, eps):
    """The delta read (fine ladder) and the coarse-only read are at most the exact best over those ladders, and
    the fine read within 1e-6 (relative) of it."""
    exact = exact_delta_on_ladders(segments, eps)
    found = max_of_outputs_delta(segments, eps)
    (coarse,) = max_of_outputs_deltas(segments, [eps])
    assert 0.0 < coarse <= found <= exact
    assert exact - found <= 1e-6 * exact


UPPER_RUNS = [
    (1.0, 0.01, 1000, 1e-5, 1.0),
    (0.8, 0.001, 5000, 1e-8, 2.0),
    (2.0, 1e-4, 20000, 1e-10, 0.3),
    (0.6, 1.0, 1, 1e-6, 3.0),
]


@pytest.mark.parametrize("sigma, q, rounds, delta, eps", UPPER_RUNS)
def test_never_above_the_packages_certified_upper_sides(sigma, q, rounds, delta, eps):
    """The read's epsilon at delta and delta at eps are at most the package's certified upper sides of the same run
    (SubsampledGaussianPLD's default brackets)."""
    segments = [((sigma, q, 1.0), rounds)]
    accountant = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds)
    assert max_of_outputs_epsilon(segments, delta) <= accountant.epsilon(delta, bound="both")[1]
    assert max_of_outputs_delta(segments, eps) <= accountant.delta(eps, bound="both")[1]


def test_many_questions_at_once_are_the_one_by_one_reads():
    """An array of deltas (or epsilons) reads the same numbers as one call each, in the array's shape."""
    segments = [((0.6, 1e-5, 1.0), 10**6), ((1.5, 1e-3, 1.0), 2000)]
    deltas = np.array([[1e-3, 1e-10], [1e-12, 1e-100]])
    many = max_of_outputs_epsilon(segments, deltas)
    assert many.shape == (2, 2)
    assert [
        max_of_outputs_epsilon(segments, float(d)) for d in deltas.ravel()
    ] == many.ravel().tolist()
    eps = np.array([0.0, 0.7, 3.0])
    assert [max_of_outputs_delta(segments, float(e)) for e in eps] == max_of_outputs_delta(
        segments, eps
    ).tolist()


@pytest.mark.parametrize(
    "call, args, message",
    [
        (max_of_outputs_epsilon, ([((1.0, 0.1, 1.0), 2.5)], 1e-5), "integer 1 <= rounds"),
        (max_of_outputs_epsilon, ([((1.0, 0.1, 1.0), True)], 1e-5), "rounds"),
        (max_of_outputs_epsilon, ([((1.0, 0.1, -1.0), 3)], 1e-5), "sensitivity > 0"),
        (max_of_outputs_epsilon, ([((1.0, 0.1, 1.0), 3)], [1e-5, 1.0]), "delta must be in"),
        (max_of_outputs_delta, ([((1.0, 0.1, 1.0), 3)], np.nan), "epsilon must be finite"),
        (log_bound, ([((1.0, 0.1, 1.0), 3)], [np.inf], 1e-5), "z must be finite"),
        (log_bound, ([], [1.0], 1e-5), "at least one segment"),
        (best_threshold, ([((1.0, 0.1, 1.0), 3)], 0.0), "delta must be in"),
    ],
)
def test_bad_arguments_are_refused_naming_the_rule(call, args, message):
    with pytest.raises(ValueError, match=message):
        call(*args)


@pytest.mark.parametrize("sigma, sensitivity", [(1.0, np.inf), (1e-300, 1e300)])
def test_a_sensitivity_past_the_doubles_reads_the_sampled_rounds_as_always_seen(sigma, sensitivity):
    """c / sigma overflows: a sampled round's release is above every threshold (Qbar(-inf) = 1), so delta at any
    epsilon is at least 1 - (1 - q)^T less the margins, and never above it (the exact total variation); no NaN."""
    segments = [((sigma, 0.5, sensitivity), 3)]
    reached = max_of_outputs_delta(segments, np.array([0.0, 5.0, 50.0]))
    assert np.all(reached <= 0.875) and np.all(reached >= 0.875 * (1.0 - 1e-9))
    assert max_of_outputs_epsilon(segments, 0.5) > 1000.0  # the threshold ladder's end, z = 45


def exact_one_round_remove(sigma: float, q: float, c: float, eps: float) -> mpmath.mpf:
    """delta(eps) of one round's remove direction, (1 - q) N(0, s^2) + q N(c, s^2) against N(0, s^2), in 60 digits:
    q theta(c / s, log(1 + (e^eps - 1) / q)), theta(r, a) = Qbar(a / r - r / 2) - e^a Qbar(a / r + r / 2)."""
    with mpmath.workdps(60):
        r = mpmath.mpf(c) / mpmath.mpf(sigma)
        a = mpmath.log1p(mpmath.expm1(mpmath.mpf(eps)) / mpmath.mpf(q))
        tail = lambda x: mpmath.erfc(x / mpmath.sqrt(2)) / 2  # noqa: E731
        return mpmath.mpf(q) * (tail(a / r - r / 2) - mpmath.exp(a) * tail(a / r + r / 2))


@pytest.mark.parametrize(
    "sigma, q, c, eps",
    [
        (0.03, 1e-2, 1.0, 784.278),  # delta ~1e-14, beyond e^eps's overflow
        (0.03, 1e-2, 1.0, 660.444),
        (0.03, 0.5, 1.0, 770.0),
        (0.02, 0.9, 1.0, 1600.0),
        (1.0, 0.01, 1.0, 0.5),
        (0.5, 0.3, 2.0, 3.0),
        (2.0, 1.0, 1.0, 0.1),
        (0.8, 0.2, 1.0, 0.0),
    ],
)
def test_one_round_reads_the_exact_delta_at_the_likelihood_ratio_threshold(sigma, q, c, eps):
    """One round of one segment: the largest release is the likelihood ratio's statistic, so the read at the
    threshold where the ratio is e^eps (Neyman-Pearson) is the remove direction's exact delta(eps) up to the sides'
    margins: never above the 60-digit closed form and within 1e-8 (relative) of it, where the ladders' spacing alone
    leaves up to 1e-5."""
    exact = exact_one_round_remove(sigma, q, c, eps)
    found = max_of_outputs_delta([((sigma, q, c), 1)], eps)
    assert 0.0 < found <= exact
    assert exact - found <= 1e-8 * exact
