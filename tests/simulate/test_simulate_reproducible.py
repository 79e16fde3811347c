"""A seed gives bit-identical runs, whatever the number of threads; metrics, not trajectories, by default."""

from __future__ import annotations

import numba
import numpy as np
import pytest

import hockeystick.simulate as sim
from hockeystick.simulate import kernel_size
from hockeystick.simulate.randomness import NOISE, ClientStreams

DATA = sim.synthetic(
    "softmax", 600, 3, 4, n_classes=3, label_concentration=0.5, seed=0
)  # > 2 noise blocks

RUNS = {
    "fedavg": lambda threads, seed: sim.noisy_fedavg(
        DATA, rounds=4, local_steps=2, rate=0.2, clip=1.0, sigma=0.3, seed=seed, threads=threads
    ),
    "fedprox": lambda threads, seed: sim.noisy_fedprox(
        DATA,
        proximal=1.0,
        rounds=3,
        local_steps=2,
        rate=0.2,
        sigma=0.3,
        batch_size=None,
        seed=seed,
        threads=threads,
    ),
    "trusted": lambda threads, seed: sim.trusted_aggregator(
        DATA, batch=100, rate=0.5, sigma=1.0, radius=1.0, seed=seed, threads=threads
    ),
    "isrl": lambda threads, seed: sim.isrl_local_sgd(
        DATA,
        rounds=3,
        local_steps=2,
        rate=0.2,
        sigma=0.5,
        clip=1.0,
        silos_per_round=300,
        seed=seed,
        threads=threads,
    ),
}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_bit_identical_across_thread_counts_and_seed_sensitive(name, monkeypatch):
    """One thread against every thread, with every kernel on the whole team (``kernel_size`` would run
    this small data's kernels on one thread both ways): bit-identical; another seed differs."""
    before = numba.get_num_threads()
    try:
        one = RUNS[name](1, 7)
        with monkeypatch.context() as team:
            team.setattr(kernel_size, "PARALLEL_MIN_WORK", 0)
            many = RUNS[name](numba.config.NUMBA_NUM_THREADS, 7)
        other = RUNS[name](1, 8)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one.weights, many.weights)
    assert np.array_equal(one.loss, many.loss)
    assert not np.array_equal(one.weights, other.weights)
    assert one.trajectory is None


def test_pnsgd_chains_identical_across_threads_and_single_run_equals_first_replica():
    data = sim.synthetic("logistic", 1, 40, 3, seed=2)
    kw = dict(rate=0.3, scale=0.5, diameter=2.0, replicas=50, seed=4, noise="laplace")
    a = sim.pnsgd_final_iterates(data, threads=1, **kw)
    b = sim.pnsgd_final_iterates(data, threads=numba.config.NUMBA_NUM_THREADS, **kw)
    assert np.array_equal(a, b)
    single = sim.pnsgd(data, rate=0.3, scale=0.5, diameter=2.0, seed=4, noise="laplace")
    assert np.array_equal(single.weights, a[0])


def test_client_streams_do_not_depend_on_threads():
    a = ClientStreams(3, NOISE, 1000, threads=1).standard_normal((5,))
    pool = ClientStreams(3, NOISE, 1000, threads=2)
    b = pool.standard_normal((5,))
    pool.close()
    assert np.array_equal(a, b)


def test_metrics_every_k_rounds_and_progress_bar(capsys):
    run = sim.noisy_fedavg(DATA, rounds=7, local_steps=1, rate=0.3, every=3, progress=True)
    assert run.metric_rounds.tolist() == [0, 3, 6, 7]
    assert run.loss.shape == run.accuracy.shape == (4,)
    assert run.loss[-1] < run.loss[0]
    assert "7/7" in capsys.readouterr().err
