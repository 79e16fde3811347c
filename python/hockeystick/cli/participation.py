"""--participation: DP-FTRL at one point under a random participation scheme, each number labelled.

``hockeystick delta|epsilon dp_ftrl_banded --coefficients ... --rounds ... --noise-multiplier ...
--participation balls_in_bins --min-separation b --epsilon 1`` prints ``matrix.labelled_reading``:
the certified lower side, the certified upper side with what it is (amplified, or unamplified: no
amplification claimed) and, with --monte-carlo-draws, a Monte Carlo estimate labelled "not
certified".  ``hockeystick calibrate`` with --participation finds the smallest noise multiplier
whose certified upper epsilon is within the target.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from typing import Any

from ..base.outward_text import outward_text
from .column_sides import column_side
from .common import UsageError, one_point, parameters

__all__ = [
    "PARTICIPATION_CHOICES",
    "participation_calibrate",
    "participation_options",
    "participation_reading",
]

PARTICIPATION_CHOICES = ("balls_in_bins", "random_allocation", "b_min_sep", "cyclic_poisson")

_BISECTION_STEPS = (
    30  # the bracket [z / 2, z] halved in log scale: a ratio of 2^(2^-30), 1 + 6.5e-10, left
)


def participation_options(parser: argparse.ArgumentParser) -> None:
    """--participation and the Monte Carlo's settings (the scheme's b, k and p/q are
    --min-separation, --max-participations and --sampling-rate)."""
    group = parser.add_argument_group(
        "DP-FTRL with records taking part by a random scheme (one point; each side labelled certified or estimated)"
    )
    group.add_argument(
        "--participation",
        choices=PARTICIPATION_CHOICES,
        default=None,
        help="balls_in_bins (one uniform bin of --min-separation b), random_allocation (--max-participations k "
        "uniform rounds), b_min_sep (rounds at least b apart, each available record taken with probability "
        "--sampling-rate), cyclic_poisson (b groups, --sampling-rate q); dp_ftrl_* accountants only",
    )
    group.add_argument(
        "--monte-carlo-draws",
        type=int,
        default=0,
        metavar="N",
        help="delta with balls_in_bins and a non-negative square C: a Monte Carlo estimate from N draws per "
        "direction beside the certified sides (not certified; default 0: none)",
    )
    group.add_argument(
        "--beta",
        type=float,
        default=1e-3,
        metavar="P",
        help="with --monte-carlo-draws: the Monte Carlo bound's failure probability (1e-3)",
    )
    group.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="N",
        help="with --monte-carlo-draws: the draws' seed",
    )


def _run(
    args: argparse.Namespace, what: str, drop: tuple[str, ...]
) -> tuple[Callable[..., Any], dict[str, Any]]:
    """(build, values): DPFTRL of the one dp_ftrl_* accountant named, at its parameters but ``drop``."""
    entry, values = one_point(
        args, what, own=(*drop, "sampling_rate")
    )  # a hidden grid parameter: read here
    rate = parameters(args).get("sampling_rate")
    needed = {"b_min_sep": "--sampling-rate p", "cyclic_poisson": "--sampling-rate q"}.get(
        args.participation
    )
    if (rate is None) != (needed is None):
        raise UsageError(
            f"--participation {args.participation} needs {needed}"
            if needed
            else f"--participation "
            f"{args.participation} takes no --sampling-rate (it draws a uniform bin or k uniform rounds): drop it"
        )
    if args.participation == "random_allocation" and "max_participations" not in values:
        raise UsageError(
            "--participation random_allocation needs --max-participations k (each record's rounds)"
        )
    if rate is not None:
        values["sampling_rate"] = _number(rate, "--sampling-rate")
    if not entry.name.startswith("dp_ftrl_"):
        raise UsageError(
            f"--participation goes with the DP-FTRL accountants (dp_ftrl_tree, dp_ftrl_tree_restart, dp_ftrl_blt, "
            f"dp_ftrl_banded), got {entry.name}"
        )
    if args.monte_carlo_draws < 0:
        raise UsageError(
            f"--monte-carlo-draws must be a whole number >= 0, got {args.monte_carlo_draws}"
        )

    def build(**point: Any) -> Any:
        return entry.factory(**{**values, **point}, participation=args.participation)

    return build, values


def _number(text: Any, flag: str) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        raise UsageError(
            f"{flag} must be one number with --participation (one point), got {text!r}"
        ) from None


def _target(args: argparse.Namespace, name: str) -> float:
    return _number(getattr(args, name, None), f"--{name}")


def _print(reading: Any, args: argparse.Namespace, extra: dict[str, float] | None = None) -> None:
    if getattr(args, "format", None) == "json":
        rows = [{"label": label, "value": value} for label, value in reading.rows()]
        print(json.dumps({**(extra or {}), "participation": reading.participation, "rows": rows}))
        return
    for name, value in (extra or {}).items():
        print(f"{name}: {outward_text(value, column_side(name), 10)}")
    print(reading.statement())


def participation_reading(args: argparse.Namespace, output: str) -> int:
    """delta (or epsilon) at the one point the flags give, under ``args.participation``, each side labelled."""
    other = "epsilon" if output == "delta" else "delta"
    build, _ = _run(args, f"--participation evaluates one point of {output}", ("epsilon", "delta"))
    if getattr(args, output, None) is not None:
        raise UsageError(f"hockeystick {output} computes {output}: give --{other}, not --{output}")
    at = _target(args, other)
    from ..matrix import labelled_reading  # lazy: start-up time

    run = build()
    reading = labelled_reading(
        run, **{other: at}, monte_carlo_draws=args.monte_carlo_draws, beta=args.beta, seed=args.seed
    )
    _print(reading, args)
    return 0


def participation_calibrate(args: argparse.Namespace) -> int:
    """The smallest noise multiplier (to a relative 1e-9) whose certified upper epsilon at --delta
    is at most --epsilon under ``args.participation``, and the labelled reading there.

    The certified upper side falls as the noise multiplier grows (the worst pattern's Gaussian, mu =
    sens / z; the amplified side's dominating pair likewise), so a bisection in log scale between a
    multiplier that meets the target and one that does not returns one that meets it, evaluated.
    """
    if args.parameter not in (None, "noise_multiplier", "noise-multiplier", "--noise-multiplier"):
        raise UsageError(
            "calibrate with --participation solves for the noise multiplier: drop --parameter"
        )
    build, values = _run(
        args, "calibrate with --participation solves one point", ("epsilon", "delta")
    )
    if "noise_multiplier" in values:
        raise UsageError(
            "calibrate with --participation solves for the noise multiplier: drop --noise-multiplier"
        )
    epsilon, delta = _target(args, "epsilon"), _target(args, "delta")

    def meets(z: float) -> bool:
        return bool(float(build(noise_multiplier=z).epsilon(delta)) <= epsilon)

    high = 1.0
    while not meets(high):
        high *= 2.0
        if high > 1e150:
            raise UsageError(
                f"no noise multiplier up to 1e150 meets --epsilon {epsilon:g} at --delta {delta:g}"
            )
    low = high / 2.0
    while meets(low):
        high, low = low, low / 2.0
        if low < 1e-150:
            raise UsageError(
                "the target is met at every noise multiplier down to 1e-150: check --epsilon"
            )
    for _ in range(_BISECTION_STEPS):
        mid = math.sqrt(low * high)
        if meets(mid):
            high = mid
        else:
            low = mid
    from ..matrix import labelled_reading  # lazy: start-up time

    reading = labelled_reading(build(noise_multiplier=high), delta=delta)
    _print(reading, args, {"noise_multiplier": high})
    return 0
