"""Every code example in README.md and docs/*.md runs, and every value it states is the value it computes.

The pages' fenced blocks, in page order, one temporary working directory and one Python namespace per
page (``__name__ == "__main__"``, as in a script), ``examples/`` linked into it so repository paths
resolve:

* ``python`` blocks run statement by statement. A comment ``# -> VALUE`` on a line of a statement states
  what the statement computes: the value of an expression statement (of the argument of a one-argument
  ``print``), or the value assigned by an assignment. VALUE is a Python literal (a number, or a tuple or
  list of them, nested; True, False, a string), optionally followed by prose. A number is compared at the
  precision it is written with: ``2.3852`` holds when the value rounded to 4 decimals is 2.3852,
  ``5.7e-300`` when the value in 2 significant digits is 5.7e-300, an integer literal only when the value
  equals it exactly; tuples, lists and arrays elementwise, of the same length.
  A certified side is stated outward: ``# -> <= 2.38515`` (an upper side) holds when the value is at most
  2.38515 and within one unit of its last digit (2.38514 < value <= 2.38515: the written number is the
  value rounded up at that precision), ``# -> >= 2.38506`` (a lower side) when it is at least 2.38506 and
  above it by less than one unit; the comparison is exact (``Decimal`` of the double), and the forms nest
  in a literal: ``# -> (>= 2.38506, <= 2.38515)``, or stand before one for all its numbers:
  ``# -> <= [1.5109, 3.1411]``.
* ``bash`` blocks: each command (continuation lines joined, ``&&`` separating commands) that starts
  with ``hockeystick`` runs through the command line's entry point (``hockeystick.cli.main``, what
  ``python -m hockeystick`` calls) and must exit 0; ``> FILE`` writes its output to FILE. ``python
  examples/X.py`` runs that script as ``__main__`` (``runpy``) in the suite's interpreter, its arguments in
  ``sys.argv``. ``pip install`` is not run (the suite runs in the installed package). A ``# -> 1.82823 1.82824`` comment states numbers its output prints, in that
  order, each compared at its written precision (``<= 2.38515``, ``>= 2.38506``: outward, as in python
  blocks). A ``text`` block right after a shell block is the
  output of its last command: each of its lines other than ``...`` is a line the command prints (in
  order; numbers at their written precision, the rest verbatim up to spacing). Shell blocks without a
  ``hockeystick`` command (the test suite's own commands, a compiler line) are not command-line examples.
* A block preceded by ``<!-- file: NAME -->`` is written to NAME in the working directory (a sweep
  file, a run file) for the commands after it.
* A block that cannot run in the suite (it needs Opacus, a cluster, an hour) is preceded by
  ``<!-- skip: REASON -->``; each such block is reported as a skipped test carrying its reason.
* A number in the prose that restates a computed result is followed by ``<!-- = EXPR -->`` (invisible in
  the rendered page): ``ε = 4.2279<!-- = replace_one -->``; a certified side by ``<!-- >= EXPR -->`` (an
  upper side: the number is EXPR rounded up, ``2.3852<!-- >= poisson[1] -->``) or ``<!-- <= EXPR -->``
  (a lower side, rounded down).  EXPR is evaluated once the page's blocks have
  run, in their namespace (with ``import_module``, ``importlib.import_module``, for a page whose blocks do
  not compute it), and the number is compared with its value at its written precision, as a ``# ->`` value.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import runpy
import shlex
import sys
import tokenize
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

SHELL = {"bash", "sh", "shell", "console"}
FENCE = re.compile(r"^ {0,3}```\s*([\w+-]*)\s*$")
MARKER = re.compile(r"^\s*<!--\s*(skip|file)\s*:(.*?)-->\s*$")
CLAIM = re.compile(r"#\s*->\s*(.*)$")
NUMBER = re.compile(r"[-+]?(?:\d[\d_]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
# a prose number checked against a computed value: "4.2279<!-- = EXPR -->"
# an outward side in a stated value, "<= 2.38515" / ">= 2.38506", read as the comparison "_ <= 2.38515"
OUTWARD = re.compile(r"(<=|>=)\s*(" + NUMBER.pattern + ")")
# (a certified side: "2.3852<!-- >= EXPR -->", the number at least EXPR, "2.38506<!-- <= EXPR -->" at most)
PROSE_CLAIM = re.compile(
    r"([-+]?(?:\d[\d_]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)<!--\s*(=|>=|<=)\s*(.+?)\s*-->"
)


@dataclass(frozen=True)
class Block:
    """One fenced block of a page: where it starts (the line after the fence), its language and text,
    and the marker before it (``skip`` with its reason, ``file`` with a name)."""

    page: str
    line: int
    language: str
    source: str
    marker: str | None = None
    argument: str = ""

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def read_blocks(page: Path) -> list[Block]:
    """The fenced blocks of ``page`` in order; a marker is the last non-blank line before a fence."""
    lines = page.read_text(encoding="utf-8").splitlines()
    name = str(page.relative_to(ROOT))
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        start = i + 1
        end = start
        while end < len(lines) and not re.match(r"^ {0,3}```\s*$", lines[end]):
            end += 1
        if end == len(lines):
            raise AssertionError(f"{name}:{i + 1}: a fenced block is never closed")
        previous = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
        marker = MARKER.match(previous)
        blocks.append(
            Block(
                name,
                start + 1,
                opening.group(1).lower(),
                "\n".join(lines[start:end]) + "\n",
                marker.group(1) if marker else None,
                marker.group(2).strip() if marker else "",
            )
        )
        i = end + 1
    return blocks


def dangling_markers(page: Path) -> list[str]:
    """Markers not followed by a fenced block (a marker that marks nothing is a typo)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found = []
    for i, line in enumerate(lines):
        if MARKER.match(line):
            following = next((text for text in lines[i + 1 :] if text.strip()), "")
            if FENCE.match(following) is None:
                found.append(f"{page.relative_to(ROOT)}:{i + 1}")
    return found


# ---------------------------------------------------------------------------------------------------
# stated values


def stated_literal(text: str) -> tuple[ast.expr, str] | None:
    """The longest prefix of ``text`` that is a literal of numbers, tuples, lists, booleans and
    strings, as (its expression node, its source): the rest of a claim is prose.  An outward side
    ``<= NUMBER`` / ``>= NUMBER`` is read as the comparison ``_ <= NUMBER`` (``outward_matches``); a
    side before a tuple or list, ``<= [1.5109, 3.1411]``, is the side of each of its numbers."""
    every = re.match(r"\s*(<=|>=)\s*(?=[\[(])", text)  # "<= [1.5, 3.2]": each element that side
    if every is not None:
        inner = stated_literal(text[every.end() :])
        if inner is None:
            return None
        return stated_literal(NUMBER.sub(lambda n: f"{every.group(1)} {n.group()}", inner[1]))
    text = OUTWARD.sub(r"_ \1 \2", text)
    for end in range(len(text), 0, -1):
        source = text[:end].strip()
        if not source:
            break
        try:
            node = ast.parse(source, mode="eval").body
        except SyntaxError:
            continue
        if _is_literal(node):
            return node, source
    return None


def _is_literal(node: ast.expr) -> bool:
    if _outward(node) is not None:
        return True
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_is_literal(element) for element in node.elts)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return isinstance(node.operand, ast.Constant) and isinstance(
            node.operand.value, (int, float)
        )
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str, bool))


def number_matches(value: Any, written: str) -> bool:
    """``value`` shown with the precision of ``written`` is ``written``: decimals for a fixed-point
    number, significant digits for a number with an exponent, exact equality for an integer."""
    stated = float(written.replace("_", ""))
    try:
        actual = float(value)
    except (TypeError, ValueError):
        return False
    if not re.search(r"[.eE]", written):
        return actual == stated and float(int(stated)) == stated
    mantissa, _, exponent = written.lower().replace("_", "").partition("e")
    digits = len(mantissa.partition(".")[2])
    if exponent:
        return float(f"{actual:.{digits}e}") == stated
    return float(f"{actual:.{digits}f}") == stated


def _outward(node: ast.expr) -> tuple[str, ast.expr] | None:
    """(``"<="`` or ``">="``, the number's node) of an outward side ``_ <= NUMBER``, else None."""
    if not (
        isinstance(node, ast.Compare)
        and isinstance(node.left, ast.Name)
        and node.left.id == "_"
        and len(node.ops) == 1
        and isinstance(node.ops[0], (ast.LtE, ast.GtE))
    ):
        return None
    number = node.comparators[0]
    operand = number.operand if isinstance(number, ast.UnaryOp) else number
    if not (isinstance(operand, ast.Constant) and type(operand.value) in (int, float)):
        return None
    return ("<=" if isinstance(node.ops[0], ast.LtE) else ">="), number


def outward_matches(value: Any, written: str, side: str) -> bool:
    """``written`` is ``value`` rounded outward at its written precision: for ``side`` "<=" (an upper
    side) value <= written < value + one unit of written's last digit, for ">=" (a lower side)
    value - one unit < written <= value; compared exactly (``Decimal`` of the double)."""
    try:  # printed text as the decimal it states, a double exactly
        actual = (
            Decimal(value.replace("_", "")) if isinstance(value, str) else Decimal(float(value))
        )
    except (TypeError, ValueError, ArithmeticError):
        return False
    text = written.lower().replace("_", "")
    mantissa, _, exponent = text.partition("e")
    unit = Decimal(1).scaleb(int(exponent or 0) - len(mantissa.partition(".")[2]))
    gap = Decimal(text) - actual if side == "<=" else actual - Decimal(text)
    return Decimal(0) <= gap < unit


def mismatches(value: Any, node: ast.expr, source: str, path: str = "value") -> list[str]:
    """Where ``value`` differs from the literal ``node`` (written as ``source``), each as a message."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(node, (ast.Tuple, ast.List)):
        if not isinstance(value, (tuple, list)):
            return [
                f"{path} is {value!r}, stated a sequence {ast.get_source_segment(source, node)}"
            ]
        if len(value) != len(node.elts):
            return [f"{path} has {len(value)} elements, stated {len(node.elts)}: {value!r}"]
        found: list[str] = []
        for k, (item, element) in enumerate(zip(value, node.elts)):
            found += mismatches(item, element, source, f"{path}[{k}]")
        return found
    outward = _outward(node)
    if outward is not None:
        side, number = outward
        written = ast.get_source_segment(source, number) or ""
        if isinstance(value, (bool, str)) or not outward_matches(value, written, side):
            return [f"{path} is {value!r}, stated {side} {written}"]
        return []
    written = ast.get_source_segment(source, node) or ""
    literal = ast.literal_eval(node)
    if isinstance(literal, (bool, str)):
        return (
            []
            if value == literal and type(value) is type(literal)
            else [f"{path} is {value!r}, stated {written}"]
        )
    if isinstance(value, (bool, str)) or not number_matches(value, written):
        return [f"{path} is {value!r}, stated {written}"]
    return []


def claims_of(source: str) -> dict[int, str]:
    """Line (1-based, in the block) -> the text after ``# ->`` of the comment on that line."""
    found = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            claim = CLAIM.search(token.string)
            if claim is not None:
                found[token.start[0]] = claim.group(1)
            elif "->" in token.string:
                raise AssertionError(
                    f"line {token.start[0]} of the block: '{token.string}' would not be "
                    "checked; a stated value is written '# -> VALUE', the arrow first"
                )
    return found


def check_claim(value: Any, claim: str, where: str) -> None:
    parsed = stated_literal(claim)
    assert parsed is not None, f"{where}: '# -> {claim}' states no literal value"
    node, source = parsed
    problems = mismatches(value, node, source)
    assert not problems, f"{where}: " + "; ".join(problems)


# ---------------------------------------------------------------------------------------------------
# python blocks


def run_python(block: Block, namespace: dict[str, Any]) -> None:
    tree = ast.parse(block.source, filename=block.page)
    ast.increment_lineno(tree, block.line - 1)  # tracebacks and messages name the page's lines
    claims = {block.line + k - 1: text for k, text in claims_of(block.source).items()}
    checked: set[int] = set()
    _run_statements(tree.body, block, namespace, claims, checked)
    unchecked = sorted(set(claims) - checked)
    assert not unchecked, (
        f"{block.page}: stated values on lines {unchecked} belong to no statement that ran "
        "(put them on a statement at the top level of the block, or of an if that runs)"
    )


def _run_statements(
    body: list[ast.stmt],
    block: Block,
    namespace: dict[str, Any],
    claims: dict[int, str],
    checked: set[int],
) -> None:
    for statement in body:
        lines = [
            k for k in claims if statement.lineno <= k <= (statement.end_lineno or statement.lineno)
        ]
        where = f"{block.page}:{statement.lineno}"
        if lines and isinstance(statement, ast.If):
            assert statement.lineno not in lines, f"{where}: a value stated on an if line"
            test = eval(compile(ast.Expression(body=statement.test), block.page, "eval"), namespace)
            _run_statements(
                statement.body if test else statement.orelse, block, namespace, claims, checked
            )
            continue
        if not lines:
            exec(
                compile(ast.Module(body=[statement], type_ignores=[]), block.page, "exec"),
                namespace,
            )
            continue
        checked.update(lines)
        assert len(lines) == 1, f"{where}: one stated value per statement"
        value = _run_and_value(statement, block, namespace, where)
        check_claim(value, claims[lines[0]], where)


def _run_and_value(statement: ast.stmt, block: Block, namespace: dict[str, Any], where: str) -> Any:
    """Run ``statement`` as the page would, and return the value it states: an expression's value (a
    one-argument print's argument, printed too), or the value an assignment bound."""
    if isinstance(statement, ast.Expr):
        expression = statement.value
        printed = (
            isinstance(expression, ast.Call)
            and isinstance(expression.func, ast.Name)
            and expression.func.id == "print"
            and len(expression.args) == 1
            and not expression.keywords
        )
        stated = expression.args[0] if printed and isinstance(expression, ast.Call) else expression
        value = eval(compile(ast.Expression(body=stated), block.page, "eval"), namespace)
        if printed:
            print(value)
        return value
    if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
        exec(compile(ast.Module(body=[statement], type_ignores=[]), block.page, "exec"), namespace)
        target = statement.targets[-1] if isinstance(statement, ast.Assign) else statement.target
        read = ast.fix_missing_locations(
            ast.copy_location(ast.parse(ast.unparse(target), mode="eval"), target)
        )
        return eval(compile(read, block.page, "eval"), namespace)
    raise AssertionError(f"{where}: a value stated on a {type(statement).__name__} statement")


def prose_claims(text: str, page: str) -> list[tuple[str, str, str]]:
    """(where, number as written, expression) of every ``NUMBER<!-- = EXPR -->`` outside the fenced blocks."""
    found = []
    inside = False
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            found += [
                (f"{page}:{number}", _prose_written(m.group(1), m.group(2)), m.group(3))
                for m in PROSE_CLAIM.finditer(line)
            ]
    return found


def _prose_written(number: str, relation: str) -> str:
    """The prose number as a claim states it: ``2.38506`` to nearest, ``<= 2.3852`` (the value at most
    the number: written ``2.3852<!-- >= EXPR -->``) or ``>= 2.38506`` (``2.38506<!-- <= EXPR -->``)."""
    return number if relation == "=" else f"{'<=' if relation == '>=' else '>='} {number}"


def check_prose(text: str, page: str, namespace: dict[str, Any]) -> None:
    """Every checked prose number of a page is its expression's value (at the number's written precision),
    the expression evaluated in the namespace its blocks left."""
    import importlib

    scope = {**namespace, "import_module": importlib.import_module}
    for where, written, expression in prose_claims(text, page):
        try:
            value = eval(expression, scope)
        except Exception as error:  # the message names the page's line and the expression
            raise AssertionError(
                f"{where}: the prose value's expression {expression!r} fails: {error!r}"
            ) from error
        side, _, number = written.rpartition(" ")
        holds = outward_matches(value, number, side) if side else number_matches(value, number)
        assert holds, f"{where}: the prose says {written}, {expression} is {value!r}"


# ---------------------------------------------------------------------------------------------------
# shell blocks


@dataclass
class Ran:
    """What one command printed (stdout) and its exit status."""

    output: str
    status: int


def shell_commands(source: str) -> list[tuple[list[str], str | None]]:
    """Each command line's commands (``&&`` separating them) as argument lists, with its ``# ->`` claim."""
    joined: list[str] = []
    pending = ""
    for line in source.splitlines():
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        joined.append(pending + line)
        pending = ""
    commands = []
    for line in joined:
        claim = CLAIM.search(line)
        words = shlex.split(line, comments=True)
        if not words:
            continue
        commands.append((words, claim.group(1) if claim else None))
    return commands


def is_cli_example(block: Block) -> bool:
    return any("hockeystick" in _split(words) for words, _ in shell_commands(block.source)) or any(
        words[:1] == ["python"] and len(words) > 1 and words[1].startswith("examples/")
        for words, _ in shell_commands(block.source)
    )


def _split(words: list[str]) -> list[str]:
    """The first word of each ``&&``-separated command."""
    firsts, start = [], True
    for word in words:
        if start:
            firsts.append(word)
        start = word == "&&"
    return firsts


def run_command(words: list[str], where: str) -> Ran:
    redirect = None
    if ">" in words:
        k = words.index(">")
        words, redirect = words[:k], words[k + 1]
    assert "|" not in words, f"{where}: pipes are not run; write the command without one"
    if words[0] == "hockeystick":
        from hockeystick.cli import main

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(words[1:])
            except SystemExit as exit_:
                status = exit_.code if isinstance(exit_.code, int) else 1
        assert status == 0, (
            f"{where}: {shlex.join(words)} exited {status}: {err.getvalue()[-2000:]}"
        )
        text = out.getvalue()
    elif words[0] == "python" and len(words) > 1 and words[1].startswith("examples/"):
        text, status = run_script(words, where)
    else:
        raise AssertionError(
            f"{where}: '{shlex.join(words)}' is neither a hockeystick command nor an example "
            "script; mark the block <!-- skip: REASON --> if it cannot run in the suite"
        )
    if redirect is not None:
        Path(redirect).write_text(text, encoding="utf-8")
    return Ran(text, status)


def run_script(words: list[str], where: str) -> tuple[str, int]:
    """``python examples/X.py ARGS`` as the interpreter runs a script: X.py as ``__main__``, its folder first on
    ``sys.path``, ARGS in ``sys.argv``; in this process (the suite's imports and compiled kernels are the
    script's too, where a fresh interpreter would load them again). Its stdout, and its exit status (0)."""
    script = Path(words[1]).resolve()
    argv, path = sys.argv, sys.path[:]
    sys.argv = [words[1], *words[2:]]
    sys.path.insert(0, str(script.parent))
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            runpy.run_path(str(script), run_name="__main__")
        status = 0
    except SystemExit as exit_:
        status = exit_.code if isinstance(exit_.code, int) else 0 if exit_.code is None else 1
    finally:
        sys.argv = argv
        sys.path[:] = path
    assert status == 0, f"{where}: {shlex.join(words)} exited {status}: {err.getvalue()[-2000:]}"
    return out.getvalue(), status


def run_shell(block: Block) -> str:
    """Run the block's commands; the output of the last one."""
    last = ""
    for words, claim in shell_commands(block.source):
        where = block.where
        parts: list[list[str]] = [[]]
        for word in words:
            if word == "&&":
                parts.append([])
            else:
                parts[-1].append(word)
        for part in parts:
            if part[:2] == ["pip", "install"]:
                continue
            last = run_command(part, where).output
        if claim is not None:
            check_printed_numbers(last, claim, where)
    return last


def check_printed_numbers(output: str, claim: str, where: str) -> None:
    """The numbers of ``claim`` appear in ``output`` in that order, each at its written precision."""
    stated: list[tuple[str | None, str]] = []  # (the outward side or None, the number)
    side = None
    for word in claim.replace(",", " ").split():
        if word in ("<=", ">=") and side is None:
            side = word
            continue
        if NUMBER.fullmatch(word) is None:
            break
        stated.append((side, word))
        side = None
    assert stated, f"{where}: '# -> {claim}' states no number"
    printed = NUMBER.findall(output)
    k = 0
    for number in printed:
        if k < len(stated) and _printed_matches(number, *stated[k]):
            k += 1
    assert k == len(stated), (
        f"{where}: the output does not print {' '.join(filter(None, stated[k]))} (after "
        f"{[' '.join(filter(None, pair)) for pair in stated[:k]]}):\n{output}"
    )


def _printed_matches(number: str, side: str | None, written: str) -> bool:
    return (
        number_matches(number, written) if side is None else outward_matches(number, written, side)
    )


def check_output(output: str, expected: Block) -> None:
    """Each line of ``expected`` other than ``...`` is a line of ``output``, in order: the same text up to
    spacing, numbers at the precision written."""
    actual = [line for line in output.splitlines() if line.strip()]
    k = 0
    for line in expected.source.splitlines():
        if not line.strip() or line.strip() == "...":
            continue
        while k < len(actual) and not _same_line(actual[k], line):
            k += 1
        assert k < len(actual), (
            f"{expected.where}: the command does not print the line\n{line}\nits output:\n{output}"
        )
        k += 1


def _same_line(actual: str, expected: str) -> bool:
    words, stated = actual.split(), expected.split()
    if len(words) != len(stated):
        return False
    for word, written in zip(words, stated):
        number = NUMBER.search(written)
        if number is None:
            if word != written:
                return False
            continue
        head, tail = written[: number.start()], written[number.end() :]
        if not (word.startswith(head) and word.endswith(tail)):
            return False
        inner = word[len(head) : len(word) - len(tail)] if tail else word[len(head) :]
        if NUMBER.fullmatch(inner) is None or not number_matches(inner, number.group()):
            return False
    return True


# ---------------------------------------------------------------------------------------------------
# the tests

ALL_BLOCKS = [block for page in PAGES for block in read_blocks(page)]
SKIPPED = [block for block in ALL_BLOCKS if block.marker == "skip"]
NOT_CLI = [
    block
    for block in ALL_BLOCKS
    if block.marker is None and block.language in SHELL and not is_cli_example(block)
]
# page -> why its examples take over 4 CPU s (one worker, AMD EPYC): run under --run-slow; in the default
# selection their python blocks compile, their commands parse and their stated values are literals
# (test_slow_page_blocks_compile_and_commands_parse). README.md, the first page a user runs, stays.
SLOW_PAGES = {
    "docs/simulate.md": "worker processes, each compiling the numba kernels",
    "docs/secure-aggregation.md": "calibrates the discrete mechanisms' noise (about 25 s)",
    "docs/training.md": "DP-SGD and federated runs at delta = 1e-10 (about 12 s)",
    "docs/cli.md": "every subcommand once, calibrations included (about 5 s)",
    "docs/matrix-mechanisms.md": "matrix factorizations and their amplified readings (about 6 s)",
    "docs/risk.md": "trade-off curves and TPR calibrations (about 5 s)",
    "docs/interop.md": "both adapters' runs beside dp_accounting and Opacus (about 5 s)",
}


def _page_param(page: Path) -> Any:
    name = str(page.relative_to(ROOT))
    marks = [pytest.mark.slow] if name in SLOW_PAGES else []
    return pytest.param(page, id=name, marks=marks)


@pytest.mark.parametrize("page", [_page_param(page) for page in PAGES])
def test_page_examples_print_what_the_page_states(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's blocks run in order in one namespace and one working directory, and every stated
    value is the value computed."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    namespace: dict[str, Any] = {"__name__": "__main__"}
    blocks = read_blocks(page)
    previous: tuple[Block, str] | None = None
    for block in blocks:
        if block.marker == "skip":
            previous = None
            continue
        if block.marker == "file":
            assert block.argument and "/" not in block.argument, (
                f"{block.where}: a file marker names a plain file"
            )
            (tmp_path / block.argument).write_text(block.source, encoding="utf-8")
        elif block.language == "python":
            run_python(block, namespace)
        elif block.language in SHELL and is_cli_example(block):
            previous = (block, run_shell(block))
            continue
        elif block.language == "text" and previous is not None:
            check_output(previous[1], block)
        previous = None
    check_prose(page.read_text(encoding="utf-8"), str(page.relative_to(ROOT)), namespace)


@pytest.mark.parametrize("name", sorted(SLOW_PAGES))
def test_slow_page_blocks_compile_and_commands_parse(name: str) -> None:
    """The default selection's share of a slow page: each python block compiles and each value it
    states is a literal, and each ``hockeystick`` command is accepted by the command line's parser
    (``--run-slow`` runs them all and compares the values)."""
    from hockeystick.cli import build_parser  # lazy: the command line's parser only here

    assert (ROOT / name).is_file(), f"{name} is gone: drop it from SLOW_PAGES"
    blocks = [b for b in read_blocks(ROOT / name) if b.marker != "skip"]
    assert blocks, f"{name} has no examples"
    for block in blocks:
        if block.language == "python":
            ast.parse(block.source, filename=block.where)
            for line, claim in claims_of(block.source).items():
                assert stated_literal(claim) is not None, f"{block.where}+{line}: '# -> {claim}'"
        elif block.language in SHELL and is_cli_example(block):
            for words, _ in shell_commands(block.source):
                commands: list[list[str]] = [[]]
                for word in words:
                    if word == "&&":
                        commands.append([])
                    else:
                        commands[-1].append(word)
                for command in commands:
                    command = command[: command.index(">")] if ">" in command else command
                    if command[:1] == ["hockeystick"]:
                        try:
                            build_parser().parse_args(command[1:])
                        except SystemExit as exit_:
                            shown = shlex.join(command)
                            raise AssertionError(
                                f"{block.where}: {shown} does not parse"
                            ) from exit_


@pytest.mark.parametrize("block", [pytest.param(block, id=block.where) for block in SKIPPED])
def test_skipped_block(block: Block) -> None:
    """A block left out of the run says why (reported by pytest -ra)."""
    assert len(block.argument) >= 10, (
        f"{block.where}: a skipped block needs a reason, got {block.argument!r}"
    )
    pytest.skip(f"{block.where}: {block.argument}")


@pytest.mark.parametrize("block", [pytest.param(block, id=block.where) for block in NOT_CLI])
def test_shell_block_without_a_hockeystick_command(block: Block) -> None:
    """A shell block of other tools (the test suite's own commands) is not run; reported by pytest -ra."""
    commands = [" ".join(words) for words, _ in shell_commands(block.source)]
    pytest.skip(f"{block.where}: not a hockeystick command: {'; '.join(commands)}")


def test_every_marker_marks_a_block_and_every_page_has_examples() -> None:
    assert [found for page in PAGES for found in dangling_markers(page)] == []
    assert {block.page for block in ALL_BLOCKS if block.language == "python"} >= {"README.md"}
    unknown = [block.where for block in ALL_BLOCKS if block.marker == "file" and not block.argument]
    assert unknown == []


def test_every_relative_link_of_the_pages_names_a_file_of_the_repository() -> None:
    broken = []
    for page in PAGES:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if "://" not in target and not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []


# ---------------------------------------------------------------------------------------------------
# the checker itself: it fails on a wrong value


def test_a_number_is_compared_at_the_precision_written() -> None:
    assert number_matches(2.3850647574522457, "2.3851")
    assert not number_matches(2.3850647574522457, "2.3849")
    assert number_matches(5.72557122e-300, "5.7e-300") and not number_matches(
        5.72557122e-300, "5.8e-300"
    )
    assert (
        number_matches(90, "90") and not number_matches(90.4, "90") and not number_matches(91, "90")
    )
    assert number_matches(np.float64(-999727.2420992844), "-999727.24")


def test_a_checked_prose_number_is_compared_with_its_expression() -> None:
    text = (
        "Poisson gives 4.2279<!-- = value --> here, and 2.38<!-- = pair[1] -->.\n"
        "```python\nx = 1  # 9.9<!-- = value --> inside a block is code, not prose\n```\n"
    )
    assert [(w, n, e) for w, n, e in prose_claims(text, "page.md")] == [
        ("page.md:1", "4.2279", "value"),
        ("page.md:1", "2.38", "pair[1]"),
    ]
    check_prose(text, "page.md", {"value": 4.22794, "pair": (1.0, 2.3812)})
    with pytest.raises(AssertionError, match=r"page.md:1: the prose says 4.2279, value is 4.2277"):
        check_prose(text, "page.md", {"value": 4.2277, "pair": (1.0, 2.38)})
    with pytest.raises(
        AssertionError, match=r"page.md:1: the prose value's expression 'value' fails"
    ):
        check_prose(text, "page.md", {})


def test_tuples_and_arrays_are_compared_elementwise() -> None:
    node, source = stated_literal("(2.3851, 2.3852): the true epsilon lies in this bracket") or (
        None,
        "",
    )
    assert node is not None and source == "(2.3851, 2.3852)"
    assert mismatches((2.3850647574522457, 2.3852152397061266), node, source) == []
    assert mismatches((2.3849, 2.3852152397061266), node, source) != []
    assert mismatches((2.3851,), node, source) != []
    node, source = stated_literal("[0.7255, 0.2068]") or (None, "")
    assert node is not None and mismatches(np.array([0.72552175, 0.20680463]), node, source) == []
    assert mismatches(np.array([0.72552175, 0.2078]), node, source) != []


def test_a_stated_value_is_checked_against_the_statement_on_its_line() -> None:
    good = Block("page.md", 1, "python", "x = 2 ** 0.5   # -> 1.4142\nx * x   # -> 2.0\n")
    run_python(good, {})
    wrong = Block("page.md", 1, "python", "x = 2 ** 0.5\nx   # -> 1.4143: a wrong digit\n")
    with pytest.raises(AssertionError, match="stated 1.4143"):
        run_python(wrong, {})
    stray = Block("page.md", 1, "python", "x = 2 ** 0.5   # its value -> 1.4143\n")
    with pytest.raises(AssertionError, match="would not be checked"):
        run_python(stray, {})
    orphan = Block("page.md", 1, "python", "for k in range(2):\n    k   # -> 1\n")
    with pytest.raises(AssertionError, match="a value stated on a For statement"):
        run_python(orphan, {})


def test_printed_output_is_compared_line_by_line() -> None:
    printed = (
        "epsilon_lower  epsilon_upper\n-------------  -------------\n      1.82823        1.82824\n"
    )
    check_printed_numbers(printed, "1.82823 1.82824", "page.md")
    with pytest.raises(AssertionError):
        check_printed_numbers(printed, "1.82824 1.82823", "page.md")
    expected = Block("page.md", 1, "text", "epsilon_lower epsilon_upper\n...\n1.8282 1.8282\n")
    check_output(printed, expected)
    with pytest.raises(AssertionError):
        check_output(printed, Block("page.md", 1, "text", "1.8283 1.8282\n"))


def test_shell_lines_split_into_commands() -> None:
    source = 'pip install ".[plot]" && hockeystick sweep --example\nhockeystick epsilon \\\n  --delta 1e-5   # -> 2.38\n'
    assert shell_commands(source) == [
        (["pip", "install", ".[plot]", "&&", "hockeystick", "sweep", "--example"], None),
        (["hockeystick", "epsilon", "--delta", "1e-5"], "2.38"),
    ]


def test_an_example_script_runs_as_main_with_its_arguments(tmp_path: Path) -> None:
    script = tmp_path / "script.py"
    script.write_text(
        "import sys\nif __name__ == '__main__':\n    print(*sys.argv[1:])\n"
        "    sys.exit(3 if '--fail' in sys.argv else None)\n",
        encoding="utf-8",
    )
    argv = sys.argv[:]
    assert run_script(["python", str(script), "--rounds", "4"], "page.md") == ("--rounds 4\n", 0)
    with pytest.raises(AssertionError, match="exited 3"):
        run_script(["python", str(script), "--fail"], "page.md")
    assert sys.argv == argv and str(tmp_path) not in sys.path


def test_an_outward_side_is_stated_rounded_away_from_the_truth() -> None:
    upper, lower = 2.3851438667, 2.3850652146  # the README run's bracket at delta = 1e-5
    tiny = 1.00000000000000008e-5  # the double nearest 1e-5 lies above 1e-5
    holds = [
        (upper, "2.38515", "<="),
        (lower, "2.38506", ">="),
        (upper, "2.3852", "<="),
        (upper, "3", "<="),
        (90.0, "90", "<="),
        (tiny, "1.00001e-5", "<="),
        (-upper, "-2.38515", ">="),
    ]
    fails = [
        (upper, "2.38514", "<="),  # to nearest: below the upper side
        (lower, "2.38507", ">="),  # to nearest: above the lower side
        (upper, "2.38515", ">="),  # the wrong direction
        (upper, "2.38516", "<="),  # a unit too loose
        (upper, "4", "<="),
        (90.5, "90", "<="),
        (tiny, "1e-5", "<="),
    ]
    assert [outward_matches(*case) for case in holds] == [True] * len(holds)
    assert [outward_matches(*case) for case in fails] == [False] * len(fails)
    node, source = stated_literal("(>= 2.38506, <= 2.38515): the certified bracket") or (None, "")
    assert node is not None and mismatches((lower, upper), node, source) == []
    assert mismatches((upper, lower), node, source) != []
    node, source = stated_literal("<= [[2.38515], (2.3852, 3)] each an upper side") or (None, "")
    assert node is not None and mismatches([[upper], (upper, upper)], node, source) == []
    assert mismatches([[upper], (upper, 4.0)], node, source) != []
    good = Block("page.md", 1, "python", "x = 2 ** 0.5   # -> <= 1.4143: an upper side\n")
    run_python(good, {})
    wrong = Block("page.md", 1, "python", "x = 2 ** 0.5   # -> >= 1.4143: a wrong direction\n")
    with pytest.raises(AssertionError, match="stated >= 1.4143"):
        run_python(wrong, {})
    prose = "at most 2.38515<!-- >= bracket[1] --> and at least 2.38506<!-- <= bracket[0] -->\n"
    check_prose(prose, "page.md", {"bracket": (lower, upper)})
    with pytest.raises(AssertionError, match=r"the prose says <= 2.38515, bracket\[1\]"):
        check_prose(prose, "page.md", {"bracket": (lower, 2.385151)})
    check_printed_numbers("epsilon_upper\n2.38515\n", "<= 2.38515", "page.md")
    with pytest.raises(AssertionError, match="does not print <= 2.38514"):
        check_printed_numbers("epsilon_upper\n2.38515\n", "<= 2.38514", "page.md")
