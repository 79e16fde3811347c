"""DP-SGD's division of the noised sum (``normalization``): post-processing, accounted as the sum, where the
divisor is the same on neighbouring data sets; refused, naming the relation, where it is not."""

from __future__ import annotations

import pytest

from hockeystick.training import DPSGD

RUN = {"dataset_size": 1000, "batch_size": 10, "steps": 50, "noise_multiplier": 1.0}


@pytest.mark.parametrize(
    ("sampling", "normalization"),
    [
        ("poisson", "public_constant"),
        ("fixed_size", "expected_batch_size"),
        ("fixed_size", "realized_batch_size"),
        ("shuffle", "realized_batch_size"),
    ],
)
def test_a_divisor_equal_on_neighbours_is_post_processing(
    sampling: str, normalization: str
) -> None:
    divided = DPSGD(
        **RUN, sampling=sampling, normalization=normalization, value_discretization_interval=1e-3
    )
    plain = DPSGD(**RUN, sampling=sampling, value_discretization_interval=1e-3)
    assert divided.epsilon(1e-5, bound="both") == plain.epsilon(1e-5, bound="both")
    assert divided.normalization == normalization


@pytest.mark.parametrize("sampling", ["poisson", "balls_in_bins"])
@pytest.mark.parametrize("normalization", ["expected_batch_size", "realized_batch_size"])
def test_a_divisor_that_moves_with_the_data_is_refused_naming_the_relation(
    sampling: str, normalization: str
) -> None:
    with pytest.raises(
        ValueError, match=f'normalization="{normalization}".*add-or-remove.*dimension d'
    ):
        DPSGD(**RUN, sampling=sampling, normalization=normalization)
    with pytest.raises(ValueError, match="normalization must be one of"):
        DPSGD(**RUN, normalization="mean")
