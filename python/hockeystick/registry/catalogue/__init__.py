"""The registry's catalogue: every accountant and calculator the package registers, by the family of
mechanisms, and which module registers which name.

A module of the catalogue is imported the first time one of its names is asked for (``load``), so
that a command reading one accountant imports that accountant's module and not every family's;
listing the entries imports every module (``load_all``), in the order of ``MODULES``, which is the
order of the listing.
"""

from __future__ import annotations

import importlib
import threading

from ...training.sampling_schemes import sampling_schemes

__all__ = ["MODULES", "OWNER", "load", "load_all"]

# module -> the names it registers, in the order it registers them; the modules in the order of the
# listing. tests/registry/test_lazy_catalogue.py checks that each module registers exactly these
# names.
MODULES: dict[str, tuple[str, ...]] = {
    "accountants": (
        "gaussian",
        "trusted_aggregator",
        "trusted_aggregator_nonconvex",
        "trusted_aggregator_strongly_convex",
        "trusted_aggregator_random_stop",
        "pnsgd_gaussian",
        "pnsgd_laplace",
        "pnsgd_renyi_baseline",
        "gdp",
        "noisy_fedavg",
        "noisy_fedavg_cyclic",
        "noisy_fedavg_stagewise",
        "noisy_fedavg_continuous",
        "noisy_fedprox",
        "pnsgd_random_stop",
        "trusted_aggregator_inverse_time",
        "trusted_aggregator_schedule",
        "trusted_aggregator_random_stop_schedule",
        "rdp_subsampled_gaussian",
        "pld_fixed_batch_gaussian",
        "pld_with_replacement_gaussian",
        "pld_subsampled_gaussian",
    ),
    # each sampling scheme's DP-SGD and DP-FedAvg runs (training.sampling_schemes)
    "training_runs": tuple(
        f"{run}{scheme.suffix}" for scheme in sampling_schemes() for run in ("dp_sgd", "dp_fedavg")
    ),
    "record_level_runs": (
        "record_level_fedavg",
        "random_checkins",
    ),
    "matrix_mechanisms": (
        "dp_ftrl_tree",
        "dp_ftrl_tree_restart",
        "dp_ftrl_blt",
        "dp_ftrl_banded",
        "amplified_banded_mf",
    ),
    "isrl_silos": (
        "isrl_noisy_mb_sgd",
        "isrl_one_pass",
        "isrl_group_noisy_mb_sgd",
        "isrl_shuffled_noisy_mb_sgd",
        "isrl_user_level",
    ),
    "leakage_calculators": (
        "leakage_tv",
        "leakage_js",
        "leakage_tv_lemma_5_7_lower",
        "leakage_tv_lemma_5_7_upper",
        "leakage_distortion_lemma_5_8",
        "leakage_js_bound_lemma_b3",
        "leakage_sampling_variance",
        "leakage_nfl_floor",
    ),
    "secure_aggregation": (
        "distributed_discrete_gaussian",
        "distributed_discrete_gaussian_observer",
        "distributed_skellam",
        "distributed_skellam_observer",
        "distributed_discrete_laplace",
        "distributed_discrete_laplace_observer",
        "poisson_binomial",
        "poisson_binomial_observer",
    ),
}

# name -> the module of the catalogue that registers it
OWNER: dict[str, str] = {name: module for module, names in MODULES.items() for name in names}

# One thread imports catalogue modules at a time.  CPython's import takes a submodule's lock before its
# package's: a thread importing ``rdp.mechanisms`` while another runs ``rdp/__init__`` (which imports it) can
# hold the lock the other waits for, and the import system raises _DeadlockError in one of them.  Re-entrant:
# a module being imported asks the registry whether a name is taken, on the same thread.
_IMPORTING = threading.RLock()


def load(name: object) -> None:
    """Import the catalogue module that registers ``name``, or every module when the table names none for it.

    Parameters
    ----------
    name : object
        The name asked for (an accountant's or a calculator's).

    Returns
    -------
    None
        The module's entries are in the registry afterwards (importing registers them).

    Notes
    -----
    A name the table does not give imports every module, so that an entry is never missed: the
    answer for an unregistered name (every name listed in the refusal) needs them all anyway.  Safe
    from threads: one thread imports at a time (``_IMPORTING``), the others wait for it, and a module
    being imported by this thread (a module that registers a name, asking whether it is taken) is
    returned as it stands.
    """
    module = OWNER.get(name) if isinstance(name, str) else None
    if module is None:
        load_all()
        return
    with _IMPORTING:
        importlib.import_module(f"{__name__}.{module}")


def load_all() -> None:
    """Import every module of the catalogue, in the order of the listing.

    Returns
    -------
    None
        Every entry of the catalogue is in the registry afterwards.
    """
    with _IMPORTING:
        for module in MODULES:  # an imported module is returned from ``sys.modules`` at once
            importlib.import_module(f"{__name__}.{module}")
