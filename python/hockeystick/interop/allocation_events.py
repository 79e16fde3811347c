"""dp_accounting-style events for the batches training loops draw per epoch (dp_accounting has none of them).

Each event is one epoch; compose epochs with ``count`` (or ``SelfComposedDpEvent``), as with any event:

    from hockeystick.interop.dp_accounting import HockeystickAccountant
    from hockeystick.interop.allocation_events import BallsInBinsGaussianDpEvent

    accountant = HockeystickAccountant()
    accountant.compose(BallsInBinsGaussianDpEvent(noise_multiplier=1.1, num_steps=235), count=60)
    accountant.get_epsilon(1e-5)

``BallsInBinsGaussianDpEvent`` (add/remove neighbours): each record joins one of the epoch's ``num_steps``
steps, chosen uniformly; the Gaussian of noise multiplier ``noise_multiplier`` on each step's sum
(``pld.sampling.random_allocation``: certified both sides).  ``ShuffledBatchGaussianDpEvent`` (replace-one): a fresh
permutation of ``dataset_size`` records cut into batches of ``batch_size``; its upper side is the Gaussian of
shift 2, its lower side a realizable pair (``pld.accountants.allocation``).
"""

from __future__ import annotations

try:
    import attr
    from dp_accounting import dp_event as ev
except ModuleNotFoundError:  # attr comes with dp_accounting: name the extra that installs both
    from ..base.optional import require_extra

    require_extra("hockeystick.interop.allocation_events (dp_accounting's events)", "dp_accounting")
    raise

__all__ = ["BallsInBinsGaussianDpEvent", "ShuffledBatchGaussianDpEvent"]


@attr.s(frozen=True, slots=True, auto_attribs=True)
class BallsInBinsGaussianDpEvent(ev.DpEvent):
    """One epoch of balls-in-bins batches: each record in one of ``num_steps`` steps, chosen uniformly at random
    and independently of the others; each step adds N(0, noise_multiplier^2) to its records' clipped sum."""

    noise_multiplier: float
    num_steps: int


@attr.s(frozen=True, slots=True, auto_attribs=True)
class ShuffledBatchGaussianDpEvent(ev.DpEvent):
    """One epoch of shuffled batches: a uniform permutation of ``dataset_size`` records cut into batches of
    ``batch_size`` (the last may be shorter); each step adds N(0, noise_multiplier^2) to its batch's clipped sum."""

    noise_multiplier: float
    dataset_size: int
    batch_size: int
