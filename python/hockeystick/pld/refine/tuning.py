"""The tuning constants of the two ``accuracy=`` refinements, each with what it means and why it has
its value: ``SubsampledGaussianPLD``'s (many points, each refined on its own grid ladder from a
predicted start: which grid next, direct DFT bins) and a ``CompositionPlan``'s (``PLAN_*``: one
heterogeneous composition, its grids aimed by the widths it measures).  What every grid needs, fixed
or refined, is in ``refine.constants``.  The modules read them as ``tuning.NAME`` at call time, so a
test may patch one here and the next call follows it.  None of them affects what is certified, only
which grids are built."""

from __future__ import annotations

from .constants import FINEST_INTERVAL

# --- which grid next (the core's next_grid.hpp, points_rules.hpp) ------------------------------------------------

# A width that falls to less than this fraction of the last grid's is still narrowing; one that does
# not is set by what no grid removes, so a finer grid would only cost time.
STALLED = 0.9
# A width falling slower than h^SLOWEST_POWER is not followed (far below the sampling rate such a
# width is round-off, and following it costs grids that meet nothing).
SLOWEST_POWER = 0.5
# ... unless the coarser grid was near the sampling rate and the width's own law reaches the
# tolerance within this factor of h: near the rate the optimistic side has not reached its h^p
# regime yet, so one refit is cheap.
SLOW_REACH = 1 / 8
# A width that was its cap eps on the grid before and is now within this many tolerances is assumed
# to shrink like h^2 (its charges are known on one grid only): one more rung, since nearly met
# widths usually meet there.
CAP_LEFT_WITHIN_TOLERANCES = 4.0
# The least step of a capped argument, h / 32: a width stuck at its cap says nothing of the grid it
# needs, and an epsilon gap shrinking like h^2 reaches the tolerance within 32x from any grid where
# it is read.
CAPPED_STEP = 1 / 32
# The step of a capped argument whose lower side is 0 at q >= h (the round-off charge took the
# optimistic side to 0): that is a small delta, which a grid a few times finer meets, so h / 4 costs
# less than h / 32.
NO_LOWER_STEP = 1 / 4
# The fraction of ``accuracy`` a capped argument's epsilon gap G is aimed at (G shrinks like h^2): a
# width is certified once G is well below the offsets, and aiming G at the tolerance itself lands
# near that grid.
GAP_TARGET = 1.0
# A width more than this many times its epsilon gap G is a step of the offsets, not the grid's error
# (points_rules.hpp's offset_limited): G, not the width, then foretells the next grid's width.
OFFSET_LIMITED = 2.0
# The fraction of ``accuracy`` an offset-limited argument's gap is aimed at: half, since the width
# that follows is G plus the offsets' own resolution.
OFFSET_GAP_TARGET = 0.5

# --- direct DFT bins ------------------------------------------------------------------------------------------

# ``.epsilon``: below this least delta asked a point's first grid is composed with the direct bins:
# the plain transform's round-off charge (T x ~5e-16) is then a part of the delta that a finer grid
# would only raise.
DIRECT_FIRST_DELTA = 1e-8
# ... and its compositions take them in every row whose estimated charge reaches this share of that
# delta (at most the core's kDirectMinCharge, 1e-11): a charge is added to the upper delta and taken
# from the lower one on every grid, so a charge of a tenth of delta = 1e-10 leaves the epsilon
# bracket a few hundredths wide whatever the grid; a hundredth of delta (counted about three times
# in a bracket) moves epsilon by about 3e-2 / |d log delta / d eps|: for a Gaussian loss (mu-GDP, mu
# 0.3 to 30) at delta 1e-10 to 1e-8, at most 0.85 of the tolerance max(1e-2, 1e-3 eps), the worst
# near mu 1.7; a bracket it leaves wider is flagged like any other, and a smaller share puts the
# direct bins' long-double work on every row of every point below 1e-8.
DIRECT_CHARGE_SHARE = 1e-2
# A step to the grid a point was on takes direct bins in every row whose estimated charge reaches
# this, a 10^4th of the floor's delta: the point is there because its charges left it wide, so its
# rows' charges are cut too.
SAME_GRID_DIRECT_CHARGE = 1e-13

# --- a composition plan's refinement (``plan_refinement.GridRefinement``) ---------------------------------------
# A plan has no predicted start (its mechanisms are any mix), so it starts coarser than the
# subsampled Gaussian; its next grids follow the grid evaluation's rules (plan_grid.hpp).

# The first grid: cheap to compose, and its measured width aims the next one.
PLAN_COARSEST_INTERVAL = 3e-3
# The finest grid, the subsampled Gaussian's: below it the composed windows grow past what a profile
# keeps, and a bracket still wider there is limited by something other than the grid.
PLAN_FINEST_INTERVAL = FINEST_INTERVAL
# The most points a composed grid may take: the composition's time and memory grow like its points.
PLAN_MAX_POINTS = 1 << 20
# Beside exact atoms, a first grid part whose loss s.d. spans fewer cells than this is refined to
# this many: a bulk of a handful of masses narrows erratically until the grid resolves it.
PLAN_RESOLVE_CELLS = 6.0
# ... by at most this factor: the composed grid grows as much.
PLAN_RESOLVE_SHRINK = 8.0
# A first aimed jump finer than 1 / PLAN_PROBE_SHRINK^2 to a grid past PLAN_PROBE_POINTS goes 1 /
# PLAN_PROBE_SHRINK first: the probe measures the narrowing law (or shows a stall) at a fraction of
# the big grid's cost.
PLAN_PROBE_SHRINK = 4.0
# Below this many points a composed grid is cheap enough to be aimed at directly, without a probe.
PLAN_PROBE_POINTS = 1 << 16
