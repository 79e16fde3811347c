"""The default epsilon (and delta) of a composition plan given neither a grid nor an accuracy, its
grid chosen when the question is asked (``refine.question``): the accountants that compose before
the question comes (the dp_accounting and Opacus adapters) answer through it.

Rounds of one Poisson-subsampled Gaussian (the DP-SGD run) are answered by
``SubsampledGaussianPLD``'s default, so a run accounted by an adapter and by ``training.DPSGD`` gets
the same bracket.  Any other plan is answered on the default grid (``plan.default_grid_profile``);
where that grid's tails leave the upper side infinite at the delta asked, the upper side is the RDP
conversion's of the same composition (the caller's, else the plan's own, ``plan_rdp``), with a
warning naming ``accuracy=``.

Given an ``accuracy``, rounds of one Poisson-subsampled Gaussian are answered by
``SubsampledGaussianPLD(sigma, q, rounds, accuracy=accuracy)`` (the front door at that accuracy, which
is never looser than its default and warns where it is wider than asked); any other plan by its
``PlanProfile`` refined to the accuracy, intersected with the default's bracket of the same plan (more
accuracy is never looser), with an ``AccuracyNotMetWarning`` where an epsilon or a delta bracket is
still wider than asked (``refine.unmet.unmet_flags``): a plan refinement's upper side at a small
delta is held by the plain composition's round-off charge, which no grid removes.

The plan's run is read as a composed PLD's is: described by its mechanisms' specs and counts
(``described``, ``question.described_run``), and asked of the question
stage's one read of a described run (``question.reader.segments_bracket``: one kind of round the
front door's default, several the tilted composition of the factors).  The default grid's
composed PLD reads the run it describes itself (``plan.read_run``), so its epsilon bracket is not
read again: the tilted read from the bracket it gave finds that bracket, bit for bit.  Its delta
bracket is: the delta read takes its question tail from the upper side given, and the upper side
the first read gave is lower.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np

from ...base.accountant import Quantity
from ..grid.distribution import PrivacyLossDistribution
from ..question.described_run import (
    Described,
    Segment,
    described_segments,
    of_specs,
    subsampled_segments,
)
from ..question.reader import segments_bracket
from ..refine import question
from ..refine.unmet import AccuracyNotMetWarning, unmet_flags
from .composition_plan import CompositionPlan
from .plan import PlanProfile, read_run
from .plan_rdp import plan_rdp_epsilon, rdp_lowered_upper
from .subsampled_gaussian import SubsampledGaussianPLD

# rounds of one Poisson-subsampled Gaussian: (noise multiplier, sampling rate, rounds)
Run = tuple[float, float, int]


def described(plan: CompositionPlan) -> Described | None:
    """The run ``plan`` describes (``question.described_run.of_specs``): each mechanism's spec with
    its count, the Gaussians it folds into one radius (``CompositionPlan.folded_gaussians``) among
    them; None for a plan with a non-private event or a folded radius whose specs it does not keep.

    Parameters
    ----------
    plan : CompositionPlan
        The plan.

    Returns
    -------
    dict or None
        The rounds of each distinct mechanism spec.
    """
    folded = plan.folded_gaussians()
    if plan.non_private or folded is None:
        return None
    return of_specs([*plan.counts.items(), *folded.items()])


def single_subsampled_gaussian(plan: CompositionPlan) -> Run | None:
    """(sigma, q, rounds) where ``plan`` describes rounds of one Poisson-subsampled Gaussian (sigma
    > 0, 0 < q < 1; its pair is add-or-remove's: ``described_run.described_segments``), else None."""
    segments = described_segments(described(plan))
    if segments is None or len(segments) != 1:
        return None
    ((sigma, q, _), count) = segments[0]
    return sigma, q, count


def subsampled_gaussian_segments(plan: CompositionPlan) -> list[Segment] | None:
    """((noise multiplier, q, 1), rounds) per Poisson-subsampled Gaussian where ``plan`` describes
    rounds of several of them only (``described_run.described_segments``), else None."""
    segments = described_segments(described(plan))
    return segments if segments is not None and len(segments) >= 2 else None


def _one_run(plan: CompositionPlan, run: Run) -> list[Segment]:
    """The one segment of rounds ``plan`` describes, where ``run`` is
    ``single_subsampled_gaussian(plan)`` (the question reads the plan's description, not the run
    its door passes)."""
    segments = described_segments(described(plan))
    if segments is None or [(*s[:2], c) for s, c in segments] != [tuple(run)]:
        raise ValueError(
            f"run must be single_subsampled_gaussian(plan), the plan's one run, got {run!r}"
        )
    return segments


class QuestionEpsilon:
    """The default epsilon and delta brackets of a plan, and with ``accuracy`` the brackets to that
    accuracy (module docstring), the accountant of its last single run kept.

    Parameters
    ----------
    accuracy : float, optional
        Finite and > 0: the width asked of an epsilon bracket (relative for delta) by
        ``epsilon_to_accuracy`` and ``delta_to_accuracy``, and the accuracy of the front door that
        answers a single run; None, the default's.
    """

    def __init__(self, accuracy: float | None = None) -> None:
        self.accuracy = accuracy
        self._run: tuple[Run, SubsampledGaussianPLD] | None = None

    def _accountant(self, run: Run) -> SubsampledGaussianPLD:
        """``SubsampledGaussianPLD`` for ``run`` at ``accuracy`` (None: its default), kept while
        the run is the same."""
        if self._run is None or self._run[0] != run:
            self._run = (
                run,
                SubsampledGaussianPLD(
                    sigma=run[0], sampling_rate=run[1], rounds=run[2], accuracy=self.accuracy
                ),
            )
        return self._run[1]

    def _front_door(self, sigma: float, sampling_rate: float, rounds: int) -> SubsampledGaussianPLD:
        """The reader's front door: ``SubsampledGaussianPLD`` at ``accuracy``, kept while the run
        is the same."""
        return self._accountant((sigma, sampling_rate, int(rounds)))

    def _read(
        self, segments: list[Segment], method: Quantity, x: float, lower: float, upper: float
    ) -> tuple[float, float]:
        """The question's read of the plan's run (``question.reader.segments_bracket``): one kind
        of round the front door's default alone, several ``(lower, upper)`` narrowed by the tilted
        composition of the factors."""
        low, up = segments_bracket(
            self._front_door,
            segments,
            method,
            np.asarray(x, dtype=np.float64),
            np.asarray(lower, dtype=np.float64),
            np.asarray(upper, dtype=np.float64),
        )
        return float(low), float(up)

    def delta(
        self,
        plan: CompositionPlan,
        run: Run | None,
        profile: Callable[[], PlanProfile],
        epsilon: float,
        add_or_remove: bool = False,
    ) -> tuple[float, float]:
        """Certified (lower, upper) on delta at ``epsilon`` of ``plan``: of ``run`` (as
        ``epsilon``'s) on ``SubsampledGaussianPLD``'s default (its delta read finer than the peers'
        default grid), or of ``profile()`` (the plan on the default grid), which under
        ``add_or_remove`` for a plan of several Poisson-subsampled Gaussians is intersected with the
        tilted composition's reads (``question.tilted_factors_delta``): on the peers' own grid a
        certified upper delta is their uncharged estimate plus the round-off charges."""
        if run is not None:
            return self._read(_one_run(plan, run), "delta", epsilon, 0.0, 1.0)
        lower, upper = profile().delta(epsilon)
        segments = subsampled_gaussian_segments(plan) if add_or_remove else None
        if segments is not None:
            lower, upper = self._read(segments, "delta", epsilon, lower, upper)
        return lower, upper

    def epsilon(
        self,
        plan: CompositionPlan,
        run: Run | None,
        profile: Callable[[], PlanProfile],
        delta: float,
        rdp: Callable[[], float] | None = None,
        add_or_remove: bool = False,
    ) -> tuple[float, float]:
        """Certified (lower, upper) on epsilon at ``delta`` of ``plan``: of ``run``
        (``single_subsampled_gaussian`` where the caller's relation is add-or-remove, else None) on
        ``SubsampledGaussianPLD``'s default, or of ``profile()`` (the plan on the default grid),
        whose upper side, where its tails leave it infinite, is ``rdp()`` where that is finite (the
        same composition's RDP conversion, where the caller has one; rounded up by ``RDP_MARGIN``),
        else (under ``add_or_remove``) ``plan_rdp.plan_rdp_epsilon`` of the plan where that is
        finite, with a warning naming ``accuracy=``; a finite upper side of a bracket wider than the
        default tolerance is lowered to the plan's RDP side where smaller
        (``plan_rdp.rdp_lowered_upper``, add-or-remove).  Under ``add_or_remove`` a plan of several
        Poisson-subsampled Gaussians has its bracket intersected with the tilted composition's
        (``question.tilted_factors``: on coarser grids where wide, on half the peers' default grid
        where not exact), unless ``profile()``'s bracket holds that read of the same run already
        (``plan.read_run``: the default grid's composed PLD reads the run it describes)."""
        if run is not None:
            return self._read(_one_run(plan, run), "epsilon", delta, 0.0, math.inf)
        grid = profile()
        lower, upper = grid.epsilon(delta)
        segments = subsampled_gaussian_segments(plan) if add_or_remove else None
        if segments is not None and read_run(grid) != segments:
            lower, upper = self._read(segments, "epsilon", delta, lower, upper)
        if math.isfinite(
            upper
        ):  # a wide bracket's upper side at most the plan's own RDP side (add-or-remove)
            return lower, rdp_lowered_upper(
                plan, "epsilon", delta, lower, upper
            ) if add_or_remove else upper
        # the grid's tails put more than delta at +infinity: the RDP conversion's side where finite,
        # and a warning; where the caller has none (a nested Poisson sample no RDP accountant
        # takes), the plan's own (``plan_rdp``)
        renyi = math.inf if rdp is None else rdp()
        if not math.isfinite(renyi) and add_or_remove:
            renyi = plan_rdp_epsilon(plan, delta)
        if not math.isfinite(renyi):
            return lower, upper
        upper = max(lower, renyi * (1.0 + question.RDP_MARGIN))
        question.warn_unreadable(np.array(lower), np.array(upper))
        return lower, upper

    def epsilon_to_accuracy(
        self,
        plan: CompositionPlan,
        run: Run | None,
        refined: Callable[[], PlanProfile],
        default: Callable[[], PlanProfile],
        delta: float,
        rdp: Callable[[], float] | None = None,
        add_or_remove: bool = False,
    ) -> tuple[float, float]:
        """Certified (lower, upper) on epsilon at ``delta`` of ``plan`` to ``accuracy``.

        ``run`` (as ``epsilon``'s) is answered by ``SubsampledGaussianPLD`` at ``accuracy``,
        which intersects its refinement with its default and warns where still wider than asked.
        Any other plan: ``refined()``'s bracket (the plan refined to ``accuracy``) intersected with
        the default's (``epsilon`` on ``default()``, its own warnings held back), and one
        ``AccuracyNotMetWarning`` where the intersection is wider than ``accuracy``.

        Parameters
        ----------
        plan : CompositionPlan
            What was composed.
        run : tuple of (float, float, int) or None
            ``single_subsampled_gaussian(plan)`` where the caller's relation is add-or-remove.
        refined : callable
            Returns the plan's ``PlanProfile`` refined to ``accuracy``.
        default : callable
            Returns the plan's ``PlanProfile`` on the caller's default grid.
        delta : float
            In (0, 1).
        rdp : callable, optional
            The caller's RDP conversion of the same composition (as ``epsilon``'s).
        add_or_remove : bool, default False
            Whether the caller's relation is add-or-remove (as ``epsilon``'s).

        Returns
        -------
        tuple of float
            (lower, upper), lower <= the true epsilon <= upper, the upper side at most the
            default's.

        Raises
        ------
        ValueError
            When ``accuracy`` is None, or ``run`` is not the plan's one run.
        """
        accuracy = self._asked()
        if run is not None:
            return self.epsilon(plan, run, refined, delta)
        lower, upper = refined().epsilon(delta)
        with warnings.catch_warnings():  # the default's width is not what was asked
            warnings.simplefilter("ignore", AccuracyNotMetWarning)
            low, up = self.epsilon(plan, None, default, delta, rdp, add_or_remove)
        lower = max(lower, low)
        upper = max(lower, min(upper, up))
        unmet_flags(np.array(lower), np.array(upper), accuracy, 0.0)
        return lower, upper

    def delta_to_accuracy(
        self,
        plan: CompositionPlan,
        run: Run | None,
        refined: Callable[[], PlanProfile],
        default: Callable[[], PlanProfile],
        epsilon: float,
        add_or_remove: bool = False,
    ) -> tuple[float, float]:
        """Certified (lower, upper) on delta at ``epsilon`` of ``plan`` to ``accuracy`` (relative).

        ``run`` is answered by ``SubsampledGaussianPLD`` at ``accuracy`` (its refined delta bracket
        as the front door gives it).  Any other plan:
        ``refined()``'s bracket intersected with the default's (``delta`` on ``default()``), and one
        ``AccuracyNotMetWarning`` where the intersection is wider than asked: its width relative to
        max(upper, ``DELTA_FLOOR``) above ``accuracy`` (``refine.unmet.unmet_flags``, the rule
        epsilon's brackets are held to, in the refinement's delta measure).

        Parameters
        ----------
        plan : CompositionPlan
            What was composed.
        run : tuple of (float, float, int) or None
            ``single_subsampled_gaussian(plan)`` where the caller's relation is add-or-remove.
        refined : callable
            Returns the plan's ``PlanProfile`` refined to ``accuracy``.
        default : callable
            Returns the plan's ``PlanProfile`` on the caller's default grid.
        epsilon : float
            >= 0.
        add_or_remove : bool, default False
            Whether the caller's relation is add-or-remove (as ``delta``'s).

        Returns
        -------
        tuple of float
            (lower, upper), lower <= the true delta <= upper, the upper side at most the default's.

        Raises
        ------
        ValueError
            When ``accuracy`` is None, or ``run`` is not the plan's one run.
        """
        accuracy = self._asked()
        if run is not None:
            return self.delta(plan, run, refined, epsilon)
        lower, upper = refined().delta(epsilon)
        low, up = self.delta(plan, None, default, epsilon, add_or_remove)
        lower = max(lower, low)
        upper = max(lower, min(upper, up))
        unmet_flags(np.array(lower), np.array(upper), accuracy, 0.0, "delta")
        return lower, upper

    def bracket_to_accuracy(
        self, composed: PrivacyLossDistribution | None, delta: float, lower: float, upper: float
    ) -> tuple[float, float]:
        """Certified (lower, upper) on epsilon at ``delta`` of a composition to ``accuracy``, from a
        certified bracket of it read without one (a door's default: the ledger's grid and the
        question reader).

        Where ``composed``'s factors describe rounds of one Poisson-subsampled Gaussian under
        add-or-remove (``described_run.subsampled_segments``, the run the question reads off any
        composed PLD), that run is read by ``SubsampledGaussianPLD`` at ``accuracy`` (the front
        door's bracket at that accuracy) and intersected with the bracket given; any other
        composition keeps the bracket given, the door knowing no finer read of it.  One ``AccuracyNotMetWarning`` where
        the result is wider than asked (``unmet_flags``; the front door's own is held back, the
        intersection being the answer).

        Parameters
        ----------
        composed : PrivacyLossDistribution or None
            The composition the bracket bounds (None: no finer read).
        delta : float
            In (0, 1).
        lower, upper : float
            A certified bracket of the same composition at ``delta``.

        Returns
        -------
        tuple of float
            (lower, upper), lower <= the true epsilon <= upper, never wider than given.

        Raises
        ------
        ValueError
            When ``accuracy`` is None.
        """
        accuracy = self._asked()
        segments = None if composed is None else subsampled_segments(composed)
        if segments is not None and len(segments) == 1:
            ((noise, q, _), rounds) = segments[0]
            run = (noise, q, rounds)
            with warnings.catch_warnings():  # the intersection's width is what is asked, below
                warnings.simplefilter("ignore", AccuracyNotMetWarning)
                low, up = self._accountant(run).epsilon(delta, bound="both")  # type: ignore[misc]
            lower = max(lower, float(low))
            upper = max(lower, min(upper, float(up)))
        unmet_flags(np.array(lower), np.array(upper), accuracy, 0.0)
        return lower, upper

    def _asked(self) -> float:
        """``accuracy``, refused where None (the default's brackets are ``epsilon``'s and ``delta``'s)."""
        if self.accuracy is None:
            raise ValueError(
                "accuracy must be given to QuestionEpsilon for a bracket to an accuracy; "
                "epsilon and delta answer the default's"
            )
        return self.accuracy
