"""Code shape: no Python class over ``CLASS_LIMIT`` lines of code (docstrings not counted), no C++ function over ``FUNCTION_LIMIT`` lines, and no
library function (Python or C++) over ``COMPLEXITY_LIMIT`` in lizard's cyclomatic complexity unless its branches
are the numerical algorithm itself, so that each piece holds one idea a reader can take in whole.  A function
allowed more says why in a ``complexity:`` comment at its definition and is pinned in ``ALGORITHM_BRANCHES``
with the most it may reach.

A class's length is ``end_lineno - lineno + 1`` of its ``ast.ClassDef`` (decorators not counted).  A C++
function's runs from the line of its name to the line of its closing brace; it is found by a brace-matching
scan of the source with comments, string and character literals and preprocessor lines blanked out (see
``cpp_functions``): a ``{`` at namespace or class scope that follows a parameter list ``)`` (and its
qualifiers, a trailing return type, or a constructor's initializer list) opens a function body, and every
brace inside it, lambdas' included, counts toward that function.
"""

from __future__ import annotations

import ast
import functools
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import hockeystick

from .source_tree import nodes, source

PACKAGE = Path(hockeystick.__file__).parent
ROOT = Path(__file__).resolve().parent.parent
# the library's C++: the header-only core, the bindings, the C interface and the FFT backends
CPP_SOURCES = sorted(
    [
        *(ROOT / "cpp" / "include" / "hockeystick").rglob("*.hpp"),
        *(ROOT / "cpp" / "bindings").glob("*.cpp"),
        *(ROOT / "cpp" / "capi").glob("*.[ch]pp"),
        *(ROOT / "cpp" / "backends").glob("*.hpp"),
    ]
)

CLASS_LIMIT = 300
FUNCTION_LIMIT = 150
COMPLEXITY_LIMIT = 15

# "path relative to the repository::function" -> the complexity it may reach; each carries a ``complexity:``
# comment at its definition saying which algorithm its branches are
ALGORITHM_BRANCHES: dict[str, int] = {}


def _docstring_lines(node: ast.AST) -> int:
    """Lines of the docstrings of ``node`` and of every function and class inside it."""
    lines = 0
    for inner in ast.walk(node):
        if isinstance(inner, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and inner.body:
            first = inner.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                assert first.end_lineno is not None
                lines += first.end_lineno - first.lineno + 1
    return lines


def python_classes() -> list[tuple[str, str, int]]:
    """(path relative to the package, class name, lines) of every class under python/hockeystick: its code
    lines, docstrings left out (a reference entry's Parameters and Examples are no second idea)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in nodes(path):
            if isinstance(node, ast.ClassDef):
                assert node.end_lineno is not None
                lines = node.end_lineno - node.lineno + 1 - _docstring_lines(node)
                found.append((path.relative_to(PACKAGE).as_posix(), node.name, lines))
    return found


# --- the C++ scanner -------------------------------------------------------------------------------

_RAW_STRING = re.compile(r'R"([^()\\\s]{0,16})\(')


def blank_non_code(text: str) -> str:
    """``text`` with comments, string and character literals (raw strings included) and preprocessor lines
    replaced by spaces, newlines kept, so that every brace left is code and line numbers are unchanged.
    A ``'`` between two alphanumerics is a digit separator (1'000), not a character literal."""
    out = list(text)
    n, i = len(text), 0
    line_start = True  # only blanks since the last newline: a '#' here starts a preprocessor line

    def blank(a: int, b: int) -> None:
        for j in range(a, min(b, n)):
            if out[j] != "\n":
                out[j] = " "

    while i < n:
        c = text[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if line_start and c == "#":  # to the end of the line, continued by a trailing backslash
            j = i
            while j < n and (text[j] != "\n" or text[j - 1] == "\\"):
                j += 1
            blank(i, j)
            i = j
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
        elif (
            c == "R"
            and (raw := _RAW_STRING.match(text, i))
            and not (i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"))
        ):
            end = text.find(")" + raw.group(1) + '"', raw.end())
            j = n if end < 0 else end + len(raw.group(1)) + 2
            blank(i, j)
            i = j
        elif c == '"' or (
            c == "'" and not (0 < i < n - 1 and text[i - 1].isalnum() and text[i + 1].isalnum())
        ):
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            blank(i, j + 1)
            i = j + 1
        else:
            i += 1
    return "".join(out)


_CONTAINER = re.compile(
    r"^\s*(\[\[[^\]]*\]\]\s*)*(inline\s+)?(namespace|class|struct|union|enum)\b|\bextern\s*$"
)


def _is_container(head: str) -> bool:
    """Whether ``head`` opens a namespace, class, struct, union, enum or ``extern "C"`` scope (its template
    parameter lists, whose ``class`` names a parameter, set aside)."""
    return (
        _CONTAINER.search(
            re.sub(r"\b(public|protected|private)\s*:(?!:)", "", _without_templates(head))
        )
        is not None
    )


def _without_templates(head: str) -> str:
    """``head`` without its ``template <...>`` parameter lists (angle brackets matched)."""
    while (found := re.search(r"\btemplate\s*<", head)) is not None:
        depth, j = 0, found.end() - 1
        for j in range(found.end() - 1, len(head)):
            depth += {"<": 1, ">": -1}.get(head[j], 0)
            if depth == 0:
                break
        head = head[: found.start()] + head[j + 1 :]
    return head


_QUALIFIERS = re.compile(
    r"^(\s|const\b|volatile\b|noexcept\b|override\b|final\b|mutable\b|&&?)*(->[^;{}]*)?$"
)
_NOT_NAMES = {
    "if",
    "for",
    "while",
    "switch",
    "catch",
    "return",
    "sizeof",
    "alignof",
    "decltype",
    "noexcept",
    "requires",
}
_OPERATOR = re.compile(r"\boperator\s*(\(\)|[^\s(\w][^\s(]*|\w[\w\s:<>*&]*)$")


def _top_level_parens(head: str) -> list[tuple[int, int]]:
    """(open, close) offsets of the parenthesis groups of ``head`` at depth 0."""
    groups, depth, start = [], 0, 0
    for i, c in enumerate(head):
        if c == "(":
            if depth == 0:
                start = i
            depth += 1
        elif c == ")" and depth:
            depth -= 1
            if depth == 0:
                groups.append((start, i))
    return groups


def _without_parens(text: str) -> str:
    """``text`` with every parenthesis group removed (innermost first)."""
    while True:
        shorter = re.sub(r"\([^()]*\)", "", text)
        if shorter == text:
            return text
        text = shorter


def _function_name(head: str) -> tuple[str, int] | None:
    """(name, offset of the name in ``head``) when ``head`` (the code from the end of the previous
    declaration to a ``{`` at namespace or class scope) is a function's signature up to its body, else None.

    A parameter list is a parenthesis group after a name (``operator()`` included; a lambda's after
    ``name = [...]``) followed by qualifiers and a trailing return type, or by a constructor's member
    initializers ``: a_(x), b_{y}``; a brace right after a name or ``>`` in those initializers is a
    member's, not the body's."""
    if _is_container(head) or re.search(r"=\s*$", head):
        return None
    call_operator = (
        None  # offset of "operator" when the group just read was the "()" of "operator()"
    )
    for open_, close in _top_level_parens(head):
        before = head[:open_].rstrip()
        if (
            call_operator is None
            and before.endswith("operator")
            and not head[open_ + 1 : close].strip()
        ):
            call_operator = len(before) - len("operator")
            continue
        operator = _OPERATOR.search(before)
        lambda_ = re.search(r"([A-Za-z_]\w*)\s*=\s*\[[^\]]*\]$", before)
        word = re.search(r"(~?[A-Za-z_]\w*)\s*(<[^()]*>)?$", before)
        if call_operator is not None and not head[before.rfind(")") + 1 : open_].strip():
            name, at = "operator()", call_operator
        elif operator is not None:
            name, at = "operator" + re.sub(r"\s+", "", operator.group(1)), operator.start()
        elif lambda_ is not None:
            name, at = lambda_.group(1), lambda_.start(1)
        elif word is not None and word.group(1) not in _NOT_NAMES:
            name, at = word.group(1), word.start(1)
        else:
            continue
        rest = _without_parens(head[close + 1 :])
        if re.match(r"\s*(noexcept\s*)?:(?!:)", rest):  # a constructor's member initializers
            if re.search(r"[\w>]\s*$", head):
                return None
        elif not _QUALIFIERS.match(rest):
            continue
        qualified = re.search(r"((?:[A-Za-z_]\w*(?:<[^<>]*>)?::)+)$", head[:at])
        return (name if qualified is None else qualified.group(1) + name), at
    return None


def cpp_functions(text: str) -> list[tuple[str, int, int]]:
    """(name, first line, last line) of every function defined at namespace or class scope in ``text``
    (1-based lines: from the function's name to its closing brace)."""
    code = blank_non_code(text)
    found = []
    # every brace the scan stops at is a namespace / class / enum / extern scope's: any other is matched
    # and stepped over whole
    head_start = 0  # where the current declaration at this scope began
    i, n = 0, len(code)
    while i < n:
        c = code[i]
        if c in ";}":
            head_start = i + 1
        elif c == "{":
            head = code[head_start:i]
            named = _function_name(head)
            if named is None and _is_container(head):
                head_start = i + 1
            else:
                end = _matching_brace(code, i)
                if named is not None:
                    name, at = named
                    found.append(
                        (
                            name,
                            code.count("\n", 0, head_start + at) + 1,
                            code.count("\n", 0, end) + 1,
                        )
                    )
                    head_start = end + 1
                # any other brace at this scope (an initializer "= {...}", a member's "b_{y}") is skipped
                # whole and stays part of the declaration being read
                i = end
        i += 1
    return found


def _matching_brace(code: str, i: int) -> int:
    depth = 0
    for j in range(i, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    raise AssertionError(f"unbalanced brace at offset {i}")


def all_cpp_functions() -> list[tuple[str, str, int]]:
    """(file relative to the repository, function name, lines) of every function the scanner finds."""
    return [
        (path.relative_to(ROOT).as_posix(), name, last - first + 1)
        for path in CPP_SOURCES
        for name, first, last in cpp_functions(source(path))
    ]


# --- the scanner checked ---------------------------------------------------------------------------

SAMPLE = r"""#include <string>
#define BRACE_MACRO(x) { x }
namespace outer {
// a comment with a brace {
/* a block comment {{ */
inline int plain(int a) {
    const char* s = "}}{ \" }";
    char c = '}';
    int million = 1'000'000;
    auto raw = R"x(}) {)x";
    auto twice = [&](int b) {
        if (b) { return b; }
        return a;
    };
    return twice(a) + c + million;
}

struct Point {
    int x_, y_;
    Point(int x, int y) : x_{x}, y_(y) {
        x_ += 1;
    }
    int sum() const noexcept { return x_ + y_; }
    auto scaled(int k) const -> Point
    {
        return Point(x_ * k, y_ * k);
    }
};

constexpr int table[] = {1, 2, 3};
enum class Colour { red, green };

template <typename T>
T Point_free(T t) noexcept(noexcept(T(t))) {
    return t;
}

namespace {
void hidden() {}
}  // namespace
}  // namespace outer

int outer_defined::method(int a) {
    return a;
}
"""


def test_the_scanner_finds_each_function_of_a_sample_with_its_lines():
    """Braces inside comments, strings, raw strings, character literals and macros do not count; lambdas
    count toward their function; constructors with initializer lists, const / noexcept / trailing-return
    members, templates and anonymous namespaces are found; tables and enums are not functions."""
    assert cpp_functions(SAMPLE) == [
        ("plain", 6, 16),
        ("Point", 20, 22),
        ("sum", 23, 23),
        ("scaled", 24, 27),
        ("Point_free", 34, 36),
        ("hidden", 39, 39),
        ("outer_defined::method", 43, 45),
    ]


@functools.cache
def _ctags_listing() -> dict[str, set[tuple[str, int, int]]]:
    """Path -> (name, line, end line) of the named functions universal-ctags finds in it outside any function,
    for every file of ``CPP_SOURCES``: one ctags run reads them all (a row names its file)."""
    version = subprocess.run(["ctags", "--version"], capture_output=True, text=True).stdout
    if "Universal Ctags" not in version:
        pytest.skip("the end: field needs universal-ctags")
    listing = subprocess.run(
        ["ctags", "--fields=+ne", "--c++-kinds=f", "--language-force=C++", "-o", "-"]
        + [str(path) for path in CPP_SOURCES],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found: dict[str, set[tuple[str, int, int]]] = {str(path): set() for path in CPP_SOURCES}
    for row in listing.splitlines():
        name, where = row.split("\t", 2)[:2]
        fields = row.rsplit(';"\t', 1)[-1]
        line, end = re.search(r"\bline:(\d+)", fields), re.search(r"\bend:(\d+)", fields)
        if name.startswith("__anon") or "function:" in fields or line is None or end is None:
            continue
        found[where].add((name.replace(" ", ""), int(line.group(1)), int(end.group(1))))
    return found


@pytest.mark.skipif(shutil.which("ctags") is None, reason="universal-ctags is not installed")
@pytest.mark.parametrize("relative", [path.relative_to(ROOT).as_posix() for path in CPP_SOURCES])
def test_the_scanner_agrees_with_ctags(relative):
    """On real sources, every function ctags reports (name, first line, closing line) is found by the
    scanner with the same lines, and the scanner reports no function ctags does not know."""
    path = ROOT / relative
    ours = {
        (name.split("::")[-1], first, last) for name, first, last in cpp_functions(source(path))
    }
    assert ours == _ctags_listing()[str(path)]


def test_the_scanner_measures_register_contraction():
    """The registration function of the contraction bindings is found, from its signature line to its
    closing brace (the last line of the function is a lone ``}``)."""
    path = ROOT / "cpp" / "bindings" / "register_contraction.cpp"
    lines = source(path).splitlines()
    [(first, last)] = [
        (f, l) for name, f, l in cpp_functions(source(path)) if name == "register_contraction"
    ]
    assert lines[first - 1].startswith("void register_contraction(py::module_ m) {")
    assert lines[last - 1] == "}"
    assert all(
        not line.startswith("}") for line in lines[first : last - 1]
    )  # no earlier closing at column 0


# --- the limits ------------------------------------------------------------------------------------


def test_no_python_class_is_over_the_limit():
    long = [
        f"{path}: {name} ({size} lines)"
        for path, name, size in python_classes()
        if size > CLASS_LIMIT
    ]
    assert not long, f"classes over {CLASS_LIMIT} lines (split them):\n" + "\n".join(long)


def test_no_cpp_function_is_over_the_limit():
    long = [
        f"{path}: {name} ({size} lines)"
        for path, name, size in all_cpp_functions()
        if size > FUNCTION_LIMIT
    ]
    assert not long, f"C++ functions over {FUNCTION_LIMIT} lines (split them):\n" + "\n".join(long)


def complex_functions() -> dict[str, tuple[int, int, Path]]:
    """``path::function`` -> (complexity, first line, file) for every library function over the limit."""
    lizard = pytest.importorskip("lizard")
    found = {}
    for path in [*sorted(PACKAGE.rglob("*.py")), *CPP_SOURCES]:
        for function in lizard.analyze_file(str(path)).function_list:
            if function.cyclomatic_complexity > COMPLEXITY_LIMIT:
                key = f"{path.resolve().relative_to(ROOT).as_posix()}::{function.name}"
                found[key] = (function.cyclomatic_complexity, function.start_line, path)
    return found


def test_no_library_function_is_over_the_complexity_limit_but_the_numerical_kernels():
    found = complex_functions()
    unexplained = sorted(
        f"{key} ({found[key][0]})" for key in found.keys() - ALGORITHM_BRANCHES.keys()
    )
    assert not unexplained, (
        f"over cyclomatic complexity {COMPLEXITY_LIMIT}: split the dispatch into a table or small functions, or,"
        " where the branches are the numerical algorithm, say so in a `complexity:` comment and pin it in"
        " ALGORITHM_BRANCHES:\n" + "\n".join(unexplained)
    )
    grown = [
        f"{key}: {found[key][0]} > {limit}"
        for key, limit in ALGORITHM_BRANCHES.items()
        if found.get(key, (0,))[0] > limit
    ]
    assert not grown, grown
    stale = sorted(ALGORITHM_BRANCHES.keys() - found.keys())
    assert not stale, f"at or under the limit now, unpin: {stale}"
    for key, (_, line, path) in found.items():
        lines = source(path).splitlines()[max(0, line - 4) : line + 2]
        assert any("complexity:" in text for text in lines), (
            f"{key}: no `complexity:` comment at its definition"
        )
