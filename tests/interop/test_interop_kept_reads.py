"""``HockeystickPLDAccountant`` reads a question once per composition (``interop.dp_accounting.kept_reads``).

``get_epsilon`` then ``get_epsilon_bracket`` at one delta (and ``get_delta`` then ``get_delta_bracket`` at
one epsilon) read the composition once; the kept answer is a fresh accountant's, raises the warnings a
fresh read raises, at the caller's line, through the filters in force; a ``compose`` reads anew.  The
reads are counted at ``secure_aggregation_profile``, the first step of every bracket the accountant reads.
"""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("dp_accounting")

from dp_accounting import dp_event as E  # noqa: E402

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant  # noqa: E402
from hockeystick.interop.dp_accounting import pld_accountant as adapter  # noqa: E402
from hockeystick.interop.dp_accounting.kept_reads import KEPT, RECORDING, KeptReads  # noqa: E402
from hockeystick.pld.refine import AccuracyNotMetWarning  # noqa: E402

# 50 Poisson-subsampled Gaussians and a Laplace at delta 1e-14: the default grid's tails leave its
# upper side infinite: the default reads the RDP conversion's and warns, naming accuracy= (40 ms)
WIDE = E.ComposedDpEvent(
    [
        E.SelfComposedDpEvent(E.PoissonSampledDpEvent(0.01, E.GaussianDpEvent(1.0)), 50),
        E.LaplaceDpEvent(20.0),
    ]
)
WIDE_DELTA = 1e-14


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per bracket the accountants read (not given back kept)."""
    counted: list[int] = []
    profile = adapter.secure_aggregation_profile

    def counting(*args, **kwargs):
        counted.append(1)
        return profile(*args, **kwargs)

    monkeypatch.setattr(adapter, "secure_aggregation_profile", counting)
    return counted


def test_a_question_asked_again_is_read_once_and_a_compose_reads_anew(reads: list[int]) -> None:
    event, more = E.GaussianDpEvent(1.0), E.LaplaceDpEvent(2.0)
    accountant = HockeystickPLDAccountant().compose(event, 10)
    epsilon = accountant.get_epsilon(1e-5)
    assert accountant.get_epsilon_bracket(1e-5)[1] == epsilon and len(reads) == 1
    delta = accountant.get_delta(1.0)
    assert accountant.get_delta_bracket(1.0)[1] == delta and len(reads) == 2
    fresh = HockeystickPLDAccountant().compose(event, 10)
    assert fresh.get_epsilon_bracket(1e-5) == accountant.get_epsilon_bracket(1e-5)
    assert fresh.get_delta_bracket(1.0) == accountant.get_delta_bracket(1.0)
    accountant.compose(more)
    grown = HockeystickPLDAccountant().compose(event, 10).compose(more)
    after = accountant.get_epsilon_bracket(1e-5)
    assert after == grown.get_epsilon_bracket(1e-5) and after[1] > epsilon
    after_delta = accountant.get_delta_bracket(1.0)
    assert after_delta == grown.get_delta_bracket(1.0) and after_delta[1] > delta


def test_a_kept_answer_raises_the_warnings_of_a_fresh_read(reads: list[int]) -> None:
    accountant = HockeystickPLDAccountant().compose(WIDE)
    with pytest.warns(AccuracyNotMetWarning, match="accuracy=") as first:
        upper = accountant.get_epsilon(WIDE_DELTA)
    with pytest.warns(AccuracyNotMetWarning, match="accuracy=") as again:
        bracket = accountant.get_epsilon_bracket(WIDE_DELTA)
    assert len(reads) == 1 and bracket[1] == upper
    assert [str(w.message) for w in again] == [str(w.message) for w in first]
    # both point at the caller's line, in this file
    assert {w.filename for w in [*first, *again]} == {__file__}
    with warnings.catch_warnings():  # the filters in force when the kept answer is given
        warnings.simplefilter("error", AccuracyNotMetWarning)
        with pytest.raises(AccuracyNotMetWarning, match="accuracy="):
            accountant.get_epsilon_bracket(WIDE_DELTA)
    assert len(reads) == 1


def test_the_store_keeps_the_last_questions_and_nothing_of_a_failed_read() -> None:
    kept: KeptReads[int] = KeptReads()
    for question in range(KEPT + 1):
        assert kept.read(question, lambda question=question: question) == question
    assert kept.read(0, lambda: -1) == -1  # the oldest was let go
    assert kept.read(KEPT, lambda: -1) == KEPT

    def failing() -> int:
        warnings.warn("before the failure", UserWarning, stacklevel=1)
        raise ValueError("refused")

    with pytest.warns(UserWarning, match="before the failure"), pytest.raises(ValueError):
        kept.read("failing", failing)
    assert kept.read("failing", lambda: 7) == 7


def test_a_read_asked_while_another_records_is_a_plain_read() -> None:
    """Another thread recording (``RECORDING`` held): the answer is computed, its warning raised as it
    comes, and nothing kept; once free, the next read is kept."""
    kept: KeptReads[int] = KeptReads()

    def warning(value: int) -> int:
        warnings.warn("read", UserWarning, stacklevel=1)
        return value

    with RECORDING:
        for value in (1, 2):
            with pytest.warns(UserWarning, match="read"):
                assert kept.read("question", lambda value=value: warning(value)) == value
    with pytest.warns(UserWarning, match="read"):
        assert kept.read("question", lambda: warning(3)) == 3
    with pytest.warns(UserWarning, match="read"):
        assert kept.read("question", lambda: warning(4)) == 3
