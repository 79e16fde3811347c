"""What every subcommand shares: the parser class, the usage error, the accountant and output
options, and turning NAME=VALUE options into a sweep's parameters."""

from __future__ import annotations

import argparse
import difflib
import re
from collections.abc import Sequence
from typing import Any

from ..base.accountant import BOUND_SIDES

__all__ = [
    "EXIT_USAGE",
    "EXIT_FAILURE",
    "PROG",
    "UsageError",
    "LiteralUsageError",
    "Parser",
    "accountant_argument",
    "check_domains",
    "accountant_options",
    "matrix_options",
    "training_options",
    "output_options",
    "progress_options",
    "positive_int",
    "parameters",
    "accountant_names",
    "training_accountant",
    "TRAINING_FLAGS",
    "TRAINING_FLAG_SYNONYMS",
    "MATRIX_FLAGS",
    "written",
]

EXIT_USAGE = 2
EXIT_FAILURE = 1
PROG = "hockeystick"


class UsageError(Exception):
    """Bad input found by the command itself (exit status 2)."""


class LiteralUsageError(UsageError):
    """A usage error whose words are printed as written: it names parameters as ``-p`` and
    ``--parameter`` take them (``noise_multiplier``), which a training run's flags would otherwise
    rewrite (``--noise-multiplier``)."""


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error printed as its one line and a pointer to --help and the examples.

    A subcommand's parser reports its own unrecognized arguments (with its own usage and a
    'did you mean' for a misspelled flag) instead of leaving them to the top-level parser.

    A subcommand with the positional NAME (``accountant_argument``) reads it from the words argparse
    leaves over, not by argparse's positional matching: a word right after an unrecognized flag is
    that flag's value (``--epsilno 1`` is refused whole), never the accountant."""

    # the positional NAME's action, shown by --help and the usage line but matched by ``_take_name``
    name_action: argparse.Action | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # a flag is matched whole: argparse's prefix matching would read --output as --output-scale
        # and --noise as --noise-multiplier; an unmatched flag is refused with the flags it may
        # stand for
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)
        self.register("action", None, Once)
        self.register("action", "store", Once)

    def error(self, message: str) -> Any:  # type: ignore[override]
        # the one line that says what to change, and where the options are: the usage (30 lines for
        # the subcommands that take a training run) would bury it
        self.exit(
            EXIT_USAGE,
            f"{self.prog}: error: {message}\nrun '{self.prog} --help' for the options and examples\n",
        )

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:  # type: ignore[override]
        name = self.name_action
        at = self._actions.index(name) if name is not None else -1
        if name is not None:
            self._actions.remove(name)
        try:
            namespace, extras = super().parse_known_args(args, namespace)
        finally:
            if name is not None:
                self._actions.insert(at, name)
        if name is not None:
            extras = _take_name(namespace, extras, name.dest)
        if extras and self.prog != PROG:
            self.error(self._unrecognized(extras))
        return namespace, extras

    def _unrecognized(self, extras: list[str]) -> str:
        message = f"unrecognized arguments: {' '.join(extras)}"
        hints = []
        for extra in extras:
            if extra.startswith("-"):
                close = suggest_flags(extra.split("=")[0], self._option_string_actions)
                if close:
                    hints.append(f"{extra.split('=')[0]}: did you mean {' or '.join(close)}?")
        if len(hints) == 1:
            message += f" (did you mean {hints[0].split('did you mean ', 1)[1][:-1]}?)"
        elif hints:
            message += f" ({'; '.join(hints)})"
        return message


def suggest_flags(word: str, flags: Any) -> list[str]:
    """The long flags ``word`` may stand for: those it begins (``--noise`` for
    ``--noise-multiplier``; flags are matched whole, never by a prefix), else the closest spelling
    (``--epsilno`` for ``--epsilon``)."""
    long = sorted(o for o in flags if o.startswith("--"))
    if len(word) > 2 and word.startswith("--"):
        starting = [o for o in long if o.startswith(word)]
        if starting:
            return starting[:3]
    return difflib.get_close_matches(word, long, n=1, cutoff=0.6)


# the flags a command line gave, by destination: {dest: (the flag as typed, its value)}
GIVEN = "given_flags"


class Once(argparse.Action):
    """argparse's store action for a setting given once: a second value for the same destination
    (the same flag again, or a synonym such as --target-epsilon for --epsilon) is refused naming
    both flags, never 'the last one wins'.  The flag as typed is kept (``args.given_flags``) so a
    refusal can name it."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: Any = None,
    ) -> None:
        given = namespace.__dict__.setdefault(GIVEN, {})
        if option_string is not None and self.dest in given and given[self.dest][1] != values:
            first, value = given[self.dest]
            synonym = (
                f" ({option_string} is another spelling of {first})"
                if first != option_string
                else ""
            )
            parser.error(
                f"{first} {value} and {option_string} {values} are two values of one setting{synonym}: give one"
            )
        if option_string is not None:
            given[self.dest] = (option_string, values)
        setattr(namespace, self.dest, values)


def check_domains(args: argparse.Namespace) -> None:
    """Refuse a flag's value outside its domain (``DOMAINS``), naming the flag as typed: run before
    a subcommand imports its numerics, so such a mistake is answered at once."""
    for dest, (flag, value) in getattr(args, GIVEN, {}).items():
        refused = _outside_domain(dest, value)
        if refused is not None:
            raise UsageError(f"{flag} {refused}")
    for item in (
        getattr(args, "param", None) or []
    ):  # -p epsilon=... and -p delta=..., named as written
        name, _, value = item.partition("=")
        refused = (
            _outside_domain(name.strip(), value) if name.strip() in ("epsilon", "delta") else None
        )
        if refused is not None:
            raise UsageError(f"{name.strip()} {refused}")


# The domains a flag's values must lie in whatever the accountant, checked as the command line is
# read (before the numerics are imported): destination -> (the rule, the test of one value).  The
# library checks the same rules (these refusals name its words); a value this light reading cannot
# parse is left to the library.
DOMAINS: dict[str, tuple[str, Any]] = {
    "epsilon": ("must be >= 0", lambda v: v >= 0),
    "delta": ("must lie strictly between 0 and 1", lambda v: 0 < v < 1),
    "fpr": ("must lie in [0, 1]", lambda v: 0 <= v <= 1),
}


def _outside_domain(dest: str, text: Any) -> str | None:
    """The refusal of ``text`` (a number, a list 1,2,4 or a range log:START:STOP:NUM / linear:...)
    for the flag stored at ``dest``, or None when every value lies in its domain or the text is not
    read here."""
    if dest not in DOMAINS or not isinstance(text, (str, float)):
        return None
    rule, inside = DOMAINS[dest]
    if isinstance(text, float):  # a flag read by type=float (demo's)
        words = [f"{text:g}"]
    else:
        kind, _, rest = text.strip().partition(":")
        words = rest.split(":")[:2] if kind in ("log", "linear") and rest else text.split(",")
    try:
        values = [float(w) for w in words]
    except ValueError:
        return None
    for word, value in zip(words, values):
        if value != value:
            return f"must not be NaN, got {word.strip()}"
        if not inside(value):
            return f"{rule}, got {word.strip()}"
    return None


def _take_name(namespace: argparse.Namespace, extras: list[str], dest: str) -> list[str]:
    """``extras`` without its first word that is no flag and no unrecognized flag's value: that word
    is the positional NAME, the first of the names ``dest`` lists (``-a NAME`` adds the others)."""
    for i, word in enumerate(extras):
        follows_flag = i > 0 and extras[i - 1].startswith("-") and "=" not in extras[i - 1]
        if not word.startswith("-") and not follows_flag:
            setattr(namespace, dest, [word, *(getattr(namespace, dest, None) or [])])
            return extras[:i] + extras[i + 1 :]
    return extras


# --- shared options ------------------------------------------------------------------------


# the positional NAME's help; a sweep's positional (a sweep file or NAME) says it in its own words
NAME_HELP = (
    "the accountant, as -a NAME gives it: hockeystick {command} NAME ... is hockeystick {command} -a NAME ...; a "
    "family (dp_ftrl_blt, dp_ftrl_banded, amplified_banded_mf) takes its vector flags (--buffer-decay, "
    "--output-scale, --coefficients)"
)


def accountant_argument(
    parser: argparse.ArgumentParser,
    group: Any,
    command: str,
    *,
    positional: bool = True,
    several: bool = True,
) -> None:
    """The accountant, into ``args.accountant`` (a list of the names given, or None): -a NAME and,
    unless ``positional`` is false, the positional NAME before them (``Parser`` reads it)."""
    if positional:
        if not isinstance(parser, Parser):
            raise TypeError(
                f"the positional NAME needs a {Parser.__name__}, got {type(parser).__name__}"
            )
        parser.name_action = group.add_argument(
            "accountant",
            nargs="?",
            default=None,
            metavar="NAME",
            help=NAME_HELP.format(command=command),
        )
    group.add_argument(
        "-a",
        "--accountant",
        action="append",
        default=None,
        metavar="NAME",
        help=(
            "accountant (repeat or comma-separate for several: best bound per point), or a "
            "calculator (paper 001's leakage); 'hockeystick accountants' lists them with "
            "their parameters"
            if several
            else "a registered accountant, or a family with its vector flags ('hockeystick accountants' lists them)"
        ),
    )


def accountant_options(
    parser: argparse.ArgumentParser, command: str, *, positional: bool = True
) -> None:
    # The help names no accountant: listing them would build the registry (every family, scipy) on
    # each --help; 'hockeystick accountants' lists them, and an unknown name is refused with the
    # list.
    group = parser.add_argument_group("what to evaluate")
    accountant_argument(parser, group, command, positional=positional)
    group.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a parameter: NAME=1.5 (fixed), NAME=1,2,4 (list), NAME=log:0.5:20:100 or "
        "NAME=linear:1:1000:50 (range); repeat for each parameter",
    )
    group.add_argument(
        "--epsilon",
        "--target-epsilon",
        dest="epsilon",
        metavar="VALUE",
        help="epsilon (same VALUE forms as --param)",
    )
    group.add_argument(
        "--delta",
        "--target-delta",
        dest="delta",
        metavar="VALUE",
        help="delta (same VALUE forms as --param)",
    )
    group.add_argument(
        "--bound",
        choices=BOUND_SIDES,
        default=None,
        help="which side of the certified bracket: upper (default; never below the truth), lower "
        "(never above it) or both (columns <output>_lower and <output>_upper); one accountant",
    )
    training_options(parser)
    matrix_options(parser)


def training_options(parser: argparse.ArgumentParser) -> None:
    """A training run's flags (``TRAINING_FLAGS``, --sampling): --dataset-size names DP-SGD,
    --total-clients DP-FedAvg (``training_accountant``)."""
    run = parser.add_argument_group(
        "a training run, in its own words (no -a needed: --dataset-size means DP-SGD, --total-clients DP-FedAvg; "
        "every step released; same VALUE forms as --param)"
    )
    for flag, help_text in TRAINING_FLAGS.items():
        run.add_argument(
            f"--{flag}",
            *TRAINING_FLAG_SYNONYMS.get(flag, ()),
            dest=f"run_{flag.replace('-', '_')}",
            metavar="VALUE",
            help=help_text,
        )
    from ..training.sampling_schemes import sampling_schemes  # the registered schemes

    schemes = [s.cli_help for s in sampling_schemes()]
    run.add_argument(
        "--sampling",
        choices=tuple(s.word for s in sampling_schemes()),
        default=None,
        help="how batches are drawn: "
        + (", ".join(schemes[:-1]) + " or " + schemes[-1] if len(schemes) > 1 else schemes[0]),
    )


def matrix_options(parser: argparse.ArgumentParser) -> None:
    """A matrix mechanism's flags (``MATRIX_FLAGS``), each the parameter of its name with underscores."""
    strategy = parser.add_argument_group(
        "a matrix mechanism, in its own words (dp_ftrl_tree, dp_ftrl_blt, dp_ftrl_banded or amplified_banded_mf; "
        "--buffer-decay, --output-scale and --coefficients are ONE list each, the strategy's, never a grid axis)"
    )
    for flag, help_text in MATRIX_FLAGS.items():
        strategy.add_argument(
            f"--{flag}", dest=f"matrix_{flag.replace('-', '_')}", metavar="VALUE", help=help_text
        )


TRAINING_FLAGS = {
    "noise-multiplier": "noise standard deviation over the clipping norm",
    "dataset-size": "records in the data set (DP-SGD)",
    "batch-size": "records per step (the expected number under Poisson sampling)",
    "sample-rate": "Poisson sampling rate q of each step, instead of --dataset-size and --batch-size (Opacus's "
    "sample_rate; --sampling-probability, dp_accounting's name, is the same flag)",
    "epochs": "passes over the data, ceil(dataset size / batch size) steps each, or 1 / q each with --sample-rate",
    "steps": "optimizer steps (instead of --epochs)",
    "total-clients": "clients in the population (DP-FedAvg)",
    "clients-per-round": "clients per round (expected, under Poisson sampling)",
    "rounds": "rounds (DP-FedAvg; a parameter of other accountants too)",
    "clipped-count-stddev": "adaptive clipping (DP-FedAvg): the noise's standard deviation sigma_b on each round's "
    "count of clients under the clip norm; the run is accounted at (z^-2 + (2 sigma_b)^-2)^(-1/2)",
    "examples-per-user": "user-level privacy (DP-SGD, Poisson sampling): the most examples one user holds, k; each "
    "step is accounted as the binomial mixture sum_j Binom(j; k, q) N(j, z^2) against N(0, z^2)",
    "client-sample-rate": "record_level_fedavg: each client's probability q_c of taking part in a round (Poisson)",
    "local-steps": "record_level_fedavg: the local DP-SGD steps tau a sampled client takes in a round (a parameter "
    "of other accountants too)",
    "local-sample-rate": "record_level_fedavg: each record's probability q_l = b / n of joining a local batch "
    "(default 1: full-batch local steps)",
    "checkin-probability": "random_checkins: a client's probability p of checking in during a pass",
    "slots": "random_checkins: the time slots m of a pass, each check-in to one chosen uniformly",
    "passes": "random_checkins: the passes R (default 1)",
    "clip-norm": "secure aggregation: the L2 clip norm c of each client's update",
    "granularity": "secure aggregation: gamma, the integer grid's step in the update's units",
    "dimension": "secure aggregation: d, the coordinates rounded and noised (after the rotation's padding)",
    "local-sigma": "secure aggregation: each client's noise in the update's units (the discrete Gaussian's sigma, or "
    "the Skellam noise's standard deviation)",
    "min-surviving-clients": "secure aggregation: n, the fewest clients whose noise is in a round's sum (dropout)",
    "trials": "Poisson-binomial mechanism: m, each client's binomial draws per coordinate",
    "theta": "Poisson-binomial mechanism: theta in (0, 1/2), each draw's probability 1/2 + theta x / c",
    "scale": "distributed discrete Laplace: the full noise's scale 1 / a in the update's units (E shares' sum)",
    "expected-clients": "distributed discrete Laplace: E, the clients whose negative-binomial shares make the full "
    "noise",
    "accuracy": "the certified bracket's target width: the grid is refined until upper - lower <= VALUE at each "
    "point (default: the accountant's fixed grid, or its own default target); -p accuracy=VALUE is the same "
    "(a parameter of the other PLD accountants too)",
    "tail": "Poisson sampling only: the mass cut from each step's privacy-loss tails, 1e-300 <= VALUE < 1e-3 (default: "
    "chosen from --delta and the steps; given, the PLD uses it as given)",
}


# a matrix mechanism's words: -p NAME=VALUE with NAME the flag's name with underscores
MATRIX_FLAGS = {
    "min-separation": "b: a client who took part in round t takes no part before round t + b (DP-FTRL); the number "
    "of groups, round i taking from group i mod b (amplified_banded_mf)",
    "max-participations": "k: at most this many rounds per client (DP-FTRL; default as many as b allows)",
    "buffer-decay": "a BLT's buffer decays theta_1,...,theta_d, one list (dp_ftrl_blt; jax_privacy's buf_decay)",
    "output-scale": "a BLT's output scales omega_1,...,omega_d, one list (dp_ftrl_blt)",
    "coefficients": "a banded strategy's first column c_0,...,c_(b-1), one list (dp_ftrl_banded, amplified_banded_mf)",
    "sampling-rate": "Poisson sampling rate q (amplified_banded_mf: each record of the round's group; also the "
    "subsampled Gaussian accountants' sampling_rate)",
}


# other vocabularies' flags for the same training flag (one destination: the run's parameter)
TRAINING_FLAG_SYNONYMS = {"sample-rate": ("--sampling-probability",)}


def training_accountant(args: argparse.Namespace) -> str | None:
    """dp_sgd / dp_fedavg (or their fixed_size variants) when the training flags say which:
    --dataset-size DP-SGD, --total-clients DP-FedAvg; a run given by --sample-rate alone is DP-SGD
    (DP-FedAvg with --clients-per-round or --rounds), unless -a names the accountant."""
    sgd = getattr(args, "run_dataset_size", None) is not None
    fedavg = getattr(args, "run_total_clients", None) is not None
    if sgd and fedavg:
        raise UsageError("give --dataset-size (DP-SGD) or --total-clients (DP-FedAvg), not both")
    if (
        not (sgd or fedavg)
        and getattr(args, "run_sample_rate", None) is not None
        and not args.accountant
    ):
        fedavg = any(
            getattr(args, f"run_{w}", None) is not None for w in ("clients_per_round", "rounds")
        )
        sgd = not fedavg
    if not (sgd or fedavg):
        if getattr(args, "sampling", None) is not None:
            raise UsageError(
                "--sampling goes with --dataset-size (DP-SGD), --total-clients (DP-FedAvg) or --sample-rate"
            )
        return None
    if getattr(args, "run_tail", None) is not None and args.sampling not in (None, "poisson"):
        raise LiteralUsageError(
            f"--tail goes with Poisson sampling (--sampling poisson, the default); --sampling {args.sampling} takes "
            "no tail, its grid only (-p value_discretization_interval=VALUE): drop --tail"
        )
    from ..training.sampling_schemes import DEFAULT_SAMPLING, sampling_scheme

    name = "dp_sgd" if sgd else "dp_fedavg"
    return name + sampling_scheme(args.sampling or DEFAULT_SAMPLING).suffix


def progress_options(group: Any, shown: str = "the progress bar", them: str = "it") -> None:
    """--progress / --no-progress into ``args.progress``: True, False, or None (shown when stderr is a terminal)."""
    group.add_argument(
        "--progress",
        dest="progress",
        action="store_true",
        default=None,
        help=f"always show {shown} (default: when stderr is a terminal)",
    )
    group.add_argument(
        "--no-progress", dest="progress", action="store_false", help=f"never show {them}"
    )


def output_options(parser: argparse.ArgumentParser, *, required_out: bool = False) -> None:
    group = parser.add_argument_group("output")
    group.add_argument(
        "-o",
        "--out",
        "--output",
        metavar="FILE",
        required=False,
        help="write every point to FILE.csv, .npz, .parquet (pyarrow: the [parquet] extra), .nc (NetCDF) or .zarr "
        "(the [xarray] extra), or to stdout with -o -" + (" (required)" if required_out else ""),
    )
    group.add_argument("--plot", metavar="PNG", help="draw the sweep's natural picture to PNG")
    group.add_argument(
        "--chunk-size", type=positive_int, metavar="N", help="points per chunk (default ~1M)"
    )
    progress_options(group)
    group.add_argument(
        "--force",
        action="store_true",
        help="replace an existing -o FILE or --plot PNG (refused otherwise)",
    )
    group.add_argument(
        "--resume",
        action="store_true",
        help="continue a killed or failed sweep to the same -o FILE from its finished chunks "
        "(kept in the hidden .FILE.parts directory beside it; same grid and chunk size only)",
    )
    group.add_argument(
        "--allow-large",
        action="store_true",
        help="run even a sweep of 10^9 points or more, above the free disk space or above 12 hours "
        "estimated (the size and time estimate are printed before it starts)",
    )


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def parameters(args: argparse.Namespace) -> dict[str, str]:
    """The NAME=VALUE parameters and the flags that give them, but the vector options of a family -a
    names (``accountant_names`` binds those into the accountant's name: a list there is one vector,
    not an axis)."""
    params = _given(args)
    vectors = set().union(*(entry.vectors for entry in _families(args)))
    return {k: v for k, v in params.items() if k not in vectors}


def _given(args: argparse.Namespace) -> dict[str, str]:
    params: dict[str, str] = {}
    for item in args.param:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise UsageError(
                f"--param {item!r}: write NAME=VALUE, e.g. -p sigma=2 or -p rounds=1,10,100"
            )
        add_once(params, name.strip(), value.strip(), f"-p {name.strip()}=...")
    for name in ("epsilon", "delta"):
        if getattr(args, name, None) is not None:
            add_once(params, name, getattr(args, name), f"--{name}")
    for flag in TRAINING_FLAGS:
        value = getattr(args, f"run_{flag.replace('-', '_')}", None)
        if value is not None:
            add_once(params, flag.replace("-", "_"), value, f"--{flag}")
    for flag in MATRIX_FLAGS:
        value = getattr(args, f"matrix_{flag.replace('-', '_')}", None)
        if value is not None:
            add_once(params, flag.replace("-", "_"), value, f"--{flag}")
    return params


def _named(args: argparse.Namespace) -> list[str]:
    """The names -a gives: repeated or comma-separated (a configured name's own commas, inside its
    brackets, stay: dp_ftrl_banded[coefficients=1,0.5])."""
    given = args.accountant or []
    items = [given] if isinstance(given, str) else given
    return [n.strip() for item in items for n in re.split(r",(?![^\[\]]*\])", item) if n.strip()]


def _families(args: argparse.Namespace) -> list[Any]:
    """The registered families (entries with vector options) among the names -a gives."""
    names = _named(args)
    if not names:
        return []
    from ..registry import REGISTRY  # lazy: start-up time

    return [REGISTRY[n] for n in names if n in REGISTRY and REGISTRY[n].vectors]


def add_once(params: dict[str, str], name: str, value: str, flag: str) -> None:
    """A parameter given twice is a mistake, not 'the last one wins'."""
    if name in params:
        raise UsageError(
            f"parameter {name!r} is given twice ({params[name]} and {value}); give it once "
            f"({flag}), with a list 1,2,4 or a range log:START:STOP:NUM for several values"
        )
    params[name] = value


def one_point(
    args: argparse.Namespace, what: str, own: Sequence[str] = ()
) -> tuple[Any, dict[str, float | int]]:
    """The one accountant -a names and its parameters at one point, for a subcommand that evaluates
    a single run (``what`` completes its refusals: "risk evaluates one mechanism"); ``own`` lists
    the subcommand's own settings that ``parameters`` also collects (audit's --delta), left out of
    the accountant's."""
    from ..registry import get  # lazy: start-up time

    names = accountant_names(args)
    if len(names) != 1:
        raise UsageError(f"{what}: give one accountant, got {', '.join(names)}")
    entry = get(names[0])
    given = {k: v for k, v in parameters(args).items() if k not in own}
    unknown = sorted(set(given) - set(entry.parameters))
    if unknown:
        raise UsageError(
            f"unknown parameter(s) {', '.join(written(args, n) for n in unknown)} for {entry.name}; allowed: "
            f"{', '.join(sorted(entry.parameters))}"
        )
    values: dict[str, float | int] = {}
    for name, text in given.items():
        try:
            number = float(text)
        except ValueError:
            raise UsageError(
                f"{written(args, name, text)}: give one number per parameter ({what})"
            ) from None
        values[name] = int(number) if name in entry.integers and number.is_integer() else number
    return entry, values


def accountant_names(args: argparse.Namespace, default: Sequence[str] | None = None) -> list[str]:
    """The accountants the command line names: the training run the training flags describe, else
    the names -a gives (a family's vectors bound from -p or its flags, a configured name spelled the
    one way), else ``default``; an unknown name is refused with the closest."""
    names = _named(args)
    training = training_accountant(args)
    _check_known(names, training)
    if training is not None:
        _check_training_names(args, names, training)
        return [training]
    if not names:
        return _default_names(default)
    families = {entry.name: entry for entry in _families(args)}
    if not families and not any("[" in n for n in names):
        return names
    return _configured(args, names, families)


def _check_training_names(args: argparse.Namespace, names: list[str], training: str) -> None:
    """-a (or the NAME) beside the training flags names the accountant they describe, or nothing."""
    if names and names != [training]:
        flags = [
            f"--{flag}"
            for flag in TRAINING_FLAGS
            if getattr(args, f"run_{flag.replace('-', '_')}", None) is not None
        ]
        raise UsageError(
            f"the training flags ({' '.join(flags)}) describe accountant {training!r}; drop -a "
            f"{','.join(names)} (or the NAME after the subcommand), or the training flags"
        )


def _default_names(default: Sequence[str] | None) -> list[str]:
    """``default`` when no accountant is named; without one, a refusal listing the registered accountants."""
    if default:
        return list(default)
    from ..sweep import registry  # lazy: start-up time

    raise UsageError(
        f"say which accountant with -a NAME (or NAME after the subcommand); registered: {', '.join(registry.names())}"
    )


def _configured(args: argparse.Namespace, names: list[str], families: dict[str, Any]) -> list[str]:
    """The names with a bare family's vectors bound from -p or the flags, a configured name spelled the one way."""
    from ..registry import configure, get  # lazy: start-up time

    given = _given(args)
    return [
        configure(n, **{k: given[k] for k in families[n].vectors if k in given})
        if n in families
        else get(n).name
        if "[" in n
        else n
        for n in names
    ]


def _check_known(names: list[str], training: str | None) -> None:
    """Refuse a name no accountant, family or calculator has, with the closest registered name (the
    full list is long: 'hockeystick accountants' prints it with each one's parameters)."""
    from ..registry import CALCULATORS, REGISTRY  # lazy: start-up time

    for name in names:
        base = name.split("[", 1)[0].strip()
        if (
            base in REGISTRY or base in CALCULATORS
        ):  # imports the module registering it, and no other
            continue
        known = sorted(
            {*REGISTRY, *CALCULATORS}
        )  # listing them imports every module of the catalogue
        close = difflib.get_close_matches(base, [training] if training else known, n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        if training is not None:
            hint += f"; the training flags describe {training!r} without it: the name can go"
        raise UsageError(
            f"unknown accountant {name!r}{hint}; -a NAME (or the NAME after the subcommand) takes one of the "
            f"{len(known)} registered: 'hockeystick accountants' lists them with their parameters"
        )


def written(args: argparse.Namespace, name: str, value: str | None = None) -> str:
    """Parameter ``name`` as the command line gave it: its training or matrix flag (``--steps``,
    with ``value``: ``--steps 4``), else -p (``'steps'``, with ``value``: ``-p steps=4``)."""
    flag = any(getattr(args, f"{kind}_{name}", None) is not None for kind in ("matrix", "run"))
    if value is None:
        return f"--{name.replace('_', '-')}" if flag else repr(name)
    return f"--{name.replace('_', '-')} {value}" if flag else f"-p {name}={value}"
