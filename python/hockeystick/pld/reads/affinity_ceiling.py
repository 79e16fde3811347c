"""A certified lower bound on delta near 1 from the Renyi affinity of one round (Chernoff).

Where T rounds leave delta(eps) within 1e-9 of 1 (sigma 0.5-0.9, q 0.02-0.1, thousands of
rounds), the composed optimistic PMF's lower side sits about 1e-9 below 1 whatever the grid: it
is charged the FFT's round-off over the whole window (``pmf.GridPMF``'s ``total_error``, 3.5e-10
at sigma 0.55, q 0.048, 10^4 rounds; twice that on the lower side), which is far more than
the true 1 - delta (below 1e-11 there).  The complement has a short bound of its own.

With L the privacy loss of one round under P and L_T the sum of T independent copies,

    1 - delta(eps) = E_P[min(1, e^{eps - L_T})] <= e^{lam eps} E_P[e^{-lam L_T}] = e^{lam eps} A(lam)^T

for every lam in [0, 1] (min(1, e^x) <= e^{lam x}), where A(lam) = E_P[e^{-lam L}] = int p^{1-lam}
q^lam is the affinity of the pair (P, Q) (the Hellinger integral of order 1 - lam: Liese and Vajda,
"On divergences and informations in statistics and information theory", IEEE Trans. Inf. Theory 52
(2006), Sec. III; the Chernoff bound of Chernoff, Ann. Math. Stat. 23 (1952), eq. 2.1).  A is at
most 1 (Hoelder) and multiplies over independent rounds.  It is bounded above from the cells of
``pld/grid/cells.hpp`` without any quadrature of its own: on each region R of a partition of the
outputs, Hoelder gives int_R p^{1-lam} q^lam <= P(R)^{1-lam} Q(R)^lam, so

    A(lam) <= sum_j a_j^{1-lam} b_j^lam + P_lo^{1-lam} + P_hi max(1, e^{-lam l_N})

with a_j, b_j the P- and Q-mass of cell j (a_j = c_j + s_j, b_j = e^{-l_j} s_j, s_j = (c_j + d_j) /
(e^h - 1), from the cells' c_j, d_j: pld/grid/cells.hpp), P_lo the P-mass cut below the cells (its
Q-mass at most 1) and P_hi the P-mass cut above the cells (``tail_hi``: the outputs beyond the last
x edge, whose losses exceed that edge's loss, positive in both directions, so q <= p there and its
term is at most P_hi; the code's max(1, e^{-lam l_N}) is that 1, l_N > 0).  The cells' masses are
the library's quadrature (``pld/grid/cells.hpp``: the same numbers both sides of every PLD rest on);
A's bound is inflated by ``AFFINITY_SLACK`` relative to cover their and this sum's round-off.
delta is the largest over the neighbouring directions, so each direction's bound is a lower bound
on delta; the best over a few lam in (0, 1) is taken.  Tails are cut at ``TAIL`` (1e-100, so
P_lo^{1-lam} stays below 1e-10 for lam <= 0.9) and cells are ``CELL_INTERVAL`` wide or wider (A's
bound moves by 3e-7 relative from h = 1e-2 to 1e-3 at sigma 0.55, q 0.048).
"""

from __future__ import annotations

import math

import numpy as np

from ... import _core

LAMBDAS = np.linspace(0.05, 0.9, 18)
TAIL = 1e-100
CELL_INTERVAL = 1e-2
MAX_CELLS = 1 << 16
AFFINITY_SLACK = 1e-9
# z with P(N(0, 1) > z) = TAIL / 2: the cells span x in [-z sigma, 1 + z sigma].
_TAIL_Z = 21.3


def subsampled_gaussian_log_affinity(sigma: float, sampling_rate: float) -> np.ndarray:
    """Certified upper bounds on log A(lam) of one round of the Poisson-subsampled Gaussian (noise
    ``sigma`` over sensitivity 1, rate ``sampling_rate`` < 1) at each lam of ``LAMBDAS``: rows
    remove, add (P the mixture, then P the Gaussian), the cell sum of the module docstring; 0 (A <=
    1, Hoelder: a true bound that adds nothing) where sigma is so small that its cells cannot be
    built."""
    s, q = float(sigma), float(sampling_rate)
    if not q < 1.0:  # q = 1 is the Gaussian (closed form elsewhere): log(1 - q) below has no value
        return np.zeros((2, LAMBDAS.size))
    # The remove direction's loss spans at most (1 + 2 z s) / s^2 + |log(1 - q)| over the cells'
    # range.
    wide = max(
        s, 1e-100
    )  # the span only picks h: below this it is far past what cells can hold anyway
    span = (1.0 + 2.0 * _TAIL_Z * wide) / (wide * wide) - math.log1p(-q) + 1.0
    h = min(max(CELL_INTERVAL, span / MAX_CELLS), _core.pld_grid.max_interval)
    out = np.zeros(
        (2, LAMBDAS.size)
    )  # log A <= 0 always (Hoelder): the bound where no cells are built
    for row, remove in enumerate((True, False)):
        try:
            cells = _core.pld_grid.subsampled_gaussian_cells(
                s, q, remove=remove, h=h, tail=TAIL, max_cells=64 * MAX_CELLS
            )
        except (
            ValueError
        ):  # sigma so small that even the coarsest cells are too many: nothing to add
            return np.zeros((2, LAMBDAS.size))
        a_j, s_j = (
            cells.p_mass,
            cells.q_mass_scaled,
        )  # a_j and e^{l_j} b_j (pld/grid/cells.hpp's cell_mass)
        losses = (cells.k_lo + np.arange(a_j.size)) * h
        held = (a_j > 0.0) & (s_j > 0.0)
        log_a, log_b = np.log(a_j[held]), np.log(s_j[held]) - losses[held]
        top = (cells.k_lo + a_j.size) * h
        for k, lam in enumerate(LAMBDAS):
            terms = (1.0 - lam) * log_a + lam * log_b
            peak = float(np.max(terms, initial=-np.inf))
            inner = (
                math.exp(peak) * float(np.sum(np.exp(terms - peak))) if math.isfinite(peak) else 0.0
            )
            tails = cells.tail_lo ** (1.0 - lam) + cells.tail_hi * max(1.0, math.exp(-lam * top))
            bound = (inner + tails) * (1.0 + AFFINITY_SLACK)
            # A > 0 (P and Q have the same support): a sum computed 0 (underflow) or not finite says
            # nothing
            out[row, k] = math.log(min(bound, 1.0)) if bound > 0.0 and math.isfinite(bound) else 0.0
    return out


def delta_lower_near_one(
    log_affinity: np.ndarray, rounds: float, epsilon: np.ndarray
) -> np.ndarray:
    """A certified lower bound on delta(``epsilon``) of ``rounds`` rounds from ``log_affinity``
    (rows of upper bounds on log A at ``LAMBDAS``, one per direction): 1 - min over rows and lam of
    e^{lam eps + T log A(lam)}, rounded down (0 where that exceeds 1; below 1 always)."""
    eps = np.asarray(epsilon, dtype=np.float64)
    exponent = np.min(LAMBDAS * eps[..., None, None] + rounds * log_affinity, axis=(-2, -1))
    # a few ulps of each of the three operations, covered by a relative margin on the exponent
    exponent = exponent + 1e-12 * (np.abs(exponent) + 1.0)
    with np.errstate(under="ignore", over="ignore"):
        complement = np.exp(exponent) * (1.0 + 1e-12)
    return np.where(complement < 1.0, np.maximum(np.nextafter(1.0 - complement, 0.0), 0.0), 0.0)
