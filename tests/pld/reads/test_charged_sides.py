"""Many PMFs' charged sides in one core call (``_core.pld_reads.charged_sides``,
cpp/include/hockeystick/pld/reads/charged_sides.hpp, read through the tests' reference
``screened_delta_reference.charged_sides``): the same doubles as each PMF's own
``GridPMF.delta`` (its envelope off on an optimistic side), each side on its side of the exact
Gaussian curve, and bad arguments refused by name; and the refinement's fixed parts in one call
(``_core.pld_reads.fixed_parts``, pld/refine/fixed_part.hpp), the same doubles as the numpy formula's (``fixed_part`` here)."""

import math

import numpy as np
import pytest
from scipy.stats import norm

from hockeystick import _core
from hockeystick.pld.grid.pmf import GridPMF
from hockeystick.pld.mechanisms.constructors import subsampled_gaussians

from ..refine.screened_delta_reference import charged_sides


def fixed_part(pmf: GridPMF, eps: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The reference, in numpy: the part of ``pmf``'s certified delta at ``eps`` (``values``) that no grid removes: its
    round-off charge there (``GridPMF.charge_at``, twice on the optimistic side, as
    ``GridPMF.delta`` applies it), the suffix sums' relative slack on the value, and the mass at
    +infinity (pessimistic) or the truncated tail (optimistic ``shift``), and the cells' edge
    factor: each round's masses are scaled by about e^{+-e} (pld/grid/connect_dots.hpp's
    ``edge_factor``, e = pld/grid/cells.hpp's ``edge_error``, reported in the loss shift), so the
    composed curve carries a relative excess of about ``loss_shift`` (the optimistic side's), or
    what the pessimistic finite mass exceeds 1 by (it adds the cells' round-off), which near delta =
    1 is most of the gap.  These stay as the grid shrinks (the charge even grows with the window);
    the direct DFT bins (``compose_all``'s ``direct_bins``) cut the round-off charge ~100x.  Two
    rows: the part without the edge factor, and the edge factor (which ``NextGrid.charge_width``
    counts near delta = 1 only: elsewhere it is small beside the gap and counting it would trigger
    needless same-grid recompositions).  A model for sizing the next grid, not a bound."""
    at = pmf.curve_argument(np.asarray(eps, dtype=np.float64))
    if pmf.pessimistic:
        excess = max(pmf.finite_mass + pmf.p_inf - 1.0, pmf.loss_shift) * values
        return np.stack([pmf.charge_at(at) + pmf.suffix_sum_slack() * values + pmf.p_inf, excess])
    excess = pmf.loss_shift * values
    return np.stack(
        [2.0 * pmf.charge_at(at) + pmf.suffix_sum_slack() * values + abs(pmf.shift), excess]
    )


def composed_pmfs() -> list[GridPMF]:
    """Both sides of composed subsampled Gaussians (charged, with loss shifts), and a Gaussian."""
    plds = subsampled_gaussians(
        np.array([0.8, 1.3, 2.0]), np.array([1e-3, 0.02, 1.0]), value_discretization_interval=2e-3
    )
    pmfs: list[GridPMF] = []
    for pld, rounds in zip(plds, (1000, 40, 5)):
        composed = pld.self_compose(rounds)
        for pessimistic in (True, False):
            pmfs.extend(composed.composed(pessimistic))
    return pmfs


ARGUMENTS = [
    np.array([0.5, 1.0, 2.5, 4.0]),
    np.array([-3.0, 0.0, 1e-3]),  # below loss 0: the profile from the grid's bottom
    np.array([-np.inf, np.inf, 7.0]),  # not finite: the whole profile and the mass at +inf
    np.array([1e3]),  # above the grid
    np.array([], dtype=np.float64),
]


def test_same_doubles_as_each_pmfs_delta():
    """Every PMF at every argument set: bit for bit ``GridPMF.delta`` (envelope off where optimistic),
    on one, two and three threads and the automatic count, whatever the PMFs' order."""
    pmfs = composed_pmfs()
    assert any(pmf.loss_shift > 0.0 for pmf in pmfs) and any(pmf.total_error > 0.0 for pmf in pmfs)
    cases = [(pmf, x) for pmf in pmfs for x in ARGUMENTS]
    want = [pmf.delta(x, envelope=False) for pmf, x in cases]
    for threads in (1, 2, 3, 0):
        got = charged_sides([p for p, _ in cases], [x for _, x in cases], threads)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    reverse = charged_sides([p for p, _ in cases[::-1]], [x for _, x in cases[::-1]], 1)
    for g, w in zip(reverse, want[::-1]):
        np.testing.assert_array_equal(g, w)


def gaussian_delta(eps: np.ndarray, mu: float) -> np.ndarray:
    """The Gaussian mechanism's exact delta(eps) at mu = sensitivity / sigma (Balle and Wang, ICML
    2018, Theorem 8): Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)."""
    return norm.cdf(mu / 2 - eps / mu) - np.exp(eps) * norm.cdf(-mu / 2 - eps / mu)


def test_sides_bracket_the_exact_gaussian_curve():
    """A composed Gaussian (q = 1: 5 rounds at sigma 2 is mu = sqrt(5) / 2): the pessimistic side at
    or above the closed form, the optimistic one at or below, each within 1e-3 of it."""
    (pld,) = subsampled_gaussians(2.0, 1.0, value_discretization_interval=1e-3)
    composed = pld.self_compose(5)
    eps = np.linspace(0.0, 4.0, 41)
    exact = gaussian_delta(eps, math.sqrt(5) / 2)
    (upper,) = charged_sides([composed.composed(True)[0]], [eps])
    (lower,) = charged_sides([composed.composed(False)[0]], [eps])
    assert np.all(upper >= exact) and np.all(lower <= exact)
    assert np.max(upper - exact) < 1e-3 and np.max(exact - lower) < 1e-3


def test_bad_arguments_refused_by_name():
    """A NaN epsilon and a count of argument arrays other than the PMFs' are ValueErrors that say so."""
    pmf = GridPMF(k_lo=-2, h=0.5, p=np.array([0.2, 0.3, 0.5]), p_inf=0.0)
    with pytest.raises(ValueError, match="epsilon must not be NaN"):
        charged_sides([pmf], [np.array([0.1, np.nan])])
    with pytest.raises(ValueError, match="one array per PMF"):
        _core.pld_reads.charged_sides([pmf, pmf], [np.array([0.1])])


def test_fixed_parts_same_doubles_as_fixed_part():
    """``_core.pld_reads.fixed_parts``: each PMF's ``fixed_part`` at its arguments and its own values,
    bit for bit, on both sides (loss shifts, charges, a mass at +infinity); and a value count other
    than the arguments' refused by name."""
    pmfs = composed_pmfs()
    cases = [(pmf, x) for pmf in pmfs for x in ARGUMENTS[:2] + ARGUMENTS[3:]]
    values = [pmf.delta(x, envelope=False) for pmf, x in cases]
    got = _core.pld_reads.fixed_parts([p for p, _ in cases], [x for _, x in cases], values)
    for g, (pmf, x), v in zip(got, cases, values):
        np.testing.assert_array_equal(g, fixed_part(pmf, x, v))
    assert any(np.any(g[1] > 0.0) for g in got)  # the edge factor's row is read, not zeros alone
    with pytest.raises(ValueError, match="one value per epsilon"):
        _core.pld_reads.fixed_parts([pmfs[0]], [np.array([0.5, 1.0])], [np.array([0.1])])
