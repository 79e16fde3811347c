"""A mechanism's name, and a sampling scheme's word, live in one place: the entry that registers it
(``pld/mechanisms/registry.py``, ``training/sampling_schemes.py``), whose facets every door reads.

This file counts the module-level tables of the package keyed by those names: a dict, a tuple, list or set,
a ``Literal[...]`` or a call on one (``frozenset(...)``) whose string keys (a dict's keys, a sequence's
strings or its pairs' first fields) name two registered mechanisms or schemes, or a dict naming one.  Each
table found is listed below with why it is not a facet yet, or why it is no mechanism table, and so is each
comparison with a mechanism's name; a new one fails here (make it a facet of the entry instead).
"""

from __future__ import annotations

import ast
from pathlib import Path

from hockeystick.ledger import MECHANISMS as LEDGER_ROUNDS
from hockeystick.pld.mechanisms import registry
from hockeystick.training.sampling_schemes import sampling_words

from .source_tree import nodes, tree
from .test_layers import PACKAGE

# (module, table) -> why it stays
MECHANISM_TABLES = {
    (
        "pld/__init__.py",
        "_NAMES",
    ): "the facade's lazy names: constructors named after their mechanisms",
    ("pld/__init__.py", "__all__"): "the public names: constructors named after their mechanisms",
    ("pld/mechanisms/__init__.py", "FRONT_DOOR"): "the stage's front door: the same constructors",
    ("ledger/rounds.py", "MECHANISMS"): (
        "the ledger's own rounds in their documented order, a public name; each is a registry entry "
        "with round_fields (tests/ledger/test_round_facets.py holds the two equal)"
    ),
}
SCHEME_TABLES = {
    ("training/vocabulary.py", "Sampling"): (
        "the type checkers' Literal, the one other place a word is written "
        "(tests/test_howto_sampling.py holds it equal to the registered words)"
    ),
}

# the secure-aggregation noises: a vocabulary of their own (DistributedDPFedAvg's noise, the wrap
# analysis's), no registered mechanism (their rounds are read by their families, not as Mechanism entries)
SECURE_AGGREGATION_TABLES = {
    (
        "training/secure_aggregation.py",
        "DISTRIBUTED_NOISES",
    ): "DistributedDPFedAvg's noise words, public",
    ("secagg/modular_wrap.py", "NOISES"): "the wrap analysis's two noises, public",
    ("training/secure_aggregation.py", "_WRAP_NOISE"): (
        "to become a facet: the run's noise word -> the wrap analysis's (distributed_skellam -> skellam)"
    ),
}


def _strings(node: ast.AST) -> list[str]:
    """The string keys of a table literal: a dict's keys, a sequence's strings or its pairs' first fields,
    a ``Literal[...]``'s values, a call's first argument's."""
    if isinstance(node, ast.Dict):
        return [
            k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)
        ]
    if isinstance(node, ast.Subscript):
        return _strings(node.slice) if ast.unparse(node.value).endswith("Literal") else []
    if isinstance(node, ast.Call):
        return _strings(node.args[0]) if node.args else []
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        found = []
        for element in node.elts:
            if isinstance(element, ast.Tuple) and element.elts:
                element = element.elts[0]
            if isinstance(element, ast.Constant) and isinstance(element.value, str):
                found.append(element.value)
        return found
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    return []


def tables_keyed_by(names: set[str], package: Path = PACKAGE) -> set[tuple[str, str]]:
    """(module, table) of every module-level table of ``package`` keyed by two of ``names``, or a dict
    keyed by one."""
    found = set()
    for path in sorted(package.rglob("*.py")):
        for node in tree(path).body:
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                targets, value = [node.target], node.value
            else:
                continue
            keys = [k for k in _strings(value) if k in names]
            if len(keys) >= 2 or (keys and isinstance(value, ast.Dict)):
                found |= {
                    (path.relative_to(package).as_posix(), t.id)
                    for t in targets
                    if isinstance(t, ast.Name)
                }
    return found


def _mechanism_names() -> set[str]:
    return {*registry.mechanism_names(), *registry.stage_names(), *LEDGER_ROUNDS}


def test_the_tables_keyed_by_mechanism_names_are_the_listed_ones():
    found = tables_keyed_by(_mechanism_names())
    assert found <= set(MECHANISM_TABLES), (
        f"new: {sorted(found - set(MECHANISM_TABLES))}: make each a facet of the mechanism's registry "
        "entry"
    )


def test_the_tables_keyed_by_sampling_words_are_the_listed_ones():
    found = tables_keyed_by(set(sampling_words()))
    assert found <= set(SCHEME_TABLES), (
        f"new: {sorted(found - set(SCHEME_TABLES))}: make each a facet of SamplingScheme"
    )


def test_the_scanner_finds_each_kind_of_table(tmp_path):
    (tmp_path / "sample.py").write_text(
        "from typing import Literal\n"
        "A = {'laplace': 1}\n"
        "B: tuple = ('laplace', 'gaussian')\n"
        "C = frozenset(['laplace', 'gaussian'])\n"
        "D = (('laplace', f), ('gaussian', g))\n"
        "E = Literal['laplace', 'gaussian']\n"
        "F = ('laplace', 'other')\n"  # one name in a sequence: a word, not a table
        "def f():\n    G = {'laplace': 1}\n"  # not module level
    )
    assert tables_keyed_by({"laplace", "gaussian"}, tmp_path) == {
        ("sample.py", name) for name in "ABCDE"
    }


# the modules that read a mapping's "mechanism" key, and why: a [[stage]] is read by parse_stage alone
MECHANISM_KEY_READERS = {
    "pld/accountants/stages.py": "parse_stage: the one reading of a [[stage]], for compose and the ledger",
    "cli/training_stages.py": "a training stage's words turned into a mechanism stage before parse_stage",
    "interop/opacus.py": "Opacus's state_dict, whose 'mechanism' is Opacus's accountant word",
}


def mechanism_key_readers(package: Path = PACKAGE) -> set[str]:
    """The modules of ``package`` that read a mapping's ``"mechanism"`` (``m["mechanism"]``,
    ``m.get("mechanism")``, ``m.pop("mechanism")``)."""
    found = set()
    for path in sorted(package.rglob("*.py")):
        for node in nodes(path):
            key = (
                node.slice
                if isinstance(node, ast.Subscript)
                else node.args[0]
                if isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("get", "pop")
                and node.args
                else None
            )
            if isinstance(key, ast.Constant) and key.value == "mechanism":
                found.add(path.relative_to(package).as_posix())
    return found


def test_one_stage_parser_serves_compose_and_the_ledger():
    """``parse_stage`` is the one reading of a stage: ``compose_stages`` calls it, the ledger's
    ``Round.from_stage`` reads stages through the same function, and no other module reads a stage's
    mechanism."""
    from hockeystick.ledger import stage_round
    from hockeystick.pld.accountants import stages

    assert stage_round.parse_stage is stages.parse_stage
    calls = {
        node.func.id
        for node in nodes(Path(stages.__file__))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    assert "parse_stage" in calls
    ledger_calls = {
        node.func.id
        for node in nodes(Path(stage_round.__file__))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    assert "parse_stage" in ledger_calls
    found = mechanism_key_readers()
    assert found <= set(MECHANISM_KEY_READERS), (
        f"new: {sorted(found - set(MECHANISM_KEY_READERS))}: read a stage with parse_stage"
    )


def test_the_tables_keyed_by_secure_aggregation_noises_are_the_listed_ones():
    from hockeystick.secagg.modular_wrap import NOISES
    from hockeystick.training.secure_aggregation import DISTRIBUTED_NOISES

    found = tables_keyed_by({*DISTRIBUTED_NOISES, *NOISES})
    assert found <= set(SECURE_AGGREGATION_TABLES), (
        f"new: {sorted(found - set(SECURE_AGGREGATION_TABLES))}"
    )


# the comparisons of a value with a mechanism's name (``name == "laplace"``), per module, and why
MECHANISM_BRANCHES = {
    "interop/dp_accounting/pure_dp.py": (
        2,
        "to become a facet: the largest losses of the two sampled plans, poisson_pair and "
        "poisson_generic (pld/accountants/plan.py), which recurse through their inner spec or plan; "
        "every other run's is its Mechanism.largest_losses()",
    ),
    "interop/dp_accounting/pld_accountant.py": (
        1,
        "to become a facet: the mass at +infinity of a Poisson-sampled non-private run (poisson_pair); "
        "every other run's is its Mechanism.delta_floor()",
    ),
    "interop/exchange/pld_curve.py": (
        1,
        "Gaussian and subsampled Gaussian rounds composed through PLDAccountant's own grid",
    ),
    "pld/question/described_run.py": (
        2,
        "the run's description: a Gaussian and a Poisson-subsampled Gaussian source read as segments",
    ),
    "simulate/pnsgd.py": (3, "the simulator's noise words, which share gaussian and laplace"),
    "simulate/privacy.py": (1, "the simulator's noise words"),
}


def _constants(node: ast.AST) -> list[object]:
    """The constant, or a tuple's, list's or set's constants."""
    if isinstance(node, ast.Constant):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant)]
    return []


def mechanism_branches(names: set[str], package: Path = PACKAGE) -> dict[str, int]:
    """Module -> how many comparisons (==, !=, in, not in) of ``package``'s code hold one of ``names``."""
    found: dict[str, int] = {}
    for path in sorted(package.rglob("*.py")):
        for node in nodes(path):
            if isinstance(node, ast.Compare) and any(
                value in names
                for side in (node.left, *node.comparators)
                for value in _constants(side)
            ):
                module = path.relative_to(package).as_posix()
                found[module] = found.get(module, 0) + 1
    return found


def test_the_branches_on_a_mechanism_name_are_the_listed_ones():
    found = mechanism_branches(_mechanism_names())
    over = {
        module: count
        for module, count in found.items()
        if count > MECHANISM_BRANCHES.get(module, (0, ""))[0]
    }
    assert not over, (
        "a door reads a mechanism through its registry entry's facets, not by its name: "
        f"{over} (listed: {MECHANISM_BRANCHES})"
    )
