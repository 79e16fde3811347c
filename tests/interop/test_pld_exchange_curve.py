"""An accountant's certified curve exported in Google's PLD fields (interop.exchange.pld_curve): dp_accounting 0.6, reading the
pessimistic PMF live, gets an eps within the default tolerance max(1e-3, 2.5e-4 eps) of the certified upper eps at
every delta down to the stated delta_floor, and never below the certified lower eps; the PMFs bracket the closed-form
Gaussian (mpmath) at every eps, negative ones included, also after dp_accounting composes them with its own PLDs;
below the floor the reading stays an upper bound and warns; sources without a curve are refused saying what exports."""

from __future__ import annotations

import math
import warnings

import mpmath
import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick.interop.exchange import ExchangedPLD, export_pld, import_pld, to_dp_accounting
from hockeystick.interop.exchange.pld_curve import (
    DEFAULT_DELTA_FLOOR,
    curve_pmfs,
    sample_keys,
    sample_spacing,
)
from hockeystick.interop.exchange.pld_format import DeltaFloorWarning
from hockeystick.ledger import PrivacyLedger, Round
from hockeystick.pld import PLDAccountant, SubsampledGaussianPLD
from hockeystick.training import DPSGD, DPFedAvg

dp_pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")

README = {"sigma": 1.1, "sampling_rate": 256 / 60000, "rounds": 14100}  # the README's DP-SGD run
DELTAS = (1e-3, 1e-5, 1e-8, 1e-10, 1e-11, 1e-12)


def _tolerance(eps: float) -> float:
    """SubsampledGaussianPLD's default tolerance on eps."""
    return max(1e-3, 2.5e-4 * eps)


def _gaussian_truth(mu: float, eps: float) -> float:
    """delta(eps) of N(mu, 1) vs N(0, 1), any real eps (Balle & Wang 2018, Thm 8), in mpmath at 50 digits."""
    mpmath.mp.dps = 50
    e, m = mpmath.mpf(eps), mpmath.mpf(mu)
    return float(mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2))


@pytest.fixture(scope="module")
def readme() -> tuple[SubsampledGaussianPLD, ExchangedPLD]:
    run = SubsampledGaussianPLD(**README)
    return run, export_pld(run)


def test_the_export_states_its_floor_and_keeps_the_mass_at_infinity_below_it(readme):
    _, exported = readme
    assert exported.delta_floor == DEFAULT_DELTA_FLOOR
    assert exported.pessimistic_pmf.infinity_mass <= DEFAULT_DELTA_FLOOR
    assert (
        exported.pessimistic_pmf_add is None
    )  # one direction: the curve bounds both orders of the neighbours
    assert ExchangedPLD.from_json(exported.to_json()).delta_floor == DEFAULT_DELTA_FLOOR


@pytest.mark.parametrize("delta", DELTAS)
def test_dp_accounting_reads_the_readme_run_within_the_tolerance_of_the_certified_bracket(
    readme, delta
):
    run, exported = readme
    lower, upper = run.epsilon(delta, bound="both")
    theirs = to_dp_accounting(exported).get_epsilon_for_delta(delta)
    assert lower <= theirs <= upper + _tolerance(upper), (delta, lower, upper, theirs)
    assert exported.epsilon(delta) == pytest.approx(
        theirs, rel=1e-9
    )  # the fields' own reading agrees
    optimistic = to_dp_accounting(exported, "optimistic").get_epsilon_for_delta(delta)
    assert optimistic <= theirs


@pytest.fixture(scope="module")
def fedavg() -> tuple[SubsampledGaussianPLD, ExchangedPLD]:
    """The issue's DP-FedAvg run: z 1, 1000 of 10^6 clients a round, 5000 rounds."""
    run = SubsampledGaussianPLD(sigma=1.0, sampling_rate=1e-3, rounds=5000)
    return run, export_pld(run)


@pytest.mark.slow
@pytest.mark.parametrize("delta", (1e-5, 1e-10, 1e-12))
def test_dp_accounting_reads_the_dp_fedavg_run_within_the_tolerance_of_the_certified_bracket(
    fedavg, delta
):
    run, exported = fedavg
    lower, upper = run.epsilon(delta, bound="both")
    theirs = to_dp_accounting(exported).get_epsilon_for_delta(delta)
    assert lower <= theirs <= upper + _tolerance(upper), (delta, lower, upper, theirs)


@pytest.mark.slow
@pytest.mark.parametrize(
    "run",
    [
        # rare participation (T q = 1): every sampled eps read on the finer grids, its bucket's
        # compositions shared (the core's rare_delta_grids.hpp)
        {"sigma": 0.5, "sampling_rate": 1e-4, "rounds": 10**4},
        # the cross-device run (T q = 10), about 80 CPU s
        {"sigma": 0.6, "sampling_rate": 1e-5, "rounds": 10**6},
    ],
    ids=("rare-1e4", "rare-1e6"),
)
def test_dp_accounting_reads_a_rare_participation_run_within_the_tolerance_of_the_certified_bracket(
    run,
):
    """Rare participation's delta reads sample the curve at thousands of eps, each on the finer
    grids; dp_accounting reads the export within the tolerance of the certified upper eps down to
    the floor, and never below the certified lower eps."""
    source = SubsampledGaussianPLD(**run)
    exported = export_pld(source)
    assert exported.delta_floor == DEFAULT_DELTA_FLOOR
    reader = to_dp_accounting(exported)
    for delta in (1e-5, 1e-10, 1e-12):
        lower, upper = source.epsilon(delta, bound="both")
        theirs = reader.get_epsilon_for_delta(delta)
        assert lower <= theirs <= upper + _tolerance(upper), (delta, lower, upper, theirs)


def test_the_pessimistic_curve_lies_above_the_certified_lower_delta_and_near_the_upper_and_the_optimistic_below(
    readme,
):
    """The run's delta reads at these eps (another batch of eps than the export's, so another read of the same
    certified curve) bracket the truth: the pessimistic PMF's curve lies above their lower side and within 1e-3 of
    their upper side down to the floor, the optimistic one below their upper side."""
    run, exported = readme
    eps = np.concatenate([np.linspace(0.0, 4.4, 37), [3.74104, 4.18019, 6.0]])
    lower, upper = run.delta(eps, bound="both")
    theirs = to_dp_accounting(exported)
    theirs_low = to_dp_accounting(exported, "optimistic")
    pessimistic = np.array([theirs.get_delta_for_epsilon(float(e)) for e in eps])
    optimistic = np.array([theirs_low.get_delta_for_epsilon(float(e)) for e in eps])
    assert np.all(pessimistic >= lower) and np.all(optimistic <= upper)
    read = upper >= DEFAULT_DELTA_FLOOR
    assert np.all(pessimistic[read] <= upper[read] * (1 + 1e-3))
    assert np.all(
        pessimistic[~read] <= DEFAULT_DELTA_FLOOR
    )  # beyond the floor: the mass at +infinity


def test_below_the_floor_the_reading_is_an_upper_bound_and_warns(readme):
    run, exported = readme
    delta = 1e-13
    with pytest.warns(DeltaFloorWarning, match="below the export's delta_floor"):
        ours = exported.epsilon(delta)
    assert ours >= run.epsilon(delta, bound="lower")
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeltaFloorWarning)
        exported.epsilon(DEFAULT_DELTA_FLOOR)  # at the floor: no warning
    below_infinity = exported.pessimistic_pmf.infinity_mass / 2
    assert to_dp_accounting(exported).get_epsilon_for_delta(below_infinity) == math.inf
    with pytest.warns(DeltaFloorWarning):
        assert exported.epsilon(below_infinity) == math.inf


def test_the_imported_curve_brackets_the_run(readme):
    run, exported = readme
    back = import_pld(ExchangedPLD.from_json(exported.to_json()))
    lower, upper = run.epsilon(1e-10, bound="both")
    back_lower, back_upper = back.epsilon(1e-10, bound="both")
    # both certified, so they overlap; the curve's lower side is read from the delta door's lower sides,
    # which may be above the epsilon door's (the aligned and tilted optimistic reads at each epsilon)
    assert back_lower <= upper and lower <= back_upper
    assert lower - _tolerance(lower) <= back_lower
    assert (
        back_upper <= upper + _tolerance(upper) + 1e-3
    )  # hockeystick's reads of the fields charge their round-off


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: DPSGD(noise_multiplier=1.0, sample_rate=0.01, steps=1000), id="DPSGD"),
        pytest.param(
            lambda: DPFedAvg(
                noise_multiplier=1.0, total_clients=10**5, clients_per_round=1000, rounds=1000
            ),
            id="DPFedAvg",
            marks=pytest.mark.slow,
        ),
        pytest.param(
            lambda: PLDAccountant().compose_subsampled_gaussian(1.0, 0.01, 1000),
            id="PLDAccountant",
            marks=pytest.mark.slow,
        ),
        pytest.param(
            lambda: SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=1000),
            id="SubsampledGaussianPLD",
            marks=pytest.mark.slow,
        ),
    ],
)
def test_each_accountant_exports_its_curve(make):
    run = make()
    exported = export_pld(run, delta_floor=1e-10)
    theirs = to_dp_accounting(exported)
    for delta in (1e-5, 1e-10):
        lower, upper = run.epsilon(delta, bound="both")
        assert lower <= theirs.get_epsilon_for_delta(delta) <= upper + _tolerance(upper)


@pytest.mark.slow
def test_a_fixed_schedule_ledger_exports_its_rounds():
    ledger = PrivacyLedger(adaptive=False)
    ledger.record(Round.subsampled_gaussian(1.0, 0.01), rounds=600)
    ledger.record(Round.subsampled_gaussian(1.0, 0.01), rounds=400)
    exported = export_pld(ledger, delta_floor=1e-10)
    run = SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=1000)
    for delta in (1e-5, 1e-10):
        lower, upper = run.epsilon(delta, bound="both")
        assert (
            lower
            <= to_dp_accounting(exported).get_epsilon_for_delta(delta)
            <= upper + _tolerance(upper)
        )
        guaranteed = ledger.composition(delta)
        assert to_dp_accounting(exported).get_epsilon_for_delta(delta) >= guaranteed.epsilon_lower


def test_a_ledger_of_other_rounds_exports_its_own_composition():
    ledger = PrivacyLedger(adaptive=False, value_discretization_interval=1e-3)
    ledger.record(Round.laplace(2.0), rounds=3)
    ledger.record(Round.gaussian(2.0), rounds=2)
    exported = export_pld(ledger, delta_floor=1e-6)
    assert exported.pessimistic_pmf.discretization_interval == 1e-4
    for delta in (1e-3, 1e-6):
        guaranteed = ledger.composition(delta)
        theirs = to_dp_accounting(exported).get_epsilon_for_delta(delta)
        assert (
            guaranteed.epsilon_lower
            <= theirs
            <= guaranteed.epsilon + _tolerance(guaranteed.epsilon)
        )


def test_the_curve_brackets_the_closed_form_gaussian_at_every_eps_negative_ones_included():
    mu = math.sqrt(10.0)
    run = SubsampledGaussianPLD(sigma=1.0, sampling_rate=1.0, rounds=10)
    exported = export_pld(run, delta_floor=1e-6)
    pessimistic, optimistic = exported.pessimistic_pmf, exported.optimistic_pmf
    assert optimistic is not None
    grid = np.concatenate(
        [np.linspace(-6.0, 12.0, 61), [0.00025, 1.00013, 7.77777]]
    )  # between the samples too
    for e in grid:
        truth = _gaussian_truth(mu, float(e))
        assert pessimistic.delta(float(e)) >= truth, e
        assert optimistic.delta(float(e)) <= truth, e


def test_dp_accounting_composes_the_exported_curve_with_its_own_and_stays_above_the_truth():
    h = 1e-3
    run = SubsampledGaussianPLD(sigma=1.0, sampling_rate=1.0, rounds=1)
    ours = to_dp_accounting(export_pld(run, delta_floor=1e-8, value_discretization_interval=h))
    theirs = dp_pld.from_gaussian_mechanism(1.0, value_discretization_interval=h)
    composed = ours.compose(theirs)
    low = to_dp_accounting(
        export_pld(run, delta_floor=1e-8, value_discretization_interval=h), "optimistic"
    )
    theirs_low = dp_pld.from_gaussian_mechanism(
        1.0, value_discretization_interval=h, pessimistic_estimate=False, use_connect_dots=False
    )
    composed_low = low.compose(theirs_low)
    for e in np.linspace(0.0, 6.0, 13):
        truth = _gaussian_truth(math.sqrt(2.0), float(e))
        assert composed.get_delta_for_epsilon(float(e)) >= truth
        assert composed_low.get_delta_for_epsilon(float(e)) <= truth
    own = theirs.self_compose(2).get_epsilon_for_delta(1e-6)
    assert composed.get_epsilon_for_delta(1e-6) == pytest.approx(own, abs=2e-3)


def test_a_pld_exports_its_curve_on_its_grid_and_its_composed_pmfs_when_asked():
    d = pld.subsampled_gaussian(
        sigma=1.0, sampling_rate=0.01, value_discretization_interval=1e-4
    ).self_compose(1000)
    exported = export_pld(d)
    assert exported.delta_floor is not None and exported.discretization_interval == 1e-4
    for delta in (1e-5, max(exported.delta_floor, 1e-10)):
        lower, upper = d.epsilon(delta, bound="both")
        assert (
            lower
            <= to_dp_accounting(exported).get_epsilon_for_delta(delta)
            <= upper + _tolerance(upper)
        )
    composed = export_pld(d, form="composed")
    assert (
        composed.delta_floor is None and composed.pessimistic_pmf_add is not None
    )  # both directions, as composed


def test_the_default_floor_is_the_first_the_source_certifies():
    exported = export_pld(
        _Flat()
    )  # certifies nothing below 1e-9: 1e-12, 1e-11, 1e-10 and 1e-9 are refused
    assert exported.delta_floor == 1e-8
    with pytest.raises(ValueError, match="delta_floor must be a delta the source certifies"):
        export_pld(_Flat(), delta_floor=1e-9)


@pytest.mark.parametrize(
    ("source", "keywords", "named"),
    [
        (
            SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=10),
            {"form": "other"},
            "form must be",
        ),
        (
            SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=10),
            {"form": "composed"},
            "exports its curve",
        ),
        (pld.laplace(1.0), {"form": "composed", "delta_floor": 1e-6}, "are the curve's"),
    ],
    ids=["unknown", "accountant-composed", "composed-with-floor"],
)
def test_a_form_that_does_not_fit_the_source_is_refused(source, keywords, named):
    with pytest.raises(ValueError, match=named):
        export_pld(source, **keywords)


class _Flat:
    """A curve that stays at 1e-9 at every eps: a source certifying nothing below it."""

    bound_sides = ("upper",)

    def delta(self, epsilon, *, bound="upper"):  # noqa: ANN001, ANN201
        return np.full(np.shape(epsilon), 1e-9)

    def epsilon(self, delta, *, bound="upper"):  # noqa: ANN001, ANN201
        return math.inf if delta < 1e-9 else 0.0


def test_a_floor_below_what_the_source_certifies_is_refused_naming_delta_floor():
    with pytest.raises(ValueError, match="delta_floor must be a delta the source certifies"):
        export_pld(_Flat(), delta_floor=1e-12)
    assert export_pld(_Flat(), delta_floor=1e-8).pessimistic_pmf.infinity_mass <= 1e-8


@pytest.mark.parametrize("floor", [0.0, 1.0, -1e-5, math.nan, True, "1e-10"])
def test_a_floor_outside_zero_one_is_refused(floor):
    with pytest.raises(ValueError, match="delta_floor must be a number in"):
        export_pld(
            SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=10), delta_floor=floor
        )


class _NoCurve:
    def get_epsilon(self, delta):  # noqa: ANN001, ANN201
        return 1.0

    def delta(self, epsilon):  # noqa: ANN001, ANN201
        return 0.5


@pytest.mark.parametrize(
    ("source", "named"),
    [
        (object(), "an accountant of one run .* or a hockeystick PrivacyLossDistribution"),
        (_NoCurve(), "an epsilon at a split of delta"),
        (PrivacyLedger(adaptive=True), "fixed-schedule PrivacyLedger"),
        (PrivacyLedger(adaptive=False), "no round recorded"),
        (SubsampledGaussianPLD(sigma=[1.0, 2.0], sampling_rate=0.01, rounds=10), "one run"),
    ],
    ids=["object", "epsilon-at-split", "adaptive-ledger", "empty-ledger", "array-parameters"],
)
def test_sources_without_one_curve_are_refused_saying_what_exports(source, named):
    with pytest.raises(ValueError, match=named):
        export_pld(source)


def test_the_samples_are_half_the_tolerance_apart_in_whole_cells():
    keys = sample_keys(30.0, 1e-4)
    assert keys[0] == 0 and keys[-1] * 1e-4 >= 30.0 and keys[-2] * 1e-4 < 30.0
    gaps = np.diff(keys) * 1e-4
    assert np.all(gaps <= np.array([sample_spacing(k * 1e-4) for k in keys[:-1]]) + 1e-12)
    assert np.all(np.diff(sample_keys(1.0, 1e-2)) == 1)  # a coarse grid: one cell


def test_a_source_certifying_the_upper_side_alone_exports_no_optimistic_side():
    class Upper:
        bound_sides = ("upper",)

        def delta(self, epsilon, *, bound="upper"):  # noqa: ANN001, ANN201
            # Phi(a) - e^eps Phi(b) = Phi(a) (1 - e^{eps + log Phi(b) - log Phi(a)}), without cancellation
            e = np.atleast_1d(epsilon)
            a, b = log_ndtr(-e + 0.5), log_ndtr(-e - 0.5)
            return np.exp(a) * -np.expm1(e + b - a) * (1 + 1e-6)

        def epsilon(self, delta, *, bound="upper"):  # noqa: ANN001, ANN201
            return 6.0

    log_ndtr = pytest.importorskip("scipy.special").log_ndtr
    upper, lower = curve_pmfs(Upper(), 1e-8, 1e-3)
    assert lower is None
    for e in np.linspace(-3.0, 7.0, 41):
        assert upper.delta(float(e)) >= _gaussian_truth(1.0, float(e))


class _JaggedGaussian:
    """The Gaussian pair N(mu, 1) vs N(0, 1) certified loosely and unevenly: each upper delta the truth times
    1 + U(0, 5 %), each lower one times 1 - U(0, 5 %), drawn afresh at every eps (a curve neither convex nor smooth,
    as reads of different grids give)."""

    bound_sides = ("upper", "lower", "both")

    def __init__(self, mu: float, seed: int):
        self.mu, self.rng = mu, np.random.default_rng(seed)
        self.log_ndtr = pytest.importorskip("scipy.special").log_ndtr

    def _truth(self, eps: np.ndarray) -> np.ndarray:
        a, b = (
            self.log_ndtr(-eps / self.mu + self.mu / 2),
            self.log_ndtr(-eps / self.mu - self.mu / 2),
        )
        return np.exp(a) * -np.expm1(eps + b - a)

    def delta(self, epsilon, *, bound="upper"):  # noqa: ANN001, ANN201
        truth = self._truth(np.asarray(epsilon, dtype=np.float64))
        upper = np.minimum(truth * (1 + 0.05 * self.rng.random(truth.shape)) * (1 + 1e-9), 1.0)
        lower = truth * (1 - 0.05 * self.rng.random(truth.shape)) * (1 - 1e-9)
        return {"upper": upper, "lower": lower, "both": (lower, upper)}[bound]

    def epsilon(self, delta, *, bound="upper"):  # noqa: ANN001, ANN201
        low, high = 0.0, 200.0  # bisection on the truth, ending above it
        for _ in range(100):
            mid = 0.5 * (low + high)
            low, high = (mid, high) if self._truth(np.array(mid)) > delta else (low, mid)
        return high


@pytest.mark.parametrize(
    "seed", [0, *(pytest.param(seed, marks=pytest.mark.slow) for seed in range(1, 6))]
)
def test_jagged_certified_values_still_give_pmfs_on_either_side_of_the_truth(seed):
    mu = 0.3 + 4.7 * np.random.default_rng(100 + seed).random()
    upper, lower = curve_pmfs(_JaggedGaussian(mu, seed), 1e-8, 1e-3)
    assert lower is not None
    grid = np.concatenate(
        [np.linspace(-8.0, 25.0, 67), np.random.default_rng(seed).uniform(-3.0, 10.0, 20)]
    )
    for e in grid:
        truth = _gaussian_truth(mu, float(e))
        assert upper.delta(float(e)) >= truth, (mu, e)
        assert lower.delta(float(e)) <= truth, (mu, e)
