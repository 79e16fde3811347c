"""Paper 001's formulas refuse bad arguments by name and rule, never a NaN or a silently coerced value."""

from __future__ import annotations

import math

import pytest

from hockeystick import leakage
from hockeystick.base.validation import ParameterTypeError


@pytest.mark.parametrize(
    "value, rule",
    [(math.nan, "must not be NaN"), (math.inf, "must be finite"), (-math.inf, "must be finite")],
)
def test_nfl_privacy_floor_refuses_a_nan_or_infinite_utility_loss(value, rule):
    with pytest.raises(ValueError, match=f"^utility_loss {rule}"):
        leakage.nfl_privacy_floor(0.3, 0.5, value)


@pytest.mark.parametrize("value", [None, True, "0.5", "abc"])
def test_nfl_privacy_floor_refuses_a_utility_loss_that_is_not_a_number(value):
    with pytest.raises(ParameterTypeError, match="^utility_loss must be a real number"):
        leakage.nfl_privacy_floor(0.3, 0.5, value)


def test_nfl_privacy_floor_takes_any_finite_utility_loss():
    assert leakage.nfl_privacy_floor(0.3, 0.5, 0.2) == pytest.approx(0.2, rel=1e-15)
    assert leakage.nfl_privacy_floor(0.3, 0.5, -0.2) == pytest.approx(0.4, rel=1e-15)
    assert leakage.nfl_privacy_floor(0.3, 0.0, 1e308) == 0.3


@pytest.mark.parametrize("d", [1e4, 1e6, 1e8, 1e9])
@pytest.mark.parametrize("target", [0.05, 0.5])
def test_centred_tv_in_high_dimension_matches_mpmath(d, target):
    """TV = P(a <= chi2_d <= b) (a = d log(1 + rho) / rho, b = (1 + rho) a) to 1e-11 relative at any d:
    the chi-square log density's terms of size d log d cancel, so it is formed without them."""
    import mpmath as mp

    rho = 2 * math.sqrt(math.pi) * target / math.sqrt(d)  # TV about target
    with mp.workdps(40):
        r, k = mp.mpf(rho), mp.mpf(d) / 2
        a = mp.mpf(d) * mp.log1p(r) / r
        exact = mp.gammainc(k, a / 2, (a + mp.mpf(d) * mp.log1p(r)) / 2, regularized=True)
    assert leakage.tv_exact(1.0, rho, d) == pytest.approx(float(exact), rel=1e-11)


@pytest.mark.parametrize("d", [1e8, 1e9])
def test_js_converges_in_high_dimension(d):
    """JS of the centred pair in high dimension: ln 2 once the pair separates, rho^2 d / 16 while rho sqrt(d) is small."""
    assert leakage.js_exact(1.0, 1.0, d) == pytest.approx(math.log(2), abs=1e-12)
    assert leakage.js_exact(1.0, 1e-3 / math.sqrt(d), d) == pytest.approx(1e-6 / 16, rel=1e-3)


@pytest.mark.parametrize("function", [leakage.tv_exact, leakage.js_exact])
def test_exact_values_refuse_a_dimension_beyond_1e9(function):
    with pytest.raises(ValueError, match=r"^dimension must be <= 1000000000, got 1e\+308"):
        function(1.0, 0.01, 1e308)


def test_js_of_a_distortion_variance_near_the_largest_double_is_ln_2():
    for d, s in [(1, 0.0), (100, 0.1), (10**9, 0.0)]:
        assert leakage.js_exact(1.0, 1e308, d, s) == math.log(2)


def test_calibration_refuses_targets_its_variance_cannot_represent():
    with pytest.raises(ValueError, match=r"^target_tv must be >= 1e-290 .* got 5e-324"):
        leakage.distortion_variance_for_tv(1.0, 100, 5e-324)
    with pytest.raises(ValueError, match=r"^dimension must be <= 1000000000, got 1e\+308"):
        leakage.distortion_variance_for_tv(1.0, 1e308, 0.05)
    v = leakage.distortion_variance_for_tv(1.0, 100, 1e-290)
    assert leakage.tv_exact(1.0, v, 100) == pytest.approx(1e-290, rel=1e-9)


SHAPES = [
    ("distortion_variance_for_tv", dict(variance=1.0, dimension=100, target_tv=0.05)),
    ("eq_20_sampling_rates", dict(tau=0.2, gradient_square_sum=4.0)),
    ("js_bound_from_tv", dict(xi=0.5, tv=0.1)),
    ("js_exact", dict(variance=1.0, distortion_variance=0.01, dimension=100)),
    ("lemma_5_5_upper_bound", dict(c1=0.3, xi=0.5, tv=0.1)),
    ("lemma_b1_lower_bound", dict(c1=0.3, xi=0.5, tv=0.1)),
    ("nfl_constant", dict(gamma=1.0, delta=1.0, xi=0.5)),
    ("nfl_privacy_floor", dict(c1=0.3, cd=0.5, utility_loss=0.2)),
    ("paper_distortion_variance", dict(variance=1.0, dimension=100, c1=0.3, tau=0.295)),
    ("paper_required_tv", dict(c1=0.3, tau=0.295)),
    ("sampling_variance", dict(sampling_rate=0.2, gradient_square_sum=10.0)),
    ("thm_5_11_sampling_rates", dict(c6=5.0, c1=0.3, tau=0.2, gradient_square_sum=4.0)),
    ("thm_5_12_upper_bound", dict(c1=0.3, xi=0.5, c6=1.0, expected_variance=0.1)),
    ("thm_5_14_optimal_variance", dict(c1=0.3, xi=0.5, c6=1.0)),
    ("tv_bracket", dict(variance=1.0, distortion_variance=0.01, dimension=100)),
    ("tv_exact", dict(variance=1.0, distortion_variance=0.01, dimension=100)),
]


@pytest.mark.parametrize("name, base", SHAPES, ids=[s[0] for s in SHAPES])
def test_shapes_that_do_not_broadcast_are_refused_naming_the_arguments(name, base):
    first, second = list(base)[:2]
    arguments = {**base, first: [base[first]] * 2, second: [base[second]] * 3}
    with pytest.raises(ValueError, match=rf"{first} \(2,\).*{second} \(3,\)"):
        getattr(leakage, name)(**arguments)
    out = getattr(leakage, name)(**{**base, first: [base[first]] * 2})
    assert all(len(part) == 2 for part in (out if isinstance(out, tuple) else (out,)))
