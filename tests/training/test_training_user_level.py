"""User-level DP-SGD (``DPSGD(examples_per_user=k)``): the binomial mixture of Gaussians against independent
references (mpmath's hockey-stick divergence of one step, dp_accounting's mixture-of-Gaussians PLD), k = 1
against DP-SGD itself, and the refusals."""

from __future__ import annotations

import mpmath
import pytest

from hockeystick.pld.grid.distribution import PrivacyLossDistribution
from hockeystick.pld.sampling.examples_per_user import examples_per_user_gaussian
from hockeystick.training import DPSGD
from hockeystick.training.user_level import UserLevelDPSGD


def _hockey_stick(sigma: float, q: float, k: int, epsilon: float, remove: bool) -> mpmath.mpf:
    """E_{e^eps}(P || Q) (remove) or E_{e^eps}(Q || P) (add) of P = sum_j Binom(j; k, q) N(j, sigma^2),
    Q = N(0, sigma^2): the loss is increasing, so the divergence is the masses beyond the root x* of
    L(x) = +-eps, in closed form from the normal tails (mpmath at 40 digits)."""
    mpmath.mp.dps = 40
    s, g = mpmath.mpf(sigma), mpmath.e ** mpmath.mpf(epsilon)
    w = [
        mpmath.binomial(k, j) * mpmath.mpf(q) ** j * (1 - mpmath.mpf(q)) ** (k - j)
        for j in range(k + 1)
    ]

    def loss(x: mpmath.mpf) -> mpmath.mpf:
        return mpmath.log(
            sum(w[j] * mpmath.e ** ((j * x - j * j / mpmath.mpf(2)) / s**2) for j in range(k + 1))
        )

    target = mpmath.mpf(epsilon) if remove else -mpmath.mpf(epsilon)
    if target <= mpmath.log(
        w[0]
    ):  # L >= log w_0 everywhere: dQ - e^eps dP <= 0 (add), or only x -> -inf
        return mpmath.mpf(0) if not remove else 1 - g
    lo, hi = mpmath.mpf(-60), mpmath.mpf(60)
    for _ in range(200):  # bisection on the increasing loss
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if loss(mid) < target else (lo, mid)
    x = (lo + hi) / 2
    above_p = sum(w[j] * mpmath.ncdf(-(x - j) / s) for j in range(k + 1))
    above_q = mpmath.ncdf(-x / s)
    if remove:
        return above_p - g * above_q
    return (1 - above_q) - g * (1 - above_p)


def test_one_step_brackets_the_exact_hockey_stick_in_both_orders() -> None:
    d = examples_per_user_gaussian(0.8, 0.2, 3)
    for direction, remove in ((0, True), (1, False)):
        one = PrivacyLossDistribution([d.directions[direction]], d.tail)
        for epsilon in (0.0, 0.5, 1.5):
            lower, upper = one.delta(epsilon, bound="both")
            exact = float(_hockey_stick(0.8, 0.2, 3, epsilon, remove))
            assert lower <= exact * (1 + 1e-12) and exact <= upper * (1 + 1e-12), (remove, epsilon)
            assert upper - lower <= 1e-3 * exact + 1e-14  # the grid's width, not a loose bound


def test_k_one_is_dp_sgd_exactly_and_the_mixture_agrees_with_it() -> None:
    words = {"dataset_size": 1000, "batch_size": 10, "steps": 300, "noise_multiplier": 1.0}
    assert DPSGD(**words, examples_per_user=1).epsilon(1e-5, bound="both") == DPSGD(
        **words
    ).epsilon(1e-5, bound="both")
    # the mixture's own pair at k = 1 (not DP-SGD's accountant) brackets the same value
    lower, upper = (
        examples_per_user_gaussian(1.0, 0.01, 1).self_compose(300).epsilon(1e-5, bound="both")
    )
    reference_lower, reference_upper = DPSGD(**words).epsilon(1e-5, bound="both")
    assert lower <= reference_upper and reference_lower <= upper


def test_against_dp_accounting_mixture_of_gaussians_pld() -> None:
    from dp_accounting.pld import privacy_loss_distribution as dpa
    from scipy import stats

    k, q, z, steps = 4, 0.01, 1.0, 20
    weights = [float(w) for w in stats.binom.pmf(range(k + 1), k, q)]
    theirs = dpa.from_mixture_gaussian_mechanism(
        z, list(range(k + 1)), weights, value_discretization_interval=1e-2
    ).self_compose(steps)
    lower, upper = UserLevelDPSGD(
        noise_multiplier=z, sample_rate=q, steps=steps, examples_per_user=k
    ).epsilon(1e-5, bound="both")
    pessimistic = theirs.get_epsilon_for_delta(1e-5)  # an upper estimate on a coarser grid
    assert lower <= pessimistic and pessimistic - upper < 2e-3


def test_more_examples_per_user_cost_more_and_broadcast() -> None:
    run = DPSGD(sample_rate=0.01, steps=50, noise_multiplier=1.0, examples_per_user=[1, 2, 4])
    eps = run.epsilon(1e-5)
    assert eps.shape == (3,) and eps[0] < eps[1] < eps[2]
    # raising every drawn count to k gives a dominating pair, the subsampled Gaussian of shift k (noise z / k) at
    # the rate 1 - (1 - q)^k that any of the user's examples is drawn: above the mixture
    for i, k in ((1, 2), (2, 4)):
        coarser = DPSGD(sample_rate=1 - 0.99**k, steps=50, noise_multiplier=1.0 / k).epsilon(1e-5)
        assert eps[i] <= coarser


@pytest.mark.parametrize(
    ("words", "message"),
    [
        ({"sampling": "fixed_size", "examples_per_user": 4}, 'sampling="poisson" only'),
        ({"examples_per_user": 4, "accuracy": 1e-3}, "accuracy is not available"),
        ({"examples_per_user": 0}, "examples_per_user"),
        ({"examples_per_user": 2.5}, "examples_per_user"),
        ({"examples_per_user": 10**6}, "at most 100000"),
    ],
)
def test_refusals_name_the_argument(words: dict[str, object], message: str) -> None:
    base = {"dataset_size": 1000, "batch_size": 10, "steps": 10, "noise_multiplier": 1.0}
    with pytest.raises(ValueError, match=message):
        DPSGD(**{**base, **words}).epsilon(1e-5)


@pytest.mark.parametrize(
    ("sampling", "reason"),
    [
        ("fixed_size", "hypergeometric"),
        ("balls_in_bins", "random allocation"),
        ("shuffle", "a permutation"),
    ],
)
def test_other_samplings_are_refused_naming_the_reason_and_the_two_ways_that_hold(
    sampling: str, reason: str
) -> None:
    with pytest.raises(ValueError, match=f'sampling="{sampling}"') as refusal:
        DPSGD(
            dataset_size=1000,
            batch_size=10,
            steps=10,
            noise_multiplier=1.0,
            sampling=sampling,
            examples_per_user=4,
        )
    message = str(refusal.value)
    assert reason in message and 'Use sampling="poisson"' in message
    assert "group privacy" in message and "(k eps0, k exp((k - 1) eps0) delta0)" in message


def test_stages_and_curves_are_refused() -> None:
    with pytest.raises(ValueError, match="stages"):
        DPSGD(
            dataset_size=1000,
            batch_size=10,
            examples_per_user=2,
            stages=[{"noise_multiplier": 1.0, "steps": 5}],
        )
    run = DPSGD(
        dataset_size=1000, batch_size=10, steps=10, noise_multiplier=1.0, examples_per_user=2
    )
    with pytest.raises(ValueError, match="curve along the run"):
        run.epsilon_curve(1e-5)


def test_the_command_line_flag(capsys: pytest.CaptureFixture[str]) -> None:
    from hockeystick.cli import main

    words = "--dataset-size 1000 --batch-size 10 --steps 20 --noise-multiplier 1 --examples-per-user 4 --delta 1e-5"
    assert main(["epsilon", *words.split(), "--format", "json"]) == 0
    printed = capsys.readouterr().out
    assert (
        f"{DPSGD(sample_rate=0.01, steps=20, noise_multiplier=1.0, examples_per_user=4).epsilon(1e-5):.5g}"[
            :5
        ]
        in printed
    )
    assert main(["epsilon", *words.split(), "--sampling", "fixed_size"]) == 2
    assert "--examples-per-user is certified with" in capsys.readouterr().err
