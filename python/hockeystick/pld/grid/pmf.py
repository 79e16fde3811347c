"""A privacy-loss PMF on the uniform grid l_k = k h, and its hockey-stick curve.

delta(eps) = sum_k p_k (1 - e^{eps - l_k})_+ + p_inf

is evaluated in C++ (``_core.pld_reads.GridProfile``: suffix sums built once per
PMF, then O(1) per eps), and epsilon(delta) inverts it exactly (its
``epsilon``).  A composed PMF also carries its error charges, applied in the
safe direction (added on a pessimistic PMF, subtracted on an optimistic one):

- ``shift``: a constant (truncated tail mass on the optimistic side);
- ``entry_error``: a bound on the round-off of each grid mass, so the charge at
  eps is entry_error times the number n of grid points above eps, capped by
- ``total_error``: a bound on the summed round-off of all masses, and by
- ``spectral_l2`` sqrt(n) + min(``inverse_error`` n, ``inverse_l2`` sqrt(n)): the error splits into
  a part whose Euclidean norm is at most ``spectral_l2`` (Parseval) and the inverse transform's own,
  at most ``inverse_error`` per entry and ``inverse_l2`` in Euclidean norm
  (cpp/include/hockeystick/pld/compose/fft_backend.hpp's normwise model); by Cauchy-Schwarz a part
  of Euclidean norm E adds at most E sqrt(n) over n entries (with weights in [0, 1]);
- ``slack``: the relative round-off of the suffix sums, 4 (n + 4) u for n grid points
  (``_core.pld_reads.suffix_sum_slack``, cpp/include/hockeystick/pld/reads/epsilon_bracket.hpp);
- ``loss_shift``: a bound s on how far the true losses may lie from the losses the grid masses were
  built from (an atom loss log p - log q computed in floating point errs by up to
  ``finite_atoms.loss_round_off``; a continuous cell's rounded edge by up to its
  ``Cells::edge_error``, cpp/include/hockeystick/pld/grid/cells.hpp, whose masses the core also
  scales by 1 +- 4 x that, since such a cell keeps one of its P- and Q-masses and scales the other),
  charged as a shift of the curve in eps rather than by moving mass: the true PLD is dominated by
  the built one moved up by s and dominates it moved down by s, so delta_true(eps) <=
  delta_pess(eps - s) and delta_true(eps) >= delta_opt(eps + s), and epsilon moves by +s (pessimistic) or -s
  (optimistic), each argument or result rounded outward (in C++: ``loss_shifted``,
  cpp/include/hockeystick/pld/reads/hockey_stick.hpp, inside the epsilon scans and
  ``delta_tabled``'s evaluator, and through ``_moved`` for ``delta`` and ``delta_many``). The losses
  of independent rounds add, so a composition's shift is the sum of count x shift
  (pld/compose/compose.hpp's ``compose_many``, rounded up); s = 0 leaves every value bit-identical.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ... import _core
from . import pmf_envelope
from .charged_grid import ChargedGrid


@dataclass(frozen=True)
class GridPMF(ChargedGrid):
    """Masses ``p`` at losses ``(k_lo + arange(len(p))) * h``, ``p_inf`` at +infinity
    (``ChargedGrid``), and the certified curve read from them: delta(eps) on the PMF's side
    (``delta``, ``delta_many``, ``delta_tabled``) and its inverse (``epsilon``)."""

    def delta(self, epsilon: np.ndarray, threads: int = 0, envelope: bool = True) -> np.ndarray:
        """The charged curve at eps: a certified upper bound (pessimistic) or lower bound (optimistic).

        Optimistic: the largest charged lower value at eps or at any grid point above it
        (``pmf_envelope.raised``: probes near each eps, or the suffix maxima of one O(n) pass, kept
        per PMF); ``envelope=False`` gives the value at eps alone, a lower bound too (looser where
        the round-off charge falls faster than the curve), in O(1) per eps.
        """
        given = np.asarray(epsilon, dtype=np.float64)
        eps = self.curve_argument(given)  # not ascontiguousarray: 0-d stays 0-d
        if self.pessimistic:
            return self._charged_side(eps, True, threads)
        low = self.charged_lower(eps, threads)
        if not envelope or self.total_error == 0.0:  # nothing charged: nothing to raise
            return low
        return self._raised_to_envelope(given, low)

    def _raised_to_envelope(
        self, epsilon: np.ndarray, low: np.ndarray, whole: bool = False
    ) -> np.ndarray:
        """``low`` (the charged lower values at the true curve's eps, any shape) raised to the
        suffix maxima (``pmf_envelope.raised``), the shape of ``low``."""
        flat = np.ascontiguousarray(epsilon, dtype=np.float64).ravel()
        return pmf_envelope.raised(self, flat, np.ravel(low), whole).reshape(np.shape(low))

    def delta_many(self, epsilon: np.ndarray) -> np.ndarray:
        """``delta`` at a flat array of eps, for callers that query one PMF many times (root searches).

        Optimistic: when the queries' probes (about log2 n per eps) would cost more than one pass
        over the grid, or the PMF holds the suffix maxima of that pass already, each eps reads them
        (built once per PMF, O(1) per eps after); the value is the same certified lower bound as
        ``delta``'s whole pass, never below its probes'.  Pessimistic: ``delta``.
        """
        eps = np.ascontiguousarray(epsilon, dtype=np.float64)
        built = (
            "_lower_suffix_maxima" in self.__dict__ or "tabled_curve" in self.__dict__
        )  # a previous call paid
        probes = eps.size * self.p.size.bit_length()
        if self.pessimistic or self.total_error == 0.0 or not (built or probes >= self.p.size):
            return self.delta(eps)
        return self._raised_to_envelope(eps, self.charged_lower(self.curve_argument(eps), 0), True)

    def delta_tabled(self, epsilon: np.ndarray) -> np.ndarray:
        """``delta_many`` at a flat array of eps, each per-eps term read from tables built once per PMF.

        The same certified side, term for term, in one C++ call (``tabled_curve``): at the argument
        moved by the loss shift (``curve_argument``), the pessimistic value min(raw (1 + slack) +
        shift
        + charge, 1) and the optimistic max(max(raw (1 - slack) + shift - 2 charge, 0), the suffix
        maxima at the first grid point at or above that moved argument), with raw the C++ suffix-sum
        curve (its full profile: the same numbers as the top part's, ``_top_profile``), the charge
        ``charge_at``'s (``_charge_table``) and the suffix maxima those of ``delta``'s whole pass
        (never below its probes', ``pmf_envelope.raised``).  For root searches that query one PMF many
        times at a few hundred points, where numpy's per-call cost was the time.
        """
        return self.tabled_curve.delta(np.ascontiguousarray(epsilon, dtype=np.float64))

    def epsilon(self, delta: np.ndarray, threads: int = 0) -> np.ndarray:
        """Smallest eps whose charged bound is <= delta (pessimistic), or a certified lower bound on it.

        One scan down the grid for all deltas in C++.  Pessimistic (``pld_charged_epsilon``): the
        charge is constant on each open grid interval, so the first grid point from the top where
        the charged curve exceeds delta fixes the interval, inverted there exactly.  Optimistic
        (``pld_charged_lower_epsilon``, cpp/include/hockeystick/pld/reads/epsilon_bracket.hpp): the
        highest grid point where the charged lower curve exceeds delta fixes the interval (every eps
        below it has true delta above the target), inverted there with that interval's charge. Each
        answer then moved outward by ``loss_shift`` in the scan (+s rounded up pessimistic, -s
        rounded down optimistic; module docstring).
        """
        given = np.asarray(delta, dtype=np.float64)
        want = np.ascontiguousarray(given.ravel())
        scan = (
            _core.pld_reads.charged_epsilon
            if self.pessimistic
            else _core.pld_reads.charged_lower_epsilon
        )
        # the true curve is the built one moved by the loss shift (module docstring): so is its
        # inverse, each answer moved inside the scan
        return scan(
            self.p,
            k_lo=self.k_lo,
            h=self.h,
            p_inf=self.p_inf,
            charges=self.charges(),
            delta=want,
        ).reshape(given.shape)

    def log_mgf(self, lam: np.ndarray) -> np.ndarray:
        """log sum_k p_k e^{lam l_k} for each lam (the finite part; a sub-probability)."""
        lam = np.ascontiguousarray(np.atleast_1d(lam), dtype=np.float64)
        return _core.pld_grid.log_mgf(self.p, k_lo=self.k_lo, h=self.h, lam=lam)
