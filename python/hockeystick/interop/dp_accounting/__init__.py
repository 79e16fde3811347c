"""dp_accounting's words, computed by hockeystick: its ``PrivacyAccountant`` and its events.

``HockeystickPLDAccountant`` (``pld_accountant``) takes the place of dp_accounting's
``PLDAccountant`` and ``HockeystickRdpAccountant`` (``rdp_accountant``) that of its
``RdpAccountant``: the same events, a certified bracket.  ``NeighboringRelation`` is dp_accounting's
own enum, re-exported unchanged.

The events dp_accounting has no event for, each in its module: ``allocation_events`` (balls-in-bins
and shuffled batches of an epoch), ``catalogue_events`` (the discrete Gaussian, any (epsilon,
delta)-DP mechanism), ``selection_events`` (the exponential mechanism, permute-and-flip),
``secagg_events`` (a round of the distributed discrete Gaussian or Skellam mechanism under secure
aggregation) and ``secagg_pair_events`` (a round of the Poisson-binomial mechanism or the
distributed discrete Laplace).  ``dp_events`` holds the table of every event the PLD accountant
takes and the reason each analysis is valid; ``event_checks``, ``event_reach`` and ``sampled_plans``
check an event tree and turn it into a composition plan.

Importing this package imports dp_accounting (``pip install ".[interop]"``); ``import hockeystick``
does not.

Examples
--------
>>> from dp_accounting import GaussianDpEvent
>>> from hockeystick.interop.dp_accounting import HockeystickPLDAccountant
>>> accountant = HockeystickPLDAccountant().compose(GaussianDpEvent(noise_multiplier=1.0), count=10)
>>> round(accountant.get_epsilon(1e-5), 6)
17.856587
"""

from __future__ import annotations

from ...base.moved import renamed
from .pld_accountant import HockeystickPLDAccountant, NeighboringRelation
from .rdp_accountant import HockeystickRdpAccountant

__all__ = ["HockeystickPLDAccountant", "HockeystickRdpAccountant", "NeighboringRelation"]

__getattr__ = renamed(__name__)  # old names, deprecated (base.moved.RENAMED)
