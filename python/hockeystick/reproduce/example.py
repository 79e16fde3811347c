"""The README's main job: a few-million-point sweep plus a noise calibration, end to end.

``hockeystick sweep --example`` writes ``example.toml`` (edit it and rerun with
``hockeystick sweep example.toml -o ...``), sweeps it to Parquet (NPZ without pyarrow),
calibrates sigma for a target (epsilon, delta), and draws both.  It drives the sweep and the
plots, so it sits above both (docs/architecture.md).
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..plots import plot_grid
from ..sweep.grid import Grid, load_toml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib
from ..sweep.run import SweepResult, preflight, run_sweep

__all__ = ["ExampleReport", "example_toml", "run_example"]

TARGET_EPSILON = 1.0
TARGET_DELTA = 1e-5

# the pictures' heading: what the example accounts, in the reader's words (the registry's name is
# code)
HEADING = "Federated learning, trusted aggregator, last model released (paper 000, Theorem 2)"

_TRUSTED_AGGREGATOR = """\
# Federated learning with a trusted aggregator that releases only the last model
# (paper 000, Algorithm 1, Theorem 2): n users, batches of batch_size drawn without
# replacement for n / batch_size rounds, per-user Gaussian noise sigma, step
# learning_rate, L-Lipschitz convex loss, projection on a ball of the given radius.
#   delta(eps) = (m/n) theta_eps(2L/(sqrt(m) sigma)) (1 - b^T) / (1 - b),
#   b = theta_eps(2 radius sqrt(m) / (learning_rate sigma))
accountants = ["trusted_aggregator"]
output = "delta"

[parameters]
sigma = { log = [0.05, 5, 250] }
batch_size = [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000]
epsilon = { log = [0.01, 10, 1000] }
n = 60000
learning_rate = 0.5
lipschitz = 1.0
radius = 1.0
"""


@dataclass
class ExampleReport:
    """Everything the example produced."""

    toml_path: Path
    sweep: SweepResult
    calibration: SweepResult
    sweep_plot: str | None  # None without matplotlib
    calibration_plot: str | None


def example_toml() -> str:
    """The example sweep file: 2.5 million points of the trusted-aggregator bound."""
    return _TRUSTED_AGGREGATOR


def _calibration_grid(grid: Grid) -> Grid:
    """sigma needed for (TARGET_EPSILON, TARGET_DELTA) along the sweep's other axes (batch size)."""
    params: dict[str, Any] = {k: v for k, v in grid.fixed.items()}
    for axis in grid.axes:
        if axis.name not in ("sigma", "epsilon", "delta"):
            params[axis.name] = axis
    params["epsilon"] = TARGET_EPSILON
    params["delta"] = TARGET_DELTA
    return Grid.from_parameters(grid.accountants, "sigma", params)


def run_example(
    out_dir: Path, *, progress: bool | None = None, overwrite: bool = False
) -> ExampleReport:
    """Write the example file, run the sweep and the calibration, draw them; all under ``out_dir``.

    Files the example already wrote there (an edited ``example.toml`` too) are replaced only
    with ``overwrite=True``; nothing is written before every check has passed."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(
            f"cannot write the example into {str(out_dir)!r} ({exc.strerror}); "
            "give out_dir a directory you can write to"
        ) from None
    toml_path = out_dir / "example.toml"
    try:
        import pyarrow  # noqa: F401  # lazy: whether the optional extra is installed picks the format

        result_path = out_dir / "sweep.parquet"
    except ImportError:
        result_path = out_dir / "sweep.npz"
    calibration_path = out_dir / "sigma_needed.csv"
    pictures = (out_dir / "delta_epsilon.png", out_dir / "sigma_needed.png")
    existing = [p.name for p in (toml_path, result_path, calibration_path, *pictures) if p.exists()]
    if existing and not overwrite:
        raise ValueError(
            f"{str(out_dir)!r} already holds the example's {', '.join(existing)}; pass "
            "overwrite=True to replace them, or give another out_dir"
        )
    grid = Grid.from_dict(tomllib.loads(example_toml()))
    calibration_grid = _calibration_grid(grid)
    preflight(calibration_grid, calibration_path, overwrite=overwrite)  # fail before the long part
    try:
        toml_path.write_text(example_toml())
    except OSError as exc:
        raise ValueError(
            f"cannot write the example into {str(out_dir)!r} ({exc.strerror}); "
            "give out_dir a directory you can write to"
        ) from None
    grid, settings = load_toml(toml_path)
    sweep = run_sweep(grid, result_path, progress=progress, overwrite=overwrite, **settings)
    calibration = run_sweep(
        calibration_grid, calibration_path, progress=False, keep=True, overwrite=overwrite
    )
    if importlib.util.find_spec("matplotlib") is None:
        return ExampleReport(toml_path, sweep, calibration, None, None)
    # the delta-eps curves with a line at the target delta: where a curve crosses it is the epsilon
    # that sigma gives
    sweep_plot = plot_grid(grid, pictures[0], levels=[TARGET_DELTA], title=HEADING)
    calibration_plot = plot_grid(
        calibration_grid,
        pictures[1],
        title=f"sigma needed for (epsilon, delta) = ({TARGET_EPSILON:g}, {TARGET_DELTA:g})\n{HEADING}",
    )
    return ExampleReport(toml_path, sweep, calibration, sweep_plot, calibration_plot)
