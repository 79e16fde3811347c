"""An ``accuracy=`` epsilon bracket, coarser or finer than the default's tolerance, lies within the default's on both
sides (issue "one engine", item 3: more accuracy is never looser, and a coarser one reads no less than the default):
``pld.question.default_reads.accuracy_sides`` intersects the refined bracket with the default's, both certified."""

from __future__ import annotations

import warnings

import pytest

import hockeystick.pld as pld

RUNS = {
    "readme": (1.1, 256 / 60_000, 14_100),
    "fedavg": (1.0, 1e-3, 5000),
}
_default: dict[tuple[str, str, float], tuple[float, float]] = {}


def _read(run: str, quantity: str, at: float, accuracy: float | None) -> tuple[float, float]:
    accountant = pld.SubsampledGaussianPLD(*RUNS[run], accuracy=accuracy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the bracket is what is checked here, not the warning
        lower, upper = getattr(accountant, quantity)(at, bound="both")
    return float(lower), float(upper)


def _check(run: str, quantity: str, at: float, accuracy: float) -> None:
    if (run, quantity, at) not in _default:
        _default[run, quantity, at] = _read(run, quantity, at, None)
    d_lower, d_upper = _default[run, quantity, at]
    lower, upper = _read(run, quantity, at, accuracy)
    assert d_lower <= lower <= upper <= d_upper, (lower, upper, d_lower, d_upper)


# accuracies coarser and finer than the default's tolerance, max(1e-3, 2.5e-4 epsilon)
@pytest.mark.parametrize(("delta", "accuracy"), [(1e-5, 1e-2), (1e-10, 1e-2), (1e-5, 1e-4)])
@pytest.mark.parametrize("run", ["readme", "fedavg"])
def test_epsilon_at_an_accuracy_lies_within_the_defaults(run, delta, accuracy):
    """README run at delta 1e-5, accuracy=1e-2: the refinement alone reads [2.381891, 2.389402] around the default's
    [2.385065, 2.385144].  (Delta 1e-10 at accuracy=1e-4 is test_accuracy_never_looser's.)"""
    _check(run, "epsilon", delta, accuracy)
