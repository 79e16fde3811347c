"""dp_accounting-style events for private selection (dp_accounting 0.6.0 has none of them).

Each event is one selection from scores u(D, r) of sensitivity Delta under the accountant's
neighbouring relation (any of the three); ``epsilon`` is the mechanism's parameter:

- ``ExponentialMechanismDpEvent(epsilon)``: Pr[r] proportional to exp(epsilon u(D, r) / (2 Delta))
  (or exp(epsilon u / Delta) for scores that move in one direction): epsilon-DP and epsilon-bounded
  range; composed as the pair that dominates every epsilon-bounded-range pair, a realizable pair
  below;
- ``PermuteAndFlipDpEvent(epsilon)``: permute-and-flip (McKenna & Sheldon 2020), epsilon-DP:
  composed as the canonical (epsilon, 0)-DP pair, a realizable pair below.

``pld.mechanisms.selection`` states the pairs and their proofs.  Both events are also taken by the
RDP accountant (``rdp.bounded_range``, ``rdp.pure_dp``).

Examples
--------
>>> from hockeystick.interop.dp_accounting import HockeystickPLDAccountant
>>> from hockeystick.interop.dp_accounting.selection_events import ExponentialMechanismDpEvent
>>> accountant = HockeystickPLDAccountant()
>>> accountant = accountant.compose(ExponentialMechanismDpEvent(epsilon=0.5), count=20)
>>> lower, upper = accountant.get_epsilon_bracket(1e-6)
>>> lower <= upper
True
"""

from __future__ import annotations

from dp_accounting import dp_event as ev  # installed: the wing's import checked it

from .event_base import dp_event

__all__ = ["ExponentialMechanismDpEvent", "PermuteAndFlipDpEvent"]


@dp_event
class ExponentialMechanismDpEvent(ev.DpEvent):
    r"""One exponential mechanism of parameter ``epsilon`` (epsilon-DP, epsilon-bounded range).

    The candidate r is drawn with probability proportional to :math:`e^{\epsilon u(D, r) /
    (2\Delta)}` (or :math:`e^{\epsilon u(D, r)/\Delta}` for scores that move in one direction), Δ
    the scores' sensitivity under the accountant's neighbouring relation.

    Parameters
    ----------
    epsilon : float
        ε, finite and >= 0 (0 selects uniformly: nothing is released).

    Notes
    -----
    The event stores its field unchecked; the accountant's ``compose`` refuses it (ValueError naming
    the field) when out of range.

    References
    ----------
    ``pld.mechanisms.selection``: above, the pair dominating every ε-bounded-range pair; below, a
    realizable pair. RDP: M. Cesar, R. Rogers, 2021 (``rdp.bounded_range``).
    """

    epsilon: float


@dp_event
class PermuteAndFlipDpEvent(ev.DpEvent):
    """One permute-and-flip selection of parameter ``epsilon`` (epsilon-DP).

    Parameters
    ----------
    epsilon : float
        ε, finite and >= 0 (0 selects uniformly: nothing is released).

    Notes
    -----
    The event stores its field unchecked; the accountant's ``compose`` refuses it (ValueError naming
    the field) when out of range.

    References
    ----------
    R. McKenna, D. Sheldon, "Permute-and-flip: a new mechanism for differentially private
    selection", 2020; ``pld.mechanisms.selection``: the canonical (ε, 0)-DP pair above, a realizable
    pair below.
    """

    epsilon: float
