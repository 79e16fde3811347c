"""The sidebar lists the site's pages and the API's namespaces, not each public name, and is drawn once per kind of page.

furo draws every page's sidebar from the whole table of contents, hidden entries included, to full depth
(its ``toctree(collapse=False, titles_only=True, maxdepth=-1, includehidden=True)``). The API reference has
a page per public name (some 290) under its namespace pages, so every page's sidebar listed all of them. Here
the sidebar stops at ``SIDEBAR_DEPTH`` levels: the guides, the API index and its namespaces; a namespace's
page lists its names in its summary table.

Sphinx resolves the whole tree for each page before it prunes it to that depth (each of about 320 pages
copies every entry: quadratic in the page count, as much as the rest of the build). A page's pruned sidebar
depends on the page only through (a) the folder its relative links start from, (b) which of the shown
entries are its ancestors (Sphinx marks the branch down to the page ``current`` before it prunes) and (c)
whether the page itself is shown (its own entry links to ``#``). Pages alike in both, such as the public names of one namespace, get the same HTML, so it is
computed once per such key.

Each such sidebar is still resolved from the whole tree, and pruned afterwards: every namespace's page
brings in its names, every guide its sections. So while one is resolved, a document whose entry the
sidebar shows as its title alone has ``tocdepth`` 1 (its table of contents is copied as its title, without
the sections and toctrees the pruning would drop): one on the sidebar's last level (its children lie
below it), and, when the theme asks for titles only, one that includes no other document. The page and
the documents whose toctrees lead to it keep theirs, since Sphinx marks ``current`` from the page's own
entry upward. The HTML is the same.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sphinx.application import Sphinx

# the sidebar's levels: a top-level page (the API reference), then its namespaces
SIDEBAR_DEPTH = 2


def _parents(app: Sphinx) -> dict[str, str]:
    """Each document's parent in the table of contents (the document whose toctree includes it)."""
    return {
        child: parent for parent, children in app.env.toctree_includes.items() for child in children
    }


def _shown(app: Sphinx) -> set[str]:
    """The documents the sidebar shows: the root's toctree entries down to ``SIDEBAR_DEPTH`` levels."""
    level = [app.config.root_doc]
    shown = set(level)
    for _ in range(SIDEBAR_DEPTH):
        level = [child for doc in level for child in app.env.toctree_includes.get(doc, [])]
        shown.update(level)
    return shown


def _last_level(app: Sphinx) -> set[str]:
    """The documents first shown on the sidebar's last level."""
    level = [app.config.root_doc]
    above = set(level)
    for _ in range(SIDEBAR_DEPTH - 1):
        level = [child for doc in level for child in app.env.toctree_includes.get(doc, [])]
        above.update(level)
    last = {child for doc in level for child in app.env.toctree_includes.get(doc, [])}
    return last - above


def _ancestors(parents: dict[str, list[str]], pagename: str) -> set[str]:
    """Every document whose toctree leads to ``pagename`` (through any of its parents)."""
    found: set[str] = set()
    pending = [pagename]
    while pending:
        for parent in parents.get(pending.pop(), []):
            if parent not in found:
                found.add(parent)
                pending.append(parent)
    return found


@contextmanager
def _titles_only(app: Sphinx, docs: set[str]) -> Iterator[None]:
    """While it lasts, each of ``docs`` contributes its title alone to a resolved toctree (``tocdepth`` 1)."""
    metadata = app.env.metadata
    saved = {doc: metadata[doc].get("tocdepth") for doc in docs if doc in metadata}
    for doc in saved:
        metadata[doc]["tocdepth"] = 1
    try:
        yield
    finally:
        for doc, depth in saved.items():
            if depth is None:
                del metadata[doc]["tocdepth"]
            else:
                metadata[doc]["tocdepth"] = depth


def shallow_sidebar(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """Give the theme a ``toctree`` of depth at most ``SIDEBAR_DEPTH``, cached by what it depends on (it runs
    before furo's handler)."""
    toctree = context.get("toctree")
    if toctree is None:
        return
    state = getattr(app.builder, "hockeystick_sidebar", None)
    if state is None:  # the table of contents is complete once pages are written
        every_parent: dict[str, list[str]] = {}
        for parent, children in app.env.toctree_includes.items():
            for child in children:
                every_parent.setdefault(child, []).append(parent)
        shown = _shown(app)
        state = {
            "parents": _parents(app),
            "every_parent": every_parent,
            "shown": shown,
            "last": _last_level(app),
            "leaves": {doc for doc in shown if not app.env.toctree_includes.get(doc)},
            "html": {},
        }
        app.builder.hockeystick_sidebar = state  # type: ignore[attr-defined]
    branch, visited, doc = [], set(), pagename
    while doc is not None and doc not in visited:
        visited.add(doc)
        if doc in state["shown"]:
            branch.append(doc)
        doc = state["parents"].get(doc)

    def at_most_sidebar_depth(**kwargs: Any) -> str:
        depth = kwargs.get("maxdepth", -1)
        kwargs["maxdepth"] = SIDEBAR_DEPTH if depth < 0 else min(depth, SIDEBAR_DEPTH)
        key = (
            tuple(sorted(kwargs.items())),
            posixpath.dirname(pagename),
            tuple(branch),
            pagename in branch,
        )
        if key not in state["html"]:
            # (maxdepth 0 would be the toctree's own, which may reach below the last level)
            cut = set(state["last"]) if kwargs["maxdepth"] > 0 else set()
            if kwargs.get("titles_only"):
                cut |= state["leaves"]
            cut -= _ancestors(state["every_parent"], pagename) | {pagename}
            with _titles_only(app, cut):
                state["html"][key] = str(toctree(**kwargs))
        return str(state["html"][key])

    context["toctree"] = at_most_sidebar_depth


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect(
        "html-page-context", shallow_sidebar, priority=400
    )  # before the theme's (500) reads it
    return {"parallel_read_safe": True, "parallel_write_safe": True}
