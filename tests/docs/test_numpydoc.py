"""numpydoc's validation over every public name: the sections a reference entry needs.

The public names are each public namespace's ``__all__`` (docs/_ext/hockeystick_api.py, the list the
site documents). Each function, class and module among them is validated by ``numpydoc.validate``
for the checks below; data (tuples, dicts, floats, typing aliases) has no docstring of its own and is
left out, and so is another library's name a namespace re-exports (it keeps its own docstring). A failure
prints the failing count per namespace and per check.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

numpydoc_validate = pytest.importorskip(
    "numpydoc.validate", reason="numpydoc is not installed: pip install '.[docs]'"
)
get_doc_object = pytest.importorskip("numpydoc.docscrape").get_doc_object

DOCS = Path(__file__).resolve().parents[2] / "docs"

# the checks a reference entry must pass
CHECKS = {
    "GL08": "the object has a docstring",
    "PR01": "every parameter is documented (a class's in its docstring)",
    "PR02": "no documented parameter that the signature lacks",
    "RT01": "a function that returns has a Returns section",
    "SS01": "a summary line",
    "SS06": "the summary fits on one line (the reference's tables show it alone)",
}


def _public_namespaces() -> list[Any]:
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import hockeystick_api
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    return hockeystick_api.public_namespaces()


def _checked(obj: Any) -> bool:
    return (
        inspect.isfunction(obj)
        or inspect.isclass(obj)
        or inspect.ismodule(obj)
        or inspect.isbuiltin(obj)
    )


class _Validator(numpydoc_validate.Validator):  # type: ignore[misc]
    """numpydoc's validator of an object itself, not of a dotted name: numpydoc imports a name as a module
    first, so an old module path of the same name (kept importable with a DeprecationWarning) would be
    validated instead of the function. Its section titles are read once per docstring."""

    def __init__(self, obj_name: Any) -> None:
        super().__init__(get_doc_object(obj_name))

    @functools.cached_property
    def section_titles(self) -> list[str]:
        # numpydoc's property reads the whole docstring again at each access, and its validation reads
        # it once per allowed section (GL07's order check): the titles of one docstring, read once
        return super().section_titles  # type: ignore[no-any-return]

    @property
    def source_file_def_line(self) -> int | None:
        # numpydoc looks for a `def` or `class` line to read `# numpydoc ignore` comments from; an
        # object bound by assignment (a functools.partial, a vectorized function) has none
        try:
            return super().source_file_def_line  # type: ignore[no-any-return]
        except StopIteration:
            return None


def _errors(obj: Any) -> list[tuple[str, str]]:
    """numpydoc's (code, message) pairs for ``obj``."""
    return numpydoc_validate.validate(obj, validator_cls=_Validator)["errors"]  # type: ignore[no-any-return]


def failures() -> tuple[dict[str, dict[str, list[str]]], Counter[str]]:
    """namespace -> name -> the failed checks (names that fail none left out); and the names checked
    per namespace."""
    failed: dict[str, dict[str, list[str]]] = {}
    checked: Counter[str] = Counter()
    for space in _public_namespaces():
        for name in space.names:
            obj = getattr(space.module, name)
            if not _checked(obj) or not getattr(obj, "__module__", "hockeystick").startswith(
                "hockeystick"
            ):
                continue  # data has no docstring; another library's name re-exported keeps its own
            checked[space.name] += 1
            codes = sorted({code for code, _ in _errors(obj) if code in CHECKS})
            if codes:
                failed.setdefault(space.name, {})[name] = codes
    return failed, checked


def summary(failed: dict[str, dict[str, list[str]]], checked: Counter[str]) -> str:
    total = sum(len(names) for names in failed.values())
    lines = [
        f"{total} of {sum(checked.values())} public names fail numpydoc's {', '.join(sorted(CHECKS))}:"
    ]
    for space, count in checked.items():
        names = failed.get(space, {})
        by_code = Counter(code for codes in names.values() for code in codes)
        detail = ", ".join(f"{code} {n}" for code, n in sorted(by_code.items()))
        lines.append(f"  {space}: {len(names)} of {count}" + (f" ({detail})" if detail else ""))
    return "\n".join(lines)


@pytest.mark.filterwarnings(
    "ignore:potentially wrong underline length:UserWarning"
)  # what PR01 and RT01 count
def test_every_public_name_passes_numpydoc_validation() -> None:
    """The counts per namespace are printed (``-s``, or ``--runxfail`` for the failure's message)."""
    failed, checked = failures()
    report = summary(failed, checked)
    print(report)
    assert not failed, report


def _documented(r: float, epsilon: float) -> float:
    """Return the product of two numbers.

    Parameters
    ----------
    r : float
        The first.
    epsilon : float
        The second.

    Returns
    -------
    float
        ``r * epsilon``.
    """
    return r * epsilon


def _undocumented(r: float, epsilon: float) -> float:
    """Return the product of two numbers."""
    return r * epsilon


def test_the_check_tells_a_documented_function_from_an_undocumented_one() -> None:
    def codes(function: Any) -> set[str]:
        return {code for code, _ in _errors(function) if code in CHECKS}

    assert codes(_documented) == set()
    assert codes(_undocumented) == {"PR01", "RT01"}
