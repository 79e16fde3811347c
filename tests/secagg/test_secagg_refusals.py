"""Every secure-aggregation entry point refuses a setting it computes no valid answer for, naming the argument."""

from __future__ import annotations

import math

import pytest

from hockeystick.secagg import (
    DistributedDiscreteGaussian,
    DistributedSkellam,
    bits_for,
    calibrate_secure_aggregation,
    distributed_discrete_gaussian_rdp,
    integer_sensitivity,
    skellam_rdp,
    wrap_probability,
)

RUN = dict(
    clip_norm=1.0, granularity=0.1, dimension=4, local_sigma=0.5, min_surviving_clients=4, rounds=3
)
ACCOUNTANT_BAD = [
    ("clip_norm", 0.0, "clip_norm must be finite and > 0"),
    ("clip_norm", math.inf, "clip_norm must be finite and > 0"),
    ("granularity", -1.0, "granularity must be finite and > 0"),
    ("dimension", 0, "dimension must be an integer >= 1"),
    ("dimension", 2.5, "dimension must be an integer >= 1"),
    ("local_sigma", 0.0, "local_sigma must be finite and > 0"),
    ("min_surviving_clients", 0, "min_surviving_clients must be an integer >= 1"),
    ("rounds", 0, "rounds must be an integer >= 1"),
    ("beta", 1.0, r"beta must lie in \[0, 1\)"),
    ("beta", -0.1, r"beta must lie in \[0, 1\)"),
    ("rounding", "maybe", "rounding must be one of"),
    ("sampling_rate", 0.0, r"sampling_rate must lie in \(0, 1\]"),
    ("sampling_rate", 1.5, r"sampling_rate must lie in \(0, 1\]"),
    ("value_discretization_interval", 0.0, "value_discretization_interval must lie in"),
    ("sampling_rate", [1.0], "sampling_rate must be a single number"),
    ("beta", [0.1], "beta must be a single number"),
]


@pytest.mark.parametrize("cls", [DistributedDiscreteGaussian, DistributedSkellam])
@pytest.mark.parametrize(("name", "value", "match"), ACCOUNTANT_BAD)
def test_accountants_refuse_each_argument_by_name(cls, name, value, match):
    with pytest.raises(ValueError, match=match):
        cls(**{**RUN, name: value})


def test_ddg_refuses_a_noise_below_half_an_integer_step_and_names_the_fix():
    with pytest.raises(
        ValueError, match="local_sigma / granularity must be >= 0.5.*finer granularity"
    ):
        DistributedDiscreteGaussian(**{**RUN, "local_sigma": 0.01})


def test_ddg_refuses_a_granularity_past_the_exact_integers():
    with pytest.raises(ValueError, match="granularity must be at least clip_norm / 2\\^52"):
        DistributedDiscreteGaussian(**{**RUN, "granularity": 1e-17})


@pytest.mark.parametrize("cls", [DistributedDiscreteGaussian, DistributedSkellam])
@pytest.mark.parametrize(
    ("call", "match"),
    [
        (
            lambda acc: acc.epsilon(1e-5, against="attacker"),
            "against must be one of 'server', 'observer'",
        ),
        (lambda acc: acc.delta(1.0, against=None), "against must be one of"),
        (lambda acc: acc.epsilon(0.0), "delta must lie strictly between 0 and 1"),
        (lambda acc: acc.delta(-1.0), "epsilon must be >= 0"),
        (lambda acc: acc.epsilon(1e-5, bound="middle"), "bound must be one of"),
    ],
)
def test_accountant_methods_refuse_by_name(cls, call, match):
    with pytest.raises(ValueError, match=match):
        call(cls(**RUN))


def test_lower_side_refused_where_no_mass_bound_holds_and_names_the_way_out():
    # s = 1.5 integer units, 10^7 survivors: a window of 12 sqrt(n) s too wide to convolve, too narrow for the
    # Fourier bound
    acc = DistributedDiscreteGaussian(
        clip_norm=1.0, granularity=0.1, dimension=4, local_sigma=0.15, min_surviving_clients=10**7
    )
    assert acc.epsilon(1e-5) > 0.0  # the upper side holds
    with pytest.raises(ValueError, match='no certified lower side is computed; ask bound="upper"'):
        acc.epsilon(1e-5, bound="both")


WRAP = dict(bits=20, clients=10, dimension=100, clip_norm=1.0, granularity=0.01, local_sigma=0.05)


@pytest.mark.parametrize(
    ("name", "value", "match"),
    [
        ("bits", 0, "bits must be an integer >= 1"),
        ("bits", 63, "bits must be <= 62"),
        ("clients", 0, "clients must be an integer >= 1"),
        ("dimension", 0, "dimension must be an integer >= 1"),
        ("clip_norm", -1.0, "clip_norm must be finite and > 0"),
        ("granularity", 0.0, "granularity must be finite and > 0"),
        ("local_sigma", math.nan, "local_sigma must not be NaN"),
        ("noise", "laplace", "noise must be one of"),
        ("rounding", "x", "rounding must be one of"),
        ("flatness", 0.0, "flatness must be finite and > 0"),
    ],
)
def test_wrap_probability_refuses_each_argument_by_name(name, value, match):
    with pytest.raises(ValueError, match=match):
        wrap_probability(**{**WRAP, name: value})


@pytest.mark.parametrize(
    ("beta", "match"), [(0.0, "beta must be finite and > 0"), (1.0, r"beta must lie in \(0, 1\)")]
)
def test_bits_for_refuses_beta_outside_the_open_interval(beta, match):
    with pytest.raises(ValueError, match=match):
        bits_for(beta, **{k: v for k, v in WRAP.items() if k != "bits"})


def test_bits_for_refuses_when_no_bits_fit_and_names_the_fix():
    with pytest.raises(ValueError, match="no bits <= 62 .* use a coarser granularity"):
        bits_for(
            1e-300, clients=10, dimension=100, clip_norm=1.0, granularity=1e-20, local_sigma=1.0
        )


CAL = dict(
    epsilon=5.0,
    delta=1e-5,
    min_surviving_clients=10,
    dimension=100,
    clip_norm=1.0,
    bits=16,
    rounds=2,
)


@pytest.mark.parametrize(
    ("name", "value", "match"),
    [
        ("epsilon", 0.0, "epsilon must be finite and > 0"),
        ("epsilon", math.inf, "epsilon must be finite and > 0"),
        ("delta", 0.0, "delta must lie strictly between 0 and 1"),
        ("delta", 1.0, "delta must lie strictly between 0 and 1"),
        ("min_surviving_clients", 0, "min_surviving_clients must be an integer >= 1"),
        ("dimension", 0, "dimension must be an integer >= 1"),
        ("clip_norm", 0.0, "clip_norm must be finite and > 0"),
        ("bits", 0, "bits must be an integer >= 1"),
        ("bits", 63, "bits must be <= 62"),
        ("rounds", 0, "rounds must be an integer >= 1"),
        ("beta", 1.0, r"beta must lie in \[0, 1\)"),
        ("wrap_beta", 0.0, "wrap_beta must lie strictly between 0 and 1"),
        ("wrap_beta", 1.0, "wrap_beta must lie strictly between 0 and 1"),
        ("noise", "x", "noise must be one of"),
    ],
)
def test_calibration_refuses_each_argument_by_name(name, value, match):
    with pytest.raises(ValueError, match=match):
        calibrate_secure_aggregation(**{**CAL, name: value})


def test_calibration_refuses_too_few_bits_and_names_the_fix():
    with pytest.raises(
        ValueError, match="bits = 4 cannot hold the aggregate of 10 clients.*use more bits"
    ):
        calibrate_secure_aggregation(**{**CAL, "bits": 4})


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (
            dict(clip_norm=1.0, granularity=0.1, dimension=4, rounding="sometimes"),
            "rounding must be one of",
        ),
        (dict(clip_norm=1.0, granularity=0.1, dimension=4, beta=2.0), r"beta must lie in \[0, 1\)"),
    ],
)
def test_integer_sensitivity_refuses_by_name(kwargs, match):
    with pytest.raises(ValueError, match=match):
        integer_sensitivity(**kwargs)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (
            lambda: distributed_discrete_gaussian_rdp(1.0, 0, 2.0, 4.0, 4),
            "min_surviving_clients must be an integer",
        ),
        (
            lambda: distributed_discrete_gaussian_rdp(1.0, 10**8, 2.0, 4.0, 4),
            "min_surviving_clients must be <=",
        ),
        (
            lambda: distributed_discrete_gaussian_rdp(1.0, 3, 0.0, 4.0, 4),
            "l2 must be finite and > 0",
        ),
        (
            lambda: distributed_discrete_gaussian_rdp(1.0, 3, 2.0, -4.0, 4),
            "l1 must be finite and > 0",
        ),
        (
            lambda: distributed_discrete_gaussian_rdp(1.0, 3, 2.0, 4.0, 4, [0.5]),
            "orders must be > 1",
        ),
        (lambda: skellam_rdp(0.0, 2.0, 4.0), "variance must be finite and > 0"),
        (
            lambda: skellam_rdp(10.0, 2.0, 4.0, [2.5]),
            "orders must be integers for the Skellam bound",
        ),
    ],
)
def test_rdp_curves_refuse_by_name(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize(
    ("local_sigma", "granularity"), [(5e-324, 0.1), (1e308, 0.1), (0.5, 1e308)]
)
def test_skellam_refuses_a_variance_past_the_doubles_naming_both_arguments(
    local_sigma, granularity
):
    with pytest.raises(
        ValueError, match="local_sigma / granularity = .* outside the finite positive doubles"
    ):
        DistributedSkellam(**{**RUN, "local_sigma": local_sigma, "granularity": granularity})


def test_calibration_takes_min_surviving_clients_as_the_accountants_do_and_clients_with_a_deprecation():
    """``min_surviving_clients``, the accountants' name for n; ``clients=``, the former name, gives the same
    answer with a DeprecationWarning naming the new one; both at once are refused.  One round: the names are
    read before the calibration, which takes the same path at any number of rounds."""
    cal = {**CAL, "rounds": 1}
    new = calibrate_secure_aggregation(**cal)
    old_call = {k: v for k, v in cal.items() if k != "min_surviving_clients"}
    with pytest.warns(
        DeprecationWarning, match="'clients' is deprecated.*use 'min_surviving_clients'"
    ):
        old = calibrate_secure_aggregation(**old_call, clients=cal["min_surviving_clients"])
    assert old == new
    with pytest.raises(
        TypeError, match="both 'min_surviving_clients' and its deprecated name 'clients'"
    ):
        calibrate_secure_aggregation(**cal, clients=10)


@pytest.mark.parametrize("cls", [DistributedDiscreteGaussian, DistributedSkellam])
@pytest.mark.parametrize("local_sigma", [1e12, 2**64, 1e300])
def test_a_noise_past_the_lattice_answers_the_upper_side_and_refuses_the_lower_by_name(
    cls, local_sigma
):
    """A local noise so large that the lower side's lattice would hold 1e14 integers or more (a MemoryError, an
    OverflowError or numpy's size limit before): the RDP upper side answers (epsilon 0 at delta 1e-5: such noise
    hides everything), and bound="both" is refused naming local_sigma / granularity, the rule and the fix; where
    the summed Skellam variance is past the doubles, both are refused naming it."""
    acc_args = {**RUN, "local_sigma": local_sigma}
    if cls is DistributedSkellam and local_sigma == 1e300:
        with pytest.raises(
            ValueError,
            match=r"local_sigma / granularity = 1e\+301 gives the summed Skellam variance",
        ):
            cls(**acc_args)
        return
    acc = cls(**acc_args)
    assert acc.epsilon(1e-5) == 0.0 and 0.0 <= acc.delta(0.0) < 1e-10
    for read, x in (("epsilon", 1e-5), ("delta", 1.0)):
        with pytest.raises(
            ValueError,
            match=r"local_sigma / granularity = .* must be at most about 2.62e\+05 "
            r"/ sqrt\(min_surviving_clients\) for bound='lower' or 'both'\): ask bound='upper'",
        ):
            getattr(acc, read)(x, bound="both")


def test_the_lattice_limit_sits_where_the_window_passes_its_outcomes():
    """Just inside the limit the lower side is computed; the limit counts the observer's extra share too."""
    from hockeystick.secagg.accountants import MAX_LATTICE_OUTCOMES

    n = 4
    inside = 0.95 * MAX_LATTICE_OUTCOMES / (16 * math.sqrt(n + 1)) * RUN["granularity"]
    acc = DistributedDiscreteGaussian(**{**RUN, "local_sigma": inside, "sampling_rate": 0.5})
    low, high = acc.epsilon(1e-5, bound="both", against="observer")
    assert 0.0 <= low <= high
    outside = 1.05 * MAX_LATTICE_OUTCOMES / (16 * math.sqrt(n)) * RUN["granularity"]
    with pytest.raises(ValueError, match="spreads the lower side's lattice"):
        DistributedDiscreteGaussian(**{**RUN, "local_sigma": outside}).epsilon(1e-5, bound="lower")
