r"""The lower side of a secure-aggregation round: the exact lattice pair of one realizable integer shift.

One coordinate of the aggregate is S = x + N, N the sum of the surviving clients' integer noises;
the other coordinates are the same on both neighbouring inputs when the shift is k e_1
(``sensitivity``'s ``realizable_shift``), so they cancel from every likelihood ratio.  The pair of
one round is therefore

    P = law of N + k,  Q = law of N      on the integers,

and its hockey-stick divergence, composed over the rounds, is a lower bound on the mechanism's (one
realized pair of neighbouring inputs).  Its masses are computed with a relative error bound r(x)
each, and the pair handed to the grid PLD is (p(x) (1 - r), q(x) (1 + r)): a P-mass below the truth
and a Q-mass above it at every outcome, so sum_x (p - e^eps q)_+ of every composition is below the
true pair's (the T-fold product of lowered P-masses is below the true product, and likewise above
for Q); the outcomes outside the window are dropped (removing outcomes lowers that sum too).  The
grid's optimistic side then rounds it down (``pld.mechanisms.constructors.pair_factor``, which takes
the masses as they are, not renormalised: a sum below 1 only lowers the divergence; Doroshenko et
al. 2022).

Noise masses (``ddg_sum_masses``, ``skellam_masses``):

* Sum of n discrete Gaussians N_Z(0, s^2) (KLS21), two ways:

  - direct: the truncated one-client PMF (s^2 = local variance in integer units; |y| <= D, the mass
    beyond, at most 2 w(D+1) / (1 - e^{-(2D+3)/(2 s^2)}) per client relative to the normaliser, is
    charged to Q's masses as an absolute excess) convolved n-fold by repeated squaring with direct
    sums of positive terms (``numpy.convolve``), each convolution within (length + 1) u relative
    (Higham 2002, Sec. 4.2); used while the support stays below ``DIRECT_SUPPORT`` outcomes.
  - Fourier: by Poisson summation the one-client characteristic function on [-pi, pi] is
    phi(t) = (g(t) + A(t)) / (1 + rho0), g(t) = e^{-s^2 t^2 / 2}, 0 <= A(t) <= a = 2 sum_{m >= 1}
    e^{-s^2 pi^2 (2m-1)^2 / 2}, rho0 = 2 sum_{m >= 1} e^{-2 pi^2 s^2 m^2}; inverting phi^n gives
    |p_n(x) (1 + rho0)^n - f(x)| <= n a (1 + a)^{n-1} + e^{-n s^2 pi^2 / 2} / (n s^2 pi^2), f the density
    of N(0, n s^2).  So p_n(x) = f(x) (1 + rho0)^{-n} within that absolute error, relative to f(x) in the
    window |x| <= 8 sqrt(n) s; used where the relative error stays below 1e-11 (s >= ~3).
  - windowed (where neither of the two above applies): the same repeated squaring, each partial sum
    of k shares cut to |x| <= 12 sqrt(k) s (+ the shift).  With t the computed masses, tau the exact
    convolutions of the cut pieces and p the true masses: tau <= p at every outcome (the cut pieces
    are below the true ones, and so are their convolutions), and the deficit sum (p - tau) is at
    most E, the sum of every mass cut (a convolution's deficit is at most the sum of its factors',
    each a law of mass <= 1), so p(x) <= tau(x) + E.  With t within relative error r of tau (as the
    direct convolution's), the masses are t (1 - r) below and t (1 + r) + E above, and E bounds any
    one outcome beyond the window.  Used while the window stays below ``DIRECT_WINDOW`` outcomes.
  - Otherwise the lower side is refused, naming ``local_sigma``.

* Skellam: the sum of n symmetric Skellam noises of variance mu each is the symmetric Skellam of
  variance V = n mu, P(N = x) = e^{-V} I_{|x|}(V) (Agarwal, Kairouz & Liu 2021, Sec. 3), computed as
  scipy's exponentially scaled Bessel function ``ive``, charged a relative error of
  ``SKELLAM_RELATIVE_ERROR`` (1e-10) times 1 + x^2 / (2V) (ive's error grows with the exponent it
  scales away: 1.4e-11 at 8 standard deviations of V = 7.1e7).  scipy states no error bound for
  ``ive``: the allowance is an assumption, checked against mpmath at 50 digits across the range used
  (tests/secagg/test_lattice_pld.py).
"""

from __future__ import annotations

import math

import numpy as np

from ..pld.grid import PrivacyLossDistribution
from ..pld.mechanisms import checked_interval, pair_factor

__all__ = [
    "DIRECT_SUPPORT",
    "DIRECT_WINDOW",
    "SKELLAM_RELATIVE_ERROR",
    "ddg_sum_masses",
    "realizable_shift_pld",
    "skellam_masses",
]

UNIT_ROUNDOFF = 2.0**-53
DIRECT_SUPPORT = (
    1 << 15
)  # the direct convolution's largest support (its last squaring costs its square)
FOURIER_RELATIVE_ERROR = 1e-11
SKELLAM_RELATIVE_ERROR = 1e-10
DIRECT_WINDOW = (
    1 << 16
)  # the windowed convolution's widest window (its last squaring costs its square)
WINDOWED_STDDEVS = (
    12.0  # each partial sum cut at +-12 standard deviations: the mass cut below 4e-33 a cut
)
WINDOW_STDDEVS = (
    8.0  # the window +-8 standard deviations: the mass outside is below 2 Q(8) ~ 1.3e-15
)
_TAIL_LOG = math.log(
    1e-30
)  # one client's truncated mass, relative to its normaliser, at most 1e-30


# (first outcome, masses, their relative error bounds, a bound on any one outcome's mass beyond the
# window or None where the window reaches past the shift and the outcomes beyond are dropped)
Masses = tuple[int, np.ndarray, np.ndarray, "float | None"]
# a partial sum of k shares: (masses, first outcome, relative error, deficit of mass, k, sigma)
_Partial = tuple[np.ndarray, int, float, float, int, float]


def _one_client(sigma: float) -> tuple[np.ndarray, float, float]:
    """The truncated one-client PMF on -D..D, its relative error and the truncated mass (relative)."""
    two_var = 2.0 * sigma * sigma
    d = max(1, int(sigma * math.sqrt(-2.0 * _TAIL_LOG)))
    while (
        -((d + 1.0) ** 2) / two_var - math.log(-math.expm1(-(2.0 * d + 3.0) / two_var)) > _TAIL_LOG
    ):
        d += 1
    y = np.arange(-d, d + 1, dtype=np.float64)
    exponent = np.square(y) / two_var  # y^2 exact; two roundings
    w = np.exp(-exponent)
    z = math.fsum(w.tolist())
    # exp's argument within 3u |exponent| (<= 3u 70), exp itself one ulp, the quotient and Z one
    # each
    relative = (3.0 * float(exponent.max()) + 8.0) * UNIT_ROUNDOFF
    return w / z, relative, 2.0e-30


def _direct(sigma: float, clients: int) -> Masses:
    """The n-fold convolution of the truncated one-client PMF (module docstring)."""
    one, one_error, one_tail = _one_client(sigma)
    result, result_error = np.ones(1), 0.0
    base, base_error, n = one, one_error, clients
    while n:
        if n & 1:
            result_error += base_error + (min(result.size, base.size) + 1) * UNIT_ROUNDOFF
            result = np.convolve(result, base)
        n >>= 1
        if n:
            base_error = 2.0 * base_error + (base.size + 1) * UNIT_ROUNDOFF
            base = np.convolve(base, base)
    # Q's excess from the truncated tails: at most clients * one_tail absolute (in place of a
    # relative bound)
    error = result_error * 1.01 + clients * one_tail / np.maximum(result, 1e-300)
    return -(result.size // 2), result, np.minimum(error, 1.0), clients * one_tail


def _trimmed(part: _Partial, reach: int) -> _Partial:
    """The partial sum cut to |x| <= ``WINDOWED_STDDEVS`` sqrt(k) sigma + reach, the mass cut off
    added to its deficit (raised by the masses' relative error and the sum's rounding)."""
    t, x0, error, deficit, k, sigma = part
    half = int(math.ceil(WINDOWED_STDDEVS * math.sqrt(k) * sigma)) + reach
    lo, hi = max(x0, -half), min(x0 + t.size - 1, half)
    if lo == x0 and hi == x0 + t.size - 1:
        return part
    cut = math.fsum(t[: lo - x0].tolist()) + math.fsum(t[hi - x0 + 1 :].tolist())
    cut *= (1.0 + error) * (1.0 + (t.size + 2) * UNIT_ROUNDOFF)
    return t[lo - x0 : hi - x0 + 1], lo, error, deficit + cut, k, sigma


def _convolved(a: _Partial, b: _Partial, reach: int) -> _Partial:
    """The convolution of two partial sums, cut (``_trimmed``): relative errors add, plus
    (length + 1) u for the sums of nonnegative products (Higham 2002, Sec. 4.2); the deficits add (module
    docstring)."""
    error = a[2] + b[2] + (min(a[0].size, b[0].size) + 1) * UNIT_ROUNDOFF
    return _trimmed(
        (np.convolve(a[0], b[0]), a[1] + b[1], error, a[3] + b[3], a[4] + b[4], a[5]), reach
    )


def _direct_windowed(sigma: float, clients: int, reach: int) -> Masses:
    """The n-fold convolution by repeated squaring, each partial sum of k shares cut to
    +-``WINDOWED_STDDEVS`` sqrt(k) sigma (module docstring): masses t with t (1 - r) <= p and p <= t
    (1 + r) + E, E the deficit."""
    one, one_error, one_tail = _one_client(sigma)
    result: _Partial = (np.ones(1), 0, 0.0, 0.0, 0, sigma)
    # the truncated PMF normalised on its support is above the true one by at most one_tail relative
    base: _Partial = (one, -(one.size // 2), one_error + one_tail, one_tail, 1, sigma)
    n = clients
    while n:
        if n & 1:
            result = base if result[4] == 0 else _convolved(result, base, reach)
        n >>= 1
        if n:
            base = _convolved(base, base, reach)
    t, x0, error, deficit, _, _ = result
    error *= 1.01  # second-order terms of the products of (1 + r)
    relative = error + deficit / np.maximum(t, 1e-300)
    return x0, t, np.minimum(relative, 1.0), deficit


def _fourier(sigma: float, clients: int, reach: int) -> Masses | None:
    """p_n(x) = f(x) (1 + rho0)^{-n} within the module docstring's absolute error, or None where its
    relative error passes ``FOURIER_RELATIVE_ERROR`` in the window."""
    s2 = sigma * sigma
    a = 2.0 * math.exp(-s2 * math.pi**2 / 2.0) / -math.expm1(-4.0 * s2 * math.pi**2)
    rho0 = 2.0 * math.exp(-2.0 * math.pi**2 * s2) / -math.expm1(-6.0 * math.pi**2 * s2)
    var = clients * s2
    # the aliasing term n a (1 + a)^{n-1} from logs: above 1 no mass is bounded (and exp would
    # overflow); a = 0 (past the doubles' least value) leaves the second term alone
    log_aliasing = math.log(clients * a) + (clients - 1) * math.log1p(a) if a > 0.0 else -math.inf
    if log_aliasing > 0.0:
        return None
    absolute = math.exp(log_aliasing) + math.exp(-var * math.pi**2 / 2.0) / (var * math.pi**2)
    half = int(math.ceil(WINDOW_STDDEVS * math.sqrt(var)))
    x = np.arange(-half - reach, half + reach + 1, dtype=np.float64)
    exponent = np.square(x) / (2.0 * var)
    scale = math.exp(-clients * math.log1p(rho0))
    density = np.exp(-exponent) / math.sqrt(2.0 * math.pi * var)
    masses = density * scale
    error = absolute * 1.01 / (masses * (1.0 - 1e-12)) + (4.0 * exponent + 16.0) * UNIT_ROUNDOFF
    if not float(error.max()) <= FOURIER_RELATIVE_ERROR:
        return None
    return -half - reach, masses, error, None


def ddg_sum_masses(sigma: float, clients: int, reach: int = 0) -> Masses:
    """The PMF of the sum of ``clients`` discrete Gaussians N_Z(0, sigma^2), with relative error bounds.

    Parameters
    ----------
    sigma : float
        The one-client discrete Gaussian's sigma in integer units, >= 1/2.
    clients : int
        n >= 1.
    reach : int, optional
        The shift the pair will apply: a computed window reaches that far past its +-8 standard
        deviations.

    Returns
    -------
    tuple
        (x0, masses, errors, outside): masses[i] is P(N = x0 + i) within relative error errors[i],
        and ``outside`` bounds any one outcome's mass beyond the window (None: those outcomes are
        dropped).

    Raises
    ------
    ValueError
        If none of the direct convolution (support above ``DIRECT_SUPPORT``), the Fourier
        representation (relative error above 1e-11) and the windowed convolution (window above
        ``DIRECT_WINDOW``) bounds the masses: no certified lower side is computed.
    """
    one_support = 2 * int(sigma * math.sqrt(-2.0 * _TAIL_LOG)) + 3
    if clients * one_support <= DIRECT_SUPPORT:
        return _direct(sigma, clients)
    found = _fourier(sigma, clients, reach)
    if (
        found is None
        and 2.0 * (WINDOWED_STDDEVS * math.sqrt(clients) * sigma + reach) + 3.0 <= DIRECT_WINDOW
    ):
        found = _direct_windowed(sigma, clients, reach)
    if found is None:
        raise ValueError(
            f"local_sigma / granularity = {sigma:.6g} with {clients} surviving clients: the summed noise is too wide "
            f"for the windowed convolution (over {DIRECT_WINDOW} outcomes within +-{WINDOWED_STDDEVS:g} standard "
            "deviations) and too narrow for the Fourier bound (its relative error passes 1e-11; it needs "
            'local_sigma / granularity >= ~4): no certified lower side is computed; ask bound="upper", or a '
            "coarser granularity"
        )
    return found


def skellam_masses(variance: float, reach: int = 0) -> Masses:
    """The symmetric Skellam PMF of variance V, e^{-V} I_|x|(V), on +-(8 sqrt(V) + reach), with its
    error allowance.

    Parameters
    ----------
    variance : float
        V > 0, the summed noise's variance in integer units.
    reach : int, optional
        The shift the pair will apply.

    Returns
    -------
    tuple
        (x0, masses, errors, None) as ``ddg_sum_masses``; errors ``SKELLAM_RELATIVE_ERROR`` (1 + x^2
        / (2V)).

    Raises
    ------
    ValueError
        If scipy's ``ive`` returns a non-finite mass (V past its range).
    """
    from scipy import special  # lazy: scipy's import time

    half = int(math.ceil(WINDOW_STDDEVS * math.sqrt(variance) + 8.0))
    x = np.arange(-half - reach, half + reach + 1, dtype=np.float64)
    masses = special.ive(np.abs(x), variance)
    if not np.isfinite(masses).all():
        raise ValueError(
            f"the summed Skellam variance {variance:.6g} (min_surviving_clients (local_sigma / granularity)^2) is past "
            'scipy\'s Bessel function: no certified lower side is computed; ask bound="upper"'
        )
    return (
        -half - reach,
        masses,
        SKELLAM_RELATIVE_ERROR * (1.0 + np.square(x) / (2.0 * variance)),
        None,
    )


def realizable_shift_pld(
    masses: Masses, shift: int, value_discretization_interval: float
) -> PrivacyLossDistribution:
    """The grid PLD of (N + shift, N), masses lowered (first law) and raised (second law).

    The pair is the same in both directions (N symmetric).  The masses are not renormalised: the
    lowered first law sums below 1 and the second may sum below it too where outcomes outside the
    window are dropped (the direct convolution's truncated tails), and both only lower sum_x (p(x) -
    e^eps q(x))_+ (module docstring).

    Parameters
    ----------
    masses : tuple
        (x0, masses, errors, outside) of the noise N (``ddg_sum_masses`` or ``skellam_masses``).
    shift : int
        k >= 1, the realizable integer shift.
    value_discretization_interval : float
        The PLD grid's spacing.

    Returns
    -------
    PrivacyLossDistribution
        One direction; its optimistic side (``bound="lower"``) is a certified lower bound on the
        pair's (module docstring).  The pessimistic side is not a bound on the mechanism and is not
        read.

    Raises
    ------
    ValueError
        If ``shift`` is not in [1, the window's length), or ``value_discretization_interval``
        outside (0, 100].
    """
    _, m, r, outside = masses
    if not 1 <= shift < m.size:
        raise ValueError(f"shift must be an integer in [1, {m.size}), got {shift!r}")
    if (
        outside is None
    ):  # outcomes x0 + k .. x0 + L - 1, where both laws have computed masses; the rest dropped
        p = np.maximum(m[: m.size - shift] * (1.0 - r[: m.size - shift]), 0.0)
        q = m[shift:] * (1.0 + r[shift:])
    else:  # outcomes x0 + k .. x0 + L - 1 + k; N beyond its window is charged ``outside`` each
        p = np.maximum(m * (1.0 - r), 0.0)
        q = np.concatenate([m[shift:] * (1.0 + r[shift:]), np.zeros(shift)]) + outside
    h = checked_interval(value_discretization_interval)
    factor = pair_factor(p, q, "realizable_shift_pld", h, exact_zeros=False)
    return PrivacyLossDistribution([{factor: 1}])
