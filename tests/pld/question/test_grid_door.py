"""A grid given to ``SubsampledGaussianPLD`` (``value_discretization_interval=h``): the composition on it answers
where it can, and where its round-off, its tails or a rate below a cell leave it wide whatever h is, the default's
reads narrow it (``default_reads.grid_sides``), as the question reader narrows the PLD objects on any grid.

``test_doors`` holds the grid door to the front door's bracket at 1e-5, 1e-10 and 1e-12; here: delta read the same
way, an array's elements as its scalars, the grid's bracket standing where the default's reads pass the memory
allowed, and ``calibrate`` on a grid deciding as that accountant's numbers do.
"""

from __future__ import annotations

import warnings

import numpy as np

import hockeystick.pld as pld
from hockeystick.calibrate import calibrate
from hockeystick.pld.compose import fft

# the README's DP-SGD run, on dp_accounting's grid
SIGMA, Q, ROUNDS, H = 1.1, 256 / 60_000, 14_100, 1e-4


def _on_grid(sigma: float = SIGMA, h: float = H) -> pld.SubsampledGaussianPLD:
    return pld.SubsampledGaussianPLD(sigma, Q, ROUNDS, value_discretization_interval=h)


def test_delta_on_a_grid_is_read_as_the_default_reads_it_below_the_floor(request):
    """At the front door's upper epsilon for 1e-10 the grid's composition alone certifies 3.3e-10 (its round-off
    and tails); read with the default's delta it certifies the 1e-10 asked (a round trip), and it is no wider
    than either bracket."""
    front = pld.SubsampledGaussianPLD(SIGMA, Q, ROUNDS)
    eps = front.epsilon(1e-10)
    lower, upper = _on_grid().delta(eps, bound="both")
    default_lower, default_upper = front.delta(eps, bound="both")
    request.getfixturevalue("grid_alone")
    alone_lower, alone_upper = _on_grid().delta(eps, bound="both")
    assert alone_upper > 2e-10  # the composition alone cannot answer there
    assert upper <= 1e-10 * (1 + 1e-9)
    assert max(alone_lower, default_lower) <= lower <= upper <= min(alone_upper, default_upper)


def test_an_array_on_a_grid_gives_each_element_its_scalars_bracket():
    """Each delta decides alone whether the default's reads are asked (1e-5: the grid answers; 1e-10 and 1e-12:
    the default's narrow it), each epsilon of delta too."""
    together, alone = _on_grid(), _on_grid()
    deltas = np.array([1e-10, 1e-5, 1e-12])
    lower, upper = together.epsilon(deltas, bound="both")
    for i, d in enumerate(deltas):
        assert (lower[i], upper[i]) == alone.epsilon(float(d), bound="both")
    eps = np.array([2.0, 3.74, 4.18])
    lower, upper = together.delta(eps, bound="both")
    for i, e in enumerate(eps):
        assert (lower[i], upper[i]) == alone.delta(float(e), bound="both")


def test_the_grids_bracket_stands_where_the_defaults_reads_pass_the_memory_allowed(
    monkeypatch, request
):
    """Under a cap of 2^13 grid points the default's fixed grid and refinement pass the memory allowed at 1e-10; a
    coarse grid the cap holds answers with its own certified bracket, narrowed as far as the default's reads within
    the cap go (its tilted reads: [3.74075, 3.74104] within the grid's [0, 43.5])."""
    monkeypatch.setattr(fft, "DEFAULT_MAX_POINTS", 1 << 13)
    with warnings.catch_warnings():
        # the default's refinement stopping at the cap, where it does
        warnings.simplefilter("ignore")
        lower, upper = _on_grid(h=0.5).epsilon(1e-10, bound="both")
    request.getfixturevalue("grid_alone")
    alone_lower, alone_upper = _on_grid(h=0.5).epsilon(1e-10, bound="both")
    assert 0.0 <= alone_lower <= lower <= upper <= alone_upper
    assert upper < 0.1 * alone_upper


def test_calibrate_on_a_grid_decides_as_the_accountant_on_that_grid():
    """The sigma that meets epsilon 3.75 at delta 1e-10 on dp_accounting's grid: the accountant on that grid at it
    meets the target, and 0.1 % less noise does not (the plain composition alone would need sigma 1.28)."""
    sigma = calibrate(
        "pld_subsampled_gaussian",
        "sigma",
        sampling_rate=Q,
        rounds=ROUNDS,
        epsilon=3.75,
        delta=1e-10,
        value_discretization_interval=H,
    )
    assert _on_grid(sigma).epsilon(1e-10) <= 3.75
    assert _on_grid(sigma * (1 - 1e-3)).epsilon(1e-10) > 3.75
