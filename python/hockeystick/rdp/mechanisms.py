"""Renyi DP of the Gaussian and the Poisson-subsampled Gaussian mechanism (sensitivity 1), in log space.

Gaussian, noise multiplier sigma:  eps(alpha) = alpha / (2 sigma^2)  (Mironov 2017, Prop. 7).

Poisson-subsampled Gaussian, rate q:  eps(alpha) = log A_alpha / (alpha - 1) with
(Mironov, Talwar, Zhang 2019, "Renyi DP of the sampled Gaussian mechanism", Sec. 3)

  integer alpha:     A = sum_{i=0}^{alpha} C(alpha, i) (1-q)^{alpha-i} q^i exp((i^2 - i) / (2 sigma^2))
  fractional alpha:  A = sum_{i>=0} |C(alpha, i)| [ q^i (1-q)^{alpha-i} e^{(i^2-i)/(2 sigma^2)} Phi((z0-i)/sigma)
                                                  + q^{alpha-i} (1-q)^i e^{(j^2-j)/(2 sigma^2)}
                                                    Phi((j-z0)/sigma) ],
                     j = alpha - i, z0 = sigma^2 log(1/q - 1) + 1/2.

Every term is a log (log_ndtr for Phi, gammaln for the binomials) and sums are log-sum-exp, so
nothing overflows at large orders or small sigma.  The generalised binomials C(alpha, i) alternate
in sign for i > alpha.  ``fractional_series="absolute"`` (default) sums their magnitudes, as
dp_accounting 0.6 does: each term is its binomial times positive factors, so the sum of magnitudes
exceeds the signed sum A by twice the magnitudes of the negative terms (the triangle inequality on
the expansion of Mironov, Talwar & Zhang 2019, Sec. 3), and its eps(alpha) is an upper bound on the
RDP curve: valid, looser than the exact one, most where those negative terms are large.  It is kept
as the default because it is the baseline users compare against.  ``"signed"`` keeps the signs: the
exact expansion of A, up to the series' truncation below and rounding (tests/rdp/test_rdp.py checks
both against mpmath quadrature).  The series stops by dp_accounting's rule (both parts decreasing
and the new terms below e^-30 of the total; orders that do not settle within 1000 terms get eps =
inf, which is safe), so the two libraries agree term for term.  Its terms decay only polynomially in
i near alpha = 1, so the neglected tail is of order e^-30 of A (about 1e-13 relative in A):
negligible for eps, but it can be a visible fraction of eps_R(alpha) itself when that is ~1e-7, and
it is the one place where this baseline (like dp_accounting) is not rounded up. Integer orders
(including 2.0, 3.0, ...) take the finite sum.

Tiny q (A = 1 + O(q^2)): the integer sum is taken as log1p(A - 1) over positive terms, exact to
rounding however small; the fractional series cannot be (its terms are ~1 and only their sum is near
1), so a fractional order whose log A is below 1e-10 is excluded (eps = inf), and any log A rounded
below 0 is clamped at 0 (A >= 1 by Jensen).  Orders are capped at MAX_ORDER = 10^4: the integer sum
costs alpha terms (10^6 would take minutes), and orders above 10^4 only help for noise multipliers
above ~1000 (the Gaussian's best order is about 1 + sigma sqrt(2 log(1/delta))).

Everything is vectorized: sigma and q broadcast, orders is the last axis of the result.
"""

from __future__ import annotations

from typing import cast

import numpy as np
import numpy.typing as npt

from ..base.validation import broadcast, choice, in_interval, positive

__all__ = [
    "DEFAULT_ORDERS",
    "FRACTIONAL_SERIES",
    "MAX_ORDER",
    "gaussian_rdp",
    "subsampled_gaussian_rdp",
    "check_orders",
]

#: The Renyi orders used when ``orders=None``: 1.1, 1.2, ..., 10.9, then 11, ..., 63, 128, 256, 512, 1024
#: (156 floats), the orders of dp_accounting's RdpAccountant (``DEFAULT_RDP_ORDERS``), so results compare
#: one to one.  A tuple, so that no caller can change the library's default in place; take
#: ``np.asarray(DEFAULT_ORDERS)`` for array arithmetic.
DEFAULT_ORDERS: tuple[float, ...] = tuple(
    [1 + x / 10.0 for x in range(1, 100)]
    + [float(x) for x in range(11, 64)]
    + [128.0, 256.0, 512.0, 1024.0]
)

FRACTIONAL_SERIES = ("absolute", "signed")

MAX_ORDER = 1e4  # the integer series costs alpha terms; see the module docstring
_INTEGER_TERMS_PER_BLOCK = (
    1 << 18
)  # terms of the integer series held at once (a few MB per temporary)

_MAX_SERIES_TERMS = 1000
_SERIES_MARGIN = 30.0
# The fractional series sums terms of size ~1 to get log A: its absolute rounding is ~1e-16 per
# term, so a log A below 1e-10 (tiny q) is mostly rounding and could sit below the truth; such
# orders are excluded.
_FRACTIONAL_FLOOR = 1e-10


def check_orders(orders: npt.ArrayLike | None, *, max_order: float = MAX_ORDER) -> np.ndarray:
    """A non-empty 1-D float array of finite orders in (1, max_order] (DEFAULT_ORDERS when None).

    Renyi DP and its conversions to (eps, delta) hold for orders alpha > 1 only (Mironov 2017,
    Def. 3 and Prop. 3); a scalar is one order.
    """
    if orders is None:
        return np.array(DEFAULT_ORDERS, dtype=np.float64)
    arr = np.atleast_1d(positive(orders, "orders"))
    if arr.ndim != 1:
        raise ValueError("orders must be a 1-D sequence")
    if arr.size == 0:
        raise ValueError(
            "orders must not be empty (give at least one order > 1, or None for the defaults)"
        )
    if (arr <= 1).any():
        raise ValueError(
            f"orders must be > 1: Renyi DP and its conversions hold for orders above 1 only (got {arr[arr <= 1][0]!r})"
        )
    if (arr > max_order).any():
        raise ValueError(
            f"orders must be <= {max_order:g} (got {arr[arr > max_order][0]!r}): the integer-order "
            "series costs alpha terms, and larger orders only help for sigma above ~1000"
        )
    return arr


def gaussian_rdp(sigma: npt.ArrayLike, orders: npt.ArrayLike | None = None) -> np.ndarray:
    r"""RDP curve of the Gaussian mechanism (sensitivity 1) at each order, alpha / (2 sigma^2).

    .. math::

        \varepsilon_R(\alpha) = \frac{\alpha}{2\sigma^2}.

    Parameters
    ----------
    sigma : array_like
        Noise multiplier (noise standard deviation over the sensitivity), sigma > 0.
    orders : array_like, optional
        Renyi orders alpha, finite, in (1, 10^4]: a non-empty 1-d sequence or one order; default
        (None): ``DEFAULT_ORDERS``, dp_accounting's default orders.

    Returns
    -------
    numpy.ndarray
        Of shape ``sigma.shape + (len(orders),)``: the orders on the last axis.

    Raises
    ------
    ValueError
        If sigma is not finite and > 0, or an order is not finite, lies outside (1, 10^4], or
        ``orders`` is empty or not 1-d.
    ParameterTypeError
        If an argument is a string, a boolean or None.

    References
    ----------
    Mironov 2017, Prop. 7.

    Examples
    --------
    >>> from hockeystick.rdp import gaussian_rdp
    >>> gaussian_rdp(2.0, [2.0, 3.0])
    array([0.25 , 0.375])
    """
    s = positive(sigma, "sigma")
    alpha = check_orders(orders)
    with np.errstate(
        over="ignore", divide="ignore", under="ignore"
    ):  # sigma^2 past the doubles: 0 or inf, exactly
        return cast(np.ndarray, alpha / (2.0 * np.square(s)[..., None]))


def _log_binomial(alpha: np.ndarray, i: np.ndarray | float) -> np.ndarray:
    """log |C(alpha, i)| (gammaln is log |Gamma|, so this holds for the generalised binomial too)."""
    from scipy import special  # lazy: scipy start-up time (import hockeystick loads no scipy)

    return cast(
        np.ndarray,
        special.gammaln(alpha + 1) - special.gammaln(i + 1) - special.gammaln(alpha - i + 1),
    )


def _log_a_minus_1_block(
    log_q: np.ndarray, log_1mq: np.ndarray, inv2s2: np.ndarray, alpha: np.ndarray
) -> np.ndarray:
    """log(A - 1) for integer alpha >= 2 (element-wise): the terms i = 2..alpha of each element laid
    out as one flat run, log-summed run by run in the order of i (``logaddexp.reduceat`` folds each
    run left to right)."""
    counts = alpha.astype(np.int64) - 1
    element = np.repeat(np.arange(alpha.size), counts)
    starts = np.cumsum(counts) - counts
    i = (np.arange(element.size) - starts[element] + 2).astype(np.float64)
    a = alpha[element]
    x = (i * i - i) * inv2s2[element]
    log_expm1 = x + np.log(-np.expm1(-x))  # log(e^x - 1) without overflow
    term = _log_binomial(a, i) + i * log_q[element] + (a - i) * log_1mq[element] + log_expm1
    return np.logaddexp.reduceat(term, starts)


def _log_a_integer(
    log_q: np.ndarray, log_1mq: np.ndarray, sigma: np.ndarray, alpha: np.ndarray
) -> np.ndarray:
    """log A for integer alpha (element-wise over the flat inputs), as log1p(A - 1).

    The binomial weights sum to 1, so A - 1 = sum_{i>=2} C(alpha, i) (1-q)^{alpha-i} q^i
    (e^{(i^2-i)/(2 sigma^2)} - 1): positive terms, no cancellation, so log A keeps its relative
    accuracy when it is far below 1e-16 (tiny q). The terms are computed in blocks of elements
    holding about ``_INTEGER_TERMS_PER_BLOCK`` terms in all, so that memory stays bounded however
    many elements come in.
    """
    with np.errstate(
        over="ignore", divide="ignore", under="ignore"
    ):  # 0 or inf past the doubles: 0 or inf RDP
        inv2s2 = 0.5 / np.square(sigma)
    log_a_minus_1 = np.empty(alpha.shape)
    ends = np.cumsum(alpha - 1)
    total = ends[-1] if ends.size else 0.0
    cuts = np.searchsorted(
        ends, np.arange(_INTEGER_TERMS_PER_BLOCK, total, _INTEGER_TERMS_PER_BLOCK), side="right"
    )
    for part in np.split(np.arange(alpha.size), cuts):
        if part.size:
            log_a_minus_1[part] = _log_a_minus_1_block(
                log_q[part], log_1mq[part], inv2s2[part], alpha[part]
            )
    return np.logaddexp(0.0, log_a_minus_1)


def _log_a_fractional(
    log_q: np.ndarray, log_1mq: np.ndarray, sigma: np.ndarray, alpha: np.ndarray, signed: bool
) -> np.ndarray:
    """log A for fractional alpha by the two-sided series (element-wise over the flat inputs).

    With ``signed`` the terms whose binomial is negative go to a separate log-sum, subtracted at the
    end.
    """
    from scipy import special  # lazy: scipy start-up time (import hockeystick loads no scipy)

    n = alpha.size
    z0 = np.square(sigma) * (log_1mq - log_q) + 0.5
    inv2s2 = 0.5 / np.square(sigma)
    log_a0 = np.full(n, -np.inf)
    log_a1 = np.full(n, -np.inf)
    log_negative = np.full(n, -np.inf)
    last0 = np.full(n, -np.inf)
    last1 = np.full(n, -np.inf)
    active = np.ones(n, dtype=bool)
    for i in range(_MAX_SERIES_TERMS):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        a, lq, l1q, s, z, w = alpha[idx], log_q[idx], log_1mq[idx], sigma[idx], z0[idx], inv2s2[idx]
        j = a - i
        log_coef = _log_binomial(a, float(i))
        s0 = log_coef + i * lq + j * l1q + (i * i - i) * w + special.log_ndtr((z - i) / s)
        s1 = log_coef + j * lq + i * l1q + (j * j - j) * w + special.log_ndtr((j - z) / s)
        add0, add1 = s0, s1
        if signed:  # route the terms with a negative binomial to their own sum; stop on magnitudes
            neg = special.gammasgn(j + 1) < 0
            log_negative[idx[neg]] = np.logaddexp(
                log_negative[idx[neg]], np.logaddexp(s0[neg], s1[neg])
            )
            add0, add1 = np.where(neg, -np.inf, s0), np.where(neg, -np.inf, s1)
        log_a0[idx] = np.logaddexp(log_a0[idx], add0)
        log_a1[idx] = np.logaddexp(log_a1[idx], add1)
        total = np.logaddexp(log_a0[idx], log_a1[idx])
        done = (s0 < last0[idx]) & (s1 < last1[idx]) & (np.maximum(s0, s1) < total - _SERIES_MARGIN)
        last0[idx], last1[idx] = s0, s1
        active[idx[done]] = False
    result: np.ndarray = np.logaddexp(log_a0, log_a1)
    if signed:
        result = result + np.log1p(-np.exp(log_negative - result))
    result[active] = np.inf  # did not settle: exclude the order (eps = inf is always safe)
    result[result < _FRACTIONAL_FLOOR] = (
        np.inf
    )  # rounding-level log A: exclude (integer orders stay exact)
    return result


def subsampled_gaussian_rdp(
    sigma: npt.ArrayLike,
    sampling_rate: npt.ArrayLike,
    orders: npt.ArrayLike | None = None,
    *,
    fractional_series: str = "absolute",
) -> np.ndarray:
    r"""RDP curve of one step of the Poisson-subsampled Gaussian mechanism (sensitivity 1) at each order.

    :math:`\varepsilon_R(\alpha) = \log A_\alpha / (\alpha - 1)` with, at integer orders,

    .. math::

        A_\alpha = \sum_{i=0}^{\alpha} \binom{\alpha}{i} (1-q)^{\alpha-i} q^i \exp\Bigl(\frac{i^2 - i}{2\sigma^2}\Bigr),

    and at fractional orders the two-part series of the module docstring, stopped by dp_accounting's
    rule (an order that does not settle within 1000 terms gets ``inf``).  Computed in log space.
    q = 1 gives the plain Gaussian alpha / (2 sigma^2), q = 0 gives 0.

    Parameters
    ----------
    sigma : array_like
        Noise multiplier (noise standard deviation over the sensitivity), sigma > 0; broadcasts with
        ``sampling_rate``.
    sampling_rate : array_like
        Poisson sampling probability q, 0 <= q <= 1.
    orders : array_like, optional
        Renyi orders alpha, finite, in (1, 10^4]: a non-empty 1-d sequence or one order; default
        (None): ``DEFAULT_ORDERS``, dp_accounting's default orders.
    fractional_series : {"absolute", "signed"}, optional
        At fractional orders, ``"absolute"`` (default) sums the magnitudes of the generalised
        binomials, as dp_accounting does (an upper bound on A); ``"signed"`` keeps their signs (the
        exact expansion).

    Returns
    -------
    numpy.ndarray
        Of shape ``broadcast(sigma, sampling_rate).shape + (len(orders),)``: the orders on the last
        axis; values >= 0.

    Raises
    ------
    ValueError
        If sigma is not finite and > 0, ``sampling_rate`` lies outside [0, 1], the two do not
        broadcast, an order is not finite or lies outside (1, 10^4] (or ``orders`` is empty or not
        1-d), or ``fractional_series`` is not one of the two.
    ParameterTypeError
        If an argument is a string, a boolean or None.

    References
    ----------
    Mironov, Talwar & Zhang 2019, Sec. 3.

    Examples
    --------
    >>> from hockeystick.rdp import subsampled_gaussian_rdp
    >>> subsampled_gaussian_rdp(1.0, 0.01, [2.0, 3.0]).round(8)
    array([0.00017181, 0.00026464])
    """
    signed = choice(fractional_series, "fractional_series", FRACTIONAL_SERIES) == "signed"
    p = broadcast(
        sigma=positive(sigma, "sigma"),
        sampling_rate=in_interval(
            sampling_rate, "sampling_rate", 0.0, 1.0, open_low=False, open_high=False
        ),
    )
    s, q = p["sigma"], p["sampling_rate"]
    alpha = check_orders(orders)
    shape = s.shape + alpha.shape
    s_b = np.broadcast_to(s[..., None], shape).ravel()
    q_b = np.broadcast_to(q[..., None], shape).ravel()
    a_b = np.broadcast_to(alpha, shape).ravel()
    out = np.zeros(a_b.shape)
    full = q_b == 1
    with np.errstate(
        over="ignore", divide="ignore", under="ignore"
    ):  # sigma^2 past the doubles: 0 or inf
        out[full] = a_b[full] / (2.0 * np.square(s_b[full]))
    mid = (q_b > 0) & ~full
    integer = mid & (a_b == np.floor(a_b))
    fractional = mid & ~integer
    with np.errstate(divide="ignore"):
        log_q = np.log(q_b)
        log_1mq = np.log1p(-q_b)
    # sigma near the ends of the doubles: 1 / sigma^2 is 0 or inf, and so are the series' terms (RDP
    # 0 or inf)
    with np.errstate(over="ignore", divide="ignore", under="ignore"):
        if integer.any():
            out[integer] = _log_a_integer(
                log_q[integer], log_1mq[integer], s_b[integer], a_b[integer]
            ) / (a_b[integer] - 1)
        if fractional.any():
            f = fractional
            out[f] = _log_a_fractional(log_q[f], log_1mq[f], s_b[f], a_b[f], signed) / (a_b[f] - 1)
    return np.maximum(out, 0.0).reshape(
        shape
    )  # A >= 1: a log A rounded below 0 goes up to 0 (safe side)
