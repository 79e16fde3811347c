"""The run a composition describes: its rounds of each distinct registered mechanism (the
mechanism's spec, ``Mechanism.spec``: its name and parameters, and a count), or None where a part
carries no description or its neighbouring directions do not form one run.

Every door's composition is read here, whatever built it: a composed PLD through its factors
(``Factor.source``: the spec of the mechanism a factor discretizes and the direction of its pair it
holds, ``of_pld``), a plan of mechanisms before any grid through its specs and counts
(``of_specs``).  A PLD's factors describe a run where every direction holds the same rounds of each
mechanism: a symmetric mechanism's one direction is paired with each direction of the others
(``PrivacyLossDistribution.compose``), and a mechanism of two directions holds its first ("remove")
in the PLD's first direction and its second ("add") in the second.  A PLD of one direction of such a
mechanism (``subsampled_gaussian(..., directions="remove")``) bounds that direction alone and is not
described: the run's bracket, the larger of the two directions, would not bound it.

The reads ask two questions of a run:

* rounds of Poisson-subsampled Gaussians (``poisson_gaussian``, noise sigma / sensitivity, sampling
  rate 0 < q < 1) only: every round of the run uses one neighbouring relation, add-or-remove (Zhu,
  Dong & Wang, AISTATS 2022, Sec. 5) (``described_segments``);
* rounds of Gaussians (``gaussian``) only, which compose into one Gaussian of radius
  sqrt(sum_i c_i shift_i^2 / sigma_i^2) (Dong, Roth & Su 2022, Cor. 3.3) (``described_gaussians``).

Any other run is described all the same; the reads that answer it read its PLD or its plan.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..grid.distribution import Factor, PrivacyLossDistribution, Source

# a registered mechanism's spec: (name, *parameters), ``Mechanism.spec``
Spec = tuple[Any, ...]
# the run: the rounds of each distinct mechanism, in the order first met
Described = dict[Spec, int]
# rounds of Poisson-subsampled Gaussians: ((noise sigma / sensitivity, q, 1), rounds) per distinct
# mechanism
Segment = tuple[tuple[float, float, float], int]

# the direction a factor of a two-direction pair holds in each of a PLD's two directions
_PAIR_DIRECTIONS = ("remove", "add")


def _direction_counts(direction: dict[Factor, int], position: int, of: int) -> Described | None:
    """The rounds of each mechanism in one of a PLD's ``of`` directions (at ``position``), or None
    where a factor has no source or holds a direction of its pair that does not belong there."""
    counts: Described = {}
    for factor, count in direction.items():
        source: Source | None = factor.source
        if source is None:
            return None
        own = source.direction
        if own != "symmetric" and (of != 2 or own != _PAIR_DIRECTIONS[position]):
            return None
        counts[source.spec] = counts.get(source.spec, 0) + int(count)
    return counts


def of_pld(pld: PrivacyLossDistribution) -> Described | None:
    """The run ``pld``'s factors describe (module docstring), or None.

    Parameters
    ----------
    pld : PrivacyLossDistribution
        A composed PLD.

    Returns
    -------
    dict or None
        The rounds of each distinct mechanism spec, in the order first met; None where a factor
        carries no ``source`` or the directions do not hold the same rounds.
    """
    of = len(pld.directions)
    runs = [_direction_counts(d, i, of) for i, d in enumerate(pld.directions)]
    first = runs[0] if runs else None
    if first is None or any(run != first for run in runs[1:]):
        return None
    return first


def of_specs(runs: Iterable[tuple[Spec, int]]) -> Described:
    """The run of mechanisms given by their specs and their rounds (a plan's, before any grid).

    Parameters
    ----------
    runs : iterable of (tuple, int)
        Each mechanism's spec (``Mechanism.spec``) and its count of rounds.

    Returns
    -------
    dict
        The rounds of each distinct spec, in the order first met.
    """
    out: Described = {}
    for spec, count in runs:
        out[spec] = out.get(spec, 0) + int(count)
    return out


def _poisson_gaussian(spec: Spec) -> tuple[float, float] | None:
    """(noise, q) of a Poisson-subsampled Gaussian's spec, noise > 0 and 0 < q < 1; else None."""
    if len(spec) != 3 or spec[0] != "poisson_gaussian":
        return None
    noise, q = float(spec[1]), float(spec[2])
    return (noise, q) if noise > 0.0 and 0.0 < q < 1.0 else None


def described_segments(run: Described | None) -> list[Segment] | None:
    """The run's segments where ``run`` is rounds of Poisson-subsampled Gaussians only (module
    docstring), else None.

    Parameters
    ----------
    run : dict or None
        ``of_pld``'s or ``of_specs``'s description.

    Returns
    -------
    list of ((noise, q, 1.0), rounds) or None
        One segment per distinct (noise, q), in the order first met.
    """
    if not run:
        return None
    counts: dict[tuple[float, float], int] = {}
    for spec, count in run.items():
        key = _poisson_gaussian(spec)
        if key is None:
            return None
        counts[key] = counts.get(key, 0) + int(count)
    return [((noise, q, 1.0), count) for (noise, q), count in counts.items()]


def described_gaussians(run: Described | None) -> list[tuple[float, int]] | None:
    """(noise, rounds) per distinct Gaussian (noise sigma / shift) where ``run`` is rounds of
    Gaussians only, else None.

    Parameters
    ----------
    run : dict or None
        ``of_pld``'s or ``of_specs``'s description.

    Returns
    -------
    list of (float, int) or None
        One entry per distinct noise, in the order first met.
    """
    if not run:
        return None
    counts: dict[float, int] = {}
    for spec, count in run.items():
        if len(spec) != 3 or spec[0] != "gaussian":
            return None
        noise = float(spec[1]) / float(spec[2])
        counts[noise] = counts.get(noise, 0) + int(count)
    return list(counts.items())


def subsampled_segments(pld: PrivacyLossDistribution) -> list[Segment] | None:
    """The run's segments where ``pld`` is rounds of Poisson-subsampled Gaussians in both directions
    (module docstring), else None.

    Parameters
    ----------
    pld : PrivacyLossDistribution
        A composed PLD.

    Returns
    -------
    list of ((noise, q, 1.0), rounds) or None
        ``described_segments`` of its run.
    """
    if len(pld.directions) != 2:
        return None
    return described_segments(of_pld(pld))


def gaussian_rounds(pld: PrivacyLossDistribution) -> list[tuple[float, int]] | None:
    """(noise, rounds) per distinct Gaussian where ``pld`` is one direction of Gaussian rounds, else
    None.

    Parameters
    ----------
    pld : PrivacyLossDistribution
        A composed PLD.

    Returns
    -------
    list of (float, int) or None
        ``described_gaussians`` of its run.
    """
    if len(pld.directions) != 1:
        return None
    return described_gaussians(of_pld(pld))
