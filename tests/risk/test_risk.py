"""Attack risk from a privacy profile (hockeystick.risk): the certified trade-off curve, TPR at FPR, the
advantage and calibration to a TPR, against closed forms in 50-digit mpmath (the Gaussian mechanism's
mu-GDP curve, one round of the Poisson-subsampled Gaussian in each direction), the Neyman-Pearson curve
of a finite pair, and a PLD on a 50 times finer grid."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from hockeystick import pld, rdp, risk
from hockeystick.base.outward_text import outward_text
from hockeystick.cli import main
from hockeystick.fdp import GaussianDP
from hockeystick.fdp.gaussian_mechanism import GaussianMechanism
from hockeystick.risk import tpr_calibration
from hockeystick.training import DPSGD

MP_DPS = 50
mp.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test

ALPHAS = np.concatenate([[0.0], np.logspace(-14, -1, 27), np.linspace(0.15, 0.95, 9), [0.999, 1.0]])


def gaussian_power(mu: float, alpha: float) -> mp.mpf:
    """1 - T_G(mu)(alpha) = Phi(mu - Phi^-1(1 - alpha)) (Dong, Roth, Su 2022, Def. 2.7), 50 digits."""
    a = mp.mpf(alpha)
    if a == 0:
        return mp.mpf(0)
    if a == 1:
        return mp.mpf(1)
    return mp.ncdf(mp.mpf(mu) - mp.sqrt(2) * mp.erfinv(1 - 2 * a))


def one_round_powers(sigma: float, q: float, alpha: float) -> tuple[mp.mpf, mp.mpf]:
    """The exact powers of one Poisson-subsampled Gaussian round, P = (1-q) N(0, s^2) + q N(1, s^2),
    Q = N(0, s^2): the likelihood ratio grows with x, so the best tests are thresholds (Neyman-Pearson).
    remove (H1 = P): reject Q above c, alpha = Q(x > c); add (H1 = Q): reject P below c, alpha = P(x < c)."""
    a, s = mp.mpf(alpha), mp.mpf(sigma)
    c = s * mp.sqrt(2) * mp.erfinv(1 - 2 * a)
    remove = (1 - q) * a + q * mp.ncdf((1 - c) / s)
    below = mp.findroot(lambda x: (1 - q) * mp.ncdf(x / s) + q * mp.ncdf((x - 1) / s) - a, -c)
    return remove, mp.ncdf(below / s)


def neyman_pearson_power(p: np.ndarray, q: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """The best power at FPR alpha between finite laws (H1 = p, H0 = q): outcomes by decreasing p / q,
    the last one randomized (the ROC curve's linear interpolation)."""
    order = np.argsort(-(p / q))
    fpr = np.concatenate([[0.0], np.cumsum(q[order])])
    tpr = np.concatenate([[0.0], np.cumsum(p[order])])
    return np.interp(alpha, fpr, tpr)


@pytest.mark.parametrize("sigma, rounds", [(0.5, 1), (1.0, 10), (4.0, 3), (30.0, 1)])
def test_gaussian_bracket_contains_the_closed_form(sigma: float, rounds: int) -> None:
    acc = GaussianMechanism(sigma=sigma, rounds=rounds)
    mu = math.sqrt(rounds) / sigma
    low, up = risk.tpr_at_fpr(acc, ALPHAS, bound="both")
    beta_low, beta_up = risk.tradeoff_curve(acc, ALPHAS)
    for a, lo, hi, b_lo, b_hi in zip(ALPHAS, low, up, beta_low, beta_up):
        exact = gaussian_power(mu, a)
        assert lo <= exact <= hi, (a, lo, exact, hi)
        assert b_lo <= 1 - exact <= b_hi, (a, b_lo, 1 - exact, b_hi)
        # tight: ~1e-6 relative with the default spacing
        assert hi - lo <= 2e-5 * float(exact) + 1e-15, (a, lo, hi)


def test_gdp_accountant_gives_the_same_curve() -> None:
    """Any accountant with .delta: mu-GDP at mu = 2."""
    low, up = risk.tpr_at_fpr(GaussianDP(2.0), [1e-6, 1e-3, 0.1], bound="both")
    for a, lo, hi in zip([1e-6, 1e-3, 0.1], low, up):
        assert lo <= gaussian_power(2.0, a) <= hi


@pytest.mark.parametrize("sigma, q", [(0.8, 0.1), (2.0, 0.5)])
def test_one_subsampled_round_brackets_each_direction(sigma: float, q: float) -> None:
    acc = pld.SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=1)
    alphas = np.array([1e-9, 1e-6, 1e-3, 0.01, 0.1, 0.5, 0.9])
    remove = risk.tpr_at_fpr(acc, alphas, bound="both", direction="remove")
    add = risk.tpr_at_fpr(acc, alphas, bound="both", direction="add")
    symmetric_upper = risk.tpr_at_fpr(acc, alphas, bound="upper")
    for i, a in enumerate(alphas):
        exact_remove, exact_add = one_round_powers(sigma, q, a)
        assert remove[0][i] <= exact_remove <= remove[1][i], (
            a,
            remove[0][i],
            exact_remove,
            remove[1][i],
        )
        assert add[0][i] <= exact_add <= add[1][i], (a, add[0][i], exact_add, add[1][i])
        # the symmetric curve bounds either direction's attacker
        assert symmetric_upper[i] >= max(exact_remove, exact_add)
    # the mechanism is asymmetric: the two directions' curves differ beyond their brackets
    assert remove[0][2] > add[1][2]


@pytest.mark.parametrize("sigma, q", [(0.8, 0.1), (2.0, 0.5)])
def test_a_dp_sgd_run_gives_its_poisson_directions(sigma: float, q: float) -> None:
    """One Poisson step of DP-SGD is the subsampled Gaussian round: each direction's bracket holds its exact
    Neyman-Pearson power, and the run's brackets are the accountant's own."""
    alphas = np.array([1e-6, 1e-3, 0.1])
    run = DPSGD(noise_multiplier=sigma, sample_rate=q, steps=1)
    same = pld.SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=1)
    for k, direction in enumerate(("remove", "add")):
        low, up = risk.tpr_at_fpr(run, alphas, bound="both", direction=direction)
        np.testing.assert_array_equal(
            (low, up), risk.tpr_at_fpr(same, alphas, bound="both", direction=direction)
        )
        for i, a in enumerate(alphas):
            exact = one_round_powers(sigma, q, a)[k]
            assert low[i] <= exact <= up[i], (direction, a, low[i], exact, up[i])


def test_a_balls_in_bins_run_gives_its_directions() -> None:
    """Balls-in-bins keeps its remove and add pairs: one step per epoch is the Gaussian mechanism (both
    directions its mu-GDP curve); with ten steps per epoch the directions differ beyond their brackets and each
    lies under the symmetric profile's upper side."""
    whole = DPSGD(
        noise_multiplier=2.0, dataset_size=100, batch_size=100, epochs=4, sampling="balls_in_bins"
    )
    alphas = np.array([1e-4, 1e-2, 0.3])
    for direction in ("remove", "add"):
        low, up = risk.tpr_at_fpr(whole, alphas, bound="both", direction=direction)
        for i, a in enumerate(alphas):
            assert low[i] <= gaussian_power(1.0, a) <= up[i], (direction, a)  # mu = sqrt(4) / 2
    run = DPSGD(
        noise_multiplier=1.0, dataset_size=1000, batch_size=100, epochs=2, sampling="balls_in_bins"
    )
    remove = risk.tpr_at_fpr(run, 1e-3, bound="both", direction="remove")
    add = risk.tpr_at_fpr(run, 1e-3, bound="both", direction="add")
    symmetric = risk.tpr_at_fpr(run, 1e-3)
    assert 1e-3 <= add[0] <= add[1] < remove[0] <= remove[1] <= symmetric * (1 + 1e-6)
    with pytest.raises(
        ValueError, match='direction must be "symmetric" for BallsInBinsGaussianPLD'
    ):
        risk.tpr_at_fpr(
            pld.BallsInBinsGaussianPLD(sigma=1.0, steps_per_epoch=4, rounds=4, steps_per_record=2),
            0.1,
            direction="add",
        )


def test_a_replace_one_run_answers_each_direction_with_its_symmetric_profile() -> None:
    """Fixed-size batches (replace-one): each order of a neighbouring pair is neighbouring, so every direction
    is the symmetric curve."""
    run = DPSGD(
        noise_multiplier=1.0, dataset_size=1000, batch_size=100, epochs=2, sampling="fixed_size"
    )
    symmetric = risk.tpr_at_fpr(run, 1e-3, bound="both")
    for direction in ("remove", "add"):
        assert risk.tpr_at_fpr(run, 1e-3, bound="both", direction=direction) == symmetric


class _Counting:
    """An accountant's .delta, counting the epsilon values it is asked for."""

    def __init__(self, accountant: object) -> None:
        self.accountant, self.evaluated = accountant, 0

    def delta(self, epsilon: np.ndarray, bound: str = "upper") -> object:
        self.evaluated += np.size(epsilon)
        return self.accountant.delta(epsilon, bound=bound)  # type: ignore[attr-defined]


def test_a_wide_accountant_bracket_stops_the_refinement_early() -> None:
    """Where the accountant's own sides are far apart (shuffled batches: a Gaussian above, a realizable pair
    below), refining the grid further moves the power's sides by a small share of that width: a few thousand
    epsilon values settle it (refining to the finest spacing took about 1.9 million), and the sides stay
    certified: the lower one below the symmetric Gaussian upper side, the upper one that Gaussian's."""
    accountant = _Counting(pld.ShuffledBatchGaussianPLD(sigma=1.0, batch_size=10, n=40, rounds=8))
    low, up = risk.tpr_at_fpr(accountant, 0.01, bound="both")
    assert accountant.evaluated <= 20_000
    gaussian = GaussianMechanism(
        sigma=1.0, sensitivity=2.0, rounds=2
    )  # shift 2 per epoch begun, 2 epochs
    g_low, g_up = risk.tpr_at_fpr(gaussian, 0.01, bound="both")
    assert low <= up and up <= g_up * (1 + 1e-5) and up >= g_low * (1 - 1e-5)


def test_composed_subsampled_gaussian_against_a_finer_grid() -> None:
    alphas = np.array([1e-8, 1e-5, 1e-3, 0.05, 0.3])
    coarse = pld.SubsampledGaussianPLD(
        sigma=1.0, sampling_rate=0.05, rounds=100, value_discretization_interval=1e-3
    )
    fine = pld.SubsampledGaussianPLD(
        sigma=1.0, sampling_rate=0.05, rounds=100, value_discretization_interval=1e-4
    )
    for direction in ("remove", "add", "symmetric"):
        lo, up = risk.tpr_at_fpr(coarse, alphas, bound="both", direction=direction)
        ref_lo, ref_up = risk.tpr_at_fpr(fine, alphas, bound="both", direction=direction, rtol=1e-8)
        middle = (ref_lo + ref_up) / 2
        assert np.all(ref_up - ref_lo <= 1e-4 * ref_up), direction
        assert np.all((lo <= middle) & (middle <= up)), (direction, lo, middle, up)


def test_finite_pair_composed_twice_matches_neyman_pearson() -> None:
    """An asymmetric finite pair through PrivacyLossDistribution and PLDAccountant: two rounds are the
    product laws, whose exact curve is the ROC of the sorted likelihood ratios."""
    p, q = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.3, 0.5])
    one = pld.from_distributions(p, q)
    acc = pld.PLDAccountant().compose(one, rounds=2)
    p2, q2 = np.outer(p, p).ravel(), np.outer(q, q).ravel()
    alphas = np.array([0.0, 0.01, 0.04, 0.1, 0.2, 0.35, 0.6, 0.9, 1.0])
    for direction, (h1, h0) in (("remove", (p2, q2)), ("add", (q2, p2))):
        exact = neyman_pearson_power(h1, h0, alphas)
        for source in (acc, one.self_compose(2)):
            lo, up = risk.tpr_at_fpr(source, alphas, bound="both", direction=direction)
            assert np.all((lo <= exact + 1e-15) & (exact <= up + 1e-15)), (direction, lo, exact, up)
            assert np.all(up - lo <= 1e-3), (direction, up - lo)


def test_advantage_is_delta_at_zero_and_the_curve_s_largest_gap() -> None:
    acc = GaussianMechanism(sigma=2.0, rounds=4)
    low, up = risk.advantage(acc, bound="both")
    assert (low, up) == acc.delta(0.0, bound="both")
    exact_tv = 2 * mp.ncdf(mp.mpf(1) / 2) - 1  # mu = 1: TV = 2 Phi(mu / 2) - 1
    assert low <= exact_tv <= up
    assert risk.advantage(acc) == up
    alphas = np.linspace(0, 1, 401)
    assert np.max(risk.tpr_at_fpr(acc, alphas, bound="lower") - alphas) <= up
    best = float(mp.ncdf(-mp.mpf(1) / 2))  # the gap's maximum: alpha = Phi(-mu / 2)
    assert risk.tpr_at_fpr(acc, best) - best >= low


def test_sides_one_at_a_time_and_their_directions() -> None:
    acc = pld.SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.02, rounds=50)
    alphas = np.array([1e-6, 1e-3, 0.1])
    low, up = risk.tpr_at_fpr(acc, alphas, bound="both", direction="remove")
    assert np.all(low <= up)
    # one side alone refines its own grid: the same value within rtol, certified either way
    np.testing.assert_allclose(risk.tpr_at_fpr(acc, alphas, direction="remove"), up, rtol=2e-6)
    np.testing.assert_array_equal(
        risk.tpr_at_fpr(acc, alphas, bound="lower", direction="remove"), low
    )
    beta_low, beta_up = risk.tradeoff_curve(acc, alphas, direction="remove")
    # beta's lower side is 1 - the upper TPR, rounded down, and its upper side 1 - the lower TPR, rounded up
    assert np.all(beta_low == np.nextafter(1 - up, 0)) and np.all(
        beta_up == np.nextafter(1 - low, 1)
    )
    np.testing.assert_array_equal(
        risk.tradeoff_curve(acc, alphas, bound="upper", direction="remove"), beta_up
    )
    # an accountant certifying only the upper side refuses the lower one
    upper_only = rdp.SubsampledGaussianRDP(sigma=1.0, sampling_rate=0.1, rounds=5)
    assert risk.tpr_at_fpr(upper_only, 0.1) >= risk.tpr_at_fpr(
        pld.SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.1, rounds=5), 0.1
    )
    with pytest.raises(ValueError, match='bound must be "upper"'):
        risk.tpr_at_fpr(upper_only, 0.1, bound="both")


def test_shapes_follow_alpha() -> None:
    acc = GaussianMechanism(sigma=1.0)
    assert isinstance(risk.tpr_at_fpr(acc, 0.1), float)
    low, up = risk.tradeoff_curve(acc, 0.1)
    assert isinstance(low, float) and isinstance(up, float)
    grid = np.array([[0.01, 0.1, 0.5], [0.2, 0.3, 0.9]])
    assert risk.tpr_at_fpr(acc, grid).shape == (2, 3)
    assert risk.tradeoff_curve(acc, grid)[0].shape == (2, 3)


def test_calibrate_tpr_gaussian_sigma_is_safe_and_nearly_extreme() -> None:
    fpr, tpr = 1e-3, 0.05
    mu_star = float(mp.sqrt(2) * (mp.erfinv(2 * mp.mpf(tpr) - 1) + mp.erfinv(1 - 2 * mp.mpf(fpr))))
    sigma_star = math.sqrt(10) / mu_star  # TPR at fpr = tpr exactly
    sigma = risk.calibrate_tpr("gaussian", "sigma", fpr=fpr, tpr=tpr, rounds=10)
    assert sigma >= sigma_star
    assert sigma <= sigma_star * (1 + 1e-4)
    assert gaussian_power(math.sqrt(10) / sigma, fpr) <= tpr
    assert risk.tpr_at_fpr(GaussianMechanism(sigma=sigma, rounds=10), fpr) <= tpr * (1 + 1e-6)


def test_calibrate_tpr_rounds_and_arrays() -> None:
    """An increasing parameter: the largest rounds, per sigma."""
    fpr, tpr = 1e-3, 0.05
    mu_star = float(mp.sqrt(2) * (mp.erfinv(2 * mp.mpf(tpr) - 1) + mp.erfinv(1 - 2 * mp.mpf(fpr))))
    sigmas = np.array([5.0, 10.0])
    rounds = risk.calibrate_tpr("gaussian", "rounds", fpr=fpr, tpr=tpr, sigma=sigmas)
    assert rounds.dtype == np.int64 and rounds.shape == (2,)
    exact = np.floor((mu_star * sigmas) ** 2)  # the largest T with sqrt(T) / sigma <= mu*
    assert np.all(rounds <= exact) and np.all(rounds >= exact - 1)
    with pytest.raises(ValueError, match="no rounds in its range"):
        risk.calibrate_tpr("gaussian", "rounds", fpr=fpr, tpr=tpr, sigma=0.1)


def test_calibrate_tpr_subsampled_gaussian_meets_the_target() -> None:
    fpr, tpr = 1e-3, 0.01
    sigma = risk.calibrate_tpr(
        "pld_subsampled_gaussian",
        "sigma",
        fpr=fpr,
        tpr=tpr,
        sampling_rate=0.1,
        rounds=20,
        rtol=1e-6,
        levels=2,
        points=8,
    )
    acc = pld.SubsampledGaussianPLD(sigma=sigma, sampling_rate=0.1, rounds=20)
    assert risk.tpr_at_fpr(acc, fpr) <= tpr * (1 + 1e-4)
    smaller = pld.SubsampledGaussianPLD(sigma=sigma * 0.98, sampling_rate=0.1, rounds=20)
    assert risk.tpr_at_fpr(smaller, fpr, bound="lower") > tpr * 0.98  # close to the extreme


def test_calibrate_tpr_locates_the_line_by_the_estimate_and_calibrates_few(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An accountant with its own estimate of the noise (the subsampled Gaussian's central-limit value): the
    estimate chooses the eps of the line, then ten targets are calibrated coarsely around it and one at rtol
    (not levels x points at rtol); the answer keeps the certified TPR within the target and is within 1% of the
    extreme noise."""
    calls: list[tuple[int, float]] = []
    real = tpr_calibration.calibrate

    def counted(*args: object, **kwargs: object) -> object:
        calls.append((int(np.size(kwargs["epsilon"])), float(kwargs["rtol"])))  # type: ignore[arg-type]
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(tpr_calibration, "calibrate", counted)
    run = dict(sampling_rate=0.1, rounds=20)
    sigma = risk.calibrate_tpr("pld_subsampled_gaussian", "sigma", fpr=1e-3, tpr=0.05, **run)
    assert sum(n for n, _ in calls) <= 11 and sum(n for n, r in calls if r <= 1e-10) == 1
    assert risk.tpr_at_fpr(pld.SubsampledGaussianPLD(sigma=sigma, **run), 1e-3) <= 0.05
    assert (
        risk.tpr_at_fpr(pld.SubsampledGaussianPLD(sigma=0.99 * sigma, **run), 1e-3, bound="lower")
        > 0.05
    )


@pytest.mark.slow
def test_calibrate_tpr_of_balls_in_bins_meets_the_target_tightly() -> None:
    """The balls-in-bins noise for a TPR target: its certified TPR is at most the target, and 1 % less noise
    exceeds it on the lower side (the calibration is tight). Two bins an epoch over two epochs: the search and
    both reads take the same paths at any number of bins, and the search's cost grows with their count. rtol
    1e-3 is ten times inside the 1 % the tightness check allows, and the answer meets the target at any rtol (the
    end of the bracket where it holds); the last line's calibration at a finer rtol is counted in
    test_calibrate_tpr_locates_the_line_by_the_estimate_and_calibrates_few."""
    run = dict(dataset_size=200, batch_size=100, epochs=2, sampling="balls_in_bins")
    z = risk.calibrate_tpr(
        "dp_sgd_balls_in_bins",
        "noise_multiplier",
        fpr=1e-3,
        tpr=0.05,
        dataset_size=200,
        batch_size=100,
        epochs=2,
        rtol=1e-3,
    )
    assert risk.tpr_at_fpr(DPSGD(noise_multiplier=z, **run), 1e-3) <= 0.05
    assert risk.tpr_at_fpr(DPSGD(noise_multiplier=0.99 * z, **run), 1e-3, bound="lower") > 0.05


@pytest.mark.parametrize("alpha", [-0.1, 1.5, float("nan"), [0.1, float("nan")]])
def test_bad_alpha_is_refused_naming_it(alpha: object) -> None:
    acc = GaussianMechanism(sigma=1.0)
    with pytest.raises(ValueError, match="alpha"):
        risk.tradeoff_curve(acc, alpha)
    with pytest.raises(ValueError, match="fpr"):
        risk.tpr_at_fpr(acc, alpha)


def test_bad_options_are_refused_naming_them() -> None:
    acc = GaussianMechanism(sigma=1.0)
    with pytest.raises(ValueError, match="bound"):
        risk.tradeoff_curve(acc, 0.1, bound="middle")
    with pytest.raises(ValueError, match="direction"):
        risk.tradeoff_curve(acc, 0.1, direction="sideways")
    with pytest.raises(ValueError, match='direction must be "symmetric" for GaussianMechanism'):
        risk.tpr_at_fpr(acc, 0.1, direction="remove")
    for rtol in (0.0, 1.0, float("nan")):
        with pytest.raises(ValueError, match="rtol"):
            risk.tpr_at_fpr(acc, 0.1, rtol=rtol)
    with pytest.raises(ValueError, match="accountant must describe one mechanism"):
        risk.tpr_at_fpr(GaussianMechanism(sigma=np.array([1.0, 2.0])), 0.1)
    with pytest.raises(ValueError, match="accountant must describe one mechanism"):
        risk.tpr_at_fpr(
            pld.SubsampledGaussianPLD(sigma=[1.0, 2.0], sampling_rate=0.1, rounds=1),
            0.1,
            direction="remove",
        )
    with pytest.raises(ValueError, match="tpr must exceed fpr"):
        risk.calibrate_tpr("gaussian", "sigma", fpr=0.1, tpr=0.1)
    with pytest.raises(ValueError, match="fpr"):
        risk.calibrate_tpr("gaussian", "sigma", fpr=0.0, tpr=0.1)
    with pytest.raises(ValueError, match="parameter must be one of"):
        risk.calibrate_tpr("gaussian", "sensitivity", fpr=0.01, tpr=0.1)


@pytest.mark.parametrize("accountant", [None, 1.0, "gaussian"])
def test_a_non_accountant_is_refused_naming_the_argument(accountant: object) -> None:
    for call in (
        lambda: risk.advantage(accountant),
        lambda: risk.tpr_at_fpr(accountant, 0.01),
        lambda: risk.tradeoff_curve(accountant, 0.01),
    ):
        with pytest.raises(TypeError, match=r"accountant must be an accountant with a \.delta"):
            call()


def test_calibrate_tpr_refuses_a_value_for_the_calibrated_parameter() -> None:
    for parameter, given in (
        ("rounds", {"sigma": 1.0, "rounds": 10}),
        ("sigma", {"sigma": 1.0, "rounds": 10}),
    ):
        with pytest.raises(
            ValueError, match=rf"'{parameter}' is the calibrated parameter: do not also give it"
        ):
            risk.calibrate_tpr("gaussian", parameter, fpr=0.01, tpr=0.5, **given)


def test_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["risk", "-a", "gaussian", "-p", "sigma=1", "-p", "rounds=10", "--fpr", "0.01,0.001"])
        == 0
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["fpr", "tpr_lower", "tpr_upper"]
    low, up = risk.tpr_at_fpr(GaussianMechanism(sigma=1.0, rounds=10), [0.01, 0.001], bound="both")
    assert set(lines[1].replace(" ", "")) == {"-"}  # an aligned table: the header's rule
    for line, lo, hi in zip(lines[2:4], low, up):
        fpr, printed_lo, printed_hi = map(float, line.split())
        assert (printed_lo, printed_hi) == (
            float(outward_text(lo, "lower")),
            float(outward_text(hi, "upper")),
        )
    assert lines[5].startswith("advantage")
    assert main(["risk", "-a", "gaussian", "-p", "sigma=1,2", "--fpr", "0.1"]) == 2
    assert "one number per parameter" in capsys.readouterr().err
    assert main(["risk", "-a", "gaussian", "-p", "sigma=1", "--fpr", "2"]) == 2
    assert "fpr must lie in [0, 1]" in capsys.readouterr().err
