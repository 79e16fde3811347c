"""Side by side: hockeystick.pld vs dp_accounting and prv_accountant on W1-W4 (bench/README.md).

    python bench/compare_pld.py                          # every workload, every library (minutes)
    python bench/compare_pld.py --w4-baseline-points 40  # W4 baselines on 40 of the 1000 sigmas
    python bench/compare_pld.py --only W2
    python bench/compare_pld.py --only W1 --libraries hockeystick-exact hockeystick-pld

Each measurement runs in a fresh subprocess (wall time of the call, imports
excluded; peak resident memory of the process), then one table is printed.
W4: hockeystick runs all 1000 sigmas in one call; the looping baselines
(dp_accounting, prv_accountant) run an evenly spaced subset of the same sigmas
(``--w4-baseline-points``) and their time is scaled to 1000 (labelled).  The
last W4 column compares each row's upper bound with dp_accounting's at 1e-4 on
the shared sigmas.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import time

import numpy as np

DELTA = 1e-5
WORKLOADS = {
    "W1": dict(sigma=1.0, q=1.0, rounds=1000, exact=633.9298513356145),
    "W2": dict(sigma=1.0, q=0.01, rounds=10_000, exact=6.18771),
    "W3": dict(sigma=0.8, q=0.001, rounds=100_000, exact=2.57496),
}
W4_SIGMAS = (0.5, 5.0)
W4_POINTS = 1000

# (library, setting) pairs measured per workload.  Setting: the grid spacing h, except
# hockeystick-pld-accuracy (the certified epsilon bracket width asked for, grid chosen per
# sigma) and prv_accountant (eps_error).
PLANS = {
    "W1": [
        ("hockeystick-exact", 0),
        ("hockeystick-pld", 1e-3),
        ("hockeystick-pld", 2e-3),
        ("dp_accounting", 1e-4),
        ("prv_accountant", 0.1),
    ],
    "W2": [
        ("hockeystick-pld", 1.5e-4),
        ("hockeystick-pld", 3e-4),
        ("hockeystick-pld-upper", 3e-4),
        ("hockeystick-pld-accuracy", 1e-3),
        ("dp_accounting", 1e-4),
        ("dp_accounting", 1e-3),
        ("prv_accountant", 0.1),
    ],
    "W3": [
        ("hockeystick-pld", 1e-4),
        ("hockeystick-pld", 2e-4),
        ("hockeystick-pld-upper", 2e-4),
        ("dp_accounting", 1e-4),
        ("prv_accountant", 0.1),
    ],
    "W4": [
        ("dp_accounting", 1e-4),
        ("dp_accounting", 1e-3),
        ("hockeystick-pld-upper", 1e-3),
        ("hockeystick-pld-upper", 1e-4),
        ("hockeystick-pld-upper", 5e-5),
        ("hockeystick-pld", 3e-4),
        ("hockeystick-pld-accuracy", 1e-3),
        ("prv_accountant", 0.1),
    ],
}


def _measure(library: str, setting: float, sigma: np.ndarray, q: float, rounds: int) -> dict:
    """Runs inside the subprocess: returns eps (lower, estimate, upper) per sigma and the time."""
    if library.startswith("hockeystick"):
        from hockeystick.pld import SubsampledGaussianPLD

        start = time.perf_counter()
        kwargs = (
            {}
            if library == "hockeystick-exact"
            else dict(accuracy=setting)
            if library == "hockeystick-pld-accuracy"
            else dict(value_discretization_interval=setting)
        )
        acc = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds, **kwargs)
        if (
            library == "hockeystick-pld" and q == 1.0
        ):  # force the PLD machinery, not the closed form
            from hockeystick.pld import gaussian

            out = [
                gaussian(s, value_discretization_interval=setting)
                .self_compose(rounds)
                .epsilon(DELTA, bound="both")
                for s in sigma
            ]
            lo, up = np.array([o[0] for o in out]), np.array([o[1] for o in out])
        elif library == "hockeystick-pld-upper":
            lo, up = np.full(sigma.shape, np.nan), acc.epsilon(DELTA)
        else:
            lo, up = acc.epsilon(DELTA, bound="both")
        elapsed = time.perf_counter() - start
        return dict(
            lower=np.atleast_1d(lo).tolist(),
            estimate=None,
            upper=np.atleast_1d(up).tolist(),
            seconds=elapsed,
        )
    if library == "dp_accounting":
        import dp_accounting
        from dp_accounting.pld import pld_privacy_accountant

        start = time.perf_counter()
        ups = []
        for s in sigma:
            acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=setting)
            event = dp_accounting.GaussianDpEvent(s)
            if q < 1:
                event = dp_accounting.PoissonSampledDpEvent(q, event)
            acc.compose(event, rounds)
            ups.append(acc.get_epsilon(DELTA))
        return dict(lower=None, estimate=None, upper=ups, seconds=time.perf_counter() - start)
    if library == "prv_accountant":
        from prv_accountant import Accountant

        start = time.perf_counter()
        rows = []
        for s in sigma:
            acc = Accountant(
                noise_multiplier=s,
                sampling_probability=q,
                delta=DELTA,
                eps_error=setting,
                max_compositions=rounds,
            )
            rows.append(acc.compute_epsilon(num_compositions=rounds))
        return dict(
            lower=[r[0] for r in rows],
            estimate=[r[1] for r in rows],
            upper=[r[2] for r in rows],
            seconds=time.perf_counter() - start,
        )
    raise ValueError(library)


def _w4_subset(points: int) -> np.ndarray:
    """Indices of ``points`` evenly spaced sigmas among the W4 grid's (all of them if points >= 1000)."""
    return np.unique(np.linspace(0, W4_POINTS - 1, min(points, W4_POINTS)).round().astype(int))


def _child(argv: list[str]) -> None:
    library, setting, workload, points = argv[0], float(argv[1]), argv[2], int(argv[3])
    if workload == "W4":
        sigma, q, rounds = np.linspace(*W4_SIGMAS, W4_POINTS)[_w4_subset(points)], 0.01, 10_000
    else:
        w = WORKLOADS[workload]
        sigma, q, rounds = np.array([w["sigma"]]), w["q"], w["rounds"]
    result = _measure(library, setting, sigma, q, rounds)
    result["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(result))


def _run(library: str, setting: float, workload: str, points: int, timeout: float) -> dict | None:
    cmd = [sys.executable, __file__, "--child", library, repr(setting), workload, str(points)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return dict(error=f"timeout {timeout:.0f} s")
    if done.returncode != 0:
        return dict(error=(done.stderr.strip().splitlines() or ["failed"])[-1][:60])
    return json.loads(done.stdout.strip().splitlines()[-1])


def _fmt(x: float | None, digits: int = 7) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", nargs="*", default=list(PLANS))
    parser.add_argument(
        "--w4-baseline-points",
        type=int,
        default=40,
        help="sigmas (of the 1000) the looping baselines run; their time is scaled to 1000",
    )
    parser.add_argument(
        "--libraries",
        nargs="*",
        default=None,
        help="only these libraries (e.g. hockeystick-pld dp_accounting); default: all",
    )
    parser.add_argument("--timeout", type=float, default=1800)
    args = parser.parse_args()
    print(
        "| workload | library | setting | eps lower | eps estimate | eps upper | time s | peak MB |"
    )
    print("|---|---|---|---|---|---|---|---|")
    subset = _w4_subset(args.w4_baseline_points)
    dp_reference = None  # dp_accounting's W4 upper bounds at 1e-4 on the subset
    for workload in args.only:
        for library, setting in PLANS[workload]:
            if args.libraries is not None and library not in args.libraries:
                continue
            baseline = not library.startswith("hockeystick")
            points = (args.w4_baseline_points if baseline else W4_POINTS) if workload == "W4" else 1
            r = _run(library, setting, workload, points, args.timeout)
            label = f"{workload}" + (
                f" ({subset.size if baseline else W4_POINTS} σ)" if workload == "W4" else ""
            )
            if "error" in r:
                print(f"| {label} | {library} | {setting:g} | {r['error']} | | | | |", flush=True)
                continue
            if workload == "W4":
                scale = W4_POINTS / subset.size if baseline else 1.0
                ups = np.array(r["upper"])
                lows = np.array(r["lower"], dtype=float) if r["lower"] is not None else None
                width = (
                    "—"
                    if lows is None or np.isnan(lows).all()
                    else f"max width {np.max(ups - lows):.2e}"
                )
                t = f"{r['seconds'] * scale:.2f}" + (
                    f" (scaled ×{scale:.4g})" if scale != 1 else ""
                )
                on_subset = ups if baseline else ups[subset]
                if library == "dp_accounting" and setting == 1e-4:
                    dp_reference = on_subset
                excess = (
                    ""
                    if dp_reference is None
                    else f"; upper − dp@1e-4 in [{np.min(on_subset - dp_reference):.1e}, "
                    f"{np.max(on_subset - dp_reference):.1e}]"
                )
                print(
                    f"| {label} | {library} | {setting:g} | {width} | | eps(σ=0.5) {ups[0]:.5f}{excess} | {t} | "
                    f"{r['peak_mb']:.0f} |",
                    flush=True,
                )
                continue
            time_s = r["seconds"]
            lo = r["lower"][0] if r["lower"] else None
            est = r["estimate"][0] if r["estimate"] else None
            print(
                f"| {label} | {library} | {setting:g} | {_fmt(lo)} | {_fmt(est)} | {_fmt(r['upper'][0])} | "
                f"{time_s:.3f} | {r['peak_mb']:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(sys.argv[2:])
    else:
        main()
