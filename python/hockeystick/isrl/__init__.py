"""Paper 003 (Lowy & Razaviyayn, ISRL-DP): the paper's calibrations beside certified accounting.

- ``paper_calibrations``: the paper's sigma and K prescriptions as written (Theorems 2.1/D.1/H.1,
  3.1/E.1, App. I, App. C.2's group privacy, Theorem D.5's shuffled round), validity ranges
  enforced: paper formulas, not guarantees.
- ``noisy_mb_sgd``: certified accountants of the same silo transcripts
  (:class:`~hockeystick.isrl.NoisyMBSGD`, :class:`~hockeystick.isrl.OnePassNoisyMBSGD`,
  :class:`~hockeystick.isrl.UserLevelNoisyMBSGD`), registered for sweeps and calibration as
  ``isrl_noisy_mb_sgd``, ``isrl_one_pass`` and ``isrl_user_level``.
- ``user_level_group``: a user holding k of a silo's n records
  (:class:`~hockeystick.isrl.GroupNoisyMBSGD`, registered as ``isrl_group_noisy_mb_sgd``): the
  replace-one accountant of a silo of n / k records, proved.
- ``shuffle``: the shuffle model (Theorems D.5 / 5.1 / G.1): Feldman, McMillan & Talwar's numerical
  clone bound for n shuffled eps0-DP reports (:class:`~hockeystick.isrl.ShuffledLDP`, certified),
  beside the closed form the paper's eq. (21) uses
  (:func:`~hockeystick.isrl.closed_form_shuffle_epsilon`).
- ``shuffle_approximate``: the same for (eps0, delta0)-DP reports (FMT Theorem 3.8, paper 003
  Theorem D.5's proof): the clone bound plus a total-variation charge
  (:class:`~hockeystick.isrl.ShuffledApproximateLDP`).
- ``shuffled_noisy_mb_sgd``: paper 003's shuffled Noisy MB-SGD (Theorems 5.1 / G.1) over R rounds
  (:class:`~hockeystick.isrl.ShuffledNoisyMBSGD`, registered as ``isrl_shuffled_noisy_mb_sgd``).
- ``excess_risk``: Lemma D.6's finite convex excess-risk bound (paper formula), to trade sigma
  against utility.

docs/paper-003-errata.md compares the paper's calibrations with the certified values.
"""

from .excess_risk import lemma_d6_best_step_size, lemma_d6_excess_risk
from .noisy_mb_sgd import NoisyMBSGD, OnePassNoisyMBSGD, UserLevelNoisyMBSGD
from .paper_calibrations import (
    appendix_i_batch_size,
    appendix_i_sigma,
    theorem_2_1_batch_size,
    theorem_2_1_sigma,
    theorem_3_1_rounds,
    theorem_3_1_sigma,
    theorem_d5_round,
    user_level_group_privacy,
)
from .shuffle import ShuffledLDP, closed_form_shuffle_epsilon
from .shuffle_approximate import ShuffledApproximateLDP, fmt_theorem_3_8_charge
from .shuffled_noisy_mb_sgd import ShuffledNoisyMBSGD
from .user_level_group import GroupNoisyMBSGD

__all__ = [
    "GroupNoisyMBSGD",
    "ShuffledLDP",
    "ShuffledApproximateLDP",
    "ShuffledNoisyMBSGD",
    "closed_form_shuffle_epsilon",
    "fmt_theorem_3_8_charge",
    "lemma_d6_best_step_size",
    "lemma_d6_excess_risk",
    "NoisyMBSGD",
    "OnePassNoisyMBSGD",
    "UserLevelNoisyMBSGD",
    "appendix_i_batch_size",
    "appendix_i_sigma",
    "theorem_2_1_batch_size",
    "theorem_2_1_sigma",
    "theorem_3_1_rounds",
    "theorem_3_1_sigma",
    "theorem_d5_round",
    "user_level_group_privacy",
]
