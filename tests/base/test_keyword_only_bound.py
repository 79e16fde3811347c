"""``bound`` is keyword-only on every ``delta`` / ``epsilon`` (the contract, ``base.accountant``); a positional
``bound`` still works for one release, with a DeprecationWarning naming the keyword form
(``base.keyword_only.positional_deprecated``)."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import warnings
from pathlib import Path

import pytest

import hockeystick
from hockeystick import registry
from hockeystick.base.keyword_only import positional_deprecated
from hockeystick.base.moved import REMOVED_IN

PACKAGE = Path(hockeystick.__file__).parent
# the namespaces whose exported classes answer delta / epsilon (simulate, risk, audit, sweep: none of their own)
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
    classes = {
        entry.factory for entry in registry.REGISTRY.values() if inspect.isclass(entry.factory)
    }
    for name in NAMESPACES:
        module = importlib.import_module(f"hockeystick.{name}")
        classes |= {c for c in (getattr(module, n) for n in module.__all__) if inspect.isclass(c)}
    return classes


def test_every_public_delta_and_epsilon_takes_bound_by_keyword_only():
    checked, wrong = set(), []
    for cls in _public_classes():
        for method in ("delta", "epsilon"):
            function = inspect.getattr_static(cls, method, None)
            if not inspect.isfunction(function):
                continue
            parameter = inspect.signature(function).parameters.get("bound")
            if parameter is not None:
                checked.add(f"{cls.__name__}.{method}")
                if parameter.kind is not inspect.Parameter.KEYWORD_ONLY:
                    wrong.append(
                        f"{cls.__module__}.{cls.__qualname__}.{method}: bound is {parameter.kind.description}"
                    )
    assert not wrong, wrong
    # the walk reaches the classes whose bound was positional (the training runs through their shared base)
    assert {
        "DPSGD.epsilon",
        "DPFedAvg.delta",
        "SubsampledGaussianPLD.delta",
        "NoisyMBSGD.epsilon",
    } <= checked
    assert len(checked) >= 40, sorted(checked)


def test_no_delta_or_epsilon_in_the_source_takes_bound_by_position():
    """Every method of that name in the package, private classes and Protocols included."""
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text()
        if not re.search(r"def (delta|epsilon)\(", source):
            continue
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef) and node.name in ("delta", "epsilon"):
                positional = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
                if "bound" in positional:
                    wrong.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name}")
    assert not wrong, wrong


def test_a_positional_bound_warns_naming_the_keyword_and_answers_as_the_keyword():
    from hockeystick import pld

    composed = pld.randomized_response(0.5, 3)
    expected = composed.delta(0.5, bound="both")
    with pytest.warns(DeprecationWarning) as caught:
        answer = composed.delta(0.5, "both")
    assert answer == expected
    (warning,) = caught
    assert str(warning.message) == (
        "PrivacyLossDistribution.delta: passing bound by position is deprecated and will be removed in "
        f"hockeystick {REMOVED_IN}; write bound='both'"
    )
    assert warning.filename == __file__  # the caller's line, not the wrapper's


def test_the_wrapper_keeps_the_signature_and_python_s_own_errors():
    class Curve:
        @positional_deprecated("bound")
        def delta(self, epsilon, *, bound="upper"):
            return epsilon, bound

    assert str(inspect.signature(Curve.delta)) == "(self, epsilon, *, bound='upper')"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Curve().delta(1.0, bound="lower") == (1.0, "lower")  # the keyword form: no warning
    with pytest.raises(TypeError, match="takes 2 positional arguments but 4 were given"):
        Curve().delta(1.0, "lower", "extra")
    with pytest.raises(TypeError, match="multiple values for argument 'bound'"):
        Curve().delta(1.0, "lower", bound="upper")
    with pytest.raises(TypeError, match="'bound' is not a keyword-only parameter"):
        positional_deprecated("bound")(lambda self, epsilon, bound="upper": None)
