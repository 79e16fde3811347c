"""Which neighbouring relation of a run a mechanism's analysis bounds: the one table (docs/neighbouring-relations.md).

Relations (dp_accounting's names):

* ``add_or_remove_one``: D and D u {x};
* ``replace_one``: D u {x} and D u {y}, x and y records (substitution; the size is fixed);
* ``replace_special``: D u {x} and D u {bot}, bot the special record (the size is fixed).

The special record is defined by the stages that read it: a stage analysed under add/remove runs on
a data set holding bot as on the data set without it (bot is skipped: not sampled, not counted, no
contribution), and a stage analysed under replace-special treats bot as its analysis says
(randomized response: a uniform output).  A stage bounds a run's pair when the pair is one
neighbouring step of the relation its analysis holds for:

    analysed under     bounds a run under
    add_or_remove_one  add_or_remove_one; replace_special (D u {bot} runs as D: an add/remove pair)
    replace_special    replace_special
    replace_one        replace_one

Everything else takes two steps or none, and is refused: replace-one from add/remove (x -> y is
remove x, add y) or from replace-special (x -> bot -> y) is a group of two, whose curve the stage's
analysis does not give; add/remove from replace-one or replace-special changes the size those
analyses fix; replace-special from replace-one needs bot among the records that analysis ranges
over, which it does not say.  A run is certified under the relations every stage bounds.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["RELATIONS", "bounds", "run_relations", "relations_bounded", "RELATION_WORDS"]

RELATIONS = ("add_or_remove_one", "replace_one", "replace_special")
RELATION_WORDS = {
    "add_or_remove_one": "add/remove-one",
    "replace_one": "replace-one",
    "replace_special": "replace-special",
}


def bounds(analysed_under: str, run_relation: str) -> bool:
    """True when a mechanism whose privacy curve holds for ``analysed_under`` neighbours bounds
    every ``run_relation`` pair of a run (one step; see the module docstring for the proof and the
    refusals)."""
    for name, value in (("analysed_under", analysed_under), ("run_relation", run_relation)):
        if value not in RELATIONS:
            raise ValueError(f"{name} must be one of {', '.join(RELATIONS)}, got {value!r}")
    return run_relation == analysed_under or (analysed_under, run_relation) == (
        "add_or_remove_one",
        "replace_special",
    )


def relations_bounded(analysed_under: str) -> tuple[str, ...]:
    """The run relations a mechanism analysed under ``analysed_under`` bounds, in ``RELATIONS`` order."""
    return tuple(r for r in RELATIONS if bounds(analysed_under, r))


def run_relations(analysed_under: Sequence[str | None]) -> tuple[str, ...]:
    """The relations under which every stage's analysis bounds the run (None: a stage that holds for
    any relation, its sensitivity being the caller's for the run's relation); empty when none
    does."""
    return tuple(r for r in RELATIONS if all(a is None or bounds(a, r) for a in analysed_under))
