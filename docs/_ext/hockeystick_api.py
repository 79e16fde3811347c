"""The API reference, written from the public namespaces' ``__all__`` when the site is built.

Each namespace of ``NAMESPACES`` gets a page (``api/generated/<namespace>.rst``): its module docstring
and an autosummary table of the names its ``__all__`` exports, each name a page of its own. A namespace
without ``__all__`` (``hockeystick.interop``) is documented through its submodules that have one. Names
are documented where a user imports them, never at the module that defines them, so moving a definition
between internal modules changes nothing here.

The page of each name (and of each supporting type) is written here from autosummary's templates
(``api/_templates/autosummary``), given the keys they read: ``fullname``, ``module``, ``objname``,
``name``, ``objtype`` and ``underline``. Autosummary's own writer (``autosummary_generate``, off in
conf.py) would also look up every member of each class and module for its templates' optional
``methods`` and ``attributes``, which ours do not read: a sixteenth of the build.

A type in a signature is named by its defining module (``hockeystick.base.accountant.Accountant``);
``missing-reference`` resolves such a name to the public page of the same object.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import sys
import typing
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config

# The namespaces a user imports from, in the order of the reference.
NAMESPACES = (
    "hockeystick",
    "hockeystick.training",
    "hockeystick.ledger",
    "hockeystick.secagg",
    "hockeystick.calibrate",
    "hockeystick.pld",
    "hockeystick.rdp",
    "hockeystick.fdp",
    "hockeystick.contraction",
    "hockeystick.matrix",
    "hockeystick.isrl",
    "hockeystick.leakage",
    "hockeystick.risk",
    "hockeystick.audit",
    "hockeystick.interop",
    "hockeystick.registry",
    "hockeystick.sweep",
    "hockeystick.simulate",
    "hockeystick.plots",
    "hockeystick.cpp",
)

GENERATED = "api/generated"


@dataclass(frozen=True)
class Namespace:
    """A documented module: its import path, its docstring's module object and the names it exports."""

    name: str
    module: ModuleType
    names: tuple[str, ...]


def public_namespaces() -> list[Namespace]:
    """Every namespace with an ``__all__``, in reference order; a package without one stands for its
    submodules (not starting with an underscore) that have one."""
    found: list[Namespace] = []
    for name in NAMESPACES:
        module = importlib.import_module(name)
        exported = getattr(module, "__all__", None)
        if exported is not None:
            found.append(Namespace(name, module, tuple(exported)))
            continue
        found.append(Namespace(name, module, ()))
        for info in sorted(pkgutil.iter_modules(module.__path__), key=lambda info: info.name):
            if info.name.startswith("_"):
                continue
            submodule = importlib.import_module(f"{name}.{info.name}")
            if getattr(submodule, "__all__", None) is not None:
                found.append(Namespace(submodule.__name__, submodule, tuple(submodule.__all__)))
    return found


def public_names() -> dict[str, Any]:
    """Public name (``hockeystick.pld.SubsampledGaussianPLD``) -> the object, over every namespace."""
    return {
        f"{space.name}.{name}": getattr(space.module, name)
        for space in public_namespaces()
        for name in space.names
    }


def _annotations(function: Any) -> list[Any]:
    """The types of ``function``'s annotations (or a class's), each string evaluated in its module; those
    that do not evaluate (names imported only for type checking) are left out."""
    module = sys.modules.get(getattr(function, "__module__", None) or "")
    scope = vars(module) if module is not None else {}
    found = []
    for annotation in dict(getattr(function, "__annotations__", {})).values():
        if isinstance(annotation, str):
            try:
                annotation = eval(annotation, dict(scope))
            except Exception:
                continue
        found.append(annotation)
    return found


def _members(obj: Any) -> list[Any]:
    """The callables autodoc documents for a public object: itself, and a class's ``__init__``, methods,
    properties and annotated fields."""
    if not isinstance(obj, type):
        return [obj] if callable(obj) else []
    found: list[Any] = [obj.__init__] if "__init__" in vars(obj) else []
    for name, value in vars(obj).items():
        if name.startswith("_") and name != "__call__":
            continue
        if isinstance(value, property):
            found.append(value.fget)
        elif isinstance(value, (staticmethod, classmethod)):
            found.append(value.__func__)
        elif callable(value):
            found.append(value)
    return [*found, obj]


def supporting_types(public: dict[str, Any]) -> dict[str, type]:
    """The package's classes that a public signature takes or returns without a namespace exporting
    them (``DPSGD.epsilon_curve`` returns a ``CurveAlongRun``), by their defining path, and the classes
    theirs name in turn: documented on a page of their own so that every type in a signature links."""
    exported = {id(obj) for obj in public.values()}
    found: dict[str, type] = {}
    pending = list(public.values())
    while pending:
        obj = pending.pop()
        for member in _members(obj):
            stack = _annotations(member)
            while stack:
                annotation = stack.pop()
                stack.extend(typing.get_args(annotation))
                if (
                    isinstance(annotation, type)
                    and annotation.__module__.startswith("hockeystick.")
                    and id(annotation) not in exported
                ):
                    path = f"{annotation.__module__}.{annotation.__qualname__}"
                    if path not in found:
                        found[path] = annotation
                        pending.append(annotation)
    return dict(sorted(found.items()))


def _supporting_page(types: dict[str, type]) -> str:
    title = "Supporting types"
    lines = [title, "=" * len(title), ""]
    lines += [
        "Classes that public functions take or return, not exported by a namespace: each is documented",
        "at the module that defines it.",
        "",
        ".. autosummary::",
        "   :toctree: .",
        "   :nosignatures:",
        "",
    ]
    lines += [f"   {path}" for path in types]
    return "\n".join(lines) + "\n"


def object_type(obj: Any) -> str:
    """How a public name is documented, as autosummary names it: a module, an exception, a class, a
    function (any routine, a compiled one included), or else data."""
    if isinstance(obj, ModuleType):
        return "module"
    if isinstance(obj, type):
        return "exception" if issubclass(obj, BaseException) else "class"
    if inspect.isroutine(obj):
        return "function"
    return "data"


def _stubs(app: Sphinx, items: dict[str, tuple[str, str, Any]]) -> dict[str, str]:
    """Each page's text by its name: ``items`` maps a documented path to (the module it is imported
    from, its name there, the object), rendered from the template of its ``object_type``."""
    from sphinx.ext.autosummary.generate import AutosummaryRenderer

    renderer = AutosummaryRenderer(app)
    pages = {}
    for fullname, (module, qualname, obj) in items.items():
        kind = object_type(obj)
        context = {
            "fullname": fullname,
            "module": module,
            "objname": qualname,
            "name": qualname if kind == "class" else qualname.rsplit(".", 1)[-1],
            "objtype": kind,
            "underline": "=" * len(fullname),
        }
        pages[fullname] = renderer.render(kind, context)
    return pages


def _page(space: Namespace, children: list[str]) -> str:
    title = space.name
    lines = [title, "=" * len(title), "", f".. automodule:: {space.name}", "   :no-members:", ""]
    if children:
        lines += ["Public submodules:", "", ".. toctree::", "   :maxdepth: 1", ""]
        lines += [f"   {child}" for child in children]
        lines.append("")
    if space.names:
        lines += [
            f".. currentmodule:: {space.name}",
            "",
            ".. autosummary::",
            "   :toctree: .",
            "   :nosignatures:",
            "",
        ]
        lines += [f"   {name}" for name in space.names]
        lines.append("")
    return "\n".join(lines)


def summary(module: ModuleType) -> str:
    """The first paragraph of a module's docstring, on one line: what the namespace is for."""
    first = (module.__doc__ or "").strip().split("\n\n", 1)[0]
    return " ".join(first.split())


def _index(spaces: list[Namespace]) -> str:
    """The reference's index: a table of every namespace with its one-line summary, linked to its page,
    and the toctree of the namespaces at the top level (the submodules are listed by their package's page)."""
    parents = _packages_without_all()
    top = [
        space.name for space in spaces if not any(space.name.startswith(f"{p}.") for p in parents)
    ]
    lines = [
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 1 3",
        "",
        "   * - namespace",
        "     - what it holds",
    ]
    for space in spaces:
        lines += [
            f"   * - :doc:`{space.name} <generated/{space.name}>`",
            f"     - {summary(space.module)}",
        ]
    lines += [
        "",
        "The classes that public signatures take or return without a namespace exporting them have their",
    ]
    lines += ["pages too: :doc:`generated/supporting-types`."]
    lines += ["", ".. toctree::", "   :hidden:", "   :maxdepth: 1", ""] + [
        f"   generated/{name}" for name in top
    ]
    lines.append("   generated/supporting-types")
    return "\n".join(lines) + "\n"


def _packages_without_all() -> list[str]:
    return [
        name
        for name in NAMESPACES
        if getattr(importlib.import_module(name), "__all__", None) is None
    ]


def _write(path: Path, text: str) -> None:
    """Write only a changed page, so that an incremental build rereads only what changed."""
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def write_pages(app: Sphinx, config: Config) -> None:
    """The namespace pages and the toctree the reference's index includes."""
    out = Path(app.srcdir) / GENERATED
    out.mkdir(parents=True, exist_ok=True)
    spaces = public_namespaces()
    parents = _packages_without_all()
    for space in spaces:
        children = (
            [other.name for other in spaces if other.name.startswith(f"{space.name}.")]
            if space.name in parents
            else []
        )
        _write(out / f"{space.name}.rst", _page(space, children))
    _write(out / "namespaces.rst.inc", _index(spaces))
    public = public_names()
    supporting = supporting_types(public)
    _write(out / "supporting-types.rst", _supporting_page(supporting))
    items = {
        f"{space.name}.{name}": (space.name, name, getattr(space.module, name))
        for space in spaces
        for name in space.names
    }
    items.update({path: (t.__module__, t.__qualname__, t) for path, t in supporting.items()})
    for fullname, text in _stubs(app, items).items():
        _write(out / f"{fullname}.rst", text)
    # a page of a name no longer exported (or moved) would be built as an orphan: remove it
    current = {*public, *supporting, *(space.name for space in spaces), "supporting-types"}
    for page in out.glob("*.rst"):
        if page.stem not in current:
            page.unlink()
    app.env_public = {id(obj): name for name, obj in public.items()}  # type: ignore[attr-defined]
    app.env_public.update({id(space.module): space.name for space in spaces})  # type: ignore[attr-defined]


def _lookup(target: str) -> Any:
    """The object a dotted path names (module, then attributes), or None."""
    parts = target.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attribute in parts[cut:]:
                obj = getattr(obj, attribute)
        except AttributeError:
            return None
        return obj
    return None


def resolve_internal(
    app: Sphinx, env: Any, node: Any, contnode: nodes.Element
) -> nodes.Element | None:
    """A Python reference to an object by its defining module's path, resolved to its public page."""
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    if not target.startswith("hockeystick."):
        return None
    obj = _lookup(target)
    if obj is None:
        return None
    public = app.env_public.get(id(obj))  # type: ignore[attr-defined]
    if public is None or public == target:
        return None
    domain = env.get_domain("py")
    return domain.resolve_xref(
        env, node.get("refdoc"), app.builder, node.get("reftype"), public, node, contnode
    )


def find_pages(app: Sphinx) -> None:
    """Let autosummary see pages written since the last build: a saved environment lists the documents
    of its own build until reading starts, after autosummary has looked for its directives."""
    app.env.find_files(app.config, app.builder)


# a default Python cannot read back: a dataclass field's default_factory (``<factory>``), an object's
# default repr (``<object at 0x...>``)
_UNREADABLE_DEFAULT = re.compile(r"=\s*<[^<>]*>")


def readable_defaults(
    app: Sphinx,
    what: str,
    name: str,
    obj: Any,
    options: Any,
    signature: str | None,
    returns: str | None,
) -> tuple[str | None, str | None] | None:
    """A default that is not Python (``<factory>``) shown as ``...``: Sphinx parses a signature as Python,
    and one it cannot parse loses its types' links. None (the signature unchanged) leaves it to the
    other handlers (numpydoc's)."""
    if signature is None or _UNREADABLE_DEFAULT.search(signature) is None:
        return None
    return _UNREADABLE_DEFAULT.sub("=...", signature), returns


def documented_elsewhere(
    app: Sphinx, what: str, name: str, obj: Any, skip: bool, options: Any
) -> bool | None:
    """A module member that a namespace exports under another name is documented there, once: a module
    that re-exports (``hockeystick.sweep.registry`` is ``hockeystick.registry``) lists it only through
    its docstring. Scalars are left alone (equal small numbers can be one object)."""
    if what != "module" or not (callable(obj) or isinstance(obj, (dict, list, ModuleType))):
        return None
    public = app.env_public.get(id(obj))  # type: ignore[attr-defined]
    if public is not None and public.rsplit(".", 1)[-1] == name.rsplit(".", 1)[-1]:
        return True
    return None


def _alias_by_name() -> None:
    """``autodoc_type_aliases`` names an alias (``numpy.typing.ArrayLike``) by its name at the top of an
    annotation but by its repr inside a union (``ArrayLike | None``); give both the name."""
    from sphinx.util.inspect import TypeAliasForwardRef

    TypeAliasForwardRef.__repr__ = lambda self: self.name  # type: ignore[method-assign]


def setup(app: Sphinx) -> dict[str, Any]:
    _alias_by_name()
    app.connect("config-inited", write_pages)
    app.connect("builder-inited", find_pages, priority=400)
    app.connect("missing-reference", resolve_internal)
    app.connect("autodoc-process-signature", readable_defaults, priority=400)
    app.connect("autodoc-skip-member", documented_elsewhere)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
