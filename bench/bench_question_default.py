"""The default epsilon at deployed scale and in the corners, beside the peers' defaults.

    python bench/bench_question_default.py            # the deployed-scale table and the corners (minutes)
    python bench/bench_question_default.py --no-peer  # hockeystick and the RDP conversion alone (seconds)
    python bench/bench_question_default.py --sigmas   # the vectorised default over 100 sigmas, CPU seconds (~1 min)

Per run (Poisson sampling, add-or-remove): hockeystick's default bracket (``SubsampledGaussianPLD`` given neither a
grid nor an accuracy: the grid, tail and accuracy come from the question, ``pld.refine.question``) and its wall
time in a fresh process (cold: imports excluded, the first call's lazy imports and discretizations included);
dp_accounting's default ``PLDAccountant`` (its 1e-4 grid, pessimistic estimate) in a fresh process with a time
limit (``--peer-seconds``), and the RDP conversion (dp_accounting's ``RdpAccountant``, its default orders); the
machine's load average beside them.  "ok" says whether the default meets the bar: its upper side at most
max(1e-3, 0.5 %) above dp_accounting's (where that is not below our certified lower side: then the peer is the one
wrong) and never above the RDP conversion, finite where either is, and its bracket at most max(1e-2, 1e-2 eps) wide
(else it warned, naming accuracy=).

``--sigmas``: the default epsilon of one call over an array of 100 sigmas (evenly spaced in [0.5, 5]), at the README
DP-SGD run's sampling rate and steps and at q 0.01 over 1000 rounds, delta 1e-10 and 1e-5, warm (the library loaded
and one answer given), CPU seconds of the process (every thread) with the default workers; the median of
``--repeats`` calls, the CPU model and the load average beside them (goal: at most 2 s each).

The corners (10^7 rounds, q near 1, delta below 1e-14) are where dp_accounting is itself looser than the RDP
conversion or returns inf.  pytest collects ``test_corner_smoke`` (slow-marked): one cheap corner.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import warnings

import pytest

# (label, sigma, q, rounds, delta)
DEPLOYED = [
    ("README DP-SGD, delta 1e-10", 1.1, 256 / 60_000, 14_100, 1e-10),
    ("README DP-SGD, delta 1e-20", 1.1, 256 / 60_000, 14_100, 1e-20),
    ("README DP-SGD, delta 1e-300", 1.1, 256 / 60_000, 14_100, 1e-300),
    ("FedAvg 1e9 clients, 1000/round, 1e6 rounds", 1.0, 1e-6, 10**6, 1.26e-10),
    ("FedAvg 1e6 clients, 10/round, 1e6 rounds", 1.0, 1e-5, 10**6, 1e6**-1.1),
]
CORNERS = [
    ("1e7 rounds, q 1e-3", 1.0, 1e-3, 10**7, 1e-10),
    ("1e7 rounds, q 1e-6, delta 1e-20", 2.0, 1e-6, 10**7, 1e-20),
    ("q 0.9, 100 rounds", 0.5, 0.9, 100, 1e-5),
    ("q 0.999, 10 rounds, delta 1e-16", 2.0, 0.999, 10, 1e-16),
    ("q 0.999, one round, delta 1e-15", 1.0, 0.999, 1, 1e-15),
    ("sigma 0.3, q 0.01, delta 1e-16", 0.3, 0.01, 1000, 1e-16),
    ("sigma 100, q 1e-2, 1e7 rounds", 100.0, 1e-2, 10**7, 1e-15),
]

_OURS = """
import json, sys, time, warnings
from hockeystick.pld import SubsampledGaussianPLD
sigma, q, rounds, delta = json.loads(sys.argv[1])
t = time.perf_counter()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    lower, upper = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds).epsilon(delta, bound="both")
print(json.dumps([lower, upper, time.perf_counter() - t, bool(caught)]))
"""

_PEER = """
import json, sys, time
import dp_accounting
from dp_accounting.pld import pld_privacy_accountant
sigma, q, rounds, delta = json.loads(sys.argv[1])
event = dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), rounds)
t = time.perf_counter()
eps = pld_privacy_accountant.PLDAccountant().compose(event).get_epsilon(delta)
print(json.dumps([eps, time.perf_counter() - t]))
"""


def _fresh(code: str, args: list[float], seconds: float) -> list[float] | None:
    """The JSON list a fresh process prints for ``code`` at ``args``; None past ``seconds`` or on an error."""
    try:
        out = subprocess.run(
            [sys.executable, "-c", code, json.dumps(args)],
            capture_output=True,
            text=True,
            timeout=seconds,
        )
    except subprocess.TimeoutExpired:
        return None
    return json.loads(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 else None


def rdp_epsilon(sigma: float, q: float, rounds: int, delta: float) -> float:
    """dp_accounting's RDP conversion at its default orders."""
    import dp_accounting  # lazy: the bench's optional peer
    from dp_accounting.rdp import rdp_privacy_accountant

    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), rounds
    )
    return float(rdp_privacy_accountant.RdpAccountant().compose(event).get_epsilon(delta))


def meets(lower: float, upper: float, peer: float | None, rdp: float, warned: bool) -> bool:
    """The bar of the module docstring."""
    no_looser = (
        peer is None
        or not math.isfinite(peer)
        or peer < lower
        or upper <= peer + max(1e-3, 5e-3 * peer)
    )
    finite = math.isfinite(upper) or not (
        math.isfinite(rdp) or (peer is not None and math.isfinite(peer))
    )
    readable = upper - lower <= max(1e-2, 1e-2 * upper)
    return no_looser and upper <= rdp * (1 + 1e-6) and finite and (readable or warned)


def row(
    label: str, sigma: float, q: float, rounds: int, delta: float, peer_seconds: float | None
) -> str:
    ours = _fresh(_OURS, [sigma, q, rounds, delta], 600.0)
    if ours is None:
        return f"| {label} | failed | | | | |"
    lower, upper, seconds, warned = ours
    peer = None if peer_seconds is None else _fresh(_PEER, [sigma, q, rounds, delta], peer_seconds)
    rdp = rdp_epsilon(sigma, q, rounds, delta)
    peer_text = (
        "not run"
        if peer_seconds is None
        else (f"> {peer_seconds:g} s" if peer is None else f"{peer[0]:.4f} ({peer[1]:.1f} s)")
    )
    ok = meets(lower, upper, None if peer is None else peer[0], rdp, warned)
    return (
        f"| {label} | ({lower:.4f}, {upper:.4f}){' warned' if warned else ''} | {seconds:.2f} s | {peer_text} | "
        f"{rdp:.4f} | {'ok' if ok else 'NOT MET'} |"
    )


# (label, sampling rate, rounds, delta) of the vectorised default over SIGMAS
VECTORISED = [
    ("README q and steps, delta 1e-10", 256 / 60_000, 14_100, 1e-10),
    ("README q and steps, delta 1e-5", 256 / 60_000, 14_100, 1e-5),
    ("q 0.01, 1000 rounds, delta 1e-10", 0.01, 1000, 1e-10),
    ("q 0.01, 1000 rounds, delta 1e-5", 0.01, 1000, 1e-5),
]
SIGMAS = 100


def cpu_model() -> str:
    """The CPU's model name (/proc/cpuinfo), or the platform's processor string."""
    import platform

    try:
        with open("/proc/cpuinfo") as info:
            return next(
                line.split(":", 1)[1].strip() for line in info if line.startswith("model name")
            )
    except (OSError, StopIteration):
        return platform.processor() or "unknown CPU"


def vectorised(repeats: int) -> None:
    """The table of ``--sigmas`` (module docstring)."""
    import statistics
    import time

    import numpy as np

    from hockeystick.pld import SubsampledGaussianPLD

    sigmas = np.linspace(0.5, 5.0, SIGMAS)
    SubsampledGaussianPLD(sigma=1.1, sampling_rate=256 / 60_000, rounds=14_100).epsilon(
        1e-10
    )  # warm
    print(f"{cpu_model()}, {os.cpu_count()} cores, load average {os.getloadavg()}")
    print(
        f"| {SIGMAS} sigmas in [0.5, 5], one call | CPU s (median of {repeats}) | wall s | sum of upper sides |"
    )
    print("|---|---|---|---|")
    for label, q, rounds, delta in VECTORISED:
        cpu, wall = [], []
        for _ in range(repeats):
            start, clock = time.process_time(), time.perf_counter()
            _, upper = SubsampledGaussianPLD(sigma=sigmas, sampling_rate=q, rounds=rounds).epsilon(
                delta, bound="both"
            )
            cpu.append(time.process_time() - start)
            wall.append(time.perf_counter() - clock)
        row = f"| {label} | {statistics.median(cpu):.2f} | {statistics.median(wall):.2f} | {float(np.sum(upper)):.6f} |"
        print(row, flush=True)
    print(f"load average {os.getloadavg()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--no-peer", action="store_true", help="skip dp_accounting's PLD accountant"
    )
    parser.add_argument(
        "--peer-seconds", type=float, default=120.0, help="dp_accounting's time limit per run"
    )
    parser.add_argument(
        "--sigmas", action="store_true", help="the vectorised default over 100 sigmas alone"
    )
    parser.add_argument("--repeats", type=int, default=3, help="calls per row of --sigmas")
    args = parser.parse_args()
    if args.sigmas:
        vectorised(args.repeats)
        return
    peer_seconds = None if args.no_peer else args.peer_seconds
    print(f"load average {os.getloadavg()}")
    print(
        "| run | hockeystick default (lower, upper) | its time, cold | dp_accounting PLD default | RDP | bar |"
    )
    print("|---|---|---|---|---|---|")
    for runs in (DEPLOYED, CORNERS):
        for label, sigma, q, rounds, delta in runs:
            print(row(label, sigma, q, rounds, delta, peer_seconds), flush=True)
    print(f"load average {os.getloadavg()}")


@pytest.mark.slow
def test_corner_smoke():
    """q near 1 at a delta below 1e-14: the default is finite, no looser than the RDP conversion, and readable or
    warned."""
    pytest.importorskip("dp_accounting")
    from hockeystick.pld import SubsampledGaussianPLD

    _, sigma, q, rounds, delta = CORNERS[4]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lower, upper = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds).epsilon(
            delta, bound="both"
        )
    assert meets(lower, upper, None, rdp_epsilon(sigma, q, rounds, delta), bool(caught))


if __name__ == "__main__":
    main()
