r"""Modular wrap-around: the probability that the aggregate leaves the modulus 2^b, and the bits to avoid it.

Secure aggregation sums the clients' integer vectors modulo 2^b; the server reads each coordinate in
[-2^{b-1}, 2^{b-1}).  Wrapping is a post-processing of the integer sum: it costs no privacy, only
error. A round wraps only if some coordinate has |S_j| >= m = 2^{b-1}, S_j = signal + rounding +
noise:

* signal: the rotated sum R (sum_i x_i / gamma) of n vectors of norm <= c / gamma.  With the
  randomized Walsh-Hadamard rotation (random signs, then the orthonormal Hadamard matrix) each
  coordinate is a Rademacher sum with variance proxy ||sum_i x_i||^2 / (gamma^2 d) <= (n c /
  gamma)^2 / d (Hoeffding); a rotation of flatness rho multiplies the proxy by rho (KLS21, Sec. 4.2;
  ``flatness``, default 1, the randomized Hadamard's).  This is the assumption the bound rests on:
  without a rotation, a coordinate can carry the whole norm.
* rounding: unconditional randomized rounding errors are independent, mean 0 and within an interval
  of length 1 given the signal: proxy n / 4 (Hoeffding's lemma).  Conditional rounding re-draws
  them, so they are neither independent nor mean 0; each is still below 1 in magnitude, so their sum
  is charged n in full (m is lowered by n).
* noise: the sum of n discrete Gaussians N_Z(0, s^2) is n s^2-subgaussian (Canonne, Kamath & Steinke
  2020, Cor. 9); Skellam noise of summed variance V has E e^{tX} = e^{V (cosh t - 1)}.

By Chernoff's bound, for every t > 0,

.. math::

    P(|S_j| \ge m) \le 2 \exp\bigl(t^2 v / 2 + V(\cosh t - 1) - t m\bigr),

v the sum of the subgaussian proxies (V = 0 for the discrete Gaussian, whose bound is 2 e^{-m^2 /
(2v)} at the best t; minimised over t: any t gives a valid bound; the Skellam term's is at the root
of its slope, from logs).  Beside it, the noise's own masses (``lattice_pld``, each raised by its
error bound) summed against the signal's and rounding's Hoeffding tail, X being independent of the
noise N: P(|X + N| >= m) <= sum_y p_N(y) min(1, 2 e^{-(m - |y|)^2 / (2 v_X)}) + P(N outside the
masses' window) (``log_noise_tail_bound``): tighter than the joint Chernoff bound by about the
Gaussian tail's polynomial factor. One coordinate's bound is the lesser of the two
(``per="coordinate"``: also the expected fraction of the d coordinates that wrap); a union over the
d coordinates gives the round's (``per="round"``), widened by 1e-9 relative and never below the
least positive double.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..base.validation import choice, count, moderate, positive_number
from .sensitivity import ROUNDINGS, Rounding

__all__ = [
    "NOISES",
    "WRAP_EVENTS",
    "bits_for",
    "log_chernoff_tail",
    "log_noise_tail_bound",
    "wrap_probability",
]

NOISES = ("distributed_discrete_gaussian", "skellam")
WRAP_EVENTS = (
    "round",
    "coordinate",
)  # some coordinate of the round wraps; one given coordinate wraps
MAX_TAIL_OUTCOMES = 1 << 22  # the noise masses' widest window for the exact-tail bound (32 MiB)
WINDOW_REACH = (
    16.0  # the masses' window spans about +-8 standard deviations: 16 sqrt(n) sigma outcomes
)
UNIT_ROUNDOFF = 2.0**-53
MAX_BITS = 62
_LOG_2 = math.log(2.0)
_SMALLEST = 5e-324
_LOG_MAX = math.log(np.finfo(float).max)


def _log_sinh(t: float) -> float:
    """log sinh t for t > 0, finite wherever t is (sinh itself overflows past t ~ 710)."""
    if t > 20.0:
        return t - _LOG_2 + math.log1p(-math.exp(-2.0 * t))
    return math.log(math.sinh(t))


def _skellam_term(t: float, variance: float) -> float:
    """V (cosh t - 1) = 2 V sinh(t / 2)^2, from logs: finite wherever it is below the doubles' top, inf above."""
    log_term = _LOG_2 + math.log(variance) + 2.0 * _log_sinh(0.5 * t)
    return math.exp(log_term) if log_term < _LOG_MAX else math.inf


def log_chernoff_tail(m: float, proxy: float, skellam_variance: float) -> float:
    """The log of one coordinate's Chernoff factor, min_t e^{t^2 v / 2 + V (cosh t - 1) - t m} (module docstring).

    The exponent is convex in t, its slope t v + V sinh t - m increasing from -m at t = 0: the
    minimum is at the slope's root t*, below both m / v (where the first term's slope alone
    reaches m) and asinh(m / V) (the second's).  t* is found by bisection on the slope, V sinh t taken from
    logs (it overflows only where the slope is far above 0); any t gives a valid bound, so the
    bisection's end is a safe choice.  ``wrap_probability`` adds log(2 d) for the two sides and the
    union over the d coordinates.

    Parameters
    ----------
    m : float
        The distance to the modulus' edge, 2^{b-1} less what the rounding is charged; at most 0
        gives 0.
    proxy : float
        v, the sum of the subgaussian proxies (signal, rounding, discrete Gaussian noise), >= 0.
    skellam_variance : float
        V, the Skellam noise's summed variance (0 for the discrete Gaussian: the closed form -m^2 /
        (2 v)).

    Returns
    -------
    float
        The exponent at the bisection's best end, at most 0 and at or above the true minimum.

    Raises
    ------
    ZeroDivisionError
        If ``proxy`` and ``skellam_variance`` are both 0 and m > 0 (``wrap_probability`` never
        passes v = 0).
    """
    if m <= 0.0:
        return 0.0
    if skellam_variance == 0.0:
        return -m * m / (2.0 * proxy)
    v, big_v = proxy, skellam_variance
    ratio = m / big_v
    # asinh(x) = log(2 x) + O(1 / x^2): from logs where x itself would overflow
    reach = math.asinh(ratio) if ratio < 1e150 else _LOG_2 + math.log(m) - math.log(big_v)
    hi = min(m / v, reach) if v > 0.0 else reach
    lo = 0.0
    for _ in range(
        200
    ):  # the bracket halves each step: at most ~1100 steps span the doubles; 200 reach 2^-200
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        log_sinh = _log_sinh(mid) + math.log(big_v)
        pushed = math.exp(log_sinh) if log_sinh < _LOG_MAX else math.inf
        if mid * v + pushed < m:
            lo = mid
        else:
            hi = mid
    best = 0.0
    for t in (lo, hi):
        if t > 0.0:
            exponent = t * t * v / 2.0 + _skellam_term(t, big_v) - t * m
            if math.isfinite(exponent):
                best = min(best, exponent)
    return best


@functools.lru_cache(maxsize=1)
def _raised_masses(
    noise: str, sigma: float, clients: int
) -> tuple[int, np.ndarray, np.ndarray] | None:
    """The noise's window for ``log_noise_tail_bound``: (x0, |x| over the window, each mass raised by its
    relative error), or None where ``lattice_pld`` refuses to bound the masses.

    A function of the noise alone, not of the bits or the signal: ``bits_for`` and the calibrations ask
    one noise at many moduli, and the last window (at most ``MAX_TAIL_OUTCOMES`` outcomes, two arrays)
    is kept for them, read-only.
    """
    from .lattice_pld import ddg_sum_masses, skellam_masses

    try:
        x0, masses, errors, _ = (
            ddg_sum_masses(sigma, clients)
            if noise == "distributed_discrete_gaussian"
            else skellam_masses(clients * sigma * sigma)
        )
    except ValueError:
        return None
    y = np.abs(np.arange(x0, x0 + masses.size, dtype=float))
    raised = masses * (1.0 + errors)
    y.flags.writeable = raised.flags.writeable = False
    return x0, y, raised


def log_noise_tail_bound(
    m: float, signal_proxy: float, noise: str, sigma: float, clients: int
) -> float:
    r"""The log of a bound on P(|X + N| >= m) for one coordinate, from the noise's own masses (module docstring).

    X (signal and rounding) is v-subgaussian and independent of N, the n shares' sum, so

    .. math::

        P(|X + N| \ge m) \le \sum_{y \in W} p_N(y) \min\bigl(1, 2 e^{-(m - |y|)^2 / (2 v)}\bigr) + P(N \notin W),

    p_N(y) the masses ``lattice_pld`` computes with their relative errors (raised by them), W their
    window, and P(N outside W) bounded by the noise's own Chernoff tail on each side.  Tighter than
    the joint Chernoff bound by about the Gaussian tail's polynomial factor; where the masses are
    not bounded (``lattice_pld`` refuses) or their window passes ``MAX_TAIL_OUTCOMES``, the bound is
    1 (log 0) and the Chernoff bound stands.

    Parameters
    ----------
    m : float
        The distance to the modulus' edge (as ``log_chernoff_tail`` takes it).
    signal_proxy : float
        v > 0, the signal's and the rounding's subgaussian proxy.
    noise : {"distributed_discrete_gaussian", "skellam"}
        The clients' noise.
    sigma : float
        Each share's sigma in integer units (the discrete Gaussian's s, or the Skellam share's
        standard deviation).
    clients : int
        n, the shares summed.

    Returns
    -------
    float
        The log of the bound, at most 0.
    """
    if (
        m <= 0.0
        or signal_proxy <= 0.0
        or WINDOW_REACH * math.sqrt(clients) * sigma > MAX_TAIL_OUTCOMES
    ):
        return 0.0
    window = _raised_masses(noise, sigma, clients)
    if window is None:
        return 0.0
    x0, y, raised = window
    gap = np.maximum(m - y, 0.0)
    log_signal = np.minimum(0.0, _LOG_2 - gap * gap / (2.0 * signal_proxy))
    # exp's argument within a few u relative; the sum of positive terms within (size + 2) u
    inside = float(np.sum(raised * np.exp(log_signal * (1.0 - 4.0 * UNIT_ROUNDOFF))))
    inside *= 1.0 + (raised.size + 8) * UNIT_ROUNDOFF
    edge = min(-x0, x0 + raised.size - 1) + 1.0  # N beyond the window: |N| >= edge
    proxy, variance = (
        (clients * sigma * sigma, 0.0)
        if noise == "distributed_discrete_gaussian"
        else (0.0, clients * sigma * sigma)
    )
    beyond = 2.0 * math.exp(log_chernoff_tail(edge, proxy, variance))
    # never below the doubles' least positive value (terms past it underflow to 0; the tail itself
    # is positive)
    total = max(inside + beyond, _SMALLEST)
    return min(0.0, math.log(total) + 1e-12)


def wrap_probability(
    *,
    bits: int,
    clients: int,
    dimension: int,
    clip_norm: float,
    granularity: float,
    local_sigma: float,
    noise: str = "distributed_discrete_gaussian",
    rounding: Rounding = "conditional",
    flatness: float = 1.0,
    per: str = "round",
) -> float:
    r"""An upper bound on the probability that one round's aggregate wraps around modulo 2^b (module docstring).

    Parameters
    ----------
    bits : int
        b, the bits per coordinate of the aggregate, 1 <= b <= 62.
    clients : int
        n, the clients in the sum (the most expected: the signal and the noise grow with n), >= 1.
    dimension : int
        d, >= 1.
    clip_norm : float
        c, finite and > 0.
    granularity : float
        gamma, finite and > 0.
    local_sigma : float
        Each client's noise sigma in the update's units (the discrete Gaussian's sigma, or the
        Skellam noise's standard deviation), finite and > 0.
    noise : {"distributed_discrete_gaussian", "skellam"}, optional
        The clients' noise.
    rounding : {"conditional", "unconditional"}, optional
        The randomized rounding (module docstring).
    flatness : float, optional
        rho, the rotation's flatness (default 1: the randomized Walsh-Hadamard transform).
    per : {"round", "coordinate"}, optional
        The event bounded: some coordinate of the round wraps (default; the union over the d
        coordinates), or one given coordinate wraps, which is also the expected fraction of the d
        coordinates that wrap in a round.

    Returns
    -------
    float
        The bound, in [0, 1].

    Raises
    ------
    ValueError
        If an argument breaks its rule.

    References
    ----------
    Kairouz, Liu & Steinke 2021, Sec. 4.2 (the rotation's flatness, the modular clipping); Canonne,
    Kamath & Steinke 2020, Cor. 9; Hoeffding 1963.

    Examples
    --------
    >>> from hockeystick.secagg import wrap_probability
    >>> p = wrap_probability(bits=20, clients=100, dimension=10**4, clip_norm=1.0, granularity=1e-3,
    ...                      local_sigma=0.05)
    >>> p < 1e-12
    True
    """
    b = count(bits, "bits", maximum=MAX_BITS)
    n, d = count(clients, "clients"), count(dimension, "dimension")
    c, g = positive_number(clip_norm, "clip_norm"), positive_number(granularity, "granularity")
    moderate(c / g, "clip_norm / granularity")  # the update's norm in integer steps
    s = moderate(positive_number(local_sigma, "local_sigma") / g, "local_sigma / granularity")
    kind = choice(noise, "noise", NOISES)
    conditional = choice(rounding, "rounding", ROUNDINGS) == "conditional"
    rho = positive_number(flatness, "flatness")
    where = choice(per, "per", WRAP_EVENTS)
    signal = rho * (n * c / g) ** 2 / d + (0.0 if conditional else n / 4.0)
    skellam_variance = n * s * s if kind == "skellam" else 0.0
    proxy = signal + (n * s * s if kind == "distributed_discrete_gaussian" else 0.0)
    m = 2.0 ** (b - 1) - (n if conditional else 0)
    log_coordinate = _LOG_2 + log_chernoff_tail(m, proxy, skellam_variance)
    log_coordinate = min(log_coordinate, log_noise_tail_bound(m, signal, kind, s, n))
    log_bound = log_coordinate + (math.log(d) if where == "round" else 0.0)
    # rounded up: a bound below the doubles' least positive value is that value, never 0 (the sum's
    # noise has unbounded support, so the wrap's probability is positive)
    return min(1.0, max(math.exp(log_bound + 1e-9 * abs(log_bound)), _SMALLEST))


def bits_for(beta: float, **round_parameters: object) -> int:
    """The fewest bits b (1 <= b <= 62) whose ``wrap_probability`` is at most ``beta``.

    Parameters
    ----------
    beta : float
        The wrap-around probability allowed per round, 0 < beta < 1.
    **round_parameters
        ``wrap_probability``'s other keyword arguments (``clients``, ``dimension``, ``clip_norm``,
        ``granularity``, ``local_sigma``, ``noise``, ``rounding``, ``flatness``, ``per``: the
        round's wrap, the default, or one coordinate's).

    Returns
    -------
    int
        b.

    Raises
    ------
    ValueError
        If ``beta`` is outside (0, 1), or no b <= 62 meets it.

    Examples
    --------
    >>> from hockeystick.secagg import bits_for
    >>> bits_for(1e-9, clients=100, dimension=10**4, clip_norm=1.0, granularity=1e-3, local_sigma=0.05)
    15
    """
    target = positive_number(beta, "beta")
    if not target < 1.0:
        raise ValueError(f"beta must lie in (0, 1), got {beta!r}")
    for b in range(1, MAX_BITS + 1):
        if wrap_probability(bits=b, **round_parameters) <= target:  # type: ignore[arg-type]
            return b
    given = ", ".join(f"{name} = {value!r}" for name, value in round_parameters.items())
    raise ValueError(
        f"no bits <= {MAX_BITS} keep the wrap-around probability below beta = {beta!r} at {given}: use a coarser "
        "granularity, or fewer clients, a smaller clip_norm or a smaller local_sigma"
    )
