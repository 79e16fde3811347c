"""The registered ISRL-DP accountants of paper 003: one silo's noisy minibatch SGD, its group,
shuffled and user-level forms."""

from __future__ import annotations

from ... import isrl
from ..entries import AccountantEntry
from ..per_point import PerPoint
from ..store import register
from .calibratables import ROUNDS, SIGMA

register(
    AccountantEntry(
        name="isrl_noisy_mb_sgd",
        factory=isrl.NoisyMBSGD,
        max_chunk=1 << 10,
        summary="paper 003 Alg. 2, one silo's ISRL-DP: K draws with replacement per round, PLD, certified upper bound",
        integers=frozenset({"batch_size", "silo_size", "rounds"}),
        calibratable={"sigma": SIGMA, "rounds": ROUNDS},
    )
)
register(
    AccountantEntry(
        name="isrl_one_pass",
        factory=isrl.OnePassNoisyMBSGD,
        integers=frozenset({"batch_size"}),
        summary="paper 003 Thm 3.1, one silo's ISRL-DP: one pass in disjoint batches, exact (Gaussian, 2L/K)",
        calibratable={"sigma": SIGMA},
    )
)
register(
    AccountantEntry(
        name="isrl_group_noisy_mb_sgd",
        factory=isrl.GroupNoisyMBSGD,
        max_chunk=1 << 10,
        summary="paper 003 Alg. 2, a user holding k of a silo's n records (k | n): the replace-one PLD of a silo of "
        "n/k records, certified bracket (App. C.2 without group privacy)",
        integers=frozenset({"batch_size", "silo_size", "group_size", "rounds"}),
        calibratable={"sigma": SIGMA, "rounds": ROUNDS},
    )
)
register(
    AccountantEntry(
        name="isrl_shuffled_noisy_mb_sgd",
        factory=PerPoint.of(isrl.ShuffledNoisyMBSGD),
        max_chunk=1 << 4,
        summary="paper 003 Thm 5.1 / G.1, shuffled Noisy MB-SGD, central DP of one record: FMT's clone bound for "
        "(eps0, delta0) silo messages per round, optimal composition over R rounds, certified upper bound",
        integers=frozenset({"batch_size", "silo_size", "silos", "rounds"}),
        calibratable={"sigma": SIGMA, "rounds": ROUNDS},
    )
)
register(
    AccountantEntry(
        name="isrl_user_level",
        factory=isrl.UserLevelNoisyMBSGD,
        integers=frozenset({"rounds"}),
        summary="paper 003 Alg. 2 with a whole silo replaced (user-level): exact, mu = sqrt(R) 2L / sigma",
        calibratable={"sigma": SIGMA, "rounds": ROUNDS},
    )
)
