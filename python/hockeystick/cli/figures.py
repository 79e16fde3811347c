"""``hockeystick figures``: the papers' figures recomputed as PNG files, and paper 003's tables as Markdown."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ..base import progress
from ..base.optional import install_command, require_extra
from .common import UsageError, progress_options

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    raw = argparse.RawDescriptionHelpFormatter
    fig = subparsers.add_parser(
        "figures",
        help="reproduce the papers' figures as PNG files (and paper 003's tables)",
        description="Recompute and draw the papers' figures (000 Fig. 2: the trusted aggregator; "
        "002 Figs. 2 and 3: PNSGD, Theorem 4 against Proposition 1; paper 003's sigma and utility) as PNG "
        "files in --out-dir, and paper 003's calibration tables as Markdown, each file listed as it is "
        f"written.  Needs matplotlib ({install_command('plot')}).",
        epilog="example:\n  hockeystick figures --out-dir figures/",
        formatter_class=raw,
    )
    fig.add_argument(
        "--out-dir",
        default="figures",
        metavar="DIR",
        help="directory for the PNGs (default ./figures)",
    )
    fig.add_argument(
        "--force",
        action="store_true",
        help="write into a --out-dir that is not empty, replacing figures of the same names (refused otherwise)",
    )
    progress_options(fig, "a bar per table of paper 003 as its rows are computed", "them")
    fig.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        from ..reproduce.figures import write_figures  # lazy: start-up time; matplotlib
    except ImportError:
        raise UsageError(
            "this build has no paper figures (hockeystick.reproduce.figures is missing); "
            "install a release that includes the contraction accountant"
        ) from None
    require_extra("hockeystick figures", "matplotlib")
    out_dir = Path(args.out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(
            f"--out-dir {str(out_dir)!r} is a file, not a directory; give a directory (it is created if missing)"
        )
    if out_dir.is_dir() and any(out_dir.iterdir()) and not args.force:
        raise UsageError(
            f"--out-dir {str(out_dir)!r} is not empty; pass --force to write the figures into it "
            "(files of the same names are replaced), or choose another directory"
        )
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(
            f"--out-dir {str(out_dir)!r} cannot be created ({exc.strerror}); give a directory you can write to"
        ) from None
    if not os.access(out_dir, os.W_OK):
        raise UsageError(f"--out-dir {str(out_dir)!r} is not writable")
    with progress.showing(sys.stderr.isatty() if args.progress is None else args.progress):
        write_figures(out_dir, written=_print_written)
    return 0


def _print_written(path: Path) -> None:
    """One line per file, printed as soon as it is written: a PNG is a figure, a Markdown file tables."""
    kind = "tables" if path.suffix == ".md" else "figure"
    print(f"{kind} written to {os.path.abspath(path)}", flush=True)
