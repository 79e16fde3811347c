"""The optimistic (lower) PMF is lowered by its round-off: none of the size of the losses, none at a
chord that meets the true curve.

Without that lowering ``pld.discrete_laplace(700, 2).delta(0, bound="lower")`` would be
1.000000000000107, above the truth (at most 1), and so would ``randomized_response(0, 2)``,
``eps_delta_dp(800)`` and ``from_distributions([1, 0], [0, 1], exact_zeros=False)``: their atom sits at
a loss near 741, and a convex minorant of ``optimistic_pmf`` (cpp/include/hockeystick/pld/grid/connect_dots.hpp)
keeping its blocks' log widths as absolute losses would carry ~741 u of round-off into each pooled mass
e^{l_j - log width} (the atom's P-mass 1 + 1.1e-13).  The blocks keep their widths relative to their own
grid point, every mass is lowered by a bound on its round-off, and blocks are pooled only when out of
order beyond it.

The second edge: where the lowered chord meets the true curve (an atom at its cell's tent apex, the
point above it pinned to zero), tent heights and e_j (``GapBound::need_lo``) without an allowance for
their rounding let the chord rise up to 3e-17 above the curve (1.2e-12 of it).  Each kink has to be
cleared by 8u (height + e_lo + e_hi), the e_j solved for it are raised by as much again, and tent
heights by their rounding and 4u (c + d).

Checked here against 120-digit mpmath: the constructions' lower delta never exceeds the true delta of
their pairs, and on random atoms (many at losses 700-800; and three atoms each at its cell's apex) the
lower PMF's own profile, summed exactly, never exceeds the atoms' true curve.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from hockeystick import _core, pld

MP_DPS = 120  # the grid losses and eps + snapped exactly (a few hundred bits), so a term at a grid point is 0
mp.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test
MAX_CELLS = 1 << 26


def _true_delta(p: list, q: list, eps: float) -> mp.mpf:
    """sum_i max(p_i - e^eps q_i, 0), exactly (p_i, q_i mpmath numbers)."""
    g = mp.exp(mp.mpf(eps))
    return mp.fsum(max(pi - g * qi, mp.mpf(0)) for pi, qi in zip(p, q))


def _discrete_laplace_pair(a: float, s: int) -> tuple[list, list]:
    a_ = mp.mpf(a)
    norm = 1 / (1 + mp.exp(-a_))
    p = (
        [mp.exp(-a_ * s) * norm]
        + [mp.tanh(a_ / 2) * mp.exp(-a_ * (s - x)) for x in range(1, s)]
        + [norm]
    )
    return p, p[::-1]


def _eps_delta_pair(eps: float) -> tuple[list, list]:
    e = mp.exp(mp.mpf(eps))
    return [e / (1 + e), 1 / (1 + e)], [1 / (1 + e), e / (1 + e)]


CONSTRUCTIONS = {
    "discrete_laplace(700, 2)": (
        lambda: pld.discrete_laplace(700.0, 2),
        _discrete_laplace_pair(700.0, 2),
    ),
    "discrete_laplace(371, 2)": (
        lambda: pld.discrete_laplace(371.0, 2),
        _discrete_laplace_pair(371.0, 2),
    ),
    "randomized_response(0, 2)": (
        lambda: pld.randomized_response(0.0, 2),
        ([mp.mpf(1), 0, 0], [0, mp.mpf(1), 0]),
    ),
    "eps_delta_dp(800)": (lambda: pld.eps_delta_dp(800.0), _eps_delta_pair(800.0)),
    "eps_delta_dp(740)": (lambda: pld.eps_delta_dp(740.0), _eps_delta_pair(740.0)),
    "from_distributions([1, 0], [0, 1])": (
        lambda: pld.from_distributions([1.0, 0.0], [0.0, 1.0], exact_zeros=False),
        ([mp.mpf(1), mp.mpf(0)], [mp.mpf(0), mp.mpf(1)]),
    ),
}


@pytest.mark.parametrize("name", sorted(CONSTRUCTIONS))
def test_lower_delta_of_large_loss_pairs_is_below_the_truth(name: str) -> None:
    build, (p, q) = CONSTRUCTIONS[name]
    dist = build()
    eps = np.array([0.0, 1e-9, 0.5, 3.0, 100.0, 700.0, 739.9, 740.97, 741.5])
    lower = dist.delta(eps, bound="lower")
    upper = dist.delta(eps, bound="upper")
    for e, lo, up in zip(eps, lower, upper):
        # both directions of a pair: the reported delta is the worse one
        truth = max(_true_delta(p, q, float(e)), _true_delta(q, p, float(e)))
        assert mp.mpf(float(lo)) <= truth, (name, e, lo, truth)
        assert mp.mpf(float(up)) >= truth, (name, e, up, truth)


def _profile(masses: np.ndarray, k_lo: int, h: float, eps: mp.mpf) -> mp.mpf:
    """sum_j p_j (1 - e^{eps - l_j})_+ of a grid PMF, exactly (l_j = (k_lo + j) h as reals)."""
    idx = np.flatnonzero(masses)
    g = mp.exp(eps)
    out = mp.mpf(0)
    for j in idx:
        loss = mp.mpf(int(k_lo + j)) * mp.mpf(h)
        term = 1 - g * mp.exp(-loss)
        if term > 0:
            out += mp.mpf(float(masses[j])) * term
    return out


def _atom_curve(loss: np.ndarray, mass: np.ndarray, eps: mp.mpf) -> mp.mpf:
    g = mp.exp(eps)
    return mp.fsum(
        mp.mpf(float(m)) * max(1 - g * mp.exp(-mp.mpf(float(l))), 0) for l, m in zip(loss, mass)
    )


def _random_atoms(seed: int) -> tuple[np.ndarray, np.ndarray, float]:
    rng = np.random.default_rng(seed)
    h = float(rng.choice([1e-4, 1e-3, 0.01, 0.1, 0.37]))
    count = int(rng.integers(1, 6))
    centre = float(rng.choice([740.9743, 741.0, 700.0, 799.3, -3.0, 0.0, 12.5]))
    loss = centre + rng.uniform(-3.0, 3.0, count) * float(rng.choice([h, 10 * h, 1.0]))
    if rng.random() < 0.5:  # some atoms exactly on grid points
        on = rng.random(count) < 0.5
        loss[on] = np.round(loss[on] / h) * h
    mass = rng.dirichlet(np.ones(count)) * float(rng.choice([1.0, 1.0 - 1e-9, 0.5]))
    return loss, mass, h


@pytest.mark.parametrize("seed", range(40))
def test_atom_grid_lower_side_is_below_the_atoms_curve(seed: int) -> None:
    loss, mass, h = _random_atoms(seed)
    raw = _core.pld_mechanisms.atoms(loss, mass, h=h, max_cells=MAX_CELLS)
    snapped = mp.mpf(float(raw.loss_shift))
    lower = np.asarray(raw.lower)
    assert mp.fsum(mp.mpf(float(x)) for x in lower) <= mp.fsum(mp.mpf(float(m)) for m in mass)
    lo_k = int(raw.lower_k_lo)
    rng = np.random.default_rng(10_000 + seed)
    # at every atom, at the grid points next to each, and at random points across their span
    probes = np.concatenate(
        [
            loss,
            np.floor(loss / h) * h,
            np.ceil(loss / h) * h,
            loss - 0.5 * h,
            rng.uniform(loss.min() - 2.0, loss.max() + 0.1, 12),
            [0.0],
        ]
    )
    for eps in probes:
        e = mp.mpf(float(eps))
        truth = _atom_curve(loss, mass, e)
        # the optimistic side read at eps + snapped (GridPMF.loss_shift); the raw pessimistic side is
        # certified only with factor_view's deficit at +infinity, checked through the PLDs above
        assert _profile(lower, lo_k, h, e + snapped) <= truth, (seed, eps)


# two sets where tent heights and e_j without an allowance for their rounding (module docstring, the second edge)
# put the lower profile at the heavy atom 2.9e-17 and 5.2e-17 above the curve
APEX_CASES = [
    (
        [22.030346007662473, 21.37424383347847],
        [4.9629636299176294e-05, 1 - 4.9629636299176294e-05],
        1.0,
    ),
    (
        [7.928750603483975, 6.7339908834066975],
        [2.891225496984414e-06, 1 - 2.891225496984414e-06],
        1.0,
    ),
]


def _apex_atoms(seed: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Three atoms: a light one in the top cell, two heavier ones in the cell below (random, seeded)."""
    rng = np.random.default_rng(seed)
    h = float(rng.choice([1.0, 0.3, 2.0]))
    base = float(rng.choice([0.0, 5.0, 20.0]))
    fraction = rng.uniform(0.0, 1.0, 3)
    loss = base + np.array([2.0 + fraction[0], 1.0 + fraction[1], 1.0 + fraction[2]]) * h
    loss[1] = min(loss[1], loss[2])
    return loss, rng.dirichlet(np.ones(3) * [0.3, 1.0, 3.0]), h


@pytest.mark.parametrize("case", list(range(len(APEX_CASES))) + [f"seed {s}" for s in range(60)])
def test_lower_chord_meeting_the_curve_stays_below_it(case: int | str) -> None:
    if isinstance(case, int):
        losses, masses, h = APEX_CASES[case]
        loss, mass = np.array(losses), np.array(masses)
    else:
        loss, mass, h = _apex_atoms(int(case.split()[1]))
    raw = _core.pld_mechanisms.atoms(loss, mass, h=h, max_cells=MAX_CELLS)
    lower, snapped = np.asarray(raw.lower), mp.mpf(float(raw.loss_shift))
    assert raw.connect_dots  # the chord itself, not the rounded-down fallback
    for eps in loss:  # the curve is met at the atoms
        e = mp.mpf(float(eps))
        assert _profile(lower, int(raw.lower_k_lo), h, e + snapped) <= _atom_curve(loss, mass, e), (
            case,
            eps,
        )


# Sets where the bottom-tangent pass must keep the raise the cell below needs when it returns a lower end to the
# chord (an atom exactly at its cell's top gives that cell a kink), and where the top point's
# e_top = c_top - (the top atom's part) must be rounded down (rounded to nearest, a top atom of 1e-12 comes out
# 5e-5 of itself too heavy).
KINK_AND_TOP_ATOM_CASES = {
    "tangent pass": (
        [-2.9908771484522494, -2.9909964529437616],
        [3.5880383263985497e-09, 9.036450963249139e-17],
        0.00010355147140020945,
    ),
    "top atom": (
        [0.9467334995480572, 1.0],
        [1 - 1.0198288756365836e-12, 1.0198288756365836e-12],
        0.5,
    ),
    "nine atoms": (
        [
            -2.9908771484522494,
            -2.9907255956021763,
            -2.991489126737257,
            -2.990755013278724,
            -2.9902558396238494,
            -2.9897380822668427,
            -2.9909964529437616,
            -2.98986776505773,
            -2.9915405720869614,
        ],
        [
            3.5880383263985497e-09,
            1.2368244018713203e-136,
            2.4124924994141895e-223,
            1.5231672043531258e-145,
            1.266634171955444e-211,
            5.527519241120529e-98,
            9.036450963249139e-17,
            1.4722150433503979e-91,
            1.0681990996861044e-46,
        ],
        0.00010355147140020945,
    ),
}


@pytest.mark.parametrize("name", sorted(KINK_AND_TOP_ATOM_CASES))
def test_lower_side_of_kink_and_top_atom_sets_stays_below(name: str) -> None:
    losses, masses, h = KINK_AND_TOP_ATOM_CASES[name]
    loss, mass = np.array(losses), np.array(masses)
    raw = _core.pld_mechanisms.atoms(loss, mass, h=h, max_cells=MAX_CELLS)
    lower, snapped = np.asarray(raw.lower), mp.mpf(float(raw.loss_shift))
    for eps in np.concatenate([np.linspace(loss.min() - h, loss.max(), 80), loss]):
        e = mp.mpf(float(eps))
        assert _profile(lower, int(raw.lower_k_lo), h, e + snapped) <= _atom_curve(loss, mass, e), (
            name,
            eps,
        )


@pytest.mark.parametrize("h", [24.0, 30.0, 35.0, 37.0])
def test_lower_side_at_coarse_grids_stays_below(h: float) -> None:
    """At h >= 24 the lower side stays below the atoms' curve: the pinned point's anchoring holds where a
    double-double rho with e^{-h} as 1 + expm1(-h) would lose up to 21 %."""
    loss, mass = np.array([0.5 * h, 2.01 * h]), np.array([0.5, 0.1])
    raw = _core.pld_mechanisms.atoms(loss, mass, h=h, max_cells=MAX_CELLS)
    lower, snapped = np.asarray(raw.lower), mp.mpf(float(raw.loss_shift))
    for eps in [0.5 * h, 0.25 * h, 1.5 * h, 2.0 * h]:
        e = mp.mpf(eps)
        assert _profile(lower, int(raw.lower_k_lo), h, e + snapped) <= _atom_curve(loss, mass, e), (
            h,
            eps,
        )
