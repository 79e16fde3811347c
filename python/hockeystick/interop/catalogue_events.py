"""dp_accounting-style events for mechanisms dp_accounting 0.6.0 has no event for (its later releases name them so).

    from hockeystick.interop.dp_accounting import HockeystickAccountant
    from hockeystick.interop.catalogue_events import DiscreteGaussianDpEvent, EpsilonDeltaDpEvent

    accountant = HockeystickAccountant()
    accountant.compose(DiscreteGaussianDpEvent(sigma=3.0, sensitivity=1), count=10)
    accountant.compose(EpsilonDeltaDpEvent(epsilon=0.5, delta=1e-7))
    accountant.get_epsilon(1e-5)

``DiscreteGaussianDpEvent``: the discrete Gaussian N_Z(0, sigma^2) added to an integer query whose value one
record moves by at most ``sensitivity`` (Canonne, Kamath, Steinke 2020; ``pld.mechanisms.discrete_gaussian``: exact
finite atoms, both sides certified).  ``EpsilonDeltaDpEvent``: any mechanism known only to be
(``epsilon``, ``delta``)-DP (its worst case, the canonical pair of ``pld.mechanisms.canonical``: exact).
"""

from __future__ import annotations

try:
    import attr
    from dp_accounting import dp_event as ev
except ModuleNotFoundError:  # attr comes with dp_accounting: name the extra that installs both
    from ..base.optional import require_extra

    require_extra("hockeystick.interop.catalogue_events (dp_accounting's events)", "dp_accounting")
    raise

__all__ = ["DiscreteGaussianDpEvent", "EpsilonDeltaDpEvent"]


@attr.s(frozen=True, slots=True, auto_attribs=True)
class DiscreteGaussianDpEvent(ev.DpEvent):
    """The discrete Gaussian mechanism: N_Z(0, sigma^2) (mass proportional to exp(-x^2 / (2 sigma^2)) on each
    integer x) added to an integer-valued query of sensitivity ``sensitivity`` (an integer >= 1)."""

    sigma: float
    sensitivity: int = 1


@attr.s(frozen=True, slots=True, auto_attribs=True)
class EpsilonDeltaDpEvent(ev.DpEvent):
    """A mechanism satisfying (``epsilon``, ``delta``)-DP for the accountant's neighbouring relation."""

    epsilon: float
    delta: float
