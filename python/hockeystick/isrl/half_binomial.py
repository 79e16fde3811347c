"""Bin(c, 1/2)'s CDF at integer points, from a table of scipy's values each pair enters once.

The clone sums of ``hockeystick.isrl.shuffle`` read F_c(k) = P(Bin(c, 1/2) <= k) at the thresholds
of every eps they are asked, and an accountant asks the same window of c for several eps0 and
clone probabilities (the thresholds move, most (k, c) pairs recur).  scipy's value depends only on
(k, c), so it is kept in one sorted table and read back: every value is the one
``scipy.stats.binom.cdf`` gives for that pair, to the bit.  The table is rebuilt from the pairs of
the current call once it would pass ``_CAPACITY`` entries (16 bytes each, 8 MiB in all), so its
memory stays bounded.  The values come back C-ordered, as scipy's would: the clone sum's matrix
product then adds its terms in the same order.
"""

from __future__ import annotations

import numpy as np

__all__: list[str] = []  # read by hockeystick.isrl.shuffle only

# key = c << 32 | (k + 1): k in [-1, c] and c < 2^31 keep keys distinct and sorted by (c, k)
_SHIFT = 32
_CAPACITY = 1 << 19

# (sorted keys, values): replaced whole, never changed in place, so a reader on another thread
# sees one consistent pair
_table: tuple[np.ndarray, np.ndarray] = (np.empty(0, np.int64), np.empty(0, np.float64))


def half_binomial_cdf(k: np.ndarray, c: np.ndarray) -> np.ndarray:
    """P(Bin(c, 1/2) <= k) elementwise, as ``scipy.stats.binom.cdf(k, c, 0.5)`` gives it.

    Parameters
    ----------
    k : numpy.ndarray
        Integer points, each in [-1, c] (int64).
    c : numpy.ndarray
        Numbers of trials, each in [max(k, 0), 2^31) (int64), broadcast with ``k``.

    Returns
    -------
    numpy.ndarray
        The CDF values (float64), of the broadcast shape of ``k`` and ``c``.

    Raises
    ------
    ValueError
        A ``k`` outside [-1, c] or a ``c`` at or above 2^31 (or below 0).
    """
    global _table
    k, c = np.broadcast_arrays(np.asarray(k, dtype=np.int64), np.asarray(c, dtype=np.int64))
    if not np.all((k >= -1) & (k <= c) & (c < 1 << 31)):
        raise ValueError("k must lie in [-1, c] and c in [0, 2^31)")
    # axes reversed: the callers' last axis is c, so the queries run through the table in order of c
    # (a binary search near the last one stays in cache)
    keys = np.ascontiguousarray(((c << _SHIFT) | (k + 1)).T)
    table_keys, table_values = _table
    at = np.searchsorted(table_keys, keys)
    missing = np.ones(keys.shape, dtype=bool)
    if table_keys.size:
        missing = table_keys[np.minimum(at, table_keys.size - 1)] != keys
    if np.any(missing):
        from scipy import stats  # lazy: scipy start-up time (import hockeystick loads no scipy)

        new_keys = _sorted_distinct(keys[missing])
        new_values = stats.binom.cdf((new_keys & ((1 << _SHIFT) - 1)) - 1, new_keys >> _SHIFT, 0.5)
        if table_keys.size + new_keys.size > _CAPACITY:
            # the table keeps the current call's pairs only: its own and the new ones
            wanted = _sorted_distinct(keys.ravel())
            place = np.searchsorted(wanted, keys)
            values = np.empty(wanted.size)
            values[place[~missing]] = table_values[at[~missing]]
            values[np.searchsorted(wanted, new_keys)] = new_values
            table_keys, table_values, at = wanted, values, place
        else:
            # a key's place in the merged table: the table's keys below it plus the new keys below it
            at = at + np.searchsorted(new_keys, keys)
            inserted = np.searchsorted(table_keys, new_keys)
            table_keys = np.insert(table_keys, inserted, new_keys)
            table_values = np.insert(table_values, inserted, new_values)
        if table_keys.size <= _CAPACITY:
            _table = (table_keys, table_values)
    return np.ascontiguousarray(table_values[at].T)


def _sorted_distinct(keys: np.ndarray) -> np.ndarray:
    """The distinct keys in increasing order (a sort and a comparison of neighbours: the keys come
    nearly sorted, where numpy's hashing ``unique`` gains nothing)."""
    ordered = np.sort(keys)
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]
