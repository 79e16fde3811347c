"""Composition under an exponential tilt: the hockey-stick curve of a long composition read far out
in its tail with a round-off charge relative to the curve rather than to the total mass.

The FFT composition's round-off is bounded normwise (``fft``: an absolute error E of the order of u
times the composition depth, per unit of total mass), so no delta much below E can be read tightly
from it.  Convolution commutes with exponential tilting (Keich, "sFFT: a faster accurate computation
of the p-value of the entropy score", J. Comput. Biol. 12, 2005; Wilson & Keich, 2016): for a
factor's masses p_k at losses k h and any theta > 0, with an arbitrary positive normalizer M (near
sum_k p_k e^{theta k}, so the tilted masses sum to about 1),

    p~_k = p_k e^{theta k} / M,        P_T(K) = M^T e^{-theta K} P~_T(K)                      (1)

exactly, P_T and P~_T the T-fold compositions (several factors: the product of their M_i^{c_i}).
Composing p~ with the certified composition (``fft.compose``) and untilting by (1), an error e~_K of
the tilted window becomes M^T e^{-theta K} e~_K, so on

    delta(eps) = sum_{K h > eps} (1 - e^{eps - K h}) P_T(K) + p_inf

it adds at most M^T e^{-theta eps / h} times the tilted window's charge of a weighted sum of its
masses, the weights w_K = (1 - e^{eps - K h}) e^{-theta (K - eps / h)} in [0, 1] over K h > eps
(``ChargedGrid.charge_of_weighted_sum``, computed by the core: ``tilted_window_charge``,
cpp/include/hockeystick/pld/reads/tilted_charge.hpp): E times the Chernoff bound at theta, a
relative error.  The weights fall geometrically, so their sum (about 1 / (lam^2 h)) and Euclidean
norm (about 1 / (2 lam^1.5 h^0.5)) are far below the count of masses above eps and its square root
(``charge_at``'s, whose lesser charge is kept): with millions of points above eps and the normwise
(l2) spectral bound, the charge falls by the ratio of the norms (sigma 0.6, q 1e-5, 10^6 rounds,
delta 1e-10, lam 6.8 on h 2.5e-5: a norm ~6 against ~1900).  The tilted window's truncation is charged
the same way: the mass folded into the window from outside (the optimistic side's negative
``shift``) is a tilted mass at a loss above eps where it counts, so it adds at most M^T e^{-theta
eps / h} times itself; the pessimistic side's mass moved to +infinity lies above the window (at grid
losses from ``TiltedComposition.cut`` up), so it adds at most M^T e^{-theta max(eps, cut) / h} times
itself, or below it (folded above it by the circular convolution), where it adds nothing to a read.
The mass below the window is unknown after untilting (there e^{-theta K} is large), so a read is
valid only at eps at or above the window's lowest loss (``TiltedComposition.floor``); below it the
read is trivial (1 on the upper side, 0 on the lower).  The factors' mass at +infinity is not
tilted: it composes as 1 - prod (1 - p_inf,i)^{c_i}, added rounded outward (upper side) or inward
(lower side). The factors' discretization and truncation keep their meaning (the tilt changes only
how the composition of the same measures is computed), and so does their loss shift s: the curve is
read at eps - s (upper) or eps + s (lower), rounded outward (pld/grid/pmf.py's docstring).

Rounding outward.  The tilted masses e^{log p_k + theta k - log M} and the untilt factors e^{T log M
- theta K} are computed by the core (cpp/include/hockeystick/pld/compose/tilted_masses.hpp, the C
library's arithmetic too: ``_core.pld_reads.tilted_masses``, ``untilted_masses``, ``untilt_factor``)
in double with libm's exp and log: each exponent a sum of a few terms of at most a few rounding errors
each, and libm's exp and log within a few ulp (glibc's: 0.511 and 0.519 ulp), so the computed
exponential is within a relative 16 u (|theta k| + |log M| + 1) of the exact one (u = 2^-53), and the
masses are raised (upper side) or lowered (lower side) by twice that, a negative entry of the tilted
window clipped to 0 on the upper side (it only raises the sum) and untilted with the factor of the
other direction on the lower side; a tilted mass that underflows is raised to twice the least normal
double on the upper side (dropped on the lower).  The untilted entries' suffix sums carry
``suffix_sum_slack`` as any grid's; the products that may underflow are covered by an absolute
2^-1060 per entry.

The read (the untilted suffix sums from the floor up, each side's charges, the cut window's
Chernoff bound, the upper and lower epsilons' searches) is the core's, the C library's too:
``_core.pld_reads.TiltedComposition``, ``tilted_upper_epsilon`` and ``tilted_lower_epsilon``
(cpp/include/hockeystick/pld/reads/tilted.hpp, bound by cpp/bindings/register_pld_tilted_read.cpp).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import overload

import numpy as np

from ... import _core
from ..grid.pmf import GridPMF
from .fft import DEFAULT_TAIL, compose
from .log_moments import log_mgf_at

UNIT_ROUNDOFF = 2.0**-53
# the tilts per grid step (lam h) tried for the Chernoff bound on the mass above a window cut short
# (``summed_moments``): any is valid, the least bound is kept; the core's ladder
# (cpp/include/hockeystick/pld/grid/tilt_ladders.hpp), 97 geometric from 1e-6 to 5
ABOVE_LAMBDAS: np.ndarray = _core.pld_reads.above_lambdas()


def tilted_factor(pmf: GridPMF, theta: float) -> tuple[GridPMF, float]:
    """``pmf``'s finite masses tilted by e^{theta k} and normalized by M = e^{log_m} (the finite
    part's moment at lam = theta / h, ``log_mgf_at``: any positive M is valid), rounded outward
    on ``pmf``'s side by the core (``_core.pld_reads.tilted_masses``, module docstring), with no
    mass at +infinity and ``pmf``'s loss shift; and log_m."""
    if not np.all(pmf.p >= 0.0) or pmf.shift != 0.0 or pmf.total_error != 0.0:
        raise ValueError(
            "a tilted factor must be a discretized round: masses >= 0, no shift and no round-off charges "
            "(not a composed window)"
        )
    log_m = float(log_mgf_at(pmf, np.array([theta / pmf.h]))[0])
    if not math.isfinite(log_m):
        raise ValueError(
            f"the tilt theta = {theta!r} overflows the factor's moment: take a smaller tilt"
        )
    tilted = _core.pld_reads.tilted_masses(
        pmf.p, k_lo=int(pmf.k_lo), theta=float(theta), log_m=log_m, pessimistic=pmf.pessimistic
    )
    return GridPMF(
        pmf.k_lo, pmf.h, tilted, 0.0, 0.0, pmf.pessimistic, loss_shift=pmf.loss_shift
    ), log_m


def untilted_masses(
    tilted: np.ndarray,
    first: int,
    theta: float,
    log_scale: float,
    scale_magnitude: float,
    pessimistic: bool,
) -> np.ndarray:
    """The untilted masses of the tilted entries ``tilted`` at K = ``first``, ``first`` + 1, ...
    on one side, by the core (``_core.pld_reads.untilted_masses``, module docstring): the
    pessimistic side's max(p~_K, 0) e^{log_scale - theta K} (1 + m_K), the optimistic side's p~_K
    e^{log_scale - theta K} (1 -+ m_K), the margin lowering each entry (subtracted where p~_K >= 0,
    added where negative), m_K = 32 u (``scale_magnitude`` + |theta K| + 1).

    Parameters
    ----------
    tilted : numpy.ndarray
        The tilted window's entries (one-dimensional).
    first : int
        The grid index K of the first entry.
    theta : float
        The tilt per grid step.
    log_scale : float
        T log M, the sum of the factors' count x log M_i.
    scale_magnitude : float
        The sum of those terms' magnitudes (which bounds the rounding of their sum).
    pessimistic : bool
        The side: raised (True) or lowered (False).

    Returns
    -------
    numpy.ndarray
        The untilted masses, one per entry.
    """
    return _core.pld_reads.untilted_masses(
        np.ascontiguousarray(tilted, dtype=np.float64),
        first=int(first),
        theta=float(theta),
        log_scale=float(log_scale),
        scale_magnitude=float(scale_magnitude),
        pessimistic=bool(pessimistic),
    )


@overload
def tilted_weights(position: float, theta: float, h: float) -> tuple[float, float]: ...


@overload
def tilted_weights(
    position: np.ndarray, theta: float, h: float
) -> tuple[np.ndarray, np.ndarray]: ...


def tilted_weights(
    position: float | np.ndarray, theta: float, h: float
) -> tuple[float, float] | tuple[np.ndarray, np.ndarray]:
    """Upper bounds on the sum and the Euclidean norm of the weights w_j = (1 - e^{-h j}) e^{-theta j}
    over j = j0, j0 + 1, ... (j0 in (0, 1] the distance from ``position`` = x / h up to the first
    grid index above it): the weights the untilted curve at x puts on the tilted window's errors
    (module docstring), summed to infinity in closed form by the core
    (``_core.pld_reads.tilted_weights``, cpp/include/hockeystick/pld/reads/tilted_charge.hpp).

    With G(a) = sum_j e^{-a j} = e^{-a j0} / (1 - e^{-a}),

        sum w = G(theta) - G(theta + h),
        sum w^2 = G(2 theta) - 2 G(2 theta + h) + G(2 theta + 2 h),

    each G falling in j0, so its positive terms taken at a j0 lowered and its negative ones at a j0
    raised by j0's rounding (4 u (|position| + 1)), and the differences raised by 64 u of their
    terms' magnitudes (each term within a few u), the norm by 4 u for its square root: certified
    upper bounds on the exact sums.

    Parameters
    ----------
    position : float or numpy.ndarray
        The curve argument over the grid step, x / h (any shape).
    theta : float
        The tilt per grid step.
    h : float
        The grid step.

    Returns
    -------
    tuple
        (sum, norm), floats for a float ``position`` and arrays of its shape otherwise; (inf, inf)
        where ``position`` is not finite, ``theta`` or ``h`` is not > 0, or a difference is not
        positive (the terms cancel below their rounding), which leaves the plain charge.

    Raises
    ------
    TypeError
        If ``position`` is not numeric.
    """
    total, norm = _core.pld_reads.tilted_weights(position, theta=float(theta), h=float(h))
    if np.ndim(total) == 0:
        return float(total), float(norm)
    return total, norm


def composed_infinity(factors: Sequence[tuple[GridPMF, int]], pessimistic: bool) -> float:
    """1 - prod_i (1 - p_inf,i)^{c_i}, rounded up (``pessimistic``) or down by a relative 1e-12 (far
    above the few roundings of log1p, the products and expm1)."""
    log_kept = sum(count * math.log1p(-pmf.p_inf) for pmf, count in factors if pmf.p_inf > 0.0)
    mass = -math.expm1(log_kept)
    return min(1.0, mass * (1.0 + 1e-12)) if pessimistic else max(0.0, mass * (1.0 - 1e-12))


@dataclass(frozen=True)
class TiltedComposition:
    """The composition of ``factors`` computed under the tilt theta (module docstring): the tilted
    window ``window`` (a composed ``GridPMF`` with its charges), T log M (``log_scale``, the sum of
    count x log M_i, and ``scale_magnitude``, the sum of their magnitudes, which bounds the rounding
    of that sum), the factors' composed mass at +infinity (``p_inf``, rounded on the side) and the
    side."""

    window: GridPMF
    theta: float
    log_scale: float
    scale_magnitude: float
    p_inf: float
    pessimistic: bool
    # where not None (the pessimistic side composed with a window tail of its own,
    # ``compose_tilted``'s ``window_tail``): the tilts lam and the factors' summed log-moments
    # K(lam) (raised) of ``mass_above``'s Chernoff bound on the untilted composed mass above the
    # window, charged in place of the window's mass at +inf
    above: tuple[np.ndarray, np.ndarray] | None = None
    # where not None: no curve argument below this loss is read (``read_from``), so the untilted
    # suffix sums start at it rather than at the window's bottom; below it the read is trivial, as
    # below ``floor``
    least_read: float | None = None

    @property
    def h(self) -> float:
        return self.window.h

    @cached_property
    def _read(self) -> _core.pld_reads.TiltedComposition:
        """The core's read of this composition (``_core.pld_reads.TiltedComposition``,
        cpp/include/hockeystick/pld/reads/tilted.hpp): the untilted suffix sums from ``floor_index``
        up, built once."""
        return _core.pld_reads.TiltedComposition(
            self.window,
            theta=self.theta,
            log_scale=self.log_scale,
            scale_magnitude=self.scale_magnitude,
            p_inf=self.p_inf,
            pessimistic=self.pessimistic,
            above=self.above,
            least_read=self.least_read,
        )

    @property
    def floor_index(self) -> int:
        """The least grid index read: the least whose untilt factor e^{log_scale - theta K} stays
        below e^700 (the factors beyond are not formed), at least floor(``least_read`` / h) and the
        window's lowest (past the window's top where those pass it)."""
        return int(self._read.floor_index)

    def read_from(self, x: float) -> TiltedComposition:
        """The same composition read only at curve arguments at or above ``x`` (below, trivially: 1
        on the upper side, 0 on the lower): its suffix sums cover the window from x up, not from its
        bottom.  An epsilon search above a certified lower epsilon needs no more, and a window after
        many rounds reaches far below the answer (the README's DP-SGD run at delta 1e-10: 6.9e5
        points, the answer ~0.1 of the way up)."""
        return dataclasses.replace(self, least_read=float(x))

    @property
    def floor(self) -> float:
        """The least curve argument read (module docstring): the loss of ``floor_index``."""
        return float(self._read.floor)

    @property
    def window_floor_index(self) -> int:
        """``floor_index`` of the whole window (read from its bottom, whatever ``least_read``)."""
        return int(self._read.window_floor_index)

    @property
    def window_floor(self) -> float:
        """The loss of ``window_floor_index``: ``floor`` of the whole window."""
        return float(self._read.window_floor)

    @property
    def cut(self) -> float:
        """The least grid loss above the window (its mass there is cut: ``above``)."""
        return float(self._read.cut)

    @property
    def top(self) -> float:
        """A loss above every loss of the window (its last grid point's, one cell up, with the loss
        shift): above it only the mass at +infinity is left, so an epsilon search need not start
        higher."""
        return float(self._read.top)

    @property
    def slack(self) -> float:
        """The relative slack of the untilted suffix sums (``suffix_sum_slack`` of their count)."""
        return float(self._read.slack)

    def untilt_factor(self, x: float) -> float:
        """An upper bound on e^{log_scale - theta K} over grid losses K h >= x (x >= ``window_floor``);
        0 where theta x / h is infinite (x infinite, or x / h past the doubles): there, as wherever
        the factor underflows, its products are below the absolute 2^-1060 per entry a side adds."""
        return float(self._read.untilt_factor(float(x)))

    def side_at(self, x: float) -> float:
        """The certified delta on this side at the curve argument ``x`` (already moved by the loss
        shift): the untilted curve raised (lowered) by its slack and by the untilt factor at x times
        the tilted window's round-off charge at x (twice on the lower side) and its truncated
        masses, plus the mass at +infinity; trivial (1 or 0) below ``floor`` (the core's
        ``TiltedComposition.side_at``)."""
        return float(self._read.side_at(float(x), threads=1))

    def delta(self, eps: float) -> float:
        """The certified delta on this side at eps: ``side_at`` of eps moved by the loss shift s
        (eps - s rounded down on the upper side, eps + s rounded up on the lower one)."""
        return float(self._read.delta(float(eps), threads=1))

    def deltas(self, eps: np.ndarray) -> np.ndarray:
        """``delta`` at each of ``eps``, bit for bit, in one core call (which reads the arguments one
        by one, the interpreter lock released).

        Parameters
        ----------
        eps : numpy.ndarray
            The epsilons, any shape.

        Returns
        -------
        numpy.ndarray
            The certified deltas on this side, the shape of ``eps``.
        """
        return np.asarray(self._read.delta(np.asarray(eps, dtype=np.float64), threads=1))


def compose_tilted(
    factors: Sequence[tuple[GridPMF, int]],
    theta: float,
    *,
    pessimistic: bool,
    tail: float = DEFAULT_TAIL,
    direct_bins: bool = True,
    max_points: int | None = None,
    window_tail: float | None = None,
    workers: int | None = None,
) -> TiltedComposition:
    """The composition of ``factors`` (pairs (grid PMF, count) on one grid and side) computed under
    the tilt ``theta`` > 0 per grid step (lam = theta / h): each factor tilted (``tilted_factor``),
    composed by the certified composition (``fft.compose``, ``tail`` its window's, ``direct_bins``
    its accurate low-frequency bins, ``max_points`` its window's cap, ``workers`` its threads: None
    all cores), and read untilted (``TiltedComposition``).  Where that window passes ``max_points``
    and ``window_tail`` is given, the pessimistic side is composed again with a window whose tails
    are ``window_tail`` each, the mass above it charged by its own Chernoff bound at the read's eps
    or the window's top (``chernoff_above``) and the mass below it not at all (every read is at or
    above the window: ``floor``): many rounds of a heavy-tailed loss under a steep tilt span ~114 in
    loss at the default tail and ~42 at 1e-6 (sigma 0.6, q 1e-5, 10^6 rounds, delta 1e-10).  The
    bound is looser than the window's entries where a read falls above the cut (a gentle tilt's),
    hence only there.

    Raises
    ------
    ValueError
        If ``theta`` is not finite and > 0, a factor is on the other side, a factor's tilted moment
        overflows, or the window would pass ``max_points``.
    """
    if not (math.isfinite(theta) and theta > 0.0):
        raise ValueError(
            f"theta must be a finite number > 0 (the tilt per grid step), got {theta!r}"
        )
    if any(pmf.pessimistic != pessimistic for pmf, _ in factors):
        raise ValueError("every factor of a tilted composition must be on the side asked for")
    tilted, log_scale, magnitude = [], 0.0, 0.0
    for pmf, count in factors:
        t, log_m = tilted_factor(pmf, theta)
        tilted.append((t, int(count)))
        log_scale += int(count) * log_m
        magnitude += abs(int(count) * log_m)
    try:
        window = compose(
            tilted,
            pessimistic=pessimistic,
            tail=tail,
            max_points=max_points,
            workers=workers,
            direct_bins=direct_bins,
        )
    except (
        ValueError
    ):  # a window past max_points: the pessimistic side cut at window_tail, where given
        if window_tail is None or not pessimistic:
            raise
        window = compose(
            tilted,
            pessimistic=True,
            tail=window_tail,
            max_points=max_points,
            workers=workers,
            direct_bins=direct_bins,
        )
        return TiltedComposition(
            window,
            float(theta),
            log_scale,
            magnitude,
            composed_infinity(factors, True),
            True,
            summed_moments(factors),
        )
    return TiltedComposition(
        window,
        float(theta),
        log_scale,
        magnitude,
        composed_infinity(factors, pessimistic),
        pessimistic,
    )


def summed_moments(factors: Sequence[tuple[GridPMF, int]]) -> tuple[np.ndarray, np.ndarray]:
    """The tilts lam = ``ABOVE_LAMBDAS`` / h and K(lam) = sum_i c_i log sum_k p_ik e^{lam l_k} at
    each, from ``log_mgf_at`` (raised by its rounding: pld/grid/moments.hpp), summed and raised by
    the core (``_core.pld_reads.summed_log_moments``, pld/reads/cut_window_mass.hpp: (n + 4) u of
    the terms' magnitudes, inf where it overflows), as the C library's cut windows sum them."""
    lams = ABOVE_LAMBDAS / factors[0][0].h
    with np.errstate(over="ignore", invalid="ignore"):
        terms = np.array([int(count) * log_mgf_at(pmf, lams) for pmf, count in factors])
    return lams, _core.pld_reads.summed_log_moments(terms)


def chernoff_above(lams: np.ndarray, k: np.ndarray, x: float) -> float:
    """A certified upper bound on the composed finite mass at grid losses >= ``x`` (the factors'
    grid, before their loss shift): the least over the tilts of the Chernoff bound exp(K(lam) -
    lam x) (``summed_moments``), rounded up by the core (``_core.pld_reads.chernoff_above``,
    pld/reads/cut_window_mass.hpp); 1 where none is below 1."""
    return float(_core.pld_reads.chernoff_above(lams, k, x=float(x)))


def upper_epsilon(composition: TiltedComposition, delta: float, start: float) -> float:
    """A certified upper bound on epsilon(delta) in [0, ``start``] (past it where the window is cut
    short and ``start`` is at its top: ``above``, the window's span doubled at most 6 times): an eps
    whose certified upper delta was checked at most ``delta``, found by the bracketing search of
    ``atoms_epsilon.epsilon_search`` to the doubles' spacing (inf where not even ``start``
    qualifies), in the core (``_core.pld_reads.tilted_upper_epsilon``, pld/reads/tilted.hpp's
    upper_epsilon).

    Raises
    ------
    ValueError
        If ``composition`` is the optimistic side's, or ``start`` qualifies and is below 0.
    """
    return float(
        _core.pld_reads.tilted_upper_epsilon(
            composition._read, delta=float(delta), start=float(start)
        )
    )


def lower_epsilon(
    composition: TiltedComposition,
    delta: float,
    near: float,
    start: float = 0.0,
    points: int = 64,
    steps: int = 60,
) -> float:
    """A certified lower bound on epsilon(delta), at least ``start``: the largest eps found whose
    certified lower delta exceeds ``delta`` (delta falls with eps, so delta(e) > delta for every e
    below it), ``start`` where none is.  The lower side is no monotone curve: far below the tilt's
    centre the untilt factor times the charge exceeds the curve and the side is 0.  So the eps from
    ``near`` (an upper epsilon) down to the read's floor are tried at ``points`` even steps, from
    the top, and the first that qualifies is moved up by at most ``steps`` bisections towards the
    step above it (the window's top above the first), in the core
    (``_core.pld_reads.tilted_lower_epsilon``, pld/reads/tilted.hpp's lower_epsilon).

    Raises
    ------
    ValueError
        If ``composition`` is the pessimistic side's, or ``points`` is below 1.
    """
    return float(
        _core.pld_reads.tilted_lower_epsilon(
            composition._read,
            delta=float(delta),
            near=float(near),
            start=float(start),
            points=int(points),
            steps=int(steps),
        )
    )
