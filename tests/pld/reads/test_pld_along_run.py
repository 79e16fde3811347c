"""The certified bracket along a run (pld.along_run): each point is the one-off evaluation at that many
rounds (to the round-off charges of the run's shared transform), and the Gaussian mechanism's exact
composition (mu = sqrt(T) / sigma, 50-digit mpmath) lies inside every bracket of the curve."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from hockeystick.pld import FixedBatchGaussianPLD, PLDAccountant, SubsampledGaussianPLD
from hockeystick.pld.reads.along_run import CurveAlongRun, checkpoints
from hockeystick.training import DPSGD, DPFedAvg

MP_DPS = 50
mpmath.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test


def _gaussian_delta(mu: float, eps: float) -> mpmath.mpf:
    """delta of the mu-GDP Gaussian at eps: Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)."""
    mu, eps = mpmath.mpf(mu), mpmath.mpf(eps)
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def _gaussian_epsilon(mu: float, delta: float) -> mpmath.mpf:
    """The exact epsilon at delta of the mu-GDP Gaussian (delta falls with eps: bisection to 1e-40)."""
    lo, hi = mpmath.mpf(0), mpmath.mpf(1)
    while _gaussian_delta(mu, hi) > delta:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _gaussian_delta(mu, mid) > delta else (lo, mid)
    return hi


# --- every point is the accountant's own value at that many rounds ------------------------------------


def _same_bracket(curve: CurveAlongRun, i: int, one_off: tuple[float, float]) -> None:
    """Point i is the one-off bracket to round-off, 1e-12 relative (each checkpoint refined on its own grids)."""
    np.testing.assert_allclose((curve.lower[i], curve.upper[i]), one_off, rtol=1e-12, atol=0.0)


def _one_off_bracket(curve: CurveAlongRun, i: int, one_off: tuple[float, float]) -> None:
    """Point i is a certified bracket of the one-off's accountant at that many rounds: composed on a divisor of the
    run's longest FFT length, it differs from the one-off's (composed on its own window's length) by the longer
    transform's round-off charges only: within 1e-6 relative or 2 % of the one-off's width (a checkpoint read off a
    wrong stride of the shared transform would be off by far more), and the two brackets overlap (both hold the
    truth)."""
    lo, up = curve.lower[i], curve.upper[i]
    np.testing.assert_allclose((lo, up), one_off, rtol=1e-6, atol=0.02 * (one_off[1] - one_off[0]))
    assert lo <= one_off[1] and one_off[0] <= up


def test_subsampled_gaussian_points_are_one_off_brackets() -> None:
    accountant = SubsampledGaussianPLD(1.1, 256 / 60000, 2350)
    curve = accountant.epsilon_curve(1e-5, every=235)
    assert curve.steps.tolist() == list(range(235, 2351, 235))
    for i in (0, 4, 9):
        one_off = SubsampledGaussianPLD(1.1, 256 / 60000, int(curve.steps[i])).epsilon(
            1e-5, bound="both"
        )
        _one_off_bracket(curve, i, one_off)
    assert np.all(curve.lower <= curve.upper)


def test_delta_curve_points_are_one_off_brackets() -> None:
    accountant = SubsampledGaussianPLD(0.8, 0.01, 500)
    curve = accountant.delta_curve(1.0, steps=[1, 37, 250, 500])
    for i, t in enumerate((1, 37, 250, 500)):
        _one_off_bracket(curve, i, SubsampledGaussianPLD(0.8, 0.01, t).delta(1.0, bound="both"))


def test_accuracy_refinement_points_equal_one_off_brackets() -> None:
    """With accuracy=, each checkpoint is refined on its own grids, as the one-off evaluation refines it."""
    curve = SubsampledGaussianPLD(1.0, 0.02, 400, accuracy=0.05).epsilon_curve(
        1e-6, steps=[10, 400]
    )
    for i, t in enumerate((10, 400)):
        one_off = SubsampledGaussianPLD(1.0, 0.02, t, accuracy=0.05).epsilon(1e-6, bound="both")
        _same_bracket(curve, i, one_off)
        assert curve.upper[i] - curve.lower[i] <= 0.05


def test_dp_sgd_curve_every_epoch() -> None:
    run = DPSGD(dataset_size=60000, batch_size=256, epochs=3.5, noise_multiplier=1.1)
    curve = run.epsilon_curve(1e-5)
    assert curve.steps.tolist() == [
        235,
        470,
        705,
        823,
    ]  # ceil(3.5 x 235) = 823: the run's last step
    assert curve.steps_per_epoch == 235
    np.testing.assert_array_equal(curve.epochs, curve.steps / 235)
    _one_off_bracket(curve, -1, run.epsilon(1e-5, bound="both"))
    two = DPSGD(dataset_size=60000, batch_size=256, epochs=2, noise_multiplier=1.1).epsilon(
        1e-5, bound="both"
    )
    _one_off_bracket(curve, 1, two)


def test_dp_sgd_curve_every_opacus_epoch() -> None:
    """Epochs of n / b = 234.375 steps (steps_per_epoch="opacus"): epoch k ends at step ceil(234.375 k), the steps
    a run of k epochs takes, not every 234 steps."""
    run = DPSGD(
        dataset_size=60000, batch_size=256, epochs=4, noise_multiplier=1.1, steps_per_epoch="opacus"
    )
    curve = run.epsilon_curve(1e-5)
    assert curve.steps.tolist() == [235, 469, 704, 938]
    assert curve.steps_per_epoch == 234.375
    for k, t in zip(range(1, 5), curve.steps):
        epochs_k = DPSGD(
            dataset_size=60000,
            batch_size=256,
            epochs=k,
            noise_multiplier=1.1,
            steps_per_epoch="opacus",
        )
        assert int(epochs_k.steps) == t
    _one_off_bracket(curve, -1, run.epsilon(1e-5, bound="both"))
    rate = DPSGD(sample_rate=0.01, steps=250, noise_multiplier=1.0)  # epochs of 1 / q = 100 steps
    assert rate.epsilon_curve(1e-5).steps.tolist() == [100, 200, 250]
    seven = DPSGD(
        dataset_size=60000, batch_size=7, epochs=7, noise_multiplier=1.1, steps_per_epoch="opacus"
    )
    assert seven.checkpoints()[-1] == 60000 == int(seven.steps)  # 7 x 60000 / 7, exactly


def test_dp_sgd_fixed_size_and_fedavg_curves() -> None:
    run = DPSGD(
        dataset_size=6000, batch_size=200, steps=90, noise_multiplier=1.5, sampling="fixed_size"
    )
    curve = run.epsilon_curve(1e-5, every=40)
    assert curve.steps.tolist() == [40, 80, 90]
    fixed = FixedBatchGaussianPLD(sigma=1.5, batch_size=200, n=6000, rounds=40).epsilon(
        1e-5, bound="both"
    )
    _one_off_bracket(curve, 0, fixed)
    _one_off_bracket(curve, -1, run.epsilon(1e-5, bound="both"))
    fed = DPFedAvg(total_clients=3400, clients_per_round=100, rounds=100, noise_multiplier=1.0)
    d = fed.delta_curve(1.0)
    assert d.steps_per_epoch == 34 and d.steps.tolist() == [34, 68, 100]
    _one_off_bracket(d, -1, fed.delta(1.0, bound="both"))


def test_pld_accountant_curve_along_changing_rounds() -> None:
    """The run's first T rounds, across a change of sigma and sampling rate, as an accountant given them."""
    run = PLDAccountant(value_discretization_interval=1e-3)
    run.compose_subsampled_gaussian(sigma=1.0, sampling_rate=0.01, rounds=50)
    run.compose_subsampled_gaussian(sigma=0.8, sampling_rate=0.02, rounds=30)
    curve = run.epsilon_curve(1e-5, every=20)
    assert curve.steps.tolist() == [20, 40, 60, 80]
    for t in (20, 60, 80):
        prefix = PLDAccountant(value_discretization_interval=1e-3)
        prefix.compose_subsampled_gaussian(sigma=1.0, sampling_rate=0.01, rounds=min(t, 50))
        if t > 50:
            prefix.compose_subsampled_gaussian(sigma=0.8, sampling_rate=0.02, rounds=t - 50)
        i = int(np.flatnonzero(curve.steps == t)[0])
        _one_off_bracket(curve, i, prefix.epsilon(1e-5, bound="both"))
    deltas = run.delta_curve(2.0, steps=[50, 51])
    prefix = PLDAccountant(value_discretization_interval=1e-3).compose_subsampled_gaussian(
        1.0, 0.01, 50
    )
    _one_off_bracket(deltas, 0, prefix.delta(2.0, bound="both"))


# --- the exact Gaussian composition lies inside every bracket -----------------------------------------


@pytest.mark.parametrize("sigma", [0.7, 2.0, 8.0])
def test_gaussian_epsilon_curve_brackets_exact_composition(sigma: float) -> None:
    """T Gaussian rounds of noise sigma are the Gaussian with mu = sqrt(T) / sigma: its epsilon at delta lies
    in every point's bracket, the composed grid PLD's and the closed form's (rate 1) alike."""
    run = PLDAccountant(value_discretization_interval=1e-3)
    run.compose_subsampled_gaussian(sigma=sigma, sampling_rate=1.0, rounds=64)
    grid = run.epsilon_curve(1e-6, steps=[1, 2, 5, 16, 40, 64])
    closed = SubsampledGaussianPLD(sigma, 1.0, 64).epsilon_curve(1e-6, steps=[1, 2, 5, 16, 40, 64])
    for curve in (grid, closed):
        for t, lo, up in zip(curve.steps, curve.lower, curve.upper):
            exact = _gaussian_epsilon(math.sqrt(t) / sigma, 1e-6)
            assert mpmath.mpf(lo) <= exact <= mpmath.mpf(up), (t, lo, float(exact), up)
            assert up - lo < 0.05


def test_gaussian_delta_curve_brackets_exact_composition() -> None:
    run = PLDAccountant(value_discretization_interval=1e-3)
    run.compose_subsampled_gaussian(sigma=3.0, sampling_rate=1.0, rounds=100)
    curve = run.delta_curve(1.0, every=7)
    assert curve.steps[-1] == 100 and curve.steps[-2] == 98
    for t, lo, up in zip(curve.steps, curve.lower, curve.upper):
        exact = _gaussian_delta(math.sqrt(t) / 3.0, 1.0)
        assert mpmath.mpf(lo) <= exact <= mpmath.mpf(up), (t, lo, float(exact), up)
        assert up - lo <= 0.02 * float(exact)


@pytest.mark.parametrize("h", [0.05, 0.5, 5.0])
def test_gaussian_curves_on_coarse_grids_hold_the_exact_values(h: float) -> None:
    """Coarse grids, up to h = 5 (one grid point per 5 loss units), and the targets at their edges: delta 1e-12 and
    1e-3, epsilon 0 and 30 (delta 1e-11 at 64 rounds of sigma 2): each checkpoint's bracket, composed on a divisor of
    the run's longest transform, holds the exact Gaussian value (50-digit mpmath)."""
    run = PLDAccountant(value_discretization_interval=h)
    run.compose_subsampled_gaussian(sigma=2.0, sampling_rate=1.0, rounds=64)
    steps = [1, 2, 5, 16, 40, 64]
    for delta in (1e-12, 1e-3):
        curve = run.epsilon_curve(delta, steps=steps)
        for t, lo, up in zip(curve.steps, curve.lower, curve.upper):
            assert (
                mpmath.mpf(lo) <= _gaussian_epsilon(math.sqrt(t) / 2.0, delta) <= mpmath.mpf(up)
            ), (h, delta, t)
    for eps in (0.0, 1.0, 30.0):
        curve = run.delta_curve(eps, steps=steps)
        for t, lo, up in zip(curve.steps, curve.lower, curve.upper):
            assert mpmath.mpf(lo) <= _gaussian_delta(math.sqrt(t) / 2.0, eps) <= mpmath.mpf(up), (
                h,
                eps,
                t,
            )


# --- checkpoints and refusals ------------------------------------------------------------------------


def test_checkpoints() -> None:
    assert checkpoints(10).tolist() == list(range(1, 11))
    assert checkpoints(10, every=3).tolist() == [3, 6, 9, 10]
    assert checkpoints(9, every=3).tolist() == [3, 6, 9]
    assert checkpoints(5, every=8).tolist() == [5]
    assert checkpoints(10, steps=[2, 10]).tolist() == [2, 10]
    assert checkpoints(10, steps=np.array([4.0])).dtype == np.int64


@pytest.mark.parametrize(
    ("every", "steps", "message"),
    [
        (2, [1, 2], "not both"),
        (0, None, "every must be an integer >= 1"),
        (2.5, None, "every must be an integer >= 1"),
        ("2", None, "every must be"),
        ([2, 3], None, "every must be a single number"),
        (None, [3, 2], "strictly increasing"),
        (None, [2, 2], "strictly increasing"),
        (None, [0, 2], "steps must be an integer >= 1"),
        (None, [2, 11], "steps must be <= 10"),
        (None, [], "1-d sequence of 1 to 100000 checkpoints"),
        (None, [[1, 2]], "1-d sequence of 1 to 100000 checkpoints"),
        (None, [1.5], "steps must be an integer >= 1"),
    ],
)
def test_checkpoints_refused(every: object, steps: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        checkpoints(10, every=every, steps=steps)  # type: ignore[arg-type]


def test_checkpoints_capped_before_any_is_built() -> None:
    """Every step of a 2^53-step run would never finish (nor fit in memory): refused, with the every that fits."""
    with pytest.raises(ValueError, match="at most 100000 checkpoints.*give every >= 90071992548"):
        checkpoints(2**53)
    assert checkpoints(2**53, every=2**53 // 4).tolist() == [2**51, 2**52, 3 * 2**51, 2**53]
    assert checkpoints(100_000).size == 100_000
    with pytest.raises(ValueError, match="at most 100000 checkpoints"):
        SubsampledGaussianPLD(1.0, 0.01, 100_001).epsilon_curve(1e-5)


def test_refusals() -> None:
    with pytest.raises(
        ValueError, match="needs one run: sigma must each be a single value, got 2 points"
    ):
        SubsampledGaussianPLD([1.0, 2.0], 0.01, 100).epsilon_curve(1e-5)
    with pytest.raises(ValueError, match="needs one run: rounds must each be a single value"):
        SubsampledGaussianPLD(1.0, 0.01, [10, 100]).epsilon_curve(1e-5)
    with pytest.raises(ValueError, match="needs one run"):
        DPSGD(
            dataset_size=60000, batch_size=[256, 512], epochs=1, noise_multiplier=1.1
        ).epsilon_curve(1e-5)
    with pytest.raises(ValueError, match="delta must lie strictly between 0 and 1"):
        SubsampledGaussianPLD(1.0, 0.01, 100).epsilon_curve(1.0)
    with pytest.raises(ValueError, match="delta must be a single number"):
        SubsampledGaussianPLD(1.0, 0.01, 100).epsilon_curve([1e-5, 1e-6])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="epsilon must be"):
        SubsampledGaussianPLD(1.0, 0.01, 100).delta_curve(-1.0)
    with pytest.raises(ValueError, match="epsilon must not be NaN"):
        PLDAccountant().compose_subsampled_gaussian(1.0, 0.01, 10).delta_curve(float("nan"))
    with pytest.raises(ValueError, match="no round composed yet"):
        PLDAccountant().epsilon_curve(1e-5)
    with pytest.raises(ValueError, match="steps must be <= 100"):
        SubsampledGaussianPLD(1.0, 0.01, 100).epsilon_curve(1e-5, steps=[50, 101])


def test_curve_columns_and_epochs() -> None:
    curve = CurveAlongRun(
        np.array([2, 4]), np.array([0.1, 0.2]), np.array([0.3, 0.4]), "epsilon", 1e-5
    )
    assert len(curve) == 2
    assert list(curve.as_columns()) == ["steps", "epsilon_lower", "epsilon_upper"]
    with pytest.raises(ValueError, match="counts no epochs"):
        _ = curve.epochs
    epochs = CurveAlongRun(
        np.array([2, 4]), np.array([0.1, 0.2]), np.array([0.3, 0.4]), "delta", 1.0, 2
    )
    assert list(epochs.as_columns()) == ["steps", "epochs", "delta_lower", "delta_upper"]
    np.testing.assert_array_equal(epochs.epochs, [1.0, 2.0])


def test_plot_of_a_curve(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Both kinds of curve drawn and written; one epoch (235 rounds, the delta curve's three points) draws every
    element five would."""
    pytest.importorskip("matplotlib")
    from hockeystick.plots import curve_along_run

    run = DPSGD(dataset_size=60000, batch_size=256, epochs=1, noise_multiplier=1.1)
    path = curve_along_run(run.epsilon_curve(1e-5), tmp_path / "curve.png", title="DP-SGD")
    assert (tmp_path / "curve.png").stat().st_size > 1000 and path.endswith("curve.png")
    path = curve_along_run(run.delta_curve(0.5, every=100), tmp_path / "delta.png")
    assert (tmp_path / "delta.png").stat().st_size > 1000
