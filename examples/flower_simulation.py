"""DP-FedAvg in Flower's simulation engine, accounted by hockeystick: 20 simulated clients, 5 of them a round, server-side
fixed clipping with noise multiplier 2, and a budget of epsilon 8 at delta 1e-5 (docs/flower.md).

    pip install "flwr[simulation]" hockeystick
    python examples/flower_simulation.py

The run ends before the round that would pass the budget: through ``should_stop`` where Flower's ``Strategy.start``
takes it (flwr >= 1.43), else at Flower's own ``PrivacyBudgetExhausted`` before that round.  It prints the rounds
that ran and their certified epsilon.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
from flwr.app import Array, ArrayRecord, Context, Message, MetricRecord, RecordDict
from flwr.clientapp import ClientApp
from flwr.serverapp import Grid, NeighboringRelation, PrivacyConfig, SamplingMethod, ServerApp
from flwr.serverapp.exception import PrivacyBudgetExhausted
from flwr.serverapp.strategy import DifferentialPrivacyServerSideFixedClipping, FedAvg
from flwr.simulation import run_simulation

from hockeystick.interop.flower import HockeystickPrivacyAccountant

CLIENTS = 20
PER_ROUND = 5
MAX_ROUNDS = 40

client = ClientApp()


@client.train()
def train(message: Message, context: Context) -> Message:
    """A client's local step: the global weights moved by a draw of its own (a stand-in for training)."""
    weights = message.content["arrays"]["w"].numpy()
    rng = np.random.default_rng(int(context.node_config["partition-id"]))
    update = ArrayRecord({"w": Array(weights + rng.normal(scale=0.1, size=weights.shape))})
    reply = RecordDict({"arrays": update, "metrics": MetricRecord({"num-examples": 8})})
    return Message(reply, reply_to=message)


server = ServerApp()
report: dict[str, Any] = {}


@server.main()
def main(grid: Grid, context: Context) -> None:
    """The strategy, its accountant and the run, stopped by the accountant."""
    config = PrivacyConfig(
        target_delta=1e-5,
        population_size=CLIENTS,
        neighboring_relation=NeighboringRelation.ADD_OR_REMOVE_ONE,
        sampling_method=SamplingMethod.NO_AMPLIFICATION,
        max_epsilon=8.0,
    )
    accountant = HockeystickPrivacyAccountant(
        config, adaptive=False
    )  # noise and clients fixed before the run
    strategy = DifferentialPrivacyServerSideFixedClipping(
        # Flower samples max(fraction_train x available, min_train_nodes) clients and the wrapper checks that this
        # is num_sampled_clients, so both minimums are set: the round waits until every client is connected
        FedAvg(
            fraction_train=PER_ROUND / CLIENTS,
            fraction_evaluate=0.0,
            min_train_nodes=PER_ROUND,
            min_available_nodes=CLIENTS,
        ),
        noise_multiplier=2.0,
        clipping_norm=1.0,
        num_sampled_clients=PER_ROUND,
        accountant=accountant,
    )
    start: dict[str, Any] = {"grid": grid, "initial_arrays": ArrayRecord({"w": Array(np.zeros(4))})}
    if "should_stop" in inspect.signature(strategy.start).parameters:  # flwr >= 1.43
        start["should_stop"] = accountant.should_stop
    try:
        strategy.start(**start, num_rounds=MAX_ROUNDS)
        report["ended"] = "should_stop"
    except PrivacyBudgetExhausted:
        report["ended"] = "PrivacyBudgetExhausted"
    report["rounds"] = accountant.num_releases
    report["epsilon"] = accountant.get_epsilon(1e-5)


def simulate() -> dict[str, Any]:
    """Runs the simulation (one CPU per simulated client, two in all) and returns what the server reported."""
    report.clear()
    run_simulation(
        server_app=server,
        client_app=client,
        num_supernodes=CLIENTS,
        backend_config={
            "client_resources": {"num_cpus": 1, "num_gpus": 0.0},
            "init_args": {"num_cpus": 2},
        },
    )
    return dict(report)


if __name__ == "__main__":
    ran = simulate()
    print(
        f"{ran['rounds']} rounds, certified epsilon {ran['epsilon']:.4f} at delta 1e-5 ({ran['ended']})"
    )
