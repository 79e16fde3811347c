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
from typing import cast

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

        Optimistic: the largest charged lower value at eps or at any grid point above it (the
        suffix maxima, one O(n) pass per PMF); ``envelope=False`` gives the value at eps alone,
        a lower bound too (looser where the round-off charge falls faster than the curve), in
        O(1) per eps.
        """
        eps = self.curve_argument(
            np.asarray(epsilon, dtype=np.float64)
        )  # not ascontiguousarray: 0-d stays 0-d
        if self.pessimistic:
            return self._charged_side(eps, True, threads)
        low = self.charged_lower(eps, threads)
        if not envelope:
            return low
        return self._raised_to_envelope(eps, low, threads)

    def lower_with_envelope(
        self, epsilon: np.ndarray, low: np.ndarray, threads: int = 0
    ) -> np.ndarray:
        """An optimistic PMF's ``delta`` at eps from its charged lower values there, read already.

        A caller that read ``delta(epsilon, envelope=False)`` for many PMFs in one core call
        (``_core.pld_reads.charged_sides``: the same doubles) raises them to the suffix maxima here
        without reading them again: the same values as ``delta(epsilon)``.

        Parameters
        ----------
        epsilon : numpy.ndarray
            The eps at which ``low`` was read (the true curve's argument), any shape.
        low : numpy.ndarray
            ``delta(epsilon, envelope=False)`` of this PMF, the shape of ``epsilon``.
        threads : int, default 0
            The core's threads for the curve's reads (0: all cores).

        Returns
        -------
        numpy.ndarray
            The certified lower delta at each eps, the shape of ``epsilon``: ``low`` raised to the
            largest charged lower value at any grid point above eps (``delta``'s optimistic side).

        Raises
        ------
        ValueError
            If the PMF is pessimistic (its ``delta`` is an upper side, which no envelope raises), or
            ``low`` does not have the shape of ``epsilon``.
        """
        if self.pessimistic:
            raise ValueError(
                "lower_with_envelope reads an optimistic PMF's lower side; this PMF is pessimistic: "
                "call delta(epsilon) for its upper side"
            )
        eps = self.curve_argument(np.asarray(epsilon, dtype=np.float64))
        values = np.asarray(low, dtype=np.float64)
        if values.shape != eps.shape:
            raise ValueError(
                f"low must have the shape of epsilon {eps.shape}, got {values.shape}: pass "
                "delta(epsilon, envelope=False) of this PMF"
            )
        return self._raised_to_envelope(eps, values, threads)

    def _raised_to_envelope(self, eps: np.ndarray, low: np.ndarray, threads: int) -> np.ndarray:
        """``low`` (the charged lower values at eps, the curve's argument) raised to the suffix
        maxima: the round-off charge falls as eps rises (fewer grid points above), so the charged
        curve may rise; delta itself does not, so a lower bound at any eps' >= eps also bounds
        delta(eps): take the largest one, at eps or at a grid point above it (the charge is constant
        between).  ``low`` itself where nothing is charged."""
        if self.total_error == 0.0:
            return low
        with np.errstate(over="ignore"):  # eps near 1e308: clipped to the top of the grid
            k = np.clip(np.ceil(eps / self.h) - self.k_lo, 0, self.p.size).astype(np.int64)
        return pmf_envelope.envelope_near(self, k.ravel(), low.ravel(), threads).reshape(low.shape)

    def delta_many(self, epsilon: np.ndarray) -> np.ndarray:
        """``delta`` at a flat array of eps, for callers that query one PMF many times (root searches).

        Optimistic: when the queries' probes (``pmf_envelope.envelope_near``: about log2 n per eps)
        would cost more than one pass over the grid, the suffix maxima over every grid point are
        built once per PMF (cached) and each eps costs O(1) after (every later call uses them); the
        value is the same certified lower bound as ``delta``'s (its full pass), never below
        ``pmf_envelope.envelope_near``'s.  Pessimistic: ``delta``.
        """
        eps = np.ascontiguousarray(epsilon, dtype=np.float64)
        built = (
            "_lower_envelope_top" in self.__dict__ or "tabled_curve" in self.__dict__
        )  # a previous call paid
        probes = eps.size * self.p.size.bit_length()
        if self.pessimistic or self.total_error == 0.0 or not (built or probes >= self.p.size):
            return self.delta(eps)
        eps = self.curve_argument(eps)
        k = np.clip(np.ceil(eps / self.h) - self.k_lo, 0, self.p.size).astype(np.int64)
        return cast(
            np.ndarray, np.maximum(self.charged_lower(eps, 0), pmf_envelope.envelope_at(self, k))
        )

    def delta_tabled(self, epsilon: np.ndarray) -> np.ndarray:
        """``delta_many`` at a flat array of eps, each per-eps term read from tables built once per PMF.

        The same certified side, term for term, in one C++ call (``tabled_curve``): at the argument
        moved by the loss shift (``curve_argument``), the pessimistic value min(raw (1 + slack) +
        shift
        + charge, 1) and the optimistic max(max(raw (1 - slack) + shift - 2 charge, 0), the suffix
        maxima at the first grid point at or above that moved argument), with raw the C++ suffix-sum
        curve (its full profile: the same numbers as the top part's, ``_top_profile``), the charge
        ``charge_at``'s (``_charge_table``) and the suffix maxima those of ``delta``'s full pass
        (never below ``pmf_envelope.envelope_near``'s).  For root searches that query one PMF many
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
