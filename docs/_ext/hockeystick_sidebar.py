"""The sidebar lists the site's pages and the API's namespaces, not each public name.

furo draws every page's sidebar from the whole table of contents, hidden entries included, to full depth
(its ``toctree(collapse=False, titles_only=True, maxdepth=-1, includehidden=True)``). The API reference has
a page per public name (some 290) under its namespace pages, so every page's sidebar listed all of them, and
building those sidebars cost the build as much as the rest of it (each of about 320 pages copies the whole
tree: quadratic in the page count). Here the sidebar stops at ``SIDEBAR_DEPTH`` levels: the guides, the API
index and its namespaces; a namespace's page lists its names in its summary table.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx

# the sidebar's levels: a top-level page (the API reference), then its namespaces
SIDEBAR_DEPTH = 2


def shallow_sidebar(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """Give the theme a ``toctree`` whose depth is at most ``SIDEBAR_DEPTH`` (it runs before furo's handler)."""
    toctree = context.get("toctree")
    if toctree is None:
        return

    def at_most_sidebar_depth(**kwargs: Any) -> str:
        depth = kwargs.get("maxdepth", -1)
        kwargs["maxdepth"] = SIDEBAR_DEPTH if depth < 0 else min(depth, SIDEBAR_DEPTH)
        return str(toctree(**kwargs))

    context["toctree"] = at_most_sidebar_depth


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("html-page-context", shallow_sidebar, priority=400)  # before the theme's (500) reads it
    return {"parallel_read_safe": True, "parallel_write_safe": True}
