"""The calibratable parameters many entries share: a noise scale (the bound falls as it grows) and a
count of rounds (it rises)."""

from __future__ import annotations

from ..entries import Calibratable

SIGMA = Calibratable("decreasing", 0.0, float("inf"))
ROUNDS = Calibratable("increasing", 1.0, float("inf"), integer=True)
