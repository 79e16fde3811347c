"""Adapters for users of other accountants: ``interop.dp_accounting`` (dp_accounting's
``PrivacyAccountant`` and RDP accountant) and ``interop.opacus`` (Opacus's ``IAccountant``).

Each adapter imports its library when it is itself imported; ``import hockeystick`` imports
neither, and ``interop.plan`` (the composition they share) needs neither.
"""
