"""A composed PLD whose factors describe no run, read under a tilt on its own grid
(``pld.question.tilted_own_grid``, the core's ``own_grid_bracket``): against the closed form of
Gaussian compositions (mpmath), a random allocation's plain read on a finer grid, and its own plain
bracket; the binding's refusals, and the core's tilts against the package's searches."""

from __future__ import annotations

import dataclasses
import math

import mpmath
import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick import _core
from hockeystick.pld.grid.distribution import PrivacyLossDistribution
from hockeystick.pld.question import tilted_own_grid
from hockeystick.pld.question.tilted_factors import summed_log_mgf

MP_DPS = 40


def _undescribed(dist: PrivacyLossDistribution) -> PrivacyLossDistribution:
    """``dist`` with its factors' sources removed: the question reader describes no run in it."""
    return PrivacyLossDistribution(
        [{dataclasses.replace(f, source=None): c for f, c in d.items()} for d in dist.directions],
        dist.tail,
    )


def _gaussian(sigma: float, rounds: int) -> PrivacyLossDistribution:
    """``rounds`` rounds of the Gaussian mechanism of noise ``sigma`` on the grid 1e-3, its tails
    cut at 1e-24 (so that the factors' own mass at +infinity lies far below the deltas read)."""
    one = pld.gaussian(sigma, tail=1e-24, value_discretization_interval=1e-3)
    return _undescribed(one).self_compose(rounds)


# (PLD, r = sqrt(sum_i c_i / sigma_i^2)): one kind of round, and two kinds in one direction
RUNS = {
    "one kind": (lambda: _gaussian(3.0, 20), math.sqrt(20) / 3.0),
    "two kinds": (
        lambda: _gaussian(3.0, 10).compose(_gaussian(4.0, 15)),
        math.sqrt(10 / 9 + 15 / 16),
    ),
}


def _exact_delta(r: float, eps: mpmath.mpf) -> mpmath.mpf:
    """delta(eps) of the Gaussian pair N(r, 1) vs N(0, 1) (Balle & Wang 2018, Thm. 8)."""
    r_ = mpmath.mpf(r)
    return mpmath.ncdf(-eps / r_ + r_ / 2) - mpmath.e**eps * mpmath.ncdf(-eps / r_ - r_ / 2)


def _exact_epsilon(r: float, delta: float) -> float:
    """The epsilon at which ``_exact_delta`` is ``delta``, by bisection at MP_DPS digits."""
    low, high = mpmath.mpf(0), mpmath.mpf(100)
    for _ in range(120):
        mid = (low + high) / 2
        low, high = (mid, high) if _exact_delta(r, mid) > delta else (low, mid)
    return float((low + high) / 2)


@pytest.mark.parametrize("run", sorted(RUNS))
@pytest.mark.parametrize("delta", [1e-10, 1e-12])
def test_epsilon_of_undescribed_gaussians_is_the_closed_forms(run: str, delta: float) -> None:
    """Where the plain composition's bracket is wider than 1e-3, the tilted read holds the exact
    epsilon and lies within 1e-3 of it on each side."""
    make, r = RUNS[run]
    exact = _exact_epsilon(r, delta)
    plain_lower, plain_upper = make().epsilon(delta, bound="both", composition_only=True)
    assert plain_upper - plain_lower > 1e-3  # the plain read was wide
    lower, upper = make().epsilon(delta, bound="both")
    assert lower <= exact <= upper
    assert upper - exact <= 1e-3 and exact - lower <= 1e-3


def _allocation(h: float, resolution: float) -> PrivacyLossDistribution:
    """Ten epochs of random allocation (balls-in-bins) over 20 steps of noise 1."""
    epoch = pld.random_allocation_gaussian(
        20, 1.0, value_discretization_interval=h, sum_resolution=resolution
    )
    return epoch.self_compose(10)


def test_random_allocation_at_1e_12_is_narrower_than_its_plain_bracket() -> None:
    """At delta 1e-12 the plain bracket is wide by the composition's charges; the tilted read of the
    same factors narrows it on both sides, and an upper side asked alone is the bracket's, bit for
    bit."""
    plain_lower, plain_upper = _allocation(2e-3, 0.05).epsilon(
        1e-12, bound="both", composition_only=True
    )
    lower, upper = _allocation(2e-3, 0.05).epsilon(1e-12, bound="both")
    assert plain_lower < lower <= upper < plain_upper
    assert (upper - lower) < 0.5 * (plain_upper - plain_lower)
    assert _allocation(2e-3, 0.05).epsilon(1e-12, bound="upper").hex() == upper.hex()


def test_random_allocations_tilted_sides_meet_its_plain_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Read at delta 1e-8 under a tilt however small the plain charges (``CHARGE_SHARE`` 0), where
    the plain composition of the same factors is exact up to their discretization and its charges
    (a few 1e-4 of delta, about 2e-5 in epsilon): each tilted side lies within 1e-4 of the plain
    one (the upper side read from no plain upper side of the run); and the tilted bracket meets the
    plain bracket of a grid four times finer and a sum resolution 2.5 times finer (each certified,
    so they intersect)."""
    monkeypatch.setattr(tilted_own_grid, "CHARGE_SHARE", 0.0)
    coarse = _allocation(2e-3, 0.05)
    plain_lower, plain_upper = coarse.epsilon(1e-8, bound="both", composition_only=True)
    lower, upper = tilted_own_grid.own_grid_bracket(coarse, 1e-8, plain_lower, math.inf)
    assert abs(lower - plain_lower) <= 1e-4 and abs(upper - plain_upper) <= 1e-4
    fine_lower, fine_upper = _allocation(5e-4, 0.02).epsilon(
        1e-8, bound="both", composition_only=True
    )
    assert lower <= fine_upper and fine_lower <= upper


def test_a_bracket_the_plain_charges_leave_exact_is_kept_bit_for_bit() -> None:
    """40 rounds of the Laplace mechanism at delta 1e-5: the plain composition's charges are far
    below ``CHARGE_SHARE`` of delta, so the bracket is the plain one, bit for bit; at 1e-12 the
    tilted read narrows it."""
    dist = pld.laplace(10.0).self_compose(40)
    plain = dist.epsilon(np.array([1e-5, 1e-12]), bound="both", composition_only=True)
    lower, upper = pld.laplace(10.0).self_compose(40).epsilon(np.array([1e-5, 1e-12]), bound="both")
    assert [lower[0].hex(), upper[0].hex()] == [plain[0][0].hex(), plain[1][0].hex()]
    assert plain[0][1] < lower[1] <= upper[1] < plain[1][1]


def _laplace_directions() -> list:
    """The core's directions of 40 rounds of the Laplace mechanism (scale 10)."""
    dist = pld.laplace(10.0).self_compose(40)
    return [
        (
            pmf,
            tilted_own_grid.direction_pessimistic(d),
            tilted_own_grid.direction_optimistic(d),
        )
        for pmf, d in zip(dist.composed(True), dist.directions)
    ]


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"delta": 0.0}, "delta"),
        ({"delta": 1.5}, "delta"),
        ({"lower": math.nan}, "lower"),
        ({"upper": math.nan}, "upper"),
        ({"bound": "neither"}, "bound"),
        ({"charge_share": -1.0}, "charge_share"),
        ({"directions": []}, "directions"),
    ],
)
def test_the_core_read_refuses_arguments_outside_their_domain(
    change: dict[str, object], named: str
) -> None:
    """The binding refuses each argument outside its domain with a ValueError naming it."""
    arguments: dict[str, object] = {
        "directions": _laplace_directions(),
        "delta": 1e-12,
        "lower": 0.0,
        "upper": math.inf,
    }
    arguments.update(change)
    with pytest.raises(ValueError, match=named):
        _core.pld_refine.own_grid_bracket(**arguments)


def test_the_core_read_refuses_directions_it_cannot_read() -> None:
    """A count below 1, an optimistic plain window, a direction with no factor and a factor on
    another grid are refused, each by a ValueError naming ``directions``."""
    [(plain, ups, lows)] = _laplace_directions()
    other = dataclasses.replace(ups[0][0], h=2.0 * ups[0][0].h)
    for directions in (
        [(plain, [(ups[0][0], 0)], lows)],
        [(dataclasses.replace(plain, pessimistic=False), ups, lows)],
        [(plain, [], lows)],
        [(plain, [(other, 40)], lows)],
    ):
        with pytest.raises(ValueError, match="directions"):
            _core.pld_refine.own_grid_bracket(directions, delta=1e-12, lower=0.0, upper=math.inf)


def test_a_tilt_search_refuses_what_it_cannot_read() -> None:
    """The searches name the argument and the rule: no terms, a count below 1, a NaN epsilon, a
    delta outside (0, 1)."""
    [(_, ups, _)] = _laplace_directions()
    with pytest.raises(ValueError, match="terms must hold"):
        _core.pld_refine.exponent_tilt([], eps=1.0)
    with pytest.raises(ValueError, match="count must be at least 1"):
        _core.pld_refine.delta_tilt([(ups[0][0], 0)], delta=1e-5)
    with pytest.raises(ValueError, match="eps must not be NaN"):
        _core.pld_refine.exponent_tilt(ups, eps=math.nan)
    for delta in (0.0, 1.0, math.nan):
        with pytest.raises(ValueError, match="delta must lie strictly between 0 and 1"):
            _core.pld_refine.chernoff_tilt(ups, delta=delta)


def _subsampled_gaussian_terms() -> list:
    """The pessimistic remove direction of 200 rounds of a Poisson-subsampled Gaussian (sigma 0.9,
    q 0.02) on the grid 1e-4: a skewed loss, unlike the Laplace mechanism's."""
    dist = pld.subsampled_gaussian(0.9, 0.02).self_compose(200)
    return tilted_own_grid.direction_pessimistic(dist.directions[0])


@pytest.mark.parametrize("kind", ["laplace", "subsampled gaussian"])
@pytest.mark.parametrize(("eps", "delta"), [(0.3, 1e-3), (2.5, 1e-5), (3.8, 1e-12), (40.0, 1e-300)])
def test_the_core_tilts_are_the_best_of_every_rung(kind: str, eps: float, delta: float) -> None:
    """The core's stepped search (best_tilt: every 64th rung, then every 16th, 4th and every rung
    around the last best) lands on the rung that evaluating every rung of the ladder finds, for the
    three Chernoff scores (the exponent's at eps, the epsilon's at delta and at the round-off model's
    charge E T); a step whose window around the last best missed the ladder's best would fail."""
    terms = _laplace_directions()[0][1] if kind == "laplace" else _subsampled_gaussian_terms()
    lams = _core.pld_reads.tilt_lambdas()
    k = summed_log_mgf(terms, lams)
    charge = math.log(_core.pld_refine.tilt_round_off_per_round * sum(c for _, c in terms) / delta)
    with np.errstate(invalid="ignore", over="ignore"):
        scores = (lams * eps - k, -(k - math.log(delta)) / lams, -(k + charge) / lams)
    best = [float(lams[int(np.argmax(np.where(np.isfinite(s), s, -np.inf)))]) for s in scores]
    core = (
        _core.pld_refine.exponent_tilt(terms, eps=eps),
        _core.pld_refine.delta_tilt(terms, delta=delta),
        _core.pld_refine.chernoff_tilt(terms, delta=delta),
    )
    assert [v.hex() for v in core] == [b.hex() for b in best]
