"""Adapters for users of other accountants: ``interop.dp_accounting`` (dp_accounting's
``PrivacyAccountant`` and RDP accountant) and ``interop.opacus`` (Opacus's ``IAccountant``).

Each adapter imports its library when it is itself imported; ``import hockeystick`` imports
neither, and the composition they share (``pld.accountants.plan``) needs neither.  The
adapters translate and validate events; they compose and refine nothing themselves.

dp_accounting-style events for mechanisms dp_accounting has no event for: ``interop.allocation_events``
(balls-in-bins and shuffled batches of an epoch), ``interop.catalogue_events`` (the discrete Gaussian,
any (epsilon, delta)-DP mechanism) and ``interop.selection_events`` (the exponential mechanism,
permute-and-flip).
"""
