"""User-level privacy of paper 003's Noisy MB-SGD for a user holding k of a silo's n records (App. C.2, k < n).

Neighbours: the user's k records of one silo are all replaced.  Each round the silo draws K indices
uniformly WITH replacement (Alg. 2) and sends the mean of their clipped gradients (norm <= L) plus
N(0, sigma^2 I).  Claim: for k dividing n this is, round by round, exactly the replace-one mechanism
of a silo of n / k records, so ``pld.WithReplacementBatchGaussianPLD(sigma, K, n / k, R,
sensitivity=L / K)`` certifies both sides of the user's bracket.

Proof.  Each draw independently hits the user's records with probability k / n = 1 / (n / k), as a
draw of a silo of n / k records hits one given record; the number of hits is c ~ Binomial(K, k/n).  A
hit moves the mean by at most 2L/K (old and new gradients both of norm <= L, scaled 1/K), whichever
of the k records it lands on.  Both upper bounds of the replace-one accountant use nothing else:
(*) couples the hits with fresh draws (Balle, Barthe & Gaboardi 2018, advanced joint convexity),
and the shift-constrained curve conditions on the non-hit draws Z (Schuchardt et al. 2024).  Here we
also condition on an i.i.d. sequence A of group indices (the j-th hit lands on record A_j),
independent of c and coupled between the neighbours.  Given (Z, A) the two outputs are b_c-mixtures
of N(mu_c) and N(nu_c) with mu_0 = nu_0 and |mu_c|, |nu_c|, |mu_c - nu_c| <= 2cL/K: the same
constraints as for one record, and joint convexity removes (Z, A).  The lower side is realized by a
group: the other records' gradients at w, the user's old ones at w + 2L e_1 and new ones at w.
(At k = n every draw hits, c = K: the Gaussian mechanism with sensitivity 2L, as in
``UserLevelNoisyMBSGD``.)

Group privacy (paper 003 App. C.2; Kamath 2020, Thm 10) instead turns the silo's (eps0, delta0)
ISRL-DP into (k eps0, k e^{(k-1) eps0} delta0) (``paper_calibrations.user_level_group_privacy``).
"""

from __future__ import annotations

import numpy as np

from ..base import validation as _validation
from ..base.elementwise import ArrayLike, broadcast_float_arrays
from ..pld.accountants.fixed_batch import WithReplacementBatchGaussianPLD
from ..pld.compose.distribution import Bound, Result
from ..pld.mechanisms.constructors import DEFAULT_INTERVAL
from .noisy_mb_sgd import MAX_DATASET_SIZE

__all__ = ["GroupNoisyMBSGD"]


class GroupNoisyMBSGD:
    """Paper 003 Alg. 2, privacy of a user holding ``group_size`` = k of a silo's ``silo_size`` = n records
    (k must divide n), R rounds of ``batch_size`` = K draws with replacement (module docstring).

    ``.delta(epsilon)`` / ``.epsilon(delta)``: certified upper bounds; ``bound="lower"`` / ``"both"`` for
    the certified lower side (a realizable configuration).  Parameters broadcast.
    """

    def __init__(
        self,
        *,
        sigma: ArrayLike,
        lipschitz: ArrayLike,
        batch_size: ArrayLike,
        silo_size: ArrayLike,
        group_size: ArrayLike,
        rounds: ArrayLike,
        value_discretization_interval: float = DEFAULT_INTERVAL,
    ) -> None:
        (lip, k, n, g), _, _ = broadcast_float_arrays(
            lipschitz=_validation.positive(lipschitz, "lipschitz"),
            batch_size=_validation.positive_integer(batch_size, "batch_size"),
            silo_size=_validation.positive_integer(silo_size, "silo_size", maximum=MAX_DATASET_SIZE),
            group_size=_validation.positive_integer(group_size, "group_size"),
        )
        bad = ~((g <= n) & (np.mod(n, g) == 0))
        if np.any(bad):
            raise ValueError(
                f"group_size must divide silo_size (a draw then hits the group with probability "
                f"1/(silo_size/group_size)), got {g[bad].ravel()[0]:g} and {n[bad].ravel()[0]:g}"
            )
        with _validation.derived("lipschitz / batch_size", "sensitivity"):
            self._pld = WithReplacementBatchGaussianPLD(
                sigma=sigma,
                batch_size=k,
                n=n / g,
                rounds=rounds,
                sensitivity=lip / k,
                value_discretization_interval=value_discretization_interval,
            )

    def delta(self, epsilon: ArrayLike, bound: Bound = "upper") -> Result:
        """Certified bound on the user's delta(epsilon) (upper unless ``bound`` says otherwise)."""
        targets = _validation.epsilon_values(epsilon)  # refused in the shared words, before the grid is built
        with _validation.derived("lipschitz / batch_size", "sensitivity"):
            return self._pld.delta(targets if np.ndim(epsilon) else float(targets), bound)

    def epsilon(self, delta: ArrayLike, bound: Bound = "upper") -> Result:
        """Certified bound on the user's epsilon(delta) (upper unless ``bound`` says otherwise)."""
        targets = _validation.delta_values(delta)
        with _validation.derived("lipschitz / batch_size", "sensitivity"):
            return self._pld.epsilon(targets if np.ndim(delta) else float(targets), bound)
