"""One run, one bracket, whatever door it is asked through (pld/question).

The same rounds of Poisson-subsampled Gaussians asked through the PLD objects, the ``PLDAccountant`` (default and on a
grid), ``SubsampledGaussianPLD`` and ``DPSGD`` on a grid, the ledger, Flower's and Opacus's accountants, the
dp_accounting adapter (default and on a grid) and the compose stages must give the front door's bracket
(``SubsampledGaussianPLD``'s default; for several stages, the dp_accounting adapter's): every bracket is certified,
so any two overlap, and each upper side lies within max(1e-3, 0.1 % eps) of the front door's.
Each upper side is also checked against the RDP conversion and dp_accounting's default PLD, live.
"""

from __future__ import annotations

import functools
import math
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick.ledger import PrivacyLedger, Round
from hockeystick.pld.accountants.stages import compose_stages
from hockeystick.rdp import SubsampledGaussianRDP
from hockeystick.training import DPSGD

# (noise multiplier, sample size, population, rounds): the README's DP-SGD run and a cross-device DP-FedAvg run
RUNS = {
    "readme": (1.1, 256, 60_000, 14_100),
    "fedavg": (1.0, 1000, 1_000_000, 5000),
}
DELTAS = [
    1e-10,
    pytest.param(1e-12, marks=pytest.mark.slow),
    pytest.param(1e-5, marks=pytest.mark.slow),
]


def tolerance(eps: float) -> float:
    """max(1e-3, 0.1 % eps): how far apart two doors' upper sides may be."""
    return max(1e-3, 1e-3 * eps)


def _quiet(read):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read()


# the doors whose object answers both questions, epsilon(delta) and delta(epsilon) with bound="both", made for
# (sigma, q, rounds); tests/pld/question/test_delta_doors.py asks them the other way round
ANSWERING = {
    "pld_object": lambda sigma, q, rounds: pld.subsampled_gaussian(sigma, q).self_compose(rounds),
    # a user's coarse grid: the question reads it on its own grids all the same
    "pld_object_coarse": lambda sigma, q, rounds: pld.subsampled_gaussian(
        sigma, q, value_discretization_interval=1e-2
    ).self_compose(rounds),
    "accountant_default": lambda sigma, q, rounds: pld.PLDAccountant().compose_subsampled_gaussian(
        sigma, q, rounds
    ),
    "accountant_on_grid": lambda sigma, q, rounds: pld.PLDAccountant(
        value_discretization_interval=1e-4
    ).compose_subsampled_gaussian(sigma, q, rounds),
    # dp_accounting's grid given to the front door itself: its plain composition is wide at a small delta
    "subsampled_gaussian_on_grid": lambda sigma, q, rounds: pld.SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=q, rounds=rounds, value_discretization_interval=1e-4
    ),
    "dpsgd_on_grid": lambda sigma, q, rounds: DPSGD(
        noise_multiplier=sigma, sample_rate=q, steps=rounds, value_discretization_interval=1e-4
    ),
    "compose": lambda sigma, q, rounds: compose_stages(
        [{"mechanism": "subsampled_gaussian", "sigma": sigma, "sampling_rate": q, "rounds": rounds}]
    ),
}


def _epsilon_of(make, sigma, q, rounds, delta):
    return make(sigma, q, rounds).epsilon(delta, bound="both")


def pld_object(sigma, q, rounds, delta):
    return _epsilon_of(ANSWERING["pld_object"], sigma, q, rounds, delta)


def ledger(sigma, q, rounds, delta):
    book = PrivacyLedger(adaptive=False)
    book.record(Round.subsampled_gaussian(sigma, q), rounds=rounds)
    guarantee = book.composition(delta)
    return guarantee.epsilon_lower, guarantee.epsilon


def ledger_from_run(sigma, q, rounds, delta):
    guarantee = PrivacyLedger.from_run(
        DPSGD(noise_multiplier=sigma, sample_rate=q, steps=rounds)
    ).composition(delta)
    return guarantee.epsilon_lower, guarantee.epsilon


def flower_accountant(sigma, rounds, delta, sample_size, population):
    """Flower's accountant of the run (population and sample size in Flower's words), its target delta given."""
    from hockeystick.interop.flower import HockeystickPrivacyAccountant

    config = SimpleNamespace(
        target_delta=delta,
        population_size=population,
        neighboring_relation="add-or-remove-one",
        sampling_method="poisson",
        max_epsilon=None,
    )
    accountant = HockeystickPrivacyAccountant(config, adaptive=False)
    accountant.compose(
        SimpleNamespace(
            noise_multiplier=sigma, sample_size=sample_size, population_size=population
        ),
        rounds,
    )
    return accountant


def flower(sigma, q, rounds, delta, sample_size, population):
    guarantee = flower_accountant(sigma, rounds, delta, sample_size, population).guarantee(delta)
    return guarantee.epsilon_lower, guarantee.epsilon


def composed_adapter(sigma, q, rounds, grid=None):
    """The dp_accounting adapter with the run composed, on its default question or on a grid the caller fixed (the
    plan then reads the run it composed, as the PLD objects do)."""
    dp_event = pytest.importorskip("dp_accounting.dp_event")
    from hockeystick.interop.dp_accounting import HockeystickPLDAccountant

    event = dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma))
    settings = {} if grid is None else {"value_discretization_interval": grid}
    return HockeystickPLDAccountant(**settings).compose(event, rounds)


def dp_accounting_adapter(sigma, q, rounds, delta):
    return composed_adapter(sigma, q, rounds).get_epsilon_bracket(delta)


def dp_accounting_adapter_on_grid(sigma, q, rounds, delta):
    return composed_adapter(sigma, q, rounds, 1e-4).get_epsilon_bracket(delta)


def opacus_adapter(sigma, q, rounds, delta):
    from hockeystick.interop.opacus import HockeystickOpacusAccountant

    accountant = HockeystickOpacusAccountant()
    accountant.history = [(sigma, q, rounds)]
    return accountant.get_epsilon_bracket(delta)


DOORS = {
    **{name: functools.partial(_epsilon_of, make) for name, make in ANSWERING.items()},
    "ledger": ledger,
    "ledger_from_run": ledger_from_run,
    "flower": flower,
    "dp_accounting": dp_accounting_adapter,
    "dp_accounting_on_grid": dp_accounting_adapter_on_grid,
    "opacus": opacus_adapter,
}


@functools.cache
def _front(sigma, q, rounds, delta):
    """``DPSGD``'s default bracket of the run at ``delta``, read once a process: every door's test of one run and
    delta compares with it."""
    return _quiet(
        lambda: DPSGD(noise_multiplier=sigma, sample_rate=q, steps=rounds).epsilon(
            delta, bound="both"
        )
    )


def _rdp(sigma, q, rounds, delta):
    return float(SubsampledGaussianRDP(sigma=sigma, sampling_rate=q, rounds=rounds).epsilon(delta))


@pytest.mark.parametrize("delta", DELTAS)
@pytest.mark.parametrize("run", sorted(RUNS))
@pytest.mark.parametrize("door", sorted(DOORS))
def test_every_door_gives_the_front_doors_bracket(door, run, delta):
    sigma, sample_size, population, rounds = RUNS[run]
    q = sample_size / population
    read = DOORS[door]
    extra = (sample_size, population) if door == "flower" else ()
    lower, upper = _quiet(lambda: read(sigma, q, rounds, delta, *extra))
    front_lower, front_upper = _front(sigma, q, rounds, delta)
    assert lower <= front_upper and front_lower <= upper, (
        door,
        (lower, upper),
        (front_lower, front_upper),
    )
    assert math.isfinite(upper), (door, lower, upper)
    assert abs(upper - front_upper) <= tolerance(front_upper), (door, upper, front_upper)
    assert upper <= _rdp(sigma, q, rounds, delta) * (1 + 1e-9), (door, upper)


@pytest.mark.parametrize("delta", [1e-10, pytest.param(1e-12, marks=pytest.mark.slow)])
def test_the_pld_object_is_no_looser_than_dp_accountings_default_pld(delta):
    """The PLD object's upper side against dp_accounting's default PLD (1e-4 grid, pessimistic), live: no looser
    than max(theirs, our certified lower side) by more than max(1e-3, 0.5 %) (theirs is an estimate, at times below
    the truth)."""
    dp_accounting = pytest.importorskip("dp_accounting")
    for sigma, sample_size, population, rounds in RUNS.values():
        q = sample_size / population
        lower, upper = _quiet(lambda: pld_object(sigma, q, rounds, delta))
        accountant = dp_accounting.pld.PLDAccountant()
        event = dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma))
        theirs = accountant.compose(event, rounds).get_epsilon(delta)
        assert upper <= max(theirs, lower) + max(1e-3, 5e-3 * upper), (upper, theirs, lower)


def test_two_stages_read_alike_through_every_door():
    """Two stages of different noise: the PLD object, the accountant, the ledger and the compose stages give the
    dp_accounting adapter's bracket (the tilted composition of the factors)."""
    dp_event = pytest.importorskip("dp_accounting.dp_event")
    from hockeystick.interop.dp_accounting import HockeystickPLDAccountant

    q, delta = 256 / 60_000, 1e-10
    stages = [(1.1, 7050), (0.9, 7050)]
    adapter = HockeystickPLDAccountant()
    for sigma, rounds in stages:
        adapter.compose(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), rounds)
    front_lower, front_upper = _quiet(lambda: adapter.get_epsilon_bracket(delta))
    dist = (
        pld.subsampled_gaussian(1.1, q)
        .self_compose(7050)
        .compose(pld.subsampled_gaussian(0.9, q).self_compose(7050))
    )
    book = PrivacyLedger(adaptive=False)
    accountant = pld.PLDAccountant(value_discretization_interval=1e-4)
    for sigma, rounds in stages:
        book.record(Round.subsampled_gaussian(sigma, q), rounds=rounds)
        accountant.compose_subsampled_gaussian(sigma, q, rounds)
    files = compose_stages(
        [
            {"mechanism": "subsampled_gaussian", "sigma": s, "sampling_rate": q, "rounds": t}
            for s, t in stages
        ]
    )
    found = {
        "pld_object": _quiet(lambda: dist.epsilon(delta, bound="both")),
        "accountant": _quiet(lambda: accountant.epsilon(delta, bound="both")),
        "ledger": (lambda g: (g.epsilon_lower, g.epsilon))(_quiet(lambda: book.composition(delta))),
        "compose": _quiet(lambda: files.epsilon(delta, bound="both")),
    }
    for door, (lower, upper) in found.items():
        assert lower <= front_upper and front_lower <= upper, (
            door,
            lower,
            upper,
            front_lower,
            front_upper,
        )
        assert abs(upper - front_upper) <= tolerance(front_upper), (door, upper, front_upper)


def test_the_pld_objects_delta_is_the_front_doors():
    """delta at epsilon through the PLD object: the front door's bracket (both certified: they overlap), its upper
    side within 1 % of the front door's, over an array of epsilon."""
    sigma, q, rounds = 1.1, 256 / 60_000, 14_100
    eps = np.array([1.0, 2.0, 4.0])
    lower, upper = pld.subsampled_gaussian(sigma, q).self_compose(rounds).delta(eps, bound="both")
    front_lower, front_upper = DPSGD(noise_multiplier=sigma, sample_rate=q, steps=rounds).delta(
        eps, bound="both"
    )
    assert np.all(lower <= front_upper) and np.all(front_lower <= upper)
    assert np.all(np.abs(upper - front_upper) <= 1e-2 * front_upper)


def test_a_gaussian_pld_reads_the_closed_form():
    """Rounds of Gaussians through the PLD object: theta at r = sqrt(sum c / s^2), rounded outward (the bracket
    holds mpmath's value at 50 digits and is a few ulps wide)."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 50
    dist = (
        pld.gaussian(2.0)
        .self_compose(10)
        .compose(pld.gaussian(1.0, value_discretization_interval=1e-4))
    )
    r = mpmath.sqrt(mpmath.mpf(10) / 4 + 1)
    eps = mpmath.mpf(1)
    exact = mpmath.ncdf(-eps / r + r / 2) - mpmath.e**eps * mpmath.ncdf(-eps / r - r / 2)
    lower, upper = dist.delta(1.0, bound="both")
    assert lower <= exact <= upper
    assert upper - lower <= 1e-10 * upper


def test_a_one_direction_pld_keeps_its_own_sides():
    """A PLD of the remove direction alone bounds that direction only: it is not read as the run (whose bracket
    is the larger of the two directions)."""
    (remove,) = pld.mechanisms.constructors.subsampled_gaussians(1.0, 0.5, directions="remove")
    both = pld.subsampled_gaussian(1.0, 0.5)
    own = remove.self_compose(3).epsilon(1e-5, bound="both", composition_only=True)
    assert remove.self_compose(3).epsilon(1e-5, bound="both") == own
    assert both.self_compose(3).epsilon(1e-5, bound="both") != own  # the run's: the front door's


def test_the_ledgers_curve_along_the_run_is_the_front_doors():
    """The ledger's bracket after each checkpoint (``composition_curve``, the compose command's ``--every``) against
    the front door's curve at delta 1e-10: the same brackets, checkpoint by checkpoint."""
    sigma, q, rounds = 1.1, 256 / 60_000, 14_100
    book = PrivacyLedger(adaptive=False)
    book.record(Round.subsampled_gaussian(sigma, q), rounds=rounds)
    curve = _quiet(lambda: book.composition_curve(1e-10, every=4700))
    front = _quiet(
        lambda: DPSGD(noise_multiplier=sigma, sample_rate=q, steps=rounds).epsilon_curve(
            1e-10, every=4700
        )
    )
    assert np.array_equal(curve.steps, front.steps)
    assert np.all(curve.lower <= front.upper) and np.all(front.lower <= curve.upper)
    assert np.all(np.abs(curve.upper - front.upper) <= np.maximum(1e-3, 1e-3 * front.upper))


@pytest.mark.parametrize("sigma, q, rounds", [(50.0, 1e-6, 10**11), (5.0, 1e-4, 10**8)])
def test_the_fixed_ledger_reads_like_the_run_at_many_rounds(sigma, q, rounds):
    """A fixed schedule of 10^8 to 10^11 rounds: the ledger's composition is the run's bracket (it was [0, inf] and
    [0, 1.574] on its own grid), finite and overlapping ``DPSGD``'s, and a budgeted fixed ledger that admits such a run
    by RDP reports a finite certified epsilon."""
    book = PrivacyLedger(adaptive=False)
    book.record(Round.subsampled_gaussian(sigma, q), rounds=rounds)
    guarantee = _quiet(lambda: book.composition(1e-5))
    front_lower, front_upper = _front(sigma, q, rounds, 1e-5)
    assert math.isfinite(guarantee.epsilon) and guarantee.epsilon_lower <= front_upper
    assert front_lower <= guarantee.epsilon
    assert abs(guarantee.epsilon - front_upper) <= tolerance(front_upper)
