"""Which neighbouring relation a composition of stages is certified under (docs/neighbouring-relations.md):
the table of pld.neighbouring, walked whole; the compose command line and ``compose_stages`` over every
pair of stage kinds; the dp_accounting adapter over every relation of the events it checks.

The run the table refuses: randomized response analysed under replace-special composed with a
fixed-size batch (replace-one) would certify epsilon <= 7.2559 (delta = 1e-5), while the same run
analysed wholly under replace-one has a certified lower bound of 7.9453.
"""

from __future__ import annotations

import itertools

import pytest
from dp_accounting import dp_event as E
from dp_accounting.pld import pld_privacy_accountant as dp_pld
from dp_accounting.privacy_accountant import NeighboringRelation as N
from dp_accounting.privacy_accountant import UnsupportedEventError

from hockeystick.cli import main
from hockeystick.interop.dp_accounting import HockeystickPLDAccountant
from hockeystick.pld.accountants.stages import compose_stages, stage_relations
from hockeystick.pld.mechanisms.neighbouring import (
    RELATIONS,
    bounds,
    relations_bounded,
    run_relations,
)

AR, RO, RS = "add_or_remove_one", "replace_one", "replace_special"

# (analysed under, run relation) pairs one neighbouring step apart; every other pair is refused
ONE_STEP = {(AR, AR), (RO, RO), (RS, RS), (AR, RS)}


@pytest.mark.parametrize("analysed, run", list(itertools.product(RELATIONS, RELATIONS)))
def test_the_table(analysed, run):
    assert bounds(analysed, run) == ((analysed, run) in ONE_STEP)
    assert (run in relations_bounded(analysed)) == ((analysed, run) in ONE_STEP)


@pytest.mark.parametrize("bad", ["add_remove", "REPLACE_ONE", "", None])
def test_unknown_relations_are_refused(bad):
    with pytest.raises(ValueError, match="analysed_under must be one of"):
        bounds(bad, RO)
    with pytest.raises(ValueError, match="run_relation must be one of"):
        bounds(RO, bad)


@pytest.mark.parametrize(
    "stages", [list(s) for n in (1, 2, 3) for s in itertools.product((AR, RO, RS, None), repeat=n)]
)
def test_a_run_holds_under_the_relations_every_stage_bounds(stages):
    expected = tuple(r for r in RELATIONS if all(a is None or (a, r) in ONE_STEP for a in stages))
    assert run_relations(stages) == expected


# one stage of each kind, with the relation its analysis holds for (None: its sensitivity's)
STAGES = {
    "gaussian": (dict(mechanism="gaussian", sigma=2.0), None),
    "subsampled_gaussian": (
        dict(mechanism="subsampled_gaussian", sigma=1.0, sampling_rate=0.1),
        AR,
    ),
    "subsampled_laplace": (dict(mechanism="subsampled_laplace", scale=2.0, sampling_rate=0.1), AR),
    "fixed_size": (
        dict(mechanism="fixed_size_subsampled_gaussian", sigma=1.0, batch_size=10, n=100),
        RO,
    ),
    "with_replacement": (
        dict(mechanism="with_replacement_subsampled_gaussian", sigma=1.0, batch_size=10, n=100),
        RO,
    ),
    "rr_replace_one": (
        dict(mechanism="randomized_response", noise_parameter=0.5, num_buckets=4),
        RO,
    ),
    "rr_replace_special": (
        dict(
            mechanism="randomized_response",
            noise_parameter=0.5,
            num_buckets=4,
            relation="replace_special",
        ),
        RS,
    ),
}
# the relations each pair of kinds holds under, written out by hand from the table above
PAIR_RELATIONS = {
    frozenset({AR}): (AR, RS),
    frozenset({RO}): (RO,),
    frozenset({RS}): (RS,),
    frozenset({AR, RS}): (RS,),
    frozenset({AR, RO}): (),
    frozenset({RO, RS}): (),
}


@pytest.mark.parametrize("first, second", list(itertools.combinations_with_replacement(STAGES, 2)))
def test_every_pair_of_stage_kinds(first, second):
    (a, ra), (b, rb) = STAGES[first], STAGES[second]
    kinds = frozenset(r for r in (ra, rb) if r is not None)
    expected = PAIR_RELATIONS.get(kinds, RELATIONS)
    if expected:
        assert stage_relations([a, b]) == expected
        lower, upper = compose_stages([a, b], value_discretization_interval=1e-3).epsilon(
            1e-5, bound="both"
        )
        assert 0 <= lower <= upper
    else:
        for call in (stage_relations, compose_stages):
            with pytest.raises(ValueError, match="no neighbouring relation is bounded by both"):
                call([a, b])


RR_SPECIAL = STAGES["rr_replace_special"][0]
FIXED = STAGES["fixed_size"][0]
POISSON = STAGES["subsampled_gaussian"][0]


def test_the_mixed_run_is_refused_as_its_value_was_below_the_truth():
    """Accepted, it reported epsilon <= 7.2559; analysed wholly under replace-one (randomized response's
    replace-one pair, a group of two replace-special steps being at least as far apart) the certified
    lower bound is 7.9453."""
    with pytest.raises(
        ValueError,
        match=r"stage 1 \(randomized_response\) is analysed under replace-special "
        r"neighbours and stage 2 \(fixed_size_subsampled_gaussian\) under replace-one",
    ):
        compose_stages([RR_SPECIAL, FIXED])
    replace_one = compose_stages([STAGES["rr_replace_one"][0], FIXED]).epsilon(1e-5, bound="lower")
    assert replace_one > 7.9453 > 7.2559


def test_replace_special_randomized_response_with_a_poisson_stage_is_certified_under_replace_special():
    """The pair once refused; its bracket holds dp_accounting's (pessimistic) estimate of the same run."""
    assert stage_relations([RR_SPECIAL, POISSON]) == (RS,)
    lower, upper = compose_stages([RR_SPECIAL, POISSON]).epsilon(1e-5, bound="both")
    theirs = dp_pld.PLDAccountant(N.REPLACE_SPECIAL, value_discretization_interval=1e-4)
    theirs.compose(E.RandomizedResponseDpEvent(0.5, 4)).compose(
        E.PoissonSampledDpEvent(0.1, E.GaussianDpEvent(1.0))
    )
    assert lower <= upper <= theirs.get_epsilon(1e-5) < upper + 1e-4
    assert upper == pytest.approx(2.49624, abs=1e-4)


def _toml(stages):
    lines = []
    for stage in stages:
        lines.append("[[stage]]")
        lines += [f"{k} = {v!r}".replace("'", '"') for k, v in stage.items()]
    return "\n".join(lines) + "\n"


def test_the_command_line(capsys, tmp_path):
    refused, accepted = tmp_path / "refused.toml", tmp_path / "accepted.toml"
    refused.write_text(_toml([RR_SPECIAL, FIXED]))
    accepted.write_text(_toml([RR_SPECIAL, POISSON]))
    assert main(["compose", str(refused), "--delta", "1e-5"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "no neighbouring relation is bounded by both" in err
    assert main(["compose", str(accepted), "--delta", "1e-5"]) == 0
    out, err = capsys.readouterr()
    assert "replace-special neighbours" in out.splitlines()[0]


# dp_accounting events whose analysis holds under one relation, and the relations the adapter takes them under
EVENTS = [
    (E.PoissonSampledDpEvent(0.1, E.LaplaceDpEvent(1.0)), {N.ADD_OR_REMOVE_ONE, N.REPLACE_SPECIAL}),
    # a Gaussian's Poisson sample has its own replace-one analysis (pld.poisson_replace_one)
    (
        E.PoissonSampledDpEvent(0.1, E.GaussianDpEvent(1.0)),
        {N.ADD_OR_REMOVE_ONE, N.REPLACE_SPECIAL, N.REPLACE_ONE},
    ),
    (
        E.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.5, 0.5]),
        {N.ADD_OR_REMOVE_ONE, N.REPLACE_SPECIAL},
    ),
    (E.RandomizedResponseDpEvent(0.5, 4), {N.REPLACE_ONE, N.REPLACE_SPECIAL}),
    (E.SampledWithoutReplacementDpEvent(100, 10, E.GaussianDpEvent(2.0)), {N.REPLACE_ONE}),
    (E.SampledWithReplacementDpEvent(100, 10, E.GaussianDpEvent(2.0)), {N.REPLACE_ONE}),
]


@pytest.mark.parametrize("event, accepted", EVENTS, ids=[type(e).__name__ for e, _ in EVENTS])
@pytest.mark.parametrize("relation", list(N))
def test_the_adapter_takes_each_event_under_the_relations_its_analysis_bounds(
    event, accepted, relation
):
    accountant = HockeystickPLDAccountant(relation)
    if relation in accepted:
        assert 0 <= accountant.compose(event).get_epsilon(1e-5) < float("inf")
    else:
        with pytest.raises(UnsupportedEventError):
            accountant.compose(event)
