"""A search's upper delta direction by direction (an accountant's ``calibration_directions``), the
directions other than the leading one composed only where a trial needs them."""

from __future__ import annotations

from typing import Any, Protocol, cast

import numpy as np

SCREEN_MARGIN = 1e-3  # a screen below an extrapolated start (log x)
_SCREENS = 2  # screens per target and search at most


class Trials(Protocol):
    """What the directions read of a search: its targets and parameters, its bracket's infeasible
    ends (``bad``), the direction in which the target is met more easily (``up``) and the
    accountant's own workers."""

    eps: np.ndarray
    dlt: np.ndarray
    params: dict[str, Any]
    parameter: str
    up: bool
    bad: np.ndarray
    inner_workers: int | None


class Directions:
    """A search's upper delta direction by direction (the accountant's ``calibration_directions``:
    the PLD's remove and add directions, ``pld/refine/directional_delta.py``), the other directions
    composed only where needed.

    delta = max over directions, and any certified upper bound of each direction gives one of delta:

    - the leading direction's bound U_l on the searched grid at every trial; U_l > target fails the
      target whatever the others are, so such a trial (every infeasible probe) needs nothing more;
    - a trial with U_l <= target needs a bound U_o on the others: the others' delta falls
      monotonically towards the feasible side (for sigma: more noise is a Markov kernel, see
      directional_delta.py), so a certified U_o at a "screen" value x_s (on a grid ``COARSENING``
      times coarser) bounds it at every x beyond x_s.  Where U_o <= target, the trial's delta is
      max(U_l, U_o): certified, and feasible exactly when U_l is.  The screen sits where no later
      trial falls short of it: the infeasible end of the bracket once there is one (every later
      probe lies inside), before that ``margin`` (log x) short of the trial (the first bracketing
      step; ``_SCREEN_MARGIN`` from an extrapolated start).  At most ``_SCREENS`` per target; a
      trial no passing screen covers gets the others on the searched grid at x itself, max(U_l,
      U_o(x)): the accountant's own number where its directions are composed apart.

    So the value a calibration returns met the target under a certified upper bound whose leading
    direction was evaluated at it on the requested grid; where the others lead (a screen above the
    target), they are evaluated there too.
    """

    def __init__(self, evaluator: Any, problem: Trials, margin: np.ndarray | float) -> None:
        n = problem.eps.size
        self.evaluator, self.problem = evaluator, problem
        self.margin = np.broadcast_to(np.asarray(margin, dtype=float), (n,)).copy()
        self.at = np.full(n, np.nan)  # per target, its screen's value x_s (nan: none yet)
        self.bound = np.full(n, np.inf)  # ... and the others' certified upper delta there
        self.made = np.zeros(n, dtype=int)  # screens made so far

    def delta(self, x: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """A certified upper bound on delta at ``x`` for the targets ``idx`` (see the class docstring)."""
        pb = self.problem
        threads = 0 if pb.inner_workers is None else pb.inner_workers
        eps, target = pb.eps[idx], pb.dlt[idx]
        lead = np.asarray(self.evaluator.leading(self._params(x, idx), eps, threads), dtype=float)
        out = lead.copy()
        need = np.flatnonzero(lead <= target)  # feasible if the others allow it
        if not need.size:
            return out
        covered = self._covered(x[need], idx[need])
        fresh = need[~covered & self._may_screen(idx[need])]
        if fresh.size:
            j = idx[fresh]
            bad = pb.bad[j]
            inside = np.isfinite(bad) & (bad < x[fresh] if pb.up else bad > x[fresh])
            short = x[fresh] * np.exp(-self.margin[j] if pb.up else self.margin[j])
            at = np.where(inside, bad, short)
            self.at[j] = at
            self.bound[j] = self.evaluator.others(
                self._params(at, j), pb.eps[j], threads, screen=True
            )
            self.made[j] += 1
            covered = self._covered(x[need], idx[need])
        cov = need[covered]
        out[cov] = np.maximum(lead[cov], self.bound[idx[cov]])
        rest = need[~covered]
        if rest.size:
            out[rest] = np.maximum(
                lead[rest],
                self.evaluator.others(self._params(x[rest], idx[rest]), pb.eps[idx[rest]], threads),
            )
        return out

    def _params(self, x: np.ndarray, idx: np.ndarray) -> dict[str, Any]:
        sub = {
            k: v[idx] if isinstance(v, np.ndarray) else v for k, v in self.problem.params.items()
        }
        sub[self.problem.parameter] = x
        return sub

    def _covered(self, x: np.ndarray, idx: np.ndarray) -> np.ndarray:
        at = self.at[idx]
        beyond = x >= at if self.problem.up else x <= at
        return cast(np.ndarray, beyond & (self.bound[idx] <= self.problem.dlt[idx]))

    def _may_screen(self, idx: np.ndarray) -> np.ndarray:
        """No screen yet; or one more at the bracket's infeasible end, where that lies short of a
        passing screen (it covers more) or beyond a failing one (the others' delta is smaller
        there)."""
        bad, at = self.problem.bad[idx], self.at[idx]
        short = bad < at if self.problem.up else bad > at
        passed = self.bound[idx] <= self.problem.dlt[idx]
        better = np.isfinite(bad) & (bad != at) & (short == passed)
        return cast(np.ndarray, (self.made[idx] == 0) | ((self.made[idx] < _SCREENS) & better))
