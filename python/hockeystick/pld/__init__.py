"""Numerical composition of discretized privacy-loss distributions with certified two-sided bounds.

    import hockeystick.pld as pld
    d = pld.subsampled_gaussian(sigma=1.0, sampling_rate=0.01).self_compose(10_000)
    d.epsilon(1e-5, bound="both")   # (certified lower bound, certified upper bound)

Modules: ``mechanisms`` (constructors), ``pmf`` (grid PMF and its hockey-stick
curve), ``compose`` (FFT composition with charged truncation and round-off),
``distribution`` (the PLD object), ``accountant`` (accountants over rounds),
``fixed_batch`` (accountants for fixed-size batches under replace-one), ``allocation_accountant``
(epochs of balls-in-bins and of shuffled batches); exact finite pairs in
``canonical`` (any (eps, delta)-DP mechanism), ``randomized_response``, ``discrete_laplace``;
location mixtures with a monotone loss (``monotone``: one atom per loss cell) in
``gaussian_mixture`` (dp_accounting's mixture of Gaussians) and ``laplace_mixture``
(Poisson-subsampled Laplace); ``subsampling`` (Poisson sampling of any finite dominating pair),
``subsampled_pair`` (Poisson and fixed-size sampling, with or without replacement, of any mechanism
given by certified curves),
``pld_mixture`` (a mechanism chosen at random), ``truncated_subsampling`` (truncated Poisson
batches) and ``random_allocation`` (balls-in-bins: each record in one uniformly chosen step of an epoch).
"""

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
