"""Attack risk from a privacy profile: the certified trade-off curve, TPR at FPR, the advantage, calibration.

An attacker sees the output of a mechanism run either on the neighbouring data set H0 or on H1 and
decides "H1" with a test phi.  Its false-positive rate is alpha = E_H0[phi], its power (true-positive
rate) E_H1[phi]; the trade-off function beta(alpha) is the least false-negative rate 1 - power of any
test with false-positive rate at most alpha (Dong, Roth, Su 2022, Def. 2.1).  Everything here is read
off the hockey-stick profile of the pair, in t = e^eps > 0:

    D(t) = sup_S H1(S) - t H0(S),   D(e^eps) = delta_{H1||H0}(eps) for eps >= 0,
    D(e^-eps) = 1 - e^-eps + e^-eps delta_{H0||H1}(eps) for eps >= 0 (the other direction; take the
    complement S^c in the supremum), D(0) = 1, D convex and non-increasing (a supremum of affine functions).

The power at false-positive rate alpha is the convex conjugate (Dong, Roth, Su 2022, Prop. 2.12 and its
dual; Zhu, Dong, Wang 2022, Sec. 2):

    power(alpha) = 1 - beta(alpha) = min over t >= 0 of D(t) + alpha t.

(<=: for every test, E_H1[phi] - t E_H0[phi] <= D(t).  =: Sion's minimax theorem over the tests, a
convex weak-* compact set, and t >= 0.)  At t = e^eps, eps >= 0, the term is delta_{H1||H0}(eps) +
e^eps alpha (the (eps, delta)-DP line 1 - delta - e^eps alpha of beta); at t = e^-eps it is
1 - e^-eps (1 - delta_{H0||H1}(eps) - alpha) (the line e^-eps (1 - delta - alpha)).  The advantage
max over alpha of power(alpha) - alpha is D(1) = delta(0), the total variation distance.

Certified sides, from a bracket lo <= D <= up at finitely many nodes t_k (every node's value is a
certified side of the accountant's delta, its argument the exact double eps_k, t_k = e^eps_k):

* power from above (beta from below; the safe side of a privacy claim): the minimum over the nodes of
  up_k + alpha t_k.  Each term is above D(t_k) + alpha t_k, hence above the minimum over all t.
* power from below (beta from above): the minimum over all t >= 0 needs D between the nodes, so it is
  bounded on each interval [t_k, t_k+1] by convexity: D lies above (a) lo_k+1 (D does not increase),
  (b) the chord through t_k-1, t_k extended to the right, taken through (t_k, lo_k) with the least slope
  the bracket allows, (lo_k - up_k-1) / (t_k - t_k-1), and (c) the chord through t_k+1, t_k+2 extended to
  the left, through (t_k+1, lo_k+1) with the largest slope, (up_k+2 - lo_k+1) / (t_k+2 - t_k+1).  The
  minimum over the interval of the largest of these affine minorants plus alpha t is bounded from below
  by a convex combination of two of them (max >= any weighted mean; the weights chosen where one falls
  and the other rises, making the mean flat), evaluated at the interval's ends; on [0, t_0] the bound is
  lo_0 and on [t_K, inf) it is D(inf) + alpha t_K (lo at eps = inf: the mass at +infinity).  The error
  is second order in the node spacing.  Every such value is lowered by 32 u times the magnitudes it
  was formed from (u = 2^-53: a few roundings each), every upper one raised by 4 u relative.

Both sides also keep alpha <= power <= 1 (guessing; certainty).  The nodes: eps on a grid of spacing
1/8 out to a reach doubled (4, 8, ..., 704) until neither end interval can hold the minimum, then the
intervals that can (their lower bound below the least upper one, or next to the node attaining it)
refined, halving the spacing, to 2^-9 and on until the bracket is within ``rtol``, or two halvings in a row
move neither side by ``rtol`` nor by 2^-6 of the bracket's width (the accountant's own sides keep it wide).  Any
grid gives certified sides; the grid only decides how close they are.

Which pair the sides describe:

* ``direction="symmetric"`` (any accountant): D from the accountant's own delta, the largest over its
  neighbouring directions, on both sides of t = 1.  Its curve is the convex hull of the smaller of the
  two directions' trade-off functions: the tightest f-DP guarantee the profile gives, which holds for
  every neighbouring pair in either order.  The power from above bounds every attacker; the power from
  below is what that guarantee cannot exclude (no guarantee derived from the profile promises a smaller
  TPR).  For a symmetric mechanism (the Gaussian) both directions coincide and this is the pair's curve.
* ``direction="remove"`` / ``"add"`` (a PLD that keeps its directions: ``pld.SubsampledGaussianPLD``,
  ``pld.BallsInBinsGaussianPLD`` with one step per record, ``pld.PLDAccountant``, ``pld.PrivacyLossDistribution``,
  and a ``training.DPSGD`` / ``DPFedAvg`` run with Poisson or balls-in-bins sampling, through its accountant;
  under replace-one, fixed-size and shuffled batches, each order of a neighbouring pair is itself neighbouring,
  so either direction is the symmetric profile): delta_{H1||H0} is that direction's delta and
  delta_{H0||H1} the other's.  "remove" is membership inference: H1 is the data set holding the record
  (the remove pair P = the mechanism with it, Q = without: P = (1-q) N(0, s^2) + q N(1, s^2) against
  N(0, s^2) per round for the subsampled Gaussian), so power is the attacker's TPR at FPR alpha on the
  non-members; "add" swaps the hypotheses.  The power from above bounds every attacker on every data
  set pair of that direction (each side is bounded by its own direction's certified delta).  The power
  from below is a bound on the trade-off of the pair whose directions the accountant brackets: where
  that pair is realized by one pair of data sets (the Poisson-subsampled Gaussian: Zhu, Dong, Wang 2022,
  Thm 11, the record's gradient at the sensitivity and the others' at 0), a likelihood-ratio attacker on
  those data sets reaches at least that TPR; otherwise it is what the dominating pair allows (no
  certificate of the accountant's curves can promise less).  The subsampled Gaussian's directional
  curves come from PLDs built on the accountant's value_discretization_interval (without its
  ``accuracy=`` refinement); at sampling_rate 1 the mechanism is symmetric and its exact closed form
  is used.

``calibrate_tpr`` finds the extreme parameter keeping the certified TPR at FPR alpha at or below a
target tau through ``calibrate``: the power at alpha is at most tau as soon as ONE line is, i.e. as soon
as delta(eps) <= d(eps) = max(tau - e^eps alpha, 1 - alpha - e^eps (1 - tau)) at one eps >= 0, so the
extreme parameter over a set of eps values is the best of ``calibrate``'s answers for the targets
(eps, d(eps)) (the accountant's delta: the symmetric bound, which bounds either direction's power too).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Literal, cast

import numpy as np

from .. import pld, registry
from ..base import validation as _validation
from ..base.accountant import Bound
from ..base.elementwise import ArrayLike
from ..calibrate import _search_range, calibrate
from ..pld.accountants.allocation import BallsInBinsGaussianPLD, ShuffledBatchGaussianPLD
from ..pld.accountants.fixed_batch import FixedBatchGaussianPLD
from ..pld.mechanisms.constructors import subsampled_gaussians
from ..registry import AccountantEntry
from ..training import DPSGD, DPFedAvg

__all__ = ["Direction", "DEFAULT_RTOL", "advantage", "calibrate_tpr", "tpr_at_fpr", "tradeoff_curve"]

Direction = Literal["symmetric", "remove", "add"]
DIRECTIONS: tuple[Direction, ...] = ("symmetric", "remove", "add")

COARSE_SPACING = 2.0**-3  # the first grid's spacing in eps
DEFAULT_SPACING = 2.0**-9  # every alpha's intervals are refined to this spacing at least ...
FINEST_SPACING = 2.0**-24  # ... and halved further until settled (rtol), down to this
DEFAULT_RTOL = 1e-6  # the power bracket's relative width asked for
WIDTH_SHARE = 2.0**-6  # a refinement moving each side by at most this share of the power's bracket is quiet
FIRST_REACH = 4.0  # the first grid's largest eps; doubled while an end interval can hold the minimum
MAX_REACH = 704.0  # e^704 ~ 1.9e305: the largest reach whose t is a double
_U = 2.0**-53  # unit round-off
_CHUNK = 1 << 20
LOCAL_POINTS = 5  # calibrate_tpr: lines calibrated per local level once an estimate has located the best
LOCATING_RTOL = 1e-4  # ... and how closely (the best one is then calibrated to rtol)  # (interval, alpha) pairs per vectorized block

# eps >= 0 -> (lower, upper) of one direction's delta there (zeros / ones for a side not asked)
DeltaSides = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def tradeoff_curve(
    accountant: Any,
    alpha: ArrayLike,
    *,
    bound: Bound = "both",
    direction: Direction = "symmetric",
    rtol: float = DEFAULT_RTOL,
) -> Any:
    """beta(alpha), the least false-negative rate at false-positive rate ``alpha``, certified from the
    accountant's privacy profile (the module docstring gives the construction and its proof).

    Parameters
    ----------
    accountant : object
        Any object with ``.delta(epsilon, bound=...)`` describing one mechanism (scalar parameters): a
        ``pld`` or ``rdp`` accountant, ``GaussianMechanism``, a ``training.DPSGD`` / ``DPFedAvg`` run.
    alpha : float or array_like
        False-positive rates in [0, 1], any shape (the result has its shape; a float for a float).
    bound : {"lower", "upper", "both"}
        "lower": beta from below (TPR from above, the safe side of a privacy claim); "upper": beta from
        above (from the accountant's lower delta); "both" (default): the tuple (lower, upper).
    direction : {"symmetric", "remove", "add"}
        "symmetric" (the accountant's delta: the f-DP guarantee both neighbouring orders satisfy), "remove"
        (membership inference: the positive hypothesis is the data set holding the record) or "add"; the
        accountants that keep their directions are listed in the module docstring.
    rtol : float
        In (0, 1): the grid is refined where the minimum lies until the power's bracket is that narrow
        relative to its upper side, or two refinements move neither side by that much nor by 2^-6 of the
        bracket (the accountant's own bracket, or a kink of the curve, limits it), or the spacing reaches
        2^-24 in eps.  Smaller is tighter and slower; every grid gives certified sides.

    Returns
    -------
    float, array or tuple
        beta's side(s) at ``alpha``.

    Raises
    ------
    TypeError
        ``accountant`` has no callable ``.delta``.
    ValueError
        ``alpha`` outside [0, 1] or NaN, an unknown ``bound`` or ``direction``, ``rtol`` outside (0, 1), an
        accountant of several mechanisms (array parameters), or a direction the accountant does not keep.
    """
    alphas = _validation.in_interval(alpha, "alpha", 0.0, 1.0, open_low=False, open_high=False)
    side = _validation.bound_side(bound)
    # beta's lower side is the power's upper side and vice versa
    power_side = {"lower": "upper", "upper": "lower", "both": "both"}[side]
    low, up = _power_bracket(accountant, alphas, power_side, direction, rtol)
    with np.errstate(invalid="ignore"):
        beta_low = np.maximum(np.nextafter(1.0 - up, -np.inf), 0.0)
        beta_up = np.minimum(np.nextafter(1.0 - low, np.inf), 1.0)
    return _sides(beta_low, beta_up, side, alphas.ndim == 0)


def tpr_at_fpr(
    accountant: Any,
    fpr: ArrayLike,
    *,
    bound: Bound = "upper",
    direction: Direction = "symmetric",
    rtol: float = DEFAULT_RTOL,
) -> Any:
    """The attacker's largest true-positive rate at false-positive rate ``fpr``, 1 - beta(fpr).

    Parameters
    ----------
    accountant : object
        As in ``tradeoff_curve``: anything with ``.delta(epsilon, bound=...)``, one mechanism.
    fpr : float or array_like
        False-positive rates in [0, 1], any shape.
    bound : {"upper", "lower", "both"}
        "upper" (default: no attack does better), "lower" or "both" (the tuple (lower, upper)).
    direction, rtol
        As in ``tradeoff_curve``.

    Returns
    -------
    float, array or tuple
        The TPR's side(s) at ``fpr`` (a float for a float).

    Raises
    ------
    TypeError
        ``accountant`` has no callable ``.delta``.
    ValueError
        As ``tradeoff_curve``'s, naming ``fpr``.
    """
    rates = _validation.in_interval(fpr, "fpr", 0.0, 1.0, open_low=False, open_high=False)
    side = _validation.bound_side(bound)
    low, up = _power_bracket(accountant, rates, side, direction, rtol)
    return _sides(low, up, side, rates.ndim == 0)


def advantage(accountant: Any, *, bound: Bound = "upper") -> Any:
    """The largest advantage TPR - FPR of any attack, max over alpha of 1 - beta(alpha) - alpha = delta(0)
    (the total variation distance of the pair; Yeom et al. 2018's membership advantage under
    ``direction="remove"``, equal for every direction since delta_{H1||H0}(0) = delta_{H0||H1}(0)): the
    accountant's own delta at epsilon = 0.

    Parameters
    ----------
    accountant : object
        Anything with ``.delta(epsilon, bound=...)`` (as in ``tradeoff_curve``).
    bound : {"upper", "lower", "both"}
        The side asked for ("both": the tuple (lower, upper)).

    Returns
    -------
    float, array or tuple
        The accountant's delta(0) on that side.

    Raises
    ------
    TypeError
        ``accountant`` has no callable ``.delta``.
    ValueError
        An unknown ``bound``.
    """
    side = _validation.bound_side(bound)
    return _profiled(accountant).delta(0.0, bound=side)


def calibrate_tpr(
    accountant: str | AccountantEntry,
    parameter: str,
    *,
    fpr: float,
    tpr: float,
    rtol: float = 1e-10,
    workers: int | None = None,
    levels: int = 3,
    points: int = 16,
    **params: ArrayLike,
) -> Any:
    """The smallest (or, for a parameter the bound grows with, the largest) ``parameter`` of a registered
    accountant whose certified TPR at false-positive rate ``fpr`` is at most ``tpr``.

    Through ``calibrate`` (the module docstring): ``points`` eps values spread over [0, eps_max), eps_max
    the largest eps with d(eps) > 0, each a target (eps, d(eps)); then ``levels`` - 1 times the same
    number spread between the best value's neighbours.  Where the accountant estimates the parameter itself
    (its ``calibration_start``: the PLD families and DP-SGD's noise), these levels compare the estimates,
    and only ``LOCAL_POINTS`` lines around the estimate's best, over two first-level spacings each way and
    then between the best one's neighbours, are calibrated (to ``LOCATING_RTOL``), and the best of those to
    ``rtol``: 11 calibrations instead of ``levels`` x ``points``.  The answer is ``calibrate``'s at its eps,
    so it meets delta(eps) <= d(eps) there: its power at ``fpr`` is at most ``tpr`` by that one line,
    whatever grid ``tpr_at_fpr`` uses later.

    Parameters
    ----------
    accountant : str or AccountantEntry
        A registered name (``hockeystick.registry.names()``) or entry.
    parameter : str
        One of its calibratable parameters ("sigma", "rounds", "noise_multiplier", ...); not also in
        ``params``.
    fpr : float
        The false-positive rate alpha, in (0, 1).
    tpr : float
        The largest certified TPR allowed, in (fpr, 1) (a TPR at or below the FPR is guessing's, which no
        parameter beats).
    rtol, workers : as ``calibrate``'s.
    levels : int
        Rounds of eps values, 1 to 64.
    points : int
        Eps values per round, 3 to 4096.
    **params : array_like
        The accountant's other parameters (arrays broadcast), as ``calibrate``'s.

    Returns
    -------
    float, int or array
        The calibrated parameter per broadcast point.

    Raises
    ------
    TypeError
        ``accountant`` is neither a name nor an entry.
    ValueError
        ``fpr`` or ``tpr`` out of range, ``parameter`` not calibratable or also given a value, or no value
        of the parameter in its range keeps the TPR within ``tpr`` (naming the point).
    """
    alpha = float(
        _validation.in_interval(_validation.single(fpr, "fpr"), "fpr", 0.0, 1.0, open_low=True, open_high=True)
    )
    tau = float(_validation.in_interval(_validation.single(tpr, "tpr"), "tpr", 0.0, 1.0, open_low=True, open_high=True))
    if tau <= alpha:
        raise ValueError(
            f"tpr must exceed fpr, got tpr = {tau!r} and fpr = {alpha!r}: a TPR at or below the FPR "
            "is what guessing reaches, whatever the mechanism; ask for a tpr above the fpr"
        )
    levels = _validation.count(levels, "levels", minimum=1, maximum=64)
    points = _validation.count(points, "points", minimum=3, maximum=4096)
    entry = registry.get(accountant) if isinstance(accountant, str) else accountant
    if not isinstance(entry, AccountantEntry):
        raise _validation.ParameterTypeError(
            f"accountant must be a registered name (see hockeystick.registry.names()) "
            f"or an AccountantEntry, got {_validation.describe(accountant)}"
        )
    spec = entry.calibratable.get(parameter) if isinstance(parameter, str) else None
    if spec is None:
        raise ValueError(
            f"parameter must be one of the calibratable parameters of {entry.name!r} "
            f"({', '.join(sorted(entry.calibratable)) or 'none'}), got {_validation.describe(parameter)}"
        )
    if parameter in params:
        raise ValueError(
            f"{parameter!r} is the calibrated parameter: do not also give it a value (drop {parameter}=...)"
        )
    arrays = {k: _validation.as_real_array(v, k) for k, v in params.items()}
    shape = np.broadcast_shapes(*(a.shape for a in arrays.values())) if arrays else ()
    # each parameter gains a trailing axis, the eps values of a target
    column: dict[str, Any] = {
        k: float(a) if a.ndim == 0 else np.broadcast_to(a, shape)[..., None] for k, a in arrays.items()
    }
    best_of = np.min if spec.direction == "decreasing" else np.max
    arg_best = np.argmin if spec.direction == "decreasing" else np.argmax
    top = max(math.log(tau / alpha), math.log1p(-alpha) - math.log1p(-tau))  # d(eps) > 0 exactly below it

    def lines(eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(eps, d(eps)), an eps whose target is out of reach replaced by the point's first usable one (the
        same answer); a point without a usable eps is refused."""
        targets = _tpr_line_targets(eps, alpha, tau)
        usable = targets > 0.0
        if spec.direction == "increasing":
            usable &= _met_at_least_value(entry, parameter, spec, eps, targets, column, arrays, shape)
        if not usable.any(axis=-1).all():
            raise ValueError(
                f"no {parameter} in its range keeps the certified TPR at FPR {alpha:g} of "
                f"{entry.name!r} at or below {tau:g}{_where(arrays, usable)}; raise tpr or fpr, or "
                "change the other parameters"
            )
        first = np.argmax(usable, axis=-1)[..., None]
        return (
            np.where(usable, eps, np.take_along_axis(eps, first, axis=-1)),
            np.where(usable, targets, np.take_along_axis(targets, first, axis=-1)),
        )

    def calibrated(eps: np.ndarray, targets: np.ndarray, tolerance: float) -> np.ndarray:
        return np.asarray(
            calibrate(entry, parameter, epsilon=eps, delta=targets, rtol=tolerance, workers=workers, **column)
        )

    estimate = getattr(entry.factory, "calibration_start", None) if spec.direction == "decreasing" else None

    def estimated(eps: np.ndarray, targets: np.ndarray) -> np.ndarray | None:
        """The accountant's own estimate of the parameter at each target (its ``calibration_start``), or None
        where it has none, or one is not a positive number: only to choose where the lines are calibrated."""
        if estimate is None:
            return None
        flat = {k: np.broadcast_to(v, eps.shape).ravel() if isinstance(v, np.ndarray) else v for k, v in column.items()}
        guess = estimate(parameter, eps.ravel(), targets.ravel(), flat)
        if guess is None:
            return None
        guess = np.asarray(guess, dtype=float)
        return (
            guess.reshape(eps.shape)
            if guess.size == eps.size and np.all(guess > 0) and np.isfinite(guess).all()
            else None
        )

    def spread(eps: np.ndarray, values: np.ndarray, count: int) -> np.ndarray:
        """``count`` eps values spread between the neighbours of the best one."""
        k = arg_best(values, axis=-1)
        left = np.take_along_axis(eps, np.maximum(k - 1, 0)[..., None], axis=-1)
        right = np.take_along_axis(eps, np.minimum(k + 1, eps.shape[-1] - 1)[..., None], axis=-1)
        return cast(np.ndarray, left + (right - left) * (np.arange(count) / (count - 1)))

    eps = np.broadcast_to(np.arange(points) * (top / points), shape + (points,))
    best: np.ndarray | None = None
    located = True  # the levels choose eps from the accountant's estimates alone
    for level in range(levels):
        eps, targets = lines(eps)
        values = estimated(eps, targets) if located else None
        if values is None:
            located = False
            values = calibrated(eps, targets, rtol)
            level_best = best_of(values, axis=-1)
            best = level_best if best is None else best_of(np.stack([best, level_best]), axis=0)
        if level + 1 < levels:
            eps = spread(eps, values, points)
    if located:
        # the estimate only locates the best line: calibrated (coarsely) at LOCAL_POINTS eps around its best
        # over two of the first level's spacings, then between the best one's neighbours, and the best of
        # those at rtol
        assert values is not None  # the last level's estimates
        k = arg_best(values, axis=-1)[..., None]
        centre = np.take_along_axis(eps, k, axis=-1)
        eps = np.clip(centre + (top / points) * np.linspace(-2.0, 2.0, LOCAL_POINTS), 0.0, top)
        coarse = max(rtol, LOCATING_RTOL)
        for _ in range(2):
            eps, targets = lines(eps)
            values = calibrated(eps, targets, coarse)
            level_best = best_of(values, axis=-1)
            best = level_best if best is None else best_of(np.stack([best, level_best]), axis=0)
            last_eps, last_values = eps, values
            eps = spread(eps, values, LOCAL_POINTS)
        k = arg_best(last_values, axis=-1)[..., None]
        eps, targets = lines(np.take_along_axis(last_eps, k, axis=-1))
        final = calibrated(eps, targets, rtol)[..., 0]
        best = final if best is None else best_of(np.stack([best, final]), axis=0)
    assert best is not None
    if spec.integer and np.isfinite(best).all():
        return int(best) if best.ndim == 0 else best.astype(np.int64)
    return float(best) if best.ndim == 0 else best


def _tpr_line_targets(eps: np.ndarray, alpha: float, tau: float) -> np.ndarray:
    """d(eps) = max(tau - e^eps alpha, 1 - alpha - e^eps (1 - tau)), each rounded down past its round-off
    (at most 3 u of the magnitudes for the first, 5 u for the second): delta(eps) <= d(eps) makes one
    (eps, delta)-line put the power at alpha at or below tau.  Not positive: no line at that eps can."""
    t = np.exp(eps)
    first = (tau - t * alpha) - 4 * _U * (tau + t * alpha)
    second = ((1.0 - alpha) - t * (1.0 - tau)) - 6 * _U * (1.0 + t)
    return cast(np.ndarray, np.maximum(first, second))


def _met_at_least_value(
    entry: AccountantEntry,
    parameter: str,
    spec: registry.Calibratable,
    eps: np.ndarray,
    targets: np.ndarray,
    column: dict[str, Any],
    arrays: dict[str, np.ndarray],
    shape: tuple[int, ...],
) -> np.ndarray:
    """Where the parameter's least searched value (``calibrate``'s search range) already meets the target
    (eps, d(eps)) with a positive target: for a parameter the bound grows with, the targets ``calibrate``
    can meet at all (it refuses the others)."""
    n = max(1, math.prod(shape))
    flat = {k: np.broadcast_to(a, shape).ravel() for k, a in arrays.items()}
    least, _ = _search_range(spec, cast("dict[str, float | np.ndarray]", flat), n)
    built = entry.build(**column, **{parameter: least.reshape(shape)[..., None] if shape else float(least[0])})
    delta = np.asarray(built.delta(np.maximum(eps, 0.0)), dtype=float)
    return cast(np.ndarray, (targets > 0.0) & (delta <= targets))


def _where(arrays: dict[str, np.ndarray], usable: np.ndarray) -> str:
    """' at NAME=VALUE, ...' for the first point without a usable eps (nothing for a single point)."""
    if usable.ndim <= 1:
        return ""
    i = int(np.argmin(usable.any(axis=-1).ravel()))
    shape = usable.shape[:-1]
    return " at " + ", ".join(f"{k}={float(np.broadcast_to(a, shape).ravel()[i]):g}" for k, a in arrays.items())


def _profiled(accountant: Any) -> Any:
    """``accountant`` itself, refused (``ParameterTypeError``) unless it has a callable ``.delta``: the
    privacy profile everything here is read from."""
    if not callable(getattr(accountant, "delta", None)):
        raise _validation.ParameterTypeError(
            "accountant must be an accountant with a .delta(epsilon, bound=...) method (for example "
            f"hockeystick.training.DPSGD(...) or a pld accountant), got {_validation.describe(accountant)} "
            f"({type(accountant).__name__}); build the accountant first"
        )
    return accountant


def _sides(low: np.ndarray, up: np.ndarray, side: str, scalar: bool) -> Any:
    pick = {"lower": (low,), "upper": (up,), "both": (low, up)}[side]
    out = tuple(float(v) if scalar else v for v in pick)
    return out if side == "both" else out[0]


# --- the directions' delta ---------------------------------------------------------------------


def _direction_profiles(accountant: Any, direction: Any, side: str) -> tuple[DeltaSides, DeltaSides | None]:
    """(delta_{H1||H0}, delta_{H0||H1}) as functions of eps >= 0 on the sides the power's ``side`` needs
    (the upper power: upper deltas; the lower power: lower deltas); the second is None where it is the
    first (the symmetric profile)."""
    direction = _validation.choice(direction, "direction", DIRECTIONS)
    if direction == "symmetric":
        return _sides_of(accountant, side), None
    pair = _directional_pair(accountant)
    if pair is None:
        raise ValueError(
            f'direction must be "symmetric" for {type(accountant).__name__}, got {direction!r}: it '
            "reports one profile, the largest over its neighbouring directions, whose lower side "
            "bounds neither direction alone; the directional curves need a PLD that keeps its "
            "directions (pld.SubsampledGaussianPLD, pld.BallsInBinsGaussianPLD with steps_per_record=1, "
            "pld.PLDAccountant, pld.PrivacyLossDistribution, or a training.DPSGD / DPFedAvg run)"
        )
    remove, add = pair
    if add is None:  # one direction: a symmetric pair, both orders the same
        return _sides_of(remove, side), None
    first, second = (remove, add) if direction == "remove" else (add, remove)
    return _sides_of(first, side), _sides_of(second, side)


def _directional_pair(accountant: Any) -> tuple[Any, Any] | None:
    """(remove, add) one-direction PLDs of a PLD accountant (add None: a symmetric, one-direction PLD),
    or None for an accountant that does not keep its directions."""
    if isinstance(accountant, pld.PLDAccountant):
        composed = accountant._pld  # the rounds composed so far (None: nothing released)
        return (accountant, None) if composed is None else _directional_pair(composed)
    if isinstance(accountant, pld.PrivacyLossDistribution):
        if len(accountant.directions) == 1:
            return accountant, None
        if len(accountant.directions) != 2:
            return None
        remove, add = (pld.PrivacyLossDistribution([d], accountant.tail) for d in accountant.directions)
        return remove, add
    if isinstance(accountant, (DPSGD, DPFedAvg)):  # a training run: the accountant of its sampling
        return _directional_pair(accountant._accountant)
    if isinstance(accountant, (FixedBatchGaussianPLD, ShuffledBatchGaussianPLD)):
        # replace-one: each order of a neighbouring pair is itself neighbouring, so each direction's guarantee is
        # the symmetric profile's
        return accountant, None
    if isinstance(accountant, BallsInBinsGaussianPLD):
        points = accountant._points()
        if any(np.size(v) != 1 for v in points.values()):
            raise ValueError(
                "accountant must describe one mechanism (single sigma, steps_per_epoch, rounds and "
                f"steps_per_record), got arrays of sizes {[np.size(v) for v in points.values()]}: build one "
                "accountant per point"
            )
        point = tuple(float(np.ravel(v)[0]) for v in points.values())
        if point[3] != 1:  # k > 1: a closed-form Gaussian lower side, no directional pair
            return None
        composed = accountant._run(point[0], accountant._parts(point))
        remove, add = (pld.PrivacyLossDistribution([d], composed.tail) for d in composed.directions)
        return remove, add
    if isinstance(accountant, pld.SubsampledGaussianPLD):
        values = [
            np.ravel(v) for v in (accountant.sigma, accountant.sampling_rate, accountant.rounds, accountant.sensitivity)
        ]
        if any(v.size != 1 for v in values):
            raise ValueError(
                "accountant must describe one mechanism (single sigma, sampling_rate, rounds and "
                f"sensitivity), got arrays of sizes {[v.size for v in values]}: build one accountant per "
                "point"
            )
        sigma, q, rounds, sensitivity = (float(v[0]) for v in values)
        if q == 1.0:  # the Gaussian mechanism: symmetric, the accountant's closed form
            return accountant, None
        remove, add = (
            subsampled_gaussians(
                [sigma],
                [q],
                sensitivity=[sensitivity],
                value_discretization_interval=accountant.value_discretization_interval,
                tail=accountant.tail,
                directions=d,
            )[0].self_compose(int(rounds))
            for d in ("remove", "add")
        )
        return remove, add
    return None


def _sides_of(accountant: Any, side: str) -> DeltaSides:
    """eps -> (lower, upper) delta of ``accountant`` on the side(s) ``side`` asks for; a side not asked is
    its trivial bound (0 below, 1 above), so every later formula stays certified."""

    def sides(eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if side == "both":
            low, up = accountant.delta(eps, bound="both")
        elif side == "upper":
            up = accountant.delta(eps, bound="upper")
            low = np.zeros(eps.shape)
        else:
            low = accountant.delta(eps, bound="lower")
            up = np.ones(eps.shape)
        low, up = np.asarray(low, dtype=float), np.asarray(up, dtype=float)
        for values in (low, up):
            if values.shape != eps.shape:
                raise ValueError(
                    f"accountant must describe one mechanism (scalar parameters): its delta at "
                    f"{eps.size} epsilon values has shape {values.shape}; build one accountant per point"
                )
            if np.isnan(values).any():
                raise ValueError("accountant's delta must be a number, got NaN")
        # delta lies in [0, 1]: a side past either end (an upper bound rounded up past 1) is cut there, still valid
        return np.clip(low, 0.0, 1.0), np.clip(up, 0.0, 1.0)

    return sides


# --- the power from a bracket of D at nodes --------------------------------------------------


class _Nodes:
    """The bracket of D(t) at t = e^s for an ascending signed grid s (s >= 0: delta_{H1||H0}(s);
    s < 0: 1 - e^s + e^s delta_{H0||H1}(-s)), and of D(inf) = delta_{H1||H0}(inf)."""

    def __init__(self, forward: DeltaSides, backward: DeltaSides | None) -> None:
        self.forward, self.backward = forward, backward
        self.eps = np.zeros(0)  # the evaluated eps >= 0, ascending, 0 first
        self.f_low = self.f_up = self.b_low = self.b_up = np.zeros(0)
        self.inf_low, self.inf_up = (float(v[0]) for v in forward(np.array([np.inf])))

    def add(self, eps: np.ndarray) -> None:
        """Evaluates both directions at the new eps >= 0 (finite) and merges them in."""
        new = np.setdiff1d(eps, self.eps)
        if new.size == 0:
            return
        f_low, f_up = self.forward(new)
        b_low, b_up = (f_low, f_up) if self.backward is None else self.backward(new)
        merged = np.concatenate([self.eps, new])
        order = np.argsort(merged, kind="stable")
        self.eps = merged[order]
        self.f_low, self.f_up, self.b_low, self.b_up = (
            np.concatenate([old, fresh])[order]
            for old, fresh in ((self.f_low, f_low), (self.f_up, f_up), (self.b_low, b_low), (self.b_up, b_up))
        )

    @property
    def reach(self) -> float:
        return float(self.eps[-1])

    def signed(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(s, lo, up): the signed nodes ascending and D's bracket there.  At s = 0 both directions give
        the total variation: the bracket is their intersection."""
        pos = self.eps[1:]
        t_neg = np.exp(-pos[::-1])
        gap = -np.expm1(-pos[::-1])  # 1 - t, without cancellation
        # non-negative terms: each rounded value is within 3 u relative, so 4 u outward covers it
        neg_low = (gap + t_neg * self.b_low[1:][::-1]) * (1.0 - 4 * _U)
        neg_up = np.minimum((gap + t_neg * self.b_up[1:][::-1]) * (1.0 + 4 * _U), 1.0)
        zero_low = max(self.f_low[0], self.b_low[0])
        zero_up = min(self.f_up[0], self.b_up[0])
        s = np.concatenate([-pos[::-1], [0.0], pos])
        low = np.concatenate([neg_low, [zero_low], self.f_low[1:]])
        up = np.concatenate([neg_up, [zero_up], self.f_up[1:]])
        return s, low, up


def _power_bracket(
    accountant: Any, alpha: np.ndarray, side: str, direction: Any, rtol: Any
) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) power at every ``alpha`` (its shape), a side not asked trivial (alpha below, 1 above)."""
    _profiled(accountant)
    tolerance = float(
        _validation.in_interval(_validation.single(rtol, "rtol"), "rtol", 0.0, 1.0, open_low=True, open_high=True)
    )
    # the lower side's minorants need upper deltas too (the chords' slopes): an accountant giving a lower
    # side gives both, so the lower side is computed with its upper one
    side = "both" if side == "lower" else side
    forward, backward = _direction_profiles(accountant, direction, side)
    flat = alpha.ravel()
    want_lower, want_upper = side != "upper", True
    nodes = _Nodes(forward, backward)
    reach = FIRST_REACH
    nodes.add(np.arange(0.0, reach + COARSE_SPACING / 2, COARSE_SPACING))
    while True:
        bounds = _Bounds(nodes, flat, want_lower, want_upper)
        if not bounds.end_may_hold_minimum().any() or reach >= MAX_REACH:
            break
        more = min(2 * reach, MAX_REACH)
        nodes.add(np.arange(reach + COARSE_SPACING, more + COARSE_SPACING / 2, COARSE_SPACING))
        reach = more
    lower, upper = bounds.lower, bounds.upper
    # refine, halving the spacing, the finite intervals that can hold the minimum of an alpha not yet settled
    step = COARSE_SPACING
    open_ = np.ones(flat.size, dtype=bool)
    quiet = np.zeros(flat.size, dtype=np.int64)
    while open_.any() and step > FINEST_SPACING:
        step /= 2
        s = bounds.s
        wide = np.diff(s) > step * 1.5
        fine = [
            np.arange(s[k] + step, s[k + 1] - step / 2, step) for k in np.flatnonzero(bounds.may_hold_minimum() & wide)
        ]
        if not fine:
            continue
        nodes.add(np.unique(np.abs(np.concatenate(fine))))
        bounds = _Bounds(nodes, flat[open_], want_lower, want_upper)
        new_lower, new_upper = lower.copy(), upper.copy()
        new_lower[open_] = np.maximum(lower[open_], bounds.lower)  # every grid's sides are certified: keep the best
        new_upper[open_] = np.minimum(upper[open_], bounds.upper)
        # settled: the bracket within rtol, or two refinements in a row moving neither side by rtol (the
        # accountant's own bracket, or a kink of the curve, limits it; one quiet refinement may only mean the
        # minimum lies between the new nodes) nor by WIDTH_SHARE of the bracket (the grid's share of its width:
        # the sides converge at least linearly in the spacing, halved each time, so what further halvings can
        # still move a side is about its last move, a small part of a bracket the accountant's own sides keep wide)
        slack = WIDTH_SHARE * (new_upper - new_lower) if want_lower else 0.0
        still = (new_lower - lower <= np.maximum(tolerance * new_lower, slack)) & (
            upper - new_upper <= np.maximum(tolerance * new_upper, slack)
        )
        quiet = np.where(still, quiet + 1, 0)
        settled = quiet >= 2
        if want_lower:
            settled |= new_upper - new_lower <= tolerance * new_upper
        lower, upper = new_lower, new_upper
        if step > DEFAULT_SPACING:  # every alpha is refined down to the default spacing at least
            settled[:] = False
        keep = ~settled[open_]
        open_ &= ~settled
        bounds = bounds.subset(keep)
    return lower.reshape(alpha.shape), upper.reshape(alpha.shape)


class _Bounds:
    """The power's sides at every alpha from the nodes' bracket of D, and where its minimum may lie.

    ``upper``: the least node term up_k + alpha t_k (t's rounding and the sum: within 3 u relative, raised
    4 u); ``intervals``: per alpha, the lower bound on each interval ([0, t_0], the finite [t_k, t_k+1],
    [t_last, inf)); ``lower``: their least.  ``reference``: the least node term of the upper side, or of the
    lower side where only that is asked (an estimate of the minimum, to choose where to refine, never a
    bound), and ``best_node`` the node attaining it."""

    def __init__(self, nodes: _Nodes, alpha: np.ndarray, want_lower: bool, want_upper: bool) -> None:
        self.s, low, up = nodes.signed()
        self.alpha, self.want_lower = alpha, want_lower
        t = np.exp(self.s)
        n = self.s.size
        guide = up if want_upper else low
        self.reference = np.empty(alpha.size)
        self.best_node = np.empty(alpha.size, dtype=np.int64)
        rows = max(1, _CHUNK // n)
        for a in range(0, alpha.size, rows):
            terms = (guide[None, :] + alpha[a : a + rows, None] * t[None, :]) * (1.0 + 4 * _U)
            self.best_node[a : a + rows] = np.argmin(terms, axis=1)
            self.reference[a : a + rows] = terms[np.arange(terms.shape[0]), self.best_node[a : a + rows]]
        if want_upper:
            at_inf = np.where(alpha == 0.0, nodes.inf_up, np.inf)  # t -> inf: the mass at +infinity, alpha = 0 only
            # the power is at least alpha: an upper side below it is round-off, raised to it
            self.upper = np.maximum(np.minimum(np.minimum(self.reference, at_inf), 1.0), alpha)
        else:
            self.upper = np.ones(alpha.size)
        if want_lower:
            self.intervals = _interval_bounds(self.s, t, low, up, nodes.inf_low, alpha)
            self.lower = np.minimum(np.maximum(self.intervals.min(axis=1), alpha), 1.0)
        else:
            self.intervals = np.full((alpha.size, n + 1), -np.inf)
            self.lower = alpha.copy()

    def subset(self, keep: np.ndarray) -> _Bounds:
        """The same bounds for the alphas ``keep`` selects (where the next refinement looks)."""
        out = object.__new__(_Bounds)
        out.s, out.want_lower = self.s, self.want_lower
        for name in ("alpha", "reference", "best_node", "upper", "lower", "intervals"):
            setattr(out, name, getattr(self, name)[keep])
        return out

    def end_may_hold_minimum(self) -> np.ndarray:
        """Per alpha, whether the minimum may lie beyond the reach: at t -> 0 or t -> inf (alpha = 0 has
        its minimum at inf, where the mass at +infinity is read directly; a power of 1 is settled)."""
        last = self.s.size - 1
        open_ = self.reference < 1.0
        by_node = (self.best_node == 0) | ((self.best_node == last) & (self.alpha > 0.0))
        by_interval = self.want_lower & (
            (self.intervals[:, 0] < self.reference) | ((self.intervals[:, -1] < self.reference) & (self.alpha > 0.0))
        )
        return cast(np.ndarray, open_ & (by_node | by_interval))

    def may_hold_minimum(self) -> np.ndarray:
        """Per finite interval, whether the minimum may lie in it for some alpha: its lower bound below the
        reference, or next to the node attaining the reference."""
        marked = np.zeros(self.s.size - 1, dtype=bool)
        if self.want_lower:
            marked |= (self.intervals[:, 1:-1] < self.reference[:, None]).any(axis=0)
        for k in (self.best_node - 1, self.best_node):
            marked[np.clip(k, 0, self.s.size - 2)] = True
        return cast(np.ndarray, marked)


def _interval_bounds(
    s: np.ndarray, t: np.ndarray, low: np.ndarray, up: np.ndarray, inf_low: float, alpha: np.ndarray
) -> np.ndarray:
    """Per alpha (rows) and interval (columns: [0, t_0], the n - 1 finite ones, [t_last, inf)), a certified
    lower bound on min over the interval of D(t) + alpha t (the module docstring's three minorants)."""
    n = s.size
    d = np.diff(s)
    grow = np.expm1(d)  # (t_k+1 - t_k) / t_k
    # rho_k = (t_k+1 - t_k) / (t_k - t_k-1) for k = 0..n-2; k = 0's left neighbour is t = 0 (D = 1 exactly)
    rho = np.empty(n - 1)
    rho[0] = grow[0]
    rho[1:] = np.exp(d[:-1]) * grow[1:] / grow[:-1]
    up_left = np.concatenate([[1.0], up[:-2]])  # up_k-1, k = 0..n-2 (D(0) = 1)
    lo_k, lo_next = low[:-1], low[1:]
    # (b) the left chord at t_k (lo_k) and t_k+1
    left_end = lo_k - rho * (up_left - lo_k)
    left_mag = np.abs(lo_k) + rho * (np.abs(up_left) + np.abs(lo_k))
    # (c) the right chord at t_k and t_k+1 (lo_k+1); none on the last finite interval
    right_start = np.full(n - 1, -np.inf)
    right_mag = np.zeros(n - 1)
    right_start[:-1] = lo_next[:-1] + (lo_next[:-1] - up[2:]) / rho[1:]
    right_mag[:-1] = np.abs(lo_next[:-1]) + (np.abs(lo_next[:-1]) + np.abs(up[2:])) / rho[1:]
    # affine minorants of D on each interval, by their values at its two ends (without alpha t)
    starts = np.stack([lo_next, lo_k, right_start])  # (a) monotone, (b) left chord, (c) right chord
    ends = np.stack([lo_next, left_end, lo_next])
    magnitude = np.maximum.reduce([np.abs(lo_next), left_mag, right_mag])
    out = np.empty((alpha.size, n + 1))
    rows = max(1, _CHUNK // (3 * n))
    for a in range(0, alpha.size, rows):
        al = alpha[a : a + rows, None]
        with np.errstate(invalid="ignore", over="ignore"):
            at_start = starts[:, None, :] + al[None] * t[None, None, :-1]
            at_end = ends[:, None, :] + al[None] * t[None, None, 1:]
        best = np.minimum(at_start, at_end).max(axis=0)  # one minorant: its least end value
        for i in range(3):
            for j in range(3):
                # minorant i falls, j rises: the mean weighting i by lam is flat, its value a lower bound
                fall = at_start[i] - at_end[i]
                rise = at_end[j] - at_start[j]
                crossing = (fall > 0) & (rise > 0) & np.isfinite(fall) & np.isfinite(rise)
                with np.errstate(invalid="ignore", divide="ignore"):
                    lam = np.where(crossing, rise / (fall + rise), 0.0)
                    mean = np.minimum(
                        lam * at_start[i] + (1.0 - lam) * at_start[j], lam * at_end[i] + (1.0 - lam) * at_end[j]
                    )
                best = np.where(crossing, np.maximum(best, mean), best)
        scale = magnitude[None, :] + al * t[None, 1:]
        out[a : a + rows, 1:n] = best - 32 * _U * scale
    out[:, 0] = low[0] * (1.0 - 4 * _U)  # [0, t_0]: D >= D(t_0), alpha t >= 0
    out[:, n] = (inf_low + alpha * t[-1]) * (1.0 - 4 * _U)  # [t_last, inf): D >= D(inf), alpha t >= alpha t_last
    return out
