"""pld.sampling's monotone pairs in the C++ core: the examples-per-user mixture (cpp/include/hockeystick/pld/
mechanisms/gaussian_mixture.hpp, ``GaussianMixture::from_log_weights``) and the replace-one mixture against its
reflection (replace_one_mixture.hpp), which ``examples_per_user_gaussian``, ``poisson_replace_one_gaussian`` and
``truncated_subsampled_gaussian(analysis="dp_accounting")`` call.

Their PMFs must be those of the monotone discretization written with numpy (tests/pld/monotone_reference.py over
each pair's closed forms, rebuilt below) up to where the two implementations' cuts land (one grid, each entry within
16 tau / h^2 of its neighbours, tau = 1e-13 max(|l|, 1) the cut acceptance: test_pld_gaussian_mixture_core's module
docstring derives the bound), their brackets at 1 and 20 rounds within 1e-9, and both sides of one round must hold
the exact delta of the pair (mpmath, 50 digits: the loss's root found at 50 digits, the laws' tails there).
"""

from __future__ import annotations

import math
from typing import Any

import mpmath as mp
import numpy as np
import pytest

from hockeystick import _core
from hockeystick.numerics.gaussian import gaussian_tail_inverse
from hockeystick.pld.grid.distribution import PrivacyLossDistribution
from hockeystick.pld.mechanisms.constructors import MAX_CELLS
from hockeystick.pld.mechanisms.gaussian_mixture import normal_interval
from hockeystick.pld.sampling.examples_per_user import (
    binomial_components,
    examples_per_user_gaussian,
)
from hockeystick.pld.sampling.poisson_replace_one import poisson_replace_one_gaussian
from hockeystick.pld.sampling.truncated_subsampling import truncated_subsampled_gaussian

from .. import monotone_reference as monotone
from ..mechanisms.test_pld_gaussian_mixture_core import _assert_same_pmf

TAIL = 1e-15
MP_DPS = 50
REPLACE_ONE = [(1.0, 0.1), (0.5, 0.01), (2.0, 0.5), (0.8, 1e-4)]  # (sigma, q)
EXAMPLES = [(1.0, 0.01, 4), (2.0, 0.3, 1), (1.5, 0.05, 20), (3.0, 0.2, 12)]  # (sigma, q, k)


def _numpy_replace_one_pair(sigma: float, q: float, tail: float) -> monotone.MonotonePair:
    """(1 - q) N(0, sigma^2) + q N(1, sigma^2) vs (1 - q) N(0, sigma^2) + q N(-1, sigma^2) in numpy: the loss as the
    difference of two log-sum-exps, its slope from their softmax weights, the masses from each end's tail, on
    [-1 - z sigma, 1 + z sigma], z = Q^{-1}(tail / 4), tails cut."""
    z = float(gaussian_tail_inverse(tail / 4.0))
    log_w = np.array([math.log1p(-q), math.log(q)])
    s2 = sigma * sigma

    def terms(x: np.ndarray, sign: float) -> np.ndarray:
        return (
            log_w
            + np.array([0.0, 1.0]) * (sign * np.asarray(x, dtype=np.float64)[..., None] - 0.5) / s2
        )

    def loss(x: np.ndarray) -> np.ndarray:
        return (
            monotone.log_sum_exp_rows(terms(x, 1.0))[0]
            - monotone.log_sum_exp_rows(terms(x, -1.0))[0]
        )

    def slope(x: np.ndarray) -> np.ndarray:
        up, down = (
            monotone.log_sum_exp_rows(terms(x, 1.0))[1],
            monotone.log_sum_exp_rows(terms(x, -1.0))[1],
        )
        return (up[..., 1] + down[..., 1]) / s2

    def mass(shift: float) -> monotone.IntervalMass:
        def interval(a: np.ndarray, b: np.ndarray) -> np.ndarray:
            centred = normal_interval(a / sigma, b / sigma)
            return (1.0 - q) * centred + q * normal_interval(
                (a - shift) / sigma, (b - shift) / sigma
            )

        return interval

    return monotone.MonotonePair(
        loss, slope, mass(1.0), mass(-1.0), -1.0 - z * sigma, 1.0 + z * sigma, open_ends=True
    )


def _numpy_examples_pair(
    sigma: float, q: float, k: int, tail: float, *, upper: bool
) -> monotone.MonotonePair:
    """sum_j w_j N(j, sigma^2) vs N(0, sigma^2) in numpy over ``binomial_components``' counts and log-weights (the
    binomial's tails merged for the side ``upper``), on [-z sigma, top + z sigma], z = Q^{-1}(tail / 8), top the
    largest count below k on the upper side (at least 1), tails cut."""
    counts, log_w = binomial_components(k, q, tail / 8.0, upper=upper)
    weights = np.exp(log_w)
    z = float(gaussian_tail_inverse(tail / 8.0))
    inner = counts[counts < k] if upper and counts.size > 1 else counts
    s2 = sigma * sigma

    def terms(x: np.ndarray) -> np.ndarray:
        return (
            log_w
            + (counts * np.asarray(x, dtype=np.float64)[..., None] - 0.5 * counts * counts) / s2
        )

    def p_mass(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return sum(
            w * normal_interval((a - c) / sigma, (b - c) / sigma) for w, c in zip(weights, counts)
        )

    return monotone.MonotonePair(
        lambda x: monotone.log_sum_exp_rows(terms(x))[0],
        lambda x: (monotone.log_sum_exp_rows(terms(x))[1] * counts).sum(axis=-1) / s2,
        p_mass,
        lambda a, b: normal_interval(a / sigma, b / sigma),
        -z * sigma,
        float(max(inner.max(), 1.0)) + z * sigma,
        open_ends=True,
    )


def _assert_same_directions(core: PrivacyLossDistribution, ref: list[tuple[Any, Any]]) -> None:
    """Each direction's pessimistic PMF against ``ref``'s upper factor's, its optimistic PMF against the lower's."""
    assert len(core.directions) == len(ref)
    for direction, (upper, lower) in zip(core.directions, ref):
        ((got, count),) = direction.items()
        assert count == 1 and got.lower is not None and lower.lower is not None
        _assert_same_pmf(got.upper, upper.upper)
        _assert_same_pmf(got.lower, lower.lower)


def _assert_same_brackets(core: PrivacyLossDistribution, ref: PrivacyLossDistribution) -> None:
    """The brackets of one round and of 20 rounds within 1e-9 of each other, or 1e-14 absolute: the FFT's round-off
    of a composed PMF of mass 1 (its normwise error, a few u log2 n for n ~ 2^20 points) differs between two inputs
    that differ in their last bits, and reads as that much absolute difference where delta is ~1e-12."""
    for rounds in (1, 20):
        for eps in (0.0, 0.3, 1.0):
            got = core.self_compose(rounds).delta(eps, bound="both")
            np.testing.assert_allclose(
                got, ref.self_compose(rounds).delta(eps, bound="both"), rtol=1e-9, atol=1e-14
            )


def _reference(ref: list[tuple[Any, Any]], tail: float) -> PrivacyLossDistribution:
    """The numpy factors as one PLD (each direction's upper PMF from ``upper``, lower from ``lower``)."""
    from hockeystick.pld.grid.distribution import Factor

    return PrivacyLossDistribution(
        [{Factor(u.name, u.upper, lo.lower, u.connect_dots): 1} for u, lo in ref], tail
    )


@pytest.mark.parametrize("sigma, q", REPLACE_ONE)
@pytest.mark.parametrize("h", [1e-2, 1e-3])
def test_the_cores_replace_one_mixture_is_the_numpy_discretization(sigma, q, h):
    forward, _ = monotone.monotone_factors("numpy", _numpy_replace_one_pair(sigma, q, TAIL), h)
    core = poisson_replace_one_gaussian(sigma, q, value_discretization_interval=h, tail=TAIL)
    _assert_same_directions(core, [(forward, forward)])
    _assert_same_brackets(core, _reference([(forward, forward)], TAIL))


@pytest.mark.parametrize("sigma, q, k", EXAMPLES)
@pytest.mark.parametrize("h", [1e-2, 1e-3])
def test_the_cores_examples_per_user_mixture_is_the_numpy_discretization(sigma, q, k, h):
    up = monotone.monotone_factors("numpy", _numpy_examples_pair(sigma, q, k, TAIL, upper=True), h)
    down = monotone.monotone_factors(
        "numpy", _numpy_examples_pair(sigma, q, k, TAIL, upper=False), h
    )
    ref = list(zip(up, down))
    core = examples_per_user_gaussian(sigma, q, k, value_discretization_interval=h, tail=TAIL)
    _assert_same_directions(core, ref)
    _assert_same_brackets(core, _reference(ref, TAIL))


def test_the_truncated_mixtures_second_component_is_the_replace_one_mixture():
    """analysis="dp_accounting" mixes the Poisson-subsampled Gaussian and the replace-one mixture at sigma / 2 and
    rate q' with weights 1 - t and t, t = P(K >= B) (Ganesh 2025; truncated_subsampling's module docstring): at
    q = 1 every other record is sampled, t = 1 and q' = B / n, so its upper side is the replace-one mixture's."""
    n, b, sigma, h = 5, 2, 1.0, 1e-3  # q = 1: t = 1, q' = B / n
    got = truncated_subsampled_gaussian(
        n, 1.0, b, sigma, analysis="dp_accounting", value_discretization_interval=h
    )
    forward, _ = monotone.monotone_factors(
        "numpy", _numpy_replace_one_pair(sigma / 2, b / n, TAIL), h
    )
    for eps in (0.0, 0.5, 2.0):
        assert got.delta(eps) == pytest.approx(
            _reference([(forward, forward)], TAIL).delta(eps), rel=1e-9
        )


def _exact_delta(
    p_tail: Any, q_tail: Any, loss: Any, eps: float, bracket: tuple[float, float]
) -> mp.mpf:
    """delta(eps) of a pair on the line with monotone loss: P(A) - e^eps Q(A), A = {loss > eps} the side of the root
    x* of L(x*) = eps that ``p_tail``/``q_tail`` measure (50 digits; the root by bisection of ``bracket``),
    0 where L stays at most eps over the bracket (the loss's supremum on the line is at or below eps)."""
    a, b = (mp.mpf(v) for v in bracket)
    if max(loss(a), loss(b)) <= eps:
        return mp.mpf(0)
    rising = loss(b) > loss(a)
    for _ in range(
        200
    ):  # bisection: the bracket's width over 2^200, below the 50 digits' resolution
        mid = (a + b) / 2
        if (loss(mid) > eps) == rising:
            b = mid
        else:
            a = mid
    return p_tail(a) - mp.exp(eps) * q_tail(a)


def _mixture_tail(weights: list[Any], shifts: list[Any], sigma: Any, sign: int) -> Any:
    """x -> sum_i w_i P(sign (Z sigma + s_i) > sign x), Z ~ N(0, 1): a mixture's upper (sign 1) or lower tail."""
    return lambda x: mp.fsum(w * mp.ncdf(sign * (s - x) / sigma) for w, s in zip(weights, shifts))


@pytest.mark.parametrize("sigma, q", REPLACE_ONE[:3])
@pytest.mark.parametrize("eps", [0.0, 0.3, 1.0])
def test_both_sides_of_the_replace_one_mixture_hold_the_exact_delta(sigma, q, eps):
    with mp.workdps(MP_DPS):
        s, w = mp.mpf(sigma), [1 - mp.mpf(q), mp.mpf(q)]
        p_up, q_up = _mixture_tail(w, [0, 1], s, 1), _mixture_tail(w, [0, -1], s, 1)

        def loss(x: Any) -> Any:
            return mp.log(w[0] + w[1] * mp.exp((x - mp.mpf(0.5)) / s**2)) - mp.log(
                w[0] + w[1] * mp.exp((-x - mp.mpf(0.5)) / s**2)
            )

        exact = _exact_delta(p_up, q_up, loss, eps, (-40 * sigma, 40 * sigma))
    lower, upper = poisson_replace_one_gaussian(sigma, q, value_discretization_interval=1e-3).delta(
        eps, bound="both"
    )
    assert lower <= exact <= upper


@pytest.mark.parametrize("sigma, q, k", EXAMPLES[:3])
@pytest.mark.parametrize("eps", [0.0, 0.5])
def test_both_sides_of_the_examples_per_user_mixture_hold_the_exact_delta(sigma, q, k, eps):
    """The unmerged binomial mixture's exact delta, the larger of its two directions: remove P(X > x*) -
    e^eps Q(X > x*) at L(x*) = eps, add Q(X < y*) - e^eps P(X < y*) at L(y*) = -eps."""
    with mp.workdps(MP_DPS):
        s = mp.mpf(sigma)
        w = [mp.binomial(k, j) * mp.mpf(q) ** j * (1 - mp.mpf(q)) ** (k - j) for j in range(k + 1)]
        shifts = list(range(k + 1))

        def loss(x: Any) -> Any:
            return mp.log(
                mp.fsum(wj * mp.exp((j * x - mp.mpf(j * j) / 2) / s**2) for wj, j in zip(w, shifts))
            )

        span = (
            -40 * sigma,
            k + 40 * sigma,
        )  # L there is log w_0 + O(e^-40 / sigma) and far above 1
        remove = _exact_delta(
            _mixture_tail(w, shifts, s, 1), _mixture_tail([1], [0], s, 1), loss, eps, span
        )
        add = _exact_delta(
            _mixture_tail([1], [0], s, -1),
            _mixture_tail(w, shifts, s, -1),
            lambda x: -loss(x),
            eps,
            span,
        )
        exact = max(remove, add)
    lower, upper = examples_per_user_gaussian(
        sigma, q, k, value_discretization_interval=1e-3
    ).delta(eps, bound="both")
    assert lower <= exact <= upper


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"log_weights": np.array([0.0, math.inf])}, "log_weights must be finite"),
        ({"log_weights": np.array([0.0, math.nan])}, "log_weights must be finite"),
        ({"cut": 0.5}, "cut must lie in"),
        ({"cut": 0.0}, "cut must lie in"),
        ({"top": 0.0}, "top must be finite and > 0"),
        ({"top": math.inf}, "top must be finite and > 0"),
        ({"shifts": np.array([0.0, 0.0])}, "largest shift must be > 0"),
        ({"sigma": 0.0}, "sigma must be finite and > 0"),
    ],
)
def test_the_log_weight_mixture_refuses(kwargs, words):
    args = {
        "sigma": 1.0,
        "shifts": np.array([0.0, 1.0]),
        "log_weights": np.log([0.9, 0.1]),
        "cut": 1e-16,
        "top": 1.0,
    }
    with pytest.raises(ValueError, match=words):
        _core.pld_sampling.gaussian_mixture_log_weights(
            **(args | kwargs), h=1e-3, max_cells=MAX_CELLS
        )


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"sampling_rate": 0.0}, "sampling_rate must lie in"),
        ({"sampling_rate": 1.0}, "sampling_rate must lie in"),
        ({"tail": 1.0}, "tail must lie in"),
        ({"sigma": -1.0}, "sigma must be finite and > 0"),
    ],
)
def test_the_replace_one_mixture_refuses(kwargs, words):
    args = {"sigma": 1.0, "sampling_rate": 0.1, "tail": TAIL}
    with pytest.raises(ValueError, match=words):
        _core.pld_sampling.replace_one_mixture(**(args | kwargs), h=1e-3, max_cells=MAX_CELLS)


def test_a_rate_below_the_cut_leaves_the_optimistic_side_one_law():
    """At q = 1e-17 the optimistic side keeps count 0 alone (P(J > 0) = 1e-17 is below tail / 8): its pair is one
    law, delta 0; the pessimistic side still charges the merged count k = 1."""
    lower, upper = examples_per_user_gaussian(1.0, 1e-17, 1).delta(0.0, bound="both")
    assert lower == 0.0 and upper >= 1e-17 * (2 * mp.ncdf(0.5) - 1)
