"""The single-mechanism constructors refuse a wrong kind of argument naming it and the value as given
(never the one-element list the batched ``subsampled_gaussians`` is called with)."""

import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick.base.validation import ParameterTypeError

CALLS = {
    "gaussian": lambda **kw: pld.gaussian(**{"sigma": 1.0, **kw}),
    "subsampled_gaussian": lambda **kw: pld.subsampled_gaussian(
        **{"sigma": 1.0, "sampling_rate": 0.1, **kw}
    ),
}


@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize(
    ("value", "shown"), [("1", "'1' (str)"), (True, "True (bool)"), (None, "None (NoneType)")]
)
@pytest.mark.parametrize("name", ["sigma", "sensitivity"])
def test_wrong_kind_names_argument_and_given_value(call, value, shown, name):
    with pytest.raises(ParameterTypeError) as err:
        CALLS[call](**{name: value})
    message = str(err.value)
    assert message.startswith(f"{name} must be a real number"), message
    assert f"got {shown}" in message, message
    assert "[" not in message.split("got ", 1)[1].split(";")[0], message


def test_sampling_rate_string_shown_as_given():
    with pytest.raises(
        ParameterTypeError, match=r"^sampling_rate must be a real number .*got '0\.1' \(str\)"
    ):
        pld.subsampled_gaussian(1.0, "0.1")


@pytest.mark.parametrize("call", sorted(CALLS))
def test_array_is_one_number_refused_by_name(call):
    with pytest.raises(
        ParameterTypeError, match=r"^sigma must be a single number, got \[1\.0, 2\.0\]"
    ):
        CALLS[call](sigma=np.array([1.0, 2.0]))


@pytest.mark.parametrize("call", sorted(CALLS))
def test_out_of_range_value_shown_as_given(call):
    with pytest.raises(ValueError, match=r"^sigma must be finite and > 0, got -1\.0$"):
        CALLS[call](sigma=-1.0)


def test_zero_d_array_and_numpy_scalar_accepted_unchanged():
    expected = pld.gaussian(1.0).delta(1.0)
    assert pld.gaussian(np.float64(1.0)).delta(1.0) == expected
    assert pld.gaussian(np.array(1.0)).delta(1.0) == expected
    assert pld.gaussian(1).delta(1.0) == expected
