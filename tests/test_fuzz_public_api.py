"""Fuzzing the public API: every public callable, every registered accountant.

Arguments are drawn from each parameter's declared domain and from its edges (subnormals, 1e308,
+-inf, NaN, 0, -0.0, negatives, numeric strings, bools, None, empty and mismatched arrays).  Each
call must either refuse (ValueError or TypeError) or return a result in range: no NaN ever,
0 <= delta <= 1, epsilon >= 0 (inf where documented), and the other documented ranges below.
For the accountants with an exact reference (the Gaussian mechanism and GDP through theta, the
PLD with sampling_rate 1), the upper bound is checked against 50-digit mpmath.

Profiles: ``HYPOTHESIS_PROFILE=ci`` (the default, a few minutes in all on a loaded 2-core
machine) and ``HYPOTHESIS_PROFILE=long`` (20x the examples).

The argument walk at the end is deterministic (no hypothesis): every public callable (the registry's
accountants, the adapters' methods, calibrate, the training classes, the pld mechanism constructors)
with each argument in turn set to NaN, +-inf, 0, -0, a subnormal, a negative, a huge value, a bool,
a numeric string and an array, the others valid.  Each call must answer without NaN, or refuse with a
ValueError / TypeError whose message names that argument, within ``CALL_SECONDS`` of CPU time (and
``WALL_SECONDS``).  The few (argument, value) pairs whose call alone takes over half a second of CPU
(``COSTLY_EDGES``) are walked under ``--run-slow``; every other pair is walked in the default selection.
"""

from __future__ import annotations

import functools
import math
import os
import signal
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hockeystick as hs
from hockeystick import audit, fdp, isrl, leakage, matrix, pld, rdp, registry, secagg, training
from hockeystick.base.validation import ParameterTypeError
from hockeystick.calibrate import calibrate, calibrate_batch_size, calibrate_fixed_compute
from hockeystick.fdp.gaussian_mechanism import GaussianMechanism
from hockeystick.interop import opacus
from hockeystick.pld.refine.unmet import AccuracyNotMetWarning

from . import reference
from .fuzz.allocation_walks import ALLOCATION_WALKS, MATRIX_WALKS
from .fuzz.audit_walks import AUDIT_ARGV, AUDIT_FLAGS, AUDIT_WALKS
from .fuzz.event_walks import EVENT_WALKS
from .fuzz.paper_walks import COUNTS, ISRL_WALKS, LEAKAGE_WALKS, NONE_DEFAULTS
from .fuzz.risk_walks import RISK_WALKS
from .fuzz.secagg_walks import SECAGG_WALKS

settings.register_profile(
    "ci",
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
settings.register_profile(
    "long",
    max_examples=800,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
PROFILE = settings.get_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
EXAMPLES = PROFILE.max_examples


def profile(scale: float = 1.0) -> Callable[[Any], Any]:
    """The active profile with ``scale`` times its examples (slow callables get fewer)."""
    return settings(PROFILE, max_examples=max(5, int(EXAMPLES * scale)))


# --- values ---------------------------------------------------------------------------------------

EDGE_NUMBERS = [
    5e-324,
    1e-310,
    2.2250738585072014e-308,
    1e-300,
    1e308,
    1.7976931348623157e308,
    math.inf,
    -math.inf,
    math.nan,
    0.0,
    -0.0,
    -1.0,
    -5e-324,
    1.0,
    0.5,
    2.5,
    1e-16,
]
EDGE_OTHERS: list[Any] = [
    "1.5",
    "abc",
    True,
    False,
    None,
    np.array([]),
    np.array([1.0, 2.0, 3.0]),
    [1.0, math.nan],
    np.array([[0.5], [2.0]]),
    np.float64(0.25),
    np.int64(3),
    1 + 2j,
]
edges = st.sampled_from(EDGE_NUMBERS + EDGE_OTHERS)


def floats(low: float, high: float, *, log: bool = False) -> st.SearchStrategy[float]:
    if log:
        return st.floats(math.log(low), math.log(high)).map(math.exp)
    return st.floats(low, high, allow_nan=False)


def arrays_of(values: st.SearchStrategy[Any]) -> st.SearchStrategy[np.ndarray]:
    return st.lists(values, min_size=1, max_size=4).map(lambda v: np.array(v, dtype=float))


def domain(values: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly valid values (scalars or short arrays), sometimes an edge."""
    return st.one_of(values, values, arrays_of(values), edges)


# Declared domains of the shared vocabulary (docs/vocabulary.md), kept cheap for the PLD accountants.
PARAMETERS: dict[str, st.SearchStrategy[Any]] = {
    "sigma": floats(0.3, 30, log=True),
    "scale": floats(0.3, 30, log=True),
    "mu": floats(1e-3, 20, log=True),
    "sensitivity": floats(0.1, 3),
    "sampling_rate": floats(1e-3, 1.0),
    "rounds": st.integers(1, 40),
    "n": st.integers(50, 5000),
    "batch_size": st.integers(1, 60),
    "clients": st.integers(1, 100),
    "index": st.integers(1, 50),
    "local_steps": st.integers(1, 10),
    "learning_rate": floats(1e-3, 0.5, log=True),
    "lipschitz": floats(0.1, 5),
    "radius": floats(0.1, 5),
    "smoothness": floats(0.5, 4),
    "strong_convexity": floats(0.0, 0.5),
    "diameter": floats(0.1, 5),
    "clip": floats(0.0, 5),
    "suffix": floats(0.0, 0.9),
    "proximal": floats(2, 20),
    "value_discretization_interval": floats(1e-3, 2e-2, log=True),
    "tail": floats(1e-12, 1e-6, log=True),
    "accuracy": floats(0.05, 1.0),
    "relative_accuracy": floats(0.0, 1e-2),
    # training and ISRL-DP vocabulary (hockeystick.training, hockeystick.isrl)
    "noise_multiplier": floats(0.3, 30, log=True),
    "dataset_size": st.integers(50, 5000),
    "total_clients": st.integers(50, 5000),
    "clients_per_round": st.integers(1, 60),
    "sample_rate": floats(1e-3, 1.0, log=True),
    "clipped_count_stddev": floats(0.1, 100, log=True),  # DPFedAvg's adaptive clipping
    "examples_per_user": st.integers(
        1, 2
    ),  # DPSGD's user-level run (a mixture PLD each: kept small)
    "client_sample_rate": floats(1e-3, 1.0, log=True),  # RecordLevelFedAvg
    "local_sample_rate": floats(1e-2, 1.0, log=True),
    "checkin_probability": floats(
        1e-2, 1.0, log=True
    ),  # RandomCheckIns (a random allocation's PLD: few slots)
    "slots": st.integers(1, 8),
    "passes": st.integers(1, 10),
    "epochs": floats(0.01, 0.5),
    "steps": st.integers(1, 40),
    "silo_size": st.integers(50, 5000),
    "silos": st.integers(2, 2000),
    "group_size": st.integers(1, 10),
    # matrix mechanisms (hockeystick.matrix)
    "min_separation": st.integers(1, 40),
    "max_participations": st.integers(1, 10),
    # secure aggregation (hockeystick.secagg)
    "clip_norm": floats(0.1, 5),
    "granularity": floats(1e-3, 1.0, log=True),
    "dimension": st.integers(1, 10**4),
    "local_sigma": floats(1e-3, 5, log=True),
    "min_surviving_clients": st.integers(1, 500),
    "beta": floats(0.0, 0.9),
    "expected_clients": st.integers(1, 500),  # the distributed discrete Laplace
    "trials": st.integers(1, 8),  # the Poisson-binomial mechanism
    "theta": floats(1e-3, 0.49, log=True),
}
EPSILON = domain(st.one_of(floats(0.0, 20.0), st.just(math.inf)))
DELTA = domain(floats(1e-12, 0.9, log=True))
REFUSALS = (ValueError, TypeError)


def check_values(out: Any, low: float, high: float, what: str) -> None:
    """Every number in ``out`` (a float, an array or a tuple of them) lies in [low, high]; no NaN."""
    for part in out if isinstance(out, tuple) else (out,):
        arr = np.asarray(part, dtype=float)
        assert not np.isnan(arr).any(), f"{what}: NaN returned"
        assert ((arr >= low) & (arr <= high)).all(), f"{what}: {arr} outside [{low}, {high}]"


def outcome(call: Callable[[], Any]) -> Any:
    """The call's result, or None when it refused with ValueError / TypeError (the allowed refusal).
    A certified bracket wider than the default tolerance (at a subnormal delta, say) is an answer: its
    warning is the accuracy's, and the range check below is what this walk holds."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", AccuracyNotMetWarning)
        warnings.simplefilter(
            "ignore", RuntimeWarning
        )  # numpy overflow on the way is fine if the result is
        try:
            return call()
        except REFUSALS:
            return None


# --- element-wise numerics ------------------------------------------------------------------------

NUMBERS = domain(st.one_of(floats(-40, 40), floats(1e-300, 1e300, log=True)))
PROBABILITY = domain(floats(0.0, 1.0))
ELEMENTWISE: list[
    tuple[str, Callable[..., Any], tuple[st.SearchStrategy[Any], ...], float, float]
] = [
    ("theta", hs.theta, (NUMBERS, NUMBERS), 0.0, 1.0),
    ("log_theta", hs.log_theta, (NUMBERS, NUMBERS), -math.inf, 0.0),
    ("theta_depsilon", hs.theta_depsilon, (NUMBERS, NUMBERS), -math.inf, 0.0),
    ("theta_epsilon", hs.theta_epsilon, (NUMBERS, DELTA), 0.0, math.inf),
    ("theta_radius", hs.theta_radius, (NUMBERS, DELTA), 0.0, math.inf),
    ("laplace_hockey_stick", hs.laplace_hockey_stick, (NUMBERS, NUMBERS, NUMBERS), 0.0, 1.0),
    ("gaussian_tail", hs.gaussian_tail, (NUMBERS,), 0.0, 1.0),
    ("log_gaussian_tail", hs.log_gaussian_tail, (NUMBERS,), -math.inf, 0.0),
    ("gaussian_tail_inverse", hs.gaussian_tail_inverse, (PROBABILITY,), -math.inf, math.inf),
    ("mills_ratio", hs.mills_ratio, (NUMBERS,), 0.0, math.inf),
]


def test_every_public_name_is_fuzzed():
    fuzzed = {name for name, *_ in ELEMENTWISE} | set(FAMILY_CALLS)
    public = set(hs.__all__) - {"MAX_RADIUS_EPSILON"}
    for family in (fdp, rdp, pld, matrix, isrl, leakage, audit, secagg):
        public |= {f"{family.__name__.split('.')[-1]}.{n}" for n in family.__all__}
    skipped = {
        "fdp.INTERPOLATIONS",
        "fdp.SCHEDULES",
        "fdp.InterpolationBound",
        "rdp.CONVERSIONS",
        "rdp.DEFAULT_ORDERS",
        "rdp.MAX_ORDER",
        "pld.PrivacyLossDistribution",  # constants and result types, not callables
        # accountant classes: fuzzed through the registry below
        "fdp.GaussianMechanism",
        "pld.FixedBatchGaussianPLD",
        "pld.SubsampledGaussianPLD",
        "pld.WithReplacementBatchGaussianPLD",
        # a mixture of PLD objects (no numeric argument of its own beyond the weights)
        "pld.mixture",
        "matrix.Strategy",  # the strategies' abstract base: walked through Tree, BLT, Banded and DenseStrategy
        "matrix.Sampling",  # the samplings' abstract base: walked through its four schemes
        "matrix.ParticipationReading",  # labelled_reading's result type, walked through labelled_reading
        "matrix.MonteCarloDelta",  # a result type: its fields walked through BallsInBinsMonteCarlo
        "matrix.MonteCarloPLD",  # built from draws: walked through ImportanceSampledMonteCarlo.pld
        "matrix.MonteCarloBand",  # a result type: walked through ImportanceSampledMonteCarlo.pld().band
        "matrix.PipelineGuarantee",  # a result type: walked through verify_then_release
        "matrix.MMCCEpsilon",  # a result type: its fields walked through MMCC
        "secagg.DiscreteLaplaceCalibration",  # a result type: its fields walked through calibrate_distributed_discrete_laplace
        "secagg.PoissonBinomialCalibration",  # a result type: its fields walked through calibrate_poisson_binomial
    }
    fuzzed |= {
        label for label, *_ in WALKS
    }  # the mechanism constructors: the argument walk at the end
    assert public - skipped <= fuzzed, sorted(public - skipped - fuzzed)


@pytest.mark.parametrize(
    "name, function, arguments, low, high", ELEMENTWISE, ids=[e[0] for e in ELEMENTWISE]
)
@profile(2.0)
@given(data=st.data())
def test_elementwise_refuses_or_answers_in_range(name, function, arguments, low, high, data):
    args = [data.draw(a) for a in arguments]
    out = outcome(lambda: function(*args))
    if out is not None:
        check_values(out, low, high, name)


# --- the families' functions ----------------------------------------------------------------------

ORDERS = st.one_of(st.just(None), st.lists(floats(1.01, 200), min_size=1, max_size=5), edges)
RDP_CURVE = arrays_of(floats(0.0, 50.0))
# orders of the right length; scalar and <= 1 orders are the known issue below
RDP_ORDERS = st.one_of(
    st.just([1.5, 2.0, 8.0]),
    st.lists(st.sampled_from(EDGE_NUMBERS), min_size=3, max_size=3).filter(
        lambda o: all(x > 1 for x in o if not math.isnan(x))
    ),
)


def _shifted_tradeoff_epsilon(shift: float, d: st.DataObject) -> Callable[[], Any]:
    """epsilon at a drawn delta of the trade-off function 1 - alpha - ``shift`` clipped to [0, 1]
    (an (0, shift)-DP curve), one function per example: its shift drawn once, not at each of the
    numerical search's evaluations."""

    def curve(alpha: Any) -> Any:
        return np.clip(1.0 - alpha - shift, 0.0, 1.0)

    return lambda: fdp.TradeOffFunction(curve).epsilon(d.draw(DELTA))


FAMILY_CALLS: dict[str, tuple[Callable[[st.DataObject], Callable[[], Any]], float, float]] = {
    "fdp.compose_gdp": (
        lambda d: (
            lambda: fdp.compose_gdp(
                d.draw(domain(PARAMETERS["mu"])), d.draw(domain(PARAMETERS["mu"]))
            )
        ),
        0.0,
        math.inf,
    ),
    "fdp.constant_rate_h0": (
        lambda d: (
            lambda: fdp.constant_rate_h0(
                d.draw(domain(floats(0, 5))),
                d.draw(domain(floats(0, 5))),
                d.draw(domain(st.integers(1, 50))),
            )
        ),
        0.0,
        math.inf,
    ),
    "fdp.constant_rate_h0_limit": (
        lambda d: (
            lambda: fdp.constant_rate_h0_limit(
                d.draw(domain(floats(0, 5))), d.draw(domain(floats(0, 5)))
            )
        ),
        0.0,
        math.inf,
    ),
    "fdp.gaussian_tradeoff": (
        lambda d: (
            lambda: fdp.gaussian_tradeoff(d.draw(domain(PARAMETERS["mu"])), d.draw(PROBABILITY))
        ),
        0.0,
        1.0,
    ),
    "fdp.gdp_to_rdp": (
        lambda d: lambda: fdp.gdp_to_rdp(d.draw(domain(PARAMETERS["mu"])), d.draw(ORDERS)),
        0.0,
        math.inf,
    ),
    "fdp.interpolation_bound": (
        lambda d: (
            lambda: (
                fdp.interpolation_bound(
                    d.draw(domain(floats(0.5, 3))), d.draw(domain(floats(0, 3)))
                ).h_optimal
            )
        ),
        0.0,
        math.inf,
    ),
    "fdp.rounds_from_learning_rates": (
        lambda d: (
            lambda: fdp.rounds_from_learning_rates(
                d.draw(st.one_of(st.just(np.full((3, 2), 0.1)), edges)),
                lipschitz=d.draw(domain(floats(0, 3))),
                clip=d.draw(domain(floats(0, 3))),
                clients=d.draw(domain(st.integers(1, 10))),
            )
        ),
        0.0,
        math.inf,
    ),
    "fdp.schedule_round_factors": (
        lambda d: (
            lambda: fdp.schedule_round_factors(
                d.draw(st.sampled_from(fdp.SCHEDULES + ("daily", 3))),
                d.draw(domain(PARAMETERS["learning_rate"])),
                d.draw(domain(PARAMETERS["lipschitz"])),
                d.draw(domain(PARAMETERS["local_steps"])),
                d.draw(domain(st.integers(0, 20))),
            )
        ),
        0.0,
        math.inf,
    ),
    "fdp.GaussianDP": (
        lambda d: lambda: fdp.GaussianDP(d.draw(domain(PARAMETERS["mu"]))).delta(d.draw(EPSILON)),
        0.0,
        1.0,
    ),
    "fdp.GaussianTradeOff": (
        lambda d: (
            lambda: fdp.GaussianTradeOff(d.draw(domain(PARAMETERS["mu"]))).delta(d.draw(EPSILON))
        ),
        0.0,
        1.0,
    ),
    "fdp.TradeOffFunction": (
        lambda d: _shifted_tradeoff_epsilon(d.draw(floats(0, 0.5)), d),
        0.0,
        math.inf,
    ),
    "fdp.NoisyFedAvg": (
        lambda d: (
            lambda: fdp.NoisyFedAvg(**_draw(d, registry.get("noisy_fedavg"))).epsilon(d.draw(DELTA))
        ),
        0.0,
        math.inf,
    ),
    "fdp.NoisyFedProx": (
        lambda d: (
            lambda: fdp.NoisyFedProx(
                clients=d.draw(domain(PARAMETERS["clients"])),
                sigma=d.draw(domain(PARAMETERS["sigma"])),
                clip=d.draw(domain(PARAMETERS["clip"])),
                lipschitz=d.draw(domain(PARAMETERS["lipschitz"])),
                proximal=d.draw(domain(PARAMETERS["proximal"])),
                learning_rate=d.draw(domain(floats(1e-3, 0.05))),
                rounds=d.draw(domain(PARAMETERS["rounds"])),
            ).delta(d.draw(EPSILON))
        ),
        0.0,
        1.0,
    ),
    "rdp.compose_rdp": (
        lambda d: (
            lambda: rdp.compose_rdp(
                d.draw(st.one_of(RDP_CURVE, edges)), d.draw(st.one_of(RDP_CURVE, edges))
            )
        ),
        0.0,
        math.inf,
    ),
    "rdp.gaussian_rdp": (
        lambda d: lambda: rdp.gaussian_rdp(d.draw(domain(PARAMETERS["sigma"])), d.draw(ORDERS)),
        0.0,
        math.inf,
    ),
    "rdp.subsampled_gaussian_rdp": (
        lambda d: (
            lambda: rdp.subsampled_gaussian_rdp(
                d.draw(domain(PARAMETERS["sigma"])),
                d.draw(domain(PARAMETERS["sampling_rate"])),
                d.draw(
                    st.one_of(
                        st.just(None), st.lists(floats(1.5, 64), min_size=1, max_size=3), edges
                    )
                ),
            )
        ),
        0.0,
        math.inf,
    ),
    "rdp.poisson_subsampled_rdp": (
        lambda d: (
            lambda: rdp.poisson_subsampled_rdp(
                d.draw(st.one_of(st.just([0.5, 1.0, 2.0]), edges)),
                d.draw(
                    st.one_of(RDP_ORDERS, st.just([2.0, 3.0, 4.0]))
                ),  # an integer chain: the general bound
                d.draw(domain(PARAMETERS["sampling_rate"])),
            )
        ),
        0.0,
        math.inf,
    ),
    "rdp.poisson_subsampled_remove_rdp": (
        lambda d: (
            lambda: rdp.poisson_subsampled_remove_rdp(
                d.draw(st.one_of(st.just([0.5, 1.0, 2.0]), edges)),
                d.draw(domain(PARAMETERS["sampling_rate"])),
            )
        ),
        0.0,
        math.inf,
    ),
    "rdp.rdp_to_epsilon": (
        lambda d: (
            lambda: rdp.rdp_to_epsilon(
                d.draw(st.one_of(st.just([0.5, 1.0, 2.0]), edges)),
                d.draw(RDP_ORDERS),
                d.draw(DELTA),
                conversion=d.draw(st.sampled_from(rdp.CONVERSIONS + ("loose",))),
            )
        ),
        0.0,
        math.inf,
    ),
    "rdp.rdp_to_delta": (
        lambda d: (
            lambda: rdp.rdp_to_delta(
                d.draw(st.one_of(st.just([0.5, 1.0, 2.0]), edges)),
                d.draw(RDP_ORDERS),
                d.draw(EPSILON),
                conversion=d.draw(st.sampled_from(rdp.CONVERSIONS)),
            )
        ),
        0.0,
        1.0,
    ),
    "rdp.zcdp_to_delta": (
        lambda d: (
            lambda: rdp.zcdp_to_delta(
                d.draw(domain(floats(0.0, 1e3))),
                d.draw(EPSILON),
                xi=d.draw(domain(floats(0.0, 10.0))),
            )
        ),
        0.0,
        1.0,
    ),
    "rdp.zcdp_to_epsilon": (
        lambda d: (
            lambda: rdp.zcdp_to_epsilon(
                d.draw(domain(floats(0.0, 1e3))),
                d.draw(DELTA),
                xi=d.draw(domain(floats(0.0, 10.0))),
            )
        ),
        0.0,
        math.inf,
    ),
    "rdp.SubsampledGaussianRDP": (
        lambda d: (
            lambda: rdp.SubsampledGaussianRDP(
                **_draw(d, registry.get("rdp_subsampled_gaussian"))
            ).epsilon(d.draw(DELTA))
        ),
        0.0,
        math.inf,
    ),
    "pld.gaussian": (
        lambda d: (
            lambda: pld.gaussian(
                d.draw(domain(PARAMETERS["sigma"])),
                value_discretization_interval=d.draw(PARAMETERS["value_discretization_interval"]),
            ).delta(d.draw(EPSILON))
        ),
        0.0,
        1.0,
    ),
    "pld.laplace": (
        lambda d: (
            lambda: pld.laplace(
                d.draw(domain(PARAMETERS["scale"])),
                value_discretization_interval=d.draw(PARAMETERS["value_discretization_interval"]),
            ).epsilon(d.draw(DELTA))
        ),
        0.0,
        math.inf,
    ),
    "pld.subsampled_gaussian": (
        lambda d: (
            lambda: (
                pld.subsampled_gaussian(
                    d.draw(domain(PARAMETERS["sigma"])),
                    d.draw(domain(PARAMETERS["sampling_rate"])),
                    value_discretization_interval=1e-2,
                )
                .self_compose(d.draw(st.one_of(st.integers(1, 20), edges)))
                .delta(
                    d.draw(EPSILON),
                    bound=d.draw(st.sampled_from(["upper", "lower", "both", "middle"])),
                )
            )
        ),
        0.0,
        1.0,
    ),
    "pld.fixed_size_subsampled_gaussian": (
        lambda d: (
            lambda: pld.fixed_size_subsampled_gaussian(
                d.draw(domain(PARAMETERS["sigma"])),
                d.draw(domain(PARAMETERS["batch_size"])),
                d.draw(domain(PARAMETERS["n"])),
                value_discretization_interval=1e-2,
            ).epsilon(d.draw(DELTA))
        ),
        0.0,
        math.inf,
    ),
    "pld.with_replacement_subsampled_gaussian": (
        lambda d: (
            lambda: pld.with_replacement_subsampled_gaussian(
                d.draw(domain(PARAMETERS["sigma"])),
                d.draw(domain(PARAMETERS["batch_size"])),
                d.draw(domain(PARAMETERS["n"])),
                value_discretization_interval=1e-2,
            ).delta(d.draw(EPSILON))
        ),
        0.0,
        1.0,
    ),
    "pld.from_distributions": (
        lambda d: (
            lambda: pld.from_distributions(
                d.draw(st.one_of(st.just([0.2, 0.3, 0.5]), edges)),
                d.draw(st.one_of(st.just([0.5, 0.3, 0.2]), edges)),
                value_discretization_interval=1e-3,
            ).delta(d.draw(EPSILON))
        ),
        0.0,
        1.0,
    ),
    "pld.PLDAccountant": (
        lambda d: (
            lambda: (
                pld.PLDAccountant(value_discretization_interval=1e-2)
                .compose_subsampled_gaussian(
                    d.draw(st.one_of(PARAMETERS["sigma"], edges)),
                    d.draw(st.one_of(PARAMETERS["sampling_rate"], edges)),
                    d.draw(st.one_of(st.integers(1, 20), edges)),
                )
                .epsilon(d.draw(DELTA))
            )
        ),
        0.0,
        math.inf,
    ),
}


# The PLD grid spacing is drawn from its valid range here, and from its edges (h >= 710, h = 0) in the
# edge tests at the end.
VALID_ONLY = {"value_discretization_interval"}


def _draw(data: st.DataObject, entry: registry.AccountantEntry) -> dict[str, Any]:
    """Keyword arguments for ``entry``'s constructor: every required one, each optional one half the time."""
    kwargs = {}
    required = entry.required  # a signature read: once a draw, not once a parameter
    for name in entry.parameters:
        if name in required or data.draw(st.booleans()):
            values = PARAMETERS[name]
            kwargs[name] = data.draw(values if name in VALID_ONLY else domain(values))
    return kwargs


@pytest.mark.parametrize("name", sorted(FAMILY_CALLS))
@profile(1.0)
@given(data=st.data())
def test_family_functions_refuse_or_answer_in_range(name, data):
    make, low, high = FAMILY_CALLS[name]
    out = outcome(make(data))
    if out is not None:
        if name == "fdp.schedule_round_factors":
            log_rho, steps = out
            check_values(log_rho, 0.0, math.inf, name)
            check_values(steps, 0.0, math.inf, name)
            return
        check_values(out, low, high, name)


# --- every registered accountant ------------------------------------------------------------------

SLOW = {
    "pld_fixed_batch_gaussian",
    "pld_subsampled_gaussian",
    "pld_with_replacement_gaussian",
    "isrl_shuffled_noisy_mb_sgd",
    "isrl_group_noisy_mb_sgd",
    # with-replacement batches: a batch of one at lipschitz 4.3 and sigma 1.4 (a shift of 3 sigma) on the
    # default grid costs 1.8 CPU s for one draw of three points; a drawn grid still spans [1e-3, 2e-2]
    "isrl_noisy_mb_sgd",
    # a PLD per point; with full-batch local steps, pld_subsampled_gaussian's default grid, which warns where its
    # certified bracket stays wider than max(1e-2, 1e-2 eps) (a subnormal delta; tests/training pins that warning)
    "record_level_fedavg",
    "random_checkins",
    # a dominating pair of up to 500 clients' draws per point
    "poisson_binomial",
    "poisson_binomial_observer",
}


@pytest.mark.parametrize("name", registry.names())
@given(data=st.data())
@profile(0.5)
def test_registered_accountants_refuse_or_answer_in_range(name, data):
    entry = registry.get(name)
    kwargs = _draw(data, entry)
    if name in SLOW:  # keep the composed grids small: a coarse grid and few rounds
        kwargs.setdefault("value_discretization_interval", 1e-2)
    if name == "pld_with_replacement_gaussian":
        # its losses span about (batch_size x sensitivity / sigma)^2 / 2, so its grid at a drawn fine spacing is
        # the largest here (13 copies at a shift of 4 sigma on 1e-3: 27 CPU s for one draw); the range and NaN
        # checks hold by construction at any spacing, so it is fuzzed at a spacing of at least 1e-2. The
        # spacing's own edges are fuzzed by test_grid_spacing_and_rdp_order_edges_refuse_or_answer_in_range and
        # its fine grids are held against references in tests/pld/sampling/test_pld_with_replacement*.py.
        kwargs["value_discretization_interval"] = max(kwargs["value_discretization_interval"], 1e-2)
    accountant = outcome(lambda: entry.build(**kwargs))
    if accountant is None:
        return
    side = data.draw(st.sampled_from(["delta", "epsilon"]))
    out = outcome(
        lambda: (
            accountant.delta(data.draw(EPSILON))
            if side == "delta"
            else accountant.epsilon(data.draw(DELTA))
        )
    )
    if out is not None:
        check_values(out, 0.0, 1.0 if side == "delta" else math.inf, f"{name}.{side}")


# --- upper bounds against exact references ---------------------------------------------------------


def _exact_cases() -> st.SearchStrategy[tuple[str, float, float, float]]:
    return st.tuples(
        st.sampled_from(["gaussian", "gdp", "pld_q1"]),
        floats(0.3, 10, log=True),
        st.integers(1, 50),
        floats(0.0, 12.0),
    )


def _upper_delta(kind: str, sigma: float, rounds: int, eps: float) -> tuple[float, float]:
    """(upper delta from the accountant, mu of the exact Gaussian profile)."""
    mu = math.sqrt(rounds) / sigma
    if kind == "gaussian":
        return GaussianMechanism(sigma=sigma, rounds=rounds).delta(eps), mu
    if kind == "gdp":
        return fdp.GaussianDP(mu).delta(eps), mu
    return pld.SubsampledGaussianPLD(sigma, 1.0, rounds).delta(eps), mu


@profile(1.0)
@given(case=_exact_cases())
def test_exact_paths_agree_with_mpmath_within_their_accuracy(case):
    upper, mu = _upper_delta(*case)
    exact = float(reference.theta(mu, case[3]))
    if exact > 1e-300:
        assert upper >= exact * (1 - 1e-12), (case, upper, exact)


@profile(1.0)
@given(case=_exact_cases())
def test_exact_paths_give_upper_bounds_never_below_mpmath(case):
    upper, mu = _upper_delta(*case)
    assert upper >= float(reference.theta(mu, case[3])), case


# --- the edges: grid spacings and RDP orders -------------------------------------------------------


@profile(1.0)
@given(h=edges, orders=edges, eps=EPSILON)
def test_grid_spacing_and_rdp_order_edges_refuse_or_answer_in_range(h, orders, eps):
    out = outcome(
        lambda: pld.gaussian(1.0, value_discretization_interval=h).self_compose(3).delta(eps)
    )
    if out is not None:
        check_values(out, 0.0, 1.0, "pld.gaussian")
    out = outcome(lambda: rdp.rdp_to_epsilon([0.5], orders, 1e-5, conversion="classic"))
    if out is not None:
        check_values(out, 0.0, math.inf, "rdp_to_epsilon")
        assert np.all(np.asarray(orders, dtype=float) > 1), "orders <= 1 accepted"


# --- the argument walk: every public callable, one argument at a time -----------------------------

WALK_VALUES: list[Any] = [
    math.nan,
    math.inf,
    -math.inf,
    0.0,
    -0.0,
    5e-324,
    -1.0,
    1e308,
    True,
    "0.5",
    np.array([0.5, 2.0]),
]
# A call using more CPU than CALL_SECONDS fails the walk (a shared machine's load stretches the wall time, not the
# CPU time), and one waiting past WALL_SECONDS fails it too (a call blocked without using the CPU); each
# signal.setitimer interrupts Python code
CALL_SECONDS = 120.0
WALL_SECONDS = 900.0
H = 1e-2  # coarse loss grids keep the PLD calls cheap; the grid spacing itself is walked too
WALK_BASE: dict[str, Any] = dict(
    sigma=2.0,
    scale=2.0,
    mu=1.0,
    sensitivity=1.0,
    sampling_rate=0.01,
    rounds=3,
    n=1000,
    batch_size=10,
    clients=10,
    index=1,
    local_steps=2,
    learning_rate=0.05,
    lipschitz=1.0,
    radius=1.0,
    smoothness=1.0,
    strong_convexity=0.1,
    diameter=1.0,
    clip=1.0,
    suffix=0.5,
    proximal=5.0,
    value_discretization_interval=H,
    tail=1e-12,
    accuracy=0.1,
    noise_multiplier=2.0,
    dataset_size=1000,
    total_clients=1000,
    clients_per_round=10,
    steps=3,
    silo_size=1000,
    silos=10,
    group_size=1,
    client_sample_rate=0.01,
    local_sample_rate=0.5,
    checkin_probability=0.5,
    slots=4,
    passes=3,
    clip_norm=1.0,  # secure aggregation
    granularity=0.1,
    dimension=4,
    local_sigma=0.5,
    min_surviving_clients=4,
    expected_clients=5,
    trials=4,
    theta=0.1,
)


def _registered_walk(name: str) -> tuple[Callable[..., Any], dict[str, Any]]:
    entry = registry.get(name)
    base = {k: WALK_BASE[k] for k in entry.required}
    base.update(
        {
            k: WALK_BASE[k]
            for k in entry.parameters
            if k in ("value_discretization_interval", "tail")
        }
    )
    base.update(
        {"steps": 3}
        if name.startswith("dp_sgd")
        else {"rounds": 3}
        if name.startswith("dp_fedavg")
        else {}
    )
    base.update(
        {
            k: WALK_BASE[k]
            for k in entry.parameters
            if k not in base and k in WALK_BASE and k != "accuracy"
        }
    )
    if (
        name == "trusted_aggregator_inverse_time"
    ):  # eta_t = 1 / (lambda t) <= 2 / (beta + lambda) needs lambda >= beta
        base["strong_convexity"] = base["smoothness"]

    def call(**kwargs: Any) -> Any:
        return entry.build(**kwargs).delta(1.0)

    return call, base


def _registered_method(name: str, method: str) -> Callable[..., Any]:
    """``method`` (delta or epsilon) of the accountant built from the walk's valid arguments, at its one argument.

    The accountant is built once, at the walk's first call, and every walk value is asked of it: its answers
    are functions of the argument alone, so a build per value would only repeat the construction (0.12 CPU s
    for isrl_shuffled_noisy_mb_sgd, whose refusals cost 1e-4 s)."""
    built = functools.cache(lambda: registry.get(name).build(**_registered_walk(name)[1]))

    def call(**target: Any) -> Any:
        (value,) = target.values()
        return getattr(built(), method)(value)

    return call


def _opacus_step(noise_multiplier: Any, sample_rate: Any) -> float:
    acc = opacus.HockeystickOpacusAccountant()
    acc.step(noise_multiplier=noise_multiplier, sample_rate=sample_rate)
    return acc.get_epsilon(1e-5)


def _opacus_epsilon(delta: Any) -> tuple[float, tuple[float, float]]:
    acc = opacus.HockeystickOpacusAccountant()
    acc.step(noise_multiplier=2.0, sample_rate=0.01)
    return acc.get_epsilon(delta), acc.get_epsilon_bracket(delta)


def _opacus_history(noise_multiplier: Any, sample_rate: Any, steps: Any) -> tuple[float, float]:
    restored = opacus.HockeystickOpacusAccountant()
    restored.load_state_dict(
        {"history": [(noise_multiplier, sample_rate, steps)], "mechanism": restored.mechanism()}
    )
    assigned = opacus.HockeystickOpacusAccountant()
    assigned.history = [(noise_multiplier, sample_rate, steps)]
    return restored.get_epsilon(1e-5), assigned.get_epsilon(1e-5)


def _dp_accountant(**kwargs: Any) -> Any:
    from dp_accounting import dp_event

    from hockeystick.interop.dp_accounting import HockeystickPLDAccountant

    acc = HockeystickPLDAccountant(**kwargs)
    return acc.compose(dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(2.0)), 3)


def _rdp_accountant() -> Any:
    from dp_accounting import dp_event

    from hockeystick.interop.dp_accounting import HockeystickRdpAccountant

    return HockeystickRdpAccountant().compose(dp_event.GaussianDpEvent(2.0), 3)


def _dp_count(count: Any) -> float:
    from dp_accounting import dp_event

    return _dp_accountant().compose(dp_event.GaussianDpEvent(2.0), count).get_epsilon(1e-5)


def _self_composed(make: Callable[..., Any]) -> Callable[..., Any]:
    return lambda **kwargs: make(**kwargs).self_compose(2).epsilon(1e-3)


# (label, call, valid keyword arguments: each is walked in turn)
WALKS: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
    *((f"registry {n}", *_registered_walk(n)) for n in registry.names()),
    *(
        (f"registry {n}.delta", _registered_method(n, "delta"), {"epsilon": 1.0})
        for n in registry.names()
    ),
    *(
        (f"registry {n}.epsilon", _registered_method(n, "epsilon"), {"delta": 1e-3})
        for n in registry.names()
    ),
    (
        "training.DPSGD",
        lambda **kw: training.DPSGD(**kw).epsilon(1e-3),
        dict(
            noise_multiplier=2.0,
            dataset_size=1000,
            batch_size=10,
            epochs=0.05,
            value_discretization_interval=H,
        ),
    ),
    (
        "training.DPFedAvg",
        lambda **kw: training.DPFedAvg(**kw).delta(1.0),
        dict(
            noise_multiplier=2.0, total_clients=1000, clients_per_round=10, rounds=3, accuracy=0.1
        ),
    ),
    (
        "training.DPSGD(sample_rate)",
        lambda **kw: training.DPSGD(**kw).epsilon(1e-3),
        dict(noise_multiplier=2.0, sample_rate=0.01, epochs=0.05, value_discretization_interval=H),
    ),
    (
        "calibrate_batch_size",
        lambda **kw: calibrate_batch_size(**kw),
        dict(
            noise_multiplier=2.0,
            dataset_size=1000,
            steps=3,
            epsilon=1.0,
            delta=1e-5,
            value_discretization_interval=H,
        ),
    ),
    (
        "calibrate_fixed_compute",
        lambda **kw: calibrate_fixed_compute(**kw).noise_multiplier,
        dict(
            dataset_size=1000,
            epochs=0.05,
            batch_sizes=10,
            epsilon=1.0,
            delta=1e-5,
            value_discretization_interval=H,
        ),
    ),
    (
        "calibrate",
        lambda **kw: calibrate(**kw),
        dict(
            accountant="gaussian",
            parameter="sigma",
            epsilon=1.0,
            delta=1e-5,
            rounds=3,
            rtol=1e-6,
            start=1.0,
            bound="upper",
            workers=1,
            progress=False,
        ),
    ),
    (
        "opacus.HockeystickOpacusAccountant",
        lambda accuracy: opacus.HockeystickOpacusAccountant(accuracy).get_epsilon(1e-5),
        dict(accuracy=0.1),
    ),
    ("opacus.step", _opacus_step, dict(noise_multiplier=2.0, sample_rate=0.01)),
    ("opacus.get_epsilon", _opacus_epsilon, dict(delta=1e-5)),
    ("opacus.history", _opacus_history, dict(noise_multiplier=2.0, sample_rate=0.01, steps=3)),
    # accuracy is walked on the accountant above: a subnormal one asks for the finest grid at every trial
    (
        "opacus.get_noise_multiplier",
        lambda **kw: opacus.get_noise_multiplier(accuracy=0.1, **kw),
        dict(
            target_epsilon=2.0,
            target_delta=1e-5,
            sample_rate=0.01,
            steps=3,
            sigma_tolerance=1e-2,
            epsilon_tolerance=0.01,
        ),
    ),
    (
        "opacus.get_noise_multiplier(epochs)",
        lambda **kw: opacus.get_noise_multiplier(
            target_epsilon=2.0, target_delta=1e-5, sigma_tolerance=1e-2, accuracy=0.1, **kw
        ),
        dict(sample_rate=0.01, epochs=0.03),
    ),
    (
        "dp_accounting.HockeystickPLDAccountant",
        lambda **kw: _dp_accountant(**kw).get_epsilon(1e-5),
        dict(accuracy=0.1, value_discretization_interval=H),
    ),
    (
        "dp_accounting.get_epsilon",
        lambda target_delta: (
            _dp_accountant().get_epsilon(target_delta),
            _dp_accountant().get_epsilon_bracket(target_delta),
        ),
        dict(target_delta=1e-5),
    ),
    (
        "dp_accounting.get_delta",
        lambda target_epsilon: (
            _dp_accountant().get_delta(target_epsilon),
            _dp_accountant().get_delta_bracket(target_epsilon),
        ),
        dict(target_epsilon=1.0),
    ),
    ("dp_accounting.compose", _dp_count, dict(count=3)),
    (
        "dp_accounting.HockeystickRdpAccountant.get_epsilon",
        lambda target_delta: _rdp_accountant().get_epsilon(target_delta),
        dict(target_delta=1e-5),
    ),
    (
        "dp_accounting.HockeystickRdpAccountant.get_delta",
        lambda target_epsilon: _rdp_accountant().get_delta(target_epsilon),
        dict(target_epsilon=1.0),
    ),
    (
        "pld.gaussian",
        _self_composed(pld.gaussian),
        dict(sigma=2.0, sensitivity=1.0, value_discretization_interval=H, tail=1e-12),
    ),
    (
        "pld.laplace",
        _self_composed(pld.laplace),
        dict(scale=2.0, sensitivity=1.0, value_discretization_interval=H),
    ),
    (
        "pld.subsampled_gaussian",
        _self_composed(pld.subsampled_gaussian),
        dict(
            sigma=2.0,
            sampling_rate=0.01,
            sensitivity=1.0,
            value_discretization_interval=H,
            tail=1e-12,
        ),
    ),
    (
        "pld.fixed_size_subsampled_gaussian",
        _self_composed(pld.fixed_size_subsampled_gaussian),
        dict(
            sigma=2.0,
            batch_size=10,
            n=1000,
            sensitivity=1.0,
            value_discretization_interval=H,
            tail=1e-12,
        ),
    ),
    (
        "pld.with_replacement_subsampled_gaussian",
        _self_composed(pld.with_replacement_subsampled_gaussian),
        dict(
            sigma=2.0,
            batch_size=10,
            n=1000,
            sensitivity=1.0,
            value_discretization_interval=H,
            tail=1e-12,
        ),
    ),
    (
        "pld.discrete_laplace",
        _self_composed(pld.discrete_laplace),
        dict(parameter=1.0, sensitivity=1, value_discretization_interval=H),
    ),
    (
        "pld.eps_delta_dp",
        _self_composed(pld.eps_delta_dp),
        dict(epsilon=1.0, delta=1e-6, value_discretization_interval=H),
    ),
    (
        "pld.randomized_response",
        _self_composed(pld.randomized_response),
        dict(noise_parameter=0.5, num_buckets=4, value_discretization_interval=H),
    ),
    (
        "pld.subsampled_laplace",
        _self_composed(pld.subsampled_laplace),
        dict(scale=2.0, sampling_rate=0.01, sensitivity=1.0, value_discretization_interval=H),
    ),
    (
        "pld.laplace_mixture",
        _self_composed(pld.laplace_mixture),
        dict(scale=2.0, shifts=[0.0, 1.0], weights=[0.5, 0.5], value_discretization_interval=H),
    ),
    (
        "pld.mixture_of_gaussians",
        _self_composed(pld.mixture_of_gaussians),
        dict(
            sigma=2.0,
            sensitivities=[0.0, 1.0],
            sampling_probs=[0.5, 0.5],
            value_discretization_interval=H,
            tail=1e-12,
        ),
    ),
    (
        "pld.poisson_subsampled",
        _self_composed(pld.poisson_subsampled),
        dict(p=[0.6, 0.4], q=[0.4, 0.6], sampling_rate=0.1, value_discretization_interval=H),
    ),
    (
        "pld.from_distributions",
        _self_composed(pld.from_distributions),
        dict(p=[0.6, 0.4], q=[0.4, 0.6], value_discretization_interval=H),
    ),
    (
        "pld.random_allocation_gaussian",
        _self_composed(pld.random_allocation_gaussian),
        dict(steps=8, noise_multiplier=1.0, value_discretization_interval=H, sum_resolution=0.02),
    ),
    (
        "pld.truncated_subsampled_gaussian",
        _self_composed(pld.truncated_subsampled_gaussian),
        dict(
            dataset_size=100,
            sampling_probability=0.1,
            truncated_batch_size=20,
            noise_multiplier=2.0,
            value_discretization_interval=H,
            tail=1e-12,
        ),
    ),
]
WALKS += EVENT_WALKS  # hockeystick's dp_accounting-style events, in both adapters (tests/fuzz/event_walks.py)
WALKS += (
    ALLOCATION_WALKS + MATRIX_WALKS
)  # the allocation accountants, hockeystick.matrix (fuzz/allocation_walks.py)
WALKS += SECAGG_WALKS  # hockeystick.secagg: the accountants, their sensitivity, wrap-around and calibration
WALKS += RISK_WALKS  # hockeystick.risk: trade-off curve, TPR at FPR, advantage, calibration (fuzz/risk_walks.py)
WALKS += (
    ISRL_WALKS + LEAKAGE_WALKS
)  # paper 003's isrl and paper 001's leakage, every public name (paper_walks.py)
WALKS += (
    AUDIT_WALKS  # hockeystick.audit: every public name and the CSV reader (fuzz/audit_walks.py)
)

# Refusals of modules outside the adapters, calibrate, training and the pld constructors whose message
# does not yet name the argument the caller gave (the paper-003 and paper-000/002 accountants pass the
# user's argument on under the name of the mechanism they build), or that fail before any check:
# (label, argument) -> what they say.  Each stays listed until its module names the argument itself.


class _Overtime(Exception):
    pass


def _on_alarm(signum: int, frame: Any) -> None:
    raise _Overtime()


def _walk_failure(call: Callable[..., Any], kwargs: dict[str, Any], name: str) -> str | None:
    """None when the call answers without NaN or refuses naming ``name``; otherwise what went wrong."""
    previous = {sig: signal.signal(sig, _on_alarm) for sig in (signal.SIGALRM, signal.SIGPROF)}
    signal.setitimer(signal.ITIMER_REAL, WALL_SECONDS)
    signal.setitimer(signal.ITIMER_PROF, CALL_SECONDS)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = call(**kwargs)
    except _Overtime:
        return f"ran past {CALL_SECONDS} s of CPU or {WALL_SECONDS} s"
    except REFUSALS as error:
        return None if name in str(error) else f"{type(error).__name__} not naming {name}: {error}"
    except Exception as error:  # noqa: BLE001 - any other exception is the failure reported
        return f"{type(error).__name__}: {error}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.setitimer(signal.ITIMER_PROF, 0)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    for part in out if isinstance(out, tuple) else (out,):
        if (
            isinstance(part, (float, np.ndarray, np.floating))
            and np.isnan(np.asarray(part, dtype=float)).any()
        ):
            return f"NaN returned: {out!r}"
    return None


# the walk of get_noise_multiplier calibrates at every value: seconds (about 4 CPU s at target_delta 5e-324)
SLOW_WALKS = {"opacus.get_noise_multiplier"}

# (walk, argument) -> the edge values at which that one call takes over 0.5 CPU s (one worker, AMD EPYC):
# walked under --run-slow by test_the_costly_edges_answer_or_are_refused_by_name, every other value of
# the walk in the default selection
COSTLY_EDGES: dict[tuple[str, str], tuple[float, ...]] = {
    # calibrating at epsilon = 1e308 searches the discrete Laplace's noise over its whole range (~30 s)
    ("secagg.calibrate_distributed_discrete_laplace", "epsilon"): (1e308,),
    # no or subnormal noise, a subnormal grid or sampling rate: the pair's PLD on a wide support (3-9 s each)
    ("secagg.DistributedDiscreteLaplace", "beta"): (0.0, -0.0, 5e-324),
    ("secagg.DistributedDiscreteLaplace", "value_discretization_interval"): (5e-324,),
    ("secagg.DistributedDiscreteLaplace", "sampling_rate"): (5e-324,),
    # a subnormal delta: the read below every tail (1-7 s)
    ("dp_accounting.get_epsilon", "target_delta"): (5e-324,),
    ("opacus.get_epsilon", "delta"): (5e-324,),
    ("audit.plot_audit", "significance"): (5e-324,),
}


def _costly(label: str, name: str, value: Any) -> bool:
    """Whether ``label``'s argument ``name`` at ``value`` is one of the COSTLY_EDGES."""
    return any(repr(value) == repr(edge) for edge in COSTLY_EDGES.get((label, name), ()))


def _walk_failures(
    label: str, call: Callable[..., Any], base: dict[str, Any], costly: bool
) -> list[str]:
    """The walk of ``label`` at its costly edges (``costly``) or at every other value."""
    failures = []
    for name in base:
        for value in WALK_VALUES:
            if _costly(label, name, value) != costly:
                continue
            failure = _walk_failure(call, {**base, name: value}, name)
            if failure is not None:
                failures.append(f"{name}={value!r}: {failure[:300]}")
    return failures


@pytest.mark.parametrize(
    "label, call, base",
    [
        pytest.param(*walk, id=walk[0], marks=pytest.mark.slow if walk[0] in SLOW_WALKS else ())
        for walk in WALKS
    ],
)
def test_every_argument_at_its_edges_answers_or_is_refused_by_name(label, call, base):
    failures = _walk_failures(label, call, base, costly=False)
    assert not failures, f"{label}:\n" + "\n".join(failures)


@pytest.mark.slow
@pytest.mark.parametrize(
    "label, call, base",
    [
        pytest.param(*walk, id=walk[0])
        for walk in WALKS
        if any(walk[0] == k[0] for k in COSTLY_EDGES)
    ],
)
def test_the_costly_edges_answer_or_are_refused_by_name(label, call, base):
    failures = _walk_failures(label, call, base, costly=True)
    assert not failures, f"{label}:\n" + "\n".join(failures)


def test_every_costly_edge_is_a_walk_value_of_a_walked_argument():
    """COSTLY_EDGES names walks, arguments and values that exist, so no edge leaves both selections."""
    arguments = {(label, name) for label, _, base in WALKS for name in base}
    for (label, name), values in COSTLY_EDGES.items():
        assert (label, name) in arguments, f"{label}({name}=...) is not walked"
        for value in values:
            assert any(repr(value) == repr(v) for v in WALK_VALUES), (
                f"{value!r} is not a walk value"
            )


@pytest.mark.parametrize(
    "label, call, base", [pytest.param(*w, id=w[0]) for w in ISRL_WALKS + LEAKAGE_WALKS]
)
def test_paper_modules_refuse_what_numpy_would_coerce(label, call, base):
    """isrl and leakage: a string, a bool or None where a number is meant is a ParameterTypeError naming
    the argument, and a fraction where a count is meant a ValueError naming it (never 1.0, nan or a
    truncated count)."""
    failures = []
    for name in base:
        bad: list[Any] = ["0.5", True] + (
            [] if label in NONE_DEFAULTS and name == "silo_size" else [None]
        )
        for value in bad + ([2.5] if name in COUNTS else []):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    out = call(**{**base, name: value})
                except ValueError as error:  # ParameterTypeError is one too
                    kind_ok = value == 2.5 or isinstance(error, ParameterTypeError)
                    if name not in str(error) or not kind_ok:
                        failures.append(
                            f"{name}={value!r}: {type(error).__name__} {str(error)[:200]}"
                        )
                    continue
            failures.append(f"{name}={value!r}: answered {out!r}")
    assert not failures, f"{label}:\n" + "\n".join(failures)


def test_the_audit_command_line_answers_or_refuses_every_walk_value_by_its_flag(capsys):
    """``hockeystick audit``: each flag in turn takes every walk value as text, the others valid: exit 0, or 2
    with one line naming the flag (never 1, a traceback or a NaN)."""
    from hockeystick.cli import main  # lazy: the command line's parser only here

    failures = []
    for flag in AUDIT_FLAGS:
        for value in WALK_VALUES:
            text = str(value)
            flags = [f"{f}={v}" for f, v in {**AUDIT_FLAGS, flag: text}.items()]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    code = main([*AUDIT_ARGV, *flags])
                except (
                    SystemExit
                ) as exit_:  # argparse's own refusals (a choice not offered): usage, then the error
                    code = exit_.code
            captured = capsys.readouterr()
            if code == 0 and "nan" not in captured.out.lower():
                continue
            if code != 2 or flag not in captured.err or "Traceback" in captured.err:
                failures.append(f"{flag} {text!r}: exit {code}: {captured.err.strip()[:300]}")
    assert not failures, "\n".join(failures)
