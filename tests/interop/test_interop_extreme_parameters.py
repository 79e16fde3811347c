"""Every event type of the dp_accounting adapter at extreme parameter values, against dp_accounting.

A table of events (every mechanism and wrapper ``interop.dp_accounting.dp_events`` takes) x extreme values (0,
subnormal, 1e-300, 1e-12, 1e300, the largest double, inf, NaN, -1; probabilities 0, 1, 1 - 1e-16,
5e-324, outside [0, 1]; counts 0, -1, huge, non-integer), run through ``HockeystickPLDAccountant`` and
``HockeystickRdpAccountant`` beside dp_accounting's ``PLDAccountant`` and ``RdpAccountant``, and the
Opacus adapter's ``step`` / ``get_epsilon`` (its module imports without torch) beside both.  Each
cell must:

- finish (a SIGALRM of ``LIMIT`` seconds turns a hang into a failure) with no NaN;
- where dp_accounting refuses the value itself (a ValueError that is not one of its own resource
  limits, ``RESOURCE_LIMITS``), raise a ValueError too (its UnsupportedEventError says it does not
  take the event, which hockeystick may);
- otherwise (dp_accounting answers, crashes with an internal error, or does not take the event at
  all) answer with a bracket 0 <= lower <= upper, or refuse with a ValueError or
  UnsupportedEventError; a ValueError where dp_accounting overflows is also an OverflowError
  (``loss_reach.ParameterOutOfRange``);
- name the event's own field (``GaussianDpEvent.noise_multiplier``, ...), the count, or the
  Opacus argument in a ValueError, never an internal name such as ``scale`` or ``max_cells``;
- have its upper bound (PLD or RDP) at or above dp_accounting's optimistic PLD epsilon (from
  ``dp_accounting_pld.their_pld``, add/remove events), where that answers.  (dp_accounting's RDP
  epsilon is no lower bound: hockeystick's finer orders can lie below it.)
"""

from __future__ import annotations

import math
import re
import signal
import warnings
from contextlib import contextmanager

import pytest
from dp_accounting import dp_event as E
from dp_accounting.pld.pld_privacy_accountant import PLDAccountant
from dp_accounting.privacy_accountant import NeighboringRelation as NR
from dp_accounting.privacy_accountant import UnsupportedEventError
from dp_accounting.rdp.rdp_privacy_accountant import RdpAccountant

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant, HockeystickRdpAccountant
from hockeystick.interop.opacus import HockeystickOpacusAccountant as OpacusAccountant

from ..dp_accounting_pld import their_pld

DELTA = 1e-6
LIMIT = 120  # seconds per cell under a loaded machine; every cell takes well under 5 s alone
TINY, HUGE = 5e-324, 1.7976931348623157e308
NOISE = [TINY, 1e-300, 1e-12, 1e300, HUGE, math.inf, math.nan, -1.0, 0.0]
PROBABILITY = [0.0, 1.0, 1.0 - 1e-16, TINY, math.nan, -0.1, 1.5, math.inf]
# dp_accounting errors that are its own limits (array sizes, derived overflows), not a verdict on the input
RESOURCE_LIMITS = (
    "Maximum allowed size exceeded",
    "eps must be > 0. Got inf",
    "cannot convert float NaN to integer",
    "a must be greater than b. Got a=inf",
    "math domain error",
)
FIELD = re.compile(r"\w+DpEvent\.\w+|`count`|noise_multiplier|sample_rate")

ADD, REPLACE = NR.ADD_OR_REMOVE_ONE, NR.REPLACE_ONE


def _events():
    """(id, event, relation, dp_accounting may run it): the table of the module docstring."""
    for x in NOISE:
        yield f"G({x})", E.GaussianDpEvent(x), ADD, True
        yield f"L({x})", E.LaplaceDpEvent(x), ADD, True
        yield f"DL({x},1)", E.DiscreteLaplaceDpEvent(x, 1), ADD, True
        yield f"MoG(sd={x})", E.MixtureOfGaussiansDpEvent(x, [0, 1], [0.5, 0.5]), ADD, True
        yield f"MoG(s={x})", E.MixtureOfGaussiansDpEvent(1.0, [0, x], [0.5, 0.5]), ADD, True
        yield f"P(0.1,G({x}))", E.PoissonSampledDpEvent(0.1, E.GaussianDpEvent(x)), ADD, True
        yield f"P(0.1,L({x}))", E.PoissonSampledDpEvent(0.1, E.LaplaceDpEvent(x)), ADD, True
        yield (
            f"P(0.1,MoG({x}))",
            E.PoissonSampledDpEvent(0.1, E.MixtureOfGaussiansDpEvent(x, [0, 1], [0.5, 0.5])),
            ADD,
            True,
        )
        yield f"TSG(sigma={x})", E.TruncatedSubsampledGaussianDpEvent(100, 0.1, 5, x), ADD, True
        yield (
            f"WoR(10,5,L({x}))",
            E.SampledWithoutReplacementDpEvent(10, 5, E.LaplaceDpEvent(x)),
            REPLACE,
            True,
        )
        for inner in (E.GaussianDpEvent(x), E.LaplaceDpEvent(x), E.DiscreteLaplaceDpEvent(x, 1)):
            yield f"WR(10,5,{inner})", E.SampledWithReplacementDpEvent(10, 5, inner), REPLACE, True
    for p in PROBABILITY:
        yield f"P({p},G1)", E.PoissonSampledDpEvent(p, E.GaussianDpEvent(1.0)), ADD, True
        yield f"P({p},L1)", E.PoissonSampledDpEvent(p, E.LaplaceDpEvent(1.0)), ADD, True
        yield (
            f"P({p},RR)",
            E.PoissonSampledDpEvent(p, E.RandomizedResponseDpEvent(0.5, 3)),
            NR.REPLACE_SPECIAL,
            True,
        )
        yield f"MoG(w={p})", E.MixtureOfGaussiansDpEvent(1.0, [0, 1], [1 - p, p]), ADD, True
        yield f"RR({p},3)", E.RandomizedResponseDpEvent(p, 3), REPLACE, True
        yield f"TSG(q={p})", E.TruncatedSubsampledGaussianDpEvent(100, p, 5, 1.0), ADD, True
        yield f"DL({p},1)", E.DiscreteLaplaceDpEvent(p, 1), ADD, True
    for s in (
        0,
        -1,
        1.5,
        2**62,
    ):  # dp_accounting allocates a grid the size of a huge sensitivity: not run there
        yield f"DL(1,{s})", E.DiscreteLaplaceDpEvent(1.0, s), ADD, s != 2**62
    for k in (0, -1, 1.5, 10**9):
        yield f"RR(0.5,{k})", E.RandomizedResponseDpEvent(0.5, k), REPLACE, True
    for n, k in [
        (1, 5),
        (10, 0),
        (10, -1),
        (0, 5),
        (-1, 5),
        (10**18, 5),
        (10, 10**12),
        (2, 1.5),
        (10.0, 5),
    ]:
        for inner in (E.GaussianDpEvent(1.0), E.LaplaceDpEvent(1.0)):
            yield (
                f"WR({n},{k},{inner})",
                E.SampledWithReplacementDpEvent(n, k, inner),
                REPLACE,
                True,
            )
            yield (
                f"WoR({n},{k},{inner})",
                E.SampledWithoutReplacementDpEvent(n, k, inner),
                REPLACE,
                True,
            )
    for c in (0, -1, 1.5, 10**18):
        yield f"SC(G1,{c})", E.SelfComposedDpEvent(E.GaussianDpEvent(1.0), c), ADD, True
        yield f"SC(L1,{c})", E.SelfComposedDpEvent(E.LaplaceDpEvent(1.0), c), ADD, c != 10**18


CASES = list(_events())


class Hang(Exception):
    """Raised by the alarm: the cell did not finish within LIMIT seconds."""


@contextmanager
def _limit(seconds: int):
    def alarm(signum, frame):
        raise Hang(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _outcome(run):
    """("answer", value) or ("error", exception); warnings are not failures here (dp_accounting's)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "answer", run()
        except Hang:
            raise
        except Exception as e:  # noqa: BLE001 - the verdict is the exception itself
            return "error", e


def _theirs(kind: str, event, relation):
    if kind == "pld":
        return _outcome(
            lambda: (
                PLDAccountant(relation, value_discretization_interval=1e-2)
                .compose(event)
                .get_epsilon(DELTA)
            )
        )
    return _outcome(
        lambda: RdpAccountant(neighboring_relation=relation).compose(event).get_epsilon(DELTA)
    )


def _their_optimistic(event) -> float | None:
    """dp_accounting's optimistic epsilon (add/remove events ``their_pld`` knows), or None."""
    verdict, value = _outcome(lambda: their_pld(event, 1, False, 1e-2))
    if verdict != "answer" or value is None:
        return None
    verdict, eps = _outcome(lambda: value.get_epsilon_for_delta(DELTA))
    return float(eps) if verdict == "answer" else None


def _ours(kind: str, event, relation):
    if kind == "pld":
        return _outcome(
            lambda: HockeystickPLDAccountant(relation).compose(event).get_epsilon_bracket(DELTA)
        )
    return _outcome(
        lambda: (
            0.0,
            HockeystickRdpAccountant(neighboring_relation=relation)
            .compose(event)
            .get_epsilon(DELTA),
        )
    )


def _check_refusal(ours: Exception, theirs: tuple) -> None:
    assert isinstance(ours, (ValueError, UnsupportedEventError)), repr(ours)
    if isinstance(ours, ValueError) and not isinstance(ours, UnsupportedEventError):
        assert FIELD.search(str(ours)), f"the message names no field of the event: {ours}"
        assert "max_cells" not in str(ours) and "scale must" not in str(ours), str(ours)
    if (
        theirs[0] == "error"
        and isinstance(theirs[1], OverflowError)
        and isinstance(ours, ValueError)
    ):
        assert isinstance(ours, type(theirs[1])), (repr(ours), repr(theirs[1]))


def _check_bracket(bracket) -> tuple[float, float]:
    lo, up = (float(v) for v in bracket)
    assert not (math.isnan(lo) or math.isnan(up)), bracket
    assert 0.0 <= lo <= up, bracket
    return lo, up


@pytest.mark.parametrize("kind", ["pld", "rdp"])
@pytest.mark.parametrize("name,event,relation,dp_runs", CASES, ids=[c[0] for c in CASES])
def test_extreme_event(kind, name, event, relation, dp_runs):
    with _limit(LIMIT):
        theirs = _theirs(kind, event, relation) if dp_runs else ("unknown", None)
        verdict, ours = _ours(kind, event, relation)
        optimistic = None
        if (
            relation == ADD and dp_runs and verdict == "answer"
        ):  # (their PLD answering first: no slow fallback)
            pessimistic = theirs if kind == "pld" else _theirs("pld", event, relation)
            optimistic = _their_optimistic(event) if pessimistic[0] == "answer" else None
    if (
        theirs[0] == "error"
        and type(theirs[1]) is ValueError
        and not any(limit in str(theirs[1]) for limit in RESOURCE_LIMITS)
    ):
        assert verdict == "error" and isinstance(ours, type(theirs[1])), (name, theirs[1], ours)
    if verdict == "error":
        _check_refusal(ours, theirs)
        return
    lo, up = _check_bracket(ours)
    if optimistic is not None and math.isfinite(optimistic):  # a lower bound on the exact epsilon
        assert up >= optimistic - 1e-9 * max(1.0, optimistic), (name, up, optimistic)


OPACUS_STEPS = [(s, q) for s in NOISE for q in (0.1, 1.0)] + [(1.0, q) for q in PROBABILITY]


@pytest.mark.parametrize("sigma,q", OPACUS_STEPS, ids=[f"sigma={s},q={q}" for s, q in OPACUS_STEPS])
def test_extreme_opacus_step(sigma, q):
    """Opacus's step/get_epsilon: a refusal names noise_multiplier or sample_rate; an answer is ordered."""
    with _limit(LIMIT):

        def run():
            acc = OpacusAccountant()
            for _ in range(3):
                acc.step(noise_multiplier=sigma, sample_rate=q)
            return acc.get_epsilon_bracket(DELTA)

        verdict, ours = _outcome(run)
        theirs = ("unknown", None)
        if (
            0 <= q <= 1 and sigma >= 0
        ):  # dp_accounting's verdict on the same Poisson-sampled Gaussian
            theirs = _theirs(
                "pld",
                E.SelfComposedDpEvent(E.PoissonSampledDpEvent(q, E.GaussianDpEvent(sigma)), 3),
                ADD,
            )
    if verdict == "error":
        _check_refusal(ours, theirs)
    else:
        _check_bracket(ours)


def test_subnormal_laplace_inside_a_sample_with_replacement_names_its_field():
    """The brief's example: a Laplace scale of 5e-324 (its replace-one half underflows to 0) under
    sampling with replacement is refused naming LaplaceDpEvent.noise_multiplier, not ``scale``."""
    event = E.SampledWithReplacementDpEvent(10, 5, E.LaplaceDpEvent(5e-324))
    with pytest.raises(OverflowError, match=r"LaplaceDpEvent\.noise_multiplier") as caught:
        HockeystickPLDAccountant(REPLACE).compose(event).get_epsilon(DELTA)
    assert isinstance(caught.value, ValueError)
