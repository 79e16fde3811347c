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
"""

from __future__ import annotations

import posixpath
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
        state = {"parents": _parents(app), "shown": _shown(app), "html": {}}
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
            state["html"][key] = str(toctree(**kwargs))
        return str(state["html"][key])

    context["toctree"] = at_most_sidebar_depth


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect(
        "html-page-context", shallow_sidebar, priority=400
    )  # before the theme's (500) reads it
    return {"parallel_read_safe": True, "parallel_write_safe": True}
