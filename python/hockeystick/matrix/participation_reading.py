"""One answer of DP-FTRL at one point, each number labelled: certified lower, certified upper
(amplified, unamplified, or the exact Gaussian of a deterministic schema) and, where offered, a
Monte Carlo estimate that is never called certified.

Under a random participation scheme (``sampled_participation``) the certified sides are
``DPFTRL``'s; the Monte Carlo estimate is ``BallsInBinsMonteCarlo``'s (balls-in-bins, a square
non-negative lower-triangular C: the dominating pair of Choquette-Choo et al. 2024,
arXiv:2410.06266), "delta <= x with probability >= 1 - beta over the draws".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from ..base.outward_text import Side, outward_text
from ..base.validation import (
    ParameterTypeError,
    count,
    delta_target,
    describe,
    epsilon_target,
    in_interval,
)
from .accountant import DPFTRL
from .monte_carlo import BallsInBinsMonteCarlo, MonteCarloDelta

__all__ = ["ParticipationReading", "labelled_reading"]


@dataclass(frozen=True)
class ParticipationReading:
    """One answer of DP-FTRL at one point, each side labelled with what it is.

    Parameters
    ----------
    participation : str
        The participation scheme.
    quantity : {"delta", "epsilon"}
        What was computed; ``at`` is the other one's value.
    at : float
        The epsilon (for delta) or the delta (for epsilon) the answer is at.
    certified_lower : float
        A lower bound on the quantity that holds without any probability.
    certified_upper : float
        An upper bound on the quantity that holds without any probability.
    upper_kind : str
        Which side holds the certified upper value at this point: "amplified" (a proved
        amplification by the sampling gave the smallest upper side), "unamplified" (the worst
        pattern's Gaussian did) or "exact Gaussian" (deterministic participation).
    upper_method : str
        How that upper side was computed.
    lower_method : str
        How the lower side was computed.
    monte_carlo : MonteCarloDelta or None
        A Monte Carlo estimate of delta with its (1 - beta) confidence bound: not certified.
    upper_sides : tuple
        Every certified upper side computed, ``(kind, method, value)``; ``certified_upper`` is the
        smallest.
    """

    participation: str
    quantity: Literal["delta", "epsilon"]
    at: float
    certified_lower: float
    certified_upper: float
    upper_kind: str
    upper_method: str
    lower_method: str
    monte_carlo: MonteCarloDelta | None = None
    upper_sides: tuple[tuple[str, str, float], ...] = ()

    def rows(self) -> list[tuple[str, float]]:
        """(label, value) of each number, the certified sides first and any estimate labelled as one."""
        out = [
            (f"certified lower ({self.lower_method})", self.certified_lower),
            (f"certified upper, {self.upper_kind} ({self.upper_method})", self.certified_upper),
        ]

        mc = self.monte_carlo
        if mc is not None:
            out += [
                (
                    f"Monte Carlo estimate, not certified ({mc.draws} draws per direction, seed {mc.seed})",
                    mc.estimate,
                ),
                ("Monte Carlo standard error, not certified", mc.standard_error),
                (
                    f"Monte Carlo bound: delta <= this with probability >= {1.0 - mc.beta:g} over the draws, "
                    "not certified",
                    mc.confidence_bound,
                ),
            ]
        return out

    def statement(self) -> str:
        """The answer in words: each number with its label, the certified sides rounded outward
        (``base.outward_text``) and an estimate to nearest."""
        other = "epsilon" if self.quantity == "delta" else "delta"
        lines = [f"{self.quantity} at {other} = {self.at:g}, participation {self.participation}:"]
        sides: tuple[Side, ...] = ("lower", "upper")  # rows() opens with the two certified sides
        lines += [
            f"  {label}: {outward_text(value, sides[i] if i < len(sides) else None)}"
            for i, (label, value) in enumerate(self.rows())
        ]
        return "\n".join(lines)


def _check_monte_carlo_offered(run: DPFTRL, quantity: str) -> None:
    """Refuse Monte Carlo draws where no estimate is offered, before any certified read is paid for."""
    if run.sampled is None or run.participation != "balls_in_bins" or quantity != "delta":
        raise ValueError(
            "monte_carlo_draws must be 0 here: a Monte Carlo estimate is offered for delta at epsilon under "
            "participation='balls_in_bins' (the dominating pair of Choquette-Choo et al. 2024, non-negative C) only"
        )


def _monte_carlo(
    run: DPFTRL, quantity: str, at: float, draws: int, beta: float, seed: int | None
) -> MonteCarloDelta:
    """``BallsInBinsMonteCarlo``'s reading of delta at ``at`` for the run (balls-in-bins, delta at epsilon only)."""
    sides = run.sampled
    assert sides is not None  # refused by _check_monte_carlo_offered before the certified read
    c, _ = sides.strategy.matrix(sides.rounds)
    estimate = BallsInBinsMonteCarlo(
        strategy=c,
        noise_multiplier=sides.noise_multiplier,
        cycle_length=int(getattr(sides.sampling, "cycle_length", 1)),
        draws=draws,
        seed=seed,
    )
    return estimate.delta(at, beta=beta)


def labelled_reading(
    run: DPFTRL,
    *,
    epsilon: float | None = None,
    delta: float | None = None,
    monte_carlo_draws: int = 0,
    beta: float = 1e-3,
    seed: int | None = None,
) -> ParticipationReading:
    """delta at ``epsilon`` or epsilon at ``delta`` of a one-point ``DPFTRL`` run, each side labelled.

    Parameters
    ----------
    run : DPFTRL
        The run, of one point (scalar arguments).
    epsilon, delta : float, optional
        Exactly one: the point the other quantity is computed at.
    monte_carlo_draws : int, default 0
        Draws per direction of a Monte Carlo estimate of delta beside the certified sides
        (balls-in-bins, a non-negative square C, with ``epsilon``: ``BallsInBinsMonteCarlo``); 0:
        none.
    beta : float, default 1e-3
        The probability over the draws that the Monte Carlo bound fails, in (0, 1).
    seed : int, optional
        The Monte Carlo draws' seed (None: not reproducible).

    Returns
    -------
    ParticipationReading
        The certified lower and upper sides, what the upper side is and the Monte Carlo estimate, if
        asked, labelled as one.

    Raises
    ------
    ValueError
        Not exactly one of ``epsilon`` and ``delta``; a run of several points; ``monte_carlo_draws``
        not a whole number >= 0, or > 0 with ``delta``, with a scheme other than balls-in-bins or
        with a C the estimate refuses; ``beta`` outside (0, 1).
    ParameterTypeError
        ``run`` not a ``DPFTRL``; a numeric argument that is a string, bool or None.

    Examples
    --------
    >>> from hockeystick.matrix import DPFTRL, Banded, labelled_reading
    >>> run = DPFTRL(rounds=8, noise_multiplier=1.5, strategy=Banded([1.0, 0.5]), min_separation=4,
    ...              participation="balls_in_bins")
    >>> reading = labelled_reading(run, epsilon=1.0)
    >>> reading.upper_kind, reading.certified_lower <= reading.certified_upper
    ('unamplified', True)
    """
    if not isinstance(run, DPFTRL):
        raise ParameterTypeError(
            f"run must be a DPFTRL (one point), got {describe(run)} ({type(run).__name__})"
        )
    if (epsilon is None) == (delta is None) or np.ndim(run.noise_multiplier) or np.ndim(run.rounds):
        raise ValueError(
            "labelled_reading takes exactly one of epsilon= and delta=, on a run of one point (scalar arguments)"
        )
    draws = count(monte_carlo_draws, "monte_carlo_draws", minimum=0)
    b = float(in_interval(beta, "beta", 0.0, 1.0, open_low=True, open_high=True))
    quantity: Literal["delta", "epsilon"] = "delta" if epsilon is not None else "epsilon"
    at = float(epsilon_target(epsilon) if epsilon is not None else delta_target(delta))
    if draws:
        _check_monte_carlo_offered(run, quantity)
    lower, upper = getattr(run, quantity)(at, bound="both")
    mc = _monte_carlo(run, quantity, at, draws, b, seed) if draws else None
    sides = run.sampled
    kind, method = "exact Gaussian", "at the certified L2 sensitivity"
    computed: tuple[tuple[str, str, float], ...] = ()
    if (
        sides is not None
    ):  # every certified upper side, and the one that holds the smallest value here
        computed = tuple(
            (k, m, float(v)) for k, m, v in sides.upper_sides(quantity, np.asarray(at))
        )
        kind, method, _ = min(computed, key=lambda side: side[2])
    return ParticipationReading(
        participation=run.participation,
        quantity=quantity,
        at=at,
        certified_lower=float(lower),
        certified_upper=float(upper),
        upper_kind=kind,
        upper_method=method,
        lower_method="the Gaussian at the realizable L2 sensitivity"
        if sides is None
        else sides.lower_method,
        monte_carlo=mc,
        upper_sides=computed,
    )
