r"""Renyi DP of a general mechanism run on a Poisson subsample: an upper bound from its RDP curve.

A mechanism M has RDP eps(alpha) at the given orders for one neighbouring pair structure (P, Q) in
both directions: D_alpha(P || Q) <= eps(alpha) and D_alpha(Q || P) <= eps(alpha), P the law with the
differing element's data, Q without it.  Running M on a subsample that takes that element with
probability q (Poisson sampling, add/remove of one element: the element's data present or absent;
equally, one element's data replaced by a null contribution that changes nothing) releases A =
(1 - q) Q + q P against Q.  Two bounds hold for both D_alpha(A || Q) and D_alpha(Q || A):

* Zhu & Wang 2019 ("Poisson subsampled Renyi differential privacy", ICML), the general upper bound,
  at integer orders alpha >= 2 given eps at every integer 2 .. alpha (Thm. 5 of the PMLR 97 text as
  google-research/federated's ``accounting_utils._compute_rdp_subsampled`` cites it; autodp, the
  authors' code, evaluates the same bound; its number was not read from the paper's own text):

  .. math::

      \varepsilon'(\alpha) \le \frac{1}{\alpha - 1}\log\Bigl((1-q)^{\alpha-1}(\alpha q - q + 1)
          + \binom{\alpha}{2} q^2 (1-q)^{\alpha-2} e^{\varepsilon(2)}
          + 3 \sum_{\ell=3}^{\alpha} \binom{\alpha}{\ell} (1-q)^{\alpha-\ell} q^\ell e^{(\ell-1)\varepsilon(\ell)}\Bigr).

  At q = 1 it is eps(2) at alpha = 2 and eps(alpha) + log(3) / (alpha - 1) above.
* Convexity, at every order alpha > 1: sum_x A(x)^alpha Q(x)^(1 - alpha) is convex in A (t ->
  t^alpha is), and sum_x Q(x)^alpha A(x)^(1 - alpha) too (t -> t^(1 - alpha) is), so at A = (1 - q)
  Q + q P each is at most (1 - q) + q e^{(alpha - 1) eps(alpha)}:

  .. math::

      \varepsilon'(\alpha) \le \frac{1}{\alpha - 1}\log\bigl(1 - q + q\, e^{(\alpha - 1)\varepsilon(\alpha)}\bigr)
          \le \varepsilon(\alpha),

  equal to eps(alpha) at q = 1.

The curve returned is the smaller of the two at each order (the second alone where the orders hold
no integer chain 2 .. alpha).  Both are log(1 + S) with S a sum of non-negative terms (the first
term is taken out by the binomial theorem, ``_general_bound``), evaluated as log1p of a stable
log-sum-exp (the largest term factored out), so that the result stays accurate relative to its size
however small q is.  Every log term carries a few roundings of its parts and the sum (K + 4) u,
charged as an absolute addition to log S (it moves log(1 + S) by no more); the result is then
rounded up (``pure_dp.round_up``).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import numpy.typing as npt

from ..base.validation import in_interval
from .mechanisms import check_orders
from .pure_dp import round_up

__all__ = ["poisson_subsampled_rdp", "poisson_subsampled_remove_rdp"]

UNIT_ROUNDOFF = 2.0**-53
_LOG3 = math.log(3.0)


@functools.lru_cache(maxsize=8)
def _log_binomials_up(alpha: int) -> np.ndarray:
    """log C(alpha, l) for l = 0 .. alpha, each rounded up.

    The partial sums of log(alpha - j + 1) - log(j), j = 1 .. l: each term within 2u (|log(alpha -
    j + 1)| +
    |log j|) + u |term|, and the running sum within u times each partial sum's size (at most alpha log 2) per
    addition; their total, at most l u (alpha log 2 + 5 log(alpha + 1) + 1), is added.
    """
    j = np.arange(1, alpha + 1, dtype=np.float64)
    steps = np.log(alpha - j + 1.0) - np.log(j)
    sums = np.concatenate([[0.0], np.cumsum(steps)])
    ell = np.arange(alpha + 1, dtype=np.float64)
    error = ell * UNIT_ROUNDOFF * (alpha * math.log(2.0) + 5.0 * math.log(alpha + 1.0) + 1.0)
    return sums + error


def _log1p_of_sum_up(terms: np.ndarray, magnitudes: np.ndarray) -> np.ndarray:
    """log(1 + sum_k exp(terms[..., k])) along the last axis, plus a bound on its rounding (module docstring).

    ``magnitudes`` bounds, term by term, the sum of the absolute values of the parts each log term
    was added up from; each part carries at most four roundings relative.  The log-sum-exp factors
    the largest term out; its error, an absolute one on log(sum), moves log(1 + sum) by no more.
    """
    top = terms.max(axis=-1, keepdims=True)
    safe_top = np.where(np.isfinite(top), top, 0.0)
    total = np.exp(terms - safe_top).sum(axis=-1)
    with np.errstate(divide="ignore"):
        log_sum = safe_top[..., 0] + np.log(total)
    slack = 8.0 * UNIT_ROUNDOFF * (magnitudes.max(axis=-1) + np.abs(safe_top[..., 0]) + 1.0)
    slack = slack + 2.0 * (terms.shape[-1] + 4) * UNIT_ROUNDOFF
    value = np.logaddexp(0.0, np.where(np.isfinite(top[..., 0]), log_sum + slack, -np.inf))
    return value * (1.0 + 8.0 * UNIT_ROUNDOFF)


def _log_expm1(x: np.ndarray) -> np.ndarray:
    """log(e^x - 1) for x >= 0 (-inf at 0), within a few ulp absolute plus 4u |x|."""
    with np.errstate(divide="ignore"):
        value: np.ndarray = np.where(
            x > 30.0, x + np.log1p(-np.exp(-x)), np.log(np.expm1(np.minimum(x, 30.0)))
        )
    return value


def _general_bound(
    chained: np.ndarray, alpha: int, q: float, log_weight: float = _LOG3
) -> np.ndarray:
    """Zhu & Wang 2019's general upper bound at the integer order alpha (module docstring), rounded up.

    ``chained[..., j]`` is eps(2 + j), at least up to eps(alpha).  The binomial theorem takes the
    first term's 1 out: the bracket is 1 + sum_{l=2}^{alpha} C(alpha, l) q^l (1 - q)^{alpha - l}
    (w_l e^{(l - 1) eps(l)} - 1), w_2 = 1 and w_l = e^``log_weight`` above (3; 1 for the remove
    direction alone, ``poisson_subsampled_remove_rdp``), a sum of non-negative terms, so its log is
    log1p of a log-sum-exp and stays accurate relative to the (small) result.
    """
    ell = np.arange(2, alpha + 1)
    log_q, log_1mq = math.log(q), (math.log1p(-q) if q < 1.0 else -math.inf)
    rest = alpha - ell
    with np.errstate(invalid="ignore"):  # 0 * -inf at q = 1: the factor (1 - q)^0 is 1
        log_rest = np.where(rest == 0, 0.0, rest * log_1mq)
    exponent = np.where(ell >= 3, log_weight, 0.0) + (ell - 1) * chained[..., : alpha - 1]
    log_binomials = _log_binomials_up(alpha)[2:]
    constant = log_binomials + ell * log_q + log_rest
    terms = constant + _log_expm1(exponent)
    magnitudes = log_binomials + np.abs(ell * log_q) + np.abs(log_rest) + exponent + 2.0
    return round_up(_log1p_of_sum_up(terms, magnitudes) / (alpha - 1))


def _convexity(eps: np.ndarray, alpha: np.ndarray, q: float) -> np.ndarray:
    """log(1 + q (e^{(alpha - 1) eps} - 1)) / (alpha - 1) (module docstring), rounded up, at most eps's."""
    if q == 1.0:
        return round_up(eps.copy())
    scaled = (alpha - 1.0) * eps
    terms = (math.log(q) + _log_expm1(scaled))[..., None]
    magnitudes = (abs(math.log(q)) + scaled + 2.0)[..., None]
    value = _log1p_of_sum_up(terms, np.broadcast_to(magnitudes, terms.shape)) / (alpha - 1.0)
    return round_up(np.minimum(value, eps))


def _integer_chain(alpha: np.ndarray) -> dict[int, int]:
    """The orders' integers 2, 3, ..., m that are all present (m the largest such), to their columns."""
    column = {int(a): i for i, a in enumerate(alpha) if a == math.floor(a)}
    chain: dict[int, int] = {}
    k = 2
    while k in column:
        chain[k] = column[k]
        k += 1
    return chain


def poisson_subsampled_rdp(
    rdp: npt.ArrayLike, orders: npt.ArrayLike, sampling_rate: float
) -> np.ndarray:
    r"""An upper bound on the RDP curve of a mechanism run on a Poisson subsample at rate q (module docstring).

    The smaller, order by order, of Zhu & Wang 2019's general upper bound (integer orders alpha >= 2
    whose integers 2 .. alpha are all among ``orders``) and the convexity bound log(1 - q + q
    e^{(alpha - 1) eps(alpha)}) / (alpha - 1) (every order), rounded up.

    Parameters
    ----------
    rdp : array_like
        eps(alpha), the mechanism's RDP curve (an upper bound on both directions of its pair),
        finite and >= 0, the orders on the last axis; earlier axes broadcast through.
    orders : array_like
        The orders of ``rdp``, finite, in (1, 10^4].
    sampling_rate : float
        q, the probability that the differing element is in the subsample, 0 <= q <= 1.

    Returns
    -------
    numpy.ndarray
        The subsampled curve, the shape of ``rdp``: each value an upper bound on both directions of
        the subsampled pair, at most ``rdp`` (up to its rounding up), 0 at q = 0.

    Raises
    ------
    ValueError
        If ``rdp`` is not finite and >= 0 or its last axis does not match ``orders``, an order
        breaks ``check_orders``' rule, or ``sampling_rate`` lies outside [0, 1].

    References
    ----------
    Zhu & Wang 2019 (the general upper bound).

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick.rdp import gaussian_rdp, poisson_subsampled_rdp
    >>> orders = np.arange(2.0, 33.0)
    >>> curve = poisson_subsampled_rdp(gaussian_rdp(1.0, orders), orders, 0.01)
    >>> bool(curve[0] < 1e-3), bool((curve <= gaussian_rdp(1.0, orders) * (1 + 1e-12)).all())
    (True, True)
    """
    alpha = check_orders(orders)
    eps = np.asarray(rdp, dtype=np.float64)
    if eps.ndim == 0 or eps.shape[-1] != alpha.size:
        raise ValueError(
            f"rdp must have the orders on its last axis (rdp {eps.shape}, orders {alpha.shape})"
        )
    if not (np.isfinite(eps).all() and (eps >= 0).all()):
        raise ValueError(
            "rdp values must be finite and >= 0 (an RDP curve of the mechanism run on the full data)"
        )
    q = float(
        in_interval(sampling_rate, "sampling_rate", 0.0, 1.0, open_low=False, open_high=False)
    )
    if q == 0.0:
        return np.zeros_like(eps)
    result = _convexity(eps, alpha, q)
    chain = _integer_chain(alpha)
    if chain:
        chained = eps[..., list(chain.values())]
        for order, col in chain.items():
            result[..., col] = np.minimum(result[..., col], _general_bound(chained, order, q))
    return result


def poisson_subsampled_remove_rdp(inner: npt.ArrayLike, sampling_rate: float) -> np.ndarray:
    r"""D_alpha((1 - q) Q + q P || Q), the remove direction alone, from the inner's divergences, rounded up.

    At the integer orders alpha = 2 .. 1 + K, from ``inner`` = D_l(P || Q) at l = 2 .. 1 + K.  With
    L = dP / dQ, e^{(alpha - 1) D_alpha} = E_Q[(1 - q + q L)^alpha], and the binomial theorem gives

    .. math::

        e^{(\alpha - 1) D_\alpha} = 1 + \sum_{\ell=2}^{\alpha} \binom{\alpha}{\ell} q^\ell (1-q)^{\alpha-\ell}
            \bigl(e^{(\ell - 1) D_\ell(P \| Q)} - 1\bigr),

    exact in the inner's divergences and non-decreasing in each, so an upper curve of the inner
    gives an upper bound: Zhu & Wang 2019's general bound without its factor 3, which pays for the
    add direction.

    Parameters
    ----------
    inner : array_like
        D_l(P || Q), or an upper bound on it, at l = 2, 3, ..., finite and >= 0, the orders on the
        last axis.
    sampling_rate : float
        q, 0 < q <= 1.

    Returns
    -------
    numpy.ndarray
        The bound at alpha = 2 .. 1 + K, the shape of ``inner``.

    Raises
    ------
    ValueError
        If ``inner`` is not finite and >= 0 or has no order, or ``sampling_rate`` lies outside (0,
        1].

    References
    ----------
    Zhu & Wang 2019 (the general upper bound; its remove-direction term).
    """
    eps = np.asarray(inner, dtype=np.float64)
    if eps.ndim == 0 or eps.shape[-1] == 0 or not (np.isfinite(eps).all() and (eps >= 0).all()):
        raise ValueError(
            "inner must be finite values >= 0 at the orders 2, 3, ... on its last axis"
        )
    q = float(in_interval(sampling_rate, "sampling_rate", 0.0, 1.0, open_low=True, open_high=False))
    if q == 1.0:  # the pair itself (the expansion's terms with (1 - q)^0 = 1 are the inner's alone)
        return round_up(eps.copy())
    out = np.empty_like(eps)
    for j in range(eps.shape[-1]):
        out[..., j] = _general_bound(eps, j + 2, q, log_weight=0.0)
    return out
