"""A privacy-loss PMF on the uniform grid l_k = k h, and its hockey-stick curve.

delta(eps) = sum_k p_k (1 - e^{eps - l_k})_+ + p_inf

is evaluated in C++ (``_core.PldGridProfile``: suffix sums built once per
PMF, then O(1) per eps), and epsilon(delta) inverts it exactly (its
``epsilon``).  A composed PMF also carries its error charges, applied in the
safe direction (added on a pessimistic PMF, subtracted on an optimistic one):

- ``shift``: a constant (truncated tail mass on the optimistic side);
- ``entry_error``: a bound on the round-off of each grid mass, so the charge at
  eps is entry_error times the number n of grid points above eps, capped by
- ``total_error``: a bound on the summed round-off of all masses, and by
- ``spectral_l2`` sqrt(n) + min(``inverse_error`` n, ``inverse_l2`` sqrt(n)): the error splits
  into a part whose Euclidean norm is at most ``spectral_l2`` (Parseval) and the inverse
  transform's own, at most ``inverse_error`` per entry and ``inverse_l2`` in Euclidean norm
  (cpp/include/hockeystick/pld_fft_backend.hpp's normwise model); by Cauchy-Schwarz a part of
  Euclidean norm E adds at most E sqrt(n) over n entries (with weights in [0, 1]);
- ``slack``: the relative round-off of the suffix sums, 4 (n + 4) u for n grid points
  (``_core.pld_suffix_sum_slack``, cpp/include/hockeystick/pld_epsilon_bracket.hpp);
- ``loss_shift``: a bound s on how far the true losses may lie from the losses the grid
  masses were built from (an atom loss log p - log q computed in floating point errs by up to
  ``finite_atoms.loss_round_off``; a continuous cell's rounded edge by up to its ``Cells::edge_error``,
  cpp/include/hockeystick/pld_cells.hpp, whose masses the core also scales by 1 +- 4 x that, since such a
  cell keeps one of its P- and Q-masses and scales the other), charged as a shift of the curve in eps rather than by moving
  mass: the true PLD is dominated by the built one moved up by s and dominates it moved down by s,
  so delta_true(eps) <= delta_pess(eps - s) and delta_true(eps) >= delta_opt(eps + s), and
  epsilon moves by +s (pessimistic) or -s (optimistic), each argument or result rounded outward
  (in C++: ``loss_shifted``, cpp/include/hockeystick/pld_hockey_stick.hpp, inside the epsilon scans and
  ``delta_tabled``'s evaluator, and through ``_moved`` for ``delta`` and ``delta_many``).
  The losses of independent rounds add, so a composition's shift is the sum of count x shift
  (pld_compose.hpp's ``compose_many``, rounded up); s = 0 leaves every value bit-identical.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import cast

import numpy as np

from ... import _core
from . import pmf_charges, pmf_envelope


@dataclass(frozen=True)
class GridPMF:
    """Masses ``p`` at losses ``(k_lo + arange(len(p))) * h``, ``p_inf`` at +infinity."""

    k_lo: int
    h: float
    p: np.ndarray
    p_inf: float
    shift: float = 0.0
    pessimistic: bool = True
    entry_error: float = 0.0
    total_error: float = 0.0
    spectral_l2: float = math.inf
    inverse_error: float = 0.0
    loss_shift: float = 0.0
    inverse_l2: float = math.inf

    def __post_init__(self) -> None:
        # NaN or a negative shift would move the curve's argument the unsafe way (or nowhere defined)
        if not 0.0 <= self.loss_shift < math.inf:
            raise ValueError(
                f"loss_shift must be a finite number >= 0 (a bound on the atoms' loss error), got {self.loss_shift!r}"
            )

    @property
    def losses(self) -> np.ndarray:
        return (self.k_lo + np.arange(self.p.size)) * self.h

    @cached_property
    def finite_mass(self) -> float:
        return float(self.p.sum())

    @cached_property
    def _profile(self) -> _core.PldGridProfile:
        """The suffix sums behind delta/epsilon, built once per PMF (an epsilon() call evaluates several times)."""
        return _core.PldGridProfile(np.ascontiguousarray(self.p, dtype=np.float64), self.k_lo, self.h, self.p_inf)

    @cached_property
    def _top(self) -> int:
        """Index of the first grid point with loss >= 0 (0 if there is none below it)."""
        return int(min(max(-self.k_lo, 0), self.p.size - 1))

    @cached_property
    def _top_profile(self) -> _core.PldGridProfile:
        """The suffix sums of the grid points from ``_top`` up, the same numbers as ``_profile``'s there.

        The sums run from the top down, so delta(eps) for eps above the grid point below
        ``_top`` needs nothing lower: queries at eps >= 0 (most of them) skip building the
        whole profile, often half the grid; others fall back to ``_profile``.
        """
        if self._top == 0:
            return self._profile
        return _core.PldGridProfile(
            np.ascontiguousarray(self.p[self._top :], dtype=np.float64), self.k_lo + self._top, self.h, self.p_inf
        )

    def _top_floor(self) -> float:
        """Arguments eps above this loss are answered exactly by ``_top_profile``."""
        return (self.k_lo + self._top - 1) * self.h if self._top > 0 else -np.inf

    def _upper_profile(self, eps: np.ndarray) -> _core.PldGridProfile:
        """Suffix sums that answer every eps of a flat array above ``_top_floor``: ``_top_profile`` once
        built, else those from two grid points below the least eps up (the same numbers as
        ``_profile``'s there, the sums running from the top down; kept for later queries no lower).
        A calibration's trial asks its composed PMF for one eps far above loss 0: the grid points
        between are never summed."""
        if "_top_profile" in self.__dict__ or eps.size == 0:
            return self._top_profile
        least = float(eps.min())
        scaled = least / float(self.h)  # Python floats: an overflow is inf, with no warning
        if not math.isfinite(scaled):  # nan or +-inf among eps: the profile from loss 0
            return self._top_profile
        start = min(math.ceil(scaled) - int(self.k_lo) - 2, self.p.size - 1)
        kept = self.__dict__.get("_upper_part")
        if kept is not None and kept[0] <= start:
            start = kept[0]
        # every eps strictly above grid point start (the least one is), so that each one's first grid point
        # above is in the part
        if start <= self._top or not least > (self.k_lo + start) * self.h:
            return self._top_profile
        if kept is None or kept[0] != start:
            kept = (
                start,
                _core.PldGridProfile(
                    np.ascontiguousarray(self.p[start:], dtype=np.float64), self.k_lo + start, self.h, self.p_inf
                ),
            )
            self.__dict__["_upper_part"] = kept
        return kept[1]

    def _over_profiles(
        self, eps: np.ndarray, evaluate: Callable[[_core.PldGridProfile, np.ndarray], np.ndarray]
    ) -> np.ndarray:
        """``evaluate(profile, eps)`` at a flat array of eps, each eps read from suffix sums that answer it:
        ``_upper_profile``'s when every eps lies above ``_top_floor``, else ``_top_profile``'s and ``_profile``'s."""
        high = eps > self._top_floor()
        if high.all():
            return evaluate(self._upper_profile(eps), eps)
        out = np.empty(eps.shape)
        out[high] = evaluate(self._top_profile, np.ascontiguousarray(eps[high]))
        out[~high] = evaluate(self._profile, np.ascontiguousarray(eps[~high]))
        return out

    def _raw_delta(self, eps: np.ndarray, threads: int) -> np.ndarray:
        """The uncharged curve at a flat array of eps."""
        return self._over_profiles(eps, lambda profile, at: profile.delta(at, threads))

    def _charged_side(self, eps: np.ndarray, pessimistic: bool, threads: int) -> np.ndarray:
        """At eps (any shape; the curve's argument, already moved): min(raw (1 + slack) + shift + charge, 1)
        (``pessimistic``) or max(raw (1 - slack) + shift - 2 charge, 0), raw the uncharged curve and charge
        ``charge_at``'s, in one core call per profile (pld_charged_curve.hpp's ``charged_side``, the same
        doubles as those numpy formulas)."""

        def side(profile: _core.PldGridProfile, at: np.ndarray) -> np.ndarray:
            return _core.pld_charged_delta(
                profile,
                at,
                self.k_lo,
                self.p.size,
                self.h,
                self.shift,
                self.suffix_sum_slack(),
                self.entry_error,
                self.total_error,
                self.spectral_l2,
                self.inverse_error,
                self.inverse_l2,
                pessimistic,
                threads,
            )

        return self._over_profiles(np.ascontiguousarray(eps.ravel()), side).reshape(eps.shape)[()]

    def suffix_sum_slack(self) -> float:
        """Relative round-off of the suffix sums behind the uncharged curve over this PMF's grid points
        (``_core.pld_suffix_sum_slack``): the uncharged curve is raised by this factor on the pessimistic
        side and lowered by it on the optimistic one."""
        return float(_core.pld_suffix_sum_slack(self.p.size))

    def charge_of_masses(self, count: np.ndarray) -> np.ndarray:
        """Round-off charge of ``count`` grid masses (the least of the three bounds above)."""
        return self.charge_of_weighted_sum(count, np.sqrt(count))

    def charge_of_weighted_sum(self, total: np.ndarray, norm: np.ndarray) -> np.ndarray:
        """Round-off charge of a sum of grid masses with weights in [0, 1], summing to at most ``total``, of
        Euclidean norm at most ``norm`` (``pmf_charges.charge_of_weighted_sum``)."""
        return pmf_charges.charge_of_weighted_sum(self, total, norm)

    def charge_at(self, eps: np.ndarray) -> np.ndarray:
        """Round-off charge at eps: that of the grid points above eps (``pmf_charges.charge_at``)."""
        return pmf_charges.charge_at(self, eps)

    def _charged_lower(self, eps: np.ndarray, threads: int) -> np.ndarray:
        return self._charged_side(eps, False, threads)

    def _moved(self, values: np.ndarray, up: bool) -> np.ndarray:
        """``values`` moved by ``loss_shift`` s, rounded outward: + s rounded up or - s rounded down
        (``_core.pld_loss_shifted``, cpp/include/hockeystick/pld_hockey_stick.hpp); +-inf and NaN stay;
        the values themselves when s = 0."""
        if self.loss_shift == 0.0:
            return values
        return _core.pld_loss_shifted(values, self.loss_shift, up)

    def curve_argument(self, eps: np.ndarray) -> np.ndarray:
        """Where the built curve is read for the true curve at eps (``loss_shift`` s, module docstring):
        eps - s rounded down on the pessimistic side (delta falls with eps, so a smaller argument only
        raises the bound), eps + s rounded up on the optimistic side."""
        return self._moved(eps, up=not self.pessimistic)

    def delta(self, epsilon: np.ndarray, threads: int = 0, envelope: bool = True) -> np.ndarray:
        """The charged curve at eps: a certified upper bound (pessimistic) or lower bound (optimistic).

        Optimistic: the largest charged lower value at eps or at any grid point above it (the
        suffix maxima, one O(n) pass per PMF); ``envelope=False`` gives the value at eps alone,
        a lower bound too (looser where the round-off charge falls faster than the curve), in
        O(1) per eps.
        """
        eps = self.curve_argument(np.asarray(epsilon, dtype=np.float64))  # not ascontiguousarray: 0-d stays 0-d
        if self.pessimistic:
            return self._charged_side(eps, True, threads)
        low = self._charged_lower(eps, threads)
        if self.total_error == 0.0 or not envelope:
            return low
        # The round-off charge falls as eps rises (fewer grid points above), so the charged curve
        # may rise; delta itself does not, so a lower bound at any eps' >= eps also bounds delta(eps):
        # take the largest one, at eps or at a grid point above it (the charge is constant between).
        with np.errstate(over="ignore"):  # eps near 1e308: clipped to the top of the grid
            k = np.clip(np.ceil(eps / self.h) - self.k_lo, 0, self.p.size).astype(np.int64)
        return pmf_envelope.envelope_near(self, k.ravel(), low.ravel(), threads).reshape(low.shape)

    def delta_many(self, epsilon: np.ndarray) -> np.ndarray:
        """``delta`` at a flat array of eps, for callers that query one PMF many times (root searches).

        Optimistic: when the queries' probes (``pmf_envelope.envelope_near``: about log2 n per eps) would cost
        more than one pass over the grid, the suffix maxima over every grid point are built once
        per PMF (cached) and each eps costs O(1) after (every later call uses them); the value is
        the same certified lower bound as ``delta``'s (its full pass), never below
        ``pmf_envelope.envelope_near``'s.  Pessimistic: ``delta``.
        """
        eps = np.ascontiguousarray(epsilon, dtype=np.float64)
        built = "_lower_envelope_top" in self.__dict__ or "_tabled_curve" in self.__dict__  # a previous call paid
        probes = eps.size * self.p.size.bit_length()
        if self.pessimistic or self.total_error == 0.0 or not (built or probes >= self.p.size):
            return self.delta(eps)
        eps = self.curve_argument(eps)
        k = np.clip(np.ceil(eps / self.h) - self.k_lo, 0, self.p.size).astype(np.int64)
        return cast(np.ndarray, np.maximum(self._charged_lower(eps, 0), pmf_envelope.envelope_at(self, k)))

    @cached_property
    def _charge_table(self) -> np.ndarray:
        """``charge_at`` per first grid point above eps, 0..n (``pmf_charges.charge_table``)."""
        return pmf_charges.charge_table(self)

    @cached_property
    def _tabled_curve(self) -> _core.PldChargedCurve:
        """``delta_tabled``'s evaluator (cpp/include/hockeystick/pld_charged_curve.hpp): the full profile,
        ``_charge_table``, the shift, the slack, the loss shift and the side; on a charged optimistic
        PMF it builds the suffix maxima of ``delta``'s full pass (``pmf_envelope.envelope_table``: max over grid
        points l_j, j >= k, of the charged lower curve), elsewhere the side is its charged value alone."""
        return _core.PldChargedCurve(
            self._profile,
            self._charge_table,
            self.shift,
            self.suffix_sum_slack(),
            self.loss_shift,
            self.pessimistic,
            self._tabled_envelope,
        )

    @property
    def _tabled_envelope(self) -> bool:
        """Whether ``_tabled_curve`` builds the suffix maxima: on a charged optimistic PMF only."""
        return not self.pessimistic and self.total_error != 0.0

    def delta_tabled(self, epsilon: np.ndarray) -> np.ndarray:
        """``delta_many`` at a flat array of eps, each per-eps term read from tables built once per PMF.

        The same certified side, term for term, in one C++ call (``_tabled_curve``): at the argument
        moved by the loss shift (``curve_argument``), the pessimistic value min(raw (1 + slack) + shift
        + charge, 1) and the optimistic max(max(raw (1 - slack) + shift - 2 charge, 0), the suffix
        maxima at the first grid point at or above that moved argument), with raw the C++ suffix-sum curve (its full
        profile: the same numbers as the top part's, ``_top_profile``), the charge ``charge_at``'s
        (``_charge_table``) and the suffix maxima those of ``delta``'s full pass (never below
        ``pmf_envelope.envelope_near``'s).  For root searches that query one PMF many times at a few hundred
        points, where numpy's per-call cost was the time.
        """
        return self._tabled_curve.delta(np.ascontiguousarray(epsilon, dtype=np.float64))

    def epsilon(self, delta: np.ndarray, threads: int = 0) -> np.ndarray:
        """Smallest eps whose charged bound is <= delta (pessimistic), or a certified lower bound on it.

        One scan down the grid for all deltas in C++.  Pessimistic (``pld_charged_epsilon``): the
        charge is constant on each open grid interval, so the first grid point from the top where
        the charged curve exceeds delta fixes the interval, inverted there exactly.  Optimistic
        (``pld_charged_lower_epsilon``, cpp/include/hockeystick/pld_epsilon_bracket.hpp): the
        highest grid point where the charged lower curve exceeds delta fixes the interval (every
        eps below it has true delta above the target), inverted there with that interval's charge.
        Each answer then moved outward by ``loss_shift`` in the scan (+s rounded up pessimistic, -s rounded
        down optimistic; module docstring).
        """
        given = np.asarray(delta, dtype=np.float64)
        want = np.ascontiguousarray(given.ravel())
        scan = _core.pld_charged_epsilon if self.pessimistic else _core.pld_charged_lower_epsilon
        # the true curve is the built one moved by the loss shift (module docstring): so is its inverse,
        # each answer moved inside the scan
        return scan(
            self.p,
            self.k_lo,
            self.h,
            self.p_inf,
            self.shift,
            self.suffix_sum_slack(),
            self.entry_error,
            self.total_error,
            self.spectral_l2,
            self.inverse_error,
            self.loss_shift,
            want,
            self.inverse_l2,
        ).reshape(given.shape)

    def log_mgf(self, lam: np.ndarray) -> np.ndarray:
        """log sum_k p_k e^{lam l_k} for each lam (the finite part; a sub-probability)."""
        lam = np.ascontiguousarray(np.atleast_1d(lam), dtype=np.float64)
        return _core.pld_log_mgf(self.p, self.k_lo, self.h, lam)
