"""A pessimistic composition's window carries the sum of its masses as numpy sums it (ComposedPMF.finite_mass,
support/pairwise_sum.hpp), which the facade's GridPMF.finite_mass takes in place of its own numpy sum: the same
bits, or the refinement's next grid (pld/refine/fixed_part.hpp) would move."""

from __future__ import annotations

import math

import numpy as np

from hockeystick import _core
from hockeystick.pld.compose import fft as pc
from hockeystick.pld.grid import pmf as pmf_module


def _factors() -> list[pmf_module.GridPMF]:
    """Factors whose compositions span numpy's three summation cases: under 8 masses, up to 128, and more (split
    in halves), with masses over many orders of magnitude so that the order of the additions shows in the bits."""
    rng = np.random.default_rng(3)
    small = pmf_module.GridPMF(k_lo=-1, h=0.25, p=np.array([0.3, 0.45, 0.25]), p_inf=0.0)
    raw = rng.random(700) * 10.0 ** rng.uniform(-12, 0, 700)
    wide = pmf_module.GridPMF(k_lo=-350, h=0.25, p=raw / math.fsum(raw) * (1 - 1e-9), p_inf=1e-9)
    return [small, wide]


def test_the_pessimistic_window_sum_is_numpys_bit_for_bit():
    small, wide = _factors()
    items = [
        [(small, 2)],
        [(small, 5)],
        [(small, 40)],
        [(wide, 2)],
        [(wide, 30)],
        [(small, 3), (wide, 4)],
    ]
    composed = pc.compose_many(items, pessimistic=True)
    sizes = [pmf.p.size for pmf in composed]
    assert min(sizes) < 8 and any(8 <= n <= 128 for n in sizes) and max(sizes) > 1000
    sequential_differs = False
    for pmf in composed:
        # set by the composition, not computed by the property
        carried = pmf.__dict__["finite_mass"]
        assert carried.hex() == float(np.sum(pmf.p)).hex()
        left_to_right = 0.0
        for value in pmf.p.tolist():
            left_to_right += value
        sequential_differs = sequential_differs or left_to_right != carried
    assert sequential_differs  # the cases tell numpy's pairwise order from a plain running sum


def test_the_optimistic_side_carries_no_sum_and_the_property_sums_it():
    small, wide = _factors()
    raw = _core.pld_compose.compose_many(
        [small.p, wide.p],
        k_lo=[small.k_lo, wide.k_lo],
        p_inf=[small.p_inf, wide.p_inf],
        h=small.h,
        items=[[(0, 3)]],
        pessimistic=False,
        tail=1e-15,
        max_points=10**6,
        workers=1,
        loss_shifts=[0.0, 0.0],
        options=_core.pld_compose.ComposeOptions(),
    )
    assert raw[0].finite_mass is None
    lower = pc.compose_many([[(small, 3)]], pessimistic=False)[0]
    assert "finite_mass" not in lower.__dict__
    assert lower.finite_mass == float(np.sum(lower.p))
