"""Every mechanism by its name, registered once where it is defined: the one place a name is looked up.

Two kinds of entry, each registered by the file that defines the mechanism:

- a ``Mechanism`` class (``mechanism.py``: a plan's atom, keyed by its spec's first field) registers
  itself when it is defined (``Mechanism.__init_subclass__`` calls ``register_class``);
  ``mechanism_of(spec)`` builds the mechanism a spec names;
- a stage constructor (a function returning a ``PrivacyLossDistribution`` of one round, the
  mechanisms a ``[[stage]]`` of a compose file names) registers itself with the ``stage`` decorator,
  which records the facets the doors read: the neighbouring relation its analysis holds for
  (``neighbouring.RELATIONS``) and, for a mechanism the ledger records, the parameter a sensitivity
  is folded into and the others its round takes.  The ledger's rounds with fields of their own are
  entries too (``round_fields``), read through the same facets; the two no compose file names
  (``compose_file=False``: discrete Gaussian noise on an integer query, a matrix mechanism's whole
  release) are found by ``round_entry`` only.

Every lookup first imports, once, each module of the stages that define mechanisms (``_load``:
``DEFINING_STAGES``, walked, not listed), so a mechanism added as a new file is found without being
named anywhere else.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from ...base.validation import did_you_mean

if TYPE_CHECKING:
    import numpy as np

    from ..grid.distribution import PrivacyLossDistribution

# a ``mechanism.Mechanism`` and its spec (mechanism.py imports this module, so neither is imported
# here)
AnyMechanism = Any
Spec = tuple[Any, ...]

__all__ = [
    "StageEntry",
    "dp_event_class",
    "mechanism_class",
    "mechanism_names",
    "mechanism_of",
    "round_entry",
    "stage",
    "stage_entry",
    "stage_names",
    "unregister",
]

C = TypeVar("C", bound=Callable[..., Any])

# the keyword every stage constructor takes for its grid: the compose file's, not the stage's
GRID_KEYWORD = "value_discretization_interval"

# the pld stages whose modules define mechanisms: this one, the sampling schemes, the accountants'
# plans
DEFINING_STAGES = ("mechanisms", "sampling", "accountants")

# the facets the ledger reads of its rounds (``StageEntry``), given to ``stage`` by keyword
LEDGER_FACETS = (
    "compose_file",
    "round_fields",
    "checked",
    "cached_compose",
    "gaussian_of",
    "lower",
)

_CLASSES: dict[str, type[AnyMechanism]] = {}
# dp_event_class's answer per event class, kept until a class is registered or removed
_READERS: dict[type, type[AnyMechanism] | None] = {}
_STAGES: dict[str, StageEntry] = {}
_LOADED: list[bool] = []


@functools.cache
def _keywords(build: Callable[..., Any]) -> tuple[tuple[str, bool], ...]:
    """Each keyword of ``build`` with whether it has no default, in its order: read once per
    constructor (``inspect.signature`` costs tens of microseconds, and a ledger's restore asks it of
    every stage)."""
    return tuple(
        (n, p.default is inspect.Parameter.empty)
        for n, p in inspect.signature(build).parameters.items()
    )


@dataclass(frozen=True)
class StageEntry:
    """One mechanism a compose stage names: its PLD constructor and the facets the doors read.

    Parameters
    ----------
    name : str
        The stage's ``mechanism`` word.
    build : callable
        ``build(**parameters, value_discretization_interval=h)``: the PLD of one round on grid h.
    relation : str or None
        The neighbouring relation (``neighbouring.RELATIONS``) its analysis holds for; None: the one
        its ``sensitivity`` was computed for.
    relations : tuple of str
        When not empty, the stage chooses its relation among these with its ``relation`` parameter,
        whose default is ``relation``.
    round_noise : str or None
        For a mechanism the ledger records as a ``Round`` of the same name (with its Rényi curve):
        the parameter a ``sensitivity`` is folded into; None when the ledger does not record it so.
    rdp : callable or None
        Its Rényi curve where it has one: ``rdp(orders, **parameters)``, one value per integer
        order, never below the mechanism's exact Rényi divergence (both directions); the ledger
        records a stage of a mechanism with one (and no ``round_noise``) as a round holding the
        stage's parameters.
    compose_file : bool
        Whether a compose file's stage may name it (False: a round of the ledger only).
    round_fields : bool
        The ledger records it as a ``Round`` whose named fields are its required parameters (its
        own rounds: ``ledger.rounds.MECHANISMS``), not as a round holding a stage's parameters.
    checked : callable or None
        ``checked(**fields)``: the fields its own checks rewrite (by name), where it has checks of
        its own beyond each field's range.
    cached_compose : callable or None
        ``cached_compose(accountant, rounds, **fields)``: adds ``rounds`` rounds to a
        ``PLDAccountant`` through its process-wide round cache (``pld.refine.round_cache``), where
        the ledger composes it so rather than with ``build``.
    gaussian_of : callable or None
        ``gaussian_of(**fields)``: the ``Gaussian`` mechanism one round of it is exactly, where it
        is one; its ``gaussian_radius()`` is the round's GDP parameter (Dong, Roth & Su 2022,
        Thm 2.7).
    lower : callable or None
        ``lower(**fields)``: the fields of its realizable lower side, where it is known only
        within a bracket (a lower bound on the true composition when composed in its place).
    """

    name: str
    build: Callable[..., PrivacyLossDistribution]
    relation: str | None = None
    relations: tuple[str, ...] = ()
    round_noise: str | None = None
    rdp: Callable[..., np.ndarray] | None = None
    compose_file: bool = True
    round_fields: bool = False
    checked: Callable[..., dict[str, Any]] | None = None
    cached_compose: Callable[..., None] | None = None
    gaussian_of: Callable[..., Any] | None = None
    lower: Callable[..., dict[str, Any]] | None = None

    def parameters(self) -> list[str]:
        """The keywords a stage of this mechanism takes (the constructor's, but the grid).

        Returns
        -------
        list of str
            In the constructor's order.
        """
        return [n for n, _ in _keywords(self.build) if n != GRID_KEYWORD]

    def required(self) -> list[str]:
        """The keywords a stage of this mechanism must give (the constructor's without a default).

        Returns
        -------
        list of str
            In the constructor's order.
        """
        return [n for n, required in _keywords(self.build) if required and n != GRID_KEYWORD]

    def analysed_under(self, given: Any) -> str | None:
        """The relation a stage's analysis holds for, given its ``relation`` parameter (None if absent).

        Parameters
        ----------
        given : str or None
            The stage's ``relation`` parameter, or None when it gives none.

        Returns
        -------
        str or None
            A ``neighbouring.RELATIONS`` name, or None (the relation of the stage's sensitivity).

        Raises
        ------
        ValueError
            If the mechanism chooses among ``relations`` and ``given`` is not one of them.
        """
        if not self.relations:
            return self.relation
        chosen = self.relation if given is None else given
        if chosen not in self.relations:
            raise ValueError(f"relation must be one of {', '.join(self.relations)}, got {chosen!r}")
        return str(chosen)


def stage(
    *,
    relation: str | None = None,
    relations: tuple[str, ...] = (),
    round_noise: str | None = None,
    rdp: Callable[..., np.ndarray] | None = None,
    name: str | None = None,
    **ledger_facets: Any,
) -> Callable[[C], C]:
    """Register a PLD constructor as the mechanism compose stages name (by default its function's name).

    Parameters
    ----------
    relation, relations, round_noise, rdp : optional
        The facets of ``StageEntry``.
    **ledger_facets
        ``compose_file``, ``round_fields``, ``checked``, ``cached_compose``, ``gaussian_of``,
        ``lower``: the facets of ``StageEntry`` the ledger reads.
    name : str, optional
        The stage's ``mechanism`` word (default the function's name).

    Returns
    -------
    callable
        A decorator that registers the constructor and returns it unchanged.

    Raises
    ------
    ValueError
        If another constructor is registered under the same name, or a keyword is not a facet.
    """
    unknown = sorted(set(ledger_facets) - set(LEDGER_FACETS))
    if unknown:
        raise ValueError(
            f"stage takes the facets {', '.join(LEDGER_FACETS)} besides relation, relations, "
            f"round_noise, rdp and name, got {', '.join(unknown)}"
        )

    def register(build: C) -> C:
        word = build.__name__ if name is None else name
        known = _STAGES.get(word)
        if known is not None and _origin(known.build) != _origin(build):
            raise ValueError(
                f"stage mechanism {word!r} is registered already (by {_origin(known.build)}): choose "
                "another name"
            )
        _STAGES[word] = StageEntry(
            word, build, relation, relations, round_noise, rdp, **ledger_facets
        )
        return build

    return register


def register_class(cls: type[AnyMechanism]) -> None:
    """Register a ``Mechanism`` class under its spec's name (``Mechanism.__init_subclass__`` calls this).

    Parameters
    ----------
    cls : type
        A subclass of ``Mechanism`` with its own ``name``.

    Raises
    ------
    ValueError
        If another class is registered under the same name, or its ``dp_event`` is neither a class,
        a dotted name nor None.
    """
    event = cls.dp_event
    if not (event is None or isinstance(event, type) or (isinstance(event, str) and "." in event)):
        raise ValueError(
            f"{cls.__name__}.dp_event must be an event class, its dotted name (module.ClassName) or "
            f"None, got {event!r}"
        )
    known = _CLASSES.get(cls.name)
    if known is not None and _origin(known) != _origin(cls):
        raise ValueError(
            f"mechanism name {cls.name!r} is registered already (by {_origin(known)}): choose another "
            "name"
        )
    _CLASSES[cls.name] = cls
    _READERS.clear()


def unregister(name: str) -> None:
    """Remove the entries registered under ``name`` (a mechanism defined for a while, as a test's).

    Parameters
    ----------
    name : str
        A class's spec name or a stage's mechanism word.
    """
    _CLASSES.pop(name, None)
    _STAGES.pop(name, None)
    _READERS.clear()


def mechanism_class(name: str) -> type[AnyMechanism]:
    """The ``Mechanism`` class registered under ``name``.

    Parameters
    ----------
    name : str
        The first field of its spec.

    Returns
    -------
    type
        The class.

    Raises
    ------
    ValueError
        If no class is registered under ``name`` (with the closest name).
    """
    _load()
    cls = _CLASSES.get(name) if isinstance(name, str) else None
    if cls is None:
        raise ValueError(
            f"spec must name a registered mechanism, got {name!r}"
            + (did_you_mean(name, list(_CLASSES)) if isinstance(name, str) else "")
        )
    return cls


def mechanism_of(spec: Spec) -> AnyMechanism:
    """The mechanism a plan's spec ``(name, *fields)`` names.

    Parameters
    ----------
    spec : tuple
        ``Mechanism.spec()`` of a registered class.

    Returns
    -------
    Mechanism
        The mechanism, built from the spec's fields.

    Raises
    ------
    ValueError
        If the spec is empty or names no registered class.
    """
    _load()
    if not spec:
        raise ValueError(f"spec must name a mechanism of the catalogue, got {spec!r}")
    cls = _CLASSES.get(spec[0]) if isinstance(spec[0], str) else None
    if cls is None:
        raise ValueError(f"spec must name a mechanism of the catalogue, got {spec!r}")
    return cls.from_spec(spec)


def dp_event_class(event: Any) -> type[AnyMechanism] | None:
    """The registered class that reads ``event``: the one whose ``dp_event`` is nearest in the event's MRO.

    A class names its event either by the class itself or by its dotted name (``module.QualName``,
    e.g. ``"dp_accounting.dp_event.GaussianDpEvent"``): a mechanism of a stage below the adapter
    names the adapter's or dp_accounting's event classes without importing them.  Each class of the
    event's MRO is matched by identity, then by its dotted name.

    Parameters
    ----------
    event : object
        A dp_accounting event (any object: its class is looked up).

    Returns
    -------
    type or None
        The ``Mechanism`` class, or None when no registered class reads events of its class.
    """
    _load()
    kind = type(event)
    if kind not in _READERS:
        _READERS[kind] = _reader_of(kind)
    return _READERS[kind]


def _reader_of(event_class: type) -> type[AnyMechanism] | None:
    """``dp_event_class``'s answer for events of ``event_class``, looked up in the registered classes."""
    readers = {cls.dp_event: cls for cls in _CLASSES.values() if cls.dp_event is not None}
    for kind in event_class.__mro__:
        reader = readers.get(kind) or readers.get(f"{kind.__module__}.{kind.__qualname__}")
        if reader is not None:
            return reader
    return None


def mechanism_names() -> tuple[str, ...]:
    """The names of the ``Mechanism`` classes registered so far, in the order registered.

    Returns
    -------
    tuple of str
        The names.
    """
    _load()
    return tuple(_CLASSES)


def stage_entry(name: Any) -> StageEntry:
    """The stage mechanism registered under ``name``.

    Parameters
    ----------
    name : str
        A compose stage's ``mechanism`` word.

    Returns
    -------
    StageEntry
        Its constructor and facets.

    Raises
    ------
    ValueError
        If no stage mechanism a compose file names is registered under ``name`` (with the known
        ones and the closest).
    """
    _load()
    entry = _STAGES.get(name) if isinstance(name, str) else None
    if entry is None or not entry.compose_file:
        raise ValueError(
            f"mechanism must be one of {', '.join(stage_names())}, got {name!r}"
            + (
                did_you_mean(name, [n for n, e in _STAGES.items() if e.compose_file])
                if isinstance(name, str)
                else ""
            )
        )
    return entry


def round_entry(name: Any) -> StageEntry:
    """The entry of a round the ledger records with fields of its own (``StageEntry.round_fields``).

    Parameters
    ----------
    name : str
        The round's ``mechanism`` (``ledger.rounds.MECHANISMS``).

    Returns
    -------
    StageEntry
        Its constructor and facets, whether or not a compose file names it.

    Raises
    ------
    ValueError
        If no entry with ``round_fields`` is registered under ``name`` (with the ones that are).
    """
    _load()
    entry = _STAGES.get(name) if isinstance(name, str) else None
    if entry is None or not entry.round_fields:
        own = sorted(n for n, e in _STAGES.items() if e.round_fields)
        raise ValueError(f"mechanism must be one of {', '.join(own)}, got {name!r}")
    return entry


def stage_names() -> tuple[str, ...]:
    """Every word a compose file's stage may name, sorted.

    Returns
    -------
    tuple of str
        The names.
    """
    _load()
    return tuple(sorted(n for n, e in _STAGES.items() if e.compose_file))


def _origin(thing: Any) -> str:
    return f"{thing.__module__}.{thing.__qualname__}"


def _load() -> None:
    """Import, once, every module of the stages that define mechanisms, so each registers what it defines.

    The stage packages are walked, not listed by module: a file added to one is found.  This is the
    one reach above this stage, made at the first lookup (never while a module is being imported),
    so the stages above import this one as before."""
    if _LOADED:
        return
    import pkgutil  # loaded on use: the first lookup walks the stages

    _LOADED.append(True)
    pld = __package__.rsplit(".", 1)[0] if __package__ else ""
    for stage_name in DEFINING_STAGES:
        package = importlib.import_module(f"{pld}.{stage_name}")
        for info in pkgutil.iter_modules(list(package.__path__)):
            importlib.import_module(f"{package.__name__}.{info.name}")
