"""The registered mechanism accountants: the Gaussian mechanism, the contraction bounds of papers
000 and 002, f-DP's Gaussian DP and noisy FedAvg / FedProx (paper 004), the per-round schedules, RDP
and the PLD families."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, cast

import numpy as np

from ... import contraction, fdp, pld, rdp
from ...fdp.gaussian_mechanism import GaussianMechanism
from ..entries import AccountantEntry, Calibratable
from ..per_point import PerPoint
from ..store import register
from .calibratables import ROUNDS, SIGMA


def _rounds_per_pass(params: Mapping[str, np.ndarray]) -> np.ndarray:
    """000 Algorithm 1 samples without replacement: at most floor(n / batch_size) rounds."""
    return cast(
        np.ndarray,
        np.floor(np.asarray(params["n"], float) / np.asarray(params["batch_size"], float)),
    )


_ONE_PASS_ROUNDS = Calibratable("increasing", 1.0, _rounds_per_pass, integer=True)
_FL = frozenset({"n", "batch_size", "rounds"})

register(
    AccountantEntry(
        name="gaussian",
        factory=GaussianMechanism,
        summary="Gaussian mechanism composed over rounds, exact: mu = sqrt(rounds) sensitivity / sigma (004 eq. 8)",
        integers=frozenset({"rounds"}),
        calibratable={"sigma": SIGMA, "rounds": ROUNDS},
    )
)

for _name, _cls, _summary, _rounds in (
    (
        "trusted_aggregator",
        contraction.TrustedAggregator,
        "FL with a trusted aggregator, last model only, convex (000 Thm 2)",
        True,
    ),
    (
        "trusted_aggregator_nonconvex",
        contraction.NonconvexTrustedAggregator,
        "000 Thm 2 without convexity: diameter 2(rho + eta L)",
        True,
    ),
    (
        "trusted_aggregator_strongly_convex",
        contraction.StronglyConvexTrustedAggregator,
        "000 Thm 2, strongly convex: diameter 2 rho M",
        True,
    ),
    (
        "trusted_aggregator_random_stop",
        contraction.RandomStopTrustedAggregator,
        "000 Corollary 3: stopped at a uniformly random round",
        False,
    ),
):
    register(
        AccountantEntry(
            name=_name,
            factory=_cls,
            summary=_summary,
            integers=_FL,
            calibratable={"sigma": SIGMA, **({"rounds": _ONE_PASS_ROUNDS} if _rounds else {})},
        )
    )

register(
    AccountantEntry(
        name="pnsgd_gaussian",
        factory=contraction.PNSGDGaussian,
        integers=frozenset({"n", "index"}),
        summary="projected noisy SGD, Gaussian noise, i-th record (002 Thm 4)",
        calibratable={"sigma": SIGMA},
    )
)
register(
    AccountantEntry(
        name="pnsgd_laplace",
        factory=contraction.PNSGDLaplace,
        integers=frozenset({"n", "index"}),
        summary="projected noisy SGD, Laplace noise, i-th record (002 Thm 3)",
        calibratable={"scale": SIGMA},
    )
)
register(
    AccountantEntry(
        name="pnsgd_renyi_baseline",
        factory=contraction.PNSGDRenyiBaseline,
        integers=frozenset({"n", "index"}),
        summary="projected noisy SGD, Balle et al. 2019's RDP bound (002 Prop. 1)",
        calibratable={"sigma": SIGMA},
    )
)

register(
    AccountantEntry(
        name="gdp",
        factory=fdp.GaussianDP,
        summary="mu-Gaussian DP: delta(eps) = theta_eps(mu) (004 Lemma 7, eq. 8)",
        calibratable={"mu": Calibratable("increasing", 0.0, float("inf"))},
    )
)

for _schedule in fdp.SCHEDULES:
    # constant and cyclic schedules: the valid bound is GDP composition, monotone in the rounds
    _monotone_rounds = _schedule in ("constant", "cyclic")
    register(
        AccountantEntry(
            name="noisy_fedavg" if _schedule == "constant" else f"noisy_fedavg_{_schedule}",
            factory=functools.partial(fdp.NoisyFedAvg, schedule=_schedule),
            hidden=frozenset({"schedule"}),
            summary=f"noisy FedAvg, last model, {_schedule} learning rate, exact interpolation bound (004 Thm 12)",
            integers=frozenset({"clients", "local_steps", "rounds"}),
            calibratable={"sigma": SIGMA, **({"rounds": ROUNDS} if _monotone_rounds else {})},
        )
    )

register(
    AccountantEntry(
        name="noisy_fedprox",
        factory=fdp.NoisyFedProx,
        hidden=frozenset({"constants"}),
        summary="noisy FedProx, last model, theorem constants, exact interpolation bound (004 Thm 15)",
        integers=frozenset({"clients", "local_steps", "rounds"}),
        calibratable={"sigma": SIGMA, "rounds": ROUNDS},
    )
)

register(
    AccountantEntry(
        name="pnsgd_random_stop",
        factory=contraction.PNSGDRandomStop,
        hidden=frozenset({"paper_form"}),
        integers=frozenset({"n", "index"}),
        summary="projected noisy SGD stopped at a uniformly random step, Gaussian noise (002 Thm 5)",
        calibratable={"sigma": SIGMA},
    )
)

_schedule_classes: tuple[tuple[str, Any, str], ...] = (
    (
        "trusted_aggregator_inverse_time",
        contraction.InverseTimeRateTrustedAggregator,
        "000 Corollary 1: eta_t = 1/(lambda t), constant sigma, O(T) sum",
    ),
    (
        "trusted_aggregator_schedule",
        contraction.TrustedAggregatorSchedule,
        "000 Thm 2 with per-round eta_t, sigma_t (scalars in a sweep: a constant schedule by the O(T) sum)",
    ),
    (
        "trusted_aggregator_random_stop_schedule",
        contraction.RandomStopTrustedAggregatorSchedule,
        "000 Corollary 3 with per-round eta_t, sigma_t, exact O(T) double sum",
    ),
)
for _name, _cls, _summary in _schedule_classes:
    register(
        AccountantEntry(
            name=_name,
            factory=PerPoint.of(_cls),
            summary=_summary,
            max_chunk=1 << 8,
            integers=frozenset({"n", "batch_size", "rounds"}),
            hidden=frozenset({"nonconvex"}),
            calibratable={"sigma": SIGMA},
        )
    )

# PLDAccountant is not registered: it accumulates rounds of different mechanisms by calls
# (compose, compose_subsampled_gaussian), so no set of keyword parameters describes it;
# SubsampledGaussianPLD is its keyword form for the common case of T identical rounds.

register(
    AccountantEntry(
        name="rdp_subsampled_gaussian",
        factory=rdp.SubsampledGaussianRDP,
        hidden=frozenset({"orders", "conversion", "fractional_series"}),
        max_chunk=1 << 14,
        summary="Poisson-subsampled Gaussian over rounds, RDP with the tight conversion (baseline)",
        integers=frozenset({"rounds"}),
        calibratable={
            "sigma": SIGMA,
            "rounds": ROUNDS,
            "sampling_rate": Calibratable("increasing", 0.0, 1.0),
        },
    )
)

_replace_one: tuple[tuple[str, Any, str], ...] = (
    ("pld_fixed_batch_gaussian", pld.FixedBatchGaussianPLD, "without replacement"),
    (
        "pld_with_replacement_gaussian",
        pld.WithReplacementBatchGaussianPLD,
        "with replacement (003 ISRL-DP silo)",
    ),
)
for _name, _cls, _what in _replace_one:
    register(
        AccountantEntry(
            name=_name,
            factory=_cls,
            max_chunk=1 << 10,
            summary=f"fixed-size batches {_what}, replace-one, every round released: PLD, certified upper bound",
            integers=frozenset({"batch_size", "n", "rounds"}),
            calibratable={"sigma": SIGMA, "rounds": ROUNDS},
        )
    )

register(
    AccountantEntry(
        name="pld_subsampled_gaussian",
        factory=pld.SubsampledGaussianPLD,
        max_chunk=1 << 15,
        hidden=frozenset({"delta_accuracy"}),
        summary="Poisson-subsampled Gaussian over rounds, every round released: PLD composition, certified upper bound",
        integers=frozenset({"rounds"}),
        calibratable={
            "sigma": SIGMA,
            "rounds": ROUNDS,
            "sampling_rate": Calibratable("increasing", 0.0, 1.0),
        },
    )
)
