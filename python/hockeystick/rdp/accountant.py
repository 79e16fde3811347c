"""RDP accountants for the Gaussian and Poisson-subsampled Gaussian mechanisms, composed over rounds.

The classic baseline users compare against (what dp_accounting's and Opacus' RDP accountants
report): RDP adds under composition, eps_R(alpha) = rounds * eps_step(alpha) (Mironov 2017, Prop.
1), and the (eps, delta) conversion is minimised over ``orders`` (see ``conversion``).  RDP
conversions are upper bounds, loose by design; the exact Gaussian answer is
``hockeystick.fdp.GaussianDP``.
"""

from __future__ import annotations

from typing import cast

import numpy as np
import numpy.typing as npt

from ..base.accountant import UPPER_ONLY, Bound
from ..base.accountant_docs import accountant_docs
from ..base.validation import (
    broadcast,
    choice,
    in_interval,
    nonnegative,
    positive,
    positive_integer,
    upper_only,
)
from .conversion import CONVERSIONS, Conversion, rdp_to_delta, rdp_to_epsilon
from .mechanisms import check_orders, subsampled_gaussian_rdp

__all__ = ["SubsampledGaussianRDP", "compose_rdp"]


def compose_rdp(*rdp: npt.ArrayLike) -> np.ndarray:
    r"""RDP curve of a composition at common orders: the sum of the mechanisms' curves.

    .. math::

        \varepsilon_R(\alpha) = \sum_i \varepsilon_{R,i}(\alpha).

    Parameters
    ----------
    *rdp : array_like
        One RDP curve per mechanism, each >= 0 (``inf`` allowed, NaN refused), with the orders on
        the last axis; the curves broadcast together.

    Returns
    -------
    numpy.ndarray
        The sum, of the curves' broadcast shape.

    Raises
    ------
    ValueError
        If no curve is given, a value is negative or NaN, or the curves do not broadcast together.
    ParameterTypeError
        If a curve is a string, a boolean or None.

    References
    ----------
    Mironov 2017, Prop. 1.

    Examples
    --------
    >>> from hockeystick.rdp import compose_rdp
    >>> compose_rdp([0.5, 1.0], [0.25, 0.5])
    array([0.75, 1.5 ])
    """
    if not rdp:
        raise ValueError("give at least one RDP curve")
    curves = [nonnegative(r, f"rdp[{i}]", finite=False) for i, r in enumerate(rdp)]
    try:
        return cast(np.ndarray, np.sum(np.broadcast_arrays(*curves), axis=0))
    except ValueError:
        raise ValueError("RDP curves must share their orders axis and broadcast together") from None


@accountant_docs(
    sides=UPPER_ONLY
)  # completes delta / epsilon docstrings with the contract's sections
class SubsampledGaussianRDP:
    r"""RDP accountant of ``rounds`` steps of the Poisson-subsampled Gaussian with noise multiplier ``sigma``.

    The RDP of the composition is ``rounds`` times one step's curve, :math:`\varepsilon_R(\alpha) =
    T\, \varepsilon_{\text{step}}(\alpha)`, and ``epsilon``/``delta`` convert it to (eps, delta),
    minimised over the orders (``rdp_to_epsilon``, ``rdp_to_delta``).  These are upper bounds only,
    loose by design: the baseline dp_accounting's and Opacus' RDP accountants report.

    Parameters
    ----------
    sigma : array_like
        Noise multiplier (noise standard deviation over the sensitivity), sigma > 0.  Keyword-only,
        as all parameters; ``sigma``, ``sampling_rate`` and ``rounds`` broadcast together.
    sampling_rate : array_like, optional
        Poisson sampling probability q, 0 <= q <= 1 (default 1: no sampling, the plain Gaussian
        mechanism).
    rounds : array_like, optional
        Number of steps T, a whole number >= 1 (default 1).
    orders : array_like, optional
        Renyi orders, a non-empty 1-d sequence in (1, 10^4]; default (None): ``DEFAULT_ORDERS``,
        dp_accounting's default orders.
    conversion : {"tight", "classic"}, optional
        The RDP to (eps, delta) conversion: ``"tight"`` (default; Balle et al. 2020, as
        dp_accounting) or ``"classic"`` (Mironov 2017, Prop. 3).
    fractional_series : {"absolute", "signed"}, optional
        The series at fractional orders: ``"absolute"`` (default; dp_accounting's upper bound) or
        ``"signed"`` (exact, tighter; see ``hockeystick.rdp.mechanisms``).

    Attributes
    ----------
    rdp : numpy.ndarray
        The composed RDP curve, of shape ``broadcast shape + (len(orders),)``; each distinct
        (sigma, q) is computed once.
    orders : numpy.ndarray
        The orders used.
    conversion : str
        The default conversion of ``epsilon`` and ``delta``.
    parameters : dict
        ``sigma``, ``sampling_rate`` and ``rounds`` broadcast to one shape.

    Raises
    ------
    ValueError
        If sigma is not finite and > 0, ``sampling_rate`` lies outside [0, 1], ``rounds`` is not a
        whole number >= 1, the three do not broadcast together, an order lies outside (1, 10^4], or
        ``conversion`` or ``fractional_series`` is not one of its two values.
    ParameterTypeError
        If a parameter is a string, a boolean or None.

    See Also
    --------
    hockeystick.pld.SubsampledGaussianPLD : the certified two-sided accountant of the same mechanism.

    Notes
    -----
    ``epsilon(delta, bound="upper", conversion=None)`` is the least eps the curve certifies at
    delta, 0 < delta < 1; ``delta(epsilon, bound="upper", conversion=None)`` the least delta at
    epsilon >= 0.  Both broadcast their argument with the parameters and return a float for scalar
    inputs; ``conversion`` overrides the accountant's; ``bound`` other than ``"upper"`` is refused
    (no lower bound is known).

    References
    ----------
    Mironov 2017, Prop. 1 (composition) and Prop. 3 (classic conversion); Mironov, Talwar & Zhang
    2019 (the subsampled Gaussian's RDP); Balle et al. 2020, Thm 21 (tight conversion).

    Examples
    --------
    >>> from hockeystick.rdp import SubsampledGaussianRDP
    >>> acc = SubsampledGaussianRDP(sigma=1.0, sampling_rate=0.01, rounds=1000)
    >>> round(acc.epsilon(1e-5), 4)
    2.1014
    """

    def __init__(
        self,
        *,
        sigma: npt.ArrayLike,
        sampling_rate: npt.ArrayLike = 1.0,
        rounds: npt.ArrayLike = 1,
        orders: npt.ArrayLike | None = None,
        conversion: Conversion = "tight",
        fractional_series: str = "absolute",
    ) -> None:
        self.conversion = choice(conversion, "conversion", CONVERSIONS)
        p = broadcast(
            sigma=positive(sigma, "sigma"),
            sampling_rate=in_interval(
                sampling_rate, "sampling_rate", 0.0, 1.0, open_low=False, open_high=False
            ),
            rounds=positive_integer(rounds, "rounds"),
        )
        self.parameters = p
        self.orders = check_orders(orders)
        pairs = np.stack([p["sigma"].ravel(), p["sampling_rate"].ravel()], axis=-1)
        unique, inverse = np.unique(pairs, axis=0, return_inverse=True)
        step = subsampled_gaussian_rdp(
            unique[:, 0], unique[:, 1], self.orders, fractional_series=fractional_series
        )
        shape = p["sigma"].shape
        self.rdp = step[inverse.ravel()].reshape(shape + self.orders.shape) * p["rounds"][..., None]

    def epsilon(
        self, delta: npt.ArrayLike, *, bound: Bound = "upper", conversion: Conversion | None = None
    ) -> float | np.ndarray:
        """Upper bound on the smallest eps with delta(eps) <= ``delta``, from the RDP curve.

        Upper side only: RDP certifies no lower bound.

        Parameters
        ----------
        conversion : {"tight", "classic"}, optional
            Overrides the accountant's conversion (None, the default, keeps it).

        Raises
        ------
        ValueError
            ``conversion`` not one of the two.
        """
        upper_only(bound, type(self).__name__)
        return rdp_to_epsilon(
            self.rdp, self.orders, delta, conversion=conversion or self.conversion
        )

    def delta(
        self,
        epsilon: npt.ArrayLike,
        *,
        bound: Bound = "upper",
        conversion: Conversion | None = None,
    ) -> float | np.ndarray:
        """Upper bound on delta(``epsilon``), from the RDP curve.

        Upper side only: RDP certifies no lower bound.

        Parameters
        ----------
        conversion : {"tight", "classic"}, optional
            Overrides the accountant's conversion (None, the default, keeps it).

        Returns
        -------
        float or numpy.ndarray
            The value is 0 at epsilon = inf.

        Raises
        ------
        ValueError
            ``conversion`` not one of the two.
        """
        upper_only(bound, type(self).__name__)
        return rdp_to_delta(
            self.rdp, self.orders, epsilon, conversion=conversion or self.conversion
        )

    def __repr__(self) -> str:
        return f"SubsampledGaussianRDP(shape={self.rdp.shape[:-1]}, orders={self.orders.size}, conversion={self.conversion!r})"
