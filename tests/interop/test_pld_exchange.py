"""Google's PLD fields (interop.exchange.pld_exchange): the exported pessimistic PMF's curve at or above hockeystick's certified
upper bound and the optimistic one's at or below its lower bound, at every eps (read by dp_accounting's own
get_delta_for_epsilon); both around the closed-form truth of the Gaussian, also after dp_accounting composes an
exported PLD with its own; JSON read back bit for bit; dp_accounting's PLDs read; refusals naming the field."""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path

import mpmath
import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick.interop.exchange import (
    ExchangedPLD,
    ExchangedPMF,
    export_pld,
    from_dp_accounting,
    import_pld,
    pld_exchange,
    to_dp_accounting,
)
from hockeystick.interop.exchange.pld_folding import lower_minorant, pessimistic_fields
from hockeystick.pld.grid.pmf import GridPMF
from hockeystick.pld.mechanisms.constructors import subsampled_gaussians

dp_pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")

EPS = np.concatenate([np.linspace(-2.0, 9.0, 45), [12.0, 30.0, 200.0]])


def _gaussian_truth(mu: float, eps: float) -> float:
    """delta(eps) of the Gaussian pair N(mu, 1) vs N(0, 1) (Balle & Wang 2018, Thm 8), in mpmath at 50 digits."""
    mpmath.mp.dps = 50
    e, m = mpmath.mpf(eps), mpmath.mpf(mu)
    return float(mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2))


def _their_curve(dp: object, eps: np.ndarray) -> np.ndarray:
    """dp_accounting's delta at each eps, one scalar call each (its vectorized path subtracts two sums)."""
    return np.array([dp.get_delta_for_epsilon(float(e)) for e in eps])  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def sampled() -> pld.PrivacyLossDistribution:
    """Two directions, FFT round-off charges and a loss shift: every charge the export folds."""
    return pld.subsampled_gaussian(
        sigma=1.0, sampling_rate=0.1, value_discretization_interval=1e-3
    ).self_compose(50)


def test_the_composition_has_the_charges_the_export_folds(sampled):
    upper = sampled.composed(True)
    assert len(upper) == 2
    assert all(g.total_error > 0 and g.loss_shift > 0 for g in upper)


def test_the_pessimistic_pmf_is_at_or_above_the_certified_upper_bound_and_the_optimistic_below_the_lower(
    sampled,
):
    exchanged = export_pld(sampled, form="composed")
    upper = _their_curve(to_dp_accounting(exchanged), EPS)
    lower = _their_curve(to_dp_accounting(exchanged, "optimistic"), EPS)
    ours_lower, ours_upper = sampled.delta(EPS, bound="both")
    assert np.all(upper >= ours_upper)
    assert np.all(lower <= ours_lower)
    # and close to the composed PMFs' own charged curves, the ones the fold carries: the folding costs a little
    composed_upper = np.max([pmf.delta(EPS) for pmf in sampled.composed(True)], axis=0)
    composed_lower = np.max([pmf.delta(EPS) for pmf in sampled.composed(False)], axis=0)
    at = (EPS > 0) & (composed_upper > 1e-9)
    assert np.all(upper[at] <= composed_upper[at] * (1 + 1e-3))
    assert np.all(lower[at] >= composed_lower[at] * (1 - 0.1))
    # far above the grid the round-off charge is gone from both curves: no floor left at +infinity
    beyond = EPS >= 30.0
    assert np.all(upper[beyond] <= composed_upper[beyond] * (1 + 1e-9))


def test_the_exported_sides_bracket_the_closed_form_gaussian():
    d = pld.gaussian(1.0, value_discretization_interval=1e-3).self_compose(10)
    exchanged = export_pld(d, form="composed")
    grid = np.linspace(0.0, 8.0, 9)
    truth = np.array([_gaussian_truth(math.sqrt(10.0), e) for e in grid])
    assert np.all(_their_curve(to_dp_accounting(exchanged), grid) >= truth)
    assert np.all(_their_curve(to_dp_accounting(exchanged, "optimistic"), grid) <= truth)


def test_dp_accounting_composes_an_exported_gaussian_with_its_own():
    h = 1e-3
    ours = to_dp_accounting(
        export_pld(pld.gaussian(1.0, value_discretization_interval=h), form="composed")
    )
    theirs = dp_pld.from_gaussian_mechanism(1.0, value_discretization_interval=h)
    composed = ours.compose(theirs)
    two_fold = theirs.self_compose(2)
    grid = np.linspace(0.0, 6.0, 13)
    truth = np.array([_gaussian_truth(math.sqrt(2.0), e) for e in grid])
    mixed, own = _their_curve(composed, grid), _their_curve(two_fold, grid)
    assert np.all(mixed >= truth)
    np.testing.assert_allclose(mixed, own, rtol=2e-3, atol=1e-12)
    low = to_dp_accounting(
        export_pld(pld.gaussian(1.0, value_discretization_interval=h), form="composed"),
        "optimistic",
    )
    theirs_low = dp_pld.from_gaussian_mechanism(
        1.0, value_discretization_interval=h, pessimistic_estimate=False, use_connect_dots=False
    )
    assert np.all(_their_curve(low.compose(theirs_low), grid) <= truth)


def test_json_round_trip_is_bit_for_bit(sampled):
    exchanged = export_pld(sampled, form="composed")
    text = exchanged.to_json()
    back = ExchangedPLD.from_json(text)
    assert back.to_json() == text
    for a, b in zip(exchanged.pmfs(), back.pmfs()):
        assert np.array_equal(a.values, b.values)
        assert (a.min_key, a.infinity_mass, a.discretization_interval, a.pessimistic_estimate) == (
            b.min_key,
            b.infinity_mass,
            b.discretization_interval,
            b.pessimistic_estimate,
        )
    body = json.loads(text)
    assert body["version"] == 1 and set(body["pessimistic_pmf"]) == {
        "discretization_interval",
        "min_key",
        "values",
        "infinity_mass",
        "pessimistic_estimate",
    }


def test_the_imported_pld_holds_the_fields_and_brackets_the_original(sampled):
    exchanged = ExchangedPLD.from_json(export_pld(sampled, form="composed").to_json())
    back = import_pld(exchanged)
    for direction, upper in zip(
        back.directions, (exchanged.pessimistic_pmf, exchanged.pessimistic_pmf_add)
    ):
        factor = next(iter(direction))
        assert upper is not None and np.array_equal(factor.upper.p, upper.values)
    lower, upper = back.delta(EPS, bound="both")
    ours_lower, ours_upper = sampled.delta(EPS, bound="both")
    assert np.all(upper >= ours_upper) and np.all(lower <= ours_lower)
    h = sampled.value_discretization_interval
    ours_eps = sampled.epsilon(1e-6, bound="both")
    back_eps = back.epsilon(1e-6, bound="both")
    assert ours_eps[1] <= back_eps[1] <= ours_eps[1] + h
    assert ours_eps[0] - 3 * h <= back_eps[0] <= ours_eps[0]


def test_hockeystick_reads_dp_accountings_pld_and_matches_its_delta():
    h = 1e-3
    theirs = dp_pld.from_gaussian_mechanism(
        1.0, sampling_prob=0.2, value_discretization_interval=h
    ).self_compose(5)
    low = dp_pld.from_gaussian_mechanism(
        1.0,
        sampling_prob=0.2,
        value_discretization_interval=h,
        pessimistic_estimate=False,
        use_connect_dots=False,
    ).self_compose(5)
    back = import_pld(from_dp_accounting(theirs, low))
    assert len(back.directions) == 2
    grid = np.linspace(0.0, 5.0, 21)
    ours_lower, ours_upper = back.delta(grid, bound="both")
    reference = _their_curve(theirs, grid)
    assert np.all(ours_upper >= reference)
    np.testing.assert_allclose(ours_upper, reference, rtol=1e-8, atol=1e-15)
    assert np.all(ours_lower <= _their_curve(low, grid))
    np.testing.assert_allclose(ours_lower, _their_curve(low, grid), rtol=1e-6, atol=1e-13)
    assert back.epsilon(1e-5) == pytest.approx(theirs.get_epsilon_for_delta(1e-5), rel=1e-6)
    # an imported PLD composes with hockeystick's own on the same grid
    both = back.compose(
        pld.subsampled_gaussian(sigma=1.0, sampling_rate=0.2, value_discretization_interval=h)
    )
    assert both.delta(1.0) > back.delta(1.0)


def test_a_pld_without_its_optimistic_side_exports_the_pessimistic_side_alone():
    d = subsampled_gaussians([1.0], [0.1], value_discretization_interval=1e-2, optimistic=False)[0]
    exchanged = export_pld(d, form="composed")
    assert exchanged.optimistic_pmf is None and exchanged.pessimistic_pmf_add is not None
    back = import_pld(ExchangedPLD.from_json(exchanged.to_json()))
    assert back.delta(1.0) >= d.delta(1.0)
    with pytest.raises(ValueError, match="optimistic side"):
        back.delta(1.0, bound="lower")
    with pytest.raises(ValueError, match="optimistic PMFs"):
        to_dp_accounting(exchanged, "optimistic")


def test_a_symmetric_pld_stays_symmetric_both_ways():
    d = pld.laplace(1.0, value_discretization_interval=1e-2)
    exchanged = export_pld(d, form="composed")
    assert exchanged.pessimistic_pmf_add is None and exchanged.optimistic_pmf_add is None
    theirs = dp_pld.from_laplace_mechanism(1.0, value_discretization_interval=1e-2)
    assert from_dp_accounting(theirs).pessimistic_pmf_add is None
    assert len(import_pld(from_dp_accounting(theirs)).directions) == 1


@pytest.mark.parametrize("loss_shift_cells", [0.0, 0.37, 2.6])
def test_pessimistic_folding_covers_every_charge_between_grid_points(loss_shift_cells):
    rng = np.random.default_rng(7)
    h = 0.05
    p = rng.random(60) ** 3
    p = p / p.sum() * (1 - 1e-3)
    g = GridPMF(
        k_lo=-20,
        h=h,
        p=p,
        p_inf=1e-3,
        shift=1e-9,
        pessimistic=True,
        entry_error=1e-12,
        total_error=3e-11,
        loss_shift=loss_shift_cells * h,
    )
    exported = pessimistic_fields(g)
    grid = np.linspace(-3.0, 6.0, 2001)  # between the grid points too
    assert all(exported.delta(e) >= v for e, v in zip(grid, g.delta(grid)))


def test_the_lower_minorant_is_below_the_curve_less_the_charge_and_equal_to_it_low_down():
    rng = np.random.default_rng(3)
    h = 0.1
    values = rng.random(40) / 40
    charge = 0.02
    out = lower_minorant(values, -10, h, 0.0, charge)
    source = ExchangedPMF(
        h, -10, values, 0.0, False
    )  # mass 0.48: read as a curve, not a pessimistic side
    grid = np.linspace(-2.0, 4.0, 3001)
    theirs = np.array([out.delta(e) for e in grid])
    target = np.maximum(np.array([source.delta(e) for e in grid]) - charge, 0.0)
    assert np.all(theirs <= target + 1e-15)
    low = grid < (out.min_key + out.values.size - 2) * h
    np.testing.assert_allclose(theirs[low], target[low], rtol=0, atol=1e-12)


def test_a_pessimistic_pmf_above_mass_one_is_accepted_and_an_optimistic_one_refused():
    ExchangedPMF(0.1, 0, np.array([0.6, 0.6]), 0.0, True)
    with pytest.raises(ValueError, match="optimistic PMF must sum to at most 1"):
        ExchangedPMF(0.1, 0, np.array([0.6, 0.6]), 0.0, False)


def _document(**changes: object) -> str:
    body = json.loads(
        export_pld(pld.laplace(1.0, value_discretization_interval=0.1), form="composed").to_json()
    )
    for key, value in changes.items():
        if key == "swap_sides":
            body["pessimistic_pmf"], body["optimistic_pmf"] = (
                body["optimistic_pmf"],
                body["pessimistic_pmf"],
            )
        elif key.startswith("pmf_"):
            body["pessimistic_pmf"][key[4:]] = value
        else:
            body[key] = value
    return json.dumps(body)


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"version": 2}, "version must be 1"),
        ({"schema": "other"}, "schema must be"),
        ({"extra": 1}, "unknown"),
        (
            {"pmf_values": [0.5, -0.1, 0.1]},
            "pessimistic_pmf.values must be finite masses in .0, 1.",
        ),
        ({"pmf_infinity_mass": 1.5}, "pessimistic_pmf.infinity_mass must be a probability"),
        ({"pmf_discretization_interval": 0.0}, "pessimistic_pmf.discretization_interval must be"),
        ({"pmf_min_key": 0.5}, "pessimistic_pmf.min_key must be an integer"),
        ({"swap_sides": True}, "pessimistic_pmf holds a PMF with pessimistic_estimate=False"),
        ({"pmf_discretization_interval": 0.2}, "one discretization_interval"),
    ],
)
def test_malformed_files_are_refused_naming_the_field(changes, named):
    with pytest.raises(ValueError, match=named):
        ExchangedPLD.from_json(_document(**changes))


def test_nan_is_refused():
    with pytest.raises(ValueError, match="finite"):
        ExchangedPLD.from_json(
            _document().replace('"infinity_mass": 0.0', '"infinity_mass": NaN', 1)
        )


def test_composing_on_different_grids_is_refused_naming_the_interval():
    imported = import_pld(export_pld(pld.laplace(1.0, value_discretization_interval=1e-2)))
    with pytest.raises(ValueError, match="value_discretization_interval"):
        imported.compose(pld.laplace(1.0, value_discretization_interval=1e-3))
    ours = to_dp_accounting(
        export_pld(pld.laplace(1.0, value_discretization_interval=1e-2), form="composed")
    )
    with pytest.raises(ValueError, match="Discretization intervals are different"):
        ours.compose(dp_pld.from_laplace_mechanism(1.0, value_discretization_interval=1e-3))


def test_reading_something_else_than_a_dp_accounting_pld_is_refused():
    with pytest.raises(ValueError, match="pessimistic must be a dp_accounting"):
        from_dp_accounting(export_pld(pld.laplace(1.0)))
    low = dp_pld.from_laplace_mechanism(1.0, pessimistic_estimate=False, use_connect_dots=False)
    with pytest.raises(ValueError, match="built with pessimistic_estimate=True"):
        from_dp_accounting(low)
    with pytest.raises(ValueError, match="side must be"):
        to_dp_accounting(ExchangedPLD(ExchangedPMF(0.1, 0, np.array([1.0]), 0.0, True)), "upper")  # type: ignore[arg-type]


def test_the_private_attributes_read_from_dp_accounting_are_the_declared_ones():
    """dp_accounting has no public accessor of a PLD's PMFs: the module reads exactly DP_ACCOUNTING_FIELDS."""
    tree = ast.parse(Path(pld_exchange.__file__).read_text())
    read = {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
    }
    assert read == set(pld_exchange.DP_ACCOUNTING_FIELDS)
