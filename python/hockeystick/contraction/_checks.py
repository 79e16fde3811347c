"""The contraction theorems' own conditions (eta <= 2/beta, M, finite radii); generic domains come
from ``hockeystick.base.validation`` and are re-exported here for the family's modules."""

from __future__ import annotations

from typing import cast

import numpy as np
import numpy.typing as npt

from ..base.validation import (
    broadcastable,
    delta_values,
    epsilon_values,
    flag,
    nonnegative,
    positive,
    positive_integer,
    real,
    upper_only,
)

__all__ = [
    "at_most",
    "broadcastable",
    "contraction_modulus",
    "delta_values",
    "epsilon_values",
    "finite_radii",
    "flag",
    "nonnegative",
    "positive",
    "positive_integer",
    "real",
    "smoothness_rate",
    "upper_only",
]


def at_most(small: np.ndarray, large: np.ndarray, message: str) -> None:
    """Raise ValueError(message) unless small <= large everywhere (after broadcasting)."""
    if not np.all(small <= large):
        raise ValueError(message)


def smoothness_rate(
    learning_rate: np.ndarray,
    smoothness: npt.ArrayLike | None,
    strong_convexity: npt.ArrayLike | np.ndarray = 0.0,
) -> None:
    """eta <= 2 / (beta + lambda): the gradient step is then non-expansive (lambda = 0)
    or an M-contraction (lambda > 0), the fact both papers' diameters rest on."""
    if smoothness is None:
        return
    beta = positive(smoothness, "smoothness")
    lam = nonnegative(strong_convexity, "strong_convexity")
    at_most(
        lam,
        beta,
        "strong_convexity must be <= smoothness (a beta-smooth function is at most beta-strongly convex)",
    )
    at_most(
        learning_rate,
        2.0 / (beta + lam),
        "learning_rate must be <= 2 / (smoothness + strong_convexity) (000 Thm 2: eta <= 2/beta; 002 eq. 14)",
    )


def contraction_modulus(
    learning_rate: np.ndarray, smoothness: npt.ArrayLike, strong_convexity: npt.ArrayLike
) -> np.ndarray:
    """M = sqrt(1 - 2 eta beta lambda / (beta + lambda))  (002 eq. 14), after the checks above."""
    beta = positive(smoothness, "smoothness")
    lam = nonnegative(strong_convexity, "strong_convexity")
    smoothness_rate(learning_rate, beta, lam)
    return cast(
        np.ndarray, np.sqrt(np.maximum(0.0, 1.0 - 2.0 * learning_rate * beta * lam / (beta + lam)))
    )


def finite_radii(**radii: tuple[np.ndarray, str]) -> None:
    """The Gaussian radii (sensitivity over noise) must be finite doubles: each given as
    (values, its formula in the caller's argument names), so a refusal names the arguments.

    A radius overflows only for a noise scale far below any meaningful one (sigma ~ 1e-308 with
    L ~ 1) or an argument near the largest double: refuse it, stating the range, instead of
    letting inf reach the kernels.
    """
    for name, (r, formula) in radii.items():
        bad = ~np.isfinite(r)
        if bad.any():
            raise ValueError(
                f"the radius {name} = {formula} must be a finite double, got inf at flat index "
                + str(int(np.argmax(np.ravel(np.broadcast_to(bad, np.shape(r))))))
                + "; the noise is too small (or an argument too large) for these parameters: keep "
                "the noise above ~1e-300 times the numerator"
            )
