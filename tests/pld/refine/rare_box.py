"""The rare-participation box's rule (issue 90 item 4: q in [1e-6, 1e-4], T q in [1, 100], sigma in
[0.5, 2], delta in [1e-12, 1e-8]) and the reads its tests share, each made once per module.

``RareReads`` keeps the default's certified bracket of each (point, delta) and dp_accounting's
default PLD (pessimistic, on the 1e-4 grid) of each point composed once, read at every delta asked
of it; a module holds one in a module-scoped fixture, so a bracket several asserts read is read
once.  ``assert_box_rule`` is the rule itself, against independent references on the safe side of
each end: the upper side at least the max-of-outputs test's certified lower bound (a closed form
over Gaussian tails), the lower side at most the RDP conversion's certified upper bound
(``question.rdp_upper``) and the upper side at most it; the bracket within the default tolerance;
the upper side at most max(dp_accounting's, our lower side) + max(1e-3, 0.5 %) of it, and at most
dp_accounting's itself wherever that is at or above our certified lower side (below it, it is below
the truth)."""

from __future__ import annotations

import math
import warnings
from typing import Any, cast

import numpy as np

from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.pld.reads.max_of_outputs import max_of_outputs_epsilon
from hockeystick.pld.refine import question

# (sigma, q, rounds, delta)
BoxPoint = tuple[float, float, int, float]


class RareReads:
    """The default brackets and dp_accounting's compositions a module's tests read, each once."""

    def __init__(self) -> None:
        self._brackets: dict[BoxPoint, tuple[float, float]] = {}
        self._peers: dict[tuple[float, float, int], Any] = {}

    def bracket(self, sigma: float, q: float, rounds: int, delta: float) -> tuple[float, float]:
        """The default's certified (lower, upper) of ``SubsampledGaussianPLD`` at ``delta``."""
        key = (sigma, q, rounds, delta)
        if key not in self._brackets:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a bracket left wide warns; its width is checked
                found = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds).epsilon(
                    delta, bound="both"
                )
            lower, upper = cast(tuple[float, float], found)  # bound="both": (lower, upper)
            self._brackets[key] = (float(lower), float(upper))
        return self._brackets[key]

    def peer(self, sigma: float, q: float, rounds: int, delta: float) -> float:
        """dp_accounting's default PLD (pessimistic, on the 1e-4 grid) at ``delta``, its
        composition of ``rounds`` rounds made once per (sigma, q, rounds)."""
        from dp_accounting.pld import privacy_loss_distribution as P  # the tests import-skip it

        key = (sigma, q, rounds)
        if key not in self._peers:
            one = P.from_gaussian_mechanism(
                sigma, sampling_prob=q, value_discretization_interval=1e-4
            )
            self._peers[key] = one.self_compose(rounds)
        return float(self._peers[key].get_epsilon_for_delta(delta))


def references(sigma: float, q: float, rounds: int, delta: float) -> tuple[float, float]:
    """The max-of-outputs test's certified lower bound and the RDP conversion's certified upper
    bound on epsilon at ``delta``."""
    test = max_of_outputs_epsilon([((sigma, q, 1.0), rounds)], delta)
    rdp = float(question.rdp_upper((sigma, q, float(rounds), 1.0), np.array([delta]))[0])
    return test, rdp


def assert_box_rule(point: BoxPoint, lower: float, upper: float, peer: float | None) -> None:
    """The rule of the module docstring at ``point`` for the bracket (``lower``, ``upper``);
    ``peer`` None (dp_accounting's composition takes minutes) checks its stronger form: the upper
    side within max(1e-3, 0.5 %) of our certified lower side, which is at most max(dp_accounting's,
    ours)."""
    sigma, q, rounds, delta = point
    assert 0.0 <= lower <= upper < math.inf
    test, rdp = references(sigma, q, rounds, delta)
    assert test <= upper  # the upper side never below a certified lower bound
    assert lower <= rdp  # the lower side never above a certified upper bound
    assert upper <= rdp
    assert question.within_tolerance(np.array(lower), np.array(upper)), (lower, upper)
    reference = lower
    if peer is not None:
        reference = max(peer, lower)
        # never looser than the peer's default where it may be the truth (at or above our certified
        # lower side); below it, it is below the truth
        assert upper <= peer or peer < lower, (lower, upper, peer)
    assert upper <= reference + max(1e-3, 5e-3 * reference)
