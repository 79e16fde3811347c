"""Every registered accountant against the contract of hockeystick/accountant.py."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from hockeystick import registry
from hockeystick.base.accountant import Accountant

from ..sweep.test_sweep_registry import EXAMPLES

NAMES = registry.names()


def _noise_parameter(entry: registry.AccountantEntry) -> str:
    return next(
        p
        for p in ("sigma", "noise_multiplier", "scale", "mu", "local_sigma", "theta")
        if p in entry.parameters
    )


@pytest.mark.parametrize("name", NAMES)
def test_each_entry_satisfies_the_protocol(name):
    entry = registry.get(name)
    accountant = entry.build(**EXAMPLES[name])
    assert isinstance(accountant, Accountant)
    for method, argument in (("delta", "epsilon"), ("epsilon", "delta")):
        params = inspect.signature(getattr(accountant, method)).parameters
        first = next(iter(params.values()))
        assert first.name == argument and first.default is inspect.Parameter.empty
        assert params["bound"].default == "upper"
        assert params["bound"].kind is inspect.Parameter.KEYWORD_ONLY
    # the constructor takes keywords only the vocabulary names (every parameter is a keyword); the training
    # classes also take other libraries' words for them (**synonyms: sampling_probability for sample_rate)
    for p in inspect.signature(entry.factory).parameters.values():
        assert p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) or (
            p.kind == p.VAR_KEYWORD and p.name == "synonyms"
        ), (name, p.name)


@pytest.mark.parametrize("name", NAMES)
def test_float_in_float_out_array_in_array_out_and_the_bracket_sides(name):
    accountant = registry.get(name).build(**EXAMPLES[name])
    d = accountant.delta(1.0)
    assert type(d) is float and 0.0 <= d <= 1.0
    assert accountant.delta(1.0, bound="upper") == d
    arr = accountant.delta(np.array([[0.5], [1.0]]))
    assert isinstance(arr, np.ndarray) and arr.shape == (2, 1)
    e = accountant.epsilon(1e-3)
    assert type(e) is float and e >= 0.0
    for side in ("lower", "both"):
        try:
            got = accountant.delta(1.0, bound=side)
        except ValueError as exc:
            assert str(exc).startswith('bound must be "upper"'), exc
            continue
        if side == "both":
            lower, upper = got
            assert lower <= upper == d
        else:
            assert got <= d


@pytest.mark.parametrize("name", NAMES)
def test_the_same_bad_input_gives_the_same_message_from_every_accountant(name):
    entry = registry.get(name)
    params = EXAMPLES[name]
    noise = _noise_parameter(entry)
    with pytest.raises(ValueError, match=rf"^{noise} must be (finite and )?>=? 0, got -1(\.0)?$"):
        entry.build(**{**params, noise: -1.0})
    with pytest.raises(ValueError, match=rf"^{noise} must not be NaN, got nan$"):
        entry.build(**{**params, noise: np.nan})
    with pytest.raises(
        TypeError, match=rf"^{noise} must be a real number or an array of real numbers, got '1'"
    ):
        entry.build(**{**params, noise: "1"})
    accountant = entry.build(**params)
    with pytest.raises(ValueError, match=r"^epsilon must be >= 0, got -1(\.0)?$"):
        accountant.delta(-1.0)
    with pytest.raises(ValueError, match=r"^epsilon must not be NaN, got nan$"):
        accountant.delta(np.nan)
    with pytest.raises(ValueError, match=r"^delta must lie strictly between 0 and 1, got 2(\.0)?$"):
        accountant.epsilon(2.0)
    with pytest.raises(
        ValueError, match=r"^bound must be one of 'upper', 'lower', 'both', got 'middle'$"
    ):
        accountant.delta(1.0, bound="middle")
