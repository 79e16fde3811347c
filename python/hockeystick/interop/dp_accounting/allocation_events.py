"""dp_accounting-style events for the batches training loops draw per epoch (dp_accounting has none of them).

Each event is one epoch; compose epochs with ``count`` (or ``SelfComposedDpEvent``), as with any
event.

``BallsInBinsGaussianDpEvent`` (add/remove or replace-special neighbours): each record joins one of
the epoch's ``num_steps`` steps, chosen uniformly; the Gaussian of noise multiplier
``noise_multiplier`` on each step's sum (``pld.sampling.random_allocation``: certified both sides).
``ShuffledBatchGaussianDpEvent`` (replace-one): a fresh permutation of ``dataset_size`` records cut
into batches of ``batch_size``; its upper side is the Gaussian of shift 2, its lower side a
realizable pair (``pld.accountants.allocation``).  Both are taken by
``interop.dp_accounting.HockeystickPLDAccountant`` (the PLD accountant), not by the RDP accountant.

Examples
--------
>>> from hockeystick.interop.dp_accounting import HockeystickPLDAccountant
>>> from hockeystick.interop.dp_accounting.allocation_events import BallsInBinsGaussianDpEvent
>>> accountant = HockeystickPLDAccountant()
>>> accountant = accountant.compose(BallsInBinsGaussianDpEvent(noise_multiplier=1.1, num_steps=235), count=60)
>>> round(accountant.get_epsilon(1e-5), 2)
2.34
"""

from __future__ import annotations

from dp_accounting import dp_event as ev  # installed: the wing's import checked it

from .event_base import dp_event

__all__ = ["BallsInBinsGaussianDpEvent", "ShuffledBatchGaussianDpEvent"]


@dp_event
class BallsInBinsGaussianDpEvent(ev.DpEvent):
    """One epoch of balls-in-bins batches, each step adding Gaussian noise to its records' clipped sum.

    Each record joins one of the ``num_steps`` steps, chosen uniformly at random and independently
    of the others; each step adds N(0, noise_multiplier^2) to the sum of its records' contributions
    clipped to norm 1. Taken by ``HockeystickPLDAccountant`` under ADD_OR_REMOVE_ONE and
    REPLACE_SPECIAL (dp_accounting's ``UnsupportedEventError`` under REPLACE_ONE).

    Parameters
    ----------
    noise_multiplier : float
        The noise standard deviation per unit sensitivity, finite and >= 0 (0: non-private, epsilon
        inf).
    num_steps : int
        The epoch's number of steps, an integer >= 1.

    Notes
    -----
    The event stores its fields unchecked; the accountant's ``compose`` refuses them (ValueError
    naming the field) when out of range.

    References
    ----------
    ``pld.sampling.random_allocation`` states the analysis (certified both sides).
    """

    noise_multiplier: float
    num_steps: int


@dp_event
class ShuffledBatchGaussianDpEvent(ev.DpEvent):
    """One epoch of shuffled batches, each step adding Gaussian noise to its batch's clipped sum.

    A uniform permutation of ``dataset_size`` records is cut into batches of ``batch_size`` (the
    last may be shorter); each step adds N(0, noise_multiplier^2) to the sum of its batch's
    contributions clipped to norm 1. Taken by ``HockeystickPLDAccountant`` under REPLACE_ONE only:
    the upper side is the Gaussian of shift 2, the lower side a realizable pair.

    Parameters
    ----------
    noise_multiplier : float
        The noise standard deviation per unit sensitivity, finite and >= 0 (0: non-private, epsilon
        inf).
    dataset_size : int
        n, the number of records, an integer >= 1.
    batch_size : int
        b, records per batch, an integer in [1, n].

    Notes
    -----
    The event stores its fields unchecked; the accountant's ``compose`` refuses them (ValueError
    naming the field) when out of range.

    References
    ----------
    ``pld.accountants.allocation`` states the analysis.
    """

    noise_multiplier: float
    dataset_size: int
    batch_size: int
