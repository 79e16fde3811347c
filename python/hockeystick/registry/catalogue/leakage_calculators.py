"""The registered calculators: paper 001's Bayesian leakage (TV, JS) and the paper's formulas for it."""

from __future__ import annotations

from typing import Any

from ... import leakage
from ..entries import CalculatorEntry, CalculatorKind, Inverse
from ..store import register_calculator

_PAPER: CalculatorKind = "paper formula, not a guarantee"


def _tv_bracket_lower(variance: Any, distortion_variance: Any, dimension: Any) -> Any:
    """Lemma 5.7's lower side (eq. 15); paper formula, not a guarantee (see leakage.tv_bracket)."""
    return leakage.tv_bracket(variance, distortion_variance, dimension)[0]


def _tv_bracket_upper(variance: Any, distortion_variance: Any, dimension: Any) -> Any:
    """Lemma 5.7's upper side (eq. 15); paper formula, not a guarantee (see leakage.tv_bracket)."""
    return leakage.tv_bracket(variance, distortion_variance, dimension)[1]


_DIMENSION = frozenset({"dimension"})
_EXACT_TV_INVERSE = {
    "distortion_variance": Inverse(leakage.distortion_variance_for_tv, target="target_tv")
}
for _calc in (
    CalculatorEntry(
        "leakage_tv",
        leakage.tv_exact,
        "tv",
        kind="exact",
        integers=_DIMENSION,
        inverses=_EXACT_TV_INVERSE,
        summary="paper 001: TV between N(mu, sigma^2 I_d) and its distorted release "
        "N(mu + m, (sigma^2 + sigma_eps^2) I_d), exact; solves distortion_variance for a TV",
    ),
    CalculatorEntry(
        "leakage_js",
        leakage.js_exact,
        "js",
        kind="exact",
        integers=_DIMENSION,
        summary="paper 001: Jensen-Shannon divergence (nats) of the same pair, exact; eps_p = sqrt(js) (Definition 4)",
    ),
    CalculatorEntry(
        "leakage_tv_lemma_5_7_lower",
        _tv_bracket_lower,
        "tv",
        kind=_PAPER,
        integers=_DIMENSION,
        summary="paper 001 Lemma 5.7 (eq. 15), lower side: min{1, sigma_eps^2 sqrt(d)/sigma^2}/100",
    ),
    CalculatorEntry(
        "leakage_tv_lemma_5_7_upper",
        _tv_bracket_upper,
        "tv",
        kind=_PAPER,
        integers=_DIMENSION,
        summary="paper 001 Lemma 5.7 (eq. 15), upper side: 3 min{1, sigma_eps^2 sqrt(d)/sigma^2}/2",
    ),
    CalculatorEntry(
        "leakage_distortion_lemma_5_8",
        leakage.paper_distortion_variance,
        "distortion_variance",
        kind=_PAPER,
        integers=_DIMENSION,
        summary="paper 001 Lemma 5.8 (eq. 35): sigma_eps^2 = 100 sigma^2 (c1 - tau)/sqrt(d), for 0 < c1 - tau < 0.01",
    ),
    CalculatorEntry(
        "leakage_js_bound_lemma_b3",
        leakage.js_bound_from_tv,
        "sqrt_js",
        kind=_PAPER,
        summary="paper 001 Lemma B.3: sqrt(JS) <= C_2 TV, C_2 = (e^{2 xi} - 1)/2 (eq. 12)",
    ),
    CalculatorEntry(
        "leakage_sampling_variance",
        leakage.sampling_variance,
        "sampling_variance",
        kind=_PAPER,
        summary="paper 001 Thm 5.10 (eq. 17): p (1 - p) sum_i ||grad L_i||^2",
    ),
    CalculatorEntry(
        "leakage_nfl_floor",
        leakage.nfl_privacy_floor,
        "privacy_leakage",
        kind=_PAPER,
        summary="paper 001 Thm 5.13 (eq. 19): least eps_p = C_1 - C_d eps_u at utility loss eps_u",
    ),
):
    register_calculator(_calc)
