"""One round of a mechanism: its dominating pair and the discretization of each side.

A mechanism module gives, for one round, the pessimistic (upper) and optimistic (lower) PMFs on the
loss grid, or its exact finite pair where it has one, with the proof of the pair in its docstring:
``constructors`` (the Gaussian, Laplace and subsampled Gaussians; ``from_distributions`` and
``pair_factor`` for any pair), ``canonical`` (any (eps, delta)-DP mechanism),
``randomized_response``, ``discrete_laplace``, ``discrete_gaussian``, ``gaussian_mixture``,
``laplace_mixture``, ``monotone`` (real pairs with a monotone loss), ``selection`` (the exponential
mechanism, permute-and-flip), ``pld_mixture`` (a mechanism chosen at random), ``group_privacy`` and
``group_of_records`` (groups of c records), ``neighbouring`` (the relation each bounds).
"""

from typing import TYPE_CHECKING

from ...base.front_door import front_door
from ...base.moved import forwarding

if TYPE_CHECKING:
    from . import discrete_gaussian
    from .atoms_from_pairs import pair_atoms as pair_atoms
    from .canonical import canonical_pair as canonical_pair
    from .constructors import DEFAULT_INTERVAL as DEFAULT_INTERVAL
    from .constructors import PoissonGaussian as PoissonGaussian
    from .constructors import checked_interval as checked_interval
    from .constructors import checked_tail as checked_tail
    from .constructors import laplace as laplace
    from .constructors import noise_over_sensitivity as noise_over_sensitivity
    from .constructors import pair_factor as pair_factor
    from .constructors import subsampled_gaussians as subsampled_gaussians
    from .described_factors import described_round as described_round
    from .discrete_gaussian import DiscreteGaussian as DiscreteGaussian
    from .discrete_gaussian import discrete_gaussian_top_loss as discrete_gaussian_top_loss
    from .gaussian_mixture import mixture_of_gaussians as mixture_of_gaussians
    from .largest_loss import Directions as Directions
    from .largest_loss import poisson_sampled_losses as poisson_sampled_losses
    from .largest_loss import round_outward as round_outward
    from .mechanism import Spec as Spec
    from .neighbouring import RELATION_WORDS as RELATION_WORDS
    from .neighbouring import relations_bounded as relations_bounded
    from .registry import StageEntry as StageEntry
    from .registry import dp_event_class as dp_event_class
    from .registry import mechanism_of as mechanism_of
    from .registry import round_entry as round_entry
    from .registry import stage_entry as stage_entry
    from .registry import stage_names as stage_names
    from .zcdp_rounds import matrix_parameters as matrix_parameters

    # the door's names for attributes whose own names are generic
    DISCRETE_GAUSSIAN_MAX_OUTCOMES = discrete_gaussian.MAX_OUTCOMES
    DISCRETE_GAUSSIAN_MAX_SIGMA = discrete_gaussian.MAX_SIGMA
    discrete_gaussian_outcomes = discrete_gaussian.outcomes

# What other packages of hockeystick import from this stage, and the module each comes from: its
# modules' paths are the stage's own (tests/test_layers.py refuses them outside pld/), and a name
# loads its module on first use.  These names are the packages' seam, not the library's public names
# (``hockeystick.pld``'s).
FRONT_DOOR = {
    "DEFAULT_INTERVAL": "constructors",
    "DISCRETE_GAUSSIAN_MAX_OUTCOMES": "discrete_gaussian:MAX_OUTCOMES",
    "DISCRETE_GAUSSIAN_MAX_SIGMA": "discrete_gaussian:MAX_SIGMA",
    "DiscreteGaussian": "discrete_gaussian",
    "Directions": "largest_loss",
    "PoissonGaussian": "constructors",
    "RELATION_WORDS": "neighbouring",
    "Spec": "mechanism",
    "StageEntry": "registry",
    "described_round": "described_factors",
    "canonical_pair": "canonical",
    "checked_interval": "constructors",
    "checked_tail": "constructors",
    "discrete_gaussian_outcomes": "discrete_gaussian:outcomes",
    "discrete_gaussian_top_loss": "discrete_gaussian",
    "dp_event_class": "registry",
    "laplace": "constructors",
    "matrix_parameters": "zcdp_rounds",
    "mechanism_of": "registry",
    "mixture_of_gaussians": "gaussian_mixture",
    "noise_over_sensitivity": "constructors",
    "pair_atoms": "atoms_from_pairs",
    "pair_factor": "constructors",
    "poisson_sampled_losses": "largest_loss",
    "relations_bounded": "neighbouring",
    "round_entry": "registry",
    "round_outward": "largest_loss",
    "stage_entry": "registry",
    "stage_names": "registry",
    "subsampled_gaussians": "constructors",
}

__getattr__ = front_door(__name__, FRONT_DOOR, globals(), forwarding(__name__, globals()))
