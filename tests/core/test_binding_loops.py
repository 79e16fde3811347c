"""The bindings' loop drivers (cpp/bindings/loops.hpp, elementwise.hpp, broadcast.hpp): every
binding that loops gives the same bits at any thread count, reads broadcast views in place, and
turns a NaN into a ValueError that names the argument, the rule and the lowest offending flat
index, whatever the thread count."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from hockeystick import _core

RNG = np.random.default_rng(20261122)
THREADS = (
    1,
    2,
    3,
    0,
    -1,
)  # explicit counts, the automatic rule, and a negative count (automatic too)
H, TAIL, MAX_CELLS = 1e-3, 1e-10, 1 << 26


def _grid(n: int, low: float, high: float) -> np.ndarray:
    return RNG.uniform(low, high, n)


def _radii(t: int) -> np.ndarray:
    return np.ascontiguousarray(RNG.uniform(0.5, 3.0, t))


_R1, _R2 = _radii(40), _radii(40)
_N = 40000  # many pieces for the explicit counts (the automatic rule keeps these on one thread)
# above the automatic rule's parallel_work (2^18 element evaluations, cpp/bindings/loops.hpp): a team
_N_TEAM = 300_000
_R_TEAM, _S_TEAM = np.random.default_rng(1).uniform(0.0, 6.0, (2, _N_TEAM))  # its own draws
_EPS, _DELTA = _grid(_N, 0.0, 8.0), 10.0 ** _grid(_N, -12, -1)
_R, _S = _grid(_N, 0.0, 6.0), _grid(_N, 0.0, 6.0)
_PMF = RNG.dirichlet(np.ones(3000))
_ROWS = 600
_RHO, _GAMMA = RNG.uniform(0.9, 1.2, (_ROWS, 30)), RNG.uniform(0.0, 1.0, (_ROWS, 30))
_RATE, _LIPSCHITZ = _grid(2000, 0.001, 0.05), _grid(2000, 0.5, 2.0)
_COLUMN, _ROW = np.linspace(0.0, 6.0, 300)[:, None], np.linspace(0.5, 4.0, 150)[None, :]


def _broadcast(*arrays: npt.ArrayLike) -> list[np.ndarray]:
    return [np.asarray(a, dtype=np.float64) for a in np.broadcast_arrays(*arrays)]


def _named(names: str, arrays: list[np.ndarray]) -> dict[str, np.ndarray]:
    """Arrays as a binding's keyword arguments, one per name of ``names`` in order."""
    return dict(zip(names.split(), arrays))


_GEOMETRIC = "epsilon weight terms r_first r_product"
_RANDOM_STOP = "epsilon weight terms first_stop r_first r_product"


def _pld_many(threads: int) -> list[np.ndarray]:
    sigma, q = np.array([0.8, 1.0, 2.0, 4.0]), np.array([0.01, 0.1, 0.5, 1.0])
    raw = _core.pld_mechanisms.subsampled_gaussian_many(
        sigma,
        q,
        np.array([True, False, True, True]),
        h=H,
        tail=TAIL,
        max_cells=MAX_CELLS,
        threads=threads,
    )
    return [
        np.asarray(getattr(item, key), dtype=np.float64)
        for item in raw
        for key in ("upper", "lower")
    ]


_CHARGE = np.linspace(1e-12, 0.0, _PMF.size + 1)


def _charged_curve() -> Any:
    """An optimistic charged curve of ``_PMF`` with a loss shift (pld/reads/charged_curve.hpp), its charges made up."""
    return _core.pld_reads.ChargedCurve(
        _core.pld_reads.GridProfile(_PMF, k_lo=-1500, h=0.01, p_inf=1e-9),
        _CHARGE,
        shift=1e-10,
        slack=1e-12,
        loss_shift=3e-15,
        pessimistic=False,
        with_envelope=True,
    )


CALLS: dict[str, Callable[[int], Any]] = {
    "theta": lambda t: _core.hockey_stick.theta(_R, _S, threads=t),
    # the automatic rule (threads 0, -1) forms a team here
    "theta, above parallel_work": lambda t: _core.hockey_stick.theta(_R_TEAM, _S_TEAM, threads=t),
    "log_theta": lambda t: _core.hockey_stick.log_theta(_R, _S, threads=t),
    "theta_radius": lambda t: _core.hockey_stick.theta_radius(_EPS, _DELTA, threads=t),
    "gaussian_factor_pairs": lambda t: _core.contraction.gaussian_factor_pairs(
        _EPS, _R, _S, threads=t
    ),
    "geometric_bound_delta": lambda t: _core.contraction.geometric_bound_delta(
        **_named(_GEOMETRIC, _broadcast(_COLUMN, 0.01, 50.0, _ROW, _ROW)), threads=t
    ),
    "geometric_bound_epsilon": lambda t: _core.contraction.geometric_bound_epsilon(
        **_named(
            _GEOMETRIC.replace("epsilon", "delta"),
            _broadcast(10.0 ** -np.linspace(1, 10, 300)[:, None], 0.01, 50.0, _ROW, _ROW),
        ),
        threads=t,
    ),
    "random_stop_bound_delta": lambda t: _core.contraction.random_stop_bound_delta(
        **_named(_RANDOM_STOP, _broadcast(_COLUMN, 0.01, 50.0, 5.0, _ROW, _ROW)), threads=t
    ),
    "power_bound_epsilon": lambda t: _core.contraction.power_bound_epsilon(
        "laplace",
        **_named(
            "delta exponent g_first g_product",
            _broadcast(10.0 ** -np.linspace(1, 10, 300)[:, None], 3.0, _ROW, _ROW),
        ),
        threads=t,
    ),
    "schedule_bound_delta": lambda t: _core.contraction.schedule_bound_delta(
        _EPS[:500], weight=0.01, first_stop=0, r_first=_R1, r_product=_R2, threads=t
    ),
    "schedule_bound_epsilon": lambda t: _core.contraction.schedule_bound_epsilon(
        _DELTA[:200], weight=0.01, first_stop=3, r_first=_R1, r_product=_R2, threads=t
    ),
    "fedavg_interpolation": lambda t: _core.fdp.fedavg_interpolation(
        1,
        learning_rate=_RATE,
        lipschitz=_LIPSCHITZ,
        local_steps=np.full(2000, 3.0),
        rounds=np.full(2000, 40.0),
        threads=t,
    ),
    "interpolation_from_rounds": lambda t: _core.fdp.interpolation_from_rounds(
        _RHO, _GAMMA, np.full(_ROWS, 30.0), threads=t
    ),
    "pld_subsampled_gaussian_many": _pld_many,
    "pld_delta": lambda t: _core.pld_reads.delta(
        _PMF, k_lo=-1500, h=0.01, p_inf=1e-9, epsilon=_EPS, threads=t
    ),
    "pld_epsilon": lambda t: _core.pld_reads.epsilon(
        _PMF, k_lo=-1500, h=0.01, p_inf=1e-9, delta=_DELTA, threads=t
    ),
    "PldGridProfile.epsilon": lambda t: _core.pld_reads.GridProfile(
        _PMF, k_lo=-1500, h=0.01, p_inf=1e-9
    ).epsilon(_DELTA, t),
    "PldChargedCurve.delta": lambda t: _charged_curve().delta(_EPS - 15.0, t),
}


def _flat(result: Any) -> list[np.ndarray]:
    if isinstance(result, np.ndarray):
        return [result]
    return [np.asarray(part) for part in result]


@pytest.mark.parametrize("name", sorted(CALLS))
def test_same_bits_at_every_thread_count(name: str) -> None:
    results = {t: _flat(CALLS[name](t)) for t in THREADS}
    for t in THREADS[1:]:
        assert len(results[t]) == len(results[1])
        for one, other in zip(results[1], results[t]):
            assert one.tobytes() == other.tobytes(), f"{name}: threads={t} differs from threads=1"
    assert not any(np.isnan(part).any() for part in results[1])


def test_broadcast_views_are_read_in_place_and_agree_with_copies() -> None:
    views = _broadcast(_COLUMN, 0.01, 50.0, _ROW, _ROW)
    assert any(0 in v.strides for v in views)
    copies = [np.ascontiguousarray(v) for v in views]
    assert np.array_equal(
        _core.contraction.geometric_bound_delta(**_named(_GEOMETRIC, views), threads=2),
        _core.contraction.geometric_bound_delta(**_named(_GEOMETRIC, copies), threads=2),
    )


def _with_nan_at(values: np.ndarray, *indices: int) -> np.ndarray:
    out = values.copy()
    out.flat[list(indices)] = np.nan
    return out


BAD: dict[
    str, tuple[Callable[[int], Any], str, int | None]
] = {  # call, message start, first flat index
    "theta": (
        lambda t: _core.hockey_stick.theta(_R, _with_nan_at(_S, 30001, 7000), threads=t),
        "epsilon must not be NaN",
        7000,
    ),
    "gaussian_factor_pairs": (
        lambda t: _core.contraction.gaussian_factor_pairs(
            _EPS, _with_nan_at(_R, 9000, 20000), _S, threads=t
        ),
        "r_first must not be NaN",
        9000,
    ),
    "geometric_bound_delta": (
        lambda t: _core.contraction.geometric_bound_delta(
            **_named(_GEOMETRIC, _broadcast(_COLUMN, 0.01, 50.0, _ROW, -_ROW)), threads=t
        ),
        "r_product must be >= 0",
        0,
    ),
    "random_stop_bound_epsilon": (
        lambda t: _core.contraction.random_stop_bound_epsilon(
            **_named(
                _RANDOM_STOP.replace("epsilon", "delta"),
                _broadcast(
                    _with_nan_at(np.full((300, 1), 1e-3), 20, 250), 0.01, 50.0, 5.0, _ROW, _ROW
                ),
            ),
            threads=t,
        ),
        "delta must not be NaN",
        20 * 150,
    ),
    "random_stop_bound_delta": (
        lambda t: _core.contraction.random_stop_bound_delta(
            **_named(_RANDOM_STOP, _broadcast(_COLUMN, 0.01, 4.0, 5.0, _ROW, _ROW)), threads=t
        ),
        "first_stop must lie in [1, terms]",
        0,
    ),
    "schedule_bound_delta": (
        lambda t: _core.contraction.schedule_bound_delta(
            _with_nan_at(_EPS[:500], 400, 17),
            weight=0.01,
            first_stop=0,
            r_first=_R1,
            r_product=_R2,
            threads=t,
        ),
        "epsilon must not be NaN",
        17,
    ),
    "schedule_bound_epsilon": (
        lambda t: _core.contraction.schedule_bound_epsilon(
            _DELTA[:50],
            weight=0.01,
            first_stop=0,
            r_first=_R1,
            r_product=_with_nan_at(_R2, 30, 7),
            threads=t,
        ),
        "r_product must not be NaN (round 7)",
        None,
    ),  # checked once, before the loop
    "fedavg_interpolation": (
        lambda t: _core.fdp.fedavg_interpolation(
            1,
            learning_rate=_with_nan_at(np.full(2000, 0.01), 1500, 300),
            lipschitz=np.ones(2000),
            local_steps=np.full(2000, 3.0),
            rounds=np.full(2000, 40.0),
            threads=t,
        ),
        "learning_rate must not be NaN",
        300,
    ),
    "interpolation_from_rounds": (
        lambda t: _core.fdp.interpolation_from_rounds(
            _with_nan_at(_RHO, 500 * 30 + 4, 123 * 30 + 29), _GAMMA, np.full(_ROWS, 30.0), threads=t
        ),
        "rho must not be NaN (round 29)",
        123,
    ),
    "pld_delta": (
        lambda t: _core.pld_reads.delta(
            _PMF,
            k_lo=-1500,
            h=0.01,
            p_inf=1e-9,
            epsilon=_with_nan_at(_EPS, 39999, 12345),
            threads=t,
        ),
        "epsilon must not be NaN",
        12345,
    ),
    "PldGridProfile.epsilon": (
        lambda t: _core.pld_reads.GridProfile(_PMF, k_lo=-1500, h=0.01, p_inf=1e-9).epsilon(
            _with_nan_at(_DELTA, 222, 33333), t
        ),
        "delta must not be NaN",
        222,
    ),
    "PldChargedCurve.delta": (
        lambda t: _charged_curve().delta(_with_nan_at(_EPS, 30000, 4321), t),
        "epsilon must not be NaN",
        4321,
    ),
}


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("name", sorted(BAD))
def test_nan_raises_value_error_naming_argument_and_first_index(name: str, threads: int) -> None:
    call, message, index = BAD[name]
    with pytest.raises(ValueError) as error:
        call(threads)
    text = str(error.value)
    assert text.startswith(message), text
    if index is not None:
        assert f"at flat index {index}:" in text, text


@pytest.mark.parametrize("threads", [1, 3])
def test_per_item_errors_report_the_lowest_item(threads: int) -> None:
    sigma = np.array(
        [1.0, 1.0, 1e-4, 1.0, 1.0, -1.0]
    )  # item 2 needs too many cells, item 5 is invalid
    ones = np.ones(sigma.size)
    with pytest.raises(
        ValueError, match="more cells than max_cells; use a coarser value_discretization_interval"
    ):
        _core.pld_mechanisms.subsampled_gaussian_many(
            sigma,
            ones,
            np.ones(sigma.size, bool),
            h=1e-2,
            tail=TAIL,
            max_cells=100000,
            threads=threads,
        )
    with pytest.raises(ValueError, match="^sigma must be positive and finite$"):
        _core.pld_mechanisms.subsampled_gaussian_many(
            sigma[[0, 5, 2]],
            ones[:3],
            np.ones(3, bool),
            h=1e-2,
            tail=TAIL,
            max_cells=100000,
            threads=threads,
        )


def _thread_cpu_ns() -> dict[str, int]:
    out = {}
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/schedstat") as f:
                out[task] = int(f.read().split()[0])
        except OSError:  # the thread ended
            pass
    return out


def _one_gaussian_pld(threads: int) -> list[Any]:
    # One Gaussian-mechanism PLD of ~2e5 cells: the core's own cell loop (pld/grid/cells.hpp) is parallel
    # for grids above 20000 cells.
    return _core.pld_mechanisms.subsampled_gaussian_many(
        np.array([0.6]),
        np.array([1.0]),
        np.array([True]),
        h=1e-4,
        tail=TAIL,
        max_cells=MAX_CELLS,
        threads=threads,
    )


def _cpu_ns_per_thread(call: Callable[[], Any]) -> list[int]:
    before = _thread_cpu_ns()
    call()
    return sorted((ns - before.get(task, 0) for task, ns in _thread_cpu_ns().items()), reverse=True)


def _quietest_cpu_ns_per_thread(
    call: Callable[[], Any], share: Callable[[list[int]], float]
) -> list[int]:
    # The process's other threads (pytest-xdist's I/O thread, OpenMP's pool still spinning after its last
    # team) take CPU at times of their own: of three measurements, the one whose ``share`` is largest. A loop
    # that runs in the wrong number of threads shows in all three.
    runs = []
    for _ in range(3):
        time.sleep(0.05)  # past OpenMP's spin-wait, so that idle pool threads are asleep
        runs.append(_cpu_ns_per_thread(call))
    return max(runs, key=share)


@pytest.mark.skipif(
    not (os.path.exists("/proc/self/task") and _core.openmp and (os.cpu_count() or 1) >= 2),
    reason="per-thread CPU times from Linux schedstat, OpenMP, two cores",
)
def test_one_item_gets_the_granted_threads_for_its_own_loop_and_no_more() -> None:
    expected = _one_gaussian_pld(1)
    _one_gaussian_pld(2)  # starts the OpenMP pool, so its threads exist before the measurements
    one = _quietest_cpu_ns_per_thread(lambda: _one_gaussian_pld(1), lambda ns: ns[0] / sum(ns))
    assert one[0] >= 0.98 * sum(one), f"threads=1: CPU ns per thread {one[:4]}"
    two = _quietest_cpu_ns_per_thread(lambda: _one_gaussian_pld(2), lambda ns: ns[1] / sum(ns))
    assert two[1] >= 0.05 * sum(two), (
        f"threads=2: CPU ns per thread {two[:4]}"
    )  # inside a team it would be 0
    got = _one_gaussian_pld(0)
    assert all(
        np.array_equal(getattr(a, k), getattr(b, k))
        for a, b in zip(got, expected)
        for k in ("upper", "lower")
    )
