r"""BallsInBinsRDP: a certified amplified upper side for balls-in-bins with correlated noise, by Rényi DP.

The release is C x + z N(0, I), C >= 0 lower triangular (square, one row a round), each record's
contribution of norm <= 1 in the rounds of its bin, add or remove one record.  Two schemes:

* ``redraw="never"``: a record draws one bin i of b uniformly, once, and takes part in rounds i, i +
  b, i + 2b, ... for the whole run (Choquette-Choo, Ganesh, Haque, Steinke & Thakurta 2025,
  arXiv:2410.06266, Def. 3.1; DPFTRL's ``participation="balls_in_bins"``; with b = n bins and one
  round each it is random allocation of one round). By their Lemma 3.2 the mechanism is dominated by
  P = (1/b) sum_i N(C x_i, z^2 I), Q = N(0, z^2 I); both orders (P, Q) and (Q, P) are evaluated, as
  the accountants built on the lemma do.
* ``redraw="each_epoch"``: the bin is drawn again every epoch of b rounds (DP-SGD's balls-in-bins).
  Where no band of C crosses an epoch (C[r, t] = 0 whenever r and t lie in different epochs), the
  epochs' releases use disjoint rows and columns, each epoch is the one-epoch scheme above (Lemma
  3.2 with its b rounds as bins), and Rényi DP composes over the epochs (Mironov 2017, Prop. 1;
  adaptively chosen inputs included).  A C whose bands cross epochs is refused: the epochs are then
  not separate mechanisms, and no bound is proved here.

Each direction's Rényi divergence at the whole orders 2..``max_order`` (``balls_in_bins_moments``):
the remove direction D_alpha(P || Q) by the count-vector sum (exact) for few count vectors, else the
cyclic band dynamic program with its tau term (an upper bound), the smallest over the bands tried;
the add direction D_alpha(Q || P) by the AM-GM bound (proved in ``balls_in_bins_moments``); each
capped by the worst bin's Gaussian alpha max_i G_ii / (2 z^2). Each is converted to (eps, delta)
with the tight conversion (Balle et al. 2020, Thm 21; ``rdp.rdp_to_epsilon``), and the two
directions' answers are combined by their maximum.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ..base.accountant import UPPER_ONLY, Bound
from ..base.accountant_docs import accountant_docs
from ..base.validation import (
    ParameterTypeError,
    choice,
    count,
    describe,
    positive_number,
    upper_only,
)
from ..rdp.conversion import rdp_to_delta, rdp_to_epsilon
from .balls_in_bins_moments import (
    add_rdp_bound,
    bin_gram,
    gaussian_rdp_of_bins,
    remove_log_moments_banded,
    remove_log_moments_exact,
    remove_rdp_from_log_moments,
)
from .strategies import Strategy, strategy_from

__all__ = ["BallsInBinsRDP", "REDRAWS", "balls_in_bins_rdp_holds"]

Redraw = Literal["never", "each_epoch"]
REDRAWS: tuple[Redraw, ...] = ("never", "each_epoch")

MAX_ROUNDS = 2048  # C is held as an n x n matrix
_EXACT_TERMS = 300_000  # count vectors summed exactly at most (over all the orders summed)
_PROGRAM_WORK = (
    1.5e8  # b (A + 1)^(2p) (cyclic) or b (A + 1)^(p + 1) (chain) at most for one band's program
)
_CHAIN_REACH = (
    24  # the chain programs (p >= 3) stop at this order: past it the cyclic ones are as small
)
_SHORTEST_REACH = (
    12  # a band whose program reaches no higher order is skipped (the orders that matter reach it)
)

# every step the upper side rests on: cited (with its hypotheses) or certified here
STEPS = (
    (
        "cited",
        "Lemma 3.2 of Choquette-Choo, Ganesh, Haque, Steinke & Thakurta 2025 (arXiv:2410.06266, p. 8): under "
        "balls-in-bins (Def. 3.1, one bin per record for the whole run) with C >= 0 lower triangular, adaptive "
        "vector contributions of norm <= 1, add or remove one record, the mechanism is dominated by "
        "((1/b) sum_i N(C x_i, z^2 I), N(0, z^2 I)); both orders are evaluated, as the accountants built on the "
        "lemma do (how the lemma covers the swapped order was queried by a reviewer of the paper)",
    ),
    (
        "certified here",
        "the remove moment as a sum over count vectors (the formula of Schuchardt & Kalinin 2026, arXiv:2601.21636, "
        "Sec. 3, re-derived, with the sign of alpha log b as derived) and its band programs with the tau term",
    ),
    ("certified here", "the add direction's AM-GM bound (balls_in_bins_moments, proved there)"),
    ("certified here", "the cap by the worst bin's Gaussian (joint convexity)"),
    (
        "cited",
        "Renyi DP composition over epochs (Mironov 2017, Prop. 1), for redraw='each_epoch' only",
    ),
    (
        "cited",
        "the tight RDP to (eps, delta) conversion (Balle et al. 2020, Thm 21; rdp.conversion)",
    ),
)

SCHEME_TEXT = {
    "never": "one bin drawn per record for the whole run (Lemma 3.2's scheme, arXiv:2410.06266)",
    "each_epoch": "a bin drawn again each epoch; C has no band across epochs, so the epochs compose",
}


def _checked_matrix(c: np.ndarray, rounds: int) -> None:
    """Lemma 3.2's conditions on C (square, lower triangular, entries >= 0, not all zero), each refused by name."""
    if c.ndim != 2 or c.shape != (rounds, rounds):
        raise ValueError(
            f"strategy must give a square matrix with one row and one column per round ({rounds} x {rounds}), got "
            f"shape {c.shape}: Lemma 3.2 of arXiv:2410.06266 releases row i at round i"
        )
    if not np.isfinite(c).all():
        raise ValueError("strategy must have finite entries")
    negative = np.argwhere(c < 0)
    if negative.size:
        i, j = (int(v) for v in negative[0])
        raise ValueError(
            f"strategy must have entries >= 0 for the balls-in-bins domination (Lemma 3.2 of arXiv:2410.06266), got "
            f"C[{i}, {j}] = {describe(c[i, j])}; DPFTRL gives the guarantee without amplification for any C"
        )
    above = np.argwhere(np.triu(c, 1) != 0)
    if above.size:
        i, j = (int(v) for v in above[0])
        raise ValueError(
            f"strategy must be lower triangular, got C[{i}, {j}] = {describe(c[i, j])} above the diagonal: row i "
            "is released at round i and may use rounds up to i only; transpose C if it was given transposed"
        )
    if not (c != 0).any():
        raise ValueError(
            "strategy must have a non-zero entry: with C = 0 nothing about a record is released"
        )


def _epoch_blocks(c: np.ndarray, bins: int) -> list[np.ndarray]:
    """C's diagonal blocks of ``bins`` rounds, after checking that no entry links two epochs."""
    n = c.shape[0]
    epoch = np.arange(n) // bins
    crossing = np.argwhere((c != 0) & (epoch[:, None] != epoch[None, :]))
    if crossing.size:
        r, t = (int(v) for v in crossing[0])
        raise ValueError(
            f"redraw='each_epoch' needs C with no band across epochs of {bins} rounds, got C[{r}, {t}] = "
            f"{describe(c[r, t])} linking epoch {r // bins} to epoch {t // bins}: a bin drawn again each epoch then "
            "correlates a record's rounds of two epochs through one row, and no bound is proved here for that.  "
            "Use redraw='never' if each record keeps one bin for the whole run (Lemma 3.2 of arXiv:2410.06266), "
            "or a C restarted every epoch"
        )
    return [c[s : s + bins, s : s + bins] for s in range(0, n, bins)]


def balls_in_bins_rdp_holds(strategy: Any, rounds: int) -> bool:
    """Whether ``BallsInBinsRDP`` accepts ``strategy`` over ``rounds`` rounds (redraw="never").

    Parameters
    ----------
    strategy : Strategy or array_like
        C.
    rounds : int
        n, a whole number >= 1.

    Returns
    -------
    bool
        True where C is square, lower triangular, >= 0 and not zero, and n <= ``MAX_ROUNDS``.
    """
    if not 1 <= int(rounds) <= MAX_ROUNDS:
        return False
    try:
        c, _ = strategy_from(strategy, 1).matrix(int(rounds))
        _checked_matrix(c, int(rounds))
    except ValueError:
        return False
    return True


def _remove_rdp(
    gram: np.ndarray, sigma: float, orders: np.ndarray, max_band: int
) -> tuple[np.ndarray, str]:
    """The remove direction's D_alpha at ``orders`` (whole, 2..A) and how it was computed.

    Few count vectors: the exact sum.  Otherwise the smallest, order by order, of the band programs
    p = 1 (the bins' own terms; tau the largest entry off the diagonal), p = 2 (cyclic, the wrapping
    pairs exact) and p = 3..``max_band`` (the chain, the wrapping pairs by AM-GM), each up to the
    largest order its work allows, and of the exact sum up to the order where its count vectors stay
    few (from order 12 on).
    """
    b = gram.shape[0]
    top = int(orders[-1])
    if sum(math.comb(a + b - 1, b - 1) for a in range(2, top + 1)) <= _EXACT_TERMS:
        return remove_rdp_from_log_moments(
            remove_log_moments_exact(gram, sigma, orders), orders
        ), "exact count sum"
    best = np.full(orders.shape, np.inf)
    used = []
    for band in range(1, max_band + 1):
        if 2 * band - 1 > b:
            break
        cyclic = band <= 2
        power = 2 * band if cyclic else band + 1
        reach = min(
            top if cyclic else min(top, _CHAIN_REACH), int((_PROGRAM_WORK / b) ** (1.0 / power)) - 1
        )
        if band > 1 and reach < _SHORTEST_REACH:
            continue
        log_moments = remove_log_moments_banded(gram, sigma, reach, band, cyclic=cyclic)
        kept = orders <= reach
        values = np.full(orders.shape, np.inf)
        values[kept] = remove_rdp_from_log_moments(
            log_moments[orders[kept].astype(np.int64)], orders[kept]
        )
        best = np.minimum(best, values)
        used.append(f"{band} up to order {reach}" + ("" if cyclic else " (chain)"))
    method = "band dynamic program with the tau term, bands " + ", ".join(used)
    # the exact sum where its count vectors stay few, over the orders up to where they do
    exact_reach, rows = 1, 0
    while exact_reach < top and rows + math.comb(exact_reach + b, b - 1) <= _EXACT_TERMS:
        exact_reach += 1
        rows += math.comb(exact_reach + b - 1, b - 1)
    if exact_reach >= _SHORTEST_REACH:
        kept = orders <= exact_reach
        exact = remove_rdp_from_log_moments(
            remove_log_moments_exact(gram, sigma, orders[kept]), orders[kept]
        )
        best[kept] = np.minimum(best[kept], exact)
        method = f"exact count sum up to order {exact_reach}; " + method
    return best, method


def _bin_grams(strategy: Any, rounds: int, bins: int, redraw: Redraw) -> list[np.ndarray]:
    """The bins' Gram matrices G of C (``bin_gram``, rounded up): one for ``redraw="never"``, one
    per epoch of ``bins`` rounds for ``redraw="each_epoch"`` (after checking that no band of C
    crosses an epoch)."""
    if isinstance(strategy, (str, bool)) or strategy is None:
        raise ParameterTypeError(
            f"strategy must be a Strategy or a matrix, got {describe(strategy)}"
        )
    chosen: Strategy = strategy_from(strategy, bins)
    c, error = chosen.matrix(rounds)
    _checked_matrix(c, rounds)
    if redraw == "never":
        return [bin_gram(c, bins, error)]
    blocks = _epoch_blocks(c if error is None else c + error, bins)
    return [bin_gram(block, bins) for block in blocks]


def _composed_rdp(
    grams: list[np.ndarray], sigma: float, orders: np.ndarray, max_band: int
) -> tuple[np.ndarray, np.ndarray, str]:
    """(remove RDP, add RDP, remove method) of the epochs whose Grams are ``grams``, composed
    (Mironov 2017, Prop. 1: the curves add, each sum rounded up); each epoch's directions capped by
    its worst bin's Gaussian."""
    remove = np.zeros_like(orders)
    add = np.zeros_like(orders)
    seen: dict[bytes, tuple[np.ndarray, np.ndarray, str]] = {}
    method = ""
    for gram in grams:  # identical epochs (a Toeplitz C's full epochs) are computed once
        key = gram.tobytes()
        if key not in seen:
            seen[key] = _epoch_rdp(gram, sigma, orders, max_band, method)
        r, a, method_here = seen[key]
        method = method_here or method
        remove = np.nextafter(remove + r, np.inf)
        add = np.nextafter(add + a, np.inf)
    return remove, add, method


def _epoch_rdp(
    gram: np.ndarray, sigma: float, orders: np.ndarray, max_band: int, method: str
) -> tuple[np.ndarray, np.ndarray, str]:
    """(remove RDP, add RDP, remove method) of one epoch with Gram ``gram``, each direction capped
    by the worst bin's Gaussian; an epoch C leaves untouched (G = 0) costs nothing and keeps
    ``method``."""
    if not gram.any():
        return np.zeros_like(orders), np.zeros_like(orders), method
    if (
        2.0 * sigma * sigma == 0.0
    ):  # z^2 underflows to 0 (z below about 1e-162): no finite bound in either direction
        return (
            np.full(orders.shape, np.inf),
            np.full(orders.shape, np.inf),
            "none finite: z^2 underflows to 0",
        )
    gaussian = gaussian_rdp_of_bins(gram, sigma, orders)
    remove, method = _remove_rdp(gram, sigma, orders, max_band)
    return (
        np.minimum(remove, gaussian),
        np.minimum(add_rdp_bound(gram, sigma, orders), gaussian),
        method,
    )


@accountant_docs(
    sides=UPPER_ONLY
)  # completes delta / epsilon docstrings with the contract's sections
class BallsInBinsRDP:
    r"""Certified amplified upper side of C x + z N(0, I) under balls-in-bins, C >= 0 lower triangular, by RDP.

    For each order alpha in 2..``max_order`` (module docstring: the scheme and the sources)

    .. math::

        \varepsilon_{\mathrm{remove}}(\alpha) = \min\Big(\frac{\log E_Q[(P/Q)^\alpha]}{\alpha - 1},\
            \frac{\alpha \max_i G_{ii}}{2 z^2}\Big), \qquad
        \varepsilon_{\mathrm{add}}(\alpha) = \min\Big(\frac{\sum_i G_{ii}}{2 b z^2}
            + (\alpha - 1) \frac{\sum_{ij} G_{ij}}{2 b^2 z^2},\ \frac{\alpha \max_i G_{ii}}{2 z^2}\Big),

    G_ij = <C x_i, C x_j> the bins' Gram matrix (summed over the epochs for ``redraw="each_epoch"``:
    the RDP curves of the epochs add up), the remove moment exact (count-vector sum) or bounded
    (cyclic band dynamic program plus tau alpha / (2 z^2)); then eps(delta) = max over the
    directions of the tight conversion (Balle et al. 2020, Thm 21) of its curve, and delta(eps)
    likewise.

    Parameters
    ----------
    strategy : Strategy or array_like
        C: a ``Banded``, ``BLT``, any ``Strategy`` or a square matrix, >= 0 and lower triangular.
    rounds : int
        n, a whole number in [1, 2048].
    noise_multiplier : float
        z > 0, the noise standard deviation in units of the clip norm.
    bins : int
        b >= 1, the bins (rounds per epoch; jax_privacy's cycle_length).
    redraw : {"never", "each_epoch"}, default "never"
        "never": one bin per record for the whole run (Lemma 3.2's scheme, DPFTRL's balls-in-bins);
        "each_epoch": a bin drawn again each epoch of b rounds (C must have no band across epochs).
    max_order : int, default 32
        A, the largest Rényi order (whole orders 2..A are used), in [2, 256].
    max_band : int, default 4
        The widest band p the dynamic programs try: p = 1 and 2 cyclic (cost about b (A + 1)^(2p)),
        p >= 3 the chain (cost about b (A + 1)^(p + 1)), each up to the largest order its work limit
        allows.

    Attributes
    ----------
    orders : numpy.ndarray
        The orders 2..A.
    remove_rdp, add_rdp : numpy.ndarray
        The two directions' RDP upper bounds at ``orders``.
    gram : numpy.ndarray
        G (b x b; for "each_epoch", the epochs' Grams stacked, shape (epochs, b, b)), rounded up.
    scheme : str
        The scheme covered, in words.
    remove_method : str
        How the remove direction was computed.
    steps : tuple
        ``(kind, statement)`` of every step the bound rests on: "cited" (a published result, with
        its hypotheses) or "certified here".

    Raises
    ------
    ValueError
        C not square, not lower triangular, with a negative entry or all zero; rounds above 2048;
        ``bins``, ``rounds``, ``max_order`` or ``max_band`` not whole numbers in range; ``redraw``
        not one of its values; with ``redraw="each_epoch"``, a C with a non-zero entry linking two
        epochs (the message says why and what to use).
    ParameterTypeError
        A numeric argument that is a string, bool or None.

    References
    ----------
    Choquette-Choo, Ganesh, Haque, Steinke & Thakurta 2025 (arXiv:2410.06266), Def. 3.1 and Lemma
    3.2; Schuchardt & Kalinin 2026 (arXiv:2601.21636), Sec. 3 (the remove moment and its band
    program); Mironov 2017, Prop. 1; Balle et al. 2020, Thm 21.

    Examples
    --------
    >>> from hockeystick.matrix import Banded
    >>> from hockeystick.matrix.balls_in_bins_rdp import BallsInBinsRDP
    >>> acc = BallsInBinsRDP(strategy=Banded([1.0, 0.5]), rounds=8, noise_multiplier=2.0, bins=4)
    >>> acc.remove_method
    'exact count sum'
    >>> bool(acc.epsilon(1e-6) < BallsInBinsRDP(strategy=Banded([1.0, 0.5]), rounds=8, noise_multiplier=2.0,
    ...                                          bins=1).epsilon(1e-6))
    True
    """

    def __init__(
        self,
        *,
        strategy: Any,
        rounds: int,
        noise_multiplier: float,
        bins: int,
        redraw: Redraw = "never",
        max_order: int = 32,
        max_band: int = 4,
    ) -> None:
        n = count(rounds, "rounds")
        if n > MAX_ROUNDS:
            raise ValueError(
                f"rounds must be at most {MAX_ROUNDS} (C is held as a dense matrix), got {n}"
            )
        self.redraw: Redraw = choice(redraw, "redraw", REDRAWS)
        b = count(bins, "bins")
        self.noise_multiplier = float(positive_number(noise_multiplier, "noise_multiplier"))
        top = count(max_order, "max_order", minimum=2)
        if top > 256:
            raise ValueError(
                f"max_order must be in [2, 256], got {top}: higher orders only help at delta below e^-200"
            )
        band = count(max_band, "max_band")
        grams = _bin_grams(strategy, n, b, self.redraw)
        self.rounds, self.bins, self.scheme = n, b, SCHEME_TEXT[self.redraw]
        self.orders = np.arange(2, top + 1, dtype=float)
        self.gram = grams[0] if len(grams) == 1 else np.stack(grams)
        self.remove_rdp, self.add_rdp, self.remove_method = _composed_rdp(
            grams, self.noise_multiplier, self.orders, band
        )
        self.steps = (
            STEPS
            if self.redraw == "each_epoch"
            else tuple(step for step in STEPS if "each_epoch" not in step[1])
        )

    def __repr__(self) -> str:
        """The run as given and the scheme it covers, in words."""
        return (
            f"BallsInBinsRDP(rounds={self.rounds}, noise_multiplier={self.noise_multiplier:g}, bins={self.bins}, "
            f"redraw={self.redraw!r}): {self.scheme}"
        )

    def delta(self, epsilon: npt.ArrayLike, *, bound: Bound = "upper") -> Any:
        """Upper bound on delta(eps): the larger of the two directions' tight conversions of their RDP curves."""
        upper_only(bound, type(self).__name__)
        remove = rdp_to_delta(self.remove_rdp, self.orders, epsilon)
        add = rdp_to_delta(self.add_rdp, self.orders, epsilon)
        out = np.maximum(remove, add)
        return float(out) if np.ndim(out) == 0 else out

    def epsilon(self, delta: npt.ArrayLike, *, bound: Bound = "upper") -> Any:
        """Upper bound on epsilon(delta): the larger of the two directions' tight conversions of their RDP curves."""
        upper_only(bound, type(self).__name__)
        remove = rdp_to_epsilon(self.remove_rdp, self.orders, delta)
        add = rdp_to_epsilon(self.add_rdp, self.orders, delta)
        out = np.maximum(remove, add)
        return float(out) if np.ndim(out) == 0 else out

    def directions(self, delta: float) -> dict[str, float]:
        """epsilon(delta) of each direction alone: {"remove": ..., "add": ...}.

        Parameters
        ----------
        delta : float
            0 < delta < 1.

        Returns
        -------
        dict
            Each direction's certified upper epsilon.
        """
        return {
            "remove": float(rdp_to_epsilon(self.remove_rdp, self.orders, delta)),
            "add": float(rdp_to_epsilon(self.add_rdp, self.orders, delta)),
        }
