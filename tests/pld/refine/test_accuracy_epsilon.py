"""The core's ``accuracy=`` read of one point at one delta (cpp/include/hockeystick/pld/refine/accuracy_epsilon.hpp,
``_core.pld_refine.accuracy_epsilon``; the package's ``default_reads.accuracy_sides`` and the C library's epsilon
call both make it): at a tolerance finer than the default's (in both terms, or at the refined bracket's epsilon: 1e-3
above epsilon 4) it reads the default's bracket once and never ends looser than it, reading the tilted descent only
where the intersection is still wider than asked; at a coarser one a refined bracket within the tolerance comes back
as given with nothing read, and a wider one is read by step 3's
descent, lowered to the cap, and intersected with the default's only where still wider than asked.  Every answer
holds the truth the default brackets."""

from __future__ import annotations

import math

import pytest

from hockeystick import _core
from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.pld.mechanisms.constructors import MAX_CELLS

README = (1.1, 256 / 60_000, 14_100)
DELTA = 1e-10


@pytest.fixture(scope="module")
def default() -> tuple[float, float]:
    lower, upper = SubsampledGaussianPLD(*README).epsilon(DELTA, bound="both")
    return float(lower), float(upper)


def read(lower, upper, accuracy, relative_accuracy, default_bracket, cap=None, delta=DELTA):
    sigma, q, rounds = README
    asked = []

    def counted(name, f):
        def call():
            asked.append(name)
            return f()

        return call

    found = _core.pld_refine.accuracy_epsilon(
        sigma=sigma,
        sampling_rate=q,
        rounds=rounds,
        delta=delta,
        lower=lower,
        upper=upper,
        accuracy=accuracy,
        relative_accuracy=relative_accuracy,
        start=1e-4,
        default_start=1e-4,
        cap=None if cap is None else counted("cap", cap),
        default_bracket=counted("default", default_bracket),
        max_cells=MAX_CELLS,
    )
    return found, asked


def test_a_finer_accuracy_reads_the_default_once_and_is_never_looser(default):
    (lower, upper), asked = read(0.0, math.inf, 1e-5, 0.0, lambda: default, cap=lambda: 0.0)
    assert asked == ["default"]  # no cap on the finer branch
    assert default[0] <= lower <= upper <= default[1]


def test_a_finer_accuracy_within_the_default_reads_no_descent(default):
    within = (
        default[0],
        default[0] + 5e-6,
    )  # narrower than asked (the read takes the sides given as certified)
    (lower, upper), asked = read(*within, 1e-5, 0.0, lambda: (0.0, math.inf))
    assert asked == ["default"] and (lower, upper) == within


def test_the_defaults_absolute_accuracy_above_epsilon_4_is_finer_and_never_looser():
    """Accuracy 1e-3 is below the default's tolerance max(1e-3, 2.5e-4 eps) above eps 4: a refined
    bracket within 1e-3 but reaching past the default's (the README run at 1e-12, eps 4.18) is
    intersected with the default's, not returned as given (a coarser accuracy's rule)."""
    lower, upper = (float(v) for v in SubsampledGaussianPLD(*README).epsilon(1e-12, bound="both"))
    assert upper > 4.0 and upper - lower < 4e-4
    refined = (lower - 3e-4, upper + 3e-4)  # within 1e-3, looser than the default on both sides
    (lo, up), asked = read(*refined, 1e-3, 0.0, lambda: (lower, upper), delta=1e-12)
    assert asked == ["default"] and (lo, up) == (lower, upper)


@pytest.mark.parametrize(
    ("run", "delta"),
    [
        ((1.0741151569840965, 0.13111074789991584, 20), 3.427511296351098e-09),
        (README, 1e-12),
    ],
)
def test_a_finer_accuracy_through_the_front_door_is_never_looser_than_the_default(run, delta):
    """SubsampledGaussianPLD(..., accuracy=1e-3) above eps 4 (a tolerance finer than the default's
    there) gives an upper side no higher than the default's and a lower side no lower.  At eps 6.33
    the refinement's bracket alone, [6.3347576, 6.3349285], is looser on both sides than the
    default's [6.3347577, 6.3348459]; the README's run at 1e-12 has no finite refined upper side,
    so the finer tolerance shows only at the upper side the coarser branch's reads reach (4.180645
    alone, the default's 4.180189)."""
    default_lower, default_upper = SubsampledGaussianPLD(*run).epsilon(delta, bound="both")
    lower, upper = SubsampledGaussianPLD(*run, accuracy=1e-3).epsilon(delta, bound="both")
    assert default_upper > 4.0
    assert default_lower <= lower <= upper <= default_upper


def test_a_coarser_accuracy_met_reads_nothing(default):
    (lower, upper), asked = read(
        default[0], default[1], 1e-2, 0.0, lambda: (0.0, 0.0), cap=lambda: 0.0
    )
    assert asked == [] and (lower, upper) == default


def test_a_coarser_accuracy_wider_than_asked_takes_the_cap_then_the_default(default):
    (lower, upper), asked = read(0.0, math.inf, 1e-2, 0.0, lambda: default, cap=lambda: math.inf)
    assert asked[0] == "cap" and lower <= default[1] and default[0] <= upper
    assert upper - lower <= 1e-2 or asked == ["cap", "default"]
    capped, _ = read(0.0, math.inf, 1e-2, 0.0, lambda: default, cap=lambda: default[1] + 1e-3)
    assert capped[1] <= default[1] + 1e-3


def test_a_nan_side_is_refused_by_name(default):
    with pytest.raises(ValueError, match="lower and upper"):
        read(math.nan, 1.0, 1e-4, 0.0, lambda: default)
