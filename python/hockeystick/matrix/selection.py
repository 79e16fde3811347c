"""Best separated selections: max over min-separation patterns of a sum of non-negative weights, and the patterns.

For weights w_0..w_(n-1) >= 0, separation b and at most k picks, F_t(i) = the largest sum of at most
t weights at positions >= i that are pairwise at least b apart satisfies

    F_0 = 0,   F_t(i) = max_(j >= i) [ w_j + F_(t-1)(j + b) ]   (F_t(i) = 0 for i >= n),

since the first pick j >= i leaves positions >= j + b for the other t - 1.  Each F_t is one suffix
maximum over the rows at once, so a batch of r weight vectors costs O(k r n).  A computed F value is
a sum of at most k weights added one at a time (k - 1 roundings; a maximum is exact), so its
relative error is at most gamma_k (round_off.py).  This is the one-dimensional maximization
Choquette-Choo et al. 2023b ("(Amplified) banded matrix factorization: a unified approach to private
training", NeurIPS; arXiv:2306.08153) solve by dynamic programming (their Alg. 3).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

__all__ = ["max_separated_sum", "best_separated_pattern", "count_patterns", "patterns"]


def _tables(weights: np.ndarray, separation: int, picks: int) -> list[np.ndarray]:
    """g_t(j) = w_j + F_(t-1)(j + b) for t = 1..picks (each of weights' shape)."""
    n = weights.shape[-1]
    previous = np.zeros(weights.shape[:-1] + (n + separation,))
    out = []
    for _ in range(picks):
        g = weights + previous[..., separation : separation + n]
        out.append(g)
        f = np.maximum.accumulate(g[..., ::-1], axis=-1)[..., ::-1]
        previous = np.concatenate([f, np.zeros(weights.shape[:-1] + (separation,))], axis=-1)
    return out


def max_separated_sum(weights: np.ndarray, separation: int, picks: int) -> np.ndarray:
    """max over patterns (pairwise >= ``separation`` apart, at most ``picks``) of the sum of
    ``weights`` >= 0, along the last axis."""
    if picks == 0:
        return np.zeros(weights.shape[:-1])
    best: np.ndarray = _tables(weights, separation, picks)[-1].max(axis=-1)
    return best


def best_separated_pattern(
    weights: np.ndarray, separation: int, picks: int
) -> tuple[float, tuple[int, ...]]:
    """The maximum of ``max_separated_sum`` for one weight vector, with a pattern attaining it (backtracked)."""
    tables = _tables(weights, separation, picks)
    chosen: list[int] = []
    start = 0
    n = weights.shape[-1]
    for g in reversed(tables):
        if start >= n:
            break
        tail = g[start:]
        best = tail.max()
        # F_t(start) = best; when the best is the weight alone (or 0), fewer picks suffice later on
        j = start + int(np.argmax(tail))
        if best <= 0.0:
            break
        chosen.append(j)
        start = j + separation
    return float(tables[-1].max()), tuple(chosen)


def count_patterns(rounds: int, separation: int, picks: int, stop: int) -> int:
    """The number of non-empty patterns (pairwise >= separation apart, at most ``picks``), counted
    up to ``stop`` (a count above ``stop`` is returned as stop + 1)."""
    # N_t(i): patterns of at most t picks (the empty one included) in positions >= i
    ways = [[1] * (rounds + separation + 1) for _ in range(picks + 1)]
    for t in range(1, picks + 1):
        row = ways[t]
        for i in range(rounds - 1, -1, -1):
            row[i] = min(row[i + 1] + ways[t - 1][i + separation], stop + 2)
    return min(ways[picks][0] - 1, stop + 1)


def patterns(rounds: int, separation: int, picks: int) -> Iterator[tuple[int, ...]]:
    """Every non-empty pattern of positions in [0, rounds), pairwise >= ``separation`` apart, at most ``picks``."""

    def extend(prefix: tuple[int, ...], start: int) -> Iterator[tuple[int, ...]]:
        if len(prefix) == picks:
            return
        for j in range(start, rounds):
            pattern = (*prefix, j)
            yield pattern
            yield from extend(pattern, j + separation)

    yield from extend((), 0)
