"""compose --every / --budget: a schedule file followed round by round. The rows are the one-off brackets of
the prefixes, and the budget's round R is a crossing of the certified upper side (R within, R + 1 past it), checked
against one-off compositions of the two prefixes; bad flags are refused naming them."""

from __future__ import annotations

import functools
import json

import pytest

from hockeystick.cli import main
from hockeystick.pld.accountants.stages import compose_stages

SCHEDULE = [
    {"mechanism": "subsampled_gaussian", "sigma": 1.1, "sampling_rate": 0.01, "rounds": 30},
    {"mechanism": "subsampled_gaussian", "sigma": 0.8, "sampling_rate": 0.01, "rounds": 20},
]
TOML = "".join(
    f'[[stage]]\nmechanism = "{s["mechanism"]}"\nsigma = {s["sigma"]}\nsampling_rate = {s["sampling_rate"]}\n'
    f"rounds = {s['rounds']}\n"
    for s in SCHEDULE
)


@functools.cache  # the budget's rounds and the rows share prefixes: each composed once
def one_off(rounds: int) -> tuple[float, float]:
    """The certified bracket of the schedule's first ``rounds`` rounds, composed on their own."""
    first = min(rounds, SCHEDULE[0]["rounds"])
    stages = [dict(SCHEDULE[0], rounds=first)] + (
        [dict(SCHEDULE[1], rounds=rounds - first)] if rounds > first else []
    )
    return compose_stages(stages).epsilon(1e-5, bound="both")


def run(capsys, tmp_path, *flags: str) -> tuple[int, str, str]:
    path = tmp_path / "schedule.toml"
    path.write_text(TOML)
    code = main(["compose", str(path), "--delta", "1e-5", *flags])
    out, err = capsys.readouterr()
    return code, out, err


def test_every_prints_each_prefix_bracket_and_the_budget_its_crossing(capsys, tmp_path):
    """Checkpoints every 20 rounds of 30 + 20, a budget between rounds 35 and 36: the crossing lies in the second
    stage between two checkpoints (20 within, 40 past), so the bisection probes prefixes spanning both stages, as
    it does on a longer schedule, at a tenth of the rounds each prefix composes."""
    whole = one_off(50)
    budget = round(
        0.5 * (one_off(35)[1] + one_off(36)[1]), 12
    )  # between the upper sides at 35 and 36
    code, out, err = run(
        capsys, tmp_path, "--every", "20", "--budget", repr(budget), "--format", "json"
    )
    assert code == 0, err
    rows = {row["rounds"]: row for row in json.loads(out)}
    assert sorted(rows) == [20, 35, 36, 40, 50]
    for rounds, row in rows.items():
        lower, upper = one_off(rounds)
        assert row["epsilon_lower"] == pytest.approx(lower, rel=1e-7)
        assert row["epsilon_upper"] == pytest.approx(upper, rel=1e-7)
        assert row["within_budget"] == (row["epsilon_upper"] <= budget)
    assert rows[35]["within_budget"] and not rows[36]["within_budget"]
    assert rows[50]["epsilon_upper"] == pytest.approx(whole[1], rel=1e-7)


def test_the_table_names_the_round_and_the_whole_run_within_a_large_budget(capsys, tmp_path):
    code, out, _ = run(capsys, tmp_path, "--budget", "1000")
    assert code == 0 and "the whole run (50 rounds) is within it" in out
    code, out, _ = run(capsys, tmp_path, "--budget", "1e-4")
    assert code == 0 and "the first round already passes it" in out


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--every", "0"], "--every"),
        (["--every", "x"], "--every"),
        (["--budget", "-1"], "--budget"),
        (["--budget", "nan"], "--budget"),
        (["--budget", "2", "--bound", "upper"], "--bound"),
        (["--every", "10", "--delta", "1e-5,1e-6"], "one --delta"),
    ],
)
def test_bad_flags_are_refused_naming_them(capsys, tmp_path, flags, words):
    path = tmp_path / "schedule.toml"
    path.write_text(TOML)
    argv = ["compose", str(path)] + (["--delta", "1e-5"] if "--delta" not in flags else []) + flags
    assert main(argv) == 2
    assert words in capsys.readouterr().err
