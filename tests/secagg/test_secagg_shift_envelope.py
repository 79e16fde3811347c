"""The envelope of a symmetric noise's integer shifts (``secagg.shift_envelope``): above every shift's exact
profile in both directions (mpmath), within the connect-the-dots slack of the largest, above each fixed
shift's exact composition, and, in the accountant, the upper side of the distributed discrete Laplace with
dropout on one coordinate below randomized response's composition."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from hockeystick.secagg import DistributedDiscreteLaplace
from hockeystick.secagg.distributed_discrete_laplace import gdl_masses, harrison_epsilon
from hockeystick.secagg.shift_envelope import MAX_ENVELOPE_SHIFTS, _lower_hull, shift_envelope_pld

mpmath.mp.dps = 50
BETA, DECAY, SHIFTS, H = 0.5, 0.4, 3, 1e-3
REACH = 100  # GDL(1/2, 0.4) beyond |x| = 100 holds below 1e-17


def _gdl_exact(x: int) -> mpmath.mpf:
    """GDL(beta, a)'s mass at x (Lekshmi & Sebastian 2014, eq. 2.5), by mpmath."""
    b, k, a = mpmath.mpf(BETA), abs(x), mpmath.mpf(DECAY)
    return (
        mpmath.exp(-a * k)
        * (-mpmath.expm1(-a)) ** (2 * b)
        * mpmath.hyp2f1(b, b + k, k + 1, mpmath.exp(-2 * a))
        * mpmath.gamma(b + k)
        / (mpmath.gamma(k + 1) * mpmath.gamma(b))
    )


@pytest.fixture(scope="module")
def exact() -> dict[int, mpmath.mpf]:
    return {x: _gdl_exact(x) for x in range(-REACH, REACH + 1)}


@pytest.fixture(scope="module")
def envelope():
    reach = max(harrison_epsilon(BETA, DECAY, s) for s in range(1, SHIFTS + 1))
    return shift_envelope_pld(gdl_masses(BETA, DECAY), SHIFTS, reach, H)


def _profile(exact, s: int, e: float, reverse: bool = False) -> mpmath.mpf:
    """delta of (N + s, N) at e (or of (N, N + s)), exactly over the window."""
    gamma = mpmath.exp(e)
    p = (lambda y: exact[y - s]) if not reverse else (lambda y: exact[y])
    q = (lambda y: exact[y]) if not reverse else (lambda y: exact[y - s])
    window = range(-REACH + max(s, 0), REACH + min(s, 0) + 1)  # y and y - s inside
    return mpmath.fsum(max(p(y) - gamma * q(y), 0) for y in window)


@pytest.mark.parametrize("e", [-0.6, -0.1, 0.0, 0.25, 0.7, 1.2])
def test_every_shift_in_both_directions_is_below_the_envelope(exact, envelope, e):
    upper = float(envelope.delta(e, bound="upper"))
    worst = max(
        _profile(exact, sign * s, e, reverse)
        for s in range(1, SHIFTS + 1)
        for sign in (1, -1)
        for reverse in (False, True)
    )
    assert float(worst) <= upper
    # and not vacuous: within the grid's slack of the worst shift's own profile
    assert upper <= float(worst) + 5e-3


def test_the_envelope_lies_above_each_fixed_shifts_exact_composition(exact, envelope):
    rounds = 2
    composed = envelope.self_compose(rounds)
    for s in (1, SHIFTS):
        # the privacy loss of (N + s, N) and its P-law, composed exactly on the outcomes' losses
        ys = range(-REACH + s, REACH + 1)
        losses = np.array([float(mpmath.log(exact[y - s] / exact[y])) for y in ys])
        weights = np.array([float(exact[y - s]) for y in ys])
        total_values = (losses[:, None] + losses[None, :]).ravel()
        total_masses = (weights[:, None] * weights[None, :]).ravel()
        for e in (0.5, 1.0, 1.5):
            truth = math.fsum(
                (total_masses * np.maximum(0.0, 1.0 - np.exp(e - total_values))).tolist()
            )
            assert truth <= float(composed.delta(e, bound="upper")) + 1e-12


def _chain_in_mpmath(
    points: list[tuple[mpmath.mpf, mpmath.mpf]],
) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    """Andrew's monotone chain with every turn evaluated in mpmath at the working precision."""
    hull: list[tuple[mpmath.mpf, mpmath.mpf]] = []
    for x3, y3 in points:
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            if (x2 - x1) * (y3 - y1) - (y2 - y1) * (x3 - x1) > 0:
                break
            hull.pop()
        hull.append((x3, y3))
    return hull


def test_the_hull_decides_each_turn_as_the_50_digit_arithmetic_does():
    """Profiles as the envelope's: a convex polyline in gamma = e^eps read in doubles at a spacing finer than its
    pieces (runs collinear up to the reads' round-off), a flat run at 0 (turns exactly 0) and a scatter above.
    The hull decides the turns far from 0 on integers and the others in mpmath: the same vertices, e^eps rounded
    as mpmath.exp rounds it, as the chain that evaluates every turn in mpmath."""
    rng = np.random.default_rng(94)
    eps = np.arange(-800, 801) * 2.5e-3
    gamma = np.exp(eps)
    kinks = np.sort(rng.uniform(0.2, 7.0, 12))
    profile = np.maximum.reduce(
        [np.maximum(1.0 - gamma, 0.0)] + [0.4 * np.maximum(k - gamma, 0.0) / k for k in kinks]
    )
    profile[rng.random(eps.size) < 0.05] += 1e-3  # points off the hull
    with mpmath.workdps(50):
        points = [(mpmath.mpf(0), mpmath.mpf(1))] + [
            (mpmath.exp(mpmath.mpf(e)), mpmath.mpf(d))
            for e, d in zip(eps.tolist(), profile.tolist())
        ]
        assert _lower_hull(eps, profile) == _chain_in_mpmath(points)


def test_dropout_on_one_coordinate_is_bracketed_within_a_quarter():
    # 80 of 100 shares on a scalar, c = 1, gamma = 0.1, scale 20, 100 rounds: the envelope of the shifts
    # 1 .. 11 above, the realizable shift 10 below
    acc = DistributedDiscreteLaplace(
        clip_norm=1.0,
        granularity=0.1,
        dimension=1,
        scale=20.0,
        expected_clients=100,
        min_surviving_clients=80,
        rounds=100,
    )
    low, high = acc.epsilon(1e-6, bound="both")
    assert 0.0 < low <= high <= 1.3 * low
    # randomized response at the round's pure eps (Harrison's Theorem 1), composed 100 times, is far above
    eps0 = acc.round_epsilon
    rr = 0.0
    for i in range(101):  # i rounds of loss -eps0 (Kairouz, Oh & Viswanath 2015, Thm. 3.3)
        loss = (100 - 2 * i) * eps0
        weight = math.comb(100, i) * math.exp((100 - i) * eps0) / (1 + math.exp(eps0)) ** 100
        rr += weight * max(0.0, 1 - math.exp(high - loss))
    assert rr > 1e-6  # at the envelope's eps, randomized response's delta is still above the target


@pytest.mark.parametrize(
    ("shift", "reach", "message"),
    [(0, 1.0, "largest_shift"), (MAX_ENVELOPE_SHIFTS + 1, 1.0, "largest_shift"), (2, 0.0, "reach")],
)
def test_bad_arguments_are_refused_by_name(shift, reach, message):
    with pytest.raises(ValueError, match=message):
        shift_envelope_pld(gdl_masses(BETA, DECAY), shift, reach, H)
