"""MMCC: the amplified guarantee of a matrix mechanism C x + z N(0, I) with non-negative
lower-triangular C under Poisson sampling, certified step by step; an epsilon at delta for a chosen
split of delta, not a PLD.

The mechanism: round j takes each record independently with probability q (Poisson sampling), x_j
sums the taken records' clipped contributions (L2 norm <= the clip norm), chosen adaptively from the
rows released before; the rows of C x + z * clip * N(0, I) are released in order, each once its last
round is in. Neighbouring data sets add or remove one record.

Conditions, each used where named:

* C >= 0 entrywise (refused otherwise): the posterior bound (``mmcc_participation``) and the
  coupling of the row shifts (``mmcc_rows``) need it, and so does the reduction below;
* rows released in order, each after its last round (a square C must be lower triangular; a C with
  more rows than rounds, a tree's, is released row by row in the order of its last rounds): adaptive
  inputs.

The steps, each with its source, its status (cited from a paper, or certified here) and its
hypotheses, are ``mmcc_steps.MMCC_STEPS``, which every answer carries.

Step 0, the reduction.  For C >= 0 lower-triangular with rows released as their rounds are in, one
record whose contribution is +1 in each round it takes part in (one coordinate; the others'
contributions 0) is taken as the worst case of adaptive contributions in the unit ball: the release
is dominated by the pair P = E_S N(C S, z^2 I) vs Q = N(0, z^2 I), S in {0, 1}^n with independent
coordinates of probability q (and its reverse).  What the sources state, and what is only cited:

* Corollary 4.7 of Choquette-Choo, Ganesh, Steinke & Thakurta (ICLR 2024, arXiv:2310.15526), as
  quoted by dp_accounting 0.6.0 (``MixtureGaussianPrivacyLoss``): a mixture of Gaussians with
  vector-valued sensitivities is dominated by the scalar mixture whose sensitivities are those
  vectors' norms.  With each round's contribution of norm <= 1 and C >= 0, the norm of row i's shift
  is at most sum_j C_ij S_j, the scalar shift used below (step 1 and ``mmcc_rows``).
* Theorem 3.1 of the same paper is its conditional composition theorem (step 1).
* That adaptively chosen contributions (each round's chosen after the rows released before it) are
  dominated by the non-adaptive +1 record, for C >= 0 lower triangular under Poisson sampling and
  add/remove adjacency, is cited, not checked here against the papers' text: it is most likely the
  first part of the proof of Thm 4.8 of the ICLR paper (so numbered by an ICLR 2025 review of
  Choquette-Choo, Ganesh, Haque, Steinke & Thakurta, arXiv:2410.06266), a number and hypotheses
  unconfirmed: the guarantee for adaptive inputs rests on that citation.  Every later step is
  certified given this pair, the domination of a mixture by one with a stochastically larger shift
  law (Lemma B.4 of the ICLR paper, as a review numbers it) included: it is proved in ``mmcc_rows``
  for both directions.

Step 1, conditional composition (ICLR 2024, Sec. 3, Thm 3.1).  Write P and Q row by row.  Outside
tail events E (``mmcc_participation``: one per pair (i, j) with C_ij > 0 and column j held by an
earlier row, of probability at most tau each under P and under Q), row i's conditional law under P
is a mixture of N(X_i, z^2) over the posterior shift X_i, and under Q it is N(0, z^2).  Replacing
the conditional law of the first argument by the second's on E changes it by at most P(E) in total
variation, so for either direction (P, Q) or (Q, P)

    delta(eps) <= delta_{A_1 x ... x A_m}(eps) + N tau,

where A_i is a pair dominating row i's conditional pair whenever its past lies outside E (Zhu, Dong
& Wang 2022, Thm 10: dominating pairs compose adaptively).  ``mmcc_rows`` builds A_i as the mixture
of a shift law coupled above X_i, shared by groups of rows, and ``pld.mixture_of_gaussians``
certifies each mixture's PLD (both directions); the library's composition certifies their product's
upper side.

Step 1b, the cut tails.  A row's dominating shift law P = (1 - eta) P_c + eta R may drop its far
upper tail R of mass eta <= ``cut`` (``mmcc_rows``, step 4), keeping a law above P_c.  In the remove
direction the product of the rows' first laws moves by at most sum eta in total variation; in the
add direction the product of the rows' second laws is at least prod (1 - eta) times that of the P_c:
H_gamma(Q || P) <= H_{gamma prod (1 - eta)}(Q || P_c). So with kappa = -sum log(1 - eta) <= sum eta
(1 + 2 eta), for both directions

    delta(eps) <= delta_{A'}(eps - kappa) + sum eta + N tau,

A' the composed cut mixtures.  The cut takes 2^-20 of delta_1, shared by the rows; without tail
events (C diagonal) nothing is cut.  A tree's top rows keep shifts below about 180 instead of 2048.

Step 2, the split.  For delta given, delta_1 = f delta is charged to the tail events and the cut
tails (tau = (1 - 2^-20) delta_1 / N, rounded down) and delta_2 = delta - delta_1 (rounded down) to
the composed mixtures; epsilon is the composed PLD's certified upper epsilon at delta_2 plus kappa,
minimised over the fractions f tried (reported with the answer).

The answer is an (epsilon, delta) statement for one split of delta.  It is not a privacy-loss
distribution (its delta_1 is not a loss's mass), so it enters no composition or ledger as one:
``compose`` and ``to_pld`` refuse with a TypeError saying so.  Its certified curve delta(eps) is a
privacy profile like any accountant's (``delta`` and ``epsilon`` keep the accountant contract), and
exports as such (``interop.exchange.export_pld``).

Beside it: the certified upper side without amplification (the Gaussian mechanism at the L2
sensitivity with every round allowed: every pattern Poisson sampling draws is one; with C >= 0 that
sensitivity is ||C 1||, as ``DPFTRL(min_separation=1)`` finds it), whose minimum with MMCC's is the
bracket's upper side, and a certified lower side from a realizable pair (``RealizableLowerSide``
under i.i.d. Poisson participation, ``PoissonSampling``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, cast

import numpy as np
import numpy.typing as npt

from ..base.accountant import Bound
from ..base.accountant_docs import accountant_docs
from ..base.outward_text import outward_text
from ..base.validation import (
    as_real_array,
    certified_sides,
    count,
    delta_target,
    delta_values,
    describe,
    epsilon_values,
    flag,
    in_interval,
    moderate,
    positive_number,
    scalar_or_array,
)
from ..fdp.gaussian_mechanism import GaussianMechanism
from ..pld.grid import PrivacyLossDistribution
from ..pld.mechanisms import mixture_of_gaussians
from .mmcc_participation import ParticipationSums, participation_bounds, participation_sums
from .mmcc_rows import MAX_CUT, row_factors
from .mmcc_steps import MMCC_STEPS, MMCCStep, cited_steps
from .realizable_lower import RealizableLowerSide
from .round_off import UNIT_ROUNDOFF, gamma
from .sampling_laws import PoissonSampling
from .strategies import strategy_from

__all__ = ["MMCC", "MMCCEpsilon", "mmcc_holds"]

TAIL_FRACTIONS = (0.5, 0.1, 0.01)
MAX_ROUNDS = 2048  # C is held as an n x n matrix, its prefix sums too
TAIL_DELTAS = (
    1e-4,
    1e-7,
    1e-10,
)  # the tail probabilities ``delta`` tries (an epsilon is given, no delta to split)
_LOWER_STEPS = 40  # bisection steps of the lower epsilon
_LOWER_CELLS = (
    1024  # the realizable pair's shifts on about this many lattice steps up to its truncation
)
_DIAGONAL_INTERVAL = (
    1e-4  # the loss grid of a diagonal C's rows (at most value_discretization_interval)
)
# the share of delta_1 charged to the rows' cut tails (step 1b, at most CUT_SHARE delta_1 over all
# rows), the rest to the tail events; 0 would charge no cut (the rows' laws then keep their whole
# tails)
CUT_SHARE = 2.0**-20


@dataclass(frozen=True)
class MMCCEpsilon:
    """MMCC's answer at one delta: the certified bracket (lower, upper) and what it was formed from.

    Unpacks as ``lower, upper``.

    Parameters
    ----------
    lower : float
        A certified lower bound on the mechanism's epsilon at ``delta`` (the realizable pair's; 0 if
        not asked).
    upper : float
        A certified upper bound: the smaller of ``mmcc`` and ``unamplified``.
    delta : float
        The delta asked.
    mmcc : float
        MMCC's certified epsilon at the chosen split.
    tail_delta : float
        delta_1, the probability charged to the tail events at that split.
    pld_delta : float
        delta_2 <= delta - delta_1, read from the composed mixtures.
    unamplified : float
        The certified upper epsilon without amplification (the Gaussian at the sensitivity with
        every round allowed, as ``DPFTRL(min_separation=1)``).
    unamplified_rho : float
        Its zCDP rho (rounded up); rho shows no amplification (sup_alpha D_alpha / alpha of a
        subsampled Gaussian tends to the unamplified rho).
    steps : tuple of MMCCStep, default MMCC_STEPS
        What ``mmcc`` rests on, step by step: each step's name, source, status ("cited", "cited,
        number unconfirmed" or "certified here") and hypotheses (``mmcc_steps``). ``upper`` rests on
        them where it is ``mmcc``; ``unamplified`` rests on none of the cited ones.
    """

    lower: float
    upper: float
    delta: float
    mmcc: float
    tail_delta: float
    pld_delta: float
    unamplified: float
    unamplified_rho: float
    steps: tuple[MMCCStep, ...] = MMCC_STEPS

    def __iter__(self) -> Iterator[float]:
        yield self.lower
        yield self.upper

    @property
    def cited(self) -> tuple[MMCCStep, ...]:
        """The steps ``mmcc`` takes on trust from the papers (the others are certified here)."""
        return cited_steps(self.steps)

    @property
    def upper_rests_on_citations(self) -> bool:
        """Whether ``upper`` is MMCC's value, and so rests on the cited steps (else it is the unamplified bound)."""
        return self.mmcc < self.unamplified

    def __repr__(self) -> str:
        cited = "; ".join(f"{step.label} ({step.status})" for step in self.cited)
        rests = (
            f"MMCC's, resting on cited steps: {cited}"
            if self.upper_rests_on_citations
            else "the unamplified bound"
        )
        return (
            f"MMCCEpsilon(delta={self.delta:g}: certified bracket [{outward_text(self.lower, 'lower')}, "
            f"{outward_text(self.upper, 'upper')}], upper side {rests}; mmcc {outward_text(self.mmcc, 'upper')} at "
            f"tail_delta {self.tail_delta:.3g} + pld_delta {self.pld_delta:.3g}; unamplified "
            f"{outward_text(self.unamplified, 'upper')}, rho {outward_text(self.unamplified_rho, 'upper')})"
        )

    __str__ = __repr__


def _up(x: float) -> float:
    """x (1 + 2u) one ulp up: covers one rounded product or quotient of non-negative doubles."""
    return math.nextafter(x * (1.0 + 2.0 * UNIT_ROUNDOFF), math.inf)


def _every_round_sensitivity(c: np.ndarray) -> float:
    """||C 1||, rounded up, for C >= 0 (entries at least the exact ones): the L2 sensitivity with every round
    allowed.  One record moves C x by sum_j C[:, j] x_j, ||x_j|| <= 1, whose squared norm is sum_jk
    X_jk <x_j, x_k> <= sum_jk X_jk = ||C 1||^2 (X = C^T C >= 0); a subset of the rounds gives less.
    Row sums of n terms, their squares and the sum of m of them: gamma_{2 n + m + 4} (Higham 2002,
    Lemma 3.1)."""
    rows = c.sum(axis=1)
    square = float(rows @ rows) * (1.0 + gamma(2 * c.shape[1] + c.shape[0] + 4))
    return math.nextafter(math.sqrt(math.nextafter(square, math.inf)), math.inf)


def _probabilities(values: Any, name: str) -> tuple[float, ...]:
    """A non-empty sequence of numbers each strictly between 0 and 1, refused by ``name`` otherwise."""
    arr = as_real_array(values, name)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(
            f"{name} must be a non-empty sequence of numbers in (0, 1), got {describe(values)}"
        )
    in_interval(arr, name, 0.0, 1.0, open_low=True, open_high=True)
    return tuple(float(v) for v in arr)


def _upper_epsilon(distribution: PrivacyLossDistribution, delta: float) -> float:
    """The PLD's certified upper epsilon at one delta."""
    return float(cast(float, distribution.epsilon(delta, bound="upper")))


def _release_order(c: np.ndarray, error: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(C's entries raised by their error bound, rows sorted by release round; each row's release round)."""
    raised = c if error is None else np.nextafter(c + error, np.inf) * (c != 0)
    nonzero = raised != 0
    last = np.where(nonzero.any(axis=1), c.shape[1] - 1 - np.argmax(nonzero[:, ::-1], axis=1), -1)
    order = np.argsort(last, kind="stable")
    keep = order[last[order] >= 0]
    return raised[keep], last[keep]


def _checked_matrix(c: np.ndarray, rounds: int) -> None:
    """MMCC's conditions on C (module docstring), each refused by name."""
    if c.ndim != 2 or c.shape[1] != rounds or c.shape[0] < rounds:
        raise ValueError(
            f"strategy must give a matrix with one column per round ({rounds}) and at least as many rows, got shape "
            f"{c.shape}"
        )
    negative = np.argwhere(c < 0)
    if negative.size:
        i, j = (int(v) for v in negative[0])
        raise ValueError(
            f"strategy must have entries >= 0 for MMCC, got C[{i}, {j}] = {describe(c[i, j])}: the bound on the "
            "conditional participation probabilities and the coupling of the row shifts need C >= 0 "
            "(Choquette-Choo, Ganesh, Steinke & Thakurta 2024); DPFTRL gives the guarantee without amplification"
        )
    if c.shape[0] == rounds:
        above = np.argwhere(np.triu(c, 1) != 0)
        if above.size:
            i, j = (int(v) for v in above[0])
            raise ValueError(
                f"strategy must be lower triangular for MMCC, got C[{i}, {j}] = {describe(c[i, j])} above the "
                "diagonal: row i is released at round i, and adaptively chosen inputs need it to use rounds up to "
                "i only; transpose C if it was given transposed"
            )
    if not (c != 0).any():
        raise ValueError(
            "strategy must have a non-zero entry: with C = 0 nothing about a record is released"
        )


def mmcc_holds(strategy: Any, rounds: int) -> bool:
    """Whether MMCC's conditions hold for ``strategy`` over ``rounds`` rounds (entries >= 0; a
    square C lower triangular; not all zero): where they do not, MMCC refuses it with the reason.

    Parameters
    ----------
    strategy : Strategy or array_like
        C, as ``MMCC`` takes it.
    rounds : int
        n, a whole number >= 1.

    Returns
    -------
    bool
        True where ``MMCC(strategy=strategy, rounds=rounds, ...)`` accepts the strategy and the
        rounds (at most ``MAX_ROUNDS``).
    """
    if not 1 <= int(rounds) <= MAX_ROUNDS:
        return False
    c, _ = strategy_from(strategy, 1).matrix(int(rounds))
    try:
        _checked_matrix(c, int(rounds))
    except ValueError:
        return False
    return True


@accountant_docs()  # completes delta / epsilon docstrings with the contract's sections
class MMCC:
    r"""MMCC: the certified amplified epsilon of C x + z N(0, I), C >= 0 lower triangular, under Poisson sampling.

    An epsilon at delta for a chosen split of delta, every step certified; not a PLD. Round j takes
    each record independently with probability q; the rows of C x + z * clip * N(0, I) are released
    in order. Outside tail events of total probability delta_1, row i's conditional output is
    dominated by the mixture :math:`\mathbb{E}\,N(\sum_j C_{ij} B_j, z^2)` vs :math:`N(0, z^2)` with
    independent :math:`B_j \sim \mathrm{Bernoulli}(\tilde q_{ij})`,

    .. math::

        \tilde q_{ij} = \frac{q e^{\varepsilon_{ij}}}{q e^{\varepsilon_{ij}} + 1 - q}, \qquad
        \delta(\varepsilon) \le \delta_{\otimes_i A_i}(\varepsilon) + \delta_1,

    :math:`\varepsilon_{ij}` a certified tail bound of the earlier rows' privacy loss about round j
    (Choquette-Choo, Ganesh, Steinke & Thakurta 2024, Secs. 3-4; the module docstrings of ``mmcc``,
    ``mmcc_participation`` and ``mmcc_rows`` state each step and the condition it uses).
    ``get_epsilon(delta)`` splits delta = delta_1 + delta_2 over ``tail_fractions`` and returns the
    best split's certified epsilon, beside the bound without amplification and a realizable lower
    side; ``epsilon`` and ``delta`` answer as every accountant does (``bound="upper"``, ``"lower"``
    or ``"both"``, array arguments element by element).

    The upper side rests on steps cited from the papers beside the steps certified here;
    ``rests_on`` (``mmcc_steps.MMCC_STEPS``, every answer's ``steps``) lists each with its source,
    status and hypotheses:

    * the reduction of adaptive vector contributions to one record contributing +1 in each sampled
      round: most likely the first part of the proof of Thm 4.8 of the ICLR 2024 paper, the number
      unconfirmed (C >= 0, lower triangular; Poisson sampling; add/remove one record);
    * Cor. 4.7 (vector sensitivities dominated by their norms) and Thm 3.1 (conditional
      composition), cited;
    * Lemma B.4 (a stochastically larger shift law dominates), proved here for both directions;
    * the tail events, participation bounds, row mixtures and their PLDs: certified here.

    Parameters
    ----------
    strategy : Strategy or array_like
        C, one column per round, entries >= 0: ``BLT(...)`` with non-negative coefficients,
        ``Banded(...)``, ``Tree()`` (rows released as their last rounds are in), or a square
        lower-triangular matrix.
    rounds : int
        n, the number of rounds, a whole number in [1, 2048].
    noise_multiplier : float
        z, finite and > 0, in units of the clip norm.
    sampling_rate : float
        q in (0, 1], the probability that a record takes part in a round.
    value_discretization_interval : float, default 1e-2
        The loss grid of the mixtures' PLDs (``pld.mixture_of_gaussians``); a diagonal C's rows (two
        atoms each) use at most 1e-4.
    shift_cells : int, default 16384
        About how many lattice steps a row's largest shift spans (more: a tighter upper side,
        slower).
    tail_fractions : sequence of float, optional
        The fractions f of delta charged to the tail events, each in (0, 1); the best is kept.
        Default (0.5, 0.1, 0.01).
    tail_deltas : sequence of float, optional
        The tail probabilities ``delta(epsilon)`` tries, each in (0, 1); default (1e-4, 1e-7,
        1e-10).
    lower_side : bool, default True
        Whether ``get_epsilon`` also computes the realizable lower side.

    Raises
    ------
    ValueError
        ``noise_multiplier`` not finite and > 0; ``sampling_rate`` outside (0, 1]; ``rounds``
        outside [1, 2048]; a strategy with a negative entry, a square one not lower triangular, one
        with fewer rows than rounds or all zero; a tail fraction or tail delta outside (0, 1).
    ParameterTypeError
        A numeric argument that is a string, bool or None.

    References
    ----------
    Choquette-Choo, Ganesh, Steinke & Thakurta 2024 (ICLR; arXiv:2310.15526), Thm 3.1 (conditional
    composition), Cor. 4.7 (vector sensitivities dominated by their norms) and Sec. 4;
    Choquette-Choo, Ganesh, Haque, Steinke & Thakurta 2024 (arXiv:2410.06266), Sec. 3; the reduction
    of adaptive inputs to the +1 record is cited from these (module docstring, step 0); Zhu, Dong &
    Wang 2022, Thm 10.

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick.matrix import MMCC
    >>> run = MMCC(strategy=np.tril(np.ones((4, 4))), rounds=4, noise_multiplier=2.0, sampling_rate=0.1)
    >>> answer = run.get_epsilon(1e-5)
    >>> answer.lower <= answer.upper <= answer.unamplified
    True
    >>> [step.status for step in answer.cited]
    ['cited, number unconfirmed', 'cited', 'cited']
    """

    rests_on: tuple[MMCCStep, ...] = MMCC_STEPS  # the steps MMCC's value rests on (``mmcc_steps``)

    def __init__(
        self,
        *,
        strategy: Any,
        rounds: int,
        noise_multiplier: float,
        sampling_rate: float,
        value_discretization_interval: float = 1e-2,
        shift_cells: int = 2**14,
        tail_fractions: Sequence[float] | None = None,
        tail_deltas: Sequence[float] | None = None,
        lower_side: bool = True,
    ) -> None:
        n = count(rounds, "rounds", maximum=MAX_ROUNDS)
        z = moderate(positive_number(noise_multiplier, "noise_multiplier"), "noise_multiplier")
        q = float(
            in_interval(
                positive_number(sampling_rate, "sampling_rate"),
                "sampling_rate",
                0.0,
                1.0,
                open_low=True,
                open_high=False,
            )
        )
        fractions = _probabilities(
            TAIL_FRACTIONS if tail_fractions is None else tail_fractions, "tail_fractions"
        )
        tails = _probabilities(TAIL_DELTAS if tail_deltas is None else tail_deltas, "tail_deltas")
        self.strategy = strategy_from(strategy, 1)
        c, error = self.strategy.matrix(n)
        _checked_matrix(c, n)
        self.rounds = n
        self.noise_multiplier = z
        self.sampling_rate = q
        self.value_discretization_interval = positive_number(
            value_discretization_interval, "value_discretization_interval"
        )
        self.shift_cells = count(shift_cells, "shift_cells", maximum=2**20)
        self.tail_fractions = fractions
        self.tail_deltas = tails
        self.lower_side = flag(lower_side, "lower_side")
        self._c, self._release = _release_order(c, error)
        # whether some row i has C_ij > 0 for a column j an earlier row holds (a tail event of
        # step 1)
        earlier = np.cumsum(self._c != 0, axis=0) - (self._c != 0)
        self._charged = bool(((self._c != 0) & (earlier > 0)).any())
        self._plds: dict[float, tuple[PrivacyLossDistribution, float]] = {}
        self._sums: ParticipationSums | None = None
        # C diagonal: no tail event, each row a subsampled Gaussian of two atoms, cheap on a fine
        # grid (DP-SGD's own accuracy where the loss grid would otherwise dominate a small epsilon)
        self._interval = (
            self.value_discretization_interval
            if self._charged
            else min(self.value_discretization_interval, _DIAGONAL_INTERVAL)
        )
        # without amplification: every pattern Poisson sampling draws is one with every round
        # allowed
        self._unamplified = GaussianMechanism(
            sigma=z, sensitivity=_every_round_sensitivity(self._c)
        )
        mu = float(self._unamplified.mu)
        self.unamplified_rho = _up(_up(mu * mu) / 2.0)
        self._lower: RealizableLowerSide | None = None

    def pld_at_tail(self, tail_delta: float) -> PrivacyLossDistribution:
        """The composed mixtures' PLD when ``tail_delta`` is charged to the tail events and cut tails (step 1).

        Its certified upper ``delta(eps - kappa)`` plus ``tail_delta`` bounds the mechanism's
        delta(eps), kappa = ``epsilon_charge(tail_delta)``; the PLD alone bounds nothing, so it is
        not to be composed or exported as the mechanism's.

        Parameters
        ----------
        tail_delta : float
            delta_1 in (0, 1).

        Returns
        -------
        PrivacyLossDistribution
            Both directions (remove, add), certified on the upper side.

        Raises
        ------
        ValueError
            ``tail_delta`` outside (0, 1).
        """
        return self._at_tail(delta_target(tail_delta, "tail_delta"))[0]

    def epsilon_charge(self, tail_delta: float) -> float:
        """kappa, the epsilon the cut tails add at ``tail_delta`` (step 1b): at most 2^-20
        ``tail_delta`` (1 + 2^-9); 0 where nothing is cut (C diagonal).

        Parameters
        ----------
        tail_delta : float
            delta_1 in (0, 1).

        Returns
        -------
        float
            kappa >= 0, rounded up.

        Raises
        ------
        ValueError
            ``tail_delta`` outside (0, 1).
        """
        return self._at_tail(delta_target(tail_delta, "tail_delta"))[1]

    def _at_tail(self, tail: float) -> tuple[PrivacyLossDistribution, float]:
        found = self._plds.get(tail)
        if found is None:
            rows = self._c.shape[0]
            cut = 0.0
            events_tail = tail
            if self._charged:
                cut_total = math.nextafter(tail * CUT_SHARE, 0.0)
                events_tail = math.nextafter(tail - cut_total, 0.0)  # events + cut tails <= tail
                cut = min(MAX_CUT, math.nextafter(cut_total / rows, 0.0))  # rows * cut <= cut_total
            if self._sums is None:
                self._sums = participation_sums(self._c)
            bounds = participation_bounds(
                self._c, self.noise_multiplier, self.sampling_rate, events_tail, sums=self._sums
            )
            factors = row_factors(self._c, bounds.bounds, self._release, self.shift_cells, cut)
            # kappa = -rows log(1 - cut) <= rows cut (1 + 2 cut), the factor 1 + 4 cut covering its
            # rounding too
            kappa = math.nextafter(rows * cut * (1.0 + 4.0 * cut), math.inf) if cut > 0.0 else 0.0
            found = (self._composed(factors), kappa)
            self._plds[tail] = found
        return found

    def _composed(self, factors: list[Any]) -> PrivacyLossDistribution:
        total: PrivacyLossDistribution | None = None
        for factor in factors:
            one = mixture_of_gaussians(
                self.noise_multiplier,
                factor.shifts,
                factor.weights,
                value_discretization_interval=self._interval,
            ).self_compose(factor.rows)
            total = one if total is None else total.compose(one)
        assert total is not None  # C has a non-zero row
        return total

    def _at_split(self, delta: float, fraction: float) -> tuple[float, float, float]:
        """(epsilon, delta_1, delta_2) at the split delta_1 = fraction * delta; with no tail event
        to charge (no row holds a column an earlier row holds: C diagonal) delta_1 = 0 and the PLD
        is exact of its kind."""
        if not self._charged:
            return _upper_epsilon(self._at_tail(0.5)[0], delta), 0.0, delta
        tail = fraction * delta
        rest = math.nextafter(delta - tail, 0.0)  # delta_1 + delta_2 <= delta
        distribution, kappa = self._at_tail(tail)
        eps = _upper_epsilon(distribution, rest)
        return (math.nextafter(eps + kappa, math.inf) if kappa > 0.0 else eps), tail, rest

    def get_epsilon(self, delta: float) -> MMCCEpsilon:
        """The certified bracket of epsilon at ``delta``, MMCC's split, the bound without
        amplification and the steps MMCC's value rests on.

        Parameters
        ----------
        delta : float
            delta in (0, 1).

        Returns
        -------
        MMCCEpsilon
            ``lower, upper = answer`` unpacks the bracket; ``mmcc``, ``tail_delta`` and
            ``pld_delta`` the split chosen; ``unamplified`` and ``unamplified_rho`` the guarantee
            without amplification; ``steps`` (and ``cited``) what ``mmcc`` rests on.

        Raises
        ------
        ValueError
            ``delta`` outside (0, 1).
        """
        d = delta_target(delta)
        eps, tail, rest, plain = self._upper_at(d)
        upper = min(eps, plain)
        lower = self._lower_epsilon(d, upper) if self.lower_side else 0.0
        return MMCCEpsilon(
            lower, upper, d, eps, tail, rest, plain, self.unamplified_rho, self.rests_on
        )

    def _upper_at(self, delta: float) -> tuple[float, float, float, float]:
        """(MMCC's epsilon, delta_1, delta_2, the unamplified epsilon) at ``delta``, the best split kept."""
        eps, tail, rest = min(self._at_split(delta, f) for f in self.tail_fractions)
        return eps, tail, rest, float(self._unamplified.epsilon(delta))

    def _upper_delta(self, epsilon: np.ndarray) -> np.ndarray:
        """The smallest over the tail probabilities t tried of the composed mixtures' certified
        upper delta(eps - kappa) plus t (step 1b), and the bound without amplification, at every
        eps of ``epsilon`` (each distribution read once for them all: its delta is element by
        element)."""
        plain = np.asarray(self._unamplified.delta(epsilon), dtype=float)
        if not self._charged:
            found = np.asarray(self._at_tail(0.5)[0].delta(epsilon, bound="upper"), dtype=float)
            return cast(np.ndarray, np.minimum(found * (1.0 + 2.0 * UNIT_ROUNDOFF), plain))
        best = np.full(epsilon.shape, np.inf)
        for t in self.tail_deltas:
            distribution, kappa = self._at_tail(t)
            # below eps = kappa: delta(eps - kappa) <= delta(0) + (1 - e^(eps - kappa)) <=
            # delta(0) + kappa
            at = np.maximum(epsilon - kappa, 0.0)
            extra = np.where(epsilon < kappa, t + kappa, t)
            found = np.asarray(distribution.delta(at, bound="upper"), dtype=float)
            best = np.minimum(best, found + extra)
        return cast(np.ndarray, np.minimum(best * (1.0 + 2.0 * UNIT_ROUNDOFF), plain))

    def delta(self, epsilon: npt.ArrayLike, *, bound: Bound = "upper") -> Any:
        """delta(eps): the upper side the smallest over the tail probabilities t tried
        (``tail_deltas``) of the composed mixtures' certified upper delta(eps - kappa) plus t, and
        the bound without amplification; the lower side the realizable pair's
        (``RealizableLowerSide`` under i.i.d. Poisson participation).

        Parameters
        ----------
        epsilon : array_like
            Epsilon >= 0, element by element (the run's parameters are scalars).

        Returns
        -------
        float, numpy.ndarray or tuple
            The upper side rests on the cited steps of ``rests_on`` where it is below the
            unamplified bound.
        """
        eps = epsilon_values(epsilon)
        return certified_sides(
            bound,
            lambda: scalar_or_array(np.asarray(self._realizable().delta(eps), dtype=float)),
            lambda: scalar_or_array(self._upper_delta(np.asarray(eps, dtype=float))),
        )

    def epsilon(self, delta: npt.ArrayLike, *, bound: Bound = "upper") -> Any:
        """epsilon(delta): the upper side the smaller of MMCC's at its best split of delta and the
        bound without amplification (``get_epsilon(delta).upper``); the lower side the largest eps
        found by bisection whose realizable lower delta exceeds ``delta``.

        Parameters
        ----------
        delta : array_like
            Target delta, strictly between 0 and 1, element by element (the run's parameters are
            scalars).

        Returns
        -------
        float, numpy.ndarray or tuple
            The upper side rests on the cited steps of ``rests_on`` where it is below the
            unamplified bound.
        """
        d = delta_values(delta)

        def upper_at(x: float) -> float:
            eps, _, _, plain = self._upper_at(float(x))
            return min(eps, plain)

        def lower_at(x: float) -> float:
            return self._lower_epsilon(float(x), upper_at(x))

        return certified_sides(
            bound,
            lambda: scalar_or_array(np.vectorize(lower_at, otypes=[float])(d)),
            lambda: scalar_or_array(np.vectorize(upper_at, otypes=[float])(d)),
        )

    def _realizable(self) -> RealizableLowerSide:
        """The realizable pair's lower side, built at its first use."""
        if self._lower is None:
            self._lower = RealizableLowerSide(
                strategy=self.strategy,
                rounds=self.rounds,
                noise_multiplier=self.noise_multiplier,
                sampling=PoissonSampling(self.sampling_rate),
                shift_cells=_LOWER_CELLS,
            )
        return self._lower

    def _lower_epsilon(self, delta: float, upper: float) -> float:
        """The largest epsilon found (bisection) whose certified lower delta exceeds ``delta``: a
        lower bound on the mechanism's epsilon at ``delta``, as its delta(eps) is non-increasing."""
        side = self._realizable()
        if not float(side.delta(0.0)) > delta:
            return 0.0
        low, high = 0.0, max(upper, 1e-300)
        for _ in range(_LOWER_STEPS):
            mid = 0.5 * (low + high)
            if float(side.delta(mid)) > delta:
                low = mid
            else:
                high = mid
        return low

    def compose(self, other: Any) -> NoReturn:
        """Refused: MMCC's answer is an epsilon at a split of delta, not a PLD.

        Raises
        ------
        TypeError
            Always.
        """
        raise TypeError(_NOT_A_PLD)

    def to_pld(self) -> NoReturn:
        """Refused: MMCC's answer is an epsilon at a split of delta, not a PLD.

        Raises
        ------
        TypeError
            Always.
        """
        raise TypeError(_NOT_A_PLD)


_NOT_A_PLD = (
    "MMCC's answer is an (epsilon, delta) for a chosen split of delta (delta_1 charged to tail events, delta_2 read "
    "from the composed row mixtures), not a privacy-loss distribution: it cannot be composed with other "
    "mechanisms or entered in a ledger as a PLD. Compose at the level of the whole run (one MMCC over all its "
    "rounds), export its certified curve (interop.exchange.export_pld), or use a PLD accountant (AmplifiedBandedMF for "
    "banded C under cyclic Poisson sampling)"
)
