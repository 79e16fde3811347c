"""The accountant contract's reference text, written once and completed into every accountant's docstrings.

``accountant`` states the contract as code; this module states it as the numpydoc sections every
``delta`` / ``epsilon`` shares: the argument and ``bound`` under Parameters, the broadcast result
under Returns, the refusals under Raises.  A class decorated ``@accountant_docs()`` (or
``@accountant_docs(sides=UPPER_ONLY)``, for an accountant that certifies the upper side only, or
``sides=LOWER_ONLY``, for one that certifies the lower side only) writes in its methods' docstrings
only what is its own: the summary, the formula and its source, its further parameters, its further
results and refusals.  When the class is created the decorator assembles each method's docstring, so
that ``help()``, ``inspect.getdoc`` and the rendered reference read complete sections:

* Parameters: the contract's entries for the argument and ``bound``, then the method's own; a
  method's entry of the same name replaces the contract's (an argument whose domain differs says so
  there).
* Returns: the contract's entry; the method's own Returns entry, which carries the same type line,
  adds its lines to the description.
* Raises: the contract's entries; a method's entry of the same exception adds its lines, a new one
  follows.
* The method's other sections (Notes, Examples, ...) follow, in its order.

A method whose documented parameters are not its signature's is refused at class creation
(TypeError).
"""

from __future__ import annotations

import functools
import inspect
import textwrap
from collections.abc import Callable
from typing import Any, TypeVar

from .accountant import BOUND_SIDES, LOWER_ONLY, UPPER_ONLY, Bound, Quantity

__all__ = ["accountant_docs", "contract_sections"]

_C = TypeVar("_C", bound=type)

# the contract's sections (their descriptions are refilled to _WIDTH); {arg} is the method's
# argument
_CONTRACT = """\
Parameters
----------
{argument}
bound : {sides}, default "{default}"
    {bound_text}

Returns
-------
{returns_type}
    {value} on the side ``bound`` asks for: a float for a scalar ``{arg}`` and scalar parameters, else an
    array of the broadcast shape (as ``{arg}`` says){both}.

Raises
------
ValueError
    ``{arg}`` outside the domain above, or NaN; ``bound`` not {sides_words}; shapes that do not
    broadcast.  The message names the argument and its rule: ``<name> must be <rule>, got <value>``.
ParameterTypeError
    ``{arg}`` a string, bool or None (a TypeError and a ValueError).
"""

_ARGUMENT = {
    "delta": """\
epsilon : array_like
    Epsilon >= 0 (``inf`` allowed); broadcasts with the accountant's array parameters, if any.""",
    "epsilon": """\
delta : array_like
    Target delta, strictly between 0 and 1; broadcasts with the accountant's array parameters, if any.""",
}

_VALUE = {
    "delta": "delta in [0, 1]",
    "epsilon": "The smallest epsilon >= 0 with delta(epsilon) <= ``delta``,",
}

_BOUND_TEXT = {
    BOUND_SIDES: (
        'Keyword-only.  The side of the certified bracket [lower, upper] of the true value: "upper" (never '
        'below it), "lower" (never above it), or "both", the tuple ``(lower, upper)``.'
    ),
    UPPER_ONLY: (
        'Keyword-only.  Only "upper" (never below the true value): this accountant certifies no lower side, '
        'and "lower" or "both" raise ValueError.'
    ),
    LOWER_ONLY: (
        'Keyword-only.  Only "lower" (never above the true value): this accountant certifies no upper side, '
        'and "upper" or "both" raise ValueError.'
    ),
}

_RETURNS_TYPE = {
    BOUND_SIDES: "float, numpy.ndarray or tuple",
    UPPER_ONLY: "float or numpy.ndarray",
    LOWER_ONLY: "float or numpy.ndarray",
}

# sections whose entries merge by key; the others are the method's alone
_MERGED = ("Parameters", "Returns", "Raises")

_WIDTH = 100  # the contract's descriptions are filled to this width (indent excluded)

_Entries = list[
    tuple[str, list[str]]
]  # (the entry's first line, its description lines, unindented)


def contract_sections(method: Quantity, sides: tuple[Bound, ...] = BOUND_SIDES) -> str:
    """The contract's Parameters, Returns and Raises sections for ``method``, as numpydoc text.

    Parameters
    ----------
    method : {"delta", "epsilon"}
        The accountant's method.
    sides : tuple of str, default BOUND_SIDES
        The sides of ``bound`` the accountant gives: ``BOUND_SIDES``, ``UPPER_ONLY`` or
        ``LOWER_ONLY``. A single side is also ``bound``'s default; with every side the default is
        "upper".

    Returns
    -------
    str
        The three sections, unindented.

    Raises
    ------
    ValueError
        An unknown ``method``, or ``sides`` not one of ``BOUND_SIDES``, ``UPPER_ONLY`` and
        ``LOWER_ONLY``.
    """
    if method not in _ARGUMENT:
        raise ValueError(f"method must be one of 'delta', 'epsilon', got {method!r}")
    if sides not in _BOUND_TEXT:
        raise ValueError(f"sides must be BOUND_SIDES, UPPER_ONLY or LOWER_ONLY, got {sides!r}")
    arg = "epsilon" if method == "delta" else "delta"
    text = _CONTRACT.format(
        argument=_ARGUMENT[method],
        arg=arg,
        sides="{" + ", ".join(f'"{side}"' for side in sides) + "}",
        default=sides[0],
        sides_words=f'"{sides[0]}"' if len(sides) == 1 else "one of the three",
        bound_text=_BOUND_TEXT[sides],
        returns_type=_RETURNS_TYPE[sides],
        value=_VALUE[method],
        both='; with ``bound="both"`` the tuple ``(lower, upper)`` of them'
        if sides == BOUND_SIDES
        else "",
    )
    _, sections = _split(text)
    out: list[str] = []
    for title, body in sections:
        entries = [(head, textwrap.wrap(" ".join(lines), _WIDTH)) for head, lines in _entries(body)]
        out += [title, "-" * len(title), *_render(entries), ""]
    return "\n".join(out)


def accountant_docs(*, sides: tuple[Bound, ...] = BOUND_SIDES) -> Callable[[_C], _C]:
    """Class decorator: complete the class's own ``delta`` / ``epsilon`` docstrings with the contract's sections.

    Parameters
    ----------
    sides : tuple of str, default BOUND_SIDES
        The sides of ``bound`` the class gives: ``BOUND_SIDES``, ``UPPER_ONLY`` for an accountant
        that certifies the upper side only, or ``LOWER_ONLY`` for one that certifies the lower side
        only.

    Returns
    -------
    Callable
        The decorator; it sets the ``__doc__`` of each ``delta`` / ``epsilon`` the class defines
        (inherited ones keep their own) and returns the class.

    Raises
    ------
    TypeError
        At class creation: a method without a docstring, a Returns entry whose type line is not the
        contract's, or documented parameters that are not the signature's.
    ValueError
        ``sides`` not one of ``BOUND_SIDES``, ``UPPER_ONLY`` and ``LOWER_ONLY``.
    """
    if sides not in _BOUND_TEXT:
        raise ValueError(f"sides must be BOUND_SIDES, UPPER_ONLY or LOWER_ONLY, got {sides!r}")

    def decorate(cls: _C) -> _C:
        methods: tuple[Quantity, ...] = ("delta", "epsilon")
        for method in methods:
            function = cls.__dict__.get(method)
            if function is None:
                continue
            where = f"{cls.__qualname__}.{method}"
            if not function.__doc__:
                raise TypeError(
                    f"{where} has no docstring to complete with the accountant contract"
                )
            function.__doc__ = _assemble(where, function.__doc__, _contract(method, sides))
            _check_parameters(where, function)
        return cls

    return decorate


# the sections of each (method, sides), refilled once per process: every accountant class shares them
_contract = functools.cache(contract_sections)


def _assemble(where: str, own: str, contract: str) -> str:
    """``own`` docstring with ``contract``'s sections merged in (the module docstring's rules)."""
    own_preamble, own_sections = _split(own)
    _, contract_sections_ = _split(contract)
    own_by_title = dict(own_sections)
    out = [*own_preamble]
    for title, body in contract_sections_:
        entries = _merge(where, title, _entries(body), _entries(own_by_title.get(title, [])))
        out += ["", title, "-" * len(title), *_render(entries)]
    for title, body in own_sections:
        if title not in _MERGED:
            out += ["", title, "-" * len(title), *body]
    return "\n".join(out).strip() + "\n"


def _merge(where: str, title: str, contract: _Entries, own: _Entries) -> _Entries:
    if (
        title == "Parameters"
    ):  # a method's entry of the same name replaces the contract's, in its place
        replacing = {_name(head): (head, lines) for head, lines in own}
        merged = [replacing.get(_name(head), (head, lines)) for head, lines in contract]
        return merged + [entry for entry in own if entry not in merged]
    merged = [(head, [*lines]) for head, lines in contract]
    heads = [head for head, _ in merged]
    for head, lines in own:
        if head in heads:
            merged[heads.index(head)][1].extend(lines)
        elif title == "Returns":
            raise TypeError(
                f"{where}: its Returns entry {head!r} is not the contract's {heads[0]!r}"
            )
        else:
            merged.append((head, lines))
    return merged


def _name(head: str) -> str:
    return head.split(":")[0].strip()


def _split(doc: str) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """The lines before the first numpydoc section, and each section's (title, lines)."""
    lines = inspect.cleandoc(doc).splitlines()
    preamble: list[str] = []
    sections: list[tuple[str, list[str]]] = []
    i = 0
    while i < len(lines):
        underline = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if (
            lines[i].strip()
            and not lines[i][0].isspace()
            and len(underline) >= 3
            and set(underline) == {"-"}
        ):
            sections.append((lines[i].strip(), []))
            i += 2
            continue
        (sections[-1][1] if sections else preamble).append(lines[i])
        i += 1
    while preamble and not preamble[-1].strip():
        preamble.pop()
    return preamble, sections


def _entries(body: list[str]) -> _Entries:
    """A section's entries: each unindented line opens one, the indented lines below it describe it."""
    entries: _Entries = []
    for line in body:
        if line.strip() and not line[0].isspace():
            entries.append((line.rstrip(), []))
        elif entries:
            entries[-1][1].append(line[4:] if line.startswith("    ") else line.strip())
    for _, lines in entries:
        while lines and not lines[-1].strip():
            lines.pop()
    return entries


def _render(entries: _Entries) -> list[str]:
    return [
        text
        for head, lines in entries
        for text in (head, *(f"    {line}" if line else "" for line in lines))
    ]


def _check_parameters(where: str, function: Any) -> None:
    """The documented parameters are the signature's (numpydoc's PR01 and PR02, checked at class creation)."""
    documented: list[str] = []
    for title, body in _split(function.__doc__)[1]:
        if title == "Parameters":
            documented = [_name(head) for head, _ in _entries(body)]
    signature = [name for name in inspect.signature(function).parameters if name != "self"]
    if sorted(documented) != sorted(signature):
        raise TypeError(
            f"{where}: documented parameters {documented} are not the signature's {signature}"
        )
