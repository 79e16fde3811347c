"""Sweeps of simulated training runs: a grid of configurations x seeds, one row per run.

``simulate_sweep("noisy_fedavg", train, grid={"sigma": [0.1, 0.5], "rate": [0.1, 1.0]},
fixed={"rounds": 50, "local_steps": 2, "clip": 1.0}, seeds=3, test=test, delta=1e-5)`` trains every
configuration of the Cartesian product of ``grid`` (plus ``fixed``) once per seed and returns a
pandas DataFrame with, per run: the configuration, the seed, the final train and test loss and
accuracy, the metric curves every ``every`` rounds, ``epsilon``: the smallest epsilon at ``delta``
among the *proven* guarantees the algorithm reports (its accountants, called on the exact
configuration), and ``epsilon_source``: that guarantee's name.  Runs are deterministic in
(configuration, seed) at any thread count, so the rows do not depend on how the work was spread:

- in-process (default): one run after the other, each on ``threads`` numba threads (default 1:
  for the small models a sweep explores, a second thread's per-round synchronisation costs more
  than the work it takes over);
- ``processes=N``: N spawned worker processes, one run each at a time, on ``threads`` threads;
- Dask: ``scheduler="tcp://..."`` or ``dask_workers=N`` (a LocalCluster on 127.0.0.1). Each task
  receives its configurations and the data by value, so a lost worker's tasks are recomputed
  elsewhere from what the scheduler holds (``retries``).

Every configuration is checked before the first run starts (unknown parameters, negative
sigma, a clip of 0, more clients per round than clients, ...).
"""

from __future__ import annotations

import inspect
import itertools
import math
import multiprocessing
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, cast

import numpy as np

from ..base.optional import require_extra
from .data import FederatedData
from .fedavg import noisy_fedavg, noisy_fedprox
from .isrl import isrl_local_sgd, isrl_minibatch_sgd
from .pnsgd import pnsgd
from .row_stream import RowStream
from .trusted_aggregator import trusted_aggregator

__all__ = [
    "ALGORITHMS",
    "check_configurations",
    "configurations",
    "run_configuration",
    "seed_list",
    "simulate_sweep",
]

ALGORITHMS: dict[str, Callable[..., Any]] = {
    "trusted_aggregator": trusted_aggregator,
    "noisy_fedavg": noisy_fedavg,
    "noisy_fedprox": noisy_fedprox,
    "isrl_minibatch_sgd": isrl_minibatch_sgd,
    "isrl_local_sgd": isrl_local_sgd,
    "pnsgd": pnsgd,
}

# Options of the training functions that are not configuration parameters of a sweep.
_RESERVED = frozenset(
    {"data", "seed", "test", "every", "trajectory", "progress", "threads", "initial"}
)

# parameter -> (rule, check); checked on every configuration before any training starts.
_RULES: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "sigma": ("a finite number >= 0", lambda v: math.isfinite(v) and v >= 0),
    "scale": ("a finite number > 0", lambda v: math.isfinite(v) and v > 0),
    "clip": ("a number > 0 (inf for no clipping)", lambda v: v > 0),
    "rate": ("a finite number > 0", lambda v: math.isfinite(v) and v > 0),
    "radius": ("a number > 0", lambda v: v > 0),
    "diameter": ("a number > 0", lambda v: v > 0),
    "proximal": ("a finite number >= 0", lambda v: math.isfinite(v) and v >= 0),
    "rounds": ("an integer >= 1", lambda v: float(v).is_integer() and v >= 1),
    "local_steps": ("an integer >= 1", lambda v: float(v).is_integer() and v >= 1),
    "batch": ("an integer >= 1", lambda v: float(v).is_integer() and v >= 1),
}
_CLIENT_COUNTS = ("batch", "silos_per_round")  # at most the number of clients (when given)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def configurations(
    grid: Mapping[str, Sequence[Any]], fixed: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The Cartesian product of ``grid``'s value lists (last name fastest), each merged with ``fixed``."""
    fixed = dict(fixed or {})
    overlap = sorted(set(grid) & set(fixed))
    if overlap:
        raise ValueError(
            f"{', '.join(overlap)} given both in grid and in fixed: give each parameter once"
        )
    names = list(grid)
    for name in names:
        values = grid[name]
        if (
            isinstance(values, (str, bytes))
            or not isinstance(values, Iterable)
            or len(list(values)) == 0
        ):
            raise ValueError(f"grid[{name!r}] must be a non-empty list of values, got {values!r}")
    return [
        {**dict(zip(names, combo)), **fixed}
        for combo in itertools.product(*(list(grid[n]) for n in names))
    ]


def _signature(algorithm: str) -> dict[str, inspect.Parameter]:
    """Configuration parameters of ``algorithm`` (noisy_fedprox: noisy_fedavg's plus its own)."""
    params = dict(inspect.signature(ALGORITHMS[algorithm]).parameters)
    if algorithm == "noisy_fedprox":  # it forwards **options to noisy_fedavg
        params = {**inspect.signature(noisy_fedavg).parameters, "proximal": params["proximal"]}
    return {name: p for name, p in params.items() if name not in _RESERVED}


def check_configurations(
    algorithm: str, configs: Sequence[Mapping[str, Any]], data: FederatedData
) -> None:
    """Refuse (ValueError naming the parameter and its rule) an unknown algorithm or any
    configuration it cannot run on ``data``: unknown or missing parameters, negative sigma, a clip
    of 0, more clients per round than clients, ...  Called on every configuration before any
    training starts."""
    if algorithm not in ALGORITHMS:
        raise ValueError(
            f"unknown algorithm {algorithm!r}; simulated algorithms: {', '.join(ALGORITHMS)}"
        )
    for config in configs:
        _check(algorithm, config, data)


def seed_list(seeds: int | Sequence[int]) -> list[int]:
    """``seeds`` as a list: a count n means 0..n-1; a list must hold integers >= 0."""
    listed: list[Any] = (
        list(range(seeds))
        if isinstance(seeds, (int, np.integer)) and not isinstance(seeds, bool)
        else list(cast(Sequence[int], seeds))
    )
    if not listed or not all(
        isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s >= 0 for s in listed
    ):
        raise ValueError(f"seeds must be a count >= 1 or a list of integers >= 0, got {seeds!r}")
    return [int(s) for s in listed]


def _check(algorithm: str, config: Mapping[str, Any], data: FederatedData) -> None:
    params = _signature(algorithm)
    unknown = sorted(set(config) - set(params))
    if unknown:
        raise ValueError(
            f"{algorithm} takes no parameter {', '.join(map(repr, unknown))}; its parameters: {', '.join(params)}"
        )
    missing = [
        name
        for name, p in params.items()
        if p.default is inspect.Parameter.empty and name not in config
    ]
    if missing:
        raise ValueError(
            f"{algorithm} needs {', '.join(map(repr, missing))}: give it in grid or fixed"
        )
    for name, value in config.items():
        if name in _RULES:
            rule, ok = _RULES[name]
            if not _is_number(value) or not ok(float(value)):
                raise ValueError(
                    f"{name} must be {rule}, got {value!r} (configuration {dict(config)})"
                )
    for name in _CLIENT_COUNTS:
        if name in config and config[name] is not None and config[name] > data.n_clients:
            raise ValueError(
                f"{name} must be <= the number of clients ({data.n_clients}), got {config[name]!r}"
            )


def run_configuration(
    algorithm: str,
    data: FederatedData,
    config: Mapping[str, Any],
    seed: int,
    *,
    delta: float,
    test: FederatedData | None = None,
    every: int | None = None,
    threads: int | None = None,
) -> dict[str, Any]:
    """Train one configuration with one seed and return its row (see the module docstring)."""
    options: dict[str, Any] = dict(config, seed=seed, test=test, every=every)
    if (
        threads is not None
        and "threads"
        in inspect.signature(
            noisy_fedavg if algorithm == "noisy_fedprox" else ALGORITHMS[algorithm]
        ).parameters
    ):
        options["threads"] = threads
    result = ALGORITHMS[algorithm](data, **options)
    row: dict[str, Any] = {
        **config,
        "seed": seed,
        "final_loss": result.final_loss,
        "final_accuracy": result.final_accuracy,
        "test_loss": float(result.test_loss[-1]) if result.test_loss is not None else math.nan,
        "test_accuracy": (
            float(result.test_accuracy[-1]) if result.test_accuracy is not None else math.nan
        ),
        "metric_rounds": result.metric_rounds.tolist(),
        "loss_curve": result.loss.tolist(),
        "accuracy_curve": result.accuracy.tolist(),
    }
    proven = {g.name: float(g.epsilon(delta)) for g in result.privacy if g.proven}
    row["epsilon"] = min(proven.values(), default=math.inf)
    row["epsilon_source"] = min(proven, key=proven.__getitem__) if proven else ""
    row["delta"] = delta
    return row


def _run_batch(
    algorithm: str,
    data: FederatedData,
    test: FederatedData | None,
    jobs: list[tuple[int, dict, int]],
    delta: float,
    every: int | None,
    threads: int | None,
) -> list[tuple[int, dict[str, Any]]]:
    return [
        (
            index,
            run_configuration(
                algorithm, data, config, seed, delta=delta, test=test, every=every, threads=threads
            ),
        )
        for index, config, seed in jobs
    ]


def simulate_sweep(
    algorithm: str,
    data: FederatedData,
    *,
    grid: Mapping[str, Sequence[Any]],
    fixed: Mapping[str, Any] | None = None,
    seeds: int | Sequence[int] = 1,
    delta: float = 1e-5,
    test: FederatedData | None = None,
    every: int | None = None,
    output: str | os.PathLike[str] | None = None,
    overwrite: bool = False,
    processes: int | None = None,
    scheduler: str | None = None,
    dask_workers: int | None = None,
    retries: int = 3,
    threads: int = 1,
    progress: bool = False,
    on_row: Callable[[dict[str, Any]], None] | None = None,
) -> Any:
    """Train every configuration of a grid once per seed and return one row per run.

    The configurations are the Cartesian product of ``grid``'s value lists (last name fastest), each
    merged with ``fixed``; every one is checked before the first run starts. Runs are deterministic
    in (configuration, seed) at any thread count, so the rows do not depend on how the work is
    spread: in-process (default), ``processes`` spawned worker processes, or Dask.

    Parameters
    ----------
    algorithm : {"trusted_aggregator", "noisy_fedavg", "noisy_fedprox", "isrl_minibatch_sgd", \
"isrl_local_sgd", "pnsgd"}
        The training function run.
    data : FederatedData
        The training data of every run.
    grid : mapping of str to sequence
        Each swept parameter of the algorithm and its non-empty list of values.
    fixed : mapping of str to Any, optional
        Parameters held fixed; a name may not also appear in ``grid``.
    seeds : int or sequence of int, default 1
        A count n (seeds 0..n-1), or the seeds, integers >= 0.
    delta : float, default 1e-5
        The delta at which each run's epsilon is reported, in (0, 1).
    test : FederatedData, optional
        Held-out data for the test metrics (nan without it).
    every : int, optional
        Take the metrics every ``every`` rounds; default the algorithm's.
    output : str or os.PathLike, optional
        Also stream the rows to this ``.parquet`` or ``.csv`` file while the sweep runs (curves as
        JSON text in CSV); its directory must exist. The rows go to ``output + ".partial"``, renamed
        to ``output`` after the last row; a sweep stopped by an error leaves its finished rows
        there.
    overwrite : bool, default False
        Replace an existing ``output`` file.
    processes : int, optional
        Run on this many spawned worker processes (more than 1), one run each at a time.
    scheduler : str, optional
        The address of a Dask scheduler (``"tcp://..."``) to run on.
    dask_workers : int, optional
        Run on a Dask LocalCluster of this many single-threaded workers on 127.0.0.1.
    retries : int, default 3
        Dask's retries of a task whose worker was lost.
    threads : int, default 1
        numba threads of each run, an integer >= 1.
    progress : bool, default False
        Show a progress bar over the runs.
    on_row : callable, optional
        Called with every row in the result's order, as soon as it and every row before it are
        finished (in-process: after each run).

    Returns
    -------
    pandas.DataFrame
        One row per (configuration, seed), configurations in order with the seeds innermost: the
        configuration's parameters, ``seed``, ``final_loss``, ``final_accuracy``, ``test_loss``,
        ``test_accuracy``, ``metric_rounds``, ``loss_curve``, ``accuracy_curve``, ``epsilon`` (the
        smallest epsilon at ``delta`` among the run's proven guarantees; inf without one),
        ``epsilon_source`` (that guarantee's name) and ``delta``.

    Raises
    ------
    ValueError
        When ``algorithm`` is unknown, a grid entry is not a non-empty list, a parameter is in both
        ``grid`` and ``fixed``, a configuration has an unknown parameter, lacks a required one or
        breaks a parameter's rule (e.g. negative ``sigma``, a ``clip`` of 0, more ``batch`` or
        ``silos_per_round`` than clients), ``delta`` is not in (0, 1), ``seeds`` is not a count >= 1
        or a list of integers >= 0, ``threads`` is not an integer >= 1, or ``output`` does not end
        in .parquet or .csv, exists without ``overwrite`` or lies in a missing directory.
    ImportError
        When pandas, or for Dask dask and distributed, is not installed.

    Examples
    --------
    >>> from hockeystick.simulate import simulate_sweep, synthetic
    >>> data = synthetic("logistic", n_clients=4, samples_per_client=20, n_features=3)
    >>> rows = simulate_sweep("noisy_fedavg", data, grid={"sigma": [0.5, 1.0]},
    ...     fixed={"rounds": 5, "local_steps": 2, "rate": 0.1, "clip": 1.0}, seeds=2)
    >>> len(rows), rows["sigma"].tolist()
    (4, [0.5, 0.5, 1.0, 1.0])
    """
    import pandas as pd  # lazy: optional extra (pandas)

    configs = configurations(grid, fixed)
    check_configurations(algorithm, configs, data)
    if not (0 < delta < 1):
        raise ValueError(f"delta must lie strictly between 0 and 1, got {delta!r}")
    seeds_run = seed_list(seeds)
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise ValueError(f"threads must be an integer >= 1, got {threads!r}")
    jobs = [
        (i, config, seed) for i, (config, seed) in enumerate(itertools.product(configs, seeds_run))
    ]
    stream = (
        RowStream(
            output,
            {name: [c.get(name) for c in configs] for name in configs[0]},
            overwrite=overwrite,
        )
        if output is not None
        else None
    )
    rows: list[dict[str, Any]] = []

    def emit(row: dict[str, Any]) -> None:
        rows.append(row)
        if stream is not None:
            stream.write([row])
        if on_row is not None:
            on_row(row)

    try:
        _dispatch(
            algorithm,
            data,
            test,
            jobs,
            delta,
            every,
            processes,
            scheduler,
            dask_workers,
            retries,
            int(threads),
            progress,
            emit,
        )
    except BaseException:
        if stream is not None:
            stream.abandon()
        raise
    if stream is not None:
        stream.close()
    return pd.DataFrame(rows)


class _InOrder:
    """Hands rows finished in any order to ``emit`` in job order: each one once all before it are in."""

    def __init__(self, emit: Callable[[dict[str, Any]], None]) -> None:
        self.emit = emit
        self.next = 0
        self.waiting: dict[int, dict[str, Any]] = {}

    def add(self, finished: list[tuple[int, dict[str, Any]]]) -> None:
        self.waiting.update(finished)
        while self.next in self.waiting:
            self.emit(self.waiting.pop(self.next))
            self.next += 1


def _dispatch(
    algorithm: str,
    data: FederatedData,
    test: FederatedData | None,
    jobs: list[tuple[int, dict, int]],
    delta: float,
    every: int | None,
    processes: int | None,
    scheduler: str | None,
    dask_workers: int | None,
    retries: int,
    threads: int,
    progress: bool,
    emit: Callable[[dict[str, Any]], None],
) -> None:
    from tqdm.auto import tqdm  # lazy: start-up time (tqdm, only for a progress bar)

    bar = tqdm(total=len(jobs), desc=f"simulate {algorithm}", unit="run", disable=not progress)
    ordered = _InOrder(emit)

    def done(rows: list[tuple[int, dict[str, Any]]]) -> None:
        ordered.add(rows)
        bar.update(len(rows))

    try:
        if scheduler is not None or dask_workers is not None:
            _on_dask(
                algorithm,
                data,
                test,
                jobs,
                delta,
                every,
                scheduler,
                dask_workers,
                retries,
                threads,
                done,
            )
        elif processes is not None and processes > 1:
            # spawn, not fork: the parent already runs OpenMP (libgomp) threads, which fork cannot
            # copy
            with ProcessPoolExecutor(
                processes, mp_context=multiprocessing.get_context("spawn")
            ) as pool:
                futures = [
                    pool.submit(_run_batch, algorithm, data, test, [job], delta, every, threads)
                    for job in jobs
                ]
                for future in futures:
                    done(future.result())
        else:
            for job in jobs:
                done(_run_batch(algorithm, data, test, [job], delta, every, threads))
    finally:
        bar.close()


def _on_dask(
    algorithm: str,
    data: FederatedData,
    test: FederatedData | None,
    jobs: list[tuple[int, dict, int]],
    delta: float,
    every: int | None,
    scheduler: str | None,
    dask_workers: int | None,
    retries: int,
    threads: int,
    done: Callable[[list[tuple[int, dict[str, Any]]]], None],
) -> None:
    require_extra("simulate_sweep on Dask", "dask", "distributed")
    from dask.distributed import Client, LocalCluster, as_completed  # lazy: optional extra (dask)

    cluster = None
    if scheduler is None:
        cluster = LocalCluster(
            n_workers=dask_workers, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
        )
    try:
        with Client(cluster if cluster is not None else scheduler) as client:
            # data travels inside every task (by value): any worker can recompute a lost task
            futures = [
                client.submit(
                    _run_batch,
                    algorithm,
                    data,
                    test,
                    [job],
                    delta,
                    every,
                    threads,
                    retries=retries,
                    pure=False,
                )
                for job in jobs
            ]
            for future in as_completed(futures):
                done(future.result())
    finally:
        if cluster is not None:
            cluster.close()
