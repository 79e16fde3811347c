"""Composition: many rounds' PMFs into one, every truncation and round-off charged.

``fft`` (the C++ FFT composition on scipy.fft, which every ``PrivacyLossDistribution`` of the grid stage composes
with: installed here), ``finite_atoms`` (finite pairs composed exactly, beside a grid; its pieces in ``atoms_*``),
``tilted`` (the composition under an exponential tilt), ``binomial_split`` (a run split by its binomial count),
``two_resolution`` (the subsampled Gaussian's lower side at a sampling rate below the grid, from rounds composed
on a finer grid) and ``truncation`` (tails sized to the delta asked).  The types composed (the grid PMF, the finite
atoms, the PLD object) are one stage below, in ``pld.grid``.
"""

from typing import TYPE_CHECKING

from ...base.front_door import front_door
from ...base.moved import forwarding
from ..grid.distribution import install_composition
from . import fft

install_composition(fft)


if TYPE_CHECKING:
    from .atoms_compose import self_compose as self_compose_atoms
    from .atoms_delta import delta as delta_of_atoms
    from .atoms_epsilon import epsilon_search

# What other packages import from this stage, and the module each comes from: its modules' paths are the
# stage's own (tests/test_layers.py refuses them outside pld/), and a name loads its module on first use.
_DOOR = {
    "delta_of_atoms": "atoms_delta:delta",
    "epsilon_search": "atoms_epsilon",
    "self_compose_atoms": "atoms_compose:self_compose",
}

__all__ = [
    "delta_of_atoms",
    "epsilon_search",
    "self_compose_atoms",
]

__getattr__ = front_door(__name__, _DOOR, globals(), forwarding(__name__, globals()))
