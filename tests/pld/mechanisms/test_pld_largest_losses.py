"""The pure-DP facets of the mechanisms (``Mechanism.largest_losses``, ``Mechanism.delta_floor``) and the
outward-rounded loss maps of ``pld.mechanisms.largest_loss``, against independent references: the closed
forms at 50 digits (mpmath), and the largest finite loss of each finite pair, summed outcome by outcome.

Direction: a certified (lower, upper) never excludes the exact largest loss."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from hockeystick.pld.mechanisms.largest_loss import (
    both_ways,
    poisson_sampled_losses,
    round_outward,
)
from hockeystick.pld.mechanisms.registry import mechanism_names, mechanism_of

RATES = [1e-9, 1e-3, 0.1, 0.5, 0.9, 1 - 1e-9]
INNER_LOSSES = [0.0, 1e-12, 0.3, 1.0, 20.0, 699.0, 701.0, 5000.0]


def exact_sampled(q: float, r: float, a: float) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(log(1 + q (e^r - 1)), -log(1 - q (1 - e^{-a}))) at 50 digits (Zhu, Dong & Wang 2022, Thm 11)."""
    with mpmath.workdps(50):
        q_, r_, a_ = mpmath.mpf(q), mpmath.mpf(r), mpmath.mpf(a)
        return mpmath.log1p(q_ * mpmath.expm1(r_)), -mpmath.log1p(-q_ * -mpmath.expm1(-a_))


@pytest.mark.parametrize("q", RATES)
@pytest.mark.parametrize("loss", INNER_LOSSES)
def test_the_poisson_sampling_map_brackets_the_exact_loss_tightly(q, loss):
    (r_lo, r_up), (a_lo, a_up) = poisson_sampled_losses(q, both_ways(Fraction(loss)))
    remove, add = exact_sampled(q, loss, loss)
    with mpmath.workdps(50):
        for low, up, exact in ((r_lo, r_up, remove), (a_lo, a_up, add)):
            assert mpmath.mpf(low.numerator) / low.denominator <= exact
            assert exact <= mpmath.mpf(up.numerator) / up.denominator
            assert float(up - low) <= 1e-13 * max(1.0, float(exact))


def test_the_sampling_map_gives_nothing_outside_a_proper_rate_or_without_the_inner():
    assert poisson_sampled_losses(0.0, both_ways(Fraction(1))) is None
    assert poisson_sampled_losses(1.0, both_ways(Fraction(1))) is None
    assert poisson_sampled_losses(0.5, None) is None


@pytest.mark.parametrize(
    "x", [Fraction(1, 3), Fraction(2, 1), Fraction(10**400 + 1, 10**400), Fraction(-7, 9)]
)
def test_round_outward_rounds_away_from_the_exact_value(x):
    down, up = round_outward(x, False), round_outward(x, True)
    assert Fraction(down) <= x <= Fraction(up)
    assert up == down or math.nextafter(down, math.inf) == up


# the closed forms each facet states, at 50 digits: (spec, exact remove loss, exact add loss)
def _closed_forms() -> list[tuple[tuple[object, ...], mpmath.mpf, mpmath.mpf]]:
    with mpmath.workdps(50):
        mp = mpmath.mpf
        cases = [
            (("laplace", 0.3), 1 / mp(0.3), 1 / mp(0.3)),
            (("laplace", 7.0), 1 / mp(7.0), 1 / mp(7.0)),
            (("discrete_laplace", 0.7, 3), mp(0.7) * 3, mp(0.7) * 3),
            (("exponential_mechanism", 0.4), mp(0.4), mp(0.4)),
            (("permute_and_flip", 2.5), mp(2.5), mp(2.5)),
            (("eps_delta", 0.3, 0.0), mp(0.3), mp(0.3)),
        ]
        for q, b in ((0.1, 2.0), (0.9, 0.5)):
            cases.append(
                (("laplace_mixture", b, (0.0, 1.0), (1 - q, q)), *exact_sampled(q, 1 / b, 1 / b))
            )
        for q, a, s in ((0.2, 0.6, 1), (0.7, 2.0, 2)):
            cases.append((("poisson_discrete_laplace", a, s, q), *exact_sampled(q, a * s, a * s)))
    return cases


@pytest.mark.parametrize(("spec", "remove", "add"), _closed_forms(), ids=lambda v: str(v)[:40])
def test_each_facet_brackets_its_closed_form(spec, remove, add):
    losses = mechanism_of(spec).largest_losses()
    assert losses is not None
    with mpmath.workdps(50):
        for (low, up), exact in zip(losses, (remove, add)):
            assert mpmath.mpf(low.numerator) / low.denominator <= exact
            assert exact <= mpmath.mpf(up.numerator) / up.denominator


def _pair_largest_losses(spec: tuple[object, ...]) -> list[float] | None:
    """The largest finite loss log(P/Q) of each direction's finite pair (the remove pair and its swap),
    at 50 digits, or None where the pair has mass at loss +infinity."""
    pairs = mechanism_of(spec).finite_pairs()
    assert pairs is not None
    if len(pairs) == 1:
        pairs = [pairs[0], (pairs[0][1], pairs[0][0])]
    tops = []
    with mpmath.workdps(50):
        for p, q in pairs:
            p, q = np.asarray(p), np.asarray(q)
            if np.any((q == 0) & (p > 0)):
                return None
            both = (p > 0) & (q > 0)
            tops.append(
                max(mpmath.log(mpmath.mpf(x) / mpmath.mpf(y)) for x, y in zip(p[both], q[both]))
            )
    return tops


@pytest.mark.parametrize(
    "spec",
    [
        ("discrete_laplace", 0.5, 2),
        ("eps_delta", 0.8, 0.0),
        ("poisson_discrete_laplace", 0.6, 1, 0.2),
        ("poisson_discrete_laplace", 1.5, 2, 0.8),
    ],
)
def test_a_finite_pairs_largest_loss_lies_in_the_facets_bracket(spec):
    """The dominating pair's own largest loss, computed from its masses (within their round-off), lies in
    the facet's certified bracket: the facet is the pair's, not another mechanism's."""
    tops = _pair_largest_losses(spec)
    losses = mechanism_of(spec).largest_losses()
    assert tops is not None and losses is not None
    for (low, up), top in zip(losses, tops):
        assert float(low) - 1e-12 <= float(top) <= float(up) + 1e-12


@pytest.mark.parametrize("eps, delta", [(0.3, 1e-6), (1.0, 0.5), (0.0, 1.0), (2.0, 0.0)])
def test_the_delta_floor_is_the_canonical_pairs_mass_at_infinity(eps, delta):
    mechanism = mechanism_of(("eps_delta", eps, delta))
    p, q = mechanism.finite_pairs()[0]
    p, q = np.asarray(p), np.asarray(q)
    assert mechanism.delta_floor() == float(p[q == 0].sum()) == delta
    assert (mechanism.largest_losses() is None) == (delta > 0)


def test_mechanisms_without_a_closed_form_give_none_and_no_floor():
    """The Gaussian's loss is unbounded: no largest loss; a Laplace mixture other than the Poisson-sampled
    Laplace's has none stated; neither has mass at +infinity."""
    for spec in [
        ("gaussian", 2.0, 1.0),
        ("laplace_mixture", 2.0, (0.0, 2.0), (0.9, 0.1)),
        ("poisson_discrete_gaussian", 3.0, 1, 0.2),
    ]:
        mechanism = mechanism_of(spec)
        assert mechanism.largest_losses() is None and mechanism.delta_floor() == 0.0


def test_every_registered_mechanism_answers_both_facets():
    """Each registered class keeps the two facets' types (a default or its own)."""
    from .test_pld_mechanism_contract import PARAMETERS

    for name in mechanism_names():
        mechanism = mechanism_of((name, *PARAMETERS[name]))
        losses = mechanism.largest_losses()
        assert losses is None or all(
            isinstance(end, Fraction) and 0 <= side[0] <= side[1] for side in losses for end in side
        )
        assert 0.0 <= mechanism.delta_floor() <= 1.0
