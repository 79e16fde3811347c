"""Drop-in accountants for dp_accounting users: the same events, a certified bracket.

``from hockeystick.interop.dp_accounting import HockeystickPLDAccountant as PLDAccountant`` replaces
dp_accounting's PLD accountant.  ``HockeystickPLDAccountant`` is a
``dp_accounting.PrivacyAccountant``: ``compose(event, count)``, ``supports(event)``,
``get_epsilon(target_delta)`` and ``get_delta(target_epsilon)`` behave as dp_accounting documents
them (upper bounds), and ``get_epsilon_bracket`` / ``get_delta_bracket`` return the certified
(lower, upper).  The events it takes, and why each analysis is valid, are listed in ``dp_events``;
the composition is hockeystick's (``pld.accountants.plan``).  It works unchanged inside
``dp_accounting.mechanism_calibration.calibrate_dp_mechanism``.

``HockeystickRdpAccountant`` (``rdp_accountant``) does the same for dp_accounting's
``RdpAccountant``, with finer default orders.

``NeighboringRelation`` is dp_accounting's own enum (``dp_accounting.privacy_accountant``),
re-exported unchanged so the accountants' argument can be imported from here: ADD_OR_REMOVE_ONE (a
record added or removed), REPLACE_ONE (a record replaced by another) or REPLACE_SPECIAL (a record
replaced by a special record).

This module imports dp_accounting; ``import hockeystick`` does not.

Examples
--------
>>> from dp_accounting import GaussianDpEvent
>>> from hockeystick.interop.dp_accounting import HockeystickPLDAccountant
>>> accountant = HockeystickPLDAccountant().compose(GaussianDpEvent(noise_multiplier=1.0), count=10)
>>> round(accountant.get_epsilon(1e-5), 6)
17.856587
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import cast

try:
    from dp_accounting import dp_event
    from dp_accounting.privacy_accountant import (
        NeighboringRelation as NeighboringRelation,  # re-exported
    )
    from dp_accounting.privacy_accountant import PrivacyAccountant
except ModuleNotFoundError:  # name the extra that installs dp_accounting
    from ...base.optional import require_extra

    require_extra("hockeystick.interop.dp_accounting", "dp_accounting")
    raise

from ...base import validation as _validation
from ...base.outward_text import outward_text
from ...base.warning_site import outside_stacklevel
from ...pld.accountants import (
    CompositionPlan,
    FactorStore,
    PlanProfile,
    QuestionEpsilon,
    default_grid_profile,
    single_subsampled_gaussian,
    zcdp_total,
)
from ...pld.mechanisms import DEFAULT_INTERVAL, mechanism_of
from ...pld.refine import AccuracyNotMetWarning
from ...rdp import DEFAULT_ORDERS
from .dp_events import plan_for
from .event_checks import NON_PRIVATE, Unsupported, check_count, check_zcdp_alone, nesting_refused
from .kept_reads import KeptReads
from .pure_dp import pure_epsilon_sum, pure_epsilon_upper_below
from .rdp_accountant import HockeystickRdpAccountant
from .secagg_events import check_secure_aggregation_alone, secure_aggregation_profile
from .secagg_pair_events import check_pair_rounds_alone, pair_rounds_profile

# the wing (interop.dp_accounting) exports it beside the RDP accountant and the neighbouring
# relation
__all__ = ["HockeystickPLDAccountant"]


def _delta_floor(spec: tuple[object, ...]) -> float:
    """A lower bound on the mass at loss +infinity of one run (its delta at every epsilon): its
    mechanism's ``delta_floor`` (delta of (eps, delta)-DP), q of a Poisson sample of a non-private
    event; 0 where none is known."""
    if spec[0] == "poisson_pair" and spec[2] == NON_PRIVATE:
        return cast(float, spec[1])
    floor: float = mechanism_of(spec).delta_floor()
    return floor


def pure_epsilon_bracket(
    plan: CompositionPlan, profile: Callable[[], PlanProfile]
) -> tuple[float, float]:
    """Certified (lower, upper) on epsilon(0) of ``plan``: the essential supremum of the composed privacy loss.

        The loss of a composition is the sum of its runs' independent losses, so its largest value is the sum of
        theirs in each direction, the larger of the two sums (``interop.dp_accounting.pure_dp``: pure-DP runs and their Poisson
        samples, add-or-remove), summed exactly and rounded outward; a Gaussian makes it +inf (both sides); a
        non-private plan is +inf, and so is a plan of zCDP runs with rho > 0 (the Gaussian of that rho is one of the
    mechanisms it allows).  A run with an atom at loss +infinity (``_delta_floor``) leaves
    delta(epsilon) at
        least 1 - prod (1 - floor)^count at every epsilon: refused, as is a plan whose largest loss has no closed form
        here, unless ``profile``'s certified upper delta vanishes past every finite loss (then epsilon(0) is bounded
        below by the lower side at the least positive delta, above by +inf).

        Parameters
        ----------
        plan : CompositionPlan
            What was composed.
        profile : callable
            Returns the plan's ``PlanProfile`` (asked for only where no closed form applies).

        Returns
        -------
        tuple of float
            (lower, upper) on the pure-DP epsilon.

        Raises
        ------
        ValueError
            The plan has a positive delta floor, or no certified zero floor.
    """
    if plan.non_private:
        return math.inf, math.inf
    if plan.empty:
        return 0.0, 0.0
    _check_no_delta_floor(plan)
    zcdp = zcdp_total(plan)
    if plan.gaussian_r2 > 0 or (zcdp is not None and zcdp.rho_lower > 0):
        return (
            math.inf,
            math.inf,
        )  # a Gaussian's loss is unbounded (and rho-zCDP allows one): epsilon(0) = +inf
    closed = pure_epsilon_sum(plan.counts)
    return closed if closed is not None else _profile_epsilon_zero(profile())


def pure_epsilon_upper(plan: CompositionPlan, cap: float = math.inf) -> float:
    """The certified upper side of epsilon(0) where ``pure_epsilon_sum`` has it in closed form, else +inf.

    epsilon(delta) does not increase with delta, so this bounds epsilon at every target delta, and
    delta(epsilon) is 0 from it on: a composition of pure-DP runs (k exponential mechanisms of
    epsilon e: k e) is never answered above its pure-DP epsilon, whatever the grid left in the
    composed profile.  Given ``cap``, ``cap`` itself where that side is certified above it without
    its exact sum (``pure_dp.pure_epsilon_upper_below``): for a caller taking ``min(cap, .)``.
    """
    if plan.non_private or plan.gaussian_r2 > 0 or any(_delta_floor(m) > 0.0 for m in plan.counts):
        return math.inf
    zcdp = zcdp_total(plan)
    if zcdp is not None and zcdp.rho_lower > 0:
        return math.inf
    upper = pure_epsilon_upper_below(plan.counts, cap)
    return upper if upper is not None else math.inf


def _check_no_delta_floor(plan: CompositionPlan) -> None:
    """Refuse a plan whose delta(epsilon) is at least 1 - prod (1 - floor)^count > 0 at every epsilon."""
    survive = math.prod((1.0 - _delta_floor(m)) ** c for m, c in plan.counts.items())
    floor = (
        -math.expm1(sum(c * math.log1p(-_delta_floor(m)) for m, c in plan.counts.items()))
        if survive < 1
        else 0.0
    )
    if floor > 0.0:
        raise ValueError(
            f"target_delta = 0 has no finite epsilon here: the composition's delta(epsilon) is at least {outward_text(floor, 'lower')} at "
            "every epsilon (an event that fails with probability delta: an EpsilonDeltaDpEvent with delta > 0, or a "
            "sample of a non-private event); ask at a target_delta above that floor"
        )


def _profile_epsilon_zero(p: PlanProfile) -> tuple[float, float]:
    """epsilon(0) from a profile whose certified upper delta vanishes past every finite loss; else refused."""
    top = p.delta(1e300)[1]
    if top > 0.0:
        raise ValueError(
            f"target_delta = 0 has no certified epsilon here: the composition's delta(epsilon) is certified only down "
            f"to {outward_text(top, 'upper')} at every epsilon (a mechanism without a closed-form largest loss); ask at a positive "
            "target_delta"
        )
    return p.epsilon(0.0)


# the compiled composition's refusal of a loss grid past the doubles' consecutive integers
# (pld/compose/window.hpp)
_GRID_OVERFLOW = "the composed loss grid spans more than 9e15 grid points"


class HockeystickPLDAccountant(PrivacyAccountant):
    """A dp_accounting ``PrivacyAccountant`` computed by hockeystick, with certified brackets.

    ``compose(event, count)``, ``supports(event)``, ``get_epsilon(target_delta)`` and
    ``get_delta(target_epsilon)`` behave as dp_accounting documents them (each an upper bound);
    ``get_epsilon_bracket`` and ``get_delta_bracket`` return the certified (lower, upper). Each
    event is composed as a mechanism with a proved dominating pair for the neighbouring relation
    (the table of ``interop.dp_accounting.dp_events``); an event without one is refused
    (dp_accounting's ``UnsupportedEventError``), never given a number.

    Parameters
    ----------
    neighboring_relation : NeighboringRelation, default NeighboringRelation.ADD_OR_REMOVE_ONE
        ADD_OR_REMOVE_ONE, REPLACE_ONE or REPLACE_SPECIAL (which events each takes: ``dp_events``).
    accuracy : float, optional
        Finite and > 0: the width aimed for of the certified bracket (in epsilon for
        ``get_epsilon*``, relative in delta for ``get_delta*``).  Rounds of one Poisson-subsampled
        Gaussian under add-or-remove are answered as ``pld.SubsampledGaussianPLD(sigma, q, rounds,
        accuracy=accuracy)`` answers them (``training.DPSGD``'s bracket at that accuracy); other
        compositions on a loss grid refined until the bracket is that narrow (down to a spacing of
        1e-5), intersected with the default's bracket, so that no upper side is above the
        default's; an epsilon bracket still wider than asked warns (``AccuracyNotMetWarning``).
    value_discretization_interval : float, optional
        A fixed loss-grid spacing, finite and > 0; given with ``accuracy``, the grid is this
        spacing, not refined; 1e-4 (``DEFAULT_INTERVAL``) is dp_accounting's ``PLDAccountant``'s.
        Default (neither given): ``get_epsilon`` chooses the grid when the delta is asked
        (``pld.accountants.question_plan``): rounds of one Poisson-subsampled Gaussian under
        add-or-remove get ``training.DPSGD``'s bracket, other compositions the default grid's
        (``pld.accountants.plan.default_interval``: 7/8 of 1e-4 through the Laplace-like atoms, so
        that the upper side is never above dp_accounting's default; where its tails leave the
        upper side inf, the RDP conversion's, with a warning); ``get_delta`` reads that grid.

    Raises
    ------
    ValueError
        When ``accuracy`` or ``value_discretization_interval`` is not finite and > 0.
    ParameterTypeError
        When ``neighboring_relation`` is not a ``NeighboringRelation``, or ``accuracy`` or
        ``value_discretization_interval`` is a string, a bool or an array.

    Examples
    --------
    >>> from dp_accounting import GaussianDpEvent
    >>> from hockeystick.interop.dp_accounting import HockeystickPLDAccountant
    >>> accountant = HockeystickPLDAccountant()
    >>> accountant = accountant.compose(GaussianDpEvent(noise_multiplier=1.0), count=10)
    >>> lower, upper = accountant.get_epsilon_bracket(1e-5)
    >>> round(lower, 6), round(upper, 6)
    (17.856587, 17.856587)
    >>> round(accountant.get_delta(1.0), 6)
    0.818518
    """

    def __init__(
        self,
        neighboring_relation: NeighboringRelation = NeighboringRelation.ADD_OR_REMOVE_ONE,
        accuracy: float | None = None,
        value_discretization_interval: float | None = None,
    ):
        if not isinstance(neighboring_relation, NeighboringRelation):
            raise _validation.ParameterTypeError(
                f"neighboring_relation must be a NeighboringRelation, got {_validation.describe(neighboring_relation)}"
            )
        super().__init__(neighboring_relation)
        a = (
            None
            if accuracy is None
            else float(_validation.positive(_validation.single(accuracy, "accuracy"), "accuracy"))
        )
        self._default_grid = value_discretization_interval is None and a is None
        # an accuracy without a grid: the question to that accuracy (question_plan)
        self._to_accuracy = value_discretization_interval is None and a is not None
        if self._default_grid:
            value_discretization_interval = DEFAULT_INTERVAL
        elif value_discretization_interval is not None:
            value_discretization_interval = float(
                _validation.positive(
                    _validation.single(
                        value_discretization_interval, "value_discretization_interval"
                    ),
                    "value_discretization_interval",
                )
            )
        self.accuracy = a
        self.value_discretization_interval = value_discretization_interval
        self._plan = CompositionPlan()
        self._profile: PlanProfile | None = None
        self._default_profile: PlanProfile | None = None  # the default grid's, beside accuracy
        self._factors: FactorStore = {}  # the factors both profiles build, shared (``PlanProfile``)
        self._question = QuestionEpsilon(a if self._to_accuracy else None)
        self._events: list[tuple[dp_event.DpEvent, int]] = []  # what was composed, for the RDP side
        # the event, count and plan the last call of _maybe_compose checked without composing
        self._checked: tuple[dp_event.DpEvent, int, CompositionPlan] | None = None
        # the brackets read of the composition as it stands, by question (emptied by each compose)
        self._kept: KeptReads[tuple[float, float]] = KeptReads()

    def compose(self, event: dp_event.DpEvent, count: int = 1) -> HockeystickPLDAccountant:
        """Add ``count`` runs of ``event`` to the composition.

        Parameters
        ----------
        event : dp_accounting.DpEvent
            A supported event (``supports(event)``).
        count : int, default 1
            The number of runs, an integer >= 1 (at most 2^53).

        Returns
        -------
        HockeystickPLDAccountant
            This accountant, as dp_accounting's ``compose`` returns it.

        Raises
        ------
        ValueError
            When ``count`` is not an integer >= 1 (dp_accounting's message), exceeds 2^53, or an
            event's field breaks its rule (naming the field), or the event nests deeper than an
            analysis of it walks (naming the depth and the fix).
        dp_accounting.UnsupportedEventError
            When the event has no analysis for the accountant's neighbouring relation.
        """
        check_count(count)
        with nesting_refused(event):
            return cast(
                "HockeystickPLDAccountant", super().compose(event, count)
            )  # dp_accounting's returns self

    def _maybe_compose(
        self, event: dp_event.DpEvent, count: int, do_compose: bool
    ) -> PrivacyAccountant.CompositionErrorDetails | None:
        # dp_accounting's compose checks an event, then composes it: the plan the check built and
        # passed, on the composition as it still is, is composed as it stands
        checked, self._checked = self._checked, None
        if do_compose and checked is not None and checked[0] is event and checked[1] == count:
            plan = checked[2]
        else:
            try:
                plan = plan_for(event, max(int(count), 1), self.neighboring_relation)
                # a copy of what the checks read (counts, radius, flag), not the key's sorted rebuild
                mine = self._plan
                merged = CompositionPlan(
                    dict(mine.counts),
                    mine.gaussian_r2,
                    mine.non_private,
                    mine.gaussian_r2_operations,
                )
                merged.merge(plan)
                check_zcdp_alone(merged, event)  # over several compose calls too (zcdp_plan)
                check_secure_aggregation_alone(merged, event)  # likewise (secagg_events)
                check_pair_rounds_alone(merged, event)  # likewise (secagg_pair_events)
            except Unsupported as u:
                return PrivacyAccountant.CompositionErrorDetails(
                    invalid_event=u.event, error_message=u.message
                )
            self._checked = None if do_compose else (event, count, plan)
        if do_compose:
            self._plan.merge(plan)
            self._profile = None
            self._default_profile = None
            self._factors = {}
            self._kept.clear()
            self._events.append((event, max(int(count), 1)))
        return None

    def _current(self) -> PlanProfile:
        """The profile of everything composed so far: on the caller's grid or accuracy, or by
        default on the default grid where the composition fits it (``default_grid_profile``)."""
        if self._profile is None:
            self._profile = (
                default_grid_profile(self._plan, self._factors)
                if self._default_grid
                else PlanProfile(
                    self._plan,
                    self.value_discretization_interval,
                    self.accuracy,
                    factors=self._factors,
                )
            )
        return self._profile

    def _default(self) -> PlanProfile:
        """The profile of everything composed so far on the default grid (``default_grid_profile``),
        the default's beside the accuracy's."""
        if self._default_profile is None:
            self._default_profile = default_grid_profile(self._plan, self._factors)
        return self._default_profile

    def get_epsilon(self, target_delta: float) -> float:
        """Certified upper bound on epsilon at ``target_delta`` (inf for non-private events).

        Parameters
        ----------
        target_delta : float
            In [0, 1): 0 asks for the pure-DP epsilon (``get_epsilon_bracket``).

        Returns
        -------
        float
            The upper end of ``get_epsilon_bracket(target_delta)``.

        Raises
        ------
        ValueError
            When ``target_delta`` is outside [0, 1) or NaN (naming the argument); at 0, a
            composition with a positive delta floor (``get_epsilon_bracket``).
        ParameterTypeError
            When ``target_delta`` is a string, a bool, None or an array.
        """
        return self.get_epsilon_bracket(target_delta)[1]

    def get_delta(self, target_epsilon: float) -> float:
        """Certified upper bound on delta at ``target_epsilon`` (1 for non-private events).

        Parameters
        ----------
        target_epsilon : float
            ε >= 0, +inf allowed (delta 0).

        Returns
        -------
        float
            The upper end of ``get_delta_bracket(target_epsilon)``.

        Raises
        ------
        ValueError
            When ``target_epsilon`` is negative or NaN (naming the argument).
        ParameterTypeError
            When ``target_epsilon`` is a string, a bool, None or an array.
        """
        return self.get_delta_bracket(target_epsilon)[1]

    def get_epsilon_bracket(self, target_delta: float) -> tuple[float, float]:
        """Certified (lower, upper) on the epsilon of everything composed so far at ``target_delta``.

        Parameters
        ----------
        target_delta : float
            In [0, 1).  At 0 the answer is the pure-DP epsilon, the largest privacy loss the
            composition can take (``pure_epsilon_bracket``): the sum of each run's largest loss
            where every mechanism has one in closed form (exponential mechanism, permute-and-flip,
            (epsilon, 0)-DP, Laplace, discrete Laplace), +inf beside a Gaussian (its loss is
            unbounded).  At every delta the upper side is at most that pure-DP epsilon where it is
            known in closed form (``pure_epsilon_upper``).

        Returns
        -------
        tuple of float
            (lower, upper), lower <= the true epsilon <= upper.

        Raises
        ------
        ValueError
            ``target_delta`` outside [0, 1); at 0, a composition whose delta(epsilon) stays positive
            at every epsilon (a delta floor: an (epsilon, delta)-DP event with delta > 0, a sample
            of a non-private event), or one with no closed-form largest loss and no certified zero
            floor.
        ParameterTypeError
            ``target_delta`` a string, a bool, None or an array.
        """
        target = _validation.single(target_delta, "target_delta")
        target = 0.0 if target == 0.0 else _validation.delta_target(target_delta, "target_delta")
        # asked again of the same composition (get_epsilon is this bracket's upper end): kept
        return self._kept.read(("epsilon", target), lambda: self._epsilon_bracket(target))

    def _epsilon_bracket(self, target: float) -> tuple[float, float]:
        """``get_epsilon_bracket`` at ``target``, a delta in [0, 1) already checked."""
        rounds = secure_aggregation_profile(self._plan, self.value_discretization_interval)
        if rounds is not None:  # secure-aggregation rounds alone (secagg_events)
            return rounds.epsilon(target)
        pairs = pair_rounds_profile(self._plan, self.value_discretization_interval)
        if (
            pairs is not None
        ):  # Poisson-binomial or discrete Laplace rounds alone (secagg_pair_events)
            return pairs.epsilon(target)
        if target == 0.0:
            return pure_epsilon_bracket(self._plan, self._current)
        try:
            if self._default_grid:
                lower, upper = self._question_epsilon(target)
            elif self._to_accuracy:
                lower, upper = self._accuracy_epsilon(target)
            else:
                lower, upper = self._current().epsilon(target)
        except ValueError as error:
            if _GRID_OVERFLOW not in str(error):
                raise
            lower, upper = (
                0.0,
                self._rdp_past_the_grid(lambda rdp: float(rdp.get_epsilon(target)), error),
            )
        return lower, min(upper, pure_epsilon_upper(self._plan, upper))

    def _rdp_past_the_grid(
        self, read: Callable[[HockeystickRdpAccountant], float], error: ValueError
    ) -> float:
        """``read`` of the RDP accountant of every event composed, with an ``AccuracyNotMetWarning``
        saying why: the PLD refused because its composed loss grid would pass 9e15 points (so many
        runs, 2^53 of a mechanism whose one-run loss reaches past a grid step, that no grid of
        doubles holds them).  The bracket is then (0, the RDP conversion's), certified but wide; the
        question is refused as the PLD refused it where an event has no Renyi analysis."""
        rdp = HockeystickRdpAccountant(
            orders=DEFAULT_ORDERS, neighboring_relation=self.neighboring_relation
        )
        for event, count in self._events:
            if not rdp.supports(event):
                raise error
            rdp.compose(event, count)
        runs = sum(count for _, count in self._events)
        warnings.warn(
            f"the PLD cannot compose these {runs} runs (its loss grid would pass 9e15 points): the upper side is the "
            "RDP conversion's (HockeystickRdpAccountant) and the lower side 0, certified but wide",
            AccuracyNotMetWarning,
            stacklevel=outside_stacklevel(),
        )
        return read(rdp)

    def _question_epsilon(self, target: float) -> tuple[float, float]:
        """The default's epsilon bracket, its grid chosen by the question
        (``pld.accountants.question_plan``): rounds of one Poisson-subsampled Gaussian under
        add-or-remove as ``SubsampledGaussianPLD`` answers them by default (DPSGD's numbers), any
        other plan on the default grid, its infinite upper side the RDP conversion's."""
        run = (
            single_subsampled_gaussian(self._plan)
            if self.neighboring_relation == NeighboringRelation.ADD_OR_REMOVE_ONE
            else None
        )
        add_or_remove = self.neighboring_relation == NeighboringRelation.ADD_OR_REMOVE_ONE
        return self._question.epsilon(
            self._plan, run, self._current, target, lambda: self._rdp_epsilon(target), add_or_remove
        )

    def _accuracy_epsilon(self, target: float) -> tuple[float, float]:
        """The epsilon bracket to ``accuracy`` (``QuestionEpsilon.epsilon_to_accuracy``): rounds of
        one Poisson-subsampled Gaussian under add-or-remove as ``SubsampledGaussianPLD`` answers
        them at that accuracy, any other plan refined and intersected with the default's."""
        add_or_remove = self.neighboring_relation == NeighboringRelation.ADD_OR_REMOVE_ONE
        run = single_subsampled_gaussian(self._plan) if add_or_remove else None
        return self._question.epsilon_to_accuracy(
            self._plan,
            run,
            self._current,
            self._default,
            target,
            lambda: self._rdp_epsilon(target),
            add_or_remove,
        )

    def _rdp_epsilon(self, target: float) -> float:
        """The RDP conversion's epsilon at ``target`` of every event composed
        (``HockeystickRdpAccountant`` at dp_accounting's orders), +inf where it takes one of them
        under no Renyi analysis."""
        rdp = HockeystickRdpAccountant(
            orders=DEFAULT_ORDERS, neighboring_relation=self.neighboring_relation
        )
        for event, count in self._events:
            if not rdp.supports(event):
                return math.inf
            rdp.compose(event, count)
        return float(rdp.get_epsilon(target))

    def get_delta_bracket(self, target_epsilon: float) -> tuple[float, float]:
        """Certified (lower, upper) on the delta of everything composed so far at ``target_epsilon``.

        Parameters
        ----------
        target_epsilon : float
            ε >= 0, +inf allowed.

        Returns
        -------
        tuple of float
            (lower, upper), lower <= the true delta <= upper.

        Raises
        ------
        ValueError
            When ``target_epsilon`` is negative or NaN (naming the argument).
        ParameterTypeError
            When ``target_epsilon`` is a string, a bool, None or an array.
        """
        target = _validation.epsilon_target(target_epsilon, "target_epsilon")
        return self._kept.read(("delta", target), lambda: self._delta_bracket(target))

    def _delta_bracket(self, target: float) -> tuple[float, float]:
        """``get_delta_bracket`` at ``target``, an epsilon >= 0 already checked."""
        rounds = secure_aggregation_profile(self._plan, self.value_discretization_interval)
        if rounds is not None:  # secure-aggregation rounds alone (secagg_events)
            return rounds.delta(target)
        pairs = pair_rounds_profile(self._plan, self.value_discretization_interval)
        if (
            pairs is not None
        ):  # Poisson-binomial or discrete Laplace rounds alone (secagg_pair_events)
            return pairs.delta(target)
        if target >= pure_epsilon_upper(self._plan):
            return 0.0, 0.0  # at or past the pure-DP epsilon delta is 0 (pure_epsilon_upper)
        try:
            if not (self._default_grid or self._to_accuracy):
                return self._current().delta(target)
            add_or_remove = self.neighboring_relation == NeighboringRelation.ADD_OR_REMOVE_ONE
            run = single_subsampled_gaussian(self._plan) if add_or_remove else None
            if self._to_accuracy:
                return self._question.delta_to_accuracy(
                    self._plan, run, self._current, self._default, target, add_or_remove
                )
            return self._question.delta(self._plan, run, self._current, target, add_or_remove)
        except ValueError as error:
            if _GRID_OVERFLOW not in str(error):
                raise
            return 0.0, self._rdp_past_the_grid(lambda rdp: float(rdp.get_delta(target)), error)
