"""Accountants and calculators by name, with the parameters each takes: what sweeps and calibration can drive.

An accountant entry names an accountant class (the accountant contract: keyword parameters
that broadcast, ``.delta(epsilon)`` and ``.epsilon(delta)``), and says which of its
parameters are integers and which can be calibrated (and in which direction the bound
moves with them).

A calculator entry names a broadcasting function of keyword parameters that computes one
named quantity that is not an (epsilon, delta) pair: paper 001's Bayesian leakage (TV, JS
between a parameter's distribution and its distorted release) and the paper's formulas
for it.  A sweep over a calculator outputs its quantity; where a calculator has an
inverse for a parameter (the distortion variance meeting a target TV), a sweep can
output that parameter given the quantity as its target, as calibration does for
accountants.

Data flows down: this module imports the accountants and calculators, they never import it.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import inspect
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import numpy as np

from .. import contraction, fdp, isrl, leakage, matrix, pld, rdp, training
from ..base import validation as _validation
from ..base.accountant import Bound
from ..base.validation import scalar_or_array
from ..fdp.gaussian_mechanism import GaussianMechanism

__all__ = [
    "Calibratable",
    "AccountantEntry",
    "CalculatorEntry",
    "Inverse",
    "PerPoint",
    "REGISTRY",
    "CALCULATORS",
    "default_output",
    "get",
    "lookup",
    "names",
    "calculator_names",
    "configure",
    "family_names",
    "register",
    "register_calculator",
    "vector",
]


@dataclass(frozen=True)
class Calibratable:
    """A parameter the bound is monotone in, and the interval to search it over.

    ``direction``: "decreasing" if delta(eps) falls as the parameter grows (sigma:
    calibration returns the SMALLEST feasible value), "increasing" if it rises
    (rounds, sampling rate: calibration returns the LARGEST feasible value).
    ``upper`` may depend on the other parameters (rounds <= n / batch_size).
    """

    direction: Literal["decreasing", "increasing"]
    lower: float
    upper: float | Callable[[Mapping[str, np.ndarray]], np.ndarray]
    integer: bool = False


@dataclass(frozen=True)
class AccountantEntry:
    """One registered accountant: its class, its parameter names and their roles."""

    name: str
    factory: Callable[..., Any]
    summary: str
    integers: frozenset[str] = frozenset()
    calibratable: dict[str, Calibratable] = field(default_factory=dict)
    hidden: frozenset[str] = frozenset()  # constructor options that are not numeric grid parameters
    max_chunk: int | None = None  # points per call the accountant handles in bounded memory
    # options each taking ONE vector of numbers that describes the mechanism (a strategy's coefficients), not a
    # grid axis: an entry with vectors is a family, and ``configure`` binds them into an accountant named with them
    vectors: frozenset[str] = frozenset()

    @property
    def parameters(self) -> tuple[str, ...]:
        """Every keyword the constructor takes, in signature order."""
        return tuple(self._signature().parameters)

    @property
    def required(self) -> tuple[str, ...]:
        """The keywords without a default."""
        return tuple(n for n, p in self._signature().parameters.items() if p.default is inspect.Parameter.empty)

    @property
    def defaults(self) -> dict[str, Any]:
        return {
            n: p.default for n, p in self._signature().parameters.items() if p.default is not inspect.Parameter.empty
        }

    def _signature(self) -> inspect.Signature:
        return _keyword_signature(self.factory, self.hidden | self.vectors)

    def build(self, **params: Any) -> Any:
        """Construct the accountant from the parameters it takes, a family's vectors included (extra keys are
        ignored)."""
        return self.factory(**{k: v for k, v in params.items() if k in self.parameters or k in self.vectors})


def _keyword_signature(function: Callable[..., Any], hidden: frozenset[str] = frozenset()) -> inspect.Signature:
    """The keyword parameters of ``function`` a grid can set (not ``hidden`` options, not ``threads`` or
    ``workers``: how many cores evaluate is not a point of the grid)."""
    sig = inspect.signature(function)
    return sig.replace(
        parameters=[
            p
            for p in sig.parameters.values()
            if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
            and p.name not in hidden
            and p.name not in ("threads", "workers")
        ]
    )


@dataclass(frozen=True)
class Inverse:
    """How a calculator solves for one of its parameters: ``function`` takes the calculator's other
    parameters (those in its own signature) plus the target value of the quantity as ``target``."""

    function: Callable[..., Any]
    target: str


CalculatorKind = Literal["exact", "paper formula, not a guarantee"]


@dataclass(frozen=True)
class CalculatorEntry:
    """One registered calculator: a broadcasting function computing ``quantity`` from keyword parameters.

    ``kind`` says what the number is: "exact" (a value, computed to the accuracy its docstring
    states) or "paper formula, not a guarantee" (a paper's expression as printed).
    ``inverses``: parameter -> how to solve for it given a target value of ``quantity``.
    """

    name: str
    factory: Callable[..., Any]
    quantity: str
    summary: str
    kind: CalculatorKind
    integers: frozenset[str] = frozenset()
    inverses: dict[str, Inverse] = field(default_factory=dict)
    max_chunk: int | None = None

    @property
    def parameters(self) -> tuple[str, ...]:
        return tuple(_keyword_signature(self.factory).parameters)

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(
            n for n, p in _keyword_signature(self.factory).parameters.items() if p.default is inspect.Parameter.empty
        )

    def inverse_parameters(self, parameter: str) -> tuple[str, ...]:
        """What solving for ``parameter`` takes: the inverse's parameters, its target named ``quantity``."""
        inverse = self.inverses[parameter]
        return tuple(
            self.quantity if p == inverse.target else p for p in _keyword_signature(inverse.function).parameters
        )

    def evaluate(self, **params: Any) -> np.ndarray:
        """The quantity at the (broadcast) parameters, as a float array (extra keys are ignored)."""
        return np.asarray(self.factory(**{k: v for k, v in params.items() if k in self.parameters}), dtype=float)

    def solve(self, parameter: str, **params: Any) -> np.ndarray:
        """The value of ``parameter`` at which the quantity equals ``params[quantity]`` (the target)."""
        inverse = self.inverses[parameter]
        given = {
            inverse.target if k == self.quantity else k: v
            for k, v in params.items()
            if k in self.inverse_parameters(parameter)
        }
        return np.asarray(inverse.function(**given), dtype=float)


class PerPoint:
    """An accountant whose parameters must be scalars (a per-round schedule), over arrays of points.

    ``PerPoint.of(cls)(**params)`` broadcasts ``params``, builds one ``cls`` per distinct point and
    evaluates ``delta`` / ``epsilon`` there, so sweeps and calibration can drive it like any other
    accountant.  One accountant per point: meant for short chunks (``max_chunk``).
    """

    def __init__(self, cls: Callable[..., Any], params: Mapping[str, Any]) -> None:
        self._cls = cls
        names = [k for k, v in params.items() if v is not None]
        arrays = np.broadcast_arrays(*(np.asarray(params[k]) for k in names)) if names else []
        self._shape = arrays[0].shape if arrays else ()
        self._points: dict[tuple[Any, ...], Any] = {}
        # .item() of a numeric element; an object array's element (a Python int beyond the doubles) as it is,
        # for the accountant's own check to refuse by name
        self._keys = [tuple(np.asarray(a.ravel()[i]).item() for a in arrays) for i in range(int(np.prod(self._shape)))]
        self._names, self._fixed = names, {k: v for k, v in params.items() if v is None}
        for key in dict.fromkeys(self._keys):
            self._points[key] = cls(**dict(zip(names, key)), **self._fixed)

    @classmethod
    def of(cls, accountant: Callable[..., Any]) -> Callable[..., PerPoint]:
        """A factory with ``accountant``'s keyword signature, building a PerPoint over it."""

        @functools.wraps(accountant)
        def build(**params: Any) -> PerPoint:
            return cls(accountant, params)

        build.__signature__ = inspect.signature(accountant)  # type: ignore[attr-defined]
        return build

    def _each(self, method: str, arg: np.ndarray, bound: str) -> Any:
        shape = np.broadcast_shapes(arg.shape, self._shape)
        flat_x = np.broadcast_to(arg, shape).reshape(-1)
        flat_keys = np.broadcast_to(np.arange(len(self._keys)).reshape(self._shape), shape).reshape(-1)
        out = np.array(
            [getattr(self._points[self._keys[k]], method)(float(v), bound=bound) for v, k in zip(flat_x, flat_keys)],
            dtype=np.float64,
        ).reshape(shape)
        return float(out) if shape == () else out

    def delta(self, epsilon: Any, *, bound: Bound = "upper") -> Any:
        """delta(eps) of each point's accountant (upper bounds); epsilon by the shared rule (``_validation``)."""
        return self._each("delta", _validation.epsilon_values(epsilon), bound)

    def epsilon(self, delta: Any, *, bound: Bound = "upper") -> Any:
        """epsilon(delta) of each point's accountant (upper bounds); delta by the shared rule (``_validation``)."""
        return self._each("epsilon", _validation.delta_values(delta), bound)


REGISTRY: dict[str, AccountantEntry] = {}
CALCULATORS: dict[str, CalculatorEntry] = {}


def register(entry: AccountantEntry) -> AccountantEntry:
    """Add ``entry`` under ``entry.name`` (a name can be registered once)."""
    if entry.name in REGISTRY:
        raise ValueError(f"accountant {entry.name!r} is already registered")
    _check_parameter_names(entry, entry.calibratable)
    takes = inspect.signature(entry.factory).parameters
    for name in entry.vectors:
        if name not in takes or name in entry.hidden:
            raise ValueError(f"{entry.name}: vector option {name!r} is not a keyword of {entry.factory!r}")
    REGISTRY[entry.name] = entry
    return entry


def register_calculator(entry: CalculatorEntry) -> CalculatorEntry:
    """Add a calculator under ``entry.name`` (names are shared with the accountants and unique)."""
    if entry.name in REGISTRY or entry.name in CALCULATORS:
        raise ValueError(f"{entry.name!r} is already registered")
    _check_parameter_names(entry, entry.inverses)
    CALCULATORS[entry.name] = entry
    return entry


def _check_parameter_names(entry: AccountantEntry | CalculatorEntry, solved: Iterable[str]) -> None:
    """Every integer and solvable name of ``entry`` is a parameter of its factory (ValueError if not)."""
    for name in [*entry.integers, *solved]:
        if name not in entry.parameters:
            raise ValueError(f"{entry.name}: {name!r} is not a parameter of {entry.factory!r}")


def names() -> list[str]:
    """The registered accountants' names (built from numeric parameters alone: not the families)."""
    return sorted(n for n, e in REGISTRY.items() if not e.vectors)


def family_names() -> list[str]:
    """The registered families: accountants that also take vector options (``configure`` names one)."""
    return sorted(n for n, e in REGISTRY.items() if e.vectors)


def calculator_names() -> list[str]:
    """The registered calculators' names."""
    return sorted(CALCULATORS)


def _unknown(kind: str, name: str) -> ValueError:
    known = names() + family_names() + calculator_names()
    close = difflib.get_close_matches(str(name), known, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return ValueError(
        f"unknown {kind} {name!r}{hint}; registered accountants: {', '.join(names())}; "
        f"families (with vector options, NAME[option=v1,v2,...]): {', '.join(family_names())}; "
        f"calculators: {', '.join(calculator_names())}"
    )


def get(name: str) -> AccountantEntry:
    """The accountant called ``name`` (a family configured by its name, ``configure``), or a ValueError listing
    the registered names."""
    entry = REGISTRY.get(name)
    if entry is None and isinstance(name, str) and "[" in name:
        return _configured(name)
    if entry is None:
        raise _unknown("accountant", name)
    return entry


def default_output(names: list[str] | tuple[str, ...]) -> str:
    """What a sweep over ``names`` computes unless told: delta for accountants, the quantity for calculators."""
    entry = lookup(names[0]) if names else None
    return entry.quantity if isinstance(entry, CalculatorEntry) else "delta"


def lookup(name: str) -> AccountantEntry | CalculatorEntry:
    """The accountant or calculator called ``name`` (what a sweep can evaluate)."""
    entry = REGISTRY.get(name) or CALCULATORS.get(name)
    if entry is None and isinstance(name, str) and "[" in name:
        return _configured(name)
    if entry is None:
        raise _unknown("accountant", name)
    return entry


# --- families: vector options bound into an accountant's name ---------------------------------------
#
# A grid's parameters are numbers and its lists are axes, so a vector that describes one mechanism (a BLT's
# buffer decays) cannot be a grid parameter.  ``configure`` binds a family's vectors into an entry of its own
# whose name spells them, FAMILY[option=v1,v2,...;option=...]: sweeps, calibration and the command line pass
# that name like any other, and ``get`` / ``lookup`` rebuild the entry from it in any process (Dask workers).

_CONFIGURED: dict[str, AccountantEntry] = {}
_SPELLED = re.compile(r"\s*(\w+)\s*\[(.*)\]\s*", re.DOTALL)


def vector(value: Any, name: str) -> tuple[float, ...]:
    """One vector option: a non-empty list of finite numbers, given as a sequence, a 1-D array, a number or
    the command line's text "0.9,0.5"; a ValueError naming ``name`` otherwise."""
    rule = f"{name} must be one non-empty list of finite numbers (such as {name}=0.9,0.5)"
    if isinstance(value, str):
        items = [item.strip() for item in value.split(",")]
        try:
            numbers = [float(item) for item in items] if value.strip() else []
        except ValueError:
            raise ValueError(f"{rule}, got {value!r}") from None
    else:
        try:
            arr = np.asarray(value, dtype=object if isinstance(value, (bool, np.bool_)) else None)
        except ValueError:  # a ragged nesting
            arr = np.asarray(None, dtype=object)
        if arr.dtype.kind not in "iuf" or arr.ndim > 1:
            raise ValueError(f"{rule}, got {_validation.describe(value)}")
        numbers = [float(x) for x in arr.reshape(-1)]
    if not numbers:
        raise ValueError(f"{rule}, got an empty list")
    bad = next((x for x in numbers if not math.isfinite(x)), None)
    if bad is not None:
        raise ValueError(f"{rule}, got {bad!r} in {value!r}")
    return tuple(numbers)


def configure(name: str, **vectors: Any) -> str:
    """The name of the accountant of family ``name`` with its vector options ``vectors`` bound (each one list
    of numbers, ``vector``), such as ``dp_ftrl_banded[coefficients=1.0,0.5]``: what a sweep, ``calibrate`` and
    the command line take.  A ValueError names an option that is missing, unknown or not a list of finite
    numbers, and a combination the family refuses (a BLT's two lists of different lengths)."""
    entry = REGISTRY.get(name)
    if entry is None or not entry.vectors:
        if entry is None and not (isinstance(name, str) and "[" in name):
            raise _unknown("family", name)
        raise ValueError(
            f"{name!r} takes no vector options (it is not a family); the families: {', '.join(family_names())}"
        )
    order = [p for p in inspect.signature(entry.factory).parameters if p in entry.vectors]
    unknown = sorted(set(vectors) - entry.vectors)
    if unknown:
        raise ValueError(
            f"{name} has no vector option {', '.join(map(repr, unknown))}"
            f"{_validation.did_you_mean(unknown[0], order)}; its vector options: {', '.join(order)}"
        )
    missing = [p for p in order if p not in vectors]
    if missing:
        raise ValueError(
            f"accountant {name!r} needs {' and '.join(missing)}: one list of numbers"
            f"{' each' if len(missing) > 1 else ''} (such as {missing[0]}=0.9,0.5)"
        )
    values = {p: vector(vectors[p], p) for p in order}
    spelled = f"{name}[{';'.join(p + '=' + ','.join(map(repr, values[p])) for p in order)}]"
    if spelled not in _CONFIGURED:
        bind = getattr(entry.factory, "bind", None)
        factory = bind(**values) if callable(bind) else functools.partial(entry.factory, **values)
        _CONFIGURED[spelled] = dataclasses.replace(
            entry, name=spelled, factory=factory, vectors=frozenset(), hidden=entry.hidden | entry.vectors
        )
    return spelled


def _configured(spelled: str) -> AccountantEntry:
    """The entry a configured name spells (``configure``)."""
    found = _CONFIGURED.get(spelled)
    if found is not None:
        return found
    match = _SPELLED.fullmatch(spelled)
    if match is None or match.group(1) not in REGISTRY:
        raise _unknown("accountant", spelled)
    options: dict[str, str] = {}
    for item in match.group(2).split(";"):
        option, sep, value = item.partition("=")
        if not sep or not option.strip():
            raise ValueError(
                f"accountant {spelled!r}: write FAMILY[option=v1,v2,...;option=...], such as "
                f"dp_ftrl_banded[coefficients=1,0.5]; got the item {item.strip()!r}"
            )
        if option.strip() in options:
            raise ValueError(f"accountant {spelled!r} gives {option.strip()} twice; give it once")
        options[option.strip()] = value
    return _CONFIGURED[configure(match.group(1), **options)]


# --- the registered accountants -------------------------------------------------------------

_SIGMA = Calibratable("decreasing", 0.0, float("inf"))
_ROUNDS = Calibratable("increasing", 1.0, float("inf"), integer=True)


def _rounds_per_pass(params: Mapping[str, np.ndarray]) -> np.ndarray:
    """000 Algorithm 1 samples without replacement: at most floor(n / batch_size) rounds."""
    return cast(np.ndarray, np.floor(np.asarray(params["n"], float) / np.asarray(params["batch_size"], float)))


_ONE_PASS_ROUNDS = Calibratable("increasing", 1.0, _rounds_per_pass, integer=True)
_FL = frozenset({"n", "batch_size", "rounds"})

register(
    AccountantEntry(
        name="gaussian",
        factory=GaussianMechanism,
        summary="Gaussian mechanism composed over rounds, exact: mu = sqrt(rounds) sensitivity / sigma (004 eq. 8)",
        integers=frozenset({"rounds"}),
        calibratable={"sigma": _SIGMA, "rounds": _ROUNDS},
    )
)

for _name, _cls, _summary, _rounds in (
    (
        "trusted_aggregator",
        contraction.TrustedAggregator,
        "FL with a trusted aggregator, last model only, convex (000 Thm 2)",
        True,
    ),
    (
        "trusted_aggregator_nonconvex",
        contraction.NonconvexTrustedAggregator,
        "000 Thm 2 without convexity: diameter 2(rho + eta L)",
        True,
    ),
    (
        "trusted_aggregator_strongly_convex",
        contraction.StronglyConvexTrustedAggregator,
        "000 Thm 2, strongly convex: diameter 2 rho M",
        True,
    ),
    (
        "trusted_aggregator_random_stop",
        contraction.RandomStopTrustedAggregator,
        "000 Corollary 3: stopped at a uniformly random round",
        False,
    ),
):
    register(
        AccountantEntry(
            name=_name,
            factory=_cls,
            summary=_summary,
            integers=_FL,
            calibratable={"sigma": _SIGMA, **({"rounds": _ONE_PASS_ROUNDS} if _rounds else {})},
        )
    )

register(
    AccountantEntry(
        name="pnsgd_gaussian",
        factory=contraction.PNSGDGaussian,
        integers=frozenset({"n", "index"}),
        summary="projected noisy SGD, Gaussian noise, i-th record (002 Thm 4)",
        calibratable={"sigma": _SIGMA},
    )
)
register(
    AccountantEntry(
        name="pnsgd_laplace",
        factory=contraction.PNSGDLaplace,
        integers=frozenset({"n", "index"}),
        summary="projected noisy SGD, Laplace noise, i-th record (002 Thm 3)",
        calibratable={"scale": _SIGMA},
    )
)
register(
    AccountantEntry(
        name="pnsgd_renyi_baseline",
        factory=contraction.PNSGDRenyiBaseline,
        integers=frozenset({"n", "index"}),
        summary="projected noisy SGD, Balle et al. 2019's RDP bound (002 Prop. 1)",
        calibratable={"sigma": _SIGMA},
    )
)

register(
    AccountantEntry(
        name="gdp",
        factory=fdp.GaussianDP,
        summary="mu-Gaussian DP: delta(eps) = theta_eps(mu) (004 Lemma 7, eq. 8)",
        calibratable={"mu": Calibratable("increasing", 0.0, float("inf"))},
    )
)

for _schedule in fdp.SCHEDULES:
    # constant and cyclic schedules: the valid bound is GDP composition, monotone in the rounds
    _monotone_rounds = _schedule in ("constant", "cyclic")
    register(
        AccountantEntry(
            name="noisy_fedavg" if _schedule == "constant" else f"noisy_fedavg_{_schedule}",
            factory=functools.partial(fdp.NoisyFedAvg, schedule=_schedule),
            hidden=frozenset({"schedule"}),
            summary=f"noisy FedAvg, last model, {_schedule} learning rate, exact interpolation bound (004 Thm 12)",
            integers=frozenset({"clients", "local_steps", "rounds"}),
            calibratable={"sigma": _SIGMA, **({"rounds": _ROUNDS} if _monotone_rounds else {})},
        )
    )

register(
    AccountantEntry(
        name="noisy_fedprox",
        factory=fdp.NoisyFedProx,
        hidden=frozenset({"constants"}),
        summary="noisy FedProx, last model, theorem constants, exact interpolation bound (004 Thm 15)",
        integers=frozenset({"clients", "local_steps", "rounds"}),
        calibratable={"sigma": _SIGMA, "rounds": _ROUNDS},
    )
)

register(
    AccountantEntry(
        name="pnsgd_random_stop",
        factory=contraction.PNSGDRandomStop,
        hidden=frozenset({"paper_form"}),
        integers=frozenset({"n", "index"}),
        summary="projected noisy SGD stopped at a uniformly random step, Gaussian noise (002 Thm 5)",
        calibratable={"sigma": _SIGMA},
    )
)

_schedule_classes: tuple[tuple[str, Any, str], ...] = (
    (
        "trusted_aggregator_inverse_time",
        contraction.InverseTimeRateTrustedAggregator,
        "000 Corollary 1: eta_t = 1/(lambda t), constant sigma, O(T) sum",
    ),
    (
        "trusted_aggregator_schedule",
        contraction.TrustedAggregatorSchedule,
        "000 Thm 2 with per-round eta_t, sigma_t (scalars in a sweep: a constant schedule by the O(T) sum)",
    ),
    (
        "trusted_aggregator_random_stop_schedule",
        contraction.RandomStopTrustedAggregatorSchedule,
        "000 Corollary 3 with per-round eta_t, sigma_t, exact O(T) double sum",
    ),
)
for _name, _cls, _summary in _schedule_classes:
    register(
        AccountantEntry(
            name=_name,
            factory=PerPoint.of(_cls),
            summary=_summary,
            max_chunk=1 << 8,
            integers=frozenset({"n", "batch_size", "rounds"}),
            hidden=frozenset({"nonconvex"}),
            calibratable={"sigma": _SIGMA},
        )
    )

# PLDAccountant is not registered: it accumulates rounds of different mechanisms by calls
# (compose, compose_subsampled_gaussian), so no set of keyword parameters describes it;
# SubsampledGaussianPLD is its keyword form for the common case of T identical rounds.

register(
    AccountantEntry(
        name="rdp_subsampled_gaussian",
        factory=rdp.SubsampledGaussianRDP,
        hidden=frozenset({"orders", "conversion", "fractional_series"}),
        max_chunk=1 << 14,
        summary="Poisson-subsampled Gaussian over rounds, RDP with the tight conversion (baseline)",
        integers=frozenset({"rounds"}),
        calibratable={"sigma": _SIGMA, "rounds": _ROUNDS, "sampling_rate": Calibratable("increasing", 0.0, 1.0)},
    )
)

_replace_one: tuple[tuple[str, Any, str], ...] = (
    ("pld_fixed_batch_gaussian", pld.FixedBatchGaussianPLD, "without replacement"),
    ("pld_with_replacement_gaussian", pld.WithReplacementBatchGaussianPLD, "with replacement (003 ISRL-DP silo)"),
)
for _name, _cls, _what in _replace_one:
    register(
        AccountantEntry(
            name=_name,
            factory=_cls,
            max_chunk=1 << 10,
            summary=f"fixed-size batches {_what}, replace-one, every round released: PLD, certified upper bound",
            integers=frozenset({"batch_size", "n", "rounds"}),
            calibratable={"sigma": _SIGMA, "rounds": _ROUNDS},
        )
    )

register(
    AccountantEntry(
        name="pld_subsampled_gaussian",
        factory=pld.SubsampledGaussianPLD,
        max_chunk=1 << 15,
        hidden=frozenset({"delta_accuracy"}),
        summary="Poisson-subsampled Gaussian over rounds, every round released: PLD composition, certified upper bound",
        integers=frozenset({"rounds"}),
        calibratable={"sigma": _SIGMA, "rounds": _ROUNDS, "sampling_rate": Calibratable("increasing", 0.0, 1.0)},
    )
)


def _population(name: str) -> Callable[[Mapping[str, np.ndarray]], np.ndarray]:
    """A batch size's largest value: the population it is drawn from (a run given without it is refused by
    the class, which names what is missing)."""
    return lambda p: np.asarray(np.inf) if name not in p else _validation.positive_integer(p[name], name).astype(float)


# the sampling rate of a Poisson run given by its rate (sampling_probability, sampling_rate: the class's synonyms)
_SAMPLE_RATE = {"sample_rate": Calibratable("increasing", 0.0, 1.0)}

_TRAINING_SUMMARY = (
    "{what}, every step released, in training terms (noise multiplier, {population}, {batch}, "
    "epochs or {steps}): {how}, certified upper bound"
)
for _sampling, _suffix, _how in (
    ("poisson", "", "Poisson-subsampled Gaussian PLD"),
    ("fixed_size", "_fixed_size", "fixed-size batches, replace-one PLD"),
    ("balls_in_bins", "_balls_in_bins", "balls-in-bins batches (random allocation), add/remove PLD"),
    ("shuffle", "_shuffle", "shuffled batches, replace-one: Gaussian per epoch above, shift-2 balls-in-bins PLD below"),
):
    _sgd = functools.partial(training.DPSGD, sampling=cast(training.Sampling, _sampling))
    _fedavg = functools.partial(training.DPFedAvg, sampling=cast(training.Sampling, _sampling))
    if _sampling in ("poisson", "balls_in_bins", "shuffle"):  # calibrate's start (a partial takes attributes)
        _how_drawn = cast(training.Sampling, _sampling)
        _sgd_words = ("dataset_size", "batch_size", "epochs", "steps")
        _fedavg_words = ("total_clients", "clients_per_round", "epochs", "rounds")
        setattr(_sgd, "calibration_start", training.epoch_noise_start(_how_drawn, _sgd_words))  # noqa: B010
        setattr(_fedavg, "calibration_start", training.epoch_noise_start(_how_drawn, _fedavg_words))  # noqa: B010
    if _sampling == "poisson":  # coarse grids for the noise, as the accountant's sigma has them
        setattr(_sgd, "calibration_grids", training.noise_grids)  # noqa: B010
        setattr(_fedavg, "calibration_grids", training.noise_grids)  # noqa: B010
    register(
        AccountantEntry(
            name=f"dp_sgd{_suffix}",
            factory=_sgd,
            hidden=frozenset({"sampling", "steps_per_epoch"}),
            max_chunk=1 << 10,
            summary=_TRAINING_SUMMARY.format(
                what="DP-SGD", population="dataset size", batch="batch size", steps="steps", how=_how
            ),
            integers=frozenset({"dataset_size", "batch_size", "steps"}),
            calibratable={
                "noise_multiplier": _SIGMA,
                "epochs": Calibratable("increasing", 1.0, float("inf"), integer=True),
                **(
                    {}  # the shuffled upper side does not depend on the batch size
                    if _sampling == "shuffle"
                    else {"batch_size": Calibratable("increasing", 1.0, _population("dataset_size"), integer=True)}
                ),
                **(_SAMPLE_RATE if _sampling == "poisson" else {}),
            },
        )
    )
    register(
        AccountantEntry(
            name=f"dp_fedavg{_suffix}",
            factory=_fedavg,
            hidden=frozenset({"sampling", "steps_per_epoch"}),
            max_chunk=1 << 10,
            summary=_TRAINING_SUMMARY.format(
                what="DP-FedAvg", population="total clients", batch="clients per round", steps="rounds", how=_how
            ),
            integers=frozenset({"total_clients", "clients_per_round", "rounds"}),
            calibratable={
                "noise_multiplier": _SIGMA,
                "rounds": _ROUNDS,
                **(
                    {}
                    if _sampling == "shuffle"
                    else {
                        "clients_per_round": Calibratable("increasing", 1.0, _population("total_clients"), integer=True)
                    }
                ),
                **(_SAMPLE_RATE if _sampling == "poisson" else {}),
            },
        )
    )

for _strategy, _what in (("tree", "one binary tree"), ("tree_restart", "a tree restarted every min_separation rounds")):
    register(
        AccountantEntry(
            name=f"dp_ftrl_{_strategy}",
            factory=functools.partial(matrix.DPFTRL, strategy=_strategy),
            hidden=frozenset({"strategy", "participation", "adaptive_inputs"}),  # a named strategy is lower triangular
            max_chunk=1 << 12,
            summary=f"DP-FTRL, {_what}, clients at least min_separation rounds apart (at most max_participations "
            "times): exact Gaussian at the certified L2 sensitivity (exact or a proved upper bound)",
            integers=frozenset({"rounds", "min_separation", "max_participations"}),
            calibratable={"noise_multiplier": _SIGMA},
        )
    )


class _StrategyFamily:
    """The factory of a matrix accountant ``cls`` whose strategy is ``make(**vectors)``: ``cls``'s keywords but
    ``strategy``, plus ``make``'s arguments (the family's vector options); ``bind(**vectors)`` is the factory of
    one configured accountant, its strategy built (and checked) once."""

    def __init__(self, family: str, cls: Callable[..., Any], make: Callable[..., Any], strategy: Any = None) -> None:
        self.family, self.cls, self.make, self.strategy = family, cls, make, strategy
        self.vectors = tuple(inspect.signature(make).parameters)
        kept = [p for p in inspect.signature(cls).parameters.values() if p.name != "strategy"]
        added = (
            [] if strategy is not None else [inspect.Parameter(v, inspect.Parameter.KEYWORD_ONLY) for v in self.vectors]
        )
        self.__signature__ = inspect.Signature(kept + added)

    def bind(self, **vectors: Any) -> _StrategyFamily:
        return _StrategyFamily(self.family, self.cls, self.make, self.make(**vectors))

    def __call__(self, **params: Any) -> Any:
        strategy = self.strategy
        if strategy is None:
            missing = [v for v in self.vectors if v not in params]
            if missing:
                raise ValueError(
                    f"accountant {self.family!r} is a family: its strategy's {' and '.join(missing)} (one list of "
                    f"numbers each, not a grid axis) name the accountant, registry.configure({self.family!r}, "
                    f"{', '.join(v + '=[...]' for v in self.vectors)}) in Python (a name such as "
                    f"'{self.family}[{self.vectors[0]}=0.9,0.5;...]'), -p {self.vectors[0]}=0.9,0.5 on the command line"
                )
            strategy = self.make(**{v: vector(params.pop(v), v) for v in self.vectors})
        return self.cls(**params, strategy=strategy)


class _AmplifiedPerRun:
    """AmplifiedBandedMF at points whose rounds or min_separation (single values in the class) vary: one
    accountant per distinct (rounds, min_separation), at its points' noise multipliers and sampling rates."""

    _RUN = ("rounds", "min_separation")
    _BROADCAST = ("noise_multiplier", "sampling_rate")

    def __init__(self, params: dict[str, Any]) -> None:
        self._params = params

    def _sides(self, method: str, argument: np.ndarray, bound: Bound) -> Any:
        arrays = {
            k: np.asarray(self._params[k]) for k in self._RUN + self._BROADCAST if self._params.get(k) is not None
        }
        shape = np.broadcast_shapes(argument.shape, *(a.shape for a in arrays.values()))
        flat = {k: np.broadcast_to(a, shape).reshape(-1) for k, a in arrays.items()}
        x = np.broadcast_to(argument, shape).reshape(-1)
        runs = np.stack([flat[k] if k in flat else np.zeros(x.size) for k in self._RUN], axis=1)
        keys, which = np.unique(runs, axis=0, return_inverse=True)
        sides = np.empty((2 if bound == "both" else 1, x.size))
        for index, key in enumerate(keys):
            at = np.flatnonzero(which.reshape(-1) == index)
            fixed = {k: v for k, v in self._params.items() if k not in arrays}
            run: dict[str, Any] = {k: float(v) for k, v in zip(self._RUN, key) if k in flat}  # count() refuses 2.5
            points: dict[str, Any] = {k: flat[k][at] for k in self._BROADCAST if k in flat}
            acc = matrix.AmplifiedBandedMF(**fixed, **run, **points)
            sides[:, at] = np.asarray(getattr(acc, method)(x[at], bound=bound), dtype=float).reshape(-1, at.size)
        out = [scalar_or_array(side.reshape(shape)) for side in sides]
        return tuple(out) if bound == "both" else out[0]

    def delta(self, epsilon: Any, *, bound: Bound = "upper") -> Any:
        return self._sides("delta", _validation.epsilon_values(epsilon), bound)

    def epsilon(self, delta: Any, *, bound: Bound = "upper") -> Any:
        return self._sides("epsilon", _validation.delta_values(delta), bound)


def _amplified_banded_mf(**params: Any) -> Any:
    """AmplifiedBandedMF: one accountant where rounds and min_separation are single values (the noise multiplier
    and sampling rate broadcast), one per distinct pair of them otherwise (a grid over them)."""
    if all(np.ndim(params.get(k, 0)) == 0 for k in _AmplifiedPerRun._RUN):
        return matrix.AmplifiedBandedMF(**params)
    return _AmplifiedPerRun(params)


_amplified_banded_mf.__signature__ = inspect.signature(matrix.AmplifiedBandedMF)  # type: ignore[attr-defined]

_DPFTRL_CERTIFIED = (
    "clients at least min_separation rounds apart (at most max_participations times): exact Gaussian at the "
    "certified L2 sensitivity (exact or a proved upper bound)"
)
for _family, _make, _what in (
    ("dp_ftrl_blt", matrix.BLT, "a BLT strategy (buffer_decay theta, output_scale omega; Dvijotham et al. 2024)"),
    ("dp_ftrl_banded", matrix.Banded, "a banded Toeplitz strategy (coefficients: C's first column; McKenna 2025)"),
):
    register(
        AccountantEntry(
            name=_family,
            factory=_StrategyFamily(_family, matrix.DPFTRL, _make),
            hidden=frozenset({"participation", "adaptive_inputs"}),  # BLT and banded C are lower triangular
            vectors=frozenset(inspect.signature(_make).parameters),
            max_chunk=1 << 12,
            summary=f"DP-FTRL, {_what}, {_DPFTRL_CERTIFIED}",
            integers=frozenset({"rounds", "min_separation", "max_participations"}),
            calibratable={"noise_multiplier": _SIGMA},
        )
    )
register(
    AccountantEntry(
        name="amplified_banded_mf",
        factory=_StrategyFamily("amplified_banded_mf", _amplified_banded_mf, matrix.Banded),
        vectors=frozenset({"coefficients"}),
        max_chunk=1 << 10,
        summary="banded MF with cyclic Poisson sampling (coefficients: C's first column; min_separation groups, "
        "each record of the round's group taken with probability sampling_rate; Choquette-Choo et al. 2023): "
        "ceil(rounds / min_separation) subsampled Gaussian rounds at the largest column norm, PLD, certified upper "
        "bound; the lower side from a realizable pair",
        integers=frozenset({"rounds", "min_separation"}),
        calibratable={"noise_multiplier": _SIGMA, "sampling_rate": Calibratable("increasing", 0.0, 1.0)},
    )
)

register(
    AccountantEntry(
        name="isrl_noisy_mb_sgd",
        factory=isrl.NoisyMBSGD,
        max_chunk=1 << 10,
        summary="paper 003 Alg. 2, one silo's ISRL-DP: K draws with replacement per round, PLD, certified upper bound",
        integers=frozenset({"batch_size", "silo_size", "rounds"}),
        calibratable={"sigma": _SIGMA, "rounds": _ROUNDS},
    )
)
register(
    AccountantEntry(
        name="isrl_one_pass",
        factory=isrl.OnePassNoisyMBSGD,
        integers=frozenset({"batch_size"}),
        summary="paper 003 Thm 3.1, one silo's ISRL-DP: one pass in disjoint batches, exact (Gaussian, 2L/K)",
        calibratable={"sigma": _SIGMA},
    )
)
register(
    AccountantEntry(
        name="isrl_group_noisy_mb_sgd",
        factory=isrl.GroupNoisyMBSGD,
        max_chunk=1 << 10,
        summary="paper 003 Alg. 2, a user holding k of a silo's n records (k | n): the replace-one PLD of a silo of "
        "n/k records, certified bracket (App. C.2 without group privacy)",
        integers=frozenset({"batch_size", "silo_size", "group_size", "rounds"}),
        calibratable={"sigma": _SIGMA, "rounds": _ROUNDS},
    )
)
register(
    AccountantEntry(
        name="isrl_shuffled_noisy_mb_sgd",
        factory=PerPoint.of(isrl.ShuffledNoisyMBSGD),
        max_chunk=1 << 4,
        summary="paper 003 Thm 5.1 / G.1, shuffled Noisy MB-SGD, central DP of one record: FMT's clone bound for "
        "(eps0, delta0) silo messages per round, optimal composition over R rounds, certified upper bound",
        integers=frozenset({"batch_size", "silo_size", "silos", "rounds"}),
        calibratable={"sigma": _SIGMA, "rounds": _ROUNDS},
    )
)
register(
    AccountantEntry(
        name="isrl_user_level",
        factory=isrl.UserLevelNoisyMBSGD,
        integers=frozenset({"rounds"}),
        summary="paper 003 Alg. 2 with a whole silo replaced (user-level): exact, mu = sqrt(R) 2L / sigma",
        calibratable={"sigma": _SIGMA, "rounds": _ROUNDS},
    )
)


# --- calculators: paper 001's Bayesian leakage -------------------------------------------------

_PAPER: CalculatorKind = "paper formula, not a guarantee"


def _tv_bracket_lower(variance: Any, distortion_variance: Any, dimension: Any) -> Any:
    """Lemma 5.7's lower side (eq. 15); paper formula, not a guarantee (see leakage.tv_bracket)."""
    return leakage.tv_bracket(variance, distortion_variance, dimension)[0]


def _tv_bracket_upper(variance: Any, distortion_variance: Any, dimension: Any) -> Any:
    """Lemma 5.7's upper side (eq. 15); paper formula, not a guarantee (see leakage.tv_bracket)."""
    return leakage.tv_bracket(variance, distortion_variance, dimension)[1]


_DIMENSION = frozenset({"dimension"})
_EXACT_TV_INVERSE = {"distortion_variance": Inverse(leakage.distortion_variance_for_tv, target="target_tv")}
for _calc in (
    CalculatorEntry(
        "leakage_tv",
        leakage.tv_exact,
        "tv",
        kind="exact",
        integers=_DIMENSION,
        inverses=_EXACT_TV_INVERSE,
        summary="paper 001: TV between N(mu, sigma^2 I_d) and its distorted release "
        "N(mu + m, (sigma^2 + sigma_eps^2) I_d), exact; solves distortion_variance for a TV",
    ),
    CalculatorEntry(
        "leakage_js",
        leakage.js_exact,
        "js",
        kind="exact",
        integers=_DIMENSION,
        summary="paper 001: Jensen-Shannon divergence (nats) of the same pair, exact; eps_p = sqrt(js) (Definition 4)",
    ),
    CalculatorEntry(
        "leakage_tv_lemma_5_7_lower",
        _tv_bracket_lower,
        "tv",
        kind=_PAPER,
        integers=_DIMENSION,
        summary="paper 001 Lemma 5.7 (eq. 15), lower side: min{1, sigma_eps^2 sqrt(d)/sigma^2}/100",
    ),
    CalculatorEntry(
        "leakage_tv_lemma_5_7_upper",
        _tv_bracket_upper,
        "tv",
        kind=_PAPER,
        integers=_DIMENSION,
        summary="paper 001 Lemma 5.7 (eq. 15), upper side: 3 min{1, sigma_eps^2 sqrt(d)/sigma^2}/2",
    ),
    CalculatorEntry(
        "leakage_distortion_lemma_5_8",
        leakage.paper_distortion_variance,
        "distortion_variance",
        kind=_PAPER,
        integers=_DIMENSION,
        summary="paper 001 Lemma 5.8 (eq. 35): sigma_eps^2 = 100 sigma^2 (c1 - tau)/sqrt(d), for 0 < c1 - tau < 0.01",
    ),
    CalculatorEntry(
        "leakage_js_bound_lemma_b3",
        leakage.js_bound_from_tv,
        "sqrt_js",
        kind=_PAPER,
        summary="paper 001 Lemma B.3: sqrt(JS) <= C_2 TV, C_2 = (e^{2 xi} - 1)/2 (eq. 12)",
    ),
    CalculatorEntry(
        "leakage_sampling_variance",
        leakage.sampling_variance,
        "sampling_variance",
        kind=_PAPER,
        summary="paper 001 Thm 5.10 (eq. 17): p (1 - p) sum_i ||grad L_i||^2",
    ),
    CalculatorEntry(
        "leakage_nfl_floor",
        leakage.nfl_privacy_floor,
        "privacy_leakage",
        kind=_PAPER,
        summary="paper 001 Thm 5.13 (eq. 19): least eps_p = C_1 - C_d eps_u at utility loss eps_u",
    ),
):
    register_calculator(_calc)
