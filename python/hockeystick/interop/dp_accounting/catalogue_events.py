"""dp_accounting-style events for mechanisms dp_accounting 0.6.0 has no event for (its later releases name them so).

``DiscreteGaussianDpEvent``: the discrete Gaussian N_Z(0, sigma^2) added to an integer query whose
value one record moves by at most ``sensitivity`` (Canonne, Kamath, Steinke 2020;
``pld.mechanisms.discrete_gaussian``: exact finite atoms, both sides certified).
``EpsilonDeltaDpEvent``: any mechanism known only to be (``epsilon``, ``delta``)-DP (its worst case,
the canonical pair of ``pld.mechanisms.canonical``: exact). Both are taken by
``interop.dp_accounting.HockeystickPLDAccountant`` under every neighbouring relation; the RDP
accountant takes the discrete Gaussian, and (epsilon, 0)-DP only.

Examples
--------
>>> from hockeystick.interop.dp_accounting import HockeystickPLDAccountant
>>> from hockeystick.interop.dp_accounting.catalogue_events import DiscreteGaussianDpEvent, EpsilonDeltaDpEvent
>>> accountant = HockeystickPLDAccountant()
>>> accountant = accountant.compose(DiscreteGaussianDpEvent(sigma=3.0, sensitivity=1), count=10)
>>> accountant = accountant.compose(EpsilonDeltaDpEvent(epsilon=0.5, delta=1e-7))
>>> lower, upper = accountant.get_epsilon_bracket(1e-5)
>>> lower <= upper
True
"""

from __future__ import annotations

from dp_accounting import dp_event as ev  # installed: the wing's import checked it

from .event_base import dp_event

__all__ = ["DiscreteGaussianDpEvent", "EpsilonDeltaDpEvent"]


@dp_event
class DiscreteGaussianDpEvent(ev.DpEvent):
    r"""The discrete Gaussian mechanism: discrete Gaussian noise added to an integer-valued query.

    The noise :math:`N_{\mathbb{Z}}(0, \sigma^2)` has mass proportional to
    :math:`e^{-x^2/(2\sigma^2)}` on each integer x; one record moves the query by at most
    ``sensitivity`` (twice that under REPLACE_ONE).

    Parameters
    ----------
    sigma : float
        σ, the noise scale, finite and >= 0 (0: non-private, epsilon inf).
    sensitivity : int, default 1
        The query's add/remove sensitivity, an integer >= 1.

    Notes
    -----
    The event stores its fields unchecked; the accountant's ``compose`` refuses them (ValueError
    naming the field) when out of range, or when the exact pair would need too many outcomes.

    References
    ----------
    C. Canonne, G. Kamath, T. Steinke, "The discrete Gaussian for differential privacy", 2020;
    ``pld.mechanisms.discrete_gaussian`` (exact finite atoms, both sides certified).
    """

    sigma: float
    sensitivity: int = 1


@dp_event
class EpsilonDeltaDpEvent(ev.DpEvent):
    """A mechanism satisfying (``epsilon``, ``delta``)-DP for the accountant's neighbouring relation.

    It is composed as its worst case, the canonical pair of (epsilon, delta)-DP (exact). The RDP
    accountant takes it only with delta = 0 (no Renyi bound follows from delta > 0).

    Parameters
    ----------
    epsilon : float
        ε, finite and >= 0.
    delta : float
        δ, in [0, 1] (1: no guarantee, epsilon inf).

    Notes
    -----
    The event stores its fields unchecked; the accountant's ``compose`` refuses them (ValueError
    naming the field) when out of range.

    References
    ----------
    ``pld.mechanisms.canonical`` states the pair.
    """

    epsilon: float
    delta: float
