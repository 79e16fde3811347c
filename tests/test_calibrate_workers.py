"""calibrate(workers=): blocks of targets in threads, the same bits for any count, progress still moving.

The blocks are fixed (target i in block i mod 16), so a count of workers changes only which thread
solves a block: the answers must be equal bit for bit, through RDP (40 targets) and the PLD (sigma,
and rounds, which share one-round discretizations between threads through round_cache).  A failing
block raises the same error whatever the count; a closed form stays one block.
"""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick import progress
from hockeystick.calibrate import calibrate
from hockeystick.pld import round_cache

DELTA = 1e-5
RNG = np.random.default_rng(7)
Q = 10 ** RNG.uniform(-3, -1, 5)
EPS = RNG.uniform(1, 8, 5)
ROUNDS = np.round(10 ** RNG.uniform(1, 2.5, 5))


def test_rdp_answers_are_bit_identical_for_any_worker_count():
    eps, q = np.linspace(0.5, 8, 40), np.logspace(-3, -1, 40)
    rounds = np.round(np.logspace(1, 4, 40))
    got = [calibrate("rdp_subsampled_gaussian", "sigma", epsilon=eps, delta=DELTA, sampling_rate=q, rounds=rounds,
                     workers=w) for w in (1, 2, 3, -1)]
    for other in got[1:]:
        assert other.tobytes() == got[0].tobytes()
    one, four = (calibrate("rdp_subsampled_gaussian", "rounds", epsilon=eps, delta=DELTA, sampling_rate=q, sigma=3.0,
                           workers=w) for w in (1, 4))
    np.testing.assert_array_equal(one, four)


def test_a_closed_form_is_one_block_whatever_the_count(monkeypatch):
    """The Gaussian (no max_chunk: a closed form) is solved in one vectorized call per step: threads
    would cost it more in calls than they give."""
    import hockeystick.calibrate as module

    sizes: list[int] = []
    original = module._Problem.log_excess
    monkeypatch.setattr(module._Problem, "log_excess", lambda self, x, idx: sizes.append(idx.size) or original(self, x, idx))
    eps, rounds = np.linspace(0.5, 8, 40), np.round(np.logspace(0, 4, 40))
    calibrate("gaussian", "sigma", epsilon=eps, delta=DELTA, rounds=rounds, workers=4)
    assert sizes[0] == 40


@pytest.mark.parametrize("parameter", ["sigma", "rounds"])
def test_pld_answers_are_bit_identical_for_any_worker_count(parameter):
    fixed = {"rounds": ROUNDS} if parameter == "sigma" else {"sigma": 2.0}
    got = []
    for workers in (1, 2, 3):
        round_cache.clear()
        got.append(calibrate("pld_subsampled_gaussian", parameter, epsilon=EPS, delta=DELTA, sampling_rate=Q,
                             value_discretization_interval=5e-4, rtol=1e-8, workers=workers, **fixed))
    for other in got[1:]:
        assert np.asarray(other).tobytes() == np.asarray(got[0]).tobytes()


def test_threads_move_the_bar_and_hide_trials_from_an_outer_listener(capsys):
    kwargs = dict(epsilon=EPS[:3], delta=DELTA, sampling_rate=Q[:3], rounds=ROUNDS[:3], value_discretization_interval=1e-3,
                  rtol=1e-4)
    shown = calibrate("pld_subsampled_gaussian", "sigma", progress=True, workers=2, **kwargs)
    err = capsys.readouterr().err
    assert "calibrate pld_subsampled_gaussian sigma" in err and "targets open" in err
    seen: list[int] = []
    with progress.reporting(seen.append):
        quiet = calibrate("pld_subsampled_gaussian", "sigma", workers=2, **kwargs)
    assert seen == [] and capsys.readouterr().err == ""
    np.testing.assert_array_equal(shown, quiet)


@pytest.mark.parametrize("workers", [0, 1.5, True, "2"])
def test_workers_must_be_a_nonzero_integer(workers):
    with pytest.raises(ValueError, match="workers must be a nonzero integer"):
        calibrate("gaussian", "sigma", epsilon=1.0, delta=DELTA, rounds=10, workers=workers)


def test_an_unreachable_target_raises_the_same_error_for_any_worker_count():
    q = np.where(np.arange(20) % 7 == 3, 0.5, 1e-3)   # at sigma 0.3, 1 round at rate 0.5 already breaks these
    messages = set()
    for workers in (1, 2, 5):
        with pytest.raises(ValueError, match="unreachable") as caught:
            calibrate("rdp_subsampled_gaussian", "rounds", epsilon=1.0, delta=DELTA, sigma=0.3, sampling_rate=q,
                      workers=workers)
        messages.add(str(caught.value))
    assert len(messages) == 1
