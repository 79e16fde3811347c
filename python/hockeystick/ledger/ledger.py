"""``PrivacyLedger``: the rounds of one run recorded as they happen, with the guarantee each answer gives.

Two declarations, made when the ledger is built, decide which guarantees are valid:

* ``adaptive=False``: the settings of every round were fixed before the run (they depend on no
  released output; a clip norm that adapts with the noise proportional to it leaves every round's
  sigma unchanged and counts as fixed).  The ledger answers the certified PLD bracket of the
  composition (``fixed_schedule``), and with a budget refuses the round after which the certified
  upper epsilon would pass it; with ``accuracy``, that bracket read to it
  (``fixed_schedule.to_accuracy``).
* ``adaptive=True``: a round's settings may depend on the outputs before it.  Composing the realized
  rounds' PLDs is then not valid in general (arXiv 2602.06756; 2602.15815: the natural filter is
  free only for totally ordered families), so the ledger never answers a composition.  With a budget
  (epsilon, delta) fixed before the run it runs a filter valid under full adaptivity: the Rényi
  filter (``rdp_filter``, Feldman & Zrnic
  2021) or, for Gaussian rounds only (unsampled, or a matrix mechanism's release), the GDP filter
  (``gdp_filter``, Smith & Thakurta 2022), exact there; a round the filter would not admit raises ``BudgetExceeded`` and is not recorded.  With or without a
  budget, the Rényi odometer (``rdp_odometer``) gives an epsilon after every round, valid at every round at
  once.

Every answer is a ``PrivacyGuarantee``: its kind, its method and the assumption it holds under.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from ..base.outward_text import outward_text
from ..base.validation import choice, delta_target, describe, flag, positive_number
from ..pld.mechanisms import DEFAULT_INTERVAL, checked_interval
from ..pld.reads import CurveAlongRun
from .fixed_schedule import pld_accountant, pld_bracket, pld_curve
from .gdp_filter import GdpFilter
from .guarantee import PrivacyGuarantee
from .halting import BudgetExceeded
from .ledger_arguments import FILTERS, MAX_ROUNDS, budget_pair, orders_text, rounds_count
from .ledger_state import STATE_FORMAT, check_sums, checked_state, configuration_of, state_of
from .outward_sum import RunningSum
from .rdp_filter import RdpFilter
from .rdp_odometer import odometer_guarantee
from .refusal import refusal
from .round_rdp import check_integer_orders
from .rounds import Round
from .training_rounds import poisson_run_rounds

__all__ = ["FILTERS", "STATE_FORMAT", "PrivacyLedger"]

_COMPOSITION_REFUSED = (
    "the ledger records an adaptive run: composing the PLDs of the rounds that happened is not a valid "
    "guarantee when a round's settings depend on earlier outputs (arXiv 2602.06756, arXiv 2602.15815); "
    "ask guarantee() for the filter's budget or odometer() for the running epsilon, or build the ledger with "
    "adaptive=False if the schedule was fixed before the run"
)


class PrivacyLedger:
    """The rounds of one run, recorded as they happen; answers with their guarantee (the module docstring).

    Parameters
    ----------
    adaptive : bool
        True if a round's settings may depend on outputs released before it (filters and odometer
        only); False declares the schedule fixed before the run (certified PLD composition).
    epsilon, delta : float, optional
        The budget, fixed before the run (both or neither): epsilon finite and >= 0, 0 < delta < 1.
        ``record`` refuses a round that would pass it.
    filter : {"rdp", "gdp"}, optional
        The filter of an adaptive run with a budget (default ``"rdp"``); ``"gdp"`` takes unsampled
        Gaussian and matrix-mechanism rounds only, and is exact for them.
    orders : sequence of int, optional
        Integer Rényi orders in [2, 1024] for the Rényi filter and odometer (default
        ``round_rdp.DEFAULT_ORDERS``, 25 orders); one order is Feldman & Zrnic's single-order
        filter, with no union cost.
    value_discretization_interval : float, optional
        The PLD grid spacing of a fixed schedule's bracket (default 1e-4).
    accuracy : float, optional
        Finite and > 0: the width asked of a fixed schedule's epsilon bracket (``composition``, and
        the budget's check).  Rounds of one Poisson-subsampled Gaussian are then read as
        ``pld.SubsampledGaussianPLD(sigma, q, rounds, accuracy=accuracy)`` reads them (the bracket
        of ``training.DPSGD(..., accuracy=accuracy)`` for the same run), intersected with the grid's
        bracket; any other rounds keep the grid's bracket.  A bracket still wider than asked warns
        (``AccuracyNotMetWarning``); none is looser than without ``accuracy``.  Default None: the
        grid's bracket, the question's reads of it (``pld.question``).

    Raises
    ------
    ValueError
        If ``adaptive`` is not a bool, the budget is half given or out of range, ``filter`` is not
        one of the two, ``orders`` is not a set of whole numbers in [2, 1024], or ``accuracy`` is
        not finite and > 0.

    Examples
    --------
    >>> from hockeystick.ledger import PrivacyLedger, Round
    >>> ledger = PrivacyLedger(adaptive=True, epsilon=2.0, delta=1e-5)
    >>> ledger.record(Round.subsampled_gaussian(1.0, 0.01), rounds=100)
    >>> ledger.guarantee().kind
    'filter'
    >>> ledger.would_exceed(Round.subsampled_gaussian(1.0, 0.01))
    False
    """

    def __init__(
        self,
        *,
        adaptive: bool,
        epsilon: float | None = None,
        delta: float | None = None,
        filter: str = "rdp",  # noqa: A002  (Flower's and the papers' word)
        orders: Any = None,
        value_discretization_interval: float = DEFAULT_INTERVAL,
        accuracy: float | None = None,
    ):
        self.adaptive = flag(adaptive, "adaptive")
        self.budget = budget_pair(epsilon, delta)
        self.filter = choice(filter, "filter", FILTERS)
        self.orders = check_integer_orders(orders)
        self.value_discretization_interval = checked_interval(value_discretization_interval)
        self.accuracy = None if accuracy is None else positive_number(accuracy, "accuracy")
        self._runs: list[
            list[Any]
        ] = []  # [Round, count] in the order recorded, equal neighbours merged
        # The spent sums are a function of the run-length list alone: each block adds its curve
        # times its count (``_sums_after``), so a restored state recomputes them bit for bit.  _base
        # holds the sums over every block but the last, from which the last block's term is
        # recomputed when a round extends it.
        self._rdp = RunningSum(len(self.orders))
        self._mu2 = RunningSum(1)
        self._base = (self._rdp, self._mu2)
        self._rdp_cache: dict[Round, np.ndarray] = {}
        self._filters: dict[tuple[float, float], RdpFilter | GdpFilter] = {}

    def __repr__(self) -> str:
        """What the ledger holds: its declaration, budget and filter, the rounds recorded and what they spent.

        Spent is the share of the filter's budget used, at the order closest to it for the Rényi
        filter (the smallest spent / budget over the orders with a positive budget) or of mu^2 for
        the GDP filter; a fixed schedule's spent is its composition, computed on request
        (``composition``), not here.
        """
        budget = "none" if self.budget is None else f"({self.budget[0]:g}, {self.budget[1]:g})"
        head = (
            f"PrivacyLedger(adaptive={self.adaptive}, budget={budget}, filter={self.filter!r}, "
            f"orders={orders_text(self.orders)}, rounds={self.rounds} ({len(self.counts())} distinct)"
        )
        return f"{head}, spent={_spent_text(self)})"

    # ---- what has been recorded

    @property
    def rounds(self) -> int:
        """The number of rounds recorded.

        Returns
        -------
        int
            The count.
        """
        return sum(count for _, count in self._runs)

    @property
    def last_round(self) -> Round | None:
        """The round recorded last (None before any): the round a run that repeats its settings asks about next.

        Returns
        -------
        Round or None
            The last round recorded.
        """
        return self._runs[-1][0] if self._runs else None

    def counts(self) -> dict[Round, int]:
        """The rounds recorded, counted per distinct round.

        Returns
        -------
        dict of Round to int
            Each distinct round and how many times it ran.
        """
        out: dict[Round, int] = {}
        for one, count in self._runs:
            out[one] = out.get(one, 0) + count
        return out

    def _curve(self, one: Round) -> np.ndarray:
        curve = self._rdp_cache.get(one)
        if curve is None:
            if len(self._rdp_cache) > 4096:
                self._rdp_cache.clear()
            curve = self._rdp_cache[one] = one.rdp_upper(self.orders)
        return curve

    # ---- the budget

    def _filter_of(self, epsilon: float, delta: float) -> RdpFilter | GdpFilter:
        made = self._filters.get((epsilon, delta))
        if made is None:
            if len(self._filters) > 64:
                self._filters.clear()
            made = (
                GdpFilter(epsilon, delta)
                if self.filter == "gdp"
                else RdpFilter(epsilon, delta, self.orders)
            )
            self._filters[(epsilon, delta)] = made
        return made

    def _sums_after(self, one: Round, times: int) -> tuple[RunningSum, RunningSum]:
        """The spent sums (RDP, mu^2) the ledger holds once ``times`` rounds of ``one`` are recorded.

        A round equal to the last block's extends that block, whose term is recomputed from the sums
        before it as one product of its new count; any other round starts a block.  Either way the
        result is an upper side of the exact sum of its terms (``RunningSum``), and depends on the
        blocks alone.
        """
        if self._runs and self._runs[-1][0] == one:
            rdp, mu2 = self._base
            count = self._runs[-1][1] + times
        else:
            rdp, mu2 = self._rdp, self._mu2
            count = times
        if count > MAX_ROUNDS:
            raise ValueError(
                f"rounds would make a block of {count} equal rounds, more than 2^53 (the count of a block must be "
                "an exact double)"
            )
        rdp = rdp.plus(self._curve(one), count)
        if one.gdp_mu is not None:
            mu2 = mu2.plus(np.array([one.mu_squared_upper()]), count)
        return rdp, mu2

    def _append(self, one: Round, times: int) -> None:
        """Record ``times`` rounds of ``one`` without the budget's check (the caller made it)."""
        rdp, mu2 = self._sums_after(one, times)
        if self._runs and self._runs[-1][0] == one:
            self._runs[-1][1] += times
        else:
            self._base = (self._rdp, self._mu2)
            self._runs.append([one, times])
        self._rdp, self._mu2 = rdp, mu2

    def _gdp_round(self, one: Round) -> None:
        if one.gdp_mu is None:
            raise ValueError(
                f"the GDP filter takes unsampled Gaussian and matrix-mechanism rounds only, got a {one.mechanism} "
                "round: a subsampled, Laplace or discrete Gaussian round has no proved GDP parameter "
                "(Round.gdp_mu); build the ledger with filter='rdp'"
            )

    def _adaptive_admits(self, one: Round, times: int, epsilon: float, delta: float) -> bool:
        chosen = self._filter_of(epsilon, delta)
        if isinstance(chosen, GdpFilter):
            self._gdp_round(one)
            return chosen.admits(float(self._sums_after(one, times)[1].upper()[0]))
        return chosen.admits(self._sums_after(one, times)[0].upper())

    def _fixed_admits(self, one: Round, times: int, epsilon: float, delta: float) -> bool:
        from ..rdp.conversion import rdp_to_epsilon  # lazy: off the adaptive ledger's way

        spent = self._sums_after(one, times)[0].upper()
        converted = float(rdp_to_epsilon(spent, np.asarray(self.orders, dtype=np.float64), delta))
        if converted * (1.0 + 1e-12) <= epsilon:  # the conversion's few roundings covered
            return True  # the RDP bound of the fixed composition already fits
        return float(self._fixed_upper(one, times, delta)) <= epsilon

    def _fixed_upper(self, one: Round, times: int, delta: float) -> float:
        """The certified upper epsilon at ``delta`` of the rounds recorded and ``times`` rounds of ``one``."""
        counts = self.counts()
        counts[one] = counts.get(one, 0) + times
        if self.accuracy is not None:  # the bracket ``composition`` would answer
            runs = list(counts.items())
            return pld_bracket(runs, self.value_discretization_interval, delta, self.accuracy)[1]
        return float(
            pld_accountant(list(counts.items()), self.value_discretization_interval).epsilon(delta)  # type: ignore[arg-type]
        )

    def would_exceed(
        self,
        next_round: Round,
        epsilon: float | None = None,
        delta: float | None = None,
        *,
        rounds: int = 1,
    ) -> bool:
        """Whether ``rounds`` more rounds of ``next_round`` would pass the budget (epsilon, delta).

        Adaptive ledger: whether the filter of that budget (``filter``) would refuse them; valid as
        a filter when the budget was fixed before the run and the run stops at the first True.
        Fixed schedule: whether the certified upper epsilon at ``delta`` of the composition with
        them would exceed ``epsilon`` (the Rényi bound of the composition first, which when it fits
        settles the question; else the PLD bracket).

        Parameters
        ----------
        next_round : Round
            The round about to run.
        epsilon, delta : float, optional
            The budget; default the ledger's own.
        rounds : int, optional
            How many rounds of ``next_round`` (default 1): an int in [1, 2^53].

        Returns
        -------
        bool
            True if they would pass it.

        Raises
        ------
        ValueError
            If no budget is given and the ledger has none, the budget is out of range,
            ``next_round`` is not a ``Round``, or the GDP filter is asked about a round that is not
            an unsampled Gaussian.
        """
        if not isinstance(next_round, Round):
            raise ValueError(
                f"next_round must be a Round (Round.subsampled_gaussian(...)), got {describe(next_round)}"
            )
        budget = (
            budget_pair(epsilon, delta)
            if (epsilon is not None or delta is not None)
            else self.budget
        )
        if budget is None:
            raise ValueError(
                "would_exceed needs a budget: give epsilon and delta, or build the ledger with one"
            )
        rounds_count(rounds)
        admits = self._adaptive_admits if self.adaptive else self._fixed_admits
        return not admits(next_round, rounds, *budget)

    def should_stop(self, next_round: Round) -> bool:
        """Whether the run should stop before ``next_round``: ``would_exceed`` at the ledger's budget.

        Parameters
        ----------
        next_round : Round
            The round about to run.

        Returns
        -------
        bool
            True if the next round would pass the budget.

        Raises
        ------
        ValueError
            If the ledger has no budget.
        """
        return self.would_exceed(next_round)

    def record(self, next_round: Round, rounds: int = 1) -> None:
        """Record ``rounds`` rounds of ``next_round``, after checking the budget.

        Parameters
        ----------
        next_round : Round
            The round that ran (or is about to: record before releasing its output to halt in time).
        rounds : int, optional
            How many rounds of it (default 1): an int in [1, 2^53].

        Raises
        ------
        BudgetExceeded
            If the ledger has a budget and the rounds would pass it: nothing is recorded.
        ValueError
            As ``would_exceed``.
        """
        if not isinstance(next_round, Round):
            raise ValueError(f"next_round must be a Round, got {describe(next_round)}")
        rounds_count(rounds)
        if self.filter == "gdp":
            self._gdp_round(next_round)
        if self.budget is not None and self.would_exceed(next_round, rounds=rounds):
            raise BudgetExceeded(next_round, self.guarantee(), refusal(self, next_round, rounds))
        self._append(next_round, rounds)

    def explain(self, next_round: Round, rounds: int = 1) -> str | None:
        """Why ``rounds`` more rounds of ``next_round`` would pass the budget, or None if they would not.

        The text ``BudgetExceeded`` carries: the number that failed (at the closest Rényi order, for
        the Rényi filter) and, when the rounds alone cost more than the whole budget, what would
        admit them (a larger delta, one order fixed before the run, the GDP filter, the
        fixed-schedule ledger; ``refusal``).

        Parameters
        ----------
        next_round : Round
            The round about to run.
        rounds : int, optional
            How many rounds of it (default 1): an int in [1, 2^53].

        Returns
        -------
        str or None
            The reason, or None when ``should_stop`` would be False.

        Raises
        ------
        ValueError
            If the ledger has no budget, or as ``would_exceed``.
        """
        if self.budget is None:
            raise ValueError(
                "explain needs the ledger's budget: build the ledger with epsilon and delta"
            )
        if not self.would_exceed(next_round, rounds=rounds):
            return None
        return refusal(self, next_round, rounds)

    # ---- answers

    def guarantee(self, delta: float | None = None) -> PrivacyGuarantee:
        """What the run recorded so far guarantees, with its kind and assumption.

        Fixed schedule: the certified PLD bracket at ``delta`` (``composition``).  Adaptive with a
        budget: the filter's budget (``delta`` must then be the budget's, or None).  Adaptive
        without: the odometer at ``delta``.

        Parameters
        ----------
        delta : float, optional
            The delta, 0 < delta < 1; default the budget's.

        Returns
        -------
        PrivacyGuarantee
            The answer.

        Raises
        ------
        ValueError
            If ``delta`` is missing with no budget, out of range, or differs from an adaptive
            budget's.
        """
        d = self._delta(delta)
        if not self.adaptive:
            return self.composition(d)
        if self.budget is not None:
            if d != self.budget[1]:
                raise ValueError(
                    f"an adaptive ledger's filter guarantees its budget's delta ({self.budget[1]:g}), got "
                    f"delta={d:g}; ask odometer(delta) for the running epsilon at another delta"
                )
            return self._filter_of(*self.budget).guarantee(self.rounds)
        return self.odometer(d)

    def _delta(self, delta: float | None) -> float:
        if delta is None:
            if self.budget is None:
                raise ValueError(
                    "give delta (0 < delta < 1): the ledger has no budget to take it from"
                )
            return self.budget[1]
        return delta_target(delta)

    def composition(self, delta: float | None = None) -> PrivacyGuarantee:
        """The certified PLD bracket of the composition of the rounds recorded (fixed schedules only),
        read to the ledger's ``accuracy`` where it has one (``fixed_schedule.to_accuracy``).

        Parameters
        ----------
        delta : float, optional
            The delta, 0 < delta < 1; default the budget's.

        Returns
        -------
        PrivacyGuarantee
            ``kind="certified composition"``, ``method="pld"``, with ``epsilon_lower`` and
            ``epsilon``.

        Raises
        ------
        ValueError
            If the ledger is adaptive (arXiv 2602.06756: the composition of the realized PLDs is not
            valid there), or ``delta`` is missing or out of range.
        """
        if self.adaptive:
            raise ValueError(_COMPOSITION_REFUSED)
        d = self._delta(delta)
        lower, upper = 0.0, 0.0
        if self._runs:
            lower, upper = pld_bracket(
                list(self.counts().items()), self.value_discretization_interval, d, self.accuracy
            )
        return PrivacyGuarantee(
            kind="certified composition",
            method="pld",
            epsilon=float(upper),
            delta=d,
            rounds=self.rounds,
            assumption=(
                "every round's settings were fixed before the run (none depends on a released output); each "
                "round's mechanism holds for its neighbouring relation (add/remove for Poisson sampling)"
            ),
            epsilon_lower=float(lower),
        )

    def composition_curve(
        self, delta: float, *, every: int | None = None, steps: Any = None
    ) -> CurveAlongRun:
        """The certified PLD bracket of epsilon at ``delta`` after each checkpoint of the run (fixed schedules only).

        The rounds in the order recorded; every ``every``-th round and the last, or each of
        ``steps``; all checkpoints composed in one batch (``pld.reads.along_run.prefix_curve``),
        each point the bracket ``composition`` gives without ``accuracy`` after that many rounds
        (within the round-off of the longer transform): the ledger's ``accuracy`` is asked of
        ``composition``, one checkpoint at a time.

        Parameters
        ----------
        delta : float
            The delta, 0 < delta < 1.
        every : int, optional
            A checkpoint every this many rounds (and the last); default every round.
        steps : array_like of int, optional
            The checkpoints, strictly increasing, at most the rounds recorded.

        Returns
        -------
        CurveAlongRun
            ``steps``, ``lower`` and ``upper`` (epsilon), ``given`` (delta).

        Raises
        ------
        ValueError
            If the ledger is adaptive (``composition``), no round is recorded, or the checkpoints
            are invalid.
        """
        if self.adaptive:
            raise ValueError(_COMPOSITION_REFUSED)
        runs = [(one, count) for one, count in self._runs]
        return pld_curve(
            runs, self.value_discretization_interval, delta_target(delta), every, steps
        )

    def odometer(self, delta: float) -> PrivacyGuarantee:
        """The Rényi odometer's epsilon after the rounds recorded, valid at every round at once (``rdp_odometer``).

        Parameters
        ----------
        delta : float
            The delta, 0 < delta < 1, fixed before the run.

        Returns
        -------
        PrivacyGuarantee
            ``kind="odometer"``, ``method="rdp"``.

        Raises
        ------
        ValueError
            If ``delta`` is out of range.
        """
        return odometer_guarantee(self._rdp.upper(), delta_target(delta), self.orders, self.rounds)

    def epsilon(self, delta: float) -> float:
        """The epsilon of ``guarantee(delta)`` (adaptive without a budget: the odometer's).

        Parameters
        ----------
        delta : float
            The delta, 0 < delta < 1.

        Returns
        -------
        float
            An upper bound on epsilon under the guarantee's assumption.

        Raises
        ------
        ValueError
            As ``guarantee``.
        """
        return self.guarantee(delta).epsilon

    # ---- saving and restoring

    def state_dict(self) -> dict[str, Any]:
        """Everything the ledger holds, as JSON-ready data, to save with a training checkpoint.

        Returns
        -------
        dict
            The configuration, the rounds in the order recorded (run-length: ``[round, count]``) and
            the spent sums with their round-off counts.
        """
        return state_of(self)

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Replace what the ledger holds by ``state`` (a ``state_dict`` of a ledger of the same configuration).

        Loading replaces, never adds: loading the same state twice is loading it once.

        Parameters
        ----------
        state : dict
            A ``state_dict()``.

        Raises
        ------
        ValueError
            If ``state`` is refused by ``from_state_dict``, or was saved by a ledger of another
            configuration (adaptivity, budget, filter, orders or grid; the message names the fields
            that differ): restore it with ``PrivacyLedger.from_state_dict``.
        """
        fresh = PrivacyLedger.from_state_dict(state)
        theirs, ours = configuration_of(fresh.state_dict()), configuration_of(self.state_dict())
        differ = [key for key in ours if theirs[key] != ours[key]]
        if differ:
            shown = "; ".join(
                f"{key}: {theirs[key]!r} in the state, {ours[key]!r} here" for key in differ
            )
            raise ValueError(
                f"state's {', '.join(differ)} differ from this ledger's configuration ({shown}): the state was saved "
                "by a ledger of another configuration; restore it with PrivacyLedger.from_state_dict"
            )
        self._runs, self._rdp, self._mu2, self._base = (
            fresh._runs,
            fresh._rdp,
            fresh._mu2,
            fresh._base,
        )

    @classmethod
    def from_state_dict(cls, state: dict[str, Any]) -> PrivacyLedger:
        """The ledger ``state_dict`` saved, its spent sums recomputed from its rounds.

        Every field is checked as ``state_dict`` writes it: the configuration as ``PrivacyLedger``
        takes it (the orders sorted and distinct), the rounds as ``Round.from_dict`` reads them with
        whole counts (an int, not a bool, a float or a string, in [1, 2^53]) and no two neighbours
        equal (the ledger merges them).  The spent sums are then recomputed from the rounds, bit for
        bit as the ledger that recorded them holds them, and the state's own sums must agree: within
        4 (n + m + 1) u of the recomputed sum (u = 2^-53, n the state's count of additions, m the
        recomputation's), twice the round-off bound of two sums of the same terms (``RunningSum``),
        so a state written call by call rather than block by block is read too.  The counts of
        additions must lie between the recomputation's and the rounds'. The restored ledger holds
        the recomputed sums.

        Parameters
        ----------
        state : dict
            A ``state_dict()``.

        Returns
        -------
        PrivacyLedger
            The ledger, as it was.

        Raises
        ------
        ValueError
            If ``state`` is not a ledger's state, a field is missing, unknown, of the wrong kind or
            out of range, or the spent sums disagree with the rounds (the state was altered); the
            message names the field.
        """
        configuration, blocks = checked_state(state)
        ledger = cls(**configuration)
        for one, count in blocks:
            ledger._append(one, count)
        check_sums(state, ledger)
        return ledger

    @classmethod
    def from_run(cls, run: Any, **ledger_options: Any) -> PrivacyLedger:
        """A ledger holding the rounds of a Poisson-sampled training run (``training.DPSGD`` / ``DPFedAvg``).

        Each step of the run is ``Round.subsampled_gaussian(z, q)`` of its noise multiplier z and
        sampling rate q, recorded ``steps`` times (each stage's for a run given by ``stages=``),
        read from the run's public ``sampling`` and ``accountant`` (its ``sigma``,
        ``sampling_rate``, ``rounds``, ``sensitivity`` and ``accuracy``, or its ``stages``).  A
        run's settings are fixed before it starts, so the ledger is built with ``adaptive=False``
        unless ``ledger_options`` say otherwise; the run's ``accuracy=`` is the ledger's
        ``accuracy`` unless ``ledger_options`` give one.  Its ``composition(delta)`` is then the
        certified PLD bracket of the same rounds as ``run.epsilon(delta, bound="both")``, at the
        run's accuracy (the front door's bracket at that accuracy, intersected with the ledger's
        grid's: never looser than the run's).

        Parameters
        ----------
        run : DPSGD or DPFedAvg
            One run (single values of its parameters), with ``sampling="poisson"``.
        **ledger_options
            Keywords of ``PrivacyLedger`` (``adaptive``, ``epsilon``, ``delta``, ``filter``,
            ``orders``, ``value_discretization_interval``, ``accuracy``).

        Returns
        -------
        PrivacyLedger
            The ledger, its rounds those of the run.

        Raises
        ------
        ValueError
            If ``run`` is not a training run, is several runs (array parameters), draws its batches
            otherwise than by Poisson sampling, or (with a budget in ``ledger_options``) its rounds
            pass the budget; as ``PrivacyLedger`` for the options.
        """
        rounds = poisson_run_rounds(run)
        accuracy = getattr(run.accountant, "accuracy", None)
        ledger = cls(**{"adaptive": False, "accuracy": accuracy, **ledger_options})
        for sigma, rate, steps in rounds:
            ledger.record(Round.subsampled_gaussian(sigma, rate), rounds=steps)
        return ledger

    def to_json(self) -> str:
        """``state_dict()`` as JSON text (doubles written exactly: a restart changes no bit).

        Returns
        -------
        str
            The JSON text.
        """
        return json.dumps(self.state_dict())

    @classmethod
    def from_json(cls, text: str) -> PrivacyLedger:
        """The ledger ``to_json`` wrote.

        Parameters
        ----------
        text : str
            JSON text of a ``state_dict()``.

        Returns
        -------
        PrivacyLedger
            The ledger, as it was.

        Raises
        ------
        ValueError
            If ``text`` is not JSON of a ledger's state.
        """
        return cls.from_state_dict(json.loads(text))


def _spent_text(ledger: PrivacyLedger) -> str:
    """``PrivacyLedger.__repr__``'s spent: the filter budget's share used, or where a composition is read."""
    if not ledger._runs:
        return "nothing"
    if not ledger.adaptive or ledger.budget is None:
        return "see composition(delta)" if not ledger.adaptive else "see odometer(delta)"
    chosen = ledger._filter_of(*ledger.budget)
    if isinstance(chosen, GdpFilter):
        used = (
            float(ledger._mu2.upper()[0]) / chosen.mu_squared if chosen.mu_squared > 0 else math.inf
        )
        return f"{outward_text(used, 'upper', 4)} of the GDP budget mu^2 = {chosen.mu_squared:.4g}"
    budgets, spent = chosen.budgets, ledger._rdp.upper()
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        share = np.where(budgets > 0, spent / np.where(budgets > 0, budgets, 1.0), np.inf)
    k = int(np.argmin(share))
    return (
        f"{outward_text(float(share[k]), 'upper', 4)} of the RDP budget at order {ledger.orders[k]}"
    )
