"""RDP accountants for the Gaussian and Poisson-subsampled Gaussian mechanisms, composed over rounds.

The classic baseline users compare against (what dp_accounting's and Opacus' RDP accountants report):
RDP adds under composition, eps_R(alpha) = rounds * eps_step(alpha) (Mironov 2017, Prop. 1), and the
(eps, delta) conversion is minimised over ``orders`` (see ``conversion``).  RDP conversions are upper
bounds, loose by design; the exact Gaussian answer is ``hockeystick.fdp.GaussianDP``.
"""

from __future__ import annotations

from typing import cast

import numpy as np
import numpy.typing as npt

from ..base.accountant import Bound
from ..base.validation import broadcast, choice, in_interval, nonnegative, positive, positive_integer, upper_only
from .conversion import CONVERSIONS, rdp_to_delta, rdp_to_epsilon
from .mechanisms import check_orders, subsampled_gaussian_rdp

__all__ = ["SubsampledGaussianRDP", "compose_rdp"]


def compose_rdp(*rdp: npt.ArrayLike) -> np.ndarray:
    """RDP of a composition at common orders: the sum of the curves (Mironov 2017, Prop. 1)."""
    if not rdp:
        raise ValueError("give at least one RDP curve")
    curves = [nonnegative(r, f"rdp[{i}]", finite=False) for i, r in enumerate(rdp)]
    try:
        return cast(np.ndarray, np.sum(np.broadcast_arrays(*curves), axis=0))
    except ValueError:
        raise ValueError("RDP curves must share their orders axis and broadcast together") from None


class SubsampledGaussianRDP:
    """RDP accountant of ``rounds`` steps of the Poisson-subsampled Gaussian (noise multiplier ``sigma``).

    Parameters broadcast together (keyword-only): sigma > 0, sampling_rate q in [0, 1] (1 = no
    sampling: the plain Gaussian), rounds >= 1 (whole), orders (default: dp_accounting's default
    orders), conversion "tight" (Balle et al. 2020 / Canonne et al. 2020, as dp_accounting) or "classic",
    fractional_series "absolute" (dp_accounting's upper bound at fractional orders) or "signed" (exact,
    tighter; see ``hockeystick.rdp.mechanisms``).
    ``rdp`` has shape params.shape + (len(orders),).  Each distinct (sigma, q) is computed once.
    """

    def __init__(
        self,
        *,
        sigma: npt.ArrayLike,
        sampling_rate: npt.ArrayLike = 1.0,
        rounds: npt.ArrayLike = 1,
        orders: npt.ArrayLike | None = None,
        conversion: str = "tight",
        fractional_series: str = "absolute",
    ) -> None:
        self.conversion = choice(conversion, "conversion", CONVERSIONS)
        p = broadcast(
            sigma=positive(sigma, "sigma"),
            sampling_rate=in_interval(sampling_rate, "sampling_rate", 0.0, 1.0, open_low=False, open_high=False),
            rounds=positive_integer(rounds, "rounds"),
        )
        self.parameters = p
        self.orders = check_orders(orders)
        pairs = np.stack([p["sigma"].ravel(), p["sampling_rate"].ravel()], axis=-1)
        unique, inverse = np.unique(pairs, axis=0, return_inverse=True)
        step = subsampled_gaussian_rdp(unique[:, 0], unique[:, 1], self.orders, fractional_series=fractional_series)
        shape = p["sigma"].shape
        self.rdp = step[inverse.ravel()].reshape(shape + self.orders.shape) * p["rounds"][..., None]

    def epsilon(
        self, delta: npt.ArrayLike, *, bound: Bound = "upper", conversion: str | None = None
    ) -> float | np.ndarray:
        """Smallest eps certified at ``delta`` (broadcast with the parameters); an upper bound only."""
        upper_only(bound, type(self).__name__)
        return rdp_to_epsilon(self.rdp, self.orders, delta, conversion=conversion or self.conversion)

    def delta(
        self, epsilon: npt.ArrayLike, *, bound: Bound = "upper", conversion: str | None = None
    ) -> float | np.ndarray:
        """Smallest delta certified at ``epsilon`` (broadcast with the parameters); an upper bound only."""
        upper_only(bound, type(self).__name__)
        return rdp_to_delta(self.rdp, self.orders, epsilon, conversion=conversion or self.conversion)

    def __repr__(self) -> str:
        return f"SubsampledGaussianRDP(shape={self.rdp.shape[:-1]}, orders={self.orders.size}, conversion={self.conversion!r})"
