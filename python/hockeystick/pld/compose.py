"""Composition of grid PMFs by one FFT per distinct factor, a pointwise power, one inverse FFT.

The losses of independent rounds add, so the composed PLD is the convolution of
the per-round PMFs (pessimistic with pessimistic, optimistic with optimistic;
composition preserves both orders, by Blackwell's theorem for the
connect-the-dots pairs and by coupling for rounded ones).  The finite parts
convolve; the mass at +infinity composes as 1 - prod (1 - p_inf)^count.

Window.  The full support of a T-fold composition is T times wider than one
round, so the output is cut to [b, a] where Chernoff bounds on the composed
finite part (computed exactly from the discretized PMFs),
    mass{S >= a} <= exp(K(lam) - lam a),   mass{S <= b} <= exp(K(-lam) + lam b),
    K(lam) = sum_i count_i log sum_k p_ik e^{lam l_ik},
are at most ``tail`` each.  The FFT length M >= window length is a fast size
(``fft_length``); circular convolution then folds the outside mass (<= the two
bounds) into the M points, of which the window is kept.  Pessimistic side: the
mass above the window is charged to +infinity, and so is the mass below it when
M > window (it may fold above the window; folded into it, it only adds).
Optimistic side: both bounds are subtracted.

Round-off.  Every FFT output is a linear form with unit-modulus weights, so its
absolute error is <= 8 u ceil(log2 M) times the l1 norm of the input (u the unit
round-off; 8 per stage is generous).  With delta_i that bound for factor i, the
spectrum error obeys |dY_k| <= prod (|X_ik| + delta_i)^c_i - prod |X_ik|^c_i
plus the rounding of the power taken in polar form, and the total error of
the output entries is <= ||dY||_2 (Parseval) plus the inverse FFT's own error.
Per grid entry the error is at most (1/M) sum_k |dY_k| plus the inverse
transform's own; delta(eps) is charged that bound times the number n of grid
points above eps, capped by the Parseval total and by the Cauchy-Schwarz bound
||dY||_2 sqrt(n / M) + n times the inverse transform's own error per entry
(``GridPMF``), added on the pessimistic side and subtracted twice on the
optimistic side (negative entries are clipped to zero).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import scipy.fft

from .. import _core
from .pmf import UNIT_ROUNDOFF, GridPMF

DEFAULT_TAIL = 1e-15
# Chernoff exponents tried, as multiples of the Gaussian-approximation optimum z / s
# (z = sqrt(2 log(1/tail)), s the composed standard deviation): any lam gives a valid
# bound; the best lies near 1 for near-Gaussian sums and far below it for heavy upper tails.
# exp(x) is exactly 0 in double precision for every x below this.
_LOG_UNDERFLOW = -746.0
_LAMBDA_FACTORS = np.concatenate([np.logspace(-4, -0.5, 8), [0.5, 0.7, 1.0, 1.4, 2.0]])


def _chernoff_edges(factors: Sequence[tuple[GridPMF, int]], tail: float) -> tuple[float, float]:
    """Losses (b, a) with composed finite mass below b and above a each <= tail."""
    var = sum(count * _core.pld_loss_variance(pmf.p, pmf.h) for pmf, count in factors)
    z = math.sqrt(2.0 * math.log(1.0 / tail))
    lams = _LAMBDA_FACTORS * z / math.sqrt(max(var, 1e-300))
    log_tail = math.log(tail)
    both = np.concatenate([lams, -lams])  # one pass over each PMF for both tails
    k_both = sum(count * pmf.log_mgf(both) for pmf, count in factors)
    k_plus, k_minus = k_both[:lams.size], k_both[lams.size:]
    top = float(np.min((k_plus - log_tail) / lams))       # mass{S >= a} <= e^{K(lam) - lam a}
    bottom = float(np.max((log_tail - k_minus) / lams))   # mass{S <= b} <= e^{K(-lam) + lam b}
    return bottom, top


Factors = Sequence[tuple[GridPMF, int]]
# FFT lengths 2^a f: 5-smooth (fast), at most 12.5 % apart, so a sweep's items fall on few
# lengths and share 2-d transforms, while each item's length depends on itself alone (its
# result does not depend on what it is batched with).  One batch holds at most
# _GROUP_CELLS doubles per array (64 MB).
_LENGTH_STEPS = (1.0, 9 / 8, 5 / 4, 45 / 32, 3 / 2, 27 / 16, 15 / 8, 2.0)
_GROUP_CELLS = 1 << 23


def fft_length(width: int) -> int:
    """The FFT length used for a composition window of ``width`` grid points."""
    if width <= 64:
        return scipy.fft.next_fast_len(width, real=True)
    base = 1 << (width.bit_length() - 1)  # 2^a <= width < 2^(a+1), a >= 6
    return next(int(base * f) for f in _LENGTH_STEPS if base * f >= width)


@dataclass(frozen=True)
class _Window:
    """Where one composition's output lives: grid indices a..b, and what the cut costs."""

    factors: list[tuple[GridPMF, int]]
    h: float
    lo_full: int
    a_idx: int
    width: int
    p_inf: float
    charge_above: float
    charge_below: float


def _window(factors: Factors, tail: float, max_points: int) -> _Window:
    factors = [(pmf, int(count)) for pmf, count in factors if count > 0]
    if not factors:
        raise ValueError("compose needs at least one factor with a positive count")
    h = factors[0][0].h
    if any(pmf.h != h for pmf, _ in factors):
        raise ValueError("all factors must share one value_discretization_interval")
    log_finite = sum(c * math.log1p(-pmf.p_inf) if pmf.p_inf < 1 else -math.inf for pmf, c in factors)
    p_inf = -math.expm1(log_finite)
    lo_full = sum(c * pmf.k_lo for pmf, c in factors)
    hi_full = sum(c * (pmf.k_lo + pmf.p.size - 1) for pmf, c in factors)
    charge_above = charge_below = 0.0
    a_idx, b_idx = lo_full, hi_full
    if hi_full - lo_full + 1 > 4096:
        bottom, top = _chernoff_edges(factors, tail)
        if math.ceil(top / h) < hi_full:
            b_idx, charge_above = math.ceil(top / h), tail
        if math.floor(bottom / h) > lo_full:
            a_idx, charge_below = math.floor(bottom / h), tail
    width = b_idx - a_idx + 1
    if width > max_points:
        raise ValueError(f"the composed loss window needs {width} grid points (max_points={max_points}); "
                         "use a coarser value_discretization_interval")
    return _Window(factors, h, lo_full, a_idx, width, p_inf, charge_above, charge_below)


def compose(factors: Factors, *, pessimistic: bool, tail: float = DEFAULT_TAIL,
            max_points: int = 1 << 27, workers: int | None = None) -> GridPMF:
    """The PMF of the sum of ``count`` independent copies of each factor (all on one grid)."""
    return compose_many([factors], pessimistic=pessimistic, tail=tail, max_points=max_points, workers=workers)[0]


def compose_many(items: Sequence[Factors], *, pessimistic: bool, tail: float = DEFAULT_TAIL,
                 max_points: int = 1 << 27, workers: int | None = None) -> list[GridPMF]:
    """``compose`` of each item; items of one FFT length (``fft_length``) share one 2-d transform.

    A sweep composes many small PLDs: one row-wise ``rfft``/``irfft`` per group (threads
    over rows with ``workers``, -1 by default for a group of several rows) and array
    operations over the whole group replace one round of Python calls per item.  Each
    item's result is bit-for-bit the same whether composed alone or in a batch.
    """
    out: list[GridPMF | None] = [None] * len(items)
    # One factor once is its own composition: no transform, no truncation, no round-off charge.
    todo = []
    for i, f in enumerate(items):
        live = [(pmf, int(count)) for pmf, count in f if count > 0]
        if len(live) == 1 and live[0][1] == 1 and live[0][0].pessimistic == pessimistic:
            out[i] = live[0][0]
        else:
            todo.append(i)
    windows = {i: _window(items[i], tail, max_points) for i in todo}
    lengths = {i: fft_length(w.width) for i, w in windows.items()}
    for m in sorted(set(lengths.values())):
        group: list[int] = []
        rows = 0
        for i in [j for j, mj in lengths.items() if mj == m] + [-1]:
            if group and (i < 0 or (rows + len(windows[i].factors)) * m > _GROUP_CELLS):
                for j, pmf in zip(group, _compose_group([windows[j] for j in group], m, pessimistic, workers)):
                    out[j] = pmf
                group, rows = [], 0
            if i >= 0:
                group.append(i)
                rows += len(windows[i].factors)
    return out


def _compose_group(windows: list[_Window], m: int, pessimistic: bool, workers: int | None) -> list[GridPMF]:
    """Composes the items of one group on a common FFT length m (>= every window)."""
    stages = max(1, math.ceil(math.log2(m)))
    fft_err = 8.0 * UNIT_ROUNDOFF * stages
    rows = [(pmf, count) for w in windows for pmf, count in w.factors]
    first_row = np.cumsum([0] + [len(w.factors) for w in windows])
    n_factors = np.diff(first_row)
    signal = np.zeros((len(rows), m))
    for r, (pmf, _) in enumerate(rows):
        if pmf.p.size > m:
            signal[r] = np.bincount(np.arange(pmf.p.size) % m, weights=pmf.p, minlength=m)
        else:
            signal[r, :pmf.p.size] = pmf.p
    if workers is None and len(rows) > 1:
        workers = -1
    spec = scipy.fft.rfft(signal, axis=1, workers=workers)
    del signal
    mod = np.abs(spec)
    count = np.array([c for _, c in rows], dtype=np.float64)
    err = fft_err * np.array([pmf.finite_mass for pmf, _ in rows])
    # Where even the perturbed power sum_i c_i log(|X_i| + delta_i) is below -746, its exp
    # underflows to 0, and so do the power, its error bound and the spectrum entry: only the
    # other ("live") frequencies need logarithms, phases and exponentials.  After many rounds
    # they are a narrow low-frequency band (|X_k|^T decays like exp(-T var w_k^2 / 2)).
    # Prefilter without logarithms: |X_j| <= 1, so the other factors add at most
    # c_j log1p(delta_j); a bin can be live only if each factor alone clears the bound less
    # that headroom (plus 1 for rounding).
    headroom = np.add.reduceat(count * np.log1p(err), first_row[:-1]) + 1.0
    item_of_row = np.repeat(np.arange(len(windows)), n_factors)
    floor = np.exp((_LOG_UNDERFLOW - headroom[item_of_row]) / count)
    candidate = mod > (floor - err)[:, None]
    if len(rows) > len(windows):  # some item has several factors: a bin must clear every one
        candidate = np.logical_and.reduceat(candidate, first_row[:-1], axis=0)
    flat = np.flatnonzero(candidate)
    bins = mod.shape[1]
    item, k = flat // bins, flat % bins
    log_mod = np.zeros(flat.size)       # sum c log|X|
    log_mod_pert = np.zeros(flat.size)  # sum c log(|X| + delta)
    phase = np.zeros(flat.size)
    power_rel_err = np.zeros(flat.size)
    for f in range(int(n_factors.max())):
        has = np.flatnonzero(n_factors[item] > f)
        r = first_row[item[has]] + f
        mod_c = mod[r, k[has]]
        with np.errstate(divide="ignore"):
            lm = np.log(mod_c)
        log_mod[has] += count[r] * lm
        log_mod_pert[has] += count[r] * np.log(mod_c + err[r])
        phase[has] += count[r] * np.angle(spec[r, k[has]])
        power_rel_err[has] += count[r] * (np.abs(np.where(np.isfinite(lm), lm, 0.0)) + math.pi + 2.0)
    del spec, mod
    keep = log_mod_pert > _LOG_UNDERFLOW
    item, log_mod, log_mod_pert = item[keep], log_mod[keep], log_mod_pert[keep]
    modulus = np.exp(log_mod)
    spectrum = np.zeros((len(windows), bins), dtype=np.complex128)
    spectrum.flat[flat[keep]] = modulus * np.exp(1j * np.mod(phase[keep], 2 * math.pi))
    d_spec = (np.exp(log_mod_pert) - modulus) + modulus * (2.0 * UNIT_ROUNDOFF * power_rel_err[keep])
    out = scipy.fft.irfft(spectrum, n=m, axis=1, workers=workers)
    del spectrum
    spec_l1 = 2.0 * np.bincount(item, weights=modulus, minlength=len(windows))
    # Per entry: (1/M) sum_k |dY_k| + the inverse transform's own error (fft_err ||Y||_1 / M);
    # the first part has Euclidean norm <= ||dY||_2 / sqrt(M) (Parseval), so in total <= ||dY||_2.
    inverse = fft_err * spec_l1 / m
    entry = 2.0 * np.bincount(item, weights=d_spec, minlength=len(windows)) / m + inverse
    spec_err_l2 = np.sqrt(2.0 * np.bincount(item, weights=np.square(d_spec), minlength=len(windows)))
    total = spec_err_l2 + fft_err * spec_l1
    norm = spec_err_l2 / math.sqrt(m)
    result = []
    for i, w in enumerate(windows):
        # Only the window a..b is kept: above b lies true mass above b (charged to +infinity
        # already) and, when m exceeds the window, mass from below a wrapped around (charged now).
        start = (w.a_idx - w.lo_full) % m  # where grid index a landed in the circular output
        wrap = max(start + w.width - m, 0)
        p = np.concatenate([out[i, start:start + w.width], out[i, :wrap]])
        np.maximum(p, 0.0, out=p)
        if pessimistic:
            wrapped = w.charge_below if m > w.width else 0.0
            result.append(GridPMF(w.a_idx, w.h, p, min(1.0, w.p_inf + w.charge_above + wrapped), 0.0, True,
                                  float(entry[i]), float(total[i]), float(norm[i]), float(inverse[i])))
        else:
            result.append(GridPMF(w.a_idx, w.h, p, w.p_inf, -(w.charge_above + w.charge_below), False,
                                  float(entry[i]), float(total[i]), float(norm[i]), float(inverse[i])))
    return result
