"""The rounds of a Poisson-sampled training run (``training.DPSGD`` / ``DPFedAvg``), as a ledger records them.

Each step of such a run is one Poisson-subsampled Gaussian of the step's noise multiplier over its
sensitivity and its sampling rate; a run in stages gives one block per stage.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base.validation import describe

__all__: list[str] = []  # its name serves ``ledger.py`` (``PrivacyLedger.from_run``)


def poisson_run_rounds(run: Any) -> list[tuple[float, float, int]]:
    """(noise multiplier over the sensitivity, sampling rate, steps) of each stage of a Poisson-sampled run.

    Read from the run's public ``sampling`` and ``accountant`` (its ``stages``, or its ``sigma``,
    ``sampling_rate``, ``rounds`` and ``sensitivity`` of one point).

    Parameters
    ----------
    run : DPSGD or DPFedAvg
        One run (single values of its parameters), with ``sampling="poisson"``.

    Returns
    -------
    list of (float, float, int)
        One entry per stage, in the order run.

    Raises
    ------
    ValueError
        If ``run`` is not a training run, draws its batches otherwise than by Poisson sampling, or
        is several runs (array parameters).
    """
    sampling = getattr(run, "sampling", None)
    if sampling is None or not hasattr(run, "accountant"):
        raise ValueError(f"run must be a training run (DPSGD or DPFedAvg), got {describe(run)}")
    if sampling != "poisson":
        raise ValueError(
            f'from_run records Poisson-sampled runs, got sampling="{sampling}": its steps are not independent '
            "subsampled Gaussian rounds; account it with the run itself (run.epsilon)"
        )
    accountant = run.accountant
    stages = getattr(accountant, "stages", None)
    if stages is not None:
        return [(float(s.noise_multiplier), float(s.sample_rate), int(s.steps)) for s in stages]
    sigma, rate, steps, sensitivity = (
        np.ravel(getattr(accountant, name))
        for name in ("sigma", "sampling_rate", "rounds", "sensitivity")
    )
    runs = max(sigma.size, rate.size, steps.size, sensitivity.size)
    if runs != 1:
        raise ValueError(
            f"from_run records one run, got {runs} (the run's parameters are arrays, which broadcast into separate "
            "runs): build one ledger per run, or one run in stages with stages="
        )
    return [(float(sigma[0] / sensitivity[0]), float(rate[0]), int(steps[0]))]
