"""One round of a compose stage, its factors describing the registered mechanism it is.

A stage's constructor (``registry.stage``) returns a PLD of one round; where a registered
``Mechanism`` of the same name (or ``stage_name``) is exactly that round (``Mechanism.from_stage``), each factor that
does not already name the mechanism it discretizes is given its spec and the direction of its pair
it holds (``Factor.source``: "symmetric" for a PLD of one direction, "remove" and "add" for two).
The doors that compose stages (compose files, the ledger) so hand the question their run as (spec,
count) (``question.described_run``).  The factors' PMFs are the constructor's, unchanged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ..grid.distribution import PrivacyLossDistribution, Source
from .registry import StageEntry, mechanism_class, mechanism_names

Spec = tuple[Any, ...]

# the direction of its pair each factor holds, by the PLD's number of directions
_DIRECTIONS = {1: ("symmetric",), 2: ("remove", "add")}


def round_spec(entry: StageEntry, parameters: Mapping[str, Any]) -> Spec | None:
    """The spec of the registered mechanism one round of ``entry`` with ``parameters`` is
    (``Mechanism.from_stage`` of the class of the stage's name, or whose ``stage_name`` it is), or
    None where there is none.

    Parameters
    ----------
    entry : StageEntry
        The stage.
    parameters : mapping
        Its parameters, the grid's left out.

    Returns
    -------
    tuple or None
        The spec, or None.
    """
    classes = [mechanism_class(name) for name in mechanism_names()]
    named = [c for c in classes if (c.stage_name or c.name) == entry.name]
    if not named:
        return None
    mechanism = named[0].from_stage(**parameters)
    return None if mechanism is None else mechanism.spec()


def described_by(pld: PrivacyLossDistribution, spec: Spec) -> PrivacyLossDistribution:
    """``pld`` (one round of the mechanism ``spec``) with each factor that names no mechanism given
    ``spec`` and its direction; ``pld`` itself where it has more than two directions.

    Parameters
    ----------
    pld : PrivacyLossDistribution
        One round's PLD.
    spec : tuple
        The registered mechanism's spec.

    Returns
    -------
    PrivacyLossDistribution
        The same PMFs, its factors describing the mechanism.
    """
    names = _DIRECTIONS.get(len(pld.directions))
    if names is None or all(f.source is not None for d in pld.directions for f in d):
        return pld
    directions = [
        {
            (
                f if f.source is not None else dataclasses.replace(f, source=Source(spec, name))
            ): count
            for f, count in direction.items()
        }
        for direction, name in zip(pld.directions, names)
    ]
    return PrivacyLossDistribution(directions, pld.tail)


def described_round(
    entry: StageEntry, parameters: Mapping[str, Any], value_discretization_interval: float
) -> PrivacyLossDistribution:
    """One round of ``entry`` with ``parameters`` on the grid (``StageEntry.build``), its factors
    describing the registered mechanism it is, where there is one (module docstring).

    Parameters
    ----------
    entry : StageEntry
        The stage.
    parameters : mapping
        Its parameters, the grid's left out.
    value_discretization_interval : float
        The grid's spacing.

    Returns
    -------
    PrivacyLossDistribution
        The round's PLD.

    Raises
    ------
    ValueError
        As the stage's constructor, for parameters it refuses.
    """
    pld = entry.build(**parameters, value_discretization_interval=value_discretization_interval)
    spec = round_spec(entry, parameters)
    return pld if spec is None else described_by(pld, spec)
