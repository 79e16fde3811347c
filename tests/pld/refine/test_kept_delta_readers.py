"""The default's fine delta read keeps its reader of (point, tail, threads) between calls
(``tilted_question.DELTA_READERS``): a later call reads as a new reader would, bit for bit, composes
no pessimistic window an earlier call composed and still holds (the core's held windows), and keeps
at most ``DELTA_WINDOW_POINTS`` window points.  The reference is the same read by a new reader (a fresh ``KeptReaders``), which each
accountant's first call got before readers were kept."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.pld.question import tilted_question
from hockeystick.pld.question.kept_readers import KeptReaders

# a DP-FedAvg-like run (few rounds, so each window is small) and a sparse one where the split read
# applies (T q <= tilted_question.SPLIT_SAMPLED_ROUNDS); whether each reads its deltas in one pass (the
# sparse run's, from the fixed grid's round-off floor 2.5e-12 down to 1e-24 and below, are read again
# with tails sized for the level found: pld/refine/fine_delta.hpp's kFineDeltaPasses, whose windows
# then pass the held budget)
RUNS = [
    (dict(sigma=1.0, sampling_rate=0.01, rounds=200), True),
    (dict(sigma=0.8, sampling_rate=1e-5, rounds=5000), False),
]
# the second call shares buckets with the first (centres 2^(k/2)) and adds one; then a scalar it asked
FIRST = np.array([0.6, 1.5, 3.0])
SECOND = np.array([0.65, 1.6, 2.2, 3.2])


def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new, empty memo of readers: every read after it starts from a new reader."""
    monkeypatch.setattr(
        tilted_question,
        "_DELTA_READERS",
        KeptReaders(
            tilted_question.DELTA_READERS,
            tilted_question._delta_reader,
            tilted_question.TiltedReader.drop_compositions,
        ),
    )


def hexes(lo: np.ndarray, up: np.ndarray) -> list[str]:
    return [float(v).hex() for v in np.concatenate([np.ravel(lo), np.ravel(up)])]


@pytest.mark.parametrize(("run", "one_pass"), RUNS, ids=["fedavg-like", "sparse"])
def test_a_kept_reader_reads_as_a_new_one(
    run: dict, one_pass: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = [FIRST, SECOND, np.array(3.2)]
    alone = []
    for eps in asked:
        fresh(monkeypatch)
        alone.append(hexes(*SubsampledGaussianPLD(**run).delta(eps, bound="both")))
    fresh(monkeypatch)
    kept = []
    for eps in asked:
        if eps is asked[-1]:
            ((reader, _),) = tilted_question._DELTA_READERS._kept.values()
            held = reader.core.held_points()[0]
        kept.append(hexes(*SubsampledGaussianPLD(**run).delta(eps, bound="both")))
        ((reader, _),) = tilted_question._DELTA_READERS._kept.values()
        assert reader.core.held_points()[0] <= tilted_question.DELTA_WINDOW_POINTS
    assert kept == alone
    if one_pass:
        # the scalar's buckets were composed by the call before it: no pessimistic window composed again
        assert 0 < reader.core.held_points()[0] == held


def test_the_least_recently_used_reader_is_forgotten_first_and_the_others_set_aside() -> None:
    made: list[str] = []
    aside: list[str] = []

    def make(key: object) -> str:
        made.append(str(key))
        return f"reader of {key}"

    kept: KeptReaders[str] = KeptReaders(2, make, aside.append)
    for key in ("a", "b", "a", "c", "a", "b"):
        with kept.lent(key) as reader:
            assert reader == f"reader of {key}"
    # "b" was the least recently used when "c" came, and is made again
    assert made == ["a", "b", "c", "b"]
    assert list(kept._kept) == ["a", "b"]
    # each lending sets aside the other reader kept
    assert aside == [f"reader of {k}" for k in ("a", "b", "a", "c", "a")]


def test_a_reader_is_lent_to_one_thread_at_a_time() -> None:
    kept: KeptReaders[list[int]] = KeptReaders(1, lambda key: [])
    inside, asking, release = threading.Event(), threading.Event(), threading.Event()
    order: list[str] = []

    def first() -> None:
        with kept.lent("k") as reader:
            inside.set()
            release.wait(5.0)
            reader.append(1)
            order.append("first done")

    def second() -> None:
        inside.wait(5.0)
        asking.set()
        with kept.lent("k") as reader:
            order.append(f"second sees {reader}")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    asking.wait(5.0)
    # unlent, the second thread would read the reader now, before the first is done with it
    threading.Event().wait(0.1)
    release.set()
    for t in threads:
        t.join(5.0)
    assert order == ["first done", "second sees [1]"]


def test_keeping_no_reader_is_refused_naming_the_argument() -> None:
    with pytest.raises(ValueError, match="most must be at least 1"):
        KeptReaders(0, lambda key: key)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="a process that cannot fork has no child")
def test_a_forked_process_starts_with_no_reader_kept() -> None:
    kept: KeptReaders[str] = KeptReaders(1, lambda key: str(key))
    with kept.lent("k"):
        pass
    child = os.fork()
    if child == 0:  # the child: 0 where it keeps nothing
        os._exit(1 if kept._kept else 0)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert list(kept._kept) == ["k"]
