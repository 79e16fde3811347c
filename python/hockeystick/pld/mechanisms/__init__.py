"""One round of a mechanism: its dominating pair and the discretization of each side.

A mechanism module gives, for one round, the pessimistic (upper) and optimistic (lower) PMFs on the loss grid,
or its exact finite pair where it has one, with the proof of the pair in its docstring: ``constructors``
(the Gaussian, Laplace and subsampled Gaussians; ``from_distributions`` and ``pair_factor`` for any pair),
``canonical`` (any (eps, delta)-DP mechanism), ``randomized_response``, ``discrete_laplace``,
``discrete_gaussian``, ``gaussian_mixture``, ``laplace_mixture``, ``monotone`` (real pairs with a monotone loss),
``selection`` (the exponential mechanism, permute-and-flip), ``pld_mixture`` (a mechanism chosen at random),
``group_privacy`` and ``group_of_records`` (groups of c records), ``neighbouring`` (the relation each bounds).
"""

from typing import TYPE_CHECKING

from ...base.front_door import front_door
from ...base.moved import forwarding

if TYPE_CHECKING:
    from .atoms_from_pairs import pair_atoms
    from .canonical import canonical_pair
    from .constructors import (
        DEFAULT_INTERVAL,
        PoissonGaussian,
        checked_interval,
        checked_tail,
        laplace,
        pair_factor,
        subsampled_gaussians,
    )
    from .discrete_gaussian import MAX_OUTCOMES as DISCRETE_GAUSSIAN_MAX_OUTCOMES
    from .discrete_gaussian import MAX_SIGMA as DISCRETE_GAUSSIAN_MAX_SIGMA
    from .discrete_gaussian import DiscreteGaussian, discrete_gaussian_top_loss
    from .discrete_gaussian import outcomes as discrete_gaussian_outcomes
    from .gaussian_mixture import mixture_of_gaussians
    from .mechanism import Spec
    from .neighbouring import RELATION_WORDS, relations_bounded
    from .registry import StageEntry, dp_event_class, mechanism_of, stage_entry, stage_names

# What other packages import from this stage, and the module each comes from: its modules' paths are the
# stage's own (tests/test_layers.py refuses them outside pld/), and a name loads its module on first use.
_DOOR = {
    "DEFAULT_INTERVAL": "constructors",
    "DISCRETE_GAUSSIAN_MAX_OUTCOMES": "discrete_gaussian:MAX_OUTCOMES",
    "DISCRETE_GAUSSIAN_MAX_SIGMA": "discrete_gaussian:MAX_SIGMA",
    "DiscreteGaussian": "discrete_gaussian",
    "PoissonGaussian": "constructors",
    "RELATION_WORDS": "neighbouring",
    "Spec": "mechanism",
    "StageEntry": "registry",
    "canonical_pair": "canonical",
    "checked_interval": "constructors",
    "checked_tail": "constructors",
    "discrete_gaussian_outcomes": "discrete_gaussian:outcomes",
    "discrete_gaussian_top_loss": "discrete_gaussian",
    "dp_event_class": "registry",
    "laplace": "constructors",
    "mechanism_of": "registry",
    "mixture_of_gaussians": "gaussian_mixture",
    "pair_atoms": "atoms_from_pairs",
    "pair_factor": "constructors",
    "relations_bounded": "neighbouring",
    "stage_entry": "registry",
    "stage_names": "registry",
    "subsampled_gaussians": "constructors",
}

__all__ = [
    "DEFAULT_INTERVAL",
    "DISCRETE_GAUSSIAN_MAX_OUTCOMES",
    "DISCRETE_GAUSSIAN_MAX_SIGMA",
    "DiscreteGaussian",
    "PoissonGaussian",
    "RELATION_WORDS",
    "Spec",
    "StageEntry",
    "canonical_pair",
    "checked_interval",
    "checked_tail",
    "discrete_gaussian_outcomes",
    "discrete_gaussian_top_loss",
    "dp_event_class",
    "laplace",
    "mechanism_of",
    "mixture_of_gaussians",
    "pair_atoms",
    "pair_factor",
    "relations_bounded",
    "stage_entry",
    "stage_names",
    "subsampled_gaussians",
]

__getattr__ = front_door(__name__, _DOOR, globals(), forwarding(__name__, globals()))
