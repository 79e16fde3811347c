"""The attrs decorator of the events this package defines, as dp_accounting declares its own.

Each event module here (``allocation_events``, ``catalogue_events``, ``selection_events``,
``secagg_events``, ``secagg_pair_events``) declares its events as dp_accounting declares its own: a
frozen, slotted attrs class deriving from ``dp_event.DpEvent``, its fields stored unchecked (the
accountants check them when composing).  Without dp_accounting installed the import names the extra
that installs it and attrs with it (``base.optional.require_extra``).
"""

from __future__ import annotations

try:
    import attr
except ModuleNotFoundError:  # attr comes with dp_accounting: name the extra that installs both
    from ...base.optional import require_extra

    require_extra("hockeystick.interop.dp_accounting (dp_accounting's events)", "dp_accounting")
    raise

__all__: list[str] = []  # its name serves the event modules of this package

# the decorator of every event defined here: frozen, slotted, fields from the annotations
dp_event = attr.s(frozen=True, slots=True, auto_attribs=True)
