"""numpydoc's docstring template, loaded and compiled once per build rather than once per docstring.

numpydoc renders each docstring (``autodoc-process-docstring``) and reads each signature
(``autodoc-process-signature``) through ``numpydoc.docscrape_sphinx.get_doc_object``, which builds a new
Jinja environment and compiles ``numpydoc_docstring.rst`` at every call: some 1500 compilations, a tenth
of the site's build. Here the first call for a builder (or for none, the signatures') runs numpydoc's own
function, which leaves the template it loaded in the ``config`` it was given; later calls hand that same
template to numpydoc's ``docscrape.get_doc_object`` with numpydoc's Sphinx classes, as numpydoc itself
does after loading it. The template's text and loader are the same for every call, so every page is the
same as numpydoc's own.

numpydoc's ``setup`` takes the function it calls as ``get_doc_object_``; this extension sets the same
module attribute after numpydoc is set up.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx


def cached_get_doc_object() -> Any:
    """numpydoc's ``get_doc_object``, its template kept per builder."""
    from numpydoc import docscrape, docscrape_sphinx

    templates: dict[int, Any] = {}

    def get_doc_object(
        obj: Any, what: Any = None, doc: Any = None, config: Any = None, builder: Any = None
    ) -> Any:
        config = {} if config is None else config
        key = id(builder)
        if key not in templates:  # numpydoc's own call: it loads the template into ``config``
            found = docscrape_sphinx.get_doc_object(
                obj, what=what, doc=doc, config=config, builder=builder
            )
            templates[key] = config["template"]
            return found
        config["template"] = templates[key]
        return docscrape.get_doc_object(
            obj,
            what=what,
            doc=doc,
            config=config,
            class_doc=docscrape_sphinx.SphinxClassDoc,
            func_doc=docscrape_sphinx.SphinxFunctionDoc,
            obj_doc=docscrape_sphinx.SphinxObjDoc,
        )

    return get_doc_object


def setup(app: Sphinx) -> dict[str, Any]:
    from numpydoc import numpydoc as numpydoc_extension

    app.setup_extension("numpydoc")
    numpydoc_extension.get_doc_object = cached_get_doc_object()
    return {"parallel_read_safe": True, "parallel_write_safe": True}
