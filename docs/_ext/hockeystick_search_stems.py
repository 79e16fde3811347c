"""The search index stems each word once per build, not once per page.

Sphinx's ``IndexBuilder.feed`` memoises the stemmer within one page only, and the English stemmer
(snowballstemmer, pure Python) is then called some 56 000 times over the site's ~320 pages, most of them
for words already stemmed on an earlier page. Stemming is a function of the word alone, so the index
builder's stemmer is memoised for the whole build once the builder has made it (at the first resolved
doctree of the writing phase, before any page is fed): the index holds the same stems.
"""

from __future__ import annotations

import functools
from typing import Any

from sphinx.application import Sphinx


def memoised_stems(app: Sphinx, doctree: Any, docname: str) -> None:
    """Replace the index builder's ``stem`` by a memoised one (once: the index builder lives for the build)."""
    lang = getattr(getattr(app.builder, "indexer", None), "lang", None)
    if lang is not None and not getattr(lang, "hockeystick_memoised", False):
        lang.stem = functools.cache(lang.stem)
        lang.hockeystick_memoised = True


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("doctree-resolved", memoised_stems)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
