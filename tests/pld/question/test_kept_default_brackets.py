"""The default's epsilon brackets kept for a later ``accuracy=`` question (``default_reads.kept_epsilon_brackets``):
an accuracy asked after the default for the same point and delta takes the kept bracket instead of reading
the default's chain again, and gets the doubles a cold question gets; a question that differs (another
tail) reads the chain; the brackets kept are read-only; the table (``question.kept_readers.KeptValues``) keeps at
most ``most`` values, the least recently used forgotten first, and stays within that bound under threads.

The reference is the cold question itself (nothing kept), on the cross-device DP-FedAvg run at delta 1e-12,
where an accuracy finer than the default's tolerance intersects its refined bracket with the default's.
"""

from __future__ import annotations

import threading
import warnings

import pytest

import hockeystick.pld as pld
from hockeystick.pld.question import default_reads
from hockeystick.pld.question.kept_readers import KeptValues

FEDAVG = (1.0, 1e-3, 5000)
DELTA = 1e-12


def _bracket(**options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lower, upper = pld.SubsampledGaussianPLD(*FEDAVG, **options).epsilon(DELTA, bound="both")
    return float(lower).hex(), float(upper).hex()


def test_an_accuracy_after_the_default_takes_its_kept_bracket_bit_for_bit(monkeypatch) -> None:
    cold = _bracket(accuracy=1e-4)
    default_reads.forget_kept()
    kept: list[object] = []
    keep = KeptValues.keep
    monkeypatch.setattr(
        KeptValues, "keep", lambda table, key, value: (kept.append(value), keep(table, key, value))
    )
    default = _bracket()
    assert len(kept) == 1 and all(not side.flags.writeable for side in kept[0])  # read-only

    def not_read(*args, **kwargs):
        raise AssertionError("the default's chain read again")

    monkeypatch.setattr(default_reads, "epsilon_brackets", not_read)
    assert _bracket(accuracy=1e-4) == cold  # the kept bracket: no read, the same doubles
    assert float.fromhex(cold[1]) <= float.fromhex(default[1])  # more accuracy is never looser
    with pytest.raises(AssertionError, match="read again"):  # another tail: another question
        _bracket(accuracy=1e-4, tail=1e-20)
    default_reads.forget_kept()
    with pytest.raises(AssertionError, match="read again"):  # nothing kept: read
        _bracket(accuracy=1e-4)


def test_at_most_most_values_the_least_recently_used_forgotten() -> None:
    table: KeptValues[int] = KeptValues(2)
    table.keep("a", 0)
    table.keep("b", 1)
    assert table.kept("a") == 0  # "a" now the most recently used
    table.keep("c", 2)
    assert table.kept("b") is None and (table.kept("a"), table.kept("c")) == (0, 2)
    table.clear()
    assert table.kept("a") is None
    with pytest.raises(ValueError, match="most must be at least 1"):
        KeptValues(0)


def test_threads_keeping_and_reading_stay_within_the_bound() -> None:
    table: KeptValues[tuple[int, int]] = KeptValues(8)
    errors: list[BaseException] = []

    def work(start: int) -> None:
        try:
            for i in range(start, start + 2000):
                table.keep(i % 20, (i % 20, i))
                found = table.kept((i + 7) % 20)
                assert found is None or found[0] == (i + 7) % 20
        except BaseException as error:  # noqa: BLE001 - reported below, on the test's thread
            errors.append(error)

    threads = [threading.Thread(target=work, args=(k * 1000,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert sum(table.kept(i) is not None for i in range(20)) <= 8
