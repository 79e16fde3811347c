"""The certified PLD bracket of the rounds recorded, for a schedule fixed before the run.

Composition commutes, so the rounds are kept as counts per distinct round (``Round``), and the bracket
composes each distinct round's PLD to its count (``pld.PLDAccountant``: certified upper and lower sides,
Doroshenko et al. 2022; the composition of the realized PLDs of a fixed sequence: Koskela, Jälkö & Honkela
2020; the Poisson-subsampled Gaussian's dominating pairs: Zhu, Dong & Wang 2022).  Each distinct round is
discretized once and kept (``PLDAccountant``'s cache); the composition itself is recomputed at each
checkpoint asked for, not carried from the last one: a composed PMF used as a factor would drop its
round-off and truncation charges (``pld/reads/along_run.py`` says why).  A checkpoint so costs one
composition of as many factors as the run has distinct rounds: a few stages are milliseconds, a sigma that
changes every round is a factor per round (use the Rényi answers there).  The brackets after many
checkpoints of one run come from one batched evaluation (``PrivacyLedger.composition_curve``,
``pld/reads/along_run.py``): the factors are transformed once for all checkpoints.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..pld.accountants.subsampled_gaussian import PLDAccountant
from ..pld.mechanisms.constructors import laplace
from .rounds import Round

__all__ = ["pld_accountant"]


def pld_accountant(runs: Iterable[tuple[Round, int]], value_discretization_interval: float) -> PLDAccountant:
    """A ``PLDAccountant`` holding each run of rounds, in order.

    Parameters
    ----------
    runs : iterable of (Round, int)
        The rounds recorded, as (round, how many times): counted per distinct round for one bracket, or in the
        order they ran for the brackets along the run (``PLDAccountant.epsilon_curve``).
    value_discretization_interval : float
        The PLD grid's spacing h, 0 < h <= 100.

    Returns
    -------
    PLDAccountant
        Its ``epsilon(delta, bound="both")`` is the certified bracket of the composition.
    """
    accountant = PLDAccountant(value_discretization_interval=value_discretization_interval)
    for one, rounds in runs:
        if one.mechanism == "laplace":
            accountant.compose(
                laplace(float(one.scale), value_discretization_interval=value_discretization_interval),  # type: ignore[arg-type]
                rounds,
            )
        else:
            rate = 1.0 if one.sampling_rate is None else one.sampling_rate
            accountant.compose_subsampled_gaussian(float(one.sigma), rate, rounds)  # type: ignore[arg-type]
    return accountant
