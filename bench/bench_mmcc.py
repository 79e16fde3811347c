"""MMCC at Gboard's size: the certified bracket of epsilon for T = 2000 rounds, a BLT and a 64-banded C, CPU seconds.

``python bench/bench_mmcc.py [--short]`` runs ``matrix.MMCC(...).get_epsilon(1e-10)`` (Gboard's delta) for T = 2000
rounds under Poisson sampling at q = 0.01 and noise multiplier 20, for

* the 64-banded Toeplitz C whose first column is the square root of the prefix-sum matrix's (c_j = binom(2j, j) /
  4^j, j < 64; non-negative and decreasing), and
* the BLT with buffer decay 0.99 and output scale 0.2 (c_0 = 1, c_k = 0.2 * 0.99^(k-1));

and prints, with the CPU model, the core count and the load average, the bracket (the realizable lower side, the
upper side), MMCC's own value, its split of delta, the epsilon and rho without amplification, and the CPU seconds
of the whole call and of its upper side alone (each on a fresh object).  A second table times MMCC's upper side
for the binary tree (``Tree()``) at the same T and q over noise multipliers ``TREE_NOISE``: its cost follows the
loss range of the top levels' mixtures (a node over 2^l rounds shifts by up to 2^l, so the range grows like
(2^l / z)^2 / 2 and the grid's points with it, up to the shift its law reaches before its upper tail is cut), not
the number of rows.  pytest collects the ``test_*``
functions: at the short size (CI's smoke run) 128 rounds and an 8-banded C.  Last, the full binary tree over 2048
rounds at z = 20, both sides (the realizable lower side and MMCC's upper side), CPU seconds.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from results import cpu_id  # bench/results.py: the benchmark scripts' directory is on the path

from hockeystick.matrix import BLT, MMCC, Banded, Tree

DELTA = 1e-10
FULL = {"rounds": 2000, "bands": 64, "noise_multiplier": 20.0, "sampling_rate": 0.01}
SHORT = {"rounds": 128, "bands": 8, "noise_multiplier": 20.0, "sampling_rate": 0.01}
TREE_NOISE = (800.0, 200.0, 20.0)  # the tree's noise multipliers at T = 2000
TREE_ROUNDS = 2048  # the full tree, both sides, at z = 20


def column(bands: int) -> list[float]:
    """c_j = binom(2j, j) / 4^j, j < bands: the first column of the prefix-sum matrix's Toeplitz square root."""
    out = [1.0]
    for j in range(1, bands):
        out.append(out[-1] * (2 * j - 1) / (2 * j))
    return out


def strategies(setting: dict[str, Any]) -> dict[str, Any]:
    return {
        f"{setting['bands']}-banded": Banded(column(setting["bands"])),
        "BLT(0.99, 0.2)": BLT([0.99], [0.2]),
    }


def run_of(setting: dict[str, Any], strategy: Any, lower_side: bool = True) -> MMCC:
    return MMCC(
        strategy=strategy,
        rounds=setting["rounds"],
        noise_multiplier=setting["noise_multiplier"],
        sampling_rate=setting["sampling_rate"],
        lower_side=lower_side,
    )


def _timed(fn: Any) -> tuple[Any, float, float]:
    """(result, CPU seconds, wall seconds)."""
    cpu, wall = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - cpu, time.perf_counter() - wall


def report(setting: dict[str, Any]) -> None:
    print(
        f"T = {setting['rounds']}, q = {setting['sampling_rate']}, z = {setting['noise_multiplier']}, delta = "
        f"{DELTA:g}; {cpu_id()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}"
    )
    print(
        "| C | bracket (lower, upper) | MMCC | delta_1 | unamplified eps | rho | CPU s, wall s | upper only |"
    )
    for name, strategy in strategies(setting).items():
        answer, cpu, wall = _timed(lambda: run_of(setting, strategy).get_epsilon(DELTA))
        _, upper_cpu, upper_wall = _timed(
            lambda: run_of(setting, strategy, lower_side=False).get_epsilon(DELTA)
        )
        print(
            f"| {name} | ({answer.lower:.4f}, {answer.upper:.4f}) | {answer.mmcc:.4f} | {answer.tail_delta:.0e} | "
            f"{answer.unamplified:.2f} | {answer.unamplified_rho:.2f} | {cpu:.1f}, {wall:.1f} | "
            f"{upper_cpu:.1f}, {upper_wall:.1f} |"
        )
    print("| C | z | MMCC (upper side) | delta_1 | unamplified eps | CPU s, wall s |")
    for z in TREE_NOISE:
        tree = dict(setting, noise_multiplier=z)
        answer, cpu, wall = _timed(
            lambda: run_of(tree, Tree(), lower_side=False).get_epsilon(DELTA)
        )
        print(
            f"| Tree() | {z:g} | {answer.mmcc:.4f} | {answer.tail_delta:.0e} | {answer.unamplified:.2f} | "
            f"{cpu:.1f}, {wall:.1f} |"
        )
    tree = dict(
        setting, rounds=TREE_ROUNDS if setting is FULL else setting["rounds"], noise_multiplier=20.0
    )
    answer, cpu, wall = _timed(lambda: run_of(tree, Tree()).get_epsilon(DELTA))
    print(
        f"Tree() over {tree['rounds']} rounds, z = 20, both sides: ({answer.lower:.4f}, {answer.upper:.4f}), "
        f"CPU {cpu:.1f} s, wall {wall:.1f} s"
    )
    print(f"load {os.getloadavg()[0]:.2f}")


def test_mmcc_banded(benchmark, size):
    setting = FULL if size(1, 0) else SHORT
    answer = benchmark(
        lambda: run_of(setting, strategies(setting)[f"{setting['bands']}-banded"]).get_epsilon(
            DELTA
        )
    )
    assert 0.0 <= answer.lower <= answer.upper <= answer.unamplified


def test_mmcc_blt(benchmark, size):
    setting = FULL if size(1, 0) else SHORT
    answer = benchmark(lambda: run_of(setting, BLT([0.99], [0.2])).get_epsilon(DELTA))
    assert 0.0 <= answer.lower <= answer.upper <= answer.unamplified


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="the CI smoke size")
    args = parser.parse_args()
    report(SHORT if args.short else FULL)


if __name__ == "__main__":
    main()
