"""Certified ISRL-DP accounting of paper 003's algorithms: what a silo's transcript really spends.

ISRL-DP (Lowy & Razaviyayn, Def. 2): each silo's transcript, its R messages, is (eps0, delta0)-DP
with respect to replacing one of that silo's n records; the other silos' messages are independent
of that record, so the silo's guarantee is the R-fold composition of one message.

``NoisyMBSGD`` (Alg. 2): per round the silo draws K of its n records WITH replacement and sends
the mean of their clipped gradients (norm <= L) plus N(0, sigma^2 I): one message is
``pld.with_replacement_subsampled_gaussian(sigma, K, n, sensitivity=L/K)`` (proved upper pair,
realizable lower pair; docs/paper-003-errata.md, section 2).  Partial participation (M_r < N
silos per round) only removes messages, so the R-fold composition stays an upper bound.

``OnePassNoisyMBSGD`` (Thm 3.1): disjoint batches of K, one pass, R = floor(n/K): a record enters
one message, whose mean moves by at most 2L/K, so the silo is exactly the Gaussian mechanism
with sensitivity 2L/K, once (delta = theta(2L/(K sigma), eps), paper 000 eq. 6).

``UserLevelNoisyMBSGD`` (App. C.2's question, answered tightly): replacing a silo's whole data set
moves every message's mean by at most 2L, so the R messages are the Gaussian mechanism with
sensitivity 2L composed R times: exact, mu = sqrt(R) 2L / sigma, against group privacy's
(n eps0, n e^{(n-1) eps0} delta0).
"""

from __future__ import annotations

import numpy as np

from ..base import validation as _validation
from ..base.elementwise import ArrayLike
from ..fdp.gaussian_mechanism import GaussianMechanism
from ..pld.accountants.fixed_batch import WithReplacementBatchGaussianPLD
from ..pld.compose.distribution import Bound, Result
from ..pld.mechanisms.constructors import DEFAULT_INTERVAL

__all__ = ["NoisyMBSGD", "OnePassNoisyMBSGD", "UserLevelNoisyMBSGD"]


MAX_DATASET_SIZE = 2.0**62  # the with-replacement PLD's bound on n (its lattice indices stay exact int64)


def _lipschitz(value: ArrayLike) -> np.ndarray:
    return _validation.positive(value, "lipschitz")


class NoisyMBSGD:
    """Paper 003 Alg. 2, one silo's ISRL-DP: R rounds of K draws with replacement from n records.

    Parameters (broadcast): ``sigma`` (noise standard deviation of each message), ``lipschitz``
    (L), ``batch_size`` (K, may exceed n), ``silo_size`` (n), ``rounds`` (R).
    ``.delta(epsilon)`` / ``.epsilon(delta)``: certified upper bounds (``bound="lower"`` / ``"both"``).
    """

    def __init__(
        self,
        *,
        sigma: ArrayLike,
        lipschitz: ArrayLike,
        batch_size: ArrayLike,
        silo_size: ArrayLike,
        rounds: ArrayLike,
        value_discretization_interval: float = DEFAULT_INTERVAL,
    ) -> None:
        lip = _lipschitz(lipschitz)
        k = _validation.positive_integer(batch_size, "batch_size")
        n = _validation.positive_integer(silo_size, "silo_size", maximum=MAX_DATASET_SIZE)
        with _validation.derived("lipschitz / batch_size", "sensitivity"):
            self._pld = WithReplacementBatchGaussianPLD(
                sigma=sigma,
                batch_size=batch_size,
                n=n,
                rounds=rounds,
                sensitivity=lip / k,
                value_discretization_interval=value_discretization_interval,
            )

    def delta(self, epsilon: ArrayLike, bound: Bound = "upper") -> Result:
        """Certified bound on the silo's delta(epsilon) (upper unless ``bound`` says otherwise)."""
        targets = _validation.epsilon_values(epsilon)  # refused in the shared words, before the grid is built
        with _validation.derived("lipschitz / batch_size", "sensitivity"):
            return self._pld.delta(targets if np.ndim(epsilon) else float(targets), bound)

    def epsilon(self, delta: ArrayLike, bound: Bound = "upper") -> Result:
        """Certified bound on the silo's epsilon(delta) (upper unless ``bound`` says otherwise)."""
        targets = _validation.delta_values(delta)
        with _validation.derived("lipschitz / batch_size", "sensitivity"):
            return self._pld.epsilon(targets if np.ndim(delta) else float(targets), bound)


class OnePassNoisyMBSGD(GaussianMechanism):
    """Paper 003 Thm 3.1, one silo's ISRL-DP: one pass in disjoint batches of K, exactly the
    Gaussian mechanism with sensitivity 2L/K released once: delta(eps) = theta(2L/(K sigma), eps)."""

    def __init__(self, *, sigma: ArrayLike, lipschitz: ArrayLike, batch_size: ArrayLike) -> None:
        lip = _lipschitz(lipschitz)
        k = _validation.positive_integer(batch_size, "batch_size")
        with _validation.derived("2 lipschitz / batch_size", "sensitivity"):
            super().__init__(sigma=sigma, sensitivity=2 * lip / k, rounds=1)


class UserLevelNoisyMBSGD(GaussianMechanism):
    """Paper 003 Alg. 2 with a whole silo replaced (user-level DP, App. C.2): every message's mean
    moves by at most 2L, so R rounds are exactly mu = sqrt(R) 2L / sigma GDP (paper 004 eq. 8)."""

    def __init__(self, *, sigma: ArrayLike, lipschitz: ArrayLike, rounds: ArrayLike) -> None:
        lip = _lipschitz(lipschitz)
        with _validation.derived("2 lipschitz", "sensitivity"):
            super().__init__(sigma=sigma, sensitivity=2 * lip, rounds=rounds)
