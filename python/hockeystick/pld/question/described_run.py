"""The run a composed PLD's factors describe (``Factor.source``): counts per distinct mechanism, or
None where a factor carries no description or the directions do not form one run.

Two directions (remove, add) describe rounds of Poisson-subsampled Gaussians where each holds the
same mechanisms (noise sigma / sensitivity, sampling rate q < 1) with the same counts, each in its
own direction: every round of the run uses one neighbouring relation, add-or-remove (Zhu, Dong &
Wang, AISTATS 2022, Sec. 5).  One direction of symmetric factors describes rounds of Gaussians,
which compose into one Gaussian of radius sqrt(sum_i c_i / s_i^2) (Dong, Roth & Su 2022, Cor. 3.3).
A PLD of one direction of subsampled rounds (``directions="remove"``) bounds that direction alone
and is not described: the run's bracket, the larger of the two directions, would not bound it.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..grid.distribution import Factor, PrivacyLossDistribution, Source

# rounds of Poisson-subsampled Gaussians: ((noise sigma / sensitivity, q, 1), rounds) per distinct
# mechanism
Segment = tuple[tuple[float, float, float], int]


def _counts(direction: Mapping[Factor, int], name: str) -> dict[tuple[float, float], int] | None:
    """(noise, q) -> rounds of one direction whose factors all carry a source in direction ``name``, else None."""
    counts: dict[tuple[float, float], int] = {}
    for factor, count in direction.items():
        source: Source | None = factor.source
        if source is None or source.direction != name:
            return None
        key = (source.noise, source.sampling_rate)
        counts[key] = counts.get(key, 0) + int(count)
    return counts


def subsampled_segments(pld: PrivacyLossDistribution) -> list[Segment] | None:
    """The run's segments where ``pld`` is rounds of Poisson-subsampled Gaussians in both directions
    (module docstring), else None."""
    if len(pld.directions) != 2:
        return None
    remove, add = _counts(pld.directions[0], "remove"), _counts(pld.directions[1], "add")
    if remove is None or remove != add:
        return None
    return [((noise, q, 1.0), count) for (noise, q), count in remove.items()]


def gaussian_rounds(pld: PrivacyLossDistribution) -> list[tuple[float, int]] | None:
    """(noise, rounds) per distinct Gaussian where ``pld`` is one direction of Gaussian rounds, else None."""
    if len(pld.directions) != 1:
        return None
    counts = _counts(pld.directions[0], "symmetric")
    return None if counts is None else [(noise, count) for (noise, _), count in counts.items()]
