r"""User-level privacy of Poisson-sampled DP-SGD when each user holds k examples: the binomial mixture of Gaussians.

DP-SGD samples examples, not users: each of a user's k examples joins a step's batch independently
with probability q, each contributes a gradient clipped to norm 1 (in units of the clip norm C), and
the step adds N(0, sigma^2 I) to the batch's sum.  Removing the user removes the J ~ Binom(k, q) of
its examples the batch drew, a vector of norm at most J.  The step is dominated, under add-or-remove
of a user, by the scalar pair

    remove:  P = sum_{j=0..k} Binom(j; k, q) N(j, sigma^2)   vs   Q = N(0, sigma^2);   add: the pair swapped

(Ganesh, "Tight group-level privacy for DP-SGD", 2024; Charles, Ganesh, McKenna, McMahan, Mitchell,
Pillutla, Rush, "Fine-tuning large language models with user-level differential privacy", 2025, Sec.
3): the mixture-of-Gaussians mechanism of Choquette-Choo, Ganesh, Steinke & Thakurta (ICLR 2024,
Sec. 4) with sensitivities j and weights Binom(j; k, q), a vector mixture being dominated by the
scalar one of its norms (their Cor. 4.7) and a larger sensitivity by a larger shift.  k = 1 is the
Poisson-subsampled Gaussian.

The loss L(x) = log sum_j w_j exp((j x - j^2 / 2) / sigma^2) is non-decreasing, so the core's
monotone discretizer (cpp/include/hockeystick/pld/mechanisms/gaussian_mixture.hpp's
``GaussianMixture::from_log_weights`` over monotone.hpp) cuts it with certified pessimistic and
optimistic sides.  The weights enter as logarithms (``scipy.stats``' binomial log-pmf).  The counts
outside [J_lo, J_hi], each tail of probability at most tail / 8, are merged into one component:
upward on the pessimistic side (the lower tail onto J_lo, the upper onto k; raising a shift gives a
dominating pair), downward on the optimistic side (onto 0 and J_hi; a dominated pair), so the sum
has few terms and both sides stay certified.  The x-range is [-z sigma, J_hi + z sigma], z =
Q^{-1}(tail / 8); the mass of P and of Q beyond it is computed from every component kept and put at
loss +infinity on the pessimistic side.
"""

from __future__ import annotations

import numpy as np

from ... import _core
from ...base import validation as _validation
from ..grid.distribution import Factor, PrivacyLossDistribution
from ..grid.tail import DEFAULT_TAIL
from ..mechanisms.constructors import (
    DEFAULT_INTERVAL,
    MAX_CELLS,
    _positive,
    checked_interval,
    checked_tail,
    from_distributions,
)
from ..mechanisms.monotone import core_side_factor

__all__ = ["examples_per_user_gaussian"]

# more examples per user than this make every loss evaluation a sum of as many terms: refused
MAX_EXAMPLES_PER_USER = 100_000


def binomial_components(
    k: int, q: float, cut: float, *, upper: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The shifts and log-weights of the mixture with the binomial's tails beyond [J_lo, J_hi]
    merged (each tail at most ``cut``): upward for the pessimistic side (the lower tail onto J_lo,
    the upper onto k: larger shifts dominate), downward for the optimistic side (the lower tail onto
    0, the upper onto J_hi: dominated)."""
    from scipy import stats  # lazy: scipy loads at its first use, not with the package

    lo = int(max(0.0, float(stats.binom.ppf(cut, k, q))))  # P(count < lo) <= cut
    hi = int(min(k, max(0.0, float(stats.binom.isf(cut, k, q)))))  # P(count > hi) <= cut
    counts = np.arange(lo, hi + 1, dtype=np.float64)
    log_w = np.asarray(stats.binom.logpmf(counts, k, q), dtype=np.float64)
    below = float(stats.binom.logcdf(lo - 1, k, q)) if lo > 0 else -np.inf
    above = float(stats.binom.logsf(hi, k, q)) if hi < k else -np.inf
    if upper:
        log_w[0] = np.logaddexp(log_w[0], below)
        counts, log_w = np.append(counts, float(k)), np.append(log_w, above)
    else:
        log_w[-1] = np.logaddexp(log_w[-1], above)
        counts, log_w = np.append(0.0, counts), np.append(below, log_w)
    kept = np.isfinite(log_w)
    return counts[kept], log_w[kept]


def examples_per_user_sides(
    sigma: float, q: float, k: int, tail: float, h: float, name: str, *, upper: bool
) -> tuple[Factor, Factor]:
    """The remove and add factors of the module docstring's pair (its tails merged as
    ``binomial_components`` says for the side ``upper``) on [-z sigma, J_hi + z sigma], z =
    Q^{-1}(tail / 8), cut in the core (``_core.pld_sampling.gaussian_mixture_log_weights``): the
    range stops short of the upper side's merged component at k (weight at most tail / 8), whose
    mass beyond it goes to +infinity with the cut tails."""
    cut = tail / 8.0
    counts, log_w = binomial_components(k, q, cut, upper=upper)
    if (
        not counts.max() > 0.0
    ):  # the optimistic side of a rate below the cut keeps count 0 alone: one law, loss 0
        ((same, _),) = (
            from_distributions([1.0], [1.0], value_discretization_interval=h, symmetric=True)
            .directions[0]
            .items()
        )
        return same, same
    inner = counts[counts < k] if upper and counts.size > 1 else counts
    top = float(max(inner.max(), 1.0))
    remove, add = _core.pld_sampling.gaussian_mixture_log_weights(
        sigma=sigma, shifts=counts, log_weights=log_w, cut=cut, top=top, h=h, max_cells=MAX_CELLS
    )
    return core_side_factor(f"{name}, remove", remove), core_side_factor(f"{name}, add", add)


def examples_per_user_gaussian(
    sigma: float,
    sampling_rate: float,
    examples_per_user: int,
    *,
    value_discretization_interval: float = DEFAULT_INTERVAL,
    tail: float = DEFAULT_TAIL,
) -> PrivacyLossDistribution:
    r"""Discretized remove and add PLDs of one DP-SGD step for a user holding k examples (Poisson sampling).

    Each example joins the batch with probability q; removing the user moves the noised sum by at
    most the count J ~ Binom(k, q) of its examples drawn (in units of the clip norm), so the step is
    dominated by

    .. math::

        \text{remove: } P = \sum_{j=0}^{k} \binom{k}{j} q^j (1-q)^{k-j}\, \mathcal N(j, \sigma^2)
        \text{ vs } Q = \mathcal N(0, \sigma^2), \qquad \text{add: the pair swapped}

    (Ganesh 2024; Charles et al. 2025, Sec. 3; the mixture of Gaussians of Choquette-Choo et al.
    2024, Sec. 4), discretized with certified pessimistic and optimistic sides (the core's monotone
    discretizer).  k = 1 is the Poisson-subsampled Gaussian (``subsampled_gaussian``).

    Parameters
    ----------
    sigma : float
        Noise multiplier: the noise's standard deviation over the clip norm, finite and > 0.
    sampling_rate : float
        q, each example's probability of joining a step's batch, 0 < q <= 1.
    examples_per_user : int
        k, the most examples one user holds, a whole number 1 <= k <= 100000.
    value_discretization_interval : float, optional
        Spacing h of the loss grid, 0 < h <= 100 (default 1e-4).
    tail : float, optional
        Probability mass each end of the x-range may leave out, 1e-300 <= tail < 1e-3 (default
        1e-15); the mass left out is charged at loss +infinity on the pessimistic side.

    Returns
    -------
    PrivacyLossDistribution
        The remove and the add direction.

    Raises
    ------
    ValueError
        ``sigma`` not finite and > 0; ``sampling_rate`` outside (0, 1]; ``examples_per_user`` not a
        whole number in [1, 100000]; ``value_discretization_interval`` outside (0, 100]; ``tail``
        outside [1e-300, 1e-3).
    ParameterTypeError
        A string, bool or None for a number.

    References
    ----------
    Ganesh 2024, "Tight group-level privacy for DP-SGD"; Charles et al. 2025, "Fine-tuning large
    language models with user-level differential privacy", Sec. 3; Choquette-Choo, Ganesh, Steinke &
    Thakurta 2024, Sec. 4 and Cor. 4.7.

    Examples
    --------
    >>> from hockeystick.pld.sampling.examples_per_user import examples_per_user_gaussian
    >>> d = examples_per_user_gaussian(1.0, 0.01, 4)
    >>> f"{d.delta(1.0):.4g}"
    '1.232e-05'
    """
    sd = _positive("sigma", sigma)
    q = _positive("sampling_rate", sampling_rate)
    if q > 1.0:
        raise ValueError(f"sampling_rate must be in (0, 1], got {q!r}")
    k = checked_examples_per_user(examples_per_user)
    h = checked_interval(value_discretization_interval)
    t = checked_tail(tail)
    name = f"examples_per_user_gaussian(sigma={sd}, q={q}, k={k})"
    pessimistic = examples_per_user_sides(sd, q, k, t, h, name, upper=True)
    optimistic = examples_per_user_sides(sd, q, k, t, h, name, upper=False)
    remove, add = (
        Factor(f.name, f.upper, g.lower, f.connect_dots) for f, g in zip(pessimistic, optimistic)
    )
    return PrivacyLossDistribution([{remove: 1}, {add: 1}], t)


def checked_examples_per_user(value: object) -> int:
    """k, a whole number in [1, ``MAX_EXAMPLES_PER_USER``], refused naming ``examples_per_user``."""
    k = float(
        _validation.positive_integer(
            _validation.single(value, "examples_per_user"), "examples_per_user"
        )
    )
    if k > MAX_EXAMPLES_PER_USER:
        raise ValueError(
            f"examples_per_user must be at most {MAX_EXAMPLES_PER_USER} (each loss evaluation sums one term per "
            f"count of the user's examples in a batch), got {k:g}"
        )
    return int(k)
