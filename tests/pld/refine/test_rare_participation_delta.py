"""Rare participation's delta at many epsilons (the core's pld/refine/rare_delta_grids.hpp): the epsilons of one
bucket share its compositions, and each element's bracket is the one it gets asked alone, bit for bit,
whatever else is asked with it and in whatever order; each side on the right side of the delta
the epsilon door certified."""

from __future__ import annotations

import numpy as np

from hockeystick import _core
from hockeystick.pld import SubsampledGaussianPLD

RUN = {"sigma": 0.5, "sampling_rate": 1e-4, "rounds": 10**4}  # T q = 1
# two eps in one bucket (fine_delta_key's centre 1.0), others in buckets and levels of their own,
# a tiny one, and two no finer grid reads (no bucket: an infinite eps, eps 0)
EPS = np.array([1.05, 1.3, 2.9, 5.0, 1.0, 1e-9, np.inf, 0.0])
READ = np.isfinite(EPS) & (EPS > 0.0)


def test_an_array_of_epsilons_reads_each_as_asked_alone() -> None:
    run = SubsampledGaussianPLD(**RUN)
    lower, upper = run.delta(EPS, bound="both")
    for e, lo, up in zip(EPS, lower, upper):
        alone = run.delta(np.array([e]), bound="both")
        assert (alone[0][0], alone[1][0]) == (lo, up), e
    reversed_lower, reversed_upper = run.delta(EPS[::-1], bound="both")
    assert np.array_equal(reversed_lower[::-1], lower)
    assert np.array_equal(reversed_upper[::-1], upper)
    # the finer grids read here: each bracket within their relative width or the width in eps
    assert _core.pld_refine.rare_delta_applies(
        sampling_rate=RUN["sampling_rate"],
        rounds=float(RUN["rounds"]),
        eps=float(EPS[0]),
        lower=0.0,
        upper=float(upper[0]),
    )
    width = _core.pld_refine.rare_delta_relative_width
    assert np.all(upper[READ] <= lower[READ] * (1.0 + 2.0 * width))
    grid_lower, grid_upper = run.delta(EPS.reshape(1, -1), bound="both")  # any shape
    assert np.array_equal(grid_lower[0], lower) and np.array_equal(grid_upper[0], upper)


def test_the_sides_fall_on_either_side_of_the_epsilon_doors_delta() -> None:
    """At the epsilon door's certified sides of delta d, delta(eps_up) <= d < delta(eps_lo): the
    delta door's lower side at eps_up is at most d and its upper side at eps_lo at least d, read
    in one array."""
    run = SubsampledGaussianPLD(**RUN)
    deltas = np.array([1e-6, 1e-10])
    eps_lo, eps_up = run.epsilon(deltas, bound="both")
    lower, upper = run.delta(np.concatenate([eps_up, eps_lo]), bound="both")
    assert np.all(lower[:2] <= deltas) and np.all(deltas <= upper[2:])
