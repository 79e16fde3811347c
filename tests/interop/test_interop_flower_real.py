"""hockeystick.interop.flower inside real Flower (flwr 1.42): its protocol's members, its DP-FedAvg strategy
driven round by round until it halts, each sampling method beside Flower's own RDP backend, and the
checkpoint round trip through a restart.

flwr pins packages of its own, so the suite's venv does not have it and this module is skipped there; CI
installs flwr beside the suite and runs it (docs/testing.md, "Flower").
"""

from __future__ import annotations

import inspect
import json
import math
import typing
from pathlib import Path

import numpy as np
import pytest

flwr = pytest.importorskip(
    "flwr", reason="flwr is not installed: CI's Flower step installs it beside the suite"
)

from flwr.app import Array, ArrayRecord, ConfigRecord, Message, MetricRecord, RecordDict  # noqa: E402
from flwr.serverapp import (  # noqa: E402
    GaussianPrivacyEvent,
    NeighboringRelation,
    PrivacyAccountant,
    PrivacyConfig,
    PrivacySpent,
    RdpAccountant,
    SamplingMethod,
)
from flwr.serverapp.exception import PrivacyBudgetExhausted  # noqa: E402
from flwr.serverapp.strategy import (  # noqa: E402
    DifferentialPrivacyClientSideFixedClipping,
    DifferentialPrivacyServerSideFixedClipping,
    FedAvg,
)
from flwr.supercore.task_identity import TaskIdentity  # noqa: E402

from hockeystick.interop.flower import HockeystickPrivacyAccountant  # noqa: E402

from ..reference import theta  # noqa: E402
from ..test_docs_examples import read_blocks  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs" / "flower.md"
ADD_REMOVE = NeighboringRelation.ADD_OR_REMOVE_ONE


class Grid:
    """The strategy asks its grid only for the connected nodes' ids."""

    def get_node_ids(self) -> list[int]:
        return list(range(1, 1001))


@pytest.fixture(autouse=True)
def task_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Message is stamped with the running task's ids, which a ServerApp sets; here, fixed ones."""
    monkeypatch.setattr(TaskIdentity, "_run_id", 1)
    monkeypatch.setattr(TaskIdentity, "_node_id", 0)
    monkeypatch.setattr(TaskIdentity, "_task_id", 1)


def config(sampling=SamplingMethod.NO_AMPLIFICATION, relation=ADD_REMOVE, max_epsilon=None):
    return PrivacyConfig(1e-5, 1000, relation, sampling, max_epsilon)


def docs_example() -> dict:
    """docs/flower.md's Flower block, run: its namespace (config, accountant, strategy)."""
    (block,) = [
        b
        for b in read_blocks(DOCS)
        if b.marker == "skip" and "test_interop_flower_real" in b.argument
    ]
    namespace: dict = {"__name__": "__main__"}
    exec(compile(block.source, str(DOCS), "exec"), namespace)  # noqa: S102  (the page's own example)
    return namespace


def run_until_halt(
    strategy, rounds: int = 40, start: int = 1, stop_after: int | None = None
) -> int:
    """Drive ``strategy`` as a ServerApp does (configure_train, replies, aggregate_train) until Flower stops it
    with PrivacyBudgetExhausted, or after ``stop_after`` rounds; the last round started."""
    rng = np.random.default_rng(0)
    arrays = ArrayRecord({"w": Array(np.zeros(4))})
    for server_round in range(start, start + rounds):
        if stop_after is not None and server_round >= start + stop_after:
            return server_round - 1
        try:
            sent = list(strategy.configure_train(server_round, arrays, ConfigRecord(), Grid()))
        except PrivacyBudgetExhausted:
            return server_round
        replies = [
            Message(
                RecordDict(
                    {
                        "arrays": ArrayRecord({"w": Array(rng.normal(size=4))}),
                        "metrics": MetricRecord({"num-examples": 8}),
                    }
                ),
                reply_to=message,
            )
            for message in sent
        ]
        arrays, _ = strategy.aggregate_train(server_round, replies)
    raise AssertionError("the strategy never halted")


def test_every_member_of_flowers_protocol_with_its_signature():
    members = typing._get_protocol_attrs(PrivacyAccountant)  # the protocol is not runtime-checkable
    assert members >= {
        "config",
        "num_releases",
        "compose",
        "would_exceed",
        "state_dict",
        "load_state_dict",
    }
    for name in members:
        theirs = inspect.getattr_static(PrivacyAccountant, name)
        ours = inspect.getattr_static(HockeystickPrivacyAccountant, name)
        if isinstance(theirs, property):
            assert isinstance(ours, property), name
            continue
        expected = [
            (p.name, p.kind, p.default) for p in inspect.signature(theirs).parameters.values()
        ]
        assert [
            (p.name, p.kind, p.default) for p in inspect.signature(ours).parameters.values()
        ] == expected, name


@pytest.fixture(scope="module")
def uninterrupted() -> dict:
    """docs/flower.md's strategy run until Flower halts it: its namespace, with the round it halted at."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in (("_run_id", 1), ("_node_id", 0), ("_task_id", 1)):
            patch.setattr(TaskIdentity, name, value)
        ran = docs_example()
        ran["halted"] = run_until_halt(ran["strategy"])
    return ran


def test_the_docs_dp_fedavg_strategy_halts_later_than_with_flowers_rdp_and_never_past_the_truth(
    uninterrupted,
):
    """docs/flower.md's strategy: our accountant lets 11 rounds run in eps 8 where Flower's RdpAccountant lets
    9; after the same 9 rounds our epsilon is below Flower's and above the exact eps of sqrt(9)/2-GDP."""
    ours = uninterrupted
    assert ours["halted"] == 12
    spent = ours["strategy"].privacy_spent()
    assert isinstance(spent, PrivacySpent) and spent.num_releases == 11 and spent.epsilon <= 8.0
    assert theta(math.sqrt(11) / 2.0, spent.epsilon) <= 1e-5  # at or above the exact epsilon

    rdp = RdpAccountant(ours["config"])
    strategy = DifferentialPrivacyServerSideFixedClipping(
        FedAvg(fraction_train=0.05), 2.0, 1.0, 50, accountant=rdp
    )
    assert run_until_halt(strategy) == 10 and rdp.num_releases == 9

    nine = HockeystickPrivacyAccountant(ours["config"], adaptive=False)
    nine.compose(GaussianPrivacyEvent(2.0, 50, 1000), 9)
    assert theta(3 / 2.0, nine.get_epsilon(1e-5)) <= 1e-5
    assert nine.get_epsilon(1e-5) < rdp.get_epsilon(1e-5)


def test_the_client_side_strategy_accounts_each_round_and_both_refuse_a_sampled_accountant():
    accountant = HockeystickPrivacyAccountant(config(max_epsilon=8.0), adaptive=False)
    strategy = DifferentialPrivacyClientSideFixedClipping(
        FedAvg(fraction_train=0.05), 2.0, 1.0, 50, accountant=accountant
    )
    assert run_until_halt(strategy, stop_after=3) == 3 and accountant.num_releases == 3
    assert (
        accountant.get_privacy_spent().accounting_method == "hockeystick pld certified composition"
    )
    sampled = HockeystickPrivacyAccountant(config(SamplingMethod.POISSON), adaptive=False)
    for wrapper in (
        DifferentialPrivacyServerSideFixedClipping,
        DifferentialPrivacyClientSideFixedClipping,
    ):
        with pytest.raises(ValueError, match="no-amplification"):
            wrapper(FedAvg(), 2.0, 1.0, 50, accountant=sampled)


@pytest.mark.parametrize("sampling", [SamplingMethod.NO_AMPLIFICATION, SamplingMethod.POISSON])
def test_each_sampling_method_below_flowers_rdp_backend(sampling):
    """The same events, composed by ours and by Flower's RdpAccountant: ours is below, at every delta asked, and
    would_exceed admits whatever Flower's admits."""
    ours = HockeystickPrivacyAccountant(config(sampling), adaptive=False)
    theirs = RdpAccountant(config(sampling))
    for event, count in [
        (GaussianPrivacyEvent(1.5, 50, 1000), 20),
        (GaussianPrivacyEvent(1.2, 100, 1000), 10),
    ]:
        ours.compose(event, count)
        theirs.compose(event, count)
    assert ours.num_releases == theirs.num_releases == 30
    for delta in (1e-5, 1e-8):
        assert ours.get_epsilon(delta) < theirs.get_epsilon(delta)
    event = GaussianPrivacyEvent(1.5, 50, 1000)
    projected = RdpAccountant(config(sampling))
    projected.load_state_dict(theirs.state_dict())
    projected.compose(event, 5)
    limit = projected.get_epsilon(
        1e-5
    )  # Flower admits 5 more releases of the event at this limit, exactly
    assert not theirs.would_exceed(event, max_epsilon=limit, count=5)
    assert not ours.would_exceed(event, max_epsilon=limit, count=5)
    assert ours.would_exceed(
        event, max_epsilon=ours.get_epsilon(1e-5), count=5
    )  # and spends something
    assert ours.get_delta(ours.get_epsilon(1e-5)) <= 1e-5 * (1 + 1e-6)


def test_without_replacement_is_refused_with_the_fix_where_flower_accepts_it():
    accepted = config(SamplingMethod.WITHOUT_REPLACEMENT, NeighboringRelation.REPLACE_ONE)
    RdpAccountant(accepted).compose(GaussianPrivacyEvent(1.0, 50, 1000))
    with pytest.raises(ValueError, match="without-replacement.*NO_AMPLIFICATION"):
        HockeystickPrivacyAccountant(accepted, adaptive=False)


def test_a_strategy_restarted_from_its_checkpoint_halts_where_an_uninterrupted_one_does(
    uninterrupted,
):
    """Five rounds, a checkpoint written as JSON, a new process's accountant and strategy loading it: the run
    halts after the same 11 releases, with the same epsilon, as the run that never stopped."""
    straight = uninterrupted

    first = docs_example()
    assert run_until_halt(first["strategy"], stop_after=5) == 5
    checkpoint = json.dumps(first["accountant"].state_dict())

    resumed = HockeystickPrivacyAccountant(config(max_epsilon=8.0), adaptive=False)
    resumed.load_state_dict(json.loads(checkpoint))
    strategy = DifferentialPrivacyServerSideFixedClipping(
        FedAvg(fraction_train=0.05), 2.0, 1.0, 50, accountant=resumed
    )
    assert run_until_halt(strategy, start=6) == 12
    assert resumed.num_releases == straight["accountant"].num_releases == 11
    assert resumed.state_dict() == straight["accountant"].state_dict()
    with pytest.raises(ValueError, match="schema"):
        resumed.load_state_dict(RdpAccountant(config(max_epsilon=8.0)).state_dict())


def test_an_adaptive_accountant_halts_by_its_filter_inside_flower():
    """adaptive=True: the strategy's would_exceed is the ledger's Rényi filter of (8, 1e-5); it halts no later
    than the fixed-schedule bracket would, and reports the odometer."""
    accountant = HockeystickPrivacyAccountant(config(max_epsilon=8.0), adaptive=True)
    strategy = DifferentialPrivacyServerSideFixedClipping(
        FedAvg(fraction_train=0.05), 2.0, 1.0, 50, accountant=accountant
    )
    halted = run_until_halt(strategy)
    assert 1 < halted <= 12 and accountant.num_releases == halted - 1
    assert accountant.get_privacy_spent().accounting_method == "hockeystick rdp odometer"
    assert (
        accountant.ledger.guarantee().kind == "filter"
        and accountant.ledger.guarantee().epsilon == 8.0
    )


def test_the_examples_simulation_runs_in_flowers_engine_and_stops_at_the_budget():
    """examples/flower_simulation.py in Flower's simulation engine (ray): 20 simulated clients, 5 a round; the run
    ends after the 11 rounds eps 8 admits (unsampled rounds of z = 2, whatever the population), with the certified
    epsilon of those rounds, at or above the exact one."""
    pytest.importorskip("ray", reason="Flower's simulation engine needs flwr[simulation] (ray)")
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "examples" / "flower_simulation.py"
    spec = importlib.util.spec_from_file_location("flower_simulation", path)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    ran = example.simulate()
    assert ran["rounds"] == 11 and ran["epsilon"] <= 8.0
    assert theta(math.sqrt(11) / 2.0, ran["epsilon"]) <= 1e-5
    assert ran["ended"] in ("should_stop", "PrivacyBudgetExhausted")
