"""The runs the first-answer and rival comparisons time, and each library's code for them.

``README_RUN`` is the README's DP-SGD example (``DPSGD(noise_multiplier=1.1, sample_rate=256 / 60_000,
steps=14_100).epsilon(1e-5)``); ``FEDAVG_RUN`` is DP-FedAvg at noise multiplier 1, client rate 1e-3, 5000 rounds.
Both are Poisson-subsampled Gaussians composed over their steps, add-or-remove-one neighbours.

Each library answers a run through its documented door:

- hockeystick: ``DPSGD`` / ``DPFedAvg`` (``hockeystick.training``), the certified upper side (``bound="both"``
  for the bracket the others are checked against);
- opake-accounting (Rust, PyO3): its compiled module ``opake.api.accounting.core.opake_accounting``, called as
  its documentation's factory ``poisson(gaussian(z), sample_rate=q) * steps`` calls it:
  ``poisson_pld(gaussian_pld(z, DiscretizationConfig()), q).self_compose(steps).epsilon_at(delta)`` (the
  default grid, 1e-4).  The module is loaded from its file: the package's ``__init__`` imports the Python front
  end, which fails to import on Python 3.11 (a frozen slotted dataclass with ``weakref_slot=True``);
- dp_accounting: ``PLDAccountant()`` (its default grid, 1e-4) composing
  ``PoissonSampledDpEvent(q, GaussianDpEvent(z))`` ``steps`` times, ``get_epsilon(delta)``.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = [
    "FEDAVG_RUN",
    "README_RUN",
    "Run",
    "fresh_process_env",
    "hockeystick_code",
    "load_opake",
    "opake_code",
    "opake_module_path",
    "dp_accounting_code",
    "python",
]


@dataclass(frozen=True)
class Run:
    """A Poisson-subsampled Gaussian run: noise multiplier, sampling rate, steps."""

    name: str
    noise_multiplier: float
    sample_rate: float
    steps: int


README_RUN = Run("README DP-SGD run (z 1.1, q 256/60000, 14 100 steps)", 1.1, 256 / 60_000, 14_100)
FEDAVG_RUN = Run("DP-FedAvg (z 1, q 1e-3, 5000 rounds)", 1.0, 1e-3, 5_000)


def opake_module_path() -> Path | None:
    """The file of opake-accounting's compiled module, or None where the wheel is not installed."""
    spec = importlib.util.find_spec("opake")
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        found = sorted((Path(root) / "api" / "accounting" / "core").glob("opake_accounting*.*"))
        found = [p for p in found if p.suffix in (".so", ".pyd")]
        if found:
            return found[0]
    return None


def load_opake() -> ModuleType | None:
    """opake-accounting's compiled module loaded from its file (see the module docstring), or None."""
    path = opake_module_path()
    if path is None:
        return None
    name = "opake.api.accounting.core.opake_accounting"
    loader = importlib.machinery.ExtensionFileLoader(name, str(path))
    spec = importlib.util.spec_from_loader(name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def hockeystick_code(run: Run, delta: float) -> str:
    """A program that prints hockeystick's certified upper epsilon of ``run`` at ``delta``, as the README asks it."""
    return (
        "from hockeystick.training import DPSGD\n"
        f"print(DPSGD(noise_multiplier={run.noise_multiplier!r}, sample_rate={run.sample_rate!r}, "
        f"steps={run.steps!r}).epsilon({delta!r}))"
    )


def opake_code(run: Run, delta: float, path: Path) -> str:
    """The same through opake-accounting's compiled module at ``path`` (``opake_module_path``)."""
    return (
        "import importlib.machinery, importlib.util\n"
        "name = 'opake.api.accounting.core.opake_accounting'\n"
        f"loader = importlib.machinery.ExtensionFileLoader(name, {str(path)!r})\n"
        "dp = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))\n"
        "loader.exec_module(dp)\n"
        f"base = dp.gaussian_pld({run.noise_multiplier!r}, dp.DiscretizationConfig())\n"
        f"print(dp.poisson_pld(base, {run.sample_rate!r}).self_compose({run.steps!r}).epsilon_at({delta!r}))"
    )


def dp_accounting_code(run: Run, delta: float) -> str:
    """The same through dp_accounting's PLD accountant."""
    return (
        "import dp_accounting\n"
        f"event = dp_accounting.PoissonSampledDpEvent({run.sample_rate!r}, "
        f"dp_accounting.GaussianDpEvent({run.noise_multiplier!r}))\n"
        "accountant = dp_accounting.pld.PLDAccountant()\n"
        f"accountant.compose(event, {run.steps!r})\n"
        f"print(accountant.get_epsilon({delta!r}))"
    )


_BYTECODE = str(Path(tempfile.gettempdir()) / "hockeystick-bench-bytecode")


def fresh_process_env() -> dict[str, Any]:
    """The environment of a timed fresh process: bytecode written to and read from a private cache
    (``PYTHONPYCACHEPREFIX``), as an installed wheel's is compiled once, and never recompiled per process
    (an editable checkout under ``PYTHONDONTWRITEBYTECODE`` would compile every module in every process);
    one OpenMP thread, as the ratio benchmarks run."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = _BYTECODE
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def python() -> str:
    """This interpreter's executable (``sys.executable``: the interpreter itself, or its venv's link to it, never a
    version manager's shell shim, whose start would be timed too)."""
    return sys.executable
