"""The accountant contract's docstring sections are written once (``base.accountant_docs``) and every
accountant's ``delta`` / ``epsilon`` reads them whole: ``help()`` and the reference stand alone."""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import typing
from pathlib import Path

import pytest

import hockeystick
from hockeystick import registry
from hockeystick.base.accountant import BOUND_SIDES, LOWER_ONLY, UPPER_ONLY
from hockeystick.base.accountant_docs import accountant_docs, contract_sections

from ..source_tree import nodes, source

docscrape = pytest.importorskip(
    "numpydoc.docscrape", reason="numpydoc is not installed: pip install '.[docs]'"
)

PACKAGE = Path(hockeystick.__file__).parent
CONTRACT_MODULE = PACKAGE / "base" / "accountant_docs.py"
SIDES = (BOUND_SIDES, UPPER_ONLY, LOWER_ONLY)
NAMESPACES = (
    "fdp",
    "rdp",
    "pld",
    "matrix",
    "isrl",
    "leakage",
    "ledger",
    "training",
    "contraction",
    "registry",
)


def _public_classes() -> set[type]:
    factories = (
        getattr(entry.factory, "func", entry.factory) for entry in registry.REGISTRY.values()
    )
    classes = {f for f in factories if inspect.isclass(f)}
    for name in NAMESPACES:
        module = importlib.import_module(f"hockeystick.{name}")
        classes |= {c for c in (getattr(module, n) for n in module.__all__) if inspect.isclass(c)}
    return classes


def _methods_with_bound() -> list[tuple[str, str, object]]:
    found = []
    for cls in _public_classes():
        for method in ("delta", "epsilon"):
            function = getattr(cls, method, None)
            if callable(function) and "bound" in inspect.signature(function).parameters:
                found.append((f"{cls.__module__}.{cls.__qualname__}.{method}", method, function))
    return found


def _bound_type(sides: tuple[str, ...]) -> str:
    """The type line of the contract's ``bound`` entry for ``sides`` (``{"upper"}, default "upper"``)."""
    parsed = docscrape.NumpyDocString(contract_sections("delta", sides))
    return next(item.type for item in parsed["Parameters"] if item.name == "bound")


def _description(section: str, key: str, sides: tuple[str, ...], method: str) -> list[str]:
    """The contract's description lines of one entry (``key``: a parameter's name or an exception)."""
    parsed = docscrape.NumpyDocString(contract_sections(method, sides))
    return next(item.desc for item in parsed[section] if key in (item.name, item.type))


def test_every_accountant_delta_and_epsilon_reads_the_contract_sections_whole():
    """Parsed by numpydoc (an independent reader): the argument, ``bound``, Returns, ValueError and
    ParameterTypeError carry the contract's text, and the Parameters are the signature's."""
    methods = _methods_with_bound()
    assert len(methods) >= 40, sorted(name for name, _, _ in methods)
    wrong = []
    for name, method, function in methods:
        parsed = docscrape.NumpyDocString(inspect.getdoc(function))
        params = {p.name: p for p in parsed["Parameters"]}
        signature = [p for p in inspect.signature(function).parameters if p != "self"]
        sides = next(
            (s for s in SIDES if params.get("bound") and params["bound"].type == _bound_type(s)),
            BOUND_SIDES,
        )
        raises = {r.type: r.desc for r in parsed["Raises"]}
        argument = "epsilon" if method == "delta" else "delta"
        problems = [
            f"parameters {list(params)} are not the signature's {signature}"
            * (sorted(params) != sorted(signature)),
            "no argument entry" * (argument not in params),
            "bound is not the contract's"
            * (
                params.get("bound") is None
                or params["bound"].desc != _description("Parameters", "bound", sides, method)
            ),
            "Returns is not the contract's"
            * (
                len(parsed["Returns"]) != 1
                or parsed["Returns"][0].desc[:2] != _description("Returns", "", sides, method)[:2]
            ),
            "ValueError is not the contract's"
            * (
                raises.get("ValueError", [])[:2]
                != _description("Raises", "ValueError", sides, method)[:2]
            ),
            "no ParameterTypeError" * ("ParameterTypeError" not in raises),
            "no summary" * (not parsed["Summary"]),
        ]
        wrong += [f"{name}: {p}" for p in problems if p]
    assert not wrong, "\n".join(wrong)


def _source_docstrings() -> list[tuple[str, str, list[str]]]:
    """(where, docstring, class decorators) of every delta / epsilon with a keyword-only ``bound`` defined in a
    class of the package."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for cls in (n for n in nodes(path) if isinstance(n, ast.ClassDef)):
            decorators = [ast.unparse(d) for d in cls.decorator_list]
            for node in cls.body:
                if isinstance(node, ast.FunctionDef) and node.name in ("delta", "epsilon"):
                    if "bound" not in [a.arg for a in node.args.kwonlyargs]:
                        continue  # not an accountant's method (the contract's bound is keyword-only)
                    where = f"{path.relative_to(PACKAGE)}:{node.lineno} {cls.name}.{node.name}"
                    found.append((where, ast.get_docstring(node) or "", decorators))
    return found


def test_the_contract_is_written_once_in_the_source():
    """No class's source restates the contract's entries: the ``bound`` entry, the refusals of a wrong kind
    of argument, the contract's sentences; a class whose delta / epsilon has numpydoc sections is completed
    by ``@accountant_docs`` (so its sections are the contract's plus its own)."""
    contract_lines = {
        line.strip()
        for method in ("delta", "epsilon")
        for sides in SIDES
        for line in contract_sections(method, sides).splitlines()
        if line.startswith("    ")
        and len(line.strip()) > 40  # the entries' descriptions, not their names
    }
    restated = []
    for where, doc, decorators in _source_docstrings():
        lines = doc.splitlines()
        if any(
            line.startswith("bound :") or line.startswith("ParameterTypeError") for line in lines
        ):
            restated.append(f"{where}: restates the bound or ParameterTypeError entry")
        if "Parameters" in lines or "Returns" in lines or "Raises" in lines:
            if not any(d.startswith("accountant_docs(") for d in decorators):
                restated.append(f"{where}: numpydoc sections without @accountant_docs")
    for path in sorted(PACKAGE.rglob("*.py")):
        if path != CONTRACT_MODULE:
            text = source(path)
            restated += [
                f"{path.relative_to(PACKAGE)}: {line!r}" for line in contract_lines if line in text
            ]
    assert contract_lines and not restated, "\n".join(restated)


def test_the_assembly_replaces_a_parameter_extends_raises_and_refuses_a_mismatch():
    @accountant_docs(sides=UPPER_ONLY)
    class Toy:
        def delta(self, epsilon: float, *, bound: str = "upper", extra: int = 0) -> float:
            """Toy delta.

            Parameters
            ----------
            epsilon : float
                Any real.
            extra : int
                Its own.

            Raises
            ------
            ValueError
                ``extra`` negative.
            KeyError
                Never.
            """
            return 0.0

    parsed = docscrape.NumpyDocString(inspect.getdoc(Toy.delta))
    assert [p.name for p in parsed["Parameters"]] == ["epsilon", "bound", "extra"]
    assert parsed["Parameters"][0].desc == ["Any real."]  # replaced in its place
    assert [r.type for r in parsed["Raises"]] == ["ValueError", "ParameterTypeError", "KeyError"]
    assert parsed["Raises"][0].desc[-1] == "``extra`` negative."  # extended
    assert 'Only "upper"' in " ".join(parsed["Parameters"][1].desc)

    def undocumented(
        self: object, epsilon: float, *, bound: str = "upper", threads: int = 0
    ) -> float:
        """Toy delta."""
        return 0.0

    def other_returns(self: object, epsilon: float, *, bound: str = "upper") -> float:
        """Toy delta.

        Returns
        -------
        int
            A count.
        """
        return 0.0

    for function, message in (
        (undocumented, "not the signature's"),
        (other_returns, "not the contract's"),
    ):
        with pytest.raises(TypeError, match=message):
            accountant_docs()(type("Bad", (), {"delta": function}))


def _is_protocol(cls: ast.ClassDef) -> bool:
    return any(ast.unparse(base) in ("Protocol", "typing.Protocol") for base in cls.bases)


def test_every_class_answering_with_bound_is_decorated():
    """Every class of the package whose ``delta`` / ``epsilon`` takes the contract's keyword-only ``bound``
    takes its docstring sections from ``@accountant_docs`` (a Protocol states the contract, and is exempt)."""
    undecorated = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for cls in (n for n in nodes(path) if isinstance(n, ast.ClassDef)):
            answers = [
                node.name
                for node in cls.body
                if isinstance(node, ast.FunctionDef)
                and node.name in ("delta", "epsilon")
                and "bound" in [a.arg for a in node.args.kwonlyargs]
            ]
            decorated = any(
                ast.unparse(d).startswith("accountant_docs(") for d in cls.decorator_list
            )
            if answers and not decorated and not _is_protocol(cls):
                undecorated.append(
                    f"{path.relative_to(PACKAGE)}: {cls.name} ({', '.join(answers)})"
                )
    assert not undecorated, "decorate with @accountant_docs(sides=...):\n" + "\n".join(undecorated)


def _built_classes(factory: object) -> set[type]:
    """The classes a registry factory builds: the class itself, a partial's class, a family's class, or a
    function's wrapped class and the classes its return annotation names."""
    if inspect.isclass(factory):
        return {factory}
    if isinstance(factory, functools.partial):
        return _built_classes(factory.func)
    if callable(getattr(factory, "cls", None)):
        return _built_classes(factory.cls)  # type: ignore[attr-defined]
    built = _built_classes(factory.__wrapped__) if hasattr(factory, "__wrapped__") else set()
    returned = typing.get_type_hints(factory).get("return")
    return built | {c for c in (returned, *typing.get_args(returned)) if inspect.isclass(c)}


def _reads_the_contract(cls: type, method: str) -> bool:
    """``cls.method``'s docstring holds one of the contract's ``bound`` entries whole."""
    doc = inspect.getdoc(getattr(cls, method)) or ""
    return any(
        "\n".join(
            contract_sections(method, sides)
            .split("Parameters\n----------\n")[1]
            .split("\nReturns")[0]
            .splitlines()[2:]
        )
        in doc
        for sides in SIDES
    )


def test_every_registered_accountant_class_is_decorated():
    """Every class a registry entry builds (families and per-point wrappers included) reads the contract:
    its ``delta`` and ``epsilon`` carry a ``bound`` entry of ``@accountant_docs``."""
    names = [*registry.names(), *registry.family_names()]
    assert len(names) >= 40
    unresolved, undecorated = [], []
    for name in names:
        classes = _built_classes(registry.get(name).factory)
        if not classes:
            unresolved.append(name)
        undecorated += [
            f"{name}: {cls.__module__}.{cls.__qualname__}.{method}"
            for cls in classes
            for method in ("delta", "epsilon")
            if hasattr(cls, method) and not _reads_the_contract(cls, method)
        ]
    assert not unresolved, f"entries whose built class is not known: {unresolved}"
    assert not undecorated, "\n".join(undecorated)


def test_lower_only_contract_refuses_the_upper_side():
    """The lower-only variant states the one side and its default, and a class decorated with it reads so."""
    text = contract_sections("delta", LOWER_ONLY)
    assert 'bound : {"lower"}, default "lower"' in text
    assert "certifies no upper side" in text and '``bound`` not "lower"' in text

    @accountant_docs(sides=LOWER_ONLY)
    class Toy:
        def delta(self, epsilon: float, *, bound: str = "lower") -> float:
            """Toy delta."""
            return 0.0

    parsed = docscrape.NumpyDocString(inspect.getdoc(Toy.delta))
    assert parsed["Parameters"][1].type == '{"lower"}, default "lower"'
    assert [r.type for r in parsed["Raises"]] == ["ValueError", "ParameterTypeError"]
    with pytest.raises(ValueError, match="sides must be BOUND_SIDES, UPPER_ONLY or LOWER_ONLY"):
        accountant_docs(sides=("both",))
