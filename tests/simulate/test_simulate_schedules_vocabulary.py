"""The simulator's learning-rate schedules are paper 004's, word for word, as the f-DP family names them."""

from typing import get_args

import pytest

pytest.importorskip("numba")

from hockeystick.fdp import fedavg  # noqa: E402
from hockeystick.simulate import schedules  # noqa: E402


def test_the_simulators_schedules_are_the_fdp_familys():
    assert get_args(schedules.Schedule) == get_args(fedavg.Schedule)
    assert schedules.SCHEDULES == fedavg.SCHEDULES == get_args(fedavg.Schedule)
