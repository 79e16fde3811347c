"""One description of a run (docs/architecture.md, "What a door composes"): every door composes
(mechanism, count) factors through the registry, and the question is asked of the run they describe
(``pld.question.described_run``), never of a list of rounds a door keeps beside the factors.

Held three ways: which modules may read a factor's description; what the doors may import from the
PLD stages (the composition and its one read, no read of their own); and, per door, that the run the
question reads off its composition is the run the door was given (the plan's, before any grid,
equal to the one its PLD's factors carry)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import dp_accounting
import numpy as np
import pytest

import hockeystick
import hockeystick.pld as pld
from hockeystick.interop.dp_accounting import HockeystickPLDAccountant
from hockeystick.ledger import Round
from hockeystick.ledger.fixed_schedule import pld_accountant
from hockeystick.pld.accountants import (
    CompositionPlan,
    PLDAccountant,
    compose_stages,
    tail_narrowed_epsilon,
)
from hockeystick.pld.accountants.question_plan import described
from hockeystick.pld.mechanisms import described_round, subsampled_gaussians
from hockeystick.pld.mechanisms.mechanism import Mechanism
from hockeystick.pld.mechanisms.registry import (
    mechanism_class,
    mechanism_names,
    mechanism_of,
    round_entry,
    stage_entry,
    stage_names,
)
from hockeystick.pld.question.described_run import (
    described_gaussians,
    described_segments,
    of_pld,
    subsampled_segments,
)

from .source_tree import nodes

PACKAGE = Path(hockeystick.__file__).parent

# the doors (module paths under hockeystick/): what each composes is a run of (mechanism, count)
DOORS = (
    "ledger",
    "training/schedule.py",
    "cli/compose.py",
    "cli/compose_along.py",
    "cli/training_stages.py",
    "pld/accountants/stages.py",
    "pld/accountants/question_plan.py",
)
# the pld stages whose modules do the reading a door must not do itself: the composition engine,
# the refinement and tilted reads, the question's chain of reads
READING_STAGES = ("compose", "refine", "question")
# the question stage's names a door may use: the one description and its one read
DESCRIPTION = {("question", "described_run"), ("question", "reader")}
# (door module, pld module, why): a door's own narrowing kept beside the one read
KNOWN_READS = {
    (
        "pld/accountants/question_plan.py",
        "refine/question",
        "a plan whose grid tails leave the upper side infinite takes the RDP side, rounded up by "
        "RDP_MARGIN, and warns (warn_unreadable)",
    ),
    (
        "pld/accountants/question_plan.py",
        "refine/unmet",
        "a plan asked to an accuracy, its bracket intersected with the default's, warns "
        "AccuracyNotMetWarning where that is still wider than asked, by the refinement's one rule (unmet_flags)",
    ),
}


def _door_files() -> list[Path]:
    out: list[Path] = []
    for door in DOORS:
        path = PACKAGE / door
        out += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return out


def _pld_imports(path: Path) -> list[tuple[int, list[str]]]:
    """(line, the pld path with the name) of every import of ``path`` into ``hockeystick.pld``."""
    package = ["hockeystick", *path.relative_to(PACKAGE).parts[:-1]]
    found = []
    for node in nodes(path):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = base + [t for t in (node.module or "").split(".") if t]
            if target[:2] == ["hockeystick", "pld"]:
                found += [(node.lineno, [*target[2:], alias.name]) for alias in node.names]
    return found


def _module_of(inside: list[str]) -> list[str]:
    """The pld module a name comes from: its stage's front door resolves a name imported from it."""
    if len(inside) == 2:
        door = importlib.import_module(f"hockeystick.pld.{inside[0]}")
        module = getattr(door, "FRONT_DOOR", {}).get(inside[1])
        if module is not None:
            return [inside[0], module]
    return inside[:2]


def test_the_doors_reach_the_question_only_through_the_one_description():
    """A door imports nothing of the composition engine, the refinement or the question stage but the
    one description (``described_run``) and its read (``reader``): it composes through the PLD
    accountant or the plan, and the question is asked of what it composed."""
    known = {(door, module) for door, module, _ in KNOWN_READS}
    wrong = []
    for path in _door_files():
        rel = path.relative_to(PACKAGE).as_posix()
        for line, inside in _pld_imports(path):
            module = _module_of(inside)
            if module[0] not in READING_STAGES or tuple(module) in DESCRIPTION:
                continue
            if (rel, module[0]) in known or (rel, "/".join(module)) in known:
                continue
            wrong.append(f"{rel}:{line} reads through pld.{'.'.join(module)}")
    assert not wrong, "\n".join(wrong)


def test_only_the_description_reads_a_factors_source():
    """``Factor.source`` is read in one module, ``pld/question/described_run.py``: a door or a read
    that needs the run asks it (``pld/mechanisms/described_factors.py``, which gives a stage's
    factors their source, reads it only to keep a factor's own)."""
    readers = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if not rel.startswith(("pld/", "ledger/", "training/", "cli/", "interop/")):
            continue
        for node in nodes(path):
            if isinstance(node, ast.Attribute) and node.attr == "source":
                readers.append(rel)
    assert set(readers) == {
        "pld/question/described_run.py",
        "pld/mechanisms/described_factors.py",
    }


def test_the_known_reads_are_still_there():
    """Each known exception still imports what it is excused for (an entry no longer needed is
    removed)."""
    for door, module, _ in KNOWN_READS:
        imported = {"/".join(_module_of(inside)) for _, inside in _pld_imports(PACKAGE / door)}
        assert any(m == module or m.startswith(module + "/") for m in imported), (door, module)


SG = ((1.0, 0.01, 1.0), 300)
SG2 = ((0.8, 0.02, 1.0), 200)


def test_the_pld_accountant_describes_the_rounds_it_was_given():
    acc = PLDAccountant()
    acc.compose_subsampled_gaussian(1.0, 0.01, 100)
    acc.compose_subsampled_gaussian(0.8, 0.02, 200)
    acc.compose_subsampled_gaussian(1.0, 0.01, 200)
    assert subsampled_segments(acc.composed_pld) == [SG, SG2]
    acc.compose(pld.laplace(2.0, value_discretization_interval=1e-4))
    assert subsampled_segments(acc.composed_pld) is None  # a Laplace round: not such a run


def test_compose_stages_describe_their_stages():
    stages = [
        {"mechanism": "subsampled_gaussian", "sigma": 1.0, "sampling_rate": 0.01, "rounds": 300},
        {
            "mechanism": "subsampled_gaussian",
            "sigma": 0.8,
            "sampling_probability": 0.02,
            "rounds": 200,
        },
    ]
    assert subsampled_segments(compose_stages(stages).composed_pld) == [SG, SG2]


def test_the_ledger_describes_its_rounds():
    runs = [
        (Round.subsampled_gaussian(1.0, 0.01), 100),
        (Round.subsampled_gaussian(0.8, 0.02), 200),
        (Round.subsampled_gaussian(1.0, 0.01), 200),
    ]
    assert subsampled_segments(pld_accountant(runs, 1e-4).composed_pld) == [SG, SG2]
    stage = {
        "mechanism": "subsampled_gaussian",
        "sigma": 2.0,
        "sensitivity": 2.0,
        "sampling_rate": 0.01,
    }
    assert subsampled_segments(pld_accountant([Round.from_stage(stage)], 1e-4).composed_pld) == [
        ((1.0, 0.01, 1.0), 1)
    ]


@pytest.mark.parametrize(
    "counts",
    [
        {("poisson_gaussian", 1.0, 0.01): 300},
        {("poisson_gaussian", 1.0, 0.01): 300, ("poisson_gaussian", 0.8, 0.02): 200},
        {("poisson_gaussian", 1.0, 0.01): 3, ("gaussian", 4.0, 1.0): 2},
    ],
)
def test_a_plan_describes_the_run_its_pld_factors_carry(counts):
    """Before any grid, a plan's description (its mechanisms' specs and counts) is the one its
    mechanisms' PLDs carry on a grid: the plan and the PLD doors read one run."""
    plan = CompositionPlan()
    for spec, count in counts.items():
        mechanism = mechanism_of(spec)
        if mechanism.gaussian_radius() is not None:  # folded, as the adapters fold a Gaussian
            plan.add_gaussian(mechanism.gaussian_radius(), count, spec)
        else:
            plan.add(spec, count)
    built = None
    for spec, count in counts.items():
        step = mechanism_of(spec).grid_pld(1e-2).self_compose(count)
        built = step if built is None else built.compose(step)
    assert built is not None
    assert described(plan) == counts == of_pld(built)
    assert described_segments(described(plan)) == described_segments(of_pld(built))


def test_every_mechanism_of_a_plan_reaches_the_description():
    """A plan of any registered mechanisms, its folded Gaussians among them, is described by their
    specs and counts; the reads answer only the runs they know (Laplace beside subsampled Gaussians
    is described, and no read of subsampled Gaussians takes it)."""
    plan = CompositionPlan()
    plan.add(("poisson_gaussian", 1.0, 0.01), 3)
    plan.add(("laplace", 2.0), 1)
    plan.add(("randomized_response", 0.5, 4), 2)
    plan.add_gaussian(0.25, 5, ("gaussian", 4.0, 1.0))
    assert described(plan) == {
        ("poisson_gaussian", 1.0, 0.01): 3,
        ("laplace", 2.0): 1,
        ("randomized_response", 0.5, 4): 2,
        ("gaussian", 4.0, 1.0): 5,
    }
    assert described_segments(described(plan)) is None
    rebuilt = CompositionPlan.from_key(plan.key())  # its radius alone: the Gaussians' specs lost
    assert rebuilt.gaussian_r2 == plan.gaussian_r2 and described(rebuilt) is None
    scaled = plan.scaled(3)
    assert described(scaled) == {spec: 3 * count for spec, count in described(plan).items()}
    merged = CompositionPlan()
    merged.merge(plan)
    merged.merge(rebuilt)  # a radius without its specs: the merged run is not described
    assert described(merged) is None
    unnamed = CompositionPlan()
    unnamed.add_gaussian(0.25, 5)
    assert described(unnamed) is None


def test_a_factor_describes_a_registered_mechanism():
    """Every factor's source is a registered mechanism's spec (``mechanism_of`` builds it back) and
    a direction of its pair; a PLD of one direction of a two-direction pair is not described."""
    acc = PLDAccountant()
    acc.compose_subsampled_gaussian(1.0, 0.01, 10)
    acc.compose_subsampled_gaussian(2.0, 1.0, 3)  # rate 1: the Gaussian mechanism
    run = of_pld(acc.composed_pld)
    assert run == {("poisson_gaussian", 1.0, 0.01): 10, ("gaussian", 2.0, 1.0): 3}
    for spec in run:
        assert mechanism_of(spec).spec() == spec
    assert described_segments(run) is None  # a Gaussian round beside them: not that read's run
    assert described_gaussians(run) is None
    (one_side,) = subsampled_gaussians(1.0, 0.01, directions="remove")
    assert of_pld(one_side) is None
    assert of_pld(one_side.compose(pld.subsampled_gaussian(1.0, 0.01))) is None
    gaussians = pld.gaussian(2.0, sensitivity=1.0).self_compose(4)
    assert described_gaussians(of_pld(gaussians)) == [(2.0, 4)]


STAGE_ROUNDS = [
    ("laplace", {"scale": 2.0}),
    ("laplace", {"scale": 2.0, "sensitivity": 1.0}),
    ("randomized_response", {"noise_parameter": 0.5, "num_buckets": 4}),
    (
        "randomized_response",
        {"noise_parameter": 0.5, "num_buckets": 4, "relation": "replace_special"},
    ),
    ("discrete_laplace", {"parameter": 0.5}),
    ("discrete_laplace", {"parameter": 0.5, "sensitivity": 2}),
    ("gaussian", {"sigma": 3.0}),
    ("fixed_size_subsampled_gaussian", {"sigma": 3.0, "batch_size": 10, "n": 100}),
    ("with_replacement_subsampled_gaussian", {"sigma": 3.0, "batch_size": 5, "n": 100}),
    ("discrete_gaussian", {"sigma": 3.0, "sensitivity": 1}),
]


@pytest.mark.parametrize(("name", "parameters"), STAGE_ROUNDS)
def test_a_stage_round_describes_the_registered_mechanism_it_is(name, parameters):
    """A compose stage's round carries the spec of the registered mechanism it is
    (``Mechanism.from_stage``), and that mechanism's PLD is the round's, PMF for PMF: the
    description names exactly the mechanism composed."""
    entry = stage_entry(name) if name in stage_names() else round_entry(name)  # a ledger round
    built = described_round(entry, parameters, 1e-3)
    run = of_pld(built)
    assert run is not None and len(run) == 1 and list(run.values()) == [1]
    (spec,) = run
    cls = mechanism_class(spec[0])
    assert (cls.stage_name or cls.name) == name and mechanism_of(spec).spec() == spec
    again = mechanism_of(spec).grid_pld(1e-3)
    assert len(again.directions) == len(built.directions)
    for mine, theirs in zip(built.directions, again.directions):
        for (f, c), (g, d) in zip(mine.items(), theirs.items()):
            assert c == d and f.upper.k_lo == g.upper.k_lo
            assert np.array_equal(f.upper.p, g.upper.p) and f.upper.p_inf == g.upper.p_inf


def test_a_stage_round_no_mechanism_is_exactly_is_not_described():
    """A Laplace stage of sensitivity 2 is no registered ``Laplace`` (its scale would be divided,
    rounded), nor a fixed-size batch stage cut at a tail of its own a ``WithoutReplacementGaussian``:
    their rounds name no mechanism, and the runs holding them are not described."""
    built = described_round(stage_entry("laplace"), {"scale": 2.0, "sensitivity": 2.0}, 1e-3)
    assert of_pld(built) is None
    # a tail of its own: no WithoutReplacementGaussian (its grid PLD keeps the default tail)
    batch = {"sigma": 3.0, "batch_size": 10, "n": 100, "tail": 1e-12}
    built = described_round(stage_entry("fixed_size_subsampled_gaussian"), batch, 1e-3)
    assert of_pld(built) is None


def test_every_stage_of_a_registered_mechanism_says_which_it_is():
    """A library stage named as a registered mechanism class reads its parameters into it
    (``from_stage`` overridden), so compose files and the ledger describe its rounds."""
    classes = [mechanism_class(name) for name in mechanism_names()]
    of_stage = {
        cls.stage_name or cls.name: cls
        for cls in classes
        if cls.__module__.startswith("hockeystick.")
    }
    pairs = [name for name in stage_names() if name in of_stage]
    assert {
        "laplace",
        "gaussian",
        "randomized_response",
        "discrete_laplace",
        "fixed_size_subsampled_gaussian",
        "with_replacement_subsampled_gaussian",
    } <= set(pairs)
    for name in pairs:
        assert of_stage[name].from_stage is not Mechanism.from_stage, name


def test_compose_files_and_the_ledger_describe_every_mechanism_they_hold():
    """The run a compose file or the ledger composes reaches the question as (spec, count), for
    every mechanism a registered class is: Laplace, randomized response and the discrete Laplace
    beside subsampled Gaussians; the ledger's discrete Gaussian rounds."""
    stages = [
        {"mechanism": "subsampled_gaussian", "sigma": 1.0, "sampling_rate": 0.01, "rounds": 30},
        {"mechanism": "laplace", "scale": 20.0, "rounds": 3},
        {
            "mechanism": "randomized_response",
            "noise_parameter": 0.5,
            "num_buckets": 4,
            "relation": "replace_special",
        },
        {"mechanism": "discrete_laplace", "parameter": 0.5, "rounds": 2},
    ]
    assert of_pld(compose_stages(stages).composed_pld) == {
        ("poisson_gaussian", 1.0, 0.01): 30,
        ("laplace", 20.0): 3,
        ("randomized_response", 0.5, 4, "replace_special"): 1,
        ("discrete_laplace", 0.5, 1): 2,
    }
    runs = [
        (Round.laplace(20.0), 3),
        (Round.subsampled_gaussian(1.0, 0.01), 5),
        (Round.discrete_gaussian(3.0, 1), 2),
    ]
    described_ledger = of_pld(pld_accountant(runs, 1e-4).composed_pld)
    assert described_ledger == {
        ("laplace", 20.0): 3,
        ("poisson_gaussian", 1.0, 0.01): 5,
        ("discrete_gaussian", 3.0, 1): 2,
    }
    assert described_segments(described_ledger) is None  # not a run of subsampled Gaussians only


def _segment_literals(path: Path) -> list[int]:
    """Lines of the tuple literals in ``path`` shaped as a described segment, ((noise, q, 1.0), rounds)."""
    found = []
    for node in nodes(path):
        if isinstance(node, ast.Tuple) and len(node.elts) == 2:
            inner = node.elts[0]
            if isinstance(inner, ast.Tuple) and len(inner.elts) == 3:
                last = inner.elts[2]
                if isinstance(last, ast.Constant) and isinstance(last.value, float):
                    found.append(node.lineno)
    return found


def test_no_module_builds_a_question_input_but_the_description():
    """The question's inputs are built in one place: a run's segments only by
    ``described_run`` (no door writes ((noise, q, 1.0), rounds) from words of its own), a
    factor's ``Source`` only where a mechanism's factors are made (pld/mechanisms/)."""
    built = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel != "pld/question/described_run.py":
            built += [f"{rel}:{line} writes a segment" for line in _segment_literals(path)]
        if not rel.startswith(("pld/mechanisms/", "pld/question/described_run.py")):
            for node in nodes(path):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Source":
                    built.append(f"{rel}:{node.lineno} builds a Source")
    assert not built, "\n".join(built)


def test_a_staged_run_asks_the_question_of_its_description():
    """A staged run's epsilon is the question asked of the run its composed PLD describes
    (``tail_narrowed_epsilon``): stages in another order, or a repeated stage merged, describe the
    same run and give the same bracket, to the last bit."""
    from hockeystick.training import DPSGD

    stages = [
        {"noise_multiplier": 0.9, "steps": 30},
        {"noise_multiplier": 1.3, "steps": 20},
        {"noise_multiplier": 0.9, "steps": 10},
    ]
    run = DPSGD(dataset_size=10_000, batch_size=100, stages=stages)
    q = 100 / 10_000  # the Poisson rate, batch over data set
    merged = PLDAccountant()
    merged.compose_subsampled_gaussian(0.9, q, 40)
    merged.compose_subsampled_gaussian(1.3, q, 20)
    for delta in (1e-5, 1e-10):
        assert run.epsilon(delta, bound="both") == tail_narrowed_epsilon(
            merged, delta, bound="both"
        )
    assert of_pld(merged.composed_pld) == {
        ("poisson_gaussian", 0.9, q): 40,
        ("poisson_gaussian", 1.3, q): 20,
    }


def test_the_adapter_and_the_pld_accountant_ask_one_question_of_one_run():
    """The dp_accounting adapter's plan and the PLD accountant's factors describe one run, and the
    question read of it gives them one bracket."""
    event = dp_accounting.ComposedDpEvent(
        [
            dp_accounting.SelfComposedDpEvent(
                dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(1.0)), 300
            ),
            dp_accounting.SelfComposedDpEvent(
                dp_accounting.PoissonSampledDpEvent(0.02, dp_accounting.GaussianDpEvent(0.8)), 200
            ),
        ]
    )
    adapter = HockeystickPLDAccountant()
    adapter.compose(event)
    acc = PLDAccountant()
    acc.compose_subsampled_gaussian(1.0, 0.01, 300)
    acc.compose_subsampled_gaussian(0.8, 0.02, 200)
    lower, upper = adapter.get_epsilon_bracket(1e-5)
    a_lower, a_upper = acc.epsilon(1e-5, bound="both")
    assert lower <= a_upper and a_lower <= upper  # both certified brackets of one run
    assert upper - lower < 1e-3 and a_upper - a_lower < 1e-3
