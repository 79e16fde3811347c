"""The certified privacy bracket along one run: epsilon(delta), or delta(epsilon), after each of the
checkpoint steps T_1 < T_2 < ... < T_m, in one batched evaluation.

Each checkpoint T_i is the composition of the run's first T_i rounds on the accountant's grid, with
the checkpoint's own Chernoff window, aliasing, truncation and round-off charges, as a one-off
evaluation at T_i rounds has them (``compose.compose_many``), but on an FFT length that divides the
run's longest (``compose_many``'s ``shared_transform``): each one-round factor is transformed once,
at that length, and each checkpoint reads every s-th bin of it.  Every point of the curve is so a
certified bracket of the same accountant at T_i rounds; against the one-off ``.epsilon(delta,
bound="both")`` (or ``.delta``), which transforms at its own window's length, it differs by the
round-off charges of the longer transform only (about 1e-8 relative in epsilon on 60 epochs of
DP-SGD; both certified).  With ``accuracy=``, each checkpoint is refined on its own grids exactly as
the one-off evaluation refines it. What the batch shares, and a loop over the checkpoints repeats,
is everything else: the one-round discretization (one per mechanism), the factors' forward
transforms, the batching of the powers, and the accountant's blocks of points evaluated in threads.
Each checkpoint keeps its own power of the spectrum and its own reads of both sides
(``compose.upper_sides`` and ``compose.lower_sides``: after many rounds a few dozen to a few hundred
live frequencies and about a dozen thresholds per epsilon, no inverse transform; ``prefix_curve``'s
PLDs read their windows, as their one-off ``epsilon(delta, bound="both")`` does), so m checkpoints
cost the transforms once and m such reads.

Why each checkpoint is composed from the one-round PMF, not from the composition of an earlier one
(T_i by its binary digits, each product of two composed PMFs one FFT): a composed ``GridPMF``
carries its round-off and truncation charges beside its masses (``entry_error``, ``total_error``,
the spectral and inverse norms, ``shift``), while the engine's factors are masses alone, so a
composed PMF used as a factor would drop its charges; certifying such a product needs those charges
carried through the convolution, which the engine does not derive.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

import numpy as np

from ...base import validation as _validation
from ...base.accountant import Quantity
from ...base.elementwise import ArrayLike
from ..grid.distribution import PrivacyLossDistribution, brackets, read_per_question

# Every checkpoint keeps a power of the spectrum and reads (or an inverse transform) of its own, so
# a curve asks for at most this many, where every step of a 2^53-step run would never end.
MAX_CHECKPOINTS = 100_000

__all__ = [
    "MAX_CHECKPOINTS",
    "CurveAlongRun",
    "RoundsAccountant",
    "checkpoints",
    "prefix_curve",
    "rounds_curve",
]


@dataclass(frozen=True, eq=False)
class CurveAlongRun:
    """The certified bracket of ``quantity`` after each checkpoint of one run.

    ``steps`` (int64, strictly increasing): the number of steps (rounds) released at each
    checkpoint; ``lower``, ``upper`` (float64, one per step): certified lower and upper bounds on
    epsilon at delta = ``given`` (``quantity == "epsilon"``) or on delta at epsilon = ``given``
    (``"delta"``); ``steps_per_epoch``: the steps of one epoch where the run counts epochs (ceil(n /
    b), or n / b = 1 / q, not always whole; ``epochs`` is then ``steps / steps_per_epoch``), else
    None.
    """

    steps: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    quantity: Quantity
    given: float
    steps_per_epoch: float | None = None

    def __len__(self) -> int:
        return int(self.steps.size)

    @property
    def epochs(self) -> np.ndarray:
        """The checkpoints in epochs, ``steps / steps_per_epoch`` (a ValueError where the run counts no epochs)."""
        if self.steps_per_epoch is None:
            raise ValueError(
                "this curve's run counts no epochs (steps_per_epoch is None): read its steps"
            )
        return self.steps / self.steps_per_epoch

    def as_columns(self) -> dict[str, np.ndarray]:
        """The curve as named columns: steps, (epochs,) <quantity>_lower, <quantity>_upper."""
        columns: dict[str, np.ndarray] = {"steps": self.steps}
        if self.steps_per_epoch is not None:
            columns["epochs"] = self.epochs
        columns[f"{self.quantity}_lower"] = self.lower
        columns[f"{self.quantity}_upper"] = self.upper
        return columns


def checkpoints(
    total: int, every: ArrayLike | None = None, steps: ArrayLike | None = None
) -> np.ndarray:
    """The steps of a run of ``total`` steps a curve is evaluated at (int64, strictly increasing).

    ``every`` (a whole number >= 1): every ``every``-th step, and the last step ``total`` (a run
    whose length ``every`` does not divide ends with a shorter stretch); ``steps``: the given steps,
    whole numbers in [1, total], strictly increasing.  At most one of the two; neither: every step.
    """
    if every is not None and steps is not None:
        raise ValueError(
            "give one of every (a checkpoint every so many steps) and steps (the checkpoints), not both"
        )
    if steps is None:
        stride = (
            1
            if every is None
            else int(_validation.positive_integer(_validation.single(every, "every"), "every"))
        )
        count = -(-total // stride)
        if count > MAX_CHECKPOINTS:
            raise ValueError(
                f"every must leave at most {MAX_CHECKPOINTS} checkpoints, got every = {stride} over {total} steps "
                f"({count} checkpoints); give every >= {-(-total // MAX_CHECKPOINTS)}"
            )
        out = np.arange(stride, total + 1, stride, dtype=np.int64)
        return out if out.size and out[-1] == total else np.append(out, np.int64(total))
    given = _validation.positive_integer(steps, "steps", maximum=float(total))
    if given.ndim != 1 or not 1 <= given.size <= MAX_CHECKPOINTS:
        raise ValueError(
            f"steps must be a 1-d sequence of 1 to {MAX_CHECKPOINTS} checkpoints, got {_validation.describe(steps)}; "
            "pass e.g. steps=[100, 200, 300]"
        )
    if np.any(np.diff(given) <= 0):
        raise ValueError(
            f"steps must be strictly increasing, got {_validation.describe(steps)}; pass them sorted, each once"
        )
    return given.astype(np.int64)


def _given(quantity: Quantity, value: Any) -> float:
    """The one delta (epsilon curve) or epsilon (delta curve) held fixed along the run, validated."""
    if quantity == "epsilon":
        return float(_validation.delta_values(_validation.single(value, "delta")))
    return float(_validation.epsilon_values(_validation.single(value, "epsilon")))


def prefix_curve(
    segments: Sequence[tuple[PrivacyLossDistribution, int]],
    quantity: Quantity,
    value: Any,
    steps: np.ndarray,
    workers: int | None = None,
) -> CurveAlongRun:
    """The bracket of ``quantity`` (at delta or epsilon ``value``) after each checkpoint of a run
    given as ``segments``: (one round's PLD, rounds) in the order they ran, the run's first T steps
    being the first segments' rounds up to T.

    Each checkpoint's PLD is built as ``PLDAccountant.compose`` builds it (each segment's
    ``self_compose`` merged in order, the last one cut at the checkpoint), and all of them are
    evaluated by one ``distribution.brackets`` call: each point is that PLD's ``epsilon(value,
    bound="both")`` (or ``delta``) composed on a divisor of the run's longest FFT length (the
    module's opening), and the compositions of every checkpoint run in shared batches (``workers``:
    their scipy.fft threads, as ``distribution.compose_all``'s); each checkpoint whose rounds are
    described is then read per question (``distribution.read_per_question``), as its one-off
    ``epsilon`` is."""
    given = _given(quantity, value)
    plds = [_prefix(segments, int(t)) for t in steps]
    method: Quantity = "epsilon" if quantity == "epsilon" else "delta"
    x = np.array(given)
    xs = [x] * len(plds)
    sides = read_per_question(
        plds, method, xs, brackets(plds, method, xs, workers, shared_transform=True)
    )
    lower = np.array([float(lo) for lo, _ in sides])
    upper = np.array([float(up) for _, up in sides])
    return CurveAlongRun(np.asarray(steps, dtype=np.int64), lower, upper, quantity, given)


def _prefix(
    segments: Sequence[tuple[PrivacyLossDistribution, int]], count: int
) -> PrivacyLossDistribution:
    """The PLD of the first ``count`` rounds of ``segments`` (1 <= count <= their total)."""
    out: PrivacyLossDistribution | None = None
    for pld, rounds in segments:
        if count <= 0:
            break
        step = pld.self_compose(min(rounds, count))
        out = step if out is None else out.compose(step)
        count -= rounds
    if out is None:
        raise ValueError("a checkpoint needs at least one round of the run")
    return out


class RoundsAccountant(Protocol):
    """An accountant whose points are the broadcast of its parameter arrays, ``rounds`` among them,
    read at each evaluation (``SubsampledGaussianPLD``, ``FixedBatchGaussianPLD``)."""

    rounds: np.ndarray
    _along_run: bool

    def epsilon(self, delta: ArrayLike, *, bound: Any = ...) -> Any: ...

    def delta(self, epsilon: ArrayLike, *, bound: Any = ...) -> Any: ...


def rounds_curve(
    accountant: RoundsAccountant,
    parameters: dict[str, np.ndarray],
    quantity: Quantity,
    value: Any,
    every: ArrayLike | None = None,
    steps: ArrayLike | None = None,
    steps_per_epoch: float | None = None,
) -> CurveAlongRun:
    """The bracket of ``quantity`` after each checkpoint (``checkpoints``' ``every`` or ``steps``)
    of the one run ``accountant`` describes: its ``parameters`` (attribute name -> its array, for
    every parameter array but ``rounds``) and its rounds must each be a single value.

    A shallow copy of the accountant with ``rounds`` set to the checkpoints (and the other
    parameters repeated to their shape: the accountant keeps them broadcast together) evaluates them
    all in one call (``bound="both"``), flagged ``_along_run`` so that it may compose them on
    divisors of one FFT length (the module's opening): one point per checkpoint, each the
    accountant's certified bracket at that many rounds, the discretization of the shared one-round
    mechanism done once (and those the original kept, shared)."""
    arrays = {**parameters, "rounds": accountant.rounds}
    if any(np.size(array) != 1 for array in arrays.values()):
        varying = [name for name, array in arrays.items() if np.unique(array).size > 1] or list(
            arrays
        )
        raise ValueError(
            f"a curve along the run needs one run: {', '.join(varying)} must each be a single value, got "
            f"{len(np.ravel(accountant.rounds))} points; build the accountant for one run (or loop over the runs)"
        )
    given = _given(quantity, value)
    at = checkpoints(int(np.ravel(accountant.rounds)[0]), every, steps)
    along = copy.copy(accountant)
    for (
        name,
        array,
    ) in parameters.items():  # the accountant keeps its parameters broadcast to one shape
        setattr(along, name, np.full(at.shape, np.ravel(array)[0]))
    along.rounds = at.astype(np.float64)
    along._along_run = True
    if quantity == "epsilon":
        lower, upper = along.epsilon(given, bound="both")
    else:
        lower, upper = along.delta(given, bound="both")
    return CurveAlongRun(
        at,
        np.asarray(lower, dtype=np.float64).reshape(at.shape),
        np.asarray(upper, dtype=np.float64).reshape(at.shape),
        quantity,
        given,
        steps_per_epoch,
    )


class RoundsCurves:
    """``epsilon_curve`` and ``delta_curve`` of an accountant whose ``rounds`` broadcast with its
    parameter arrays named in ``CURVE_PARAMETERS`` (every one but ``rounds``): one evaluation for
    every checkpoint (``rounds_curve``)."""

    CURVE_PARAMETERS: tuple[str, ...] = ()
    rounds: np.ndarray
    # True on the copy ``rounds_curve`` evaluates: its points are the checkpoints of one run, which
    # an accountant may compose on divisors of one FFT length (compose_many's shared_transform) in
    # one work unit
    _along_run: bool = False

    def epsilon_curve(
        self, delta: float, *, every: int | None = None, steps: ArrayLike | None = None
    ) -> CurveAlongRun:
        """The certified bracket of epsilon at ``delta`` after every ``every``-th round (and the
        last), or after each of ``steps`` (strictly increasing, at most ``rounds``); every round by
        default.  One run: every parameter a single value.  Each point is ``epsilon(delta,
        bound="both")`` at that many rounds (to the round-off of shared transforms, each certified),
        all of them in one evaluation (``rounds_curve``: one discretization, batched
        compositions)."""
        return rounds_curve(
            cast(RoundsAccountant, self), self._curve_parameters(), "epsilon", delta, every, steps
        )

    def delta_curve(
        self, epsilon: float, *, every: int | None = None, steps: ArrayLike | None = None
    ) -> CurveAlongRun:
        """``epsilon_curve``'s twin: the certified bracket of delta at ``epsilon`` after each checkpoint."""
        return rounds_curve(
            cast(RoundsAccountant, self), self._curve_parameters(), "delta", epsilon, every, steps
        )

    def _curve_parameters(self) -> dict[str, np.ndarray]:
        return {name: getattr(self, name) for name in self.CURVE_PARAMETERS}
