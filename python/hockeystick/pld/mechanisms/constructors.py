"""Constructors of discretized privacy-loss distributions, one per mechanism.

Every constructor returns a ``PrivacyLossDistribution`` holding, per
neighbouring direction, a pessimistic PMF (connect-the-dots, Doroshenko et al.
2022: its delta(eps) is a certified upper bound, also after composition) and an
optimistic PMF (a connect-the-dots chord lowered by the local interpolation
gap: a certified lower bound; see cpp/include/hockeystick/pld/grid/connect_dots.hpp).
Per-cell masses are integrals computed in C++ (pld/grid/cells.hpp); the tails beyond
``tail``/2 go to +infinity on the pessimistic side and are dropped on the
optimistic side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np

from ... import _core
from ...base import validation as _validation
from ...base.elementwise import ArrayLike
from ..grid.atoms import SMALLEST_NORMAL, UNIT_ROUNDOFF, WINDOW_FLOOR
from ..grid.distribution import Factor, PrivacyLossDistribution, Source
from ..grid.pmf import GridPMF
from ..grid.tail import DEFAULT_TAIL
from .atoms_from_pairs import loss_round_off, split_near_underflow
from .mechanism import Mechanism
from .registry import stage

if TYPE_CHECKING:
    from ...base.event_refusal import NonPrivateRun
    from .largest_loss import Directions as LargestLosses

DEFAULT_INTERVAL = 1e-4
MAX_CELLS = 1 << 26
MAX_INTERVAL = float(
    _core.pld_grid.max_interval
)  # the coarsest grid accepted; see checked_interval
Directions = Literal["both", "remove", "add"]


def _positive(name: str, value: float) -> float:
    """One finite number > 0 (an array, a string or a bool refused naming ``name``)."""
    return float(_validation.positive(_validation.single(value, name), name))


def checked_interval(value: float) -> float:
    """The loss-grid spacing h (``value_discretization_interval``), refused unless 0 < h <= MAX_INTERVAL = 100.

    The connect-the-dots masses p_j = (d_j + e^h c_{j-1}) / (e^h - 1) (Doroshenko et al. 2022, Sec.
    3; cpp/include/hockeystick/pld/grid/connect_dots.hpp) and the cell integrals d_j <= e^h Q(cell)
    need e^h in double precision: above h = log(DBL_MAX) = 709.78 it overflows and the 10-fold
    Gaussian reported epsilon = 0.  Up to 100 every product of e^h with masses summed over at most
    MAX_CELLS cells stays below e^100 2^26 ~ 2e51, far from overflow, so every h in (0, 100] gives a
    valid (if loose) bound; a spacing of 100 in loss already reports epsilon only in steps of 100,
    so nothing useful lies beyond.  The C++ core refuses the same range (``pld::max_interval`` in
    pld/grid/cells.hpp).
    """
    h = _validation.single(
        value, "value_discretization_interval"
    )  # strings, bools, None, arrays: TypeError
    if 0 < h <= MAX_INTERVAL:
        return h
    hint = (
        "the PLD grid needs e^h far from overflow (it overflows above h = 709.78); use a finer grid "
        "(a smaller value_discretization_interval, e.g. the default 1e-4)"
        if h > MAX_INTERVAL
        else "the PLD grid spacing must be a positive number; use e.g. the default 1e-4 (smaller is finer, "
        "tighter and slower)"
    )
    raise ValueError(
        f"value_discretization_interval must lie in (0, {MAX_INTERVAL:g}], got {value!r}: {hint}"
    )


def _factor(
    name: str,
    raw: _core.pld_grid.DiscretizedSides,
    loss_shift: float = 0.0,
    source: Source | None = None,
) -> Factor:
    """The factor of a C++ discretization (its pessimistic ``upper_inf`` already carries any
    round-off deficit of the mass: ``factor_view`` in
    cpp/include/hockeystick/pld/compose/compose.hpp); ``loss_shift``: a bound on the error of the
    losses it was built from (``GridPMF.loss_shift``), to which the cells' own loss error is added,
    rounded up: the distance ``add_atom`` moved an atom onto a grid point (within 4 ulps of the
    loss) and the rounding of the continuous cells' edges (``Cells::edge_error``, a few hundred ulps
    at most for the subsampled Gaussian; pld/grid/cells.hpp), which the core returns as the PMFs'
    ``loss_shift``; ``source``: the mechanism discretized, where known."""
    cells_shift = float(raw.loss_shift)
    if cells_shift > 0.0:
        loss_shift = math.nextafter(loss_shift + cells_shift, math.inf)
    h = float(raw.h)
    upper = GridPMF(
        int(raw.k_lo), h, raw.upper, float(raw.upper_inf), 0.0, True, loss_shift=loss_shift
    )
    lower = (
        None
        if raw.lower is None  # the two sides may come from two pairs, on two grids
        else GridPMF(
            int(raw.lower_k_lo),
            h,
            raw.lower,
            float(raw.lower_inf),
            0.0,
            False,
            loss_shift=loss_shift,
        )
    )
    return Factor(name, upper, lower, bool(raw.connect_dots), source=source)


def atom_loss_shift(log_p: np.ndarray, log_q: np.ndarray, equal: np.ndarray) -> float:
    """The largest error of the atom losses log_p - log_q (``finite_atoms.loss_round_off``, 4u
    (``|log p| + |log q|``) + 32u), 0 for an outcome whose masses are ``equal`` (p == q: its loss is
    exactly 0; equal computed logs do not say so: log(0.1) == log(0.1 + 1 ulp), a true loss of
    1.4e-16) and for infinite losses (q == 0: exactly +infinity).  The grid builders place each atom
    at its computed loss and charge this as a shift of the curve (``GridPMF.loss_shift``) rather
    than moving the atoms: an atom computed onto a grid point (q = e^-700 / 2: log(1/2) - log q is
    700 + 8.6e-18, computed as 700.0) then keeps its round-off without being pushed a cell up, so an
    aligned grid stays aligned, and every value moves by at most the shift (a few ulps of the
    losses) in eps."""
    inexact = np.isfinite(log_q) & ~equal
    if not inexact.any():
        return 0.0
    return float(np.max(loss_round_off(log_p[inexact], log_q[inexact])))


MIN_TAIL = 1e-300
MAX_TAIL = 1e-3


def checked_tail(tail: float) -> float:
    """The tail mass cut from each round of a continuous mechanism (``tail``), refused unless
    MIN_TAIL = 1e-300 <= tail < MAX_TAIL = 1e-3: below 1e-300 its fractions (tail / 4, the
    quantiles' arguments) leave the normal doubles and the quantiles, and with them the loss grid,
    run off.  The accountants check it when they are built, the constructors when they
    discretize."""
    t = float(_validation.real(_validation.single(tail, "tail"), "tail"))
    if not (MIN_TAIL <= t < MAX_TAIL):
        raise ValueError(f"tail must lie in [{MIN_TAIL:g}, 1e-3), got {_validation.describe(tail)}")
    return t


def _grid_cells_refused(error: ValueError, s: float, h: float) -> ValueError:
    """The core's refusal of a loss grid over MAX_CELLS cells in the user's words
    (``_too_many_cells``), any other ValueError as it is."""
    return ValueError(_too_many_cells(np.array([s]), h)) if "max_cells" in str(error) else error


# The Rényi curves of the Gaussian, Poisson-subsampled Gaussian and Laplace stages: their ``rdp``
# facets (``registry.stage``, ``StageEntry.rdp``), rdp(orders, **parameters) at integer orders,
# never below the exact curve of either direction, which the ledger reads for a round of the stage's
# name.  They are those of ``rdp.integer_orders``, rounded up there: the Gaussian's alpha / (2
# sigma^2) (Mironov 2017, Prop. 7), the Poisson-subsampled Gaussian's integer-order sum (Mironov,
# Talwar & Zhang 2019, Sec. 3.3) and the Laplace mechanism's (Mironov 2017, Prop. 6).  A sensitivity
# s other than 1 is folded into the noise as noise / s rounded down (the curve at least the
# stage's); ``tail`` is the compose file's setting and is not read.


def noise_over_sensitivity(noise: float, sensitivity: float) -> float:
    """noise / sensitivity, rounded down (checked in exact rational arithmetic); noise itself at sensitivity 1.

    Parameters
    ----------
    noise : float
        A noise scale or multiplier, finite and > 0.
    sensitivity : float
        The sensitivity it is relative to, finite and > 0.

    Returns
    -------
    float
        The largest double at most noise / sensitivity (exactly noise when sensitivity is 1), so
        that a curve read at it is at least the curve at the exact quotient.
    """
    if sensitivity == 1:
        return float(noise)
    quotient = float(noise) / float(sensitivity)
    if math.isinf(quotient):  # past the doubles: the largest one is below the quotient
        return math.nextafter(math.inf, 0.0)
    from fractions import Fraction  # the exact product, past the common sensitivity 1

    if Fraction(quotient) * Fraction(float(sensitivity)) <= Fraction(float(noise)):
        return quotient  # at or below the exact quotient already
    return math.nextafter(quotient, 0.0)


def gaussian_stage_rdp(
    orders: tuple[int, ...], sigma: float, *, sensitivity: float = 1.0, tail: float | None = None
) -> np.ndarray:
    """The Gaussian stage's Rényi curve: ``rdp.integer_orders.gaussian_rdp_upper`` at sigma / sensitivity.

    Parameters
    ----------
    orders : tuple of int
        Integer Rényi orders >= 2.
    sigma : float
        Noise standard deviation, finite and > 0 (over ``sensitivity``).
    sensitivity : float, optional
        The query's L2 sensitivity (default 1).
    tail : float, optional
        The compose file's tail: not read.

    Returns
    -------
    numpy.ndarray
        One value per order, never below alpha s^2 / (2 sigma^2).
    """
    from ...rdp.integer_orders import gaussian_rdp_upper  # lazy: the rdp package at the first curve

    return gaussian_rdp_upper(noise_over_sensitivity(sigma, sensitivity), orders)


def subsampled_gaussian_stage_rdp(
    orders: tuple[int, ...],
    sigma: float,
    sampling_rate: float,
    *,
    sensitivity: float = 1.0,
    tail: float | None = None,
) -> np.ndarray:
    """The Poisson-subsampled Gaussian stage's Rényi curve (``rdp.integer_orders``, add/remove neighbours).

    Parameters
    ----------
    orders : tuple of int
        Integer Rényi orders >= 2.
    sigma : float
        Noise standard deviation, finite and > 0 (over ``sensitivity``).
    sampling_rate : float
        Poisson sampling probability q, 0 <= q <= 1.
    sensitivity : float, optional
        The query's L2 sensitivity (default 1).
    tail : float, optional
        The compose file's tail: not read.

    Returns
    -------
    numpy.ndarray
        One value per order, never below the exact curve (Mironov, Talwar & Zhang 2019, Sec. 3.3).
    """
    from ...rdp.integer_orders import subsampled_gaussian_rdp_upper

    return subsampled_gaussian_rdp_upper(
        noise_over_sensitivity(sigma, sensitivity), float(sampling_rate), orders
    )


def laplace_stage_rdp(
    orders: tuple[int, ...], scale: float, *, sensitivity: float = 1.0
) -> np.ndarray:
    """The Laplace stage's Rényi curve: ``rdp.integer_orders.laplace_rdp_upper`` at scale / sensitivity.

    Parameters
    ----------
    orders : tuple of int
        Integer Rényi orders >= 2.
    scale : float
        Laplace scale, finite and > 0 (over ``sensitivity``).
    sensitivity : float, optional
        The query's L1 sensitivity (default 1).

    Returns
    -------
    numpy.ndarray
        One value per order, never below the exact curve (Mironov 2017, Prop. 6).
    """
    from ...rdp.integer_orders import laplace_rdp_upper

    return laplace_rdp_upper(noise_over_sensitivity(scale, sensitivity), orders)


# The ledger's facets of its Gaussian rounds (``registry.StageEntry``): each composed through the
# accountant's process-wide round cache (``PLDAccountant.compose_subsampled_gaussian``, rate 1 for
# the Gaussian mechanism); the unsampled Gaussian of noise sigma over sensitivity 1 is the
# ``Gaussian`` pair of shift 1, 1 / sigma-GDP (Dong, Roth & Su 2022, Thm 2.7).


def gaussian_round_compose(accountant: Any, rounds: int, sigma: float) -> None:
    """Adds ``rounds`` Gaussian rounds of noise multiplier sigma through the round cache."""
    accountant.compose_subsampled_gaussian(sigma, 1.0, rounds)


def subsampled_gaussian_round_compose(
    accountant: Any, rounds: int, sigma: float, sampling_rate: float
) -> None:
    """Adds ``rounds`` Poisson-subsampled Gaussian rounds through the round cache."""
    accountant.compose_subsampled_gaussian(sigma, sampling_rate, rounds)


def gaussian_round_pair(sigma: float) -> Gaussian:
    """The Gaussian round as the pair N(1, sigma^2) vs N(0, sigma^2) (``Gaussian``)."""
    return Gaussian(sigma)


@stage(
    relation="add_or_remove_one",
    round_noise="sigma",
    rdp=subsampled_gaussian_stage_rdp,
    round_fields=True,
    cached_compose=subsampled_gaussian_round_compose,
)
def subsampled_gaussian(
    sigma: float,
    sampling_rate: float,
    *,
    sensitivity: float = 1.0,
    value_discretization_interval: float = DEFAULT_INTERVAL,
    tail: float = DEFAULT_TAIL,
) -> PrivacyLossDistribution:
    r"""Discretized PLD of the Poisson-subsampled Gaussian mechanism under add/remove neighbours.

    Each record enters the batch independently with probability q; the sum of the batch's
    contributions (each of norm at most ``sensitivity``) plus Gaussian noise of standard deviation
    ``sigma`` is released. With s = sigma / sensitivity the dominating pairs are

    .. math::

        \text{remove: } P = (1-q)\,N(0, s^2) + q\,N(1, s^2) \text{ vs } Q = N(0, s^2), \qquad
        \text{add: the pair swapped.}

    ``sampling_rate=1`` is the Gaussian mechanism (one symmetric direction).  Both sides are
    discretized in C++: the pessimistic by connect-the-dots, the optimistic by a chord lowered by
    its interpolation gap.

    Parameters
    ----------
    sigma : float
        Standard deviation of the Gaussian noise, sigma > 0, in the units of ``sensitivity``.
    sampling_rate : float
        Poisson sampling probability q, 0 < q <= 1.
    sensitivity : float, optional
        Norm bound of one record's contribution, > 0 (default 1); only sigma / sensitivity matters.
    value_discretization_interval : float, optional
        Spacing h of the loss grid, 0 < h <= 100 (default 1e-4); smaller is tighter and slower.
    tail : float, optional
        Probability mass of the loss cut from the continuous mechanism's tails (sent to +infinity on
        the pessimistic side, dropped on the optimistic side), 1e-300 <= tail < 1e-3 (default
        1e-15).

    Returns
    -------
    PrivacyLossDistribution
        The remove and the add direction (one direction for q = 1), each with certified pessimistic
        and optimistic PMFs; compose rounds with ``.self_compose(rounds)``.

    Raises
    ------
    ValueError
        If sigma or sensitivity is not finite and > 0, sigma / sensitivity overflows,
        ``sampling_rate`` lies outside (0, 1], ``value_discretization_interval`` outside (0, 100],
        ``tail`` outside [1e-300, 1e-3), or the grid would need more than 2**26 cells (a small sigma
        / sensitivity on a fine grid).
    ParameterTypeError
        If an argument is a string, a boolean, None or an array (each argument is one number).

    See Also
    --------
    gaussian : ``sampling_rate=1``.
    SubsampledGaussianPLD : the accountant over rounds, with ``accuracy=``.

    References
    ----------
    Zhu, Dong & Wang, AISTATS 2022, Thm 11 (the remove and add pairs); Doroshenko et al. 2022, Sec.
    3 (connect-the-dots).

    Examples
    --------
    >>> import hockeystick.pld as pld
    >>> d = pld.subsampled_gaussian(sigma=1.0, sampling_rate=0.1)
    >>> [round(x, 6) for x in d.delta(0.5, bound="both")]
    [0.002033, 0.002033]
    """
    # each checked as one number before it is wrapped, so that a refusal shows the value as given
    return subsampled_gaussians(
        [_validation.single(sigma, "sigma")],
        [_validation.single(sampling_rate, "sampling_rate")],
        sensitivity=[_validation.single(sensitivity, "sensitivity")],
        value_discretization_interval=value_discretization_interval,
        tail=tail,
    )[0]


def subsampled_gaussians(
    sigma: ArrayLike,
    sampling_rate: ArrayLike,
    *,
    sensitivity: ArrayLike = 1.0,
    value_discretization_interval: float = DEFAULT_INTERVAL,
    tail: float = DEFAULT_TAIL,
    threads: int = 0,
    optimistic: bool = True,
    directions: Directions = "both",
    halves: bool = True,
) -> list[PrivacyLossDistribution]:
    """``subsampled_gaussian`` for many points (1-d arrays that broadcast), one C++ call.

    Every direction of every point is discretized in parallel (OpenMP over the
    items, GIL released; ``threads=0``: all cores), so a sweep over sigma pays
    neither one Python round trip nor one serial discretization per point.
    ``optimistic=False`` skips the optimistic PMFs: the PLDs then give upper bounds only.
    ``halves=False`` builds the optimistic PMFs from each loss cell's own integrals, without those
    of its two halves (``pld/grid/cells.hpp``'s ``continuous_cells``): a certified lower side whose
    tents lie about twice as far from the chord, for about half the integration work.
    ``directions="remove"`` or ``"add"`` discretizes that neighbouring direction alone (a PLD of
    one direction; sampling_rate 1, the symmetric Gaussian, has its one direction either way):
    its bounds are then those of that direction only, not of the mechanism.
    """
    # sigma and sensitivity checked as given (their errors name the user's values), then broadcast
    s_in, q_in, c_in = np.broadcast_arrays(
        np.atleast_1d(_validation.positive(sigma, "sigma")),
        np.atleast_1d(_validation.as_real_array(sampling_rate, "sampling_rate")),
        np.atleast_1d(_validation.positive(sensitivity, "sensitivity")),
    )
    if s_in.ndim != 1:
        raise ValueError("sigma, sampling_rate and sensitivity must broadcast to a 1-d array")
    with np.errstate(over="ignore"):
        s = s_in / c_in
    if not np.all(s < math.inf):
        raise ValueError(
            f"sigma / sensitivity must be finite, got sigma = {_validation.describe(s_in[~(s < math.inf)][0])}"
            f" over sensitivity = {_validation.describe(c_in[~(s < math.inf)][0])}: give a larger "
            "sensitivity or a smaller sigma"
        )
    q = _validation.in_interval(q_in, "sampling_rate", 0.0, 1.0, open_low=True, open_high=False)
    h = checked_interval(value_discretization_interval)
    t = checked_tail(tail)
    if directions not in ("both", "remove", "add"):
        raise ValueError(f"directions must be 'both', 'remove' or 'add', got {directions!r}")
    # Items: the remove direction of the points that keep it, then the add direction of the
    # subsampled ones.
    sub = np.flatnonzero(q < 1.0)
    kept = np.arange(s.size) if directions != "add" else np.flatnonzero(q == 1.0)
    added = sub if directions != "remove" else sub[:0]
    item_s = np.concatenate([s[kept], s[added]])
    item_q = np.concatenate([q[kept], q[added]])
    item_remove = np.concatenate([np.ones(kept.size, bool), np.zeros(added.size, bool)])
    try:
        raw = _core.pld_mechanisms.subsampled_gaussian_many(
            item_s,
            item_q,
            item_remove,
            h=h,
            tail=t,
            max_cells=MAX_CELLS,
            threads=int(threads),
            optimistic=bool(optimistic),
            halves=bool(halves),
        )
    except ValueError as error:
        if "max_cells" not in str(error):
            raise
        raise ValueError(_too_many_cells(item_s, h)) from None
    remove_of = dict(zip(kept.tolist(), raw[: kept.size]))
    add_of = dict(zip(added.tolist(), raw[kept.size :]))
    out = []
    for i in range(s.size):
        factors = [
            _factor(
                f"subsampled_gaussian(sigma={s[i]}, q={q[i]}, {name})",
                of[i],
                source=_round_source(float(s[i]), float(q[i]), name),
            )
            for name, of in (("remove", remove_of), ("add", add_of))
            if i in of
        ]
        out.append(PrivacyLossDistribution([{f: 1} for f in factors], t))
    return out


def _round_source(noise: float, q: float, direction: str) -> Source:
    """The registered mechanism one round of ``subsampled_gaussian`` is, and the direction its
    factor holds: the Poisson-subsampled Gaussian of noise sigma / sensitivity (``PoissonGaussian``)
    in ``direction`` where q < 1, the Gaussian of radius 1 / noise (``Gaussian``, its one
    direction) where q = 1."""
    if q < 1.0:
        return Source(("poisson_gaussian", noise, q), direction)
    return Source(("gaussian", noise, 1.0), "symmetric")


def _too_many_cells(s: np.ndarray, h: float) -> str:
    """What to change when the core refuses a subsampled Gaussian's loss grid as over MAX_CELLS
    cells (``s``: the items' sigma / sensitivity): its own message names max_cells, which these
    callers do not pass."""
    if np.max(s) > 1e300:
        return (
            f"sigma / sensitivity = {np.max(s):g} is too large to discretize (its Gaussian quantiles overflow "
            "double precision); delta does not increase with sigma, so the bounds at sigma / sensitivity = "
            "1e300 hold above it"
        )
    return (
        f"value_discretization_interval={h:g} with sigma / sensitivity = {np.min(s):g} would need more than "
        f"{MAX_CELLS} loss cells (one round's loss spans about 1 / (2 s^2) + 8.5 / s, s = sigma / sensitivity): "
        "use a coarser value_discretization_interval (or accuracy=, which chooses it), or a larger sigma"
    )


@_validation.renamed_keywords(dataset_size="n")
@stage(relation="replace_one")
def fixed_size_subsampled_gaussian(
    sigma: float,
    batch_size: int,
    n: int,
    *,
    sensitivity: float = 1.0,
    value_discretization_interval: float = DEFAULT_INTERVAL,
    tail: float = DEFAULT_TAIL,
) -> PrivacyLossDistribution:
    r"""Discretized PLD of the Gaussian mechanism on batches drawn without replacement, replace-one neighbours.

    Each round draws a batch of ``batch_size`` = m of the ``n`` records uniformly without
    replacement. ``sensitivity`` = Delta is the norm bound of one record's contribution (for a mean
    of m gradients clipped to L: Delta = L/m), s = sigma/Delta, q = m/n. The replaced record is in
    the batch with probability q and then moves the output by up to 2 Delta, so for eps >= 0

    .. math::

        \delta(\varepsilon) \le q\, \theta\bigl(2/s, \log(1 + (e^\varepsilon - 1)/q)\bigr)

    (Balle, Barthe & Gaboardi 2018, Thm 2, advanced joint convexity, with the batch without the
    record as the common part; proof in cpp/include/hockeystick/pld/sampling/replace_one.hpp), and
    this is attained: with every other record at gradient -L, the old one at +L and the new one at
    -L, one round is exactly P = (1-q) N(0, s^2) + q N(2, s^2) vs Q = N(0, s^2). The upper side is
    that pair symmetrised (mirrored below loss 0), which dominates both orders of every neighbouring
    pair and so composes adaptively (a round may be remove-like or add-like); the lower side is the
    realizable pair composed with itself.

    Not an upper bound here: P = (1-q) N(0) + q N(1) vs (1-q) N(0) + q N(-1), i.e. dp_accounting's
    REPLACE_ONE pair with sensitivity Delta (it assumes the others' mean sits midway between the
    two records); with sensitivity 2 Delta that pair is valid but looser than this one.
    m = n is the Gaussian mechanism with shift 2 Delta.

    Parameters
    ----------
    sigma : float
        Standard deviation of the Gaussian noise, sigma > 0, in the units of ``sensitivity``.
    batch_size : int
        Batch size m, an integer with 1 <= m <= n.
    n : int
        Number of records, an integer >= 1 (the keyword ``dataset_size`` is accepted for it, with a
        DeprecationWarning).
    sensitivity : float, optional
        Norm bound Delta of one record's contribution, > 0 (default 1).
    value_discretization_interval : float, optional
        Spacing h of the loss grid, 0 < h <= 100 (default 1e-4); smaller is tighter and slower.
    tail : float, optional
        Probability mass of the loss cut from the continuous mechanism's tails (sent to +infinity on
        the pessimistic side, dropped on the optimistic side), 1e-300 <= tail < 1e-3 (default
        1e-15).

    Returns
    -------
    PrivacyLossDistribution
        One direction: the symmetrised upper pair above and the realizable lower pair; compose
        rounds with ``.self_compose(rounds)``.

    Raises
    ------
    ValueError
        If sigma or sensitivity is not finite and > 0, ``batch_size`` or ``n`` is not an integer >=
        1, ``batch_size`` > ``n``, ``value_discretization_interval`` outside (0, 100], ``tail``
        outside [1e-300, 1e-3), or the grid would need more than 2**26 cells.
    ParameterTypeError
        If an argument is a string, a boolean, None or an array (each argument is one number).

    References
    ----------
    Balle, Barthe & Gaboardi 2018, Thm 2 (advanced joint convexity); Zhu, Dong & Wang, AISTATS 2022
    (adaptive composition of a dominating pair).

    Examples
    --------
    >>> import hockeystick.pld as pld
    >>> d = pld.fixed_size_subsampled_gaussian(2.0, batch_size=10, n=100)
    >>> round(d.delta(0.5), 6)
    0.002033
    """
    s = _positive("sigma", sigma) / _positive("sensitivity", sensitivity)
    m, size = _validation.count(batch_size, "batch_size"), _validation.count(n, "n")
    if m > size:
        raise ValueError(
            f"batch_size must be <= n (batches are drawn without replacement), got {m} > {size}"
        )
    h = checked_interval(value_discretization_interval)
    t = checked_tail(tail)
    try:
        raw = _core.pld_sampling.without_replacement_subsampled_gaussian(
            s, m / size, h=h, tail=t, max_cells=MAX_CELLS
        )
    except ValueError as error:
        raise _grid_cells_refused(error, s, h) from None
    f = _factor(f"fixed_size_subsampled_gaussian(sigma={s}, q={m}/{n}, replace-one)", raw)
    return PrivacyLossDistribution([{f: 1}], t)


@_validation.renamed_keywords(dataset_size="n")
@stage(relation="replace_one")
def with_replacement_subsampled_gaussian(
    sigma: float,
    batch_size: int,
    n: int,
    *,
    sensitivity: float = 1.0,
    value_discretization_interval: float = DEFAULT_INTERVAL,
    tail: float = DEFAULT_TAIL,
) -> PrivacyLossDistribution:
    r"""Discretized PLD of the Gaussian mechanism on batches drawn with replacement, replace-one neighbours.

    Each round draws ``batch_size`` = K indices uniformly with replacement from the ``n`` records
    (the per-silo message of Noisy MB-SGD, paper 003, Alg. 2).

    ``sensitivity`` = Delta is the norm bound of one record's contribution to the released
    statistic (for the mean of K gradients clipped to norm L: Delta = L/K), s = sigma/Delta.
    The replaced record appears c ~ Binomial(K, 1/n) times, b_c its pmf, and moves the
    output by up to 2 c Delta (its old and new gradient, each of norm <= L, both scaled 1/K).

    Lower bound (certified, from a realizable pair): every other record has one gradient w,
    the new record has w too, the old one w + 2L e_1, in every round:

    .. math::

        P = \sum_c b_c\, N(2c, s^2) \quad\text{vs}\quad Q = N(0, s^2).

    Upper bound (certified; proof in cpp/include/hockeystick/pld/sampling/replace_one.hpp), for
    eps >= 0, any dimension and any gradients, with eta = 1 - b_0:

    .. math::

        \delta(\varepsilon) \le \sum_{c \ge 1} b_c\, \theta\bigl(2c/s, \log(1 + (e^\varepsilon - 1)/\eta)\bigr),

    from the advanced joint convexity of Balle, Barthe & Gaboardi (NeurIPS 2018, Thm 2) and
    joint convexity over the batch (coupling the record's copies with fresh draws).  That curve
    is the PLD of a b_c/eta-mixture of Poisson-remove pairs (rate eta, shift 2c); it is
    symmetrised (mirror below loss 0) so that it dominates both orders of every neighbouring
    pair and composes adaptively (Zhu, Dong & Wang, AISTATS 2022).  For K = 1 the bound is
    attained: one round's bracket is only discretization, and both sides are the remove pair
    (1-q) N(0) + q N(2) vs N(0), q = 1/n.  Composed, the lower side keeps one configuration in
    every round and the upper side allows any per round (remove-like or add-like), so a gap
    remains.  For K > 1 the gap also holds the unknown worst configuration.  The realizable pair
    is exceeded by non-collinear gradients at eps = 0, so it is not an upper bound.

    NOT valid here: the "replace" pair sum_c b_c N(c) vs sum_c b_c N(-c) (each record moving the
    output by Delta on either side of the others' mean): when the other records sit at -L, the batch
    mean moves by 2 c Delta, not c Delta (tests/pld/sampling/test_pld_with_replacement.py).

    Paper 003 (ISRL-DP): each silo's transcript is R such messages (its own noise, the other silos'
    messages independent of its data), so its (eps0, delta0) is
    ``with_replacement_subsampled_gaussian(sigma, K, n, sensitivity=L /
    K).self_compose(R).epsilon(delta0)`` (docs/paper-003-errata.md compares this with the paper's
    calibrations).

    Parameters
    ----------
    sigma : float
        Standard deviation of the Gaussian noise, sigma > 0, in the units of ``sensitivity``.
    batch_size : int
        Number of draws K per batch, an integer with 1 <= K <= 2**62 (it may exceed ``n``).
    n : int
        Number of records, an integer with 1 <= n <= 2**62 (the keyword ``dataset_size`` is accepted
        for it, with a DeprecationWarning).
    sensitivity : float, optional
        Norm bound Delta of one record's contribution to the released statistic, > 0 (default 1).
    value_discretization_interval : float, optional
        Spacing h of the loss grid, 0 < h <= 100 (default 1e-4); smaller is tighter and slower.
    tail : float, optional
        Probability mass of the loss cut from the continuous mechanism's tails (sent to +infinity on
        the pessimistic side, dropped on the optimistic side), 1e-300 <= tail < 1e-3 (default
        1e-15).

    Returns
    -------
    PrivacyLossDistribution
        One direction: the symmetrised upper curve and the realizable lower pair above.

    Raises
    ------
    ValueError
        If sigma or sensitivity is not finite and > 0, ``batch_size`` or ``n`` is not an integer in
        [1, 2**62], ``value_discretization_interval`` outside (0, 100], ``tail`` outside [1e-300,
        1e-3), or the grid would need more than 2**26 cells.
    ParameterTypeError
        If an argument is a string, a boolean, None or an array (each argument is one number).

    References
    ----------
    Paper 003, Alg. 2; Balle, Barthe & Gaboardi 2018, Thm 2; Zhu, Dong & Wang, AISTATS 2022.

    Examples
    --------
    >>> import hockeystick.pld as pld
    >>> d = pld.with_replacement_subsampled_gaussian(1.0, batch_size=1, n=10, value_discretization_interval=1e-3)
    >>> round(d.delta(1.0), 6)
    0.019648
    """
    s = _positive("sigma", sigma) / _positive("sensitivity", sensitivity)
    # batch_size may exceed n (draws are with replacement); both are passed to the core as int64
    k = _validation.count(batch_size, "batch_size", maximum=2.0**62)
    size = _validation.count(n, "n", maximum=2.0**62)
    h = checked_interval(value_discretization_interval)
    t = checked_tail(tail)
    try:
        raw = _core.pld_sampling.with_replacement_subsampled_gaussian(
            s, batch_size=k, dataset_size=size, h=h, tail=t, max_cells=MAX_CELLS
        )
    except ValueError as error:
        raise _grid_cells_refused(error, s, h) from None
    f = _factor(f"with_replacement_subsampled_gaussian(sigma={s}, K={k}, n={n}, replace-one)", raw)
    return PrivacyLossDistribution([{f: 1}], t)


@stage(
    round_noise="sigma",
    rdp=gaussian_stage_rdp,
    round_fields=True,
    cached_compose=gaussian_round_compose,
    gaussian_of=gaussian_round_pair,
)
def gaussian(
    sigma: float,
    *,
    sensitivity: float = 1.0,
    value_discretization_interval: float = DEFAULT_INTERVAL,
    tail: float = DEFAULT_TAIL,
) -> PrivacyLossDistribution:
    r"""Discretized PLD of the Gaussian mechanism, P = N(sensitivity, sigma^2) vs Q = N(0, sigma^2).

    Its exact profile is the hockey-stick divergence of two Gaussians,

    .. math::

        \delta(\varepsilon) = \theta_\varepsilon(r) = Q(\varepsilon/r - r/2) - e^\varepsilon Q(\varepsilon/r + r/2),
        \qquad r = \text{sensitivity} / \sigma,

    which the two discretized sides bracket.  One symmetric direction (``subsampled_gaussian`` at
    ``sampling_rate=1``).

    Parameters
    ----------
    sigma : float
        Standard deviation of the noise, sigma > 0, in the units of ``sensitivity``.
    sensitivity : float, optional
        Distance between the two means, > 0 (default 1); only sigma / sensitivity matters.
    value_discretization_interval : float, optional
        Spacing h of the loss grid, 0 < h <= 100 (default 1e-4); smaller is tighter and slower.
    tail : float, optional
        Probability mass of the loss cut from the continuous mechanism's tails (sent to +infinity on
        the pessimistic side, dropped on the optimistic side), 1e-300 <= tail < 1e-3 (default
        1e-15).

    Returns
    -------
    PrivacyLossDistribution
        One direction with certified pessimistic and optimistic PMFs.

    Raises
    ------
    ValueError
        If sigma or sensitivity is not finite and > 0, ``value_discretization_interval`` outside (0,
        100], ``tail`` outside [1e-300, 1e-3), or the grid would need more than 2**26 cells.
    ParameterTypeError
        If an argument is a string, a boolean, None or an array (each argument is one number).

    See Also
    --------
    hockeystick.theta : the exact profile.

    References
    ----------
    Paper 000, eq. 6 and Lemma 1 (the hockey-stick divergence of two Gaussians).

    Examples
    --------
    >>> import hockeystick.pld as pld
    >>> round(pld.gaussian(1.0).delta(1.0), 6)
    0.126937
    """
    return subsampled_gaussian(
        sigma,
        1.0,
        sensitivity=sensitivity,
        value_discretization_interval=value_discretization_interval,
        tail=tail,
    )


@stage(round_noise="scale", rdp=laplace_stage_rdp, round_fields=True)
def laplace(
    scale: float,
    *,
    sensitivity: float = 1.0,
    value_discretization_interval: float = DEFAULT_INTERVAL,
) -> PrivacyLossDistribution:
    r"""Discretized PLD of the Laplace mechanism, P = Lap(sensitivity, scale) vs Q = Lap(0, scale).

    With a = sensitivity / scale the loss takes values in [-a, a], with atoms at -a and a, and for
    0 <= eps <= a

    .. math::

        \delta(\varepsilon) = 1 - e^{(\varepsilon - a)/2},

    0 beyond.  Its loss has atoms at +-sensitivity/scale; a grid whose spacing divides
    sensitivity/scale keeps the top atom exactly on the optimistic side.  The loss is ``|a + Z| -
    |Z|`` under P (Z standard Laplace, a = sensitivity/scale), so by the triangle inequality the PLD
    of the computed a (within u a of the true ratio, one division) lies within ``|a - a_true| <= u
    a`` of the true one, outcome by outcome: charged as ``GridPMF.loss_shift`` (with any move of an
    atom onto a grid point), a few ulps of a in eps.  One symmetric direction.

    Parameters
    ----------
    scale : float
        Scale b of the Laplace noise, b > 0, in the units of ``sensitivity``.
    sensitivity : float, optional
        Distance between the two locations, > 0 (default 1).
    value_discretization_interval : float, optional
        Spacing h of the loss grid, 0 < h <= 100 (default 1e-4); smaller is tighter and slower.

    Returns
    -------
    PrivacyLossDistribution
        One direction with certified pessimistic and optimistic PMFs.

    Raises
    ------
    ValueError
        If scale or sensitivity is not finite and > 0, ``value_discretization_interval`` outside (0,
        100], or the grid would need more than 2**26 cells.
    ParameterTypeError
        If an argument is a string, a boolean, None or an array (each argument is one number).

    References
    ----------
    Paper 002, Lemma 1.

    Examples
    --------
    >>> import hockeystick.pld as pld
    >>> round(pld.laplace(1.0).delta(0.5), 6)
    0.221199
    """
    b = _positive("scale", scale)
    dist = _positive("sensitivity", sensitivity)
    h = checked_interval(value_discretization_interval)
    division = math.nextafter(UNIT_ROUNDOFF * (dist / b), math.inf)
    try:
        raw = _core.pld_mechanisms.laplace(dist, b, h=h, max_cells=MAX_CELLS)
    except ValueError as error:
        if "max_cells" not in str(error):
            raise
        raise ValueError(
            f"value_discretization_interval={h:g} with scale / sensitivity = {b / dist:g} would need more "
            f"than {MAX_CELLS} loss cells (the loss spans 2 sensitivity / scale): use a coarser "
            "value_discretization_interval, or a larger scale"
        ) from None
    f = _factor(f"laplace(scale={b}, sensitivity={dist})", raw, division)
    return PrivacyLossDistribution([{f: 1}])


def from_distributions(
    p: ArrayLike,
    q: ArrayLike,
    *,
    value_discretization_interval: float = DEFAULT_INTERVAL,
    symmetric: bool = False,
    exact_zeros: bool = True,
) -> PrivacyLossDistribution:
    """Discretized PLD of the pair (P, Q) of two distributions on one finite outcome set.

    The losses are log(p_i / q_i), each outcome an atom of P-mass p_i; delta(eps) = sum_i
    (p_i - e^eps q_i)_+ is bracketed by the two sides up to the grid.

    Losses log(p/q) are placed exactly by their cell integrals; their round-off (at most 4u (``|log
    p| + |log q|``) + 32u each) is charged as a shift of the curve (``atom_loss_shift``). An outcome
    with a Q-mass below 2^-1022 or a P-mass below ``grid_mass_floor(h)`` (~2^-1000: below it the
    grid's cell arithmetic goes subnormal) has no relative round-off bound, so each side gets its
    own atoms (``_near_underflow_atoms``, the rule ``finite_atoms.pair_atoms`` shares): the
    pessimistic side P-mass p_hi at log p_hi - log q_lo, the optimistic side p_lo at log p_lo - log
    q_hi, moved outward past their round-off; the P-masses below the floor are pooled, on the
    pessimistic side into max(their sum, the floor) at the top of their losses (+infinity where a
    Q-mass may be 0), on the optimistic side into their sum at the least of their losses, or dropped
    where that sum is below the floor.  A mass given as exactly 0 is exact (``exact_zeros=True``,
    the default: a structural zero, e.g. the (eps, delta) pair's): an outcome with q = 0 < p sits at
    +infinity on both sides (p at least the floor; a smaller p is pooled as above: kept at +infinity
    its compositions erred by 2^-1075 absolute).  Callers whose masses are COMPUTED and may have
    underflowed to 0 pass ``exact_zeros=False`` (``pld.discrete_laplace``,
    ``pld.poisson_subsampled``, ``pld.randomized_response``): such a zero of q then puts the P-mass
    at +infinity on the pessimistic side (q_lo = 0) and at a finite loss ~log p + 741 on the
    optimistic side (the grid spans that far). Unless ``symmetric``, the pair (q, p) is kept as a
    second direction and the worse one is reported.

    Parameters
    ----------
    p : array_like
        Masses of P, finite, >= 0, summing to 1 within 1e-9 (flattened).
    q : array_like
        Masses of Q on the same outcomes, same shape and rules as ``p``.
    value_discretization_interval : float, optional
        Spacing h of the loss grid, 0 < h <= 100 (default 1e-4).
    symmetric : bool, optional
        If True, (P, Q) is the only direction (the caller knows (Q, P) has the same profile);
        default False keeps (Q, P) as a second direction.
    exact_zeros : bool, optional
        If True (default), a mass given as 0 is exact (an outcome with q = 0 < p has loss +infinity
        on both sides); False for computed masses that may have underflowed to 0.

    Returns
    -------
    PrivacyLossDistribution
        One direction if ``symmetric``, else two: (P, Q) and (Q, P).

    Raises
    ------
    ValueError
        If ``p`` and ``q`` differ in shape, a mass is negative or not finite, either does not sum to
        1 within 1e-9, or ``value_discretization_interval`` outside (0, 100].
    ParameterTypeError
        If ``p`` or ``q`` is a string, a boolean or None.

    Examples
    --------
    >>> import hockeystick.pld as pld
    >>> d = pld.from_distributions([0.75, 0.25], [0.25, 0.75])
    >>> [round(x, 4) for x in d.delta(0.0, bound="both")]
    [0.5, 0.5]
    """
    pa = _validation.as_real_array(p, "p").ravel()
    qa = _validation.as_real_array(q, "q").ravel()
    if pa.shape != qa.shape:
        raise ValueError(f"p and q must have one shape, got {pa.shape} and {qa.shape}")
    for name, arr in (("p", pa), ("q", qa)):
        if not np.all(np.isfinite(arr)) or np.any(arr < 0):
            raise ValueError(f"{name} must be finite and non-negative")
        if abs(arr.sum() - 1.0) > 1e-9:
            raise ValueError(f"{name} must sum to 1 (got {arr.sum()!r})")
    h = checked_interval(value_discretization_interval)
    forward = pair_factor(pa, qa, "from_distributions(p, q)", h, exact_zeros)
    if symmetric:
        return PrivacyLossDistribution([{forward: 1}])
    return PrivacyLossDistribution(
        [{forward: 1}, {pair_factor(qa, pa, "from_distributions(q, p)", h, exact_zeros): 1}]
    )


def pair_factor(
    a: np.ndarray, b: np.ndarray, label: str, h: float, exact_zeros: bool = True
) -> Factor:
    """Both sides of the pair (a, b) of masses on one finite outcome set (``from_distributions``
    without its checks that each sums to 1: callers pass masses moved outward by their error
    bound).  Where no outcome is near underflow both sides share one set of atoms and come from
    its cells at once; otherwise each side is formed from its own atoms alone (``pair_sides``)."""
    atoms = _pair_atoms(a, b, h, exact_zeros)
    if atoms.near is None:
        return _factor_of_atoms(label, atoms.loss, atoms.mass, atoms.shift, h)
    upper, _ = _atoms_side(*atoms.side(pessimistic=True), atoms.shift, h, pessimistic=True)
    lower, connect_dots = _atoms_side(
        *atoms.side(pessimistic=False), atoms.shift, h, pessimistic=False
    )
    return Factor(label, upper, lower, connect_dots)


def pair_sides(
    upper: tuple[np.ndarray, np.ndarray],
    lower: tuple[np.ndarray, np.ndarray],
    label: str,
    h: float,
) -> Factor:
    """The pessimistic side of the pair ``upper`` = (a, b) beside the optimistic side of the pair
    ``lower``, each the PMF ``pair_factor`` gives that pair on that side (the same doubles), the
    other side of each pair not formed.

    Parameters
    ----------
    upper : tuple of numpy.ndarray
        The masses (a, b) of the pair whose pessimistic side is kept (``pair_factor``'s rules,
        exact zeros exact).
    lower : tuple of numpy.ndarray
        The masses of the pair whose optimistic side is kept.
    label : str
        The factor's name.
    h : float
        The grid spacing.

    Returns
    -------
    Factor
        The two sides; ``connect_dots`` the optimistic side's.
    """
    up = _pair_atoms(upper[0], upper[1], h, True)
    low = _pair_atoms(lower[0], lower[1], h, True)
    up_pmf, _ = _atoms_side(*up.side(pessimistic=True), up.shift, h, pessimistic=True)
    low_pmf, connect_dots = _atoms_side(
        *low.side(pessimistic=False), low.shift, h, pessimistic=False
    )
    return Factor(label, up_pmf, low_pmf, connect_dots)


@dataclass(frozen=True)
class _PairAtoms:
    """The atoms of a pair of masses (a, b) as ``pair_factor`` places them: the outcomes of plain
    masses at losses log a - log b (P-mass a; ``shift`` their round-off, ``atom_loss_shift``) and,
    where some outcome is near underflow, each side's atoms of those (``_near_underflow_atoms``:
    pessimistic losses and masses, then optimistic ones; None: no such outcome)."""

    loss: np.ndarray
    mass: np.ndarray
    shift: float
    near: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None

    def side(self, pessimistic: bool) -> tuple[np.ndarray, np.ndarray]:
        """The losses and P-masses of one side: the plain atoms, then that side's near-underflow
        atoms."""
        if self.near is None:
            return self.loss, self.mass
        extra_loss, extra_mass = self.near[:2] if pessimistic else self.near[2:]
        return np.concatenate([self.loss, extra_loss]), np.concatenate([self.mass, extra_mass])


def _pair_atoms(a: np.ndarray, b: np.ndarray, h: float, exact_zeros: bool) -> _PairAtoms:
    """The atoms of the pair (a, b) on grid h (``_PairAtoms``; ``pair_factor``'s rules)."""
    keep = a > 0
    floor = grid_mass_floor(h)
    infinite = keep & (b == 0.0) & (a >= floor) if exact_zeros else np.zeros_like(keep)
    near = keep & ~infinite & ((a < floor) | (b < SMALLEST_NORMAL))
    plain = keep & ~near
    with np.errstate(divide="ignore"):  # exact zeros of b: loss +infinity
        log_a, log_b = np.log(a[plain]), np.log(b[plain])
    shift = atom_loss_shift(
        log_a, log_b, a[plain] == b[plain]
    )  # near-underflow atoms: moved outward, each side its own
    near_atoms = _near_underflow_atoms(a[near], b[near], floor) if near.any() else None
    return _PairAtoms(log_a - log_b, a[plain], shift, near_atoms)


def _factor_of_atoms(
    label: str, loss: np.ndarray, mass: np.ndarray, loss_shift: float, h: float
) -> Factor:
    """Both sides of the atoms (losses, P-masses) from one set of cells; the mass at +infinity
    (exact zeros of q) kept on the optimistic side (``_kept_infinite_mass``)."""
    f = _factor(
        label,
        _core.pld_mechanisms.atoms(
            np.ascontiguousarray(loss), np.ascontiguousarray(mass), h=h, max_cells=MAX_CELLS
        ),
        loss_shift,
    )
    if f.lower is None:
        return f
    lower = _kept_infinite_mass(f.lower, loss, mass)
    return f if lower is f.lower else Factor(label, f.upper, lower, f.connect_dots)


def _atoms_side(
    loss: np.ndarray, mass: np.ndarray, loss_shift: float, h: float, pessimistic: bool
) -> tuple[GridPMF, bool]:
    """One side of the atoms (losses, P-masses) and whether it is connect-the-dots: the PMF
    ``_factor_of_atoms`` gives on that side (the same cells, the same charges), the other side not
    formed."""
    raw = _core.pld_mechanisms.atoms_side(
        np.ascontiguousarray(loss),
        np.ascontiguousarray(mass),
        h=h,
        max_cells=MAX_CELLS,
        pessimistic=pessimistic,
    )
    cells_shift = float(raw.loss_shift)
    if cells_shift > 0.0:  # _factor's charge of the cells' own loss error
        loss_shift = math.nextafter(loss_shift + cells_shift, math.inf)
    pmf = GridPMF(
        int(raw.k_lo),
        float(raw.h),
        raw.p,
        float(raw.p_inf),
        0.0,
        pessimistic,
        loss_shift=loss_shift,
    )
    return (pmf if pessimistic else _kept_infinite_mass(pmf, loss, mass)), bool(raw.connect_dots)


def _kept_infinite_mass(lower: GridPMF, loss: np.ndarray, mass: np.ndarray) -> GridPMF:
    """The optimistic side ``lower`` with the atoms' mass at +infinity (exact zeros of q) kept
    there: the C++ optimistic side drops all mass above the grid (for continuous laws, a cut
    tail), but this mass is exact."""
    inf_mass = float(mass[np.isinf(loss)].sum())
    if inf_mass == 0.0:
        return lower
    return GridPMF(
        lower.k_lo,
        lower.h,
        lower.p,
        max(lower.p_inf, inf_mass),
        0.0,
        False,
        loss_shift=lower.loss_shift,
    )


def grid_mass_floor(h: float) -> float:
    """The least P-mass the grid's cell arithmetic takes at a finite loss at spacing h:
    max(2^-1000, 2^-1010 / min(h, 1)).

    pld/grid/cells.hpp's ``add_atom`` forms m (1 - e^-u) and m (e^{h-u} - 1) (u in (0, h]) and
    ``cell_mass`` divides their sum by e^h - 1 >= min(h, 1): a product below 2^-1022 errs by up to
    2^-1075 absolute, so the cell's P-mass (about m) by up to 3 2^-1075 / min(h, 1), and its scaled
    Q-mass by up to 2^-1074 / (e^h - 1) beside m e^-u: at most 3 2^-65 relative for m at this floor,
    far below the cells' own rounding of a few u (the pessimistic side carries any shortfall to
    +infinity, ``factor_view``; the optimistic side lowers each mass by a bound on its round-off,
    pld/grid/connect_dots.hpp's ``minorant_masses``).
    A normal mass below it (2^-1021 at h = 1e-4: a lower delta(0) above the truth) is
    handled as a subnormal one (``_near_underflow_atoms``)."""
    return max(WINDOW_FLOOR, 2.0**-1010 / min(h, 1.0))


def _near_underflow_atoms(
    p: np.ndarray, q: np.ndarray, floor: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per side, the atoms (losses, P-masses) of outcomes with a P-mass below ``floor``
    (``grid_mass_floor``) or a Q-mass below 2^-1022, by ``finite_atoms.split_near_underflow`` (the
    rule the atoms path applies; the pool raised to ``floor``), from the masses' certified ranges
    [p_lo, p_hi], [q_lo, q_hi] (``finite_atoms.mass_range``):
      pessimistic: p_hi at log p_hi - log q_lo + e for each P-mass at least ``floor`` (q_lo > 0); the
                   others pooled, max(sum p_hi, floor) at the top of their losses (+infinity where
                   some q_lo = 0): at most max(sum p_hi, ``floor``) above their contribution, once per pair,
      optimistic:  p_lo at log p_lo - log q_hi - e for each p_lo at least ``floor``; the others'
                   sum p_lo at the least of their losses where it is at least ``floor``, else none,
    e = 4u (|log p| + |log q|) + 32u the computed difference's round-off (as ``pair_atoms`` charges
    it). delta(eps) = sum_j p_j (1 - e^{eps - l_j})_+ grows with every p_j and l_j, so these bracket
    the outcomes' contribution whatever their true masses in those ranges.  No P-mass below
    ``floor`` enters the grid: its cell arithmetic (pld/grid/cells.hpp's ``add_atom``) charges
    relative round-off only, and a subnormal product errs by up to 2^-1075 absolute (a P-mass of
    1e-310 on the grid would put a lower delta(0) 4.7e-318 above the truth, and upper sides below
    it)."""
    split = split_near_underflow(list(zip(p.tolist(), q.tolist())), floor, floor)
    up_loss = [_loss_outward(pi, qi, up=True) for pi, qi in split.up_kept]
    up_mass = [pi for pi, _ in split.up_kept]
    if split.up_pool > 0.0:
        up_loss.append(
            math.inf
            if split.up_infinite
            else max(_loss_outward(pi, qi, up=True) for pi, qi in split.up_pooled)
        )
        up_mass.append(split.up_pool)
    low_loss = [_loss_outward(pi, qi, up=False) for pi, qi in split.low_kept]
    low_mass = [pi for pi, _ in split.low_kept]
    if split.low_pool > 0.0:
        low_loss.append(min(_loss_outward(pi, qi, up=False) for pi, qi in split.low_pooled))
        low_mass.append(split.low_pool)
    return (
        np.array(up_loss, dtype=np.float64),
        np.array(up_mass, dtype=np.float64),
        np.array(low_loss, dtype=np.float64),
        np.array(low_mass, dtype=np.float64),
    )


def _loss_outward(p: float, q: float, up: bool) -> float:
    """log p - log q moved outward (up or down) past its round-off, 4u (|log p| + |log q|) + 32u
    (and an ulp for the final addition)."""
    lp, lq = math.log(p), math.log(q)
    err = loss_round_off(lp, lq)
    return (
        math.nextafter(lp - lq + err, math.inf) if up else math.nextafter(lp - lq - err, -math.inf)
    )


@dataclass(frozen=True)
class Laplace(Mechanism):
    """Laplace noise of ``scale`` on a sensitivity-1 query: P = Lap(1, scale) vs Q = Lap(0, scale),
    one symmetric direction (paper 002, Lemma 1; ``laplace``).  Its loss has atoms at +-1/scale
    (``loss_atoms``). Group of c (replace-one): the shift c, i.e. scale / c rounded down
    (``group_of_records``)."""

    name: ClassVar[str] = "laplace"
    dp_event: ClassVar[str] = "dp_accounting.dp_event.LaplaceDpEvent"
    dp_event_field: ClassVar[str] = "noise_multiplier"
    scale: float

    @classmethod
    def from_dp_event(cls, event: Any, relation: str) -> Laplace | NonPrivateRun:
        """One ``LaplaceDpEvent(noise_multiplier=b)``: shift 1 under add/remove and replace-special,
        2 under replace-one (the scale halved, exact in binary; log-concave noise, so the largest
        shift's pair dominates: ``group_of_records``); b = 0 is non-private."""
        from ...base.event_fields import check_reach, noise
        from ...base.event_refusal import NonPrivateRun  # off the first answer's import path

        b = noise(event, "noise_multiplier")
        if b == 0:
            return NonPrivateRun(cls.name)
        shift = 2.0 if relation == "replace_one" else 1.0
        check_reach(event, "noise_multiplier", shift / b)
        return cls(b / 2.0 if relation == "replace_one" else b)

    @classmethod
    def rdp_of_dp_event(cls, event: Any, relation: str, orders: np.ndarray) -> np.ndarray:
        """Add/remove and replace-special only: the exact Laplace curve (Mironov 2017, Prop. 6;
        ``rdp.laplace``); past ``MAX_NOISE``, alpha / (2 b^2) ((1/b)-DP implies (1/b)^2/2-zCDP, Bun &
        Steinke 2016, Prop. 1.4), where the exact formula's terms underflow."""
        from ...base.event_fields import event_field_at_least_zero, require_relation
        from ...base.parameter_range import MAX_NOISE
        from ...rdp.laplace import laplace_rdp
        from .neighbouring import relations_bounded

        require_relation(
            event, relation, relations_bounded("add_or_remove_one"), "`LaplaceDpEvent`"
        )
        b = event_field_at_least_zero(event, "noise_multiplier")
        if b == 0:
            return np.full(np.shape(orders), np.inf)
        if b > MAX_NOISE:
            return np.asarray(orders) * (0.5 / b) / b
        return laplace_rdp(b, orders)

    def loss_reach(self) -> float:
        """1 / scale: the Laplace loss lies in [-1/scale, 1/scale]."""
        return 1.0 / self.scale

    def group_loss_reach(self, c: float) -> float:
        """c / scale (c copies move the query by c)."""
        return c / self.scale

    def largest_losses(self) -> LargestLosses:
        """1 / scale both ways, attained with positive probability past the shift (exact: the
        reciprocal of a double as a rational)."""
        from fractions import Fraction

        from .largest_loss import both_ways

        return both_ways(1 / Fraction(self.scale))

    def poisson_sampled(self, q: float) -> Mechanism | None:
        """Its Poisson sample: the Laplace location mixture of shifts 0 and 1 with weights 1 - q and
        q (Zhu, Dong & Wang 2022, Thm 11; ``pld.mechanisms.laplace_mixture``)."""
        from .registry import mechanism_of

        sampled: Mechanism = mechanism_of(("laplace_mixture", self.scale, (0.0, 1.0), (1.0 - q, q)))
        return sampled

    @classmethod
    def from_stage(cls, **parameters: Any) -> Laplace | None:
        """A ``laplace`` stage of sensitivity 1 (its default) is ``Laplace(scale)``: ``grid_pld``
        is that stage's constructor."""
        if set(parameters) - {"scale", "sensitivity"} or parameters.get("sensitivity", 1.0) != 1.0:
            return None
        return cls(parameters["scale"]) if "scale" in parameters else None

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return laplace(self.scale, value_discretization_interval=h)

    def loss_atoms(self) -> list[float]:
        return [1.0 / self.scale]

    def group(self, c: int) -> Mechanism | None:
        return Laplace(float(np.nextafter(self.scale / c, 0.0)))


@dataclass(frozen=True)
class Gaussian(Mechanism):
    """Gaussian noise ``sigma`` on a query moved by ``shift``: P = N(shift, sigma^2) vs Q = N(0,
    sigma^2), one symmetric direction, exactly theta_eps(shift / sigma) (``gaussian``).  A plan
    folds it into its closed form (``gaussian_radius``: the radii's squares add, Dong, Roth & Su
    2022, Cor. 3.3) rather than composing its grid PLD."""

    name: ClassVar[str] = "gaussian"
    dp_event: ClassVar[str] = "dp_accounting.dp_event.GaussianDpEvent"
    dp_event_field: ClassVar[str] = "noise_multiplier"
    sigma: float
    shift: float = 1.0

    @classmethod
    def from_dp_event(cls, event: Any, relation: str) -> Gaussian | NonPrivateRun:
        """One ``GaussianDpEvent(noise_multiplier=sigma)``: shift 1 under add/remove and
        replace-special, 2 under replace-one (the replaced record's two contributions, each of norm
        at most the sensitivity); sigma = 0 is non-private."""
        from ...base.event_fields import noise
        from ...base.event_refusal import NonPrivateRun  # off the first answer's import path

        sigma = noise(event, "noise_multiplier")
        if sigma == 0:
            return NonPrivateRun(cls.name)
        return cls(sigma, 2.0 if relation == "replace_one" else 1.0)

    @classmethod
    def rdp_of_dp_event(cls, event: Any, relation: str, orders: np.ndarray) -> np.ndarray:
        """alpha shift^2 / (2 sigma^2) (Mironov 2017, Prop. 7), shift 2 under replace-one; sigma
        >= 0 with +inf allowed (infinite noise releases nothing: the zero curve, as dp_accounting's
        RdpAccountant)."""
        from ...base.event_fields import event_field_at_least_zero
        from ...rdp import gaussian_rdp

        sigma = event_field_at_least_zero(event, "noise_multiplier")
        if sigma == 0:
            return np.full(np.shape(orders), np.inf)
        if sigma == math.inf:
            return np.zeros(np.shape(orders))
        return gaussian_rdp(sigma / (2.0 if relation == "replace_one" else 1.0), orders)

    @classmethod
    def from_stage(cls, **parameters: Any) -> Gaussian | None:
        """A ``gaussian`` stage: ``Gaussian(sigma, sensitivity)`` (``grid_pld`` is that stage's
        constructor, the query moved by the sensitivity); its factors name it already, as
        ``subsampled_gaussian`` at rate 1 names them."""
        given = dict(parameters)
        shift = given.pop("sensitivity", 1.0)
        return cls(given["sigma"], shift) if set(given) == {"sigma"} else None

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return gaussian(self.sigma, sensitivity=self.shift, value_discretization_interval=h)

    def gaussian_radius(self) -> float | None:
        """shift / sigma: the plan adds its square to the closed form's."""
        return self.shift / self.sigma

    def loss_reach(self) -> float:
        """``gaussian_reach(shift / sigma)``: the loss N(r^2/2, r^2) has mass below 1e-300 past it."""
        from ...base.parameter_range import gaussian_reach

        return gaussian_reach(self.shift / self.sigma)

    def group_loss_reach(self, c: float) -> float:
        """``gaussian_reach`` of c times the radius (c copies move the query by c shifts)."""
        from ...base.parameter_range import gaussian_reach

        return gaussian_reach(c * self.shift / self.sigma)

    def poisson_sampled(self, q: float) -> Mechanism | None:
        """Its Poisson sample: the subsampled Gaussian of noise sigma / shift (Zhu, Dong & Wang 2022,
        Thm 11; ``subsampled_gaussian``)."""
        return PoissonGaussian(self.sigma / self.shift, q)


@dataclass(frozen=True)
class PoissonGaussian(Mechanism):
    """The Poisson-subsampled Gaussian, noise ``sigma``, rate ``q``: remove P = (1-q) N(0,
    sigma^2) + q N(1, sigma^2) vs Q = N(0, sigma^2), add the pair swapped (Zhu, Dong, Wang 2022, Thm 11;
    ``subsampled_gaussian``)."""

    name: ClassVar[str] = "poisson_gaussian"
    sigma: float
    q: float

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return subsampled_gaussian(self.sigma, self.q, value_discretization_interval=h)


def _batch_stage(parameters: dict[str, Any]) -> tuple[Any, Any, Any] | None:
    """(sigma, batch_size, n) of a fixed-size batch stage's parameters at sensitivity 1 and the
    default tail, else None."""
    given = dict(parameters)
    n = given.pop("n", None)
    if given.pop("sensitivity", 1.0) != 1.0 or n is None or set(given) != {"sigma", "batch_size"}:
        return None
    return given["sigma"], given["batch_size"], n


@dataclass(frozen=True)
class WithoutReplacementGaussian(Mechanism):
    """Batches of ``m`` of ``n`` records drawn without replacement, Gaussian noise ``sigma``,
    replace-one: delta(eps) <= q theta(2 / sigma, log(1 + (e^eps - 1) / q)), q = m / n (Balle,
    Barthe & Gaboardi 2018, Thm 2, advanced joint convexity), attained by a realizable pair
    (``fixed_size_subsampled_gaussian``)."""

    name: ClassVar[str] = "without_replacement_gaussian"
    stage_name: ClassVar[str | None] = "fixed_size_subsampled_gaussian"
    sigma: float
    m: int
    n: int

    @classmethod
    def from_stage(cls, **parameters: Any) -> WithoutReplacementGaussian | None:
        """A ``fixed_size_subsampled_gaussian`` stage of sensitivity 1 (its default):
        ``WithoutReplacementGaussian(sigma, batch_size, n)`` (``grid_pld`` is that stage's
        constructor)."""
        fields = _batch_stage(parameters)
        return None if fields is None else cls(*fields)

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return fixed_size_subsampled_gaussian(
            self.sigma, self.m, self.n, value_discretization_interval=h
        )
