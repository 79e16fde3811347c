"""PLD mechanisms (canonical pair, randomized response, discrete Laplace, Laplace and Gaussian
mixtures) and from_distributions' mass at +infinity: certified brackets around exact references.

References: finite pairs composed by brute-force enumeration of the product outcomes (exact up to
rounding); continuous pairs by 50-digit mpmath quadrature of E_{e^eps}(P || Q) = int (p - e^eps q)_+.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest

from hockeystick import pld
from hockeystick.pld.mechanisms.canonical import canonical_pair, eps_delta_dp
from hockeystick.pld.mechanisms.discrete_laplace import (
    discrete_laplace,
    discrete_laplace_pair,
)
from hockeystick.pld.mechanisms.gaussian_mixture import mixture_of_gaussians
from hockeystick.pld.mechanisms.laplace_mixture import laplace_mixture, subsampled_laplace
from hockeystick.pld.mechanisms.randomized_response import (
    randomized_response,
    randomized_response_pair,
)

EPS = np.array([0.0, 0.1, 0.5, 1.0, 2.0])


def exact_finite(p: np.ndarray, q: np.ndarray, count: int, eps: np.ndarray) -> np.ndarray:
    """max over the two orders of E_{e^eps}(P^count || Q^count), by enumeration."""

    def one(a, b):
        pa, qb = [], []
        for idx in itertools.product(range(a.size), repeat=count):
            pa.append(math.prod(a[i] for i in idx))
            qb.append(math.prod(b[i] for i in idx))
        pa, qb = np.array(pa), np.array(qb)
        return np.array([np.maximum(pa - math.exp(e) * qb, 0.0).sum() for e in eps])

    return np.maximum(one(p, q), one(q, p))


def assert_bracket(lo, up, exact, width=1e-6):
    lo, up, exact = map(np.asarray, (lo, up, exact))
    assert np.all(lo <= exact * (1 + 1e-12) + 1e-15), (lo, exact)
    assert np.all(up >= exact * (1 - 1e-12) - 1e-15), (up, exact)
    assert np.all(up - lo <= width + 1e-9 * exact), (lo, up)


def test_from_distributions_keeps_the_mass_at_infinity_on_the_lower_side():
    """An exact zero of q puts its P-mass at loss +infinity on both sides; one declared possibly
    underflowed puts it, on the lower side, at the least loss an underflowed mass allows (~log 0.1 +
    741).  That branch is the same on any grid: grid 1e-3 reaches it on a tenth of the default
    grid's ~7.4e6 cells, and the two lower sides compared there (that atom's and one at loss ~44)
    agree within 2e-8 relative on either grid."""
    lo, up = pld.from_distributions([0.9, 0.1], [1.0, 0.0]).delta(
        1.0, bound="both"
    )  # zeros exact by default
    assert 0.1 * (1 - 1e-12) <= up and lo <= 0.1 and lo > 0.1 - 1e-12
    # a zero declared possibly underflowed: the lower side puts it at a finite loss
    # (~log 0.1 + 741), as any far atom on the grid (q = 1e-20 gives the same lower side)
    h = 1e-3
    lo, up = pld.from_distributions(
        [0.9, 0.1], [1.0, 0.0], exact_zeros=False, value_discretization_interval=h
    ).delta(1.0, bound="both")
    far, _ = pld.from_distributions(
        [0.9, 0.1], [1.0 - 1e-20, 1e-20], value_discretization_interval=h
    ).delta(1.0, bound="both")
    assert 0.1 * (1 - 1e-12) <= up and lo <= 0.1 and lo == pytest.approx(far, rel=1e-6)


def test_canonical_pairs_compose_to_the_exact_value():
    d = eps_delta_dp(1.0, 0.1).compose(eps_delta_dp(2.0, 0.2))
    lo, up = d.delta(3.0, bound="both")
    assert lo <= 0.28 <= up and up - lo < 1e-9
    p1, q1 = canonical_pair(1.0, 0.1)
    assert_bracket(
        *eps_delta_dp(1.0, 0.1).self_compose(3).delta(EPS, bound="both"),
        exact_finite(p1, q1, 3, EPS),
    )


def test_canonical_pair_profile_is_the_eps_delta_curve():
    lo, up = eps_delta_dp(1.0, 1e-3).delta(EPS[EPS <= 1.0], bound="both")
    e = EPS[EPS <= 1.0]
    exact = 1e-3 + (1 - 1e-3) * (math.e - np.exp(e)) / (1 + math.e)
    assert_bracket(lo, up, exact)


@pytest.mark.parametrize("relation", ["replace_one", "replace_special"])
@pytest.mark.parametrize("noise,k", [(0.3, 2), (0.5, 5), (0.9, 3)])
def test_randomized_response_against_enumeration(relation, noise, k):
    p, q = randomized_response_pair(noise, k, relation)
    d = randomized_response(noise, k, relation=relation).self_compose(3)
    assert_bracket(*d.delta(EPS, bound="both"), exact_finite(p, q, 3, EPS), width=1e-4)


@pytest.mark.parametrize("a,s", [(0.5, 1), (1.0, 3), (0.2, 2)])
def test_discrete_laplace_against_enumeration(a, s):
    p, q = discrete_laplace_pair(a, s)
    assert abs(p.sum() - 1) < 1e-14
    d = discrete_laplace(a, s).self_compose(2)
    assert_bracket(*d.delta(EPS, bound="both"), exact_finite(p, q, 2, EPS), width=1e-4)


def _crossing(loss, target, lo, hi):
    """x in [lo, hi] with loss(x) = target (loss increasing), by 200 mpmath bisections."""
    lo, hi = mpmath.mpf(lo), mpmath.mpf(hi)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if loss(mid) < target else (lo, mid)
    return (lo + hi) / 2


def exact_mixture_delta(cdf, shifts, weights, eps, lo, hi):
    """max(remove, add) of E_{e^eps} for sum_i w_i F(x - s_i) vs F(x), F a location family's cdf.

    The loss L is increasing, so the remove region {L > eps} is (x+, inf) and the add region
    {-L > eps} is (-inf, x-): both are closed forms in F at the crossing points (50 digits).
    """
    mpmath.mp.dps = 50
    g = mpmath.e ** mpmath.mpf(eps)
    pdf_ratio = lambda x: sum(w * cdf(x - s, True) for s, w in zip(shifts, weights)) / cdf(x, True)  # noqa: E731
    loss = lambda x: mpmath.log(pdf_ratio(x))  # noqa: E731
    out = []
    if loss(hi) > eps:
        x = _crossing(loss, eps, lo, hi) if loss(lo) < eps else mpmath.mpf(lo)
        out.append(sum(w * (1 - cdf(x - s)) for s, w in zip(shifts, weights)) - g * (1 - cdf(x)))
    if loss(lo) < -eps:
        x = _crossing(loss, -eps, lo, hi) if loss(hi) > -eps else mpmath.mpf(hi)
        out.append(cdf(x) - g * sum(w * cdf(x - s) for s, w in zip(shifts, weights)))
    return float(max(out, default=0))


def gauss_cdf(sigma):
    return lambda x, density=False: (
        mpmath.npdf(x, 0, sigma) if density else mpmath.ncdf(x, 0, sigma)
    )


def laplace_cdf(b):
    def f(x, density=False):
        if density:
            return mpmath.exp(-abs(x) / b) / (2 * b)
        return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2

    return f


@pytest.mark.parametrize(
    "sigma,shifts,weights",
    [
        (1.0, [0.0, 1.0], [0.9, 0.1]),
        (0.8, [0.0, 1.0, 2.0], [0.81, 0.18, 0.01]),
        (2.0, [0.5, 3.0], [0.5, 0.5]),
    ],
)
def test_mixture_of_gaussians_against_closed_form(sigma, shifts, weights):
    lo, up = mixture_of_gaussians(sigma, shifts, weights).delta(EPS, bound="both")
    exact = [
        exact_mixture_delta(gauss_cdf(sigma), shifts, weights, e, -40 * sigma, 40 * sigma + 3)
        for e in EPS
    ]
    assert_bracket(lo, up, exact, width=1e-6)


@pytest.mark.parametrize("b,q", [(1.0, 0.2), (0.5, 0.01)])
def test_subsampled_laplace_against_closed_form(b, q):
    lo, up = subsampled_laplace(b, q).delta(EPS, bound="both")
    exact = [
        exact_mixture_delta(laplace_cdf(b), [0.0, 1.0], [1 - q, q], e, -1e-30, 1 + 1e-30)
        for e in EPS
    ]
    assert_bracket(lo, up, exact, width=1e-6)


def test_laplace_mixture_of_one_shift_is_the_laplace_mechanism():
    lo, up = laplace_mixture(0.7, [1.0], [1.0]).delta(EPS, bound="both")
    exact = [exact_mixture_delta(laplace_cdf(0.7), [1.0], [1.0], e, -1e-30, 1 + 1e-30) for e in EPS]
    assert_bracket(lo, up, exact, width=1e-6)


def test_gaussian_mixture_composed_matches_the_cpp_subsampled_gaussian():
    mine = (
        mixture_of_gaussians(1.0, [0.0, 1.0], [0.99, 0.01])
        .self_compose(1000)
        .epsilon(1e-5, bound="both")
    )
    cpp = (
        pld.subsampled_gaussian(1.0, 0.01)
        .self_compose(1000)
        .epsilon(1e-5, bound="both", composition_only=True)
    )
    assert mine[0] <= cpp[1] and cpp[0] <= mine[1]
    assert abs(mine[1] - cpp[1]) < 1e-6 and mine[1] - mine[0] < 1e-4


@pytest.mark.parametrize(
    "bad",
    [
        dict(sigma=-1.0),
        dict(sigma=float("nan")),
        dict(sensitivities=[-1.0], sampling_probs=[1.0]),
        dict(sensitivities=[0.0, 1.0], sampling_probs=[0.5, 0.6]),
    ],
)
def test_mixture_of_gaussians_refuses_bad_input(bad):
    args = dict(sigma=1.0, sensitivities=[0.0, 1.0], sampling_probs=[0.5, 0.5]) | bad
    with pytest.raises(ValueError):
        mixture_of_gaussians(args["sigma"], args["sensitivities"], args["sampling_probs"])


@pytest.mark.parametrize(
    "call",
    [
        lambda: randomized_response(1.5, 3),
        lambda: randomized_response(0.5, 0),
        lambda: discrete_laplace(-1.0, 1),
        lambda: discrete_laplace(1.0, 0),
        lambda: eps_delta_dp(-1.0, 0.1),
        lambda: eps_delta_dp(1.0, 1.5),
        lambda: subsampled_laplace(1.0, 1.5),
        lambda: subsampled_laplace(float("nan"), 0.5),
    ],
)
def test_finite_and_laplace_mechanisms_refuse_bad_input(call):
    with pytest.raises(ValueError):
        call()


def test_mixture_of_plds_is_the_weighted_pmf_and_refuses_bad_weights():
    from hockeystick.pld.mechanisms.pld_mixture import mixture

    a, b = pld.gaussian(1.0), pld.gaussian(2.0)
    mixed = mixture([a, b], [0.25, 0.75])
    lo, up = mixed.delta(EPS, bound="both")
    exact = 0.25 * pld.gaussian(1.0).delta(EPS) + 0.75 * pld.gaussian(2.0).delta(EPS)
    assert np.allclose(up, exact, rtol=1e-12) and np.all(lo <= up)
    with pytest.raises(ValueError, match="weights"):
        mixture([a, b], [0.5, 0.6])
    with pytest.raises(ValueError, match="one round"):
        mixture([a.self_compose(2), b], [0.5, 0.5])


def test_poisson_subsampled_finite_pair_and_bad_rate():
    """Two runs of the Poisson-sampled (1, 0.01)-DP pair against enumeration, on grid 1e-3.

    ``poisson_subsampled`` reads every zero of its computed pair as possibly underflowed
    (``exact_zeros=False``), so the remove direction's optimistic side holds the pair's delta atom
    (loss +inf) at the least loss an underflowed mass could have, about 738, on any grid: that side
    spans ~738 / h cells, and grid 1e-3 reaches the same branch with a tenth of the default grid's
    cells.  The width allowed is scaled with h (the bracket is about 1.7e-4 wide there, 3.1e-5 on
    1e-4).
    """
    from hockeystick.pld.sampling.subsampling import poisson_subsampled, poisson_subsampled_pair

    p, q = canonical_pair(1.0, 0.01)
    mixed, base = poisson_subsampled_pair(p, q, 0.2)
    d = poisson_subsampled(p, q, 0.2, value_discretization_interval=1e-3).self_compose(2)
    assert_bracket(*d.delta(EPS, bound="both"), exact_finite(mixed, base, 2, EPS), width=5e-4)
    with pytest.raises(ValueError, match="sampling_rate"):
        poisson_subsampled(p, q, 1.5)
