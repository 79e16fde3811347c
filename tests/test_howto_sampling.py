"""docs/howto-sampling.md followed once: a sampling scheme registered in this file is reached from every door.

The toy is fixed-size batches under another word, ``toy_fixed_size``: its accountant is the package's
``pld.FixedBatchGaussianPLD`` (replace-one), built from the run's noise, batch, population and steps, so each
door's answer for it is checked against the same door's answer for ``sampling="fixed_size"`` (the same
doubles: the same PLD is composed), and its certified bracket against its own direction (lower <= upper).
Nothing outside this file names it: the training run, the catalogue, the command line and ``risk`` read the
scheme registry (``training/sampling_schemes.py``).
"""

from __future__ import annotations

import contextlib
import io
import typing
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from hockeystick import risk, training
from hockeystick.cli import main
from hockeystick.registry import REGISTRY
from hockeystick.registry.catalogue.training_runs import register_training_runs
from hockeystick.training.sampling_schemes import (
    SamplingScheme,
    register_sampling,
    sampling_scheme,
    sampling_schemes,
    sampling_words,
    unregister_sampling,
)

WORD = "toy_fixed_size"
RUN = dict(noise_multiplier=1.1, dataset_size=1000, batch_size=100, epochs=2)
DELTA = 1e-5


def toy_batches(z: Any, m: Any, n: Any, t: Any, per_epoch: Any, grid: dict[str, Any]) -> Any:
    """Fixed-size batches of m among n records, t steps: the package's replace-one accountant."""
    from hockeystick.pld import FixedBatchGaussianPLD

    return FixedBatchGaussianPLD(sigma=z, batch_size=m, n=n, rounds=t, **grid)


@pytest.fixture(scope="module")
def toy() -> Iterator[SamplingScheme]:
    """The toy scheme, registered for this module's tests with its catalogue runs, then removed."""
    scheme = register_sampling(
        SamplingScheme(
            word=WORD,
            accountant="FixedBatchGaussianPLD",
            relation="replace_one",
            how="toy fixed-size batches, replace-one PLD",
            cli_help="toy_fixed_size (fixed_size under another word; replace one)",
            drawn_batches=toy_batches,
        )
    )
    # the catalogue registers the schemes known when it loads; one registered later adds its runs
    register_training_runs(scheme)
    try:
        yield scheme
    finally:
        for run in ("dp_sgd", "dp_fedavg"):
            del REGISTRY[f"{run}{scheme.suffix}"]
        unregister_sampling(WORD)


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_the_training_vocabulary_takes_the_word_and_runs_its_accountant(toy):
    assert WORD in sampling_words() and sampling_scheme(WORD) is toy
    run = training.DPSGD(sampling=WORD, **RUN)
    same = training.DPSGD(sampling="fixed_size", **RUN)
    assert type(run.accountant) is type(same.accountant)
    assert run.steps == same.steps == 20
    got = run.epsilon(DELTA, bound="both")
    assert got == same.epsilon(DELTA, bound="both")  # (lower, upper), the same doubles
    assert 0.0 < got[0] <= got[1]  # the bracket's direction


def test_the_type_checkers_literal_names_the_package_s_registered_words(toy):
    package = tuple(s.word for s in sampling_schemes() if s is not toy)
    assert typing.get_args(training.Sampling) == package == training.SAMPLINGS


def test_the_scheme_s_relation_decides_the_replace_one_words(toy):
    # replace-one: z read over the sensitivity 2C is accepted (as for fixed_size), and halves the noise read
    doubled = training.DPSGD(sampling=WORD, noise_relative_to="replace_one_sensitivity", **RUN)
    assert doubled.noise_multiplier.item() == 2.2
    # not every record in each epoch: Opacus's 1 / q steps per epoch is taken
    assert training.DPSGD(sampling=WORD, steps_per_epoch="opacus", **RUN).steps == 20
    with pytest.raises(ValueError, match="sample_rate"):  # drawn batches: no rate
        training.DPSGD(sampling=WORD, noise_multiplier=1.1, sample_rate=0.1, epochs=2)


def test_the_command_line_offers_the_word_and_answers_as_fixed_size(toy):
    args = ["epsilon", "--dataset-size", "1000", "--batch-size", "100", "--epochs", "2"]
    args += ["--noise-multiplier", "1.1", "--delta", "1e-5", "--format", "csv", "--sampling"]
    code, out, err = _cli([*args, WORD])
    assert code == 0, err
    assert out == _cli([*args, "fixed_size"])[1]
    value = float(out.strip().splitlines()[-1].split(",")[-1])
    assert value == training.DPSGD(sampling="fixed_size", **RUN).epsilon(DELTA)
    help_out = io.StringIO()
    with contextlib.redirect_stdout(help_out), pytest.raises(SystemExit):
        main(["epsilon", "--help"])
    assert WORD in help_out.getvalue()


def test_the_catalogue_entry_is_the_training_run(toy):
    entry = REGISTRY[f"dp_sgd_{WORD}"]
    assert "toy fixed-size batches" in entry.summary and "tail" in entry.hidden
    assert "batch_size" in entry.calibratable and "sample_rate" not in entry.calibratable
    got = entry.factory(**RUN).epsilon(DELTA)
    assert got == training.DPSGD(sampling="fixed_size", **RUN).epsilon(DELTA)


def test_risk_reads_the_directions_of_a_replace_one_scheme(toy):
    run = training.DPSGD(sampling=WORD, **RUN)
    same = training.DPSGD(sampling="fixed_size", **RUN)
    fpr = [0.01, 0.1]
    symmetric = risk.tpr_at_fpr(run, fpr)
    for direction in ("remove", "add"):  # replace-one: each direction is the symmetric profile
        np.testing.assert_array_equal(risk.tpr_at_fpr(run, fpr, direction=direction), symmetric)
    np.testing.assert_array_equal(symmetric, risk.tpr_at_fpr(same, fpr))
    assert np.all(symmetric >= np.asarray(fpr))  # an attacker does at least as well as chance


def test_a_second_scheme_of_the_word_and_a_misspelled_word_are_refused(toy):
    with pytest.raises(ValueError, match="already registered"):
        register_sampling(toy)
    with pytest.raises(ValueError, match="did you mean 'toy_fixed_size'"):
        sampling_scheme("toy_fixed_sise")
    with pytest.raises(ValueError, match="relation must be"):
        register_sampling(
            SamplingScheme(word="toy_other", accountant="X", relation="both", how="", cli_help="")  # type: ignore[arg-type]
        )


def test_the_page_counts_five_files_and_each_exists():
    """The page says a scheme touches five files of the package, its items 1 to 5 name them (each exists),
    and its item 6, interop, adds no other file."""
    import re
    from pathlib import Path

    import hockeystick

    page = (Path(__file__).resolve().parents[1] / "docs" / "howto-sampling.md").read_text()
    assert "touches five files of the package" in " ".join(page.split())
    items = dict(re.findall(r"^(\d)\. \*\*([^\n]*?)\*\*", page, re.M))
    paths = [re.search(r"`([\w/.]+)`", items[str(n)]) for n in range(1, 6)]
    assert all(paths), items
    package = Path(hockeystick.__file__).parent
    missing = [m.group(1) for m in paths if m and not (package / m.group(1).rstrip("/")).exists()]
    assert not missing, missing
    assert "no other file" in items["6"], items["6"]
