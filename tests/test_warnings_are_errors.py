"""A warning hockeystick issues fails the test it happens in, unless the test asserts it (pyproject.toml's
``filterwarnings`` and conftest.py's attribution of a warning to the module that issued it)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import hockeystick.pld as pld


def _deprecated_call() -> pld.PLDAccountant:
    return pld.PLDAccountant(value_discretization_interval=1e-2).compose_subsampled_gaussian(
        1.0, 0.5, count=3
    )


def test_a_deprecation_located_at_its_caller_is_an_error() -> None:
    """``stacklevel=2`` puts the warning at this file's line, yet hockeystick issued it."""
    with pytest.raises(DeprecationWarning, match="'count' is deprecated"):
        _deprecated_call()


def test_an_asserted_deprecation_is_recorded_at_the_callers_line() -> None:
    with pytest.deprecated_call() as record:
        _deprecated_call()
    assert [(w.filename, w.category) for w in record] == [(__file__, DeprecationWarning)]


def test_numpys_warning_inside_a_hockeystick_module_is_an_error() -> None:
    code = compile("np.log(np.zeros(1))", "<hockeystick module>", "exec")
    with pytest.raises(RuntimeWarning, match="divide by zero"):
        exec(code, {"__name__": "hockeystick.probe", "np": np})


def test_a_warning_of_another_module_is_left_to_the_default_filters() -> None:
    code = compile("warnings.warn('elsewhere', UserWarning)", "<another module>", "exec")
    with warnings.catch_warnings(
        record=True
    ) as record:  # the suite's filters, recorded rather than shown
        exec(code, {"__name__": "another.module", "warnings": warnings})
    assert [str(w.message) for w in record] == ["elsewhere"]
