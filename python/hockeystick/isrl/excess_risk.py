"""Paper 003's finite excess-risk bounds for Noisy MB-SGD (convex case): paper formulas.

Lemma D.6 (proof, before sigma is substituted): for a convex, L-Lipschitz, beta-smooth loss on a
domain of diameter D, constant step eta <= 1/beta and the uniform average of w_0..w_{R-1}
(gamma_r = 1/R), with M silos per round each adding N(0, sigma^2 I_d),

    E F_X(w_hat_R) - F_X* <= D^2 / (2 eta R) + (eta / 2) (d sigma^2 / M + L^2)          (empirical)

and, adding the uniform-stability term of Theorem D.1's proof, alpha = 2 L^2 R eta / (n M) (line
above eq. (17) in the appendix), the population bound

    E F(w_hat_R) - F* <= 2 L^2 R eta / (n M) + D^2 / (2 eta R) + (eta / 2) (d sigma^2 / M + L^2).

Substituting Theorem 2.1's sigma gives Lemma D.6 as stated.  (Theorem D.1's proof writes the last
term as eta L^2 / (2M) (... + 1), dividing the L^2 term by M too; the Lemma keeps eta L^2 / 2, the
larger of the two, which is what this function returns.)  These trade sigma against utility; they
are the paper's bounds, evaluated, not guarantees checked here.
"""

from __future__ import annotations

import numpy as np

from ..base.elementwise import ArrayLike, FloatOrArray, broadcast_float_arrays

__all__ = ["lemma_d6_excess_risk", "lemma_d6_best_step_size"]


def _check(named: dict[str, np.ndarray], integers: tuple[str, ...]) -> None:
    for name, values in named.items():
        ok = np.isfinite(values) & (values >= 0 if name == "sigma" else values > 0)
        if name in integers:
            ok &= values == np.floor(values)
        if not np.all(ok):
            rule = (
                "an integer >= 1"
                if name in integers
                else ("finite and >= 0" if name == "sigma" else "finite and > 0")
            )
            raise ValueError(f"{name} must be {rule}, got {values[~ok].ravel()[0]:g}")


def lemma_d6_excess_risk(
    *,
    lipschitz: ArrayLike,
    diameter: ArrayLike,
    step_size: ArrayLike,
    rounds: ArrayLike,
    sigma: ArrayLike,
    dimension: ArrayLike,
    silos_per_round: ArrayLike,
    smoothness: ArrayLike,
    silo_size: ArrayLike | None = None,
) -> FloatOrArray:
    r"""Lemma D.6's excess-risk bound for convex Noisy MB-SGD: empirical, or population when ``silo_size`` is given.

    .. math::

        E F_X(\hat w_R) - F_X^* \le \frac{D^2}{2 \eta R} + \frac{\eta}{2}\Big(\frac{d \sigma^2}{M} + L^2\Big)
        \quad \text{(empirical)},

    plus :math:`2 L^2 R \eta / (n M)` (Theorem D.1's uniform-stability term) for the population
    bound :math:`E F(\hat w_R) - F^*`; for a convex, L-Lipschitz, :math:`\beta`-smooth loss,
    constant step :math:`\eta \le 1/\beta` and the uniform average of :math:`w_0, \dots, w_{R-1}`,
    before :math:`\sigma` is substituted (docstring of ``hockeystick.isrl.excess_risk``).  A paper
    formula, evaluated, not a guarantee checked here.

    Parameters
    ----------
    lipschitz : array_like
        Lipschitz constant L of the loss, finite and > 0.
    diameter : array_like
        Diameter D of the (convex) domain, finite and > 0.
    step_size : array_like
        Constant step size :math:`\eta`, finite and > 0, with :math:`\eta \le 1/\beta`.
    rounds : array_like
        Number of rounds R, a whole number >= 1.
    sigma : array_like
        Standard deviation :math:`\sigma` of each silo's Gaussian noise, finite and >= 0.
    dimension : array_like
        Dimension d of the parameter, a whole number >= 1.
    silos_per_round : array_like
        Silos M averaged per round, a whole number >= 1.
    smoothness : array_like
        Smoothness constant :math:`\beta` of the loss, finite and > 0.
    silo_size : array_like or None, default None
        Records n per silo, a whole number >= 1: given, the population bound (with the stability
        term :math:`2 L^2 R \eta / (n M)`); None, the empirical bound.  All arguments are
        keyword-only and broadcast together.

    Returns
    -------
    float or numpy.ndarray
        The bound on the expected excess risk: a float for scalar input, else an array of the
        broadcast shape.

    Raises
    ------
    ValueError
        An argument outside its rule above (the message names it), or ``step_size * smoothness >
        1``.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 003, Lemma D.6 and the proof of Theorem D.1.

    Examples
    --------
    >>> from hockeystick.isrl import lemma_d6_excess_risk
    >>> args = dict(lipschitz=1, diameter=1, rounds=100, sigma=1, dimension=10, silos_per_round=5, smoothness=1)
    >>> round(lemma_d6_excess_risk(step_size=0.01, **args), 6)
    0.515
    >>> round(lemma_d6_excess_risk(step_size=0.01, silo_size=1000, **args), 6)
    0.5154
    """
    named = dict(
        lipschitz=lipschitz,
        diameter=diameter,
        step_size=step_size,
        rounds=rounds,
        sigma=sigma,
        dimension=dimension,
        silos_per_round=silos_per_round,
        smoothness=smoothness,
        silo_size=1.0 if silo_size is None else silo_size,
    )
    arrays, _, scalar = broadcast_float_arrays(**named)
    lip, diam, eta, r, sig, d, m, beta, n = arrays
    _check(dict(zip(named, arrays)), ("rounds", "dimension", "silos_per_round", "silo_size"))
    if np.any(eta * beta > 1):
        raise ValueError("step_size must be <= 1/smoothness (Lemma D.6 needs eta <= 1/beta)")
    bound = diam**2 / (2 * eta * r) + (eta / 2) * (d * sig**2 / m + lip**2)
    if silo_size is not None:
        bound = bound + 2 * lip**2 * r * eta / (n * m)
    return float(bound) if scalar else bound


def lemma_d6_best_step_size(
    *,
    lipschitz: ArrayLike,
    diameter: ArrayLike,
    rounds: ArrayLike,
    sigma: ArrayLike,
    dimension: ArrayLike,
    silos_per_round: ArrayLike,
    smoothness: ArrayLike,
    silo_size: ArrayLike | None = None,
) -> FloatOrArray:
    r"""The step size minimizing Lemma D.6's excess-risk bound, capped at 1/smoothness.

    .. math::

        \eta^* = \min\Big(\sqrt{A / B},\; \frac1\beta\Big), \qquad
        A = \frac{D^2}{2R}, \quad B = \frac12\Big(\frac{d \sigma^2}{M} + L^2\Big)
        \;\Big(+ \frac{2 L^2 R}{n M} \text{ for the population bound}\Big),

    the minimizer of :math:`A / \eta + B \eta`, the bound of
    :func:`hockeystick.isrl.lemma_d6_excess_risk`.

    Parameters
    ----------
    lipschitz : array_like
        Lipschitz constant L of the loss, finite and > 0.
    diameter : array_like
        Diameter D of the (convex) domain, finite and > 0.
    rounds : array_like
        Number of rounds R, a whole number >= 1.
    sigma : array_like
        Standard deviation :math:`\sigma` of each silo's Gaussian noise, finite and >= 0.
    dimension : array_like
        Dimension d of the parameter, a whole number >= 1.
    silos_per_round : array_like
        Silos M averaged per round, a whole number >= 1.
    smoothness : array_like
        Smoothness constant :math:`\beta` of the loss, finite and > 0.
    silo_size : array_like or None, default None
        Records n per silo, a whole number >= 1: given, the population bound (with the stability
        term :math:`2 L^2 R \eta / (n M)`); None, the empirical bound.  All arguments are
        keyword-only and broadcast together.

    Returns
    -------
    float or numpy.ndarray
        :math:`\eta^*`: a float for scalar input, else an array of the broadcast shape.

    Raises
    ------
    ValueError
        An argument outside its rule above (the message names it).
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 003, Lemma D.6.

    Examples
    --------
    >>> from hockeystick.isrl import lemma_d6_best_step_size
    >>> args = dict(lipschitz=1, diameter=1, rounds=100, sigma=1, dimension=10, silos_per_round=5, smoothness=1)
    >>> round(lemma_d6_best_step_size(**args), 6)
    0.057735
    """
    (lip, diam, r, sig, d, m, beta, n), _, scalar = broadcast_float_arrays(
        lipschitz=lipschitz,
        diameter=diameter,
        rounds=rounds,
        sigma=sigma,
        dimension=dimension,
        silos_per_round=silos_per_round,
        smoothness=smoothness,
        silo_size=1.0 if silo_size is None else silo_size,
    )
    _check(
        dict(
            lipschitz=lip,
            diameter=diam,
            rounds=r,
            sigma=sig,
            dimension=d,
            silos_per_round=m,
            smoothness=beta,
            silo_size=n,
        ),
        ("rounds", "dimension", "silos_per_round", "silo_size"),
    )
    slope = (d * sig**2 / m + lip**2) / 2 + (0.0 if silo_size is None else 2 * lip**2 * r / (n * m))
    eta = np.minimum(np.sqrt(diam**2 / (2 * r) / slope), 1 / beta)
    return float(eta) if scalar else eta
