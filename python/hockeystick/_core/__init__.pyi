"""Type stubs for the compiled module ``hockeystick._core`` (cpp/bindings/module.cpp and register_*.cpp): one
submodule per family of numerics and one per stage of the PLD pipeline (``pld_grid``, ``pld_mechanisms``,
``pld_sampling``, ``pld_compose``, ``pld_reads``, ``pld_refine``: the stages of hockeystick.pld and of
cpp/include/hockeystick/pld/), each in a stub of its own beside this one.

Written from the bindings' own signatures (pybind11 docstrings), then cleaned: numpy arrays in (any array-like;
the facade passes C-contiguous float64), NDArray[float64] out.  tests/test_typing.py checks that every name of
every submodule is declared in its stub, and every field of the option structs, so a new binding needs a line."""

from . import (
    contraction,
    fdp,
    hockey_stick,
    pld_compose,
    pld_grid,
    pld_mechanisms,
    pld_reads,
    pld_refine,
    pld_sampling,
)

__all__ = [
    "contraction",
    "fdp",
    "hockey_stick",
    "pld_grid",
    "pld_mechanisms",
    "pld_sampling",
    "pld_compose",
    "pld_reads",
    "pld_refine",
    "openmp",
]

openmp: bool
