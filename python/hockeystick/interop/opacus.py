"""Drop-in accountant for Opacus users: ``privacy_engine.accountant = HockeystickAccountant()``.

``HockeystickAccountant`` implements Opacus's ``IAccountant`` (``opacus/accountants/accountant.py``):
``step(noise_multiplier=, sample_rate=)`` records one DP-SGD step, ``get_epsilon(delta)`` returns a
certified upper bound on epsilon for every step so far (``get_epsilon_bracket`` the certified
(lower, upper)), ``history`` is Opacus's list of (noise_multiplier, sample_rate, steps) with
consecutive identical steps grouped, ``len()`` counts steps, ``mechanism()`` names it, and
``state_dict`` / ``load_state_dict`` save and restore the history.  A step is O(1) amortized
(one comparison, one increment); composition happens when epsilon is asked for: each distinct
(sigma, q) is the Poisson-subsampled Gaussian (Zhu, Dong, Wang 2022, add/remove pairs; q = 1 the
Gaussian, composed exactly), composed by hockeystick's certified PLD (``interop.plan``).

``get_noise_multiplier`` has Opacus's signature and returns the smallest sigma (to
``sigma_tolerance``, relative) whose certified epsilon after the given steps or epochs is at most
``target_epsilon``.

Opacus (and torch) are imported only if installed: with Opacus the class subclasses its
``IAccountant``; without, it is a plain class with the same methods.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any, Callable, Mapping

from .loss_reach import MAX_LOSS_REACH, MAX_NOISE, ParameterOutOfRange, gaussian_reach
from .plan import CompositionPlan, PlanProfile

try:  # pragma: no cover - depends on the environment
    from opacus.accountants.accountant import IAccountant as _Base
    OPACUS = True
except ImportError:  # Opacus needs torch (several GB): the same class without it
    _Base = object  # type: ignore[assignment,misc]
    OPACUS = False

DEFAULT_ACCURACY = 1e-3
MECHANISM = "hockeystick_pld"
_MAX_SIGMA = 1e6

__all__ = ["HockeystickAccountant", "get_noise_multiplier"]


def _step_parameters(noise_multiplier: float, sample_rate: float) -> tuple[float, float]:
    sigma, q = float(noise_multiplier), float(sample_rate)
    if not (sigma >= 0 and math.isfinite(sigma)):
        raise ValueError(f"noise_multiplier must be finite and >= 0, got {noise_multiplier!r}")
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"sample_rate must lie in [0, 1], got {sample_rate!r}")
    if sigma > MAX_NOISE:
        raise ParameterOutOfRange(f"noise_multiplier must be at most {MAX_NOISE:g} (a larger noise leaves a privacy "
                                  f"loss below double precision, where no certified bound is computed), got "
                                  f"{noise_multiplier!r}")
    if 0.0 < q < 1.0 and sigma > 0 and not gaussian_reach(1.0 / sigma) <= MAX_LOSS_REACH:
        raise ParameterOutOfRange(f"noise_multiplier = {noise_multiplier!r} lets one step's privacy loss reach "
                                  f"{gaussian_reach(1.0 / sigma):.4g}, beyond {MAX_LOSS_REACH:g} (the loss grid "
                                  f"would need tens of millions of points): no certified bound is computed; use "
                                  f"more noise")
    return sigma, q


def _plan(history: list) -> CompositionPlan:
    plan = CompositionPlan()
    for sigma, q, steps in history:
        sigma, q = _step_parameters(sigma, q)
        if q == 0 or steps == 0:
            continue
        if sigma == 0:
            plan.non_private = True
        elif q == 1:
            plan.add_gaussian(1.0 / sigma, int(steps))
        else:
            plan.add(("poisson_gaussian", sigma, q), int(steps))
    return plan


class HockeystickAccountant(_Base):  # type: ignore[misc,valid-type]
    """Opacus ``IAccountant`` over hockeystick's certified PLD composition.

    ``accuracy``: the width aimed for of the certified epsilon bracket (the loss grid is refined
    until the bracket is that narrow); the reported epsilon is the bracket's upper end.
    """

    def __init__(self, accuracy: float = DEFAULT_ACCURACY):
        a = float(accuracy)
        if not (a > 0 and math.isfinite(a)):
            raise ValueError(f"accuracy must be positive and finite, got {accuracy!r}")
        self.accuracy = a
        self._history: list[tuple[float, float, int]] = []
        self._last: tuple[Any, Any] | None = None  # the arguments of the last step, as given
        self._pending = 0  # steps of the last entry not yet written into it
        self._profile: PlanProfile | None = None
        self._profile_of: list | None = None

    @property
    def history(self) -> list[tuple[float, float, int]]:
        """Opacus's list of (noise_multiplier, sample_rate, steps), consecutive identical steps grouped."""
        if self._pending:
            sigma, q, n = self._history[-1]
            self._history[-1] = (sigma, q, n + self._pending)
            self._pending = 0
        return self._history

    @history.setter
    def history(self, value: list[tuple[float, float, int]]) -> None:
        self._history = value
        self._last = None
        self._pending = 0

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """Record one step; consecutive identical steps share one history entry (O(1): a repeat of
        the last arguments, as given, only increments a counter)."""
        if self._last is not None and noise_multiplier == self._last[0] and sample_rate == self._last[1]:
            self._pending += 1
            return
        sigma, q = _step_parameters(noise_multiplier, sample_rate)
        history = self.history  # writes the pending count
        if history and history[-1][0] == sigma and history[-1][1] == q:
            history[-1] = (sigma, q, history[-1][2] + 1)
        else:
            history.append((sigma, q, 1))
        self._last = (noise_multiplier, sample_rate)

    def _current(self) -> PlanProfile:
        if self._profile is None or self._profile_of != self.history:
            self._profile = PlanProfile(_plan(self.history), None, self.accuracy)
            self._profile_of = list(self.history)
        return self._profile

    def get_epsilon_bracket(self, delta: float) -> tuple[float, float]:
        """Certified (lower, upper) on epsilon at ``delta`` for all steps so far."""
        d = float(delta)
        if not d >= 0:
            raise ValueError(f"delta must be >= 0 (and not NaN), got {delta!r}")
        return self._current().epsilon(d)

    def get_epsilon(self, delta: float, *args: Any, **kwargs: Any) -> float:
        """Certified upper bound on epsilon at ``delta`` for all steps so far."""
        return self.get_epsilon_bracket(delta)[1]

    def __len__(self) -> int:
        return sum(steps for _, _, steps in self.history)

    @classmethod
    def mechanism(cls) -> str:
        return MECHANISM

    def get_optimizer_hook_fn(self, sample_rate: float) -> Callable[[Any], None]:
        """Opacus's hook: one ``step`` per optimizer step, at the rate times the accumulated iterations."""
        def hook_fn(optim: Any) -> None:
            self.step(noise_multiplier=optim.noise_multiplier,
                      sample_rate=sample_rate * optim.accumulated_iterations)
        return hook_fn

    def state_dict(self, destination: Any = None) -> Any:
        """The history and the mechanism name (Opacus's layout)."""
        if destination is None:
            destination = OrderedDict()
        destination["history"] = list(self.history)
        destination["mechanism"] = self.mechanism()
        return destination

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Restore a ``state_dict`` (ValueError if empty, incomplete or of another mechanism)."""
        if not state_dict:
            raise ValueError("state dict is either None or empty and hence cannot be loaded")
        for key in ("history", "mechanism"):
            if key not in state_dict:
                raise ValueError(f"state_dict does not have the key `{key}`")
        if state_dict["mechanism"] != self.mechanism():
            raise ValueError(f"state_dict of {state_dict['mechanism']} cannot be loaded into an accountant "
                             f"with mechanism {self.mechanism()}")
        history = [(float(s), float(q), int(n)) for s, q, n in state_dict["history"]]
        for s, q, n in history:
            _step_parameters(s, q)
            if n < 0:
                raise ValueError(f"step counts in the history must be >= 0, got {n}")
        self.history = history


def get_noise_multiplier(*, target_epsilon: float, target_delta: float, sample_rate: float,
                         epochs: int | None = None, steps: int | None = None,
                         accountant: str = MECHANISM, epsilon_tolerance: float = 0.01,
                         sigma_tolerance: float = 1e-4, accuracy: float = DEFAULT_ACCURACY,
                         **kwargs: Any) -> float:
    """Smallest noise multiplier whose certified epsilon after ``steps`` (or ``epochs / sample_rate``)
    Poisson-sampled steps at ``sample_rate`` is <= ``target_epsilon`` at ``target_delta``.

    Opacus's signature (``accountant`` and ``epsilon_tolerance`` are accepted for compatibility; the
    search is a bisection on sigma to ``sigma_tolerance`` relative, on the certified upper bound,
    so the returned sigma always meets the target).  Raises ValueError for an unreachable budget.
    """
    if (steps is None) == (epochs is None):
        raise ValueError("get_noise_multiplier takes as input EITHER a number of steps or a number of epochs")
    if steps is None:
        steps = int(epochs / sample_rate)  # type: ignore[operator]
    if isinstance(steps, bool) or int(steps) != steps or steps < 1:
        raise ValueError(f"steps must be a positive integer, got {steps!r}")
    eps_target = float(target_epsilon)
    if not (eps_target > 0 and math.isfinite(eps_target)):
        raise ValueError(f"target_epsilon must be positive and finite, got {target_epsilon!r}")
    if not 0 < float(target_delta) < 1:
        raise ValueError(f"target_delta must lie strictly between 0 and 1, got {target_delta!r}")
    _step_parameters(1.0, sample_rate)

    def epsilon(sigma: float) -> float:
        acc = HockeystickAccountant(accuracy=accuracy)
        acc.history = [(sigma, float(sample_rate), int(steps))]
        return acc.get_epsilon(target_delta)

    low, high = 0.0, 1.0
    while epsilon(high) > eps_target:
        low, high = high, 2.0 * high
        if high > _MAX_SIGMA:
            raise ValueError("The privacy budget is too low: no noise multiplier up to 1e6 reaches it.")
    while high - low > sigma_tolerance * high:
        mid = 0.5 * (low + high)
        if epsilon(mid) <= eps_target:
            high = mid
        else:
            low = mid
    return high
