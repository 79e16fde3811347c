r"""Record-level privacy inside federated learning: each sampled client runs τ local DP-SGD steps on its data.

Each round samples clients by Poisson sampling at rate q_c; a sampled client runs τ local steps of
DP-SGD on its own records (Poisson batches at rate q_l = b / n, each clipped gradient of norm at
most C, noise N(0, (z C)^2 I) on each step) and sends its model.  A record lives on one client, so a
round sees it only if its client is sampled, and then in every one of the client's τ steps.  With
(P, Q) a dominating pair of the client's τ local steps under add-or-remove of the record (the τ-fold
composition of the subsampled Gaussian's pair), the round is dominated by

.. math::

    \text{remove: } \big(q_c P + (1 - q_c) Q,\; Q\big), \qquad \text{add: } \big(Q,\; q_c P + (1 - q_c) Q\big)

(Zhu, Dong & Wang 2022, Thm. 11: Poisson sampling of any mechanism), and R rounds by the R-fold
composition. It is certified on both sides through the sampling map of the inner's certified curves
(``pld.sampling.subsampled_pair``, the plan accountant's ``PoissonGeneric``).  With full-batch local
steps (q_l = 1) the τ steps are the Gaussian of shift √τ / z, so a round is exactly the
Poisson-subsampled Gaussian of noise multiplier z / √τ at rate q_c (``pld.SubsampledGaussianPLD``);
τ = 1 is DP-FedAvg's pair with records for clients.  With every client in every round (q_c = 1) the
run is R τ Poisson(q_l) subsampled Gaussians, also on ``pld.SubsampledGaussianPLD``.

FL4Health's instance-level accountant composes R τ independent Poisson steps at rate q_c q_l instead
(``instance_level_rule_epsilon``).  That treats the client's coin as drawn anew at every local step,
which it is not: the record is in all τ steps of a round or in none.  The rule's figure is no upper
bound: at q_c = 0.01, z = 1, 10 full-batch local steps, 100 rounds and δ = 1e-5 it says 1.83, while
the run's ε is 23.31.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from typing import Any

from ..base import validation as _validation
from ..base.accountant import Bound, Quantity
from ..base.accountant_docs import accountant_docs
from ..base.elementwise import ArrayLike, broadcast_float_arrays
from ..base.keyword_only import positional_deprecated
from ..pld.accountants import (
    CompositionPlan,
    PlanProfile,
    PoissonGeneric,
    SubsampledGaussianPLD,
    default_grid_profile,
    rdp_lowered_upper,
)
from ..pld.grid import Result
from ..pld.mechanisms import PoissonGaussian, checked_interval
from .pointwise import answer_pointwise

__all__ = ["RecordLevelFedAvg"]

# a side not asked for, where a run reads its sides apart: its trivial bound (delta in [0, 1],
# epsilon in [0, inf])
_TRIVIAL: dict[Quantity, tuple[float, float]] = {"delta": (0.0, 1.0), "epsilon": (0.0, math.inf)}


def _full_batch_sigmas(z: float, local_steps: float) -> tuple[float, float]:
    """z / sqrt(tau) stepped two ulps down and up (the quotient and the root each err by half an
    ulp): the noise of the upper side at most the exact one, that of the lower side at least it; z
    itself at tau = 1."""
    if local_steps == 1.0:
        return z, z
    s = z / math.sqrt(local_steps)
    down = math.nextafter(math.nextafter(s, 0.0), 0.0)
    if down == 0.0:  # no double > 0 lies below z / sqrt(tau): no upper side is computed
        raise ValueError(
            f"noise_multiplier / sqrt(local_steps) = {z:g} / sqrt({local_steps:g}) underflows double precision: give "
            "a noise_multiplier of at least 1e-300"
        )
    return down, math.nextafter(math.nextafter(s, math.inf), math.inf)


@contextlib.contextmanager
def _in_run_words() -> Iterator[None]:
    """A PLD's refusal of its grid at a noise (its ``sigma``, over sensitivity 1) names the
    arguments the caller gave: the noise multiplier, and the local steps it is divided by on
    full-batch rounds."""
    try:
        yield
    except ValueError as error:
        if "sigma / sensitivity" not in str(error):
            raise
        raise ValueError(
            f"noise_multiplier (the PLD's sigma: z, or z / sqrt(local_steps) with full-batch local steps): {error}"
        ) from None


class _FullBatchRounds:
    """R rounds with full-batch local steps: Poisson(q_c) subsampled Gaussians of multiplier z /
    sqrt(tau), the upper side at the noise rounded down, the lower at the noise rounded up."""

    def __init__(
        self,
        z: float,
        q_c: float,
        tau: float,
        rounds: float,
        h: float | None,
        accuracy: float | None,
    ):
        down, up = _full_batch_sigmas(z, tau)
        self._upper, self._lower = (
            SubsampledGaussianPLD(
                sigma=sigma,
                sampling_rate=q_c,
                rounds=rounds,
                value_discretization_interval=h,
                accuracy=accuracy,
            )
            for sigma in (down, up)
        )

    def bracket(self, method: Quantity, x: float, bound: Bound) -> tuple[float, float]:
        """(lower, upper) of ``method`` at x, each side from its own accountant and read only where
        ``bound`` asks for it (a side not asked is its trivial bound, ``_TRIVIAL``)."""
        lower, upper = _TRIVIAL[method]
        if bound != "upper":
            lower = float(getattr(self._lower, method)(x, bound="lower"))
        if bound != "lower":
            upper = float(getattr(self._upper, method)(x, bound="upper"))
        return lower, upper


class _EveryClientRounds:
    """Every client in every round (q_c = 1) with sampled local batches: R tau Poisson(q_l)
    subsampled Gaussians of multiplier z, on ``pld.SubsampledGaussianPLD``."""

    def __init__(
        self,
        z: float,
        q_l: float,
        tau: float,
        rounds: float,
        h: float | None,
        accuracy: float | None,
    ):
        self._steps = SubsampledGaussianPLD(
            sigma=z,
            sampling_rate=q_l,
            rounds=tau * rounds,
            value_discretization_interval=h,
            accuracy=accuracy,
        )

    def bracket(self, method: Quantity, x: float, bound: Bound) -> tuple[float, float]:
        """(lower, upper) of ``method`` at x, both sides read in one call whatever ``bound`` asks."""
        lower, upper = getattr(self._steps, method)(x, bound="both")
        return float(lower), float(upper)


class _SampledLocalRounds:
    """R rounds of Poisson(q_c) sampling of tau local steps at rate q_l, on the plan accountant (a
    wide bracket read under a tilt, ``plan_tilted``); given no grid, its upper side lowered to the
    RDP conversion's where the bracket is still wide (``plan_rdp.rdp_lowered_upper``)."""

    def __init__(
        self,
        z: float,
        q_c: float,
        q_l: float,
        tau: float,
        rounds: float,
        h: float | None,
        accuracy: float | None,
    ):
        inner = CompositionPlan({PoissonGaussian(z, q_l).spec(): int(tau)})
        plan = CompositionPlan({PoissonGeneric(q_c, inner.key()).spec(): int(rounds)})
        given = h is not None or accuracy is not None
        self._profile = PlanProfile(plan, h, accuracy) if given else default_grid_profile(plan)
        self._default_plan = None if given else plan

    def bracket(self, method: Quantity, x: float, bound: Bound) -> tuple[float, float]:
        """(lower, upper) of ``method`` at x, both sides read in one call whatever ``bound`` asks."""
        lower, upper = getattr(self._profile, method)(x)
        if self._default_plan is None:
            return lower, upper
        return lower, rdp_lowered_upper(self._default_plan, method, x, lower, upper)


@accountant_docs()  # completes delta / epsilon docstrings with the contract's sections
class RecordLevelFedAvg:
    r"""Certified (epsilon, delta) of a record inside federated learning with local DP-SGD.

    Each of R rounds samples clients at rate q_c (Poisson); each sampled client runs τ local DP-SGD
    steps, Poisson batches at rate q_l of its records, noise multiplier z. Under add-or-remove of
    one record a round is dominated by :math:`(q_c P + (1 - q_c) Q, Q)` (remove) and its swap (add),
    with (P, Q) the τ-fold composition of the subsampled Gaussian's pair (Zhu, Dong & Wang 2022,
    Thm. 11), so

    .. math::

        \delta(\varepsilon) = \max\{E_{e^\varepsilon}(A^{\otimes R} \| Q^{\otimes R}),\;
        E_{e^\varepsilon}(Q^{\otimes R} \| A^{\otimes R})\}, \qquad A = q_c P + (1 - q_c) Q.

    With q_l = 1 (full-batch local steps) a round is the Poisson-subsampled Gaussian of multiplier z
    / √τ at rate q_c, answered by ``pld.SubsampledGaussianPLD``; otherwise the plan accountant
    carries the inner's certified curves through the sampling map
    (``pld.sampling.subsampled_pair``). The parameters broadcast with each other and with the
    argument of ``delta`` / ``epsilon``.

    Parameters
    ----------
    noise_multiplier : array_like
        z, the local noise's standard deviation over the clip norm C at each local step; finite,
        > 0.
    client_sample_rate : array_like
        q_c, each client's probability of taking part in a round, 0 < q_c <= 1.
    local_steps : array_like
        τ, the local DP-SGD steps a sampled client takes in a round, a whole number >= 1 (at most
        10^6).
    rounds : array_like
        R, a whole number >= 1 (at most 2^53).
    local_sample_rate : array_like, default 1.0
        q_l = b / n, each record's probability of joining a local batch, 0 < q_l <= 1; 1 is
        full-batch steps.
    value_discretization_interval : float, optional
        The loss grid's spacing, 0 < h <= 100 (default: the accountants' own choice, from the
        question with full-batch local steps, as ``pld.SubsampledGaussianPLD``'s; a bracket left
        wider than max(1e-2, 1e-2 eps) there warns, ``AccuracyNotMetWarning``).
    accuracy : float, optional
        The width the certified epsilon bracket is refined to, > 0, instead of a grid (as in
        ``pld.SubsampledGaussianPLD``, and the plan accountant's with sampled local batches). With
        sampled local batches on a grid (given, or the default's), a bracket wider than the default
        tolerance is read again under an exponential tilt (below the composition's round-off,
        ``pld.accountants.plan_tilted``: at 100 rounds, delta 1e-10 and 1e-12 within that
        tolerance); given neither, its upper side is then lowered to the RDP conversion's where that
        is smaller (the inner steps' subsampled Gaussian RDP, Poisson-subsampled by Zhu & Wang 2019,
        Thm. 6): finite, not tight.

    Attributes
    ----------
    noise_multiplier, client_sample_rate, local_steps, rounds, local_sample_rate : numpy.ndarray
        The parameters, broadcast.

    Raises
    ------
    ValueError
        A parameter outside its range above; both ``value_discretization_interval`` and
        ``accuracy``; shapes that do not broadcast; a noise multiplier whose loss grid the memory
        cannot hold (named, at ``delta`` / ``epsilon``).
    ParameterTypeError
        A string, bool or None for a number.

    References
    ----------
    Zhu, Dong & Wang 2022, "Optimal accounting of differential privacy via characteristic function"
    (AISTATS), Thm. 11; Abadi et al. 2016 (DP-SGD); McMahan et al. 2017 (FedAvg's local steps).

    Examples
    --------
    >>> from hockeystick.training import RecordLevelFedAvg
    >>> run = RecordLevelFedAvg(noise_multiplier=1.0, client_sample_rate=0.01, local_steps=10, rounds=100)
    >>> round(run.epsilon(1e-5), 2), round(run.instance_level_rule_epsilon(1e-5), 2)
    (23.31, 1.83)
    """

    def __init__(
        self,
        *,
        noise_multiplier: ArrayLike,
        client_sample_rate: ArrayLike,
        local_steps: ArrayLike,
        rounds: ArrayLike,
        local_sample_rate: ArrayLike = 1.0,
        value_discretization_interval: float | None = None,
        accuracy: float | None = None,
    ) -> None:
        if value_discretization_interval is not None and accuracy is not None:
            raise ValueError("give either value_discretization_interval or accuracy, not both")
        rate = {"open_low": True, "open_high": False}
        (z, q_c, tau, r, q_l), self._shape, self._scalar = broadcast_float_arrays(
            noise_multiplier=_validation.positive(noise_multiplier, "noise_multiplier"),
            client_sample_rate=_validation.in_interval(
                client_sample_rate, "client_sample_rate", 0.0, 1.0, **rate
            ),
            local_steps=_validation.positive_integer(local_steps, "local_steps", maximum=10**6),
            rounds=_validation.positive_integer(
                rounds, "rounds", maximum=_validation.MAX_EXACT_INTEGER
            ),
            local_sample_rate=_validation.in_interval(
                local_sample_rate, "local_sample_rate", 0.0, 1.0, **rate
            ),
        )
        self.noise_multiplier, self.client_sample_rate, self.local_steps = z, q_c, tau
        self.rounds, self.local_sample_rate = r, q_l
        self._h = (
            None
            if value_discretization_interval is None
            else checked_interval(value_discretization_interval)
        )
        self._accuracy = (
            None if accuracy is None else _validation.positive_number(accuracy, "accuracy")
        )
        self._runs: dict[int, _FullBatchRounds | _EveryClientRounds | _SampledLocalRounds] = {}

    def _run(self, i: int) -> _FullBatchRounds | _EveryClientRounds | _SampledLocalRounds:
        if i not in self._runs:
            z, q_c, tau, r, q_l = (
                float(a.flat[i])
                for a in (
                    self.noise_multiplier,
                    self.client_sample_rate,
                    self.local_steps,
                    self.rounds,
                    self.local_sample_rate,
                )
            )
            if q_l == 1.0:
                self._runs[i] = _FullBatchRounds(z, q_c, tau, r, self._h, self._accuracy)
            elif q_c == 1.0:
                self._runs[i] = _EveryClientRounds(z, q_l, tau, r, self._h, self._accuracy)
            else:
                self._runs[i] = _SampledLocalRounds(z, q_c, q_l, tau, r, self._h, self._accuracy)
        return self._runs[i]

    def _bracket(
        self, method: Quantity, bound: Bound
    ) -> Callable[[int, float], tuple[float, float]]:
        """Point i's certified (lower, upper) of ``method`` at x, the sides ``bound`` asks for read
        (a side not asked may be its trivial bound)."""

        def bracket(i: int, x: float) -> tuple[float, float]:
            with _in_run_words():
                return self._run(i).bracket(method, x, bound)

        return bracket

    @positional_deprecated("bound")
    def delta(self, epsilon: ArrayLike, *, bound: Bound = "upper") -> Result:
        r"""Certified bound on delta(epsilon) of one record over the R rounds.

        :math:`\delta(\varepsilon)`, the larger hockey-stick divergence of the R-fold composition of
        the round's remove and add pairs (the class docstring).
        """
        _validation.bound_side(bound)
        return answer_pointwise(
            self._shape,
            self._scalar,
            self._bracket("delta", bound),
            _validation.epsilon_values(epsilon),
            bound,
        )

    @positional_deprecated("bound")
    def epsilon(self, delta: ArrayLike, *, bound: Bound = "upper") -> Result:
        r"""Certified bound on the smallest epsilon at which one record is (epsilon, delta)-DP over the R rounds.

        :math:`\varepsilon(\delta) = \inf\{\varepsilon \ge 0 : \delta(\varepsilon) \le \delta\}` of
        ``delta``.
        """
        _validation.bound_side(bound)
        return answer_pointwise(
            self._shape,
            self._scalar,
            self._bracket("epsilon", bound),
            _validation.delta_values(delta),
            bound,
        )

    def instance_level_rule_epsilon(self, delta: ArrayLike) -> Any:
        r"""FL4Health's instance-level figure: R τ independent Poisson steps at rate q_c q_l, for comparison.

        The rule composes every local step as its own subsampled Gaussian at rate q_c q_l (here on
        ``pld.SubsampledGaussianPLD``, the upper side). It is no bound on the run: a record's client
        is sampled once a round, so the record is in all τ local steps of a round or in none, and
        the τ steps' losses add up within a round (the class docstring). It is below ``epsilon``
        wherever τ > 1.

        Parameters
        ----------
        delta : array_like
            0 < delta < 1; broadcasts with the parameters.

        Returns
        -------
        float or numpy.ndarray
            The rule's epsilon (not a certified bound on the run's).

        Raises
        ------
        ValueError
            ``delta`` outside (0, 1) or NaN.
        """
        d = _validation.delta_values(delta)
        rule = SubsampledGaussianPLD(
            sigma=self.noise_multiplier,
            sampling_rate=self.client_sample_rate * self.local_sample_rate,
            rounds=self.rounds * self.local_steps,
            value_discretization_interval=self._h,
            accuracy=self._accuracy,
        )
        with _in_run_words():
            return rule.epsilon(d)

    def __repr__(self) -> str:
        words = (
            "noise_multiplier",
            "client_sample_rate",
            "local_steps",
            "rounds",
            "local_sample_rate",
        )
        values = (_validation.scalar_or_array(getattr(self, w)) for w in words)
        return f"RecordLevelFedAvg({', '.join(f'{w}={v!r}' for w, v in zip(words, values))})"
