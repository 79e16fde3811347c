r"""The distributed discrete Gaussian: RDP of the sum of n clients' discrete Gaussian noises.

Each of n clients adds N_Z(0, s^2)^d (s the discrete Gaussian's sigma in integer units) to its
integer vector; the sum of n such noises is not a discrete Gaussian, but close to N_Z(0, n s^2).
For an integer shift Delta with ||Delta||_2 <= Delta_2 and ||Delta||_1 <= Delta_1, Kairouz, Liu &
Steinke 2021 (ICML; KLS21), Prop. 14 (Eq. 17; Thm. 1 states its zCDP form), for every order alpha >=
1 and s >= 1/2:

.. math::

    D_\alpha \le \min\Bigl(\frac{\alpha}{2} A^2 + \tau d,\quad
        \frac{\alpha}{2}\bigl(A^2 + 2 B \tau + \tau^2 d\bigr),\quad
        \frac{\alpha}{2}\bigl(A + \tau\sqrt d\bigr)^2\Bigr),

    A = \frac{\Delta_2}{\sqrt n\, s},\quad B = \frac{\Delta_1}{\sqrt n\, s},\quad
    \tau = 10 \sum_{k=1}^{n-1} e^{-2\pi^2 s^2 k / (k+1)}.

At n = 1 (tau = 0) this is the discrete Gaussian's alpha Delta_2^2 / (2 s^2) (Canonne, Kamath &
Steinke 2020). The numbers (Prop. 14, Eq. 17, Thm. 1, Prop. 22) are those of arXiv:2102.06387, as
google-research/federated's ``distributed_dp/accounting_utils.py`` cites them ("Proposition 14 / Eq.
17 (Page 16)"); the ICML proceedings number the statements otherwise.

Dropout.  The noise that protects a round is that of the clients who survive it.  The bound is not
monotone in n (tau grows with n), but the noise of n survivors is that of any n' <= n of them plus
independent noise, a post-processing, so the sum of n noises is at least as private as the sum of n'
(Rényi divergence's data-processing inequality): the certified curve is the minimum over n' <= n,
order by order.  n' runs over every count up to 4096 and over 512 geometrically spaced counts and n
above (a minimum over fewer n' is still an upper bound).

Rounding.  tau's terms are positive and summed in order: within (n + 4) u relative (Higham 2002,
Sec. 4.2), and each term underflowing to 0 (an exponent below -745) is charged 2^-1074 more; each
curve value carries a dozen roundings of non-negative terms and is widened by 64 u relative, then
one ulp.
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np
import numpy.typing as npt

from ..base.validation import count, positive_number
from ..rdp.mechanisms import check_orders

__all__ = ["MAX_CLIENTS", "MIN_SIGMA", "distributed_discrete_gaussian_rdp", "tau"]

UNIT_ROUNDOFF = 2.0**-53
MIN_SIGMA = 0.5  # KLS21, Thm. 1 and Prop. 14 hold for s >= 1/2
MAX_CLIENTS = 10**7  # tau's terms are summed one by one
_EVERY_COUNT = 4096
_GEOMETRIC_COUNTS = 512
_CHUNK = 1 << 16  # tau's terms summed a block at a time


def _survivor_counts(clients: int) -> np.ndarray:
    """The counts n' <= n the minimum runs over (module docstring)."""
    if clients <= _EVERY_COUNT:
        return np.arange(1, clients + 1)
    grid = np.unique(np.geomspace(1, clients, _GEOMETRIC_COUNTS).astype(np.int64))
    return np.unique(np.concatenate([np.arange(1, _EVERY_COUNT + 1), grid, [clients]]))


def tau(sigma: float, clients: int) -> np.ndarray:
    """tau(n') = 10 sum_{k=1}^{n'-1} e^{-2 pi^2 s^2 k / (k+1)} for n' = 1 .. n, rounded up (module docstring).

    Parameters
    ----------
    sigma : float
        s, the one-client discrete Gaussian's sigma in integer units, >= 1/2.
    clients : int
        n, 1 <= n <= ``MAX_CLIENTS``.

    Returns
    -------
    numpy.ndarray
        tau(1) = 0, ..., tau(n), each an upper bound.

    Raises
    ------
    ValueError
        If ``sigma`` is below 1/2 or not finite, or ``clients`` not an integer in [1,
        ``MAX_CLIENTS``].

    References
    ----------
    Kairouz, Liu & Steinke 2021, Thm. 1.

    Examples
    --------
    >>> from hockeystick.secagg.distributed_discrete_gaussian import tau
    >>> float(tau(1.0, 3)[-1]) > 0.0, float(tau(1.0, 1)[0])
    (True, 0.0)
    """
    s = _sigma(sigma)
    n = count(clients, "min_surviving_clients", maximum=MAX_CLIENTS)
    return _tau_at(s, n, np.arange(n))


def _tau_at(s: float, n: int, index: np.ndarray) -> np.ndarray:
    """tau(index + 1) for ascending indices in [0, n), as ``tau`` gives them: its terms summed in
    order, ``_CHUNK`` at a time (each chunk's cumulative sum starting from the sum before it, the
    same additions in the same order), so that no array of n values but the answer is made."""
    out = np.empty(index.size)
    grow = 1.0 + (n + 4) * UNIT_ROUNDOFF
    total, underflows = 0.0, 0  # tau's sum and its count of underflowed terms before the chunk
    taken = 0  # the indices answered so far
    for first in range(0, n, _CHUNK):  # the chunk's tau(first + 1), ..., its sums up to k = first
        stop = min(first + _CHUNK, n)
        wanted = index[taken : taken + int(np.searchsorted(index[taken:], stop))]
        k = np.arange(max(first, 1), stop, dtype=np.float64)
        exponent = -2.0 * math.pi**2 * s * s * k / (k + 1.0)
        terms = np.exp(exponent)
        if first == 0:  # tau(1) = 0: the empty sum
            sums = np.concatenate([[0.0], terms])
            counted = np.concatenate([[0], exponent < -745.0]).astype(np.int64)
        else:
            sums = terms
            counted = (exponent < -745.0).astype(np.int64)
        sums[0] += total
        counted[0] += underflows
        sums, counted = np.cumsum(sums), np.cumsum(counted)
        total, underflows = float(sums[-1]), int(counted[-1])
        at = wanted - first
        widened = sums[at] * grow + counted[at] * math.ulp(0.0)
        out[taken : taken + wanted.size] = np.where(
            widened > 0.0, np.nextafter(10.0 * widened * (1.0 + 2.0 * UNIT_ROUNDOFF), np.inf), 0.0
        )
        taken += wanted.size
    return out


def _sigma(sigma: float) -> float:
    s = positive_number(sigma, "local_sigma")
    if s < MIN_SIGMA:
        raise ValueError(
            f"local_sigma / granularity must be >= {MIN_SIGMA} (KLS21's bound holds for a discrete Gaussian sigma of "
            f"at least 1/2 in integer units), got {s!r}; use a larger local_sigma or a finer granularity"
        )
    return s


def _prop14(
    alpha: np.ndarray, counts: np.ndarray, taus: np.ndarray, s: float, d2: float, d1: float, d: int
) -> np.ndarray:
    """KLS21, Prop. 14 at each order, minimised over the given survivor counts, ``taus`` their tau
    (module docstring)."""
    t = taus[:, None]
    root = np.sqrt(counts.astype(np.float64))[:, None] * s
    a, b = d2 / root, d1 / root
    half_alpha = alpha[None, :] / 2.0
    first = half_alpha * a * a + t * d
    second = half_alpha * (a * a + 2.0 * b * t + t * t * d)
    third = half_alpha * np.square(a + t * math.sqrt(d))
    return cast(np.ndarray, np.minimum(np.minimum(first, second), third).min(axis=0))


def distributed_discrete_gaussian_rdp(
    sigma: float,
    clients: int,
    l2: float,
    l1: float,
    dimension: int,
    orders: npt.ArrayLike | None = None,
) -> np.ndarray:
    r"""The RDP curve of one round of the distributed discrete Gaussian, minimised over n' <= n, rounded up.

    KLS21, Prop. 14 (the module docstring's formula) at every count n' <= n of survivors, the
    minimum taken order by order.

    Parameters
    ----------
    sigma : float
        s, each client's discrete Gaussian sigma in integer units, >= 1/2.
    clients : int
        n, the clients whose noise is in the sum (the minimum surviving), 1 <= n <= 10^7.
    l2 : float
        Delta_2, the integer shift's L2 bound, finite and > 0.
    l1 : float
        Delta_1, its L1 bound, finite and > 0.
    dimension : int
        d, >= 1.
    orders : array_like, optional
        Rényi orders, finite, in (1, 10^4]; default the library's ``DEFAULT_ORDERS``.

    Returns
    -------
    numpy.ndarray
        The curve at each order, each value an upper bound on the round's Rényi divergence.

    Raises
    ------
    ValueError
        If an argument breaks its rule (``local_sigma`` below 1/2 names the fix).

    References
    ----------
    Kairouz, Liu & Steinke 2021, Prop. 14 and Thm. 1; google-research/federated,
    distributed_dp/accounting_utils.py (``compute_rdp_dgaussian``, at one n).

    Examples
    --------
    >>> from hockeystick.secagg import distributed_discrete_gaussian_rdp
    >>> distributed_discrete_gaussian_rdp(10.0, 1, 20.0, 400.0, 1000, [2.0]).round(9)
    array([4.])
    """
    s = _sigma(sigma)
    n = count(clients, "min_surviving_clients", maximum=MAX_CLIENTS)
    d2, d1 = positive_number(l2, "l2"), positive_number(l1, "l1")
    d = count(dimension, "dimension")
    alpha = check_orders(orders)
    counts = _survivor_counts(n)  # ascending, n last
    taus = _tau_at(s, n, counts - 1)
    at_n = _prop14(alpha, counts[-1:], taus[-1:], s, d2, d1, d)
    # every term is >= (alpha / 2) A(n')^2: a count with A(n')^2 >= 2 curve(alpha) / alpha at every
    # order cannot lower the curve, and is skipped
    kept = np.square(d2 / (np.sqrt(counts) * s)) < float((2.0 * at_n / alpha).max())
    counts, taus = counts[kept], taus[kept]
    curve = np.minimum(at_n, _prop14(alpha, counts, taus, s, d2, d1, d)) if counts.size else at_n
    return cast(np.ndarray, np.nextafter(curve * (1.0 + 64.0 * UNIT_ROUNDOFF), np.inf))
