"""A run's reads refuse a constructor keyword (``accuracy``, ``tail``, ``value_discretization_interval``) with a
TypeError that says it belongs to the constructor, and the call it points to answers."""

from __future__ import annotations

import pytest

from hockeystick.training import DPSGD, DPFedAvg

SGD = dict(noise_multiplier=1.0, dataset_size=60_000, batch_size=256, epochs=1)
FEDAVG = dict(noise_multiplier=1.0, total_clients=10_000, clients_per_round=100, rounds=10)


@pytest.mark.parametrize("cls, base", [(DPSGD, SGD), (DPFedAvg, FEDAVG)])
@pytest.mark.parametrize(
    "read, argument",
    [("epsilon", 1e-10), ("delta", 1.0), ("epsilon_curve", 1e-5), ("delta_curve", 1.0)],
)
def test_a_constructor_keyword_given_to_a_read_is_pointed_to_the_constructor(
    cls, base, read, argument
):
    run = cls(**base)
    with pytest.raises(
        TypeError, match=rf"{cls.__name__}\.{read}\(\).*'accuracy'.*belongs to the constructor"
    ) as e:
        getattr(run, read)(argument, accuracy=1e-4)
    assert f"{cls.__name__}(..., accuracy=0.0001)" in str(e.value)


def test_the_pointed_call_answers_and_a_word_no_one_takes_keeps_pythons_message():
    run = DPSGD(**SGD, accuracy=1e-2)
    low, high = run.epsilon(1e-10, bound="both")
    assert 0 < low <= high and high - low <= 1e-2
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'nonsense'$"):
        run.epsilon(1e-10, nonsense=1)
    with pytest.raises(TypeError, match=r"'tail': tail belongs to the constructor"):
        run.delta(1.0, tail=1e-12)
