"""A Python reference that no documented object can match is looked up exactly, not by suffix.

Sphinx marks the types of a signature and numpydoc's parameter types ``refspecific``: the Python domain
then looks each up by the page's module and class, and failing that scans every documented object for a
name ending in ``.<target>`` (``PythonDomain.find_obj``, its "fuzzy" mode), three times for a class
(class, then data, then attribute, for type aliases). Most such targets on this site are the builtins and
the names of numpy and the standard library (``float``, ``numpy.ndarray``, ``typing.Any``), which no
object of the site matches: some 7,600 scans over every object, each failing.

Before references are resolved, each Python reference whose target is neither a documented object's
name nor a dot-separated tail of one loses its ``refspecific`` mark. Every candidate either lookup
tries (``target``, ``module.target``, ``module.class.target``, any ``*.target``) is such a name or tail,
so both lookups find nothing, and the reference goes on as before: to ``missing-reference`` (the
builtins' and typing's resolver, hockeystick_api's), then to ``nitpick_ignore`` or a warning. Only the
scans are skipped; every page is the same.
"""

from __future__ import annotations

from typing import Any

from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform


def _names_and_tails(objects: dict[str, Any]) -> frozenset[str]:
    """Every documented object's full name and each of its dot-separated tails (``b.c`` of ``a.b.c``)."""
    found = set()
    for name in objects:
        found.add(name)
        start = name.find(".")
        while start >= 0:
            found.add(name[start + 1 :])
            start = name.find(".", start + 1)
    return frozenset(found)


# the names and tails of one build's objects, by that build's (id, size) of the domain's objects
_MATCHABLE: dict[tuple[int, int], frozenset[str]] = {}


class ExactWhereNothingMatches(SphinxPostTransform):
    """Drop ``refspecific`` from the Python references no object matches (before ``ReferencesResolver``,
    priority 10)."""

    default_priority = 5

    def run(self, **kwargs: Any) -> None:
        objects = self.env.domains["py"].objects
        # complete once references are resolved (every document read), so computed once a build
        key = (id(objects), len(objects))
        if key not in _MATCHABLE:
            _MATCHABLE.clear()
            _MATCHABLE[key] = _names_and_tails(objects)
        matchable = _MATCHABLE[key]
        for node in self.document.findall(addnodes.pending_xref):
            if node.get("refdomain") != "py" or not node.hasattr("refspecific"):
                continue
            target = node.get("reftarget", "").removesuffix("()")
            if target and target not in matchable:
                del node["refspecific"]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_post_transform(ExactWhereNothingMatches)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
