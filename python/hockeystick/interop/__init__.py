"""Adapters for users of other accountants, one a library, and the PLD file other accountants read.

* ``interop.dp_accounting``: dp_accounting's ``PrivacyAccountant`` (``HockeystickPLDAccountant``),
  its RDP accountant (``HockeystickRdpAccountant``) and dp_accounting-style events for mechanisms
  dp_accounting has no event for (balls-in-bins and shuffled batches, the discrete Gaussian, any
  (epsilon, delta)-DP mechanism, private selection, secure aggregation's rounds).
* ``interop.opacus``: Opacus's ``IAccountant`` (``HockeystickOpacusAccountant``) and
  ``get_noise_multiplier``.
* ``interop.flower``: Flower's privacy accountant (``HockeystickPrivacyAccountant``), over the
  ledger.
* ``interop.exchange``: privacy-loss distributions other accountants read, no dp_accounting needed
  to write them: ``export_pld`` gives a hockeystick PLD in Google's PLD fields (``ExchangedPLD``:
  each direction's pessimistic PMF, its composition's charges folded in, and the optimistic one),
  ``ExchangedPLD.to_json`` / ``from_json`` store them, ``import_pld`` reads them back,
  ``to_dp_accounting`` / ``from_dp_accounting`` convert to and from dp_accounting's
  ``PrivacyLossDistribution``.

Each adapter imports its library when it is itself imported; ``import hockeystick`` imports none,
and the composition they share (``pld.accountants.plan``) needs none.  The adapters translate and
validate events; they compose and refine nothing themselves.  ``loss_reach`` holds the reach of a
Gaussian's privacy loss both the dp_accounting and the Opacus adapters check.
"""

from ..base.moved import renamed

__all__: list[str] = []  # the adapters and the file are imported from their subpackages

__getattr__ = renamed(
    __name__
)  # the PLD file's names, exported here before interop.exchange, deprecated
