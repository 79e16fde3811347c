"""The individual Rényi filter (Feldman & Zrnic 2021): each record's admitted steps against the closed form of its
single-order budget, the exact guarantee of what it took part in (the Gaussian mechanism composed, by its
closed form) never above the budget, restarts that change nothing, and refusals by name."""

from __future__ import annotations

import json
import math

import mpmath as mp
import numpy as np
import pytest
from scipy.stats import norm

from hockeystick.ledger import IndividualRdpFilter

mp.mp.dps = 40


def exact_budget(epsilon: float, delta: float, alpha: int) -> mp.mpf:
    """B(alpha) = eps + (log delta + log alpha) / (alpha - 1) - log(1 - 1 / alpha), one order, at 40 digits."""
    a = mp.mpf(alpha)
    return mp.mpf(epsilon) + (mp.log(delta) + mp.log(a)) / (a - 1) - mp.log(1 - 1 / a)


def gaussian_delta(epsilon: float, mu: float) -> float:
    """The exact delta(eps) of the Gaussian mechanism of GDP parameter mu (Balle & Wang 2018, Thm. 8)."""
    if mu == 0:
        return 0.0  # a record that took part in no step
    return float(
        norm.cdf(-epsilon / mu + mu / 2) - math.exp(epsilon) * norm.cdf(-epsilon / mu - mu / 2)
    )


@pytest.mark.parametrize("sigma", [6.0, 10.0])
def test_each_record_takes_the_steps_its_clipped_norm_pays_for_and_no_more(sigma):
    norms = np.array([7.0, 1.0, 0.5, 0.1, 0.0])  # clip norm 2: ratios 1, 0.5, 0.25, 0.05, 0
    f = IndividualRdpFilter(5, noise_multiplier=sigma, max_grad_norm=2.0, epsilon=1.0, delta=1e-5)
    (alpha,) = f.orders
    used = np.zeros(5, dtype=int)
    for _ in range(3000):
        used += f.admit(norms)
    budget = exact_budget(1.0, 1e-5, alpha)
    for ratio, n in zip([1.0, 0.5, 0.25, 0.05], used[:4]):
        loss = mp.mpf(alpha) * mp.mpf(ratio) ** 2 / (2 * mp.mpf(sigma) ** 2)
        assert n * loss <= budget < (n + 1) * loss  # exactly the steps the budget pays for
    assert used[4] == 3000  # a zero gradient costs nothing
    # the exact guarantee of what each record took part in: n Gaussian steps of sensitivity ratio, GDP mu
    for ratio, n in zip([1.0, 0.5, 0.25, 0.05], used[:4]):
        mu = math.sqrt(n) * ratio / sigma
        assert gaussian_delta(1.0, mu) <= 1e-5


def test_a_step_with_more_noise_costs_less_and_adaptive_noise_keeps_the_budget():
    f = IndividualRdpFilter(
        1, noise_multiplier=2.0, max_grad_norm=1.0, epsilon=2.0, delta=1e-6, orders=8
    )
    sigmas, admitted = [], []
    for step in range(400):
        sigma = 2.0 if step % 3 else 6.0  # chosen along the run
        sigmas.append(sigma)
        admitted.append(bool(f.admit([1.0], noise_multiplier=sigma)[0]))
    spent = sum(mp.mpf(8) / (2 * mp.mpf(s) ** 2) for s, a in zip(sigmas, admitted) if a)
    assert spent <= exact_budget(2.0, 1e-6, 8)
    # once refused at sigma 2, a step at sigma 6 (nine times cheaper) may still be admitted
    assert not all(admitted) and any(a for s, a in zip(sigmas, admitted) if s == 6.0)
    g = f.guarantee()
    assert (g.kind, g.method, g.epsilon, g.delta, g.rounds) == ("filter", "rdp", 2.0, 1e-6, 400)


def test_a_restart_from_the_saved_state_loses_and_repeats_nothing():
    rng = np.random.default_rng(1)
    norms = rng.exponential(1.0, size=(120, 50))
    whole = IndividualRdpFilter(
        50, noise_multiplier=4.0, max_grad_norm=1.0, epsilon=1.0, delta=1e-5
    )
    first = [whole.admit(n) for n in norms]
    half = IndividualRdpFilter(50, noise_multiplier=4.0, max_grad_norm=1.0, epsilon=1.0, delta=1e-5)
    masks = [half.admit(n) for n in norms[:60]]
    state = json.loads(json.dumps(half.state_dict()))
    resumed = IndividualRdpFilter(
        50, noise_multiplier=4.0, max_grad_norm=1.0, epsilon=1.0, delta=1e-5
    )
    resumed.load_state_dict(state)
    resumed.load_state_dict(state)  # loading twice is loading once
    masks += [resumed.admit(n) for n in norms[60:]]
    assert all((a == b).all() for a, b in zip(first, masks)) and resumed.steps == whole.steps == 120
    assert not np.stack(first).all() and np.stack(first).any()  # the run reaches budgets


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: IndividualRdpFilter(0, noise_multiplier=1.0, max_grad_norm=1.0, epsilon=1.0, delta=1e-5), "num_records"),
        (lambda: IndividualRdpFilter(2, noise_multiplier=0.0, max_grad_norm=1.0, epsilon=1.0, delta=1e-5), "noise_multiplier"),
        (lambda: IndividualRdpFilter(2, noise_multiplier=1.0, max_grad_norm=math.inf, epsilon=1, delta=1e-5), "max_grad_norm"),
        (lambda: IndividualRdpFilter(2, noise_multiplier=1.0, max_grad_norm=1.0, epsilon=-1.0, delta=1e-5), "epsilon"),
        (lambda: IndividualRdpFilter(2, noise_multiplier=1.0, max_grad_norm=1.0, epsilon=1.0, delta=1.0), "delta"),
        (lambda: IndividualRdpFilter(2, noise_multiplier=1.0, max_grad_norm=1.0, epsilon=1, delta=1e-5, orders=1), "orders"),
        (lambda: IndividualRdpFilter(2, noise_multiplier=1.0, max_grad_norm=1.0, epsilon=1, delta=1e-5).admit([1.0]), "grad_norms"),
        (lambda: IndividualRdpFilter(2, noise_multiplier=1.0, max_grad_norm=1.0, epsilon=1, delta=1e-5).admit([1.0, math.nan]), "grad_norms"),
        (lambda: IndividualRdpFilter(2, noise_multiplier=1.0, max_grad_norm=1.0, epsilon=1, delta=1e-5).admit([1.0, 1.0], 0), "noise_multiplier"),
    ],
)  # fmt: skip
def test_bad_settings_are_refused_by_name(call, words):
    with pytest.raises(ValueError, match=words):
        call()


def test_a_state_of_another_configuration_is_refused():
    state = IndividualRdpFilter(
        2, noise_multiplier=1.0, max_grad_norm=1.0, epsilon=1.0, delta=1e-5
    ).state_dict()
    other = IndividualRdpFilter(2, noise_multiplier=2.0, max_grad_norm=1.0, epsilon=1.0, delta=1e-5)
    with pytest.raises(ValueError, match="another configuration"):
        other.load_state_dict(state)
