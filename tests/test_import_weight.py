"""What a first answer loads: the README's DP-SGD epsilon imports the modules its answer reads and nothing else.

Checked on ``sys.modules`` in a fresh interpreter, never by timing (bench/first_answer.py times it; bench/README.md):
``hockeystick.pld`` and ``hockeystick.training`` name their contents lazily (PEP 562), so the DP-SGD vocabulary
does not load the other samplings' accountants, the composition plans, secure aggregation, f-DP, RDP, the registry
or the sweep; and the answer's compositions transform with numpy.fft on one thread, so scipy stays unloaded.
Importing ``DPSGD`` loads its vocabulary alone: the PLD stages and the compiled core load when a run is built.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

README_ANSWER = (
    "from hockeystick.training import DPSGD\n"
    "eps = DPSGD(noise_multiplier=1.1, sample_rate=256 / 60_000, steps=14_100).epsilon(1e-5)\n"
    "assert 2.385 < eps < 2.386, eps\n"
)

# modules a Poisson DP-SGD answer never reads
NOT_READ = (
    "scipy",
    "numpy.ma",
    "hockeystick.pld.accountants.allocation",
    "hockeystick.pld.accountants.fixed_batch",
    "hockeystick.pld.accountants.plan",
    "hockeystick.pld.accountants.composition_plan",
    "hockeystick.pld.mechanisms.discrete_laplace",
    "hockeystick.pld.mechanisms.randomized_response",
    "hockeystick.pld.sampling.truncated_subsampling",
    "hockeystick.training.secure_aggregation",
    "hockeystick.training.local_dp",
    "hockeystick.training.random_checkins",
    "hockeystick.training.record_level",
    "hockeystick.secagg",
    "hockeystick.fdp",
    "hockeystick.rdp",
    "hockeystick.matrix",
    "hockeystick.registry",
    "hockeystick.sweep",
    # the refinement's loop and the read of blocks: an accuracy= question, a bracket the fixed grid leaves wide
    "hockeystick.pld.refine.points",
    "hockeystick.pld.question.block_reads",
    # the tilted read of delta over several kinds of round (one kind reads the front door)
    "hockeystick.pld.question.tilted_factors_delta",
    # the standard library's heavier modules a one-thread answer never calls: threads (and their logging), exact
    # fractions (and decimal), close matches for a refused word, the registry's walk of the stages
    "concurrent.futures",
    "logging",
    "fractions",
    "decimal",
    "difflib",
    "pkgutil",
)

# The README answer's hockeystick modules, the compiled core's submodules included: a ceiling that a new eager
# import on the path trips, so that it is made lazy or the ceiling raised on purpose (its commit says why).  What
# only another question reads (the refinement's loop, the blocks' read)
# loads on its first use.
MODULE_CEILING = 85

# ``from hockeystick.training import DPSGD`` alone: the training vocabulary and the base it validates with; every
# stage of the PLD pipeline (the grid's distribution, the question reader and its tilted reads, the compositions)
# and the compiled core load when the run is built, on the way to its first answer
IMPORT_NOT_READ = (*NOT_READ, "hockeystick.pld", "hockeystick._core", "hockeystick.numerics")
IMPORT_CEILING = 20


def _loaded_after(code: str) -> list[str]:
    probe = f"import sys\n{code}\nimport json\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def _heavy(loaded: list[str], not_read: tuple[str, ...]) -> list[str]:
    return [m for m in loaded for h in not_read if m == h or m.startswith(h + ".")]


@pytest.mark.parametrize(
    ("code", "not_read", "ceiling"),
    [
        ("from hockeystick.training import DPSGD", IMPORT_NOT_READ, IMPORT_CEILING),
        (README_ANSWER, NOT_READ, MODULE_CEILING),
    ],
    ids=["import", "answer"],
)
def test_the_readme_answer_loads_nothing_it_does_not_read(code, not_read, ceiling):
    loaded = _loaded_after(code)
    assert _heavy(loaded, not_read) == []
    ours = [m for m in loaded if m == "hockeystick" or m.startswith("hockeystick.")]
    assert len(ours) <= ceiling, f"{len(ours)} hockeystick modules: {ours}"


def test_every_name_of_the_lazy_packages_resolves():
    """Each public name of ``hockeystick.pld`` and ``hockeystick.training`` loads from its module on first use, is
    the module's own object, and is listed by ``dir``."""
    code = (
        "import importlib\n"
        "import hockeystick.pld as pld, hockeystick.training as training\n"
        "for package in (pld, training):\n"
        "    for name in package.__all__:\n"
        "        value = getattr(package, name)\n"
        "        assert name in dir(package), name\n"
        "        if name in getattr(package, '_NAMES', {}):\n"
        "            module = importlib.import_module(package.__name__ + '.' + package._NAMES[name])\n"
        "            assert getattr(module, name) is value, name\n"
        "from hockeystick.pld import *\n"
        "from hockeystick.training import *\n"
    )
    _loaded_after(code)


def test_a_missing_name_is_an_attribute_error():
    import hockeystick.pld as pld
    import hockeystick.training as training

    for package in (pld, training):
        with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
            package.not_a_name  # noqa: B018


def test_the_question_reader_is_installed_by_importing_any_pld_module():
    """Every door that composes PLD objects reads through the question stage: importing any module below
    ``hockeystick.pld`` runs the package's ``__init__``, which installs the reader before anything composes."""
    code = (
        "from hockeystick.pld.mechanisms.constructors import subsampled_gaussian\n"
        "from hockeystick.pld.grid import distribution\n"
        "assert distribution._question_reader.get('reader') is not None\n"
    )
    _loaded_after(code)


# the README's command line for the same run (README.md, docs/cli.md)
README_COMMAND = [
    "epsilon",
    "--noise-multiplier",
    "1.1",
    "--sample-rate",
    "0.0042667",
    "--steps",
    "14100",
]
CATALOGUE = "hockeystick.registry.catalogue"

# the other families of mechanisms, which the registry's catalogue names but a DP-SGD answer never reads
OTHER_FAMILIES = (
    "hockeystick.contraction",
    "hockeystick.fdp",
    "hockeystick.isrl",
    "hockeystick.leakage",
    "hockeystick.matrix",
    "hockeystick.secagg",
)


# modules the command line's one-point epsilon never reads: of the sweep package, its Dask runner, a file's
# checkpoints (and their hashes and ids) and labelled arrays, a sweep file's TOML; calibration, and the RDP side
# a calibration settles with; threads; the other subcommands' modules
NOT_ASKED_BY_ONE_POINT = (
    "hockeystick.sweep.dask",
    "hockeystick.sweep.checkpoint",
    "hockeystick.sweep.labelled",
    "tomllib",
    "hashlib",
    "uuid",
    "hockeystick.calibrate",
    "hockeystick.calibrate.individualized",
    "hockeystick.calibrate.training_runs",
    "hockeystick.calibrate.every_noise",
    "hockeystick.rdp",
    "concurrent.futures",
    "hockeystick.cli.sweep",
    "hockeystick.cli.calibrate",
    "hockeystick.cli.risk",
    "hockeystick.cli.audit",
    "hockeystick.cli.compose",
    "hockeystick.cli.plot",
    "hockeystick.cli.simulate",
    "hockeystick.cli.figures",
    "hockeystick.cli.accountants",
    "hockeystick.cli.demo",
)


def test_the_readme_command_line_loads_the_catalogue_module_of_its_run_alone():
    """``hockeystick epsilon`` for the README run looks its accountant (dp_sgd) up by name: the registry imports the
    catalogue module registering it (the training runs) and no other, nor the families the others name."""
    code = (
        "import json, sys\n"
        "from hockeystick.cli import main\n"
        f"status = main({[*README_COMMAND, '--delta', '1e-5']!r})\n"
        "print(json.dumps([status, sorted(sys.modules)]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    status, loaded = json.loads(done.stdout.splitlines()[-1])
    assert status == 0
    assert "2.38517" in done.stdout  # the README's answer
    catalogue = {m[len(CATALOGUE) + 1 :] for m in loaded if m.startswith(CATALOGUE + ".")}
    assert catalogue - {"calibratables"} == {
        "training_runs"
    }  # calibratables: shared ranges, no entries
    assert [m for m in loaded for f in OTHER_FAMILIES if m == f or m.startswith(f + ".")] == []
    # the sweep and calibration packages load a name's module on its first use: a one-point question runs no Dask,
    # writes no file and calibrates nothing; the command line imports the module of its subcommand alone
    assert [m for m in loaded if m in NOT_ASKED_BY_ONE_POINT] == []
