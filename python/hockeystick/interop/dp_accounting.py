"""Drop-in accountants for dp_accounting users: the same events, a certified bracket.

    from hockeystick.interop.dp_accounting import HockeystickAccountant as PLDAccountant

``HockeystickAccountant`` is a ``dp_accounting.PrivacyAccountant``: ``compose(event, count)``,
``supports(event)``, ``get_epsilon(target_delta)`` and ``get_delta(target_epsilon)`` behave as
dp_accounting documents them (upper bounds), and ``get_epsilon_bracket`` / ``get_delta_bracket``
return the certified (lower, upper).  The events it takes, and why each analysis is valid, are
listed in ``dp_events``; the composition is hockeystick's (``pld.accountants.plan``).  It works unchanged inside
``dp_accounting.mechanism_calibration.calibrate_dp_mechanism``.

``HockeystickRdpAccountant`` (``rdp_accountant``) does the same for dp_accounting's
``RdpAccountant``, with finer default orders.

This module imports dp_accounting; ``import hockeystick`` does not.
"""

from __future__ import annotations

from typing import cast

try:
    from dp_accounting import dp_event
    from dp_accounting.privacy_accountant import NeighboringRelation, PrivacyAccountant
except ModuleNotFoundError:  # name the extra that installs dp_accounting
    from .._optional import require_extra

    require_extra("hockeystick.interop.dp_accounting", "dp_accounting")
    raise

from .. import _validation
from ..pld.accountants.plan import CompositionPlan, PlanProfile, default_grid_profile
from ..pld.mechanisms.constructors import DEFAULT_INTERVAL
from .dp_events import Unsupported, check_count, check_zcdp_alone, plan_for
from .rdp_accountant import HockeystickRdpAccountant

__all__ = ["HockeystickAccountant", "HockeystickRdpAccountant", "NeighboringRelation"]


class HockeystickAccountant(PrivacyAccountant):
    """A dp_accounting ``PrivacyAccountant`` computed by hockeystick, with certified brackets.

    ``neighboring_relation``: ADD_OR_REMOVE_ONE (default), REPLACE_ONE or REPLACE_SPECIAL (per
    event, see ``dp_events``).  The loss grid: by default ``training.DPSGD``'s and dp_accounting's
    ``PLDAccountant``'s, a fixed spacing ``value_discretization_interval`` = 1e-4 (``DEFAULT_INTERVAL``),
    so a run accounted here and by ``DPSGD`` gets the same epsilon; another spacing; or ``accuracy``: the
    width aimed for of the certified bracket (in epsilon for ``get_epsilon*``, relative in delta for
    ``get_delta*``), the grid refined until the bracket is that narrow (down to a grid of 1e-5); given
    both, the spacing is used and ``accuracy`` ignored.
    """

    def __init__(
        self,
        neighboring_relation: NeighboringRelation = NeighboringRelation.ADD_OR_REMOVE_ONE,
        accuracy: float | None = None,
        value_discretization_interval: float | None = None,
    ):
        if not isinstance(neighboring_relation, NeighboringRelation):
            raise _validation.ParameterTypeError(
                f"neighboring_relation must be a NeighboringRelation, got {_validation.describe(neighboring_relation)}"
            )
        super().__init__(neighboring_relation)
        a = (
            None
            if accuracy is None
            else float(_validation.positive(_validation.single(accuracy, "accuracy"), "accuracy"))
        )
        self._default_grid = value_discretization_interval is None and a is None
        if self._default_grid:
            value_discretization_interval = DEFAULT_INTERVAL
        elif value_discretization_interval is not None:
            value_discretization_interval = float(
                _validation.positive(
                    _validation.single(value_discretization_interval, "value_discretization_interval"),
                    "value_discretization_interval",
                )
            )
        self.accuracy = a
        self.value_discretization_interval = value_discretization_interval
        self._plan = CompositionPlan()
        self._profile: PlanProfile | None = None

    def compose(self, event: dp_event.DpEvent, count: int = 1) -> HockeystickAccountant:
        """Add ``count`` runs of ``event`` (ValueError for a count below 1, as dp_accounting's accountants)."""
        check_count(count)
        return cast("HockeystickAccountant", super().compose(event, count))  # dp_accounting's compose returns self

    def _maybe_compose(
        self, event: dp_event.DpEvent, count: int, do_compose: bool
    ) -> PrivacyAccountant.CompositionErrorDetails | None:
        try:
            plan = plan_for(event, max(int(count), 1), self.neighboring_relation)
            merged = CompositionPlan.from_key(self._plan.key())
            merged.merge(plan)
            check_zcdp_alone(merged, event)  # over several compose calls too (pld.accountants.zcdp_plan)
        except Unsupported as u:
            return PrivacyAccountant.CompositionErrorDetails(invalid_event=u.event, error_message=u.message)
        if do_compose:
            self._plan.merge(plan)
            self._profile = None
        return None

    def _current(self) -> PlanProfile:
        """The profile of everything composed so far: on the caller's grid or accuracy, or by default on
        ``DEFAULT_INTERVAL`` where the composition fits it (``default_grid_profile``)."""
        if self._profile is None:
            self._profile = (
                default_grid_profile(self._plan)
                if self._default_grid
                else PlanProfile(self._plan, self.value_discretization_interval, self.accuracy)
            )
        return self._profile

    def get_epsilon(self, target_delta: float) -> float:
        """Certified upper bound on epsilon at ``target_delta`` (inf for non-private events).

        ``target_delta`` lies strictly between 0 and 1 and ``target_epsilon`` (``get_delta``) is >= 0, +inf
        allowed: the rule of every hockeystick entry point (``_validation``); anything else, an array
        included, is refused naming the argument."""
        return self.get_epsilon_bracket(target_delta)[1]

    def get_delta(self, target_epsilon: float) -> float:
        """Certified upper bound on delta at ``target_epsilon`` (1 for non-private events)."""
        return self.get_delta_bracket(target_epsilon)[1]

    def get_epsilon_bracket(self, target_delta: float) -> tuple[float, float]:
        """Certified (lower, upper) on the epsilon of everything composed so far at ``target_delta``."""
        target = _validation.delta_target(target_delta, "target_delta")
        return self._current().epsilon(target)

    def get_delta_bracket(self, target_epsilon: float) -> tuple[float, float]:
        """Certified (lower, upper) on the delta of everything composed so far at ``target_epsilon``."""
        target = _validation.epsilon_target(target_epsilon, "target_epsilon")
        return self._current().delta(target)
