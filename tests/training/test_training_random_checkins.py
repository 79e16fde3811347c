"""Random check-ins with central noise (``RandomCheckIns``): Poisson(p) sampling of a 1-of-m random allocation,
against dp_accounting's subsampled Gaussian at one slot, the balls-in-bins accountant at p = 1, and Balle et
al.'s one-client-per-slot protocol refused by name; a coarser fixed grid composes no more than a finer one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from hockeystick.pld import BallsInBinsGaussianPLD
from hockeystick.pld.compose import fft
from hockeystick.pld.grid.pmf import GridPMF
from hockeystick.training.random_checkins import RandomCheckIns

# cpp/include/hockeystick/pld/compose/options.hpp's kWholeSupportWidth: a composed support of at most this many
# grid points is kept whole (its transform costs less than the Chernoff cut that would shorten it)
WHOLE_SUPPORT_POINTS = 4096


def test_one_slot_is_the_poisson_subsampled_gaussian_of_dp_accounting() -> None:
    import dp_accounting as dpa
    from dp_accounting.pld import pld_privacy_accountant

    accountant = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-3)
    accountant.compose(dpa.PoissonSampledDpEvent(0.5, dpa.GaussianDpEvent(1.0)), 5)
    theirs = accountant.get_epsilon(1e-5)  # pessimistic, on a coarser grid
    lower, upper = RandomCheckIns(
        noise_multiplier=1.0, checkin_probability=0.5, slots=1, passes=5
    ).epsilon(1e-5, bound="both")
    assert lower <= theirs and abs(theirs - upper) < 1e-3


def test_certain_check_ins_are_balls_in_bins_and_a_smaller_p_spends_less() -> None:
    run = RandomCheckIns(noise_multiplier=1.0, checkin_probability=[0.5, 1.0], slots=10, passes=2)
    lower, upper = run.epsilon(1e-5, bound="both")
    allocation = BallsInBinsGaussianPLD(sigma=1.0, steps_per_epoch=10, rounds=20)
    a_lower, a_upper = allocation.epsilon(1e-5, bound="both")
    assert lower[1] <= a_upper and a_lower <= upper[1]
    assert upper[0] < lower[1]


def test_one_client_per_slot_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match='protocol="one_per_slot".*displace another client'):
        RandomCheckIns(
            noise_multiplier=1.0, checkin_probability=0.5, slots=10, protocol="one_per_slot"
        )
    with pytest.raises(ValueError, match="slots"):
        RandomCheckIns(noise_multiplier=1.0, checkin_probability=0.5, slots=2.5)


def _compositions(
    monkeypatch: pytest.MonkeyPatch, call: Callable[[], Any]
) -> tuple[int, list[int]]:
    """The compositions ``call`` asks the PLD layer for (every item of ``compose_many``, ``upper_sides`` and
    ``lower_sides``) and the grid points of each composed window they return (a side read through its spectrum
    returns none)."""
    items = 0
    windows: list[int] = []

    def counted(real: Callable[..., Any]) -> Callable[..., Any]:
        def composing(factors: list[Any], *args: Any, **kwargs: Any) -> Any:
            nonlocal items
            out = real(factors, *args, **kwargs)
            items += len(factors)
            for side in out:
                pmf = side[1] if isinstance(side, tuple) else side
                if isinstance(pmf, GridPMF):
                    windows.append(pmf.p.size)
            return out

        return composing

    with monkeypatch.context() as patch:
        for name in ("compose_many", "upper_sides", "lower_sides"):
            # the composition every PrivacyLossDistribution reads (installed by the compose stage)
            patch.setattr(fft, name, counted(getattr(fft, name)))
        call()
    return items, windows


@pytest.mark.parametrize(
    ("slots", "checkin_probability"),
    [(1, 0.5), (4, 0.5), (4, 1.0)],
    ids=["one slot", "Poisson-sampled allocation", "every client checks in"],
)
def test_a_coarser_fixed_grid_composes_no_more_than_a_finer_one(
    monkeypatch, visited_grids, slots, checkin_probability
):
    """On a fixed grid nothing is refined (no grid visited), a coarser grid asks for no more compositions, and its
    windows hold no more points than the finer grid's, but where a window is its whole support of at most
    WHOLE_SUPPORT_POINTS (uncut, where the finer grid's Chernoff cut shortens it: 5 passes of 4 slots at h = 0.02
    span [-29.2, 39.4] in 3431 points, at h = 0.01 [-9.4, 14.9] in 2430), which bounds its transform by a
    4096-point one."""
    work = {}
    for h in (1e-2, 2e-2, 4e-2):
        run = RandomCheckIns(
            noise_multiplier=1.0,
            checkin_probability=checkin_probability,
            slots=slots,
            passes=5,
            value_discretization_interval=h,
        )
        work[h] = _compositions(
            monkeypatch,
            lambda run=run: (run.epsilon(1e-5, bound="both"), run.delta(1.0, bound="both")),
        )
    assert visited_grids == []
    for fine, coarse in ((1e-2, 2e-2), (2e-2, 4e-2)):
        (fine_items, fine_windows), (coarse_items, coarse_windows) = work[fine], work[coarse]
        assert 0 < coarse_items <= fine_items
        assert sum(coarse_windows) <= max(
            sum(fine_windows), WHOLE_SUPPORT_POINTS * len(coarse_windows)
        )
        assert all(
            points <= max(max(fine_windows, default=0), WHOLE_SUPPORT_POINTS)
            for points in coarse_windows
        )
