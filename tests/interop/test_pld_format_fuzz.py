"""Malformed PLD files (interop.exchange.pld_format): a generated corpus of edits of valid exports, each refused with a ValueError
naming the field or accepted and read correctly: never another exception, a NaN, or a reading on the wrong side of the
certified bracket of the PLD the file was written from (hockeystick's own reads of it, and dp_accounting's).

The corpus: every field of every PMF and the top level replaced by values of the wrong kind or range, masses zeroed,
cut short, halved or scaled down by less and more than the format's mass tolerance, sides swapped, fields missing
or unknown, texts that are not JSON or nest too deep; then seeded random replacements of a number anywhere in a file
by one from a pool of bad and borderline values."""

from __future__ import annotations

import json
import math
import random
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick.interop.exchange import ExchangedPLD, export_pld, import_pld, to_dp_accounting
from hockeystick.interop.exchange.pld_format import MASS_TOLERANCE

pytest.importorskip("dp_accounting")

DELTAS = (1e-2, 1e-4, 1e-6)
EPSILONS = (0.0, 0.5, 2.0)
BAD_NUMBERS: list[Any] = [
    None,
    True,
    False,
    "0.1",
    "",
    [],
    [0.1],
    {},
    -1,
    -1e-300,
    0,
    5e-324,
    1e-300,
    1e308,
    2**53,
    -(2**64),
    1.5,
    0.5,
]


def _sources() -> dict[str, tuple[pld.PrivacyLossDistribution, str]]:
    """The PLDs the files are written from, and the form written: composed PMFs (one direction and two) and a
    certified curve.

    The subsampled Gaussian is discretized on a grid of 0.05 (four PMFs of some 1,900 masses in all): every
    edit reaches the same checks on fewer masses, and the reference it is read against does not depend on
    the grid (its bracket is the run's, read by the question's reader, the same doubles at 0.01 and 0.05),
    so a wrong-side read is caught as it would be on a finer grid, for a fifth of the text to parse."""
    sampled = pld.subsampled_gaussian(
        sigma=1.0, sampling_rate=0.1, value_discretization_interval=5e-2
    ).self_compose(5)
    return {
        "laplace": (pld.laplace(1.0, value_discretization_interval=0.1), "composed"),
        "sampled": (sampled, "composed"),
        "sampled curve": (sampled, "curve"),
    }


def _edits(body: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """(name, edited body or text) for each deterministic edit of ``body``."""
    pmfs = [name for name in body if name.endswith(("pmf", "pmf_add"))]
    for name in pmfs:
        pmf = body[name]
        values = pmf["values"]
        total = math.fsum(values) + pmf["infinity_mass"]
        for field in (
            "discretization_interval",
            "min_key",
            "infinity_mass",
            "pessimistic_estimate",
        ):
            for bad in [*BAD_NUMBERS, "true", 1e20]:
                yield f"{name}.{field}={bad!r}", _with(body, name, field, bad)
            yield f"{name}.{field} missing", _without(body, name, field)
        yield (
            f"{name}.min_key loss beyond 700",
            _with(body, name, "min_key", int(800 / pmf["discretization_interval"])),
        )
        yield f"{name}.values zeroed", _with(body, name, "values", [0.0] * len(values))
        yield f"{name}.values first half", _with(body, name, "values", values[: len(values) // 2])
        yield f"{name}.values last half", _with(body, name, "values", values[len(values) // 2 :])
        yield f"{name}.values last dropped", _with(body, name, "values", values[:-1])
        yield f"{name}.values halved", _with(body, name, "values", [v / 2 for v in values])
        for scale in (1 - MASS_TOLERANCE / (10 * total), 1 - 10 * MASS_TOLERANCE):
            yield (
                f"{name}.values scaled {scale}",
                _with(body, name, "values", [v * scale for v in values]),
            )
        yield (
            f"{name}.values doubled",
            _with(body, name, "values", [min(2 * v, 1.0) for v in values]),
        )
        yield f"{name}.values empty", _with(body, name, "values", [])
        yield f"{name}.values a number", _with(body, name, "values", 0.5)
        yield f"{name}.values a string", _with(body, name, "values", "0.1,0.9")
        yield f"{name}.values nested", _with(body, name, "values", [values])
        for bad in ("0.1", True, None, [0.1], -1e-3, 1.5, {}):
            middle = list(values)
            middle[len(middle) // 2] = bad
            yield f"{name}.values[mid]={bad!r}", _with(body, name, "values", middle)
        yield f"{name} unknown field", _with(body, name, "extra", 1)
        yield f"{name} not an object", {**body, name: [1, 2]}
    for bad in [*BAD_NUMBERS, 1.0, 1e-300]:
        yield f"delta_floor={bad!r}", {**body, "delta_floor": bad}
    for bad in (2, "1", True, 1.0, None):
        yield f"version={bad!r}", {**body, "version": bad}
    yield "schema other", {**body, "schema": "other"}
    yield "schema missing", {k: v for k, v in body.items() if k != "schema"}
    yield "pessimistic_pmf missing", {k: v for k, v in body.items() if k != "pessimistic_pmf"}
    yield "unknown top field", {**body, "extra": 1}
    if "optimistic_pmf" in body:
        yield (
            "sides swapped",
            {
                **body,
                "pessimistic_pmf": body["optimistic_pmf"],
                "optimistic_pmf": body["pessimistic_pmf"],
            },
        )
    text = json.dumps(body)
    yield "truncated text", text[: len(text) // 2]
    yield "empty text", ""
    yield "a list", "[]"
    yield "null", "null"
    yield "NaN infinity", text.replace('"infinity_mass": 0.0', '"infinity_mass": NaN', 1)
    yield "deep nesting", "[" * 100000 + "]" * 100000
    yield "bytes not utf-8", b"\xff\xfe" + text.encode()


# An edited body shares every part it does not change with ``body`` (a new top level and a new copy of the
# edited PMF's object): the documents are only written out as text, never changed after they are made, and a
# deep copy of the masses per edit was most of the corpus' cost.
def _with(body: dict[str, Any], name: str, field: str, value: Any) -> dict[str, Any]:
    return {**body, name: {**body[name], field: value}}


def _without(body: dict[str, Any], name: str, field: str) -> dict[str, Any]:
    return {**body, name: {key: v for key, v in body[name].items() if key != field}}


def _random_edits(body: dict[str, Any], count: int, seed: int) -> Iterator[tuple[str, Any]]:
    """``count`` edits each replacing one number of ``body`` (a field or a mass) by one from the pool."""
    rng = random.Random(seed)
    pool = [*BAD_NUMBERS, 1.0, 1e-12, 0.999, -0.0, 1 - 1e-9, 2**52, 1e-10]
    for i in range(count):
        name = rng.choice([n for n in body if n.endswith(("pmf", "pmf_add"))])
        field = rng.choice(
            ["discretization_interval", "min_key", "infinity_mass", "values", "values"]
        )
        value = rng.choice(pool)
        if field == "values":
            values = list(body[name]["values"])
            values[rng.randrange(len(values))] = value
            value_written: Any = values
        else:
            value_written = value
        yield f"random {i}: {name}.{field}={value!r}", _with(body, name, field, value_written)


def _text(document: Any, written: dict[int, tuple[Any, str]]) -> str | bytes:
    """``document`` as ``json.dumps(document, allow_nan=True)`` writes it, each object or list written once
    per body: ``written`` maps its id to (the object, kept alive so that its id is not reused, its text).
    The edits share the unchanged PMFs and mass lists with their body, so most of a document's text is
    written already."""
    if isinstance(document, (str, bytes)):
        return document
    try:
        return _json(document, written)
    except (ValueError, OverflowError):  # a value json cannot write is a file no one can send
        return "{"


def _json(value: Any, written: dict[int, tuple[Any, str]]) -> str:
    """``json.dumps(value, allow_nan=True)``, its objects and lists looked up in ``written`` first."""
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        parts = (f"{json.dumps(key)}: {_json(item, written)}" for key, item in value.items())
        opened, closed = "{", "}"
    elif isinstance(value, list):
        parts = (_json(item, written) for item in value)
        opened, closed = "[", "]"
    else:
        return json.dumps(value, allow_nan=True)
    if id(value) not in written:
        written[id(value)] = (value, opened + ", ".join(parts) + closed)
    return written[id(value)][1]


def _bounds(reference: pld.PrivacyLossDistribution) -> dict[str, list[Any]]:
    """The reference's certified lower eps at DELTAS and (lower, upper) delta at EPSILONS."""
    return {
        "epsilon": [reference.epsilon(delta, bound="lower") for delta in DELTAS],
        "delta": [reference.delta(eps, bound="both") for eps in EPSILONS],
    }


def _read(text: str | bytes, bounds: dict[str, list[Any]]) -> str:
    """'refused' or 'accepted' (read on the right side of the reference's certified ``bounds``); anything else
    fails."""
    try:
        exchanged = ExchangedPLD.from_json(text)
        imported = import_pld(exchanged)
    except ValueError:
        return "refused"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = to_dp_accounting(exchanged)
        for delta, truth_low in zip(DELTAS, bounds["epsilon"]):
            ours = imported.epsilon(delta)
            assert not math.isnan(ours) and ours >= truth_low - 1e-12, (delta, ours, truth_low)
            read = theirs.get_epsilon_for_delta(delta)
            assert not math.isnan(read) and read >= truth_low - 1e-12, (delta, read, truth_low)
        for eps, (low, high) in zip(EPSILONS, bounds["delta"]):
            ours = imported.delta(eps)
            assert not math.isnan(ours) and ours >= low, (eps, ours, low)
            if exchanged.optimistic_pmf is not None:
                ours_low = imported.delta(eps, bound="lower")
                assert not math.isnan(ours_low) and ours_low <= high, (eps, ours_low, high)
    return "accepted"


def _corpus() -> list[tuple[str, str | bytes, str]]:
    corpus = []
    for source, (reference, form) in _sources().items():
        written: dict[int, tuple[Any, str]] = {}  # an edit shares parts with its own body only
        body = json.loads(export_pld(reference, form=form).to_json())  # type: ignore[arg-type]
        body["delta_floor"] = 1e-9
        for name, document in [*_edits(body), *_random_edits(body, 150, seed=len(source))]:
            corpus.append((f"{source}: {name}", _text(document, written), source))
    return corpus


@pytest.mark.slow
def test_every_malformed_file_is_refused_by_name_or_read_correctly(capsys):
    bounds = {source: _bounds(reference) for source, (reference, _) in _sources().items()}
    counts = {"refused": 0, "accepted": 0}
    for name, text, source in _corpus():
        try:
            outcome = _read(text, bounds[source])
        except AssertionError as error:
            raise AssertionError(f"{name}: read on the wrong side {error}") from None
        except Exception as error:  # noqa: BLE001  (the test's point: no other exception)
            raise AssertionError(f"{name}: {type(error).__name__}: {error}") from None
        counts[outcome] += 1
    with capsys.disabled():
        print(
            f"\nPLD format fuzz: {sum(counts.values())} cases, {counts['refused']} refused, "
            f"{counts['accepted']} accepted and read correctly"
        )
    assert counts["refused"] > 0 and counts["accepted"] > 0


@pytest.mark.parametrize(
    ("edit", "named"),
    [
        (
            lambda b: _with(
                b, "pessimistic_pmf", "values", [0.0] * len(b["pessimistic_pmf"]["values"])
            ),
            "sum to at least",
        ),
        (
            lambda b: _with(b, "pessimistic_pmf", "values", b["pessimistic_pmf"]["values"][:3]),
            "sum to at least",
        ),
        (
            lambda b: _with(
                b, "pessimistic_pmf", "values", [v / 2 for v in b["pessimistic_pmf"]["values"]]
            ),
            "sum to at least",
        ),
        (
            lambda b: _with(b, "pessimistic_pmf", "discretization_interval", 5e-324),
            "discretization_interval must be",
        ),
        (
            lambda b: _with(b, "pessimistic_pmf", "discretization_interval", 1e308),
            "discretization_interval must be",
        ),
        (
            lambda b: _with(
                b, "pessimistic_pmf", "values", ["0.1", *b["pessimistic_pmf"]["values"][1:]]
            ),
            "values must be",
        ),
        (
            lambda b: _with(
                b, "pessimistic_pmf", "values", [True, *b["pessimistic_pmf"]["values"][1:]]
            ),
            "values must be",
        ),
        (lambda b: _with(b, "pessimistic_pmf", "min_key", 10**6), "every loss"),
    ],
    ids=[
        "zeroed",
        "cut-short",
        "halved",
        "subnormal-spacing",
        "huge-spacing",
        "string-mass",
        "bool-mass",
        "far-loss",
    ],
)
def test_the_issue_reproducers_are_refused_naming_the_field_and_rule(edit, named):
    body = json.loads(export_pld(pld.laplace(1.0, value_discretization_interval=0.1)).to_json())
    with pytest.raises(ValueError, match=f"pessimistic_pmf.*{named}"):
        ExchangedPLD.from_json(json.dumps(edit(body)))


def test_a_small_deficit_is_charged_at_infinity_and_the_reading_stays_above():
    reference = pld.laplace(1.0, value_discretization_interval=0.1)
    body = json.loads(export_pld(reference).to_json())
    pmf = body["pessimistic_pmf"]
    excess = (
        math.fsum([*pmf["values"], pmf["infinity_mass"]]) - 1.0
    )  # a pessimistic export carries a little more
    lost = max(excess, 0.0) + MASS_TOLERANCE / 2
    top = max(
        range(len(pmf["values"])), key=lambda i: pmf["values"][i]
    )  # the largest mass loses it
    pmf["values"][top] -= lost
    imported = import_pld(ExchangedPLD.from_json(json.dumps(body)))
    eps = np.linspace(0.0, 1.2, 25)
    assert np.all(imported.delta(eps) >= reference.delta(eps, bound="lower"))
    assert imported.delta(50.0) >= MASS_TOLERANCE / 2 * (1 - 1e-6)  # the deficit sits at +infinity
