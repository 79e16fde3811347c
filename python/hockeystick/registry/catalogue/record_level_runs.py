"""The registered runs of a record inside federated learning: with local DP-SGD
(``RecordLevelFedAvg``) and random check-ins with central noise (``RandomCheckIns``), from
``hockeystick.training``."""

from __future__ import annotations

from ... import training
from ..entries import AccountantEntry, Calibratable
from ..store import register
from .calibratables import ROUNDS, SIGMA

# Each is monotone in what it calibrates: with a larger sampling or check-in probability, more local
# steps or rounds, or a larger local rate, the smaller setting's dominating pair is a
# post-processing of the larger's (the mixture's trade-off curve q f + (1 - q) Id falls as q grows;
# a composition only adds releases), so delta(eps) rises with it.
register(
    AccountantEntry(
        name="record_level_fedavg",
        factory=training.RecordLevelFedAvg,
        max_chunk=1 << 8,
        summary="a record inside DP-FedAvg with local DP-SGD (noise multiplier, client sample rate, local steps, "
        "rounds, local sample rate): each round Poisson sampling of the client's composed local steps (Zhu, Dong & "
        "Wang 2022, Thm. 11), PLD, certified upper bound",
        integers=frozenset({"local_steps", "rounds"}),
        calibratable={
            "noise_multiplier": SIGMA,
            "rounds": ROUNDS,
            "local_steps": Calibratable("increasing", 1.0, 1e6, integer=True),
            "client_sample_rate": Calibratable("increasing", 0.0, 1.0),
            "local_sample_rate": Calibratable("increasing", 0.0, 1.0),
        },
    )
)
register(
    AccountantEntry(
        name="random_checkins",
        factory=training.RandomCheckIns,
        hidden=frozenset(
            {"protocol"}
        ),  # a word: Balle et al.'s one client per slot is refused by the class
        max_chunk=1 << 8,
        summary="random check-ins with central noise on every slot's sum (noise multiplier, check-in probability, "
        "slots, passes; Balle et al. 2020): each pass Poisson sampling of a 1-of-m random allocation, PLD, "
        "certified upper bound",
        integers=frozenset({"slots", "passes"}),
        calibratable={
            "noise_multiplier": SIGMA,
            "passes": ROUNDS,
            "checkin_probability": Calibratable("increasing", 0.0, 1.0),
        },
    )
)
