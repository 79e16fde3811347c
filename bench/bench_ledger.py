"""The privacy ledger: CPU time per round recorded, amortized over a long run whose noise changes every round.

``python bench/bench_ledger.py [--rounds 100000]`` prints, for each ledger, the CPU microseconds per round of
``record`` (the filter's check and the spent sums' update, the round's Rényi curve computed afresh: sigma is
new every round) and the load average; the goal (issue list, bench/README.md) is at most 1 ms per round over
10^5 rounds.  Then a fixed schedule of three stages: the CPU seconds of its certified PLD bracket at a
checkpoint.  Last, per-client epsilons for ``--clients`` clients of varied participation rates through Rényi DP
(goal: 10^6 clients in at most 10 s on two cores).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from hockeystick.ledger import PrivacyLedger, Round, per_client_epsilon


def sigmas(rounds: int) -> np.ndarray:
    """A noise multiplier that changes every round: 0.9 to 1.5 and back, with jitter."""
    rng = np.random.default_rng(0)
    return 1.2 + 0.3 * np.sin(np.arange(rounds) / 500.0) + rng.uniform(-1e-3, 1e-3, rounds)


def rdp_ledger_run(rounds: int) -> PrivacyLedger:
    ledger = PrivacyLedger(adaptive=True, epsilon=100.0, delta=1e-5)
    for sigma in sigmas(rounds):
        ledger.record(Round.subsampled_gaussian(float(sigma), 0.001))
    return ledger


def gdp_ledger_run(rounds: int) -> PrivacyLedger:
    ledger = PrivacyLedger(adaptive=True, epsilon=100.0, delta=1e-5, filter="gdp")
    for sigma in sigmas(rounds):
        ledger.record(Round.gaussian(float(sigma) * 100.0))
    return ledger


def fixed_checkpoint() -> tuple[float, float]:
    ledger = PrivacyLedger(adaptive=False)
    for sigma, q, rounds in [(1.1, 0.004, 7000), (0.9, 0.004, 7000), (1.3, 0.008, 3000)]:
        ledger.record(Round.subsampled_gaussian(sigma, q), rounds)
    g = ledger.composition(1e-5)
    assert g.epsilon_lower is not None
    return g.epsilon_lower, g.epsilon


def client_report(clients: int) -> float:
    rates = np.random.default_rng(0).beta(1.0, 50.0, clients) + 1e-9
    return per_client_epsilon(rates, sigma=1.0, rounds=1000, delta=1e-5).worst


def test_per_client_report(benchmark, size):
    worst = benchmark(lambda: client_report(size(1_000_000, 10_000)))
    assert worst > 0


def test_rdp_ledger_rounds(benchmark, size):
    rounds = size(100_000, 2_000)
    ledger = benchmark(lambda: rdp_ledger_run(rounds))
    assert ledger.rounds == rounds


def test_gdp_ledger_rounds(benchmark, size):
    rounds = size(100_000, 2_000)
    ledger = benchmark(lambda: gdp_ledger_run(rounds))
    assert ledger.rounds == rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=1_000_000)
    args = parser.parse_args()
    rounds = args.rounds
    for name, run in (("Rényi filter + odometer", rdp_ledger_run), ("GDP filter", gdp_ledger_run)):
        start = time.process_time()
        ledger = run(rounds)
        cpu = time.process_time() - start
        print(
            f"{name}: {rounds} rounds, {cpu / rounds * 1e6:.0f} us CPU per round, "
            f"odometer epsilon(1e-5) = {ledger.odometer(1e-5).epsilon:.4g}, load {os.getloadavg()[0]:.2f}"
        )
    start = time.process_time()
    lower, upper = fixed_checkpoint()
    print(
        f"fixed schedule, 3 stages, 17000 rounds: PLD bracket [{lower:.5f}, {upper:.5f}] in "
        f"{time.process_time() - start:.2f} s CPU, load {os.getloadavg()[0]:.2f}"
    )
    start, wall = time.process_time(), time.perf_counter()
    worst = client_report(args.clients)
    print(
        f"per-client epsilon for {args.clients} clients: worst {worst:.4g}, {time.process_time() - start:.2f} s CPU, "
        f"{time.perf_counter() - wall:.2f} s wall, load {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
