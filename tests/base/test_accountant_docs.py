"""The accountant contract's docstring sections are written once (``base.accountant_docs``) and every
accountant's ``delta`` / ``epsilon`` reads them whole: ``help()`` and the reference stand alone."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

import hockeystick
from hockeystick import registry
from hockeystick.base.accountant import BOUND_SIDES, UPPER_ONLY
from hockeystick.base.accountant_docs import accountant_docs, contract_sections

docscrape = pytest.importorskip(
    "numpydoc.docscrape", reason="numpydoc is not installed: pip install '.[docs]'"
)

PACKAGE = Path(hockeystick.__file__).parent
CONTRACT_MODULE = PACKAGE / "base" / "accountant_docs.py"
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
        sides = (
            UPPER_ONLY
            if params.get("bound") and params["bound"].type.startswith('{"upper"}')
            else BOUND_SIDES
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
        tree = ast.parse(path.read_text())
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
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
        for sides in (BOUND_SIDES, UPPER_ONLY)
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
            text = path.read_text()
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
