"""Compile the simulator's numba kernels into their on-disk cache (``cache=True``) before the suite starts.

Without it both xdist workers compile the same kernels at the same moment on a fresh install, about 45 s of CPU
each for the float64 and float32 variants, and so do the command-line tests' subprocesses that start before a
cache file exists. .ci/run runs this in the background beside its single-threaded steps (the PATH copy, the
lint) and the start of the compiler job, and starts the suite when it is done: the suite's first test, the
documentation site's build, draws a picture with the simulator (docs/_ext/hockeystick_pictures.py), which would
otherwise compile the same kernels beside it.
"""

from __future__ import annotations

import hockeystick.simulate as sim

for dtype in ("float64", "float32"):
    train, test = sim.bundled("wine", 6, seed=1, dtype=dtype)
    for batch_size in (None, 2):  # full-batch and minibatch local steps
        sim.noisy_fedavg(
            train,
            test=test,
            rounds=2,
            local_steps=2,
            rate=1.0,
            clip=1.0,
            sigma=0.3,
            batch_size=batch_size,
            seed=3,
        )
