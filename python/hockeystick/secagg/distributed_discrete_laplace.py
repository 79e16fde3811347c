r"""The distributed discrete Laplace with dropout: negative-binomial shares, Harrison's bound, the lattice pair.

The discrete Laplace DLap(a), P(x) proportional to e^{-a |x|} on the integers, is the difference of
two independent geometric laws, and a geometric law is NB(1, 1 - e^{-a}), infinitely divisible:
NB(1, p) = sum_{i=1}^E NB(1/E, p) (Balle et al. 2020, "Private summation in the multi-message
shuffle model"; Harrison 2024, "Distributed noise addition and infinite divisibility",
csharrison.github.io).  So each client adds NB(1/E, 1 - e^{-a}) - NB(1/E, 1 - e^{-a}) to each
integer coordinate, E the clients whose shares make the full noise.  With n survivors the sum is the
generalized discrete Laplace

.. math::

    \mathrm{GDL}(\beta, a) = \mathrm{NB}(\beta, 1 - e^{-a}) - \mathrm{NB}(\beta, 1 - e^{-a}),
    \qquad \beta = n / E,

(Harrison & Manurangsi 2025, "Infinitely divisible noise for differential privacy",
arXiv:2504.05202, Sec. 3; closed under sums: GDL(beta_1, a) + GDL(beta_2, a) = GDL(beta_1 + beta_2,
a)).  At beta = 1 it is DLap(a); below 1 (fewer survivors than E) its mass piles up at 0.

Pure DP of one coordinate (``harrison_epsilon``): Harrison 2024, Theorem 1 (Harrison & Manurangsi
2025 state the same bound): for an integer sensitivity Delta, GDL(beta, a) noise is eps-DP with

.. math::

    \varepsilon = a\Delta + \log\Bigl(\frac{{}_2F_1(\beta, \beta; 1; e^{-2a})}
        {{}_2F_1(\beta, \beta + \Delta; 1 + \Delta; e^{-2a})}\,
        \frac{\Gamma(\Delta + 1)\Gamma(\beta)}{\Gamma(\beta + \Delta)}\Bigr) \quad (0 < \beta \le 1),
    \qquad \varepsilon = a\Delta \quad (\beta \ge 1),

the privacy loss's largest value (attained at the outcome Delta, the note says; checked against the
exact loss by mpmath in tests/secagg/test_secagg_discrete_laplace.py).

Many coordinates (``pure_epsilon``).  The shift is an integer vector with ||s||_1 <= Delta_1 and
||s||_2 <= Delta_2; pure DP adds over the independent coordinates.  For beta < 1 each coordinate's loss is at
most a |s_j| + h(|s_j|), h(k) = log(k! Gamma(beta) / Gamma(beta + k)) = sum_{i=1}^k c_i, c_i = log(i
/ (beta + i - 1)): the loss at outcome y is a(|y| - |y - s|) + B + C; where |y - s| >= |y| it is <=
0 (GDL's mass falls with |y|: NB(beta) with beta <= 1 has falling masses, and so has their
correlation); else B <= 0 (each coefficient of 2F1(beta, beta + t; 1 + t; z) grows with t when beta
<= 1) and C = h(|y|) - h(|y - s|) <= h(|s|) (h is concave, its steps c_i falling, with h(0) = 0).
So the round's eps is at most a Delta_1 plus the sum of the Delta_1 largest steps when each of at
most r = min(d, floor(Delta_2^2)) non-zero coordinates offers c_1 >= c_2 >= ...: a non-zero integer
coordinate adds at least 1 to ||s||_2^2.  Where r = 1 (one coordinate) Theorem 1's value is taken at
each shift 1 .. min(Delta_1, Delta_2), where it is smaller.  For beta >= 1 the noise is DLap(a) plus
independent noise: a Delta_1.

A pure eps-DP round is dominated by randomized response at eps (Kairouz, Oh & Viswanath 2015, Thm.
2.4): the upper side composes that pair over the rounds (``secagg.pair_accountants``).  Where beta
>= 1 and the shift is one coordinate (r = 1), GDL(beta, a) is log-concave (NB(beta) is for beta >=
1: its masses' ratio (beta + j) e^{-a} / (j + 1) falls with j; a convolution of log-concave laws is
log-concave), so its shifts have a monotone likelihood ratio and the largest shift k =
floor(min(Delta_1, Delta_2)) is the worst for every hockey-stick divergence (Lehmann & Romano, Thm.
3.4.1; the law is symmetric, so both directions): its lattice pair, its masses lowered on both sides
(``dominating_shift_pld``), dominates the round exactly.  The lower side is the exact lattice pair
of one realizable shift, GDL's masses computed here (``gdl_masses``).

Masses (``gdl_masses``): the NB masses are scipy's ``nbinom.pmf``, charged
``NEGATIVE_BINOMIAL_RELATIVE_ERROR`` (scipy states no bound: an assumption, checked against mpmath
at 50 digits in the tests); the NB law is cut where Chernoff's bound puts its tail below 1e-30, P(NB
>= k) <= (p (k + beta) / beta)^beta (e^{-a} (k + beta) / k)^k (the moment generating function (p /
(1 - e^{-a} e^t))^beta at its best t), and GDL(x) = sum_j NB(j + |x|) NB(j) summed directly
(positive terms, (J + 1) u relative in any order of summation: Higham 2002, Sec. 4.2), the cut
tails charged as an absolute excess to the raised law (``lattice_pld``'s convention).
"""

from __future__ import annotations

import math

import numpy as np

from ..base.validation import count, positive_number
from ..pld.grid import PrivacyLossDistribution
from ..pld.mechanisms import checked_interval, pair_factor
from .lattice_pld import Masses

__all__ = [
    "MAX_SUPPORT",
    "NEGATIVE_BINOMIAL_RELATIVE_ERROR",
    "gdl_masses",
    "dominating_shift_pld",
    "harrison_epsilon",
    "pure_epsilon",
]

UNIT_ROUNDOFF = 2.0**-53
NEGATIVE_BINOMIAL_RELATIVE_ERROR = 1e-9
MAX_SUPPORT = 1 << 15  # the NB law's cut: its correlation costs the square
_TAIL_LOG = math.log(1e-30)
_THEOREM_SHIFTS = (
    256  # Theorem 1 evaluated at each shift up to this; beyond, the bound without its 2F1 factor
)


def _shape_decay(shape: float, decay: float) -> tuple[float, float]:
    return positive_number(shape, "shape"), positive_number(decay, "decay")


def harrison_epsilon(shape: float, decay: float, shift: int) -> float:
    r"""Harrison's Theorem 1: the pure eps of GDL(beta, a) noise on one coordinate at integer shift Delta, rounded up.

    Parameters
    ----------
    shape : float
        beta > 0, the survivors' share of the full noise (n / E).
    decay : float
        a > 0, the discrete Laplace's decay per integer step.
    shift : int
        Delta >= 1.

    Returns
    -------
    float
        a Delta + log(2F1(beta, beta; 1; e^{-2a}) / 2F1(beta, beta + Delta; 1 + Delta; e^{-2a})
        Delta! Gamma(beta) / Gamma(beta + Delta)) for beta < 1, a Delta for beta >= 1 (module
        docstring), evaluated by mpmath at 40 digits and rounded up.

    Raises
    ------
    ValueError
        An argument outside its rule.

    References
    ----------
    Harrison 2024, "Distributed noise addition and infinite divisibility", Theorem 1; Harrison &
    Manurangsi 2025 (arXiv:2504.05202), Sec. 3.

    Examples
    --------
    >>> import math
    >>> from hockeystick.secagg.distributed_discrete_laplace import harrison_epsilon
    >>> round(harrison_epsilon(1.0, 0.5, 2), 12)
    1.0
    >>> 0.5 < harrison_epsilon(0.5, 0.5, 1) < 0.5 + math.log(2.0)
    True
    """
    beta, a = _shape_decay(shape, decay)
    k = count(shift, "shift")
    if beta >= 1.0:
        return math.nextafter(a * k * (1.0 + 2.0 * UNIT_ROUNDOFF), math.inf)
    import mpmath  # lazy: only here

    with mpmath.workdps(40):
        b, z = mpmath.mpf(beta), mpmath.exp(-2 * mpmath.mpf(a))
        ratio = mpmath.hyp2f1(b, b, 1, z) / mpmath.hyp2f1(b, b + k, 1 + k, z)
        value = (
            a * k
            + mpmath.log(ratio)
            + mpmath.loggamma(k + 1)
            + mpmath.loggamma(b)
            - mpmath.loggamma(b + k)
        )
        return math.nextafter(float(value) + 1e-30 + abs(float(value)) * 1e-14, math.inf)


def _steps(beta: float, last: int) -> np.ndarray:
    """c_i = log(i / (beta + i - 1)) = -log1p((beta - 1) / i) for i = 1 .. last, each rounded up."""
    i = np.arange(1, last + 1, dtype=np.float64)
    return np.nextafter(-np.log1p((beta - 1.0) / i) * (1.0 + 8.0 * UNIT_ROUNDOFF), np.inf)


def pure_epsilon(shape: float, decay: float, l1: float, l2: float, dimension: int) -> float:
    """A round's pure eps for an integer shift of L1 norm <= Delta_1 and L2 norm <= Delta_2 on d coordinates.

    Parameters
    ----------
    shape : float
        beta > 0.
    decay : float
        a > 0.
    l1 : float
        Delta_1 > 0.
    l2 : float
        Delta_2 > 0.
    dimension : int
        d >= 1.

    Returns
    -------
    float
        a floor(Delta_1) for beta >= 1; for beta < 1, a floor(Delta_1) plus the floor(Delta_1)
        largest steps c_i offered by r = min(d, floor(Delta_2^2)) coordinates, or Harrison's Theorem
        1 where r = 1 and smaller (module docstring); rounded up.  0 where no non-zero integer shift
        fits.

    Raises
    ------
    ValueError
        An argument outside its rule.

    Examples
    --------
    >>> from hockeystick.secagg.distributed_discrete_laplace import pure_epsilon
    >>> round(pure_epsilon(1.0, 0.1, 10.0, 4.0, 100), 12)
    1.0
    """
    beta, a = _shape_decay(shape, decay)
    total = int(math.floor(positive_number(l1, "l1")))
    coords = min(
        count(dimension, "dimension"), int(math.floor(positive_number(l2, "l2") ** 2)), total
    )
    if total == 0 or coords == 0:
        return 0.0
    linear = a * total
    if beta >= 1.0:
        return math.nextafter(linear * (1.0 + 2.0 * UNIT_ROUNDOFF), math.inf)
    if coords == 1:  # one coordinate: its shift is at most min(Delta_1, Delta_2)
        total = min(total, int(math.floor(l2)))
    full, rest = divmod(
        total, coords
    )  # each coordinate takes `full` steps, `rest` of them one more
    steps = _steps(beta, full + 1)
    relaxed = linear + coords * math.fsum(steps[:full].tolist()) + rest * float(steps[full])
    relaxed = math.nextafter(relaxed * (1.0 + (full + 8) * UNIT_ROUNDOFF), math.inf)
    if coords == 1 and total <= _THEOREM_SHIFTS:
        return min(relaxed, max(harrison_epsilon(beta, a, k) for k in range(1, total + 1)))
    return relaxed


def _nb_cut(beta: float, a: float) -> int:
    """The least J with Chernoff's bound on P(NB(beta, 1 - e^{-a}) > J) below 1e-30 (module
    docstring); where that J passes ``MAX_SUPPORT`` (a mean above it, infinite where 1 - e^{-a}
    underflows), some J above it."""
    log_p = math.log(-math.expm1(-a))

    def log_tail(k: float) -> float:
        return beta * (log_p + math.log((k + beta) / beta)) + k * (-a + math.log((k + beta) / k))

    mean = beta * math.exp(-a) / -math.expm1(-a)
    if (
        not mean <= MAX_SUPPORT
    ):  # J >= the mean > MAX_SUPPORT (the mean infinite where 1 - e^-a underflows)
        return MAX_SUPPORT + 1
    hi = max(2.0, 2.0 * mean)
    while log_tail(hi) > _TAIL_LOG:
        hi *= 2.0
        if hi > 4.0 * MAX_SUPPORT:
            return int(hi)
    lo = max(mean, 1.0)
    for _ in range(60):
        middle = 0.5 * (lo + hi)
        lo, hi = (lo, middle) if log_tail(middle) <= _TAIL_LOG else (middle, hi)
    return int(math.ceil(hi))


def _autocorrelation(nb: np.ndarray) -> np.ndarray:
    """sum_j nb[j + x] nb[j] for each lag x = 0 .. len - 1, the products summed by numpy's pairwise
    reduction in one thread: the lags of ``numpy.correlate`` without its negative half, and without
    BLAS's dot, which OpenBLAS runs in threads past 10 000 terms (threads that spin-wait for each
    other on a busy machine, at many times the CPU of one)."""
    size = nb.size
    return np.array([np.add.reduce(nb[x:] * nb[: size - x]) for x in range(size)])


def gdl_masses(shape: float, decay: float, reach: int = 0) -> Masses:
    """GDL(beta, a)'s masses on -J .. J with their relative errors and the bound on what the cut leaves out.

    Parameters
    ----------
    shape : float
        beta > 0.
    decay : float
        a > 0.
    reach : int, optional
        Unused (the window is the cut's, past any realizable shift's need): kept for
        ``lattice_pld``'s signature.

    Returns
    -------
    tuple
        (x0, masses, errors, outside) as ``lattice_pld.ddg_sum_masses`` returns it: masses[i] =
        P(X = x0 + i) within relative errors[i], ``outside`` an absolute bound on any one outcome's mass
        the cut leaves out.

    Raises
    ------
    ValueError
        If the NB law's cut passes ``MAX_SUPPORT`` outcomes (a decay below about 2e-3): no certified
        lower side.

    Examples
    --------
    >>> import math
    >>> from hockeystick.secagg.distributed_discrete_laplace import gdl_masses
    >>> x0, masses, errors, outside = gdl_masses(1.0, 1.0)
    >>> bool(abs(masses[-x0] - math.tanh(0.5)) < 1e-12)  # DLap(1)'s mass at 0
    True
    """
    from scipy import stats  # lazy: scipy's import time

    beta, a = _shape_decay(shape, decay)
    cut = _nb_cut(beta, a)
    if cut > MAX_SUPPORT:
        raise ValueError(
            f"the discrete Laplace's decay granularity / scale = {a:.6g} spreads each share's negative binomial over "
            f'more than {MAX_SUPPORT} outcomes: no certified lower side is computed; ask bound="upper", or a '
            "coarser granularity"
        )
    nb = np.asarray(stats.nbinom.pmf(np.arange(cut + 1), beta, -math.expm1(-a)), dtype=float)
    right = _autocorrelation(nb)
    masses = np.concatenate([right[:0:-1], right])
    error = np.full(
        masses.size, (2.0 * NEGATIVE_BINOMIAL_RELATIVE_ERROR + (cut + 2) * UNIT_ROUNDOFF) * 1.01
    )
    # a cut term nb[j + x] nb[j] has j + x > J (mass <= 1e-30 in all) or j > J: at most 2e-30 per
    # outcome
    return -cut, masses, np.minimum(error, 1.0), 2.0e-30 * 1.01


def dominating_shift_pld(
    masses: Masses, shift: int, value_discretization_interval: float
) -> PrivacyLossDistribution:
    """The grid PLD of (N + shift, N) with both laws' masses lowered: its pessimistic side is an upper bound.

    Lowering both laws' masses (by their relative errors) gives a pair that dominates the exact one
    for every gamma: sum (p - gamma q)_+ <= sum (p' - gamma q')_+ + sum (p - p') for p' <= p, q' <=
    q, and the grid's pessimistic side charges the missing P-mass (1 minus what is given) at
    +infinity.  N's outcomes beyond the window are Q-masses lowered to 0 there (P's there, the
    window's shifted top, are given).

    Parameters
    ----------
    masses : tuple
        (x0, masses, errors, outside) of N (``gdl_masses``).
    shift : int
        k >= 1.
    value_discretization_interval : float
        The grid's spacing.

    Returns
    -------
    PrivacyLossDistribution
        One direction (N symmetric: the other is the same); read its pessimistic side
        (``bound="upper"``).

    Raises
    ------
    ValueError
        ``shift`` not in [1, the window's length).

    Examples
    --------
    >>> import math
    >>> from hockeystick.secagg.distributed_discrete_laplace import dominating_shift_pld, gdl_masses
    >>> pair = dominating_shift_pld(gdl_masses(1.0, 0.5), 2, 1e-4)
    >>> abs(pair.delta(0.0, bound="upper") - (1.0 - math.exp(-0.5))) < 1e-6  # DLap(1/2) shifted by 2: its TV
    True
    """
    _, m, r, _ = masses
    if not 1 <= shift < m.size:
        raise ValueError(f"shift must be an integer in [1, {m.size}), got {shift!r}")
    p = np.maximum(m * (1.0 - r), 0.0)
    q = np.concatenate([np.maximum(m[shift:] * (1.0 - r[shift:]), 0.0), np.zeros(shift)])
    # Q's zeros are exact for the lowered pair (the window's shifted top, dropped from Q): their
    # P-mass sits at loss +infinity, the pessimistic side's placement.  (Marked as possibly
    # underflowed instead, the optimistic side, which this pair does not certify, would place it
    # near loss 700 on a grid of millions of cells.)
    factor = pair_factor(
        p, q, "gdl_shift_upper", checked_interval(value_discretization_interval), exact_zeros=True
    )
    return PrivacyLossDistribution([{factor: 1}])
