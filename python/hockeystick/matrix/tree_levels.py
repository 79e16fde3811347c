"""An upper bound on a binary tree's squared sensitivity, level by level.

Every entry of the tree's C is 0 or 1 and X = C^T C >= 0, so with every contribution the same unit
vector (the worst case, sensitivity.py) a pattern pi gives ||C 1_pi||^2 = sum over nodes of
count(node)^2, count the number of pi's rounds inside the node's interval.  The maximum over pi of a
sum is at most the sum over levels of each level's maximum.  At level l the nodes are disjoint
windows of w = 2^l rounds; a pattern whose rounds are at least b apart puts at most ceil(w / b) of
them in one window (so does a fixed-epoch pattern, exactly b apart), and at most k' in all, so the
level contributes at most

    max { sum_j c_j^2 : 0 <= c_j <= cap, sum_j c_j <= k' },   cap = min(ceil(w / b), k'),

a convex function's maximum over a polytope, attained at a vertex: as many nodes filled to cap as k'
and the node count allow, and one node holding the rest.  Integer arithmetic throughout: the bound
is exact.
"""

from __future__ import annotations

from .participation import Participation

__all__ = ["tree_level_bound"]


def tree_level_bound(rounds: int, restart_every: int | None, schema: Participation) -> int:
    """sum over levels of the largest sum of squared node counts one pattern of ``schema`` can reach
    there, for the tree over ``rounds`` rounds restarted every ``restart_every`` rounds (None: one
    tree)."""
    block = rounds if restart_every is None else restart_every
    sizes = [min(block, rounds - start) for start in range(0, rounds, block)]
    k = schema.participations(rounds)
    total = 0
    for level in range(max(sizes).bit_length()):
        width = 1 << level
        nodes = sum(size >> level for size in sizes)
        cap = min(-(-width // schema.separation), k)
        full = min(nodes, k // cap)
        rest = k - full * cap if full < nodes else 0
        total += full * cap * cap + min(rest, cap) ** 2
    return total
