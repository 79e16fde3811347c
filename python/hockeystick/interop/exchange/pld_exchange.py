"""Privacy-loss distributions other accountants read: a run's certified curve or a hockeystick PLD
to Google's PLD fields and back, and to and from dp_accounting's ``PrivacyLossDistribution``.

``export_pld`` (``form="curve"``, the default) of an accountant (the contract's ``delta`` and
``epsilon`` for one run), a fixed-schedule ledger or a PLD writes the PMFs of its certified curve
(``pld_curve``): the lower convex hull, in e^eps, of its certified upper delta at samples half the
default tolerance apart, which a reader such as dp_accounting reads within that tolerance of the
certified eps at every delta down to the stated ``delta_floor``, and the hull under the staircase of
its certified lower delta as the optimistic PMF.  A plain FFT composition's PMFs read far above the
certified eps at small delta: the mass of their tail cut sits at +infinity and their FFT round-off
bound a little above the losses it falls on (together 1e-11 to 1e-10 on long runs), where every
reader counts them in full.

``export_pld(pld, form="composed")`` writes each neighbouring direction's composed PMFs (remove,
then add: dp_accounting's ``pmf_remove`` and ``pmf_add``) in Google's fields (``pld_format``): the
certified upper side as the pessimistic PMF, every charge of the composition folded in
(``pld_folding``: the FFT round-off bound and the shift at +infinity, the loss shift as whole cells,
the suffix sums' round-off as a scale), so that its delta(eps) is at or above the composed PMFs'
certified upper bound at every eps; the certified lower side as the optimistic PMF beside it, at or
below the certified lower bound.  ``ExchangedPLD.to_json`` stores them, ``to_dp_accounting`` builds
dp_accounting's object through its public constructors, which then composes it with its own PLDs.

``import_pld`` makes a hockeystick ``PrivacyLossDistribution`` of Google's fields (one factor a
direction), which composes with hockeystick's PLDs on the same grid.  Its upper side reads the
pessimistic PMF: certified only as far as the producer's pessimistic PMF is (hockeystick's own
export is; dp_accounting's is a pessimistic estimate whose FFT round-off is not bounded).
``from_dp_accounting`` reads dp_accounting's PLD.  An imported PLD is read with hockeystick's own
round-off margins, so exporting it again scales its masses once more (by 1 + 8 (n + 4) u, n grid
points, u = 2^-53): the fields survive a trip through JSON bit for bit, not repeated exports.

dp_accounting 0.6 gives no public accessor of a PLD's PMFs: ``from_dp_accounting`` reads the private
attributes ``DP_ACCOUNTING_FIELDS`` names, and checks what it read against dp_accounting's public
``get_delta_for_epsilon`` (a version that stores them otherwise is refused, not misread).

Examples
--------
>>> import hockeystick.pld as pld
>>> from hockeystick.interop.exchange import ExchangedPLD, export_pld, import_pld
>>> d = pld.laplace(1.0, value_discretization_interval=1e-2)
>>> text = export_pld(d).to_json()
>>> back = import_pld(ExchangedPLD.from_json(text))
>>> bool(back.delta(0.5) >= d.delta(0.5))
True
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from ...ledger.ledger import PrivacyLedger
from ...pld.grid import Factor, GridPMF, PrivacyLossDistribution
from ...pld.mechanisms import checked_interval
from .pld_curve import (
    DEFAULT_DELTA_FLOORS,
    DEFAULT_INTERVAL,
    DeltaFloorError,
    curve_pmfs,
    fixed_schedule,
    follows_contract,
)
from .pld_folding import lower_minorant, optimistic_fields, pessimistic_fields, pessimistic_pmf
from .pld_format import ExchangedPLD, ExchangedPMF, charged_infinity

__all__ = [
    "DP_ACCOUNTING_FIELDS",
    "export_pld",
    "from_dp_accounting",
    "import_pld",
    "to_dp_accounting",
]

# The private attributes of dp_accounting 0.6 read by ``from_dp_accounting`` (no public accessor
# exists): PrivacyLossDistribution's PMFs and whether it is symmetric, and a DensePLDPmf's fields.
DP_ACCOUNTING_FIELDS = (
    "_pmf_remove",
    "_pmf_add",
    "_symmetric",
    "_discretization",
    "_lower_loss",
    "_probs",
    "_infinity_mass",
    "_pessimistic_estimate",
)
# where ``from_dp_accounting`` compares the fields read with dp_accounting's public curve: at these
# fractions of the grid, from its lowest loss to one cell above its highest
_CHECK_FRACTIONS = (0.0, 0.25, 0.5, 0.75, 1.0)
_CHECK_TOLERANCE = 1e-9


def export_pld(
    source: Any,
    *,
    delta_floor: float | None = None,
    value_discretization_interval: float | None = None,
    form: Literal["curve", "composed"] = "curve",
) -> ExchangedPLD:
    """A run's certified privacy curve (or a PLD's composed PMFs) in Google's PLD fields, both sides certified.

    ``form="curve"`` (the default) writes the PMFs of the source's certified curve (``pld_curve``):
    an accountant (``SubsampledGaussianPLD``, ``training.DPSGD`` / ``DPFedAvg``, ``PLDAccountant``,
    any object of the accountant contract for one run), a fixed-schedule ``PrivacyLedger`` or a
    ``PrivacyLossDistribution``.  dp_accounting reading the pessimistic PMF at any delta >=
    ``delta_floor`` gets an eps within the default tolerance max(1e-3, 2.5e-4 eps) of the eps where
    the source's certified upper delta(eps) crosses delta (one sample spacing at most; the certified
    upper eps where the source's delta read is as tight as its eps read), and never below the true
    eps.  ``form="composed"`` writes a PLD's composed PMFs per direction, every charge folded in
    (``pld_folding``): as tight as the plain composition on its grid, its round-off floor and tail
    cut included.

    Parameters
    ----------
    source : accountant, PrivacyLedger or PrivacyLossDistribution
        What to export: an object with the contract's ``delta(epsilon, *, bound=...)`` and
        ``epsilon(delta, *, bound=...)`` (``base.accountant``) built for one run (scalar
        parameters); a ``PrivacyLedger`` of a fixed schedule (its recorded rounds, composed); or a
        hockeystick PLD.
    delta_floor : float, optional
        The curve's: the smallest delta the export is read at within the tolerance, 0 < delta_floor
        < 1, stated in the result (``ExchangedPLD.delta_floor``).  Default: the first of 1e-12,
        1e-11, ..., 1e-6 the source certifies an eps at.  Below it a reader's eps stays an upper
        bound, looser, and inf below the mass at +infinity (at most ``delta_floor``).
    value_discretization_interval : float, optional
        The curve's grid, 0 < h <= 100 (default: a PLD's own grid, so that the export composes with
        hockeystick PLDs on it; 1e-4, dp_accounting's default, for the others).  Above 5e-4 the
        samples are a cell apart, and a reader's eps within one cell of the certified one.
    form : {"curve", "composed"}, optional
        What is written (above); "composed" for a PLD only.

    Returns
    -------
    ExchangedPLD
        The pessimistic PMF per direction (its delta(eps) at or above the certified upper bound at
        every eps) and the optimistic one (at or below the certified lower bound), none for a source
        certifying the upper side alone.  The curve has one direction: it bounds both orders of the
        neighbours.

    Raises
    ------
    ValueError
        If ``source`` is none of these (the message says what is exported), an adaptive ledger, an
        accountant of several runs (array parameters), ``delta_floor`` is outside (0, 1) or below
        what ``source`` certifies (the message gives what to export instead), ``form`` is neither
        word or "composed" for a source that is not a PLD (or given a curve's argument), or a
        composition is refused (its own message).
    ParameterTypeError
        If ``value_discretization_interval`` is not one number.

    Examples
    --------
    >>> from hockeystick.pld import SubsampledGaussianPLD
    >>> run = SubsampledGaussianPLD(sigma=1.1, sampling_rate=256 / 60000, rounds=1000)
    >>> exported = export_pld(run, delta_floor=1e-8)
    >>> exported.delta_floor
    1e-08
    >>> bool(exported.epsilon(1e-6) >= run.epsilon(1e-6, bound="lower"))
    True
    """
    if form not in ("curve", "composed"):
        raise ValueError(f"form must be 'curve' or 'composed', got {form!r}")
    floor = None if delta_floor is None else _delta_floor(delta_floor)
    if form == "composed":
        if not isinstance(source, PrivacyLossDistribution):
            raise ValueError(
                f"form='composed' writes a PrivacyLossDistribution's composed PMFs, got {type(source).__name__}: "
                "an accountant or a ledger exports its curve (form='curve')"
            )
        if floor is not None or value_discretization_interval is not None:
            raise ValueError(
                "delta_floor and value_discretization_interval are the curve's: form='composed' writes the PLD's "
                "own composed PMFs on its own grid"
            )
        return _folded(source)
    if isinstance(source, PrivacyLossDistribution):
        h = source.value_discretization_interval
    else:
        h = DEFAULT_INTERVAL
    if value_discretization_interval is not None:
        h = checked_interval(value_discretization_interval)
    curve = fixed_schedule(source) if isinstance(source, PrivacyLedger) else source
    if not follows_contract(curve):
        raise ValueError(
            "source must be an accountant of one run with delta(epsilon, *, bound=...) and epsilon(delta, *, "
            "bound=...) (SubsampledGaussianPLD, DPSGD, DPFedAvg, PLDAccountant, ...), a fixed-schedule "
            f"PrivacyLedger or a hockeystick PrivacyLossDistribution, got {type(source).__name__}"
            + _hint(source)
        )
    if floor is not None:
        upper, lower = curve_pmfs(curve, floor, h)
        return ExchangedPLD(upper, None, lower, None, delta_floor=floor)
    for tried in DEFAULT_DELTA_FLOORS:
        try:
            upper, lower = curve_pmfs(curve, tried, h)
        except DeltaFloorError:
            if tried == DEFAULT_DELTA_FLOORS[-1]:
                raise
            continue
        return ExchangedPLD(upper, None, lower, None, delta_floor=tried)
    raise AssertionError("unreachable: the last default floor returns or raises")


def _hint(source: Any) -> str:
    """What to export instead of ``source``, where something is known."""
    if callable(getattr(source, "get_epsilon", None)) and callable(getattr(source, "delta", None)):
        return (
            ": its answer is an epsilon at a split of delta, not a curve of every eps; export the PLD it composes "
            "(e.g. MMCC.pld_at_tail(tail_delta), whose curve omits the tail's delta) only where that bounds the run"
        )
    return ""


def _delta_floor(value: Any) -> float:
    """``delta_floor`` as a float, refused unless a number in (0, 1)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.floating))
        or not 0.0 < value < 1.0
    ):
        raise ValueError(
            f"delta_floor must be a number in (0, 1) (the smallest delta read within tolerance), got {value!r}"
        )
    return float(value)


def _folded(pld: PrivacyLossDistribution) -> ExchangedPLD:
    """A PLD's composed PMFs with their charges folded in (``pld_folding``)."""
    upper = [pessimistic_fields(pmf) for pmf in pld.composed(True)]
    lower: list[ExchangedPMF | None] = [None] * len(upper)
    if all(factor.lower is not None for direction in pld.directions for factor in direction):
        lower = [optimistic_fields(pmf) for pmf in pld.composed(False)]
    add = 1 if len(upper) > 1 else None
    return ExchangedPLD(
        upper[0],
        None if add is None else upper[add],
        lower[0],
        None if add is None else lower[add],
    )


def _grid(pmf: ExchangedPMF) -> GridPMF:
    return GridPMF(
        k_lo=pmf.min_key,
        h=pmf.discretization_interval,
        p=np.array(pmf.values),
        p_inf=charged_infinity(pmf),
        pessimistic=pmf.pessimistic_estimate,
    )


def import_pld(exchanged: ExchangedPLD, name: str = "imported") -> PrivacyLossDistribution:
    """A hockeystick PLD of Google's fields: one factor a direction, its sides the PMFs (no charges).

    Parameters
    ----------
    exchanged : ExchangedPLD
        The fields (``ExchangedPLD.from_json``, ``from_dp_accounting`` or ``export_pld``).
    name : str, optional
        The factors' name.

    Returns
    -------
    PrivacyLossDistribution
        Its upper side reads the pessimistic PMFs, certified only as far as the producer's
        pessimistic PMFs are; its lower side the optimistic ones (absent: ``bound="lower"`` is
        refused).  It composes with hockeystick PLDs of the same ``value_discretization_interval``.

    Raises
    ------
    ValueError
        If ``exchanged`` is not an ExchangedPLD.
    """
    if not isinstance(exchanged, ExchangedPLD):
        raise ValueError(f"exchanged must be an ExchangedPLD, got {type(exchanged).__name__}")
    pairs = [(exchanged.pessimistic_pmf, exchanged.optimistic_pmf)]
    if exchanged.pessimistic_pmf_add is not None:
        pairs.append((exchanged.pessimistic_pmf_add, exchanged.optimistic_pmf_add))
    directions = [
        {Factor(name, _grid(upper), None if lower is None else _grid(lower), connect_dots=False): 1}
        for upper, lower in pairs
    ]
    return PrivacyLossDistribution(directions)


def to_dp_accounting(
    exchanged: ExchangedPLD, side: Literal["pessimistic", "optimistic"] = "pessimistic"
) -> Any:
    """dp_accounting's ``PrivacyLossDistribution`` of one side, built through its public constructors.

    The constructors are ``pld_pmf.DensePLDPmf`` and ``PrivacyLossDistribution(pmf_remove,
    pmf_add)``.

    Parameters
    ----------
    exchanged : ExchangedPLD
        The fields.
    side : {"pessimistic", "optimistic"}, optional
        Which side: dp_accounting composes PLDs of one side only.

    Returns
    -------
    dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution
        Symmetric (``pmf_add`` None) when ``exchanged`` has one direction.

    Raises
    ------
    ValueError
        If ``side`` is neither word, or "optimistic" for fields without an optimistic side.
    ModuleNotFoundError
        If dp_accounting is not installed (the message names the extra).
    """
    from ...base.optional import require_extra

    require_extra("hockeystick.interop.exchange.pld_exchange.to_dp_accounting", "dp_accounting")
    from dp_accounting.pld import pld_pmf
    from dp_accounting.pld.privacy_loss_distribution import PrivacyLossDistribution as DpPLD

    if side not in ("pessimistic", "optimistic"):
        raise ValueError(f"side must be 'pessimistic' or 'optimistic', got {side!r}")
    remove, add = getattr(exchanged, f"{side}_pmf"), getattr(exchanged, f"{side}_pmf_add")
    if remove is None:
        raise ValueError(
            "side='optimistic' needs the optimistic PMFs, which these fields do not have"
        )

    def dense(pmf: ExchangedPMF) -> Any:
        return pld_pmf.DensePLDPmf(
            pmf.discretization_interval,
            pmf.min_key,
            np.array(pmf.values),
            charged_infinity(pmf),
            pmf.pessimistic_estimate,
        )

    return DpPLD(dense(remove), None if add is None else dense(add))


def _dp_fields(pmf: Any) -> tuple[float, int, np.ndarray, float, bool]:
    """A dp_accounting PMF's (discretization, lower loss, probabilities, infinity mass, side), read
    from its dense form's private attributes (``DP_ACCOUNTING_FIELDS``) and refused unless
    dp_accounting's public ``get_delta_for_epsilon`` agrees with them (to 1e-9, relative) at a few
    eps."""
    from dp_accounting.pld import pld_pmf

    dense = pmf.to_dense_pmf()
    fields = (
        float(dense._discretization),
        int(dense._lower_loss),
        np.asarray(dense._probs, dtype=np.float64),
        float(dense._infinity_mass),
        bool(dense._pessimistic_estimate),
    )
    h, key, probs, infinity, pessimistic = fields
    rebuilt = pld_pmf.DensePLDPmf(h, key, probs, infinity, pessimistic)
    for fraction in _CHECK_FRACTIONS:
        eps = (key + round(fraction * probs.size)) * h
        theirs, ours = (
            float(pmf.get_delta_for_epsilon(eps)),
            float(rebuilt.get_delta_for_epsilon(eps)),
        )
        if not abs(theirs - ours) <= _CHECK_TOLERANCE * abs(theirs) + 1e-300:
            raise ValueError(
                f"the dp_accounting PMF's fields ({', '.join(DP_ACCOUNTING_FIELDS[3:])}) do not reproduce its "
                f"get_delta_for_epsilon({eps!r}) = {theirs!r} (read: {ours!r}): this dp_accounting stores them "
                "otherwise; export its PMF through its public API instead"
            )
    return fields


def _dp_pmfs(pld: Any, where: str) -> tuple[Any, Any]:
    """A dp_accounting PLD's (pmf_remove, pmf_add or None when symmetric)."""
    try:
        remove, add, symmetric = pld._pmf_remove, pld._pmf_add, pld._symmetric
    except AttributeError:
        raise ValueError(
            f"{where} must be a dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution, "
            f"got {type(pld).__name__}"
        ) from None
    return remove, None if symmetric else add


def _pessimistic_of(pmf: Any) -> ExchangedPMF:
    h, key, probs, infinity, pessimistic = _dp_fields(pmf)
    if not pessimistic:
        raise ValueError(
            "pessimistic must be a dp_accounting PLD built with pessimistic_estimate=True"
        )
    return pessimistic_pmf(probs, key, h, infinity)


def _optimistic_of(pmf: Any) -> ExchangedPMF:
    h, key, probs, infinity, pessimistic = _dp_fields(pmf)
    if pessimistic:
        raise ValueError(
            "optimistic must be a dp_accounting PLD built with pessimistic_estimate=False"
        )
    below_zero = (
        float(np.nextafter(math.fsum((-probs[probs < 0.0]).tolist()), math.inf))
        if (probs < 0).any()
        else 0.0
    )
    return lower_minorant(np.maximum(probs, 0.0), key, h, max(infinity, 0.0), below_zero)


def from_dp_accounting(pessimistic: Any, optimistic: Any = None) -> ExchangedPLD:
    """Google's fields of dp_accounting PLDs: a pessimistic one and, optionally, an optimistic one.

    Both of the same mechanism: dp_accounting builds each side separately
    (``pessimistic_estimate=``).

    Parameters
    ----------
    pessimistic : dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution
        Built with ``pessimistic_estimate=True``.  Round-off masses below 0 (its FFT compositions
        leave some near -1e-19) are set to 0, which only raises its curve.
    optimistic : dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution, optional
        Built with ``pessimistic_estimate=False``, with the same directions; masses below 0 are set
        to 0 and their sum taken off its curve (``pld_folding.lower_minorant``), as is any total
        mass above 1.

    Returns
    -------
    ExchangedPLD
        Its directions: remove, and add unless the PLD is symmetric.

    Raises
    ------
    ValueError
        If an argument is not a dp_accounting PLD, is of the other side, the two differ in
        directions or discretization, or the fields read disagree with dp_accounting's
        ``get_delta_for_epsilon``.
    ModuleNotFoundError
        If dp_accounting is not installed (the message names the extra).
    """
    from ...base.optional import require_extra

    require_extra("hockeystick.interop.exchange.pld_exchange.from_dp_accounting", "dp_accounting")
    remove, add = _dp_pmfs(pessimistic, "pessimistic")
    lower: list[ExchangedPMF | None] = [None, None]
    if optimistic is not None:
        low_remove, low_add = _dp_pmfs(optimistic, "optimistic")
        if (low_add is None) != (add is None):
            raise ValueError(
                "optimistic must have the directions of pessimistic (both symmetric, or neither)"
            )
        lower = [_optimistic_of(low_remove), None if low_add is None else _optimistic_of(low_add)]
    return ExchangedPLD(
        _pessimistic_of(remove), None if add is None else _pessimistic_of(add), lower[0], lower[1]
    )
