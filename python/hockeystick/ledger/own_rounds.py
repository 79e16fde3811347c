"""The ledger's own rounds: what each door of the ledger reads of each mechanism it records with
fields of its own, in one place per mechanism.

Five mechanisms are recorded as ``Round`` fields (``rounds``); any other reaches the ledger through
its registry entry (``registered_round``).  Each is an ``OwnRound`` giving:

- ``needs``: the ``Round`` fields it needs, and the only ones it takes;
- ``checked``: its fields after the checks particular to it (the discrete Gaussian's integer
  sensitivity, ``discrete_noise``; the matrix mechanism's sensitivity bracket, ``matrix_round``);
- ``gdp_sensitivity``: for a round with a GDP parameter, the sensitivity s of mu = s / sigma (Dong,
  Roth & Su 2022, Thm 2.7: the Gaussian mechanism at s = 1, the matrix mechanism at its upper
  sensitivity); None for a round without one;
- ``zcdp``: whether its Rényi curve is the zCDP line alpha s^2 / (2 sigma^2) (the discrete Gaussian:
  Canonne, Kamath & Steinke 2020, Sec. 2; the matrix mechanism: Bun & Steinke 2016, Prop. 1.6);
  otherwise the curve is its compose stage's (``StageEntry.rdp``, ``pld.mechanisms.constructors``)
  at its ``needs``;
- ``compose``: its count of rounds added to a fixed schedule's ``PLDAccountant`` on one side (the
  subsampled Gaussians through the accountant's process-wide round cache,
  ``pld.refine.round_cache``);
- ``bracketed``: whether the round is known only within a bracket (its lower side composed apart).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..pld.mechanisms import laplace
from .discrete_noise import discrete_gaussian_pld, discrete_gaussian_sensitivity
from .matrix_round import matrix_parameters

if TYPE_CHECKING:
    from ..pld.accountants import PLDAccountant

__all__: list[str] = []  # its names serve the ledger's rounds (``rounds``, ``fixed_schedule``)


def given(value: float | None) -> float:
    """A parameter a round's mechanism needs, as a float (``Round.__post_init__`` checked it).

    Parameters
    ----------
    value : float or None
        The round's field.

    Returns
    -------
    float
        The value.

    Raises
    ------
    ValueError
        If the field is not set (a round built around its checks).
    """
    if value is None:
        raise ValueError("the round lacks a parameter its mechanism needs")
    return float(value)


def _unchanged(one: Any) -> dict[str, Any]:
    return {}


def _never(one: Any) -> bool:
    return False


@dataclass(frozen=True)
class OwnRound:
    """One mechanism the ledger records with fields of its own (module docstring).

    Parameters
    ----------
    name : str
        The ``Round``'s ``mechanism``.
    needs : tuple of str
        The fields it needs and takes.
    compose : callable
        ``compose(accountant, round, count, h, side)``: adds ``count`` rounds on grid h.
    checked : callable, optional
        ``checked(round)``: the fields rewritten after its own checks (default none).
    gdp_sensitivity : callable or None, optional
        ``gdp_sensitivity(round)``: s of its GDP parameter s / sigma; None: it has none.
    zcdp : bool, optional
        Its Rényi curve is the zCDP line at (s / sigma)^2 (default: its stage's curve).
    bracketed : callable, optional
        ``bracketed(round)``: whether its lower side is composed apart (default never).
    """

    name: str
    needs: tuple[str, ...]
    compose: Callable[[PLDAccountant, Any, int, float, str], None]
    checked: Callable[[Any], dict[str, Any]] = _unchanged
    gdp_sensitivity: Callable[[Any], float] | None = None
    zcdp: bool = False
    bracketed: Callable[[Any], bool] = _never


def _compose_gaussian(
    accountant: PLDAccountant, one: Any, rounds: int, h: float, side: str
) -> None:
    """The (subsampled) Gaussian through the accountant's round cache; rate 1 when unsampled."""
    rate = 1.0 if one.sampling_rate is None else one.sampling_rate
    accountant.compose_subsampled_gaussian(given(one.sigma), rate, rounds)


def _compose_laplace(accountant: PLDAccountant, one: Any, rounds: int, h: float, side: str) -> None:
    accountant.compose(laplace(given(one.scale), value_discretization_interval=h), rounds)


def _compose_discrete_gaussian(
    accountant: PLDAccountant, one: Any, rounds: int, h: float, side: str
) -> None:
    accountant.compose(
        discrete_gaussian_pld(given(one.sigma), int(given(one.sensitivity)), h), rounds
    )


def _compose_matrix(accountant: PLDAccountant, one: Any, rounds: int, h: float, side: str) -> None:
    """One Gaussian of the strategy's sensitivity: its upper one on the upper side, its realizable
    lower one on the lower side (``matrix_round``)."""
    sensitivity = one.sensitivity if side == "upper" else one.sensitivity_lower
    accountant.compose_subsampled_gaussian(
        given(one.sigma), 1.0, rounds, sensitivity=given(sensitivity)
    )


def _discrete_gaussian_checked(one: Any) -> dict[str, Any]:
    return {"sensitivity": discrete_gaussian_sensitivity(one.sensitivity)}


def _matrix_checked(one: Any) -> dict[str, Any]:
    upper, lower = matrix_parameters(one.sensitivity, one.sensitivity_lower)
    return {"sensitivity": upper, "sensitivity_lower": lower}


GAUSSIAN = OwnRound("gaussian", ("sigma",), _compose_gaussian, gdp_sensitivity=lambda one: 1.0)
SUBSAMPLED_GAUSSIAN = OwnRound("subsampled_gaussian", ("sigma", "sampling_rate"), _compose_gaussian)
LAPLACE = OwnRound("laplace", ("scale",), _compose_laplace)
DISCRETE_GAUSSIAN = OwnRound(
    "discrete_gaussian",
    ("sigma", "sensitivity"),
    _compose_discrete_gaussian,
    checked=_discrete_gaussian_checked,
    zcdp=True,
)
MATRIX_MECHANISM = OwnRound(
    "matrix_mechanism",
    ("sigma", "sensitivity", "sensitivity_lower"),
    _compose_matrix,
    checked=_matrix_checked,
    gdp_sensitivity=lambda one: given(one.sensitivity),
    zcdp=True,
    bracketed=lambda one: one.sensitivity_lower != one.sensitivity,
)

# each own round by its ``mechanism`` word, in the order ``Round``'s documentation lists them
OWN_ROUNDS = {
    kind.name: kind
    for kind in (GAUSSIAN, SUBSAMPLED_GAUSSIAN, LAPLACE, DISCRETE_GAUSSIAN, MATRIX_MECHANISM)
}
