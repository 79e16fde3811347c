"""The library's text and its documentation say what is computed, never the history that led to it: no
"review 10", "issue 91", "PR #12" or "session" in python/ or docs/ (code, docstrings, comments and pages).

A number or a reason belongs in the text for what it states (a bound, a run's parameters, a paper's
theorem); the tracker's numbers and the work's sittings belong in commit messages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("python", "docs")
SUFFIXES = {".py", ".pyi", ".md", ".rst", ".txt", ".toml", ".cfg", ".ini"}

# a tracker's or a review's number, or a sitting of the work
HISTORY = re.compile(
    r"\b(?:review|issue|pull request)\s*#?\s*\d+"  # "review 10", "issue #91"
    r"|(?-i:\bPR)(?:\s+#?|\s*#)\d+"  # "PR 12", "PR #12" (not numpydoc's check "PR01")
    r"|\bsessions?\b"  # "the session that found it"
    r"|\bmeasured on box\b",
    re.IGNORECASE,
)


def history_words(text: str) -> list[tuple[int, str]]:
    """The (line number, line) of each line of ``text`` naming the work's history."""
    return [
        (number, line.strip())
        for number, line in enumerate(text.splitlines(), start=1)
        if HISTORY.search(line)
    ]


def _scanned_files() -> list[Path]:
    return sorted(
        path
        for folder in SCANNED
        for path in (ROOT / folder).rglob("*")
        if path.suffix in SUFFIXES and "__pycache__" not in path.parts and path.is_file()
    )


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("# the rule review 10 asked for", True),
        ("(issue 91's sigma 1.2038)", True),
        ("see Issue #4", True),
        ("fixed in PR 12", True),
        ("a later session found it", True),
        ("Sessions of the work", True),
        ("hockeystick issues a warning", False),
        ("numbered by the ICLR paper's Thm 4.8", False),
        ("round 10 of 100", False),
        ("numpydoc's PR01 and PR02", False),
        ("the sessions_per_day option", False),
    ],
)
def test_history_pattern(text: str, found: bool) -> None:
    """The pattern finds a tracker's number and a sitting, and leaves ordinary words alone."""
    assert bool(history_words(text)) is found


def test_library_and_docs_name_no_history() -> None:
    """No file under python/ or docs/ names a review, an issue, a pull request or a session."""
    files = _scanned_files()
    assert len(files) > 100, "the scan found the package and its pages"
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line}"
        for path in files
        for number, line in history_words(path.read_text(encoding="utf-8", errors="replace"))
    ]
    assert not found, (
        "say what is computed (the bound, the run, the theorem) instead of the history; the tracker's "
        "numbers go in commit messages:\n" + "\n".join(found)
    )
