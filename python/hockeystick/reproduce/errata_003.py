"""Paper 003's calibrations against certified accounting: the tables of docs/paper-003-errata.md, section 3.

``theory_rows()``: for each (n, R, eps0), Theorem 2.1's K and sigma, the certified epsilon bracket
the silo spends at that sigma, the sigma certified accounting needs for eps0 at the same K, and
their ratio.  ``experiment_rows()``: App. I's (K, sigma) per stated epsilon and the certified
bracket on what it spends.  ``sigma_curves()``: prescribed and needed sigma over a range of eps0
(the picture ``hockeystick figures`` draws).  ``utility_rows()``: the shape of the paper's Figs. 4-9
(test error against eps) from the simulator on scikit-learn's bundled breast-cancer data split over
8 silos, at Theorem 2.1's sigma and at the certified sigma for the same (eps0, delta0) and K: the
same privacy for less noise.  delta0 = 1/n^2 as in the paper's experiments; the
PLD grid is 1e-3, whose brackets are certified (upper bounds never below the truth).

Each of these reports a row (a point of a curve) done through ``hockeystick.base.progress`` as it
finishes it; ``write_tables_and_figure`` runs each table and curve as a ``progress.stage``: a bar
per table on stderr under ``progress.showing(True)`` (``hockeystick figures --progress``).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from contextlib import AbstractContextManager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, cast

import numpy as np

from ..base import progress
from ..calibrate import calibrate
from ..isrl import (
    GroupNoisyMBSGD,
    NoisyMBSGD,
    ShuffledNoisyMBSGD,
    appendix_i_batch_size,
    appendix_i_sigma,
    theorem_2_1_batch_size,
    theorem_2_1_sigma,
    theorem_d5_round,
    user_level_group_privacy,
)
from ..plots import parameter_curves

__all__ = [
    "THEORY",
    "EXPERIMENTS",
    "SHUFFLE",
    "theory_rows",
    "experiment_rows",
    "sigma_curves",
    "markdown",
    "shuffle_rows",
    "shuffle_markdown",
    "GROUPS",
    "group_rows",
    "group_markdown",
    "utility_rows",
    "write_tables_and_figure",
]

INTERVAL = 1e-3
THEORY = ((1238, 35, 1.0), (1238, 100, 1.0), (1238, 100, 3.0), (10000, 1000, 1.0))  # (n, R, eps0)
EXPERIMENTS = tuple((1238, 35, e) for e in (0.75, 1.5, 3.0, 6.0, 12.0, 18.0)) + tuple(
    (357, 35, e) for e in (0.5, 1.0, 2.0, 3.0)
)  # App. I (n, R, eps)
# shuffled rounds (Thm D.5): (N silos, n records each, K, sigma / L); delta0 = 1e-12, delta = 1e-6
SHUFFLE = ((100_000, 1, 1, 5.0), (10_000, 1, 1, 10.0), (100_000, 10, 1, 5.0), (25, 1238, 91, 1.0))
SHUFFLE_DELTA0, SHUFFLE_DELTA = 1e-12, 1e-6
# a user holding k of a silo's n = 1000 records, K = 64, R = 35, sigma = L, delta0 = 1/n^2
GROUPS = (1, 2, 5, 10, 25, 100, 1000)


# the calibrations of one ``write_tables_and_figure`` call, by their arguments: Thm 2.1's row (1238, 35, 1)
# and the sigma curve at eps0 = 1 ask for the same one (None outside such a call: nothing is kept)
_calibrations: ContextVar[dict[tuple[int, int, int, float, float, float], float] | None] = (
    ContextVar("_calibrations", default=None)
)


def _needed_sigma(n: int, rounds: int, k: int, eps0: float, delta0: float, start: float) -> float:
    """The smallest sigma whose certified epsilon at delta0 is eps0 (L = 1, K = k), searched from ``start``;
    computed once per ``write_tables_and_figure`` call for the same arguments."""
    kept = _calibrations.get()
    key = (n, rounds, k, eps0, delta0, start)
    if kept is not None and key in kept:
        return kept[key]
    sigma = float(
        calibrate(
            "isrl_noisy_mb_sgd",
            "sigma",
            epsilon=eps0,
            delta=delta0,
            lipschitz=1.0,
            batch_size=k,
            silo_size=n,
            rounds=rounds,
            value_discretization_interval=INTERVAL,
            start=start,
            rtol=1e-4,
        )
    )
    if kept is not None:
        kept[key] = sigma
    return sigma


def _epsilon_bracket(
    sigma: float, k: int, n: int, rounds: int, delta: float
) -> tuple[float, float]:
    """The certified epsilon bracket at delta of one silo's Noisy MB-SGD (L = 1) on the tables' grid."""
    return cast(
        tuple[float, float],
        NoisyMBSGD(
            sigma=sigma,
            lipschitz=1.0,
            batch_size=k,
            silo_size=n,
            rounds=rounds,
            value_discretization_interval=INTERVAL,
        ).epsilon(delta, bound="both"),
    )


def theory_rows(rows: tuple[tuple[int, int, float], ...] = THEORY) -> list[dict[str, Any]]:
    """Theorem 2.1 (L = 1): prescribed sigma, certified eps at it, needed sigma, ratio."""
    out = []
    with progress.counted() as done:
        for n, rounds, eps0 in rows:
            delta0 = 1.0 / n**2
            k = int(theorem_2_1_batch_size(rounds=rounds, silo_size=n, epsilon=eps0, delta=delta0))
            paper = float(
                theorem_2_1_sigma(
                    lipschitz=1.0, rounds=rounds, silo_size=n, epsilon=eps0, delta=delta0
                )
            )
            lower, upper = _epsilon_bracket(paper, k, n, rounds, delta0)
            needed = _needed_sigma(n, rounds, k, eps0, delta0, paper / 5)
            out.append(
                dict(
                    n=n,
                    R=rounds,
                    eps0=eps0,
                    K=k,
                    sigma_paper=paper,
                    eps_lower=lower,
                    eps_upper=upper,
                    sigma_needed=needed,
                    ratio=paper / needed,
                )
            )
            done(1)
    return out


def experiment_rows(rows: tuple[tuple[int, int, float], ...] = EXPERIMENTS) -> list[dict[str, Any]]:
    """App. I (L = 1): the experiments' K and sigma, and the certified bracket on what they spend."""
    out = []
    with progress.counted() as done:
        for n, rounds, eps in rows:
            delta = 1.0 / n**2
            k = int(appendix_i_batch_size(rounds=rounds, silo_size=n, epsilon=eps))
            sigma = float(
                appendix_i_sigma(
                    lipschitz=1.0, rounds=rounds, silo_size=n, epsilon=eps, delta=delta
                )
            )
            lower, upper = _epsilon_bracket(sigma, k, n, rounds, delta)
            out.append(
                dict(
                    n=n,
                    R=rounds,
                    eps=eps,
                    K=k,
                    sigma_paper=sigma,
                    eps_lower=lower,
                    eps_upper=upper,
                    violated=bool(lower > eps),
                )
            )
            done(1)
    return out


SIGMA_CURVE_EPSILONS = (0.25, 0.5, 1.0, 2.0, 4.0)
UTILITY_EPSILONS = (0.75, 1.5, 3.0, 6.0)


def sigma_curves(
    n: int = 1238, rounds: int = 35, epsilons: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """sigma over eps0 (L = 1, Theorem 2.1's K at each eps0): Theorem 2.1's prescription and the
    smallest sigma certified accounting accepts."""
    delta0 = 1.0 / n**2
    paper, needed = [], []
    epsilons = np.asarray(SIGMA_CURVE_EPSILONS if epsilons is None else epsilons, dtype=np.float64)
    with progress.counted() as done:
        for eps0 in epsilons:
            k = int(theorem_2_1_batch_size(rounds=rounds, silo_size=n, epsilon=eps0, delta=delta0))
            paper.append(
                float(
                    theorem_2_1_sigma(
                        lipschitz=1.0, rounds=rounds, silo_size=n, epsilon=eps0, delta=delta0
                    )
                )
            )
            needed.append(_needed_sigma(n, rounds, k, float(eps0), delta0, paper[-1] / 5))
            done(1)
    return {
        "epsilon": np.asarray(epsilons, float),
        "Theorem 2.1 (paper)": np.array(paper),
        "certified PLD (hockeystick)": np.array(needed),
    }


def utility_rows(
    epsilons: tuple[float, ...] = UTILITY_EPSILONS,
    *,
    silos: int = 8,
    rounds: int = 35,
    rate: float = 0.5,
    seeds: int = 3,
) -> list[dict[str, Any]]:
    """Test error of ISRL-DP Noisy MB-SGD (averaged iterate, clip L = 1) at Theorem 2.1's sigma and
    at the certified sigma, per eps0 (delta0 = 1/n^2, n the smallest silo, K of Theorem 2.1), mean
    over seeds."""
    from .. import (
        simulate,
    )  # lazy: hockeystick.simulate imports numba, which the tables do not need

    train, test = simulate.bundled("breast_cancer", silos, seed=0)
    n = int(np.min(np.diff(train.offsets)))
    delta0 = 1.0 / n**2
    out = []
    with progress.counted() as done:
        for eps0 in epsilons:
            k = int(theorem_2_1_batch_size(rounds=rounds, silo_size=n, epsilon=eps0, delta=delta0))
            paper = float(
                theorem_2_1_sigma(
                    lipschitz=1.0, rounds=rounds, silo_size=n, epsilon=eps0, delta=delta0
                )
            )
            needed = _needed_sigma(n, rounds, k, eps0, delta0, paper / 5)
            errors = {}
            for label, sigma in (("paper", paper), ("certified", needed)):
                runs = [
                    simulate.isrl_minibatch_sgd(
                        train,
                        rounds=rounds,
                        batch=k,
                        rate=rate,
                        sigma=sigma,
                        clip=1.0,
                        seed=seed,
                        test=test,
                        output="average",
                        threads=1,
                    )
                    for seed in range(seeds)
                ]
                errors[label] = 1.0 - float(
                    np.mean(
                        [run.test_accuracy[-1] for run in runs if run.test_accuracy is not None]
                    )
                )
            out.append(
                dict(
                    eps0=eps0,
                    n=n,
                    K=k,
                    sigma_paper=paper,
                    sigma_needed=needed,
                    test_error_paper=errors["paper"],
                    test_error_certified=errors["certified"],
                )
            )
            done(1)
    return out


def shuffle_rows(rows: tuple[tuple[int, int, int, float], ...] = SHUFFLE) -> list[dict[str, Any]]:
    """One shuffled round of Noisy MB-SGD (L = 1): the silo's certified record-level eps0 at delta0,
    Theorem D.5's (eps_r, delta~_r) from it (None where its condition on eps0 fails), and the
    certified epsilon of the same round at delta~_r, shuffled (``ShuffledNoisyMBSGD``) and
    unshuffled (the silo's own)."""
    out = []
    with progress.counted() as done:
        for silos, n, k, sigma in rows:
            kw = dict(
                sigma=sigma,
                lipschitz=1.0,
                batch_size=k,
                silo_size=n,
                rounds=1,
                value_discretization_interval=INTERVAL,
            )
            unshuffled = NoisyMBSGD(**kw)
            eps0 = cast(float, unshuffled.epsilon(SHUFFLE_DELTA0))
            try:
                paper_eps, paper_delta = (
                    float(v)
                    for v in theorem_d5_round(
                        epsilon0=eps0,
                        delta0=SHUFFLE_DELTA0,
                        silo_size=n,
                        silos=silos,
                        delta=SHUFFLE_DELTA,
                    )
                )
            except ValueError:
                paper_eps, paper_delta = None, SHUFFLE_DELTA + 2 * silos * n * SHUFFLE_DELTA0
            target = min(paper_delta, 0.5)
            out.append(
                dict(
                    silos=silos,
                    n=n,
                    K=k,
                    sigma=sigma,
                    eps0=eps0,
                    paper_eps=paper_eps,
                    delta=target,
                    shuffled_eps=float(ShuffledNoisyMBSGD(silos=silos, **kw).epsilon(target)),
                    unshuffled_eps=cast(float, unshuffled.epsilon(target)),
                )
            )
            done(1)
    return out


def shuffle_markdown(rows: list[dict[str, Any]]) -> str:
    """The shuffled-round table of docs/paper-003-errata.md, section 5."""
    lines = [
        "| N silos | n | K | sigma/L | eps0 at delta0 = 1e-12 | delta~_r | Thm D.5 eq. (21) eps_r "
        "| certified eps_r, shuffled | unshuffled |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['silos']} | {r['n']} | {r['K']} | {r['sigma']:g} | {r['eps0']:.4g} | {r['delta']:.3g} | "
        + ("condition fails" if r["paper_eps"] is None else f"{r['paper_eps']:.4g}")
        + f" | {r['shuffled_eps']:.4g} | {r['unshuffled_eps']:.4g} |"
        for r in rows
    ]
    return "\n".join(lines) + "\n"


def group_rows(
    groups: tuple[int, ...] = GROUPS,
    *,
    n: int = 1000,
    k: int = 64,
    rounds: int = 35,
    sigma: float = 1.0,
) -> list[dict[str, Any]]:
    """User-level privacy of a user holding ``group`` records (L = 1): App. C.2's group privacy
    applied to the silo's certified (eps0, delta0 = 1/n^2), against the certified bracket of
    GroupNoisyMBSGD at its delta."""
    delta0 = 1.0 / n**2
    base = dict(
        sigma=sigma,
        lipschitz=1.0,
        batch_size=k,
        silo_size=n,
        rounds=rounds,
        value_discretization_interval=INTERVAL,
    )
    out = []
    with progress.counted() as done:  # the silo's eps0 too: its accountant's reports are no row
        eps0 = cast(float, NoisyMBSGD(**base).epsilon(delta0))
        for group in groups:
            group_eps, group_delta = (
                float(v)
                for v in user_level_group_privacy(epsilon=eps0, delta=delta0, silo_size=group)
            )
            at = (
                group_delta if group_delta < 1 else delta0
            )  # group privacy void: the certified bracket at delta0
            lower, upper = cast(
                tuple[float, float],
                GroupNoisyMBSGD(group_size=group, **base).epsilon(at, bound="both"),
            )
            out.append(
                dict(
                    group=group,
                    n=n,
                    K=k,
                    R=rounds,
                    sigma=sigma,
                    group_eps=group_eps,
                    group_delta=group_delta,
                    at=at,
                    eps_lower=lower,
                    eps_upper=upper,
                )
            )
            done(1)
    return out


def group_markdown(rows: list[dict[str, Any]]) -> str:
    """The user-level table of docs/paper-003-errata.md, section 6."""
    lines = [
        "| k records | group privacy (k eps0, k e^{(k-1) eps0} delta0) | certified eps at delta | delta |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {r['group']} | ({r['group_eps']:.4g}, {r['group_delta']:.3g})"
        + (" void" if r["group_delta"] >= 1 else "")
        + f" | [{r['eps_lower']:.4g}, {r['eps_upper']:.4g}] | {r['at']:.3g} |"
        for r in rows
    ]
    return "\n".join(lines) + "\n"


def markdown(theory: list[dict[str, Any]], experiments: list[dict[str, Any]]) -> str:
    """Both tables as Markdown, as in docs/paper-003-errata.md section 3."""
    lines = [
        "| n | R | eps0 | K | sigma/L (paper) | certified eps at that sigma | sigma/L with certified eps = eps0 "
        "| ratio |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['n']} | {r['R']} | {r['eps0']:g} | {r['K']} | {r['sigma_paper']:.4g} | "
        f"[{r['eps_lower']:.4g}, {r['eps_upper']:.4g}] | {r['sigma_needed']:.4g} | {r['ratio']:.3g} |"
        for r in theory
    ]
    lines += [
        "",
        "| silo size n, R (App. I) | stated eps | K | certified eps |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {r['n']}, {r['R']} | {r['eps']:g} | {r['K']} | "
        + (
            f"**[{r['eps_lower']:.4g}, {r['eps_upper']:.4g}]**"
            if r["violated"]
            else f"[{r['eps_lower']:.4g}, {r['eps_upper']:.4g}]"
        )
        + " |"
        for r in experiments
    ]
    return "\n".join(lines) + "\n"


def _stage(name: str, total: int, unit: str) -> AbstractContextManager[None]:
    """A table's or curve's ``progress.stage``, its name padded so that the bars line up."""
    return progress.stage(f"paper 003 {name:<14}", total, unit)


def write_tables_and_figure(
    out_dir: str | Path, *, written: Callable[[Path], None] | None = None
) -> list[Path]:
    """Write ``paper-003-calibration.md`` (the calibration tables and the shuffled round's),
    ``paper-003-sigma.png`` (sigma prescribed vs needed over eps0) and, when the simulator's extra
    is installed (numba, scikit-learn), ``paper-003-utility.png`` (test error at each) into
    ``out_dir``; return their paths. ``written``: called with each path as soon as that file is
    written (a command lists them as they come). Each table and curve is a ``progress.stage``
    counting its rows (its points): under ``progress.showing(True)`` a bar per table on stderr, else
    reports to the caller's listener."""
    token = _calibrations.set({})
    try:
        return _write_tables_and_figure(out_dir, written)
    finally:
        _calibrations.reset(token)


def _write_tables_and_figure(
    out_dir: str | Path, written: Callable[[Path], None] | None
) -> list[Path]:
    report = written if written is not None else (lambda path: None)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    table = out / "paper-003-calibration.md"
    with _stage("Thm 2.1 table", len(THEORY), "row"):
        theory = theory_rows()
    with _stage("App. I table", len(EXPERIMENTS), "row"):
        experiments = experiment_rows()
    with _stage("shuffle table", len(SHUFFLE), "row"):
        shuffled = shuffle_rows()
    with _stage("group table", len(GROUPS), "row"):
        groups = group_rows()
    table.write_text(
        "# Paper 003: prescribed noise against certified accounting (L = 1, delta0 = 1/n^2)\n\n"
        + markdown(theory, experiments)
        + "\n## One shuffled round (Thm D.5), L = 1, delta = 1e-6\n\n"
        + shuffle_markdown(shuffled)
        + "\n## A user holding k of n = 1000 records (App. C.2), K = 64, R = 35, sigma = L\n\n"
        + group_markdown(groups)
    )
    report(table)
    with _stage("sigma figure", len(SIGMA_CURVE_EPSILONS), "eps0"):
        curves = sigma_curves()
    eps = curves.pop("epsilon")
    figure = Path(
        parameter_curves(
            eps,
            curves,
            out / "paper-003-sigma.png",
            xlabel="eps0 (delta0 = 1/n^2)",
            ylabel="sigma / L",
            title="003 Noisy MB-SGD, n = 1238, R = 35, K of Thm 2.1",
        )
    )
    report(figure)
    if importlib.util.find_spec("numba") is None or importlib.util.find_spec("sklearn") is None:
        return [
            table,
            figure,
        ]  # the simulator's figure needs the simulate extra: pip install 'hockeystick[simulate]'
    with _stage("utility figure", len(UTILITY_EPSILONS), "eps0"):
        rows = utility_rows()
    utility = Path(
        parameter_curves(
            [r["eps0"] for r in rows],
            {
                "Theorem 2.1's sigma": [r["test_error_paper"] for r in rows],
                "certified sigma (same eps0, delta0, K)": [r["test_error_certified"] for r in rows],
            },
            out / "paper-003-utility.png",
            xlabel="eps0 (delta0 = 1/n^2)",
            ylabel="test error",
            title=f"003 Figs. 4-9 shape: ISRL-DP MB-SGD, breast cancer, 8 silos of n = {rows[0]['n']}, R = 35",
        )
    )
    report(utility)
    return [table, figure, utility]
