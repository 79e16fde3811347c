r"""Against an observer who does not learn the cohorts, when each sampled client adds its own noise share.

The pipeline (TensorFlow Federated's distributed DP): each round's cohort is a Poisson sample, each
client in it with probability q, and every sampled client adds its own noise share to the sum.  With
S the others' sampled sum and k the number of their surviving noise shares, the round on
neighbouring inputs (one client's update x against its update replaced by zero) is

.. math::

    P = q\,(S + x + N_{k+1}) + (1 - q)\,(S + N_k) \quad\text{against}\quad
    Q = q\,(S + N_{k+1}) + (1 - q)\,(S + N_k),

N_j the sum of j shares.  The round without the client holds one share fewer than the round with it,
so this is not the pair (1 - q) Q' + q P' against Q' that Poisson subsampling's amplification bounds
take (Zhu & Wang 2019: the unsampled law must be the one the client's absence gives, and here its
absence changes the noise; across d coordinates an observer tells N_{k+1} from N_k by their
variance).

* Upper side (``shares_sampled_rdp``), by joint convexity.  For alpha > 1, sum_y P(y)^alpha
  Q(y)^(1 - alpha) is jointly convex in (P, Q): (p, q) -> p^alpha q^(1 - alpha) is the perspective of the
  convex t -> t^alpha. Both laws are mixtures with the same weights, over the others' cohort and
  then over the client's sampling, of the components (S + x + N_{k+1}, S + N_{k+1}) (weight q) and
  (S + N_k, S + N_k) (weight 1 - q).  The first has Rényi divergence at most eps(alpha), the round's
  curve with the client in the cohort (k + 1 noises, at least the ``min_surviving_clients`` n the
  curve is taken at, where more noise is a post-processing); the second 0.  So

  .. math::

      D_\alpha(P \,\|\, Q) \le \frac{1}{\alpha - 1}\log\bigl(1 - q + q\,e^{(\alpha - 1)\varepsilon(\alpha)}\bigr),

  linear in q for small q (the revealed-participation pair's), not quadratic as for a fixed number of shares.
  The same holds with P and Q exchanged (the components' divergence in that direction is bounded by the same
  curve: the RDP bounds are symmetric in the shift's sign).
* Lower side (``shares_pair_pld``): one scenario the assumptions allow, exactly n other clients
  surviving with S = 0 (their updates zero), the pair above on the shifted coordinate alone
  (dropping the other coordinates is a post-processing, which lowers every divergence): q
  (N_{n+1} + k) + (1 - q) N_n against q N_{n+1} + (1 - q) N_n, k the realizable integer shift, its exact
  lattice PLD (masses lowered on P's side and raised on Q's by their error bounds, outcomes outside
  the computed windows dropped), read on its optimistic side.

The lower side here reads the shifted coordinate alone; over d >= 2 coordinates the accountants read
the pair through the others' spread too (``observer_spread``), and the upper side also by the number
of participations (``observer_participations``).
"""

from __future__ import annotations

import numpy as np

from ..pld.grid import PrivacyLossDistribution
from ..pld.mechanisms import checked_interval, pair_factor
from .lattice_pld import Masses

__all__ = ["shares_pair_pld", "shares_sampled_rdp", "window_masses"]

UNIT_ROUNDOFF = 2.0**-53


def shares_sampled_rdp(curve: np.ndarray, orders: np.ndarray, rate: float) -> np.ndarray:
    r"""One round's Rényi divergence against an observer when each sampled client adds its own noise share.

    By joint convexity (module docstring), at each order alpha > 1,

    .. math::

        \varepsilon'(\alpha) \le \frac{1}{\alpha - 1}\log\bigl(1 - q + q\,e^{(\alpha - 1)\varepsilon(\alpha)}\bigr),

    eps(alpha) the round's curve with the client in the cohort.  log1p and expm1 are within an ulp
    each, the products and the quotient one rounding each: the value is widened by 8u relative, then
    one ulp.

    Parameters
    ----------
    curve : numpy.ndarray
        eps(alpha) at ``orders``, each >= 0 (``inf`` allowed).
    orders : numpy.ndarray
        The orders, each > 1.
    rate : float
        q in (0, 1], the client's probability of joining the round's cohort.

    Returns
    -------
    numpy.ndarray
        The bound at each order, rounded up.

    Raises
    ------
    ValueError
        ``rate`` outside (0, 1].

    Notes
    -----
    (p, q) -> p^alpha q^(1 - alpha) is the perspective of the convex t -> t^alpha, so sum_y
    P(y)^alpha Q(y)^(1 - alpha) = e^{(alpha - 1) D_alpha(P || Q)} is jointly convex, and the two
    mixtures share their weights.

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick.secagg.observer_shares import shares_sampled_rdp
    >>> float(shares_sampled_rdp(np.array([1.0]), np.array([2.0]), 1.0)[0]) >= 1.0
    True
    """
    if not 0.0 < rate <= 1.0:
        raise ValueError(f"rate must lie in (0, 1], got {rate!r}")
    with np.errstate(over="ignore"):
        value = np.log1p(rate * np.expm1((orders - 1.0) * curve)) / (orders - 1.0)
    return np.asarray(np.nextafter(value * (1.0 + 8.0 * UNIT_ROUNDOFF), np.inf), dtype=float)


def window_masses(masses: Masses, start: int, stop: int, raised: bool) -> np.ndarray:
    """The masses on the outcomes start .. stop - 1 (inside the window), lowered by their relative
    error or raised by it (and by the bound on the truncated tails' mass, where the masses carry
    one).

    Parameters
    ----------
    masses : tuple
        (x0, masses, errors, outside) of a noise (``lattice_pld.ddg_sum_masses`` or
        ``skellam_masses``).
    start, stop : int
        The outcomes' range, inside the window.
    raised : bool
        Raised (an upper bound on each mass) or lowered (a lower bound).

    Returns
    -------
    numpy.ndarray
        stop - start masses.
    """
    x0, m, r, outside = masses
    part, error = m[start - x0 : stop - x0], r[start - x0 : stop - x0]
    if not raised:
        return np.maximum(part * (1.0 - error), 0.0)
    return part * (1.0 + error) + (outside or 0.0)


def shares_pair_pld(
    fewer: Masses, more: Masses, shift: int, rate: float, interval: float
) -> PrivacyLossDistribution:
    """A realizable round on one coordinate when each sampled client adds its own noise share (module docstring).

    P = q (N_{n+1} + k) + (1 - q) N_n against Q = q N_{n+1} + (1 - q) N_n, on the outcomes where the
    three masses are computed (the rest dropped, which lowers every hockey-stick divergence), P's
    masses lowered and Q's raised by their relative errors (and by 4u for the mixture's roundings),
    so that the grid PLD's optimistic side is a lower bound on the pair's.  The masses are not
    renormalised: P's sum below 1 and Q's above it (or below it, by the dropped outcomes) only lower
    sum_y (p(y) - e^eps q(y))_+.

    Parameters
    ----------
    fewer : tuple
        (x0, masses, errors, outside) of N_n, the n shares of a round without the client
        (``secagg.lattice_pld.ddg_sum_masses`` or ``skellam_masses``).
    more : tuple
        The same of N_{n+1}, the round with it.
    shift : int
        k >= 1, the client's integer shift on the coordinate.
    rate : float
        q in (0, 1].
    interval : float
        The PLD grid's spacing.

    Returns
    -------
    PrivacyLossDistribution
        One direction; its optimistic side (``bound="lower"``) is a certified lower bound.

    Raises
    ------
    ValueError
        The windows hold fewer than two common outcomes, or ``interval`` outside (0, 100].

    Examples
    --------
    >>> from hockeystick.secagg.lattice_pld import skellam_masses
    >>> from hockeystick.secagg.observer_shares import shares_pair_pld
    >>> pair = shares_pair_pld(skellam_masses(25.0, 2), skellam_masses(30.0, 2), 2, 0.5, 1e-4)
    >>> 0.0 < pair.delta(0.1, bound="lower") < 1.0
    True
    """
    start = max(fewer[0], more[0] + shift, more[0])
    stop = min(fewer[0] + fewer[1].size, more[0] + more[1].size)
    if stop - start < 2:
        raise ValueError(
            "the noise's window holds too few outcomes for the shift: no certified lower side"
        )
    p = rate * window_masses(more, start - shift, stop - shift, False) + (
        1.0 - rate
    ) * window_masses(fewer, start, stop, False)
    q = rate * window_masses(more, start, stop, True) + (1.0 - rate) * window_masses(
        fewer, start, stop, True
    )
    h = checked_interval(interval)
    factor = pair_factor(
        p * (1.0 - 4.0 * UNIT_ROUNDOFF), q * (1.0 + 4.0 * UNIT_ROUNDOFF), "shares_pair", h, False
    )
    return PrivacyLossDistribution([{factor: 1}])
