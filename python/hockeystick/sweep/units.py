"""Sizes and durations as a sweep's plan and log lines write them (three significant digits, one unit)."""

from __future__ import annotations

__all__ = ["size_text", "duration_text"]


def size_text(n: float) -> str:
    """``n`` bytes in the largest decimal unit it reaches: '1.5 GB', '812 B'."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{int(n)} B"


def duration_text(seconds: float) -> str:
    """``seconds`` in the largest unit it reaches: '2.5 h', '45 s'."""
    for unit, scale in (("years", 365.25 * 86400), ("days", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds:.2g} s"
