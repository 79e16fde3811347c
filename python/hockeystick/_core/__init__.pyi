"""Type stubs for the compiled module ``hockeystick._core`` (cpp/bindings/module.cpp and register_*.cpp): one
submodule per family of numerics, each in a stub of its own beside this one.

Written from the bindings' own signatures (pybind11 docstrings), then cleaned: numpy arrays in (any array-like;
the facade passes C-contiguous float64), NDArray[float64] out.  tests/test_typing.py checks that every name of
every submodule is declared in its stub, and every field of the option structs, so a new binding needs a line."""

from . import (
    contraction,
    fdp,
    hockey_stick,
    pld,
    pld_allocation,
    pld_compose,
    pld_contraction,
    pld_refine,
)

__all__ = [
    "contraction",
    "fdp",
    "hockey_stick",
    "pld",
    "pld_allocation",
    "pld_compose",
    "pld_contraction",
    "pld_refine",
    "openmp",
]

openmp: bool
