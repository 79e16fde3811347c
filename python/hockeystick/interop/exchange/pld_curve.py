"""An accountant's certified delta(eps) curve as Google's PLD fields: the PMFs whose hockey-stick curves bound it.

Any accountant of hockeystick's contract certifies delta(eps) on both sides at every eps >= 0, over
both orders of its neighbouring pairs (``base.accountant``); its reads at small delta (the tilted
and split reads of ``SubsampledGaussianPLD``'s default, for one) are not those of one composed grid
PMF.  A reader of Google's fields reads a PMF: this module builds, from the curve's certified values
at sample points, a pessimistic PMF whose curve lies at or above the true delta(eps) at every eps,
and an optimistic one at or below it.

The hockey-stick curve of masses p_j at losses l_j and mass p_inf at +infinity, as a function of
alpha = e^eps,

    f(alpha) = sum_j p_j (1 - alpha e^{-l_j})_+ + p_inf,

is convex, piecewise linear with a kink at each e^{l_j}, f(0) the total mass and f(inf) = p_inf;
conversely a convex non-increasing piecewise-linear function with kinks at grid points e^{l_j} is
the curve of the masses p_j = e^{l_j} (s_{j+1} - s_j) >= 0 (s the slopes on either side of the kink)
and p_inf = its value at +infinity. The true curve delta(alpha) is convex and non-increasing with
delta(0) = 1 (Zhu, Dong & Wang, AISTATS 2022, Sec. 3: a profile of a pair), so:

- pessimistic: with U_k >= delta(alpha_k) at the samples (made non-increasing by a running minimum,
  which keeps them upper bounds since delta is non-increasing), delta lies below every chord of the
  U_k (it lies below its own chords, and those below the U_k's); the lower convex hull H of the
  points (0, 1) and (alpha_k, U_k) is such a chord at each alpha, so delta <= H on [0, alpha_N], and
  delta <= U_N beyond (non-increasing): H with U_N at +infinity is the PMF.  Below eps = 0 the
  samples are U(-e) = 1 - e^{-e} (1 - U(e)): delta_{P|Q}(-e) = 1 - e^{-e} + e^{-e} delta_{Q|P}(e)
  (the profile of the reversed pair), and U bounds both orders.
- optimistic: with L_k <= delta(alpha_k) (a running maximum from the right, for the same reason, and
  1 - alpha below eps = 0, which the reversed pair's formula gives with delta_{Q|P} >= 0), delta >=
  L_{k+1} on (alpha_k, alpha_{k+1}] (non-increasing): the points (0, L_0), (alpha_k, L_{k+1}) and
  (alpha_N, 0) lie on or below that staircase, and so does their lower convex hull, the PMF (one
  sample lower in eps than L).

Each PMF then dominates (is dominated by) the mechanism as a pair (Zhu, Dong & Wang, Def. 7: its
curve is at or above delta at every alpha >= 0, both orders), so a reader composing it with other
PLDs keeps an upper (lower) side (Zhu, Dong & Wang, Thm 10).  Every point, the one at alpha = 0
included, is moved out by the relative ``MARGIN`` before the hull is taken, so the moved hull is the
hull times 1 +- MARGIN at every alpha; the hull and masses are computed in long double, each mass
rounded outward to a double, and the curve of the masses written is checked at every sample against
the moved hull less half the margin (``_hull_pmf``: summed in doubles as a sum of non-negative
terms, its relative error under 4 n u for n samples); a failed check retries with a larger margin.
The pessimistic PMF so carries mass 1 + MARGIN.

A reader of the pessimistic PMF gets at delta an eps no more than one sample spacing above the eps
where the certified upper curve crosses delta; the samples are ``sample_spacing(eps)`` apart (half
the default tolerance max(1e-3, 2.5e-4 eps) of ``SubsampledGaussianPLD``, at least one grid cell),
and reach the certified eps at ``delta_floor`` / 2, so the mass at +infinity (the curve's value
there) stays below ``delta_floor``.
"""

from __future__ import annotations

import inspect
import math
from typing import Any, cast

import numpy as np

from ...base.accountant import Bound, Quantity
from ...base.accountant_docs import accountant_docs
from ...ledger.fixed_schedule import pld_accountant
from ...ledger.ledger import PrivacyLedger
from ...ledger.round_facets import bracketed
from ...pld.accountants import PLDAccountant
from .pld_format import ExchangedPMF

__all__ = [
    "DEFAULT_DELTA_FLOOR",
    "DEFAULT_DELTA_FLOORS",
    "DeltaFloorError",
    "DEFAULT_INTERVAL",
    "MARGIN",
    "MAX_EPSILON",
    "FixedSchedule",
    "curve_pmfs",
    "fixed_schedule",
    "follows_contract",
    "sample_keys",
    "sample_spacing",
]

# The smallest delta at which an export reads within the default tolerance unless the caller states
# another: below the deltas DP-SGD and cross-device runs are reported at (1e-5 to 1e-10), with eps
# there a few units.  A source that certifies no eps there (a PLD on a coarse grid: its round-off
# floor) takes the first of the larger ones it does.
DEFAULT_DELTA_FLOOR = 1e-12
DEFAULT_DELTA_FLOORS = tuple(10.0**-k for k in range(12, 5, -1))
# dp_accounting's default value_discretization_interval: an export on it composes with
# dp_accounting's own PLDs.
DEFAULT_INTERVAL = 1e-4
# Relative amount every point is moved out by before the hull: the check's summation error (4 n u,
# under 5e-11 for n <= 10^5 samples) and the masses' round-off in long double (about 1e-19 relative,
# times the cancellation of neighbouring slopes, ~1e8 at most on the samples' spacing) stay inside
# half of it, and the reader's loss e^{(min_key + i) h} against the sample's eps (~1e-16) far
# inside.  It is also the pessimistic PMF's mass above 1 (the point at alpha = 0 moves too), which
# hides that much mass lost from the file from the format's mass check.
MARGIN = 1e-9
# The largest certified eps at delta_floor / 2 an export samples to: e^eps stays far from overflow
# in the hull.
MAX_EPSILON = 500.0
# The default tolerance of SubsampledGaussianPLD's bracket, max(ABSOLUTE, RELATIVE eps): the samples
# are half of it apart, so a reader's eps is within it of the certified curve's crossing.
ABSOLUTE_TOLERANCE = 1e-3
RELATIVE_TOLERANCE = 2.5e-4
# margins tried in turn when the check of the masses written fails (it has not: each is a guard)
_MARGINS = (MARGIN, 1e-8, 1e-6)
_UNIT = 2.0**-53


class DeltaFloorError(ValueError):
    """A ``delta_floor`` below what the source certifies: its certified eps at ``delta_floor`` / 2
    is infinite or above ``MAX_EPSILON``."""


def sample_spacing(epsilon: float) -> float:
    """The spacing of the samples at ``epsilon`` >= 0: half the default tolerance max(1e-3, 2.5e-4 eps)."""
    return 0.5 * max(ABSOLUTE_TOLERANCE, RELATIVE_TOLERANCE * epsilon)


def sample_keys(top: float, h: float) -> np.ndarray:
    """The grid indices k >= 0 of the samples, from 0 to the first k h >= ``top``:
    ``sample_spacing(k h)`` apart, rounded down to whole cells (at least one)."""
    keys = [0]
    while keys[-1] * h < top:
        keys.append(keys[-1] + max(1, math.floor(sample_spacing(keys[-1] * h) / h)))
    return np.array(keys, dtype=np.int64)


def follows_contract(source: Any) -> bool:
    """Whether ``source`` has the contract's ``delta(epsilon, *, bound=...)`` and ``epsilon(delta, *, bound=...)``.

    Parameters
    ----------
    source : object
        Anything.

    Returns
    -------
    bool
        True when both methods are there and take ``bound`` (``base.accountant``).
    """
    for name in ("delta", "epsilon"):
        method = getattr(source, name, None)
        if not callable(method):
            return False
        try:
            if "bound" not in inspect.signature(method).parameters:
                return False
        except (TypeError, ValueError):
            return False
    return True


# the public parameters by which an accountant of several runs shows itself before any read
# (docs/vocabulary.md)
_RUN_PARAMETERS = ("sigma", "sampling_rate", "rounds", "noise_multiplier", "steps", "sensitivity")


def _refuse_several_runs(source: Any) -> None:
    """Refuses an accountant whose run parameters are arrays of several values, before any read of its curve."""
    for name in _RUN_PARAMETERS:
        value = getattr(source, name, None)
        if isinstance(value, (int, float, np.ndarray, list, tuple)) and np.size(value) > 1:
            raise ValueError(
                f"source must account for one run: its {name} holds {np.size(value)} values; build it with one "
                "value of each parameter"
            )


def _one_run(values: Any, size: int, what: str, source: Any) -> np.ndarray:
    """An accountant's answer as a float array of ``size`` values, refused unless one run's (a scalar point)."""
    out = np.asarray(values, dtype=np.float64)
    if out.shape != (size,):
        raise ValueError(
            f"source must account for one run: {type(source).__name__}.{what} answers with shape {out.shape} for "
            f"{size} arguments (its parameters are arrays); build it with one value of each parameter"
        )
    if not np.all(np.isfinite(out) & (out >= 0.0)):
        raise ValueError(
            f"source's {what} gave a value outside [0, 1]: not a certified delta curve"
        )
    return np.minimum(out, 1.0)


def _sides(source: Any, eps: np.ndarray) -> tuple[np.ndarray | None, np.ndarray]:
    """The certified (lower or None, upper) delta of ``source`` at ``eps``: both where it gives both."""
    sides = getattr(source, "bound_sides", ("upper", "lower", "both"))
    if "both" in sides:
        try:
            lower, upper = source.delta(eps, bound="both")
        except ValueError as error:
            if "bound" not in str(error):
                raise
        else:
            return _one_run(lower, eps.size, "delta", source), _one_run(
                upper, eps.size, "delta", source
            )
    return None, _one_run(source.delta(eps, bound="upper"), eps.size, "delta", source)


def _top_epsilon(source: Any, delta_floor: float) -> float:
    """The certified upper eps of ``source`` at ``delta_floor`` / 2, refused where it is infinite or too large."""
    try:
        top = float(np.asarray(source.epsilon(delta_floor / 2.0, bound="upper"), dtype=np.float64))
    except ValueError as error:
        raise DeltaFloorError(
            f"delta_floor={delta_floor!r}: the source refuses epsilon at delta_floor / 2: {error}"
        ) from None
    except TypeError:  # an array answer: parameters that are arrays
        raise ValueError(
            f"source must account for one run: {type(source).__name__}.epsilon answers with an array (its "
            "parameters are arrays); build it with one value of each parameter"
        ) from None
    if not top <= MAX_EPSILON:
        raise DeltaFloorError(
            f"delta_floor must be a delta the source certifies an eps <= {MAX_EPSILON:g} at: its certified eps at "
            f"delta_floor / 2 = {delta_floor / 2:g} is {top!r} (its upper delta stays above it at every eps: the "
            "mass at +infinity and round-off charges of its grid); give a larger delta_floor, or export the run's "
            "accountant (SubsampledGaussianPLD, DPSGD, PLDAccountant without a grid), whose reads go lower"
        )
    return max(top, 0.0)


def _lower_hull(alpha: np.ndarray, value: np.ndarray) -> np.ndarray:
    """Indices of the lower convex hull's vertices of the points (alpha, value), alpha strictly
    increasing (Andrew's monotone chain, in long double)."""
    hull: list[int] = []
    for i in range(alpha.size):
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            # b is dropped when it lies on or above the chord from a to i
            if (value[b] - value[a]) * (alpha[i] - alpha[a]) >= (value[i] - value[a]) * (
                alpha[b] - alpha[a]
            ):
                hull.pop()
            else:
                break
        hull.append(i)
    return np.array(hull, dtype=np.int64)


def _masses(alpha: np.ndarray, value: np.ndarray) -> np.ndarray:
    """The masses at the vertices alpha[1:] (alpha[0] = 0, the total mass's point) of the convex
    piecewise-linear curve through (alpha, value), flat after the last: e^{l} times the slope's
    increase, >= 0."""
    slopes = np.diff(value) / np.diff(alpha)
    after = np.append(
        slopes[1:], np.zeros(1, dtype=slopes.dtype)
    )  # the curve is flat after the last vertex
    return np.maximum(alpha[1:] * (after - slopes), 0)


def _curve(values: np.ndarray, alpha: np.ndarray, infinity: float) -> np.ndarray:
    """The curve of masses ``values`` at alpha (increasing, mass at every point) with ``infinity``
    at +infinity, at each alpha: f(alpha_k) = f(alpha_{k+1}) + (alpha_{k+1} - alpha_k) sum_{j > k}
    p_j / alpha_j, every term non-negative (relative error under 4 n u)."""
    weights = np.cumsum((values / alpha)[::-1])[::-1]  # sum_{j >= k} p_j / alpha_j
    steps = np.diff(alpha) * weights[1:]
    out = np.empty_like(alpha)
    out[-1] = infinity
    out[:-1] = infinity + np.cumsum(steps[::-1])[::-1]
    return out


def _hull_values(
    points_alpha: np.ndarray, hull: np.ndarray, points_value: np.ndarray
) -> np.ndarray:
    """The lower hull's piecewise-linear curve (through the vertices ``hull`` of the points, the
    first at alpha 0) at each point but the first, flat after the last vertex (long double)."""
    index = np.arange(1, points_alpha.size)
    right = np.searchsorted(hull, index)  # the first vertex at or after each point
    after = right >= hull.size
    right = np.minimum(right, hull.size - 1)
    a0, a1 = points_alpha[hull[right - 1]], points_alpha[hull[right]]
    v0, v1 = points_value[hull[right - 1]], points_value[hull[right]]
    inside = (points_alpha[index] - a0) / (a1 - a0)
    return np.asarray(
        np.where(after, points_value[hull[-1]], v0 + (v1 - v0) * inside), dtype=np.float64
    )


def _hull_pmf(
    keys: np.ndarray,
    h: float,
    at_zero: float,
    corners: np.ndarray,
    pessimistic: bool,
    margin: float,
) -> ExchangedPMF | None:
    """The PMF over the samples' keys whose curve is the lower convex hull of (0, ``at_zero``) and
    (alpha_k, ``corners[k]``), moved out by ``margin`` (up for the pessimistic side, down for the
    optimistic one), flat after the last sample; None if the check of the masses written fails at
    this margin.

    Every point is moved by the same factor, so the moved hull is the hull times that factor: its
    relative distance to the hull is ``margin`` at every alpha.  The masses (long double, rounded
    outward to doubles) are checked at every sample against the moved hull less half the margin,
    which proves them on the hull's side of it."""
    ld = np.longdouble
    factor = 1 + ld(margin) if pessimistic else 1 - ld(margin)
    alpha = np.exp(keys.astype(ld) * ld(h))
    points_alpha = np.concatenate([[ld(0)], alpha])
    points_value = np.concatenate([[ld(at_zero)], corners.astype(ld)]) * factor
    hull = _lower_hull(points_alpha, points_value)
    vertex_alpha, vertex_value = points_alpha[hull], points_value[hull]
    masses = np.asarray(_masses(vertex_alpha, vertex_value), dtype=np.float64)
    outward = np.nextafter(masses, math.inf if pessimistic else -math.inf)
    written = np.zeros(keys.size)
    written[hull[1:] - 1] = np.where(masses > 0.0, np.maximum(outward, 0.0), 0.0)
    infinity = float(vertex_value[-1]) if pessimistic else 0.0
    if pessimistic and infinity > 0.0:
        infinity = float(np.nextafter(infinity, math.inf))
    curve = _curve(written, np.exp(keys * h), infinity)
    moved = _hull_values(points_alpha, hull, points_value)
    slack = 4.0 * (keys.size + 4) * _UNIT  # the curve's summation error, relative
    half = np.asarray(
        moved * (1 - ld(margin) / 2 if pessimistic else 1 + ld(margin) / 2), dtype=np.float64
    )
    if pessimistic and not np.all(curve * (1 - slack) >= half):
        return None
    if not pessimistic and not np.all(curve * (1 + slack) <= half):
        return None
    total = math.fsum(
        [*written.tolist(), infinity]
    )  # f(0): at least (at most) the moved hull's value there
    if pessimistic and not total >= at_zero:
        written[0] = float(np.nextafter(written[0] + (at_zero - total), math.inf))
    if not pessimistic and not total <= at_zero:
        return None
    return _fields(keys, h, written, infinity, pessimistic)


def _fields(
    keys: np.ndarray, h: float, masses: np.ndarray, infinity: float, pessimistic: bool
) -> ExchangedPMF:
    """Google's fields of ``masses`` at the grid indices ``keys`` (zeros between them)."""
    values = np.zeros(int(keys[-1] - keys[0]) + 2)
    values[keys - keys[0]] = masses
    # a mass above 1 (the moved hull's total is 1 + margin) keeps 1 and passes the rest a cell up,
    # where it only raises the curve: p (1 - alpha e^{-l})_+ grows with l
    over = np.flatnonzero(values > 1.0)
    for i in range(int(over[0]) if over.size else values.size, values.size - 1):
        if values[i] > 1.0:
            values[i + 1] = float(np.nextafter(values[i + 1] + (values[i] - 1.0), math.inf))
            values[i] = 1.0
    live = np.flatnonzero(values > 0.0)
    if live.size == 0:
        return ExchangedPMF(h, 0, np.zeros(1), infinity, pessimistic)
    return ExchangedPMF(
        h, int(keys[0] + live[0]), values[live[0] : live[-1] + 1], infinity, pessimistic
    )


def curve_pmfs(
    source: Any, delta_floor: float, h: float
) -> tuple[ExchangedPMF, ExchangedPMF | None]:
    """The pessimistic and optimistic PMFs on grid ``h`` of ``source``'s certified curve (module docstring).

    Parameters
    ----------
    source : accountant
        An object of the accountant contract for one run: ``delta(epsilon, *, bound=...)`` and
        ``epsilon(delta, *, bound=...)`` certified over both orders of its neighbouring pairs.
    delta_floor : float
        The smallest delta at which a reader's eps is within the default tolerance of the certified
        one, in (0, 1).
    h : float
        The grid's spacing.

    Returns
    -------
    tuple
        (pessimistic PMF, optimistic PMF or None when ``source`` certifies the upper side alone).

    Raises
    ------
    ValueError
        If ``source`` accounts for several runs (array parameters), or certifies no eps <=
        ``MAX_EPSILON`` at ``delta_floor`` / 2 (the message says what to give instead).
    """
    _refuse_several_runs(source)
    top = _top_epsilon(source, delta_floor)
    positive = sample_keys(top, h)
    lower, upper = _sides(source, positive * h)
    # the last sample lies at or above the eps certified at delta_floor / 2, where delta is at most
    # delta_floor / 2 (delta is non-increasing): the mass at +infinity, that sample's value moved
    # out, stays below delta_floor
    upper[-1] = min(upper[-1], delta_floor / 2.0)
    upper = np.minimum.accumulate(
        upper
    )  # delta is non-increasing: a later sample's bound holds earlier
    e = positive[1:] * h  # the samples below eps = 0 mirror those above it (keys -k)
    keys = np.concatenate([-positive[:0:-1], positive])
    below = (-np.expm1(-e) + np.exp(-e) * upper[1:]) * (
        1.0 + 4.0 * _UNIT
    )  # the reversed pair's formula, rounded up
    target = np.minimum(np.concatenate([below[::-1], upper]), 1.0)
    target = np.minimum.accumulate(target)
    tries = (_hull_pmf(keys, h, 1.0, target, True, m) for m in _MARGINS)
    pessimistic = next((p for p in tries if p is not None), None)
    if pessimistic is None:
        raise RuntimeError("the pessimistic PMF's curve failed its check at every margin")
    optimistic = None
    if lower is not None:
        floor_below = np.maximum(
            -np.expm1(-e) * (1.0 - 4.0 * _UNIT), 0.0
        )  # 1 - e^{-e}, rounded down
        low = np.concatenate([floor_below[::-1], lower])
        low = np.maximum.accumulate(low[::-1])[::-1]  # a later sample's lower bound holds earlier
        corners = np.append(
            low[1:], 0.0
        )  # delta >= low[k + 1] on (alpha_k, alpha_{k+1}], >= 0 beyond the last
        tries = (_hull_pmf(keys, h, float(low[0]), corners, False, m) for m in _MARGINS)
        optimistic = next((p for p in tries if p is not None), None)
    return pessimistic, optimistic


@accountant_docs()  # completes delta / epsilon docstrings with the contract's sections
class FixedSchedule:
    """A fixed-schedule ledger's recorded rounds as an accountant of the contract (``delta`` and ``epsilon``).

    Gaussian and subsampled Gaussian rounds (one kind or more) are composed by ``PLDAccountant``'s
    default reads, its grid chosen per question; other rounds by the ledger's own composition
    (``ledger.fixed_schedule .pld_accountant`` on the ledger's grid), a matrix-mechanism round known
    within a bracket of sensitivities at its upper one for the upper side and its realizable lower
    one for the lower side, as ``PrivacyLedger.composition`` does.

    Parameters
    ----------
    ledger : PrivacyLedger
        A fixed-schedule ledger (``fixed_schedule`` checks it).
    """

    def __init__(self, ledger: PrivacyLedger):
        runs = list(ledger.counts().items())
        if all(one.mechanism in ("gaussian", "subsampled_gaussian") for one, _ in runs):
            accountant = PLDAccountant()
            for one, count in runs:
                rate = 1.0 if one.sampling_rate is None else float(one.sampling_rate)
                accountant.compose_subsampled_gaussian(
                    float(cast(float, one.sigma)), rate, int(count)
                )
            self._upper = self._lower = accountant
        else:
            h = ledger.value_discretization_interval
            self._upper = pld_accountant(runs, h)
            bracketed_round = any(bracketed(one) for one, _ in runs)
            self._lower = pld_accountant(runs, h, "lower") if bracketed_round else self._upper

    def delta(self, epsilon: Any, *, bound: Bound = "upper") -> Any:
        """The certified delta at ``epsilon`` on the side ``bound`` asks for.

        Parameters
        ----------
        epsilon : array_like
            The eps, as ``PLDAccountant.delta`` takes them.

        Returns
        -------
        float, numpy.ndarray or tuple
            The composition's certified delta.
        """
        return self._side("delta", epsilon, bound)

    def epsilon(self, delta: Any, *, bound: Bound = "upper") -> Any:
        """The certified epsilon at ``delta`` on the side ``bound`` asks for.

        Parameters
        ----------
        delta : array_like
            The delta, as ``PLDAccountant.epsilon`` takes them.

        Returns
        -------
        float, numpy.ndarray or tuple
            The composition's certified epsilon.
        """
        return self._side("epsilon", delta, bound)

    def _side(self, method: Quantity, x: Any, bound: Bound) -> Any:
        upper = getattr(self._upper, method)(x, bound="upper") if bound != "lower" else None
        lower = getattr(self._lower, method)(x, bound="lower") if bound != "upper" else None
        return {"upper": upper, "lower": lower, "both": (lower, upper)}[bound]


def fixed_schedule(ledger: PrivacyLedger) -> FixedSchedule:
    """The recorded rounds of a fixed-schedule ledger as an accountant (``FixedSchedule``).

    Parameters
    ----------
    ledger : PrivacyLedger
        A ledger with ``adaptive=False`` and at least one round recorded.

    Returns
    -------
    FixedSchedule
        Its ``delta`` and ``epsilon`` certified on both sides.

    Raises
    ------
    ValueError
        If the ledger is adaptive or has no round recorded.
    """
    if ledger.adaptive:
        raise ValueError(
            "source must be a fixed-schedule PrivacyLedger (adaptive=False): an adaptive run's guarantee is its "
            "filter's or odometer's, not a composition of the rounds' PLDs (arXiv 2602.06756), so it has no curve "
            "to export"
        )
    if not ledger.rounds:
        raise ValueError(
            "source is a PrivacyLedger with no round recorded: nothing released, no PLD to export"
        )
    return FixedSchedule(ledger)
