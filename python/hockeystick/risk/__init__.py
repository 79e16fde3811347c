"""Attack risk from a privacy profile: the certified trade-off curve, TPR at FPR, the advantage,
calibration, certified mu-GDP.

An attacker sees the output of a mechanism run either on the neighbouring data set H0 or on H1 and
decides "H1" with a test phi.  Its false-positive rate is alpha = E_H0[phi], its power
(true-positive rate) E_H1[phi]; the trade-off function beta(alpha) is the least false-negative rate
1 - power of any test with false-positive rate at most alpha (Dong, Roth, Su 2022, Def. 2.1).
Everything here is read off the hockey-stick profile of the pair, in t = e^eps > 0:

    D(t) = sup_S H1(S) - t H0(S),   D(e^eps) = delta_{H1||H0}(eps) for eps >= 0,
    D(e^-eps) = 1 - e^-eps + e^-eps delta_{H0||H1}(eps) for eps >= 0 (the other direction; take the
    complement S^c in the supremum), D(0) = 1, D convex and non-increasing (a supremum of affine functions).

The power at false-positive rate alpha is the convex conjugate (Dong, Roth, Su 2022, Prop. 2.12 and
its dual; Zhu, Dong, Wang 2022, Sec. 2):

    power(alpha) = 1 - beta(alpha) = min over t >= 0 of D(t) + alpha t.

(<=: for every test, E_H1[phi] - t E_H0[phi] <= D(t).  =: Sion's minimax theorem over the tests, a
convex weak-* compact set, and t >= 0.)  At t = e^eps, eps >= 0, the term is delta_{H1||H0}(eps) +
e^eps alpha (the (eps, delta)-DP line 1 - delta - e^eps alpha of beta); at t = e^-eps it is
1 - e^-eps (1 - delta_{H0||H1}(eps) - alpha) (the line e^-eps (1 - delta - alpha)).  The advantage
max over alpha of power(alpha) - alpha is D(1) = delta(0), the total variation distance.

Certified sides, from a bracket lo <= D <= up at finitely many nodes t_k (every node's value is a
certified side of the accountant's delta, its argument the exact double eps_k, t_k = e^eps_k):

* power from above (beta from below; the safe side of a privacy claim): the minimum over the nodes
  of up_k + alpha t_k.  Each term is above D(t_k) + alpha t_k, hence above the minimum over all t.
* power from below (beta from above): the minimum over all t >= 0 needs D between the nodes, so it
  is bounded on each interval [t_k, t_k+1] by convexity: D lies above (a) lo_k+1 (D does not
  increase), (b) the chord through t_k-1, t_k extended to the right, taken through (t_k, lo_k) with
  the least slope the bracket allows, (lo_k - up_k-1) / (t_k - t_k-1), and (c) the chord through
  t_k+1, t_k+2 extended to the left, through (t_k+1, lo_k+1) with the largest slope, (up_k+2 -
  lo_k+1) / (t_k+2 - t_k+1). The minimum over the interval of the largest of these affine minorants
  plus alpha t is bounded from below by a convex combination of two of them (max >= any weighted
  mean; the weights chosen where one falls and the other rises, making the mean flat), evaluated at
  the interval's ends; on [0, t_0] the bound is lo_0 and on [t_K, inf) it is D(inf) + alpha t_K (lo
  at eps = inf: the mass at +infinity). The error is second order in the node spacing. Every such
  value is lowered by 32 u times the magnitudes it was formed from (u = 2^-53: a few roundings
  each), every upper one raised by 4 u relative.

Both sides also keep alpha <= power <= 1 (guessing; certainty).  The nodes: eps on a grid of spacing
1/8 out to a reach doubled (4, 8, ..., 704) until neither end interval can hold the minimum, then
the intervals that can (their lower bound below the least upper one, or next to the node attaining
it) refined, halving the spacing, to 2^-9 and on until the bracket is within ``rtol``, or two
halvings in a row move neither side by ``rtol`` nor by 2^-6 of the bracket's width (the accountant's
own sides keep it wide).  Any grid gives certified sides; the grid only decides how close they are.

Which pair the sides describe:

* ``direction="symmetric"`` (any accountant): D from the accountant's own delta, the largest over
  its neighbouring directions, on both sides of t = 1.  Its curve is the convex hull of the smaller
  of the two directions' trade-off functions: the tightest f-DP guarantee the profile gives, which
  holds for every neighbouring pair in either order.  The power from above bounds every attacker;
  the power from below is what that guarantee cannot exclude (no guarantee derived from the profile
  promises a smaller TPR).  For a symmetric mechanism (the Gaussian) both directions coincide and
  this is the pair's curve.
* ``direction="remove"`` / ``"add"`` (a PLD that keeps its directions:
  ``pld.SubsampledGaussianPLD``, ``pld.BallsInBinsGaussianPLD`` with one step per record,
  ``pld.PLDAccountant``, ``pld.PrivacyLossDistribution``, and a ``training.DPSGD`` / ``DPFedAvg``
  run with Poisson or balls-in-bins sampling, through its accountant; under replace-one, fixed-size
  and shuffled batches, each order of a neighbouring pair is itself neighbouring, so either
  direction is the symmetric profile): delta_{H1||H0} is that direction's delta and delta_{H0||H1}
  the other's.  "remove" is membership inference: H1 is the data set holding the record (the remove
  pair P = the mechanism with it, Q = without: P = (1-q) N(0, s^2) + q N(1, s^2) against N(0, s^2)
  per round for the subsampled Gaussian), so power is the attacker's TPR at FPR alpha on the
  non-members; "add" swaps the hypotheses.  The power from above bounds every attacker on every data
  set pair of that direction (each side is bounded by its own direction's certified delta).  The
  power from below is a bound on the trade-off of the pair whose directions the accountant brackets:
  where that pair is realized by one pair of data sets (the Poisson-subsampled Gaussian: Zhu, Dong,
  Wang 2022, Thm 11, the record's gradient at the sensitivity and the others' at 0), a
  likelihood-ratio attacker on those data sets reaches at least that TPR; otherwise it is what the
  dominating pair allows (no certificate of the accountant's curves can promise less).  The
  subsampled Gaussian's directional curves come from PLDs built on the accountant's
  value_discretization_interval (without its ``accuracy=`` refinement); at sampling_rate 1 the
  mechanism is symmetric and its exact closed form is used.

``calibrate_tpr`` finds the extreme parameter keeping the certified TPR at FPR alpha at or below a
target tau through ``calibrate``: the power at alpha is at most tau as soon as ONE line is, i.e. as
soon as delta(eps) <= d(eps) = max(tau - e^eps alpha, 1 - alpha - e^eps (1 - tau)) at one eps >= 0,
so the extreme parameter over a set of eps values is the best of ``calibrate``'s answers for the
targets (eps, d(eps)) (the accountant's delta: the symmetric bound, which bounds either direction's
power too).

``certified_gdp`` brackets the least mu for which the profile is mu-GDP with a stated slack delta0
(delta(eps) <= theta(mu, eps) + delta0 at every eps) and gdpnum's regret of the upper mu;
``risk.gdp``'s docstring gives the statements and their proofs.
"""

from .directions import DIRECTIONS as DIRECTIONS
from .directions import Direction
from .gdp import DEFAULT_DELTA0, CertifiedGDP, certified_gdp
from .power_bracket import DEFAULT_RTOL
from .tpr_calibration import calibrate_tpr
from .tradeoff import advantage, tpr_at_fpr, tradeoff_curve

__all__ = [
    "CertifiedGDP",
    "DEFAULT_DELTA0",
    "DEFAULT_RTOL",
    "Direction",
    "advantage",
    "calibrate_tpr",
    "certified_gdp",
    "tpr_at_fpr",
    "tradeoff_curve",
]
