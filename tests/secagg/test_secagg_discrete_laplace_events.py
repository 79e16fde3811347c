"""dp_accounting's words for the distributed discrete Laplace: the event's bracket is the accountant's at the same
integer norms, REPLACE_ONE doubles the shift, sampled rounds are the observer's."""

from __future__ import annotations

import pytest

pytest.importorskip("dp_accounting")

from dp_accounting import NeighboringRelation, PoissonSampledDpEvent, SelfComposedDpEvent  # noqa: E402

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant  # noqa: E402
from hockeystick.interop.dp_accounting.secagg_pair_events import DistributedDiscreteLaplaceDpEvent  # noqa: E402
from hockeystick.secagg import DistributedDiscreteLaplace  # noqa: E402
from hockeystick.secagg.distributed_discrete_laplace import pure_epsilon  # noqa: E402

# c / gamma = 4 on one coordinate: the accountant's Delta_2 = 5 (rounding's allowance), its realized shift 4
RUN = dict(
    clip_norm=1.0,
    granularity=0.25,
    dimension=1,
    scale=2.0,
    expected_clients=10,
    min_surviving_clients=6,
)


def _event(acc: DistributedDiscreteLaplace) -> DistributedDiscreteLaplaceDpEvent:
    s = acc.sensitivity
    return DistributedDiscreteLaplaceDpEvent(
        scale=acc.scale / acc.granularity,
        l2_norm_bound=s.l2,
        num_clients=6,
        expected_clients=10,
        dimension=1,
    )


def test_the_events_upper_side_is_the_accountants_and_its_lower_side_its_larger_shift():
    acc = DistributedDiscreteLaplace(rounds=5, **RUN)
    accountant = HockeystickPLDAccountant(NeighboringRelation.REPLACE_SPECIAL)
    accountant = accountant.compose(SelfComposedDpEvent(_event(acc), 5))
    low, high = accountant.get_epsilon_bracket(1e-6)
    direct = acc.epsilon(1e-6, bound="both")
    assert high == direct[1]
    assert (
        direct[0] <= low <= high
    )  # the event's realized shift is floor(Delta_2) = 5, the accountant's 4
    assert accountant.get_epsilon(0.0) >= 5 * acc.round_epsilon


def test_replace_one_doubles_the_norms():
    acc = DistributedDiscreteLaplace(rounds=1, **RUN)
    one = HockeystickPLDAccountant(NeighboringRelation.REPLACE_ONE).compose(_event(acc))
    special = HockeystickPLDAccountant(NeighboringRelation.REPLACE_SPECIAL).compose(_event(acc))
    assert one.get_epsilon(0.0) >= pure_epsilon(0.6, 0.125, 10.0, 10.0, 1)
    assert one.get_epsilon(0.0) > special.get_epsilon(0.0)


def test_a_poisson_sampled_round_is_the_observers():
    acc = DistributedDiscreteLaplace(rounds=5, sampling_rate=0.1, **RUN)
    sampled = PoissonSampledDpEvent(0.1, _event(acc))
    accountant = HockeystickPLDAccountant(NeighboringRelation.REPLACE_SPECIAL).compose(
        SelfComposedDpEvent(sampled, 5)
    )
    low, high = accountant.get_epsilon_bracket(1e-6)
    assert high == acc.epsilon(1e-6, against="observer")
    assert 0.0 < low <= high
