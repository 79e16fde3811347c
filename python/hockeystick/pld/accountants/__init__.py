"""The front ends: each says what is composed and asks the pipeline (compose, reads, refine) for the bracket.

``subsampled_gaussian`` (``SubsampledGaussianPLD``, ``PLDAccountant``), ``fixed_batch`` (fixed-size batches,
replace-one), ``allocation`` (epochs of balls-in-bins and of shuffled batches), ``stages`` (heterogeneous runs),
``composition_plan`` (a multiset of mechanisms, the dp_accounting and Opacus adapters' front end) with ``plan``
(its certified profile and the catalogue of its mechanisms), ``plan_sides`` (the curves those share) and
``zcdp_plan`` (zCDP runs, which have no PLD).
"""

from typing import TYPE_CHECKING

from ...base.front_door import front_door

if TYPE_CHECKING:
    from .allocation import BallsInBinsGaussianPLD, ShuffledBatchGaussianPLD, shuffled_radius
    from .composition_plan import CompositionPlan, PlanKey
    from .fixed_batch import FixedBatchGaussianPLD, WithReplacementBatchGaussianPLD
    from .plan import COPY_COUNT_CUT, PlanProfile, PoissonGeneric, default_grid_profile, group_plan
    from .plan_rdp import rdp_lowered_upper
    from .question_plan import QuestionEpsilon, single_subsampled_gaussian
    from .stages import STAGE_ALIASES, compose_stages, parse_stage, stage_relations
    from .subsampled_gaussian import PLDAccountant, SubsampledGaussianPLD
    from .zcdp_plan import Zcdp, has_zcdp, zcdp_alone, zcdp_total

# What other packages import from this stage, and the module each comes from: its modules' paths are the
# stage's own (tests/test_layers.py refuses them outside pld/), and a name loads its module on first use.
_DOOR = {
    "BallsInBinsGaussianPLD": "allocation",
    "COPY_COUNT_CUT": "plan",
    "CompositionPlan": "composition_plan",
    "FixedBatchGaussianPLD": "fixed_batch",
    "PLDAccountant": "subsampled_gaussian",
    "PlanKey": "composition_plan",
    "PlanProfile": "plan",
    "PoissonGeneric": "plan",
    "QuestionEpsilon": "question_plan",
    "STAGE_ALIASES": "stages",
    "ShuffledBatchGaussianPLD": "allocation",
    "SubsampledGaussianPLD": "subsampled_gaussian",
    "WithReplacementBatchGaussianPLD": "fixed_batch",
    "Zcdp": "zcdp_plan",
    "compose_stages": "stages",
    "default_grid_profile": "plan",
    "group_plan": "plan",
    "has_zcdp": "zcdp_plan",
    "parse_stage": "stages",
    "rdp_lowered_upper": "plan_rdp",
    "shuffled_radius": "allocation",
    "single_subsampled_gaussian": "question_plan",
    "stage_relations": "stages",
    "zcdp_alone": "zcdp_plan",
    "zcdp_total": "zcdp_plan",
}

__all__ = [
    "BallsInBinsGaussianPLD",
    "COPY_COUNT_CUT",
    "CompositionPlan",
    "FixedBatchGaussianPLD",
    "PLDAccountant",
    "PlanKey",
    "PlanProfile",
    "PoissonGeneric",
    "QuestionEpsilon",
    "STAGE_ALIASES",
    "ShuffledBatchGaussianPLD",
    "SubsampledGaussianPLD",
    "WithReplacementBatchGaussianPLD",
    "Zcdp",
    "compose_stages",
    "default_grid_profile",
    "group_plan",
    "has_zcdp",
    "parse_stage",
    "rdp_lowered_upper",
    "shuffled_radius",
    "single_subsampled_gaussian",
    "stage_relations",
    "zcdp_alone",
    "zcdp_total",
]

__getattr__ = front_door(__name__, _DOOR, globals())
