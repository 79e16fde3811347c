"""FFT composition of grid PMFs and the reads of a composed spectrum (cpp/bindings/register_pld_compose.cpp);
a composition's tuning as one ``ComposeOptions`` object."""

from collections.abc import Sequence
from typing import Literal

import numpy as np
import numpy.typing as npt

from . import pld_reads as _pld

class ComposeOptions:
    """The tuning of a composition (pld/compose/options.hpp's ComposeOptions) and whether the backend may offer
    its long-double transform (``long_fft``)."""

    direct_bins: bool
    long_fft: bool
    long_fft_products: float
    band_rows: bool
    direct_min_charge: float
    shared_transform: bool
    group_cells: int
    def __init__(
        self,
        *,
        direct_bins: bool = False,
        long_fft: bool = True,
        long_fft_products: float = ...,
        band_rows: bool = True,
        direct_min_charge: float = ...,
        shared_transform: bool = False,
        group_cells: int = ...,
    ) -> None: ...

class ComposedPMF:
    """A composed window of grid PMFs and its charges (pld/compose/options.hpp's ComposedPMF), read-only; ``p``
    views the object's own masses."""

    @property
    def k_lo(self) -> int: ...
    @property
    def h(self) -> float: ...
    @property
    def p(self) -> npt.NDArray[np.float64]: ...
    @property
    def p_inf(self) -> float: ...
    @property
    def pessimistic(self) -> bool: ...
    @property
    def shift(self) -> float: ...
    @property
    def entry_error(self) -> float: ...
    @property
    def total_error(self) -> float: ...
    @property
    def spectral_l2(self) -> float: ...
    @property
    def inverse_error(self) -> float: ...
    @property
    def inverse_l2(self) -> float: ...
    @property
    def loss_shift(self) -> float: ...
    @property
    def finite_mass(self) -> float | None: ...

def _fft_direct() -> bool: ...
def binary_power_bins(
    x: npt.ArrayLike, *, counts: Sequence[int], deltas: Sequence[float]
) -> tuple[
    npt.NDArray[np.complex128],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.bool_],
    npt.NDArray[np.bool_],
]: ...
def compose_lower_many(
    masses: list[npt.NDArray[np.float64]],
    *,
    k_lo: list[int],
    p_inf: list[float],
    h: float,
    items: list[list[tuple[int, int]]],
    tail: float,
    max_points: int,
    workers: int | None,
    loss_shifts: list[float],
    arguments: list[npt.NDArray[np.float64]],
    method: Literal["epsilon", "delta"],
    spectral: bool = True,
    options: ComposeOptions = ...,
) -> list[tuple[npt.NDArray[np.float64] | None, ComposedPMF | None]]: ...
def compose_many(
    masses: list[npt.NDArray[np.float64]],
    *,
    k_lo: list[int],
    p_inf: list[float],
    h: float,
    items: list[list[tuple[int, int]]],
    pessimistic: bool,
    tail: float,
    max_points: int,
    workers: int | None = None,
    loss_shifts: list[float] = ...,
    options: ComposeOptions = ...,
) -> list[ComposedPMF]: ...
def compose_upper_many(
    masses: list[npt.NDArray[np.float64]],
    *,
    k_lo: list[int],
    p_inf: list[float],
    h: float,
    items: list[list[tuple[int, int]]],
    tail: float,
    max_points: int,
    workers: int | None,
    loss_shifts: list[float],
    arguments: list[npt.NDArray[np.float64]],
    method: Literal["epsilon", "delta"],
    spectral: bool = True,
    options: ComposeOptions = ...,
) -> list[npt.NDArray[np.float64]]: ...
def composition_batches(
    *, tails: list[float] = ..., steps: list[float] = ...
) -> list[list[int]]: ...
def direct_bins(
    masses: npt.NDArray[np.float64], *, m: int, bins: list[int]
) -> tuple[npt.NDArray[np.complex128], float]: ...

direct_min_charge: float

def fft_length(width: int) -> int: ...
def numpy_fft_loops() -> tuple[bool, bool]: ...
def long_fft_bins(
    masses: npt.NDArray[np.float64], *, m: int
) -> tuple[npt.NDArray[np.clongdouble], float, float]: ...
def spectral_lower(
    bins: npt.ArrayLike,
    *,
    m: int,
    start: int,
    width: int,
    k_lo: int,
    h: float,
    p_inf: float,
    charges: _pld.Charges,
    arguments: npt.NDArray[np.float64],
    method: Literal["epsilon", "delta"],
) -> npt.NDArray[np.float64]: ...
def spectral_sums(
    bins: npt.ArrayLike,
    *,
    m: int,
    start: int,
    width: int,
    h: float,
    J: int,
    long_double: bool = True,
) -> tuple[float, float, float, float, float]: ...
def taylor_bins(
    masses: npt.NDArray[np.float64], *, m: int, keep: int
) -> tuple[npt.NDArray[np.clongdouble], tuple[int, int, int, float], float, float]: ...
def working_memory_high_water(*, reset: bool = False) -> int: ...
def working_memory_limit(limit: int | None = None) -> int: ...
