"""Sphinx configuration of hockeystick's documentation site.

Build: ``python -m sphinx -W --keep-going -n -b html docs docs/_build/html`` (``pip install ".[docs]"``).
The pages stay Markdown (myst-parser); the API reference is written at build time from the public
namespaces' ``__all__`` (``_ext/hockeystick_api.py``), the CLI reference from the argparse parser
(sphinx-argparse), and the pictures by the code shown beside them (``_ext/hockeystick_pictures.py``).
Nothing is fetched from the network: no intersphinx, so a type of numpy or of the standard library in
a signature has no page to link to and is listed in ``nitpick_ignore`` below.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
os.environ.setdefault("MPLBACKEND", "Agg")

import hockeystick  # noqa: E402  (after the path: the extension imports the package too)

project = "hockeystick"
author = "the hockeystick authors"
copyright = "the hockeystick authors, Apache-2.0"
release = hockeystick.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "hockeystick_numpydoc",
    "sphinxarg.ext",
    "hockeystick_api",
    "hockeystick_pictures",
    "hockeystick_sidebar",
    "hockeystick_search_stems",
    "hockeystick_unmatched_refs",
]

# No typographic replacement: Docutils' smart quotes turn `--flag` into an en dash and straight quotes into
# curly ones wherever the text is not a literal (the CLI reference's help texts, an install command in a
# description), so that a command copied from the page fails in a shell. The pages type the dashes and
# quotes of their prose themselves.
smartquotes = False

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["api/_templates"]
exclude_patterns = ["_build", "_pictures", "api/_templates", "Thumbs.db", ".DS_Store"]

# Markdown: ::: fences hold directives (a ``` fence would be read as a code example by
# tests/test_docs_examples.py); headings get anchors so that page#section links are checked.
myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 4

# the reference: one page per public name, signatures with their types, sections by numpydoc
# (each name's page is written by _ext/hockeystick_api.py from autosummary's templates, without the member
# lists autosummary's own writer gathers for templates that do not read them)
autosummary_generate = False
autodoc_typehints = "signature"
autodoc_member_order = "bysource"
# numpy's array-like aliases stay one name in a signature (not their expanded unions)
autodoc_type_aliases = {
    alias: f"numpy.typing.{name}"
    for name in ("ArrayLike", "NDArray", "DTypeLike")
    for alias in (name, f"npt.{name}", f"numpy.typing.{name}")
}
add_module_names = False
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

# every cross-reference must resolve (-n); intersphinx is off, so these libraries' types have no
# inventory to resolve against and are written as plain names
nitpicky = True
_NO_INVENTORY = {
    # the standard library: Python's inventory is not fetched (no network at build time)
    **dict.fromkeys(
        [
            "collections.abc.Callable",
            "collections.abc.Iterable",
            "collections.abc.Iterator",
            "collections.abc.Mapping",
            "collections.abc.Sequence",
            "os.PathLike",
            "pathlib.Path",
            "argparse.ArgumentParser",
            "concurrent.futures.Executor",
            "fractions.Fraction",
            "typing.Literal",
        ],
        "Python's inventory is not fetched (no network at build time)",
    ),
    # numpy: arrays and dtypes in signatures
    "numpy.ndarray": "numpy's inventory is not fetched (no network at build time)",
    "numpy.float64": "numpy's inventory is not fetched",
    "numpy.int64": "numpy's inventory is not fetched",
    "numpy.bool": "numpy's inventory is not fetched",
    "numpy.dtype": "numpy's inventory is not fetched",
    "numpy.random.Generator": "numpy's inventory is not fetched",
    "numpy.typing.ArrayLike": "numpy's inventory is not fetched",
    "numpy.typing.NDArray": "numpy's inventory is not fetched",
    "numpy.typing.DTypeLike": "numpy's inventory is not fetched",
    # an overload's signature is read from the source text, so numpy's names appear as the module imports them
    "ArrayLike": "numpy.typing.ArrayLike, as an overload's source text names it",
    "np.ndarray": "numpy.ndarray, as an overload's source text names it",
    # dp_accounting: the events and accountants the interop adapters take and subclass
    "dp_accounting.dp_event.DpEvent": "dp_accounting publishes no Sphinx inventory",
}
nitpick_ignore = [
    (role, name) for name in _NO_INVENTORY for role in ("py:class", "py:obj", "py:data")
]

html_theme = "furo"
html_title = f"hockeystick {release}"
html_static_path: list[str] = []
