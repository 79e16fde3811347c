"""Sampling with replacement at large K/n: hockeystick's certified bracket, CPU time, one thread.

    OMP_NUM_THREADS=1 python bench/with_replacement_sizes.py [--repeats 3] [--n 1000 1000000]

``SampledWithReplacementDpEvent(n, K, inner)`` under REPLACE_ONE, K/n in {0.01, 0.1, 0.5, 1, 4},
inner Gaussian(1) and Laplace(1), epsilon bracket at delta = 1e-6 (accuracy 1e-4).  Each setting is
run once to warm up (imports, caches of other settings), then ``--repeats`` times on a fresh
accountant, the settings interleaved; the median CPU time is printed.  dp_accounting 0.6 refuses
the event (UnsupportedEventError, PLD and RDP); beside each K/n <= 1 its PLD accountant's time for
the Poisson-sampled mechanism at q = K/n (grid 1e-4) is printed for scale (a different mechanism:
no like-for-like figure exists).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from dp_accounting import dp_event as E
from dp_accounting.pld.pld_privacy_accountant import PLDAccountant
from dp_accounting.privacy_accountant import NeighboringRelation

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant

RATIOS = (0.01, 0.1, 0.5, 1.0, 4.0)
INNER = {"gaussian(1)": E.GaussianDpEvent(1.0), "laplace(1)": E.LaplaceDpEvent(1.0)}
DELTA = 1e-6


def _cpu(run) -> tuple[float, object]:
    start = time.process_time()
    out = run()
    return time.process_time() - start, out


def ours(n: int, ratio: float, inner) -> tuple[float, object]:
    event = E.SampledWithReplacementDpEvent(n, max(1, round(ratio * n)), inner)
    return _cpu(
        lambda: (
            HockeystickPLDAccountant(NeighboringRelation.REPLACE_ONE)
            .compose(event)
            .get_epsilon_bracket(DELTA)
        )
    )


def theirs_poisson(ratio: float, inner) -> tuple[float, object]:
    event = E.PoissonSampledDpEvent(ratio, inner)
    return _cpu(lambda: PLDAccountant().compose(event).get_epsilon(DELTA))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n", type=int, nargs="+", default=[1000, 1000000])
    args = parser.parse_args()
    print(f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')} load {os.getloadavg()}")
    settings = [(n, r, name) for n in args.n for r in RATIOS for name in INNER]
    times: dict = {s: [] for s in settings}
    brackets: dict = {}
    for s in settings:  # warm-up
        brackets[s] = ours(s[0], s[1], INNER[s[2]])[1]
    for _ in range(args.repeats):
        for s in settings:  # interleaved
            times[s].append(ours(s[0], s[1], INNER[s[2]])[0])
    for n, r, name in settings:
        lo, up = brackets[(n, r, name)]
        poisson = f"{theirs_poisson(r, INNER[name])[0]:.2f} s" if r < 1.0 else "-"
        print(
            f"n={n:>8} K/n={r:<5} {name:<12} bracket [{lo:.5g}, {up:.5g}] cpu median "
            f"{statistics.median(times[(n, r, name)]):.2f} s   dp_accounting Poisson q=K/n: {poisson}"
        )
    print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()
