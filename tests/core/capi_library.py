"""libhockeystick_c through ctypes for the tests of its PLD calls (test_capi_mechanisms.py,
test_capi_refinement.py, test_capi_tilted.py): the library with its PLD calls, or the test skipped
where it was built without them, and the calls to an accuracy (cpp/capi/refine.cpp) declared."""

from __future__ import annotations

import ctypes
from pathlib import Path

import pytest

from .test_capi import Library

_D = ctypes.c_double
_PD = ctypes.POINTER(_D)


def with_pld_calls(path: Path) -> Library:
    """The library at ``path``; the test is skipped where it was built without the PLD calls."""
    library = Library(path)
    if not library.lib.hs_has_pld():
        pytest.skip(
            "libhockeystick_c was built without the PLD calls: install libeigen3-dev (Eigen) for them"
        )
    return library


def with_refinements(path: Path) -> Library:
    """The library at ``path`` (``with_pld_calls``) with hs_subsampled_gaussian_epsilon, _delta and
    _sigma declared (hockeystick/hockeystick.h)."""
    library = with_pld_calls(path)
    bracket = [_D, _D, ctypes.c_longlong, _D, _D, _PD, _PD]
    library.lib.hs_subsampled_gaussian_epsilon.argtypes = bracket
    library.lib.hs_subsampled_gaussian_delta.argtypes = bracket
    library.lib.hs_subsampled_gaussian_sigma.argtypes = [_D, _D, _D, ctypes.c_longlong, _D, _PD]
    return library
