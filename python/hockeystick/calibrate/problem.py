"""One calibration's search, vectorized over targets: bracketing from a start by geometric steps
until every target has a value meeting it and one failing it, then the refinement (``refinement``)
to the final width."""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from ..base.accountant import Bound
from ..registry import AccountantEntry, Calibratable
from .directions import Directions
from .progress_bar import ProgressBar
from .refinement import bisect_integers, refine, settle
from .search_range import INTEGER_SPAN, SPAN, search_range

STEP = 4.0  # first bracketing factor; it is squared after every step (4, 16, 256, ...)
NEAR_STEP = 1.2  # ... from an accountant's own estimate (1.2, 1.44, 2.07, 4.3, ...)
_SMALLEST = np.nextafter(0.0, 1.0)
_OVERSHOOT = 1.2  # a first step from a measured slope: 1.2 Newton steps (see _newton_step)


class Problem:
    """Vectorized bracketing + refinement state for one calibration call."""

    bar: ProgressBar = ProgressBar(False, "", "")
    step: float | np.ndarray = STEP  # the first bracketing factor (one, or one per target)
    slope: np.ndarray | None = (
        None  # per target, d log excess / d log x near the start (a coarser grid's)
    )
    measured_slope: np.ndarray  # ... and as this search's bracket measured it
    integer_rtol: float = (
        0.0  # an integer search stops at this relative width (0: adjacent integers)
    )
    inner_workers: int | None = (
        None  # the accountant's own ``workers`` (where it takes them; None: its default)
    )
    directions: Directions | None = (
        None  # the upper side direction by direction (calibration_directions)
    )

    def __init__(
        self,
        entry: AccountantEntry,
        parameter: str,
        spec: Calibratable,
        eps: np.ndarray,
        dlt: np.ndarray,
        params: dict[str, float | np.ndarray],
        side: Bound = "upper",
    ) -> None:
        self.entry, self.parameter, self.spec = entry, parameter, spec
        self.eps, self.dlt, self.params, self.side = eps, dlt, params, side
        # "up" is the direction in which the bound meets the target more easily.
        self.up = spec.direction == "decreasing"

    def log_excess(self, x: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """log delta(eps; x) - log target at the points ``idx`` (< 0: feasible, > 0: not; never 0)."""
        sub: dict[str, Any] = {
            k: v[idx] if isinstance(v, np.ndarray) else v for k, v in self.params.items()
        }
        sub[self.parameter] = x
        if self.directions is not None:
            split = self.directions
            return self._excess(self.bar.evaluate(lambda: split.delta(x, idx), idx.size), idx)

        # the upper side is every accountant's default (and all a minimal accountant knows)
        def bound_at() -> Any:
            built = (
                self.entry.build(**sub)
                if self.inner_workers is None
                else self.entry.factory(
                    **{k: v for k, v in sub.items() if k in self.entry.parameters},
                    workers=self.inner_workers,
                )
            )
            return (
                built.delta(self.eps[idx])
                if self.side == "upper"
                else built.delta(self.eps[idx], bound=self.side)
            )

        return self._excess(self.bar.evaluate(bound_at, idx.size), idx)

    def _excess(self, delta: Any, idx: np.ndarray) -> np.ndarray:
        """log delta - log target at the points ``idx``, its sign exact and never 0 (``log_excess``)."""
        d = np.asarray(delta, dtype=float)
        target = self.dlt[idx]
        f = np.log(np.maximum(d, _SMALLEST)) - np.log(target)
        # the sign of f must say exactly whether d <= target (log can round across it), and f is
        # never 0: the root finder stops at an exact zero, which would end the refinement with a
        # bracket whose two ends both meet the target, however far the boundary still is
        return cast(
            np.ndarray, np.where(d <= target, np.minimum(f, -_SMALLEST), np.maximum(f, _SMALLEST))
        )

    def solve(self, start: np.ndarray, rtol: float) -> np.ndarray:
        """The calibrated value per target, bracketing from ``start`` (one value per target)."""
        n = self.eps.size
        self.lower, self.upper = search_range(self.spec, self.params, n)
        x0 = np.clip(np.round(start) if self.spec.integer else start, self.lower, self.upper)
        good = np.full(n, np.nan)  # a value meeting the target
        bad = np.full(n, np.nan)  # a value failing it (adjacent side)
        self.bad = bad  # ... read by ``directions`` (where to screen), updated in place
        fbad = np.full(n, np.nan)  # log excess at ``bad`` (for the unreachable message)
        self.fgood = np.full(n, np.nan)  # log excess at ``good`` (integer search: interpolation)
        everything = np.arange(n)
        f0, refused = self.hard_side_excess(x0, everything)
        if refused.any():
            x0[refused], f0[refused] = self._accepted_start(x0[refused], everything[refused])
        ok = f0 <= 0
        good[ok], self.fgood[ok] = x0[ok], f0[ok]
        bad[~ok], fbad[~ok] = x0[~ok], f0[~ok]
        result = np.full(n, np.nan)
        if self.slope is not None:
            self.step = self._newton_step(f0, rtol)
        self._bracket(good, bad, fbad, result, x0)
        with np.errstate(divide="ignore", invalid="ignore"):
            self.measured_slope = (fbad - self.fgood) / (np.log(bad) - np.log(good))
        open_ = np.flatnonzero(np.isnan(result))
        if self.spec.integer:
            bisect_integers(self, good, bad, fbad, open_)
        else:
            (settle if self.slope is not None else refine)(self, good, bad, fbad, open_, rtol)
        if self.side == "lower" and not self.spec.integer:
            # certain: the target fails at ``bad`` (and beyond it); at the hard end nothing is
            # certain
            result[open_] = bad[open_]
            if self.up:
                result[~np.isin(np.arange(n), open_)] = 0.0
        else:
            result[open_] = good[open_]
        return result

    def _newton_step(self, f0: np.ndarray, rtol: float) -> np.ndarray:
        """The first bracketing factor per target from ``slope`` (d log excess / d log x measured on
        a coarser grid): exp(``_OVERSHOOT`` |f0 / slope| + rtol / 2), so that the step lands just
        past the root and the bracket is about as wide as the start's error; at most the usual
        ``step``, which stands where the slope is unknown or points the wrong way.  Where the
        coarser grid's slope puts the root close to the Newton step, 1.2 steps cross it: the second
        end lands a fifth of the start's error past the root instead of a whole one (overshoot 2),
        and the secant's error, which the curvature makes proportional to the product of the two
        ends' distances, is 5x smaller: mostly within one rtol of the root, so that one step across
        closes the bracket."""
        usual = np.broadcast_to(np.asarray(self.step, dtype=float), f0.shape)
        assert self.slope is not None
        with np.errstate(divide="ignore", invalid="ignore"):
            jump = _OVERSHOOT * np.abs(f0 / self.slope) + 0.5 * rtol
        known = np.isfinite(jump) & ((self.slope < 0) == self.up)  # delta falls along "up"
        return np.where(known, np.exp(np.minimum(np.where(known, jump, 0.0), np.log(usual))), usual)

    def _bracket(
        self,
        good: np.ndarray,
        bad: np.ndarray,
        fbad: np.ndarray,
        result: np.ndarray,
        x0: np.ndarray,
    ) -> None:
        """Step geometrically until every point has a feasible and an infeasible value.

        A point infeasible even at the easy limit is unreachable (ValueError); a point
        feasible even at the hard limit gets the range end: for sigma the smallest value
        searched (the lower end nudged inside an open range, ~1.2e-77 when it is 0); for
        rounds the largest the accountant allows, or inf when that is unbounded (the search
        stops a factor SPAN from the start; 2^52 for integers).
        """
        spec = self.spec
        span = INTEGER_SPAN if spec.integer else SPAN
        # the span only bounds an unbounded end: a finite range end (rounds <= n / batch_size) is
        # itself evaluated, however far from the start it lies
        low = np.maximum(x0 / span, self.lower)
        high = np.where(np.isfinite(self.upper), self.upper, np.minimum(x0 * span, self.upper))
        step = np.broadcast_to(np.asarray(self.step, dtype=float), (self.eps.size,))
        to_easy, easy_limit = (step, high) if self.up else (1 / step, low)
        to_hard, hard_limit = (1 / step, low) if self.up else (step, high)
        # feasible at the hard end: sigma gets the smallest value searched (evaluated, so the
        # accountant accepts it; 0 would not be); rounds the cap, or inf when there is none
        hard_end = low if self.up else np.where(np.isfinite(self.upper), self.upper, np.inf)
        for factor, limits, missing in ((to_easy, easy_limit, good), (to_hard, hard_limit, bad)):
            idx = np.flatnonzero(np.isnan(missing))
            x = np.where(np.isnan(good[idx]), bad[idx], good[idx])
            factor = factor[idx]
            while idx.size:
                limit = limits[idx]
                at_limit = x == limit
                if np.any(at_limit):
                    if missing is good:
                        self._unreachable(idx[at_limit], x[at_limit], fbad[idx[at_limit]])
                    result[idx[at_limit]] = hard_end[idx[at_limit]]
                    idx, x, limit, factor = (
                        idx[~at_limit],
                        x[~at_limit],
                        limit[~at_limit],
                        factor[~at_limit],
                    )
                    if not idx.size:
                        break
                moved = np.round(x * factor) if spec.integer else x * factor
                grow = factor > 1
                if spec.integer:  # a small factor must still move an integer (1.2 x 1 rounds to 1)
                    moved = np.where(grow, np.maximum(moved, x + 1), np.minimum(moved, x - 1))
                x = np.where(grow, np.minimum(moved, limit), np.maximum(moved, limit))
                with np.errstate(
                    over="ignore", under="ignore"
                ):  # inf / 0: the limit clips the next step
                    factor = factor * factor
                if missing is good:
                    f = self.log_excess(x, idx)
                else:
                    f, refused = self.hard_side_excess(x, idx)
                    if refused.any():  # the range ends where the accountant stops computing bounds
                        result[idx[refused]] = good[idx[refused]]
                        idx, x, factor, f = (
                            idx[~refused],
                            x[~refused],
                            factor[~refused],
                            f[~refused],
                        )
                ok = f <= 0
                good[idx[ok]], self.fgood[idx[ok]] = x[ok], f[ok]
                bad[idx[~ok]], fbad[idx[~ok]] = x[~ok], f[~ok]
                keep = ~ok if missing is good else ok
                idx, x, factor = idx[keep], x[keep], factor[keep]

    def hard_side_excess(self, x: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``log_excess`` at the start or at trials towards the hard end, and which of them the
        accountant refuses (ValueError: no certified bound computed there, e.g. a PLD loss grid of
        more than its cap of cells at a tiny sigma).  A trial's point met the target at every value
        evaluated so far, so its search range ends at the last of them; a refused start moves
        towards the easy end (``_accepted_start``). The points are evaluated one by one once a joint
        call is refused.

        Parameters
        ----------
        x : numpy.ndarray
            The parameter values to evaluate, one per index of ``idx``.
        idx : numpy.ndarray
            The indices of the problem's targets those values are evaluated for.

        Returns
        -------
        tuple of numpy.ndarray
            (excess, refused): ``log_excess`` of each value (NaN where refused), and which values
            the accountant refused.
        """
        try:
            return self.log_excess(x, idx), np.zeros(idx.size, dtype=bool)
        except ValueError:
            if idx.size == 1:  # a lone point's refusal is its own: not evaluated again
                return np.full(1, np.nan), np.ones(1, dtype=bool)
        f = np.full(idx.size, np.nan)
        refused = np.zeros(idx.size, dtype=bool)
        for j in range(idx.size):
            try:
                f[j] = self.log_excess(x[j : j + 1], idx[j : j + 1])[0]
            except ValueError:
                refused[j] = True
        return f, refused

    def _accepted_start(self, x0: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Starts the accountant refuses (ValueError) moved towards the easy end by factors 2, 4,
        16, ... until it accepts one (where the easy end itself is refused, its error is raised):
        their values and log excess."""
        xs, fs = x0.copy(), np.empty(idx.size)
        for j in range(idx.size):
            i = idx[j : j + 1]
            limit = (
                min(float(self.upper[i[0]]), float(x0[j]) * SPAN)
                if self.up
                else float(self.lower[i[0]])
            )
            x, factor = float(x0[j]), 2.0
            while True:
                x = min(x * factor, limit) if self.up else max(x / factor, limit)
                if self.spec.integer:
                    x = float(np.floor(x)) if self.up else float(np.ceil(x))
                try:
                    fs[j] = self.log_excess(np.array([x]), i)[0]
                    break
                except ValueError:
                    if x == limit:
                        raise
                factor *= factor
            xs[j] = x
        return xs, fs

    def _unreachable(self, idx: np.ndarray, x: np.ndarray, f: np.ndarray) -> None:
        i = int(idx[0])
        where = ", ".join(
            f"{k}={v[i] if isinstance(v, np.ndarray) else v:g}" for k, v in self.params.items()
        )
        reached = float(np.exp(f[0]) * self.dlt[i])
        raise ValueError(
            f"target (epsilon={self.eps[i]:g}, delta={self.dlt[i]:g}) is unreachable for {self.entry.name!r}"
            f"{' at ' + where if where else ''}: even {self.parameter}={x[0]:g} gives delta={reached:.3g}; "
            f"raise epsilon or delta, or change the other parameters"
        )
