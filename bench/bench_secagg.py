"""Secure aggregation: the cross-device example's epsilon and its calibration, CPU and wall seconds.

``python bench/bench_secagg.py`` runs docs/secure-aggregation.md's example (10^6 clients, 1000 surviving a round,
d = 10^6, 2000 rounds, delta = 1e-6, c = 1, 20 bits, beta = e^{-1/2}), each step on fresh objects, and prints
its CPU and wall seconds with the load average:

* calibration: ``calibrate_secure_aggregation`` for a target epsilon of 10 (the local noise, the finest
  granularity whose wrap-around bound stays below 1e-4 a round, the MSE beside the Gaussian's);
* epsilon against the server: a fresh ``DistributedDiscreteGaussian`` at the calibrated noise,
  ``epsilon(1e-6, bound="both")`` (the RDP upper side, the lattice PLD of the realizable shift composed 2000 times);
* epsilon against an observer: the same run sampled at q = 1e-3, each sampled client adding its own noise share,
  ``epsilon(1e-6, bound="both", against="observer")`` on a 1e-5 grid (joint convexity above, the pair of n and
  n + 1 shares composed 2000 times below).

The goal (bench/README.md) is at most 5 s for each on two cores.  pytest collects the ``test_*`` functions: at
the short size (CI's smoke run) 200 rounds of d = 10^4, at ``--full`` the example itself.
"""

from __future__ import annotations

import math
import os
import time
from typing import Any

from hockeystick.secagg import DistributedDiscreteGaussian, calibrate_secure_aggregation

EXAMPLE = {"clients": 1000, "dimension": 10**6, "rounds": 2000}
SHORT = {"clients": 1000, "dimension": 10**4, "rounds": 200}
DELTA, EPSILON, BITS, SAMPLING_RATE = 1e-6, 10.0, 20, 1e-3


def calibrate(run: dict[str, int]) -> Any:
    return calibrate_secure_aggregation(
        epsilon=EPSILON,
        delta=DELTA,
        clip_norm=1.0,
        bits=BITS,
        min_surviving_clients=run["clients"],
        dimension=run["dimension"],
        rounds=run["rounds"],
    )


def bracket(
    run: dict[str, int], local_sigma: float, granularity: float, against: str
) -> tuple[float, float]:
    observer = against == "observer"
    acc = DistributedDiscreteGaussian(
        clip_norm=1.0,
        granularity=granularity,
        dimension=run["dimension"],
        local_sigma=local_sigma,
        min_surviving_clients=run["clients"],
        rounds=run["rounds"],
        beta=math.exp(-0.5),
        sampling_rate=SAMPLING_RATE if observer else 1.0,
        value_discretization_interval=1e-5 if observer else 1e-4,
    )
    lower, upper = acc.epsilon(DELTA, bound="both", against=against)
    return float(lower), float(upper)


def _run(size: Any) -> dict[str, int]:
    return EXAMPLE if size(1, 0) else SHORT


def test_calibration(benchmark, size):
    run = _run(size)
    cal = benchmark(lambda: calibrate(run))
    assert cal.epsilon <= EPSILON and cal.wrap_probability <= 1e-4


def test_epsilon_against_the_server(benchmark, size):
    run = _run(size)
    cal = calibrate(run)
    lower, upper = benchmark(lambda: bracket(run, cal.local_sigma, cal.granularity, "server"))
    assert 0.0 < lower <= upper <= EPSILON


def test_epsilon_against_an_observer(benchmark, size):
    run = _run(size)
    cal = calibrate(run)
    lower, upper = benchmark(lambda: bracket(run, cal.local_sigma, cal.granularity, "observer"))
    assert 0.0 < lower <= upper < cal.epsilon


def _timed(fn: Any) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    cal, cpu, wall = _timed(lambda: calibrate(EXAMPLE))
    print(
        f"calibration: local_sigma {cal.local_sigma:.4f}, granularity {cal.granularity:.4g}, eps {cal.epsilon:.4f}, "
        f"MSE ratio {cal.mse_ratio:.3f}: {cpu:.2f} s CPU, {wall:.2f} s wall, load {os.getloadavg()[0]:.2f}"
    )
    for against in ("server", "observer"):
        (lower, upper), cpu, wall = _timed(
            lambda a=against: bracket(EXAMPLE, cal.local_sigma, cal.granularity, a)
        )
        print(
            f"epsilon against the {against}: [{lower:.4g}, {upper:.4g}]: {cpu:.2f} s CPU, {wall:.2f} s wall, "
            f"load {os.getloadavg()[0]:.2f}"
        )


if __name__ == "__main__":
    main()
