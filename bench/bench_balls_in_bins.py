"""DP-FTRL under balls-in-bins at Gboard's size: the certified sides and a Monte Carlo estimate, CPU seconds.

``python bench/bench_balls_in_bins.py [--draws 20000] [--jax-python PYTHON]`` runs T = 2000
rounds, C the 64-banded Toeplitz strategy whose first column is the square root of the prefix-sum matrix's
(c_j = binom(2j, j) / 4^j, j < 64; non-negative and decreasing), b = 64 bins, noise multiplier 6, and prints
with the CPU model and the load average:

* the certified upper side (``DPFTRL(participation="balls_in_bins")``: the worst bin's Gaussian, no
  amplification claimed) and the certified lower side (``RealizableLowerSide``) of delta at eps = 1 and 2;
* our Monte Carlo estimate (``BallsInBinsMonteCarlo``, ``draws`` per direction, seed 0) with its standard error
  and its bound at beta = 1e-3 ("delta <= x with probability >= 1 - beta over the draws": not certified);
* jax_privacy's Monte Carlo of the same dominating pair (``jax_privacy_balls_in_bins.py``, run by the
  ``--jax-python`` interpreter, which must have jax_privacy installed; skipped when it is absent), its mean and
  standard error, and the same KL bound at beta = 1e-3 computed on its mean.

Each side is timed on fresh objects.  pytest collects the ``test_*`` functions: at the short size (CI's smoke
run) 128 rounds, a 4-banded C and 8 bins, 2000 draws.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from results import cpu_id  # bench/results.py: the benchmark scripts' directory is on the path

from hockeystick.matrix import DPFTRL, BallsInBinsMonteCarlo, Banded, kl_upper_confidence

GBOARD = {"rounds": 2000, "bands": 64, "bins": 64, "noise_multiplier": 6.0}
SHORT = {"rounds": 128, "bands": 4, "bins": 8, "noise_multiplier": 2.0}
EPSILONS = (1.0, 2.0)
BETA = 1e-3
DRIVER = Path(__file__).with_name("jax_privacy_balls_in_bins.py")


def column(bands: int) -> list[float]:
    """c_j = binom(2j, j) / 4^j, j < bands: the first column of the prefix-sum matrix's Toeplitz square root."""
    out = [1.0]
    for j in range(1, bands):
        out.append(out[-1] * (2 * j - 1) / (2 * j))
    return out


def run_of(setting: dict[str, Any]) -> DPFTRL:
    return DPFTRL(
        rounds=setting["rounds"],
        noise_multiplier=setting["noise_multiplier"],
        strategy=Banded(column(setting["bands"])),
        min_separation=setting["bins"],
        participation="balls_in_bins",
    )


def monte_carlo(setting: dict[str, Any], draws: int) -> BallsInBinsMonteCarlo:
    """Our Monte Carlo of the balls-in-bins dominating pair, ``draws`` per direction, seed 0."""
    c, _ = Banded(column(setting["bands"])).matrix(setting["rounds"])
    return BallsInBinsMonteCarlo(
        strategy=c,
        noise_multiplier=setting["noise_multiplier"],
        cycle_length=setting["bins"],
        draws=draws,
        seed=0,
    )


def _timed(fn: Any) -> tuple[Any, float]:
    cpu = time.process_time()
    out = fn()
    return out, time.process_time() - cpu


def ours(setting: dict[str, Any], draws: int) -> dict[str, Any]:
    """Our certified sides and Monte Carlo readings at EPSILONS, each timed on fresh objects."""
    eps = np.array(EPSILONS)
    upper, upper_s = _timed(lambda: run_of(setting).delta(eps))
    lower, lower_s = _timed(lambda: run_of(setting).delta(eps, bound="lower"))
    mc, mc_s = _timed(lambda: monte_carlo(setting, draws))
    readings = [mc.delta(e, beta=BETA) for e in EPSILONS]
    return {
        "upper": upper,
        "lower": lower,
        "readings": readings,
        "seconds": {"upper": upper_s, "lower": lower_s, "monte_carlo": mc_s},
    }


def jax_privacy(setting: dict[str, Any], draws: int, python: str) -> dict[str, Any] | None:
    """jax_privacy's Monte Carlo of the same pair, by ``python`` (None where it cannot import jax_privacy)."""
    if not python or not Path(python).exists():
        return None
    argv = [
        python,
        str(DRIVER),
        str(setting["rounds"]),
        str(setting["bins"]),
        repr(setting["noise_multiplier"]),
        ",".join(map(repr, column(setting["bands"]))),
        ",".join(map(repr, EPSILONS)),
        str(draws),
        "0",
    ]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"jax_privacy not run: {done.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
        return None
    out: dict[str, Any] = json.loads(done.stdout)
    return out


def report(setting: dict[str, Any], draws: int, python: str) -> None:
    print(
        f"T = {setting['rounds']}, {setting['bands']}-banded C, {setting['bins']} bins, z = "
        f"{setting['noise_multiplier']}, {draws} draws per direction, beta = {BETA:g}; {cpu_id()}, "
        f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}"
    )
    mine = ours(setting, draws)
    theirs = jax_privacy(setting, draws, python)
    print(
        "| eps | certified lower | certified upper (unamplified) | ours: MC +- SE [bound at 1-beta] | "
        "jax_privacy: MC +- SE [KL bound at 1-beta] |"
    )
    for i, eps in enumerate(EPSILONS):
        r = mine["readings"][i]
        row = (
            f"| {eps:g} | {mine['lower'][i]:.5g} | {mine['upper'][i]:.5g} | {r.estimate:.5g} +- "
            f"{r.standard_error:.2g} [{r.confidence_bound:.5g}] |"
        )
        if theirs is not None:
            sides = [theirs[s][i] for s in ("remove", "add")]
            best = max(sides, key=lambda s: s["mean"])
            bound = max(kl_upper_confidence(min(s["mean"], 1.0), draws, BETA / 2) for s in sides)
            row += f" {best['mean']:.5g} +- {best['standard_error']:.2g} [{bound:.5g}] |"
        print(row)
    seconds = mine["seconds"]
    line = (
        f"CPU s: upper {seconds['upper']:.3f}, lower {seconds['lower']:.3f}, our Monte Carlo "
        f"{seconds['monte_carlo']:.2f}"
    )
    if theirs is not None:
        line += f", jax_privacy's Monte Carlo {theirs['cpu_seconds']:.2f}"
    print(line + f"; load {os.getloadavg()[0]:.2f}")


def test_certified_sides(benchmark, size):
    setting = GBOARD if size(1, 0) else SHORT
    eps = np.array(EPSILONS)
    lower, upper = benchmark(lambda: run_of(setting).delta(eps, bound="both"))
    assert (0 < lower).all() and (lower <= upper).all()


def test_monte_carlo(benchmark, size):
    setting = GBOARD if size(1, 0) else SHORT
    draws = size(20_000, 2_000)
    mc = benchmark(lambda: monte_carlo(setting, draws))
    reading = mc.delta(1.0, beta=BETA)
    assert reading.estimate <= reading.confidence_bound <= 1.0
    assert (
        reading.certified_lower - 5 * reading.standard_error
        <= reading.estimate
        <= reading.unamplified_upper
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=20_000)
    parser.add_argument(
        "--jax-python",
        default=os.environ.get("JAX_PRIVACY_PYTHON", ""),
        help="an interpreter with jax_privacy installed (default $JAX_PRIVACY_PYTHON; none: our side alone)",
    )
    parser.add_argument("--short", action="store_true", help="the CI smoke size")
    args = parser.parse_args()
    report(SHORT if args.short else GBOARD, args.draws, args.jax_python)


if __name__ == "__main__":
    main()
