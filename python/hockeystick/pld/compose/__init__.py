"""Composition: many rounds' PMFs into one, every truncation and round-off charged.

``fft`` (the C++ FFT composition on scipy.fft, which every ``PrivacyLossDistribution`` of the grid stage composes
with: installed here), ``finite_atoms`` (finite pairs composed exactly, beside a grid; its pieces in ``atoms_*``),
``tilted`` (the composition under an exponential tilt), ``binomial_split`` (a run split by its binomial count),
``two_resolution`` (the subsampled Gaussian's lower side at a sampling rate below the grid, from rounds composed
on a finer grid) and ``truncation`` (tails sized to the delta asked).  The types composed (the grid PMF, the finite
atoms, the PLD object) are one stage below, in ``pld.grid``.
"""

from ...base.moved import forwarding
from ..grid.distribution import install_composition
from . import fft

install_composition(fft)

__getattr__ = forwarding(__name__, globals())
