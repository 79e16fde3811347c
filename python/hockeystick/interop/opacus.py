"""Drop-in accountant for Opacus users: ``privacy_engine.accountant = HockeystickOpacusAccountant()``.

``HockeystickOpacusAccountant`` implements Opacus's ``IAccountant``
(``opacus/accountants/accountant.py``): ``step(noise_multiplier=, sample_rate=)`` records one DP-SGD
step, ``get_epsilon(delta)`` returns a certified upper bound on epsilon for every step so far
(``get_epsilon_bracket`` the certified (lower, upper)), ``history`` is Opacus's list of
(noise_multiplier, sample_rate, steps) with consecutive identical steps grouped, ``len()`` counts
steps, ``mechanism()`` names it, and ``state_dict`` / ``load_state_dict`` save and restore the
history.  A step is O(1) amortized (one comparison, one increment); composition happens when epsilon
is asked for: each distinct (sigma, q) is the Poisson-subsampled Gaussian (Zhu, Dong, Wang 2022,
add/remove pairs; q = 1 the Gaussian, composed exactly), composed by hockeystick's certified PLD
(``pld.accountants.plan``).

Opacus's registry: with Opacus installed, importing this module registers the class under the names
``REGISTERED_NAMES`` ("hockeystick_pld", its ``mechanism()``, and "hockeystick") wherever Opacus has
no other accountant by that name, so ``PrivacyEngine(accountant="hockeystick_pld")`` builds it and
``make_private_with_epsilon`` (whose ``get_noise_multiplier`` asks ``create_accountant`` for the
engine's mechanism) calibrates with it; ``register_with_opacus()`` does the same explicitly and says
where a name is held by another class.  Nothing is registered, and torch is not imported, until this
module is imported: ``import hockeystick`` does not import it.

``get_noise_multiplier`` has Opacus's signature and returns the smallest sigma (to
``sigma_tolerance``, relative) whose certified epsilon after the given steps or epochs is at most
``target_epsilon``.

Both compute on the grid ``training.DPSGD`` and ``pld.SubsampledGaussianPLD`` use by default (a
fixed loss spacing ``pld.mechanisms.constructors.DEFAULT_INTERVAL``), so one run gets one epsilon
and one target one noise multiplier whichever of them is asked (``accuracy=`` refines the grid
instead, as there).

Opacus (and torch) are imported only if installed: with Opacus the class subclasses its
``IAccountant``; without, it is a plain class with the same methods.

Examples
--------
>>> from hockeystick.interop.opacus import HockeystickOpacusAccountant, get_noise_multiplier
>>> accountant = HockeystickOpacusAccountant()
>>> for _ in range(100):
...     accountant.step(noise_multiplier=1.0, sample_rate=0.01)
>>> accountant.history, round(accountant.get_epsilon(1e-5), 6)
([(1.0, 0.01, 100)], 0.718036)
>>> round(get_noise_multiplier(target_epsilon=1.0, target_delta=1e-5, sample_rate=0.01, steps=100), 6)
0.902025
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from ..base import validation as _validation
from ..base.moved import renamed
from ..pld.accountants import (
    CompositionPlan,
    PlanProfile,
    QuestionEpsilon,
    single_subsampled_gaussian,
)
from ..pld.mechanisms import DEFAULT_INTERVAL
from ..pld.question import described_segments, of_specs
from ..pld.reads import max_of_outputs_epsilon
from ..pld.refine import central_limit_start
from ..rdp import DEFAULT_ORDERS, gaussian_rdp, rdp_to_epsilon, subsampled_gaussian_rdp
from .loss_reach import MAX_LOSS_REACH, MAX_NOISE, TAIL_RADII, ParameterOutOfRange, gaussian_reach

if (
    TYPE_CHECKING
):  # checked as the plain class, with or without Opacus installed: every method is its own
    _Base = object
    OPACUS: bool
else:
    try:  # pragma: no cover - depends on the environment
        from opacus.accountants.accountant import IAccountant as _Base

        OPACUS = True
    except ImportError:  # Opacus needs torch (several GB): the same class without it
        _Base = object
        OPACUS = False

MECHANISM = "hockeystick_pld"
_MAX_SIGMA = 1e6
_SIGMA_TOLERANCE = 1e-10  # get_noise_multiplier's default: calibrate's rtol, so the two agree

REGISTERED_NAMES = (MECHANISM, "hockeystick")

__all__ = [
    "REGISTERED_NAMES",
    "HockeystickOpacusAccountant",
    "get_noise_multiplier",
    "register_with_opacus",
]


def _step_parameters(
    noise_multiplier: Any, sample_rate: Any, where: str = ""
) -> tuple[float, float]:
    """(sigma, q) of one step, or a refusal naming the argument (``where`` prefixes the name: a history entry).

    sigma must be finite and > 0: a step without noise has no finite epsilon, so no bound is
    certified; q lies in [0, 1] (q = 0: a step that samples no record, which spends nothing)."""
    sigma = _validation.single(noise_multiplier, f"{where}noise_multiplier")
    q = _validation.single(sample_rate, f"{where}sample_rate")
    _validation.positive(sigma, f"{where}noise_multiplier")
    _validation.in_interval(q, f"{where}sample_rate", 0.0, 1.0, open_low=False, open_high=False)
    if sigma > MAX_NOISE:
        raise ParameterOutOfRange(
            f"{where}noise_multiplier must be at most {MAX_NOISE:g} (a larger noise leaves a "
            f"privacy loss below double precision, where no certified bound is computed), got "
            f"{_validation.describe(noise_multiplier)}"
        )
    if 0.0 < q < 1.0 and not gaussian_reach(1.0 / sigma) <= MAX_LOSS_REACH:
        raise ParameterOutOfRange(
            f"{where}noise_multiplier must be at least {_SMALLEST_SIGMA:.6g} for a subsampled "
            f"step, got {_validation.describe(noise_multiplier)}: its privacy loss would reach "
            f"{gaussian_reach(1.0 / sigma):.4g}, beyond {MAX_LOSS_REACH:g} (the loss grid would "
            f"need tens of millions of points), and no certified bound is computed; use more noise"
        )
    return sigma, q


def _smallest_sigma() -> float:
    """The least sigma whose subsampled step ``_step_parameters`` accepts: gaussian_reach(1 / sigma)
    <= MAX_LOSS_REACH, from the root r = sqrt(T^2 + 2 MAX_LOSS_REACH) - T of r^2 / 2 + T r =
    MAX_LOSS_REACH (T = TAIL_RADII), nudged up to the first double the check accepts."""
    sigma = 1.0 / (math.sqrt(TAIL_RADII**2 + 2.0 * MAX_LOSS_REACH) - TAIL_RADII)
    while not gaussian_reach(1.0 / sigma) <= MAX_LOSS_REACH:
        sigma = math.nextafter(sigma, math.inf)
    return sigma


_SMALLEST_SIGMA = _smallest_sigma()


def _history(entries: Any) -> list[tuple[float, float, int]]:
    """Opacus's history, checked entry by entry: (noise_multiplier, sample_rate, steps), steps a count >= 0."""
    if isinstance(entries, (str, bytes)) or not hasattr(entries, "__iter__"):
        raise _validation.ParameterTypeError(
            f"history must be a list of (noise_multiplier, sample_rate, steps), got {_validation.describe(entries)}"
        )
    out = []
    for i, entry in enumerate(entries):
        if isinstance(entry, (str, bytes)) or not hasattr(entry, "__len__") or len(entry) != 3:
            raise _validation.ParameterTypeError(
                f"history[{i}] must be a (noise_multiplier, sample_rate, steps) "
                f"triple, got {_validation.describe(entry)}"
            )
        sigma, q = _step_parameters(entry[0], entry[1], f"history[{i}] ")
        steps = _validation.count(entry[2], f"history[{i}] steps", minimum=0)
        out.append((sigma, q, steps))
    return out


def _plan(history: list[tuple[float, float, int]]) -> CompositionPlan:
    plan = CompositionPlan()
    for sigma, q, steps in history:
        if q == 0 or steps == 0:
            continue
        if q == 1:
            plan.add_gaussian(1.0 / sigma, steps, ("gaussian", sigma, 1.0))
        else:
            plan.add(("poisson_gaussian", sigma, q), steps)
    return plan


class HockeystickOpacusAccountant(_Base):
    """Opacus ``IAccountant`` over hockeystick's certified PLD composition.

    ``step(noise_multiplier=, sample_rate=)`` records one DP-SGD step: the Poisson-subsampled
    Gaussian (add/remove neighbours; sample_rate 1 the Gaussian itself). ``get_epsilon(delta)`` is
    the upper end of the certified bracket ``get_epsilon_bracket(delta)`` over every step so far.
    ``history`` is Opacus's list of (noise_multiplier, sample_rate, steps), consecutive identical
    steps grouped; ``len()`` counts the steps; ``state_dict`` / ``load_state_dict`` save and restore
    the history.

    Parameters
    ----------
    accuracy : float, optional
        Finite and > 0: the width aimed for of the certified epsilon bracket.  Steps of one noise
        multiplier and rate get ``training.DPSGD``'s bracket at that accuracy
        (``pld.SubsampledGaussianPLD(sigma, q, steps, accuracy=accuracy)``); others a loss grid
        refined until the bracket is that narrow, intersected with the default's bracket, so that
        no upper side is above the default's; a bracket still wider than asked warns
        (``AccuracyNotMetWarning``).
    value_discretization_interval : float, optional
        A fixed loss-grid spacing, finite and > 0 (1e-4, ``DEFAULT_INTERVAL``, is dp_accounting's).
        Default (neither given): the grid is chosen when the delta is asked
        (``pld.accountants.question_plan``): steps of one noise multiplier and rate get
        ``training.DPSGD``'s bracket, others the 1e-4 grid's.

    Raises
    ------
    ValueError
        When both are given, or one is not finite and > 0.
    ParameterTypeError
        When one is a string, a bool or an array.

    Examples
    --------
    >>> from hockeystick.interop.opacus import HockeystickOpacusAccountant
    >>> accountant = HockeystickOpacusAccountant()
    >>> accountant.step(noise_multiplier=1.0, sample_rate=0.01)
    >>> len(accountant), accountant.mechanism()
    (1, 'hockeystick_pld')
    """

    def __init__(
        self, accuracy: float | None = None, value_discretization_interval: float | None = None
    ):
        self.accuracy, self.value_discretization_interval = _grid(
            accuracy, value_discretization_interval
        )
        self._from_question = accuracy is None and value_discretization_interval is None
        self._question = QuestionEpsilon(self.accuracy)
        self._history: list[tuple[float, float, int]] = []
        self._last: tuple[float, float] | None = None  # the last step's (sigma, q), as checked
        self._pending = 0  # steps of the last entry not yet written into it
        self._profile: PlanProfile | None = None
        self._profile_of: list[tuple[float, float, int]] | None = None
        # the default grid's profile beside the accuracy's, and the history it composes
        self._default_profile: tuple[list[tuple[float, float, int]], PlanProfile] | None = None

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
        self._history = _history(value)
        self._last = None
        self._pending = 0

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """Record one Poisson-subsampled Gaussian step; consecutive identical steps share one history entry.

        A repeat of the last arguments, as given, only increments a counter (O(1)).

        Parameters
        ----------
        noise_multiplier : float
            σ, the noise standard deviation per unit clipping norm, finite, > 0 and at most 1e150;
            for a subsampled step (0 < sample_rate < 1) at least 0.00934847 (below it the privacy
            loss reaches past the grid a certified bound is computed on).
        sample_rate : float
            q, each record's probability of joining the step's batch, in [0, 1] (0 spends nothing).

        Raises
        ------
        ValueError
            When an argument is out of its range (``ParameterOutOfRange`` for the noise bounds).
        ParameterTypeError
            When an argument is a string, a bool, None or an array.
        """
        if (
            type(noise_multiplier) is float
            and type(sample_rate) is float
            and (noise_multiplier, sample_rate) == self._last
        ):
            self._pending += 1
            return
        sigma, q = _step_parameters(noise_multiplier, sample_rate)
        history = self.history  # writes the pending count
        if history and history[-1][0] == sigma and history[-1][1] == q:
            history[-1] = (sigma, q, history[-1][2] + 1)
        else:
            history.append((sigma, q, 1))
        self._last = (sigma, q)

    def _current(self) -> PlanProfile:
        if self._profile is None or self._profile_of != self.history:
            self._profile = PlanProfile(
                _plan(self.history), self.value_discretization_interval, self.accuracy
            )
            self._profile_of = list(self.history)
        return self._profile

    def _default(self) -> PlanProfile:
        """The history's profile on the default grid (``DEFAULT_INTERVAL``), beside the accuracy's."""
        if self._default_profile is None or self._default_profile[0] != self.history:
            self._default_profile = (
                list(self.history),
                PlanProfile(_plan(self.history), DEFAULT_INTERVAL, None),
            )
        return self._default_profile[1]

    def get_epsilon_bracket(self, delta: float) -> tuple[float, float]:
        """Certified (lower, upper) on epsilon at ``delta`` for all steps so far.

        Where the record is sampled at all with probability at most ``delta`` (sum of steps x
        sample_rate, ``rarely_sampled``), epsilon is 0 exactly, whatever the noise: (0, 0) without
        composing.

        Parameters
        ----------
        delta : float
            δ, strictly between 0 and 1.

        Returns
        -------
        tuple of float
            (lower, upper), lower <= the true epsilon <= upper.

        Raises
        ------
        ValueError
            When ``delta`` is not strictly between 0 and 1.
        ParameterTypeError
            When ``delta`` is a string, a bool, None or an array.
        """
        d = _validation.delta_target(delta, "delta")
        if rarely_sampled(self.history, d):
            return 0.0, 0.0
        if self._from_question:  # the grid chosen by the question (pld.accountants.question_plan)
            plan = _plan(self.history)
            return self._question.epsilon(
                plan,
                single_subsampled_gaussian(plan),
                self._current,
                d,
                add_or_remove=_add_or_remove(plan),
            )
        if self.accuracy is not None:  # to the accuracy (question_plan)
            plan = _plan(self.history)
            return self._question.epsilon_to_accuracy(
                plan,
                single_subsampled_gaussian(plan),
                self._current,
                self._default,
                d,
                add_or_remove=_add_or_remove(plan),
            )
        return self._current().epsilon(d)

    def get_epsilon(self, delta: float, *args: Any, **kwargs: Any) -> float:
        """Certified upper bound on epsilon at ``delta`` for all steps so far.

        Parameters
        ----------
        delta : float
            δ, strictly between 0 and 1.
        *args, **kwargs
            Accepted for Opacus's signature and ignored.

        Returns
        -------
        float
            The upper end of ``get_epsilon_bracket(delta)``.

        Raises
        ------
        ValueError
            When ``delta`` is not strictly between 0 and 1.
        ParameterTypeError
            When ``delta`` is a string, a bool, None or an array.
        """
        return self.get_epsilon_bracket(delta)[1]

    def __len__(self) -> int:
        return sum(steps for _, _, steps in self.history)

    @classmethod
    def mechanism(cls) -> str:
        return MECHANISM

    def get_optimizer_hook_fn(self, sample_rate: float) -> Callable[[Any], None]:
        """Opacus's hook: one ``step`` per optimizer step, at the rate times the accumulated iterations."""

        def hook_fn(optim: Any) -> None:
            self.step(
                noise_multiplier=optim.noise_multiplier,
                sample_rate=sample_rate * optim.accumulated_iterations,
            )

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
            raise ValueError(
                f"state_dict of {state_dict['mechanism']} cannot be loaded into an accountant "
                f"with mechanism {self.mechanism()}"
            )
        self.history = state_dict["history"]


def register_with_opacus(*, force: bool = False) -> tuple[str, ...]:
    """Register ``HockeystickOpacusAccountant`` in Opacus's accountant registry under ``REGISTERED_NAMES``.

    Then ``PrivacyEngine(accountant="hockeystick_pld")`` (or ``"hockeystick"``) builds it, and
    ``PrivacyEngine.make_private_with_epsilon``, whose
    ``opacus.accountants.utils.get_noise_multiplier`` builds an accountant of the engine's mechanism
    with ``create_accountant``, calibrates the noise with it (Opacus's bisection to its
    ``epsilon_tolerance`` on the certified epsilon).  Importing this module with Opacus installed
    registers every name no other class holds already; this function is the explicit form.  A name
    already holding ``HockeystickOpacusAccountant`` is left as it is (calling it twice is harmless).

    Parameters
    ----------
    force : bool, default False
        Whether to replace another class registered under one of the names (Opacus's ``force``).

    Returns
    -------
    tuple of str
        The names under which Opacus now builds ``HockeystickOpacusAccountant``:
        ``("hockeystick_pld", "hockeystick")``.

    Raises
    ------
    ModuleNotFoundError
        When Opacus (which needs torch) does not import.
    ValueError
        When another accountant class holds one of the names and ``force`` is False (nothing is
        registered).
    ParameterTypeError
        When ``force`` is not a bool.
    """
    if not isinstance(force, bool):
        raise _validation.ParameterTypeError(
            f"force must be True or False, got {_validation.describe(force)}"
        )
    if not OPACUS:
        raise ModuleNotFoundError(
            "register_with_opacus needs Opacus, which does not import here (it needs torch): "
            'pip install opacus (with torch\'s CPU build: pip install "torch==<version>+cpu" --index-url '
            "https://download.pytorch.org/whl/cpu); HockeystickOpacusAccountant works without it"
        )
    held = _held_by_others()
    if held and not force:
        raise ValueError(
            "Opacus already has another accountant registered as "
            + ", ".join(f"{name!r} ({type(holder).__name__})" for name, holder in held.items())
            + ": pass force=True to replace it, or build HockeystickOpacusAccountant() and assign it to "
            "privacy_engine.accountant"
        )
    from opacus.accountants import register_accountant  # lazy: Opacus imports torch

    for name in REGISTERED_NAMES:
        register_accountant(name, HockeystickOpacusAccountant, force=True)
    return REGISTERED_NAMES


def _held_by_others() -> dict[str, Any]:
    """The names of ``REGISTERED_NAMES`` for which Opacus builds another class, with an instance of it."""
    from opacus.accountants import create_accountant  # lazy: Opacus imports torch

    held = {}
    for name in REGISTERED_NAMES:
        try:
            holder = create_accountant(name)
        except ValueError:  # not registered (Opacus's "Unexpected accounting mechanism")
            continue
        if not isinstance(holder, HockeystickOpacusAccountant):
            held[name] = holder
    return held


def _register_free_names() -> None:
    """Register the class under each name of ``REGISTERED_NAMES`` that no other class holds (on import)."""
    from opacus.accountants import register_accountant  # lazy: Opacus imports torch

    held = _held_by_others()
    for name in REGISTERED_NAMES:
        if name not in held:
            register_accountant(name, HockeystickOpacusAccountant, force=True)


def rarely_sampled(history: list[tuple[float, float, int]], delta: float) -> bool:
    """Whether the steps of ``history`` sample the record at all with probability at most ``delta``:
    then delta(0) <= P[sampled at least once] = 1 - prod (1 - q)^steps <= sum steps q (the outputs
    on the two datasets differ only on that event), so epsilon(delta) = 0.  The sum is exact but for
    its products' and additions' roundings (a few u relative), which the factor 1 + 2^-40 covers."""
    return math.fsum(steps * q for _, q, steps in history) * (1.0 + 2.0**-40) <= delta


def _rdp_meets(sigma: float, q: float, steps: int, epsilon: float, delta: float) -> bool:
    """Whether the RDP bound of the run (``hockeystick.rdp``: the subsampled Gaussian's curve,
    Mironov, Talwar & Zhang 2019, converted as dp_accounting converts it) puts its epsilon at
    ``delta`` below ``epsilon`` by a margin of 1e-9 relative: an upper bound on the run's epsilon,
    so sigma then meets the target."""
    with np.errstate(over="ignore"):
        curve = steps * (
            gaussian_rdp(sigma, DEFAULT_ORDERS)
            if q == 1.0
            else subsampled_gaussian_rdp(sigma, q, DEFAULT_ORDERS)
        )
    bound = float(rdp_to_epsilon(np.where(np.isnan(curve), np.inf, curve), DEFAULT_ORDERS, delta))
    return bound * (1.0 + 1e-9) <= epsilon


def _add_or_remove(plan: CompositionPlan) -> bool:
    """Whether the question reads ``plan`` as add-or-remove neighbours: Opacus's steps are
    Poisson-subsampled Gaussians under add-or-remove (its RDP and PRV accountants' relation), whose
    reads (a wide or unbounded upper side lowered to the plan's RDP conversion) apply wherever the
    folded Gaussians' radius^2 is finite; past the doubles (a step of sigma 1e-300 at rate 1) the
    plan's own bracket already reads epsilon unbounded, and no RDP curve of it exists."""
    return math.isfinite(plan.gaussian_r2)


def _grid(accuracy: Any, value_discretization_interval: Any) -> tuple[float | None, float | None]:
    """(accuracy, spacing) checked: one of them, or neither (then the facade's fixed spacing)."""
    if accuracy is not None and value_discretization_interval is not None:
        raise ValueError("give either value_discretization_interval or accuracy, not both")
    if accuracy is not None:
        return float(
            _validation.positive(_validation.single(accuracy, "accuracy"), "accuracy")
        ), None
    if value_discretization_interval is None:
        return None, DEFAULT_INTERVAL
    h = _validation.single(value_discretization_interval, "value_discretization_interval")
    return None, float(_validation.positive(h, "value_discretization_interval"))


def _steps_of_epochs(epochs: float, sample_rate: float) -> int:
    """ceil(epochs / sample_rate) from the exact quotient of the two doubles (Opacus truncates it:
    rounding up never understates the steps taken), refused above 2^53 steps."""
    steps = math.ceil(Fraction(epochs) / Fraction(sample_rate))
    if steps > _validation.MAX_EXACT_INTEGER:
        raise ValueError(
            f"epochs / sample_rate must be at most 2^53 steps, got {epochs!r} / {sample_rate!r} "
            f"(about 10^{len(str(steps)) - 1} steps); give fewer epochs or a larger sample_rate"
        )
    return steps


def get_noise_multiplier(
    *,
    target_epsilon: float,
    target_delta: float,
    sample_rate: float,
    epochs: float | None = None,
    steps: int | None = None,
    accountant: str = MECHANISM,
    epsilon_tolerance: float = 0.01,
    sigma_tolerance: float = _SIGMA_TOLERANCE,
    accuracy: float | None = None,
    **kwargs: Any,
) -> float:
    """Smallest noise multiplier whose certified epsilon after the given steps meets ``target_epsilon``.

    The run is ``steps`` (or ceil(``epochs / sample_rate``)) Poisson-sampled Gaussian steps at
    ``sample_rate``; its certified epsilon at ``target_delta`` must be <= ``target_epsilon``.
    Opacus's signature (``accountant`` and ``epsilon_tolerance`` are accepted for compatibility).
    The criterion is ``HockeystickOpacusAccountant``'s (on the facade's grid by default, or refined
    to ``accuracy``): the run's certified epsilon at ``target_delta`` at most ``target_epsilon``,
    found to ``sigma_tolerance`` (relative; default 1e-10, calibrate's) from the central-limit
    estimate by bracketing and the Illinois method on epsilon against log sigma; the returned sigma
    was evaluated and met the target.  On the default grid it is the answer of ``calibrate("dp_sgd",
    "noise_multiplier", ...)`` for the same steps (which asks for delta at the target epsilon of the
    same accountant) to within 1e-8.  Epochs count ceil(epochs / sample_rate) steps, the exact
    quotient rounded up (Opacus truncates it; ``training.DPSGD`` counts the same with
    ``steps_per_epoch="opacus"``).  The search runs down to ``_SMALLEST_SIGMA`` (0.0093: below it a
    subsampled step is refused) for sample_rate < 1, to ``tiny ** 0.25`` for sample_rate = 1 (the
    exact Gaussian); a sigma at which no certified bound is computed counts as not meeting the
    target, so where every sigma meets it the answer is the least sigma searched whose bound is
    computed.  The floor is returned at once where it meets the target by a bound that needs no
    composition: steps x sample_rate <= target_delta (epsilon 0, ``rarely_sampled``) or the run's
    RDP epsilon (an upper bound) at most target_epsilon (a target past the largest finite epsilon,
    1e308).  target_epsilon = +inf returns 0.0 (no noise needed).  target_epsilon = 0 asks for
    delta(0), the total variation distance of the run's two output distributions, at most
    target_delta: it falls to 0 as sigma grows, so a finite sigma meets it (at sample_rate 0.01, 10
    steps and target_delta 1e-5: about 3.2e3).

    Parameters
    ----------
    target_epsilon : float
        ε >= 0 (0 bounds the total variation distance), +inf allowed (returns 0.0).
    target_delta : float
        δ, strictly between 0 and 1.
    sample_rate : float
        q, the Poisson sampling rate of every step, in (0, 1].
    epochs : float, optional
        Finite and > 0: the run takes ceil(epochs / sample_rate) steps (at most 2^53). Give
        ``epochs`` or ``steps``, not both.
    steps : int, optional
        The number of steps, an integer >= 1.
    accountant : str, default "hockeystick_pld"
        Accepted for Opacus's signature and ignored.
    epsilon_tolerance : float, default 0.01
        Finite and > 0; accepted for Opacus's signature and otherwise ignored.
    sigma_tolerance : float, default 1e-10
        The relative width to which sigma is found, in [2^-52, 1).
    accuracy : float, optional
        Finite and > 0: the certified bracket's target width (the grid refined for it), instead of
        the fixed default grid.
    **kwargs
        Accepted for Opacus's signature and ignored.

    Returns
    -------
    float
        The noise multiplier: the smallest sigma searched whose certified epsilon meets the target.

    Raises
    ------
    ValueError
        When the budget is unreachable (no sigma up to 1e6 meets it), both or neither of ``epochs``
        and ``steps`` are given, or an argument is out of its range (naming it).
    ParameterTypeError
        When a numeric argument is a string, a bool or an array.
    """
    if (steps is None) == (epochs is None):
        raise ValueError(
            "get_noise_multiplier takes as input EITHER a number of steps or a number of epochs"
        )
    eps_target = _validation.epsilon_target(target_epsilon, "target_epsilon")
    delta = _validation.delta_target(target_delta, "target_delta")
    q = float(
        _validation.in_interval(
            _validation.single(sample_rate, "sample_rate"),
            "sample_rate",
            0.0,
            1.0,
            open_low=True,
            open_high=False,
        )
    )
    if steps is None:
        e = float(_validation.positive(_validation.single(epochs, "epochs"), "epochs"))
        count = _steps_of_epochs(e, q)
    else:
        count = _validation.count(steps, "steps")
    rtol = float(
        _validation.in_interval(
            _validation.single(sigma_tolerance, "sigma_tolerance"),
            "sigma_tolerance",
            2.0**-52,
            1.0,
            open_low=False,
            open_high=True,
        )
    )
    _validation.positive(
        _validation.single(epsilon_tolerance, "epsilon_tolerance"), "epsilon_tolerance"
    )
    acc_width, _ = _grid(accuracy, None)
    if eps_target == math.inf:  # every run meets it, one without noise included
        return 0.0
    floor = _SMALLEST_SIGMA if q < 1.0 else float(np.finfo(float).tiny) ** 0.25
    if rarely_sampled([(floor, q, count)], delta) or _rdp_meets(floor, q, count, eps_target, delta):
        return floor  # the least sigma searched meets the target: no PLD of its wide loss window is composed
    search = _SigmaSearch(q, count, eps_target, delta, acc_width)
    # the central-limit value where its solve is defined (epsilon <= 1e307; 1 where it has none);
    # beyond, every sigma all but meets the target, and the search starts at the floor
    estimate = (
        central_limit_start(
            "sigma",
            np.array([eps_target]),
            np.array([delta]),
            {"sampling_rate": q, "rounds": count},
        )
        if eps_target <= 1e307
        else np.array([floor])
    )
    start = 1.0 if estimate is None else float(estimate[0])
    return search.solve(min(max(start, floor), _MAX_SIGMA), floor, rtol)


_TINY = 5e-324


class _SigmaSearch:
    """The smallest sigma whose certified epsilon at the target delta meets the target epsilon, for one run."""

    def __init__(self, q: float, steps: int, epsilon: float, delta: float, accuracy: float | None):
        self.q, self.steps, self.epsilon, self.delta, self.accuracy = (
            q,
            steps,
            epsilon,
            delta,
            accuracy,
        )

    def ruled_out(self, sigma: float) -> bool:
        """Whether sigma is known to miss the target without a composition: the max-of-outputs test's
        certified lower epsilon of the run at the target delta (``pld.reads.max_of_outputs``, well
        under a millisecond) above the target, so the certified upper side ``excess`` reads is too.
        The run's segments are its description's (``pld.question.described_segments``: none for
        sample_rate 1, the Gaussian, which no sigma is ruled out of)."""
        run = of_specs([(("poisson_gaussian", sigma, self.q), self.steps)])
        segments = described_segments(run)
        return segments is not None and max_of_outputs_epsilon(segments, self.delta) > self.epsilon

    def excess(self, sigma: float) -> float:
        """Certified epsilon at the target delta minus the target at sigma, as
        ``HockeystickOpacusAccountant`` reports it for the run: <= 0 meets the target (never exactly
        0), +inf where no certified bound is computed (not known to meet it)."""
        accountant = HockeystickOpacusAccountant(accuracy=self.accuracy)
        try:
            accountant.history = [(sigma, self.q, self.steps)]
            epsilon = accountant.get_epsilon(self.delta)
        except ValueError:
            return math.inf
        f = epsilon - self.epsilon
        return min(f, -_TINY) if epsilon <= self.epsilon else max(f, _TINY)

    def solve(self, start: float, floor: float, rtol: float) -> float:
        """Bracket from ``start`` by factors 1.2, 1.44, 2.07, ... (squared each step), then the
        Illinois method on log sigma until the bracket is ``rtol`` wide; the end meeting the target
        is returned."""
        if self.ruled_out(start):
            return self._walk_up(start, None, rtol)
        x, f = start, self.excess(start)
        if f > 0:
            return self._walk_up(x, f, rtol)
        # meets the target: walk down until it does not, or to the floor
        factor = 1.2
        good, fgood = x, f
        while True:
            x = max(good / factor, floor)
            f = self.excess(x)
            if f > 0:
                return self._refine(good, fgood, x, f, rtol)
            good, fgood = x, f
            if x == floor:
                return floor
            factor *= factor

    def _walk_up(self, bad: float, fbad: float | None, rtol: float) -> float:
        """From ``bad`` (missing the target; ``fbad`` its excess, None where only ``ruled_out``
        said so), up by factors 1.2, 1.44, 2.07, ... until a sigma meets the target, then
        ``_refine``.  A sigma ``ruled_out`` is not composed (below the answer the run's loss window
        is widest: at delta 5e-324, q 0.01, 3 steps, target 2, the central-limit start 0.66 sits
        under the answer 7.3 and a composition there costs seconds); the last one missing the
        target is composed for its excess, which the Illinois steps take, so the search visits the
        sigmas it visits composing each of them."""
        factor = 1.2
        while True:
            x = bad * factor
            if x > _MAX_SIGMA:
                raise ValueError(
                    f"The privacy budget is too low: no noise multiplier up to 1e6 reaches target_epsilon = "
                    f"{self.epsilon!r} at target_delta = {self.delta!r}; raise target_epsilon or target_delta"
                )
            if self.ruled_out(x):
                bad, fbad = x, None
            else:
                f = self.excess(x)
                if f <= 0:
                    return self._refine(x, f, bad, self.excess(bad) if fbad is None else fbad, rtol)
                bad, fbad = x, f
            factor *= factor

    def _refine(self, good: float, fgood: float, bad: float, fbad: float, rtol: float) -> float:
        """The bracket (good meets the target, bad does not) narrowed to ``rtol`` in log sigma; its good end."""
        # invariant: good meets the target, bad does not; Illinois: the secant root in (log x, f),
        # the retained end's f halved after two steps on the same side; an infinite f (no bound)
        # bisects, and so does the step after one that left more than half the bracket.  The last
        # rule bounds the steps by twice bisection's: where f carries no slope (at target_epsilon 0
        # every sigma meeting the target has f = -5e-324, the certified epsilon being exactly 0) the
        # secant root sits on the good end and each clamped step would move it by a quarter of rtol
        # only
        side = 0
        bisect = False
        width = abs(math.log(bad) - math.log(good))
        while width > rtol:
            ug, ub = math.log(good), math.log(bad)
            secant = not bisect and math.isfinite(fbad) and fgood != fbad
            u = ug + (ub - ug) * fgood / (fgood - fbad) if secant else 0.5 * (ug + ub)
            margin = 0.25 * rtol
            u = min(max(u, min(ug, ub) + margin), max(ug, ub) - margin)
            x = math.exp(u)
            if x in (good, bad):
                break
            f = self.excess(x)
            if f <= 0:
                good, fgood = x, f
                if side == -1:
                    fbad *= 0.5
                side = -1
            else:
                bad, fbad = x, f
                if side == 1:
                    fgood *= 0.5
                side = 1
            narrower = abs(math.log(bad) - math.log(good))
            bisect, width = narrower > 0.5 * width, narrower
        return good


if OPACUS:  # pragma: no cover - depends on the environment
    _register_free_names()


__getattr__ = renamed(__name__)  # old names, deprecated (base.moved.RENAMED)
