"""Noise calibration for any registered accountant: the extreme parameter value within (eps, delta).

``calibrate("gaussian", "sigma", epsilon=1, delta=1e-5, rounds=[10, 100])`` returns the
smallest sigma whose bound satisfies delta(eps) <= delta at every grid point; for a
parameter the bound INCREASES with (rounds, sampling rate) it returns the largest
value.  It needs only the accountant contract and the monotonicity the registry
records for the parameter:

1. bracket: from a starting value (1, or the accountant's own estimate per target when its class
   has ``calibration_start``), step geometrically (x4, x16, x256, ...; from an estimate x1.2, x1.44,
   x2.07, ...) towards the feasible side until the bound meets the target, and towards the
   infeasible side until it fails;
   a point whose target no value inside the parameter's range can meet raises a
   ValueError saying which point and what the bound reaches there;
2. refine: Chandrupatla's bracketing root finder (scipy.optimize.elementwise.find_root)
   on log delta - log target against log parameter; integers by bisection to adjacent
   values.

An accountant whose class has ``calibration_grids`` (the PLD: coarser grids, each a certified
bound converging like h^2) is first solved on two coarse grids and the answers extrapolated to
the requested grid; the search there starts from that value with a Newton step of the slope the
coarse grids measured, and steps across its noisy root (``refinement.settle``) instead of
Chandrupatla's interpolation.  The coarse grids only choose where the search starts: the answer
is bracketed, and meets the target, on the requested grid.

An accountant whose class has ``calibration_directions`` (the subsampled-Gaussian PLD for sigma:
delta is the larger of its remove and add directions', ``pld/refine/directional_delta.py``) is
evaluated direction by direction on the upper side (``directions``): the leading direction at every
trial, the others only where a trial meets the target and no certified screen (their bound at a
value every later trial lies beyond, the others' delta being monotone there) already shows they do
too.

A target every value meets needs no search: the noise multiplier of a Poisson-sampled training run
whose RDP bound at the smallest noise searched is within the target (epsilon 1e308 or inf) is
settled at its start, where the accountant's bound is evaluated (``every_noise``), instead of
walking down to where the PLD refuses its loss grid.

Everything is vectorized: each step is ONE accountant call on the still-open points of a block.
The targets of an accountant whose points are real work (its registry entry declares ``max_chunk``:
the PLD families, RDP, per-point schedules) are split into ``_BLOCKS`` interleaved blocks (target i
in block i mod the block count; a fixed split, so an answer never depends on ``workers``), solved in
``workers`` threads: the PLD accountants discretize and compose in C++ with the GIL released,
scipy.fft releases it too.  A closed form is one block (threads would not pay for the calls).
The value returned was evaluated and met the target, so it is valid even if the bound
were not monotone (then it may just not be the extreme one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.front_door import front_door

if TYPE_CHECKING:
    from .extreme import calibrate
    from .individualized import (
        IndividualizedNoise,
        IndividualizedSampling,
        individualized_noise,
        individualized_sample_rates,
    )
    from .training_runs import (
        FixedComputeTable,
        calibrate_batch_size,
        calibrate_fixed_compute,
        default_batch_sizes,
    )

# Each name comes from its module on first use (PEP 562): a sweep's one-point question reads
# ``calibrate`` alone, not the training runs' tables or the individualized calibrations.
_NAMES = {
    "calibrate": "extreme",
    "IndividualizedNoise": "individualized",
    "IndividualizedSampling": "individualized",
    "individualized_noise": "individualized",
    "individualized_sample_rates": "individualized",
    "FixedComputeTable": "training_runs",
    "calibrate_batch_size": "training_runs",
    "calibrate_fixed_compute": "training_runs",
    "default_batch_sizes": "training_runs",
    # the search a test counts the evaluations of (tests/pld/refine/test_pld_calibration_start.py)
    "_Problem": "problem:Problem",
}

__getattr__ = front_door(__name__, _NAMES, globals())


def __dir__() -> list[str]:
    return sorted({*globals(), *_NAMES})


__all__ = [
    "calibrate",
    "calibrate_batch_size",
    "calibrate_fixed_compute",
    "default_batch_sizes",
    "FixedComputeTable",
    "IndividualizedNoise",
    "IndividualizedSampling",
    "individualized_noise",
    "individualized_sample_rates",
]
