"""The argument walk's entries (``tests/test_fuzz_public_api.py``) for the allocation accountants (balls-in-bins,
shuffled batches, one epoch of random allocation) and for every public callable of ``hockeystick.matrix``: each
argument in turn takes every walk value, the others valid; each call answers without NaN or refuses naming it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hockeystick import matrix, pld

H = 1e-2  # the walk's coarse loss grid
RESOLUTION = (
    0.02  # a coarse sum grid keeps each allocation call cheap; the resolution itself is walked too
)


def both_sides(make: Callable[..., Any]) -> Callable[..., Any]:
    """The accountant built from the walked arguments: its (epsilon, delta) brackets at one point each."""

    def call(**kwargs: Any) -> Any:
        accountant = make(**kwargs)
        return (*accountant.epsilon(1e-3, bound="both"), *accountant.delta(1.0, bound="both"))

    return call


def _sensitivity(**kwargs: Any) -> float:
    found = matrix.l2_sensitivity(**kwargs)
    return found.upper


def _epsilon_of(strategy: Callable[..., Any], rounds: int = 8) -> Callable[..., Any]:
    """DP-FTRL over ``rounds`` rounds with the strategy built from the walked arguments."""

    def call(**kwargs: Any) -> Any:
        return matrix.DPFTRL(
            rounds=rounds, noise_multiplier=1.0, strategy=strategy(**kwargs)
        ).epsilon(1e-5, bound="both")

    return call


def _schema_sensitivity(schema: Callable[..., Any]) -> Callable[..., Any]:
    return lambda **kwargs: matrix.l2_sensitivity(matrix.Tree(), 8, schema(**kwargs)).upper


def _matrix_mechanism(**kwargs: Any) -> Any:
    return both_sides(matrix.MatrixMechanism)(**kwargs)


ALLOCATION_WALKS: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
    (
        "pld.BallsInBinsGaussianPLD",
        both_sides(pld.BallsInBinsGaussianPLD),
        dict(
            sigma=2.0,
            steps_per_epoch=4,
            rounds=6,
            steps_per_record=1,
            sensitivity=1.0,
            value_discretization_interval=H,
            sum_resolution=RESOLUTION,
        ),
    ),
    (
        "pld.BallsInBinsGaussianPLD(k > 1)",
        both_sides(pld.BallsInBinsGaussianPLD),
        dict(
            sigma=2.0,
            steps_per_epoch=4,
            rounds=6,
            steps_per_record=2,
            value_discretization_interval=H,
        ),
    ),
    (
        "pld.ShuffledBatchGaussianPLD",
        both_sides(pld.ShuffledBatchGaussianPLD),
        dict(
            sigma=2.0,
            batch_size=10,
            n=35,
            rounds=6,
            sensitivity=1.0,
            value_discretization_interval=H,
            sum_resolution=RESOLUTION,
        ),
    ),
    (
        "pld.random_allocation_gaussian(absent)",
        lambda **kwargs: (
            pld.random_allocation_gaussian(**kwargs).self_compose(2).epsilon(1e-3, bound="both")
        ),
        dict(
            steps=4,
            noise_multiplier=2.0,
            absent=0.25,
            sensitivity=1.0,
            value_discretization_interval=H,
            sum_resolution=RESOLUTION,
        ),
    ),
]


def _law_of(sampling: Callable[..., Any]) -> Callable[..., Any]:
    """The law of one record's total over a small contribution vector, under the sampling built from the walked
    arguments."""
    return lambda **kwargs: sampling(**kwargs).law(np.array([3, 1, 2, 1, 3, 1]))


def _realizable_lower(**kwargs: Any) -> Any:
    return matrix.RealizableLowerSide(**kwargs).delta(np.array([0.5, 1.0]))


def _mmcc(**kwargs: Any) -> Any:
    return tuple(matrix.MMCC(**kwargs).get_epsilon(1e-3))


def _mmcc_delta(*, epsilon: Any, **kwargs: Any) -> Any:
    return matrix.MMCC(**kwargs).delta(epsilon)


def _balls_in_bins_rdp(**kwargs: Any) -> Any:
    """matrix.BallsInBinsRDP's upper sides (it has no lower side) and each direction's epsilon alone."""
    run = matrix.BallsInBinsRDP(**kwargs)
    directions = run.directions(1e-3)
    return run.epsilon(1e-3), run.delta(1.0), directions["remove"], directions["add"]


def _monte_carlo(**kwargs: Any) -> Any:
    reading = matrix.BallsInBinsMonteCarlo(**kwargs).delta(1.0)
    return (
        reading.estimate,
        reading.confidence_bound,
        reading.certified_lower,
        reading.unamplified_upper,
    )


def _importance(**kwargs: Any) -> Any:
    """matrix.ImportanceSampledMonteCarlo's reading at 1, and its draws' band alone and composed with a Gaussian."""
    run = matrix.ImportanceSampledMonteCarlo(**kwargs)
    reading = run.delta(1.0, proved_sides=False)
    plain = run.pld().band([0.5, 1.0])
    composed = run.pld().compose(pld.gaussian(3.0, value_discretization_interval=H)).band([1.0])
    return reading.estimate, reading.confidence_bound, plain.upper, composed.upper


def _verify(*, epsilon: Any, target_delta: Any, **kwargs: Any) -> Any:
    """matrix.verify_then_release on an importance-sampled run built from the walked arguments."""
    run = matrix.ImportanceSampledMonteCarlo(epsilon=1.0, **kwargs)
    answer = matrix.verify_then_release(run, epsilon, target_delta)
    return answer.delta, answer.base_delta, answer.estimate


def _labelled_reading(
    *, epsilon: Any, monte_carlo_draws: Any, beta: Any, seed: Any, **run: Any
) -> tuple[float, float, float]:
    """matrix.labelled_reading of a balls-in-bins DPFTRL run built from the walked arguments."""
    reading = matrix.labelled_reading(
        matrix.DPFTRL(**run),
        epsilon=epsilon,
        monte_carlo_draws=monte_carlo_draws,
        beta=beta,
        seed=seed,
    )
    mc = reading.monte_carlo
    return reading.certified_lower, reading.certified_upper, 0.0 if mc is None else mc.estimate


_LOWER_TRIANGULAR = np.tril(np.ones((4, 4)))

MATRIX_WALKS: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
    ("matrix.BallsInBinsSampling", _law_of(matrix.BallsInBinsSampling), dict(cycle_length=2)),
    (
        "matrix.RandomAllocationSampling",
        _law_of(matrix.RandomAllocationSampling),
        dict(participations=2),
    ),
    (
        "matrix.BMinSepSampling",
        _law_of(matrix.BMinSepSampling),
        dict(min_sep=2, sampling_prob=0.5, warm_start=True),
    ),
    (
        "matrix.CyclicPoissonSampling",
        _law_of(matrix.CyclicPoissonSampling),
        dict(cycle_length=2, sampling_prob=0.5, group=1),
    ),
    (
        "matrix.RealizableLowerSide",
        _realizable_lower,
        dict(
            strategy=_LOWER_TRIANGULAR,
            rounds=4,
            noise_multiplier=3.0,
            sampling=matrix.BallsInBinsSampling(2),
            shift_cells=64,
            value_discretization_interval=H,
        ),
    ),
    (
        "matrix.PoissonSampling",
        _law_of(matrix.PoissonSampling),
        dict(sampling_prob=0.5, tail=1e-12),
    ),
    (
        "matrix.MMCC",
        _mmcc,
        dict(
            strategy=_LOWER_TRIANGULAR,
            rounds=4,
            noise_multiplier=3.0,
            sampling_rate=0.2,
            value_discretization_interval=H,
            shift_cells=64,
            tail_fractions=(0.1,),
            tail_deltas=(1e-4,),
            lower_side=True,
        ),
    ),
    (
        "matrix.MMCC.delta",
        _mmcc_delta,
        dict(
            strategy=_LOWER_TRIANGULAR,
            rounds=4,
            noise_multiplier=3.0,
            sampling_rate=0.2,
            epsilon=1.0,
        ),
    ),
    (
        "matrix.BallsInBinsRDP",
        _balls_in_bins_rdp,
        dict(
            strategy=_LOWER_TRIANGULAR,
            rounds=4,
            noise_multiplier=3.0,
            bins=2,
            redraw="never",
            max_order=16,
            max_band=2,
        ),
    ),
    (
        "matrix.BallsInBinsRDP(each_epoch)",
        _balls_in_bins_rdp,
        dict(strategy=np.eye(4), rounds=4, noise_multiplier=3.0, bins=2, redraw="each_epoch"),
    ),
    (
        "matrix.BallsInBinsMonteCarlo",
        _monte_carlo,
        dict(strategy=_LOWER_TRIANGULAR, noise_multiplier=3.0, cycle_length=2, draws=200, seed=0),
    ),
    (
        "matrix.kl_upper_confidence",
        matrix.kl_upper_confidence,
        dict(mean=0.1, draws=100, beta=1e-3),
    ),
    (
        "matrix.ImportanceSampledMonteCarlo",
        _importance,
        dict(
            strategy=_LOWER_TRIANGULAR,
            noise_multiplier=3.0,
            cycle_length=2,
            epsilon=1.0,
            draws=200,
            seed=0,
        ),
    ),
    (
        "matrix.pipeline_delta",
        matrix.pipeline_delta,
        dict(draws=1000, base_delta=1e-2, support_bound=1.0),
    ),
    (
        "matrix.verify_then_release",
        _verify,
        dict(
            strategy=_LOWER_TRIANGULAR,
            noise_multiplier=3.0,
            cycle_length=2,
            draws=2000,
            seed=0,
            epsilon=1.0,
            target_delta=0.5,
        ),
    ),
    (
        "matrix.labelled_reading",
        _labelled_reading,
        dict(
            rounds=8,
            noise_multiplier=1.0,
            strategy=matrix.Banded([1.0, 0.5]),
            min_separation=2,
            participation="balls_in_bins",
            epsilon=1.0,
            monte_carlo_draws=200,
            beta=1e-3,
            seed=0,
        ),
    ),
    (
        "matrix.DPFTRL",
        both_sides(matrix.DPFTRL),
        dict(
            rounds=8,
            noise_multiplier=1.0,
            strategy=matrix.Banded([1.0, 0.5]),
            min_separation=2,
            participation="b_min_sep",
            sampling_rate=0.5,
        ),
    ),
    (
        "matrix.DPFTRL",
        both_sides(matrix.DPFTRL),
        dict(
            rounds=8,
            noise_multiplier=1.0,
            min_separation=2,
            max_participations=2,
            strategy="tree",
            participation="min_separation",
            adaptive_inputs=True,
        ),
    ),
    (
        "matrix.MatrixMechanism",
        _matrix_mechanism,
        dict(
            sensitivity=matrix.l2_sensitivity(matrix.Tree(), 8, matrix.EveryRound()),
            noise_multiplier=1.0,
        ),
    ),
    (
        "matrix.noise_multiplier_for_zcdp",
        matrix.noise_multiplier_for_zcdp,
        dict(
            rho=0.5,
            rounds=8,
            min_separation=2,
            max_participations=2,
            strategy="tree",
            participation="min_separation",
            adaptive_inputs=True,
        ),
    ),
    (
        "matrix.AmplifiedBandedMF",
        both_sides(matrix.AmplifiedBandedMF),
        dict(
            rounds=8,
            noise_multiplier=1.0,
            sampling_rate=0.1,
            strategy=matrix.Banded([1.0, 0.5]),
            min_separation=2,
            value_discretization_interval=H,
        ),
    ),
    (
        "matrix.l2_sensitivity",
        _sensitivity,
        dict(strategy=matrix.Tree(), rounds=8, schema=matrix.EveryRound()),
    ),
    ("matrix.Tree", _schema_sensitivity(lambda **kw: matrix.MinSeparation(2)), dict()),
    ("matrix.Tree(restart_every)", _epsilon_of(matrix.Tree), dict(restart_every=4)),
    ("matrix.BLT", _epsilon_of(matrix.BLT), dict(buffer_decay=[0.5], output_scale=[0.3])),
    ("matrix.Banded", _epsilon_of(matrix.Banded), dict(coefficients=[1.0, 0.5])),
    (
        "matrix.DenseStrategy",
        _epsilon_of(matrix.DenseStrategy, 3),
        dict(matrix=np.tril(np.ones((3, 3)))),
    ),
    ("matrix.EveryRound", _schema_sensitivity(matrix.EveryRound), dict()),
    (
        "matrix.Participation",
        _schema_sensitivity(matrix.Participation),
        dict(separation=2, limit=2, fixed=False),
    ),
    (
        "matrix.Sensitivity",
        lambda **kwargs: _matrix_mechanism(
            sensitivity=matrix.Sensitivity(**kwargs), noise_multiplier=1.0
        ),
        dict(upper=2.0, lower=1.0, kind="exact", method="given", pattern=(0, 2)),
    ),
    ("matrix.FixedEpochs", _schema_sensitivity(matrix.FixedEpochs), dict(separation=2, epochs=2)),
    (
        "matrix.MinSeparation",
        _schema_sensitivity(matrix.MinSeparation),
        dict(separation=2, max_participations=2),
    ),
]
