"""Google's privacy-loss-distribution format, as JSON: the fields other accountants read.

Each PMF carries the fields of Google's ``ProbabilityMassFunction`` message
(google/differential-privacy, proto/accounting/privacy-loss-distribution.proto), under the same
names: ``discretization_interval`` h, ``min_key`` (the index of the smallest loss), ``values`` (the
mass at loss (min_key + i) h) and ``infinity_mass`` (the mass at +infinity), and the side,
``pessimistic_estimate`` (dp_accounting's word: True when the curve bounds delta from above).
dp_accounting's ``DensePLDPmf`` names them ``value_discretization_interval``, ``lower_loss``,
``probs``, ``infinity_mass`` and ``pessimistic_estimate``.

The file (``ExchangedPLD.to_json``), version 1::

    {"schema": "hockeystick.pld", "version": 1,
     "pessimistic_pmf": PMF,       the remove direction (or the only one: a symmetric PLD)
     "pessimistic_pmf_add": PMF,   the add direction (absent when symmetric)
     "optimistic_pmf": PMF,        the lower side, remove direction (absent when not computed)
     "optimistic_pmf_add": PMF,    the lower side, add direction
     "delta_floor": float}         the smallest delta read within the producer's tolerance (optional)

    PMF = {"discretization_interval": h in [1e-10, 100], "min_key": integer, "values": [numbers in [0, 1]],
           "infinity_mass": number in [0, 1], "pessimistic_estimate": true | false}

The top-level ``pessimistic_pmf`` is the field of Google's ``PrivacyLossDistribution`` message
(which holds the pessimistic side alone).  Each direction's delta(eps) = sum_i values[i] (1 -
e^{eps - (min_key + i) h})_+ + infinity_mass, and a PLD's is the larger of its directions' (dp_accounting's
``get_delta_for_epsilon``). ``delta_floor`` is what an exporter of a certified curve states
(``pld_curve``): at every delta at or above it, the pessimistic side's eps is within its tolerance
of the certified one; below it a reading stays an upper bound and ``ExchangedPLD.epsilon`` warns
(``DeltaFloorWarning``).

What a file must hold, each rule refused by a ValueError naming the field:

- numbers: masses, spacing and the mass at +infinity are JSON numbers (no strings, booleans, nulls
  or lists), ``min_key`` an integer below 2^53 in size, ``pessimistic_estimate`` a boolean;
- spacing: h in [MIN_INTERVAL, MAX_INTERVAL] = [1e-10, 100] (hockeystick's grids lie in [1e-8, 100];
  a subnormal spacing puts every loss at 0), and every loss (min_key + i) h in [-MAX_LOSS,
  MAX_LOSS] = [-700, 700] (e^loss finite in double, so no reader's sum overflows into NaN);
- mass: masses and the mass at +infinity in [0, 1].  A pessimistic PMF's total mass (summed exactly,
  ``math.fsum``) is at least 1 - MASS_TOLERANCE = 1 - 1e-6: mass zeroed, cut short or scaled down
  lowers its curve below the truth.  Within the tolerance, readers (``import_pld``,
  ``to_dp_accounting``) add the deficit to the mass at +infinity (``charged_infinity``), which
  raises the curve by at least what the lost mass carried.  More mass than 1 is accepted: it only
  raises an upper curve (dp_accounting's connect-the-dots PMF of one Gaussian at h = 1e-4 carries
  about 2e-8 more a round, and its compositions multiply it; hockeystick's export adds its round-off
  charges at +infinity).  An optimistic PMF's total mass is at most 1 = delta(-infinity) of any
  pair;
- sides: an optimistic PMF's curve lies at or below the pessimistic one of its direction at every
  eps (compared at every loss of either, at -infinity and at +infinity, up to SIDES_SLACK of the
  mass above eps): sides that cross are a file edited on one side (a shifted ``min_key``, a changed
  mass).
"""

from __future__ import annotations

import json
import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "MASS_TOLERANCE",
    "SCHEMA",
    "VERSION",
    "DeltaFloorWarning",
    "charged_infinity",
    "ExchangedPLD",
    "ExchangedPMF",
]


class DeltaFloorWarning(UserWarning):
    """A delta below the ``delta_floor`` an export states: its eps read is an upper bound, not within tolerance."""


SCHEMA = "hockeystick.pld"
VERSION = 1
PMF_FIELDS = (
    "discretization_interval",
    "min_key",
    "values",
    "infinity_mass",
    "pessimistic_estimate",
)
PLD_FIELDS = ("pessimistic_pmf", "pessimistic_pmf_add", "optimistic_pmf", "optimistic_pmf_add")
# a loss index times h is read as a float: |index| below 2^53 keeps every index exact
MAX_KEY = 2**53
# The spacing's sane range: hockeystick's grids are at least 2^-10 1e-5 ~ 1e-8
# (pld.refine.constants.LOWEST_INTERVAL) and at most 100 (``checked_interval``); below MIN_INTERVAL
# every loss of a file is within 2^53 1e-10 ~ 9e5 of 0, a grid no producer writes (a subnormal
# spacing reads every curve as 0).
MIN_INTERVAL = 1e-10
MAX_INTERVAL = 100.0
# Every loss (min_key + i) h lies in [-MAX_LOSS, MAX_LOSS]: e^{+-loss} stays finite in double, so a
# reader's sums of values[i] e^{-loss} and e^{eps - loss} do not overflow into NaN; an eps above 700
# guarantees nothing.
MAX_LOSS = 700.0
# A pessimistic PMF's total mass (values and infinity_mass, summed exactly) is at least 1 -
# MASS_TOLERANCE: mass lost (values zeroed, cut short or scaled down) lowers its curve by up to the
# loss, below the truth.  Within the tolerance, ``import_pld`` and ``to_dp_accounting`` add the
# deficit to the mass at +infinity (``charged_infinity``), which raises the curve by at least what
# the lost mass carried.  Mass above 1 only raises an upper curve.
MASS_TOLERANCE = 1e-6


@dataclass(frozen=True, eq=False)
class ExchangedPMF:
    """One direction's PMF on one side, in the fields of Google's ``ProbabilityMassFunction``.

    Parameters
    ----------
    discretization_interval : float
        The loss grid's spacing h, finite and > 0.
    min_key : int
        The index of the smallest loss: ``values[i]`` is the mass at loss (min_key + i) h.
    values : numpy.ndarray
        The masses, a 1-d array of finite floats in [0, 1].
    infinity_mass : float
        The mass at +infinity, in [0, 1].
    pessimistic_estimate : bool
        True for the pessimistic side (its delta(eps) bounds the mechanism's from above), False for
        the optimistic one (from below).

    Raises
    ------
    ValueError
        Naming the field: h not finite and > 0, ``min_key`` not an integer below 2^53 in size,
        ``values`` not a non-empty 1-d array of finite numbers in [0, 1], ``infinity_mass`` outside
        [0, 1], ``pessimistic_estimate`` not a bool, or an optimistic PMF whose total mass exceeds 1
        (module docstring).
    """

    discretization_interval: float
    min_key: int
    values: np.ndarray
    infinity_mass: float
    pessimistic_estimate: bool

    def __post_init__(self) -> None:
        object.__setattr__(self, "discretization_interval", _interval(self.discretization_interval))
        object.__setattr__(self, "min_key", _key(self.min_key))
        object.__setattr__(self, "values", _masses(self.values))
        object.__setattr__(self, "infinity_mass", _probability(self.infinity_mass))
        if not isinstance(self.pessimistic_estimate, (bool, np.bool_)):
            raise ValueError(
                f"pessimistic_estimate must be true or false, got {self.pessimistic_estimate!r}"
            )
        object.__setattr__(self, "pessimistic_estimate", bool(self.pessimistic_estimate))
        _check_losses(self.min_key, self.values.size, self.discretization_interval)
        _check_mass(
            math.fsum([*self.values.tolist(), self.infinity_mass]), self.pessimistic_estimate
        )

    def delta(self, epsilon: float) -> float:
        """The PMF's hockey-stick curve at one eps, summed in numpy (a reading of the fields, not a certified bound).

        Parameters
        ----------
        epsilon : float
            The eps.

        Returns
        -------
        float
            sum_i values[i] (1 - e^{eps - (min_key + i) h})_+ + infinity_mass, as dp_accounting's
            ``get_delta_for_epsilon`` sums it at one eps.
        """
        losses = (self.min_key + np.arange(self.values.size)) * self.discretization_interval
        above = losses > epsilon
        return float(
            self.infinity_mass + np.dot(-np.expm1(epsilon - losses[above]), self.values[above])
        )

    def epsilon(self, delta: float) -> float:
        """The least eps >= 0 with this PMF's delta(eps) <= ``delta``, read as dp_accounting's
        ``get_epsilon_for_delta`` reads it (a reading of the fields, not a certified bound).

        On the segment between two losses the curve is linear in e^eps: above loss l_k it is S_k -
        e^eps W_k + infinity_mass, S_k and W_k the sums of values[j] and values[j] e^{-l_j} over the
        losses above l_k, so eps = log((S_k + infinity_mass - delta) / W_k) on the segment where it
        falls.

        Parameters
        ----------
        delta : float
            The delta, 0 < delta < 1.

        Returns
        -------
        float
            The eps, inf when ``delta`` is below ``infinity_mass``.
        """
        if delta < self.infinity_mass:
            return math.inf
        losses = (self.min_key + np.arange(self.values.size)) * self.discretization_interval
        mass = np.cumsum(self.values[::-1])[::-1]  # S: the mass at and above each loss
        weight = np.cumsum((self.values * np.exp(-losses))[::-1])[::-1]  # W: the same, times e^{-l}
        curve = (
            np.append(mass[1:] - np.exp(losses[:-1]) * weight[1:], 0.0) + self.infinity_mass
        )  # delta at each loss
        above = np.flatnonzero(curve > delta)
        k = (
            int(above[-1]) + 1 if above.size else 0
        )  # the crossing lies in (l_{k-1}, l_k]: the losses >= l_k count
        numerator = float(mass[k]) + self.infinity_mass - delta
        value = (
            math.log(numerator / weight[k]) if numerator > 0.0 and weight[k] > 0.0 else -math.inf
        )
        below = float(losses[k - 1]) if k > 0 else -math.inf
        return max(min(value, float(losses[k])), below, 0.0)

    def to_dict(self) -> dict[str, Any]:
        """The PMF as a JSON object (module docstring).

        Returns
        -------
        dict
            The five fields; ``json.dumps`` writes every float exactly (Python's shortest repr).
        """
        return {
            "discretization_interval": self.discretization_interval,
            "min_key": self.min_key,
            "values": self.values.tolist(),
            "infinity_mass": self.infinity_mass,
            "pessimistic_estimate": self.pessimistic_estimate,
        }

    @classmethod
    def from_dict(cls, fields: Any, where: str) -> ExchangedPMF:
        """The PMF of a JSON object with exactly the fields of the module docstring.

        Parameters
        ----------
        fields : dict
            The JSON object.
        where : str
            Its place in the file, named by a refusal (``pessimistic_pmf``, ...).

        Returns
        -------
        ExchangedPMF
            The PMF.

        Raises
        ------
        ValueError
            Naming ``where`` and the field, if a field is missing, unknown or refused by
            ``ExchangedPMF``.
        """
        if not isinstance(fields, dict):
            raise ValueError(
                f"{where} must be a JSON object with the fields {', '.join(PMF_FIELDS)}"
            )
        missing = [name for name in PMF_FIELDS if name not in fields]
        unknown = sorted(set(fields) - set(PMF_FIELDS))
        if missing or unknown:
            raise ValueError(
                f"{where}: missing fields {missing}, unknown fields {unknown} (schema version {VERSION})"
            )
        try:
            return cls(**{name: fields[name] for name in PMF_FIELDS})
        except ValueError as error:
            raise ValueError(f"{where}.{error}") from None


def _floor(floor: Any) -> float:
    """``delta_floor`` as a float, refused unless a number in (0, 1)."""
    if isinstance(floor, bool) or not isinstance(floor, (int, float)) or not 0.0 < floor < 1.0:
        raise ValueError(f"delta_floor must be a number in (0, 1) or absent, got {floor!r}")
    return float(floor)


def _check_losses(min_key: int, size: int, h: float) -> None:
    """Refuses a grid with a loss (min_key + i) h outside [-MAX_LOSS, MAX_LOSS] (module docstring)."""
    top = min_key + size - 1
    if not (abs(min_key * h) <= MAX_LOSS and abs(top * h) <= MAX_LOSS):
        raise ValueError(
            f"min_key and values must put every loss (min_key + i) discretization_interval in "
            f"[-{MAX_LOSS:g}, {MAX_LOSS:g}] (e^loss finite), got losses from {min_key * h!r} to {top * h!r}"
        )


def _check_mass(total: float, pessimistic: bool) -> None:
    """Refuses a pessimistic PMF's total mass below 1 - MASS_TOLERANCE and an optimistic one's above 1."""
    if pessimistic and not total >= 1.0 - MASS_TOLERANCE:
        raise ValueError(
            f"values and infinity_mass of a pessimistic PMF must sum to at least 1 - {MASS_TOLERANCE:g} (mass "
            f"lost lowers its curve below the truth), got {total!r}: masses zeroed, cut short or scaled down"
        )
    if not pessimistic and total > 1.0:
        raise ValueError(
            f"values and infinity_mass of an optimistic PMF must sum to at most 1 (a lower curve never exceeds "
            f"delta(-infinity) = 1), got {total!r}: take the excess off as a charge, or mark it pessimistic"
        )


def _interval(h: Any) -> float:
    """h as a float, refused unless a number in [MIN_INTERVAL, MAX_INTERVAL]."""
    if (
        isinstance(h, bool)
        or not isinstance(h, (int, float))
        or not MIN_INTERVAL <= h <= MAX_INTERVAL
    ):
        raise ValueError(
            f"discretization_interval must be a number in [{MIN_INTERVAL:g}, {MAX_INTERVAL:g}] (the loss grid's "
            f"spacing), got {h!r}"
        )
    return float(h)


def _key(key: Any) -> int:
    """``min_key`` as an int, refused unless an integer of size below 2^53."""
    if (
        isinstance(key, bool)
        or not isinstance(key, (int, np.integer))
        or not abs(int(key)) < MAX_KEY
    ):
        raise ValueError(
            f"min_key must be an integer of size below 2^53 (a loss index), got {key!r}"
        )
    return int(key)


def _probability(mass: Any) -> float:
    """``infinity_mass`` as a float, refused unless a number in [0, 1]."""
    if isinstance(mass, bool) or not isinstance(mass, (int, float)) or not 0.0 <= mass <= 1.0:
        raise ValueError(f"infinity_mass must be a probability in [0, 1], got {mass!r}")
    return float(mass)


def _masses(values: Any) -> np.ndarray:
    """``values`` as a read-only 1-d float64 array, refused unless each is a number (an int or
    float, not a bool or a string) that is finite and in [0, 1]."""
    if isinstance(values, np.ndarray):
        numbers = values.dtype.kind in "fiu"
    elif isinstance(values, (list, tuple)):
        numbers = all(
            type(v) in (int, float) or isinstance(v, (np.floating, np.integer)) for v in values
        )
    else:
        numbers = False
    if not numbers:
        kind = values.dtype if isinstance(values, np.ndarray) else type(values).__name__
        bad = (
            next(
                (
                    v
                    for v in values
                    if not (type(v) in (int, float) or isinstance(v, (np.floating, np.integer)))
                ),
                None,
            )
            if isinstance(values, (list, tuple))
            else kind
        )
        raise ValueError(
            f"values must be a list of numbers (the masses on the grid; no strings, booleans or nested lists), got "
            f"{bad!r}"
        )
    try:
        out = np.array(values, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise ValueError("values must be a list of numbers (the masses on the grid)") from None
    if out.ndim != 1 or out.size == 0:
        raise ValueError(f"values must be a non-empty 1-d list of masses, got shape {out.shape}")
    bad = np.flatnonzero(~((out >= 0.0) & (out <= 1.0)))
    if bad.size:
        raise ValueError(
            f"values must be finite masses in [0, 1], got {out[bad[0]]!r} at index {int(bad[0])}: a producer's "
            "round-off below 0 is set to 0 on a pessimistic side (it only raises the curve) and charged on an "
            "optimistic one"
        )
    out.flags.writeable = False
    return out


@dataclass(frozen=True, eq=False)
class ExchangedPLD:
    """A privacy-loss distribution in Google's PLD fields, each direction's pessimistic and optimistic PMFs.

    Each neighbouring direction has its pessimistic PMF, and its optimistic one where computed
    (module docstring).

    Parameters
    ----------
    pessimistic_pmf : ExchangedPMF
        The remove direction's pessimistic PMF, or the only direction's (a symmetric PLD).
    pessimistic_pmf_add : ExchangedPMF or None
        The add direction's pessimistic PMF; None for a symmetric PLD.
    optimistic_pmf, optimistic_pmf_add : ExchangedPMF or None
        The optimistic PMFs of the same directions, or both None (no lower side).
    delta_floor : float or None
        The smallest delta at which the producer states the pessimistic side reads within its
        tolerance of its certified eps, in (0, 1); None when it states none (module docstring).

    Raises
    ------
    ValueError
        If the PMFs' ``discretization_interval`` differ, a pessimistic field holds an optimistic PMF
        (or the reverse), or the optimistic side does not have the pessimistic side's directions.

    Examples
    --------
    >>> import numpy as np
    >>> pmf = ExchangedPMF(0.5, -1, np.array([0.25, 0.5, 0.25]), 0.0, True)
    >>> text = ExchangedPLD(pmf).to_json()
    >>> ExchangedPLD.from_json(text).pessimistic_pmf.values.tolist()
    [0.25, 0.5, 0.25]
    """

    pessimistic_pmf: ExchangedPMF
    pessimistic_pmf_add: ExchangedPMF | None = None
    optimistic_pmf: ExchangedPMF | None = None
    optimistic_pmf_add: ExchangedPMF | None = None
    delta_floor: float | None = None

    def __post_init__(self) -> None:
        if self.delta_floor is not None:
            object.__setattr__(self, "delta_floor", _floor(self.delta_floor))
        self._check_directions()
        pairs = (
            ("pessimistic_pmf", "optimistic_pmf"),
            ("pessimistic_pmf_add", "optimistic_pmf_add"),
        )
        for upper_name, lower_name in pairs:
            upper, lower = getattr(self, upper_name), getattr(self, lower_name)
            if upper is not None and lower is not None:
                _check_sides(upper, lower, upper_name, lower_name)

    def _check_directions(self) -> None:
        """Refuses a PMF on the other side's field, an optimistic side without the pessimistic
        side's directions, and PMFs on different grids."""
        for name in PLD_FIELDS:
            pmf = getattr(self, name)
            if pmf is not None and pmf.pessimistic_estimate != name.startswith("pessimistic"):
                raise ValueError(
                    f"{name} holds a PMF with pessimistic_estimate={pmf.pessimistic_estimate}"
                )
        if self.optimistic_pmf is None and self.optimistic_pmf_add is not None:
            raise ValueError(
                "optimistic_pmf_add given without optimistic_pmf (the remove direction)"
            )
        if self.optimistic_pmf is not None and (self.optimistic_pmf_add is None) != (
            self.pessimistic_pmf_add is None
        ):
            raise ValueError(
                "optimistic_pmf_add must be given exactly when pessimistic_pmf_add is (the same directions)"
            )
        spacings = {pmf.discretization_interval for pmf in self.pmfs()}
        if len(spacings) != 1:
            raise ValueError(
                f"every PMF must have one discretization_interval, got {sorted(spacings)}"
            )

    @property
    def discretization_interval(self) -> float:
        """The loss grid's spacing h, shared by every PMF."""
        return self.pessimistic_pmf.discretization_interval

    def pmfs(self) -> list[ExchangedPMF]:
        """The PMFs present.

        Returns
        -------
        list of ExchangedPMF
            In the order of the file's fields (pessimistic remove, add, optimistic remove, add).
        """
        return [pmf for pmf in (getattr(self, name) for name in PLD_FIELDS) if pmf is not None]

    def epsilon(self, delta: float) -> float:
        """The least eps >= 0 with the pessimistic side's delta(eps) <= ``delta`` (the larger of the
        directions'), as dp_accounting's ``get_epsilon_for_delta`` reads the same fields; a reading,
        not a certified bound.

        Parameters
        ----------
        delta : float
            The delta, 0 < delta < 1.

        Returns
        -------
        float
            The eps, inf when ``delta`` is below a direction's mass at +infinity.

        Raises
        ------
        ValueError
            If ``delta`` is not a number in (0, 1).

        Warns
        -----
        DeltaFloorWarning
            If ``delta`` is below ``delta_floor``: the eps stays an upper bound where the fields are
            pessimistic, but the producer does not state it within its tolerance there.
        """
        if isinstance(delta, bool) or not isinstance(delta, (int, float)) or not 0.0 < delta < 1.0:
            raise ValueError(f"delta must be a number in (0, 1), got {delta!r}")
        if self.delta_floor is not None and delta < self.delta_floor:
            warnings.warn(
                f"delta={delta:g} is below the export's delta_floor={self.delta_floor:g}: the eps read is an upper "
                "bound but not within the tolerance of the certified eps; export again with a smaller delta_floor",
                DeltaFloorWarning,
                stacklevel=2,
            )
        pmfs = [pmf for pmf in (self.pessimistic_pmf, self.pessimistic_pmf_add) if pmf is not None]
        return max(pmf.epsilon(delta) for pmf in pmfs)

    def to_json(self) -> str:
        """The JSON text of the module docstring (strict JSON: no NaN or infinity; floats exact).

        Returns
        -------
        str
            An object with ``schema``, ``version`` and the PMF fields present.
        """
        body: dict[str, Any] = {"schema": SCHEMA, "version": VERSION}
        for name in PLD_FIELDS:
            pmf = getattr(self, name)
            if pmf is not None:
                body[name] = pmf.to_dict()
        if self.delta_floor is not None:
            body["delta_floor"] = self.delta_floor
        return json.dumps(body, allow_nan=False)

    @classmethod
    def from_json(cls, text: str | bytes) -> ExchangedPLD:
        """The PLD written by ``to_json`` (or by another program in the same schema).

        Parameters
        ----------
        text : str or bytes
            The JSON text.

        Returns
        -------
        ExchangedPLD
            Its fields, bit for bit.

        Raises
        ------
        ValueError
            Naming the field: not JSON (NaN and infinity are not), ``schema`` not "hockeystick.pld",
            ``version`` not 1, an unknown or missing field, or a PMF refused by ``ExchangedPMF``.
        """
        try:
            body = json.loads(text, parse_constant=_refuse_constant)
        except json.JSONDecodeError as error:
            raise ValueError(f"not a JSON document: {error}") from None
        except RecursionError:
            raise ValueError(
                "not a PLD document: its JSON nests deeper than Python's parser reads"
            ) from None
        except UnicodeDecodeError as error:
            raise ValueError(
                f"not a JSON document: its bytes are not UTF-8, -16 or -32 ({error.reason})"
            ) from None
        if not isinstance(body, dict) or body.get("schema") != SCHEMA:
            raise ValueError(f'schema must be "{SCHEMA}" (a PLD written by ExchangedPLD.to_json)')
        if body.get("version") != VERSION or isinstance(body.get("version"), bool):
            raise ValueError(
                f"version must be {VERSION}, the schema this hockeystick reads, got {body.get('version')!r}: "
                "write the file again with a hockeystick of that schema"
            )
        unknown = sorted(set(body) - {"schema", "version", "delta_floor", *PLD_FIELDS})
        if unknown or "pessimistic_pmf" not in body:
            raise ValueError(
                f"the fields are {', '.join(PLD_FIELDS)} and delta_floor (pessimistic_pmf required), got unknown "
                f"{unknown}"
            )
        pmfs = {
            name: ExchangedPMF.from_dict(body[name], name) for name in PLD_FIELDS if name in body
        }
        return cls(**pmfs, delta_floor=body.get("delta_floor"))


# The two sides' curves are compared up to this much of the mass above each eps (their sums'
# round-off, about n u of it for n masses, far below it): an optimistic curve above a pessimistic
# one by more is a file whose sides contradict each other (a shifted min_key, an edited mass).
SIDES_SLACK = 1e-9


def _suffix_curve(
    pmf: ExchangedPMF, at: np.ndarray, infinity: float
) -> tuple[np.ndarray, np.ndarray]:
    """The PMF's curve at the sorted eps ``at`` with mass ``infinity`` at +infinity, and the mass
    above each eps (suffix sums of the masses above it)."""
    losses = (pmf.min_key + np.arange(pmf.values.size)) * pmf.discretization_interval
    first = np.searchsorted(losses, at, side="right")  # the first loss above each eps
    mass = np.append(np.cumsum(pmf.values[::-1])[::-1], 0.0)
    weight = np.append(np.cumsum((pmf.values * np.exp(-losses))[::-1])[::-1], 0.0)
    return mass[first] - np.exp(at) * weight[first] + infinity, mass[first] + infinity


def _check_sides(
    upper: ExchangedPMF, lower: ExchangedPMF, upper_name: str, lower_name: str
) -> None:
    """Refuses an optimistic curve above the pessimistic one of its direction: both are piecewise
    linear in e^eps with kinks at their losses, so comparing them at every loss of either, at
    -infinity (the total masses) and at +infinity compares them everywhere."""
    h = upper.discretization_interval
    at = np.union1d(
        (upper.min_key + np.arange(upper.values.size)) * h,
        (lower.min_key + np.arange(lower.values.size)) * h,
    )
    charged = charged_infinity(
        upper
    )  # the pessimistic side as its readers take it: a deficit at +infinity
    high, high_mass = _suffix_curve(upper, at, charged)
    low, low_mass = _suffix_curve(lower, at, lower.infinity_mass)
    above = low > high + SIDES_SLACK * (high_mass + low_mass)
    totals = (
        math.fsum([*lower.values.tolist(), lower.infinity_mass]),
        math.fsum([*upper.values.tolist(), charged]),
    )
    if above.any() or lower.infinity_mass > charged or totals[0] > totals[1] * (1 + SIDES_SLACK):
        where = float(at[np.argmax(above)]) if above.any() else math.inf
        raise ValueError(
            f"{lower_name} must lie at or below {upper_name} at every eps (the two sides of one direction), got a "
            f"curve above it at eps {where!r}: a min_key or a mass edited on one side"
        )


def charged_infinity(pmf: ExchangedPMF) -> float:
    """The mass at +infinity a reader of ``pmf`` takes: a pessimistic PMF's deficit below total mass
    1 (at most ``MASS_TOLERANCE``) added to it, rounded up; the field as written otherwise.

    Parameters
    ----------
    pmf : ExchangedPMF
        The PMF.

    Returns
    -------
    float
        ``infinity_mass``, plus 1 - the total mass where a pessimistic PMF's total is below 1: each
        lost mass m raised its curve by at most m at every eps, so its curve with the deficit at
        +infinity is at or above the one it lost mass from.
    """
    if not pmf.pessimistic_estimate:
        return pmf.infinity_mass
    total = math.fsum([*pmf.values.tolist(), pmf.infinity_mass])
    if total >= 1.0:
        return pmf.infinity_mass
    return min(
        float(
            np.nextafter(pmf.infinity_mass + float(np.nextafter(1.0 - total, math.inf)), math.inf)
        ),
        1.0,
    )


def _refuse_constant(name: str) -> float:
    raise ValueError(f"values must be finite numbers: JSON has no {name}")
