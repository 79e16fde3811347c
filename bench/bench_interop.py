"""Drop-in accountants side by side with the ones they replace.

    python bench/bench_interop.py                 # 200 random event trees + DP-SGD tracking (minutes)
    python bench/bench_interop.py --trees 40 --skip-tracking --skip-along-run   # the 40 trees alone
    python bench/bench_interop.py --trees 40 --passes 5 --skip-tracking --skip-along-run   # medians of 5 fresh passes
    python bench/bench_interop.py --skip-tracking --repeats 3 --slow   # only the trees under 10x, and why
    python bench/bench_interop.py --skip-trees --skip-tracking           # epsilon after every epoch alone

Trees: the seeded random event trees of tests/dp_accounting_pld.py (depth <= 3: composition,
self-composition of 2 to 29 runs, nested at most twice, so up to 841 runs of a leaf; Poisson sampling;
leaves Gaussian, Poisson-subsampled Gaussian, Laplace, Poisson-subsampled Laplace and discrete
Laplace), epsilon at ``TREE_DELTA`` = 1e-6 (``--delta``).  Per tree, interleaved and warm (one tree
of each library runs first, untimed): hockeystick's ``HockeystickPLDAccountant`` as a user calls it
(no grid, no accuracy: the default's question logic, ``pld.accountants.question_plan``), the same at
accuracy 1e-4, then asking for dp_accounting's own certified width ("equal accuracy"), and
dp_accounting's ``PLDAccountant`` (grid 1e-4, its pessimistic estimate, as its users call it); wall
and CPU time of compose + the epsilon (compose and epsilon are also timed apart), hockeystick's
modules compiled to bytecode first as an installed wheel's are (``compiled_bytecode``).  ``--passes P``:
the pass over the trees runs P times, each in a fresh process, and each tree's times are the medians
over the passes; ``--repeats R``: each tree runs R times in one process, interleaved, and its times
are the medians.  Every hockeystick column starts without the answers kept before it (the default's
epsilon brackets, the one-round discretizations: ``_forget_answers``, untimed), so each times a new
question on warm plans and imports; the accuracy= columns too, whose reads intersect the default's
bracket of the same question and would otherwise find the default column's kept.  The
summary's first line is the default adapter's CPU speed-up over dp_accounting, median over the trees.
dp_accounting runs on one thread; hockeystick's core loops use every core from parallel_work
element evaluations on (cpp/bindings/loops.hpp), and the threads such a loop wakes spin idle for a
while after it, counted as CPU time (docs/sweeps.md): each call's CPU includes that tail (the
process sleeps ``SETTLE`` seconds after it, its CPU clock running), so it is charged to the call
that woke them, not to the next one timed.  ``OMP_WAIT_POLICY=passive`` in the environment
(printed at the start, with the CPU model) measures the work alone.
Accuracy: our certified bracket width (upper - lower) beside dp_accounting's (pessimistic -
optimistic, the optimistic PLD built untimed).

Tracking: ``step()`` 14 040 times at q = 256/60000, sigma = 1.1, then ``get_epsilon(1e-5)``:
hockeystick's Opacus accountant, dp_accounting's PLD and RDP accountants (one SelfComposed event,
which is how they take it), and Opacus's PRV and RDP accountants where Opacus imports; median of 3.

Along the run: epsilon at 1e-5 after each of 60 epochs of 235 steps at the same q and sigma: hockeystick's
``epsilon_curve`` (one call, both sides, one thread) beside its own last-step evaluation (what the curve's cost
is read against) and a loop of one-off evaluations over the epochs, dp_accounting's PLD accountant composed
epoch by epoch (``compose`` then ``get_epsilon``, grid 1e-4), and Opacus's PRV accountant stepped epoch by epoch
where Opacus imports; CPU and wall seconds, medians of 3 interleaved runs, the load average beside them.

pytest collects the ``test_*`` functions as a smoke run (two trees, 100 steps, three epochs).
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import os
import statistics
import sys
import time

import numpy as np
import pytest
from results import cpu_id  # bench/results.py: the benchmark scripts' directory is on the path

# the repository root after bench/ (for tests.dp_accounting_pld): bench/conftest.py stays the ``conftest`` found first
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

DELTA = 1e-5
# the event trees' delta: a small delta, where the default's question reads past the plain grid
TREE_DELTA = 1e-6
STEPS, SAMPLE_RATE, SIGMA = 14_040, 256 / 60_000, 1.1


def _timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


# How long the process sleeps after each tree's call before its CPU clock is read again: longer than
# the idle spinning an OpenMP team (libgomp: GOMP_SPINCOUNT, 300 000 spins by default, a few
# milliseconds) or OpenBLAS's threads leave behind a call that returns, so that spinning is charged
# to the call that woke the threads, not to the next call measured (the other library's).
SETTLE = 0.05


def _settled_tail() -> float:
    """CPU seconds the process burns while its calling thread sleeps SETTLE seconds: the idle
    spinning of threads the call just measured left awake."""
    c = time.process_time()
    time.sleep(SETTLE)
    return time.process_time() - c


def _split(make, tree, delta: float = DELTA):
    """(result, wall, CPU, compose CPU, query CPU) of make().compose(tree) then its epsilon at
    delta; the query's CPU includes the settled tail (``_settled_tail``), its wall does not."""
    acc, cw, cc = _timed(lambda: make().compose(tree))
    query = acc.get_epsilon_bracket if hasattr(acc, "get_epsilon_bracket") else acc.get_epsilon
    out, qw, qc = _timed(lambda: query(delta))
    qc += _settled_tail()
    return out, cw + qw, cc + qc, cc, qc


def _forget_answers() -> None:
    """Forgets the answers hockeystick keeps between calls (the default's epsilon brackets, the
    one-round discretizations), untimed, so that the column timed next asks a new question rather
    than one the column before it answered: the accuracy= reads intersect the default's bracket of
    the same question, which a warm column would find kept."""
    from hockeystick.pld.question import default_reads
    from hockeystick.pld.refine import round_cache

    default_reads.forget_kept()
    round_cache.clear()


def run_tree(seed: int, repeats: int = 1, delta: float = TREE_DELTA) -> dict:
    """One tree at ``delta``: dp_accounting, our default adapter, ours at 1e-4 and ours at their
    certified width, interleaved ``repeats`` times; times are medians."""
    from dp_accounting.pld.pld_privacy_accountant import PLDAccountant

    from hockeystick.interop.dp_accounting import HockeystickPLDAccountant
    from tests.dp_accounting_pld import random_tree, their_pld

    tree = random_tree(np.random.default_rng(seed))
    opt_pld = their_pld(tree, 1, False)
    opt = 0.0 if opt_pld is None else opt_pld.get_epsilon_for_delta(delta)
    runs: dict[str, list[tuple]] = {"their": [], "default": [], "ours": [], "eq": []}
    for _ in range(repeats):
        runs["their"].append(_split(PLDAccountant, tree, delta))
        pess = runs["their"][-1][0]
        _forget_answers()
        runs["default"].append(_split(HockeystickPLDAccountant, tree, delta))
        _forget_answers()
        runs["ours"].append(_split(lambda: HockeystickPLDAccountant(accuracy=1e-4), tree, delta))
        # Equal certified accuracy: ask for dp_accounting's own certified width (pessimistic - optimistic).
        width = max(pess - opt, 1e-6)
        _forget_answers()
        runs["eq"].append(_split(lambda: HockeystickPLDAccountant(accuracy=width), tree, delta))

    def med(name: str, i: int) -> float:
        return statistics.median(r[i] for r in runs[name])

    (d_lo, d_up), (lo, up), (lo_eq, up_eq) = (runs[k][0][0] for k in ("default", "ours", "eq"))
    return dict(
        seed=seed,
        event=tree,
        default_lower=d_lo,
        default_upper=d_up,
        default_wall=med("default", 1),
        default_cpu=med("default", 2),
        default_compose_cpu=med("default", 3),
        default_query_cpu=med("default", 4),
        lower=lo,
        upper=up,
        optimistic=opt,
        pessimistic=runs["their"][0][0],
        ours_wall=med("ours", 1),
        ours_cpu=med("ours", 2),
        their_wall=med("their", 1),
        their_cpu=med("their", 2),
        their_compose_cpu=med("their", 3),
        their_query_cpu=med("their", 4),
        eq_lower=lo_eq,
        eq_upper=up_eq,
        eq_wall=med("eq", 1),
        eq_cpu=med("eq", 2),
        eq_compose_cpu=med("eq", 3),
        eq_query_cpu=med("eq", 4),
    )


def trees(
    n: int, repeats: int = 1, slow_only: bool = False, delta: float = TREE_DELTA
) -> list[dict]:
    run_tree(10_000, 1, delta)  # warm both libraries (imports, caches, FFT plans)
    rows = []
    for seed in range(n):
        r = run_tree(seed, repeats, delta)
        rows.append(r)
        print_tree(r, slow_only)
    return rows


def _one_pass(n: int, delta: float) -> list[dict]:
    """Each of the first ``n`` trees run once after the warm-up tree, nothing printed (a fresh
    process's pass, ``tree_passes``)."""
    # as ``main`` sets it: dp_accounting warns on every (untimed) optimistic PLD
    logging.getLogger().setLevel(logging.ERROR)
    run_tree(10_000, 1, delta)
    return [run_tree(seed, 1, delta) for seed in range(n)]


def merged_passes(passes: list[list[dict]]) -> list[dict]:
    """Each tree's row of the first pass, its times (the ``*_wall`` and ``*_cpu`` fields) the
    medians over ``passes``; the passes' answers must agree (every side is deterministic)."""
    rows = []
    for runs in zip(*passes):
        row = dict(runs[0])
        for key, value in row.items():
            if key.endswith(("_wall", "_cpu")):
                row[key] = statistics.median(r[key] for r in runs)
            elif key != "event":
                assert all(r[key] == value for r in runs), (row["seed"], key)
        rows.append(row)
    return rows


def tree_passes(
    n: int, passes: int, slow_only: bool = False, delta: float = TREE_DELTA
) -> list[dict]:
    """``passes`` passes over the first ``n`` trees, each in a fresh (spawned) process, merged
    (``merged_passes``) and printed: every run of a tree is a first run, as a user's new question is."""
    with multiprocessing.get_context("spawn").Pool(1, maxtasksperchild=1) as pool:
        rows = merged_passes([pool.apply(_one_pass, (n, delta)) for _ in range(passes)])
    for r in rows:
        print_tree(r, slow_only)
    return rows


def print_tree(r: dict, slow_only: bool) -> None:
    """One tree's line: every tree's figures, or (``slow_only``) the event and the compose /
    epsilon split of a tree under 10x."""
    seed = r["seed"]
    if slow_only:
        if r["their_cpu"] < 10 * r["default_cpu"]:
            print(
                f"tree {seed:3d}: CPU x{r['their_cpu'] / max(r['default_cpu'], 1e-9):.1f}: default "
                f"{1e3 * r['default_cpu']:.2f} ms (compose {1e3 * r['default_compose_cpu']:.2f}, "
                f"epsilon {1e3 * r['default_query_cpu']:.2f}) [{r['default_lower']:.6f}, "
                f"{r['default_upper']:.6f}], dp_accounting {1e3 * r['their_cpu']:.2f} ms (compose "
                f"{1e3 * r['their_compose_cpu']:.2f}, epsilon {1e3 * r['their_query_cpu']:.2f})\n"
                f"    {r['event']}",
                flush=True,
            )
        return
    print(
        f"tree {seed:3d}: default {1e3 * r['default_cpu']:8.2f} ms CPU [{r['default_lower']:.6f}, "
        f"{r['default_upper']:.6f}] x{r['their_cpu'] / max(r['default_cpu'], 1e-9):.1f}; "
        f"dp_accounting {1e3 * r['their_cpu']:8.2f} ms [{r['optimistic']:.6f}, "
        f"{r['pessimistic']:.6f}]; accuracy 1e-4 {1e3 * r['ours_cpu']:8.2f} ms "
        f"[{r['lower']:.6f}, {r['upper']:.6f}] x{r['their_cpu'] / max(r['ours_cpu'], 1e-9):.1f}; "
        f"at their width {1e3 * r['eq_cpu']:8.2f} ms [{r['eq_lower']:.6f}, {r['eq_upper']:.6f}] "
        f"x{r['their_cpu'] / max(r['eq_cpu'], 1e-9):.1f} (CPU)",
        flush=True,
    )


def summarize_trees(rows: list[dict]) -> None:
    default_cpu = np.array([r["their_cpu"] / max(r["default_cpu"], 1e-9) for r in rows])
    slowest = np.argsort(default_cpu)[:5]
    print(
        f"\n{len(rows)} trees, the default adapter: CPU speed-up (dp_accounting / hockeystick) median "
        f"{np.median(default_cpu):.1f}, min {default_cpu.min():.1f}; trees >= 10x: "
        f"{(default_cpu >= 10).sum()}; slowest: "
        + ", ".join(f"tree {rows[i]['seed']} x{default_cpu[i]:.1f}" for i in slowest)
        + f"; total CPU hockeystick {sum(r['default_cpu'] for r in rows):.3f} s, dp_accounting "
        f"{sum(r['their_cpu'] for r in rows):.3f} s (load average {os.getloadavg()[0]:.2f}, {cpu_id()}, {os.cpu_count()} cores)"
    )
    speed_wall = np.array([r["their_wall"] / max(r["ours_wall"], 1e-9) for r in rows])
    speed_cpu = np.array([r["their_cpu"] / max(r["ours_cpu"], 1e-9) for r in rows])
    eq_wall = np.array([r["their_wall"] / max(r["eq_wall"], 1e-9) for r in rows])
    eq_cpu = np.array([r["their_cpu"] / max(r["eq_cpu"], 1e-9) for r in rows])
    eq_w = np.array([r["eq_upper"] - r["eq_lower"] for r in rows])
    ours_w = np.array([r["upper"] - r["lower"] for r in rows])
    their_w = np.array([r["pessimistic"] - r["optimistic"] for r in rows])
    above = np.array([r["upper"] - r["pessimistic"] for r in rows])
    default_above = np.array([r["default_upper"] - r["pessimistic"] for r in rows])
    ok = all(
        r["upper"] >= r["optimistic"] - 1e-12 and r["lower"] <= r["pessimistic"] + 1e-12
        for r in rows
    )
    print(
        f"at accuracy 1e-4: speed-up (dp_accounting / hockeystick) wall min {speed_wall.min():.1f} "
        f"median {np.median(speed_wall):.1f}; CPU min {speed_cpu.min():.1f} median {np.median(speed_cpu):.1f}; "
        f"trees >= 10x (wall): {(speed_wall >= 10).sum()}"
    )
    print(
        f"at dp_accounting's certified width: speed-up wall min {eq_wall.min():.1f} median {np.median(eq_wall):.1f}; "
        f"CPU min {eq_cpu.min():.1f} median {np.median(eq_cpu):.1f}; trees >= 10x (CPU): {(eq_cpu >= 10).sum()}; "
        f"width met on {(eq_w <= np.array([max(r['pessimistic'] - r['optimistic'], 1e-6) for r in rows])).sum()}"
    )
    print(
        f"total wall: hockeystick {sum(r['ours_wall'] for r in rows):.1f} s, "
        f"dp_accounting {sum(r['their_wall'] for r in rows):.1f} s"
    )
    print(
        f"certified width: ours median {np.median(ours_w):.2e} max {ours_w.max():.2e}; dp_accounting's "
        f"(pessimistic - optimistic) median {np.median(their_w):.2e}; ours narrower on "
        f"{(ours_w <= their_w).sum()} of {len(rows)}"
    )
    print(
        f"our upper - their pessimistic: default max {default_above.max():.2e} (tree "
        f"{rows[int(np.argmax(default_above))]['seed']}), above on {(default_above > 0).sum()}; at "
        f"accuracy 1e-4 max {above.max():.2e} (tree {rows[int(np.argmax(above))]['seed']}), median "
        f"{np.median(above):.2e}; brackets consistent with theirs: {ok}"
    )
    for i, r in enumerate(
        rows
    ):  # where not: by how much (their estimates carry their own round-off)
        if not (r["upper"] >= r["optimistic"] - 1e-12 and r["lower"] <= r["pessimistic"] + 1e-12):
            print(
                f"  tree {i}: our lower - their pessimistic {r['lower'] - r['pessimistic']:.2e}, "
                f"their optimistic - our upper {r['optimistic'] - r['upper']:.2e}"
            )


def tracking(repeats: int = 3) -> None:
    from dp_accounting import dp_event as E
    from dp_accounting.pld.pld_privacy_accountant import PLDAccountant
    from dp_accounting.rdp.rdp_privacy_accountant import RdpAccountant

    from hockeystick.interop.opacus import HockeystickOpacusAccountant

    def ours():
        acc = HockeystickOpacusAccountant()
        for _ in range(STEPS):
            acc.step(noise_multiplier=SIGMA, sample_rate=SAMPLE_RATE)
        return acc.get_epsilon_bracket(DELTA)

    event = E.SelfComposedDpEvent(
        E.PoissonSampledDpEvent(SAMPLE_RATE, E.GaussianDpEvent(SIGMA)), STEPS
    )
    runs = {
        "hockeystick (Opacus IAccountant), bracket": ours,
        "dp_accounting PLD 1e-4": lambda: PLDAccountant().compose(event).get_epsilon(DELTA),
        "dp_accounting RDP": lambda: RdpAccountant().compose(event).get_epsilon(DELTA),
    }
    try:
        from opacus.accountants import PRVAccountant, RDPAccountant

        def opacus(cls):
            def run():
                acc = cls()
                for _ in range(STEPS):
                    acc.step(noise_multiplier=SIGMA, sample_rate=SAMPLE_RATE)
                return acc.get_epsilon(DELTA)

            return run

        runs["Opacus PRV"] = opacus(PRVAccountant)
        runs["Opacus RDP"] = opacus(RDPAccountant)
    except ImportError:
        print("Opacus is not installed: its PRV and RDP accountants are not measured")
    for fn in runs.values():  # warm
        fn()
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in runs}
    results = {}
    for _ in range(repeats):  # interleaved
        for name, fn in runs.items():
            results[name], wall, cpu = _timed(fn)
            times[name].append((wall, cpu))
    print(
        f"\nDP-SGD tracking: {STEPS} steps, q = 256/60000, sigma = {SIGMA}, epsilon at delta = {DELTA} "
        f"(median of {repeats})"
    )
    for name in runs:
        wall = statistics.median(t[0] for t in times[name])
        cpu = statistics.median(t[1] for t in times[name])
        print(f"  {name:45s} {wall:8.3f} s wall {cpu:8.3f} s CPU  epsilon {results[name]}")


EPOCH_STEPS, EPOCHS = 235, 60


def along_run(repeats: int = 3, epochs: int = EPOCHS) -> dict[str, tuple[float, float]]:
    """The CPU and wall medians of each way to get epsilon after every epoch (module docstring), printed."""
    from dp_accounting import dp_event as E
    from dp_accounting.pld.pld_privacy_accountant import PLDAccountant

    from hockeystick.pld import SubsampledGaussianPLD

    steps = EPOCH_STEPS * epochs

    def accountant(rounds: int) -> SubsampledGaussianPLD:
        return SubsampledGaussianPLD(SIGMA, SAMPLE_RATE, rounds, workers=1)

    def theirs_by_epoch() -> list[float]:
        acc, out = PLDAccountant(), []
        for _ in range(epochs):
            acc.compose(E.PoissonSampledDpEvent(SAMPLE_RATE, E.GaussianDpEvent(SIGMA)), EPOCH_STEPS)
            out.append(acc.get_epsilon(DELTA))
        return out

    runs = {
        "hockeystick epsilon_curve, both sides": lambda: accountant(steps).epsilon_curve(
            DELTA, every=EPOCH_STEPS
        ),
        "hockeystick last step alone, both sides": lambda: accountant(steps).epsilon(
            DELTA, bound="both"
        ),
        "hockeystick loop over the epochs": lambda: [
            accountant(EPOCH_STEPS * e).epsilon(DELTA, bound="both") for e in range(1, epochs + 1)
        ],
        "dp_accounting PLD 1e-4, epoch by epoch": theirs_by_epoch,
    }
    try:
        from opacus.accountants import PRVAccountant

        def opacus_by_epoch() -> list[float]:
            acc, out = PRVAccountant(), []
            for _ in range(epochs):
                for _ in range(EPOCH_STEPS):
                    acc.step(noise_multiplier=SIGMA, sample_rate=SAMPLE_RATE)
                out.append(acc.get_epsilon(DELTA))
            return out

        runs["Opacus PRV, epoch by epoch"] = opacus_by_epoch
    except ImportError:
        print("Opacus is not installed: its PRV accountant is not measured")
    results = {name: fn() for name, fn in runs.items()}  # warm
    curve = results["hockeystick epsilon_curve, both sides"]
    theirs = np.asarray(results["dp_accounting PLD 1e-4, epoch by epoch"])
    assert np.all(curve.lower <= curve.upper) and np.all(np.abs(curve.upper - theirs) <= 1e-3), (
        curve,
        theirs,
    )
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in runs}
    for _ in range(repeats):  # interleaved
        for name, fn in runs.items():
            _, wall, cpu = _timed(fn)
            times[name].append((cpu, wall))
    medians = {
        k: (statistics.median(c for c, _ in v), statistics.median(w for _, w in v))
        for k, v in times.items()
    }
    last = medians["hockeystick last step alone, both sides"][0]
    print(
        f"\nepsilon after each of {epochs} epochs of {EPOCH_STEPS} steps, q = 256/60000, sigma = {SIGMA}, "
        f"delta = {DELTA} (median of {repeats}, load average {os.getloadavg()[0]:.2f})"
    )
    for name, (cpu, wall) in medians.items():
        print(
            f"  {name:45s} {cpu:8.4f} s CPU {wall:8.4f} s wall  {cpu / last:8.1f} last-step evaluations (CPU)"
        )
    return medians


def test_trees_smoke():
    rows = [run_tree(s) for s in range(2)]
    assert all(r["upper"] >= r["optimistic"] - 1e-12 for r in rows)
    assert all(r["optimistic"] - 1e-12 <= r["default_upper"] >= r["default_lower"] for r in rows)


def test_merged_passes_take_each_trees_median_times():
    passes = [
        [dict(seed=0, event=None, upper=1.5, default_cpu=c, their_wall=2 * c)]
        for c in (3.0, 1.0, 2.0)
    ]
    [row] = merged_passes(passes)
    assert (row["default_cpu"], row["their_wall"], row["upper"]) == (2.0, 4.0, 1.5)
    passes[1][0]["upper"] = 1.25
    with pytest.raises(AssertionError):
        merged_passes(passes)


def test_tracking_smoke():
    from hockeystick.interop.opacus import HockeystickOpacusAccountant

    acc = HockeystickOpacusAccountant()
    for _ in range(100):
        acc.step(noise_multiplier=SIGMA, sample_rate=SAMPLE_RATE)
    assert len(acc) == 100 and acc.get_epsilon(DELTA) > 0


def test_along_run_smoke():
    medians = along_run(repeats=1, epochs=3)
    assert all(cpu > 0 for cpu, _ in medians.values())


def compiled_bytecode() -> None:
    """Compiles hockeystick's modules to bytecode before anything is timed, as pip compiles an
    installed wheel's (and dp_accounting's): from a source tree whose bytecode is not written
    (PYTHONDONTWRITEBYTECODE), a module imported on first use would otherwise be compiled inside the
    timed call that first reaches it, in every fresh pass."""
    import compileall

    import hockeystick

    compileall.compile_dir(os.path.dirname(hockeystick.__file__), quiet=1)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--trees", type=int, default=200)
    parser.add_argument(
        "--delta", type=float, default=TREE_DELTA, help="the trees' delta (default 1e-6)"
    )
    parser.add_argument("--skip-tracking", action="store_true")
    parser.add_argument("--skip-trees", action="store_true")
    parser.add_argument("--skip-along-run", action="store_true")
    parser.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="interleaved runs per tree in one process (times are medians; each column forgets "
        "the answers kept before it)",
    )
    parser.add_argument(
        "--passes",
        type=int,
        default=1,
        help="passes over the trees, each in a fresh process (times are each tree's medians)",
    )
    parser.add_argument(
        "--slow",
        action="store_true",
        help="print only the trees under 10x (CPU, the default adapter), with their event "
        "and the compose / epsilon split of both",
    )
    args = parser.parse_args()
    logging.getLogger().setLevel(
        logging.ERROR
    )  # dp_accounting warns on every (untimed) optimistic PLD
    print(
        "load average at start:",
        os.getloadavg(),
        f"{cpu_id()}, {os.cpu_count()} cores",
        f"{os.cpu_count()} cores",
        {k: os.environ.get(k) for k in ("OMP_WAIT_POLICY", "OMP_NUM_THREADS")},
    )
    compiled_bytecode()
    if not args.skip_tracking:
        tracking()
    if not args.skip_along_run:
        along_run()
    if not args.skip_trees:
        summarize_trees(
            tree_passes(args.trees, args.passes, args.slow, args.delta)
            if args.passes > 1
            else trees(args.trees, args.repeats, args.slow, args.delta)
        )
    print("load average at end:", os.getloadavg())


if __name__ == "__main__":
    main()
