"""The ``hockeystick`` command line: sweeps, calibration, single guarantees, figures.

    hockeystick sweep --example                  the README's main job (writes ./hockeystick-out/)
    hockeystick sweep grid.toml -o sweep.parquet
    hockeystick calibrate -a gaussian --epsilon 1 --delta 1e-5 -p rounds=1,10,100,1000
    hockeystick delta -a gaussian -p sigma=2 -p rounds=100 --epsilon 1
    hockeystick epsilon -a gaussian -p sigma=2 -p rounds=100 --delta 1e-5
    hockeystick accountants                      what -a accepts, with each one's parameters

Parameters are NAME=VALUE where VALUE is a number (fixed), a list 1,2,4, or a range
log:START:STOP:NUM / linear:START:STOP:NUM (an axis of the grid).  Files are never replaced
unless --force; a killed sweep continues with --resume; a sweep above 10^9 points, the free
disk space or 12 hours estimated needs --allow-large.  Exit status: 0 on success, 2 for bad
input (one line on stderr saying what to change; --debug for the traceback), 1 when the
run itself fails, 130 when interrupted (143 on SIGTERM).
"""

from __future__ import annotations

import argparse
import difflib
import logging
import os
import signal
import sys
import warnings
from pathlib import Path
from typing import Any, Sequence

from . import __version__, cli_simulate
from .certified_theta import theta_epsilon_upper, theta_radius_lower
from .hockey_stick import theta

EXIT_USAGE = 2
EXIT_FAILURE = 1


class _UsageError(Exception):
    """Bad input found by the command itself (exit status 2)."""


class _Terminated(BaseException):
    """SIGTERM, turned into an exception so that a sweep keeps its finished chunks and says so."""


class _Parser(argparse.ArgumentParser):
    """argparse, with a pointer to --help and the examples on every usage error.

    A subcommand's parser reports its own unrecognized arguments (with its own usage and a
    'did you mean' for a misspelled flag) instead of leaving them to the top-level parser."""

    def error(self, message: str) -> Any:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n"
                              f"run '{self.prog} --help' for the options and examples\n")

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:  # type: ignore[override]
        namespace, extras = super().parse_known_args(args, namespace)
        if extras and self.prog != _PROG:
            self.error(self._unrecognized(extras))
        return namespace, extras

    def _unrecognized(self, extras: list[str]) -> str:
        message = f"unrecognized arguments: {' '.join(extras)}"
        flags = [o for o in self._option_string_actions if o.startswith("--")]
        for extra in extras:
            if extra.startswith("-"):
                close = difflib.get_close_matches(extra.split("=")[0], flags, n=1, cutoff=0.6)
                if close:
                    message += f" (did you mean {close[0]}?)"
                    break
        return message


_PROG = "hockeystick"


# --- shared options ------------------------------------------------------------------------

def _accountant_options(parser: argparse.ArgumentParser) -> None:
    from .sweep import registry

    group = parser.add_argument_group("what to evaluate")
    group.add_argument("-a", "--accountant", action="append", default=None, metavar="NAME",
                       help=f"accountant (repeat or comma-separate for several: best bound per point); "
                            f"registered: {', '.join(registry.names())}")
    group.add_argument("-p", "--param", action="append", default=[], metavar="NAME=VALUE",
                       help="a parameter: NAME=1.5 (fixed), NAME=1,2,4 (list), NAME=log:0.5:20:100 or "
                            "NAME=linear:1:1000:50 (range); repeat for each parameter")
    group.add_argument("--epsilon", metavar="VALUE", help="epsilon (same VALUE forms as --param)")
    group.add_argument("--delta", metavar="VALUE", help="delta (same VALUE forms as --param)")
    run = parser.add_argument_group(
        "a training run, in its own words (no -a needed: --dataset-size means DP-SGD, --total-clients DP-FedAvg; "
        "every step released; same VALUE forms as --param)")
    for flag, help_text in _TRAINING_FLAGS.items():
        run.add_argument(f"--{flag}", dest=f"run_{flag.replace('-', '_')}", metavar="VALUE", help=help_text)
    run.add_argument("--sampling", choices=("poisson", "fixed_size"), default=None,
                     help="how batches are drawn: poisson (default; add/remove one) or fixed_size (exactly "
                          "--batch-size records each step; replace one)")


_TRAINING_FLAGS = {
    "noise-multiplier": "noise standard deviation over the clipping norm",
    "dataset-size": "records in the data set (DP-SGD)",
    "batch-size": "records per step (the expected number under Poisson sampling)",
    "epochs": "passes over the data, ceil(dataset size / batch size) steps each",
    "steps": "optimizer steps (instead of --epochs)",
    "total-clients": "clients in the population (DP-FedAvg)",
    "clients-per-round": "clients per round (expected, under Poisson sampling)",
    "rounds": "rounds (DP-FedAvg; a parameter of other accountants too)",
}


def _training_accountant(args: argparse.Namespace) -> str | None:
    """dp_sgd / dp_fedavg (or their fixed_size variants) when the training flags say which."""
    sgd = getattr(args, "run_dataset_size", None) is not None
    fedavg = getattr(args, "run_total_clients", None) is not None
    if sgd and fedavg:
        raise _UsageError("give --dataset-size (DP-SGD) or --total-clients (DP-FedAvg), not both")
    if not (sgd or fedavg):
        if getattr(args, "sampling", None) is not None:
            raise _UsageError("--sampling goes with --dataset-size (DP-SGD) or --total-clients (DP-FedAvg)")
        return None
    name = "dp_sgd" if sgd else "dp_fedavg"
    return name + ("_fixed_size" if args.sampling == "fixed_size" else "")


def _output_options(parser: argparse.ArgumentParser, *, required_out: bool = False) -> None:
    group = parser.add_argument_group("output")
    group.add_argument("-o", "--out", metavar="FILE", required=False,
                       help="write every point to FILE.csv, FILE.npz or FILE.parquet"
                            + (" (required)" if required_out else ""))
    group.add_argument("--plot", metavar="PNG", help="draw the sweep's natural picture to PNG")
    group.add_argument("--chunk-size", type=_positive_int, metavar="N", help="points per chunk (default ~1M)")
    group.add_argument("--progress", dest="progress", action="store_true", default=None,
                       help="always show the progress bar (default: when stderr is a terminal)")
    group.add_argument("--no-progress", dest="progress", action="store_false", help="never show it")
    group.add_argument("--force", action="store_true",
                       help="replace an existing -o FILE or --plot PNG (refused otherwise)")
    group.add_argument("--resume", action="store_true",
                       help="continue a killed or failed sweep to the same -o FILE from its finished chunks "
                            "(kept in the hidden .FILE.parts directory beside it; same grid and chunk size only)")
    group.add_argument("--allow-large", action="store_true",
                       help="run even a sweep above 10^9 points, above the free disk space or above 12 hours "
                            "estimated (the size and time estimate are printed before it starts)")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _parameters(args: argparse.Namespace) -> dict[str, str]:
    params: dict[str, str] = {}
    for item in args.param:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise _UsageError(f"--param {item!r}: write NAME=VALUE, e.g. -p sigma=2 or -p rounds=1,10,100")
        _add_once(params, name.strip(), value.strip(), f"-p {name.strip()}=...")
    for name in ("epsilon", "delta"):
        if getattr(args, name, None) is not None:
            _add_once(params, name, getattr(args, name), f"--{name}")
    for flag in _TRAINING_FLAGS:
        value = getattr(args, f"run_{flag.replace('-', '_')}", None)
        if value is not None:
            _add_once(params, flag.replace("-", "_"), value, f"--{flag}")
    return params


def _add_once(params: dict[str, str], name: str, value: str, flag: str) -> None:
    """A parameter given twice is a mistake, not 'the last one wins'."""
    if name in params:
        raise _UsageError(f"parameter {name!r} is given twice ({params[name]} and {value}); give it once "
                          f"({flag}), with a list 1,2,4 or a range log:START:STOP:NUM for several values")
    params[name] = value


def _accountants(args: argparse.Namespace, default: Sequence[str] | None = None) -> list[str]:
    from .sweep import registry

    names = [n.strip() for item in (args.accountant or []) for n in item.split(",") if n.strip()]
    training = _training_accountant(args)
    if training is not None:
        if names and names != [training]:
            raise _UsageError(f"the training flags describe accountant {training!r}; drop -a {','.join(names)}")
        return [training]
    if not names:
        if default:
            return list(default)
        raise _UsageError(f"say which accountant with -a NAME; registered: {', '.join(registry.names())}")
    return names


# --- output --------------------------------------------------------------------------------

def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in cells]
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (int,)) or (isinstance(value, float) and value.is_integer() and abs(value) < 1e15):
        return f"{int(value)}"
    return f"{value:.6g}"


def _describe(point: dict[str, Any]) -> str:
    return ", ".join(f"{k}={_cell(v)}" for k, v in point.items()) or "-"


def _rate(points_per_second: float) -> str:
    for scale, unit in ((1e6, "M "), (1e3, "k ")):
        if points_per_second >= scale:
            return f"{points_per_second / scale:.3g} {unit}points/s"
    return f"{points_per_second:.3g} points/s"


def _print_summary(result: Any) -> None:
    grid, summary = result.grid, result.summary
    print(f"{grid.size:,} points  {' + '.join(grid.accountants)} -> {grid.output}  "
          f"in {result.seconds:.2f} s ({_rate(result.points_per_second)})")
    if grid.fixed:
        print("fixed: " + _describe(dict(grid.fixed)))
    rows = []
    for name in grid.outputs:
        if name in summary.low:
            (lo, i), (hi, j) = summary.low[name], summary.high[name]
            rows.append([name, lo, _describe(summary.point(i)), hi, _describe(summary.point(j))])
    if rows:
        print(_table(["column", "min", "at", "max", "at"], rows))
    if summary.best_counts is not None:
        total = max(int(summary.best_counts.sum()), 1)
        print("best bound from: " + ", ".join(f"{a} {100 * c / total:.1f}%"
                                               for a, c in zip(grid.accountants, summary.best_counts)))


def _print_points(result: Any, max_rows: int) -> None:
    """Every point as a table when there are few, else the summary."""
    columns = result.columns
    if columns is None or result.grid.size > max_rows:
        _print_summary(result)
        return
    names = list(columns)
    rows = []
    for i in range(result.grid.size):
        row = []
        for n in names:
            v = columns[n][i]
            row.append(result.grid.accountants[int(v)] if n == "best" else v.item())
        rows.append(row)
    if result.grid.fixed:
        print("fixed: " + _describe(dict(result.grid.fixed)))
    print(_table(names, rows))


# --- subcommands ---------------------------------------------------------------------------

def _execute(grid: Any, args: argparse.Namespace, *, out: str | None, keep: bool = False) -> Any:
    """Run ``grid`` in-process or on Dask (--workers / --scheduler), after checking --plot."""
    from .sweep.run import run_sweep

    if getattr(args, "plot", None):
        _check_plot_path(args.plot, args.force)
    if args.resume and not out:
        raise _UsageError("--resume continues a sweep written to a file: give the same -o FILE as the killed run")
    kwargs = dict(chunk_size=args.chunk_size, progress=args.progress, overwrite=args.force, resume=args.resume,
                  allow_large=args.allow_large)
    if getattr(args, "workers", None) or getattr(args, "scheduler", None):
        from .sweep.dask import run_on_dask

        return run_on_dask(grid, out, scheduler=args.scheduler, workers=args.workers or 2, **kwargs)
    return run_sweep(grid, out, keep=keep, **kwargs)


def _check_plot_path(path: str, force: bool) -> None:
    p = Path(path)
    if not _has_matplotlib():
        raise _UsageError("--plot needs matplotlib: pip install 'hockeystick[plot]'")
    if p.suffix.lower() != ".png":
        raise _UsageError(f"--plot {path!r}: name the picture *.png")
    if p.is_dir():
        raise _UsageError(f"--plot {path!r} is a directory; give a file name such as {str(p / 'sweep.png')!r}")
    if p.exists() and not force:
        raise _UsageError(f"--plot {path!r} already exists and is not replaced unless you ask: pass --force, "
                          "or choose another name")
    if not (p.parent if str(p.parent) else Path(".")).is_dir():
        raise _UsageError(f"--plot {path!r}: directory {str(p.parent)!r} does not exist; create it first")
    if not os.access(p.parent if str(p.parent) else ".", os.W_OK):
        raise _UsageError(f"--plot {path!r}: directory {str(p.parent)!r} is not writable")


def _finish(grid: Any, result: Any, args: argparse.Namespace) -> None:
    if result.path:
        print(f"result written to {os.path.abspath(result.path)}")
    if args.plot:
        from .plots import plot_grid

        print(f"plot written to {os.path.abspath(plot_grid(grid, args.plot))}")


def _sweep(args: argparse.Namespace) -> int:
    from .sweep.grid import Grid, chunk_size_setting, read_toml

    if args.example:
        return _example(args)
    spec: dict[str, Any] = read_toml(args.config) if args.config else {}
    try:
        chunk_size = chunk_size_setting(spec)
        if not isinstance(spec.get("parameters", {}), dict):
            raise TypeError(f"[parameters] must be a table of name = value, got {spec['parameters']!r}")
        params = dict(spec.get("parameters", {}))
        params.update(_parameters(args))
        if args.accountant or not spec:
            spec["accountants"] = _accountants(args)
            spec.pop("accountant", None)
        if args.quantity or "output" not in spec:
            spec["output"] = args.quantity or "delta"
        spec["parameters"] = params
        spec.pop("chunk_size", None)
        grid = Grid.from_dict(spec)
    except (ValueError, TypeError) as exc:
        if not args.config:
            raise
        raise _UsageError(f"sweep file {args.config!r}: {exc}") from None
    if args.chunk_size is None:
        args.chunk_size = chunk_size
    if not args.out:
        raise _UsageError("say where to write the sweep: -o FILE.parquet (or .npz, .csv)")
    result = _execute(grid, args, out=args.out)
    _print_summary(result)
    _finish(grid, result, args)
    return 0


def _single(output: str):
    def command(args: argparse.Namespace) -> int:
        from .sweep.grid import Grid

        grid = Grid.from_parameters(_accountants(args), output, _parameters(args))
        result = _execute(grid, args, out=args.out, keep=grid.size <= args.max_rows)
        _print_points(result, args.max_rows)
        _finish(grid, result, args)
        return 0
    return command


def _calibrate(args: argparse.Namespace) -> int:
    from .sweep.grid import Grid

    params = _parameters(args)
    for name in ("epsilon", "delta"):
        if name not in params:
            raise _UsageError(f"calibration needs a target: give --{name} VALUE")
    accountants = _accountants(args)
    parameter = args.parameter or ("noise_multiplier" if accountants[0].startswith(("dp_sgd", "dp_fedavg"))
                                   else "sigma")
    grid = Grid.from_parameters(accountants, parameter, params)
    result = _execute(grid, args, out=args.out, keep=grid.size <= args.max_rows)
    _print_points(result, args.max_rows)
    _finish(grid, result, args)
    return 0


def _has_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _figures(args: argparse.Namespace) -> int:
    try:
        from .figures import write_figures
    except ImportError:
        raise _UsageError("this build has no paper figures (hockeystick.figures is missing); "
                          "install a release that includes the contraction accountant") from None
    if not _has_matplotlib():
        raise _UsageError("figures need matplotlib: pip install 'hockeystick[plot]'")
    out_dir = Path(args.out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise _UsageError(f"--out-dir {str(out_dir)!r} is a file, not a directory; give a directory "
                          "(it is created if missing)")
    if out_dir.is_dir() and any(out_dir.iterdir()) and not args.force:
        raise _UsageError(f"--out-dir {str(out_dir)!r} is not empty; pass --force to write the figures into it "
                          "(files of the same names are replaced), or choose another directory")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _UsageError(f"--out-dir {str(out_dir)!r} cannot be created ({exc.strerror}); give a directory "
                          "you can write to") from None
    if not os.access(out_dir, os.W_OK):
        raise _UsageError(f"--out-dir {str(out_dir)!r} is not writable")
    for path in write_figures(out_dir):
        print(f"figure written to {os.path.abspath(path)}")
    return 0


def _example(args: argparse.Namespace) -> int:
    from .example import run_example

    report = run_example(Path(args.out_dir), progress=args.progress, overwrite=args.force)
    print(f"sweep file: {os.path.abspath(report.toml_path)}  (edit it, then: hockeystick sweep "
          f"{report.toml_path} -o my_sweep.parquet)")
    _print_summary(report.sweep)
    print(f"result written to {os.path.abspath(str(report.sweep.path))}")
    _print_plot(report.sweep_plot)
    grid = report.calibration.grid
    print(f"\nsigma needed for (epsilon, delta) = ({grid.fixed['epsilon']:g}, {grid.fixed['delta']:g}):")
    _print_points(report.calibration, max_rows=100)
    print(f"calibration written to {os.path.abspath(str(report.calibration.path))}")
    _print_plot(report.calibration_plot)
    return 0


def _print_plot(path: str | None) -> None:
    if path is None:
        print("plot skipped: matplotlib is not installed (pip install 'hockeystick[plot]')")
    else:
        print(f"plot written to {os.path.abspath(path)}")


def _list_accountants(args: argparse.Namespace) -> int:
    from .sweep import registry

    for name in registry.names():
        entry = registry.get(name)
        optional = [p for p in entry.parameters if p not in entry.required]
        print(f"{name}: {entry.summary}")
        print(f"    needs: {', '.join(entry.required)}" + (f"; optional: {', '.join(optional)}" if optional else ""))
        if entry.calibratable:
            print("    calibrate: " + ", ".join(f"{p} ({'smallest' if c.direction == 'decreasing' else 'largest'})"
                                             for p, c in entry.calibratable.items()))
    return 0


def _demo(args: argparse.Namespace) -> int:
    # validate (and compute) before printing anything: bad input gets a message, no half output
    if not (0 < args.sensitivity < float("inf")):
        raise _UsageError(f"--sensitivity must be a positive finite number, got {args.sensitivity:g}")
    r = theta_radius_lower(args.epsilon, args.delta)   # rounded to the safe side: sigma = sensitivity / r
    print("theta(r, epsilon) = delta of the Gaussian mechanism with sensitivity/sigma = r")
    for radius in (0.1, 1.0, 4.0):
        for eps in (0.5, 1.0, 8.0):
            print(f"  r = {radius:<4} epsilon = {eps:<4} delta = {theta(radius, eps):.6e}")
    print(f"calibration: (epsilon, delta) = ({args.epsilon}, {args.delta}) needs sigma >= "
          f"{args.sensitivity / r:.10g} for sensitivity {args.sensitivity}")
    print(f"  check: epsilon(delta) at that sigma = {theta_epsilon_upper(r, args.delta):.12g}")
    return 0


_SWEEP_EXAMPLES = """\
examples:
  hockeystick sweep --example                       # the main job: a few million points + calibration
  hockeystick sweep grid.toml -o sweep.parquet --plot sweep.png
  hockeystick sweep -a gaussian -p sigma=log:0.5:20:1000 -p rounds=1,10,100,1000 \\
      --epsilon linear:0.1:8:500 -o sweep.npz
  hockeystick sweep grid.toml -o sweep.parquet --workers 4          # on a local Dask cluster
  hockeystick sweep grid.toml -o /shared/sweep.parquet --scheduler tcp://host:8786

grid.toml:
  accountants = ["gaussian"]
  output = "delta"                  # or "epsilon", or a parameter to calibrate ("sigma")
  [parameters]
  sigma = { log = [0.5, 20, 1000] }
  rounds = [1, 10, 100, 1000]
  epsilon = { linear = [0.1, 8, 500] }
  sensitivity = 1.0
"""


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=_PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show the traceback of an error")
    sub = _Subcommands(parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser),
                       common)
    raw = argparse.RawDescriptionHelpFormatter

    sweep = sub.add_parser("sweep", help="evaluate an accountant over a grid of parameter points",
                           description="Evaluate one or more accountants over the Cartesian product of the "
                                       "parameter axes, in chunks, streaming to a file.",
                           epilog=_SWEEP_EXAMPLES, formatter_class=raw)
    sweep.add_argument("config", nargs="?", help="a sweep file (TOML, layout below); flags add to or override it")
    sweep.add_argument("--example", action="store_true",
                       help="run the built-in example end to end (sweep + calibration + plots)")
    sweep.add_argument("--out-dir", default="hockeystick-out", metavar="DIR",
                       help="where --example writes (default ./hockeystick-out)")
    sweep.add_argument("-q", "--quantity", metavar="OUTPUT",
                       help="delta (default), epsilon, or a parameter to calibrate such as sigma")
    _accountant_options(sweep)
    _output_options(sweep, required_out=True)
    dask = sweep.add_argument_group("Dask (default: in-process)")
    dask.add_argument("--workers", type=_positive_int, metavar="N", help="run on a LocalCluster with N workers")
    dask.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask cluster at ADDRESS (shared filesystem)")
    sweep.set_defaults(func=_sweep)

    for name, output, other in (("delta", "delta", "epsilon"), ("epsilon", "epsilon", "delta")):
        p = sub.add_parser(name, help=f"{output}({other}) of an accountant at a point or a few",
                           description=f"Print {output}({other}) for each point (a table for a few points, "
                                       "a summary for many).",
                           epilog=f"examples:\n  hockeystick {name} --dataset-size 60000 --batch-size 256 --epochs 60 "
                                  f"--noise-multiplier 1.1 --{other} {'1' if other == 'epsilon' else '1e-5'}\n"
                                  f"  hockeystick {name} -a gaussian -p sigma=2 -p rounds=100 "
                                  f"--{other} {'1' if other == 'epsilon' else '1e-5'}\n"
                                  f"  hockeystick {name} -a gaussian -p sigma=1,2,4 -p rounds=100 "
                                  f"--{other} {'0.5,1,2' if other == 'epsilon' else '1e-5,1e-8'}",
                           formatter_class=raw)
        _accountant_options(p)
        _output_options(p)
        p.add_argument("--max-rows", type=_positive_int, default=50, metavar="N",
                       help="print every point up to N points, else a summary (default 50)")
        p.set_defaults(func=_single(output), workers=None, scheduler=None)

    cal = sub.add_parser("calibrate", help="smallest sigma (or largest rounds ...) within a target (epsilon, delta)",
                         description="For each point, the extreme value of --parameter that keeps the accountant "
                                     "within (epsilon, delta): the smallest sigma, or the largest rounds or "
                                     "sampling rate.",
                         epilog="examples:\n"
                                "  hockeystick calibrate --dataset-size 60000 --batch-size 256 --epochs 60 "
                                "--epsilon 3 --delta 1e-5\n"
                                "  hockeystick calibrate --parameter epochs --dataset-size 60000 --batch-size 256 "
                                "--noise-multiplier 1.1 --epsilon 3 --delta 1e-5\n"
                                "  hockeystick calibrate -a gaussian --epsilon 1 --delta 1e-5 -p rounds=1,10,100,1000\n"
                                "  hockeystick calibrate -a gaussian --parameter rounds --epsilon 1 --delta 1e-5 "
                                "-p sigma=2,5,10\n"
                                "  hockeystick calibrate -a gaussian --epsilon 0.5,1,2,4 --delta 1e-5 "
                                "-p rounds=log:1:10000:40 --plot sigma.png\n"
                                "  hockeystick calibrate -a trusted_aggregator --epsilon 1 --delta 1e-5 -p n=60000 \\\n"
                                "      -p batch_size=10,100,1000 -p learning_rate=0.5 -p lipschitz=1 -p radius=1",
                         formatter_class=raw)
    cal.add_argument("--parameter", default=None, metavar="NAME",
                     help="what to calibrate (default sigma, or noise_multiplier for a training run; rounds, "
                          "sampling_rate, epochs, batch_size ... where the accountant has it)")
    _accountant_options(cal)
    _output_options(cal)
    cal.add_argument("--max-rows", type=_positive_int, default=50, metavar="N",
                     help="print every point up to N points, else a summary (default 50)")
    cal.set_defaults(func=_calibrate, workers=None, scheduler=None)

    fig = sub.add_parser("figures", help="reproduce the papers' figures as PNG files",
                         description="Recompute and draw the papers' figures (000 Fig. 2: the trusted aggregator; "
                                     "002 Figs. 2 and 3: PNSGD, Theorem 4 against Proposition 1) as PNG files in "
                                     "--out-dir.  Needs matplotlib (pip install 'hockeystick[plot]').",
                         epilog="example:\n  hockeystick figures --out-dir figures/", formatter_class=raw)
    fig.add_argument("--out-dir", default="figures", metavar="DIR", help="directory for the PNGs (default ./figures)")
    fig.add_argument("--force", action="store_true",
                     help="write into a --out-dir that is not empty, replacing figures of the same names "
                          "(refused otherwise)")
    fig.set_defaults(func=_figures)

    acc = sub.add_parser("accountants", help="list the accountants with their parameters",
                         epilog="example:\n  hockeystick accountants", formatter_class=raw)
    acc.set_defaults(func=_list_accountants)

    demo = sub.add_parser("demo", help="print a few theta values and one noise calibration",
                          epilog="example: hockeystick demo --epsilon 1 --delta 1e-5")
    demo.add_argument("--epsilon", type=float, default=1.0, help="target epsilon (default 1)")
    demo.add_argument("--delta", type=float, default=1e-5, help="target delta (default 1e-5)")
    demo.add_argument("--sensitivity", type=float, default=1.0, help="L2 sensitivity (default 1)")
    demo.set_defaults(func=_demo)
    cli_simulate.register(sub)
    return parser


class _Subcommands:
    """``add_subparsers()``'s action, giving every subcommand the shared options (--debug)."""

    def __init__(self, action: Any, common: argparse.ArgumentParser) -> None:
        self.action, self.common = action, common

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = self.action.add_parser(name, parents=[self.common], **kwargs)
        return parser


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _leftovers(args: argparse.Namespace) -> str:
    from .sweep.checkpoint import describe_leftovers

    kept = describe_leftovers(args.out) if getattr(args, "out", None) else None
    return f"; {kept}" if kept else ""


def _raise_terminated(signum: int, frame: Any) -> None:
    raise _Terminated()


def _stderr_log(prog: str, verbose: bool) -> logging.Handler:
    """Print warnings (such as removed leftovers) as 'prog: message' lines, and with ``verbose`` (a
    sweep, or any command writing -o FILE) the plan: points, output size, time estimate."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"{prog}: %(message)s"))
    logger = logging.getLogger("hockeystick")
    logger.addHandler(handler)
    handler.setLevel(logging.INFO if verbose else logging.WARNING)
    if logger.level == logging.NOTSET or logger.level > handler.level:
        logger.setLevel(handler.level)
    return handler


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    prog = f"{_PROG} {args.command}"
    handler = _stderr_log(prog, verbose=args.command == "sweep" or bool(getattr(args, "out", None)))
    previous = signal.getsignal(signal.SIGTERM)
    catch_term = previous is not None and _is_main_thread()
    if catch_term:
        signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        return _dispatch(args, prog)
    finally:
        logging.getLogger("hockeystick").removeHandler(handler)
        if catch_term:
            signal.signal(signal.SIGTERM, previous)


def _is_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _dispatch(args: argparse.Namespace, prog: str) -> int:
    """Run the subcommand; every error becomes one line on stderr and an exit status (or, with
    --debug, the traceback)."""
    try:
        with warnings.catch_warnings():
            if not args.debug:   # numpy's overflow notes are for developers; --debug shows them
                warnings.simplefilter("ignore", RuntimeWarning)
            return args.func(args)
    except (_UsageError, ValueError, TypeError, ArithmeticError) as exc:
        if args.debug:
            raise
        print(f"{prog}: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{prog}: interrupted{_leftovers(args)}", file=sys.stderr)
        return 130
    except _Terminated:
        print(f"{prog}: terminated (SIGTERM){_leftovers(args)}", file=sys.stderr)
        return 143
    except BrokenPipeError:
        # the reader went away (hockeystick ... | head): stop quietly, as other filters do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as exc:
        if args.debug:
            raise
        if isinstance(exc, MemoryError):
            print(f"{prog}: failed: out of memory; lower --chunk-size or the number of values per axis"
                  f"{_leftovers(args)}", file=sys.stderr)
        else:
            print(f"{prog}: failed: {type(exc).__name__}: {_one_line(exc)}{_leftovers(args)} "
                  "(rerun with --debug for the traceback)", file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
