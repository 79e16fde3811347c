"""The loss shift inside the C++ evaluations (``GridPMF.delta_tabled``'s ``_core.pld_reads.ChargedCurve``,
cpp/include/hockeystick/pld/reads/charged_curve.hpp, and the epsilon scans' ``loss_shift``).

On PMFs with a nonzero ``loss_shift`` from pld.laplace, discrete_laplace, randomized_response and
from_distributions, both sides:

- ``delta_tabled`` is bit for bit (sign of zero included) the numpy form it replaced: the argument
  moved by the shift and rounded outward (eps - s rounded down pessimistic, eps + s rounded up
  optimistic, +-inf kept), then min(raw (1 + slack) + shift + charge, 1) or
  max(max(raw (1 - slack) + shift - 2 charge, 0), suffix maxima) with the indices computed in floats;
- ``epsilon`` is the unshifted scan's answer moved outward (+s rounded up, -s rounded down);
- both stay certified around an atom whose computed loss 700 is a grid point while the true loss
  lies above it (exact delta of the pair's count-fold product in 50-digit mpmath);
- NaN raises the ValueError it raised before, naming the argument and the first flat index;
- the pessimistic epsilon scan stops at the first grid interval where the charged curve meets the target, on a
  PMF whose round-off charge decides where (the scan's short cut past steps below the least target).
"""

from __future__ import annotations

import dataclasses
import math

import mpmath
import numpy as np
import pytest

from hockeystick import _core, pld
from hockeystick.pld.grid.pmf import GridPMF

MP_DPS = 50
mpmath.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test
RNG = np.random.default_rng(20261123)


def _pair(loss: float) -> tuple[list[float], list[float]]:
    """P = (1/2, 1/2), Q = (1 - q, q), q = e^-loss / 2: the top loss computed as exactly ``loss``."""
    q_top = math.exp(-loss) / 2
    return [0.5, 0.5], [1.0 - q_top, q_top]


DISTRIBUTIONS = {
    "laplace": lambda: pld.laplace(
        3.0, sensitivity=0.7, value_discretization_interval=1e-3
    ).self_compose(5),
    "laplace third": lambda: pld.laplace(1.0 / 3.0, value_discretization_interval=0.1).self_compose(
        3
    ),
    "discrete laplace": lambda: pld.discrete_laplace(
        0.7, 2, value_discretization_interval=1e-2
    ).self_compose(4),
    "randomized response": lambda: pld.randomized_response(
        0.3, 5, value_discretization_interval=1e-3
    ).self_compose(3),
    "from_distributions 5": lambda: pld.from_distributions(
        *_pair(5.0), value_discretization_interval=1e-2, symmetric=True
    ).self_compose(4),
    "from_distributions 700": lambda: pld.from_distributions(
        *_pair(700.0), value_discretization_interval=1.0, symmetric=True
    ).self_compose(3),
}


def _pmfs() -> list[tuple[str, GridPMF]]:
    out = []
    for name, make in DISTRIBUTIONS.items():
        dist = make()
        for pessimistic in (True, False):
            for pmf in dist.composed(pessimistic):
                out.append((f"{name} {'pessimistic' if pessimistic else 'optimistic'}", pmf))
    return out


PMFS = _pmfs()


def _fresh(pmf: GridPMF) -> GridPMF:
    """The same PMF without its cached tables and profiles."""
    return dataclasses.replace(pmf)


def _arguments(pmf: GridPMF) -> np.ndarray:
    """Random eps over the grid and beyond, grid points and their neighbours, each moved by +-s, +-inf."""
    losses = pmf.losses
    lo, hi, s = float(losses[0]), float(losses[-1]), pmf.loss_shift
    at = losses[RNG.integers(0, losses.size, 80)]
    return np.concatenate(
        [
            RNG.uniform(lo - 1.0, hi + 1.0, 300),
            at,
            np.nextafter(at, np.inf),
            np.nextafter(at, -np.inf),
            at + s,
            at - s,
            np.nextafter(at - s, -np.inf),
            np.nextafter(at + s, np.inf),
            [-np.inf, np.inf, 0.0, -0.0, 1e300, -1e300, lo, hi, hi + 1e-9, lo - 1e-9],
        ]
    )


def _moved(values: np.ndarray, s: float, up: bool) -> np.ndarray:
    """The numpy form of the outward move: + s rounded up or - s rounded down, +-inf and NaN kept."""
    moved = np.nextafter(values + s, np.inf) if up else np.nextafter(values - s, -np.inf)
    return np.where(np.isfinite(values), moved, values)


def _tabled_reference(pmf: GridPMF, epsilon: np.ndarray) -> np.ndarray:
    """``delta_tabled`` in numpy (the C++ evaluator's operations in the same order)."""
    eps = _moved(epsilon, pmf.loss_shift, not pmf.pessimistic)
    n, slack = pmf.p.size, pmf.suffix_sum_slack()
    raw = _core.pld_reads.GridProfile(pmf.p, k_lo=pmf.k_lo, h=pmf.h, p_inf=pmf.p_inf).delta(eps, 1)
    scaled = eps / pmf.h
    above = np.minimum(np.maximum(np.floor(scaled) - pmf.k_lo + 1, 0.0), n).astype(np.int64)
    charge = (
        np.zeros(n + 1)
        if pmf.total_error == 0.0
        else pmf.charge_of_masses(n - np.arange(n + 1, dtype=np.float64))
    )[above]
    if pmf.pessimistic:
        return np.minimum(raw * (1.0 + slack) + pmf.shift + charge, 1.0)
    low = np.maximum(raw * (1.0 - slack) + pmf.shift - 2.0 * charge, 0.0)
    if pmf.total_error == 0.0:
        return low
    at_or_above = np.minimum(np.maximum(np.ceil(scaled) - pmf.k_lo, 0.0), n).astype(np.int64)
    return np.maximum(low, _suffix_maxima(pmf)[at_or_above])


def _suffix_maxima(pmf: GridPMF) -> np.ndarray:
    """The optimistic charged curve's suffix maxima over the grid points, 0 at n, in numpy (as main built them)."""
    return np.append(
        np.maximum.accumulate(_side_reference(pmf, pmf.losses, False)[::-1])[::-1], 0.0
    )


def _charge_reference(pmf: GridPMF, at: np.ndarray) -> np.ndarray:
    """``GridPMF.charge_at`` in numpy (the grid points above each argument, counted in floats, their charge
    ``charge_of_masses``)."""
    n = pmf.p.size
    with np.errstate(over="ignore"):
        first_above = np.clip(np.floor(at / pmf.h) - pmf.k_lo + 1, 0, n)
    return pmf.charge_of_masses(n - first_above)


def _side_reference(pmf: GridPMF, at: np.ndarray, pessimistic: bool) -> np.ndarray:
    """The charged side at arguments already moved, in numpy (``GridPMF.delta`` pessimistic, ``charged_lower``
    optimistic): the core's ``charged_side``'s operations in the same order."""
    raw = _core.pld_reads.GridProfile(pmf.p, k_lo=pmf.k_lo, h=pmf.h, p_inf=pmf.p_inf).delta(at, 1)
    charge, slack = _charge_reference(pmf, at), pmf.suffix_sum_slack()
    if pessimistic:
        return np.minimum(raw * (1.0 + slack) + pmf.shift + charge, 1.0)
    return np.maximum(raw * (1.0 - slack) + pmf.shift - 2.0 * charge, 0.0)


@pytest.mark.parametrize("tag, pmf", PMFS, ids=[tag for tag, _ in PMFS])
def test_delta_and_its_charge_are_the_numpy_forms_bit_for_bit(tag: str, pmf: GridPMF) -> None:
    """``delta`` (pessimistic; optimistic without its suffix maxima, ``envelope=False``) and ``charge_at``, each
    one core call per profile, give numpy's doubles (sign of zero included): at arguments across the grid
    (both profiles read), and at arguments above loss 0 only (the top part's profile, or the part from the
    least of them up)."""
    eps = _arguments(pmf)
    eps = eps[~np.isnan(eps)]
    low_floor = (pmf.k_lo + max(-pmf.k_lo, 0)) * pmf.h
    for sample in (
        eps,
        eps[eps > low_floor + 2.0 * pmf.h],
        eps[eps > 0.5 * (low_floor + pmf.losses[-1])],
    ):
        at = _moved(sample, pmf.loss_shift, not pmf.pessimistic)
        got = _fresh(pmf).delta(sample, 1, envelope=False)
        want = _side_reference(pmf, at, pmf.pessimistic)
        assert got.tobytes() == want.tobytes(), (tag, sample[got != want][:5])
        assert _fresh(pmf).charge_at(at).tobytes() == _charge_reference(pmf, at).tobytes(), tag


def test_the_sample_carries_loss_shifts_on_both_sides() -> None:
    """Every family above gives PMFs with a nonzero shift, pessimistic and optimistic (else the rest
    would test nothing)."""
    for name in DISTRIBUTIONS:
        for side in ("pessimistic", "optimistic"):
            shifts = [pmf.loss_shift for tag, pmf in PMFS if tag == f"{name} {side}"]
            assert shifts and all(s > 0.0 for s in shifts), (name, side, shifts)


@pytest.mark.parametrize("tag, pmf", PMFS, ids=[tag for tag, _ in PMFS])
def test_delta_tabled_is_the_numpy_form_bit_for_bit(tag: str, pmf: GridPMF) -> None:
    eps = _arguments(pmf)
    got = _fresh(pmf).delta_tabled(eps)
    want = _tabled_reference(pmf, eps)
    assert got.shape == want.shape and got.dtype == want.dtype
    differ = np.flatnonzero(got.view(np.int64) != want.view(np.int64))
    assert differ.size == 0, (tag, eps[differ[:5]], got[differ[:5]], want[differ[:5]])


@pytest.mark.parametrize("tag, pmf", PMFS, ids=[tag for tag, _ in PMFS])
def test_delta_tabled_agrees_with_delta_many(tag: str, pmf: GridPMF) -> None:
    """The same certified side as ``delta_many`` once its suffix maxima are built (its docstring)."""
    eps = _arguments(pmf)
    many = _fresh(pmf)
    many.delta_many(
        np.linspace(-1.0, 1.0, many.p.size)
    )  # enough queries to build the suffix maxima
    np.testing.assert_array_equal(_fresh(pmf).delta_tabled(eps), many.delta_many(eps))


@pytest.mark.parametrize("tag, pmf", PMFS, ids=[tag for tag, _ in PMFS])
def test_epsilon_is_the_unshifted_scan_moved_outward(tag: str, pmf: GridPMF) -> None:
    targets = np.concatenate(
        [
            10.0 ** -np.linspace(0.0, 320.0, 120),
            [0.0, 1.0, 1.5, 5e-324],
            _fresh(pmf).delta(_arguments(pmf)[:60]),
        ]
    )
    scan = (
        _core.pld_reads.charged_epsilon
        if pmf.pessimistic
        else _core.pld_reads.charged_lower_epsilon
    )
    unshifted = scan(
        pmf.p,
        k_lo=pmf.k_lo,
        h=pmf.h,
        p_inf=pmf.p_inf,
        charges=_core.pld_reads.Charges(
            shift=pmf.shift,
            slack=pmf.suffix_sum_slack(),
            entry_error=pmf.entry_error,
            total_error=pmf.total_error,
            spectral_l2=pmf.spectral_l2,
            inverse_error=pmf.inverse_error,
            loss_shift=0.0,
            inverse_l2=pmf.inverse_l2,
        ),
        delta=targets,
    )
    want = _moved(unshifted, pmf.loss_shift, pmf.pessimistic)
    got = _fresh(pmf).epsilon(targets)
    assert got.tobytes() == want.tobytes(), tag
    assert np.any(np.isfinite(got) & (got != unshifted))  # the shift moved something
    single = _fresh(pmf).epsilon(targets[3])
    assert single.shape == () and single.tobytes() == want[3:4].tobytes()


@pytest.mark.parametrize(
    "tag, pmf",
    [(t, p) for t, p in PMFS if not p.pessimistic and p.total_error > 0.0],
    ids=[t for t, p in PMFS if not p.pessimistic and p.total_error > 0.0],
)
def test_the_cpp_suffix_maxima_are_numpys(tag: str, pmf: GridPMF) -> None:
    """The suffix maxima built in C++ are numpy's bit for bit: ``tabled_curve``'s at every index, and the whole pass
    of ``delta``'s read (``_core.pld_reads.lower_envelope``) from loss 0 up (which queries above it read) or from the
    least argument's grid point up."""
    want = _suffix_maxima(pmf)
    assert _fresh(pmf).tabled_curve.envelope.tobytes() == want.tobytes(), tag
    top = _fresh(pmf).top_index
    # half a step below a grid point above loss 0
    above = np.array([(pmf.k_lo + (top + pmf.p.size) // 2 - 0.5) * pmf.h])
    for eps, first in ((above, top), (np.array([-np.inf]), 0)):
        _, built = _core.pld_reads.lower_envelope(pmf, eps, np.zeros(1), held=None, whole=True)
        assert built is not None and built[0] == first, tag
        assert built[1].tobytes() == want[first:].tobytes(), tag


def test_loss_shifted_rounds_outward_and_keeps_infinities_and_nan() -> None:
    values = np.array([[0.0, -0.0, 1.0, -700.0], [700.0, np.inf, -np.inf, np.nan]])
    for s in (0.0, 5e-324, 1e-16, 3.5e-13, 2.0):
        for up in (True, False):
            got = _core.pld_reads.loss_shifted(values, s, up=up)
            assert got.shape == values.shape
            want = values if s == 0.0 else _moved(values, s, up)
            assert got.tobytes() == want.tobytes(), (s, up)
            finite = np.isfinite(values)
            if s > 0.0:  # strictly beyond the exact sum, on the safe side
                exact = [mpmath.mpf(float(v)) + (s if up else -s) for v in values[finite]]
                assert all((g > e) if up else (g < e) for g, e in zip(got[finite], exact))
    assert _core.pld_reads.loss_shifted(np.float64(1.0), 1e-16, up=True).shape == ()


def _exact_delta(count: int, eps: float) -> mpmath.mpf:
    """delta(eps) of the count-fold product of ``_pair(700)`` (its float masses taken exactly)."""
    p, q = _pair(700.0)
    g = mpmath.exp(mpmath.mpf(eps))
    total = mpmath.mpf(0)
    for k in range(count + 1):
        a = mpmath.mpf(p[0]) ** (count - k) * mpmath.mpf(p[1]) ** k
        b = mpmath.mpf(q[0]) ** (count - k) * mpmath.mpf(q[1]) ** k
        total += mpmath.binomial(count, k) * max(a - g * b, mpmath.mpf(0))
    return total


@pytest.mark.parametrize("count", [1, 2, 3])
def test_tabled_sides_bracket_the_exact_curve_at_a_shifted_atom(count: int) -> None:
    """The top loss count x 700 is a grid point as computed and lies above it in truth: without the
    shift the pessimistic side reads 0 there, below the true ~1e-17 (the shift is what certifies it)."""
    dist = pld.from_distributions(
        *_pair(700.0), value_discretization_interval=1.0, symmetric=True
    ).self_compose(count)
    (upper,), (lower,) = dist.composed(True), dist.composed(False)
    top = 700.0 * count
    eps = np.array(
        [
            top,
            np.nextafter(top, -np.inf),
            np.nextafter(top, np.inf),
            top - 1.0,
            top - 0.5,
            top + 1.0,
            0.0,
            -3.0,
            350.0,
        ]
    )
    up, low = _fresh(upper).delta_tabled(eps), _fresh(lower).delta_tabled(eps)
    for x, a, b in zip(eps, low, up):
        exact = _exact_delta(count, float(x))
        assert a <= exact <= b, (count, x, a, float(exact), b)
    assert up[0] > 0.0


@pytest.mark.parametrize("pessimistic", [True, False])
def test_nan_raises_naming_the_argument_and_index(pessimistic: bool) -> None:
    (pmf,) = pld.discrete_laplace(0.7, 2, value_discretization_interval=1e-2).composed(pessimistic)
    with pytest.raises(
        ValueError, match=r"^epsilon must not be NaN \(first offending element at flat index 2"
    ):
        pmf.delta_tabled(np.array([0.5, 1.0, np.nan, np.nan]))
    with pytest.raises(ValueError, match="^delta must not be NaN"):
        pmf.epsilon(np.array([1e-3, np.nan]))


def test_a_charge_table_of_the_wrong_length_is_refused() -> None:
    profile = _core.pld_reads.GridProfile(np.full(4, 0.25), k_lo=-2, h=0.5, p_inf=0.0)
    for size in (0, 4, 6):
        with pytest.raises(ValueError, match="one entry per grid index"):
            _core.pld_reads.ChargedCurve(
                profile,
                np.zeros(size),
                shift=0.0,
                slack=0.0,
                loss_shift=0.0,
                pessimistic=False,
                with_envelope=True,
            )
    assert (
        _core.pld_reads.ChargedCurve(
            profile,
            np.zeros(5),
            shift=0.0,
            slack=0.0,
            loss_shift=0.0,
            pessimistic=False,
            with_envelope=True,
        ).envelope.size
        == 5
    )
    assert (
        _core.pld_reads.ChargedCurve(
            profile,
            np.zeros(5),
            shift=0.0,
            slack=0.0,
            loss_shift=0.0,
            pessimistic=True,
            with_envelope=True,
        ).envelope.size
        == 0
    )


@pytest.mark.parametrize("shift", [math.nan, -1e-3, math.inf])
def test_a_loss_shift_that_is_nan_negative_or_infinite_is_refused(shift):
    """A NaN shift made the C++ evaluator read index 0 (its largest lower value) at every eps, above the truth;
    a negative one moves the argument the unsafe way."""
    with pytest.raises(ValueError, match="loss_shift"):
        GridPMF(
            -50,
            0.01,
            np.full(100, 0.01),
            0.0,
            0.0,
            False,
            1e-15,
            1e-12,
            1e-13,
            0.0,
            loss_shift=shift,
        )
    with pytest.raises(ValueError, match="loss_shift"):
        _core.pld_reads.loss_shifted(np.array([0.5]), shift, up=True)


def test_the_tabled_envelope_is_reused_by_later_queries():
    """After delta_tabled built the suffix maxima in C++ at every index, delta_many reads them instead of a pass of
    its own (which would start at loss 0)."""
    pmf = GridPMF(-50, 0.01, np.full(100, 0.01), 0.0, 0.0, False, 1e-15, 1e-12, 1e-13, 0.0)
    pmf.delta_tabled(np.array([0.2]))
    got = pmf.delta_many(np.linspace(0.0, 0.4, 50))
    assert pmf.__dict__["_lower_suffix_maxima"][0] == 0
    fresh = GridPMF(-50, 0.01, np.full(100, 0.01), 0.0, 0.0, False, 1e-15, 1e-12, 1e-13, 0.0)
    np.testing.assert_array_equal(got, fresh.delta_many(np.linspace(0.0, 0.4, 50)))
    assert fresh.__dict__["_lower_suffix_maxima"][0] == fresh.top_index > 0


def _heavily_charged(l2: float) -> GridPMF:
    """A Gaussian-like PMF on 400 grid points whose round-off charge (up to 3e-4) is a large part of the targets
    below, so that the charge, not the curve, decides where the scan stops (``l2``: the spectral term's weight;
    inf leaves the entry and total bounds)."""
    k = np.arange(400)
    p = np.exp(-0.5 * ((k - 150) / 40.0) ** 2)
    return GridPMF(
        -150,
        0.01,
        p / p.sum() * (1.0 - 1e-9),
        1e-9,
        0.0,
        True,
        entry_error=2e-6,
        total_error=3e-4,
        spectral_l2=l2,
        inverse_error=1e-7,
        inverse_l2=1e-6,
    )


def _assert_first_interval_met(pmf: GridPMF, targets: np.ndarray, got: np.ndarray) -> None:
    """Each answer is finite and meets its target on the charged curve, and the grid point below its interval
    does not."""
    assert np.all(np.isfinite(got))
    # just above the answer: an answer clamped to a grid point l leaves l's mass out of its charge (its weight
    # 1 - e^{eps - l} is 0 there), which the reference's count of the points above, floor(eps / h) in floats,
    # may not at eps = l itself
    assert np.all(_side_reference(pmf, np.nextafter(got, np.inf), True) <= targets)
    below = (
        np.ceil(got / pmf.h - 1e-9) - 1.0
    ) * pmf.h  # the grid point that closes the answer's interval below
    inside = below >= pmf.k_lo * pmf.h
    assert np.all(_side_reference(pmf, below[inside], True) > targets[inside])


@pytest.mark.parametrize("l2", [math.inf, 1e-5])
def test_charged_epsilon_is_the_first_grid_interval_the_charged_curve_meets(l2: float) -> None:
    """The pessimistic scan's answer meets the target on the charged curve (the upper side of delta, with the
    charge of the grid points above the answer), and the grid point below its interval does not: the scan stops
    neither late (a certified bound) nor early (the least such eps).  The scan skips each step's own charge
    where its delta is below the least target any step is held to (the whole window's charge): a wrong least
    (the uncharged target, say) would pass steps the charge stops, and the answer would miss the target."""
    pmf = _heavily_charged(l2)
    # evenly in log: a draw's share of charge-decided targets would depend on the tests run before
    targets = np.geomspace(10.0**-3.6, 10.0**-2.3, 400)
    got = pmf.epsilon(targets)
    _assert_first_interval_met(pmf, targets, got)
    charged = _charge_reference(pmf, got)
    assert np.mean(charged > 0.2 * targets) > 0.3  # the charge decides many of them


def test_charged_epsilon_with_a_charge_falling_in_the_count_still_stops_at_the_first_interval() -> (
    None
):
    """A charge that falls as more points lie above (a negative entry term: no composition gives one, a caller
    might) breaks the short cut's order, so the scan computes every step's own charge there: the answer still
    meets the target and the grid point below it does not."""
    pmf = dataclasses.replace(_heavily_charged(math.inf), entry_error=-2e-7, total_error=math.inf)
    targets = 10.0 ** RNG.uniform(-3.6, -2.3, 200)
    _assert_first_interval_met(pmf, targets, pmf.epsilon(targets))
