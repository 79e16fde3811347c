"""The tuning constants of the grids, fixed or refined, each with what it means and why it has its
value: the grid ladder, where a ``.delta`` argument is done, delta near 1, the first grid under the
epsilon rules, and memory.  What only a refinement reads (which grid next, direct DFT bins, a plan's
grids) is in ``refine.tuning``.  The modules read them as ``constants.NAME`` at call time, so a test
may patch one here and the next call follows it.  None of them affects what is certified, only which
grids are built."""

from __future__ import annotations

from ... import _core

# --- the grid ladder -------------------------------------------------------------------------------------------

# The finest grid the refinement builds; every grid is FINEST_INTERVAL 2^(k/2)
# (``grid_start.ladder_rung``). Below it the composed windows of long runs exceed any memory a user
# has, while the bracket gains little.
FINEST_INTERVAL = 1e-5
# ... save at a sampling rate q < BELOW_RATE_FINEST_DIVISOR FINEST_INTERVAL: a grid at or above q is
# blind to the optimistic side (its lower epsilon 0), so there the ladder goes on to the rung at q /
# BELOW_RATE_FINEST_DIVISOR (``grid_start.finest_interval``): a small q spans a small loss, so its
# composed windows stay small (q 1e-6, 10^6 rounds: ~10^5 points), and a grid a few times finer than
# q brings the lower side within the upper one's charges.
BELOW_RATE_FINEST_DIVISOR = 8.0
# The finest grid below a sampling rate: FINEST_INTERVAL 2^-10 (the ladder's rung k = -20), at
# sampling rates down to ~1e-7; a grid finer still would compose the windows of long runs at rates
# whose epsilon is near 0 anyway.
LOWEST_INTERVAL = FINEST_INTERVAL * 2.0**-10
# The coarsest grid of the default start (``StartGrid.default``): coarser grids leave brackets wider
# than any accuracy a user asks, so starting coarser only adds a step.
COARSEST_INTERVAL = 2e-3
# The coarsest start of a wide composed PLD (``StartGrid.span_start``): one loss unit per cell is
# where the discretization's error stops being small against the loss it discretizes.
COARSEST_START = 1.0
# The grid points a ``.delta`` start puts on the composed span (``StartGrid.span_start``): 2^13
# points resolve a relative bracket of a PLD spread over many loss units at the cost of one small
# transform.
START_POINTS = 1 << 13

# --- where a ``.delta`` argument is done -----------------------------------------------------------------------

# Below this upper delta a bracket is done: every bound carries grid-independent charges (the mass
# at +infinity, T round-off charges of ~5e-16), so no grid narrows a bracket on a smaller delta, and
# no user targets one.
DELTA_FLOOR = 1e-9
# Above this lower delta a bracket is done: it certifies delta > 1 - 1e-9, so no (eps, delta)
# guarantee holds there for any delta a user targets (the floor's rule at the other end).
DELTA_CEILING = 1.0 - DELTA_FLOOR

# --- near delta = 1 --------------------------------------------------------------------------------------------

# Above this upper delta the lower side is raised to the Renyi-affinity bound
# (``near_one.NearOne.raised``) and the cells' edge factor counts as a fixed charge: there the
# composed lower side's round-off charge exceeds 1 - delta, and the affinity bound is the tighter
# one.
NEAR_ONE = 1.0 - 1e-6
# Above this upper delta the complement's bracket is taken too
# (``near_one.NearOne.complement_brackets``): the composed PMFs' gap is absolute (T rounds of
# relative errors per mass), a few per cent of 1 - delta there, while the complement bounds 1 -
# delta with relative accuracy.
COMPLEMENT_ABOVE = _core.pld_reads.complement_above  # 1 - 1e-3 (pld/reads/complement.hpp)
# Complement factors kept per accountant (the last few (sigma / sensitivity, q, h)): one refinement
# step's rows share a key, and each factor pair holds a one-round window, so a few suffice and
# memory stays bounded.
COMPLEMENT_KEPT = 4

# --- the first grid under the epsilon rules (``StartGrid.below_rate_start``) ----------------------------------

# The rung a grid must be below the sampling rate q by to see the optimistic side (q / 1.2): just
# below q the rounds that do not sample the record still round onto 0 and -h, so the lower side is
# loose.
BELOW_RATE_MARGIN = 1.2
# The largest sampling rate whose first grid starts below it: above it the deltas a blind grid
# leaves are large, a coarse grid already meets them, and the fine grid costs more than the blind
# step it saves.
BELOW_RATE_START_MAX_RATE = 4e-3
# ... and that of ``.delta``'s first grid under ``delta_accuracy="epsilon"``: there a blind first
# grid's capped arguments leave their cap eps as their width, and the step after it follows the h^2
# law of that width (points_rules.hpp's capped_interval, h 0.9 sqrt(accuracy / eps)), which at
# sigma below ~1 lands up to 8 times finer than the grid the point meets (sigma 0.576, q 5.46e-3,
# 8685 rounds: from 7.2e-3 to 1.6e-4, where 1.3e-3 meets G1's criterion), while on the rung
# below q, composed with direct bins, the lower side is read and its width aims the next grid
# (there 9.1e-4).
# Up to q 2e-2 that start costs less (G1's blocks at q 5.5e-3 to 1.6e-2); from q 2.3e-2 on the
# blind grid meets most rounds values (their deltas are near 1) and the fine one costs more.
EPSILON_CRITERION_BELOW_RATE_MAX_RATE = 2e-2
# The most times finer than the usual start the rung below q may be: past it every rounds value
# would compose a window of ~10^6 points, and the blind step after a coarse grid costs less.
BELOW_RATE_START_MAX_REFINEMENT = 16.0

# --- memory -------------------------------------------------------------------------------------------------------

# At most this many points are discretized per C++ call and composed per batch of FFTs: enough to
# share the transforms of a block, few enough that the composed PLDs of one batch stay small.
BATCH = 64
# ... fewer where their estimated composed windows would exceed this many points in total (2^21
# doubles per side is 16 MB), so memory stays bounded however fine a refinement goes.
BUDGET = 1 << 21
# A curve along one run packs four times as many window points in a unit (64 MB per side where
# windows are kept; most of a curve's are read from their spectra), so that its checkpoints share
# one forward transform per factor (compose_many's shared_transform) instead of one per unit.
CURVE_BUDGET = 1 << 23
# No grid whose estimated composed window (``loss_span`` / h, ~1.4x an overestimate) exceeds this
# many points is built: a window of 2^22 points keeps a refinement's resident memory under a
# gigabyte, a coarser grid's bracket being certified too, only wider.
MAX_WINDOW = 1 << 22
# A call of one point whose estimated composed window on the default's finest grid (``loss_span`` /
# h, h the fine read's) is at most this many points runs its C++ calls on one thread: its loops and
# transforms are too short for a second thread to save time, and the second thread's start and
# spin-wait cost CPU (the README's DP-SGD run at delta 1e-10, ~3e5 estimated, ~7.6e4 composed: about
# a third of its CPU on two shared cores, and wall time too under load).
ONE_THREAD_WINDOW = 1 << 20
