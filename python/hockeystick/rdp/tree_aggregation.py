"""Renyi DP of single-epoch tree aggregation of Gaussian sums (restarted trees, each record once overall).

Kairouz, McMahan, Song, Thakkar, Thakurta, Xu, "Practical and private (deep) learning without
sampling or shuffling", ICML 2021 (arXiv:2103.00039), App. D: a tree over n steps releases the nodes
whose dyadic intervals [j 2^l + 1, (j + 1) 2^l] end by step n, each with N(0, sigma^2) noise, so a
record added at one step (sensitivity 1) enters one node per level l with 2^l <= n: depth(n) =
floor(log2 n) + 1 = ceil(log2(n + 1)) nodes (0 when n = 0).  Trees restarted after each of the
``step_counts`` with every record in at most one of them release a Gaussian of L2 sensitivity
sqrt(max depth), so (Mironov 2017, Prop. 7)

    eps(alpha) = alpha * depth(max(step_counts)) / (2 sigma^2),

what dp_accounting 0.6's RdpAccountant computes (REPLACE_SPECIAL).  The depth is taken exactly, as
the bit length of the integer n (dp_accounting's float ceil(log2(n + 1)) is one level short at n =
2^53).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..base.validation import nonnegative
from .mechanisms import check_orders

__all__ = ["tree_depth", "single_epoch_tree_aggregation_rdp"]


def tree_depth(step_counts: int | Sequence[int]) -> int:
    """ceil(log2(max(step_counts) + 1)): the number of released nodes holding one step's record.

    ``step_counts`` is a non-negative integer (one tree) or a non-empty sequence of them; a scalar 0
    is refused as dp_accounting refuses it (no tree at all).
    """
    counts = list(step_counts) if isinstance(step_counts, Sequence) else [step_counts]
    if not counts or (not isinstance(step_counts, Sequence) and step_counts == 0):
        raise ValueError(
            f"step_counts must be a non-empty list, or a non-zero scalar. Got {step_counts}."
        )
    for n in counts:
        if (
            isinstance(n, bool)
            or not isinstance(n, (int, np.integer, float, np.floating))
            or not math.isfinite(n)
            or n != math.floor(n)
        ):
            raise ValueError(f"step_counts must hold integers, got {n!r} in {step_counts}")
        if n < 0:
            raise ValueError(f"Steps must be non-negative. Got {step_counts}")
    return int(max(counts)).bit_length()


def single_epoch_tree_aggregation_rdp(
    noise_multiplier: npt.ArrayLike,
    step_counts: int | Sequence[int],
    orders: npt.ArrayLike | None = None,
) -> np.ndarray:
    """alpha depth / (2 sigma^2) (module docstring): shape noise_multiplier.shape + (len(orders),).

    sigma = 0 gives inf (the sums are released) and sigma = inf gives 0, as in dp_accounting.
    """
    sigma = nonnegative(noise_multiplier, "noise_multiplier", finite=False)
    alpha = check_orders(orders)
    depth = tree_depth(step_counts)
    with np.errstate(divide="ignore", invalid="ignore"):
        rdp = alpha * depth / (2.0 * np.square(sigma)[..., None])
    return np.where(sigma[..., None] == 0, math.inf, rdp)
