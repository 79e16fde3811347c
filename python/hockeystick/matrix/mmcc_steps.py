"""The steps MMCC's upper side rests on: which are cited from the papers, and which are certified by this library.

An ``MMCCEpsilon`` carries this tuple (``steps``), so that an answer says, beside its numbers, which
published results it takes on trust and under which hypotheses.  Every step marked "cited" is a
theorem of a paper whose number or exact hypotheses were read through a secondary source (named in
``source``); every step marked "certified here" is computed with its round-off bounded, and tested
against an exact computation (``tests/matrix/test_mmcc_pieces.py``).  The hypotheses are checked by
``MMCC`` where they are properties of its arguments (C >= 0, C lower triangular) and assumed where
they are properties of the training run (Poisson sampling, clipping, the adjacency).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["CITED", "CERTIFIED", "MMCC_STEPS", "MMCCStep", "cited_steps"]

Status = Literal["cited", "cited, number unconfirmed", "certified here"]
CITED: Status = "cited"
UNCONFIRMED: Status = "cited, number unconfirmed"
CERTIFIED: Status = "certified here"

_PAPER = "Choquette-Choo, Ganesh, Steinke & Thakurta, ICLR 2024 (arXiv:2310.15526)"


@dataclass(frozen=True)
class MMCCStep:
    """One step of MMCC's upper side: what it states, where it comes from, how firm it is, what it needs.

    Parameters
    ----------
    label : str
        A short handle: the result's number where it has one ("Thm 4.8?", "Cor. 4.7"), else the
        step's name.
    name : str
        What the step establishes, in a few words.
    source : str
        The paper and its number (with who numbered it, where the number was read second-hand), or
        the module of this library that computes it.
    status : {"cited", "cited, number unconfirmed", "certified here"}
        Whether the answer takes the step on trust from its source or computes it with its errors
        bounded.
    hypotheses : tuple of str
        The conditions under which the step holds.
    """

    label: str
    name: str
    source: str
    status: Status
    hypotheses: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.label}: {self.name} [{self.status}: {self.source}; needs {', '.join(self.hypotheses)}]"


MMCC_STEPS: tuple[MMCCStep, ...] = (
    MMCCStep(
        "reduction (most likely Thm 4.8)",
        "reduction: adaptive vector contributions dominated by one record contributing +1 in each sampled round",
        f"{_PAPER}, most likely the first part of the proof of Thm 4.8 (numbered by an ICLR 2025 review of "
        "arXiv:2410.06266), unconfirmed",
        UNCONFIRMED,
        (
            "C >= 0 entrywise",
            "C lower triangular (row i released after round i; a tree's nodes after their last round)",
            "Poisson sampling (each round takes each record independently with probability q)",
            "add/remove one record",
            "contributions clipped to L2 norm <= 1, chosen adaptively from the rows released before",
        ),
    ),
    MMCCStep(
        "Cor. 4.7",
        "vector sensitivities dominated by the scalar mixture of their norms",
        f"{_PAPER}, Cor. 4.7 (numbered by dp_accounting's MixtureGaussianPrivacyLoss documentation)",
        CITED,
        ("a mixture of Gaussians with one noise scale", "add/remove one record"),
    ),
    MMCCStep(
        "Thm 3.1",
        "conditional composition: row by row outside tail events, their probability added to delta",
        f"{_PAPER}, Thm 3.1 (numbered by an ICLR 2024 review); Zhu, Dong & Wang 2022, Thm 10 (dominating pairs "
        "compose adaptively)",
        CITED,
        (
            "each row's conditional pair dominated outside the tail events",
            "add/remove one record, each direction",
        ),
    ),
    MMCCStep(
        "Lemma B.4",
        "a stochastically larger shift law dominates the mixture pair",
        f"{_PAPER}, Lemma B.4 (numbered by an ICLR 2024 review; remove direction); re-proved for both directions "
        "(monotone likelihood ratio) in matrix/mmcc_rows.py",
        CERTIFIED,
        ("shifts >= 0", "one noise scale", "first-order stochastic dominance of the shift laws"),
    ),
    MMCCStep(
        "tail events",
        "tail events: the earlier rows' loss about round j exceeds eps_ij with probability <= tau",
        "matrix/mmcc_participation.py (Chernoff bound, cross terms bounded using C >= 0)",
        CERTIFIED,
        ("C >= 0 entrywise", "Poisson sampling", "under either neighbour"),
    ),
    MMCCStep(
        "participation bounds",
        "conditional participation bounds q~_ij = q e^eps_ij / (q e^eps_ij + 1 - q)",
        "matrix/mmcc_participation.py (Bayes' rule)",
        CERTIFIED,
        ("C >= 0 entrywise", "C lower triangular", "Poisson sampling", "outside the tail events"),
    ),
    MMCCStep(
        "row mixtures",
        "row mixtures: shift laws coupled above each row's, rounded up, their far upper tails cut and charged",
        "matrix/mmcc_rows.py",
        CERTIFIED,
        ("C >= 0 entrywise",),
    ),
    MMCCStep(
        "mixture PLDs",
        "the mixtures' PLDs, their composition and the read at delta_2",
        "pld.mixture_of_gaussians and the library's composition (certified upper side)",
        CERTIFIED,
        ("add/remove one record, both directions",),
    ),
)


def cited_steps(steps: tuple[MMCCStep, ...] = MMCC_STEPS) -> tuple[MMCCStep, ...]:
    """The steps taken on trust from the papers (status "cited" or "cited, number unconfirmed").

    Parameters
    ----------
    steps : tuple of MMCCStep, default MMCC_STEPS
        The steps to filter.

    Returns
    -------
    tuple of MMCCStep
        Those not certified here, in order.
    """
    return tuple(step for step in steps if step.status != CERTIFIED)
