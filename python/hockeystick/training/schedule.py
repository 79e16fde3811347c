"""A training run in stages: ``stages=[{"noise_multiplier": 1.1, "epochs": 30}, {"noise_multiplier":
0.9, "epochs": 30}]`` is one run whose noise multiplier changes between stages, every step released.

Each stage is a mapping of the words that change per stage (the noise multiplier and the stage's
length, in epochs or steps / rounds); the data set, batch and sampling words are shared and given
once in the call.  Stage k is T_k steps of the Poisson-subsampled Gaussian of multiplier z_k at the
run's rate q, and the run is their composition in order, its privacy profile

.. math::

    \\delta(\\varepsilon) = \\max\\{E_{e^\\varepsilon}(P_1^{\\otimes T_1} \\otimes \\cdots \\otimes P_K^{\\otimes T_K}
    \\,\\|\\, Q^{\\otimes T}),\\ \\text{the pair swapped}\\},\\qquad
    P_k = (1 - q)\\,\\mathcal N(0, z_k^2) + q\\,\\mathcal N(1, z_k^2),\\quad Q = \\mathcal N(0, z_k^2)

(the dominating pairs of the Poisson-subsampled Gaussian compose across changing multipliers: Zhu,
Dong & Wang 2022, Thm. 10), bounded above and below on the stages' composed PLD
(``pld.PLDAccountant``: Koskela, Jälkö & Honkela 2020; certified sides: Doroshenko et al. 2022).

The grid: ``value_discretization_interval`` as given; else the 1e-4 grid, whose bracket is that of
the default ``pld.PLDAccountant`` composing the same stages, and where all stages share one
multiplier the single run's default (the grid chosen from the delta asked, ``refine.question``).
On that grid the question is asked of the run the stages' composed PLD describes
(``pld.accountants.tail_narrowed``): where the tails cut from the T steps would pass ``TAIL_SHARE``
of the delta asked, its rounds are also composed at the question's smaller tail and the two
certified brackets intersected, so the answer is never looser than the default accountant's.

Lists in the ordinary arguments keep their meaning: ``noise_multiplier=[1.1, 0.9], epochs=[30, 30]``
are two separate runs (numpy broadcasting); a schedule is one run, so its stages take single
numbers.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

import numpy as np

from ..base import validation as _validation
from ..base.accountant import Bound, BoundResult
from ..base.accountant_docs import accountant_docs
from ..base.elementwise import ArrayLike
from .sampling_schemes import sampling_words
from .steps import ceil_ratio
from .vocabulary import Sampling

if TYPE_CHECKING:
    from ..pld.accountants import PLDAccountant
    from ..pld.reads import CurveAlongRun

__all__ = ["Stage", "StagedRun", "with_stages"]


class _PlainRun(Protocol):
    """What a stage is read from: a plain run of the same class, one point."""

    noise_multiplier: np.ndarray
    steps: np.ndarray

    @property
    def accountant(self) -> Any: ...

    @property
    def steps_per_epoch_ratio(self) -> tuple[np.ndarray, np.ndarray]: ...


@dataclass(frozen=True)
class Stage:
    """One stage of a staged run: ``steps`` steps of the subsampled Gaussian of multiplier
    ``noise_multiplier`` at Poisson rate ``sample_rate``."""

    noise_multiplier: float
    sample_rate: float
    steps: int


_F = TypeVar("_F", bound=Callable[..., None])

# the grid words, given once for the whole schedule (read by the staged accountant, not by each
# stage)
_GRID_WORDS = ("value_discretization_interval", "accuracy", "tail")


def with_stages(words: tuple[str, str]) -> Callable[[_F], _F]:
    """``__init__`` of a training run that also takes ``stages=``: without it the run is built as
    before; with it, each stage is built as a plain run of the same class from the call's shared
    words and the stage's own (``words``: the class's epochs and steps words), and the run is their
    composition (``StagedRun``).  A stage word given in the call (``noise_multiplier``, ``words``,
    or the synonym ``steps``) is refused by name."""

    def decorate(init: _F) -> _F:
        @functools.wraps(init)
        def wrapper(self: Any, **kwargs: Any) -> None:
            stages = kwargs.pop("stages", None)
            if stages is None:
                return init(self, **kwargs)
            for word in ("noise_multiplier", *words, "steps"):
                if kwargs.get(word) is not None:
                    raise ValueError(
                        f"{word} is given per stage with stages=: put it in each stage, not in the call (e.g. "
                        f'stages=[{{"noise_multiplier": 1.1, "{words[0]}": 30}}, ...]); lists in the ordinary '
                        "arguments broadcast into separate runs, not a schedule"
                    )
            grid = {word: kwargs.pop(word, None) for word in _GRID_WORDS}
            sampling = _validation.choice(
                kwargs.get("sampling", "poisson"), "sampling", sampling_words()
            )

            def plain_run(z: Any, epochs: Any, steps: Any) -> Any:
                return type(self)(
                    **kwargs, noise_multiplier=z, **{words[0]: epochs, words[1]: steps}
                )

            self._staged(StagedRun(stages, plain_run, words, sampling, **grid))
            return None

        # the signature help(), numpydoc and the docs read: the class's own, and stages= beside it
        own = inspect.signature(init)
        staged = inspect.Parameter("stages", inspect.Parameter.KEYWORD_ONLY, default=None)
        named = [p for p in own.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
        rest = [p for p in own.parameters.values() if p.kind is inspect.Parameter.VAR_KEYWORD]
        wrapper.__signature__ = own.replace(parameters=[*named, staged, *rest])  # type: ignore[attr-defined]
        return cast(_F, wrapper)

    return decorate


@accountant_docs()
class StagedRun:
    """The accountant of a staged run (the module docstring): ``delta``, ``epsilon`` and the curves along it.

    Parameters
    ----------
    stages : sequence of mapping
        Each stage: ``noise_multiplier`` and exactly one of the class's epochs and steps words,
        single numbers.
    plain_run : callable
        ``plain_run(noise_multiplier, epochs, steps)``: the plain run of one stage with the call's
        shared words.
    words : tuple of str
        The class's epochs and steps words (``("epochs", "steps")``, or ``("epochs", "rounds")``).
    sampling : str
        How batches are drawn; "poisson" only.
    value_discretization_interval, accuracy, tail : optional
        The grid (as ``pld.PLDAccountant``'s), ``accuracy`` (refused: give a grid), the tail cut per
        step.

    Raises
    ------
    ValueError
        ``stages`` not a non-empty list of mappings; a stage word missing or unknown (the closest
        named, a shared word named as such); an array in a stage; shared words giving several runs;
        a sampling other than "poisson"; ``accuracy`` given; any word the plain run refuses (the
        stage named).
    """

    def __init__(
        self,
        stages: Any,
        plain_run: Callable[[Any, Any, Any], _PlainRun],
        words: tuple[str, str],
        sampling: Sampling,
        value_discretization_interval: float | None,
        accuracy: float | None,
        tail: float | None,
    ):
        if sampling != "poisson":
            raise ValueError(
                f'stages= composes Poisson-sampled steps: sampling="{sampling}" is not available with stages; '
                'use sampling="poisson", or one run per stage'
            )
        if accuracy is not None:
            raise ValueError(
                "accuracy is not available with stages=: give value_discretization_interval (a finer grid, a "
                "narrower bracket), or leave both unset for the default grid"
            )
        runs = [
            _stage_run(k, stage, plain_run, words)
            for k, stage in enumerate(_stage_list(stages), start=1)
        ]
        self.stages = tuple(
            Stage(
                float(r.noise_multiplier),
                float(np.ravel(r.accountant.sampling_rate)[0]),
                int(r.steps),
            )
            for r in runs
        )
        a, b = runs[0].steps_per_epoch_ratio
        self.steps_per_epoch_ratio = (float(np.ravel(a)[0]), float(np.ravel(b)[0]))
        self._interval, self._tail = value_discretization_interval, tail
        self._accountant = self._composed(tail)

    @property
    def steps(self) -> int:
        """The run's steps: the sum of the stages'."""
        return sum(s.steps for s in self.stages)

    def _composed(self, tail: float | None) -> PLDAccountant:
        from ..pld.accountants import PLDAccountant

        accountant = PLDAccountant(value_discretization_interval=self._interval, tail=tail)
        for s in self.stages:
            accountant.compose_subsampled_gaussian(s.noise_multiplier, s.sample_rate, s.steps)
        return accountant

    def delta(self, epsilon: ArrayLike, *, bound: Bound = "upper") -> BoundResult:
        """Certified bound on delta(epsilon) of the staged run (``pld.PLDAccountant.delta`` of its stages)."""
        return self._accountant.delta(epsilon, bound=bound)

    def epsilon(self, delta: ArrayLike, *, bound: Bound = "upper") -> BoundResult:
        """Certified bound on epsilon(delta) of the staged run: on the default grid and tail, the
        bracket of the run its composed PLD describes, narrowed at the question's tail
        (``pld.accountants.tail_narrowed``); else the accountant's (the module docstring)."""
        if self._interval is not None or self._tail is not None:
            _validation.bound_side(bound)
            _validation.delta_values(delta)
            return self._accountant.epsilon(delta, bound=bound)
        from ..pld.accountants import tail_narrowed_epsilon  # a staged question reads it

        return tail_narrowed_epsilon(self._accountant, delta, bound=bound)

    def epsilon_curve(self, delta: float, *, steps: np.ndarray) -> CurveAlongRun:
        """The certified bracket of epsilon at ``delta`` after each of ``steps`` (``PLDAccountant.epsilon_curve``)."""
        return self._accountant.epsilon_curve(delta, steps=steps)

    def delta_curve(self, epsilon: float, *, steps: np.ndarray) -> CurveAlongRun:
        """The certified bracket of delta at ``epsilon`` after each of ``steps``."""
        return self._accountant.delta_curve(epsilon, steps=steps)

    def checkpoints(self, every: int | None, steps: ArrayLike | None) -> np.ndarray:
        """Every ``every`` steps, or ``steps``, or else the last step of each whole epoch of each
        stage (counted from the stage's start, ceil(k a / b) of the exact epoch ratio a / b) and
        each stage's last step."""
        from ..pld.reads import MAX_CHECKPOINTS, checkpoints

        total = self.steps
        if every is not None or steps is not None:
            return checkpoints(total, every, steps)
        a, b = (float(x) for x in self.steps_per_epoch_ratio)
        ends, start = [], 0
        for s in self.stages:
            count = (
                math.floor(s.steps * b / a) + 1
            )  # the stage's whole epochs, and one more for the rounding
            if count > MAX_CHECKPOINTS:
                raise ValueError(
                    f"one checkpoint per epoch gives {count - 1} or more, above {MAX_CHECKPOINTS}: give "
                    "every= (a checkpoint every so many steps) or steps="
                )
            epoch_ends = ceil_ratio(
                np.arange(1.0, count + 1.0), np.full(count, a), np.full(count, b)
            )
            ends.append(start + epoch_ends[epoch_ends <= s.steps])
            start += s.steps
            ends.append(np.array([start]))
        out = np.unique(np.concatenate(ends)).astype(np.int64)
        if out.size > MAX_CHECKPOINTS:
            raise ValueError(
                f"one checkpoint per epoch gives {out.size}, above {MAX_CHECKPOINTS}: give every= or steps="
            )
        return out


def _stage_list(stages: Any) -> list[Mapping[str, Any]]:
    if (
        isinstance(stages, Mapping)
        or not isinstance(stages, Sequence)
        or isinstance(stages, str)
        or not stages
    ):
        raise ValueError(
            'stages must be a non-empty list of mappings such as [{"noise_multiplier": 1.1, "epochs": 30}, '
            f'{{"noise_multiplier": 0.9, "epochs": 30}}], got {_validation.describe(stages)}'
        )
    for k, stage in enumerate(stages, start=1):
        if not isinstance(stage, Mapping):
            raise ValueError(
                f'stage {k} must be a mapping such as {{"noise_multiplier": 1.1, "epochs": 30}}, got '
                f"{_validation.describe(stage)}"
            )
    return list(stages)


def _stage_run(
    k: int,
    stage: Mapping[str, Any],
    plain_run: Callable[[Any, Any, Any], _PlainRun],
    words: tuple[str, str],
) -> _PlainRun:
    """The plain run of stage ``k`` (its words checked by name, single numbers only)."""
    allowed = ("noise_multiplier", *words)
    for key in stage:
        if key not in allowed:
            raise ValueError(
                f"stage {k}: unknown word {key!r}{_validation.did_you_mean(str(key), allowed)}; a stage takes "
                f"{', '.join(allowed)} (the other words are shared by every stage: give them once in the call)"
            )
        if np.ndim(stage[key]) != 0:
            raise ValueError(
                f"stage {k}: {key} must be one number, got {_validation.describe(stage[key])}: a schedule is one "
                "run (lists in the ordinary arguments broadcast into separate runs)"
            )
    if stage.get("noise_multiplier") is None:
        raise ValueError(f"stage {k}: give its noise_multiplier")
    try:
        run = plain_run(stage["noise_multiplier"], stage.get(words[0]), stage.get(words[1]))
    except ValueError as error:
        raise ValueError(f"stage {k}: {error}") from None
    if any(
        np.size(x) != 1 for x in (run.noise_multiplier, run.steps, run.accountant.sampling_rate)
    ):
        raise ValueError(
            "stages= describes one run: give single values of the shared words (data set or clients, batch, "
            "sample_rate); lists in them broadcast into separate runs, which take no stages"
        )
    return run
