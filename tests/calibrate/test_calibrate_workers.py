"""calibrate(workers=): blocks of targets in threads, the same bits for any count, progress still moving.

The blocks are fixed (target i in block i mod 16), so a count of workers changes only which thread
solves a block: the answers must be equal bit for bit, through RDP (17 targets) and the PLD (sigma,
and rounds, which share one-round discretizations between threads through round_cache).  A failing
block raises the same error whatever the count; a closed form stays one block.
"""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.base import progress
from hockeystick.base.validation import workers as resolved_workers
from hockeystick.calibrate import calibrate
from hockeystick.fdp.gaussian_mechanism import GaussianMechanism
from hockeystick.pld.refine import directional_delta, round_cache

DELTA = 1e-5
RNG = np.random.default_rng(7)
Q = 10 ** RNG.uniform(-3, -1, 5)
EPS = RNG.uniform(1, 8, 5)
ROUNDS = np.round(10 ** RNG.uniform(1, 2.5, 5))


@pytest.mark.slow
def test_rdp_answers_are_bit_identical_for_any_worker_count():
    # 17 targets over the same ranges: one more than the 16 blocks, so that one block holds two targets and
    # the threads split an uneven load; equal bits do not depend on how many targets a block holds (each
    # target costs about 0.2 s in RDP's fractional-order series, so every target more is 1.2 s of the test)
    eps, q = np.linspace(0.5, 8, 17), np.logspace(-3, -1, 17)
    rounds = np.round(np.logspace(1, 4, 17))
    # every core (-1) and the count it resolves to run the same threads over the same blocks: a count equal
    # to it (2 on a 2-core machine) would repeat that run, so 2 and 3 run where they differ from it
    counts = [1, -1, *(w for w in (2, 3) if w != resolved_workers(-1))]
    got = [
        calibrate(
            "rdp_subsampled_gaussian",
            "sigma",
            epsilon=eps,
            delta=DELTA,
            sampling_rate=q,
            rounds=rounds,
            workers=w,
        )
        for w in counts
    ]
    for other in got[1:]:
        assert other.tobytes() == got[0].tobytes()
    one, four = (
        calibrate(
            "rdp_subsampled_gaussian",
            "rounds",
            epsilon=eps,
            delta=DELTA,
            sampling_rate=q,
            sigma=3.0,
            workers=w,
        )
        for w in (1, 4)
    )
    np.testing.assert_array_equal(one, four)


def test_a_closed_form_is_one_block_whatever_the_count(monkeypatch):
    """The Gaussian (no max_chunk: a closed form) is solved in one vectorized call per step: threads
    would cost it more in calls than they give."""
    sizes: list[int] = []
    original = GaussianMechanism.delta
    monkeypatch.setattr(
        GaussianMechanism,
        "delta",
        lambda self, epsilon, *a, **k: (
            sizes.append(np.size(epsilon)) or original(self, epsilon, *a, **k)
        ),
    )
    eps, rounds = np.linspace(0.5, 8, 40), np.round(np.logspace(0, 4, 40))
    calibrate("gaussian", "sigma", epsilon=eps, delta=DELTA, rounds=rounds, workers=4)
    assert sizes[0] == 40


@pytest.mark.parametrize("parameter", ["sigma", "rounds"])
def test_pld_answers_are_bit_identical_for_any_worker_count(parameter):
    fixed = {"rounds": ROUNDS} if parameter == "sigma" else {"sigma": 2.0}
    got = []
    for workers in (1, 2, 3):
        round_cache.clear()
        got.append(
            calibrate(
                "pld_subsampled_gaussian",
                parameter,
                epsilon=EPS,
                delta=DELTA,
                sampling_rate=Q,
                value_discretization_interval=5e-4,
                rtol=1e-8,
                workers=workers,
                **fixed,
            )
        )
    for other in got[1:]:
        assert np.asarray(other).tobytes() == np.asarray(got[0]).tobytes()


def test_threads_move_the_bar_and_report_targets_not_trials_to_an_outer_listener(capsys):
    kwargs = dict(
        epsilon=EPS[:3],
        delta=DELTA,
        sampling_rate=Q[:3],
        rounds=ROUNDS[:3],
        value_discretization_interval=1e-3,
        rtol=1e-4,
    )
    shown = calibrate("pld_subsampled_gaussian", "sigma", progress=True, workers=2, **kwargs)
    err = capsys.readouterr().err
    assert "calibrate pld_subsampled_gaussian sigma" in err and "targets open" in err
    seen: list[int] = []
    with progress.reporting(seen.append):
        quiet = calibrate("pld_subsampled_gaussian", "sigma", workers=2, **kwargs)
    assert (
        seen == [1, 1, 1] and capsys.readouterr().err == ""
    )  # one report per target solved, none per trial
    np.testing.assert_array_equal(shown, quiet)


@pytest.mark.parametrize("workers", [0, 1.5, True, "2"])
def test_workers_must_be_a_nonzero_integer(workers):
    with pytest.raises(ValueError, match="workers must be a nonzero integer or None"):
        calibrate("gaussian", "sigma", epsilon=1.0, delta=DELTA, rounds=10, workers=workers)


def test_an_unreachable_target_raises_the_same_error_for_any_worker_count():
    q = np.where(
        np.arange(20) % 7 == 3, 0.5, 1e-3
    )  # at sigma 0.3, 1 round at rate 0.5 already breaks these
    messages = set()
    for workers in (1, 2, 5):
        with pytest.raises(ValueError, match="unreachable") as caught:
            calibrate(
                "rdp_subsampled_gaussian",
                "rounds",
                epsilon=1.0,
                delta=DELTA,
                sigma=0.3,
                sampling_rate=q,
                workers=workers,
            )
        messages.add(str(caught.value))
    assert len(messages) == 1


def test_workers_convention(monkeypatch):
    """scipy's convention (-1 every core, -2 all but one) and a default capped by OMP_NUM_THREADS,
    which Dask's nannies set to 1 so that a worker process does not start a thread per core."""
    from hockeystick.base import validation as _validation

    cores = _validation.workers(-1)
    assert cores >= 1 and _validation.workers(3) == 3
    assert _validation.workers(-2) == max(1, cores - 1)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert _validation.workers(None) == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "not a number")
    assert _validation.workers(None) == cores
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert _validation.workers(None) == cores


def test_an_rtol_below_the_spacing_of_doubles_ends(monkeypatch):
    """The PLD search's last stage steps rtol across its noisy root; with rtol 1e-16 (accepted: it lies
    in (0, 1)) the probe rounds onto an end of the bracket, and the search must end there rather than
    evaluate that end forever.  The answer still meets the target on the certified upper side."""
    import hockeystick.pld as pld

    calls = [0]
    real = pld.SubsampledGaussianPLD.delta

    def counted(self, *args, **kwargs):
        calls[0] += 1
        assert calls[0] < 500, "the search does not end"
        return real(self, *args, **kwargs)

    monkeypatch.setattr(pld.SubsampledGaussianPLD, "delta", counted)
    leading = directional_delta.SubsampledGaussianDirections.leading  # the sigma search's trials

    def counted_leading(self, *args, **kwargs):
        calls[0] += 1
        assert calls[0] < 500, "the search does not end"
        return leading(self, *args, **kwargs)

    monkeypatch.setattr(directional_delta.SubsampledGaussianDirections, "leading", counted_leading)
    sigma = calibrate(
        "pld_subsampled_gaussian",
        "sigma",
        epsilon=2.0,
        delta=DELTA,
        sampling_rate=0.01,
        rounds=100,
        rtol=1e-16,
        workers=1,
    )
    assert (
        calls[0] > 0
        and real(pld.SubsampledGaussianPLD(sigma=sigma, sampling_rate=0.01, rounds=100), 2.0)
        <= DELTA
    )


def test_an_rtol_below_the_spacing_of_doubles_ends_the_root_finder(monkeypatch):
    """Chandrupatla's refinement (the Gaussian's sigma: a closed form, no settling steps) at rtol 5e-324
    closes its bracket onto adjacent doubles in about 30 steps and must stop there rather than evaluate an
    end until scipy's maxiter (about 2000 calls).  The answer meets the target by the Gaussian mechanism's
    exact delta (Balle & Wang 2018, Thm 8), in mpmath at 50 digits."""
    import mpmath

    calls = [0]
    real = GaussianMechanism.delta

    def counted(self, *args, **kwargs):
        calls[0] += 1
        return real(self, *args, **kwargs)

    monkeypatch.setattr(GaussianMechanism, "delta", counted)
    sigma = calibrate(
        "gaussian", "sigma", epsilon=1.0, delta=DELTA, rounds=3, rtol=5e-324, workers=1
    )
    assert 0 < calls[0] < 200
    with mpmath.workdps(50):
        mu = mpmath.sqrt(3) / mpmath.mpf(sigma)
        exact = mpmath.ncdf(-1 / mu + mu / 2) - mpmath.e * mpmath.ncdf(-1 / mu - mu / 2)
        assert exact <= mpmath.mpf(DELTA)


def test_an_accountant_in_a_block_thread_runs_single_threaded(monkeypatch):
    """Blocks side by side: each accountant gets workers=1 (no thread team per block); workers=1 too."""
    import hockeystick.pld as pld

    seen = []
    real = pld.SubsampledGaussianPLD.delta

    def spy(self, *args, **kwargs):
        seen.append(self.workers)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(pld.SubsampledGaussianPLD, "delta", spy)
    directions = (
        directional_delta.SubsampledGaussianDirections
    )  # the sigma search's trials, one direction each
    leading, others = directions.leading, directions.others

    def spy_leading(self, params, epsilon, threads):
        seen.append(threads)
        return leading(self, params, epsilon, threads)

    def spy_others(self, params, epsilon, threads, screen=False):
        seen.append(threads)
        return others(self, params, epsilon, threads, screen)

    monkeypatch.setattr(directions, "leading", spy_leading)
    monkeypatch.setattr(directions, "others", spy_others)
    # two targets are two blocks, solved side by side in two threads: one with T q > 1, one with T q <= 1 (whose
    # delta reads split the rounds); the other three targets would add 10 s and no other kind of block
    pair = [1, 4]
    for parameter, fixed in (("sigma", {"rounds": ROUNDS[pair]}), ("rounds", {"sigma": 2.0})):
        seen.clear()
        calibrate(
            "pld_subsampled_gaussian",
            parameter,
            epsilon=EPS[pair],
            delta=DELTA,
            sampling_rate=Q[pair],
            workers=2,
            **fixed,
        )
        assert seen and set(seen) == {1}
