"""Train one noisy FedAvg configuration and print its utility beside its privacy.

    python examples/train_fedavg.py [--sigma 0.5] [--rounds 200] [--clients 100]

The privacy lines are the guarantees of exactly this configuration: GDP composition over all
rounds (proven) and paper 004's shifted-interpolation bound for the final model (a paper claim).
"""

from __future__ import annotations

import argparse

import hockeystick.simulate as sim


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--sigma", type=float, default=0.5)
    parser.add_argument("--delta", type=float, default=1e-5)
    args = parser.parse_args()
    data = sim.synthetic(
        "logistic", args.clients, 40, 20, label_concentration=0.5, feature_shift=0.3, seed=0
    )
    train, test = data.split(0.5)
    run = sim.noisy_fedavg(
        train,
        rounds=args.rounds,
        local_steps=5,
        rate=0.05,
        clip=1.0,
        sigma=args.sigma,
        seed=0,
        test=test,
        progress=True,
    )
    print(run.summary(args.delta))


if __name__ == "__main__":
    main()
