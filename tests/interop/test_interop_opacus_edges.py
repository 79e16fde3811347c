"""``interop.opacus`` at the ends of its targets: an infinite or astronomically large target epsilon, and a
sample rate so small that the record is all but never drawn, answer at once with the documented result."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from hockeystick.interop.opacus import _SMALLEST_SIGMA, HockeystickOpacusAccountant

RUN = dict(target_delta=1e-5, sample_rate=0.01, steps=1000)

# The calls whose answers are read below, by name: all asked in one fresh interpreter (each a few CPU seconds to
# start), each call's answer or exception printed on its own line, so a test reads only its own call's outcome.
CALLS = {
    "infinite target": f"g(target_epsilon=float('inf'), **{RUN!r})",
    **{f"target={t!r}": f"g(target_epsilon={t!r}, **{RUN!r})" for t in (1e308, 1e7)},
    "never drawn": "g(target_epsilon=1.0, target_delta=1e-5, sample_rate=5e-324, steps=1000)",
    "zero target": "g(target_epsilon=0.0, target_delta=1e-5, sample_rate=0.01, steps=10)",
}
SECONDS_PER_CALL = 120.0  # a hang guard, not a timing


@pytest.fixture(scope="module")
def answers() -> dict[str, str]:
    """Each of ``CALLS``' printed answer (its repr, or ``error: <type>: <message>``) by name, from one fresh
    interpreter refused past ``SECONDS_PER_CALL`` per call (a hang fails the tests)."""
    code = (
        "from hockeystick.interop.opacus import get_noise_multiplier as g\n"
        f"for name, call in {list(CALLS.items())!r}:\n"
        "    try:\n"
        "        answer = repr(eval(call))\n"
        "    except Exception as error:\n"
        "        answer = f'error: {type(error).__name__}: {error}'\n"
        "    print(name + '\\t' + answer, flush=True)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=SECONDS_PER_CALL * len(CALLS),
    )
    assert out.returncode == 0, out.stderr
    return dict(line.split("\t", 1) for line in out.stdout.splitlines())


def _answer(answers: dict[str, str], name: str) -> float:
    """The value ``CALLS[name]`` returned in the fresh interpreter (an exception there fails the test)."""
    assert not answers[name].startswith("error"), (CALLS[name], answers[name])
    return float(answers[name])


def test_an_infinite_target_needs_no_noise(answers):
    """epsilon <= +inf holds for every run, one without noise too: 0.0, the least noise multiplier."""
    assert _answer(answers, "infinite target") == 0.0


@pytest.mark.parametrize("target", [1e308, 1e7])
def test_a_target_beyond_the_floors_rdp_epsilon_returns_the_floor(answers, target):
    """The least sigma searched already meets a target above its RDP epsilon (an upper bound): the floor."""
    assert _answer(answers, f"target={target!r}") == _SMALLEST_SIGMA


def test_a_record_all_but_never_drawn_has_epsilon_zero_at_any_noise(answers):
    """sample_rate 5e-324 over 1000 steps draws the record with probability < 1e-320 <= delta: epsilon 0 at every
    sigma, so the floor is the answer, and the accountant's bracket is (0, 0) without composing."""
    assert _answer(answers, "never drawn") == _SMALLEST_SIGMA
    a = HockeystickOpacusAccountant()
    a.history = [(_SMALLEST_SIGMA, 5e-324, 1000)]
    assert a.get_epsilon_bracket(1e-5) == (0.0, 0.0)


def test_rarely_sampled_agrees_with_the_composed_bracket():
    """Where steps x rate <= delta the composition itself certifies epsilon 0 (here 100 steps at 1e-8, delta
    1e-5): the shortcut gives what the PLD gives."""
    a = HockeystickOpacusAccountant()
    a.history = [(1.0, 1e-8, 100)]
    assert a.get_epsilon_bracket(1e-5) == (0.0, 0.0)
    assert a._current().epsilon(1e-5)[1] == 0.0
    assert math.isfinite(a.get_epsilon_bracket(1e-9)[1])


def test_a_zero_target_answers_with_the_least_sigma_bounding_the_total_variation(answers):
    """target_epsilon 0 bounds delta(0), the total variation distance, which falls to 0 as sigma grows: a finite
    sigma answers (the search bisects where the certified epsilon, exactly 0 on the meeting side, carries no
    slope for its secant), it meets the target and 1e-9 less does not.  120 s is a hang guard, not a timing."""
    from hockeystick.interop.opacus import HockeystickOpacusAccountant as Accountant

    sigma = _answer(answers, "zero target")
    assert 1e2 < sigma < 1e5

    def epsilon(s: float) -> float:
        acc = Accountant()
        acc.history = [(s, 0.01, 10)]
        return acc.get_epsilon(1e-5)

    assert epsilon(sigma) == 0.0 and epsilon(sigma * (1 - 1e-9)) > 0.0
