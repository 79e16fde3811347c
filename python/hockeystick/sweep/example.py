"""Moved to ``hockeystick.example``: the example drives both the sweep and the plots, so it sits above both.

This forwarding name exists only until ``cli.py`` imports ``hockeystick.example`` (one line; cli.py
belongs to another branch); it is the one import in ``sweep`` that points up, and
tests/test_layers.py names it as such.  Remove it with that line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def run_example(out_dir: Path, *, progress: bool | None = None) -> Any:
    """``hockeystick.example.run_example`` (see there)."""
    from ..example import run_example as run

    return run(out_dir, progress=progress)
