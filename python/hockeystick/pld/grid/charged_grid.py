"""A grid PMF's masses, error charges and charged curve at each eps alone (``pmf``'s module docstring).

``ChargedGrid`` holds the masses on the grid l_k = k h and the charges of their composition; it
reads the uncharged curve from C++ suffix sums (``_core.pld_reads.GridProfile``, built once per PMF,
or from the grid points above the queries only), the charged side at each eps (``charged_side``),
the round-off charges (computed by the core: pld/reads/hockey_stick.hpp's GridCharges,
pld/reads/charged_curve.hpp) and ``tabled_curve``, the C++ evaluator of both. ``pmf.GridPMF`` adds
the optimistic side's suffix maxima (``pmf_envelope``) and the inverse, epsilon(delta).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ... import _core


@dataclass(frozen=True)
class ChargedGrid:
    """Masses ``p`` at losses ``(k_lo + arange(len(p))) * h``, ``p_inf`` at +infinity, with their
    error charges (``pmf``'s module docstring), and the charged curve at each eps alone."""

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
        # NaN or a negative shift would move the curve's argument the unsafe way (or nowhere
        # defined)
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
    def _profile(self) -> _core.pld_reads.GridProfile:
        """The suffix sums behind delta/epsilon, built once per PMF (an epsilon() call evaluates several times)."""
        return _core.pld_reads.GridProfile(
            np.ascontiguousarray(self.p, dtype=np.float64),
            k_lo=self.k_lo,
            h=self.h,
            p_inf=self.p_inf,
        )

    @cached_property
    def top_index(self) -> int:
        """Index of the first grid point with loss >= 0 (0 if there is none below it)."""
        return int(min(max(-self.k_lo, 0), self.p.size - 1))

    @cached_property
    def _top_profile(self) -> _core.pld_reads.GridProfile:
        """The suffix sums of the grid points from ``top_index`` up, the same numbers as ``_profile``'s there.

        The sums run from the top down, so delta(eps) for eps above the grid point below
        ``top_index`` needs nothing lower: queries at eps >= 0 (most of them) skip building the
        whole profile, often half the grid; others fall back to ``_profile``.
        """
        if self.top_index == 0:
            return self._profile
        return _core.pld_reads.GridProfile(
            np.ascontiguousarray(self.p[self.top_index :], dtype=np.float64),
            k_lo=self.k_lo + self.top_index,
            h=self.h,
            p_inf=self.p_inf,
        )

    def _top_floor(self) -> float:
        """Arguments eps above this loss are answered exactly by ``_top_profile``."""
        return (self.k_lo + self.top_index - 1) * self.h if self.top_index > 0 else -np.inf

    def _upper_profile(self, eps: np.ndarray) -> _core.pld_reads.GridProfile:
        """Suffix sums that answer every eps of a flat array above ``_top_floor``: ``_top_profile``
        once built, else those from two grid points below the least eps up (the same numbers as
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
        # every eps strictly above grid point start (the least one is), so that each one's first
        # grid point above is in the part
        if start <= self.top_index or not least > (self.k_lo + start) * self.h:
            return self._top_profile
        if kept is None or kept[0] != start:
            kept = (
                start,
                _core.pld_reads.GridProfile(
                    np.ascontiguousarray(self.p[start:], dtype=np.float64),
                    k_lo=self.k_lo + start,
                    h=self.h,
                    p_inf=self.p_inf,
                ),
            )
            self.__dict__["_upper_part"] = kept
        return kept[1]

    def _over_profiles(
        self,
        eps: np.ndarray,
        evaluate: Callable[[_core.pld_reads.GridProfile, np.ndarray], np.ndarray],
    ) -> np.ndarray:
        """``evaluate(profile, eps)`` at a flat array of eps, each eps read from suffix sums that
        answer it: ``_upper_profile``'s when every eps lies above ``_top_floor``, else
        ``_top_profile``'s and ``_profile``'s."""
        high = eps > self._top_floor()
        if high.all():
            return evaluate(self._upper_profile(eps), eps)
        out = np.empty(eps.shape)
        out[high] = evaluate(self._top_profile, np.ascontiguousarray(eps[high]))
        out[~high] = evaluate(self._profile, np.ascontiguousarray(eps[~high]))
        return out

    def raw_delta(self, eps: np.ndarray, threads: int) -> np.ndarray:
        """The uncharged curve at a flat array of eps."""
        return self._over_profiles(eps, lambda profile, at: profile.delta(at, threads))

    def _charged_side(self, eps: np.ndarray, pessimistic: bool, threads: int) -> np.ndarray:
        """At eps (any shape; the curve's argument, already moved): min(raw (1 + slack) + shift +
        charge, 1) (``pessimistic``) or max(raw (1 - slack) + shift - 2 charge, 0), raw the
        uncharged curve and charge ``charge_at``'s, in one core call per profile
        (pld/reads/charged_curve.hpp's ``charged_side``, the same doubles as those numpy
        formulas)."""

        def side(profile: _core.pld_reads.GridProfile, at: np.ndarray) -> np.ndarray:
            return _core.pld_reads.charged_delta(
                profile,
                at,
                k_lo=self.k_lo,
                n=self.p.size,
                h=self.h,
                charges=self.charges(),
                pessimistic=pessimistic,
                threads=threads,
            )

        return self._over_profiles(np.ascontiguousarray(eps.ravel()), side).reshape(eps.shape)[()]

    def charges(self) -> _core.pld_reads.Charges:
        """This grid's charges as the core reads them (pld/reads/hockey_stick.hpp's GridCharges):
        its shift, the suffix sums' slack, the round-off bounds of its entries and its loss shift;
        each core call reads the fields its formula names (the round-off charges none of shift,
        slack and loss shift; a side at an argument already moved not the loss shift)."""
        return _core.pld_reads.Charges(
            shift=self.shift,
            slack=self.suffix_sum_slack(),
            entry_error=self.entry_error,
            total_error=self.total_error,
            spectral_l2=self.spectral_l2,
            inverse_error=self.inverse_error,
            loss_shift=self.loss_shift,
            inverse_l2=self.inverse_l2,
        )

    def suffix_sum_slack(self) -> float:
        """Relative round-off of the suffix sums behind the uncharged curve over this PMF's grid
        points (``_core.pld_reads.suffix_sum_slack``): the uncharged curve is raised by this factor
        on the pessimistic side and lowered by it on the optimistic one."""
        return float(_core.pld_reads.suffix_sum_slack(self.p.size))

    def charge_of_masses(self, count: np.ndarray) -> np.ndarray:
        """Round-off charge of ``count`` grid masses (the least of the three bounds above)."""
        return self.charge_of_weighted_sum(count, np.sqrt(count))

    def charge_of_weighted_sum(self, total: np.ndarray, norm: np.ndarray) -> np.ndarray:
        """Round-off charge of a sum of grid masses with weights in [0, 1], summing to at most
        ``total``, of Euclidean norm at most ``norm`` (``count`` and sqrt(``count``) for ``count``
        masses of weight 1): the module docstring's min(entry total, total_error, spectral_l2 norm +
        min(inverse total, inverse_l2 norm)), 0 where no weight is positive (NaN where ``total`` or
        ``norm`` is)."""
        total, norm = np.asarray(total, dtype=np.float64), np.asarray(norm, dtype=np.float64)
        if total.shape != norm.shape:
            total, norm = np.broadcast_arrays(total, norm)
        return _core.pld_reads.round_off_charge(
            np.ravel(total),
            np.ravel(norm),
            charges=self.charges(),
        ).reshape(total.shape)

    def charge_at(self, eps: np.ndarray) -> np.ndarray:
        """Round-off charge at eps: that of the grid points above eps (one core call,
        pld/reads/charged_curve.hpp's ``charge_at_argument``: ``charge_of_masses`` of their
        count)."""
        return _core.pld_reads.round_off_charge_at(
            eps,
            k_lo=self.k_lo,
            n=self.p.size,
            h=self.h,
            charges=self.charges(),
        )

    def charged_lower(self, eps: np.ndarray, threads: int) -> np.ndarray:
        return self._charged_side(eps, False, threads)

    def _moved(self, values: np.ndarray, up: bool) -> np.ndarray:
        """``values`` moved by ``loss_shift`` s, rounded outward: + s rounded up or - s rounded down
        (``_core.pld_reads.loss_shifted``, cpp/include/hockeystick/pld/reads/hockey_stick.hpp);
        +-inf and NaN stay; the values themselves when s = 0."""
        if self.loss_shift == 0.0:
            return values
        return _core.pld_reads.loss_shifted(values, self.loss_shift, up=up)

    def curve_argument(self, eps: np.ndarray) -> np.ndarray:
        """Where the built curve is read for the true curve at eps (``loss_shift`` s, module
        docstring): eps - s rounded down on the pessimistic side (delta falls with eps, so a smaller
        argument only raises the bound), eps + s rounded up on the optimistic side."""
        return self._moved(eps, up=not self.pessimistic)

    @cached_property
    def _charge_table(self) -> np.ndarray:
        """Entry i (0 <= i <= n): the round-off charge at an eps whose first grid point above is i,
        ``charge_of_masses(n - i)`` (zeros when nothing is charged): ``charge_at`` read from a
        table."""
        n = self.p.size
        if self.total_error == 0.0:
            return np.zeros(n + 1)
        return self.charge_of_masses(n - np.arange(n + 1, dtype=np.float64))

    @cached_property
    def tabled_curve(self) -> _core.pld_reads.ChargedCurve:
        """``delta_tabled``'s evaluator (cpp/include/hockeystick/pld/reads/charged_curve.hpp): the
        full profile, ``_charge_table``, the shift, the slack, the loss shift and the side; on a
        charged optimistic PMF it builds the suffix maxima of ``delta``'s full pass (max over
        grid points l_j, j >= k, of the charged lower curve), elsewhere the side is its charged value alone."""
        return _core.pld_reads.ChargedCurve(
            self._profile,
            self._charge_table,
            shift=self.shift,
            slack=self.suffix_sum_slack(),
            loss_shift=self.loss_shift,
            pessimistic=self.pessimistic,
            with_envelope=self.tabled_envelope,
        )

    @property
    def tabled_envelope(self) -> bool:
        """Whether ``tabled_curve`` builds the suffix maxima: on a charged optimistic PMF only."""
        return not self.pessimistic and self.total_error != 0.0
