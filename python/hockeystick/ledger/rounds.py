"""One round of a run, as the ledger records it: which mechanism released what, with that round's settings.

A ``Round`` is a value (frozen, hashable): the ledger keeps counts per distinct round, and its JSON
form (``to_dict`` / ``Round.from_dict``) is what a saved ledger stores.  Five mechanisms with fields
of their own, and any registered with its Rényi curve, each with the curves the ledger's guarantees
read:

* ``Round.subsampled_gaussian(sigma, sampling_rate)``: the Poisson-subsampled Gaussian, add/remove
  neighbours (sampling_rate 1 is the Gaussian mechanism, and is stored as one);
* ``Round.gaussian(sigma)``: the Gaussian mechanism, for the relation its sensitivity was computed
  for, with a GDP parameter, mu = 1 / sigma (Dong, Roth & Su 2022);
* ``Round.laplace(scale)``: the Laplace mechanism (``scale`` over the L1 sensitivity), pure
  1/scale-DP;
* ``Round.discrete_gaussian(sigma, sensitivity)``: discrete Gaussian noise N_Z(0, sigma^2) on an
  integer query of integer sensitivity (``pld.mechanisms.zcdp_rounds``);
* ``Round.matrix_mechanism(accountant)``: the whole release of a matrix-factorization mechanism
  (DP-FTRL), one Gaussian mechanism of the strategy's L2 sensitivity under its participation schema
  (``matrix_round``);
* ``Round.from_stage(stage)``: a stage of a ``hockeystick compose`` file, as (round, rounds); a
  stage of a mechanism registered with its Rényi curve (``pld.mechanisms.registry``:
  ``StageEntry.rdp``) is a round of that name holding the stage's parameters, its curve and its PLD
  the registry's (``registered_round``).

Every round is a registry entry, read through its facets (``round_facets``): the five above are
entries whose required parameters are the ``Round``'s fields (``StageEntry.round_fields``).

``sigma`` is the noise multiplier (noise standard deviation over the L2 sensitivity), the
vocabulary's ``sigma`` with sensitivity 1: a clip norm that adapts with noise proportional to it
leaves sigma, and so every curve of the round, unchanged (docs/ledger.md, "What counts as
adaptive").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.validation import describe, positive_number
from ..pld.mechanisms import round_entry
from ..rdp.integer_orders import mu_squared_upper
from .matrix_round import accountant_parameters
from .registered_round import checked_curve, registered_parameters
from .round_facets import entry_of, gaussian_pair, keywords
from .stage_round import stage_parameters

__all__ = ["MECHANISMS", "Round"]

PARAMETERS = ("sigma", "sampling_rate", "scale", "sensitivity", "sensitivity_lower")
# the ledger's own rounds, in the order this module's documentation lists them: each a registry
# entry whose required parameters are its ``Round`` fields (``StageEntry.round_fields``), read
# through its facets (``round_facets``); any other mechanism reaches the ledger through its compose
# stage's entry, as a round holding the stage's parameters (``registered_round``)
MECHANISMS = ("gaussian", "subsampled_gaussian", "laplace", "discrete_gaussian", "matrix_mechanism")


def _check_fields(mechanism: str, fields: dict[str, Any]) -> None:
    """Each field the mechanism needs is set, and no other (its entry's required parameters)."""
    needs = round_entry(mechanism).required()
    for name, value in fields.items():
        if name in needs and value is None:
            raise ValueError(f"a {mechanism} round needs {name}")
        if name not in needs and value is not None:
            raise ValueError(f"a {mechanism} round takes no {name} (it takes {', '.join(needs)})")


def _rate(value: Any) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise ValueError(f"sampling_rate must be a number in (0, 1], got {describe(value)}")
    x = float(value)
    if not (0.0 < x <= 1.0):
        why = (
            " (a round nobody takes part in releases nothing about anyone: do not record it)"
            if x == 0.0
            else " (a probability: each record takes part with probability q)"
        )
        raise ValueError(f"sampling_rate q must satisfy 0 < q <= 1, got {describe(value)}{why}")
    return x


@dataclass(frozen=True, repr=False)
class Round:
    """One round's mechanism and settings.

    Build it with ``Round.gaussian``, ``Round.subsampled_gaussian``, ``Round.laplace``,
    ``Round.discrete_gaussian``, ``Round.matrix_mechanism`` or ``Round.from_stage``.

    Parameters
    ----------
    mechanism : {"gaussian", "subsampled_gaussian", "laplace", "discrete_gaussian", "matrix_mechanism"}
        Which mechanism ran.
    sigma : float, optional
        Gaussian noise multiplier (standard deviation over the L2 sensitivity) for the Gaussian
        mechanisms; the discrete Gaussian's sigma (its noise N_Z(0, sigma^2)); a matrix mechanism's
        noise multiplier z (noise standard deviation over the clip norm).
    sampling_rate : float, optional
        Poisson sampling probability q in (0, 1), for ``"subsampled_gaussian"``.
    scale : float, optional
        Laplace scale over the L1 sensitivity, for ``"laplace"``.
    sensitivity : int or float, optional
        The discrete Gaussian's integer sensitivity (>= 1); a matrix mechanism's certified upper L2
        sensitivity in clip norms.
    sensitivity_lower : float, optional
        A matrix mechanism's realizable lower L2 sensitivity, 0 < lower <= ``sensitivity``.
    parameters : tuple of (str, value) pairs, optional
        The parameters of a mechanism registered with its Rényi curve (``registered_round``), sorted
        by name; empty for the five.

    Raises
    ------
    ValueError
        If ``mechanism`` is neither one of the five nor registered with a Rényi curve, or a
        parameter it needs is missing, not a finite number in its range, or given to a mechanism
        that does not take it.

    Examples
    --------
    >>> from hockeystick.ledger import Round
    >>> Round.subsampled_gaussian(1.1, 0.01)
    Round(mechanism='subsampled_gaussian', sigma=1.1, sampling_rate=0.01)
    >>> Round.subsampled_gaussian(1.1, 1.0) == Round.gaussian(1.1)
    True
    """

    mechanism: str
    sigma: float | None = None
    sampling_rate: float | None = None
    scale: float | None = None
    sensitivity: float | None = None
    sensitivity_lower: float | None = None
    parameters: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        if self.parameters or (
            isinstance(self.mechanism, str) and self.mechanism not in MECHANISMS
        ):
            given = [name for name in PARAMETERS if getattr(self, name) is not None]
            object.__setattr__(
                self, "parameters", registered_parameters(self.mechanism, self.parameters, given)
            )
            return
        if self.mechanism not in MECHANISMS:
            raise ValueError(
                f"mechanism must be one of {', '.join(MECHANISMS)}, got {describe(self.mechanism)}"
            )
        _check_fields(self.mechanism, {name: getattr(self, name) for name in PARAMETERS})
        if self.sigma is not None:
            object.__setattr__(self, "sigma", positive_number(self.sigma, "sigma"))
        if self.scale is not None:
            object.__setattr__(self, "scale", positive_number(self.scale, "scale"))
        if self.sampling_rate is not None:
            rate = _rate(self.sampling_rate)
            if rate == 1.0:
                raise ValueError(
                    "a subsampled_gaussian round at sampling_rate 1 is Round.gaussian(sigma)"
                )
            object.__setattr__(self, "sampling_rate", rate)
        entry = round_entry(self.mechanism)
        if entry.checked is not None:  # its own checks (``StageEntry.checked``)
            fields = {name: getattr(self, name) for name in entry.required()}
            for name, value in entry.checked(**fields).items():
                object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        """The mechanism and the parameters it takes (the ones left None are not shown)."""
        given = [
            f"{name}={getattr(self, name)!r}"
            for name in PARAMETERS
            if getattr(self, name) is not None
        ] + [f"{name}={value!r}" for name, value in self.parameters]
        return f"Round({', '.join([f'mechanism={self.mechanism!r}', *given])})"

    @classmethod
    def gaussian(cls, sigma: float) -> Round:
        """The Gaussian mechanism with noise multiplier ``sigma``.

        Parameters
        ----------
        sigma : float
            Noise standard deviation over the L2 sensitivity, finite and > 0.

        Returns
        -------
        Round
            The round.
        """
        return cls("gaussian", sigma=sigma)

    @classmethod
    def subsampled_gaussian(cls, sigma: float, sampling_rate: float) -> Round:
        """The Poisson-subsampled Gaussian (add/remove neighbours); rate 1 gives ``Round.gaussian(sigma)``.

        Parameters
        ----------
        sigma : float
            Noise standard deviation over the L2 sensitivity, finite and > 0.
        sampling_rate : float
            Poisson sampling probability q, 0 < q <= 1.

        Returns
        -------
        Round
            The round.
        """
        if _rate(sampling_rate) == 1.0:
            return cls.gaussian(sigma)
        return cls("subsampled_gaussian", sigma=sigma, sampling_rate=sampling_rate)

    @classmethod
    def laplace(cls, scale: float) -> Round:
        """The Laplace mechanism with ``scale`` over the L1 sensitivity (pure 1/scale-DP).

        Parameters
        ----------
        scale : float
            Laplace scale over the L1 sensitivity, finite and > 0.

        Returns
        -------
        Round
            The round.
        """
        return cls("laplace", scale=scale)

    @classmethod
    def discrete_gaussian(cls, sigma: float, sensitivity: int = 1) -> Round:
        """Discrete Gaussian noise N_Z(0, sigma^2) added to an integer-valued query (``zcdp_rounds``).

        The query is scalar, and its values on neighbouring datasets differ by at most
        ``sensitivity``. The round is (sensitivity^2 / (2 sigma^2))-zCDP (Canonne, Kamath & Steinke
        2020, Sec. 2), its PLD is computed exactly on the integers for the fixed-schedule bracket,
        and it has no GDP parameter.

        Parameters
        ----------
        sigma : float
            The discrete Gaussian's parameter sigma (not its variance, which is slightly below
            sigma^2), finite and > 0.
        sensitivity : int, optional
            The query's sensitivity, a whole number >= 1 (default 1: a count).

        Returns
        -------
        Round
            The round.
        """
        return cls("discrete_gaussian", sigma=sigma, sensitivity=sensitivity)

    @classmethod
    def matrix_mechanism(cls, accountant: Any) -> Round:
        """The whole release of a matrix-factorization mechanism, as ``hockeystick.matrix`` accounts it.

        The release C x + z N(0, I) over all its steps is one Gaussian mechanism of noise multiplier
        z and the strategy's L2 sensitivity under its participation schema (``matrix_round``),
        recorded once, before its first step. It is not one Gaussian per step.

        Parameters
        ----------
        accountant : hockeystick.matrix.DPFTRL or MatrixMechanism
            One point (scalar ``noise_multiplier``), built for lower-triangular C with adaptive
            inputs; its ``noise_multiplier``, ``sensitivity`` and ``sensitivity_lower`` are read.

        Returns
        -------
        Round
            The round: ``sigma`` = z, ``sensitivity`` and ``sensitivity_lower`` the certified
            bracket.

        Raises
        ------
        ValueError
            If ``accountant`` is not a matrix-mechanism accountant of one point, was built with
            ``adaptive_inputs=False``, or its lower sensitivity is 0.
        """
        z, upper, lower = accountant_parameters(accountant)
        return cls("matrix_mechanism", sigma=z, sensitivity=upper, sensitivity_lower=lower)

    @classmethod
    def from_stage(cls, stage: Any) -> tuple[Round, int]:
        """A stage of a ``hockeystick compose`` file, as the round it repeats and how many times.

        The stage ``{"mechanism": NAME, "rounds": T, <parameters>}`` (``pld.accountants.stages``) of
        a ``gaussian``, ``subsampled_gaussian`` or ``laplace`` mechanism (``noise_multiplier`` read
        as ``sigma``, ``sampling_probability`` as ``sampling_rate``); a ``sensitivity`` other than 1
        is folded into the round's sigma or scale, rounded down (more privacy loss: the bound stays
        certified). ``tail`` is a discretization setting of the compose file, not of the mechanism,
        and is not kept.

        Parameters
        ----------
        stage : mapping
            One ``[[stage]]`` table.

        Returns
        -------
        tuple of (Round, int)
            The round and its count (``rounds``, default 1).

        Raises
        ------
        ValueError
            If ``stage`` is not a mapping, names a mechanism the ledger does not record (with the
            ones it does), has an unknown or missing parameter, or a value out of range.
        """
        mechanism, parameters, rounds = stage_parameters(stage)
        if mechanism not in MECHANISMS:
            return cls(mechanism, parameters=tuple(sorted(parameters.items()))), rounds
        return getattr(cls, mechanism)(**parameters), rounds

    @property
    def gdp_mu(self) -> float | None:
        """mu of mu-GDP for a Gaussian round, exact (Dong, Roth & Su 2022, Thm 2.7), else None.

        A Gaussian round is 1 / sigma-GDP; a matrix-mechanism round is sensitivity / z-GDP (at the
        upper sensitivity).  The subsampled Gaussian and Laplace rounds are not mu-GDP for a useful
        mu, and the discrete Gaussian is not proved mu-GDP at sensitivity / sigma (its zCDP and
        exact PLD are used).

        Returns
        -------
        float or None
            mu, or None for a round without a proved GDP parameter.
        """
        pair = gaussian_pair(self)  # ``StageEntry.gaussian_of``
        return None if pair is None else pair.gaussian_radius()

    def mu_squared_upper(self) -> float:
        """mu^2 of a round with a GDP parameter, rounded up (``rdp.integer_orders.mu_squared_upper``).

        Returns
        -------
        float
            An upper bound on (1 / sigma)^2 (Gaussian) or (sensitivity / z)^2 (matrix mechanism).

        Raises
        ------
        ValueError
            If the round has no GDP parameter (``gdp_mu`` is None).
        """
        pair = gaussian_pair(self)
        if pair is not None:
            return mu_squared_upper(pair.shift, pair.sigma)
        raise ValueError(
            f"a {self.mechanism} round has no proved GDP parameter: only unsampled Gaussian and matrix-mechanism "
            "rounds do"
        )

    def rdp_upper(self, orders: tuple[int, ...]) -> np.ndarray:
        r"""The round's Rényi-DP curve at integer ``orders``, never below the exact curve.

        Gaussian: alpha / (2 sigma^2) (Mironov 2017, Prop. 7); subsampled Gaussian: the
        integer-order sum of Mironov, Talwar & Zhang 2019, Sec. 3.3 (``rdp.integer_orders``);
        Laplace with eps = 1 / scale: :math:`\varepsilon + \log\bigl(1 + (\alpha - 1)
        (e^{\varepsilon(1 - 2\alpha)} - 1)/(2\alpha - 1)\bigr) / (\alpha - 1)` (Mironov 2017, Prop.
        6), widened by its cancellation's error; discrete Gaussian: alpha s^2 / (2 sigma^2)
        (Canonne, Kamath & Steinke 2020, Sec. 2); matrix mechanism: alpha sens^2 / (2 z^2) (Bun &
        Steinke 2016, Prop. 1.6).

        Parameters
        ----------
        orders : tuple of int
            Integer Rényi orders (``round_rdp.check_integer_orders``).

        Returns
        -------
        numpy.ndarray
            One value per order.
        """
        curve = entry_of(self).rdp  # ``StageEntry.rdp``: every round the ledger records has one
        assert curve is not None
        return checked_curve(self.mechanism, curve(orders, **keywords(self)), orders)

    def to_dict(self) -> dict[str, Any]:
        """The round as JSON-ready data: ``{"mechanism": ..., <its parameters>}``.

        Returns
        -------
        dict
            The mechanism's name and its parameters.
        """
        out: dict[str, Any] = {"mechanism": self.mechanism}
        if self.parameters:
            out["parameters"] = dict(self.parameters)
        for name in PARAMETERS:
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out

    @classmethod
    def from_dict(cls, data: Any) -> Round:
        """The round ``to_dict`` wrote.

        Parameters
        ----------
        data : mapping
            ``{"mechanism": ..., <its parameters>}``.

        Returns
        -------
        Round
            The round.

        Raises
        ------
        ValueError
            If ``data`` is not a mapping with a known mechanism and its parameters (see ``Round``).
        """
        if not isinstance(data, dict) or "mechanism" not in data:
            raise ValueError(
                f"a round must be a mapping with a 'mechanism' key, got {describe(data)}"
            )
        unknown = set(data) - {"mechanism", "parameters", *PARAMETERS}
        if unknown:
            raise ValueError(
                f"a round takes mechanism and {', '.join(PARAMETERS)}, got {sorted(unknown)}"
            )
        if "parameters" in data:
            given = data["parameters"]
            if not isinstance(given, dict) or not given:
                raise ValueError(
                    f"a round's parameters must be a non-empty mapping, got {describe(given)}"
                )
            data = {**data, "parameters": tuple(sorted(given.items()))}
        return cls(**data)
