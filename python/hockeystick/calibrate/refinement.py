"""The refinement: a bracket (a value meeting the target, one failing it) narrowed to its final
width, evaluated through the search's ``log_excess``; its ends and their log excess updated in
place.  Integers by interpolated bisection to adjacent values, continuous parameters by
Chandrupatla's root finder (scipy), or from a start near the answer by secant steps that step across
the bound's noisy root (``settle``)."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from .search_range import INTEGER_SPAN

_NOISE_BAND = 1e-8  # settle steps across once the secant root is within this (or rtol) of its probe
_WALK = 4  # ... by 0.99 rtol this many times, then once past the secant root


class Bracketed(Protocol):
    """What the refinement reads of a search: its log excess at trial values, the log excess at each
    target's feasible end, and the relative width an integer search stops at."""

    fgood: np.ndarray
    integer_rtol: float

    def log_excess(self, x: np.ndarray, idx: np.ndarray) -> np.ndarray: ...


def bisect_integers(
    pb: Bracketed, good: np.ndarray, bad: np.ndarray, fbad: np.ndarray, idx: np.ndarray
) -> None:
    """Adjacent integers good / bad.  While the two are far apart, each step interpolates the root
    of log delta - log target linearly in log x (nearly linear for rounds) and probes two integers
    strictly inside the bracket, 1 % of its log width either side of the estimate, so both ends
    move in and the bracket shrinks ~50x per step;
    within 64 of each other, the two integers either side of the interpolated root (adjacent
    integers in one step where the bound is smooth); where the interpolation has nothing to go
    on, or for a point whose last step did not halve its bracket's log width (a bound flat or
    stepped in x), plain bisection."""
    last_width = np.full(good.size, np.inf)
    while idx.size:
        g, b = good[idx], bad[idx]
        done = (
            (np.abs(b - g) <= np.maximum(1.0, pb.integer_rtol * np.minimum(g, b)))
            | (np.floor((g + b) / 2) == g)
            | (np.floor((g + b) / 2) == b)
        )
        idx, g, b = idx[~done], g[~done], b[~done]
        if not idx.size:
            break
        fg, fb = pb.fgood[idx], fbad[idx]
        lo, hi = np.minimum(g, b), np.maximum(g, b)
        width = np.log(hi) - np.log(np.maximum(lo, 0.5))
        guided = (
            (hi < INTEGER_SPAN)
            & np.isfinite(fg)
            & np.isfinite(fb)
            & (fg < 0)
            & (fb > 0)
            & (lo > 0)
            & (width <= 0.5 * last_width[idx])
        )
        last_width[idx] = width
        mid = np.floor((g + b) / 2)
        probes_x, probes_i = [mid[~guided]], [idx[~guided]]
        if np.any(guided):
            ug, ub = np.log(g[guided]), np.log(b[guided])
            root = ug + (ub - ug) * (fg[guided] / (fg[guided] - fb[guided]))
            inside_lo, inside_hi = lo[guided] + 1, hi[guided] - 1
            far = hi[guided] - lo[guided] > 64
            half = 0.01 * np.abs(ub - ug)
            # far apart: 1 % of the log width either side; near: the two integers around the root
            below = np.where(far, np.round(np.exp(root - half)), np.floor(np.exp(root)))
            above = np.where(far, np.round(np.exp(root + half)), np.floor(np.exp(root)) + 1)
            below, above = (
                np.clip(below, inside_lo, inside_hi),
                np.clip(above, inside_lo, inside_hi),
            )
            two = above != below
            probes_x += [below, above[two]]
            probes_i += [idx[guided], idx[guided][two]]
        x, where = np.concatenate(probes_x), np.concatenate(probes_i)
        f = pb.log_excess(x, where)
        for xi, i, fi in zip(
            x, where, f
        ):  # probes are strictly inside: a feasible one is nearer bad
            if fi <= 0:
                if abs(bad[i] - xi) < abs(bad[i] - good[i]):
                    good[i], pb.fgood[i] = xi, fi
            elif abs(good[i] - xi) < abs(good[i] - bad[i]):
                bad[i], fbad[i] = xi, fi


def settle(
    pb: Bracketed, good: np.ndarray, bad: np.ndarray, fbad: np.ndarray, idx: np.ndarray, rtol: float
) -> None:
    """The refinement from a start near the answer (a coarser grid's extrapolation): secant steps on
    log delta - log target against log x, then steps of ``rtol`` across.

    Near its root the bound is noisy (the composed PMF's charged round-off: log delta jumps by ~3e-8
    where sigma moves by 1e-10, against a slope of ~20), so within ~1e-9 of the root the sign is a
    coin toss and a secant (or Chandrupatla's interpolation) only jumps about in that band, each
    jump one more evaluation.  So once the secant puts the root within ``_NOISE_BAND`` (1e-8 in log
    x; or rtol, if wider) of the latest probe, the next probe steps across from that probe: 0.99
    rtol (so that a sign change there closes the bracket), and after every ``_WALK`` such steps
    without one (the root may be farther than noise: a systematic offset) once 0.45 rtol past the
    secant root.  Away from the root, a secant step that did not halve the bracket is followed by
    the midpoint.  Every probe lies at least min(0.49 rtol, a quarter of the bracket) inside it, so
    the bracket shrinks every step and the search ends (a target whose probe rounds onto an end of
    its bracket, an rtol below the spacing of doubles, ends there).  Ends are values evaluated, as
    ``refine`` keeps them.
    """
    n = good.size
    latest = np.where(np.abs(pb.fgood) <= np.abs(fbad), good, bad)  # the probe to step across from
    tries = np.zeros(n, dtype=int)
    last_width = np.full(n, np.inf)
    exhausted = np.zeros(n, dtype=bool)  # no double lies strictly inside the bracket any more
    while idx.size:
        ug, ub = np.log(good[idx]), np.log(bad[idx])
        width = np.abs(ub - ug)
        open_ = (width > rtol) & ~exhausted[idx]
        idx, ug, ub, width = idx[open_], ug[open_], ub[open_], width[open_]
        if not idx.size:
            break
        fg, fb = pb.fgood[idx], fbad[idx]
        secant = ug + (ub - ug) * (fg / (fg - fb))
        start = np.log(latest[idx])
        other = np.where(start == ug, ub, ug)
        across = np.abs(secant - start) <= max(rtol, _NOISE_BAND)
        stalled = width > 0.5 * last_width[idx]
        walk = tries[idx] % (_WALK + 1) < _WALK
        step = np.where(
            walk, 0.99 * rtol, np.maximum(0.99 * rtol, np.abs(secant - start) + 0.45 * rtol)
        )
        probe = np.where(
            across,
            start + np.sign(other - start) * step,
            np.where(stalled & ~across, 0.5 * (ug + ub), secant),
        )
        lo, hi = np.minimum(ug, ub), np.maximum(ug, ub)
        margin = np.minimum(0.49 * rtol, 0.25 * width)
        probe = np.clip(probe, lo + margin, hi - margin)
        tries[idx] = np.where(across, tries[idx] + 1, 0)
        last_width[idx] = np.where(across, last_width[idx], width)
        x = np.exp(probe)
        # an rtol below the doubles' spacing: the probe rounds onto an end, and the bracket is final
        inside = (x != good[idx]) & (x != bad[idx])
        exhausted[idx[~inside]] = True
        idx, x = idx[inside], x[inside]
        if not idx.size:
            break
        f = pb.log_excess(x, idx)
        ok = f <= 0
        good[idx[ok]], pb.fgood[idx[ok]] = x[ok], f[ok]
        bad[idx[~ok]], fbad[idx[~ok]] = x[~ok], f[~ok]
        latest[idx] = x


def refine(
    pb: Bracketed, good: np.ndarray, bad: np.ndarray, fbad: np.ndarray, idx: np.ndarray, rtol: float
) -> None:
    """Chandrupatla's bracketing root finder (scipy) on log delta - log target vs log x.

    Its first two calls ask for f at the bracket's ends, which the bracketing evaluated already
    (``pb.fgood``, ``fbad``): they are answered from those values (each a full accountant call
    saved).  An end the finder never moved is returned as the
    value evaluated there, not exp(log x) (which may differ in the last bit).  Where rtol is below
    ``STALL_MARGIN`` spacings of the doubles at the ends, the finder stops once no open bracket has a
    double strictly inside, where its last bracket is final (``_stop_when_no_double_inside``).
    """
    from scipy.optimize.elementwise import (
        find_root,
    )  # lazy: start-up time (scipy.optimize is heavy)

    if not idx.size:
        return
    lg, lb = np.log(good[idx]), np.log(bad[idx])
    left = lg < lb
    init = (np.where(left, lg, lb), np.where(left, lb, lg))
    known: list[tuple[np.ndarray, np.ndarray]] = [
        (init[0], np.where(left, pb.fgood[idx], fbad[idx])),
        (init[1], np.where(left, fbad[idx], pb.fgood[idx])),
    ]

    def f(u: np.ndarray, where: np.ndarray) -> np.ndarray:
        for k, (ends, values) in enumerate(known):  # an initial end, asked for on every open point
            if np.shape(u) == ends.shape and np.array_equal(u, ends):
                del known[k]
                return values
        return pb.log_excess(np.exp(u), where.astype(np.intp))

    # The stop at adjacent doubles can matter only where xatol is below (a margin times) the spacing
    # of doubles at the ends, the largest in the brackets: elsewhere the finder meets xatol first.
    # A callback makes scipy build a result object at every step (about a fifth of a calibration's
    # CPU at rtol 1e-6), so it is passed only there.
    spacing = float(np.max(np.spacing(np.maximum(np.abs(init[0]), np.abs(init[1])))))
    res = find_root(
        f,
        init,
        args=(idx.astype(float),),
        tolerances=dict(xatol=rtol, xrtol=0.0, fatol=0.0, frtol=0.0),
        callback=_stop_when_no_double_inside if rtol < STALL_MARGIN * spacing else None,
    )
    # the final bracket has one feasible end (f < 0) and one infeasible end: keep the feasible one
    (ul, ur), (fl, _) = res.bracket, res.f_bracket
    feasible, infeasible = np.where(fl < 0, ul, ur), np.where(fl < 0, ur, ul)
    good[idx] = np.where(feasible == lg, good[idx], np.exp(feasible))
    bad[idx] = np.where(infeasible == lb, bad[idx], np.exp(infeasible))


# rtol below STALL_MARGIN spacings of the doubles at the brackets' ends: the finder may reach adjacent
# doubles before xatol, and is stopped there (``_stop_when_no_double_inside``)
STALL_MARGIN = 64.0


def _stop_when_no_double_inside(res: Any) -> None:
    """Chandrupatla's callback: StopIteration once every bracket still open (status 1) has no double
    strictly between its ends.  The finder's next point then rounds onto an end, f there is the
    value it had (the accountant is deterministic), and the bracket and its f values stay as they
    are through every later step up to ``maxiter`` (~2000 accountant calls at rtol 5e-324): stopping
    returns that same bracket."""
    lo, hi = res.bracket
    open_ = np.asarray(res.status) == 1
    lo, hi = np.minimum(lo, hi)[open_], np.maximum(lo, hi)[open_]
    if np.all(np.nextafter(lo, np.inf) >= hi):
        raise StopIteration
