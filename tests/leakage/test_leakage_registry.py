"""Paper 001's leakage calculators in the registry: sweeps compute what the functions compute.

A calculator is not an (epsilon, delta) accountant: a sweep over it outputs its quantity
(``tv``), or a parameter it can solve for (``distortion_variance``) from a target value
of that quantity.  The values must be exactly what a direct call returns, the solved
parameter must reproduce the target, and every misuse is refused before any work.
"""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick import leakage, registry
from hockeystick.sweep import Grid, run_sweep

DIRECT = {
    "leakage_tv": lambda p: leakage.tv_exact(
        p["variance"], p["distortion_variance"], p["dimension"]
    ),
    "leakage_js": lambda p: leakage.js_exact(
        p["variance"], p["distortion_variance"], p["dimension"]
    ),
    "leakage_tv_lemma_5_7_lower": lambda p: leakage.tv_bracket(
        p["variance"], p["distortion_variance"], p["dimension"]
    )[0],
    "leakage_tv_lemma_5_7_upper": lambda p: leakage.tv_bracket(
        p["variance"], p["distortion_variance"], p["dimension"]
    )[1],
}
GRID = {"variance": [0.5, 2.0], "distortion_variance": "log:1e-3:10:7", "dimension": "1,10,1000"}


def _table(names: list[str], output: str, parameters: dict) -> object:
    return run_sweep(Grid.from_parameters(names, output, parameters), progress=False).to_pandas()


@pytest.mark.parametrize("name", sorted(DIRECT))
def test_a_calculator_sweep_equals_the_function_called_directly(name):
    table = _table([name], registry.lookup(name).quantity, GRID)
    expected = DIRECT[name](table)
    np.testing.assert_array_equal(
        table[registry.lookup(name).quantity].to_numpy(), np.asarray(expected)
    )


def test_several_calculators_give_one_column_each_and_no_best():
    names = ["leakage_tv", "leakage_tv_lemma_5_7_lower", "leakage_tv_lemma_5_7_upper"]
    table = _table(names, "tv", GRID)
    assert [c for c in table.columns if c.startswith("tv")] == [f"tv_{n}" for n in names]
    assert "best" not in table.columns
    for name in names:
        np.testing.assert_array_equal(
            table[f"tv_{name}"].to_numpy(), np.asarray(DIRECT[name](table))
        )


def test_the_lemma_brackets_exact_tv_where_the_paper_says_so():
    """Lemma 5.7's bracket holds for zero-mean distortion (docs/paper-001-errata.md, table 1):
    the sweep shows it point by point beside the exact value."""
    table = _table(
        ["leakage_tv", "leakage_tv_lemma_5_7_lower", "leakage_tv_lemma_5_7_upper"], "tv", GRID
    )
    assert (table["tv_leakage_tv_lemma_5_7_lower"] <= table["tv_leakage_tv"]).all()
    assert (table["tv_leakage_tv"] <= table["tv_leakage_tv_lemma_5_7_upper"]).all()


def test_solving_for_the_distortion_variance_meets_the_target_tv():
    table = _table(
        ["leakage_tv"],
        "distortion_variance",
        {"variance": [0.5, 2.0], "tv": "1e-4,0.01,0.3,0.9", "dimension": "1,7,500"},
    )
    achieved = leakage.tv_exact(table["variance"], table["distortion_variance"], table["dimension"])
    np.testing.assert_allclose(achieved, table["tv"], rtol=1e-10)
    np.testing.assert_array_equal(
        table["distortion_variance"],
        leakage.distortion_variance_for_tv(table["variance"], table["dimension"], table["tv"]),
    )


def test_the_paper_calibration_is_a_sweep_too_with_its_validity_range_enforced():
    table = _table(
        ["leakage_distortion_lemma_5_8"],
        "distortion_variance",
        {"variance": 1.0, "dimension": "1,100", "c1": 0.5, "tau": "0.491,0.499"},
    )
    np.testing.assert_array_equal(
        table["distortion_variance"],
        leakage.paper_distortion_variance(1.0, table["dimension"], 0.5, table["tau"]),
    )
    with pytest.raises(ValueError, match="0 < c1 - tau < 0.01"):
        run_sweep(
            Grid.from_parameters(
                ["leakage_distortion_lemma_5_8"],
                "distortion_variance",
                {"variance": 1.0, "dimension": 10, "c1": 0.5, "tau": "0.3,0.499"},
            )
        )


@pytest.mark.parametrize(
    "names, output, parameters, message",
    [
        (["leakage_tv", "gaussian"], "tv", {}, "accountants or calculators, not both"),
        (
            ["leakage_tv"],
            "delta",
            {"variance": 1, "distortion_variance": 1, "dimension": 1},
            "output must be 'tv'",
        ),
        (
            ["leakage_tv"],
            "distortion_variance",
            {"variance": 1, "dimension": 1, "tv": 0.1, "shift": 0.0},
            "unknown parameter",
        ),
        (["leakage_tv"], "tv", {"variance": 1, "dimension": 1}, "needs 'distortion_variance'"),
        (
            ["leakage_tv", "leakage_js"],
            "tv",
            {"variance": 1, "dimension": 1},
            "different quantities",
        ),
        (
            ["leakage_tv"],
            "tv",
            {"variance": 1, "distortion_variance": 1, "dimension": 1, "tv": 0.1},
            "what the sweep computes",
        ),
        (
            ["leakage_tv"],
            "tv",
            {"variance": 1, "distortion_variance": 1, "dimension": 1.5},
            "integers",
        ),
    ],
)
def test_misuse_is_refused_when_the_grid_is_built(names, output, parameters, message):
    with pytest.raises(ValueError, match=message):
        Grid.from_parameters(names, output, parameters)


def test_bad_values_are_refused_before_any_chunk_runs():
    grid = Grid.from_parameters(
        ["leakage_tv"], "tv", {"variance": "1,-1", "distortion_variance": 1.0, "dimension": 3}
    )
    with pytest.raises(ValueError, match="variance"):
        run_sweep(grid, progress=False)


def test_a_misspelled_name_suggests_the_registered_one():
    with pytest.raises(ValueError, match="did you mean 'leakage_tv'"):
        Grid.from_parameters(["leakage_tvv"], "tv", {})


def test_every_calculator_is_labelled_exact_or_paper_formula_and_its_function_says_so():
    for name in registry.calculator_names():
        entry = registry.lookup(name)
        assert entry.kind in ("exact", "paper formula, not a guarantee")
        assert entry.kind in " ".join((entry.factory.__doc__ or "").split()), name


# --- the command line ---------------------------------------------------------------------------


def test_the_cli_sweeps_calculators_and_writes_the_same_values(tmp_path, capsys):
    from hockeystick.cli import main

    out = tmp_path / "tv.csv"
    assert (
        main(
            [
                "sweep",
                "-a",
                "leakage_tv,leakage_tv_lemma_5_7_upper",
                "-p",
                "variance=1",
                "-p",
                "distortion_variance=log:1e-3:1:4",
                "-p",
                "dimension=10",
                "-o",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    import pandas as pd

    table = pd.read_csv(out)
    np.testing.assert_array_equal(
        table["tv_leakage_tv"], leakage.tv_exact(1.0, table["distortion_variance"], 10)
    )
    np.testing.assert_array_equal(
        table["tv_leakage_tv_lemma_5_7_upper"],
        leakage.tv_bracket(1.0, table["distortion_variance"], 10)[1],
    )


def test_the_cli_calibrates_the_distortion_for_a_target_tv(capsys):
    from hockeystick.cli import main

    assert (
        main(
            [
                "calibrate",
                "-a",
                "leakage_tv",
                "-p",
                "tv=0.1",
                "-p",
                "variance=2",
                "-p",
                "dimension=10",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    expected = leakage.distortion_variance_for_tv(2.0, 10, 0.1)
    assert f"{expected:g}" in printed


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["calibrate", "-a", "leakage_tv", "-p", "variance=1", "-p", "dimension=10"],
            "give -p tv=VALUE",
        ),
        (
            [
                "epsilon",
                "-a",
                "leakage_tv",
                "-p",
                "variance=1",
                "-p",
                "distortion_variance=1",
                "-p",
                "dimension=1",
            ],
            "output must be 'tv'",
        ),
        (
            ["sweep", "-a", "leakage_tvv", "-p", "variance=1", "-o", "x.csv"],
            "did you mean 'leakage_tv'",
        ),
    ],
)
def test_cli_misuse_exits_2_with_one_line(argv, message, capsys, tmp_path, monkeypatch):
    from hockeystick.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert message in err[-1] and "Traceback" not in "\n".join(err)


def test_the_accountants_listing_names_every_calculator_and_its_kind(capsys):
    from hockeystick.cli import main

    assert main(["accountants"]) == 0
    out = capsys.readouterr().out
    for name in registry.calculator_names():
        entry = registry.lookup(name)
        assert f"{name} -> {entry.quantity} ({entry.kind})" in out


def test_a_calculator_has_no_lower_side_to_ask_for():
    with pytest.raises(ValueError, match="calculators compute values, not brackets"):
        Grid.from_parameters(
            ["leakage_tv"], "tv", {"variance": 1, "distortion_variance": 1, "dimension": 1}, "lower"
        )


def test_a_calculator_sweep_is_a_labelled_dataset_too():
    result = run_sweep(Grid.from_parameters(["leakage_tv"], "tv", GRID), progress=False)
    data = result.to_xarray()
    assert set(data.sizes) == {"variance", "distortion_variance", "dimension"}
    np.testing.assert_array_equal(
        data["tv"].sel(variance=2.0, dimension=10).to_numpy(),
        leakage.tv_exact(2.0, data["distortion_variance"].to_numpy(), 10),
    )
