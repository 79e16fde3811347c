"""Matrix-factorization mechanisms (DP-FTRL, tree aggregation, BLT, banded): sensitivity under
multiple participation and the Gaussian guarantee (docs/matrix-mechanisms.md).

strategies.py      the strategy matrix C (tree with or without restarts, BLT, banded Toeplitz, any C)
participation.py   participation schemas (every round, fixed epochs, min separation)
selection.py       best min-separated selections (the one-dimensional dynamic program)
tree_levels.py     a tree's squared sensitivity bounded level by level
sensitivity.py     the L2 sensitivity: exact where solved, a proved upper bound otherwise, rounded outward
round_off.py       the floating-point error bounds the sensitivity is widened by
accountant.py      MatrixMechanism and DPFTRL: mu-GDP, zCDP, RDP and certified (eps, delta)
amplification.py   AmplifiedBandedMF: banded C with cyclic Poisson sampling, certified through the subsampled Gaussian PLD
balls_in_bins_moments.py  Renyi divergences of the balls-in-bins pair from the bins' Gram matrix
(exact, band program, AM-GM) balls_in_bins_rdp.py  BallsInBinsRDP: C >= 0 under balls-in-bins, a
certified amplified upper side by Renyi DP
sampling_laws.py   balls-in-bins, random allocation, b-min-sep, cyclic Poisson: the law of a record's projected shift
realizable_lower.py  RealizableLowerSide: certified lower side under those schemes, a realizable
pair projected to 1-D
monte_carlo.py     BallsInBinsMonteCarlo: a Monte Carlo estimate with a (1 - beta) confidence bound, not a proof
monte_carlo_bounds.py  the confidence bounds Monte Carlo readings rest on; MonteCarloKind, what a
number is importance_sampling.py  ImportanceSampledMonteCarlo: stretched-mixture draws, small delta
from B(alpha)/delta draws monte_carlo_pld.py  MonteCarloPLD: draws composed with certified PLDs,
read as a simultaneous confidence band verified_release.py  verify by Monte Carlo, then run the
verified mechanism: the pipeline's (eps, delta_overall) sampled_participation.py  DPFTRL's certified
sides under those schemes, and what each side is participation_reading.py  labelled_reading: one
answer, each side labelled certified or estimated
mmcc.py            MMCC: non-negative lower-triangular C under Poisson sampling, an epsilon at a split of delta
mmcc_participation.py  MMCC's conditional participation bounds from certified tails of earlier
privacy losses
mmcc_rows.py       MMCC's per-row mixtures: laws dominating each row's conditional shift, shared by groups of rows
mmcc_steps.py      the steps MMCC's upper side rests on: cited from the papers or certified here, with hypotheses
b_min_sep.py       b-min-sep with a banded C: Dong & Ganesh's exact loss; BMinSepRDP, a certified upper side by RDP
"""

from .accountant import DPFTRL, MatrixMechanism, noise_multiplier_for_zcdp
from .amplification import AmplifiedBandedMF
from .balls_in_bins_rdp import BallsInBinsRDP
from .importance_sampling import ImportanceSampledMonteCarlo
from .mmcc import MMCC, MMCCEpsilon
from .monte_carlo import BallsInBinsMonteCarlo, MonteCarloDelta, kl_upper_confidence
from .monte_carlo_pld import MonteCarloBand, MonteCarloPLD
from .participation import EveryRound, FixedEpochs, MinSeparation, Participation
from .participation_reading import ParticipationReading, labelled_reading
from .realizable_lower import RealizableLowerSide
from .sampling_laws import (
    BallsInBinsSampling,
    BMinSepSampling,
    CyclicPoissonSampling,
    PoissonSampling,
    RandomAllocationSampling,
    Sampling,
)
from .sensitivity import Sensitivity, l2_sensitivity
from .strategies import BLT, Banded, DenseStrategy, Strategy, Tree
from .verified_release import PipelineGuarantee, pipeline_delta, verify_then_release

__all__ = [
    "AmplifiedBandedMF",
    "BLT",
    "BMinSepSampling",
    "BallsInBinsMonteCarlo",
    "BallsInBinsRDP",
    "BallsInBinsSampling",
    "CyclicPoissonSampling",
    "Banded",
    "DPFTRL",
    "DenseStrategy",
    "EveryRound",
    "FixedEpochs",
    "ImportanceSampledMonteCarlo",
    "MMCC",
    "MMCCEpsilon",
    "MatrixMechanism",
    "MinSeparation",
    "MonteCarloBand",
    "MonteCarloDelta",
    "MonteCarloPLD",
    "Participation",
    "PipelineGuarantee",
    "PoissonSampling",
    "ParticipationReading",
    "RandomAllocationSampling",
    "RealizableLowerSide",
    "Sampling",
    "Sensitivity",
    "Strategy",
    "Tree",
    "kl_upper_confidence",
    "l2_sensitivity",
    "labelled_reading",
    "noise_multiplier_for_zcdp",
    "pipeline_delta",
    "verify_then_release",
]
