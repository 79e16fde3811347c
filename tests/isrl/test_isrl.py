"""Paper 003: the paper's calibrations as written, beside certified accounting of the same transcripts."""

import math

import mpmath
import numpy as np
import pytest

import hockeystick as hs
from hockeystick import isrl
from hockeystick.calibrate import calibrate

H = 1e-3  # PLD grid for these tests (the errata tables use the same)
N, DELTA = 1238, 1 / 1238**2  # paper 003's MNIST silo size and delta = 1/n^2


def test_theorem_2_1_formulas_against_mpmath():
    rng = np.random.default_rng(0)
    for _ in range(50):
        lip, r, n = rng.uniform(0.1, 10), int(rng.integers(1, 1000)), int(rng.integers(10, 10**5))
        delta = 10 ** rng.uniform(-12, -2)
        eps = rng.uniform(0.01, 2 * math.log(2 / delta))
        mp_sigma = mpmath.sqrt(
            256
            * mpmath.mpf(lip) ** 2
            * r
            * mpmath.log(2.5 * r / mpmath.mpf(delta))
            * mpmath.log(2 / mpmath.mpf(delta))
        ) / (n * mpmath.mpf(eps))
        sigma = isrl.theorem_2_1_sigma(
            lipschitz=lip, rounds=r, silo_size=n, epsilon=eps, delta=delta
        )
        assert sigma == pytest.approx(float(mp_sigma), rel=1e-13)
        k = isrl.theorem_2_1_batch_size(rounds=r, silo_size=n, epsilon=eps, delta=delta)
        bound = eps * n / (4 * math.sqrt(2 * r * math.log(2 / delta)))
        assert k >= bound and k - 1 < max(bound, 1) and k == int(k)


def test_appendix_i_and_theorem_3_1_formulas_against_mpmath():
    lip, r, n, eps, delta, k = 2.0, 35, 1238, 1.5, DELTA, 7
    assert isrl.appendix_i_sigma(
        lipschitz=lip, rounds=r, silo_size=n, epsilon=eps, delta=delta
    ) == pytest.approx(
        float(mpmath.sqrt(8 * lip**2 * mpmath.log(1 / mpmath.mpf(delta)) * r) / (n * eps)),
        rel=1e-14,
    )
    assert isrl.appendix_i_sigma(
        lipschitz=lip, rounds=r, silo_size=n, epsilon=eps, delta=delta, local_steps=k
    ) == pytest.approx(
        float(mpmath.sqrt(8 * lip**2 * mpmath.log(1 / mpmath.mpf(delta)) * r * k) / (n * eps)),
        rel=1e-14,
    )
    assert isrl.appendix_i_batch_size(rounds=r, silo_size=n, epsilon=eps) == round(
        n * math.sqrt(eps) / (2 * math.sqrt(r))
    )
    assert isrl.theorem_3_1_sigma(
        lipschitz=lip, batch_size=k, epsilon=eps, delta=delta
    ) == pytest.approx(
        float(mpmath.sqrt(32 * lip**2 * mpmath.log(1.25 / mpmath.mpf(delta))) / (eps * k)),
        rel=1e-14,
    )
    assert isrl.theorem_3_1_rounds(silo_size=n, batch_size=k) == n // k


def test_formulas_broadcast_per_silo():
    """Theorem H.1 is Theorem 2.1 per silo: arrays of silo sizes and targets give one sigma each."""
    sizes, eps = np.array([100, 1000, 5000]), np.array([0.5, 1.0, 2.0])
    sigmas = isrl.theorem_2_1_sigma(
        lipschitz=1.0, rounds=50, silo_size=sizes, epsilon=eps, delta=1e-6
    )
    assert sigmas.shape == (3,)
    for i in range(3):
        assert sigmas[i] == isrl.theorem_2_1_sigma(
            lipschitz=1.0, rounds=50, silo_size=int(sizes[i]), epsilon=float(eps[i]), delta=1e-6
        )


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: isrl.theorem_2_1_sigma(
                lipschitz=1, rounds=10, silo_size=100, epsilon=40.0, delta=1e-5
            ),
            r"epsilon must be <= 2 ln\(2/delta\) for Theorem 2.1",
        ),
        (
            lambda: isrl.theorem_3_1_sigma(lipschitz=1, batch_size=10, epsilon=100.0, delta=1e-5),
            r"epsilon must be <= 8 ln\(1/delta\) for Theorem 3.1",
        ),
        (
            lambda: isrl.theorem_2_1_sigma(
                lipschitz=1, rounds=10, silo_size=100, epsilon=1.0, delta=1.0
            ),
            "delta must lie strictly between 0 and 1",
        ),
        (
            lambda: isrl.theorem_2_1_sigma(
                lipschitz=-1, rounds=10, silo_size=100, epsilon=1.0, delta=1e-5
            ),
            "lipschitz must be finite and > 0",
        ),
        (
            lambda: isrl.appendix_i_batch_size(rounds=2.5, silo_size=100, epsilon=1.0),
            "rounds must be an integer >= 1",
        ),
        (
            lambda: isrl.theorem_3_1_rounds(silo_size=10, batch_size=11),
            "batch_size must be <= silo_size",
        ),
        (
            lambda: isrl.NoisyMBSGD(sigma=1, lipschitz=0, batch_size=5, silo_size=10, rounds=3),
            "lipschitz must be finite and > 0",
        ),
    ],
)
def test_validity_ranges_are_enforced(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.slow
def test_theorem_2_1_is_valid_but_several_times_too_noisy():
    eps0, rounds = 1.0, 35
    k = int(isrl.theorem_2_1_batch_size(rounds=rounds, silo_size=N, epsilon=eps0, delta=DELTA))
    paper = isrl.theorem_2_1_sigma(
        lipschitz=1.0, rounds=rounds, silo_size=N, epsilon=eps0, delta=DELTA
    )
    spent = isrl.NoisyMBSGD(
        sigma=paper,
        lipschitz=1.0,
        batch_size=k,
        silo_size=N,
        rounds=rounds,
        value_discretization_interval=H,
    ).epsilon(DELTA)
    assert spent <= eps0  # the theorem's claim holds (certified)
    needed = calibrate(
        "isrl_noisy_mb_sgd",
        "sigma",
        epsilon=eps0,
        delta=DELTA,
        lipschitz=1.0,
        batch_size=k,
        silo_size=N,
        rounds=rounds,
        value_discretization_interval=H,
        start=paper / 5,
        rtol=1e-3,
    )
    assert (
        isrl.NoisyMBSGD(
            sigma=needed,
            lipschitz=1.0,
            batch_size=k,
            silo_size=N,
            rounds=rounds,
            value_discretization_interval=H,
        ).epsilon(DELTA)
        <= eps0
    )
    assert 5 < paper / needed < 8  # 6.8 (docs/paper-003-errata.md, section 3)


def test_appendix_i_rule_is_false_at_eps_1_5():
    """The certified LOWER bound on what the prescribed noise spends exceeds the stated epsilon."""
    eps, rounds = 1.5, 35
    k = int(isrl.appendix_i_batch_size(rounds=rounds, silo_size=N, epsilon=eps))
    sigma = isrl.appendix_i_sigma(
        lipschitz=1.0, rounds=rounds, silo_size=N, epsilon=eps, delta=DELTA
    )
    lower, upper = isrl.NoisyMBSGD(
        sigma=sigma,
        lipschitz=1.0,
        batch_size=k,
        silo_size=N,
        rounds=rounds,
        value_discretization_interval=H,
    ).epsilon(DELTA, bound="both")
    assert eps < lower <= upper


def test_one_pass_is_one_gaussian_release():
    sigma, lip, k = 0.3, 1.5, 20
    acc = isrl.OnePassNoisyMBSGD(sigma=sigma, lipschitz=lip, batch_size=k)
    for eps in (
        0.0,
        0.5,
        2.0,
    ):  # theta rounded outward (docs/howto-mechanism.md): within 1e-12 above it
        exact = hs.theta(2 * lip / (k * sigma), eps)
        assert exact <= acc.delta(eps) <= exact * (1 + 2e-12)
    # Theorem 3.1's sigma meets its target on the exact curve (a valid, looser, calibration)
    paper = isrl.theorem_3_1_sigma(lipschitz=lip, batch_size=k, epsilon=1.0, delta=1e-6)
    assert isrl.OnePassNoisyMBSGD(sigma=paper, lipschitz=lip, batch_size=k).delta(1.0) <= 1e-6


def test_user_level_exact_beats_group_privacy():
    sigma, lip, rounds = 1.278, 1.0, 35
    exact = isrl.UserLevelNoisyMBSGD(sigma=sigma, lipschitz=lip, rounds=rounds)
    mu = math.sqrt(rounds) * 2 * lip / sigma
    assert hs.theta(mu, 3.0) <= exact.delta(3.0) <= hs.theta(mu, 3.0) * (1 + 2e-12)
    # group privacy over a silo of 1238 records says nothing (delta overflows past 1); over 5 records
    # it gives (5 eps0, 5 e^{4 eps0} delta0), which the exact user-level curve of 5-record silos beats.
    assert isrl.user_level_group_privacy(epsilon=1.0, delta=DELTA, silo_size=N)[1] > 1
    g_eps, g_delta = isrl.user_level_group_privacy(epsilon=0.2, delta=1e-8, silo_size=5)
    assert (g_eps, g_delta) == pytest.approx((1.0, 5 * math.exp(0.8) * 1e-8), rel=1e-15)


def test_registered_for_calibration():
    from hockeystick.sweep import registry

    for name in ("isrl_noisy_mb_sgd", "isrl_one_pass", "isrl_user_level"):
        assert "sigma" in registry.get(name).calibratable
    sigma = calibrate(
        "isrl_one_pass", "sigma", epsilon=1.0, delta=1e-6, lipschitz=1.0, batch_size=10
    )
    assert isrl.OnePassNoisyMBSGD(sigma=sigma, lipschitz=1.0, batch_size=10).delta(1.0) <= 1e-6
    assert (
        isrl.OnePassNoisyMBSGD(sigma=sigma * (1 - 1e-6), lipschitz=1.0, batch_size=10).delta(1.0)
        > 1e-6
    )


def test_lemma_d6_bound_and_its_best_step():
    args = dict(
        lipschitz=1.0,
        diameter=2.0,
        rounds=100,
        sigma=0.5,
        dimension=50,
        silos_per_round=25,
        smoothness=1.0,
    )
    eta = 0.05
    empirical = isrl.lemma_d6_excess_risk(step_size=eta, **args)
    assert empirical == pytest.approx(
        4 / (2 * eta * 100) + eta / 2 * (50 * 0.25 / 25 + 1), rel=1e-15
    )
    population = isrl.lemma_d6_excess_risk(step_size=eta, silo_size=1238, **args)
    assert population == pytest.approx(empirical + 2 * 100 * eta / (1238 * 25), rel=1e-15)
    # the best step is a minimum of the convex function of eta (within the eta <= 1/beta cap)
    best = isrl.lemma_d6_best_step_size(**args)
    at = lambda e: isrl.lemma_d6_excess_risk(step_size=e, **args)  # noqa: E731
    assert at(best) <= min(at(best * 0.99), at(min(best * 1.01, 1.0)))
    # more noise, a worse bound: sigma traded against utility
    assert isrl.lemma_d6_excess_risk(step_size=eta, **(args | {"sigma": 1.0})) > empirical
    with pytest.raises(ValueError, match=r"step_size must be <= 1/smoothness"):
        isrl.lemma_d6_excess_risk(step_size=2.0, **args)
    with pytest.raises(ValueError, match="rounds must be an integer >= 1"):
        isrl.lemma_d6_excess_risk(step_size=eta, **(args | {"rounds": 0.5}))


def test_minibatch_sgd_average_output_is_the_mean_of_the_iterates():
    pytest.importorskip("numba")
    import hockeystick.simulate as sim

    data = sim.synthetic("logistic", 6, 20, 5, seed=3)
    common = dict(rounds=12, batch=4, rate=0.3, sigma=0.2, clip=1.0, seed=1)
    last = sim.isrl_minibatch_sgd(data, trajectory=True, **common)
    average = sim.isrl_minibatch_sgd(data, output="average", **common)
    np.testing.assert_allclose(
        average.weights, last.trajectory[:-1].mean(axis=0), rtol=1e-13, atol=1e-15
    )
    assert average.final_loss == sim.evaluate(data, average.weights)[0]
    assert average.loss[0] == last.loss[0] and average.epsilons(1e-5) == last.epsilons(1e-5)
    with pytest.raises(ValueError, match='output must be "last" or "average"'):
        sim.isrl_minibatch_sgd(data, output="best", **common)


@pytest.mark.slow
def test_certified_sigma_buys_accuracy_at_the_same_privacy():
    """Figs. 4-9's shape from the simulator: at every eps0 the certified sigma (smaller, same guarantee)
    gives a lower test error than Theorem 2.1's, by a clear margin at eps0 = 6."""
    pytest.importorskip("numba")
    pytest.importorskip("sklearn")
    from hockeystick.reproduce.errata_003 import utility_rows

    rows = utility_rows((1.5, 6.0), seeds=2)
    for row in rows:
        assert row["sigma_needed"] < row["sigma_paper"] / 4
        assert row["test_error_certified"] < row["test_error_paper"]
    assert rows[-1]["test_error_paper"] - rows[-1]["test_error_certified"] > 0.15


@pytest.mark.slow
def test_figures_without_the_simulate_extra_skip_only_the_utility_figure(monkeypatch, tmp_path):
    """`pip install .[plot]` has no numba: `hockeystick figures` still writes the tables and the sigma
    plot, and leaves out only the simulator's figure (the tables' numbers are stubbed here: they are
    tested above)."""
    pytest.importorskip("matplotlib")
    import importlib.util

    from hockeystick.reproduce import errata_003

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "numba" else real(name, *a)
    )
    monkeypatch.setattr(errata_003, "theory_rows", lambda: [])
    monkeypatch.setattr(errata_003, "experiment_rows", lambda: [])
    monkeypatch.setattr(
        errata_003, "shuffle_rows", lambda: []
    )  # its rows: test_isrl_shuffle_approximate.py
    monkeypatch.setattr(
        errata_003, "group_rows", lambda: []
    )  # the whole table: test_contraction_figures.py
    monkeypatch.setattr(
        errata_003,
        "sigma_curves",
        lambda: {
            "epsilon": np.array([1.0, 2.0]),
            "paper": np.array([2.0, 1.0]),
            "certified": np.array([0.5, 0.2]),
        },
    )
    monkeypatch.setattr(
        errata_003, "utility_rows", lambda: pytest.fail("the simulator ran without numba")
    )
    paths = errata_003.write_tables_and_figure(tmp_path)
    assert [p.name for p in paths] == ["paper-003-calibration.md", "paper-003-sigma.png"]
