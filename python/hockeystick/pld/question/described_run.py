"""The run a composition describes: counts per distinct mechanism (``Source``) in each neighbouring
direction, or None where a part carries no description or the directions do not form one run.

Every door's composition is read here, whatever built it: a composed PLD through its factors
(``Factor.source``, ``of_pld``), a plan of mechanisms before any grid through each mechanism's own
description (``Mechanism.sources``, ``of_sources``).  The reads ask one question of it:

Two directions (remove, add) describe rounds of Poisson-subsampled Gaussians where each holds the
same mechanisms (noise sigma / sensitivity, sampling rate q < 1) with the same counts, each in its
own direction: every round of the run uses one neighbouring relation, add-or-remove (Zhu, Dong &
Wang, AISTATS 2022, Sec. 5).  One direction of symmetric factors describes rounds of Gaussians,
which compose into one Gaussian of radius sqrt(sum_i c_i / s_i^2) (Dong, Roth & Su 2022, Cor. 3.3).
A PLD of one direction of subsampled rounds (``directions="remove"``) bounds that direction alone
and is not described: the run's bracket, the larger of the two directions, would not bound it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..grid.distribution import PrivacyLossDistribution, Source

# rounds of Poisson-subsampled Gaussians: ((noise sigma / sensitivity, q, 1), rounds) per distinct
# mechanism
Segment = tuple[tuple[float, float, float], int]
# per neighbouring direction, the rounds of each distinct mechanism
Described = list[dict[Source, int]]


def of_pld(pld: PrivacyLossDistribution) -> Described | None:
    """The run ``pld``'s factors describe, or None where a factor carries no ``source``.

    Parameters
    ----------
    pld : PrivacyLossDistribution
        A composed PLD.

    Returns
    -------
    list of dict or None
        Per direction, the rounds of each distinct ``Source``.
    """
    out: Described = []
    for direction in pld.directions:
        counts: dict[Source, int] = {}
        for factor, count in direction.items():
            if factor.source is None:
                return None
            counts[factor.source] = counts.get(factor.source, 0) + int(count)
        out.append(counts)
    return out


def of_sources(runs: Iterable[tuple[Sequence[Source] | None, int]]) -> Described | None:
    """The run of mechanisms each given by its description per direction (``Mechanism.sources``)
    and its rounds, or None where one has none or the mechanisms' directions differ in number.

    Parameters
    ----------
    runs : iterable of (sequence of Source or None, int)
        Each mechanism's sources (one per direction) and its count of rounds.

    Returns
    -------
    list of dict or None
        Per direction, the rounds of each distinct ``Source``.
    """
    out: Described | None = None
    for sources, count in runs:
        if sources is None or (out is not None and len(out) != len(sources)):
            return None
        if out is None:
            out = [{} for _ in sources]
        for direction, source in zip(out, sources):
            direction[source] = direction.get(source, 0) + int(count)
    return out


def _counts(direction: Mapping[Source, int], name: str) -> dict[tuple[float, float], int] | None:
    """(noise, q) -> rounds of one direction whose sources are all in direction ``name``, else None."""
    counts: dict[tuple[float, float], int] = {}
    for source, count in direction.items():
        if source.direction != name:
            return None
        key = (source.noise, source.sampling_rate)
        counts[key] = counts.get(key, 0) + int(count)
    return counts


def described_segments(run: Described | None) -> list[Segment] | None:
    """The run's segments where ``run`` is rounds of Poisson-subsampled Gaussians in both
    directions (module docstring), else None.

    Parameters
    ----------
    run : list of dict or None
        ``of_pld``'s or ``of_sources``'s description.

    Returns
    -------
    list of ((noise, q, 1.0), rounds) or None
        One segment per distinct (noise, q), in the order first met.
    """
    if run is None or len(run) != 2:
        return None
    remove, add = _counts(run[0], "remove"), _counts(run[1], "add")
    if remove is None or remove != add:
        return None
    return [((noise, q, 1.0), count) for (noise, q), count in remove.items()]


def described_gaussians(run: Described | None) -> list[tuple[float, int]] | None:
    """(noise, rounds) per distinct Gaussian where ``run`` is one direction of Gaussian rounds,
    else None.

    Parameters
    ----------
    run : list of dict or None
        ``of_pld``'s or ``of_sources``'s description.

    Returns
    -------
    list of (float, int) or None
        One entry per distinct noise, in the order first met.
    """
    if run is None or len(run) != 1:
        return None
    counts = _counts(run[0], "symmetric")
    return None if counts is None else [(noise, count) for (noise, _), count in counts.items()]


def subsampled_segments(pld: PrivacyLossDistribution) -> list[Segment] | None:
    """The run's segments where ``pld`` is rounds of Poisson-subsampled Gaussians in both directions
    (module docstring), else None."""
    if len(pld.directions) != 2:
        return None
    return described_segments(of_pld(pld))


def gaussian_rounds(pld: PrivacyLossDistribution) -> list[tuple[float, int]] | None:
    """(noise, rounds) per distinct Gaussian where ``pld`` is one direction of Gaussian rounds, else None."""
    if len(pld.directions) != 1:
        return None
    return described_gaussians(of_pld(pld))
