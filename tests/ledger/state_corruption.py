"""Corruptions of a saved state for the malformed-input fuzz (tests/ledger/test_state_fuzz.py and
tests/interop/test_interop_flower_state_fuzz.py): one edit of a JSON-like state at a path drawn by hypothesis.

The edits: a value replaced by one of ``ODD`` (wrong kinds, out-of-range numbers, strings of numbers, booleans,
containers), a number nudged by a few units in the last place, halved, doubled, negated or zeroed, an int
written as a float, a key deleted or an unknown one added, a list element removed, duplicated, or two swapped.
The run's order of rounds is not swapped: the same rounds in another order are another valid ledger with the
same spent sums up to round-off, which no check can tell from the original.
"""

from __future__ import annotations

import copy
import math
from typing import Any

from hypothesis import strategies as st

ODD: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    1,
    3,
    10.9,
    "1000",
    "abc",
    "",
    1e300,
    -1e300,
    5e-324,
    -0.0,
    math.nan,
    math.inf,
    -math.inf,
    2**64,
    2**53 + 1,
    [],
    {},
    [1.0],
    [1, 2],
    {"mechanism": "gaussian"},
    {"mechanism": "gaussian", "sigma": 1.0},
]


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into ``value`` (dict keys and list indices), the root's empty path included."""
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += paths(item, (*prefix, i))
    return out


def _at(state: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        state = state[step]
    return state


def _nudged(value: Any, how: str) -> Any:
    if how == "ulps":
        return value * (1.0 + 3 * 2.0**-52)
    if how == "half":
        return value / 2
    if how == "double":
        return value * 2
    if how == "negate":
        return -value
    if how == "zero":
        return 0 * value
    return float(value)  # "float": an int written as a float


@st.composite
def corrupted(draw: st.DrawFn, state: dict[str, Any]) -> tuple[Any, tuple[Any, ...], str]:
    """(the corrupted state, the path edited, the kind of edit); ``state`` is left unchanged."""
    out = copy.deepcopy(state)
    path = draw(st.sampled_from(paths(out)))
    target = _at(out, path)
    kinds = ["replace"]
    if isinstance(target, (int, float)) and not isinstance(target, bool):
        kinds += ["ulps", "half", "double", "negate", "zero"] + (
            ["float"] if isinstance(target, int) else []
        )
    if isinstance(target, dict):
        kinds += ["add key"] + (["delete key"] if target else [])
    if isinstance(target, list) and target:
        kinds += ["remove", "duplicate"] + (
            ["swap"] if len(target) > 1 and path != ("rounds",) else []
        )
    kind = draw(st.sampled_from(kinds))
    if kind == "replace":
        new = draw(st.sampled_from(ODD))
        if not path:
            return new, path, kind
        _at(out, path[:-1])[path[-1]] = copy.deepcopy(new)
    elif kind in ("ulps", "half", "double", "negate", "zero", "float"):
        _at(out, path[:-1])[path[-1]] = _nudged(target, kind)
    elif kind == "add key":
        target["unexpected"] = draw(st.sampled_from(ODD))
        path = (*path, "unexpected")
    elif kind == "delete key":
        key = draw(st.sampled_from(sorted(target)))
        del target[key]
        path = (*path, key)
    else:
        i = draw(st.integers(0, len(target) - 1))
        if kind == "remove":
            del target[i]
        elif kind == "duplicate":
            target.insert(i, copy.deepcopy(target[i]))
        else:
            j = (i + 1) % len(target)
            target[i], target[j] = target[j], target[i]
    return out, path, kind
