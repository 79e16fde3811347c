r"""Local DP per round: each client noises its own update, calibrated exactly, and composes over its rounds.

A client that clips its update and adds :math:`\mathcal N(0, \sigma^2 I)` before sending it
(Flower's ``LocalDpMod``) runs the Gaussian mechanism of sensitivity Δ in each round it takes part
in; nothing of the server's (sampling, aggregation) amplifies it, since the server sees the client's
own release.  Each round is exactly (ε, δ)-DP when

.. math::

    \delta \ge \theta(\Delta/\sigma, \varepsilon)
    = \Phi\Big(\frac{\Delta}{2\sigma} - \frac{\varepsilon\sigma}{\Delta}\Big)
      - e^{\varepsilon}\,\Phi\Big(-\frac{\Delta}{2\sigma} - \frac{\varepsilon\sigma}{\Delta}\Big)

(Balle & Wang 2018, "Improving the Gaussian mechanism for differential privacy", Thm. 8, the
analytic Gaussian mechanism), so the smallest σ for a per-round (ε, δ) is Δ / r with r the root of
θ(r, ε) = δ (``fdp.GaussianDP.mu_for``).  ``LocalDpMod`` uses the classical σ = Δ √(2 ln(1.25/δ)) /
ε (Dwork & Roth 2014, Thm. A.1), proved for ε < 1 only (it is loose there, and at larger ε it can
fall short of (ε, δ)).

A client's R releases compose exactly: each is μ-GDP with μ = Δ/σ, and R of them (adaptively chosen)
are √R Δ/σ-GDP (Dong, Roth & Su 2022, Cor. 3.3), the curve ``fdp.GaussianMechanism`` gives.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import validation as _validation
from ..base.elementwise import ArrayLike
from ..fdp.gaussian_mechanism import GaussianMechanism
from ..fdp.gdp import GaussianDP

__all__ = ["LocalDP"]


class LocalDP(GaussianMechanism):
    r"""Local Gaussian noise calibrated exactly to a per-round (ε, δ), and a client's guarantee over its rounds.

    Each round the client adds :math:`\mathcal N(0, \sigma^2 I)` to its update (L2 sensitivity Δ),
    with

    .. math::

        \sigma = \Delta / r, \qquad \theta(r, \varepsilon) = \delta, \qquad
        \theta(r, \varepsilon) = \Phi\Big(\frac{r}{2} - \frac{\varepsilon}{r}\Big)
          - e^{\varepsilon}\,\Phi\Big(-\frac{r}{2} - \frac{\varepsilon}{r}\Big),

    the smallest noise that makes one round (ε, δ)-DP (Balle & Wang 2018, Thm. 8), for every ε >= 0.
    Over the R rounds the client takes part in, its releases compose exactly to the Gaussian of
    :math:`\mu = \sqrt{R}\,\Delta/\sigma` (Dong, Roth & Su 2022, Cor. 3.3): ``delta`` and
    ``epsilon`` are that curve's, :math:`\delta(\varepsilon) = \theta(\mu, \varepsilon)`, each side
    rounded outward (``fdp.GaussianMechanism``). ``classical_sigma`` is the classical calibration
    Flower's ``LocalDpMod`` uses, for comparison.

    Parameters
    ----------
    epsilon_per_round : array_like
        ε of one round (``LocalDpMod``'s ``epsilon``), finite and >= 0.
    delta_per_round : array_like
        δ of one round (``LocalDpMod``'s ``delta``), strictly between 0 and 1.
    sensitivity : array_like, default 1.0
        Δ, the L2 sensitivity of one release, finite and > 0: 2C for an update clipped to norm C
        (local DP compares any two updates of the client), C if only an update against none is to be
        hidden.
    rounds : array_like, default 1
        R, the rounds the client takes part in, a whole number >= 1.

    Attributes
    ----------
    sigma : float or numpy.ndarray
        The noise's standard deviation per round, Δ / r rounded up: never below the exact minimum.
    mu : float or numpy.ndarray
        The client's GDP radius over its rounds, √R Δ / σ, rounded up (``mu_lower``: rounded down).
    sensitivity : float or numpy.ndarray
        Δ, broadcast.
    rounds : float or numpy.ndarray
        R, broadcast.

    Raises
    ------
    ValueError
        ``epsilon_per_round`` negative, infinite or NaN; ``delta_per_round`` outside (0, 1);
        ``sensitivity`` not finite and > 0; ``rounds`` not a whole number >= 1; shapes that do not
        broadcast.
    ParameterTypeError
        A string, bool or None for a number.

    See Also
    --------
    hockeystick.fdp.GaussianMechanism : the composed curve, given σ.

    References
    ----------
    Balle & Wang 2018, "Improving the Gaussian mechanism for differential privacy" (ICML), Thm. 8;
    Dwork & Roth 2014, Thm. A.1 (the classical calibration); Dong, Roth & Su 2022, Cor. 3.3 (GDP
    composition).

    Examples
    --------
    >>> from hockeystick.training import LocalDP
    >>> local = LocalDP(epsilon_per_round=0.5, delta_per_round=1e-5, rounds=100)
    >>> round(local.sigma, 4), round(local.classical_sigma, 4)  # exact, and LocalDpMod's
    (7.0318, 9.6896)
    >>> round(local.epsilon(1e-5), 3)  # the client's epsilon over its 100 rounds
    6.617
    """

    def __init__(
        self,
        *,
        epsilon_per_round: ArrayLike,
        delta_per_round: ArrayLike,
        sensitivity: ArrayLike = 1.0,
        rounds: ArrayLike = 1,
    ) -> None:
        p = _validation.broadcast(
            epsilon_per_round=_validation.nonnegative(epsilon_per_round, "epsilon_per_round"),
            delta_per_round=_validation.delta_values(delta_per_round, "delta_per_round"),
            sensitivity=_validation.positive(sensitivity, "sensitivity"),
            rounds=_validation.positive_integer(rounds, "rounds"),
        )
        # r: theta(r, eps) <= delta certified, so r is at most the exact root and Delta / r at least
        # the exact sigma; the quotient rounded up keeps Delta / sigma <= r
        radius = np.asarray(GaussianDP.mu_for(p["epsilon_per_round"], p["delta_per_round"]))
        sigma = np.nextafter(p["sensitivity"] / radius, np.inf)
        super().__init__(sigma=sigma, sensitivity=p["sensitivity"], rounds=p["rounds"])
        self.sigma = _validation.scalar_or_array(sigma)
        self.sensitivity = _validation.scalar_or_array(p["sensitivity"])
        self.rounds = _validation.scalar_or_array(p["rounds"])
        self._per_round = (p["epsilon_per_round"], p["delta_per_round"])

    @property
    def classical_sigma(self) -> Any:
        r"""The classical calibration σ = Δ √(2 ln(1.25/δ)) / ε of one round, Flower's ``LocalDpMod``'s.

        Dwork & Roth 2014, Thm. A.1, proves it (ε, δ)-DP for 0 < ε < 1 only; there it is at least
        ``sigma``, the exact calibration.

        Returns
        -------
        float or numpy.ndarray
            Δ √(2 ln(1.25/δ)) / ε at each point.

        Raises
        ------
        ValueError
            ``epsilon_per_round`` >= 1 or 0 at some point, where the classical formula proves
            nothing (at large ε its σ is below what (ε, δ) needs); ``sigma`` holds for every ε.
        """
        epsilon, delta = self._per_round
        outside = ~((epsilon > 0) & (epsilon < 1))
        if outside.any():
            bad = float(epsilon.ravel()[int(np.argmax(outside.ravel()))])
            raise ValueError(
                "classical_sigma: the classical Gaussian calibration Delta sqrt(2 ln(1.25/delta)) / epsilon is proved "
                f"for 0 < epsilon_per_round < 1 only (Dwork & Roth 2014, Thm. A.1), got epsilon_per_round = {bad:g}; "
                "beyond it the formula can give less noise than (epsilon, delta)-DP needs. Read sigma, the exact "
                "calibration, which holds for every epsilon_per_round"
            )
        return _validation.scalar_or_array(
            self.sensitivity * np.sqrt(2.0 * np.log(1.25 / delta)) / epsilon
        )

    def __repr__(self) -> str:
        epsilon, delta = (_validation.scalar_or_array(x) for x in self._per_round)
        return (
            f"LocalDP(epsilon_per_round={epsilon!r}, delta_per_round={delta!r}, sensitivity={self.sensitivity!r}, "
            f"rounds={self.rounds!r})"
        )
