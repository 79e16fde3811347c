"""The ratio harness itself: every declared benchmark builds and agrees with its anchor at the short
size, the gate fails exactly on drops beyond tolerance, and the table generator rewrites only its blocks."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from gate import BASELINES, for_machine, judge
from measure import Effort, measure, median_interval
from ratio import REGISTRY, Pair, RatioBenchmark, discover, ratio
from results import read
from tables import merge, render_baselines, render_run, replace_block

discover()


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_declared_benchmark_runs_and_agrees_with_its_anchor(name: str) -> None:
    """One call of each side at the short size, and the benchmark's own agreement check."""
    pair = REGISTRY[name].build("short")
    ours, theirs = pair.ours(), pair.anchor()
    if pair.check is not None:
        pair.check(ours, theirs)
    assert pair.ours_items > 0 and pair.anchor_items > 0


def test_every_declared_benchmark_has_a_committed_baseline() -> None:
    """A new @ratio declaration must come with its baseline (python bench/run.py --update-baselines --only NAME)."""
    base = read(BASELINES)
    assert sorted(REGISTRY) == sorted(base["benchmarks"])
    assert 0 < base["tolerance"]["default"] < 1 and base["tolerance"]["how_chosen"]


def _baselines(ratio_value: float, tolerance: float) -> dict:
    return {
        "tolerance": {"default": tolerance, "how_chosen": "test"},
        "benchmarks": {"b": {"ratio": ratio_value}},
    }


@pytest.mark.parametrize(
    "measured,failed", [(5.0, False), (4.01, False), (3.99, True), (6.0, False), (None, True)]
)
def test_gate_fails_only_on_a_drop_beyond_tolerance(measured: float | None, failed: bool) -> None:
    ratios = {} if measured is None else {"b": measured}
    (verdict,) = judge(ratios, _baselines(5.0, 0.2), ["b"])
    assert verdict.failed is failed
    if failed:
        assert verdict.message().startswith("FAIL") and "b" in verdict.message()
    if measured is not None:
        assert verdict.drop == pytest.approx(1 - measured / 5.0)


def test_gate_names_the_benchmark_and_the_drop() -> None:
    (verdict,) = judge({"b": 3.0}, _baselines(5.0, 0.2), ["b"])
    assert (
        "b" in verdict.message()
        and "dropped 40.0%" in verdict.message()
        and "tolerance 20%" in verdict.message()
    )


def test_gate_per_benchmark_tolerance_overrides_the_default() -> None:
    base = _baselines(5.0, 0.2)
    base["tolerance"]["per_benchmark"] = {"b": 0.5}
    assert not judge({"b": 3.0}, base, ["b"])[0].failed


def test_new_benchmark_without_baseline_does_not_fail() -> None:
    (verdict,) = judge({"new": 1.0}, _baselines(5.0, 0.2), ["new"])
    assert not verdict.failed and verdict.message().startswith("NEW")


def _recorded(reference: dict[str, float], by_machine: dict[str, dict[str, float]]) -> dict:
    base = _baselines(1.0, 0.25)
    base["benchmarks"] = {n: {"ratio": r} for n, r in reference.items()}
    base["by_machine"] = {
        c: {"benchmarks": {n: {"ratio": r} for n, r in rs.items()}} for c, rs in by_machine.items()
    }
    return base


def test_a_recorded_cpu_is_judged_against_its_own_figures() -> None:
    """W4 at 72x on a Zen 1 EPYC and 44x on a Xeon: a fall to 50x fails on the EPYC and passes on the
    Xeon; theta at 2.7x on the EPYC and 3.7x on the Xeon: 2.7x passes on the EPYC."""
    base = _recorded(
        {"w4": 44.0, "theta": 3.7},
        {
            "AMD EPYC (family 23, model 1)": {"w4": 72.0, "theta": 2.7},
            "Intel Xeon (family 6, model 85)": {"w4": 44.0, "theta": 3.7},
        },
    )
    epyc = for_machine(base, "AMD EPYC (family 23, model 1)")
    assert epyc["resolved"] == {
        "w4": "AMD EPYC (family 23, model 1)",
        "theta": "AMD EPYC (family 23, model 1)",
    }
    assert [v.failed for v in judge({"w4": 50.0, "theta": 2.7}, epyc, ["w4", "theta"])] == [
        True,
        False,
    ]
    xeon = for_machine(base, "Intel Xeon (family 6, model 85)")
    assert [v.failed for v in judge({"w4": 50.0, "theta": 2.7}, xeon, ["w4", "theta"])] == [
        False,
        True,
    ]
    assert "by_machine" not in epyc and base["by_machine"]  # the input is left as it was


def test_an_unrecorded_cpu_is_judged_against_the_least_recorded_figure() -> None:
    base = _recorded(
        {"w4": 44.0, "theta": 3.7, "only_ref": 5.0},
        {"A": {"w4": 72.0, "theta": 2.7}, "B": {"w4": 60.0, "theta": 3.0}},
    )
    other = for_machine(base, "Some new CPU")
    assert {n: b["ratio"] for n, b in other["benchmarks"].items()} == {
        "w4": 44.0,
        "theta": 2.7,
        "only_ref": 5.0,
    }
    assert other["resolved"] == {"w4": "reference", "theta": "A", "only_ref": "reference"}
    # a benchmark the CPU's own record lacks (added later, --only) falls back to the least figure too
    assert for_machine(base, "A")["resolved"]["only_ref"] == "reference"
    assert (
        not judge({"theta": 2.1}, other, ["theta"])[0].failed
        and judge({"theta": 2.0}, other, ["theta"])[0].failed
    )


def test_committed_machine_baselines_name_declared_benchmarks() -> None:
    """A CPU's record names declared benchmarks only; one declared after the record was taken is judged on that
    CPU against the least recorded figure (``for_machine``), until the record is refreshed
    (``python bench/run.py --update-machine-baselines --only NAME`` on that CPU)."""
    base = read(BASELINES)
    for cpu, run in base.get("by_machine", {}).items():
        assert set(run["benchmarks"]) <= set(REGISTRY), cpu
        assert run["machine"]["cpu_id"] == cpu
        resolved = for_machine(base, cpu)["resolved"]
        assert sorted(resolved) == sorted(REGISTRY), cpu


def test_median_interval_holds_the_median_and_narrows_with_more_pairs() -> None:
    rng = np.random.default_rng(0)
    small, large = rng.normal(1.0, 0.1, 9), rng.normal(1.0, 0.1, 401)
    for sample in (small, large):
        lo, hi = median_interval(sample)
        assert lo <= np.median(sample) <= hi
    assert np.subtract(*median_interval(large)[::-1]) < np.subtract(*median_interval(small)[::-1])


@pytest.mark.slow
def test_measure_recovers_a_known_ratio_and_discards_the_first_call() -> None:
    """The anchor costs exactly 4x ours per item (busy loops of known length); its first call is slow."""
    import time

    def spin(seconds: float) -> None:
        end = time.process_time() + seconds
        while time.process_time() < end:
            pass

    calls = {"anchor": 0}

    def anchor() -> None:
        calls["anchor"] += 1
        spin(0.02 if calls["anchor"] == 1 else 0.004)

    bench = RatioBenchmark(
        "spin",
        "spin",
        "spin",
        "t",
        "items",
        "cpu",
        None,
        lambda size: Pair(ours=lambda: spin(0.002), anchor=anchor, ours_items=2, anchor_items=1),
    )
    rec = measure(bench, "short", Effort(min_pairs=5, max_pairs=9, budget=120.0, target=0.5))
    assert rec["ratio"] == pytest.approx(4.0, rel=0.15)
    assert rec["anchor_first_seconds"] > 3 * rec["anchor_seconds"]
    assert rec["pairs"] >= 5 and rec["ratio_ci95"][0] <= rec["ratio"] <= rec["ratio_ci95"][1]


def test_declaring_the_same_name_twice_from_elsewhere_is_refused() -> None:
    name = sorted(REGISTRY)[0]
    with pytest.raises(ValueError, match="declared twice"):
        ratio(name, title="t", anchor="a", table="t")(lambda size: Pair(ours=int, anchor=int))


def test_replace_block_rewrites_only_between_its_markers() -> None:
    text = (
        "narrative 1\n<!-- begin generated: ratios/x -->\nold\n<!-- end generated: ratios/x -->\nnarrative 2\n"
        "<!-- begin generated: ratios/y -->\nkeep\n<!-- end generated: ratios/y -->\n"
    )
    out = replace_block(text, "ratios/x", "new table")
    assert out == text.replace("old", "new table")
    with pytest.raises(ValueError, match="ratios/z"):
        replace_block(text, "ratios/z", "t")


def test_readme_tables_are_the_generated_ones() -> None:
    """bench/README.md's baseline block is exactly what tables.py renders from the committed baselines."""
    readme = (Path(__file__).parent / "README.md").read_text()
    base = read(BASELINES)
    assert replace_block(readme, "gate/baselines", render_baselines(base)) == readme


def test_render_run_states_load_and_cores_beside_every_row() -> None:
    run = copy.deepcopy(read(BASELINES))
    run["benchmarks"] = {k: v for k, v in run["benchmarks"].items() if v["table"] == "theta"}
    table = render_run(run, "theta")
    rows = [line for line in table.splitlines() if line.startswith("| ") and "`" in line]
    assert rows and all(line.rstrip(" |").endswith(f", {run['machine']['cores']}") for line in rows)
    json.dumps(run)  # the stored form stays JSON


def test_merge_lets_a_later_run_replace_rows_and_refuses_mixed_sizes() -> None:
    first = copy.deepcopy(read(BASELINES))
    name = sorted(first["benchmarks"])[0]
    second = copy.deepcopy(first)
    second["benchmarks"] = {name: {**first["benchmarks"][name], "ratio": 123.0}}
    merged = merge([first, second])
    assert merged["benchmarks"][name]["ratio"] == 123.0
    assert set(merged["benchmarks"]) == set(first["benchmarks"])
    with pytest.raises(ValueError, match="same size"):
        merge([first, {**second, "size": "full"}])


def test_lanes_measure_benchmarks_at_once_and_keep_their_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``run_all`` with two lanes has two children running at once and stores the records in the order asked;
    one lane runs them one after another."""
    import run  # here: its import sets OMP_NUM_THREADS for the process

    names = sorted(REGISTRY)[:5]
    lock = threading.Lock()
    running, most = 0, 0

    def fake(name: str, size: str, effort: Effort) -> dict:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.05 * (len(names) - names.index(name)))  # the first asked finishes last
        with lock:
            running -= 1
        return {
            "ratio": float(names.index(name) + 1),
            "ratio_ci95": [1.0, 1.0],
            "pairs": 9,
            "ours_seconds": 1.0,
            "anchor_seconds": 1.0,
            "load_average": [0.0, 0.0, 0.0],
            "heap": "steady",
        }

    monkeypatch.setattr(run, "measure_isolated", fake)
    monkeypatch.setattr(run, "machine", lambda root: {})
    for lanes, expected in ((2, 2), (1, 1)):
        most = 0
        measured = run.run_all(names, "short", run.SHORT_EFFORT, lanes)
        assert list(measured["benchmarks"]) == names
        assert [b["ratio"] for b in measured["benchmarks"].values()] == [1.0, 2.0, 3.0, 4.0, 5.0]
        assert most == expected


def test_lanes_below_one_are_refused_naming_the_flag() -> None:
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("run.py")), "--lanes", "0"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "--lanes must be at least 1, got 0" in done.stderr
