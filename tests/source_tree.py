"""The repository's and the installed package's source files read and parsed once a test process.

The architecture guards (layers, private seams, code shape, public surface, ...) each walk every module of the
package or of the tests; a module's text, syntax tree and node list are the same for every guard that reads them
in one run, so each is computed on the first request and handed out from then on. A file outside the repository
and the installed package (a guard's own sample under ``tmp_path``) is read afresh on every call, since a test may
rewrite it. The trees handed out are shared: a caller reads them and never changes a node.

The kept trees hold about a million nodes and no reference cycle (a node refers to its children only), so
they are moved out of the cyclic collector's generations as they are built (``gc.freeze``): left in, every full
collection of the process would walk them all, which costs more than the parses saved.
"""

from __future__ import annotations

import ast
import functools
import gc
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import hockeystick

# the roots whose files are kept once read: the checkout, and the package the tests import (the checkout's under
# an editable install, a wheel's otherwise)
KEPT_ROOTS = (Path(__file__).resolve().parent.parent, Path(hockeystick.__file__).resolve().parent)

_Kept = TypeVar("_Kept")


def _kept(build: Callable[[], _Kept]) -> _Kept:
    """``build()``, run with the collector paused and its result frozen out of the collector's generations; the
    garbage of earlier tests is collected first, so that no cycle of theirs is frozen with it (a collection
    walks only what was made since the last freeze)."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        built = build()
        gc.freeze()
        return built
    finally:
        if enabled:
            gc.enable()


@functools.cache
def _source(path: Path) -> str:
    return path.read_text()


@functools.cache
def _tree(path: Path) -> ast.Module:
    return _kept(lambda: ast.parse(_source(path), str(path)))


@functools.cache
def _nodes(path: Path) -> tuple[ast.AST, ...]:
    return _kept(lambda: tuple(ast.walk(_tree(path))))


def _in_repository(path: Path) -> Path | None:
    """``path`` resolved when it lies in the checkout or the installed package, else None."""
    resolved = path.resolve()
    return resolved if any(resolved.is_relative_to(root) for root in KEPT_ROOTS) else None


def source(path: Path) -> str:
    """The text of ``path``.

    Parameters
    ----------
    path : Path
        A file.

    Returns
    -------
    str
        Its text, read once a process for a file in the repository or the package.
    """
    resolved = _in_repository(path)
    return _source(resolved) if resolved else path.read_text()


def tree(path: Path) -> ast.Module:
    """The syntax tree of the Python file ``path``; the caller does not change it.

    Parameters
    ----------
    path : Path
        A Python file.

    Returns
    -------
    ast.Module
        Its tree, parsed once a process for a file in the repository or the package.

    Raises
    ------
    SyntaxError
        When the file is not valid Python.
    """
    resolved = _in_repository(path)
    return _tree(resolved) if resolved else ast.parse(path.read_text(), str(path))


def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of the syntax tree of ``path``, in ``ast.walk`` order; the caller does not change them.

    Parameters
    ----------
    path : Path
        A Python file.

    Returns
    -------
    tuple of ast.AST
        Its nodes, walked once a process for a file in the repository or the package.

    Raises
    ------
    SyntaxError
        When the file is not valid Python.
    """
    resolved = _in_repository(path)
    return _nodes(resolved) if resolved else tuple(ast.walk(tree(path)))
