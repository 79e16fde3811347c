"""Numerical composition of discretized privacy-loss distributions with certified two-sided bounds.

    import hockeystick.pld as pld
    d = pld.subsampled_gaussian(sigma=1.0, sampling_rate=0.01).self_compose(10_000)
    d.epsilon(1e-5, bound="both")   # (certified lower bound, certified upper bound)

Laid out as its pipeline (docs/architecture.md, "The PLD pipeline"), each stage importing only the
ones before it, the C++ core's stages under the same names: ``grid`` (the types every stage passes
on: the grid PMF, finite atoms, the PLD object), ``mechanisms`` (one round: the constructors, exact
finite pairs, location mixtures, a mechanism chosen at random, group privacy), ``sampling`` (how a
record enters a round: Poisson, fixed size, with replacement, truncated, balls-in-bins), ``compose``
(FFT composition with charged truncation and round-off, finite pairs composed exactly), ``reads``
(what a composed PLD answers: the epsilon width, delta near 1, the bracket along a run), ``refine``
(the grid-and-tail policy and grids chosen for an accuracy), ``accountants`` (the front ends: the
subsampled Gaussian over rounds, fixed-size batches, epochs of balls-in-bins and of shuffled
batches, composition plans) and ``question`` (the run a composed PLD describes, read where the
question puts it).
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

from . import compose as compose  # installs the composition every PrivacyLossDistribution runs
from . import question as question

# SubsampledGaussianPLD's module installs the question reader every PrivacyLossDistribution consults
from .accountants import subsampled_gaussian as _front_door  # noqa: F401

if TYPE_CHECKING:
    from .accountants.allocation import BallsInBinsGaussianPLD, ShuffledBatchGaussianPLD
    from .accountants.fixed_batch import FixedBatchGaussianPLD, WithReplacementBatchGaussianPLD
    from .accountants.subsampled_gaussian import PLDAccountant, SubsampledGaussianPLD
    from .grid.distribution import PrivacyLossDistribution
    from .mechanisms.canonical import eps_delta_dp
    from .mechanisms.constructors import (
        fixed_size_subsampled_gaussian,
        from_distributions,
        gaussian,
        laplace,
        subsampled_gaussian,
        with_replacement_subsampled_gaussian,
    )
    from .mechanisms.discrete_laplace import discrete_laplace
    from .mechanisms.gaussian_mixture import mixture_of_gaussians
    from .mechanisms.laplace_mixture import laplace_mixture, subsampled_laplace
    from .mechanisms.pld_mixture import mixture
    from .mechanisms.randomized_response import randomized_response
    from .sampling.random_allocation import random_allocation_gaussian
    from .sampling.subsampling import poisson_subsampled
    from .sampling.truncated_subsampling import truncated_subsampled_gaussian

# Each public name comes from its module on first use (PEP 562): a front end imports the stages it
# reads (the question reader's front door above, which every PrivacyLossDistribution consults, and
# what it imports), not the whole pipeline.
_NAMES = {
    "BallsInBinsGaussianPLD": "accountants.allocation",
    "ShuffledBatchGaussianPLD": "accountants.allocation",
    "FixedBatchGaussianPLD": "accountants.fixed_batch",
    "WithReplacementBatchGaussianPLD": "accountants.fixed_batch",
    "PLDAccountant": "accountants.subsampled_gaussian",
    "SubsampledGaussianPLD": "accountants.subsampled_gaussian",
    "PrivacyLossDistribution": "grid.distribution",
    "eps_delta_dp": "mechanisms.canonical",
    "fixed_size_subsampled_gaussian": "mechanisms.constructors",
    "from_distributions": "mechanisms.constructors",
    "gaussian": "mechanisms.constructors",
    "laplace": "mechanisms.constructors",
    "subsampled_gaussian": "mechanisms.constructors",
    "with_replacement_subsampled_gaussian": "mechanisms.constructors",
    "discrete_laplace": "mechanisms.discrete_laplace",
    "mixture_of_gaussians": "mechanisms.gaussian_mixture",
    "laplace_mixture": "mechanisms.laplace_mixture",
    "subsampled_laplace": "mechanisms.laplace_mixture",
    "mixture": "mechanisms.pld_mixture",
    "randomized_response": "mechanisms.randomized_response",
    "random_allocation_gaussian": "sampling.random_allocation",
    "poisson_subsampled": "sampling.subsampling",
    "truncated_subsampled_gaussian": "sampling.truncated_subsampling",
}


def __getattr__(name: str) -> Any:
    if name in _NAMES:
        value = getattr(importlib.import_module(f".{_NAMES[name]}", __name__), name)
        globals()[name] = value  # later lookups find it without coming here
        return value
    if not name.startswith("__") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_NAMES})


__all__ = [
    "BallsInBinsGaussianPLD",
    "ShuffledBatchGaussianPLD",
    "FixedBatchGaussianPLD",
    "PLDAccountant",
    "PrivacyLossDistribution",
    "SubsampledGaussianPLD",
    "discrete_laplace",
    "eps_delta_dp",
    "WithReplacementBatchGaussianPLD",
    "fixed_size_subsampled_gaussian",
    "from_distributions",
    "gaussian",
    "laplace",
    "laplace_mixture",
    "mixture",
    "mixture_of_gaussians",
    "poisson_subsampled",
    "random_allocation_gaussian",
    "randomized_response",
    "subsampled_laplace",
    "truncated_subsampled_gaussian",
    "subsampled_gaussian",
    "with_replacement_subsampled_gaussian",
]
