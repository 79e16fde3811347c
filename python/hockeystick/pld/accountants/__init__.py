"""The front ends: each says what is composed and asks the pipeline (compose, reads, refine) for the bracket.

``subsampled_gaussian`` (``SubsampledGaussianPLD``, ``PLDAccountant``), ``fixed_batch`` (fixed-size
batches, replace-one), ``allocation`` (epochs of balls-in-bins and of shuffled batches), ``stages``
(heterogeneous runs), ``tail_narrowed`` (a described run of several subsampled Gaussians narrowed
at the question's tail: staged training runs), ``composition_plan`` (a multiset of mechanisms, the
dp_accounting and Opacus adapters' front end) with ``plan`` (its certified profile and the catalogue of its mechanisms),
``plan_sides`` (the curves those share) and ``zcdp_plan`` (zCDP runs, which have no PLD).
"""

from typing import TYPE_CHECKING

from ...base.front_door import front_door

if TYPE_CHECKING:
    from .allocation import BallsInBinsGaussianPLD as BallsInBinsGaussianPLD
    from .allocation import ShuffledBatchGaussianPLD as ShuffledBatchGaussianPLD
    from .allocation import shuffled_radius as shuffled_radius
    from .composition_plan import CompositionPlan as CompositionPlan
    from .composition_plan import PlanKey as PlanKey
    from .fixed_batch import FixedBatchGaussianPLD as FixedBatchGaussianPLD
    from .fixed_batch import WithReplacementBatchGaussianPLD as WithReplacementBatchGaussianPLD
    from .plan import COPY_COUNT_CUT as COPY_COUNT_CUT
    from .plan import FactorStore as FactorStore
    from .plan import PlanProfile as PlanProfile
    from .plan import PoissonGeneric as PoissonGeneric
    from .plan import default_grid_profile as default_grid_profile
    from .plan import group_plan as group_plan
    from .plan_rdp import rdp_lowered_upper as rdp_lowered_upper
    from .question_plan import QuestionEpsilon as QuestionEpsilon
    from .question_plan import single_subsampled_gaussian as single_subsampled_gaussian
    from .stages import STAGE_ALIASES as STAGE_ALIASES
    from .stages import compose_stages as compose_stages
    from .stages import parse_stage as parse_stage
    from .stages import stage_relations as stage_relations
    from .subsampled_gaussian import PLDAccountant as PLDAccountant
    from .subsampled_gaussian import SubsampledGaussianPLD as SubsampledGaussianPLD
    from .tail_narrowed import tail_narrowed_epsilon as tail_narrowed_epsilon
    from .zcdp_plan import Zcdp as Zcdp
    from .zcdp_plan import has_zcdp as has_zcdp
    from .zcdp_plan import zcdp_alone as zcdp_alone
    from .zcdp_plan import zcdp_total as zcdp_total

# What other packages of hockeystick import from this stage, and the module each comes from: its
# modules' paths are the stage's own (tests/test_layers.py refuses them outside pld/), and a name
# loads its module on first use.  These names are the packages' seam, not the library's public names
# (``hockeystick.pld``'s).
FRONT_DOOR = {
    "BallsInBinsGaussianPLD": "allocation",
    "COPY_COUNT_CUT": "plan",
    "CompositionPlan": "composition_plan",
    "FactorStore": "plan",
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
    "tail_narrowed_epsilon": "tail_narrowed",
    "zcdp_alone": "zcdp_plan",
    "zcdp_total": "zcdp_plan",
}

__getattr__ = front_door(__name__, FRONT_DOOR, globals())
