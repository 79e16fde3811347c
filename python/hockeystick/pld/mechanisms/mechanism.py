"""One mechanism of a composition plan: its pair, its discretization on each side, its exact atoms, its proof.

A ``Mechanism`` is a frozen dataclass of its parameters.  ``spec()`` is the hashable tuple
(``name``, *fields) a ``CompositionPlan`` counts runs by (``from_spec`` reads it back), so plans,
their keys and the dp_accounting adapter's events stay plain tuples.  The spec is also how a run
is described to the question: a plan's run is its specs and counts, and a factor that knows the
mechanism it discretizes carries its spec (``Factor.source``), both read by
``pld.question.described_run``.  A class with its own ``name``
registers itself when it is defined (``registry.register_class``), and
``registry.mechanism_of(spec)`` builds the mechanism a spec names: the class is the one place its
name lives.

The contract a mechanism keeps, for the plan's brackets to be certified:

- ``grid_pld(h)``: a ``PrivacyLossDistribution`` on grid h with one factor per neighbouring
  direction (one if the pair is symmetric), each holding a pessimistic PMF whose delta(eps) is at
  least the pair's at every eps (it dominates: connect-the-dots or mass moved up to the grid point
  above, Doroshenko et al. 2022) and an optimistic PMF whose delta(eps) is at most the pair's (it is
  dominated: mass moved down).  Domination is kept by composition, so the plan's upper and lower
  sides are certified.
- ``finite_pairs()``: the dominating pair (P, Q) per direction, each a pair of finite mass vectors
  on one outcome set (an outcome with Q-mass 0 has loss +infinity), or None.  A mechanism with one
  is composed exactly as atoms (``compose.finite_atoms``), never on the grid; its ``grid_pld`` then
  discretizes the same pairs.
- ``exact_atoms()``: the atoms of ``finite_pairs()`` per direction in closed form (losses without
  logarithms, their round-off bounded), or None (then ``finite_atoms.pair_atoms`` forms them).
- ``upper_alternative(h)``: a second proved upper side on grid h (pessimistic PMFs only), composed
  beside ``grid_pld``'s; the plan reports the smaller upper bound.  None if there is none.
- ``loss_atoms()``: the |loss| values where the pair's loss has an atom of positive mass off a
  lattice (a Laplace-like mechanism): a grid through them keeps them exact on both sides
  (``refine.grid_alignment``).  Empty by default; every bound is certified on any grid.
- ``dp_event`` and the door facets: the dp_accounting event class that describes the mechanism, if
  any (the class, or its dotted name ``module.ClassName`` where the class lives above this stage:
  the adapter's events, dp_accounting's), and one facet per door of the dp_accounting adapter,
  which reads every leaf event through them (``registry.dp_event_class``):
  ``from_dp_event(event, relation)`` (the plan door: the mechanism of one event under a
  ``neighbouring.RELATIONS`` name, ``NonPrivateRun`` where it releases its input, None where it
  releases nothing), ``rdp_of_dp_event(event, relation, orders)`` (the RDP door: by default the
  curve ``rdp(orders)`` of that mechanism, ``NOT_OFFERED`` without one), ``loss_reach()`` and
  ``group_loss_reach(c)`` (the reach door: how far one run's, or a group of c copies', privacy
  loss can reach, for the refusals of a grid too wide; ``dp_event_field`` names the event's field a
  refusal names), ``poisson_sampled(q)`` (the Poisson door: a pair of its Poisson sample at rate
  q, composed in place of the generic sampled pair of its curves), ``largest_losses()`` and
  ``delta_floor()`` (the pure-DP door: the largest loss per direction, ``largest_loss``, and the
  mass at loss +infinity).  A facet refuses an event it has
  no analysis for by raising ``base.event_refusal.EventRefused``; a door turns ``NOT_OFFERED``
  into its own refusal.
- ``from_stage(**parameters)``: the mechanism one round of the compose stage of the same name is
  (``registry.stage``), or None; a stage's round then describes it (``described_factors``).
- ``group(c)``: a mechanism dominating this one on inputs c replace-one steps apart
  (``group_of_records``), or None (then the weak-triangle group bound of ``group_privacy``);
  ``input_oblivious()``: whether the replace-one pair already dominates any two inputs (then the
  group of c is the mechanism itself).

Each class's docstring names its pair and the proof or citation of its domination.  Adding a
mechanism is one class in the file of its construction (its stage: ``tests/test_layers.py``) and its
parameters in ``tests/pld/mechanisms/test_pld_mechanism_contract.py`` (docs/howto-mechanism.md).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import numpy as np

from ..grid.atoms import Atoms
from ..grid.distribution import PrivacyLossDistribution
from .registry import register_class

if TYPE_CHECKING:
    from ...base.event_refusal import NonPrivateRun, NotOffered
    from .largest_loss import Directions

Spec = tuple[Any, ...]  # ("name", *parameters): hashable, one per distinct mechanism
Pair = tuple[np.ndarray, np.ndarray]  # (P, Q) masses on one finite outcome set

M = TypeVar("M", bound="Mechanism")


def two_directions(pair: Pair) -> list[Pair]:
    """Remove (P, Q) and add (Q, P): both kept, the worse composition reported."""
    return [pair, (pair[1], pair[0])]


@dataclass(frozen=True)
class Mechanism(ABC):
    """A mechanism's parameters and its certified PLD on any grid (the contract: module docstring)."""

    name: ClassVar[str]  # the spec's first field
    # the dp_accounting event class describing it, or its dotted name (module.ClassName), if any
    dp_event: ClassVar[type | str | None] = None
    dp_event_field: ClassVar[str] = ""  # the event's field a refusal of its loss reach names
    # the compose stage one round of which it is, where the stage's name is not its own
    # (``from_stage``)
    stage_name: ClassVar[str | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Register a subclass that names itself (its own ``name``) in ``registry``."""
        super().__init_subclass__(**kwargs)
        if "name" in cls.__dict__:
            register_class(cls)

    def spec(self) -> Spec:
        """The hashable (name, *fields) a plan keys this mechanism by."""
        return (self.name, *(getattr(self, f.name) for f in fields(self)))

    @classmethod
    def from_spec(cls: type[M], spec: Spec) -> M:
        """The mechanism of ``spec`` (its fields in order)."""
        if not spec or spec[0] != cls.name:
            raise ValueError(f"spec must start with {cls.name!r}, got {spec!r}")
        return cls(*spec[1:])

    @classmethod
    def from_dp_event(cls, event: Any, relation: str) -> Mechanism | NonPrivateRun | None:
        """The plan door's reading of one ``dp_event`` event under ``relation``.

        Parameters
        ----------
        event : object
            An event of the class ``dp_event`` names.
        relation : str
            A ``neighbouring.RELATIONS`` name (dp_accounting's ``NeighboringRelation``, lower case).

        Returns
        -------
        Mechanism, NonPrivateRun or None
            The mechanism of one run; ``NonPrivateRun`` where the event releases its input
            (epsilon = inf); None where it releases nothing (every door then adds nothing).

        Raises
        ------
        EventRefused
            Where the event's analysis does not bound ``relation`` (``base.event_refusal``).
        ValueError
            For a field out of its rule (``base.event_fields``), naming ``EventClass.field``;
            ``ParameterOutOfRange`` past the range where a bound is computed.
        """
        raise ValueError(f"{cls.name} reads no dp_accounting event (its dp_event is None)")

    @classmethod
    def rdp_of_dp_event(
        cls, event: Any, relation: str, orders: np.ndarray
    ) -> np.ndarray | NotOffered:
        """The RDP door's reading of one ``dp_event`` event: its Rényi curve at ``orders``.

        By default the curve of ``from_dp_event``'s mechanism (``rdp``; zero where the event
        releases nothing, +inf where it releases its input), and ``NOT_OFFERED``, before any field
        is read, for a class without a Rényi curve.  A class whose RDP analysis reads the event
        otherwise (other relations, other field ranges) overrides this.

        Parameters
        ----------
        event : object
            An event of the class ``dp_event`` names.
        relation : str
            A ``neighbouring.RELATIONS`` name.
        orders : numpy.ndarray
            Real orders > 1.

        Returns
        -------
        numpy.ndarray or NotOffered
            One run's curve, one value per order, never below the divergence of either direction
            (rounded up); ``NOT_OFFERED`` when the mechanism has no Rényi curve (the door refuses
            the event).

        Raises
        ------
        EventRefused
            Where the RDP analysis does not bound ``relation`` or the event's parameters.
        ValueError
            For a field out of its rule.
        """
        from ...base.event_refusal import NOT_OFFERED, NonPrivateRun  # off the import path

        if cls.rdp is Mechanism.rdp:
            return NOT_OFFERED
        mechanism = cls.from_dp_event(event, relation)
        if mechanism is None:
            return np.zeros(np.shape(orders))
        if isinstance(mechanism, NonPrivateRun):
            return np.full(np.shape(orders), np.inf)
        curve = mechanism.rdp(orders)
        return NOT_OFFERED if curve is None else curve

    @classmethod
    def from_stage(cls, **parameters: Any) -> Mechanism | None:
        """The mechanism one round of the compose stage of the same name (or ``stage_name``) is,
        for the stage's ``parameters`` (``registry.stage``), or None where no instance of this
        class is exactly it.

        A factor of that round then carries the mechanism's spec (``Factor.source``,
        ``described_factors``), so a compose file's or a ledger's run reaches the question as
        (spec, count).  None by default; a class whose ``grid_pld`` is its stage's constructor
        called with its fields gives them from the stage's parameters.

        Parameters
        ----------
        **parameters
            The stage's parameters, as given to its constructor (the grid's left out).

        Returns
        -------
        Mechanism or None
            The mechanism, or None.
        """
        return None

    def gaussian_radius(self) -> float | None:
        """The radius r of the Gaussian pair this mechanism is, where a plan folds it into its closed
        form (the squares of the radii add: the composition is the Gaussian of radius sqrt(sum r^2),
        Dong, Roth & Su 2022, Cor. 3.3), or None: every other mechanism is composed as itself."""
        return None

    def loss_reach(self) -> float:
        """How far one run's privacy loss can reach (at least its largest finite |loss|); 0 if not stated.

        A group of c copies of the record reaches at most ``group_loss_reach(c)`` (its loss is a
        sum of c steps'). The dp_accounting adapter refuses an event whose reach is past the grid's
        range (``MAX_LOSS_REACH``) unless the mechanism is composed as exact atoms
        (``composed_as_atoms``), and a sampled event whose inner reach, times the copies a batch
        holds, is past the grid's range or the doubles, naming ``dp_event_field``.
        """
        return 0.0

    def group_loss_reach(self, c: float) -> float:
        """How far the loss of a group of c copies of the record can reach: c ``loss_reach()``
        (the sum of c steps'); a Gaussian pair's, ``gaussian_reach`` of c times its radius."""
        return c * self.loss_reach()

    def largest_losses(self) -> Directions | None:
        """Certified (lower, upper) on one run's largest privacy loss, remove and add, or None.

        The essential supremum of the loss in each direction, as exact rationals (``largest_loss``):
        the dp_accounting adapter sums them over a composition for its pure-DP epsilon (target delta
        0), the larger direction's sum.  None where no closed form is known (a Gaussian's loss is
        unbounded; a run with a delta floor has an atom at +infinity): the adapter then reads the
        composed profile.

        Returns
        -------
        tuple of tuple of Fraction or None
            ((remove lower, remove upper), (add lower, add upper)), or None.
        """
        return None

    def delta_floor(self) -> float:
        """A lower bound on one run's mass at loss +infinity (its delta at every epsilon); 0 if none.

        The dp_accounting adapter refuses target delta 0 for a composition holding a run with a
        positive floor (delta(epsilon) >= 1 - prod (1 - floor)^count at every epsilon).

        Returns
        -------
        float
            The floor, in [0, 1].
        """
        return 0.0

    def composed_as_atoms(self) -> bool:
        """Whether the class has a finite pair (``finite_pairs``): it is composed as exact atoms on
        a lattice, not on a loss grid, so no grid range bounds its reach."""
        return type(self).finite_pairs is not Mechanism.finite_pairs

    def rdp(self, orders: np.ndarray) -> np.ndarray | None:
        """Its Rényi curve at each of ``orders`` (reals > 1), never below the divergence of either
        direction of its pair (rounded up), or None when it has none."""
        return None

    def poisson_sampled(self, q: float) -> Mechanism | None:
        """A mechanism dominating its Poisson sample at rate 0 < q < 1 under add/remove (the sampled
        pair of each direction, Zhu, Dong & Wang 2022, Thm 11), or None: then the adapter samples
        its curves (``pld.sampling.subsampled_pair``)."""
        return None

    @abstractmethod
    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        """Both sides per neighbouring direction on grid h (pessimistic dominates, optimistic is dominated)."""

    def finite_pairs(self) -> list[Pair] | None:
        """The finite dominating pair per direction, or None (the mechanism is put on the grid)."""
        return None

    def exact_atoms(self) -> list[Atoms] | None:
        """The atoms of ``finite_pairs`` per direction in closed form, or None."""
        return None

    def upper_alternative(self, h: float) -> PrivacyLossDistribution | None:
        """A second proved upper side on grid h, or None."""
        return None

    def has_upper_alternative(self) -> bool:
        """Whether the class overrides ``upper_alternative`` (known without building it)."""
        return type(self).upper_alternative is not Mechanism.upper_alternative

    def loss_atoms(self) -> list[float]:
        """The |loss| of the atoms a grid should pass through (``refine.grid_alignment``)."""
        return []

    def input_oblivious(self) -> bool:
        """Whether the replace-one pair dominates any two inputs (a group of c is the mechanism itself)."""
        return False

    def group(self, c: int) -> Mechanism | None:
        """A mechanism dominating this one on inputs c >= 2 replace-one steps apart, or None."""
        return self if self.input_oblivious() else None
