"""``SubsampledGaussianPLD(accuracy=...)``: the grid its epsilon starts from (``_first_interval``'s
connect-the-dots model) lands the anchors' workloads in one grid, and the answer still meets the
accuracy and contains dp_accounting's estimate at a fine grid."""

from __future__ import annotations

import warnings

import pytest

import hockeystick.pld as pld
from hockeystick import _core
from hockeystick.pld.refine import round_cache

DELTA = 1e-5


@pytest.mark.parametrize(
    "sigma, q, rounds", [(1.0, 0.01, 10_000), (0.8, 1e-3, 100_000), (2.0, 0.05, 1000)]
)
def test_one_grid_meets_the_accuracy(visited_grids, monkeypatch, sigma, q, rounds):
    """W2, W3 and a wider law: the first grid already gives a bracket <= 1e-3 (before the model, W3 needed a
    second, finer grid after a first at h = 2.5e-4, 1.4e-2 wide), and it is not needlessly fine (wider
    than a third of the accuracy: the bracket grows like h^2).  The widths are the refinement's
    (the core's loop), before the answer's intersection with the default's, which an accuracy finer
    than the default's tolerance adds (W2's eps 6.19, where that tolerance is 1.5e-3)."""
    round_cache.clear()
    refined = []
    counted = _core.pld_refine.refined_subsampled_gaussian_epsilon  # visited_grids' wrapper

    def kept(**arguments):
        found = counted(**arguments)
        refined.append(found)
        return found

    monkeypatch.setattr(_core.pld_refine, "refined_subsampled_gaussian_epsilon", kept)
    acc = pld.SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds, accuracy=1e-3)
    lo, up = acc.epsilon(DELTA, bound="both")
    grids = set(visited_grids)
    assert len(grids) == 1, grids
    ((refined_lo, refined_up, _, _),) = refined
    assert 1e-3 / 3 <= refined_up - refined_lo <= 1e-3
    assert refined_lo <= lo <= up <= refined_up and up - lo <= 1e-3


def test_accuracy_bracket_contains_a_fine_grid_answer():
    """W3's bracket through accuracy=1e-3 holds the bracket midpoint of a 4x finer grid's run (the truth lies
    within both brackets, so they must overlap)."""
    lo, up = pld.SubsampledGaussianPLD(
        sigma=0.8, sampling_rate=1e-3, rounds=100_000, accuracy=1e-3
    ).epsilon(DELTA, bound="both")
    fine_lo, fine_up = pld.SubsampledGaussianPLD(
        sigma=0.8, sampling_rate=1e-3, rounds=100_000, value_discretization_interval=2.5e-5
    ).epsilon(DELTA, bound="both")
    assert lo <= fine_up and fine_lo <= up


@pytest.mark.parametrize("sigma", [5e-324, 1e-200, 1e308])
@pytest.mark.parametrize("method, argument", [("epsilon", 1e-5), ("delta", 1.0)])
def test_extreme_sigma_is_refused_with_a_value_error(sigma, method, argument):
    # the starting-grid estimates once divided by sigma^2 (0 at a subnormal sigma: ZeroDivisionError)
    # and took inf / inf at sigma = 1e308; no grid can hold these losses, so the answer is a refusal that names
    # sigma (and says what to change), not the core's max_cells
    acc = pld.SubsampledGaussianPLD(sigma=sigma, sampling_rate=0.01, rounds=10, accuracy=1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(ValueError, match="sigma / sensitivity") as refused:
            getattr(acc, method)(argument, bound="both")
        assert "max_cells" not in str(refused.value)
