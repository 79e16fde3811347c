"""The PLD of a pair of real-valued laws whose likelihood ratio is monotone, one atom per loss cell.

For a pair (P, Q) on the real line whose loss L(x) = log dP/dQ (x) is non-decreasing in x, the
loss grid l_k = k h cuts the line at x_k = L^{-1}(l_k) into cells C_k = (x_k, x_{k+1}] on which
l_k <= L <= l_{k+1}.  Merging each cell into one outcome is a post-processing, so the merged pair
(P_k = P(C_k), Q_k = Q(C_k)), i.e. one atom of P-mass P_k at loss log(P_k / Q_k) in [l_k, l_{k+1}],
is dominated by (P, Q) (data processing).  It also has the same privacy profile at every grid
point: H(e^{l_j}) = E_P[(1 - e^{l_j - L})_+] = sum_{k >= j} (P_k - e^{l_j} Q_k), because the
integrand keeps one sign on each cell.  The connect-the-dots PMFs built from these atoms
(cpp/include/hockeystick/pld/grid/connect_dots.hpp) use only those grid values and the cells' P- and
Q-masses, so:

- the pessimistic PMF is exactly the connect-the-dots chord of the true (P, Q) (Doroshenko,
  Ghazi, Kamath, Kumar, Manurangsi, PETS 2022, Sec. 3): a dominating pair, a certified upper bound
  under composition;
- the optimistic PMF lies below the merged pair's profile, itself below (P, Q)'s: a certified
  lower bound under composition (Blackwell).

The C++ core runs this discretizer (cpp/include/hockeystick/pld/mechanisms/monotone.hpp, whose
opening comment states the cuts, the cut tails sent to +infinity on the pessimistic sides and the
round-off charges) for every monotone pair of the package: the Laplace and Gaussian location
mixtures, the bounded-range pair, and ``pld.sampling``'s examples-per-user mixture and replace-one
mixture; ``core_side_factor`` reads one direction of it.  ``check_mixture`` validates the mixtures'
shifts and weights.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import _core
from ...base import validation as _validation
from ..grid.distribution import Factor
from ..grid.pmf import GridPMF

_PLAIN_COMPONENTS = (
    8  # check_mixture validates up to this many components given as lists of floats in plain Python
)


def check_mixture(
    shifts: Any, weights: Any, names: tuple[str, str] = ("shifts", "weights")
) -> tuple[np.ndarray, np.ndarray]:
    """Shifts >= 0 and finite, weights >= 0 summing to 1 (one length), zero-weight entries dropped;
    a refusal names the arguments as the caller calls them (``names``)."""
    if _plain_mixture(
        shifts, weights
    ):  # a few valid Python floats (the plans' specs): no array checks
        kept = [(x, y) for x, y in zip(shifts, weights) if y > 0.0]
        return np.array([x for x, _ in kept]), np.array([y for _, y in kept])
    s = np.atleast_1d(_validation.as_real_array(shifts, names[0]))
    w = np.atleast_1d(_validation.as_real_array(weights, names[1]))
    _check_mixture_arrays(s, w, names)
    keep = w > 0
    return s[keep], w[keep]


def _plain_mixture(shifts: Any, weights: Any) -> bool:
    """Whether shifts and weights are a few valid Python floats in tuples or lists: one length,
    finite, >= 0, the weights summing to 1 within 1e-9."""
    return bool(
        type(shifts) in (tuple, list)
        and type(weights) in (tuple, list)
        and 0 < len(shifts) == len(weights) <= _PLAIN_COMPONENTS
        and all(type(x) is float and 0.0 <= x < math.inf for x in (*shifts, *weights))
        and abs(sum(weights) - 1.0) <= 1e-9
    )


def _check_mixture_arrays(s: np.ndarray, w: np.ndarray, names: tuple[str, str]) -> None:
    """``check_mixture``'s refusals of the arrays s (shifts) and w (weights)."""
    if s.ndim != 1 or s.shape != w.shape or s.size == 0:
        raise ValueError(
            f"{names[0]} and {names[1]} must be non-empty 1-d sequences of one length, got {s.shape}, {w.shape}"
        )
    if not np.all(np.isfinite(s) & (s >= 0)):
        raise ValueError(f"{names[0]} must be finite and >= 0, got {s.tolist()}")
    if not np.all(np.isfinite(w) & (w >= 0)) or abs(w.sum() - 1.0) > 1e-9:
        raise ValueError(f"{names[1]} must be >= 0 and sum to 1, got {w.tolist()}")


def core_side_factor(name: str, raw: _core.pld_grid.DiscretizedSides) -> Factor:
    """One direction of the C++ core's monotone discretization
    (cpp/include/hockeystick/pld/mechanisms/monotone.hpp: ``_core.pld_mechanisms.laplace_mixture``,
    ``gaussian_mixture``, ``gaussian_mixture_log_weights``, ``bounded_range``,
    ``replace_one_mixture``) as a factor: its PMFs, masses at +infinity and loss shift as the core
    made them (the round-off charges and any cut tail applied there)."""
    if raw.lower is None:  # the monotone pairs' discretization makes both sides
        raise ValueError(f"internal: the core gave {name} no optimistic side")
    h = float(raw.h)
    shift = float(raw.loss_shift)
    upper = GridPMF(int(raw.k_lo), h, raw.upper, float(raw.upper_inf), 0.0, True, loss_shift=shift)
    lower = GridPMF(
        int(raw.lower_k_lo),
        h,
        raw.lower,
        float(raw.lower_inf),
        0.0,
        False,
        loss_shift=shift,
    )
    return Factor(name, upper, lower, bool(raw.connect_dots))
