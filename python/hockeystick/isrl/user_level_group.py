"""User-level privacy of paper 003's Noisy MB-SGD for a user holding k of a silo's n records (App. C.2, k < n).

Neighbours: the user's k records of one silo are all replaced.  Each round the silo draws K indices
uniformly WITH replacement (Alg. 2) and sends the mean of their clipped gradients (norm <= L) plus
N(0, sigma^2 I).  Claim: for k dividing n this is, round by round, exactly the replace-one mechanism
of a silo of n / k records, so ``pld.WithReplacementBatchGaussianPLD(sigma, K, n / k, R,
sensitivity=L / K)`` certifies both sides of the user's bracket.

Proof.  Each draw independently hits the user's records with probability k / n = 1 / (n / k), as a
draw of a silo of n / k records hits one given record; the number of hits is c ~ Binomial(K, k/n).
A hit moves the mean by at most 2L/K (old and new gradients both of norm <= L, scaled 1/K),
whichever of the k records it lands on.  Both upper bounds of the replace-one accountant use nothing
else: (*) couples the hits with fresh draws (Balle, Barthe & Gaboardi 2018, advanced joint
convexity), and the shift-constrained curve conditions on the non-hit draws Z (Schuchardt et al.
2024).  Here we also condition on an i.i.d. sequence A of group indices (the j-th hit lands on
record A_j), independent of c and coupled between the neighbours.  Given (Z, A) the two outputs are
b_c-mixtures of N(mu_c) and N(nu_c) with mu_0 = nu_0 and |mu_c|, |nu_c|, |mu_c - nu_c| <= 2cL/K: the
same constraints as for one record, and joint convexity removes (Z, A).  The lower side is realized
by a group: the other records' gradients at w, the user's old ones at w + 2L e_1 and new ones at w.
(At k = n every draw hits, c = K: the Gaussian mechanism with sensitivity 2L, as in
``UserLevelNoisyMBSGD``.)

Group privacy (paper 003 App. C.2; Kamath 2020, Thm 10) instead turns the silo's (eps0, delta0)
ISRL-DP into (k eps0, k e^{(k-1) eps0} delta0) (``paper_calibrations.user_level_group_privacy``).
"""

from __future__ import annotations

import numpy as np

from ..base import validation as _validation
from ..base.accountant import Bound
from ..base.accountant_docs import accountant_docs
from ..base.elementwise import ArrayLike, broadcast_float_arrays
from ..base.keyword_only import positional_deprecated
from ..pld.accountants import WithReplacementBatchGaussianPLD
from ..pld.grid import Result
from ..pld.mechanisms import DEFAULT_INTERVAL
from .noisy_mb_sgd import MAX_DATASET_SIZE

__all__ = ["GroupNoisyMBSGD"]


@accountant_docs()  # completes delta / epsilon docstrings with the contract's sections
class GroupNoisyMBSGD:
    r"""Certified privacy of a user holding k of a silo's n records in paper 003's Noisy MB-SGD (k divides n).

    All k records of the user are replaced.  For k dividing n this is, round by round, the
    replace-one mechanism of a silo of n / k records (proof in docs/paper-003-errata.md, section 6),
    so it is
    ``pld.WithReplacementBatchGaussianPLD(sigma, K, n / k, R, sensitivity=L / K)``, both sides
    certified.  Group privacy instead gives :math:`(k \epsilon_0, k e^{(k-1)\epsilon_0} \delta_0)`.
    Methods:

    - ``delta(epsilon, bound="upper")``: certified bound on delta(epsilon), epsilon >= 0 (+inf
      allowed);
    - ``epsilon(delta, bound="upper")``: certified bound on epsilon(delta), delta strictly in (0,
      1).

    ``bound`` is ``"upper"``, ``"lower"`` (the value of a realizable configuration: the other
    records' gradients at w, the user's old ones at w + 2L e_1 and new ones at w) or ``"both"`` (the
    tuple ``(lower, upper)``); the argument broadcasts with the parameters, and a scalar gives a
    float (a pair of floats for ``"both"``). ValueError for an argument outside its range or another
    ``bound``.

    Parameters
    ----------
    sigma : array_like
        Standard deviation :math:`\sigma` of the Gaussian noise added to each message, finite and
        > 0.
    lipschitz : array_like
        Gradient norm bound L (the clipping norm, or the loss's Lipschitz constant), finite and > 0.
    batch_size : array_like
        Draws K per round, with replacement (may exceed n), a whole number >= 1.
    silo_size : array_like
        Records n in the silo, a whole number >= 1 and <= 2^62.
    group_size : array_like
        Records k the user holds in the silo, a whole number >= 1 that divides ``silo_size``.
    rounds : array_like
        Number of rounds R, a whole number >= 1.
    value_discretization_interval : float, default 1e-4
        Spacing of the privacy-loss grid, in (0, 100]; smaller is tighter and slower.
        All keyword-only; the first six broadcast together.

    Raises
    ------
    ValueError
        A parameter outside its rule above (the message names it), ``group_size`` not dividing
        ``silo_size``, or shapes that do not broadcast.
    ParameterTypeError
        A parameter that is a string, bool or None.

    References
    ----------
    Paper 003, Algorithm 2 and Appendix C.2; Kamath 2020, Theorem 10; Balle, Barthe & Gaboardi 2018;
    Schuchardt et al. 2024; docs/paper-003-errata.md, section 6.

    Examples
    --------
    >>> from hockeystick.isrl import GroupNoisyMBSGD
    >>> user = GroupNoisyMBSGD(sigma=1.0, lipschitz=1.0, batch_size=10, silo_size=1000, group_size=5, rounds=10)
    >>> round(user.epsilon(1e-5), 6)
    0.11132
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
            silo_size=_validation.positive_integer(
                silo_size, "silo_size", maximum=MAX_DATASET_SIZE
            ),
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

    @positional_deprecated("bound")
    def delta(self, epsilon: ArrayLike, *, bound: Bound = "upper") -> Result:
        """Certified bound on the user's delta(epsilon) (upper unless ``bound`` says otherwise)."""
        targets = _validation.epsilon_values(
            epsilon
        )  # refused in the shared words, before the grid is built
        with _validation.derived("lipschitz / batch_size", "sensitivity"):
            return self._pld.delta(targets if np.ndim(epsilon) else float(targets), bound=bound)

    @positional_deprecated("bound")
    def epsilon(self, delta: ArrayLike, *, bound: Bound = "upper") -> Result:
        """Certified bound on the user's epsilon(delta) (upper unless ``bound`` says otherwise)."""
        targets = _validation.delta_values(delta)
        with _validation.derived("lipschitz / batch_size", "sensitivity"):
            return self._pld.epsilon(targets if np.ndim(delta) else float(targets), bound=bound)
