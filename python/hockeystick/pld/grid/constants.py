"""The tuning constants of the grids and of the two ``accuracy=`` refinements, each with what it means and why it
has its value: ``SubsampledGaussianPLD``'s (many points, each refined on its own grid ladder from a predicted start) and a
``CompositionPlan``'s (``PLAN_*``: one heterogeneous composition, its grids aimed by the widths it measures).  The modules read them as ``constants.NAME`` at call time, so a test may patch one
here and the next call follows it.  None of them affects what is certified, only which grids are built."""

from __future__ import annotations

# --- the grid ladder -------------------------------------------------------------------------------------------

# The finest grid the refinement builds; every grid is FINEST_INTERVAL 2^(k/2) (``grid_start.ladder_rung``).
# Below it the composed windows of long runs exceed any memory a user has, while the bracket gains little.
FINEST_INTERVAL = 1e-5
# The coarsest grid of the default start (``StartGrid.default``): coarser grids leave brackets wider than any
# accuracy a user asks, so starting coarser only adds a step.
COARSEST_INTERVAL = 2e-3
# The coarsest start of a wide composed PLD (``StartGrid.span_start``): one loss unit per cell is where the
# discretization's error stops being small against the loss it discretizes.
COARSEST_START = 1.0
# The grid points a ``.delta`` start puts on the composed span (``StartGrid.span_start``): 2^13 points resolve
# a relative bracket of a PLD spread over many loss units at the cost of one small transform.
START_POINTS = 1 << 13

# --- where a ``.delta`` argument is done -----------------------------------------------------------------------

# Below this upper delta a bracket is done: every bound carries grid-independent charges (the mass at +infinity,
# T round-off charges of ~5e-16), so no grid narrows a bracket on a smaller delta, and no user targets one.
DELTA_FLOOR = 1e-9
# Above this lower delta a bracket is done: it certifies delta > 1 - 1e-9, so no (eps, delta) guarantee holds
# there for any delta a user targets (the floor's rule at the other end).
DELTA_CEILING = 1.0 - DELTA_FLOOR

# --- near delta = 1 --------------------------------------------------------------------------------------------

# Above this upper delta the lower side is raised to the Renyi-affinity bound (``near_one.NearOne.raised``) and
# the cells' edge factor counts as a fixed charge: there the composed lower side's round-off charge exceeds
# 1 - delta, and the affinity bound is the tighter one.
NEAR_ONE = 1.0 - 1e-6
# Above this upper delta the complement's bracket is taken too (``near_one.NearOne.complement_brackets``): the
# composed PMFs' gap is absolute (T rounds of relative errors per mass), a few per cent of 1 - delta there,
# while the complement bounds 1 - delta with relative accuracy.
COMPLEMENT_ABOVE = 1.0 - 1e-3
# Complement factors kept per accountant (the last few (sigma / sensitivity, q, h)): one refinement step's
# rows share a key, and each factor pair holds a one-round window, so a few suffice and memory stays bounded.
COMPLEMENT_KEPT = 4

# --- which grid next (``grid_rules.NextGrid``) ------------------------------------------------------------------

# A width that falls to less than this fraction of the last grid's is still narrowing; one that does not is set
# by what no grid removes, so a finer grid would only cost time.
STALLED = 0.9
# A width falling slower than h^SLOWEST_POWER is not followed (far below the sampling rate such a width is
# round-off, and following it costs grids that meet nothing).
SLOWEST_POWER = 0.5
# ... unless the coarser grid was near the sampling rate and the width's own law reaches the tolerance within
# this factor of h: near the rate the optimistic side has not reached its h^p regime yet, so one refit is cheap.
SLOW_REACH = 1 / 8
# A width that was its cap eps on the grid before and is now within this many tolerances is assumed to shrink
# like h^2 (its charges are known on one grid only): one more rung, since nearly met widths usually meet there.
CAP_LEFT_WITHIN_TOLERANCES = 4.0
# The least step of a capped argument, h / 32: a width stuck at its cap says nothing of the grid it needs, and
# an epsilon gap shrinking like h^2 reaches the tolerance within 32x from any grid where it is read.
CAPPED_STEP = 1 / 32
# The step of a capped argument whose lower side is 0 at q >= h (the round-off charge took the optimistic side
# to 0): that is a small delta, which a grid a few times finer meets, so h / 4 costs less than h / 32.
NO_LOWER_STEP = 1 / 4
# The fraction of ``accuracy`` a capped argument's epsilon gap G is aimed at (G shrinks like h^2): a width is
# certified once G is well below the offsets, and aiming G at the tolerance itself lands near that grid.
GAP_TARGET = 1.0
# A width more than this many times its epsilon gap G is a step of the offsets, not the grid's error
# (``NextGrid.offset_limited``): G, not the width, then foretells the next grid's width.
OFFSET_LIMITED = 2.0
# The fraction of ``accuracy`` an offset-limited argument's gap is aimed at: half, since the width that follows
# is G plus the offsets' own resolution.
OFFSET_GAP_TARGET = 0.5

# --- the first grid under the epsilon rules (``StartGrid.below_rate_start``) ----------------------------------

# The rung a grid must be below the sampling rate q by to see the optimistic side (q / 1.2): just below q the
# rounds that do not sample the record still round onto 0 and -h, so the lower side is loose.
BELOW_RATE_MARGIN = 1.2
# The largest sampling rate whose first grid starts below it: above it the deltas a blind grid leaves are large,
# a coarse grid already meets them, and the fine grid costs more than the blind step it saves.
BELOW_RATE_START_MAX_RATE = 4e-3
# The most times finer than the usual start the rung below q may be: past it every rounds value would compose a
# window of ~10^6 points, and the blind step after a coarse grid costs less.
BELOW_RATE_START_MAX_REFINEMENT = 16.0

# --- direct DFT bins ------------------------------------------------------------------------------------------

# ``.epsilon``: below this least delta asked a point's first grid is composed with the direct bins: the plain
# transform's round-off charge (T x ~5e-16) is then a part of the delta that a finer grid would only raise.
DIRECT_FIRST_DELTA = 1e-8
# ... and its compositions take them in every row whose estimated charge reaches this share of that delta (at most
# the core's kDirectMinCharge, 1e-11): a charge is added to the upper delta and taken from the lower one on every
# grid, so a charge of a tenth of delta = 1e-10 leaves the epsilon bracket a few hundredths wide whatever the
# grid; a hundredth of delta (counted about three times in a bracket) moves epsilon by about
# 3e-2 / |d log delta / d eps|: for a Gaussian loss (mu-GDP, mu 0.3 to 30) at delta 1e-10 to 1e-8, at most 0.85 of
# the tolerance max(1e-2, 1e-3 eps), the worst near mu 1.7; a bracket it leaves wider is flagged like any other,
# and a smaller share puts the direct bins' long-double work on every row of every point below 1e-8.
DIRECT_CHARGE_SHARE = 1e-2
# A step to the grid a point was on takes direct bins in every row whose estimated charge reaches this, a 10^4th
# of the floor's delta: the point is there because its charges left it wide, so its rows' charges are cut too.
SAME_GRID_DIRECT_CHARGE = 1e-13

# --- memory -------------------------------------------------------------------------------------------------------

# At most this many points are discretized per C++ call and composed per batch of FFTs: enough to share the
# transforms of a block, few enough that the composed PLDs of one batch stay small.
BATCH = 64
# ... fewer where their estimated composed windows would exceed this many points in total (2^21 doubles per side
# is 16 MB), so memory stays bounded however fine a refinement goes.
BUDGET = 1 << 21
# A curve along one run packs four times as many window points in a unit (64 MB per side where windows are kept;
# most of a curve's are read from their spectra), so that its checkpoints share one forward transform per factor
# (compose_many's shared_transform) instead of one per unit.
CURVE_BUDGET = 1 << 23
# No grid whose estimated composed window (``loss_span`` / h, ~1.4x an overestimate) exceeds this many points is
# built: a window of 2^22 points keeps a refinement's resident memory under a gigabyte, a coarser grid's bracket
# being certified too, only wider.
MAX_WINDOW = 1 << 22


# --- a composition plan's refinement (``plan_refinement.GridRefinement``) ---------------------------------------
# A plan has no predicted start (its mechanisms are any mix), so it starts coarser than the subsampled Gaussian;
# its next grids follow the grid evaluation's rules (``grid_rules.NextGrid``).

# The first grid: cheap to compose, and its measured width aims the next one.
PLAN_COARSEST_INTERVAL = 3e-3
# The finest grid, the subsampled Gaussian's: below it the composed windows grow past what a profile keeps, and
# a bracket still wider there is limited by something other than the grid.
PLAN_FINEST_INTERVAL = FINEST_INTERVAL
# The most points a composed grid may take: the composition's time and memory grow like its points.
PLAN_MAX_POINTS = 1 << 20
# Beside exact atoms, a first grid part whose loss s.d. spans fewer cells than this is refined to this many:
# a bulk of a handful of masses narrows erratically until the grid resolves it.
PLAN_RESOLVE_CELLS = 6.0
# ... by at most this factor: the composed grid grows as much.
PLAN_RESOLVE_SHRINK = 8.0
# A first aimed jump finer than 1 / PLAN_PROBE_SHRINK^2 to a grid past PLAN_PROBE_POINTS goes 1 / PLAN_PROBE_SHRINK first:
# the probe measures the narrowing law (or shows a stall) at a fraction of the big grid's cost.
PLAN_PROBE_SHRINK = 4.0
# Below this many points a composed grid is cheap enough to be aimed at directly, without a probe.
PLAN_PROBE_POINTS = 1 << 16
