"""Amplification by shuffling for (eps0, delta0)-DP randomizers: the clone bound plus a total-variation charge.

Feldman, McMillan & Talwar (FOCS 2021, "Hiding among the clones", Thm 3.8, proof via their Lemma
3.7) extend the clone analysis of ``shuffle`` to approximate-DP local randomizers: n shuffled (eps0,
delta0)-DP randomizers are (eps, delta + (e^eps + 1)(1 + e^{-eps0}/2) n delta0)-DP whenever n
shuffled eps0-DP randomizers are (eps, delta)-DP.  Paper 003 re-proves it for silos holding many
records (Thm D.5, Lemmas D.8-D.14).  The proof, which this module evaluates term by term:

1. The target user's pair R(x0), R(x1) is (eps0, delta0)-indistinguishable, so some R'(x1) with
   TV(R'(x1), R(x1)) <= delta0 is eps0-indistinguishable from R(x0) (FMT Lemma 3.7; 003 Lemma D.12).
2. Every other user's output R(x) is (eps_ref, delta_ref)-indistinguishable from the mixture rho =
   (R(x0) + R(x1)) / 2 (joint convexity; in FMT's setting eps_ref = eps0, delta_ref = delta0), so
   some R''(x) with TV <= delta_ref satisfies R''(x) >= e^{-eps_ref} rho (003 Lemma D.11); putting
   R'(x1) in place of R(x1) inside rho costs e^{-eps_ref} delta0 / 2 more (003, proof of Thm D.5).
3. The surrogate randomizers satisfy the clone structure with alpha = e^eps0 / (e^eps0 + 1)
   (Kairouz, Oh & Viswanath 2015's decomposition, 003 Lemma D.8) and clone probability p =
   e^{-eps_ref}, so the shuffled surrogate output is a post-processing of FMT's clone pair (FMT
   Lemma 3.3 / Thm 3.2; 003 Lemma D.10): its divergence is at most ``clone_delta(eps0, n, eps, p)``,
   computed exactly.
4. The real and surrogate outputs differ in total variation by TV_P <= (n - 1)(delta_ref +
   e^{-eps_ref} delta0 / 2) when the target holds x0 and TV_Q <= delta0 + TV_P when it holds x1, and
   E_{e^eps}(P || Q) <= E_{e^eps}(P' || Q') + TV_P + e^eps TV_Q (Dwork & Roth 2014, Lemma 3.17; 003
   Lemma D.13).  With the orders swapped the larger charge is the same one, so

       delta(eps) <= clone_delta(eps0, n, eps, e^{-eps_ref}) + TV_P + e^eps TV_Q,           (*)

   which is at most FMT's stated charge (e^eps + 1)(1 + e^{-eps0}/2) n delta0 in their setting.
5. The shuffled output is also a post-processing of the unshuffled reports, of which only the
   target's depends on its record: delta(eps) <= delta0 for eps >= eps0.

(*) is valid at every eps, but its charge grows like e^eps; the true profile is non-increasing, so a
bound at eps' <= eps holds at eps too.  In gamma = e^eps the clone term is convex (a hockey-stick
divergence) and the charge is linear, so (*) is convex in gamma: ``shuffled_approximate_delta``
finds a point eps_low at or below its minimum (keeping only points where (*) still decreases) and
reports (*) at min(eps, eps_low), non-increasing in eps.  At delta0 = delta_ref = 0 it is exactly
the pure clone bound of ``ShuffledLDP``.
"""

from __future__ import annotations

import math

import numpy as np

from ..base.elementwise import ArrayLike, FloatOrArray, broadcast_float_arrays
from ..base.validation import in_interval, nonnegative, positive, positive_integer
from .shuffle import bisection_done, check_shuffle_parameters, clone_delta

__all__ = [
    "ShuffledApproximateLDP",
    "shuffled_approximate_delta",
    "fmt_theorem_3_8_charge",
    "tv_charge",
]

_U = 2.0**-53
_TAIL = 1e-17


def tv_charge(
    eps: float,
    n: int,
    delta0: float,
    reference_epsilon: float,
    reference_delta: float,
    mixture_weight: float | None = None,
) -> float:
    """TV_P + e^eps TV_Q of step 4 (module docstring), rounded up.  ``mixture_weight``: any upper
    bound on rho's weight e^{-eps_ref} in the surrogate (1 makes the charge non-increasing in
    eps_ref)."""
    weight = math.exp(-reference_epsilon) if mixture_weight is None else mixture_weight
    tv_p = (n - 1) * (reference_delta + weight * delta0 / 2)
    tv_q = delta0 + tv_p
    if tv_q == 0:
        return tv_p * (1 + 16 * _U)
    # e^eps past the doubles' range: an infinite charge (the bound is vacuous there), not an
    # OverflowError
    grow = math.exp(eps) if eps < 709 else math.inf
    return (tv_p + grow * tv_q) * (1 + 16 * _U)


def _bound(
    eps: float,
    eps0: float,
    delta0: float,
    n: int,
    reference_epsilon: float,
    reference_delta: float,
    tail: float,
    mixture_weight: float | None = None,
) -> float:
    """(*) of the module docstring at one eps (at most 1)."""
    clone = clone_delta(eps0, n, eps, tail, clone_probability=math.exp(-reference_epsilon))
    return min(
        1.0, clone + tv_charge(eps, n, delta0, reference_epsilon, reference_delta, mixture_weight)
    )


def _lowest_minimizer(
    eps0: float,
    delta0: float,
    n: int,
    reference_epsilon: float,
    reference_delta: float,
    tail: float,
) -> float:
    """A point at or below the minimizer of (*) over [0, eps0] (inf when there is no charge):
    bisection that moves its lower end only where (*) is seen to decrease, so by convexity in e^eps
    the true minimizer lies above it."""
    if delta0 == 0 and reference_delta == 0:
        return math.inf

    def g(x: float) -> float:
        return _bound(x, eps0, delta0, n, reference_epsilon, reference_delta, tail)

    lo, hi = 0.0, eps0
    step = 1e-9 * max(eps0, 1.0)
    if not g(step) < g(0.0):
        return 0.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if g(mid + step) < g(mid):
            lo = mid
        else:
            hi = mid
        if hi - lo <= step:
            break
    return lo


def shuffled_approximate_delta(
    eps: float,
    *,
    epsilon0: float,
    delta0: float,
    n: int,
    reference_epsilon: float,
    reference_delta: float,
    lowest_minimizer: float,
    tail: float = _TAIL,
    mixture_weight: float | None = None,
) -> float:
    """Certified upper bound on the shuffled output's delta at ``eps`` (module docstring, (*) made
    non-increasing, and at most delta0 from eps0 on); ``lowest_minimizer`` from
    ``_lowest_minimizer`` (inf: (*) at eps itself); ``mixture_weight`` as in ``tv_charge``."""
    value = _bound(
        min(eps, lowest_minimizer),
        epsilon0,
        delta0,
        n,
        reference_epsilon,
        reference_delta,
        tail,
        mixture_weight,
    )
    if eps >= epsilon0:
        value = min(value, delta0)
    return value


def fmt_theorem_3_8_charge(
    *, epsilon: ArrayLike, epsilon0: ArrayLike, delta0: ArrayLike, n: ArrayLike
) -> FloatOrArray:
    r"""Feldman, McMillan & Talwar's Theorem 3.8 additive delta charge for (eps0, delta0)-DP reports, as stated (paper formula).

    .. math::

        (e^{\epsilon} + 1)\Big(1 + \frac{e^{-\epsilon_0}}{2}\Big) n \delta_0,

    the delta added to the pure clone bound when n shuffled randomizers are only :math:`(\epsilon_0,
    \delta_0)`-DP.  :class:`hockeystick.isrl.ShuffledApproximateLDP` evaluates the proof's smaller
    charge instead.

    Parameters
    ----------
    epsilon : array_like
        The :math:`\epsilon` of the shuffled guarantee, finite and >= 0.
    epsilon0 : array_like
        Each local randomizer's :math:`\epsilon_0`, finite and > 0.
    delta0 : array_like
        Each local randomizer's :math:`\delta_0`, in [0, 1).
    n : array_like
        Number of reports shuffled together, a whole number >= 1.  All keyword-only real numbers
        that broadcast together.

    Returns
    -------
    float or numpy.ndarray
        The charge: a float for scalar input, else an array of the broadcast shape.

    Raises
    ------
    ValueError
        ``epsilon`` not finite and >= 0, ``epsilon0`` not finite and > 0, ``delta0`` outside [0, 1),
        or ``n`` not a whole number >= 1.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Feldman, McMillan & Talwar 2021, Theorem 3.8; paper 003, Theorem D.5.

    Examples
    --------
    >>> from hockeystick.isrl import fmt_theorem_3_8_charge
    >>> fmt_theorem_3_8_charge(epsilon=0.2, epsilon0=1.0, delta0=1e-9, n=1000)
    2.630...e-06
    """
    (eps, e0, d0, users), _, scalar = broadcast_float_arrays(
        epsilon=nonnegative(epsilon, "epsilon"),
        epsilon0=positive(epsilon0, "epsilon0"),
        delta0=in_interval(delta0, "delta0", 0.0, 1.0, open_low=False, open_high=True),
        n=positive_integer(n, "n"),
    )
    with np.errstate(
        over="ignore", invalid="ignore"
    ):  # e^epsilon past 709: inf where delta0 > 0, else 0 below
        charge = (np.exp(eps) + 1) * (1 + np.exp(-e0) / 2) * users * d0
    out = np.where(d0 > 0, charge, 0.0)
    return float(out) if scalar else out


class ShuffledApproximateLDP:
    r"""Privacy of n shuffled reports of (eps0, delta0)-DP local randomizers: FMT Theorem 3.8's proof, evaluated.

    With :math:`\epsilon_{\mathrm{ref}} = \epsilon_0`, :math:`\delta_{\mathrm{ref}} = \delta_0`
    (steps 1-5 of the docstring of ``hockeystick.isrl.shuffle_approximate``):

    .. math::

        \delta(\epsilon) \le \mathrm{clone}(\epsilon_0, n, \epsilon, e^{-\epsilon_0})
            + \mathrm{TV}_P + e^{\epsilon}\, \mathrm{TV}_Q, \qquad
        \mathrm{TV}_P = (n - 1)\, \delta_0 \big(1 + e^{-\epsilon_0} / 2\big), \quad
        \mathrm{TV}_Q = \delta_0 + \mathrm{TV}_P,

    made non-increasing in :math:`\epsilon`, and at most :math:`\delta_0` from :math:`\epsilon_0`
    on. At :math:`\delta_0 = 0` it is :class:`hockeystick.isrl.ShuffledLDP`.

    - ``delta(epsilon)``: that certified upper bound at each :math:`\epsilon \ge 0`; ValueError for
      a negative or NaN epsilon.
    - ``epsilon(delta)``: the smallest :math:`\epsilon` whose bound is <= delta, by bisection to
      relative width ``rtol`` (reported at the upper end); :math:`\epsilon_0` when only the local
      guarantee (:math:`\delta \ge \delta_0`) meets delta, and inf when nothing does; ValueError for
      delta outside (0, 1).

    Both broadcast their argument with the parameters and return a float for scalar input, else an
    array.

    Parameters
    ----------
    epsilon0 : array_like
        Each local randomizer's :math:`\epsilon_0`, finite and > 0.
    delta0 : array_like
        Each local randomizer's :math:`\delta_0`, in [0, 1).
    n : array_like
        Number of users shuffled together, a whole number >= 2.  The three broadcast together.
    tail : float, default 1e-17
        Binomial tail mass left out of the exact clone sum (and charged whole), in (0, 1e-3).
    rtol : float, default 1e-6
        Relative width at which ``epsilon`` stops its bisection, in (0, 1).

    Raises
    ------
    ValueError
        ``epsilon0`` not finite and > 0, ``delta0`` outside [0, 1), ``n`` not a whole number >= 2,
        ``tail`` outside (0, 1e-3) or ``rtol`` outside (0, 1).
    ParameterTypeError
        ``epsilon0``, ``delta0`` or ``n`` a string, bool or None.

    References
    ----------
    Feldman, McMillan & Talwar 2021, Theorem 3.8 and Lemma 3.7; paper 003, Theorem D.5 and
    Lemmas D.8-D.14; Dwork & Roth 2014, Lemma 3.17.

    Examples
    --------
    >>> from hockeystick.isrl import ShuffledApproximateLDP
    >>> shuffled = ShuffledApproximateLDP(epsilon0=1.0, delta0=1e-9, n=1000)
    >>> shuffled.delta(0.2)
    2.834...e-06
    >>> shuffled.epsilon(1e-6)
    1.0
    """

    def __init__(
        self,
        *,
        epsilon0: ArrayLike,
        delta0: ArrayLike,
        n: ArrayLike,
        tail: float = _TAIL,
        rtol: float = 1e-6,
    ) -> None:
        (e0, d0, users), _, _ = broadcast_float_arrays(epsilon0=epsilon0, delta0=delta0, n=n)
        tail, rtol = check_shuffle_parameters(e0, users, tail, rtol)
        bad = ~((d0 >= 0) & (d0 < 1))
        if np.any(bad):
            raise ValueError(f"delta0 must lie in [0, 1), got {d0[bad].ravel()[0]:g}")
        self.epsilon0, self.delta0, self.n, self.tail, self.rtol = e0, d0, users, tail, rtol
        self._minimizers: dict[tuple[float, float, int], float] = {}

    def _point(self, eps: float, e0: float, d0: float, users: int) -> float:
        key = (e0, d0, users)
        if key not in self._minimizers:
            self._minimizers[key] = _lowest_minimizer(e0, d0, users, e0, d0, self.tail)
        return shuffled_approximate_delta(
            eps,
            epsilon0=e0,
            delta0=d0,
            n=users,
            reference_epsilon=e0,
            reference_delta=d0,
            lowest_minimizer=self._minimizers[key],
            tail=self.tail,
        )

    def delta(self, epsilon: ArrayLike) -> FloatOrArray:
        """Certified upper bound on delta(epsilon) of the shuffled output."""
        (eps, e0, d0, users), shape, scalar = broadcast_float_arrays(
            epsilon=epsilon, epsilon0=self.epsilon0, delta0=self.delta0, n=self.n
        )
        if np.any(~(eps >= 0)):
            raise ValueError(f"epsilon must be >= 0, got {eps[~(eps >= 0)].ravel()[0]:g}")
        out = np.array(
            [
                self._point(float(x), float(a), float(b), int(c))
                for x, a, b, c in zip(eps.ravel(), e0.ravel(), d0.ravel(), users.ravel())
            ]
        ).reshape(shape)
        return float(out) if scalar else out

    def epsilon(self, delta: ArrayLike) -> FloatOrArray:
        """Smallest epsilon whose certified delta is <= delta (upper end of the bisection; inf if none)."""
        (dlt, e0, d0, users), shape, scalar = broadcast_float_arrays(
            delta=delta, epsilon0=self.epsilon0, delta0=self.delta0, n=self.n
        )
        if np.any(~((dlt > 0) & (dlt < 1))):
            raise ValueError(
                f"delta must lie strictly between 0 and 1, got {dlt[~((dlt > 0) & (dlt < 1))].ravel()[0]:g}"
            )
        out = np.empty(dlt.size)
        for i, (d, a, b, c) in enumerate(zip(dlt.ravel(), e0.ravel(), d0.ravel(), users.ravel())):
            a, b, c = float(a), float(b), int(c)
            at_zero = self._point(0.0, a, b, c)  # also caches the minimizer
            top = min(a, self._minimizers[(a, b, c)])
            if at_zero <= d:
                out[i] = 0.0
            elif self._point(top, a, b, c) <= d:
                lo, hi = 0.0, top
                while not bisection_done(lo, hi, self.rtol):
                    mid = 0.5 * (lo + hi)
                    if self._point(mid, a, b, c) <= d:
                        hi = mid
                    else:
                        lo = mid
                out[i] = hi
            else:
                out[i] = a if d >= b else math.inf
        out = out.reshape(shape)
        return float(out) if scalar else out
