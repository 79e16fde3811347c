"""Adapters for users of other accountants: ``interop.dp_accounting`` (dp_accounting's
``PrivacyAccountant`` and RDP accountant) and ``interop.opacus`` (Opacus's ``IAccountant``).

Each adapter imports its library when it is itself imported; ``import hockeystick`` imports
neither, and the composition they share (``pld.accountants.plan``) needs neither.  The
adapters translate and validate events; they compose and refine nothing themselves.

dp_accounting-style events for mechanisms dp_accounting has no event for: ``interop.allocation_events``
(balls-in-bins and shuffled batches of an epoch), ``interop.catalogue_events`` (the discrete Gaussian,
any (epsilon, delta)-DP mechanism), ``interop.selection_events`` (the exponential mechanism,
permute-and-flip), ``interop.secagg_events`` (a round of the distributed discrete Gaussian or Skellam
mechanism under secure aggregation) and ``interop.secagg_pair_events`` (a round of the Poisson-binomial mechanism
or the distributed discrete Laplace).

Privacy-loss distributions other accountants read (``interop.pld_exchange``, no dp_accounting needed to write
them): ``export_pld`` gives a hockeystick PLD in Google's PLD fields (``ExchangedPLD``: each direction's
pessimistic PMF, its composition's charges folded in, and the optimistic one), ``ExchangedPLD.to_json`` /
``from_json`` store them, ``import_pld`` reads them back, ``to_dp_accounting`` / ``from_dp_accounting`` convert
to and from dp_accounting's ``PrivacyLossDistribution``.
"""

from .pld_exchange import export_pld, from_dp_accounting, import_pld, to_dp_accounting
from .pld_format import ExchangedPLD, ExchangedPMF

__all__ = [
    "ExchangedPLD",
    "ExchangedPMF",
    "export_pld",
    "from_dp_accounting",
    "import_pld",
    "to_dp_accounting",
]
