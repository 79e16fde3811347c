"""The default of an accountant given neither a grid nor an ``accuracy``: the grid, the tail and the
accuracy come from the question (the delta asked, the rounds, the sampling rate).

The fixed grid of ``DEFAULT_INTERVAL`` (1e-4, dp_accounting's) answers where it meets the default
tolerance: its bracket is kept as it is.  Where it cannot (``fixed_grid_fits``: a delta below
``DELTA_FLOOR``, where the round-off charges of its window dominate; a sampling rate below the grid,
where its optimistic side is blind and its pessimistic side rounds the loss of every round up a
cell; tails cut from T rounds that would add up to more than ``TAIL_SHARE`` of delta; a composition
whose grid variance the connect-the-dots model puts past the tolerance), or where its bracket is
wider than the tolerance, the point is refined (``points.Refinement``) to half of
max(``DEFAULT_ACCURACY``, ``DEFAULT_RELATIVE_ACCURACY`` eps) with the tail ``question_tail``, and
the two brackets, each certified, are intersected.  Where the refined bracket is still wider than
the tolerance at a delta the round-off charges may limit (below ~1e3 T u: every plain PLD bound
carries ~T 1e-16 of the total mass), it is intersected with the bracket read under an exponential
tilt (``tilted_question``: the same rounds, their round-off relative to a Chernoff bound), and its
upper side then lowered to the RDP conversion's (``rdp_upper``) where that is smaller. Last, every
bracket not yet exact (``exact``: narrower than ``EXACT_RELATIVE`` of its upper side) is intersected
with the tilted read on ``FINE_INTERVAL``, half the peers' default grid, with tails of
``TILTED_TAIL_SHARE``: the peers' default is the estimate of that grid without charges, which a
certified upper side on the same grid cannot be below.

The tolerance, max(1e-3, 0.025 % eps), puts the certified upper side within that of the true
epsilon; refined to half of it, below dp_accounting's default PLD (a pessimistic estimate on the
1e-4 grid, uncertified), whose excess over the true epsilon is of the tolerance's order (for 14 100
steps of sigma 1.1 at q = 256/60 000 and delta = 1e-10 it is 3.74138; refined to the whole
tolerance, the upper side 3.74141 was above it); the fine read then takes the bracket to [3.74099,
3.74104]. A bracket still wider than ``READABLE_ACCURACY`` / ``READABLE_RELATIVE_ACCURACY``
(max(1e-2, 1e-2 eps)) after the refinement warns, naming ``accuracy=``.
"""

from __future__ import annotations

import warnings

import numpy as np

from ... import _core
from ...base.warning_site import outside_stacklevel
from ..compose.fft import DEFAULT_TAIL
from ..mechanisms.constructors import DEFAULT_INTERVAL
from .bracket_width import epsilon_tolerance, within_epsilon_tolerance
from .grid_start import Point, grid_policy
from .unmet import AccuracyNotMetWarning

# the default's epsilon tolerance: max(DEFAULT_ACCURACY, DEFAULT_RELATIVE_ACCURACY eps) (the core's,
# which its rare participation delta reads take too)
DEFAULT_ACCURACY: float = _core.pld_refine.default_accuracy
DEFAULT_RELATIVE_ACCURACY: float = _core.pld_refine.default_relative_accuracy
# the refinement's target where the fixed grid does not answer: half the tolerance.  dp_accounting's
# default PLD (uncertified, pessimistic on the 1e-4 grid) exceeds the true epsilon by an amount of
# the tolerance's order, so an upper side refined only to the tolerance can land above it (14 100
# steps of sigma 1.1 at q = 256/60 000 and delta 1e-10: 3.74141 against its 3.74138, the true
# epsilon in [3.7405, 3.7413]); at half, 3.74135
REFINED_ACCURACY = DEFAULT_ACCURACY / 2
REFINED_RELATIVE_ACCURACY = DEFAULT_RELATIVE_ACCURACY / 2
# a default bracket wider than max(READABLE_ACCURACY, READABLE_RELATIVE_ACCURACY eps) warns, naming
# accuracy=
READABLE_ACCURACY = 1e-2
READABLE_RELATIVE_ACCURACY = 1e-2
# the mass the tails cut from T rounds may send to +infinity: at most this share of the delta asked
TAIL_SHARE = 1e-3
# the same share for the tilted reads (``tilted_question``, ``tilted_factors``), whose upper sides
# are otherwise tight enough for the cut mass to show: it moves epsilon by about share / |d log
# delta / d eps| (at q = 0.5, 5 rounds, delta = 1e-10, 2.4e-4 at 1e-3 and 1e-8 at 1e-7, against the
# peers' tails of ~1e-22), and a smaller tail costs only a few more points (the loss's tails are
# Gaussian)
TILTED_TAIL_SHARE = 1e-10
# the smallest tail a discretization takes (``refine.truncation``)
SMALLEST_TAIL = 1e-300
# the grid of the default's last read, under a tilt (the core's fine epsilon read, fine_epsilon.hpp,
# ``tilted_factors``): half the peers' default grid.  dp_accounting's default is the pessimistic
# connect-the-dots estimate on DEFAULT_INTERVAL, uncertified; a certified upper side on that grid
# carries charges (round-off, tails) on top of the same discretization, so it cannot be below it (14
# 100 steps of sigma 1.1 at q = 256/60 000: 4.5e-6 above at delta = 1e-5, 1.5e-4 at 1e-6).  On half
# the grid the discretization's excess (of order T h^2) falls about fourfold while the tilted read's
# charges stay relative to its Chernoff bound: 6.7e-5 below at 1e-5.
FINE_INTERVAL = DEFAULT_INTERVAL / 2
# rare participation (a sampling rate at most RARE_FINE_RATE, the core's, which the C library's
# epsilon call reads too): a fine read's bracket within the tolerance but wider than half of it has
# its upper side read again on a quarter of FINE_INTERVAL, or half of it where those windows pass
# the core's cap (fine_epsilon.hpp's ``fine_rare_pending``, ``TiltedReader::rare_upper``).  Over many
# rounds of a rate far below the grid every round's rounding adds up (the discretization inflates
# the loss variance by ~T q h), so on FINE_INTERVAL a certified upper side can stay above the peers'
# estimate on the grid twice coarser: sigma 0.5, q 1e-5, 10^6 rounds, delta 1e-8 reads 2.159259 on
# 5e-5 against dp_accounting's 2.159087 on 1e-4, and 2.158789 on 2.5e-5; sigma 0.5, q 1e-4, 10^6
# rounds, delta 1e-8 reads 6.377582 on 5e-5, 6.377131 on 2.5e-5 and 6.377003 on 1.25e-5 (the
# aligned cells' lower side, the core's aligned_lower.hpp, reads on these grids too)
RARE_FINE_RATE = float(_core.pld_refine.tilt_rare_rate)
# a bracket narrower than this share of its upper side fixes epsilon to seven significant digits: no
# finer read is made (and an upper side within it of a peer's estimate is no looser to the digits
# anyone reads); the core's kExactRelative, which the C library's epsilon call reads too
EXACT_RELATIVE = float(_core.pld_refine.exact_relative)
# the RDP conversion's epsilon is rounded up by this (relative) for the round-off of its float sums
# (the core's kRdpCapMargin, pld/refine/rdp_cap.hpp)
RDP_MARGIN = float(_core.pld_refine.rdp_cap_margin)


def question_tail(rounds: float, delta: float, share: float = TAIL_SHARE) -> float:
    """The tail cut from each round's loss: ``DEFAULT_TAIL``, or less where T rounds' cuts (at most
    T tail at +infinity on the upper side) would pass ``share`` delta, at least
    ``SMALLEST_TAIL``."""
    return float(min(DEFAULT_TAIL, max(SMALLEST_TAIL, share * delta / rounds)))


def plain_grid_misses(
    q: float, rounds: float, delta: np.ndarray, tail: float, h: float
) -> np.ndarray:
    """Where the plain composition of T = ``rounds`` rounds at rate ``q`` on grid ``h`` with ``tail``
    cut cannot answer at the scale ``delta``, element by element, however fine ``h`` is (module
    docstring): ``delta`` below ``DELTA_FLOOR`` (the window's round-off charges and the mass sent to
    infinity reach it), the ``tail`` of T rounds above ``TAIL_SHARE`` of it, or q below the grid (the
    remove direction's one-round loss spans less than a cell): the core's rule
    (cpp/include/hockeystick/pld/refine/fixed_grid.hpp), which the C library reads too.

    Parameters
    ----------
    q : float
        The sampling rate.
    rounds : float
        The rounds T.
    delta : numpy.ndarray
        The scale of each element's question: the delta asked of epsilon, a delta bound of delta.
    tail : float
        The tail each round's discretization cut.
    h : float
        The grid.

    Returns
    -------
    numpy.ndarray of bool
        True where the composition on ``h`` alone cannot answer.
    """
    return np.asarray(
        _core.pld_refine.plain_grid_misses(
            q=float(q), rounds=float(rounds), delta=delta, tail=float(tail), h=float(h)
        )
    )


def fixed_grid_fits(point: Point, delta: np.ndarray, tail: float = DEFAULT_TAIL) -> bool:
    """Whether the fixed grid ``DEFAULT_INTERVAL`` is tried first at ``point`` (sigma, q, rounds,
    sensitivity) for the deltas asked (module docstring): the composition on it answers at every
    delta (``plain_grid_misses``), and the grid is no coarser than the one the connect-the-dots
    model (``StartGrid.first``) asks of the default tolerance: the core's rule
    (cpp/include/hockeystick/pld/refine/fixed_grid.hpp), which the C library's epsilon call reads
    too."""
    sigma, q, rounds, sensitivity = point
    return bool(
        _core.pld_refine.fixed_grid_fits(
            sigma=sigma,
            q=q,
            rounds=float(rounds),
            sensitivity=sensitivity,
            delta=delta,
            tail=float(tail),
            h=DEFAULT_INTERVAL,
            policy=grid_policy(),
        )
    )


def within_tolerance(lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """True where the epsilon bracket [lower, upper] is within the default tolerance (an infinite
    upper side over a finite lower one never is, an exact bracket always)."""
    return within_epsilon_tolerance(lower, upper, DEFAULT_ACCURACY, DEFAULT_RELATIVE_ACCURACY)


def default_tolerance(eps: float) -> float:
    """The default tolerance at epsilon ``eps``: max(``DEFAULT_ACCURACY``, ``DEFAULT_RELATIVE_ACCURACY`` eps)."""
    return float(epsilon_tolerance(DEFAULT_ACCURACY, DEFAULT_RELATIVE_ACCURACY, np.array(eps)))


def exact(lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """True where the bracket [lower, upper] (of epsilon or of delta) is at most ``EXACT_RELATIVE``
    of its upper side wide."""
    return np.asarray(upper - lower <= EXACT_RELATIVE * np.abs(upper))


def within_readable(lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """True where the epsilon bracket [lower, upper] is at most max(``READABLE_ACCURACY``,
    ``READABLE_RELATIVE_ACCURACY`` eps) wide (an infinite upper side over a finite lower one never
    is, an exact bracket always)."""
    return within_epsilon_tolerance(lower, upper, READABLE_ACCURACY, READABLE_RELATIVE_ACCURACY)


def warn_unreadable(lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """True where a default epsilon bracket is wider than max(``READABLE_ACCURACY``,
    ``READABLE_RELATIVE_ACCURACY`` eps) or unbounded; where any is, one ``AccuracyNotMetWarning``
    that names ``accuracy=``."""
    wide = ~within_readable(lower, upper)
    count = int(np.count_nonzero(wide))
    if count:
        warnings.warn(
            f"{count} of {wide.size} epsilon brackets are wider than max(0.01, 0.01 x epsilon) on the default grid "
            "(certified, only wider): pass accuracy= (e.g. accuracy=1e-3) for a bracket refined to that width, "
            "or a smaller tail= where the upper side is inf",
            AccuracyNotMetWarning,
            stacklevel=outside_stacklevel(),  # the user's line that asked
        )
    return wide


def rdp_upper(point: Point, delta: np.ndarray) -> np.ndarray:
    """The RDP conversion's certified upper epsilon at ``delta`` of ``point``'s T rounds (Mironov,
    Talwar & Zhang 2019, the subsampled Gaussian's RDP at dp_accounting's default orders, its
    fractional series' rest bounded; Balle et al. 2020, Thm. 21, the conversion), rounded up by
    ``RDP_MARGIN`` relative for the round-off of its sums: an upper bound beside the PLD's, taken
    where the PLD's upper side stays wider than the tolerance (at delta below the PLD's round-off
    charges, ~T 1e-16).  The core's (cpp/include/hockeystick/pld/refine/rdp_cap.hpp), which the C
    library's epsilon call reads too.

    Parameters
    ----------
    point : (float, float, float, float)
        (sigma, sampling rate, rounds, sensitivity).
    delta : numpy.ndarray
        The deltas, each in (0, 1), of any shape.

    Returns
    -------
    numpy.ndarray
        The certified upper epsilon at each delta, of ``delta``'s shape; inf where no order
        certifies it.

    Raises
    ------
    ValueError
        If a delta lies outside (0, 1) or the point outside the RDP side's domain.
    """
    sigma, q, rounds, sensitivity = point
    asked = np.asarray(delta, dtype=np.float64)
    eps = _core.pld_refine.subsampled_gaussian_rdp_epsilon(
        sigma=sigma / sensitivity,
        sampling_rate=q,
        rounds=rounds,
        delta=np.ascontiguousarray(asked.ravel()),
    )
    return np.asarray(eps, dtype=np.float64).reshape(asked.shape)


def tail_of(points: list[Point], xs: list[np.ndarray]) -> float:
    """One tail for a batch of refined points: the least ``question_tail`` among them."""
    tails = [question_tail(p[2], float(np.min(x))) for p, x in zip(points, xs) if x.size]
    return min(tails) if tails else DEFAULT_TAIL
