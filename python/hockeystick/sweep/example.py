"""The README's main job: a few-million-point sweep plus a noise calibration, end to end.

``hockeystick sweep --example`` writes ``example.toml`` (edit it and rerun with
``hockeystick sweep example.toml -o ...``), sweeps it to Parquet (NPZ without pyarrow),
calibrates sigma for a target (epsilon, delta), and draws both.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .grid import Grid, load_toml
from .run import SweepResult, preflight, run_sweep

__all__ = ["ExampleReport", "example_toml", "run_example"]

TARGET_EPSILON = 1.0
TARGET_DELTA = 1e-5

_GAUSSIAN = """\
# Gaussian mechanism composed over rounds (exact): delta(eps) = theta_eps(sqrt(rounds) / sigma)
accountants = ["gaussian"]
output = "delta"

[parameters]
sigma = { log = [0.3, 30, 500] }
rounds = { log = [1, 10000, 40] }
epsilon = { log = [0.01, 20, 200] }
sensitivity = 1.0
"""


@dataclass
class ExampleReport:
    """Everything the example produced."""

    toml_path: Path
    sweep: SweepResult
    calibration: SweepResult
    sweep_plot: str
    calibration_plot: str


def example_toml() -> str:
    """The example sweep file for the best accountant this installation has."""
    return _GAUSSIAN


def _calibration_grid(grid: Grid) -> Grid:
    """sigma needed for (TARGET_EPSILON, TARGET_DELTA) along the sweep's rounds axis."""
    params: dict[str, Any] = {k: v for k, v in grid.fixed.items()}
    for axis in grid.axes:
        if axis.name not in ("sigma", "epsilon", "delta"):
            params[axis.name] = axis
    params["epsilon"] = TARGET_EPSILON
    params["delta"] = TARGET_DELTA
    return Grid.from_parameters(grid.accountants, "sigma", params)


def run_example(out_dir: Path, *, progress: bool | None = None) -> ExampleReport:
    """Write the example file, run the sweep and the calibration, draw them; all under ``out_dir``."""
    from ..plots import plot_grid

    out_dir.mkdir(parents=True, exist_ok=True)
    toml_path = out_dir / "example.toml"
    toml_path.write_text(example_toml())
    grid, settings = load_toml(toml_path)
    try:
        import pyarrow  # noqa: F401
        result_path = out_dir / "sweep.parquet"
    except ImportError:
        result_path = out_dir / "sweep.npz"
    calibration_grid = _calibration_grid(grid)
    preflight(calibration_grid, out_dir / "sigma_needed.csv")   # fail before the long part
    sweep = run_sweep(grid, result_path, progress=progress, **settings)
    calibration = run_sweep(calibration_grid, out_dir / "sigma_needed.csv", progress=False, keep=True)
    sweep_plot = plot_grid(grid, out_dir / "delta_epsilon.png")
    calibration_plot = plot_grid(calibration_grid, out_dir / "sigma_needed.png")
    return ExampleReport(toml_path, sweep, calibration, sweep_plot, calibration_plot)
