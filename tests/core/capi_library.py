"""libhockeystick_c through ctypes for the tests of its PLD calls (test_capi_mechanisms.py,
test_capi_own_grid.py, test_capi_refinement.py, test_capi_tilted.py): the library with its PLD calls,
or the test skipped where it was built without them, with the mechanisms' calls or the calls to an
accuracy (cpp/capi/refine.cpp) declared, and a handle made by a call."""

from __future__ import annotations

import ctypes
from pathlib import Path

import pytest

from .test_capi import HS_OK, Library

_D = ctypes.c_double
_PD = ctypes.POINTER(_D)
_LL = ctypes.c_longlong
_PLD = ctypes.c_void_p
_OUT = ctypes.POINTER(_PLD)


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


def with_mechanisms(path: Path) -> Library:
    """The library at ``path`` (``with_pld_calls``) with hs_pld_compose, hs_pld_laplace and
    hs_pld_fixed_size_gaussian declared (hockeystick/hockeystick.h)."""
    library = with_pld_calls(path)
    library.lib.hs_pld_compose.argtypes = [_PLD, _PLD, _OUT]
    library.lib.hs_pld_laplace.argtypes = [_D, _D, _D, _D, _OUT]
    library.lib.hs_pld_fixed_size_gaussian.argtypes = [_D, _LL, _LL, _D, _D, _OUT]
    return library


def made(lib: Library, call: str, *args: object) -> ctypes.c_void_p:
    """The handle the library's ``call`` makes of ``args``; an AssertionError with its message where
    it refuses."""
    out = _PLD()
    status = getattr(lib.lib, call)(*args, ctypes.byref(out))
    assert status == HS_OK, f"{call}{args}: {lib.last_error()}"
    return out
