"""How a record enters a round: a sampling scheme turns a mechanism's pair into the pair of the sampled round.

``subsampling`` (Poisson sampling of a finite pair), ``subsampled_pair`` (Poisson and fixed-size
sampling of any mechanism given by certified curves), ``truncated_subsampling``,
``with_replacement_realizable`` and ``with_replacement_shift_bound`` (batches drawn with
replacement), ``poisson_replace_one`` (Poisson sampling under replace-one), ``random_allocation``
(balls-in-bins: one step of an epoch per record) and ``grid_readback`` (an upper PMF made to cover
its targets at its grid points).
"""

from typing import TYPE_CHECKING

from ...base.front_door import front_door

if TYPE_CHECKING:
    from .examples_per_user import checked_examples_per_user as checked_examples_per_user
    from .examples_per_user import examples_per_user_gaussian as examples_per_user_gaussian
    from .random_allocation import RandomAllocationGaussian as RandomAllocationGaussian

# What other packages of hockeystick import from this stage, and the module each comes from: its
# modules' paths are the stage's own (tests/test_layers.py refuses them outside pld/), and a name
# loads its module on first use.  These names are the packages' seam, not the library's public names
# (``hockeystick.pld``'s).
FRONT_DOOR = {
    "RandomAllocationGaussian": "random_allocation",
    "checked_examples_per_user": "examples_per_user",
    "examples_per_user_gaussian": "examples_per_user",
}

__getattr__ = front_door(__name__, FRONT_DOOR, globals())
