"""Every certified side of the Gaussian paths at the edges of what they accept, against 50-digit mpmath.

T runs of the Gaussian mechanism with noise multiplier sigma (sensitivity 1, shift 1 under
add/remove, 2 under replace-one) are mu-GDP with mu = shift sqrt(T) / sigma (Dong, Roth, Su 2022,
Cor. 3.3), whose exact privacy profile is

    delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)   (paper 004 eq. 8).

Entry points: the dp_accounting adapter (its Gaussian fast path: every Gaussian folded into one
radius), the Opacus adapter at sampling rate 1 (the same path), ``GaussianMechanism`` and the
command line.  At delta from the least subnormal 5e-324 to 1 - 2^-53, sigma from 1e-3 to 1e3, T
from 1 to 2^53 and eps from 0 to 1e308 each returns a bracket with lower <= exact <= upper, never
inverted, never NaN, and refuses none of them: an upper delta is checked against the exact value,
an upper epsilon by delta(upper) <= delta, a lower epsilon by lower = 0 or delta(lower) >= delta
(epsilon(delta) is the least eps with delta(eps) <= delta, and delta(eps) falls).  A true delta
below the least double has one upper side everywhere, the least subnormal, and lower side 0.

The last tests hold two paths to their exact values on small seeded samples: ``GaussianMechanism``'s
lower sides (theta at mu rounded down) and the with-replacement batches of one draw, where the
shift-constrained upper curve is exact: delta(eps) = q theta(2/sigma, log(1 + (e^eps - 1)/q)), q = 1/n.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from functools import cache

import mpmath as mp
import numpy as np
import pytest

dp_accounting = pytest.importorskip("dp_accounting")
from dp_accounting import dp_event  # noqa: E402
from dp_accounting.privacy_accountant import NeighboringRelation  # noqa: E402

from hockeystick import pld  # noqa: E402
from hockeystick.cli import main  # noqa: E402
from hockeystick.fdp.gaussian_mechanism import GaussianMechanism  # noqa: E402
from hockeystick.interop import dp_accounting as adapter  # noqa: E402
from hockeystick.interop import opacus  # noqa: E402

LEAST = math.nextafter(0.0, 1.0)  # 5e-324
SIGMAS = (1e-3, 0.37, 1.0, 1e3)
ROUNDS = (1, 7, 10**7, 2**53)
DELTAS = (LEAST, 1e-310, 1e-300, 1e-100, 1e-5, 0.5, 1 - 1e-12, 1 - 1e-16, 1 - 2.0**-53)
EPSILONS = (0.0, 1e-300, 1e-3, 1.0, 40.0, 1e3, 1e6, 1e12, 1e22, 1e100, 1e308)
FAR = mp.mpf(10) ** 20  # eps / mu - mu / 2 beyond this: 0 < delta < Q(1e20) < 10^-400

Bracket = tuple[float, float]


def _mu(sigma: float, rounds: int, shift: int = 1) -> mp.mpf:
    with mp.workdps(80):
        return shift * mp.sqrt(rounds) / mp.mpf(sigma)


def exact_delta(mu: mp.mpf, eps: float) -> tuple[mp.mpf, mp.mpf]:
    """(below, above) the exact delta(eps) of mu-GDP: equal (50 digits) unless delta is far below the doubles.

    The exponents (eps, x^2 / 2) carry ``scale`` digits before the point, which the working precision
    adds; it doubles until the difference keeps 55 digits beyond those and what cancels in it."""
    with mp.workdps(80):
        x1 = mp.mpf(eps) / mu - mu / 2
        scale = int(mp.log10(1 + x1**2 + (mu + x1) ** 2 + eps)) + 1
    if x1 > FAR:
        return mp.mpf(0), mp.mpf(10) ** -400
    dps = 60 + scale
    while True:
        with mp.workdps(dps):
            x1 = mp.mpf(eps) / mu - mu / 2
            first = mp.ncdf(-x1)
            value = first - mp.exp(mp.mpf(eps)) * mp.ncdf(-x1 - mu)
            if value > 0 and mp.log10(first / value) < dps - 55 - scale:
                with mp.workdps(50):
                    value = +value
                return value, value
        dps *= 2
        assert dps < 10000, (mu, eps)


def _delta_misses(mu: mp.mpf, eps: float, bracket: Bracket) -> list[str]:
    lo, up = bracket
    below, above = exact_delta(mu, eps)
    misses = (
        []
        if isinstance(lo, float) and isinstance(up, float) and lo <= up
        else ["not an ordered pair of floats"]
    )
    if not mp.mpf(up) >= above:
        misses.append(f"upper {up!r} below the exact {mp.nstr(above, 17)}")
    if not mp.mpf(lo) <= below:
        misses.append(f"lower {lo!r} above the exact {mp.nstr(below, 17)}")
    return misses


def _epsilon_misses(mu: mp.mpf, delta: float, bracket: Bracket) -> list[str]:
    lo, up = bracket
    misses = (
        []
        if isinstance(lo, float) and isinstance(up, float) and 0 <= lo <= up
        else ["not an ordered pair >= 0"]
    )
    if not up < math.inf:
        misses.append(f"upper {up!r}: delta > 0 is always met at a finite eps")
    elif not exact_delta(mu, up)[1] <= delta:
        misses.append(
            f"upper {up!r}: the exact delta there, {mp.nstr(exact_delta(mu, up)[1], 17)}, exceeds the target"
        )
    if lo > 0 and not exact_delta(mu, lo)[0] >= delta:
        misses.append(
            f"lower {lo!r}: the exact delta there, {mp.nstr(exact_delta(mu, lo)[0], 17)}, is below the target"
        )
    return misses


@cache
def _dp_accounting(
    sigma: float, rounds: int, relation: NeighboringRelation
) -> adapter.HockeystickPLDAccountant:
    acc = adapter.HockeystickPLDAccountant(relation)
    acc.compose(dp_event.GaussianDpEvent(sigma), rounds)
    return acc


def _opacus(sigma: float, rounds: int) -> opacus.HockeystickOpacusAccountant:
    acc = opacus.HockeystickOpacusAccountant()
    acc.history = [(sigma, 1.0, rounds)]
    return acc


def _floats(pair: tuple) -> Bracket:
    lo, up = pair
    return (
        float(lo) if isinstance(lo, (float, np.floating)) else lo,
        float(up) if isinstance(up, (float, np.floating)) else up,
    )


# name -> (shift, epsilon bracket at delta, delta bracket at eps or None)
EntryPoint = tuple[
    int, Callable[[float, int, float], Bracket], Callable[[float, int, float], Bracket] | None
]
ENTRY_POINTS: dict[str, EntryPoint] = {
    "dp_accounting add/remove": (
        1,
        lambda s, t, d: _dp_accounting(
            s, t, NeighboringRelation.ADD_OR_REMOVE_ONE
        ).get_epsilon_bracket(d),
        lambda s, t, e: _dp_accounting(
            s, t, NeighboringRelation.ADD_OR_REMOVE_ONE
        ).get_delta_bracket(e),
    ),
    "dp_accounting replace-one": (
        2,
        lambda s, t, d: _dp_accounting(s, t, NeighboringRelation.REPLACE_ONE).get_epsilon_bracket(
            d
        ),
        lambda s, t, e: _dp_accounting(s, t, NeighboringRelation.REPLACE_ONE).get_delta_bracket(e),
    ),
    "opacus, sample rate 1": (1, lambda s, t, d: _opacus(s, t).get_epsilon_bracket(d), None),
    "GaussianMechanism": (
        1,
        lambda s, t, d: _floats(GaussianMechanism(sigma=s, rounds=t).epsilon(d, bound="both")),
        lambda s, t, e: _floats(GaussianMechanism(sigma=s, rounds=t).delta(e, bound="both")),
    ),
}


@pytest.mark.parametrize("name", list(ENTRY_POINTS))
def test_every_side_at_the_edges(name: str) -> None:
    """Each side of each entry point on the grid of edges: sigma x T x (delta, then eps)."""
    shift, epsilon_bracket, delta_bracket = ENTRY_POINTS[name]
    misses = []
    for sigma in SIGMAS:
        for rounds in ROUNDS:
            mu = _mu(sigma, rounds, shift)
            for delta in DELTAS:
                found = _epsilon_misses(mu, delta, _floats(epsilon_bracket(sigma, rounds, delta)))
                misses += [
                    f"sigma={sigma}, T={rounds}, epsilon at delta={delta!r}: {m}" for m in found
                ]
            for eps in EPSILONS if delta_bracket is not None else ():
                found = _delta_misses(mu, eps, _floats(delta_bracket(sigma, rounds, eps)))
                misses += [f"sigma={sigma}, T={rounds}, delta at eps={eps!r}: {m}" for m in found]
    assert not misses, f"{len(misses)} sides off:\n" + "\n".join(misses[:20])


def test_random_points_inside_the_edges() -> None:
    """Seeded random sigma, T, delta and eps (log-uniform; deltas also near 1, eps mostly where delta is
    between 1 and the subnormals), through the adapter
    (one Gaussian, and two Gaussians of different noise whose radii are summed) and GaussianMechanism."""
    rng = np.random.default_rng(49)
    misses = []
    for _ in range(40):
        sigma = float(10 ** rng.uniform(-3, 3))
        rounds = int(2 ** rng.uniform(0, 53))
        delta = (
            float(10 ** rng.uniform(-323, 0))
            if rng.random() < 0.7
            else float(1 - 10 ** rng.uniform(-16, -1))
        )
        mu = float(
            _mu(sigma, rounds)
        )  # eps where eps / mu - mu / 2 is in [-3, 40] (delta from ~1 to ~1e-350), or any
        eps = (
            max(mu * (rng.uniform(-3, 40) + mu / 2), 0.0)
            if rng.random() < 0.7
            else float(10 ** rng.uniform(-3, 308))
        )
        acc = adapter.HockeystickPLDAccountant()
        acc.compose(
            dp_event.ComposedDpEvent(
                [
                    dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(sigma), rounds),
                    dp_event.GaussianDpEvent(2 * sigma),
                ]
            )
        )
        with mp.workdps(80):
            mu2 = mp.sqrt(_mu(sigma, rounds) ** 2 + _mu(2 * sigma, 1) ** 2)
        mechanism = GaussianMechanism(sigma=sigma, rounds=rounds)
        for where, mu, side, bracket in (
            ("two Gaussians, epsilon", mu2, _epsilon_misses, acc.get_epsilon_bracket(delta)),
            ("two Gaussians, delta", mu2, _delta_misses, acc.get_delta_bracket(eps)),
            (
                "adapter, epsilon",
                _mu(sigma, rounds),
                _epsilon_misses,
                ENTRY_POINTS["dp_accounting add/remove"][1](sigma, rounds, delta),
            ),
            (
                "GaussianMechanism, epsilon",
                _mu(sigma, rounds),
                _epsilon_misses,
                _floats(mechanism.epsilon(delta, bound="both")),
            ),
            (
                "GaussianMechanism, delta",
                _mu(sigma, rounds),
                _delta_misses,
                _floats(mechanism.delta(eps, bound="both")),
            ),
        ):
            x = delta if side is _epsilon_misses else eps
            misses += [
                f"{where}: sigma={sigma!r}, T={rounds}, at {x!r}: {m}"
                for m in side(mu, x, _floats(bracket))
            ]
    assert not misses, f"{len(misses)} sides off:\n" + "\n".join(misses[:20])


def test_one_rule_for_a_delta_below_the_doubles(capsys: pytest.CaptureFixture[str]) -> None:
    """A true delta below the least double: upper side the least subnormal (never 0), lower side 0, at
    every entry point, the command line's output included; just above it the upper side is the log form."""
    for sigma, rounds, eps in ((1.0, 1, 40.0), (1e3, 1, 1e308), (1e-3, 2**53, 1e308)):
        mu = _mu(sigma, rounds)
        assert 0 < exact_delta(mu, eps)[1] < LEAST
        brackets = {
            "dp_accounting": _dp_accounting(
                sigma, rounds, NeighboringRelation.ADD_OR_REMOVE_ONE
            ).get_delta_bracket(eps),
            "GaussianMechanism": _floats(
                GaussianMechanism(sigma=sigma, rounds=rounds).delta(eps, bound="both")
            ),
        }
        assert (
            main(
                [
                    "delta",
                    "-a",
                    "gaussian",
                    "-p",
                    f"sigma={sigma!r}",
                    "-p",
                    f"rounds={rounds}",
                    "--epsilon",
                    repr(eps),
                    "--bound",
                    "both",
                    "--format",
                    "json",
                ]
            )
            == 0
        )
        row = json.loads(capsys.readouterr().out)[0]
        brackets["command line"] = (row["delta_lower"], row["delta_upper"])
        assert all(b == (0.0, LEAST) for b in brackets.values()), (sigma, rounds, eps, brackets)
    # a subnormal delta: an upper side within a few subnormal steps above it (the log form)
    mu = _mu(1.0, 1)
    eps = 38.5
    truth = exact_delta(mu, eps)[0]
    assert 1e-320 < truth < 1e-310
    up = _dp_accounting(1.0, 1, NeighboringRelation.ADD_OR_REMOVE_ONE).get_delta_bracket(eps)[1]
    assert truth <= up <= truth * (1 + 1e-9) + 4 * LEAST
    assert GaussianMechanism(sigma=1.0).delta(eps) == up


def test_gaussian_mechanism_lower_sides_at_mu_rounded_down() -> None:
    """Lower delta and lower epsilon of GaussianMechanism on a seeded sample where theta is steep in mu
    (eps / mu - mu / 2 in [5, 35], mu in [30, 3000]: a relative 1e-15 on mu moves delta by 1e-12 or more),
    and a point where rounding mu to nearest puts the lower delta 5.1e-12 above the exact value."""
    rng = np.random.default_rng(55)
    points = [(0.1444726495906344, 394, 13963.910681065405)]
    for _ in range(25):
        mu = 10 ** rng.uniform(math.log10(30), math.log10(3000))
        rounds = int(rng.integers(1, 1000))
        points.append((math.sqrt(rounds) / mu, rounds, mu * (rng.uniform(5, 35) + mu / 2)))
    misses = []
    for sigma, rounds, eps in points:
        mechanism, mu = GaussianMechanism(sigma=sigma, rounds=rounds), _mu(sigma, rounds)
        misses += [
            f"delta at sigma={sigma!r}, T={rounds}, eps={eps!r}: {m}"
            for m in _delta_misses(mu, eps, _floats(mechanism.delta(eps, bound="both")))
        ]
        delta = float(mechanism.delta(eps))
        misses += [
            f"epsilon at sigma={sigma!r}, T={rounds}, delta={delta!r}: {m}"
            for m in _epsilon_misses(mu, delta, _floats(mechanism.epsilon(delta, bound="both")))
        ]
    assert not misses, f"{len(misses)} sides off:\n" + "\n".join(misses[:20])


def _one_draw_delta(sigma: float, n: int, eps: float) -> mp.mpf:
    """Exact delta(eps) of one Gaussian round on one index drawn from n records, replace-one: the record is
    drawn with q = 1/n, so delta(eps) = q theta(2 / sigma, log(1 + (e^eps - 1) / q))."""
    with mp.workdps(80):
        q = mp.mpf(1) / n
        inner = mp.log(1 + mp.expm1(mp.mpf(eps)) / q)
        return q * exact_delta(2 / mp.mpf(sigma), inner)[0]


def test_with_replacement_one_draw_against_the_exact_delta() -> None:
    """WithReplacementBatchGaussianPLD(sigma, 1, n, 1) at eps = 0 (and a third at eps in (0, 2)) on a seeded
    sample, and the dp_accounting adapter's path for the same event: lower <= exact <= upper."""
    rng = np.random.default_rng(2)
    count = 16
    sigmas = 10 ** rng.uniform(math.log10(2), math.log10(20), count)
    ns = np.round(10 ** rng.uniform(2, 7, count)).astype(int)
    epsilons = np.where(np.arange(count) % 3 == 2, rng.uniform(0, 2, count), 0.0)
    points = [(3.2720628118229076, 859386, 0.0)] + list(
        zip(sigmas.tolist(), ns.tolist(), epsilons.tolist())
    )
    misses = []
    for sigma, n, eps in points:
        lo, up = pld.WithReplacementBatchGaussianPLD(sigma, 1, n, 1).delta(eps, bound="both")
        truth = _one_draw_delta(sigma, n, eps)
        if not lo <= truth <= up:
            misses.append(
                f"pld sigma={sigma!r}, n={n}, eps={eps!r}: [{lo!r}, {up!r}] vs {mp.nstr(truth, 17)}"
            )
    for sigma, n, eps in points[:3]:
        acc = adapter.HockeystickPLDAccountant(NeighboringRelation.REPLACE_ONE)
        acc.compose(dp_event.SampledWithReplacementDpEvent(n, 1, dp_event.GaussianDpEvent(sigma)))
        lo, up = acc.get_delta_bracket(eps)
        truth = _one_draw_delta(sigma, n, eps)
        if not lo <= truth <= up:
            misses.append(
                f"adapter sigma={sigma!r}, n={n}, eps={eps!r}: [{lo!r}, {up!r}] vs {mp.nstr(truth, 17)}"
            )
    assert not misses, f"{len(misses)} brackets miss the exact delta:\n" + "\n".join(misses)
