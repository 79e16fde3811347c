"""The shared validation path (python/hockeystick/_validation.py) and what it refuses."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import hockeystick as hs
from hockeystick import contraction, fdp, pld, rdp
from hockeystick.fdp.gaussian_mechanism import GaussianMechanism

TA = dict(n=100, batch_size=10, sigma=1.0, learning_rate=0.1, lipschitz=1.0, radius=1.0)


@pytest.mark.parametrize(
    "call",
    [
        lambda: hs.theta("1.5", 1),
        lambda: hs.theta(1.0, b"1"),
        lambda: hs.gaussian_tail(True),
        lambda: hs.theta([1.0, None], 1.0),
        lambda: GaussianMechanism(sigma=1.0, rounds=True),
        lambda: GaussianMechanism(sigma="2"),
        lambda: contraction.TrustedAggregator(**{**TA, "n": "100"}),
        lambda: fdp.GaussianDP(None),
        lambda: rdp.SubsampledGaussianRDP(sigma=1.0, rounds=np.array([True, False])),
        lambda: pld.SubsampledGaussianPLD(sigma="1", sampling_rate=0.1, rounds=2),
        lambda: pld.gaussian("1.0"),
        lambda: contraction.TrustedAggregatorSchedule(**TA, nonconvex="abc"),
        lambda: contraction.PNSGDRandomStop(
            n=10,
            sigma=1.0,
            learning_rate=0.1,
            lipschitz=1.0,
            smoothness=1.0,
            diameter=1.0,
            paper_form=1,
        ),
        lambda: fdp.TradeOffFunction(lambda a: 1 - a, check="no"),
    ],
)
def test_strings_bools_none_and_non_boolean_flags_are_type_errors(call):
    with pytest.raises(TypeError) as info:
        call()
    assert isinstance(info.value, ValueError)  # older callers catching ValueError keep working
    assert "np.float64" not in str(info.value)


@pytest.mark.parametrize("threads", [-1, 0, 1.5, "2", True])
def test_threads_must_be_a_positive_integer(threads):
    with pytest.raises((TypeError, ValueError), match="threads must be a positive integer or None"):
        hs.theta(1.0, 1.0, threads=threads)
    with pytest.raises((TypeError, ValueError), match="threads"):
        contraction.PNSGDRenyiBaseline(
            n=10, index=1, sigma=1.0, learning_rate=0.1, lipschitz=1.0, smoothness=1.0
        ).delta(1.0, threads=threads)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda v: fdp.constant_rate_h0(v, 1.0, 3), "log_rho"),
        (lambda v: fdp.constant_rate_h0(0.1, v, 3), "gamma"),
        (lambda v: fdp.constant_rate_h0(0.1, 1.0, v), "rounds"),
        (lambda v: fdp.constant_rate_h0_limit(v, 1.0), "log_rho"),
        (lambda v: fdp.constant_rate_h0_limit(0.1, v), "gamma"),
        (lambda v: fdp.schedule_round_factors("cyclic", v, 1.0, 3, 0), "learning_rate"),
        (lambda v: fdp.schedule_round_factors("stagewise", 0.1, v, 3, 0), "lipschitz"),
        (lambda v: fdp.schedule_round_factors("continuous", 0.1, 1.0, v, 0), "local_steps"),
        (lambda v: fdp.schedule_round_factors("stagewise", 0.1, 1.0, 3, v), "round_index"),
        (lambda v: rdp.compose_rdp([0.1, 0.2], v), "rdp[1]"),
    ],
)
@pytest.mark.parametrize("bad", [np.nan, None, [0.5, np.nan]])
def test_nan_and_none_no_longer_pass_through_silently(call, name, bad):
    with pytest.raises(ValueError, match=f"^{name.replace('[', '.').replace(']', '.')} must"):
        call(bad)


def test_rounds_must_be_whole_and_messages_print_plain_values():
    with pytest.raises(ValueError, match=r"^rounds must be an integer >= 1, got 2\.5$"):
        GaussianMechanism(sigma=1.0, rounds=2.5)
    with pytest.raises(
        ValueError,
        match=r"^sigma must be finite and > 0, got -1\.0 \(first offending element at flat "
        r"index 1\)$",
    ):
        rdp.SubsampledGaussianRDP(sigma=np.array([1.0, -1.0]))
    with pytest.raises(ValueError, match=r"^delta must lie strictly between 0 and 1, got 2\.0$"):
        fdp.GaussianDP(1.0).epsilon(np.float64(2.0))


def _log_theta_mp(r: float, eps: float) -> float:
    """log theta at 400 digits (subnormal r needs the difference of two tails to ~340 digits)."""
    with mp.workdps(400):
        r_, e_ = mp.mpf(r), mp.mpf(eps)
        q = lambda x: mp.erfc(x / mp.sqrt(2)) / 2  # noqa: E731
        return float(mp.log(q(e_ / r_ - r_ / 2) - mp.exp(e_) * q(e_ / r_ + r_ / 2)))


@pytest.mark.parametrize("r", [5e-324, 1e-323, 3e-322, 1e-320, 1e-315, 2.2e-308, 1e-300, 2.0**-901])
@pytest.mark.parametrize("ratio", [0.0, 0.5, 1.0, 10.0, 1000.0])
def test_log_theta_for_subnormal_and_tiny_radii(r, ratio):
    ref = _log_theta_mp(r, ratio * r)
    got = hs.log_theta(r, ratio * r)
    assert abs(got - ref) <= 1e-12 * abs(ref)
    # the array path takes the same route, element by element
    arr = hs.log_theta(np.array([r, 1.0]), np.array([ratio * r, 1.0]))
    assert arr[0] == got and arr[1] == hs.log_theta(1.0, 1.0)


@pytest.mark.parametrize("x", [1e150, 1.3e154, 1.5e154, 1.8e154])
def test_log_gaussian_tail_for_huge_arguments(x):
    with mp.workdps(50):
        ref = float(mp.log(mp.erfc(mp.mpf(x) / mp.sqrt(2)) / 2))
    assert math.isclose(hs.log_gaussian_tail(x), ref, rel_tol=1e-14)


def test_log_gaussian_tail_beyond_the_double_range_rounds_to_minus_inf():
    assert hs.log_gaussian_tail(2e154) == -math.inf  # the value is below -DBL_MAX
    assert hs.log_gaussian_tail(-1e300) == 0.0


def test_theta_radius_refuses_epsilon_whose_double_overflows():
    with pytest.raises(
        ValueError, match=r"epsilon must be <= 1e\+307 for theta_radius, got 1e\+308"
    ):
        hs.theta_radius(1e308, 1e-5)
    r = hs.theta_radius(1e307, 1e-5)
    z = -float(mp.sqrt(2) * mp.erfinv(2 * mp.mpf(1e-5) - 1))
    exact = 2e307 / (math.sqrt(z * z + 2e307) + z)  # x1 = eps/r - r/2 = z, e^eps Q(x2) negligible
    assert r <= exact and r >= exact * (1 - 1e-13)  # the largest radius: never above the truth
    assert hs.theta_radius(math.inf, 1e-5) == math.inf


def test_noise_so_small_that_the_radius_overflows_is_refused_with_the_range():
    with pytest.raises(ValueError, match="radius r1 .* must be a finite double.*too small"):
        contraction.TrustedAggregator(**{**TA, "sigma": 1e-320})
    with pytest.raises(ValueError, match="finite double"):
        contraction.PNSGDGaussian(
            n=10,
            index=1,
            sigma=1e-320,
            learning_rate=0.1,
            lipschitz=1.0,
            smoothness=1.0,
            diameter=1.0,
        )


# --- edges of the public API that tests/test_fuzz_public_api.py explores ------------------------------


def test_constant_rate_h0_at_subnormal_log_rho_is_the_flat_limit():
    assert fdp.constant_rate_h0(5e-324, 0.0, 1) == 0.0  # not NaN (0/0 of two tanh underflows)
    assert fdp.constant_rate_h0(5e-324, 2.0, 3) == 12.0  # T gamma^2
    assert fdp.constant_rate_h0_limit(5e-324, 0.0) == 0.0  # not NaN
    assert fdp.constant_rate_h0_limit(0.0, 0.0) == 0.0  # no step adds anything
    assert fdp.constant_rate_h0_limit(1e-200, 1.0) == 2e200  # gamma^2 / tanh(l/2) = 2 gamma^2 / l
    assert fdp.constant_rate_h0_limit(0.0, 1.0) == math.inf


def test_pld_accountants_refuse_instead_of_zero_division_or_overflow():
    # a ValueError naming sigma and the grid (not the core's max_cells), not a ZeroDivisionError in the memory estimate
    with pytest.raises(
        ValueError, match=r"sigma / sensitivity = 4\.94066e-324 would need more than"
    ):
        pld.SubsampledGaussianPLD(5e-324, 0.5, 1).delta(0.0)
    with pytest.raises(
        ValueError, match=r"rounds must be <= 9007199254740992, got 1e\+308"
    ):  # not OverflowError
        pld.WithReplacementBatchGaussianPLD(1.0, 1, 50, 1e308)
    with pytest.raises(ValueError, match=r"count must be an integer with 1 <= count <= 2\^53"):
        pld.gaussian(1.0).self_compose(10**300)


def test_renamed_keywords_warn_for_one_release_and_the_new_names_work():
    with pytest.warns(DeprecationWarning, match="'dataset_size' is deprecated.*use 'n'"):
        old = pld.FixedBatchGaussianPLD(
            sigma=1.0, batch_size=10, dataset_size=500, rounds=3, value_discretization_interval=1e-2
        )
    new = pld.FixedBatchGaussianPLD(
        sigma=1.0, batch_size=10, n=500, rounds=3, value_discretization_interval=1e-2
    )
    assert old.delta(1.0) == new.delta(1.0)
    with pytest.raises(TypeError, match="both 'n' and its deprecated name 'dataset_size'"):
        pld.fixed_size_subsampled_gaussian(1.0, 10, n=500, dataset_size=500)
    with pytest.warns(DeprecationWarning, match="'count' is deprecated"):
        acc = pld.PLDAccountant(value_discretization_interval=1e-2).compose_subsampled_gaussian(
            1.0, 0.5, count=3
        )
    assert acc.delta(1.0) == pld.PLDAccountant(
        value_discretization_interval=1e-2
    ).compose_subsampled_gaussian(1.0, 0.5, rounds=3).delta(1.0)
    fedavg = fdp.NoisyFedAvg(
        clients=10, sigma=1.0, clip=1.0, lipschitz=1.0, learning_rate=0.1, local_steps=2, rounds=5
    )
    with pytest.warns(DeprecationWarning, match="interpolation='h0'"):
        assert fedavg.delta(1.0, bound="h0") == fedavg.delta(1.0, interpolation="h0")
    with pytest.raises(ValueError, match='bound must be "upper" for NoisyFedAvg'):
        fedavg.delta(1.0, bound="lower")


@pytest.mark.parametrize(
    "value", [10**309, -(10**309), [1, 10**400], np.array([2, 10**309], dtype=object)]
)
def test_an_integer_beyond_the_doubles_is_refused_by_name(value) -> None:
    """A Python int of 2^1024 or more has no double: a ValueError naming the argument and abbreviating the
    number, never an OverflowError, at every real-number and count check."""
    from hockeystick.base import validation as _validation

    for check in (
        lambda: _validation.positive(value, "rounds"),
        lambda: _validation.real(value, "rounds"),
        lambda: _validation.positive_integer(value, "rounds"),
        lambda: _validation.count(value if isinstance(value, int) else 10**309, "rounds"),
    ):
        with pytest.raises(
            ValueError, match=r"rounds must .*got -?1000\.\.\. \(an integer of \d+ digits\)"
        ):
            check()
