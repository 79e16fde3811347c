r"""A matrix-factorization mechanism (DP-FTRL) as one round of the ledger: its whole release, one Gaussian.

The mechanism releases C x + z N(0, I) (or a post-processing of it, B (C x + noise)), x_i the
clipped sum of step i, z the noise multiplier, C the strategy.  In clip-norm units that release is
the Gaussian mechanism of L2 sensitivity sens, the strategy's sensitivity under its participation
schema (``hockeystick.matrix``: ``l2_sensitivity``, a certified bracket [lower, upper]), so it is
exactly (sens / z)-GDP, RDP alpha sens^2 / (2 z^2), and its PLD is the Gaussian's of sensitivity
sens and noise z (Dong, Roth & Su 2022, Thm 2.7; with inputs chosen from earlier outputs, for
lower-triangular C: Denisov et al. 2022, Thm 2.1).  Its steps are therefore one round of the ledger,
not one Gaussian each: t steps of noise z would count the correlated noise t times over, or (for a
strategy such as a tree, sensitivity above 1) too little.

Design: the round is the whole factorization planned, recorded once, before its first step.  For
lower-triangular C the first t outputs depend on the first t inputs only, and they are a sub-vector
of the whole release, a post-processing of it: the whole release's guarantee holds after every
step t.  (The prefix C[:t, :t] alone may be tighter; ``DPFTRL(rounds=t, ...)`` gives it, and a
fixed-schedule ledger may be built from it at a checkpoint.)  Recording the whole plan at once is
what keeps every guarantee of the ledger valid: a filter must charge an interactive mechanism's cost
before it runs, and a ledger never rewrites a charge already made.  The ledger's proofs compose
whole releases one after another, so the factorization's steps are taken to run as one block: no
other round of the ledger runs between its first step and its last. The round counts as one in
``PrivacyLedger.rounds``, however many steps it has.

Both sides of the bracket: the ledger's upper side is at the certified upper sensitivity, its lower
side at the realizable lower one (``fixed_schedule``), so where the sensitivity is only an upper
bound (``sensitivity_kind == "upper bound"``) the bracket is as wide as the matrix accountant's own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base.validation import describe, positive_number
from ..pld.mechanisms import matrix_parameters

__all__ = ["accountant_parameters"]


def accountant_parameters(accountant: Any) -> tuple[float, float, float]:
    """(noise multiplier z, upper sensitivity, lower sensitivity) of one matrix-mechanism accountant.

    Parameters
    ----------
    accountant : hockeystick.matrix.DPFTRL or MatrixMechanism
        One point (scalar ``noise_multiplier`` and ``sensitivity``); read through its public
        ``noise_multiplier``, ``sensitivity``, ``sensitivity_lower`` and, where it has one,
        ``adaptive_inputs``.

    Returns
    -------
    tuple of float
        (z, upper, lower).

    Raises
    ------
    ValueError
        If ``accountant`` is not a matrix-mechanism accountant, holds several points (array
        parameters), or was built with ``adaptive_inputs=False`` (its guarantee covers a stream
        fixed before the mechanism runs, not the training steps a ledger records, each computed from
        earlier outputs).
    """
    names = ("noise_multiplier", "sensitivity", "sensitivity_lower")
    if not all(hasattr(accountant, name) for name in names):
        raise ValueError(
            f"accountant must be a matrix-mechanism accountant (hockeystick.matrix.DPFTRL or MatrixMechanism), got "
            f"{describe(accountant)}"
        )
    if getattr(accountant, "adaptive_inputs", True) is not True:
        raise ValueError(
            "accountant was built with adaptive_inputs=False: its guarantee covers a stream fixed before the "
            "mechanism runs, while a ledger's steps depend on earlier outputs; build it with adaptive_inputs=True "
            "(a lower-triangular C)"
        )
    values = [np.asarray(getattr(accountant, name), dtype=np.float64) for name in names]
    if any(v.size != 1 for v in values):
        raise ValueError(
            "accountant holds several points (its parameters are arrays, which broadcast into separate "
            "mechanisms): record one point, e.g. DPFTRL(rounds=..., noise_multiplier=1.0, ...)"
        )
    z = positive_number(float(values[0].ravel()[0]), "noise_multiplier")
    upper, lower = matrix_parameters(float(values[1].ravel()[0]), float(values[2].ravel()[0]))
    return z, upper, lower
