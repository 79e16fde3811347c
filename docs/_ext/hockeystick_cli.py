"""The command line's parser as the CLI reference renders it (docs/cli-reference.md, sphinx-argparse).

The parser is the one the command builds (``hockeystick.cli.build_parser``); only its free text changes
form. A description or epilog is written for a terminal (``RawDescriptionHelpFormatter``): an indented
run of lines under a heading (``examples:``, a sweep file's layout) is a command or a file to copy, kept
as printed. sphinx-argparse parses that text as reStructuredText, where such a run is a definition list
or a quotation, its lines joined and its ``*`` and ``\\`` read as markup; here each indented run becomes
a literal block, shown as ``--help`` shows it, and the other lines, like every option's help, have the
characters of inline markup escaped (``(*.png)`` is no emphasis, ``noise_multiplier`` no reference).
"""

from __future__ import annotations

import argparse
import re

from hockeystick.cli import build_parser as command_parser

# the characters reStructuredText reads as inline markup; argparse's %(name)s fields are left whole
_MARKUP = re.compile(r"[\\*`|_]")
_FIELD = re.compile(r"(%\([^)]*\)[a-z])")


def plain(text: str) -> str:
    """``text`` as reStructuredText that renders as written: each markup character escaped."""
    parts = _FIELD.split(text)
    return "".join(
        part if index % 2 else _MARKUP.sub(r"\\\g<0>", part) for index, part in enumerate(parts)
    )


def literal_runs(text: str) -> str:
    """reStructuredText of terminal help text: each run of indented lines (blank lines inside it kept)
    a literal block, the other lines paragraphs as written."""
    lines = text.splitlines()
    out: list[str] = []
    inside = False
    for number, line in enumerate(lines):
        indented = line.startswith((" ", "\t")) and bool(line.strip())
        if indented and not inside:
            out += ["", "::", ""]
            inside = True
        elif inside and line.strip() and not indented:
            out.append("")  # a literal block ends at a blank line before the next paragraph
            inside = False
        elif inside and not line.strip():
            following = next((later for later in lines[number + 1 :] if later.strip()), "")
            inside = following.startswith((" ", "\t"))
        out.append(line if inside else plain(line))
    return "\n".join(out) + "\n"


def _subparsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    return [
        sub
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
        for sub in action.choices.values()
    ]


def build_parser() -> argparse.ArgumentParser:
    """``hockeystick.cli.build_parser()``, its descriptions and epilogs as reStructuredText."""
    parser = command_parser()
    for each in [parser, *_subparsers(parser)]:
        if each.description:
            each.description = literal_runs(each.description)
        if each.epilog:
            each.epilog = literal_runs(each.epilog)
        for action in each._actions:
            if action.help and action.help != argparse.SUPPRESS:
                action.help = plain(action.help)
    return parser
