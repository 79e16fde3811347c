"""Bit-for-bit pins of the optimistic (lower) PMFs, so refactoring ``optimistic_pmf``
(cpp/include/hockeystick/pld/grid/connect_dots.hpp) cannot change a single bit of its output.

The pinned digests (SHA-256 of the float64 masses, plus k_lo, the mass at infinity and the
connect-the-dots flag) are computed by this module's ``main`` (``python tests/pld/grid/test_pld_optimistic_pins.py``).
A change meant to move the optimistic masses (a new round-off allowance, another quadrature) recomputes
them, and its commit message says which cases moved and by how much; a refactoring must leave every
digest as it is.  The cases reach every phase: pins below the top, tangent-following at the bottom,
pooling in the convex minorant, top atoms kept in place (atoms and Laplace), wide grids (log-width
arithmetic) and the replace-one lower cells.
libm may round exp/log differently on another platform, and a CPU without AVX2 + FMA takes libm's
values instead of the kernels', so the pins are checked only on the platform they were computed on.
"""

from __future__ import annotations

import hashlib
import json
import platform
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hockeystick import _core

PINS = Path(__file__).parents[2] / "data" / "optimistic_pmf_pins.json"
TAIL = 1e-10
MAX_CELLS = 1 << 26


def _cases() -> dict[str, Callable[[], dict[str, Any]]]:
    cases: dict[str, Callable[[], dict[str, Any]]] = {}
    for sigma in (0.2, 0.6, 1.0, 3.0):
        for q in (1e-3, 0.05, 0.5, 1.0):
            for remove in (True, False):
                for h in (1e-1, 1e-2):
                    cases[f"subsampled_gaussian({sigma}, {q}, remove={remove}, h={h})"] = partial(
                        _core.pld_mechanisms.subsampled_gaussian,
                        sigma,
                        q,
                        remove=remove,
                        h=h,
                        tail=TAIL,
                        max_cells=MAX_CELLS,
                    )
    for distance, scale, h in (
        (1.0, 1.0, 0.1),
        (1.0, 0.3, 0.01),
        (2.0, 5.0, 0.05),
        (1.0, 1.0, 0.25),
    ):
        cases[f"laplace({distance}, {scale}, h={h})"] = partial(
            _core.pld_mechanisms.laplace, distance, scale, h=h, max_cells=MAX_CELLS
        )
    atoms = {
        "on_grid": (np.array([-0.5, 0.0, 0.3, 0.5]), np.array([0.1, 0.2, 0.3, 0.4]), 0.1),
        "off_grid": (np.array([-1.23, 0.017, 0.77]), np.array([0.25, 0.5, 0.25]), 0.05),
        "wide": (
            np.array([-800.0, -2.0, 3.0, 900.0]),
            np.array([1e-300, 0.4, 0.6 - 1e-12, 1e-12]),
            0.5,
        ),
    }
    for name, (loss, mass, h) in atoms.items():
        cases[f"atoms_{name}"] = partial(
            _core.pld_mechanisms.atoms, loss, mass, h=h, max_cells=MAX_CELLS
        )
    for sigma, m, n, h in ((1.0, 10, 100, 0.05), (0.8, 1, 1000, 0.02), (2.0, 50, 60, 0.1)):
        cases[f"with_replacement({sigma}, {m}, {n}, h={h})"] = partial(
            _core.pld_sampling.with_replacement_subsampled_gaussian,
            sigma,
            batch_size=m,
            dataset_size=n,
            h=h,
            tail=TAIL,
            max_cells=MAX_CELLS,
        )
    for sigma, q, h in ((1.0, 0.01, 0.05), (0.5, 0.3, 0.02)):
        cases[f"without_replacement({sigma}, {q}, h={h})"] = partial(
            _core.pld_sampling.without_replacement_subsampled_gaussian,
            sigma,
            q,
            h=h,
            tail=TAIL,
            max_cells=MAX_CELLS,
        )
    return cases


def _digest(raw: dict[str, Any]) -> dict[str, Any]:
    lower = np.ascontiguousarray(raw.lower, dtype=np.float64)
    return {
        "k_lo": int(raw.lower_k_lo),
        "size": int(lower.size),
        "sha256": hashlib.sha256(lower.tobytes()).hexdigest(),
        "inf": float(raw.lower_inf).hex(),
        "connect_dots": bool(raw.connect_dots),
    }


def _platform() -> str:
    kernels = "scalar" if _core.hockey_stick._exp_avx2(np.zeros(1)) is None else "avx2"
    return f"{platform.machine()} {' '.join(platform.libc_ver())} {kernels}"


def _pins() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(PINS.read_text())
    if data["platform"] != _platform():
        pytest.skip(f"pins computed on {data['platform']}, this is {_platform()}")
    return data


@pytest.mark.parametrize("name", sorted(_cases()))
def test_optimistic_pmf_matches_pin_bit_for_bit(name: str) -> None:
    pins = _pins()["cases"]
    assert name in pins, f"no pin for {name}"
    assert _digest(_cases()[name]()) == pins[name]


def test_every_pin_has_a_case() -> None:
    assert set(_pins()["cases"]) == set(_cases())


def main() -> None:
    """Write the pins (run only on a commit whose optimistic_pmf is the reference)."""
    cases = {name: _digest(make()) for name, make in sorted(_cases().items())}
    PINS.write_text(
        json.dumps({"platform": _platform(), "cases": cases}, indent=1, sort_keys=True) + "\n"
    )
    print(f"wrote {len(cases)} pins to {PINS}", file=sys.stderr)


if __name__ == "__main__":
    main()
