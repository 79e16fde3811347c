"""The numpy transcription of the refinement's next-grid rules, the reference the core's rules are tested against
(cpp/include/hockeystick/pld/refine/points_rules.hpp, next_grid.hpp, plan_grid.hpp; the package runs the core's):
``NextGrid``'s masks (charged, charge_width, capped_without_chord, capped_interval, offset_limited) and
``next_interval``, each step's arithmetic through the core's ``first_step``, ``fitted_step``, ``power_step`` and
``charged_step``."""

from __future__ import annotations

import math

import numpy as np

from hockeystick import _core
from hockeystick.pld.reads.epsilon_width import epsilon_gap
from hockeystick.pld.refine import constants, tuning
from hockeystick.pld.refine.bracket_width import least_epsilon_width
from hockeystick.pld.refine.grid_rules import Before, next_grid_tuning
from hockeystick.pld.refine.grid_start import finest_interval, grid_policy, ladder_rung


def least(a: float | None, b: float | None) -> float | None:
    """The smaller of two grids asked for, None standing for no ask."""
    return b if a is None else a if b is None else min(a, b)


class NextGrid:
    """The grid rules of a refinement to ``accuracy`` (epsilon, or relative delta): every
    refinement, the grid evaluation's (``controller``) and a composition plan's
    (``plan_refinement``), aims its next grid by them. ``on_ladder``: a wanted interval is rounded
    down to the ladder (``ladder_rung``: the points of a grid block then share a few
    discretizations), else taken as computed (a plan aligns its grids itself).  The steps'
    arithmetic is the core's (cpp/include/hockeystick/pld/refine/next_grid.hpp), which the core's
    own loops run too; the masks of the arguments each step reads are computed here."""

    def __init__(self, accuracy: float, on_ladder: bool = True):
        self.accuracy = accuracy
        self.on_ladder = on_ladder

    def ladder(self) -> _core.pld_refine.GridPolicy | None:
        """The policy whose ladder a wanted interval is rounded down to (None: as computed)."""
        return grid_policy() if self.on_ladder else None

    def charged(self, width: np.ndarray, alone: np.ndarray | None) -> np.ndarray:
        """The arguments still too wide that are charge-limited: ``alone`` (``charge_width``: what
        no grid removes) already exceeds 0.9 of the tolerance, the least a finer grid must leave for
        the grid's part (none without ``alone``)."""
        if alone is None:
            return np.zeros(width.shape, dtype=bool)
        return (width > self.accuracy) & (alone > 0.9 * self.accuracy)

    def charge_width(
        self,
        by_epsilon: bool,
        x: np.ndarray,
        lo: np.ndarray,
        up: np.ndarray,
        fixed: np.ndarray,
        own: int,
        q: float,
        h: float,
    ) -> np.ndarray | None:
        """``delta_accuracy="epsilon"`` (else None): the certified epsilon width at each own
        argument that the gap's grid-independent part (pld/refine/fixed_part.hpp: ``fixed[0]``
        the round-off charges, slack and mass at +infinity, plus where the upper side is above
        ``NEAR_ONE`` the cells' edge factor ``fixed[1]``) alone would leave: that of [up - fixed,
        up] (the least over the offsets' rows; inf where the charges exceed the curve's drop to
        eps + d, as where they push the lower side to 0).  0 (the grid's part leads) where the charges
        are less than half the gap up - lo; where the lower side is 0 at the sampling rate q < h
        (blind, ``capped_without_chord``: the optimistic side is loose whatever its charge); and
        where the upper side is above ``NEAR_ONE`` while the edge factor is less than half the gap
        (a flat upper side drops by nothing, and what decides there is the lower side reaching
        ``DELTA_CEILING``).  Where the edge factor is half the gap or more, no grid narrows it.  A
        finer grid does not narrow the fixed part (it only adds to the round-off); the direct DFT
        bins narrow its round-off part (``next_interval``)."""
        if not by_epsilon:
            return None
        top = up[:own]
        near = top > constants.NEAR_ONE
        excess = fixed[1, :own]
        fixed_part = fixed[0] + np.where(
            up > constants.NEAR_ONE, fixed[1], 0.0
        )  # at every argument
        total = fixed_part[:own]
        # the lower side at every argument as close to the upper one as the fixed part lets it be
        alone = least_epsilon_width(x, own, up - fixed_part, up)
        grid_led = (
            (top - lo[:own] >= 2.0 * total)
            | (near & (top - lo[:own] >= 2.0 * excess))
            | ((lo[:own] == 0.0) & (q < h))
        )
        return np.where(grid_led, 0.0, alone)

    def capped_without_chord(
        self,
        by_epsilon: bool,
        x: np.ndarray,
        lo: np.ndarray,
        width: np.ndarray,
        q: float,
        h: float,
        own: int,
        charged: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """``delta_accuracy="epsilon"`` (else nothing): the own arguments still too wide, not
        ``charged`` (no grid narrows those), whose epsilon width is its cap eps (no certified chord:
        the lower side at eps is at most the upper one at eps + d), and among them the blind ones,
        whose lower side is 0 while the sampling rate q is below h (the optimistic side is loose
        until h nears q, so they need a much finer grid)."""
        if not by_epsilon:
            none = np.zeros(width.shape, dtype=bool)
            return none, none
        capped = (width > self.accuracy) & (width >= x[:own] * (1.0 - 1e-9)) & ~charged
        return capped, capped & (lo[:own] == 0.0) & (q < h)

    def capped_interval(
        self,
        h: float,
        x: np.ndarray,
        lo: np.ndarray,
        up: np.ndarray,
        width: np.ndarray,
        own: int,
        capped: np.ndarray,
        blind: np.ndarray,
        q: float,
    ) -> float | None:
        """The grid the ``capped`` arguments of a point on grid h ask for (``capped_without_chord``;
        None if none is).  Their epsilon width is stuck at its cap eps, which says nothing of the
        grid they need, so:

        - those whose epsilon gap G is read (``epsilon_width.epsilon_gap``: how far right the upper
          curve falls to the lower side at eps) ask h sqrt(GAP_TARGET accuracy / G), at least
          ``CAPPED_STEP`` h: a width is certified once G is well below the offsets of
          ``RIGHT_OFFSETS``, and G shrinks about like h^2, so one step lands near the coarsest grid
          that certifies;
        - where no gap is read because the upper side is flat (delta near 1 at every eps),
          ``CAPPED_STEP`` h;
        - where no gap is read because the lower side is 0 at q >= h (a small upper delta whose
          optimistic side the round-off charge took to 0), ``NO_LOWER_STEP`` h: such deltas are met
          a few times finer;
        - ``blind`` ones (lower side 0 at the sampling rate ``q`` < h: the optimistic side is loose
          while h is near q or above) keep the h^2 jump of their cap eps, h 0.9 sqrt(accuracy /
          eps), or the ladder's rung below q where that jump stays above it and q > LOWEST_INTERVAL.
          Where q is small, ``delta_accuracy="epsilon"`` starts below q instead
          (``grid_start.StartGrid.below_rate_start``).

        The finest of those, at most 0.9 h.
        """
        if not capped.any():
            return None
        wanted = [0.9 * h]
        if blind.any():
            jump = h * 0.9 * math.sqrt(self.accuracy / float(np.max(width[blind])))
            # the rung below q, where there is one (below LOWEST_INTERVAL no grid unblinds: the jump
            # alone)
            wanted.append(
                min(jump, ladder_rung(q * (1.0 - 1e-6))) if q > constants.LOWEST_INTERVAL else jump
            )
        seen = capped & ~blind
        if seen.any():
            gap = epsilon_gap(x[:own][seen], lo[:own][seen], up[:own][seen], x[own:], up[own:])
            no_lower = lo[:own][seen] == 0.0
            with np.errstate(divide="ignore"):
                ratio = np.where(
                    np.isfinite(gap),
                    np.sqrt(tuning.GAP_TARGET * self.accuracy / gap),
                    np.where(no_lower, tuning.NO_LOWER_STEP, 0.0),
                )
            wanted.append(h * max(float(np.min(ratio)), tuning.CAPPED_STEP))
        return min(wanted)

    def offset_limited(
        self,
        h: float,
        x: np.ndarray,
        lo: np.ndarray,
        up: np.ndarray,
        width: np.ndarray,
        own: int,
        skip: np.ndarray,
    ) -> tuple[np.ndarray, float | None]:
        """``delta_accuracy="epsilon"``: the own arguments still too wide (not ``skip``: capped or
        charge-limited) whose certified epsilon width says little of the grid they need, being more
        than ``OFFSET_LIMITED`` times their epsilon gap G (``epsilon_width.epsilon_gap``), and the
        grid they ask for, h sqrt(OFFSET_GAP_TARGET accuracy / G) for the largest G among them, at
        most 0.9 h (None if there are none).

        A width is certified through a few offsets (``RIGHT_OFFSETS``, ``LEFT_FRACTIONS``): while
        the gap is not well below them the width is a step of the offsets, far above G, and its h^2
        law asks a needlessly fine grid.  G itself shrinks like h^2 and foretells the next grid's
        width, G (h_next / h)^2, so those arguments step by G, to a fraction of the tolerance; the
        others keep the h^2 law of their width (``next_interval``)."""
        wide = (width > self.accuracy) & ~skip
        if not wide.any():
            return wide, None
        gap = np.full(width.shape, np.inf)
        gap[wide] = epsilon_gap(x[:own][wide], lo[:own][wide], up[:own][wide], x[own:], up[own:])
        limited = wide & np.isfinite(gap) & (gap > 0.0) & (width > tuning.OFFSET_LIMITED * gap)
        if not limited.any():
            return limited, None
        target = tuning.OFFSET_GAP_TARGET * self.accuracy
        return limited, h * min(0.9, math.sqrt(target / float(np.max(gap[limited]))))

    def next_interval(
        self,
        h: float,
        width: np.ndarray,
        before: Before | None,
        capped: np.ndarray,
        capped_h: float | None,
        alone: np.ndarray | None,
        cap: np.ndarray,
        q: float | None = None,
    ) -> float | None:
        """The next grid of a point whose brackets at its arguments are ``width`` wide on grid h
        (``before``: its previous grid and widths), or None when no other grid is worth building.
        Every grid after the first recomposes with the direct DFT bins (``points.round_off_charge``), so the
        next grid may be h itself.

        First step (and the step after a recomposition of the same grid, where no fit through two
        grids exists): h 0.9 sqrt(accuracy / widest), from the bracket's h^2 scaling, the widest
        among the arguments whose width scales so, and ``capped_h`` where some are ``capped``
        (``capped_interval``: an epsilon width stuck at its cap eps says nothing of the grid needed;
        with ``delta_accuracy="epsilon"`` the caller also counts as capped, with their ask in
        ``capped_h``, the arguments whose width is a step of its offsets, ``offset_limited``); the
        finest of those. The charge-limited arguments (``charged``: what no grid removes, ``alone``,
        leaves them wider than 0.9 of the tolerance) do not scale so: on the first grid, where they
        are all that is too wide, the next grid is h again, recomposed with the direct bins that cut
        those charges ~100x; after that recomposition no grid brings them within 0.9 of it.  A
        charge-limited argument whose width was its cap on the grid before and is now within
        ``CAP_LEFT_WITHIN_TOLERANCES`` times the tolerance asks for one rung finer: its charges are
        known on one grid only, and they need not stay as the grid shrinks. Later steps: with
        ``delta_accuracy="epsilon"``, where ``alone`` is known, ``power_step`` (``cap``: the
        arguments' eps, a width's cap); otherwise a fit, per argument still too wide, of width = c
        h^2 + f through the two grids: an argument whose width did not fall below ``STALLED`` of the
        last, or whose floor f (what no grid removes: round-off and tail charges, the mass at
        +infinity) is half the tolerance or more, cannot be brought within it by refining; the
        others ask for h = sqrt((0.9 accuracy - f) / c), and the finest of those (at most 0.9 h) is
        taken.
        """
        wide = width > self.accuracy
        if not wide.any():
            return None
        charged = self.charged(width, alone)
        finest = finest_interval(q)
        if before is None or before[0] <= h:
            return self.first_step(
                h, width, wide, capped, capped_h, charged, before is None, finest
            )
        if h <= finest:
            return None
        if alone is not None:
            return self.charged_step(
                h, width, before, wide, charged, alone, cap, 0.0 if q is None else q
            )
        return self.fitted_step(h, width, before, wide, finest)

    def first_step(
        self,
        h: float,
        width: np.ndarray,
        wide: np.ndarray,
        capped: np.ndarray,
        capped_h: float | None,
        charged: np.ndarray,
        first: bool,
        finest: float,
    ) -> float | None:
        """``next_interval`` where no fit through two grids exists: the finest of ``capped_h`` and h
        0.9 sqrt(accuracy / widest) over the arguments whose width scales like h^2 (0.5 h for an
        infinite width; on the ladder, at least ``finest``, ``grid_start.finest_interval`` of the
        sampling rate); none once h is at ``finest``; where none asks, h again on the ``first`` grid
        if charge-limited arguments are too wide (a recomposition with the direct bins), else None.
        The core's ``first_step`` (cpp/include/hockeystick/pld/refine/next_grid.hpp)."""
        return _core.pld_refine.first_step(
            h=h,
            width=width,
            scaling=wide & ~capped & ~charged,
            capped_h=capped_h,
            recompose=first and bool((wide & charged).any()),
            finest=finest,
            accuracy=self.accuracy,
            ladder=self.ladder(),
        )

    def charged_step(
        self,
        h: float,
        width: np.ndarray,
        before: Before,
        wide: np.ndarray,
        charged: np.ndarray,
        alone: np.ndarray,
        cap: np.ndarray,
        q: float,
    ) -> float | None:
        """``next_interval`` where the part no grid removes is known (``alone``): ``power_step``
        over the ``wide`` arguments not ``charged`` (``was_capped``: those whose width on the grid
        before was its cap eps, ``cap``, to a relative 1e-9; ``near_rate``: that grid above half the
        sampling rate q), and one rung finer, 0.9 h at least ``finest_interval(q)``, for
        charge-limited arguments whose width fell from its cap to within
        ``CAP_LEFT_WITHIN_TOLERANCES`` tolerances (their charges are known on one grid only, and
        they need not stay as the grid shrinks); the finer of the two.  The core's ``charged_step``
        (cpp/include/hockeystick/pld/refine/next_grid.hpp)."""
        h0, _, _, width0 = before
        return _core.pld_refine.charged_step(
            h=h,
            h0=h0,
            width=width,
            width0=width0,
            alone=alone,
            cap=cap,
            wide=wide,
            charged=charged,
            q=q,
            finest=finest_interval(q),
            accuracy=self.accuracy,
            tuning=next_grid_tuning(),
            ladder=self.ladder(),
        )

    def fitted_step(
        self, h: float, width: np.ndarray, before: Before, wide: np.ndarray, finest: float
    ) -> float | None:
        """``next_interval`` from a fit of width = c h^2 + f through the two grids h0 > h, per
        argument still too wide and narrowing (below ``STALLED`` of the last): slope c = (w0 - w) /
        (h0^2 - h^2), floor f = w - c h^2; those whose floor is below half the tolerance ask h =
        sqrt((0.9 accuracy - f) / c); the finest (at most 0.9 h, at least ``finest``, on the
        ladder), or None.  The core's ``fitted_step``
        (cpp/include/hockeystick/pld/refine/next_grid.hpp)."""
        h0, _, _, width0 = before
        return _core.pld_refine.fitted_step(
            h=h,
            h0=h0,
            width=width,
            width0=width0,
            wide=wide,
            finest=finest,
            accuracy=self.accuracy,
            tuning=next_grid_tuning(),
            ladder=self.ladder(),
        )

    def power_step(
        self,
        h: float,
        h0: float,
        width: np.ndarray,
        width0: np.ndarray,
        alone: np.ndarray,
        wide: np.ndarray,
        was_capped: np.ndarray,
        near_rate: bool = False,
        q: float | None = None,
    ) -> float | None:
        """The next grid after grids h0 > h, where the part of each width no grid removes is known
        (``alone``, ``charge_width``): the rest, e = width - alone, is fitted as c h^p through the
        two grids, p = log(e0 / e) / log(h0 / h) clipped to [1, 2], and each ``wide`` argument whose
        e fell below ``STALLED`` of the last asks for h (e* / e)^(1/p), e* = 0.9 accuracy - alone;
        the finest (at most 0.9 h, at least ``finest_interval(q)``, on the ladder) is taken.  The
        h^2 law (p = 2) holds for the upper side; the optimistic side's convex minorant may shrink
        like h, which a fit of c h^2 + f would read as a floor f and stop short.  A width falling
        slower than h^``SLOWEST_POWER`` is not followed (far below the rate it is round-off), unless
        the coarser grid h0 was ``near_rate`` (above half the sampling rate, where the optimistic
        side is not yet in its h^p regime) and the width's own law h^p reaches the tolerance within
        ``SLOW_REACH`` of h, (e* / e)^(1/p) >= SLOW_REACH: then p is clipped to 1 and the next grid
        refits it.  Where the width on grid h0 was its cap eps (``was_capped``) no law is read from
        it: the h^2 law is assumed where the width is now within ``CAP_LEFT_WITHIN_TOLERANCES``
        times the tolerance, and the argument is not followed otherwise (a fit through the cap asks
        a needlessly fine grid). The core's ``power_step``
        (cpp/include/hockeystick/pld/refine/next_grid.hpp)."""
        return _core.pld_refine.power_step(
            h=h,
            h0=h0,
            width=width,
            width0=width0,
            alone=alone,
            wide=wide,
            was_capped=was_capped,
            near_rate=near_rate,
            finest=finest_interval(q),
            accuracy=self.accuracy,
            tuning=next_grid_tuning(),
            ladder=self.ladder(),
        )
