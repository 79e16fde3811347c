"""Numerical composition of discretized privacy-loss distributions with certified two-sided bounds.

    import hockeystick.pld as pld
    d = pld.subsampled_gaussian(sigma=1.0, sampling_rate=0.01).self_compose(10_000)
    d.epsilon(1e-5, bound="both")   # (certified lower bound, certified upper bound)

Modules: ``mechanisms`` (constructors), ``pmf`` (grid PMF and its hockey-stick
curve), ``compose`` (FFT composition with charged truncation and round-off),
``distribution`` (the PLD object), ``accountant`` (accountants over rounds),
``fixed_batch`` (accountants for fixed-size batches under replace-one).
"""

from .accountant import PLDAccountant, SubsampledGaussianPLD
from .distribution import PrivacyLossDistribution
from .fixed_batch import FixedBatchGaussianPLD, WithReplacementBatchGaussianPLD
from .mechanisms import (
    fixed_size_subsampled_gaussian,
    from_distributions,
    gaussian,
    laplace,
    subsampled_gaussian,
    with_replacement_subsampled_gaussian,
)

__all__ = [
    "FixedBatchGaussianPLD",
    "PLDAccountant",
    "PrivacyLossDistribution",
    "SubsampledGaussianPLD",
    "WithReplacementBatchGaussianPLD",
    "fixed_size_subsampled_gaussian",
    "from_distributions",
    "gaussian",
    "laplace",
    "subsampled_gaussian",
    "with_replacement_subsampled_gaussian",
]
