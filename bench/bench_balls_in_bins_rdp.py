"""DP-FTRL under balls-in-bins at Gboard's size: the amplified upper side by Renyi DP beside the other sides, CPU s.

``python bench/bench_balls_in_bins_rdp.py [--draws 20000] [--short]`` runs T = 2000 rounds, the 64-banded Toeplitz C
whose first column is the square root of the prefix-sum matrix's (c_j = binom(2j, j) / 4^j), b = 64 bins (one bin
per record for the whole run), noise multiplier 6, and prints with the CPU model and the load average:

* delta at eps = 1: the certified lower side (``RealizableLowerSide``), the Monte Carlo estimate of the dominating
  pair (``BallsInBinsMonteCarlo``, ``draws`` per direction, seed 0; not certified), the unamplified upper side and
  the amplified one (``BallsInBinsRDP``);
* eps at delta = 1e-10: the same sides but the Monte Carlo (it would need about 1e10 draws);
* the CPU seconds of ``BallsInBinsRDP`` built and read at delta = 1e-10 on fresh objects, and each direction's eps.

pytest collects the ``test_*`` function: at the short size (CI's smoke run) 128 rounds, a 4-banded C and 8 bins.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from bench_balls_in_bins import GBOARD, SHORT, column, monte_carlo, run_of
from results import cpu_id  # bench/results.py: the benchmark scripts' directory is on the path

from hockeystick.matrix import BallsInBinsRDP, Banded

DELTA = 1e-10
EPSILON = 1.0


def amplified(setting: dict[str, Any]) -> BallsInBinsRDP:
    """The Renyi bound of Lemma 3.2's pair for the run (one bin per record for the whole run)."""
    return BallsInBinsRDP(
        strategy=Banded(column(setting["bands"])),
        rounds=setting["rounds"],
        noise_multiplier=setting["noise_multiplier"],
        bins=setting["bins"],
    )


def report(setting: dict[str, Any], draws: int) -> None:
    print(
        f"T = {setting['rounds']}, {setting['bands']}-banded C, {setting['bins']} bins, z = "
        f"{setting['noise_multiplier']}; {cpu_id()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}"
    )
    cpu = time.process_time()
    renyi = amplified(setting)
    eps_amplified = renyi.epsilon(DELTA)
    seconds = time.process_time() - cpu
    run = run_of(setting)
    sides = run.sampled
    assert sides is not None
    unamplified = {kind: value for kind, _, value in sides.upper_sides("epsilon", DELTA)}[
        "unamplified"
    ]
    reading = monte_carlo(setting, draws).delta(EPSILON, beta=1e-3)
    print("| | delta at eps = 1 | eps at delta = 1e-10 |")
    print("|---|---|---|")
    print(
        f"| certified lower | {float(run.delta(EPSILON, bound='lower')):.5g} | "
        f"{float(run.epsilon(DELTA, bound='lower')):.4g} |"
    )
    print(
        f"| Monte Carlo, not certified | {reading.estimate:.5g} +- {reading.standard_error:.2g} | - |"
    )
    delta_sides = {kind: value for kind, _, value in sides.upper_sides("delta", EPSILON)}
    print(
        f"| certified upper, unamplified | {float(delta_sides['unamplified']):.5g} | {float(unamplified):.4g} |"
    )
    print(
        f"| certified upper, amplified (Renyi) | {float(delta_sides['amplified']):.5g} | {eps_amplified:.4g} |"
    )
    each = renyi.directions(DELTA)
    print(
        f"BallsInBinsRDP built and read at delta = {DELTA:g}: {seconds:.2f} CPU s (remove {each['remove']:.4g}, add "
        f"{each['add']:.4g}; {renyi.remove_method}); load {os.getloadavg()[0]:.2f}"
    )


def test_amplified_upper_side(benchmark, size):
    setting = GBOARD if size(1, 0) else SHORT
    eps = benchmark(lambda: amplified(setting).epsilon(DELTA))
    run = run_of(setting)
    assert run.sampled is not None
    assert eps >= float(run.epsilon(DELTA, bound="lower"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=20_000)
    parser.add_argument("--short", action="store_true", help="the CI smoke size")
    args = parser.parse_args()
    report(SHORT if args.short else GBOARD, args.draws)


if __name__ == "__main__":
    main()
