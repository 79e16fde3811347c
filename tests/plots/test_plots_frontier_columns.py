"""frontier_plot refuses a column argument that names no column of the rows as simulate's frontier does:
a ValueError naming the argument and listing the columns, never pandas' KeyError."""

from __future__ import annotations

import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("pandas")
pytest.importorskip("numba")

from hockeystick.base.validation import ParameterTypeError  # noqa: E402
from hockeystick.plots import frontier_plot  # noqa: E402
from hockeystick.simulate.frontier import frontier  # noqa: E402

ROWS = [
    {
        "lr": lr,
        "algo": algo,
        "seed": seed,
        "epsilon": eps,
        "delta": 1e-5,
        "test_accuracy": 0.5 + 0.1 * eps + 0.01 * seed,
    }
    for algo in ("a", "b")
    for lr, eps in ((0.1, 1.0), (0.2, 2.0))
    for seed in (0, 1)
]
LISTED = "'lr', 'algo', 'seed', 'epsilon', 'delta', 'test_accuracy'"


def _refusal(tmp_path, rows=ROWS, **kwargs) -> str:
    with pytest.raises(ValueError) as err:
        frontier_plot(rows, tmp_path / "frontier.png", **kwargs)
    assert not isinstance(err.value, KeyError)
    assert not (tmp_path / "frontier.png").exists()
    return str(err.value)


def test_drawn_with_a_column_of_the_rows(tmp_path):
    assert frontier_plot(
        ROWS, tmp_path / "f.png", algorithm_column="algo", parameters=["lr"]
    ).endswith("f.png")


def test_algorithm_column_not_a_column(tmp_path):
    message = _refusal(tmp_path, algorithm_column="algorithm")
    assert (
        message
        == f"algorithm_column must be a column of the rows (one of {LISTED}), got 'algorithm'"
    )
    with pytest.raises(ValueError, match="algorithm_column 'algorithm' is not a column"):
        frontier(ROWS, algorithm_column="algorithm")  # the same mistake, refused alike


def test_algorithm_column_given_as_a_list(tmp_path):
    assert _refusal(tmp_path, algorithm_column=["algo"]).startswith(
        "algorithm_column must be a column of the rows"
    )


def test_metric_not_a_column(tmp_path):
    message = _refusal(tmp_path, metric="test_loss")
    assert message == f"metric must be a column of the rows (one of {LISTED}), got 'test_loss'"


def test_rows_without_the_metric(tmp_path):
    rows = [{k: v for k, v in row.items() if k != "test_accuracy"} for row in ROWS]
    assert _refusal(tmp_path, rows).startswith(
        "metric must be a column of the rows (one of 'lr', 'algo'"
    )


def test_parameters_not_columns(tmp_path):
    message = _refusal(tmp_path, parameters=["lr", "rate"])
    assert message.startswith(
        f"parameters must be columns of the rows (one of {LISTED}), got ['lr', 'rate']"
    )
    assert "'rate' is not among them" in message


def test_parameters_as_one_string(tmp_path):
    with pytest.raises(
        ParameterTypeError, match=r"^parameters must be a sequence of column names, got 'lr'"
    ):
        frontier_plot(ROWS, tmp_path / "f.png", parameters="lr")


def test_parameters_holding_the_algorithm_column(tmp_path):
    message = _refusal(tmp_path, algorithm_column="algo", parameters=["lr", "algo"])
    assert message.startswith("parameters must not hold algorithm_column 'algo'")


def test_rows_without_epsilon(tmp_path):
    rows = [{k: v for k, v in row.items() if k != "epsilon"} for row in ROWS]
    assert _refusal(tmp_path, rows).startswith(
        "rows must have an 'epsilon' column, got the columns 'lr'"
    )


def test_no_rows(tmp_path):
    assert _refusal(tmp_path, []) == "rows must hold at least one run, got none"


@pytest.mark.parametrize(
    ("bound", "columns"),
    [
        ([{"eps": 1.0, "value": 0.5}], "'eps', 'value'"),
        ([{"epsilon": 1.0, "v": 0.5}], "'epsilon', 'v'"),
    ],
)
def test_bound_without_epsilon_or_value(tmp_path, bound, columns):
    message = _refusal(tmp_path, bound=bound)
    assert (
        message == f"bound must have the columns 'epsilon' and 'value', got the columns {columns}"
    )
