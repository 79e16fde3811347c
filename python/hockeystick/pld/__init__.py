"""Numerical composition of discretized privacy-loss distributions with certified two-sided bounds.

    import hockeystick.pld as pld
    d = pld.subsampled_gaussian(sigma=1.0, sampling_rate=0.01).self_compose(10_000)
    d.epsilon(1e-5, bound="both")   # (certified lower bound, certified upper bound)

Laid out as its pipeline (docs/architecture.md, "The PLD pipeline"), each stage importing only the ones before
it: ``compose`` (grid PMFs, FFT composition with charged truncation and round-off, the PLD object, finite pairs
composed exactly), ``mechanisms`` (one round: the constructors, exact finite pairs, location mixtures, a mechanism
chosen at random, group privacy), ``reads`` (what a composed PLD answers: the epsilon width, delta near 1, the
bracket along a run), ``sampling`` (how a record enters a round: Poisson, fixed size, with replacement,
truncated, balls-in-bins), ``grid`` (what every grid needs, fixed or refined), ``refine`` (grids chosen for an
accuracy) and ``accountants`` (the front ends: the subsampled Gaussian over rounds, fixed-size batches, epochs
of balls-in-bins and of shuffled batches, composition plans).
"""

from . import question as question  # installs the question reader every PrivacyLossDistribution consults
from .accountants.allocation import BallsInBinsGaussianPLD, ShuffledBatchGaussianPLD
from .accountants.fixed_batch import FixedBatchGaussianPLD, WithReplacementBatchGaussianPLD
from .accountants.subsampled_gaussian import PLDAccountant, SubsampledGaussianPLD
from .compose.distribution import PrivacyLossDistribution
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
