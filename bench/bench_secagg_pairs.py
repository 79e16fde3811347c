"""The Poisson-binomial mechanism and the distributed discrete Laplace: their calibrations and brackets, CPU and
wall seconds.

``python bench/bench_secagg_pairs.py`` runs, each step on fresh objects, and prints its CPU and wall seconds with
the load average:

* Poisson-binomial calibration: ``calibrate_poisson_binomial`` at eps 2, delta 1e-5, m = 16 draws, n = 20
  clients, 5 rounds (the largest theta within the target; the dominating pair built at each probe);
* the distributed discrete Laplace's bracket: docs/secure-aggregation.md's dropout example (c = 1, gamma = 0.1,
  d = 1, E = 100, 80 survivors, scale 20, 100 rounds, delta = 1e-6): the envelope of the shifts 1 .. 11 above,
  the realizable shift below;
* its calibration: ``calibrate_distributed_discrete_laplace`` at eps 5 on the same run.

pytest collects the ``test_*`` functions: the same three at the short size (CI's smoke run: 20 rounds of the
discrete Laplace) and at ``--full``.
"""

from __future__ import annotations

import os
import time
from typing import Any

from hockeystick.secagg import (
    DistributedDiscreteLaplace,
    calibrate_distributed_discrete_laplace,
    calibrate_poisson_binomial,
)

POISSON_BINOMIAL = {"trials": 16, "min_surviving_clients": 20, "rounds": 5}
LAPLACE = {
    "clip_norm": 1.0,
    "granularity": 0.1,
    "dimension": 1,
    "expected_clients": 100,
    "min_surviving_clients": 80,
}
EXAMPLE_ROUNDS, SHORT_ROUNDS = 100, 20


def poisson_binomial_calibration() -> Any:
    return calibrate_poisson_binomial(epsilon=2.0, delta=1e-5, **POISSON_BINOMIAL)


def laplace_bracket(rounds: int) -> tuple[float, float]:
    acc = DistributedDiscreteLaplace(scale=20.0, rounds=rounds, **LAPLACE)
    lower, upper = acc.epsilon(1e-6, bound="both")
    return float(lower), float(upper)


def laplace_calibration(rounds: int) -> Any:
    return calibrate_distributed_discrete_laplace(epsilon=5.0, delta=1e-6, rounds=rounds, **LAPLACE)


def _rounds(size: Any) -> int:
    return EXAMPLE_ROUNDS if size(1, 0) else SHORT_ROUNDS


def test_poisson_binomial_calibration(benchmark):
    cal = benchmark(poisson_binomial_calibration)
    assert cal.epsilon <= 2.0


def test_laplace_bracket(benchmark, size):
    lower, upper = benchmark(lambda: laplace_bracket(_rounds(size)))
    assert 0.0 < lower <= upper


def test_laplace_calibration(benchmark, size):
    cal = benchmark(lambda: laplace_calibration(_rounds(size)))
    assert cal.epsilon <= 5.0


def _timed(fn: Any) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    steps = (
        ("Poisson-binomial calibration", poisson_binomial_calibration),
        ("discrete Laplace bracket", lambda: laplace_bracket(EXAMPLE_ROUNDS)),
        ("discrete Laplace calibration", lambda: laplace_calibration(EXAMPLE_ROUNDS)),
    )
    for name, step in steps:
        out, cpu, wall = _timed(step)
        print(f"{name}: {out}: {cpu:.2f} s CPU, {wall:.2f} s wall, load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
