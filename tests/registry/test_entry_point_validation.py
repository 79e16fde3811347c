"""One delta / epsilon rule at every public entry point, and the bad inputs it closed.

Every entry point that takes a target (the training classes, each registered accountant, calibrate,
the Opacus and dp_accounting adapters, the command line) is walked with the same bad values and must
refuse each with the exception and the text of the shared rule (``_validation.delta_target`` /
``epsilon_target``, or ``delta_values`` / ``epsilon_values`` where arrays are taken), under the name
the entry point gives the argument.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from dp_accounting import dp_event

from hockeystick import pld, registry, training
from hockeystick.base import validation as _validation
from hockeystick.calibrate import calibrate
from hockeystick.cli import main
from hockeystick.interop import opacus
from hockeystick.interop.dp_accounting import HockeystickPLDAccountant as DpAccountant
from hockeystick.pld.refine.unmet import AccuracyNotMetWarning

BAD_DELTAS: list[Any] = [
    math.nan,
    math.inf,
    -math.inf,
    0,
    -0.0,
    1,
    2,
    -1,
    True,
    "0.1",
    np.array([0.5, 2.0]),
]
BAD_EPSILONS: list[Any] = [math.nan, -math.inf, -1, -5e-324, True, "0.1", np.array([0.5, -1.0])]
ARRAY_OF_GOOD = np.array(
    [0.1, 0.2]
)  # fine where arrays broadcast, refused where one number is meant


def _refusal(call: Callable[[], Any]) -> tuple[type, str]:
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    return type(info.value), str(info.value)


def _rule(check: Callable[[Any, str], Any], value: Any, name: str) -> tuple[type, str]:
    return _refusal(lambda: check(value, name))


# --- delta ------------------------------------------------------------------------------------------


def _dpsgd() -> training.DPSGD:
    return training.DPSGD(
        noise_multiplier=2.0,
        dataset_size=1000,
        batch_size=10,
        steps=3,
        value_discretization_interval=1e-2,
    )


def _opacus() -> opacus.HockeystickOpacusAccountant:
    acc = opacus.HockeystickOpacusAccountant()
    acc.step(noise_multiplier=2.0, sample_rate=0.01)
    return acc


def _dp_accounting() -> DpAccountant:
    acc = DpAccountant()
    acc.compose(dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(2.0)), 3)
    return acc


BASE = dict(
    sigma=2.0,
    scale=2.0,
    mu=1.0,
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
    proximal=5.0,
    noise_multiplier=2.0,
    dataset_size=1000,
    total_clients=1000,
    clients_per_round=10,
    silo_size=1000,
    silos=10,
    group_size=1,
    client_sample_rate=0.01,  # RecordLevelFedAvg
    checkin_probability=0.5,  # RandomCheckIns
    slots=4,
    clip_norm=1.0,  # the secure-aggregation accountants
    granularity=0.1,
    dimension=4,
    local_sigma=0.5,
    min_surviving_clients=4,
    expected_clients=5,  # the distributed discrete Laplace
    trials=4,  # the Poisson-binomial mechanism
    theta=0.1,
)


def _registered(name: str) -> Any:
    entry = registry.get(name)
    kwargs = {k: BASE[k] for k in entry.required}
    if name.startswith(
        "dp_sgd"
    ):  # the run by its data set and batch (or by its rate: neither is required)
        kwargs.update(dataset_size=BASE["dataset_size"], batch_size=BASE["batch_size"], steps=3)
    if name.startswith("dp_fedavg"):
        kwargs.update(
            total_clients=BASE["total_clients"],
            clients_per_round=BASE["clients_per_round"],
            rounds=3,
        )
    return entry.build(**kwargs)


# (label, call taking the bad value, the argument's name, whether it takes arrays)
DELTA_ENTRIES: list[tuple[str, Callable[[Any], Any], str, bool]] = [
    ("DPSGD.epsilon", lambda d: _dpsgd().epsilon(d), "delta", True),
    (
        "calibrate",
        lambda d: calibrate("gaussian", "sigma", epsilon=1.0, delta=d, rounds=3),
        "delta",
        True,
    ),
    ("opacus.get_epsilon", lambda d: _opacus().get_epsilon(d), "delta", False),
    ("opacus.get_epsilon_bracket", lambda d: _opacus().get_epsilon_bracket(d), "delta", False),
    (
        "opacus.get_noise_multiplier",
        lambda d: opacus.get_noise_multiplier(
            target_epsilon=1.0, target_delta=d, sample_rate=0.01, steps=3
        ),
        "target_delta",
        False,
    ),
    ("dp_accounting.get_epsilon", lambda d: _dp_accounting().get_epsilon(d), "target_delta", False),
    (
        "dp_accounting.get_epsilon_bracket",
        lambda d: _dp_accounting().get_epsilon_bracket(d),
        "target_delta",
        False,
    ),
] + [
    (f"registry {n}.epsilon", lambda d, n=n: _registered(n).epsilon(d), "delta", True)
    for n in registry.names()
]


# dp_accounting's get_epsilon answers delta = 0 where the composition has no delta floor (pure-DP events):
# there a zero is a question, not a bad value (tests/interop/test_interop_pure_epsilon.py)
ZERO_IS_A_QUESTION = {"dp_accounting.get_epsilon", "dp_accounting.get_epsilon_bracket"}


@pytest.mark.parametrize(
    "label, call, name, arrays", DELTA_ENTRIES, ids=[e[0] for e in DELTA_ENTRIES]
)
def test_every_entry_point_refuses_bad_deltas_with_the_shared_message(label, call, name, arrays):
    for value in BAD_DELTAS:
        if (
            label in ZERO_IS_A_QUESTION
            and isinstance(value, (int, float))
            and value == 0
            and value is not False
        ):
            kind, text = _refusal(
                lambda: call(value)
            )  # a Gaussian's delta has a positive floor: refused so
            assert kind is ValueError and text.startswith(
                f"{name} = 0 has no certified epsilon here"
            ), (label, text)
            continue
        rule = _validation.delta_values if arrays else _validation.delta_target
        assert _refusal(lambda: call(value)) == _rule(rule, value, name), (label, value)
        assert _rule(rule, value, name)[1].startswith(name + " must")
    if not arrays:
        kind, text = _refusal(lambda: call(ARRAY_OF_GOOD))
        assert kind is _validation.ParameterTypeError and text.startswith(
            f"{name} must be a single number"
        ), text


# --- epsilon ----------------------------------------------------------------------------------------

EPSILON_ENTRIES: list[tuple[str, Callable[[Any], Any], str, bool]] = [
    ("DPSGD.delta", lambda e: _dpsgd().delta(e), "epsilon", True),
    (
        "calibrate",
        lambda e: calibrate("gaussian", "sigma", epsilon=e, delta=1e-5, rounds=3),
        "epsilon",
        True,
    ),
    (
        "opacus.get_noise_multiplier",
        lambda e: opacus.get_noise_multiplier(
            target_epsilon=e, target_delta=1e-5, sample_rate=0.01, steps=3
        ),
        "target_epsilon",
        False,
    ),
    ("dp_accounting.get_delta", lambda e: _dp_accounting().get_delta(e), "target_epsilon", False),
    (
        "dp_accounting.get_delta_bracket",
        lambda e: _dp_accounting().get_delta_bracket(e),
        "target_epsilon",
        False,
    ),
] + [
    (f"registry {n}.delta", lambda e, n=n: _registered(n).delta(e), "epsilon", True)
    for n in registry.names()
]


@pytest.mark.parametrize(
    "label, call, name, arrays", EPSILON_ENTRIES, ids=[e[0] for e in EPSILON_ENTRIES]
)
def test_every_entry_point_refuses_bad_epsilons_with_the_shared_message(label, call, name, arrays):
    for value in BAD_EPSILONS:
        rule = _validation.epsilon_values if arrays else _validation.epsilon_target
        assert _refusal(lambda: call(value)) == _rule(rule, value, name), (label, value)
    if not arrays:
        kind, text = _refusal(lambda: call(ARRAY_OF_GOOD))
        assert kind is _validation.ParameterTypeError and text.startswith(
            f"{name} must be a single number"
        ), text


# --- the command line ---------------------------------------------------------------------------------


def _cli_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one error line of a refused invocation (exit code 2)."""
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse's own errors
        code = exit_.code
    assert code == 2, argv
    return capsys.readouterr().err.strip().splitlines()[-1]


@pytest.mark.parametrize(
    "value", [v for v in BAD_DELTAS if isinstance(v, (int, float)) and not isinstance(v, bool)]
)
def test_the_command_line_refuses_bad_deltas_with_the_shared_message(value, capsys):
    # the shared rule under the flag's name, quoting the value as typed
    expected = (
        _rule(_validation.delta_target, value, "--delta")[1].rsplit("got ", 1)[0] + f"got {value!r}"
    )
    for argv in (
        ["epsilon", "-a", "gaussian", "-p", "sigma=1", f"--delta={value!r}"],
        ["calibrate", "-a", "gaussian", "--epsilon", "1", f"--delta={value!r}"],
    ):
        assert _cli_error(argv, capsys).endswith(": error: " + expected), argv


@pytest.mark.parametrize("value", [math.nan, -math.inf, -1.0])
def test_the_command_line_refuses_bad_epsilons_with_the_shared_message(value, capsys):
    expected = (
        _rule(_validation.epsilon_target, value, "--epsilon")[1].rsplit("got ", 1)[0]
        + f"got {value!r}"
    )
    argv = ["delta", "-a", "gaussian", "-p", "sigma=1", f"--epsilon={value!r}"]
    assert _cli_error(argv, capsys).endswith(": error: " + expected), argv


def test_an_infinite_epsilon_is_answered_alike_in_python_and_on_the_command_line(capsys):
    assert registry.get("gaussian").build(sigma=1.0).delta(math.inf) == 0.0
    assert (
        0.0 <= _dp_accounting().get_delta(math.inf) <= 1e-14
    )  # the grid's tail mass at +inf, certified
    assert not main(["delta", "-a", "gaussian", "-p", "sigma=1", "--epsilon", "inf"])
    assert capsys.readouterr().out.split()[-1] == "0"


# --- the adapters' other arguments ---------------------------------------------------------------------


def _history(entry: tuple[Any, Any, Any]) -> Callable[[], Any]:
    def load() -> Any:
        acc = opacus.HockeystickOpacusAccountant()
        acc.load_state_dict({"history": [entry], "mechanism": acc.mechanism()})
        return acc.get_epsilon(1e-5)

    return load


def _history_set(entry: tuple[Any, Any, Any]) -> Callable[[], Any]:
    def assign() -> Any:
        acc = opacus.HockeystickOpacusAccountant()
        acc.history = [entry]
        return acc.get_epsilon(1e-5)

    return assign


@pytest.mark.parametrize("restore", [_history, _history_set], ids=["load_state_dict", "history="])
@pytest.mark.parametrize(
    "entry, message",
    [
        (
            (1.0, 0.01, math.inf),
            r"^history\[0\] steps must be an integer >= 0, got inf$",
        ),  # OverflowError
        (
            (1.0, 0.01, 2.9),
            r"^history\[0\] steps must be an integer >= 0, got 2\.9; counts are not rounded$",
        ),  # 2
        ((1.0, 0.01, True), r"^history\[0\] steps must be a real number"),  # 1
        (
            (0.0, 0.01, 3),
            r"^history\[0\] noise_multiplier must be finite and > 0, got 0\.0$",
        ),  # epsilon inf
        ((1.0, np.array([0.1, 0.2]), 3), r"^history\[0\] sample_rate must be a single number"),
        ((1.0, 0.01, -1), r"^history\[0\] steps must be an integer >= 0, got -1$"),
    ],
)
def test_opacus_history_entries_are_checked_as_counts_and_noise(restore, entry, message):
    with pytest.raises((ValueError, TypeError), match=message):
        restore(entry)()


def test_opacus_history_keeps_whole_float_counts_as_integers():
    acc = opacus.HockeystickOpacusAccountant()
    acc.load_state_dict(
        {"history": [(1.0, 0.01, 3.0), (2.0, 0.02, np.int64(4))], "mechanism": acc.mechanism()}
    )
    assert acc.history == [(1.0, 0.01, 3), (2.0, 0.02, 4)] and len(acc) == 7


@pytest.mark.parametrize(
    "kwargs, kind, message",
    [
        (
            dict(steps=10, sigma_tolerance=0.0),
            ValueError,
            r"^sigma_tolerance must lie in \[2\.22045e-16, 1\), got 0\.0$",
        ),
        (
            dict(steps=10, sigma_tolerance=5e-324),
            ValueError,
            r"^sigma_tolerance must lie in",
        ),  # hung
        (dict(steps=10, sigma_tolerance=-1.0), ValueError, r"^sigma_tolerance must lie in"),  # hung
        (
            dict(epochs=1, sample_rate=0.0),
            ValueError,
            r"^sample_rate must lie in \(0, 1\], got 0\.0$",
        ),  # ZeroDivision
        (dict(steps=math.inf), ValueError, r"^steps must be an integer >= 1, got inf$"),  # Overflow
        (
            dict(epochs=math.inf),
            ValueError,
            r"^epochs must be finite and > 0, got inf$",
        ),  # Overflow
        (
            dict(steps=2.5),
            ValueError,
            r"^steps must be an integer >= 1, got 2\.5; counts are not rounded$",
        ),
        (dict(epochs=1e300), ValueError, r"^epochs / sample_rate must be at most 2\^53 steps"),
        (dict(steps=10, sample_rate="0.01"), TypeError, r"^sample_rate must be a real number"),
        (
            dict(steps=10, accuracy=np.array([0.1, 0.2])),
            TypeError,
            r"^accuracy must be a single number",
        ),
    ],
)
def test_get_noise_multiplier_refuses_bad_arguments_by_name(kwargs, kind, message):
    args = dict(target_epsilon=1.0, target_delta=1e-5, sample_rate=0.01) | kwargs
    with pytest.raises(kind, match=message):
        opacus.get_noise_multiplier(**args)


def test_get_noise_multiplier_rounds_epochs_up_from_the_exact_quotient():
    # 1 / 0.1 is 9.99999999999999944... as exact doubles: 10 steps; (1 + 2^-52) / 0.1 is just above 10: 11 steps
    target = dict(target_epsilon=1.0, target_delta=1e-5, sample_rate=0.1)
    ten, eleven = (opacus.get_noise_multiplier(**target, steps=steps) for steps in (10, 11))
    assert ten != eleven
    assert opacus.get_noise_multiplier(**target, epochs=1.0) == ten
    assert opacus.get_noise_multiplier(**target, epochs=1.0 + 2.0**-52) == eleven


def test_get_noise_multiplier_where_every_sigma_meets_the_target_returns_the_smallest_searched():
    # a finite target every searched sigma meets: the search's floor at q = 1 (an infinite target needs none:
    # tests/interop/test_interop_opacus_edges.py)
    sigma = opacus.get_noise_multiplier(
        target_epsilon=1e308, target_delta=1e-5, sample_rate=1.0, steps=3
    )
    assert sigma == np.finfo(float).tiny ** 0.25


# --- counts -------------------------------------------------------------------------------------------


def test_steps_from_epochs_round_up_from_the_exact_product():
    # 100 steps per epoch: (1 + 2^-52) * 100 = 100.0000000000000222 exactly, so 101 steps (100 before)
    assert (
        training.DPSGD(
            noise_multiplier=1.0, dataset_size=1000, batch_size=10, epochs=1 + 2.0**-52
        ).steps
        == 101
    )
    # 0.3 is 0.29999999999999998889...: 30 steps, though the rounded product 0.3 * 100 is 30.000000000000004
    steps = training.DPSGD(
        noise_multiplier=1.0, dataset_size=1000, batch_size=10, epochs=np.array([1.0, 0.3, 2.5])
    ).steps
    assert steps.tolist() == [100.0, 30.0, 250.0]
    assert (
        training.DPFedAvg(
            noise_multiplier=1.0, total_clients=1001, clients_per_round=10, epochs=1
        ).steps
        == 101
    )
    with pytest.raises(ValueError, match=r"^epochs must give at most 2\^53 steps"):
        training.DPSGD(noise_multiplier=1.0, dataset_size=1000, batch_size=10, epochs=1e308)


@pytest.mark.parametrize(
    "value, kind",
    [
        (2.9, ValueError),
        (True, TypeError),
        ("3", TypeError),
        (math.inf, ValueError),
        (np.array([3]), TypeError),
    ],
)
def test_counts_are_integers_given_as_one(value, kind):
    with pytest.raises(kind, match="^count must"):
        _validation.count(value, "count")
    assert _validation.count(3.0, "count") == 3 and _validation.count(np.int64(3), "count") == 3


# --- calibrate -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "accountant, parameter, message",
    [
        (math.nan, "sigma", r"^accountant must be a registered name"),  # AttributeError before
        (None, "sigma", r"^accountant must be a registered name"),  # AttributeError before
        ("gaussian", None, r"^parameter must be the name of a calibratable parameter"),
        ("gaussian", math.nan, r"^parameter must be the name of a calibratable parameter"),
    ],
)
def test_calibrate_refuses_an_accountant_or_parameter_of_the_wrong_kind(
    accountant, parameter, message
):
    with pytest.raises(TypeError, match=message):
        calibrate(accountant, parameter, epsilon=1.0, delta=1e-5, rounds=1)


def test_calibrate_start_is_checked_by_name():
    with pytest.raises(ValueError, match=r"^start must not be NaN"):
        calibrate("gaussian", "sigma", epsilon=1.0, delta=1e-5, start=math.nan)


def test_calibrate_where_every_sigma_meets_the_target_answers_with_a_certified_sigma():
    # q = 0.01: delta(eps) <= q at every sigma, so delta = 0.05 is met by any sigma; the PLD refuses sigmas
    # whose loss grid exceeds its cells, where the search range ends (a loss-cells ValueError before)
    # (the trials at the least sigmas stop at the coarsest grid their window fits, and say so)
    args = dict(epsilon=1.0, delta=0.05, sampling_rate=0.01, rounds=1, accuracy=0.1)
    with pytest.warns(AccuracyNotMetWarning, match="stopped refining"):
        sigma = calibrate("pld_subsampled_gaussian", "sigma", **args)
        assert 0 < sigma < 0.5
        accountant = pld.SubsampledGaussianPLD(sigma, 0.01, 1, accuracy=0.1)
        assert accountant.delta(1.0) <= 0.05
        low, up = calibrate("pld_subsampled_gaussian", "sigma", bound="both", **args)
    assert low == 0.0 and up == sigma


# --- pld constructors -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: pld.randomized_response(noise_parameter=True, num_buckets=2),
            r"^noise_parameter must be a real number",
        ),
        (
            lambda: pld.randomized_response(noise_parameter="0.5", num_buckets=2),
            r"^noise_parameter must be a real number",
        ),
        (
            lambda: pld.randomized_response(0.5, num_buckets=True),
            r"^num_buckets must be a real number",
        ),
        (
            lambda: pld.randomized_response(np.array([0.1, 0.2]), 2),
            r"^noise_parameter must be a single number",
        ),
        (
            lambda: pld.gaussian(1.0, value_discretization_interval=np.array([1e-2, 1e-3])),
            r"^value_discretization_interval must be a single number",
        ),
        (lambda: pld.discrete_laplace(np.array([1.0, 2.0])), r"^parameter must be a single number"),
        (lambda: pld.eps_delta_dp(True), r"^epsilon must be a real number"),
        (
            lambda: pld.subsampled_laplace(5e-324, 0.01, value_discretization_interval=1e-2),
            r"scale",
        ),
        (lambda: pld.mixture_of_gaussians(5e-324, [0.0, 1.0], [0.5, 0.5]), r"sigma"),
        (
            lambda: pld.mixture_of_gaussians(1.0, [math.nan], [1.0]),
            r"^sensitivities must be finite",
        ),
        (lambda: pld.laplace(5e-324), r"larger scale$"),
        (lambda: pld.fixed_size_subsampled_gaussian(5e-324, 10, 1000), r"sigma / sensitivity"),
        (
            lambda: pld.gaussian(1.0, tail=5e-324),
            r"^tail must lie in \[1e-300, 1e-3\), got 5e-324$",
        ),
    ],
)
def test_pld_constructors_refuse_by_name(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()
