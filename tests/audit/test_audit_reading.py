"""What the audit reads and refuses: every row of a CSV file (as Python's csv module parses it, the reference),
a ``Scores`` built by its constructor, and errors that name the argument.

The property test writes random tables with the csv module (quoted fields, ``#`` anywhere, commas and quotes
inside fields, CRLF or LF, a UTF-8 byte-order mark, extra columns in any order) and checks that ``read_csv``
returns exactly the written scores on each side."""

from __future__ import annotations

import csv
import io
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hockeystick import audit, registry
from hockeystick.base.validation import ParameterTypeError

RNG = np.random.default_rng(8)
IN, OUT = RNG.normal(1.0, 1.0, 200), RNG.normal(0.0, 1.0, 200)

_TEXT = st.text(alphabet=st.sampled_from('#ab ,"\r\n;é'), max_size=6)
_FINITE = st.floats(allow_nan=False, allow_infinity=False, width=64)


@settings(max_examples=25, deadline=None)
@given(
    rows=st.lists(st.tuples(_FINITE, st.booleans(), _TEXT, _TEXT), min_size=2, max_size=12),
    order=st.permutations(range(4)),
    crlf=st.booleans(),
    bom=st.booleans(),
    labels=st.sampled_from([("1", "0"), ("true", "false"), ("TRUE", "False"), ("1.0", "0")]),
)
def test_read_csv_returns_exactly_the_files_data_rows(
    tmp_path_factory, rows, order, crlf, bom, labels
):
    rows = [*rows, (0.5, True, "", ""), (0.25, False, "", "")]  # both sides present
    header = ["#id", "Score ", "in", "note, quoted"]
    buffer = io.StringIO()
    # minimal quoting quotes a field holding a character of the line terminator only: with LF lines a bare CR
    # would end a record, so every field is quoted there (RFC 4180 quotes CR and LF alike)
    writer = csv.writer(
        buffer,
        lineterminator="\r\n" if crlf else "\n",
        quoting=csv.QUOTE_MINIMAL if crlf else csv.QUOTE_ALL,
    )
    writer.writerow([header[k] for k in order])
    for score, held, a, b in rows:
        fields = [a, repr(score), labels[0] if held else labels[1], b]
        writer.writerow([fields[k] for k in order])
    path = tmp_path_factory.mktemp("csv") / "scores.csv"
    path.write_bytes(("\ufeff" if bom else "").encode() + buffer.getvalue().encode("utf-8"))
    scores = audit.read_csv(path)
    expected_in = sorted(score for score, held, _, _ in rows if held)
    expected_out = sorted(score for score, held, _, _ in rows if not held)
    assert scores.held_in.tolist() == expected_in and scores.held_out.tolist() == expected_out


def test_a_hash_starts_no_comment_and_every_row_is_counted(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("id,score,in\n#7,0.9,1\n#8,0.8,1\n#9,0.1,0\n")
    scores = audit.read_csv(path)  # np.loadtxt read 1 in, 1 out
    assert (scores.n_in, scores.n_out) == (2, 1)


@pytest.mark.parametrize(
    ("path", "kind", "message"),
    [
        (
            3,
            ParameterTypeError,
            "path must be a file name",
        ),  # a file descriptor would be closed under the caller
        (None, ParameterTypeError, "path must be a file name"),
    ],
)
def test_read_csv_refuses_what_is_not_a_path(path, kind, message):
    with pytest.raises(kind, match=message):
        audit.read_csv(path)


def test_read_csv_names_the_file_and_utf8_for_latin1(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("score,in,note\n0.5,1,caf\xe9\n0.1,0,x\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"latin\.csv.*must be UTF-8"):
        audit.read_csv(path)


def test_scores_built_by_the_constructor_are_checked_and_sorted():
    sorted_pair = audit.Scores(np.sort(IN), np.sort(OUT))
    built = audit.Scores(IN, OUT)  # unsorted: sorted here, no silent eps = 0
    checked = audit.as_scores(IN, OUT)
    assert audit.auroc(built) == audit.auroc(checked) > 0.7
    assert audit.epsilon_clopper_pearson(built, significance=0.05) == audit.epsilon_clopper_pearson(
        checked, significance=0.05
    )
    params = audit.BootstrapParams(num_samples=20, seed=1)
    low, high = audit.bootstrap(sorted_pair, audit.auroc, params)  # was [0, 0]
    assert 0.6 < low <= high < 0.9
    split = audit.Split(0.5, seed=2)
    assert (
        audit.epsilon_clopper_pearson(sorted_pair, significance=0.05, threshold_strategy=split)
        >= 0.0
    )
    for bad, message in (([], "held_in must hold"), ([np.nan], "held_in must not be NaN")):
        with pytest.raises(ValueError, match=message):
            audit.Scores(bad, OUT)
    with pytest.raises(ValueError, match="given"):
        audit.Scores(IN, OUT, (IN[:3], OUT))


def test_split_reads_the_first_parts_best_threshold_even_where_its_bound_is_zero():
    # the anchor (jax_privacy 2.0) gives 0.008540831644545777 here; Split returned 0 (threshold +inf)
    rng = np.random.default_rng(2)
    hi, ho = rng.normal(0.3, 1, 200), rng.normal(0, 1, 100)
    for seed in (2, 2**62):  # numpy takes any non-negative seed; 2**62 was refused
        got = audit.epsilon_clopper_pearson(
            hi, ho, significance=0.05, threshold_strategy=audit.Split(0.5, seed=seed)
        )
        assert got == pytest.approx(0.008540831644545777, rel=1e-8) and got <= 0.008540831644545777


@pytest.mark.parametrize(
    ("call", "kind", "message"),
    [
        (
            lambda: audit.report(IN, OUT, accountant=None, delta=1e-5),
            ParameterTypeError,
            "accountant must be",
        ),
        (
            lambda: audit.report(IN, OUT, accountant="gaussian", delta=1e-5),
            ParameterTypeError,
            "accountant must",
        ),
        (
            lambda: audit.report(IN, OUT, accountant=3, delta=1e-5),
            ParameterTypeError,
            "accountant must be",
        ),
        (
            lambda: audit.report(
                IN, OUT, accountant=type(registry.get("gaussian").build(sigma=1.0)), delta=1e-5
            ),
            ParameterTypeError,
            "got the class GaussianMechanism; build it first",
        ),
        (
            lambda: audit.report(
                IN, OUT, accountant=registry.get("gaussian").build(sigma=[1.0, 2.0]), delta=1e-5
            ),
            ValueError,
            "accountant must describe one mechanism",
        ),
        (lambda: audit.auroc(IN), ValueError, "out_scores must be given"),
        (lambda: audit.tpr_at_fpr(IN, 0.1), ValueError, "out_scores must be given"),
        (
            lambda: audit.Auditor(IN, OUT).tpr_at_given_fpr(
                [0.1, 0.2], bootstrap_params=audit.BootstrapParams(num_samples=5)
            ),
            ParameterTypeError,
            "fpr must be one number with bootstrap_params",
        ),
        (
            lambda: audit.bootstrap(IN, 3, audit.BootstrapParams(num_samples=5), OUT),
            ParameterTypeError,
            "statistic must be a function",
        ),
        (
            lambda: audit.BootstrapParams(bias_correction=1),
            ParameterTypeError,
            "bias_correction must be True or False",
        ),
        (lambda: audit.BootstrapParams(seed=1.0), ParameterTypeError, "seed must be an integer"),
    ],
)
def test_internal_errors_are_refusals_naming_the_argument(call, kind, message):
    with pytest.raises(kind, match=message):
        call()


def test_arrays_are_taken_by_the_roc_functions():
    scores = audit.as_scores(IN, OUT)
    assert audit.auroc(IN, OUT) == audit.auroc(scores)
    assert audit.tpr_at_fpr(IN, 0.1, OUT) == audit.tpr_at_fpr(scores, 0.1)
    assert audit.max_accuracy(IN, OUT) == audit.max_accuracy(scores)
    assert math.isfinite(audit.tpr_at_fpr(IN, 0.1, OUT))
