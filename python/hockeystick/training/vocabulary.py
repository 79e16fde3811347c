"""The training vocabulary's fixed words: how batches are drawn, how steps per epoch are counted, and the
other vocabularies' names of the sampling rate (docs/vocabulary.md)."""

from __future__ import annotations

from typing import Literal

Sampling = Literal["poisson", "fixed_size", "balls_in_bins", "shuffle"]
SAMPLINGS: tuple[Sampling, ...] = ("poisson", "fixed_size", "balls_in_bins", "shuffle")
StepsPerEpoch = Literal["ceil", "opacus"]
STEPS_PER_EPOCH: tuple[StepsPerEpoch, ...] = ("ceil", "opacus")
# the sampling rate q in the other vocabularies: dp_accounting's and the accountants' (docs/vocabulary.md)
SAMPLE_RATE_SYNONYMS = {"sampling_probability": "sample_rate", "sampling_rate": "sample_rate"}
