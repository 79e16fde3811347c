"""The training vocabulary's fixed words: how batches are drawn, how steps per epoch are counted,
and the other vocabularies' names of the sampling rate (docs/vocabulary.md)."""

from __future__ import annotations

from typing import Literal, cast

from .sampling_schemes import sampling_schemes, sampling_words

# the package's sampling schemes (``sampling_schemes.py`` registers them: this Literal, for type
# checkers, is the one other place their words are written)
Sampling = Literal["poisson", "fixed_size", "balls_in_bins", "shuffle"]
SAMPLINGS: tuple[Sampling, ...] = cast("tuple[Sampling, ...]", sampling_words())
StepsPerEpoch = Literal["ceil", "opacus"]
# what the noise multiplier z is relative to: the clip norm C (z C the noise's standard deviation),
# or the replace-one sensitivity 2C of a clipped sum (2 z C), as dp_accounting's REPLACE_ONE
# GaussianDpEvent reads it
NoiseRelativeTo = Literal["clip_norm", "replace_one_sensitivity"]
NOISE_RELATIVE_TO: tuple[NoiseRelativeTo, ...] = ("clip_norm", "replace_one_sensitivity")
# the samplings whose neighbours are replace-one (a batch keeps its size), where the two readings
# differ
REPLACE_ONE_SAMPLINGS: tuple[Sampling, ...] = cast(
    "tuple[Sampling, ...]",
    tuple(s.word for s in sampling_schemes() if s.relation == "replace_one"),
)
STEPS_PER_EPOCH: tuple[StepsPerEpoch, ...] = ("ceil", "opacus")
# the sampling rate q in the other vocabularies: dp_accounting's and the accountants'
# (docs/vocabulary.md)
SAMPLE_RATE_SYNONYMS = {"sampling_probability": "sample_rate", "sampling_rate": "sample_rate"}
