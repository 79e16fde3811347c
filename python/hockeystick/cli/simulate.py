"""``hockeystick simulate``: a sweep of simulated training runs from a TOML file, and its frontier.

    hockeystick simulate examples/frontier.toml -o runs.parquet --plot frontier.png
    hockeystick simulate runs.toml -o runs.csv --dask local --workers 2
    hockeystick simulate runs.toml -o runs.parquet --dask tcp://scheduler:8786

Every algorithm table of the file is swept (its grid x fixed x seeds,
:func:`simulate.simulate_sweep`) on one bundled or synthetic data set; the rows stream to -o as they
finish (PATH.partial until the sweep ends), the frontier (the best mean accuracy each epsilon buys,
with the configuration reaching it) is printed per algorithm, and --plot draws accuracy against
epsilon with one curve per algorithm. Trusted-aggregator runs with Corollary 1's rates (schedule =
"inverse_t") on a linear model also get paper 000 Corollary 1's bound beside their measured excess
test loss (drawn when metric = "test_loss"). Bad input (an unknown key, algorithm or parameter,
sigma < 0, more clients per round than clients, an existing -o FILE without --force) is refused
before any training starts: exit 2 and one line on stderr (the command line's error handling,
``cli._dispatch``).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..base.optional import require_extra
from ..base.outward_text import outward_text
from .column_sides import column_side
from .common import progress_options
from .execute import check_address
from .picture import check_plot_path

__all__ = ["register", "run"]

_EXAMPLES = """\
examples:
  hockeystick simulate examples/frontier.toml -o runs.parquet --plot frontier.png
  hockeystick simulate runs.toml -o runs.csv --dask local --workers 2
  hockeystick simulate runs.toml -o runs.parquet --dask tcp://scheduler:8786

runs.toml:
  delta = 1e-5                       # epsilon of every run is reported at this delta
  seeds = 3                          # or a list of seeds, [0, 1, 2]
  metric = "test_accuracy"           # what the frontier maximizes (a *_loss metric is minimized)
  [data]
  bundled = "digits"                 # digits, breast_cancer, wine, iris, diabetes (scikit-learn's, nothing downloaded)
  clients = 20
  partition = "dirichlet"            # or "iid"
  concentration = 0.5                # Dirichlet label skew (smaller = more skew)
  test_fraction = 0.25
  seed = 0
  dtype = "float64"                  # "float32": half the memory traffic, results differ in the low digits
  # or: synthetic = "linear" (logistic, softmax) with clients, samples_per_client, features, classes,
  #     label_concentration, feature_shift, noise, test_fraction, seed, dtype
  [algorithms.noisy_fedavg]          # one table per algorithm, one curve each in --plot
  grid = { sigma = [0.02, 0.05, 0.1], rate = [1.0, 4.0], rounds = [10, 40] }
  fixed = { local_steps = 2, clip = 1.0, batch_size = "full" }   # "full": each client's whole local batch
"""

_TOP_KEYS = ("delta", "seeds", "metric", "every", "data", "algorithms")
_DATA_KEYS = ("bundled", "clients", "partition", "concentration", "test_fraction", "seed", "dtype")
_SYNTHETIC_KEYS = (
    "synthetic",
    "clients",
    "samples_per_client",
    "features",
    "classes",
    "label_concentration",
    "feature_shift",
    "noise",
    "test_fraction",
    "seed",
    "dtype",
)
_METRICS = ("test_accuracy", "final_accuracy", "test_loss", "final_loss")


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``simulate`` subcommand to ``subparsers`` (the command line's ``add_subparsers`` action)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "simulate",
        help="train simulated FL runs over a grid of configurations and draw the privacy-utility frontier",
        description="Train every configuration x seed of the TOML file's algorithms on a bundled or synthetic data set "
        "(numba simulator, no torch), each run's epsilon from its proven accountants beside its "
        "loss and accuracy; stream the rows to -o and print (and --plot) the frontier.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("config", help="the sweep file (TOML, layout below)")
    parser.add_argument(
        "-o",
        "--out",
        "--output",
        metavar="FILE",
        required=True,
        help="write every run's row to FILE.parquet or FILE.csv (curves as JSON text in CSV)",
    )
    parser.add_argument(
        "--plot", metavar="PNG", help="draw the frontier (metric against epsilon) to PNG"
    )
    parser.add_argument(
        "--force", action="store_true", help="replace an existing -o FILE or --plot PNG"
    )
    progress_options(parser)
    where = parser.add_argument_group(
        "where the runs go (default: one after the other, in-process)"
    )
    where.add_argument(
        "--processes", type=int, metavar="N", help="N spawned worker processes on this machine"
    )
    where.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="'local' (a LocalCluster of --workers workers) or the "
        "address of a running Dask scheduler (tcp://host:8786)",
    )
    where.add_argument(
        "--workers", type=int, default=2, metavar="N", help="workers of --dask local (default 2)"
    )
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Run the sweep the file describes (see the module docstring); every refusal is a ValueError."""
    _check_where(args)
    import pandas as pd  # lazy: the simulate extra, checked by _check_where

    plan, train, test, seeds, algorithms = _read(args.config)
    _check_outputs(args)
    progress = args.progress if args.progress is not None else sys.stderr.isatty()
    columns = _stream_columns(algorithms)
    total = sum(len(c) for c in algorithms.values()) * len(seeds)
    print(
        f"{total} runs: "
        + ", ".join(f"{name} {len(c)} configurations" for name, c in algorithms.items())
        + f" x {len(seeds)} seeds on {plan['name']} ({train.n_clients} clients)",
        file=sys.stderr,
    )
    with _scheduler(args) as scheduler:
        frames = _simulate(
            args, plan, (train, test), seeds, columns, scheduler=scheduler, progress=progress
        )
    print(f"rows written to {os.path.abspath(args.out)}")
    everything = pd.concat(frames, ignore_index=True)
    _print_frontiers(everything, plan, seeds)
    bound = _corollary_1(everything, plan, train, test)
    if args.plot:
        _draw(everything, args.plot, plan, train, bound)
    return 0


def _check_where(args: argparse.Namespace) -> None:
    """The extras the run needs and the Dask scheduler's address, before anything is read."""
    require_extra("hockeystick simulate", "numba", "pandas", extra="simulate")
    if args.dask is not None:
        require_extra("--dask", "dask", "distributed")
        if args.dask != "local":
            check_address(args.dask, "--dask")


def _read(
    config: str,
) -> tuple[dict[str, Any], Any, Any, list[int], dict[str, list[dict[str, Any]]]]:
    """The file's plan, the (train, test) data, the seeds and each algorithm's configurations,
    checked against the data; a refusal names the file."""
    from ..simulate.sweep import (
        check_configurations,
        configurations,
        seed_list,
    )  # lazy: start-up time
    from ..sweep.grid import read_toml  # lazy: start-up time

    spec = read_toml(config)
    try:
        plan = _plan(spec)
        train, test = _load(plan["data"])
        seeds = seed_list(plan["seeds"])
        algorithms = {
            name: configurations(table["grid"], table["fixed"])
            for name, table in plan["algorithms"].items()
        }
        for name, configs in algorithms.items():
            check_configurations(name, configs, train)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"simulate file {config!r}: {exc}") from None
    return plan, train, test, seeds, algorithms


def _check_outputs(args: argparse.Namespace) -> None:
    """-o FILE and --plot PNG writable (replaced only with --force), --processes and --workers at least 1."""
    from ..simulate.row_stream import check_output_path  # lazy: start-up time

    check_output_path(args.out, args.force)
    if args.plot:
        check_plot_path(args.plot, args.force)
    if args.processes is not None and args.processes < 1:
        raise ValueError(f"--processes must be an integer >= 1, got {args.processes}")
    if args.workers < 1:
        raise ValueError(f"--workers must be an integer >= 1, got {args.workers}")


def _stream_columns(algorithms: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, list[Any]]:
    """The streamed file's columns: the algorithm, then every parameter any configuration sets."""
    columns: dict[str, list[Any]] = {"algorithm": list(algorithms)}
    for configs in algorithms.values():
        for config in configs:
            for key, value in config.items():
                columns.setdefault(key, []).append(value)
    return columns


@contextlib.contextmanager
def _scheduler(args: argparse.Namespace) -> Iterator[str | None]:
    """The Dask scheduler's address: a LocalCluster of --workers workers (closed afterwards) for
    --dask local, the address --dask gives, or None (in-process)."""
    if args.dask != "local":
        yield args.dask
        return
    from dask.distributed import LocalCluster  # lazy: the dask extra, checked by _check_where

    cluster = LocalCluster(
        n_workers=args.workers, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
    )
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


def _simulate(
    args: argparse.Namespace,
    plan: Mapping[str, Any],
    data: tuple[Any, Any],
    seeds: list[int],
    columns: dict[str, list[Any]],
    *,
    scheduler: str | None,
    progress: bool,
) -> list[Any]:
    """Every algorithm's sweep, its rows streamed to -o as they finish: one frame per algorithm."""
    from ..simulate.row_stream import RowStream  # lazy: start-up time
    from ..simulate.sweep import simulate_sweep  # lazy: start-up time

    train, test = data
    frames = []
    with RowStream(args.out, columns, overwrite=args.force) as stream:
        for name, table in plan["algorithms"].items():
            rows = simulate_sweep(
                name,
                train,
                grid=table["grid"],
                fixed=table["fixed"],
                seeds=seeds,
                delta=plan["delta"],
                test=test,
                every=plan["every"],
                processes=args.processes,
                scheduler=scheduler,
                progress=progress,
                on_row=functools.partial(_stream_row, stream, name),
            )
            frames.append(rows.assign(algorithm=name))
    return frames


def _print_frontiers(everything: Any, plan: Mapping[str, Any], seeds: list[int]) -> None:
    """Each algorithm's frontier of the metric against epsilon, with the configuration reaching it."""
    from ..simulate.frontier import frontier  # lazy: start-up time

    metric = plan["metric"]
    for name, table in plan["algorithms"].items():
        part = (
            everything[everything["algorithm"] == name]
            .drop(columns=["algorithm"])
            .dropna(axis=1, how="all")
        )
        front = frontier(
            part,
            metric=metric,
            parameters=[p for p in [*table["grid"], *table["fixed"]] if p in part.columns],
        )
        print(
            f"\n{name}: frontier of {metric} (mean over {len(seeds)} seeds) at delta = {plan['delta']:g}"
        )
        print(_frontier_table(front, metric, list(table["grid"])))


def _corollary_1(everything: Any, plan: Mapping[str, Any], train: Any, test: Any) -> Any:
    """Paper 000 Corollary 1's bound of the trusted aggregator's runs that it covers, printed; the
    (epsilon, value) frame drawn beside the test loss, or None."""
    if "trusted_aggregator" not in plan["algorithms"]:
        return None
    from ..simulate.utility_bound import corollary_1_table  # lazy: start-up time

    part = everything[everything["algorithm"] == "trusted_aggregator"].drop(columns=["algorithm"])
    table = corollary_1_table(part.dropna(axis=1, how="all"), test, n=train.n_clients)
    if not len(table):
        return None
    print(
        "\ntrusted_aggregator: paper 000 Corollary 1 (excess test loss; the test rows standing in for P_X)"
    )
    print(_bound_table(table))
    return table.rename(columns={"bound_loss": "value"})[["epsilon", "value"]]


def _draw(everything: Any, path: str, plan: Mapping[str, Any], train: Any, bound: Any) -> None:
    """The frontier picture: the metric against epsilon, one curve per algorithm (Corollary 1's
    bound beside the test loss)."""
    from ..plots import frontier_plot  # lazy: start-up time

    metric = plan["metric"]
    drawn = frontier_plot(
        everything,
        path,
        metric=metric,
        algorithm_column="algorithm",
        title=f"{plan['name']}, {train.n_clients} clients",
        bound=bound if metric == "test_loss" else None,
        bound_label="trusted_aggregator: paper 000 Cor. 1 bound",
    )
    print(f"plot written to {os.path.abspath(drawn)}")


def _stream_row(stream: Any, algorithm: str, row: dict[str, Any]) -> None:
    stream.write([{"algorithm": algorithm, **row}])


def _load(data: Mapping[str, Any]) -> Any:
    """(train, test) federated data: a bundled set, or a synthetic one split per client."""
    from ..simulate.data import synthetic  # lazy: start-up time
    from ..simulate.datasets import bundled  # lazy: start-up time

    options = {k: v for k, v in data.items() if k not in ("bundled", "synthetic")}
    if "bundled" in data:
        options["n_clients"] = options.pop("clients", 10)
        return bundled(data["bundled"], **options)
    dtype = options.pop("dtype", "float64")
    test_fraction = options.pop("test_fraction", 0.25)
    renamed = {"clients": "n_clients", "features": "n_features", "classes": "n_classes"}
    options = {renamed.get(k, k): v for k, v in options.items()}
    options.setdefault("n_clients", 10)
    options.setdefault("samples_per_client", 4)
    options.setdefault("n_features", 10)
    train, test = synthetic(data["synthetic"], **options).split(test_fraction)
    return train.astype(dtype), test.astype(dtype)


def _bound_table(table: Any) -> str:
    headers = ["epsilon", "sigma", "batch", "rate", "measured excess", "bound", "bound / measured"]
    body = [
        [
            outward_text(r["epsilon"], column_side("epsilon"), 4),
            f"{r['sigma']:g}",
            f"{int(r['batch'])}",
            f"{r['rate']:g}",
            f"{r['measured_excess']:.4g}",
            outward_text(r["bound"], column_side("bound"), 4),
            f"{r['bound'] / r['measured_excess']:.3g}" if r["measured_excess"] > 0 else "-",
        ]
        for r in table.to_dict("records")
    ]
    return _columns(headers, body)


def _plan(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The file's settings, checked, with defaults filled in."""
    unknown = sorted(set(spec) - set(_TOP_KEYS))
    if unknown:
        raise ValueError(f"unknown key {unknown[0]!r}; a simulate file has {', '.join(_TOP_KEYS)}")
    data = _data(spec.get("data"))
    algorithms = _algorithms(spec.get("algorithms"))
    metric = _metric(spec.get("metric", "test_accuracy"))
    delta = _delta(spec.get("delta", 1e-5))
    every = _every(spec.get("every"))
    name = data.get("bundled") or f"synthetic {data['synthetic']}"
    return {
        "data": data,
        "name": name,
        "algorithms": algorithms,
        "metric": metric,
        "delta": float(delta),
        "seeds": spec.get("seeds", 1),
        "every": every,
    }


def _data(data: Any) -> dict[str, Any]:
    """[data]: one bundled or synthetic data set, with the keys of its kind."""
    if not isinstance(data, dict) or ("bundled" in data) == ("synthetic" in data):
        raise ValueError(
            '[data] must name one data set: bundled = "digits" (or breast_cancer, wine, iris, diabetes), '
            'or synthetic = "linear" (or logistic, softmax)'
        )
    keys = _DATA_KEYS if "bundled" in data else _SYNTHETIC_KEYS
    unknown = sorted(set(data) - set(keys))
    if unknown:
        raise ValueError(f"[data] has no key {unknown[0]!r}; its keys: {', '.join(keys)}")
    return data


def _algorithms(tables: Any) -> dict[str, dict[str, dict[str, Any]]]:
    """[algorithms.NAME] tables, at least one: each its grid (lists of values) and fixed values."""
    if not isinstance(tables, dict) or not tables:
        raise ValueError(
            "give at least one [algorithms.NAME] table with grid = {...} and fixed = {...}"
        )
    return {name: _algorithm(name, table) for name, table in tables.items()}


def _algorithm(name: str, table: Any) -> dict[str, dict[str, Any]]:
    """One [algorithms.NAME] table: grid = {name = [values]} (at least one) and fixed = {name = value}."""
    if not isinstance(table, dict) or set(table) - {"grid", "fixed"}:
        raise ValueError(
            f"[algorithms.{name}] takes grid = {{name = [values]}} and fixed = {{name = value}}"
        )
    grid = dict(table.get("grid", {}))
    for key, values in grid.items():
        if not isinstance(values, list):
            raise ValueError(
                f"[algorithms.{name}] grid.{key} must be a list of values, got {values!r}"
            )
    if not grid:
        raise ValueError(
            f"[algorithms.{name}] needs a grid: at least one parameter with a list of values"
        )
    return {
        "grid": {k: [_value(k, v) for v in vs] for k, vs in grid.items()},
        "fixed": {k: _value(k, v) for k, v in dict(table.get("fixed", {})).items()},
    }


def _metric(metric: Any) -> str:
    if metric not in _METRICS:
        raise ValueError(f"metric must be one of {', '.join(_METRICS)}, got {metric!r}")
    return str(metric)


def _delta(delta: Any) -> float:
    if isinstance(delta, bool) or not isinstance(delta, (int, float)) or not 0 < delta < 1:
        raise ValueError(f"delta must be a number strictly between 0 and 1, got {delta!r}")
    return float(delta)


def _every(every: Any) -> int | None:
    if every is not None and (isinstance(every, bool) or not isinstance(every, int) or every < 1):
        raise ValueError(
            f"every must be an integer >= 1 (rounds between metric points), got {every!r}"
        )
    return every


def _value(name: str, value: Any) -> Any:
    """A parameter value from TOML: "full" batch_size means each client's whole local batch (None)."""
    if name == "batch_size" and value == "full":
        return None
    return value


def _frontier_table(front: Any, metric: str, parameters: Sequence[str]) -> str:
    headers = ["epsilon", f"{metric} mean", "std", *parameters]
    body = [
        [
            outward_text(row["epsilon"], column_side("epsilon"), 4),
            f"{row[f'{metric}_mean']:.4f}",
            f"{row[f'{metric}_std']:.4f}",
            *(_show(row[p]) for p in parameters),
        ]
        for row in front.to_dict("records")
    ]
    return _columns(headers, body)


def _show(value: Any) -> str:
    """A parameter value as written in the file (an integer column made float by other algorithms' gaps: 10)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _columns(headers: Sequence[str], body: Sequence[Sequence[str]]) -> str:
    widths = [
        max(len(h), *(len(r[i]) for r in body)) if body else len(h) for i, h in enumerate(headers)
    ]
    lines = ["  ".join(h.rjust(w) for h, w in zip(headers, widths))]
    lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in body]
    return "\n".join(lines)
