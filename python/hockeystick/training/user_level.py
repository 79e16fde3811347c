r"""User-level privacy of example-level DP-SGD: a user holds up to k examples, each Poisson-sampled.

DP-SGD with Poisson sampling at rate q clips each example's gradient to C and adds N(0, (z C)^2 I)
to the batch's sum.  A user with k examples has J ~ Binom(k, q) of them in a step's batch, which
move the sum by at most J C, so under add-or-remove of a user each step is dominated by

.. math::

    P = \sum_{j=0}^{k} \binom{k}{j} q^j (1 - q)^{k - j}\, \mathcal N(j, z^2) \quad\text{vs}\quad
    Q = \mathcal N(0, z^2)

(remove; add: the pair swapped), the binomial mixture of Gaussians of Ganesh 2024 and Charles et al.
2025, Sec. 3 (``pld.sampling.examples_per_user``), and T steps by its T-fold composition, both
directions kept and the larger reported.  k = 1 is DP-SGD's own pair, and ``UserLevelDPSGD`` then
answers with DP-SGD's accountant (``pld.SubsampledGaussianPLD``), so the two agree exactly.

Fixed-size, balls-in-bins and shuffled batches are refused: a user's examples then fill a batch's
slots jointly (hypergeometric counts without replacement, one slot per epoch under random
allocation), and a replaced user's k examples move the sum by up to 2C each against examples of
another user that the batch also drew in varying number; no dominating pair of that joint law is
proved here, and the per-example pairs do not compose into one (they act on the same step).  The
refusal names the two ways that hold: Poisson sampling, or group privacy applied to the record-level
run, (eps0, delta0) for one record giving (k eps0, k e^{(k-1) eps0} delta0) for k of them (Kamath
2020, Thm. 10; k neighbouring steps apart under either relation), looser than the mixture.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

import numpy as np

from ..base import validation as _validation
from ..base.accountant import Bound, BoundResult, Quantity
from ..base.accountant_docs import accountant_docs
from ..base.elementwise import ArrayLike, broadcast_float_arrays
from ..base.keyword_only import positional_deprecated
from .pointwise import answer_pointwise
from .sampling_schemes import SamplingScheme, sampling_schemes

if TYPE_CHECKING:
    from ..pld.accountants import SubsampledGaussianPLD
    from ..pld.grid import PrivacyLossDistribution

__all__ = ["UserLevelDPSGD", "refuse_user_level_sampling", "user_level_without_stages"]

_F = TypeVar("_F", bound=Callable[..., Any])


def user_level_without_stages(init: _F) -> _F:
    """``DPSGD.__init__`` refusing ``examples_per_user`` beside ``stages``: a staged run composes
    its stages as record-level steps."""

    @functools.wraps(init)
    def wrapper(self: Any, **kwargs: Any) -> None:
        if kwargs.get("examples_per_user") is not None and kwargs.get("stages") is not None:
            raise ValueError(
                "examples_per_user is not available with stages= (a staged run composes record-level steps): "
                "give one noise_multiplier, or account each stage's user-level run separately"
            )
        init(self, **kwargs)

    wrapper.__signature__ = inspect.signature(init)  # type: ignore[attr-defined]
    return cast(_F, wrapper)


def refuse_user_level_sampling(
    sampling: object, accuracy: object = None, tail: object = None
) -> None:
    """Refuse a sampling other than Poisson with ``examples_per_user``, naming the rule (module
    docstring), and the Poisson accountant's ``accuracy`` and ``tail``, which the user-level run
    does not take."""
    for word, value in (("accuracy", accuracy), ("tail", tail)):
        if value is not None:
            raise ValueError(
                f"{word} is not available with examples_per_user (its run is composed on a fixed grid): give "
                "value_discretization_interval"
            )
    if sampling != "poisson":
        scheme = next((s for s in sampling_schemes() if s.word == sampling), None)
        joint = (scheme or SamplingScheme).joint_draws  # the scheme's facet, or its default
        raise ValueError(
            f'examples_per_user is certified with sampling="poisson" only, got sampling="{sampling}": {joint}, and '
            'no dominating pair of a user\'s joint contribution is proved for it here. Use sampling="poisson" (the '
            "binomial mixture, certified), or leave examples_per_user out and apply group privacy to the record-level "
            "run: (eps0, delta0)-DP for one record is (k eps0, k exp((k - 1) eps0) delta0)-DP for k of them (Kamath "
            "2020, Thm. 10), looser than the mixture"
        )


_NO_CURVE = (
    "a curve along the run is not available with examples_per_user: ask DPSGD(..., steps=s, "
    "examples_per_user=k).epsilon(delta) at each checkpoint s"
)


@accountant_docs()  # completes delta / epsilon docstrings with the contract's sections
class UserLevelDPSGD:
    r"""Certified (epsilon, delta) of Poisson-sampled DP-SGD for a user holding up to k examples.

    Each of the T steps is dominated, under add-or-remove of a user, by the binomial mixture of
    Gaussians (Ganesh 2024; Charles et al. 2025, Sec. 3),

    .. math::

        \delta(\varepsilon) = \max\{E_{e^\varepsilon}(P^{\otimes T} \| Q^{\otimes T}),\;
        E_{e^\varepsilon}(Q^{\otimes T} \| P^{\otimes T})\},\qquad
        P = \sum_{j=0}^{k} \tbinom{k}{j} q^j (1 - q)^{k-j}\, \mathcal N(j, z^2),\quad Q = \mathcal N(0, z^2),

    bounded on both sides on a discretized PLD (``pld.sampling.examples_per_user``). At k = 1 it is
    the Poisson-subsampled Gaussian and the run is answered by ``pld.SubsampledGaussianPLD``,
    DP-SGD's own. The parameters broadcast with each other and with the argument of ``delta`` /
    ``epsilon``.

    Parameters
    ----------
    noise_multiplier : array_like
        z, the noise's standard deviation over the clip norm C; finite, > 0.
    sample_rate : array_like
        q, each example's probability of joining a step's batch, 0 < q <= 1.
    steps : array_like
        T, a whole number >= 1 (at most 2^53).
    examples_per_user : array_like
        k, the most examples one user holds, a whole number in [1, 100000].
    value_discretization_interval : float, optional
        The loss grid's spacing, 0 < h <= 100 (default 1e-4).

    Attributes
    ----------
    noise_multiplier, sample_rate, steps, examples_per_user : numpy.ndarray
        The parameters, broadcast.

    Raises
    ------
    ValueError
        A parameter outside its range above; shapes that do not broadcast; a loss range too wide for
        the grid (the message names ``value_discretization_interval``).
    ParameterTypeError
        A string, bool or None for a number.

    References
    ----------
    Ganesh 2024, "Tight group-level privacy for DP-SGD"; Charles, Ganesh, McKenna, McMahan,
    Mitchell, Pillutla & Rush 2025, "Fine-tuning large language models with user-level differential
    privacy", Sec. 3; Choquette-Choo, Ganesh, Steinke & Thakurta 2024, Sec. 4 (the mixture of
    Gaussians).

    Examples
    --------
    >>> from hockeystick.training.user_level import UserLevelDPSGD
    >>> run = UserLevelDPSGD(noise_multiplier=1.0, sample_rate=0.01, steps=1000, examples_per_user=4)
    >>> round(run.epsilon(1e-5), 3)
    8.899
    """

    def __init__(
        self,
        *,
        noise_multiplier: ArrayLike,
        sample_rate: ArrayLike,
        steps: ArrayLike,
        examples_per_user: ArrayLike,
        value_discretization_interval: float | None = None,
    ) -> None:
        from ..pld.mechanisms import DEFAULT_INTERVAL
        from ..pld.sampling import checked_examples_per_user

        (z, q, t, k), self._shape, self._scalar = broadcast_float_arrays(
            noise_multiplier=_validation.positive(noise_multiplier, "noise_multiplier"),
            sample_rate=_validation.in_interval(
                sample_rate, "sample_rate", 0.0, 1.0, open_low=True, open_high=False
            ),
            steps=_validation.positive_integer(
                steps, "steps", maximum=_validation.MAX_EXACT_INTEGER
            ),
            examples_per_user=_validation.positive_integer(examples_per_user, "examples_per_user"),
        )
        for value in np.unique(k):
            checked_examples_per_user(value)
        self.noise_multiplier, self.sample_rate, self.steps, self.examples_per_user = z, q, t, k
        self._given_h = value_discretization_interval
        self._h = (
            DEFAULT_INTERVAL
            if value_discretization_interval is None
            else value_discretization_interval
        )
        self._runs: dict[int, SubsampledGaussianPLD | PrivacyLossDistribution] = {}

    def _run(self, i: int) -> SubsampledGaussianPLD | PrivacyLossDistribution:
        """Point i's composed run: DP-SGD's accountant at k = 1, the binomial mixture composed T times else."""
        from ..pld.accountants import SubsampledGaussianPLD
        from ..pld.sampling import examples_per_user_gaussian

        if i not in self._runs:
            z, q, t, k = (
                float(a.flat[i])
                for a in (
                    self.noise_multiplier,
                    self.sample_rate,
                    self.steps,
                    self.examples_per_user,
                )
            )
            if k == 1:
                self._runs[i] = SubsampledGaussianPLD(
                    sigma=z, sampling_rate=q, rounds=t, value_discretization_interval=self._given_h
                )
            else:
                step = examples_per_user_gaussian(
                    z, q, int(k), value_discretization_interval=self._h
                )
                self._runs[i] = step.self_compose(int(t))
        return self._runs[i]

    def _bracket(self, method: Quantity) -> Callable[[int, float], tuple[float, float]]:
        """Point i's certified (lower, upper) of ``method`` at x."""
        return lambda i, x: getattr(self._run(i), method)(x, bound="both")

    @positional_deprecated("bound")
    def delta(self, epsilon: ArrayLike, *, bound: Bound = "upper") -> BoundResult:
        r"""Certified bound on delta(epsilon) of the user's T steps.

        :math:`\delta(\varepsilon)`, the larger hockey-stick divergence :math:`E_{e^\varepsilon}` of
        the T-fold composition of the binomial mixture's remove and add pairs (the class docstring).
        """
        _validation.bound_side(bound)
        return answer_pointwise(
            self._shape,
            self._scalar,
            self._bracket("delta"),
            _validation.epsilon_values(epsilon),
            bound,
        )

    @positional_deprecated("bound")
    def epsilon(self, delta: ArrayLike, *, bound: Bound = "upper") -> BoundResult:
        r"""Certified bound on the smallest epsilon at which the user's T steps are (epsilon, delta)-DP.

        :math:`\varepsilon(\delta) = \inf\{\varepsilon \ge 0 : \delta(\varepsilon) \le \delta\}` of
        ``delta``.
        """
        _validation.bound_side(bound)
        return answer_pointwise(
            self._shape,
            self._scalar,
            self._bracket("epsilon"),
            _validation.delta_values(delta),
            bound,
        )

    def epsilon_curve(self, delta: float, *, steps: ArrayLike | None = None) -> Any:
        """Refused: the curve along a user-level run is not computed.

        Parameters
        ----------
        delta : float
            The delta the curve would be read at.
        steps : array_like, optional
            The checkpoints.

        Returns
        -------
        None
            Never returns.

        Raises
        ------
        ValueError
            Always, with the way to ask for one checkpoint.
        """
        raise ValueError(_NO_CURVE)

    def delta_curve(self, epsilon: float, *, steps: ArrayLike | None = None) -> Any:
        """Refused, as ``epsilon_curve``.

        Parameters
        ----------
        epsilon : float
            The epsilon the curve would be read at.
        steps : array_like, optional
            The checkpoints.

        Returns
        -------
        None
            Never returns.

        Raises
        ------
        ValueError
            Always, with the way to ask for one checkpoint.
        """
        raise ValueError(_NO_CURVE)

    def __repr__(self) -> str:
        words = ("noise_multiplier", "sample_rate", "steps", "examples_per_user")
        values = (_validation.scalar_or_array(getattr(self, w)) for w in words)
        return f"UserLevelDPSGD({', '.join(f'{w}={v!r}' for w, v in zip(words, values))})"
