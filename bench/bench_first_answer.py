"""The README run's answers as the gate judges them: a fresh process's first answer, and a warm answer at small delta.

``first_answer_cold``: a fresh interpreter imports hockeystick and prints the README DP-SGD run's certified epsilon
at delta = 1e-5, timed as a whole process (the CPU seconds of the child, ``clock="process"``) against a fresh
interpreter that imports numpy, the floor every numpy-based answer pays: the ratio falls when the package's import
or the cold answer grows.  ``warm_answer_small_delta``: the same run's certified epsilon at delta = 1e-10 in a
process that has answered once (each call a fresh run object) against dp_accounting's ``PLDAccountant`` at its
default grid on the same run.  bench/first_answer.py and bench/compare_rivals.py put both beside opake-accounting.
"""

from __future__ import annotations

import subprocess
from typing import Any

from ratio import Pair, Size, ratio
from readme_runs import README_RUN, fresh_process_env, hockeystick_code, python


def _printed(argv: list[str], env: dict[str, Any]) -> str:
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
    return done.stdout


@ratio(
    "first_answer_cold",
    title="a fresh process: import hockeystick.training and print the README DP-SGD run's certified epsilon at "
    "delta = 1e-5",
    anchor="a fresh process that imports numpy",
    table="first",
    unit="processes",
    clock="process",
)
def first_answer_cold(size: Size) -> Pair:
    env = fresh_process_env()
    ours = [python(), "-c", hockeystick_code(README_RUN, 1e-5)]
    anchor = [python(), "-c", "import numpy"]

    def check(printed: str, _anchor: str) -> None:
        from hockeystick.training import DPSGD

        here = DPSGD(
            noise_multiplier=README_RUN.noise_multiplier,
            sample_rate=README_RUN.sample_rate,
            steps=README_RUN.steps,
        ).epsilon(1e-5)
        assert float(printed) == float(here), (
            printed,
            here,
        )  # the fresh process's answer is this process's

    return Pair(ours=lambda: _printed(ours, env), anchor=lambda: _printed(anchor, env), check=check)


@ratio(
    "warm_answer_small_delta",
    title="the README DP-SGD run's certified epsilon at delta = 1e-10, warm (a fresh run object, the library "
    "loaded and answered once)",
    anchor="dp_accounting PLDAccountant, its default grid 1e-4, composed and read at delta = 1e-10",
    table="first",
    unit="answers",
    clock="cpu",
)
def warm_answer_small_delta(size: Size) -> Pair:
    import dp_accounting

    from hockeystick.training import DPSGD

    run = README_RUN

    def hockeystick_answer() -> float:
        return float(
            DPSGD(
                noise_multiplier=run.noise_multiplier, sample_rate=run.sample_rate, steps=run.steps
            ).epsilon(1e-10)
        )

    def dp_accounting_answer() -> float:
        event = dp_accounting.PoissonSampledDpEvent(
            run.sample_rate, dp_accounting.GaussianDpEvent(run.noise_multiplier)
        )
        accountant = dp_accounting.pld.PLDAccountant()
        accountant.compose(event, run.steps)
        return float(accountant.get_epsilon(1e-10))

    def check(upper: float, theirs: float) -> None:
        low, high = DPSGD(
            noise_multiplier=run.noise_multiplier, sample_rate=run.sample_rate, steps=run.steps
        ).epsilon(1e-10, bound="both")
        assert 0 < low <= high == upper <= low * (1 + 1e-3), (
            low,
            high,
            upper,
        )  # the default's accuracy
        assert abs(theirs - upper) <= 0.01 * upper, (theirs, upper)  # the same run

    return Pair(ours=hockeystick_answer, anchor=dp_accounting_answer, check=check)
