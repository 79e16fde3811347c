r"""Paper 001's Bayesian privacy leakage of Gaussian parameter distortion: exact values and printed formulas.

Paper 001 (Zhang, Chen & Yang: near-optimal utility via data generation and parameter distortion)
measures privacy by a Bayesian leakage, not by (eps, delta)-DP: the leakage
:math:`\epsilon_p = \sqrt{\mathrm{JS}}` between an adversary's beliefs before and after seeing a
client's (distorted) parameter (Definition 4), and the utility loss :math:`\epsilon_u`, a gap in
squared distance to the optimum (Definition 3).  Two kinds of function:

Exact quantities (numerical, checked against mpmath; values, not bounds):

- ``tv_exact``, ``js_exact``: TV and JS (nats) between :math:`P = N(\mu, \sigma^2 I_d)` and the
  distorted :math:`\tilde P = N(\mu + m, (\sigma^2 + \sigma_\epsilon^2) I_d)`;
- ``distortion_variance_for_tv``: the :math:`\sigma_\epsilon^2` whose TV equals a target.

The paper's formulas as printed (paper formulas, not guarantees):

- ``tv_bracket``: Lemma 5.7 (eq. 15);
- ``c2_constant``, ``js_bound_from_tv``: eq. 12, Lemma B.3;
- ``lemma_b1_lower_bound``, ``lemma_5_5_upper_bound``: Lemma B.1, Lemma 5.5;
- ``paper_required_tv``, ``paper_distortion_variance``: Lemma 5.6 (eq. 14), Lemma 5.8 (eq. 35);
- ``sampling_variance``: Theorem 5.10 (eq. 17);
- ``thm_5_11_sampling_rates``, ``eq_20_sampling_rates``: Theorem 5.11 (eq. 18), Section 6 (eq. 20);
- ``nfl_constant``, ``nfl_privacy_floor``: Theorem 5.13 (eq. 19);
- ``thm_5_12_upper_bound``, ``thm_5_14_optimal_variance``: Theorems 5.12 and 5.14.

docs/paper-001-errata.md lists where the statements and the exact values disagree.
"""

from .calibration import distortion_variance_for_tv
from .js import js_exact
from .paper_calibration import paper_distortion_variance, paper_required_tv
from .paper_leakage import (
    c2_constant,
    js_bound_from_tv,
    lemma_5_5_upper_bound,
    lemma_b1_lower_bound,
)
from .paper_sampling import eq_20_sampling_rates, sampling_variance, thm_5_11_sampling_rates
from .paper_tradeoff import (
    nfl_constant,
    nfl_privacy_floor,
    thm_5_12_upper_bound,
    thm_5_14_optimal_variance,
)
from .paper_tv_bracket import tv_bracket
from .tv import tv_exact

__all__ = [
    "c2_constant",
    "distortion_variance_for_tv",
    "eq_20_sampling_rates",
    "js_bound_from_tv",
    "js_exact",
    "lemma_5_5_upper_bound",
    "lemma_b1_lower_bound",
    "nfl_constant",
    "nfl_privacy_floor",
    "paper_distortion_variance",
    "paper_required_tv",
    "sampling_variance",
    "thm_5_11_sampling_rates",
    "thm_5_12_upper_bound",
    "thm_5_14_optimal_variance",
    "tv_bracket",
    "tv_exact",
]
