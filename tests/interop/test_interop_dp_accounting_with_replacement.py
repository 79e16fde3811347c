"""SampledWithReplacementDpEvent around any supported inner event, and Laplace / discrete Laplace
under REPLACE_ONE (shift 2 / sensitivity 2s), against independent references.

References: 50-digit mpmath integrals and sums of the with-replacement mechanism itself on a
realizable configuration (the record contributes +1 in D and -1 in D', the others 0; it is drawn
c ~ Binom(K, 1/n) times, so the outputs are the noise at +c and -c mixed over c), brute-force
enumeration of every query a with-replacement randomized-response mechanism can answer on tiny
n, K, and the analytic bound sum_c b_c H_{2c}(1 + (e^eps - 1)/eta) from the Laplace closed form.
The certified upper bound must never fall below the mechanism, and the lower side never above the
quantity it brackets.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest

pytest.importorskip("dp_accounting")

from dp_accounting import dp_event as E  # noqa: E402
from dp_accounting.privacy_accountant import NeighboringRelation, UnsupportedEventError  # noqa: E402

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant  # noqa: E402
from hockeystick.numerics.hockey_stick import theta  # noqa: E402
from hockeystick.pld.mechanisms.group_privacy import dyadic_step, group_upper_curves  # noqa: E402

REPLACE = NeighboringRelation.REPLACE_ONE
MP_DPS = 50
mpmath.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test
EPS = (0.0, 0.3, 1.0, 2.0)


def accountant(h: float = 1e-4) -> HockeystickPLDAccountant:
    return HockeystickPLDAccountant(REPLACE, value_discretization_interval=h)


def copy_counts(k: int, n: int) -> list:
    """b_c = Binom(c; K, 1/n) in mpmath."""
    p = mpmath.mpf(1) / n
    return [mpmath.binomial(k, c) * p**c * (1 - p) ** (k - c) for c in range(k + 1)]


def laplace_density(x, center, b):
    return mpmath.exp(-abs(x - center) / b) / (2 * b)


def laplace_curve(a, eps):
    """delta(eps) of the Laplace pair at shift/scale a (closed form, any real eps)."""
    a, eps = mpmath.mpf(a), mpmath.mpf(eps)
    if eps >= a:
        return mpmath.mpf(0)
    if eps <= -a:
        return 1 - mpmath.exp(eps)
    return 1 - mpmath.exp((eps - a) / 2)


def with_replacement_laplace_exact(b: float, k: int, n: int, eps: float):
    """The realizable pair sum_c b_c Lap(c, b) vs sum_c b_c Lap(-c, b): int (p - e^eps q)_+, 50 digits.

    In closed form: between consecutive centres -k..k (and on the two tails) p - e^eps q = A e^{x/b} + B e^{-x/b},
    which changes sign at most once (at x = b log(-B/A) / 2); each positive piece integrates exactly."""
    w, g, b_ = copy_counts(k, n), mpmath.exp(eps), mpmath.mpf(b)
    terms = [(w[c], c) for c in range(k + 1)] + [
        (-g * w[c], -c) for c in range(k + 1)
    ]  # p - g q: weight, centre

    def antiderivative(
        x, a_coef, b_coef
    ):  # of A e^{x/b} + B e^{-x/b}; A = 0 on the right tail, B on the left
        return (a_coef * b_ * mpmath.exp(x / b_) if a_coef else 0) - (
            b_coef * b_ * mpmath.exp(-x / b_) if b_coef else 0
        )

    total = mpmath.mpf(0)
    ends = [-mpmath.inf, *range(-k, k + 1), mpmath.inf]
    for lo, hi in zip(ends, ends[1:]):
        a_coef = mpmath.fsum(
            c * mpmath.exp(-m / b_) / (2 * b_) for c, m in terms if m >= hi
        )  # x < m
        b_coef = mpmath.fsum(
            c * mpmath.exp(m / b_) / (2 * b_) for c, m in terms if m <= lo
        )  # x > m
        cuts = [lo, hi]
        if a_coef * b_coef < 0:
            root = b_ * mpmath.log(-b_coef / a_coef) / 2
            if lo < root < hi:
                cuts = [lo, root, hi]
        for u, v in zip(cuts, cuts[1:]):
            inside = (
                (u + v) / 2
                if mpmath.isfinite(u) and mpmath.isfinite(v)
                else (v - 1 if mpmath.isfinite(v) else u + 1)
            )
            if a_coef * mpmath.exp(inside / b_) + b_coef * mpmath.exp(-inside / b_) > 0:
                total += antiderivative(v, a_coef, b_coef) - antiderivative(u, a_coef, b_coef)
    return total


def with_replacement_bound(curve, k: int, n: int, eps: float):
    """sum_{c >= 1} b_c H_c(1 + (e^eps - 1)/eta) at eps >= 0 (the proved bound, one round)."""
    w = copy_counts(k, n)
    eta = 1 - w[0]
    inner = mpmath.log(1 + mpmath.expm1(eps) / eta)
    return sum(w[c] * curve(c, inner) for c in range(1, k + 1))


@pytest.mark.parametrize("b", [0.7, 2.0])
def test_laplace_under_replace_one_is_the_shift_two_pair(b):
    lo, up = accountant().compose(E.LaplaceDpEvent(b)).get_delta_bracket(0.5)
    exact = float(laplace_curve(2.0 / b, 0.5))
    assert lo <= exact * (1 + 1e-12) and exact <= up * (1 + 1e-12) and up - lo <= 1e-3 * exact
    # add/remove stays shift 1
    lo1, up1 = (
        HockeystickPLDAccountant(value_discretization_interval=1e-4)
        .compose(E.LaplaceDpEvent(b))
        .get_delta_bracket(0.5)
    )
    exact1 = float(laplace_curve(1.0 / b, 0.5))
    assert lo1 <= exact1 * (1 + 1e-12) and exact1 <= up1 * (1 + 1e-12)


def test_discrete_laplace_under_replace_one_is_sensitivity_two_s():
    a, s = 0.4, 2
    t = mpmath.tanh(mpmath.mpf(a) / 2)

    def dlap(x, center):
        return t * mpmath.exp(-a * abs(x - center))

    for eps in EPS:
        g = mpmath.exp(eps)
        exact = sum(max(dlap(x, 2 * s) - g * dlap(x, 0), 0) for x in range(-400, 405))
        lo, up = accountant().compose(E.DiscreteLaplaceDpEvent(a, s)).get_delta_bracket(eps)
        assert lo <= float(exact) * (1 + 1e-9) + 1e-300 and float(exact) <= up * (1 + 1e-9)


@pytest.mark.parametrize("b,k,n", [(1.0, 3, 4), (2.5, 4, 10)])
def test_with_replacement_laplace_brackets_the_bound_and_covers_the_mechanism(b, k, n):
    acc = accountant().compose(E.SampledWithReplacementDpEvent(n, k, E.LaplaceDpEvent(b)))
    for eps in EPS:
        lo, up = acc.get_delta_bracket(eps)
        mechanism = float(with_replacement_laplace_exact(b, k, n, eps))
        bound = float(with_replacement_bound(lambda c, x: laplace_curve(2 * c / b, x), k, n, eps))
        assert mechanism <= bound * (1 + 1e-12)  # the proof's direction, checked
        assert mechanism <= up * (1 + 1e-12)  # certified: never below the mechanism
        assert lo <= bound * (1 + 1e-9) <= up * (1 + 1e-9) + 1e-15
        assert up <= bound * (1 + 1e-2) + 1e-12  # and tight to the bound


def test_with_replacement_discrete_laplace_covers_the_mechanism():
    a, s, k, n = 0.6, 1, 3, 3
    w = copy_counts(k, n)
    t = mpmath.tanh(mpmath.mpf(a) / 2)

    def mix(x, sign):
        return sum(w[c] * t * mpmath.exp(-a * abs(x - sign * c * s)) for c in range(k + 1))

    acc = accountant().compose(
        E.SampledWithReplacementDpEvent(n, k, E.DiscreteLaplaceDpEvent(a, s))
    )
    for eps in EPS:
        g = mpmath.exp(eps)
        exact = sum(max(mix(x, 1) - g * mix(x, -1), 0) for x in range(-300, 301))  # tails < e^-170
        bound = with_replacement_bound(
            lambda c, x: sum(
                max(
                    t * mpmath.exp(-a * abs(y - 2 * c * s))
                    - mpmath.exp(x) * t * mpmath.exp(-a * abs(y)),
                    0,
                )
                for y in range(-300, 301)
            ),
            k,
            n,
            eps,
        )
        lo, up = acc.get_delta_bracket(eps)
        assert float(exact) <= float(bound) * (1 + 1e-12) and float(exact) <= up * (1 + 1e-12)
        assert lo <= float(bound) * (1 + 1e-9) <= up * (1 + 1e-9) + 1e-15


def rr_worst_delta(p: float, buckets: int, n: int, k: int, eps: float) -> float:
    """Brute force: max over datasets (record 0 = x vs x') and every query f of the ordered batch of
    sup delta(eps) of RR(f(batch)), batches of k draws with replacement from n records."""
    tuples = list(itertools.product(range(n), repeat=k))
    with_record = [t for t in tuples if 0 in t]
    without = len(tuples) - len(with_record)
    rr = np.full((buckets, buckets), p / buckets) + np.eye(buckets) * (
        1 - p
    )  # rr[input] = output law
    g, best = math.exp(eps), 0.0
    # the batches without the record answer the same in D and D': only their counts per bucket matter
    for shared in itertools.product(range(buckets), repeat=min(without, 1)):
        base = without * rr[shared[0]] if without else np.zeros(buckets)
        for fd in itertools.product(range(buckets), repeat=len(with_record)):
            pd = base + rr[list(fd)].sum(axis=0)
            for fd2 in itertools.product(range(buckets), repeat=len(with_record)):
                qd = base + rr[list(fd2)].sum(axis=0)
                best = max(best, float(np.maximum(pd - g * qd, 0.0).sum()) / len(tuples))
    return best


@pytest.mark.parametrize("p,buckets,n,k", [(0.4, 2, 3, 2), (0.5, 3, 2, 2)])
def test_with_replacement_randomized_response_covers_brute_force(p, buckets, n, k):
    acc = accountant().compose(
        E.SampledWithReplacementDpEvent(n, k, E.RandomizedResponseDpEvent(p, buckets))
    )
    for eps in EPS:
        exact = rr_worst_delta(p, buckets, n, k, eps)
        lo, up = acc.get_delta_bracket(eps)
        assert exact <= up * (1 + 1e-12)
        assert (
            lo <= exact * (1 + 1e-9) + 1e-15
        )  # RR's pair dominates any two inputs: the bound is attained
        assert up <= exact + 2e-3


def test_nested_sample_inner_covers_the_mechanism():
    """SampledWithReplacement(n, K, SampledWithoutReplacement(K, m, Laplace)): the generic group bound.
    Realizable: the record drawn c times, j ~ Hypergeom(K, c, m) of its copies kept, Lap(+-j)."""
    b, k, n, m = 1.5, 3, 4, 2
    w = copy_counts(k, n)
    kept = [
        [
            mpmath.binomial(c, j) * mpmath.binomial(k - c, m - j) / mpmath.binomial(k, m)
            for j in range(m + 1)
        ]
        for c in range(k + 1)
    ]

    # the mixture's weight of Lap(+-j), summed over the copy counts c once (not at every quadrature node)
    shift_weight = [mpmath.fsum(w[c] * kept[c][j] for c in range(k + 1)) for j in range(m + 1)]

    def density(x, sign):
        return sum(shift_weight[j] * laplace_density(x, sign * j, b) for j in range(m + 1))

    acc = accountant(1e-3).compose(
        E.SampledWithReplacementDpEvent(
            n, k, E.SampledWithoutReplacementDpEvent(k, m, E.LaplaceDpEvent(b))
        ),
        3,
    )
    one = accountant(1e-3).compose(
        E.SampledWithReplacementDpEvent(
            n, k, E.SampledWithoutReplacementDpEvent(k, m, E.LaplaceDpEvent(b))
        )
    )
    for eps in EPS:
        g = mpmath.exp(eps)
        exact = mpmath.quad(
            lambda x: max(density(x, 1) - g * density(x, -1), 0),
            [-mpmath.inf, -2, -1, 0, 1, 2, mpmath.inf],
        )
        lo, up = one.get_delta_bracket(eps)
        assert float(exact) <= up * (1 + 1e-12) and lo <= up
        lo3, up3 = acc.get_delta_bracket(eps)
        assert lo3 <= up3 and up3 >= up


@pytest.mark.parametrize("r", [0.5, 1.5])
def test_group_bound_is_above_the_gaussian_group_and_below_the_group_lemma(r):
    """A Gaussian pair's group of c is the Gaussian at c r (exact): the weak-triangle bound must be
    above it; with equal splits it is (eps, delta) group privacy, sum_i e^{(i-1) eps/c} H(eps/c),
    which the optimised split can only improve."""

    def curve(eps):
        e = np.asarray(eps, dtype=float)
        t = np.asarray(theta(r, np.abs(e)), dtype=float)
        m = -np.expm1(np.minimum(e, 0.0)) + np.exp(np.minimum(e, 0.0)) * t
        return np.clip(np.where(e >= 0, t, m) * (1 + 1e-11), 0.0, 1.0)

    span = r * r / 2 + 12 * r
    step = dyadic_step(span, 4, 1e-3)
    groups = group_upper_curves(curve, 4, span, step)
    for c in (2, 3, 4):
        eps = np.arange(-2.0, 6.0, 0.37)
        got = groups[c - 1](eps)
        truth = np.array(
            [
                float(theta(c * r, x))
                if x >= 0
                else 1 - math.exp(x) + math.exp(x) * float(theta(c * r, -x))
                for x in eps
            ]
        )
        assert np.all(got >= truth * (1 - 1e-12))
        grid = (
            np.arange(0, 40) * c * step
        )  # eps / c on the table's grid: the equal split is one of the splits
        lemma = sum(np.exp(i * grid / c) * curve(grid / c) for i in range(c))
        assert np.all(groups[c - 1](grid) <= np.minimum(lemma * (1 + 1e-9), 1.0))


def test_group_bound_refuses_bad_settings():
    with pytest.raises(ValueError, match="groups"):
        group_upper_curves(lambda e: np.zeros_like(e), 0, 1.0, 0.5)
    with pytest.raises(ValueError, match="power of 2"):
        group_upper_curves(lambda e: np.zeros_like(e), 2, 1.0, 0.3)
    with pytest.raises(ValueError, match="span"):
        dyadic_step(float("nan"), 2, 1e-3)


def test_record_filling_every_slot_is_the_group_of_k():
    """n = 1: the record is every draw, so K Laplace slots: exactly the Laplace pair at shift 2K."""
    b, k = 3.0, 3
    lo, up = (
        accountant()
        .compose(E.SampledWithReplacementDpEvent(1, k, E.LaplaceDpEvent(b)))
        .get_delta_bracket(0.5)
    )
    exact = float(laplace_curve(2 * k / b, 0.5))
    assert lo <= exact * (1 + 1e-12) and exact <= up * (1 + 1e-12) and up - lo <= 1e-3 * exact


SUPPORTED = [
    E.SampledWithReplacementDpEvent(100, 5, E.LaplaceDpEvent(1.0)),
    E.SampledWithReplacementDpEvent(100, 5, E.DiscreteLaplaceDpEvent(0.5, 2)),
    E.SampledWithReplacementDpEvent(100, 5, E.RandomizedResponseDpEvent(0.5, 3)),
    E.SampledWithReplacementDpEvent(
        100, 5, E.ComposedDpEvent([E.GaussianDpEvent(2.0), E.LaplaceDpEvent(1.0)])
    ),
    E.SampledWithReplacementDpEvent(
        100, 5, E.SelfComposedDpEvent(E.RandomizedResponseDpEvent(0.5, 2), 3)
    ),
    E.SampledWithReplacementDpEvent(
        100, 5, E.SampledWithoutReplacementDpEvent(5, 2, E.GaussianDpEvent(1.0))
    ),
    E.SampledWithReplacementDpEvent(100, 5, E.PoissonSampledDpEvent(0.1, E.GaussianDpEvent(1.0))),
]
REFUSED = [
    E.SampledWithReplacementDpEvent(
        100, 5, E.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.5, 0.5])
    ),
    # Poisson sampling under replace-one has a proved pair for Gaussians only (pld/sampling/poisson_replace_one.py)
    E.SampledWithReplacementDpEvent(100, 5, E.PoissonSampledDpEvent(0.1, E.LaplaceDpEvent(1.0))),
    E.SampledWithReplacementDpEvent(100, 5, E.ZCDpEvent(0.1)),
    E.SampledWithReplacementDpEvent(
        100, 5, E.ComposedDpEvent([E.LaplaceDpEvent(1.0), E.ZCDpEvent(0.1)])
    ),
    E.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.5, 0.5]),
]


@pytest.mark.parametrize("event", SUPPORTED, ids=lambda e: type(e.event).__name__)
def test_supported_inner_events_compose(event):
    acc = accountant(1e-3)
    assert acc.supports(event)
    lo, up = acc.compose(event).get_epsilon_bracket(1e-5)
    assert 0.0 <= lo <= up < math.inf


@pytest.mark.parametrize("event", REFUSED, ids=lambda e: type(getattr(e, "event", e)).__name__)
def test_refused_inner_events_raise_dp_accountings_error(event):
    acc = accountant(1e-3)
    assert not acc.supports(event)
    with pytest.raises(UnsupportedEventError):
        acc.compose(event)
    assert acc.get_epsilon(1e-5) == 0.0


def numpy_laplace_curve(a: float, widen: float):
    """laplace_curve in floats at any real eps, widened (an upper or a lower side)."""

    def curve(eps):
        e = np.asarray(eps, dtype=float)
        inside = -np.expm1((np.clip(e, -a, a) - a) / 2)
        out = np.where(e >= a, 0.0, np.where(e <= -a, -np.expm1(np.minimum(e, 0.0)), inside))
        return np.clip(out * widen, 0.0, 1.0)

    return curve


def test_dropped_copy_counts_keep_the_upper_side_above_the_full_bound():
    """A coarse cut drops both the rare small counts and the tail: their mass must still be charged."""
    from hockeystick.pld.sampling.subsampled_pair import with_replacement_curves

    b, k, n, cut = 8.0, 40, 4, 1e-2
    asked = []

    def group(c):
        asked.append(c)
        return numpy_laplace_curve(2 * c / b, 1 + 1e-12), numpy_laplace_curve(2 * c / b, 1 - 1e-12)

    d = with_replacement_curves(
        group, k, n, 2 * k / b + 1, value_discretization_interval=1e-3, cut=cut
    )
    assert min(asked) > 1 and max(asked) < k  # both ends are dropped
    for eps in (0.0, 0.2, 1.0, 3.0):
        lo, up = d.delta(eps, bound="both")
        full = float(with_replacement_bound(lambda c, x: laplace_curve(2 * c / b, x), k, n, eps))
        assert lo <= full * (1 + 1e-9) and full <= up * (1 + 1e-12)


def test_laplace_without_replacement_under_replace_one_covers_the_mechanism():
    """Now that Laplace is accepted under REPLACE_ONE, its fixed-size sample without replacement too:
    realizable, the record (+1 in D, -1 in D', the others 0) is in the sample with chance q = m/n."""
    b, m, n = 1.0, 2, 10
    q = mpmath.mpf(m) / n
    acc = accountant().compose(E.SampledWithoutReplacementDpEvent(n, m, E.LaplaceDpEvent(b)))
    for eps in EPS:
        g = mpmath.exp(eps)

        def excess(x):
            p = (1 - q) * laplace_density(x, 0, b) + q * laplace_density(x, 1, b)
            r = (1 - q) * laplace_density(x, 0, b) + q * laplace_density(x, -1, b)
            return max(p - g * r, 0)

        exact = float(mpmath.quad(excess, [-mpmath.inf, -1, 0, 1, mpmath.inf]))
        bound = float(q * laplace_curve(2 / b, mpmath.log(1 + mpmath.expm1(eps) / q)))
        lo, up = acc.get_delta_bracket(eps)
        assert exact <= bound * (1 + 1e-12) and exact <= up * (1 + 1e-12)
        assert lo <= bound * (1 + 1e-9) <= up * (1 + 1e-9) + 1e-15
