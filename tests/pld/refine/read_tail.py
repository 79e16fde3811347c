"""The tests' front ends over the core's window tail of a tilted upper epsilon read, from the point's
own composition alone, and the checks that a read of a window cut at it did not owe its value to the
cut (``_core.pld_reads``, cpp/include/hockeystick/pld/reads/tilted_read_tail.hpp, whose comment
states the estimates and their reasons; the core's TiltedReader::cut_read reads by them).

A tilted composition cut at a window tail t (``compose.tilted.compose_tilted``'s ``tail``) moves at
most t of the tilted mass above its window to +infinity, and a read at eps charges that mass at the
untilt factor of the window's top.  ``read_tail`` takes the largest power of ten t in
[``DEFAULT_TAIL``, ``READ_TAIL``] whose charge, estimated by the saddle-point approximation at the
Chernoff tilt of delta (``saddle_looseness``: Lugannani and Rice, Adv. Appl. Prob. 12, 1980, to
first order), stays below 1e-13 of delta.  Every tail is certified (the cut mass is charged), and
the estimate reads the point alone (its one round's PMF on the grid, T and delta), so a point's
answer is the same whichever points are asked with it.  Where a few rare large rounds make the loss
the estimate is far too low: a read then checks the cut mass's charge and what the mass above the
window wraps onto it (``wrapped_mass``) against ``CUT_CHECK_SHARE`` and ``WRAP_CHECK_SHARE`` of
delta (``cut_charge_too_large``) and is made again on the uncut window where they pass.
"""

from __future__ import annotations

import numpy as np

from hockeystick import _core
from hockeystick.pld.grid.pmf import GridPMF

# the largest window tail taken (the core's kReadTail)
READ_TAIL: float = _core.pld_reads.READ_TAIL
# the cut mass's charge at the answer, as a share of delta, past which the read is made again on the
# uncut window (the core's kCutCheckShare)
CUT_CHECK_SHARE: float = _core.pld_reads.CUT_CHECK_SHARE
# ``wrapped_mass``'s bound at the answer, as a share of delta, past which the read is made again on
# the uncut window (the core's kWrapCheckShare)
WRAP_CHECK_SHARE: float = _core.pld_reads.WRAP_CHECK_SHARE
# the tilts tried for ``wrapped_mass``'s bound, as multiples of the window's (the core's wrap_rung)
WRAP_LAMBDAS: np.ndarray = _core.pld_reads.wrap_lambdas()


def saddle_looseness(pmf: GridPMF, rounds: float, lam: float) -> tuple[float, float]:
    """The saddle-point estimate lam (lam + 1) sqrt(2 pi K''(lam)) of the Chernoff bound's looseness
    of ``rounds`` rounds of ``pmf`` at the tilt ``lam``, and the tilted loss's standard deviation
    sqrt(K''(lam)) (the core's ``saddle_looseness``).

    Parameters
    ----------
    pmf : GridPMF
        One round's PMF (its finite masses).
    rounds : float
        The rounds T.
    lam : float
        The tilt.

    Returns
    -------
    tuple of float
        (looseness, spread); (inf, 0) where K'' is not finite and positive.
    """
    looseness, spread = _core.pld_reads.saddle_looseness(
        pmf.p, k_lo=pmf.k_lo, h=pmf.h, rounds=float(rounds), lam=float(lam)
    )
    return float(looseness), float(spread)


def read_tail(pmf: GridPMF, rounds: float, lam: float) -> float:
    """The window tail of an upper read of ``rounds`` rounds of ``pmf`` (module docstring; the
    core's ``read_tail``).

    Parameters
    ----------
    pmf : GridPMF
        One round's pessimistic PMF (its finite masses).
    rounds : float
        The rounds T.
    lam : float
        The Chernoff tilt of the delta asked.

    Returns
    -------
    float
        A power of ten in [``DEFAULT_TAIL``, ``READ_TAIL``]; ``DEFAULT_TAIL`` where none meets the
        estimate's budget or there is no estimate.
    """
    return float(
        _core.pld_reads.tilted_read_tail(
            pmf.p, k_lo=pmf.k_lo, h=pmf.h, rounds=float(rounds), lam=float(lam)
        )
    )


def wrapped_mass(
    pmf: GridPMF, rounds: float, theta: float, x: float, length: int, enough: float = 0.0
) -> float:
    """A bound on what the mass above a tilted window adds to a read at grid loss ``x`` by wrapping
    around the circular convolution of ``length`` points under the tilt ``theta`` per grid step:
    e^{K(lam) - lam x - (lam h - theta) length} (Chernoff; K the summed log-moment of ``rounds``
    rounds of ``pmf``), the least over ``WRAP_LAMBDAS`` times theta / h, at most 1; where the least
    over the ladder's first tilts is at most ``enough``, that one (the core's ``wrapped_mass``).
    Certified either way: folded mass only adds on the pessimistic side.

    Parameters
    ----------
    pmf : GridPMF
        One round's pessimistic PMF.
    rounds : float
        The rounds T.
    theta : float
        The window's tilt per grid step.
    x : float
        The grid loss read.
    length : int
        The circular convolution's points.
    enough : float
        A bound at most this ends the search early.

    Returns
    -------
    float
        The bound, in (0, 1].
    """
    return float(
        _core.pld_reads.wrapped_mass(
            pmf.p,
            k_lo=pmf.k_lo,
            h=pmf.h,
            rounds=float(rounds),
            theta=float(theta),
            x=float(x),
            length=int(length),
            enough=float(enough),
        )
    )


def cut_charge_too_large(charge: float, wrapped: float, delta: float) -> bool:
    """Whether a cut window's ``charge`` at the answer passes ``CUT_CHECK_SHARE`` of ``delta``, or
    its ``wrapped_mass`` there ``WRAP_CHECK_SHARE`` of it (the core's ``cut_charge_too_large``).

    Parameters
    ----------
    charge : float
        The cut mass at the untilt factor of the window's top, or of the answer where above it.
    wrapped : float
        ``wrapped_mass`` at the answer.
    delta : float
        The delta read.

    Returns
    -------
    bool
        True where the read is made again on the uncut window.
    """
    return bool(_core.pld_reads.cut_charge_too_large(float(charge), float(wrapped), float(delta)))


def delta_tilt(pmf: GridPMF, rounds: float, delta: float) -> float:
    """The lam minimizing (K(lam) + log(1 / delta)) / lam, the Chernoff epsilon's tilt at ``delta``
    of ``rounds`` copies of ``pmf``: the read tail's tilt (the core's ``delta_tilt``)."""
    return _core.pld_refine.delta_tilt([(pmf, int(rounds))], delta=delta)


def exponent_tilt(pmf: GridPMF, rounds: float, eps: float) -> float:
    """The lam maximizing lam eps - K(lam), the Chernoff exponent's tilt at ``eps`` of ``rounds``
    copies of ``pmf`` (the core's ``exponent_tilt``, its ``round_tilt``)."""
    return _core.pld_refine.exponent_tilt([(pmf, int(rounds))], eps=eps)
