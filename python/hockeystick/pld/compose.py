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
are at most ``tail`` each.  The FFT length M >= window length is a fast size;
circular convolution then folds the outside mass (<= the two bounds) into the
window.  Pessimistic side: the mass above the window is charged to +infinity
(folded mass only adds).  Optimistic side: both bounds are subtracted.

Round-off.  Every FFT output is a linear form with unit-modulus weights, so its
absolute error is <= 8 u ceil(log2 M) times the l1 norm of the input (u the unit
round-off; 8 per stage is generous).  With delta_i that bound for factor i, the
spectrum error obeys |dY_k| <= prod (|X_ik| + delta_i)^c_i - prod |X_ik|^c_i
plus the rounding of the power taken in polar form, and the total error of
the output entries is <= ||dY||_2 (Parseval) plus the inverse FFT's own error.
Per grid entry the error is at most (1/M) sum_k |dY_k| plus the inverse
transform's own; delta(eps) is charged that bound times the number of grid
points above eps (capped by the Parseval total), added on the pessimistic
side and subtracted twice on the optimistic side (negative entries are
clipped to zero).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import scipy.fft

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
    mean = var = 0.0
    for pmf, count in factors:
        mass = pmf.finite_mass
        if mass <= 0:
            continue
        losses = pmf.losses
        # Elementwise products, not ``@``: a BLAS dot spawns threads, which costs ~15 ms on a busy box.
        m1 = float(np.sum(pmf.p * losses)) / mass
        m2 = float(np.sum(pmf.p * np.square(losses - m1))) / mass
        mean += count * m1
        var += count * m2
    z = math.sqrt(2.0 * math.log(1.0 / tail))
    lams = _LAMBDA_FACTORS * z / math.sqrt(max(var, 1e-300))
    log_tail = math.log(tail)
    k_plus = sum(count * pmf.log_mgf(lams) for pmf, count in factors)
    k_minus = sum(count * pmf.log_mgf(-lams) for pmf, count in factors)
    top = float(np.min((k_plus - log_tail) / lams))       # mass{S >= a} <= e^{K(lam) - lam a}
    bottom = float(np.max((log_tail - k_minus) / lams))   # mass{S <= b} <= e^{K(-lam) + lam b}
    return bottom, top


def compose(factors: Sequence[tuple[GridPMF, int]], *, pessimistic: bool, tail: float = DEFAULT_TAIL,
            max_points: int = 1 << 27, workers: int | None = None) -> GridPMF:
    """The PMF of the sum of ``count`` independent copies of each factor (all on one grid)."""
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
    m = scipy.fft.next_fast_len(width, real=True)
    stages = max(1, math.ceil(math.log2(m)))
    fft_err = 8.0 * UNIT_ROUNDOFF * stages

    spectra = []
    for pmf, count in factors:
        folded = np.bincount(np.arange(pmf.p.size) % m, weights=pmf.p, minlength=m) if pmf.p.size > m else pmf.p
        spec = scipy.fft.rfft(folded, n=m, workers=workers)
        spectra.append((spec, np.abs(spec), count, fft_err * pmf.finite_mass))
    # Where even the perturbed power sum_i c_i log(|X_i| + delta_i) is below -746, its exp
    # underflows to 0, and so do the power, its error bound and the spectrum entry: only the
    # other ("live") frequencies need logarithms, phases and exponentials.  After many rounds
    # they are a narrow low-frequency band (|X_k|^T decays like exp(-T var w_k^2 / 2)).
    # Prefilter without logarithms: |X_j| <= 1, so the other factors add at most
    # c_j log1p(delta_j); a bin can be live only if each factor alone clears the bound less
    # that headroom (plus 1 for rounding).
    headroom = sum(count * math.log1p(err) for _, _, count, err in spectra) + 1.0
    candidate = np.ones(m // 2 + 1, dtype=bool)
    for _, mod, count, err in spectra:
        candidate &= mod + err > math.exp((_LOG_UNDERFLOW - headroom) / count)
    idx = np.flatnonzero(candidate)
    log_mod = np.zeros(idx.size)       # sum c log|X|
    log_mod_pert = np.zeros(idx.size)  # sum c log(|X| + delta)
    logs = []
    for _, mod, count, err in spectra:
        mod_c = mod[idx]
        with np.errstate(divide="ignore"):
            lm = np.log(mod_c)
        log_mod += count * lm
        log_mod_pert += count * np.log(mod_c + err)
        logs.append(lm)
    keep = log_mod_pert > _LOG_UNDERFLOW
    live = idx[keep]
    log_mod, log_mod_pert = log_mod[keep], log_mod_pert[keep]
    phase = np.zeros(live.size)
    power_rel_err = np.zeros(live.size)
    for (spec, _, count, _), lm in zip(spectra, logs):
        phase += count * np.angle(spec[live])
        lm_live = lm[keep]
        power_rel_err += count * (np.abs(np.where(np.isfinite(lm_live), lm_live, 0.0)) + math.pi + 2.0)
    modulus = np.exp(log_mod)
    spectrum = np.zeros(m // 2 + 1, dtype=np.complex128)
    spectrum[live] = modulus * np.exp(1j * np.mod(phase, 2 * math.pi))
    d_spec = (np.exp(log_mod_pert) - modulus) + modulus * (2.0 * UNIT_ROUNDOFF * power_rel_err)
    out = scipy.fft.irfft(spectrum, n=m, workers=workers)
    spec_l1 = 2.0 * float(modulus.sum())
    # Per entry: (1/M) sum_k |dY_k| + the inverse transform's own error; in total: Parseval.
    entry = (2.0 * float(d_spec.sum()) + fft_err * spec_l1) / m
    total = math.sqrt(2.0 * float(np.square(d_spec).sum())) + fft_err * spec_l1
    out = np.roll(out, -((a_idx - lo_full) % m))
    np.maximum(out, 0.0, out=out)
    if pessimistic:
        return GridPMF(a_idx, h, out, min(1.0, p_inf + charge_above), 0.0, True, entry, total)
    return GridPMF(a_idx, h, out, p_inf, -(charge_above + charge_below), False, entry, total)
