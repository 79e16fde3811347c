"""DP-FTRL's certified sides when records take part by a random scheme: balls-in-bins, random
allocation, b-min-sep or cyclic Poisson (``sampling_laws``), and what each side is.

Every pattern such a scheme draws is a pattern of a deterministic schema, so the mechanism is a
mixture, over the scheme's random pattern s, of Gaussian mechanisms each within that schema's L2
sensitivity:

* balls-in-bins with b bins and cyclic Poisson with b groups: rounds t, t + b, ... (or a subset of
  them), ``FixedEpochs(b)``;
* random allocation of k rounds: any k rounds, ``MinSeparation(1, k)``;
* b-min-sep: rounds at least b apart, ``MinSeparation(b)``.

Under add or remove one record the pair is (E_s P_s, Q) with Q the same for every s, and the
hockey-stick divergence is jointly convex, so delta(eps) of the mixture is at most the largest
delta(eps) of its components in each direction: the schema's Gaussian guarantee (``DPFTRL`` at that
schema) is a certified upper side, labelled "unamplified" since it claims no amplification by the
sampling.  Where an amplified bound is proved it is used too (the smallest of certified upper sides
is one; ``upper_sides`` gives each):

* a banded C under cyclic Poisson sampling: ``AmplifiedBandedMF`` (Choquette-Choo et al. 2023b,
  Theorem 4);
* C >= 0 lower triangular under i.i.d. Poisson sampling: ``MMCC``;
* C >= 0 lower triangular (square) under balls-in-bins, one bin per record for the whole run (the
  scheme of Choquette-Choo et al. 2025, arXiv:2410.06266, Def. 3.1, which is DPFTRL's), and under
  random allocation of one round (balls-in-bins with b = n bins): ``BallsInBinsRDP``, the Renyi
  bound of that paper's Lemma 3.2 pair. Random allocation of k > 1 rounds keeps the unamplified
  side: its k-subset mixture has no domination lemma here;
* a banded C >= 0 of at most b bands under b-min-sep: ``BMinSepRDP``, Renyi DP through Dong &
  Ganesh's recursion (``b_min_sep``; orders whose dynamic program exceeds its work limit are left
  out, and with none left the unamplified side stands alone).

The lower side is ``RealizableLowerSide``: one record contributing +1 in each round it enters,
projected on one direction (certified; its module states each step).  The Gaussian at the schema's
realizable sensitivity is NOT a lower side here: under sampling the worst pattern is drawn with
probability below 1.

``participation_reading.labelled_reading`` states each side with what it is, beside a Monte Carlo
estimate where one is offered.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, cast

import numpy as np
import numpy.typing as npt

from ..base.accountant import Quantity
from ..base.validation import describe, in_interval, scalar_or_array
from .amplification import AmplifiedBandedMF
from .b_min_sep import BMinSepRDP
from .balls_in_bins_rdp import BallsInBinsRDP, balls_in_bins_rdp_holds
from .mmcc import MMCC, mmcc_holds
from .participation import FixedEpochs, MinSeparation, Participation
from .realizable_lower import RealizableLowerSide
from .sampling_laws import (
    BallsInBinsSampling,
    BMinSepSampling,
    CyclicPoissonSampling,
    PoissonSampling,
    RandomAllocationSampling,
    Sampling,
)
from .strategies import Banded, Strategy

__all__ = ["SAMPLED_PARTICIPATIONS", "SampledSides", "sampled_schema"]

SampledName = Literal["balls_in_bins", "random_allocation", "b_min_sep", "cyclic_poisson"]
SAMPLED_PARTICIPATIONS: tuple[SampledName, ...] = (
    "balls_in_bins",
    "random_allocation",
    "b_min_sep",
    "cyclic_poisson",
)

_BISECTION_STEPS = 64  # the lower epsilon's bracket halves this often (a relative width of 2^-64 of the upper side)


def sampled_schema(
    participation: str, separation: int, participations: int | None
) -> Participation:
    """The deterministic schema holding every pattern the scheme draws (the unamplified upper side's).

    Parameters
    ----------
    participation : str
        One of ``SAMPLED_PARTICIPATIONS``.
    separation : int
        b: the bins (balls-in-bins), the groups (cyclic Poisson), the minimum separation
        (b-min-sep); 1 for random allocation.
    participations : int or None
        k, the rounds per record under random allocation; None for the other schemes.

    Returns
    -------
    Participation
        ``FixedEpochs(b)`` for balls-in-bins and cyclic Poisson, ``MinSeparation(1, k)`` for random
        allocation, ``MinSeparation(b)`` for b-min-sep.
    """
    if participation in ("balls_in_bins", "cyclic_poisson"):
        return FixedEpochs(separation, None)
    return MinSeparation(separation, participations)


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(message)


def _checked_sampling(
    participation: str, separation: int, participations: int | None, sampling_rate: float | None
) -> Sampling:
    """The scheme's ``Sampling``, each argument it needs given and each it ignores refused, by name."""
    rate_needed = participation in ("b_min_sep", "cyclic_poisson")
    _require(
        (sampling_rate is not None) == rate_needed,
        f"sampling_rate must be {'given' if rate_needed else 'None'} with participation={participation!r}, got "
        f"{describe(sampling_rate)}: "
        + (
            "each available record is taken with that probability (jax_privacy's sampling_prob)"
            if rate_needed
            else "the scheme takes no sampling rate (balls-in-bins: a uniform bin; random allocation: k uniform rounds)"
        ),
    )
    k_needed = participation == "random_allocation"
    _require(
        (participations is not None) == k_needed,
        f"max_participations must be {'given' if k_needed else 'None'} with participation={participation!r}, got "
        f"{describe(participations)}: "
        + (
            "random allocation puts each record in exactly k uniformly chosen rounds (pass max_participations=k)"
            if k_needed
            else "the scheme sets how often a record takes part (drop max_participations)"
        ),
    )
    _require(
        participation != "random_allocation" or separation == 1,
        f"min_separation must be 1 with participation='random_allocation', got {separation}: its k rounds may be "
        "adjacent (for rounds at least b apart use participation='b_min_sep')",
    )
    if participation == "balls_in_bins":
        return BallsInBinsSampling(separation)
    if participation == "random_allocation":
        return RandomAllocationSampling(int(participations or 0))
    rate = float(
        in_interval(
            cast(Any, sampling_rate), "sampling_rate", 0.0, 1.0, open_low=True, open_high=False
        )
    )
    if participation == "b_min_sep":
        return BMinSepSampling(separation, rate)
    return CyclicPoissonSampling(separation, rate)


def _cyclic_poisson_banded(
    participation: str,
    strategy: Strategy,
    rounds: int,
    noise_multiplier: float,
    separation: int,
    rate: float,
) -> AmplifiedBandedMF | None:
    """Cyclic Poisson amplification of a banded C of at most b bands (Choquette-Choo et al. 2023b,
    Theorem 4); None where the scheme or C is not covered."""
    if (
        participation != "cyclic_poisson"
        or not isinstance(strategy, Banded)
        or len(strategy.bands) > separation
    ):
        return None
    return AmplifiedBandedMF(
        rounds=rounds,
        noise_multiplier=noise_multiplier,
        sampling_rate=rate,
        strategy=strategy,
        min_separation=separation,
    )


def _poisson_mmcc(
    strategy: Strategy, rounds: int, noise_multiplier: float, rate: float
) -> MMCC | None:
    """MMCC under i.i.d. Poisson sampling at ``rate`` for C >= 0 lower triangular; None for any other C."""
    if not mmcc_holds(strategy, rounds):
        return None
    return MMCC(
        strategy=strategy,
        rounds=rounds,
        noise_multiplier=noise_multiplier,
        sampling_rate=rate,
        lower_side=False,
    )


def _renyi_bins(
    participation: str, strategy: Strategy, rounds: int, separation: int, participations: int | None
) -> int | None:
    """The bins of Lemma 3.2's pair (b under balls-in-bins, n under random allocation of one round)
    where ``BallsInBinsRDP`` covers the scheme and C; None elsewhere."""
    if participation == "balls_in_bins":
        bins = separation
    elif participation == "random_allocation" and participations == 1:
        bins = rounds
    else:
        return None
    return bins if balls_in_bins_rdp_holds(strategy, rounds) else None


def _b_min_sep_rdp(
    strategy: Strategy,
    rounds: int,
    noise_multiplier: float,
    separation: int,
    rate: float,
    warm_start: bool,
) -> BMinSepRDP | None:
    """``BMinSepRDP`` for a banded C >= 0 of at most b bands under b-min-sep, where it has an order
    within its work limit; None elsewhere."""
    if not (
        isinstance(strategy, Banded) and strategy.nonnegative and len(strategy.bands) <= separation
    ):
        return None
    found = BMinSepRDP(
        coefficients=strategy.bands,
        rounds=rounds,
        noise_multiplier=noise_multiplier,
        sampling_rate=rate,
        min_separation=separation,
        warm_start=warm_start,
    )
    return found if found.available else None


class SampledSides:
    """The certified sides of DP-FTRL under a random participation scheme, at one point.

    The upper side is the smallest of the unamplified Gaussian at the scheme's deterministic schema
    (``sampled_schema``; given as ``unamplified``) and the amplified bounds that hold (module
    docstring: ``AmplifiedBandedMF``, ``MMCC``, ``BallsInBinsRDP``); the lower side is
    ``RealizableLowerSide`` under the scheme's ``Sampling``, built at its first use.

    Parameters
    ----------
    participation : str
        One of ``SAMPLED_PARTICIPATIONS``.
    strategy : Strategy
        C.
    rounds : int
        n.
    noise_multiplier : float
        z.
    separation : int
        b (bins, groups, or the minimum separation; 1 for random allocation).
    participations : int or None
        k (random allocation only).
    sampling_rate : float or None
        p or q (b-min-sep and cyclic Poisson only).
    unamplified : callable
        ``(method, argument) -> upper side``: the schema's Gaussian guarantee, ``method`` "delta" or
        "epsilon".

    Raises
    ------
    ValueError
        An argument the scheme needs missing, or one it ignores given (each named, with the fix).
    """

    def __init__(
        self,
        *,
        participation: str,
        strategy: Strategy,
        rounds: int,
        noise_multiplier: float,
        separation: int,
        participations: int | None,
        sampling_rate: float | None,
        unamplified: Callable[[Quantity, np.ndarray], np.ndarray],
    ) -> None:
        self.participation = participation
        self.sampling = _checked_sampling(participation, separation, participations, sampling_rate)
        self.strategy = strategy
        self.rounds = rounds
        self.noise_multiplier = noise_multiplier
        self._unamplified = unamplified
        rate = float(sampling_rate or 0.0)
        self.amplified = _cyclic_poisson_banded(
            participation, strategy, rounds, noise_multiplier, separation, rate
        )
        # i.i.d. Poisson (one group): the law truncated at its tail (a long run's lattice keeps its
        # shifts), and for C >= 0 lower triangular MMCC, an amplified upper side for any such C
        # (``mmcc``)
        self.mmcc: MMCC | None = None
        if participation == "cyclic_poisson" and separation == 1:
            self.sampling = PoissonSampling(rate)
            self.mmcc = _poisson_mmcc(strategy, rounds, noise_multiplier, rate)
        # balls-in-bins (one bin for the run) and random allocation of one round (b = n bins), C >=
        # 0 lower triangular: the Renyi bound of Lemma 3.2's pair (``balls_in_bins_rdp``), built at
        # its first use
        self._renyi_bins = _renyi_bins(participation, strategy, rounds, separation, participations)
        self._renyi: BallsInBinsRDP | None = None
        # b-min-sep with a banded C >= 0 of at most b bands: Renyi DP through Dong & Ganesh's
        # recursion
        self.b_min_sep: BMinSepRDP | None = None
        if participation == "b_min_sep":
            warm = cast(BMinSepSampling, self.sampling).warm_start
            self.b_min_sep = _b_min_sep_rdp(
                strategy, rounds, noise_multiplier, separation, rate, warm
            )
        self._lower: RealizableLowerSide | None = None

    @property
    def upper_kind(self) -> str:
        """ "amplified" where a proved amplification is used (beside the unamplified side), else "unamplified"."""
        amplified = (
            self.amplified is not None or self.mmcc is not None or self._renyi_bins is not None
        )
        amplified = amplified or self.b_min_sep is not None
        return "amplified" if amplified else "unamplified"

    @property
    def upper_method(self) -> str:
        """How the upper side is computed (every certified upper side whose minimum is taken)."""
        return ", and ".join(text for _, text, _ in self._upper_reads())

    @property
    def renyi(self) -> BallsInBinsRDP | None:
        """The Renyi bound of Lemma 3.2's pair (balls-in-bins; random allocation of one round),
        built at first use; None where the scheme or C is not covered."""
        if self._renyi is None and self._renyi_bins is not None:
            self._renyi = BallsInBinsRDP(
                strategy=self.strategy,
                rounds=self.rounds,
                noise_multiplier=self.noise_multiplier,
                bins=self._renyi_bins,
            )
        return self._renyi

    def _upper_reads(self) -> list[tuple[str, str, Callable[[Quantity, np.ndarray], np.ndarray]]]:
        """(kind, method, read) of each certified upper side: the unamplified one first."""
        reads: list[tuple[str, str, Callable[[Quantity, np.ndarray], np.ndarray]]] = [
            (
                "unamplified",
                "the worst pattern's Gaussian at the certified L2 sensitivity, no amplification by sampling claimed"
                + (
                    " (random allocation of k > 1 rounds with correlated noise: no amplified bound is proved here)"
                    if self.participation == "random_allocation" and self._renyi_bins is None
                    else ""
                )
                + (
                    " (b-min-sep: the Renyi route needs a banded C >= 0 of at most b bands and an order within its "
                    "work limit)"
                    if self.participation == "b_min_sep" and self.b_min_sep is None
                    else ""
                ),
                self._unamplified,
            )
        ]
        amplified = self.amplified
        if amplified is not None:
            reads.append(
                (
                    "amplified",
                    "cyclic Poisson amplification of a banded C, AmplifiedBandedMF",
                    lambda method, x: getattr(amplified, method)(x, bound="upper"),
                )
            )
        mmcc = self.mmcc
        if mmcc is not None:

            def read_mmcc(method: Quantity, x: np.ndarray) -> np.ndarray:
                one = mmcc.delta if method == "delta" else (lambda d: mmcc.get_epsilon(d).mmcc)
                return np.asarray(np.vectorize(one, otypes=[float])(np.asarray(x, dtype=float)))

            reads.append(
                (
                    "amplified",
                    "MMCC for i.i.d. Poisson sampling (an epsilon at a split of delta)",
                    read_mmcc,
                )
            )
        if self._renyi_bins is not None:
            scheme = (
                "one bin per record for the whole run"
                if self.participation == "balls_in_bins"
                else "one uniformly chosen round, balls-in-bins with one bin a round"
            )
            reads.append(
                (
                    "amplified",
                    f"Renyi DP of the balls-in-bins dominating pair (Lemma 3.2, arXiv:2410.06266; {scheme}): remove "
                    "direction by its count-vector moment, add direction by the AM-GM bound, tight conversion, "
                    "BallsInBinsRDP",
                    lambda method, x: getattr(self.renyi, method)(x, bound="upper"),
                )
            )
        b_min_sep = self.b_min_sep
        if b_min_sep is not None:
            reads.append(
                (
                    "amplified",
                    "Renyi DP of b-min-sep's pair through Dong & Ganesh's recursion (arXiv:2602.09338, Sec. 5): remove "
                    "direction exact by a dynamic program over the orders' copies, add direction by the AM-GM bound, "
                    "tight conversion, BMinSepRDP",
                    lambda method, x: getattr(b_min_sep, method)(x, bound="upper"),
                )
            )
        return reads

    def upper_sides(
        self, method: Quantity, argument: np.ndarray
    ) -> list[tuple[str, str, np.ndarray]]:
        """Every certified upper side of ``method`` ("delta" or "epsilon") at ``argument``: (kind, how, values).

        Parameters
        ----------
        method : {"delta", "epsilon"}
            The quantity.
        argument : numpy.ndarray
            Its argument (epsilon or delta).

        Returns
        -------
        list of tuple
            ``(kind, method, values)``, "unamplified" first; the certified upper side is their
            minimum.
        """
        return [
            (kind, text, np.asarray(read(method, argument), dtype=float))
            for kind, text, read in self._upper_reads()
        ]

    lower_method = "a realizable pair projected on one direction, RealizableLowerSide"

    def lower(self) -> RealizableLowerSide:
        """The realizable lower side, built at its first use (its law and mixture PLD cost more than the upper)."""
        if self._lower is None:
            self._lower = RealizableLowerSide(
                strategy=self.strategy,
                rounds=self.rounds,
                noise_multiplier=self.noise_multiplier,
                sampling=self.sampling,
            )
        return self._lower

    def upper(self, method: Quantity, argument: np.ndarray) -> np.ndarray:
        """The certified upper side of ``method`` ("delta" or "epsilon") at ``argument``: the
        smallest of ``upper_sides`` (each is certified, so their minimum is)."""
        sides = self.upper_sides(method, argument)
        side = sides[0][2]
        for _, _, values in sides[1:]:
            side = np.minimum(side, values)
        return side

    def lower_delta(self, epsilon: npt.ArrayLike) -> Any:
        """Certified lower side of delta(eps)."""
        return self.lower().delta(epsilon)

    def lower_epsilon(self, delta: np.ndarray) -> Any:
        """Certified lower side of epsilon(delta): the largest eps found with the lower delta(eps) above delta.

        The true delta(eps) is non-increasing in eps, so if its lower side exceeds delta at eps, so
        does the truth at every eps' <= eps, and the true epsilon(delta) is at least eps.  The
        bracket [0, upper side] is halved ``_BISECTION_STEPS`` times and its lower end returned (0
        where the lower delta(0) <= delta).
        """
        target = np.asarray(delta, dtype=float)
        low = np.zeros_like(target)
        high = np.asarray(self.upper("epsilon", target), dtype=float)
        high = np.where(np.isfinite(high), high, 1e4)
        side = self.lower()
        for _ in range(_BISECTION_STEPS):
            mid = 0.5 * (low + high)
            above = np.asarray(side.delta(mid), dtype=float) > target
            low = np.where(above, mid, low)
            high = np.where(above, high, mid)
        return scalar_or_array(
            np.where(np.asarray(side.delta(low), dtype=float) > target, low, 0.0)
        )
