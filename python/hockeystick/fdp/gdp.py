"""The mu-GDP accountant and its conversions (paper 004 Lemmas 7 and 8; Dong, Roth, Su 2022).

    delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) = theta(mu, eps)   (eq. 8)
    epsilon(delta): the eps solving theta(mu, eps) = delta
    mu_for(eps, delta): the largest mu that is (eps, delta)-DP (theta(mu, eps) = delta)
    RDP: mu-GDP is (zeta, mu^2 zeta / 2)-RDP for every zeta > 1   (Lemma 8)
    composition: mu = sqrt(sum mu_i^2)

delta(eps) is exact (mu-GDP is equivalent to this whole profile); as an accountant it reports it
rounded outward (docs/architecture.md, "Outward rounding"): delta(eps) is theta widened by its
documented error (1e-12 relative) and rounded up, epsilon(delta) an eps whose widened theta is
<= delta, and mu_for a mu whose widened theta is <= delta (``hockeystick.numerics.certified_theta``).
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import numpy.typing as npt

from ..base.accountant import Bound
from ..base.validation import (
    bound_side,
    broadcast,
    certified_sides,
    delta_values,
    epsilon_values,
    nonnegative,
    positive,
    scalar_or_array,
)
from ..numerics import certified_theta as _ct
from .tradeoff import gaussian_tradeoff

__all__ = ["GaussianDP", "compose_gdp", "gdp_to_rdp"]


def compose_gdp(*mu: npt.ArrayLike) -> float | np.ndarray:
    """mu of the composition of mu_i-GDP mechanisms: sqrt(sum mu_i^2) (Dong, Roth, Su 2022, Cor. 3.3)."""
    if not mu:
        raise ValueError("give at least one mu")
    arrays = [nonnegative(m, f"mu[{i}]", finite=False) for i, m in enumerate(mu)]
    total = np.sqrt(sum(np.square(a) for a in broadcast(**{f"mu{i}": a for i, a in enumerate(arrays)}).values()))
    return scalar_or_array(np.asarray(total))


def gdp_to_rdp(mu: npt.ArrayLike, orders: npt.ArrayLike) -> float | np.ndarray:
    """Renyi DP of mu-GDP at order zeta > 1: mu^2 zeta / 2 (paper 004 Lemma 8), broadcast."""
    mu_arr = nonnegative(mu, "mu")
    zeta = positive(orders, "orders")
    if (zeta <= 1).any():
        raise ValueError("orders must be > 1 (Lemma 8 holds for zeta > 1)")
    return cast("float | np.ndarray", scalar_or_array(0.5 * np.square(mu_arr) * zeta))


class GaussianDP:
    """A mu-GDP guarantee as an accountant: ``delta(eps) = theta(mu, eps)``, ``epsilon(delta)``.

    ``mu`` may be an array; every call broadcasts it with its argument.
    """

    def __init__(self, mu: npt.ArrayLike) -> None:
        self.mu = scalar_or_array(nonnegative(mu, "mu", finite=False))

    def delta(self, epsilon: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None) -> Any:
        """delta(eps) = theta(mu, eps)  (paper 004 Lemma 7, eq. 8), exact; reported rounded outward
        (docs/architecture.md): ``bound="upper"`` theta rounded up, ``"lower"`` rounded down."""
        bound_side(bound)
        eps = epsilon_values(epsilon)
        return certified_sides(
            bound,
            lambda: _ct.theta_lower(self.mu, eps, threads=threads),
            lambda: _ct.theta_upper(self.mu, eps, threads=threads),
        )

    def epsilon(self, delta: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None) -> Any:
        """Smallest eps >= 0 with theta(mu, eps) <= delta, delta in (0, 1), rounded outward on each side."""
        bound_side(bound)
        dlt = delta_values(delta)
        return certified_sides(
            bound,
            lambda: _ct.theta_epsilon_lower(self.mu, dlt, threads=threads),
            lambda: _ct.theta_epsilon_upper(self.mu, dlt, threads=threads),
        )

    def tradeoff(self, alpha: npt.ArrayLike) -> float | np.ndarray:
        """T_G(mu)(alpha), the type II error floor at type I error alpha."""
        return gaussian_tradeoff(self.mu, alpha)

    def rdp(self, orders: npt.ArrayLike) -> float | np.ndarray:
        """(zeta, mu^2 zeta / 2)-RDP  (Lemma 8)."""
        return gdp_to_rdp(self.mu, orders)

    def compose(self, other: GaussianDP) -> GaussianDP:
        return GaussianDP(compose_gdp(self.mu, other.mu))

    @staticmethod
    def mu_for(epsilon: npt.ArrayLike, delta: npt.ArrayLike, *, threads: int | None = None) -> float | np.ndarray:
        """The largest mu whose GDP guarantee is (eps, delta)-DP: theta(mu, eps) = delta, rounded down (certified)."""
        return _ct.theta_radius_lower(nonnegative(epsilon, "epsilon"), delta_values(delta), threads=threads)

    def __repr__(self) -> str:
        return f"GaussianDP(mu={self.mu!r})"
