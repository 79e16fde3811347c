"""Noisy FedProx, final model released (paper 004 eq. 4, Theorem 15), as a mu-GDP accountant.

Local step w <- w - eta [g + alpha (w - w_t)] with proximal coefficient alpha > L.  With a constant
rate a and K local steps, Lemmas 22-23 give per round (exact, and the theorem's K-free upper bounds)

    rho   = alpha/(alpha-L) - L (1 - a(alpha-L))^K / (alpha-L)   <=  alpha/(alpha-L)
    gamma = (2V/m) (1 - (1 - a alpha)^K) / alpha                  <=  2V/(m alpha)

and eq. 16 with constant rho, gamma gives Theorem 15 (eq. 21):

    mu = 2V/(sqrt(m) alpha sigma) sqrt((2 alpha - L)/L * (alpha^T - (alpha-L)^T)/(alpha^T + (alpha-L)^T)),

with limit 2V/(sqrt(m) alpha sigma) sqrt((2 alpha - L)/L) as T -> infinity.

Conditions.  alpha > L (Theorem 15).  The theorem states eta < 1/(alpha - L), but both lemmas'
proofs pull (1 - eta alpha) out of a norm, which needs eta alpha <= 1; the weaker printed condition
lets |1 - eta alpha| exceed 1 - eta alpha and the constants above fail.  hockeystick requires
learning_rate * proximal <= 1 (which implies the printed condition).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..base.validation import broadcast, choice, nonnegative, positive, positive_integer
from .interpolation import (
    InterpolationBound,
    LastIterateAccountant,
    constant_rate_root_h0,
    mu_coefficient,
)

__all__ = ["NoisyFedProx"]

CONSTANTS = ("theorem", "exact")


class NoisyFedProx(LastIterateAccountant):
    r"""GDP parameter mu and privacy profile of the final model of noisy FedProx (paper 004, Theorem 15).

    Each local step is :math:`w \leftarrow w - a[g + \alpha(w - w_t)]` (proximal coefficient
    :math:`\alpha > L`, constant rate a, K steps). Per round, exactly and with the theorem's K-free
    upper bounds,

    .. math::

        \rho = \frac{\alpha}{\alpha - L} - \frac{L (1 - a(\alpha - L))^K}{\alpha - L}
              \le \frac{\alpha}{\alpha - L}, \qquad
        \gamma = \frac{2V}{m} \cdot \frac{1 - (1 - a\alpha)^K}{\alpha} \le \frac{2V}{m\alpha},

    and eq. 16 with these constants gives eq. 21,

    .. math::

        \mu_{H_0} = \frac{2V}{\sqrt{m}\,\alpha\sigma}
          \sqrt{\frac{2\alpha - L}{L} \cdot \frac{\alpha^T - (\alpha - L)^T}{\alpha^T + (\alpha - L)^T}}
          \quad (\text{theorem constants}).

    rho > 1 is constant, so eq. 41 fails for T >= 2 and ``mu`` (valid, the default of
    ``delta``/``epsilon``) equals ``mu_composition`` :math:`= \sqrt{mT}\,\gamma/\sigma`; with
    ``constants="exact"`` a linear loss attains it (tight), with the theorem's constants it is valid
    but loose. ``mu_paper_h0`` (eq. 21 with ``constants="theorem"``) and ``mu_paper_h0_limit`` are
    NOT valid bounds for T >= 2; they reproduce the paper (``interpolation="h0"``).
    ``delta(epsilon)`` is :math:`\theta(\mu, \varepsilon)` rounded up (eq. 8), ``epsilon(delta)``
    its inverse.

    Parameters
    ----------
    clients : array_like
        Number of clients m, finite and > 0.
    sigma : array_like
        Standard deviation of each client's upload noise, finite and > 0.
    clip : array_like
        Clipping norm V, finite and >= 0.
    lipschitz : array_like
        Smoothness constant L of the loss, finite and > 0.
    proximal : array_like
        Proximal coefficient alpha, finite and > ``lipschitz``.
    learning_rate : array_like
        Constant local rate a, finite and > 0, with ``learning_rate * proximal <= 1`` (the proofs of
        Lemmas 22-23 need it; the theorem's printed :math:`a < 1/(\alpha - L)` is not enough).
    rounds : array_like
        Rounds T, a whole number >= 1.
    local_steps : array_like, optional
        Local steps K, a whole number >= 1; required with ``constants="exact"``, unused otherwise.
    constants : {"theorem", "exact"}, default "theorem"
        The theorem's K-free rho, gamma (so ``mu_paper_h0`` is eq. 21) or the exact constant-rate
        ones (smaller: ``mu`` tighter).

    Raises
    ------
    ValueError
        A parameter outside its range above; ``proximal <= lipschitz``; ``learning_rate * proximal >
        1``; ``local_steps`` missing with ``constants="exact"``; an unknown ``constants``; shapes
        that do not broadcast.
    ParameterTypeError
        A numeric parameter that is a string, bool or None.

    Notes
    -----
    The parameters are keyword-only; the numeric ones broadcast together, and with the argument of
    ``delta``/``epsilon``.

    References
    ----------
    Paper 004, eq. 4, Theorem 15 (eq. 21), Lemmas 22-23, Lemma 7 (eq. 8); docs/paper-004-errata.md,
    sections 1, 6 and 7.

    Examples
    --------
    >>> from hockeystick.fdp import NoisyFedProx
    >>> fedprox = NoisyFedProx(
    ...     clients=20, sigma=1.0, clip=10.0, lipschitz=1.0, proximal=5.0, learning_rate=0.01, rounds=600
    ... )
    >>> round(fedprox.mu_paper_h0, 9), round(fedprox.mu, 6)
    (2.683281573, 21.908902)
    """

    def __init__(
        self,
        *,
        clients: npt.ArrayLike,
        sigma: npt.ArrayLike,
        clip: npt.ArrayLike,
        lipschitz: npt.ArrayLike,
        proximal: npt.ArrayLike,
        learning_rate: npt.ArrayLike,
        rounds: npt.ArrayLike,
        local_steps: npt.ArrayLike | None = None,
        constants: str = "theorem",
    ) -> None:
        self.constants = choice(constants, "constants", CONSTANTS)
        named = dict(
            clients=positive(clients, "clients"),
            sigma=positive(sigma, "sigma"),
            clip=nonnegative(clip, "clip"),
            lipschitz=positive(lipschitz, "lipschitz"),
            proximal=positive(proximal, "proximal"),
            learning_rate=positive(learning_rate, "learning_rate"),
            rounds=positive_integer(rounds, "rounds"),
        )
        if constants == "exact":
            if local_steps is None:
                raise ValueError('local_steps is required with constants="exact"')
            named["local_steps"] = positive_integer(local_steps, "local_steps")
        p = broadcast(**named)
        self.parameters = p
        m, V, L, alpha, a, T = (
            p[k] for k in ("clients", "clip", "lipschitz", "proximal", "learning_rate", "rounds")
        )
        if (alpha <= L).any():
            bad = np.argwhere(alpha <= L)[0]
            raise ValueError(
                f"proximal must exceed lipschitz (Theorem 15 needs alpha > L; got alpha="
                f"{alpha[tuple(bad)]!r}, L={L[tuple(bad)]!r})"
            )
        if (a * alpha > 1).any():
            bad = np.argwhere(a * alpha > 1)[0]
            raise ValueError(
                "learning_rate * proximal must be <= 1 (the proofs of Lemmas 22-23 need "
                "1 - eta alpha >= 0; the printed eta < 1/(alpha - L) is not enough; got "
                f"learning_rate={a[tuple(bad)]!r}, proximal={alpha[tuple(bad)]!r})"
            )
        gap = alpha - L
        # gamma = (2V/(m alpha)) g with g = 1 (theorem) or 1 - (1 - a alpha)^K (exact); sqrt(H) is
        # kept in units of 2V/(m alpha), and mu = sqrt(m H) / sigma = 2 V / (sqrt(m) alpha sigma) *
        # that.
        if constants == "theorem":
            log_rho = -np.log1p(-L / alpha)
            unit_gamma = np.ones(alpha.shape)
        else:
            K = p["local_steps"]
            contraction = -np.expm1(K * np.log1p(-a * gap))  # 1 - (1 - a(alpha - L))^K
            log_rho = np.log1p(L * contraction / gap)
            unit_gamma = -np.expm1(K * np.log1p(-a * alpha))
        self._coefficient = mu_coefficient((2.0, V), (np.sqrt(m), alpha, p["sigma"]))
        root_h0, self._root_h0_limit = constant_rate_root_h0(log_rho, unit_gamma, T)
        root_comp = unit_gamma * np.sqrt(T)
        self._root_h = InterpolationBound(root_h0, root_comp, root_comp, (T == 1) | (log_rho == 0))

    @property
    def mu_paper_h0_limit(self) -> float | np.ndarray:
        """T -> infinity limit of ``mu_paper_h0`` (eq. 21's limit, chosen constants); ``mu`` grows like sqrt(T)."""
        return self._mu_of(self._root_h0_limit)

    def __repr__(self) -> str:
        return f"NoisyFedProx(constants={self.constants!r}, shape={np.shape(self._root_h.h0)})"
