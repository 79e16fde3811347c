"""Canary scores from a CSV file: one canary per row, a score column and a held-in label column.

Every row is read by Python's ``csv`` reader (RFC 4180: quoted fields, CRLF or LF line ends), so
that no row is dropped or split: ``#`` starts no comment (canary ids such as ``#7`` are ordinary
values), and a UTF-8 byte-order mark (Excel's "CSV UTF-8") is skipped.  Rows with no field at all
(blank lines) carry no canary and are skipped; every other row must carry both columns.  The labels
are 1 / 0 (or any number equal to them) and true / false (any case); the scores are real numbers,
finite.
"""

from __future__ import annotations

import csv
import math
import os
from typing import Any

import numpy as np

from ..base import validation as _validation
from .scores import Scores

__all__ = ["read_csv"]

_LABELS = {"true": True, "false": False}


class ScoresFileNotFound(FileNotFoundError, ValueError):
    """The scores file does not exist: a FileNotFoundError, and a ValueError as every refusal of an argument."""


def read_csv(path: Any, *, score_column: Any = "score", label_column: Any = "in") -> Scores:
    """Read canary scores from a CSV file with a score column and a held-in label column.

    The header row names the columns (matched without case or surrounding spaces); one canary per
    row, values separated by commas, fields optionally quoted; other columns are ignored. The label
    is 1 or ``true`` for a held-in canary, 0 or ``false`` for a held-out one (any case). Every data
    row is read: ``#`` starts no comment, a UTF-8 byte-order mark is skipped, CRLF and LF line ends
    are both read, blank lines are skipped. This is the file ``hockeystick audit`` reads.

    Parameters
    ----------
    path : str or os.PathLike
        The file (UTF-8, with or without a byte-order mark).
    score_column : str, optional
        The header of the score column (default ``"score"``; higher means "in").
    label_column : str, optional
        The header of the label column (default ``"in"``).

    Returns
    -------
    Scores
        The scores, checked as by ``as_scores``.

    Raises
    ------
    ValueError
        If the header lacks either column or names one twice, a row lacks a field, a score is not a
        finite number, a label is not 1, 0, true or false, the file is not UTF-8 text, or a side has
        no canary; each message names the file and the line.
    ParameterTypeError
        If ``path`` is not a str or os.PathLike (a file descriptor is refused: the reader would
        close it), or a column name is not a str.
    OSError
        If the file cannot be opened (where it does not exist, a FileNotFoundError that is also a
        ValueError naming ``path``).

    Examples
    --------
    >>> import os, tempfile
    >>> from hockeystick import audit
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "scores.csv")
    ...     with open(path, "w") as handle:
    ...         _ = handle.write('id,score,member\\n#7,0.9,true\\n"b, c",0.2,false\\n#8,0.4,TRUE\\n')
    ...     scores = audit.read_csv(path, label_column="member")
    >>> scores.held_in.tolist(), scores.held_out.tolist()
    ([0.4, 0.9], [0.2])
    """
    name = _file_name(path)
    columns = [
        _column_name(score_column, "score_column"),
        _column_name(label_column, "label_column"),
    ]
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            rows = csv.reader(handle, strict=True)
            header = next(rows, None)
            where = _columns(name, header, columns)
            scores, labels = _rows(name, rows, where, columns)
    except FileNotFoundError:
        raise ScoresFileNotFound(f"path {name!r}: no such file (the scores file to read)") from None
    except UnicodeDecodeError as err:
        raise ValueError(
            f"the scores file {name!r} must be UTF-8 text; byte {err.start} is not UTF-8 (save it as "
            "'CSV UTF-8', or convert it, e.g. iconv -f latin1 -t utf-8)"
        ) from None
    except csv.Error as err:
        raise ValueError(f"the scores file {name!r} is not valid CSV: {err}") from None
    held = np.asarray(labels, dtype=bool)
    value = np.asarray(scores, dtype=np.float64)
    for side, wanted in (
        ("held-in (label 1 or true)", True),
        ("held-out (label 0 or false)", False),
    ):
        if not np.any(held == wanted):
            raise ValueError(
                f"the scores file {name!r} must hold at least one {side} canary, got {held.size} data rows "
                f"with none in column {columns[1]!r}"
            )
    return Scores(value[held], value[~held])


def _file_name(path: Any) -> str:
    """The path as text, refusing what ``open`` would misread (an int is a file descriptor)."""
    if isinstance(path, (bool, int)) or not isinstance(path, (str, os.PathLike)):
        raise _validation.ParameterTypeError(
            f"path must be a file name (str or os.PathLike), got {_validation.describe(path)} ({type(path).__name__})"
        )
    return os.fsdecode(os.fspath(path))


def _column_name(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _validation.ParameterTypeError(
            f"{name} must be a column's header (a non-empty str), got {_validation.describe(value)}"
        )
    return value.strip().lower()


def _columns(name: str, header: list[str] | None, columns: list[str]) -> list[int]:
    """The positions of the wanted columns in the header."""
    names = [h.strip().lower() for h in header or []]
    where = []
    for column in columns:
        count = names.count(column)
        if count != 1:
            problem = "lacks the column" if count == 0 else f"names {count} columns"
            raise ValueError(
                f"the scores file {name!r}: its header row {problem} {column!r}; it needs one score column "
                f"and one label column (1 or true = held-in canary, 0 or false = held-out), got {header!r}; "
                "name others with score_column / label_column (--score-column / --label-column)"
            )
        where.append(names.index(column))
    return where


def _rows(
    name: str, rows: Any, where: list[int], columns: list[str]
) -> tuple[list[float], list[bool]]:
    """Every data row's score and label (blank rows skipped), refusing a bad one by its line."""
    scores: list[float] = []
    labels: list[bool] = []
    need = max(where) + 1
    for row in rows:
        if not row:
            continue
        line = rows.line_num
        if len(row) < need:
            raise ValueError(
                f"the scores file {name!r}, line {line}: {len(row)} field(s), but the header puts "
                f"{columns[0]!r} and {columns[1]!r} in fields {where[0] + 1} and {where[1] + 1}"
            )
        scores.append(_score(name, line, row[where[0]], columns[0]))
        labels.append(_label(name, line, row[where[1]], columns[1]))
    return scores, labels


def _score(name: str, line: int, text: str, column: str) -> float:
    try:
        value = float(text.strip())
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or "_" in text:
        raise ValueError(
            f"the scores file {name!r}, line {line}: {column!r} must be a finite number, got {text!r}"
        )
    return value


def _label(name: str, line: int, text: str, column: str) -> bool:
    word = text.strip().lower()
    if word in _LABELS:
        return _LABELS[word]
    try:
        value = float(word)
    except ValueError:
        value = math.nan
    if value in (0.0, 1.0) and "_" not in word:
        return value == 1.0
    raise ValueError(
        f"the scores file {name!r}, line {line}: {column!r} must be 1 or true (held in), 0 or false (held out), "
        f"got {text!r}"
    )
