"""risk.certified_gdp: the certified mu-GDP bracket, its slack and the regret, against closed forms (mpmath at 50
digits), dp_accounting's independent PLD, dp_accounting's documented get_gdp_parameter_estimate formula and
gdpnum (where installed)."""

from __future__ import annotations

import json

import mpmath
import numpy as np
import pytest
from scipy.stats import norm

from hockeystick.cli import main
from hockeystick.fdp import GaussianDP, GaussianMechanism
from hockeystick.ledger import PrivacyLedger, Round
from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.rdp import SubsampledGaussianRDP
from hockeystick.risk import DEFAULT_DELTA0, CertifiedGDP, certified_gdp
from hockeystick.training import DPSGD, DPFedAvg

mpmath.mp.dps = 50

README_RUN = {"noise_multiplier": 1.1, "sample_rate": 256 / 60_000, "steps": 14_100}


def theta_mp(mu: float, eps: float) -> mpmath.mpf:
    """delta_mu(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) at 50 digits (Dong, Roth, Su 2022)."""
    m, e = mpmath.mpf(mu), mpmath.mpf(eps)
    return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)


class Hidden:
    """An accountant's delta without its class: certified_gdp takes the generic path (no closed form)."""

    def __init__(self, accountant):
        self.inner = accountant

    def delta(self, epsilon, *, bound="upper"):
        return self.inner.delta(epsilon, bound=bound)


@pytest.fixture(scope="module")
def readme_run():
    return DPSGD(**README_RUN)


@pytest.fixture(scope="module")
def readme_gdp(readme_run):
    return certified_gdp(readme_run)


@pytest.mark.parametrize(("sigma", "rounds"), [(2.0, 1), (0.7, 10), (10.0, 3)])
def test_gaussian_mechanism_exact_mu_inside_the_bracket(sigma, rounds):
    g = certified_gdp(GaussianMechanism(sigma=sigma, rounds=rounds))
    exact = mpmath.sqrt(rounds) / mpmath.mpf(sigma)
    assert g.delta0 == 0.0
    assert mpmath.mpf(g.mu_lower) <= exact <= mpmath.mpf(g.mu_upper)
    assert g.mu_upper - g.mu_lower <= 1e-14 * g.mu_upper
    assert 0.0 <= g.regret_lower <= g.regret_upper <= 1e-5  # the curve is its own Gaussian's


@pytest.mark.parametrize("delta0", [1e-200, 1e-30])
def test_generic_path_converges_to_the_gaussian_mu(delta0):
    mu = 0.5
    g = certified_gdp(Hidden(GaussianMechanism(sigma=1 / mu)), delta0=delta0)
    # with a negligible slack the least mu is mu itself, up to what delta0 can absorb in the far tail
    assert g.mu_lower <= mu * (1 + 1e-12)
    assert mu * (1 - 1e-3) <= g.mu_upper <= mu * (1 + 2e-3)
    assert g.delta0 == delta0


def test_generic_path_with_slack_statements_hold_in_mpmath():
    mu0, delta0 = 1.3, 1e-6
    g = certified_gdp(Hidden(GaussianMechanism(sigma=1 / mu0)), delta0=delta0)
    assert (
        g.mu_lower <= g.mu_upper <= mu0 * (1 + 1e-3)
    )  # the slack lets mu*(delta0) fall below mu0; the grid costs ~1e-4
    rng = np.random.default_rng(7)
    eps = np.concatenate([np.linspace(0, 12, 241), rng.uniform(0, 12, 200)])
    # upper: theta(mu0, eps) <= theta(mu_upper, eps) + delta0 at every eps, in exact arithmetic
    assert all(theta_mp(mu0, e) <= theta_mp(g.mu_upper, e) + delta0 for e in eps)
    # lower: just below mu_lower the claim fails at some eps
    below = g.mu_lower * (1 - 1e-6)
    fine = np.linspace(0, 12, 2401)
    assert any(theta_mp(mu0, e) - theta_mp(below, e) - delta0 > 0 for e in fine)
    assert g.mu_upper - g.mu_lower <= 2e-3 * g.mu_upper


def test_readme_run_bracket_and_default_slack(readme_gdp):
    g = readme_gdp
    assert isinstance(g, CertifiedGDP)
    assert g.delta0 == DEFAULT_DELTA0
    assert 0.55 < g.mu_lower <= g.mu_upper < g.mu_lower + 5e-3
    assert 0.0 < g.regret_lower <= g.regret_upper < 0.02
    # the central-limit mu (Dong, Roth, Su 2022, Cor. 5.4) is what the curve approaches, not a bound
    clt = README_RUN["sample_rate"] * np.sqrt(README_RUN["steps"] * np.expm1(1 / 1.1**2))
    assert abs(clt - g.mu_upper) < 0.03


def test_readme_run_directions_at_random_eps(readme_run, readme_gdp):
    g = readme_gdp
    rng = np.random.default_rng(95)
    eps = np.sort(rng.uniform(0, 12, 300))
    low, up = readme_run.delta(eps, bound="both")
    # mu_upper's curve plus delta0 lies above the certified upper delta (hence above the true one)
    for e, u in zip(eps, up):
        assert theta_mp(g.mu_upper, e) + g.delta0 >= u, e
    # just below mu_lower, the curve plus delta0 passes under a certified lower delta somewhere
    below = g.mu_lower * (1 - 1e-6)
    fine = np.arange(0, 6, 2.0**-9)
    low_fine = readme_run.delta(fine, bound="lower")
    assert any(lo - theta_mp(below, e) - g.delta0 > 0 for e, lo in zip(fine, low_fine))


def test_readme_run_lower_side_against_dp_accounting(readme_run):
    """dp_accounting's own PLD (an independent implementation; its connect-the-dots estimate, within about 1e-3
    relative of the true delta here) also puts the run's delta above theta(mu) + delta0 somewhere for mu just
    below mu_lower."""
    pld_module = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    pld = pld_module.from_gaussian_mechanism(
        standard_deviation=1.1,
        sampling_prob=README_RUN["sample_rate"],
        value_discretization_interval=1e-4,
    ).self_compose(README_RUN["steps"])
    g = certified_gdp(readme_run, delta0=1e-8)
    below = g.mu_lower * (1 - 1e-3)
    worst = max(
        pld.get_delta_for_epsilon(e) - float(theta_mp(below, e)) - g.delta0
        for e in np.arange(2.5, 3.3, 0.02)
    )
    assert worst > 0


def dp_accounting_gdp_estimate(accountant, reach: float = 40.0) -> float:
    """dp_accounting's ``get_gdp_parameter_estimate`` by its documented formula (PrivacyLossDistribution, in the
    repository after release 0.6.0), over the accountant's certified upper curve: the TPR upper bound at each FPR
    alpha in logspace(1e-12, 0.5, 500) is the least over delta in {0} + logspace(1e-13, 1, 3000) of
    min(e^eps alpha + delta, 1 - (1 - alpha - delta) e^-eps), eps = eps(delta); the estimate is the largest
    Phi^-1(TPR) - Phi^-1(alpha).  eps(delta) is read off the upper curve on an eps grid of spacing 1e-3 on
    [0, reach) (the least node whose upper delta is at most delta: an upper bound, as dp_accounting's pessimistic
    PLD gives).  The grid must reach the least positive delta (checked); beyond it only delta = 0 could find a
    node, and none for a curve positive at every eps (a subsampled Gaussian's), whatever the reach."""
    grid = np.arange(0.0, reach, 1e-3)
    upper = np.minimum.accumulate(np.asarray(accountant.delta(grid, bound="upper")))
    fprs = np.logspace(np.log10(1e-12), np.log10(0.5), num=500)
    deltas = np.concatenate(([0.0], np.logspace(np.log10(1e-13), 0.0, num=3000)))
    assert upper[-1] <= deltas[1], f"the eps grid stops above delta {deltas[1]:g}: raise reach"
    index = np.searchsorted(-upper, -deltas, side="left")  # first node with upper <= delta
    eps = np.where(index < grid.size, grid[np.minimum(index, grid.size - 1)], np.inf)
    tpr = np.ones_like(fprs)
    with np.errstate(over="ignore", invalid="ignore"):
        for d, e in zip(deltas, eps):
            if np.isinf(e):
                continue
            tpr = np.minimum(tpr, np.exp(e) * fprs + d)
            tpr = np.minimum(tpr, 1.0 + (fprs + d - 1.0) * np.exp(-e))
    return float(np.max(norm.ppf(tpr) - norm.ppf(fprs)))


def test_dp_accounting_formula_on_a_gaussian_mechanism():
    mechanism = GaussianMechanism(sigma=2.0)
    estimate = dp_accounting_gdp_estimate(mechanism)
    g = certified_gdp(mechanism)
    assert abs(estimate - 0.5) < 1e-3  # dp_accounting's own test tolerance for a Gaussian
    assert g.mu_lower - 1e-3 <= estimate <= g.mu_upper + 1e-3


def test_dp_accounting_formula_on_the_readme_run(readme_run, readme_gdp):
    # the upper curve is below 1e-13 from eps 4.4 and positive at every eps: a reach of 6 reads every node the
    # formula's deltas find on [0, 40)
    estimate = dp_accounting_gdp_estimate(readme_run, reach=6.0)
    # its FPRs reach 1e-12 without a slack: above the bracket at delta0 = 1e-10, never below its lower side
    assert readme_gdp.mu_lower <= estimate
    assert estimate - readme_gdp.mu_upper < 0.02


@pytest.mark.parametrize(
    ("noise_multiplier", "sample_rate", "steps"),
    [(9.4, 2**14 / 50_000, 2000), tuple(README_RUN.values())],
)
def test_gdpnum_estimates_against_the_bracket(noise_multiplier, sample_rate, steps, request):
    """gdpnum's test example (its README's is the same run at sample rate 0.328 for 2**14 / 50000), then the
    README run: gdpnum's mu, read off a trade-off curve built from dp_accounting's PLD at its breakpoints with
    alpha, beta >= 1e-10, is not a certified claim.  It lies at or below the certified bracket at delta0 = 1e-10
    (on the README run well below mu_lower: that curve's profile misses the mass of dp_accounting's own delta at
    eps >= 1), and its regret is of the same size as ours."""
    gdpnum = pytest.importorskip("gdpnum")
    mu, regret = gdpnum.dpsgd.get_mu_and_regret_for_dpsgd(
        noise_multiplier=noise_multiplier, sample_rate=sample_rate, num_steps=steps
    )
    run = {"noise_multiplier": noise_multiplier, "sample_rate": sample_rate, "steps": steps}
    g = request.getfixturevalue("readme_gdp") if run == README_RUN else certified_gdp(DPSGD(**run))
    assert mu <= g.mu_upper
    assert g.mu_upper - mu < 0.03
    assert regret < 0.01 and g.regret_upper < 0.01


@pytest.fixture(scope="module")
def direct_gdp():
    """The bracket of 1000 rounds of the subsampled Gaussian (sigma 2, rate 0.02) read off its PLD directly, which
    the ledger and DP-FedAvg doors of the same composition must reach."""
    return certified_gdp(SubsampledGaussianPLD(sigma=2.0, sampling_rate=0.02, rounds=1000))


def test_ledger_reaches_the_composition_bracket(direct_gdp):
    ledger = PrivacyLedger(adaptive=False)
    ledger.record(Round.subsampled_gaussian(2.0, 0.02), rounds=1000)
    from_ledger = certified_gdp(ledger)
    direct = direct_gdp
    assert from_ledger.mu_lower <= direct.mu_upper and direct.mu_lower <= from_ledger.mu_upper
    assert abs(from_ledger.mu_upper - direct.mu_upper) < 1e-3


class FlatTail:
    """A certified curve that flattens at 1e-12 (a round-off floor): no mu covers it with a smaller slack."""

    def delta(self, epsilon, *, bound="upper"):
        up = np.maximum(np.asarray(GaussianMechanism(sigma=1.0).delta(epsilon)), 1e-12)
        low = np.zeros_like(up)
        return {"lower": low, "upper": up, "both": (low, up)}[bound]


def test_refusals():
    with pytest.raises(TypeError):
        certified_gdp(object())
    for bad in (-1e-3, 1.0, float("nan")):
        with pytest.raises(ValueError, match="delta0"):
            certified_gdp(GaussianMechanism(sigma=1.0), delta0=bad)
    with pytest.raises(ValueError, match="floor"):
        certified_gdp(FlatTail(), delta0=1e-13)
    with pytest.raises(ValueError, match="adaptive"):
        certified_gdp(PrivacyLedger(adaptive=True))


def test_cli_gdp(capsys):
    assert main(["risk", "-a", "gaussian", "-p", "sigma=2", "--gdp", "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["delta0"] == 0.0 and row["mu_lower"] <= 0.5 <= row["mu_upper"]
    assert main(["risk", "-a", "gaussian", "-p", "sigma=2", "--gdp", "--delta0", "1e-6"]) == 0
    out = capsys.readouterr().out
    assert "mu_upper" in out and "1e-06" in out
    for args in (["--gdp", "--fpr", "0.1"], [], ["--fpr", "0.1", "--delta0", "1e-6"]):
        assert main(["risk", "-a", "gaussian", "-p", "sigma=2", *args]) == 2


def test_other_accountants_reach_it(direct_gdp):
    """A DP-FedAvg run and an RDP accountant (any object with .delta): the upper side covers the RDP
    conversion's curve, whose lower side is 0 (it gives no lower delta)."""
    fedavg = DPFedAvg(noise_multiplier=2.0, total_clients=5_000, clients_per_round=100, rounds=1000)
    g = certified_gdp(fedavg)
    direct = direct_gdp
    assert g.mu_lower <= direct.mu_upper and direct.mu_lower <= g.mu_upper
    rdp = certified_gdp(SubsampledGaussianRDP(sigma=2.0, sampling_rate=0.02, rounds=1000))
    assert rdp.mu_lower == 0.0 and rdp.mu_upper >= g.mu_lower


@pytest.mark.parametrize("mu", [1e-3, 2.0, 1000.0])
def test_gaussian_dp_is_its_own_mu(mu):
    g = certified_gdp(GaussianDP(mu))
    assert g.mu_lower == g.mu_upper == mu


def test_a_slack_above_delta_at_zero_needs_no_mu():
    g = certified_gdp(
        GaussianMechanism(sigma=1.0), delta0=0.9
    )  # delta(0) = 2 Phi(1/2) - 1 = 0.38 < 0.9
    assert g.mu_lower == g.mu_upper == 0.0


class LaplaceClosedForm:
    """The Laplace mechanism of scale 1/m (sensitivity 1): delta(eps) = 1 - e^((eps - m)/2) on [0, m], 0 beyond
    (pure m-DP), its sides rounded outward by 1e-13 relative (far above the formula's own rounding)."""

    def __init__(self, m: float):
        self.m = m

    def delta(self, epsilon, *, bound="upper"):
        eps = np.asarray(epsilon, dtype=float)
        exact = np.where(eps < self.m, -np.expm1((np.minimum(eps, self.m) - self.m) / 2), 0.0)
        low, up = exact * (1 - 1e-13), np.where(exact > 0, exact * (1 + 1e-13), 0.0)
        return {"lower": low, "upper": up, "both": (low, up)}[bound]


def laplace_tradeoff(m: float, alpha: np.ndarray) -> np.ndarray:
    """Lap(0, 1) against Lap(m, 1) (Dong, Roth, Su 2022, the Laplace mechanism's trade-off function)."""
    a = np.asarray(alpha, dtype=float)
    with np.errstate(divide="ignore"):
        middle = np.exp(-m) / (4 * a)
    return np.where(
        a < np.exp(-m) / 2, 1 - np.exp(m) * a, np.where(a <= 0.5, middle, np.exp(-m) * (1 - a))
    )


def regret_by_definition(f, mu: float) -> float:
    """gdpnum's regret from its definition: the least Delta with f(min(alpha + Delta, 1)) - Delta <= G_mu(alpha)
    on a fine alpha grid (bisection on Delta)."""
    alpha = np.concatenate([np.logspace(-12, -3, 2000), np.linspace(1e-3, 1, 200_001)])
    gaussian = norm.cdf(norm.isf(alpha) - mu)
    low, high = 0.0, 1.0
    for _ in range(60):
        mid = (low + high) / 2
        if np.all(f(np.minimum(alpha + mid, 1.0)) - mid <= gaussian):
            high = mid
        else:
            low = mid
    return high


def test_pure_dp_needs_no_slack_and_the_regret_matches_its_definition():
    m = 1.0
    g = certified_gdp(LaplaceClosedForm(m), delta0=0.0)
    assert g.delta0 == 0.0 and g.reach <= m + 0.125
    assert 0 < g.mu_lower <= g.mu_upper < g.mu_lower + 1e-3
    exact = lambda e: -mpmath.expm1((mpmath.mpf(e) - m) / 2) if e < m else mpmath.mpf(0)  # noqa: E731
    dense = np.concatenate([np.linspace(0, 3, 3001), np.random.default_rng(3).uniform(0, 3, 300)])
    assert all(exact(e) <= theta_mp(g.mu_upper, e) for e in dense)
    below = g.mu_lower * (1 - 1e-6)
    assert any(exact(e) - theta_mp(below, e) > 0 for e in np.linspace(0, m, 4001))
    # the regret's profile form against the definition on the closed-form trade-off curve
    reference = regret_by_definition(lambda a: laplace_tradeoff(m, a), g.mu_upper)
    assert g.regret_lower - 1e-5 <= reference <= g.regret_upper + 1e-5
    assert g.regret_upper - g.regret_lower < 1e-4
