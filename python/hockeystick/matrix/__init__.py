"""Matrix-factorization mechanisms (DP-FTRL, tree aggregation, BLT, banded): sensitivity under multiple
participation and the Gaussian guarantee (docs/matrix-mechanisms.md).

strategies.py      the strategy matrix C (tree with or without restarts, BLT, banded Toeplitz, any C)
participation.py   participation schemas (every round, fixed epochs, min separation)
selection.py       best min-separated selections (the one-dimensional dynamic program)
tree_levels.py     a tree's squared sensitivity bounded level by level
sensitivity.py     the L2 sensitivity: exact where solved, a proved upper bound otherwise, rounded outward
round_off.py       the floating-point error bounds the sensitivity is widened by
accountant.py      MatrixMechanism and DPFTRL: mu-GDP, zCDP, RDP and certified (eps, delta)
amplification.py   AmplifiedBandedMF: banded C with cyclic Poisson sampling, certified through the subsampled Gaussian PLD
"""

from .accountant import DPFTRL, MatrixMechanism, noise_multiplier_for_zcdp
from .amplification import AmplifiedBandedMF
from .participation import EveryRound, FixedEpochs, MinSeparation, Participation
from .sensitivity import Sensitivity, l2_sensitivity
from .strategies import BLT, Banded, DenseStrategy, Strategy, Tree

__all__ = [
    "AmplifiedBandedMF",
    "BLT",
    "Banded",
    "DPFTRL",
    "DenseStrategy",
    "EveryRound",
    "FixedEpochs",
    "MatrixMechanism",
    "MinSeparation",
    "Participation",
    "Sensitivity",
    "Strategy",
    "Tree",
    "l2_sensitivity",
    "noise_multiplier_for_zcdp",
]
