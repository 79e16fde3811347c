"""Data flows down (docs/architecture.md): every import inside hockeystick, at any depth of a module
(imports placed inside functions included), points to a lower layer or to a sibling in the same
subpackage."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import hockeystick

from .source_tree import nodes, source

PACKAGE = Path(hockeystick.__file__).parent

# Lower number = lower layer.  A module may import its own subpackage's siblings and any lower layer.
LAYERS = {
    "_core": 0,  # the compiled module
    "base": 0,  # the Protocol, progress, validation, broadcasting, optional extras, old paths
    "cpp": 0,  # where the wheel put the C++ package: headers, CMake package, pkg-config file
    "numerics": 1,  # Q, theta and their inverses; theta rounded outward
    "rdp": 2,  # RDP and zCDP conversions; the PLD adapters' zCDP runs read them
    "contraction": 3,
    "fdp": 3,
    "pld": 3,
    "leakage": 3,
    "isrl": 4,  # accountants built on pld and fdp's Gaussian mechanism
    "matrix": 4,  # matrix-factorization mechanisms: sensitivity, then fdp's Gaussian mechanism and rdp
    "ledger": 4,  # a run recorded round by round: fixed-schedule PLD brackets, filters, odometers
    "training": 4,  # DP-SGD / DP-FedAvg vocabulary over the pld accountants
    "secagg": 3.5,  # secure aggregation: distributed discrete Gaussian and Skellam over rdp and pld; under training
    "registry": 5,
    "interop": 5,  # dp_accounting's events and RDP accountant, Opacus's and Flower's accountants, over the ledger
    "simulate": 5,
    "calibrate": 6,
    "risk": 7,  # attack risk from a profile: calibrate + registry + pld
    "audit": 8,  # canary scores against an accountant's certified curve
    "sweep": 9,
    "plots": 10,
    "reproduce": 11,  # the papers' figures, paper 003's tables, the README's example
    "cli": 12,
    "__main__": 13,
}

KNOWN_EXCEPTIONS: set[tuple[str, str]] = set()


def _targets(path: Path) -> set[str]:
    """Top-level hockeystick components imported anywhere in ``path``."""
    rel = path.relative_to(PACKAGE)
    depth = len(rel.parts) - 1  # 0 for hockeystick/x.py, 1 for hockeystick/sweep/x.py
    out = set()
    for node in nodes(path):
        if isinstance(node, ast.ImportFrom):
            if node.level == 0:
                parts = (node.module or "").split(".")
                if parts[0] == "hockeystick":
                    out.add(parts[1] if len(parts) > 1 else node.names[0].name)
            elif node.level > depth:  # climbs to the package root
                base = (node.module or "").split(".")[0] if node.module else None
                out.update([base] if base else [a.name for a in node.names])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "hockeystick" and len(parts) > 1:
                    out.add(parts[1])
    # names imported from the package root that are not modules (``__version__``) are the root itself
    return {
        t for t in out if (PACKAGE / f"{t}.py").exists() or (PACKAGE / t).is_dir() or t == "_core"
    }


def test_every_import_points_down():
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.name == "__init__.py" and len(rel.parts) == 1:
            continue  # the package's lazy attribute loader names every subpackage
        own = rel.parts[0].removesuffix(".py")
        assert own in LAYERS, f"{rel}: add {own!r} to LAYERS in tests/test_layers.py"
        for target in _targets(path):
            if target == own or (rel.as_posix(), target) in KNOWN_EXCEPTIONS:
                continue
            assert target in LAYERS, f"{rel} imports {target!r}: add it to LAYERS"
            if LAYERS[target] >= LAYERS[own]:
                wrong.append(f"{rel} imports {target} (layer {LAYERS[target]} >= {LAYERS[own]})")
    assert not wrong, "\n".join(wrong)


def test_the_old_registry_path_is_the_same_registry():
    from hockeystick import registry
    from hockeystick.sweep import registry as old

    assert old.REGISTRY is registry.REGISTRY and old.get is registry.get


# hockeystick.pld laid out as its pipeline (docs/architecture.md), the C++ core's cpp/include/hockeystick/pld/ under
# the same names in the same order: the types every stage passes on (grid) at the bottom, the discretizers
# (mechanisms, then sampling on mechanisms), the composition, its reads, the grid-and-tail policy and the refinement
# loop, then the question (the default's chain of reads and the reader a composed PLD consults) and the Python front
# ends over it (accountants), which install the reader with themselves as its front door.
PLD_STAGES = {
    "grid": 0,
    "mechanisms": 1,
    "sampling": 2,
    "compose": 3,
    "reads": 4,
    "refine": 5,
    "question": 6,
    "accountants": 7,
}


def test_pld_stages_import_downwards():
    root = PACKAGE / "pld"
    wrong = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if len(rel.parts) == 1:
            assert rel.name in ("__init__.py",), (
                f"pld/{rel}: every pld module belongs to a stage (PLD_STAGES)"
            )
            continue
        own = rel.parts[0]
        assert own in PLD_STAGES, f"pld/{rel}: add {own!r} to PLD_STAGES"
        package = ["hockeystick", "pld", *rel.parts[:-1]]
        for node in nodes(path):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                target = package[: len(package) - node.level + 1] + (node.module or "").split(".")
            else:
                target = (node.module or "").split(".")
            target = [t for t in target if t]
            if target[:2] != ["hockeystick", "pld"]:
                continue
            stage = target[2] if len(target) > 2 else None
            if stage is None:
                wrong.append(
                    f"pld/{rel} imports from the hockeystick.pld facade: import the stage's module"
                )
            elif stage != own and PLD_STAGES[stage] >= PLD_STAGES[own]:
                wrong.append(
                    f"pld/{rel} imports pld.{stage} (stage {PLD_STAGES[stage]} >= {PLD_STAGES[own]})"
                )
    assert not wrong, "\n".join(wrong)


# The core's reads of a question (the default chain's read of one point, the tilted reads of one kind of round, of
# several and of any other composition, the blocks, rare participation's finer grids, the accuracy= reads, the tilt
# searches): the question stage and the front ends above it call them, so the question logic has one home
# (docs/architecture.md, "Where a read goes"); the stages below it compose, read and refine.
QUESTION_READS = {
    "TiltedPointReader",
    "TiltedFactorsReader",
    "OwnGridDeltas",
    "own_grid_bracket",
    "block_bracket",
    "rare_finer_brackets",
    "accuracy_epsilon",
    "accuracy_delta",
    "tilted_descent",
    "exponent_tilt",
    "chernoff_tilt",
    "delta_tilt",
}


def test_the_questions_reads_are_called_from_the_question_stage_and_above():
    """No module of a pld stage below the question (PLD_STAGES) calls the core's reads of a question
    (``_core.pld_refine.<name>`` for a name of QUESTION_READS): the stages below compose, read and refine, and a read
    of the question placed there would give the question logic a second home."""
    wrong = []
    for path in sorted((PACKAGE / "pld").rglob("*.py")):
        rel = path.relative_to(PACKAGE / "pld")
        if len(rel.parts) == 1 or PLD_STAGES[rel.parts[0]] >= PLD_STAGES["question"]:
            continue
        for node in nodes(path):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in QUESTION_READS
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "pld_refine"
            ):
                wrong.append(f"pld/{rel}:{node.lineno} calls _core.pld_refine.{node.attr}")
    assert not wrong, "\n".join(wrong)


def _pld_stage_imports(path: Path) -> list[tuple[int, list[str], str]]:
    """(line, the pld path imported, the name) of every import of ``path`` into ``hockeystick.pld``, at any depth of
    the module (imports inside functions and ``TYPE_CHECKING`` blocks included); ``from stage import name`` names a
    module when the stage has a module ``name``."""
    rel = path.relative_to(PACKAGE)
    package = ["hockeystick", *rel.parts[:-1]]
    found = []
    for node in nodes(path):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = base + [t for t in (node.module or "").split(".") if t]
            if target[:2] == ["hockeystick", "pld"]:
                found += [(node.lineno, target[2:], alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[:2] == ["hockeystick", "pld"]:
                    found.append((node.lineno, parts[2:-1], parts[-1]))
    return found


def test_other_packages_import_pld_through_its_stages_front_doors():
    """Outside pld/, a stage's modules are not imported: a name comes from its stage's front door (the
    ``FRONT_DOOR`` of its ``__init__``, or its ``__all__``), or from ``hockeystick.pld`` itself."""
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] == "pld":
            continue
        for line, inside, name in _pld_stage_imports(path):
            if not inside:  # hockeystick.pld itself: its public names, or a stage as a package
                continue
            stage = inside[0]
            door = importlib.import_module(f"hockeystick.pld.{stage}")
            served = set(getattr(door, "FRONT_DOOR", ())) | set(getattr(door, "__all__", ()))
            if len(inside) > 1:
                wrong.append(
                    f"{rel}:{line} imports hockeystick.pld.{'.'.join(inside)}: import from pld.{stage}"
                )
            elif (PACKAGE / "pld" / stage / f"{name}.py").exists():
                wrong.append(
                    f"{rel}:{line} imports the module pld.{stage}.{name}: import its names from the door"
                )
            elif name not in served:
                wrong.append(f"{rel}:{line} imports {name} from pld.{stage}, not at its front door")
    assert not wrong, "\n".join(wrong)


def test_each_door_serves_every_name_it_lists():
    """Every name of a stage's ``FRONT_DOOR`` resolves (its module imports and holds it), and none is a module of
    the stage (a submodule's import would put the module in the name's place)."""
    wrong = []
    for stage in PLD_STAGES:
        door = importlib.import_module(f"hockeystick.pld.{stage}")
        for name in getattr(door, "FRONT_DOOR", ()):
            if (PACKAGE / "pld" / stage / f"{name}.py").exists() or not hasattr(door, name):
                wrong.append(f"pld.{stage}.{name}")
    assert not wrong, wrong


# hockeystick.interop, one wing a library (docs/architecture.md): no wing imports another; ``loss_reach`` (the
# reach of a Gaussian's privacy loss both the dp_accounting and the Opacus adapters check) is their one shared module.
INTEROP_WINGS = {"dp_accounting", "opacus", "flower", "exchange"}
INTEROP_SHARED = {"loss_reach"}


def test_interop_wings_import_no_other_wing():
    root = PACKAGE / "interop"
    wrong = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        own = rel.parts[0].removesuffix(".py")
        if own == "__init__":
            continue
        assert own in INTEROP_WINGS | INTEROP_SHARED, (
            f"interop/{rel}: a wing (INTEROP_WINGS) or shared"
        )
        package = ["hockeystick", "interop", *rel.parts[:-1]]
        for node in nodes(path):
            if isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                target = base + [t for t in (node.module or "").split(".") if t]
                names = [target[2]] if len(target) > 2 else [a.name for a in node.names]
            elif isinstance(node, ast.Import):
                names = [
                    a.name.split(".")[2]
                    for a in node.names
                    if a.name.startswith("hockeystick.interop.")
                ]
                target = ["hockeystick", "interop"]
            else:
                continue
            if target[:2] != ["hockeystick", "interop"]:
                continue
            wrong += [
                f"interop/{rel} imports interop.{n}"
                for n in names
                if n not in (own, *INTEROP_SHARED)
            ]
    assert not wrong, "\n".join(wrong)


# The stages only the Python package has: the front ends and the question asked of a composed PLD.
PYTHON_ONLY_STAGES = {"accountants", "question"}
CPP_INCLUDE = Path(__file__).resolve().parents[1] / "cpp" / "include" / "hockeystick"
# The C++ core's folders below every family that the Python package has no folder for: the AVX2 kernels and the
# allocator; the headers of pld/ may include them and numerics/ (LAYERS), nothing of another family.
CPP_ONLY_BELOW_FAMILIES = {"simd", "support"}
_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]hockeystick/([^>"]+)[>"]', re.MULTILINE)


def _cpp_includes(path: Path) -> list[str]:
    """The hockeystick headers ``path`` includes, as paths under cpp/include/hockeystick."""
    return _INCLUDE.findall(source(path))


def test_pld_stages_are_one_table_for_both_languages():
    """The Python stages are PLD_STAGES, and the C++ folders of pld/ are the same stages (but the Python-only
    front ends and question): docs/architecture.md's mirror, held here."""
    python = {p.name for p in (PACKAGE / "pld").iterdir() if (p / "__init__.py").exists()}
    cpp = {p.name for p in (CPP_INCLUDE / "pld").iterdir() if p.is_dir()}
    assert python == set(PLD_STAGES), f"Python pld stages {sorted(python)} != PLD_STAGES"
    assert cpp == set(PLD_STAGES) - PYTHON_ONLY_STAGES, (
        f"C++ pld folders {sorted(cpp)}: each is a stage of PLD_STAGES, and every stage but "
        f"{sorted(PYTHON_ONLY_STAGES)} has its folder"
    )


def test_the_architecture_page_draws_the_cpp_stages_in_their_order():
    """docs/architecture.md's C++ picture lists cpp/include/hockeystick/pld's folders bottom up, in PLD_STAGES order."""
    page = (CPP_INCLUDE.parents[2] / "docs" / "architecture.md").read_text()
    drawn = re.findall(r"^  pld/([a-z_]+)/", page, re.MULTILINE)
    expected = [
        s for s in sorted(PLD_STAGES, key=PLD_STAGES.__getitem__) if s not in PYTHON_ONLY_STAGES
    ]
    assert drawn == expected, (
        f"docs/architecture.md draws {drawn}; the stages bottom up are {expected}"
    )


def test_cpp_pld_headers_include_downwards():
    """Every #include of a header of cpp/include/hockeystick/pld/<stage>/ points to its own stage or a lower one
    (PLD_STAGES), and outside pld/ only to the layers below the families (numerics, simd, support)."""
    wrong = []
    for path in sorted((CPP_INCLUDE / "pld").rglob("*.hpp")):
        rel = path.relative_to(CPP_INCLUDE)
        own = rel.parts[1]
        for target in _cpp_includes(path):
            parts = target.split("/")
            if parts[0] == "pld":
                stage = parts[1]
                if stage not in PLD_STAGES or stage in PYTHON_ONLY_STAGES:
                    wrong.append(f"{rel} includes {target}: no such C++ stage")
                elif stage != own and PLD_STAGES[stage] >= PLD_STAGES[own]:
                    wrong.append(
                        f"{rel} includes {target} (stage {PLD_STAGES[stage]} >= {PLD_STAGES[own]})"
                    )
            elif parts[0] not in CPP_ONLY_BELOW_FAMILIES and not (
                parts[0] in LAYERS and LAYERS[parts[0]] < LAYERS["pld"]
            ):
                wrong.append(f"{rel} includes {target}: not a layer below pld")
    assert not wrong, "\n".join(wrong)


def test_no_include_cycle_among_cpp_headers():
    """No two headers of cpp/include/hockeystick include each other, directly or through others."""
    graph = {
        path.relative_to(CPP_INCLUDE).as_posix(): set(_cpp_includes(path))
        for path in CPP_INCLUDE.rglob("*.hpp")
    }
    cycles = _cycles(graph)
    assert not cycles, "include cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def _module_of(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph() -> dict[str, set[str]]:
    """Module -> the hockeystick modules it imports anywhere (``TYPE_CHECKING`` blocks and imports inside
    functions included); ``from package import name`` points to the submodule ``name`` when there is one."""
    modules = {_module_of(path): path for path in PACKAGE.rglob("*.py")}
    modules.setdefault(
        "hockeystick._core", PACKAGE / "_core" / "__init__.pyi"
    )  # the compiled core (its stubs)

    def known(name: str) -> str:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        targets: set[str] = set()
        if path.suffix == ".py":
            for node in nodes(path):
                if isinstance(node, ast.ImportFrom):
                    base = package[: len(package) - node.level + 1] if node.level else []
                    parent = ".".join(base + [p for p in (node.module or "").split(".") if p])
                    targets.update(
                        known(f"{parent}.{alias.name}") or known(parent) for alias in node.names
                    )
                elif isinstance(node, ast.Import):
                    targets.update(known(alias.name) for alias in node.names)
        graph[module] = {t for t in targets if t.startswith("hockeystick") and t != module}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_no_import_cycle_within_pld():
    """No two modules of hockeystick.pld import each other, directly or through others."""
    pld = [c for c in _cycles(_import_graph()) if any(m.startswith("hockeystick.pld") for m in c)]
    assert not pld, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in pld)


def test_no_import_cycle_anywhere():
    """No two modules of hockeystick import each other, directly or through others."""
    cycles = _cycles(_import_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_core_pld_submodules_are_named_by_stage():
    """The compiled core has one submodule per C++ stage of the pipeline, ``pld_<stage>`` (cpp/bindings/module.cpp),
    and no other ``pld`` submodule."""
    from hockeystick import _core

    submodules = {name for name in dir(_core) if name.startswith("pld")}
    stages = {f"pld_{stage}" for stage in PLD_STAGES if stage not in PYTHON_ONLY_STAGES}
    assert submodules == stages, (
        f"_core's pld submodules {sorted(submodules)}; the stages {sorted(stages)}"
    )


def test_pld_tests_mirror_the_stages():
    """tests/pld/ holds one folder per stage of PLD_STAGES, each test in the folder of the stage it tests; only
    shared helpers (no test_*.py) stay at its top."""
    root = Path(__file__).resolve().parent / "pld"
    loose = sorted(p.name for p in root.glob("test_*.py"))
    assert not loose, f"tests/pld/{loose}: move each into tests/pld/<stage>/, the stage it tests"
    folders = {p.name for p in root.iterdir() if (p / "__init__.py").exists()}
    assert folders == set(PLD_STAGES), f"tests/pld's folders {sorted(folders)} are not PLD_STAGES"
