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
from ..base.accountant import Bound
from ..base.accountant_docs import accountant_docs
from ..base.elementwise import ArrayLike
from ..base.keyword_only import positional_deprecated
from ..fdp.gaussian_mechanism import GaussianMechanism
from ..pld.accountants import WithReplacementBatchGaussianPLD
from ..pld.grid import Result
from ..pld.mechanisms import DEFAULT_INTERVAL

__all__ = ["NoisyMBSGD", "OnePassNoisyMBSGD", "UserLevelNoisyMBSGD"]


MAX_DATASET_SIZE = (
    2.0**62
)  # the with-replacement PLD's bound on n (its lattice indices stay exact int64)


def _lipschitz(value: ArrayLike) -> np.ndarray:
    return _validation.positive(value, "lipschitz")


@accountant_docs()  # completes delta / epsilon docstrings with the contract's sections
class NoisyMBSGD:
    r"""Certified ISRL-DP of one silo in paper 003's Noisy MB-SGD: R rounds of K draws with replacement from n records.

    Each round the silo sends the mean of K clipped gradients (norm <= L), drawn uniformly with
    replacement from its n records, plus :math:`N(0, \sigma^2 I)`; replacing one record, one message
    is the with-replacement subsampled Gaussian mechanism with sensitivity L / K per draw
    (``pld.WithReplacementBatchGaussianPLD``), composed R times.  Partial participation only removes
    messages, so the bound stays an upper bound.  Methods:

    - ``delta(epsilon, bound="upper")``: certified bound on delta(epsilon), epsilon >= 0 (+inf
      allowed);
    - ``epsilon(delta, bound="upper")``: certified bound on epsilon(delta), delta strictly in (0,
      1).

    ``bound`` is ``"upper"``, ``"lower"`` (the value of a realizable configuration) or ``"both"``
    (the tuple ``(lower, upper)``); the argument broadcasts with the parameters, and a scalar gives
    a float (a pair of floats for ``"both"``). ValueError for an argument outside its range or
    another ``bound``.

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
    rounds : array_like
        Number of rounds R, a whole number >= 1.
    value_discretization_interval : float, default 1e-4
        Spacing of the privacy-loss grid, in (0, 100]; smaller is tighter and slower.
        All keyword-only; the first five broadcast together.

    Raises
    ------
    ValueError
        A parameter outside its rule above (the message names it), or shapes that do not broadcast.
    ParameterTypeError
        A parameter that is a string, bool or None.

    References
    ----------
    Paper 003, Algorithm 2, Definition 2 and Theorem 2.1; docs/paper-003-errata.md, sections 1-3.

    Examples
    --------
    >>> from hockeystick.isrl import NoisyMBSGD
    >>> silo = NoisyMBSGD(sigma=1.0, lipschitz=1.0, batch_size=10, silo_size=1000, rounds=10)
    >>> round(silo.epsilon(1e-5), 6)
    0.018797
    >>> [round(e, 6) for e in silo.epsilon(1e-5, bound="both")]
    [0.018122, 0.018797]
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

    @positional_deprecated("bound")
    def delta(self, epsilon: ArrayLike, *, bound: Bound = "upper") -> Result:
        """Certified bound on the silo's delta(epsilon) (upper unless ``bound`` says otherwise)."""
        targets = _validation.epsilon_values(
            epsilon
        )  # refused in the shared words, before the grid is built
        with _validation.derived("lipschitz / batch_size", "sensitivity"):
            return self._pld.delta(targets if np.ndim(epsilon) else float(targets), bound=bound)

    @positional_deprecated("bound")
    def epsilon(self, delta: ArrayLike, *, bound: Bound = "upper") -> Result:
        """Certified bound on the silo's epsilon(delta) (upper unless ``bound`` says otherwise)."""
        targets = _validation.delta_values(delta)
        with _validation.derived("lipschitz / batch_size", "sensitivity"):
            return self._pld.epsilon(targets if np.ndim(delta) else float(targets), bound=bound)


class OnePassNoisyMBSGD(GaussianMechanism):
    r"""Exact ISRL-DP of one silo in paper 003's one-pass Noisy MB-SGD: the Gaussian mechanism with sensitivity 2L/K.

    One pass in disjoint batches of K (Theorem 3.1): a record enters one message, whose mean moves
    by at most 2L/K, so the silo's transcript is the Gaussian mechanism released once,

    .. math::

        \mu = \frac{2L}{K \sigma}, \qquad \delta(\epsilon) = \theta(\mu, \epsilon).

    It is :class:`hockeystick.fdp.GaussianMechanism` with ``sensitivity = 2 * lipschitz /
    batch_size`` and ``rounds = 1``: its ``delta``/``epsilon`` (``bound``, ``threads``) and
    ``mu``/``mu_lower``.

    Parameters
    ----------
    sigma : array_like
        Standard deviation :math:`\sigma` of the Gaussian noise added to each message, finite and
        > 0.
    lipschitz : array_like
        Gradient norm bound L (the clipping norm, or the loss's Lipschitz constant), finite and > 0.
    batch_size : array_like
        Batch size K, a whole number >= 1.  All keyword-only; they broadcast together.

    Raises
    ------
    ValueError
        ``sigma`` or ``lipschitz`` not finite and > 0, ``batch_size`` not a whole number >= 1, or
        shapes that do not broadcast.
    ParameterTypeError
        A parameter that is a string, bool or None.

    References
    ----------
    Paper 003, Theorem 3.1; paper 000, eq. 6; paper 004, Lemma 7 (eq. 8).

    Examples
    --------
    >>> from hockeystick.isrl import OnePassNoisyMBSGD
    >>> silo = OnePassNoisyMBSGD(sigma=1.0, lipschitz=1.0, batch_size=10)
    >>> round(silo.epsilon(1e-5), 6)
    0.725522
    """

    def __init__(self, *, sigma: ArrayLike, lipschitz: ArrayLike, batch_size: ArrayLike) -> None:
        lip = _lipschitz(lipschitz)
        k = _validation.positive_integer(batch_size, "batch_size")
        with _validation.derived("2 lipschitz / batch_size", "sensitivity"):
            super().__init__(sigma=sigma, sensitivity=2 * lip / k, rounds=1)


class UserLevelNoisyMBSGD(GaussianMechanism):
    r"""Exact user-level privacy of paper 003's Noisy MB-SGD when a whole silo's data set is replaced.

    Every message's mean moves by at most 2L (App. C.2's question), so the R messages are the
    Gaussian mechanism with sensitivity 2L composed R times, exactly

    .. math::

        \mu = \frac{2 L \sqrt R}{\sigma}, \qquad \delta(\epsilon) = \theta(\mu, \epsilon),

    against group privacy's :math:`(n \epsilon_0, n e^{(n-1)\epsilon_0} \delta_0)`
    (:func:`hockeystick.isrl.user_level_group_privacy`).  It is
    :class:`hockeystick.fdp.GaussianMechanism` with ``sensitivity = 2 * lipschitz``: its
    ``delta``/``epsilon`` (``bound``, ``threads``) and ``mu``/``mu_lower``.

    Parameters
    ----------
    sigma : array_like
        Standard deviation :math:`\sigma` of the Gaussian noise added to each message, finite and
        > 0.
    lipschitz : array_like
        Gradient norm bound L (the clipping norm, or the loss's Lipschitz constant), finite and > 0.
    rounds : array_like
        Number of rounds R, a whole number >= 1.
        All keyword-only; they broadcast together.

    Raises
    ------
    ValueError
        ``sigma`` or ``lipschitz`` not finite and > 0, ``rounds`` not a whole number >= 1, or shapes
        that do not broadcast.
    ParameterTypeError
        A parameter that is a string, bool or None.

    References
    ----------
    Paper 003, Algorithm 2 and Appendix C.2; paper 004, Lemma 7 (eq. 8) and GDP composition.

    Examples
    --------
    >>> from hockeystick.isrl import UserLevelNoisyMBSGD
    >>> users = UserLevelNoisyMBSGD(sigma=10.0, lipschitz=1.0, rounds=4)
    >>> round(users.mu, 6), round(users.epsilon(1e-5), 6)
    (0.4, 1.554982)
    """

    def __init__(self, *, sigma: ArrayLike, lipschitz: ArrayLike, rounds: ArrayLike) -> None:
        lip = _lipschitz(lipschitz)
        with _validation.derived("2 lipschitz", "sensitivity"):
            super().__init__(sigma=sigma, sensitivity=2 * lip, rounds=rounds)
