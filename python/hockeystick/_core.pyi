"""Type stubs for the compiled module ``hockeystick._core`` (cpp/bindings/module.cpp and register_*.cpp).

Generated from the bindings' own signatures (pybind11 docstrings), then cleaned: numpy arrays in
(any array-like; the facade passes C-contiguous float64), NDArray[float64] out.  tests/test_typing.py
checks that every name of the compiled module is declared here, so a new binding needs a line."""

from typing import Any

import numpy as np
import numpy.typing as npt

class PldGridProfile:
    def __init__(self, p: npt.ArrayLike, k_lo: int, h: float, p_inf: float) -> None: ...
    def delta(self, epsilon: npt.ArrayLike, threads: int = 0) -> npt.NDArray[np.float64]: ...
    def epsilon(self, delta: npt.ArrayLike, threads: int = 0) -> npt.NDArray[np.float64]: ...

class PldChargedCurve:
    def __init__(
        self,
        profile: PldGridProfile,
        charge: npt.ArrayLike,
        shift: float,
        slack: float,
        loss_shift: float,
        pessimistic: bool,
        with_envelope: bool,
    ) -> None: ...
    @property
    def envelope(self) -> npt.NDArray[np.float64]: ...
    def delta(self, epsilon: npt.ArrayLike, threads: int = 0) -> npt.NDArray[np.float64]: ...

def _exp_avx2(x: npt.ArrayLike) -> Any: ...
def _expm1_avx2(x: npt.ArrayLike) -> Any: ...
def _theta_scalar(r: npt.ArrayLike, epsilon: npt.ArrayLike, threads: int = 0) -> npt.NDArray[np.float64]: ...
def fedavg_interpolation(
    schedule: int,
    learning_rate: npt.ArrayLike,
    lipschitz: npt.ArrayLike,
    local_steps: npt.ArrayLike,
    rounds: npt.ArrayLike,
    threads: int = 0,
) -> tuple[Any, ...]: ...
def gaussian_factor_pairs(
    epsilon: npt.ArrayLike, r_first: npt.ArrayLike, r_product: npt.ArrayLike, threads: int = 0
) -> npt.NDArray[np.float64]: ...
def gaussian_tail(x: npt.ArrayLike, threads: int = 0) -> npt.NDArray[np.float64]: ...
def gaussian_tail_inverse(p: npt.ArrayLike, threads: int = 0) -> npt.NDArray[np.float64]: ...
def geometric_bound_delta(
    epsilon: npt.ArrayLike,
    weight: npt.ArrayLike,
    terms: npt.ArrayLike,
    r_first: npt.ArrayLike,
    r_product: npt.ArrayLike,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def geometric_bound_epsilon(
    delta: npt.ArrayLike,
    weight: npt.ArrayLike,
    terms: npt.ArrayLike,
    r_first: npt.ArrayLike,
    r_product: npt.ArrayLike,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def geometric_bound_from_factors(
    weight: npt.ArrayLike,
    terms: npt.ArrayLike,
    first_value: npt.ArrayLike,
    first_log: npt.ArrayLike,
    product_complement: npt.ArrayLike,
    product_log: npt.ArrayLike,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def interpolation_from_rounds(
    rho: npt.ArrayLike, gamma: npt.ArrayLike, lengths: npt.ArrayLike, threads: int = 0
) -> tuple[Any, ...]: ...
def laplace_hockey_stick(
    distance: npt.ArrayLike, scale: npt.ArrayLike, epsilon: npt.ArrayLike, threads: int = 0
) -> npt.NDArray[np.float64]: ...
def log_gaussian_tail(x: npt.ArrayLike, threads: int = 0) -> npt.NDArray[np.float64]: ...
def log_theta(r: npt.ArrayLike, epsilon: npt.ArrayLike, threads: int = 0) -> npt.NDArray[np.float64]: ...
def mills_ratio(x: npt.ArrayLike, threads: int = 0) -> npt.NDArray[np.float64]: ...

openmp: bool

def pld_allocation_merged_sum(
    grid: npt.ArrayLike,
    qa: npt.ArrayLike,
    wa: npt.ArrayLike,
    qb: npt.ArrayLike,
    wb: npt.ArrayLike,
    square: bool,
    negligible: float,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], int]: ...
def pld_allocation_spread_sum(
    grid: npt.ArrayLike, a: npt.ArrayLike, b: npt.ArrayLike, square: bool, exact_ratio: float, negligible: float
) -> tuple[npt.NDArray[np.float64], float, int]: ...
def pld_atoms(loss: npt.ArrayLike, mass: npt.ArrayLike, h: float, max_cells: int) -> dict[str, Any]: ...
def pld_charged_epsilon(
    p: npt.ArrayLike,
    k_lo: int,
    h: float,
    p_inf: float,
    shift: float,
    slack: float,
    entry_error: float,
    total_error: float,
    spectral_l2: float,
    inverse_error: float,
    loss_shift: float,
    delta: npt.ArrayLike,
    inverse_l2: float = ...,
) -> npt.NDArray[np.float64]: ...
def pld_delta(
    p: npt.ArrayLike, k_lo: int, h: float, p_inf: float, epsilon: npt.ArrayLike, threads: int = 0
) -> npt.NDArray[np.float64]: ...
def pld_epsilon(
    p: npt.ArrayLike, k_lo: int, h: float, p_inf: float, delta: npt.ArrayLike, threads: int = 0
) -> npt.NDArray[np.float64]: ...
def pld_laplace(distance: float, scale: float, h: float, max_cells: int) -> dict[str, Any]: ...
def pld_log_mgf(p: npt.ArrayLike, k_lo: int, h: float, lam: npt.ArrayLike) -> npt.NDArray[np.float64]: ...
def pld_charged_delta(
    profile: PldGridProfile,
    epsilon: npt.ArrayLike,
    k_lo: int,
    n: int,
    h: float,
    shift: float,
    slack: float,
    entry_error: float,
    total_error: float,
    spectral_l2: float,
    inverse_error: float,
    inverse_l2: float,
    pessimistic: bool,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def pld_round_off_charge_at(
    epsilon: npt.ArrayLike,
    k_lo: int,
    n: int,
    h: float,
    entry_error: float,
    total_error: float,
    spectral_l2: float,
    inverse_error: float,
    inverse_l2: float,
) -> npt.NDArray[np.float64]: ...
def pld_loss_shifted(values: npt.ArrayLike, loss_shift: float, up: bool) -> npt.NDArray[np.float64]: ...
def pld_loss_variance(p: npt.ArrayLike, h: float) -> float: ...
def pld_chord_epsilon_width(
    epsilon: npt.ArrayLike,
    lower: npt.ArrayLike,
    upper: npt.ArrayLike,
    right_epsilon: npt.ArrayLike,
    right_upper: npt.ArrayLike,
) -> npt.NDArray[np.float64]: ...
def pld_left_epsilon_width(
    epsilon: npt.ArrayLike, upper: npt.ArrayLike, left_epsilon: npt.ArrayLike, left_lower: npt.ArrayLike
) -> npt.NDArray[np.float64]: ...
def pld_least_epsilon_width(
    x: npt.ArrayLike, own: int, lower: npt.ArrayLike, upper: npt.ArrayLike, right_rows: int
) -> npt.NDArray[np.float64]: ...
def pld_geometric_sums_at(
    p: npt.ArrayLike, decay: float, at: npt.ArrayLike, rising: bool
) -> npt.NDArray[np.float64]: ...
def pld_ratio_threshold(
    a: npt.ArrayLike, a_lo: int, b: npt.ArrayLike, b_lo: int, h: float, offset: float, epsilon: npt.ArrayLike
) -> npt.NDArray[np.int64]: ...
def pld_round_off_charge(
    sum: npt.ArrayLike,
    norm: npt.ArrayLike,
    entry_error: float,
    total_error: float,
    spectral_l2: float,
    inverse_error: float,
    inverse_l2: float,
) -> npt.NDArray[np.float64]: ...
def pld_compose_many(
    masses: list[npt.NDArray[np.float64]],
    k_lo: list[int],
    p_inf: list[float],
    h: float,
    items: list[list[tuple[int, int]]],
    pessimistic: bool,
    tail: float,
    max_points: int,
    workers: int | None = None,
    direct_bins: bool = False,
    long_fft: bool = True,
    long_fft_products: float = 0.35,
    band_rows: bool = True,
    loss_shifts: list[float] = ...,
    direct_min_charge: float = ...,
    shared_transform: bool = False,
) -> list[dict[str, Any]]: ...
def pld_compose_upper_many(
    masses: list[npt.NDArray[np.float64]],
    k_lo: list[int],
    p_inf: list[float],
    h: float,
    items: list[list[tuple[int, int]]],
    tail: float,
    max_points: int,
    workers: int | None,
    loss_shifts: list[float],
    arguments: list[npt.NDArray[np.float64]],
    method: str,
    spectral: bool = True,
    shared_transform: bool = False,
) -> list[npt.NDArray[np.float64]]: ...
def pld_compose_lower_many(
    masses: list[npt.NDArray[np.float64]],
    k_lo: list[int],
    p_inf: list[float],
    h: float,
    items: list[list[tuple[int, int]]],
    tail: float,
    max_points: int,
    workers: int | None,
    loss_shifts: list[float],
    arguments: list[npt.NDArray[np.float64]],
    method: str,
    spectral: bool = True,
    shared_transform: bool = False,
) -> list[tuple[npt.NDArray[np.float64] | None, dict[str, Any] | None]]: ...

pld_direct_min_charge: float

def _pld_fft_direct() -> bool: ...
def pld_direct_bins(
    masses: npt.NDArray[np.float64], m: int, bins: list[int]
) -> tuple[npt.NDArray[np.complex128], float]: ...
def pld_fft_length(width: int) -> int: ...
def pld_working_memory_limit(limit: int | None = None) -> int: ...
def pld_working_memory_high_water(reset: bool = False) -> int: ...
def pld_long_fft_bins(masses: npt.NDArray[np.float64], m: int) -> tuple[npt.NDArray[np.clongdouble], float, float]: ...
def pld_taylor_bins(
    masses: npt.NDArray[np.float64], m: int, keep: int
) -> tuple[npt.NDArray[np.clongdouble], tuple[int, int, int, float], float, float]: ...
def pld_mean_contraction(
    p: npt.ArrayLike, k_lo: int, h_fine: float, ratio: int, p_inf: float, entry_error: float, alias: float
) -> dict[str, Any]: ...
def pld_charged_lower_epsilon(
    p: npt.ArrayLike,
    k_lo: int,
    h: float,
    p_inf: float,
    shift: float,
    slack: float,
    entry_error: float,
    total_error: float,
    spectral_l2: float,
    inverse_error: float,
    loss_shift: float,
    delta: npt.ArrayLike,
    inverse_l2: float = ...,
) -> npt.NDArray[np.float64]: ...

pld_max_interval: float
pld_cell_round_off: float

def pld_subsampled_gaussian(
    sigma: float, sampling_rate: float, remove: bool, h: float, tail: float, max_cells: int
) -> dict[str, Any]: ...
def _gaussian_exponents(
    base: npt.ArrayLike, dx: npt.ArrayLike, l: npt.ArrayLike, shift: float, s: float
) -> tuple[npt.NDArray[np.float64], ...]: ...
def _pld_subsampled_gaussian_edges(
    sigma: float, sampling_rate: float, remove: bool, l: npt.ArrayLike
) -> tuple[npt.NDArray[np.float64], float]: ...
def pld_subsampled_gaussian_cells(
    sigma: float, sampling_rate: float, remove: bool, h: float, tail: float, max_cells: int, halves: bool = True
) -> dict[str, Any]: ...
def pld_subsampled_gaussian_mass_above(sigma: float, sampling_rate: float, tail: float) -> float: ...
def pld_spectral_sums(
    bins: npt.ArrayLike, m: int, start: int, width: int, h: float, J: int, long_double: bool = True
) -> tuple[float, float, float, float, float]: ...
def pld_spectral_lower(
    bins: npt.ArrayLike,
    m: int,
    start: int,
    width: int,
    k_lo: int,
    h: float,
    p_inf: float,
    shift: float,
    entry_error: float,
    total_error: float,
    spectral_l2: float,
    loss_shift: float,
    arguments: npt.NDArray[np.float64],
    method: str,
) -> npt.NDArray[np.float64]: ...
def pld_suffix_sum_slack(n: int) -> float: ...
def pld_subsampled_gaussian_many(
    sigma: npt.ArrayLike,
    sampling_rate: npt.ArrayLike,
    remove: npt.ArrayLike,
    h: float,
    tail: float,
    max_cells: int,
    threads: int = 0,
    optimistic: bool = True,
) -> list[Any]: ...
def pld_with_replacement_subsampled_gaussian(
    sigma: float, batch_size: int, dataset_size: int, h: float, tail: float, max_cells: int
) -> dict[str, Any]: ...
def pld_without_replacement_subsampled_gaussian(
    sigma: float, sampling_rate: float, h: float, tail: float, max_cells: int
) -> dict[str, Any]: ...
def power_bound_delta(
    noise: str,
    epsilon: npt.ArrayLike,
    exponent: npt.ArrayLike,
    g_first: npt.ArrayLike,
    g_product: npt.ArrayLike,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def power_bound_epsilon(
    noise: str,
    delta: npt.ArrayLike,
    exponent: npt.ArrayLike,
    g_first: npt.ArrayLike,
    g_product: npt.ArrayLike,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def random_stop_bound_delta(
    epsilon: npt.ArrayLike,
    weight: npt.ArrayLike,
    terms: npt.ArrayLike,
    first_stop: npt.ArrayLike,
    r_first: npt.ArrayLike,
    r_product: npt.ArrayLike,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def random_stop_bound_epsilon(
    delta: npt.ArrayLike,
    weight: npt.ArrayLike,
    terms: npt.ArrayLike,
    first_stop: npt.ArrayLike,
    r_first: npt.ArrayLike,
    r_product: npt.ArrayLike,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def random_stop_bound_from_factors(
    weight: npt.ArrayLike,
    terms: npt.ArrayLike,
    first_stop: npt.ArrayLike,
    first_value: npt.ArrayLike,
    first_log: npt.ArrayLike,
    product_complement: npt.ArrayLike,
    product_log: npt.ArrayLike,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def schedule_bound_delta(
    epsilon: npt.ArrayLike,
    weight: float,
    first_stop: int,
    r_first: npt.ArrayLike,
    r_product: npt.ArrayLike,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def schedule_bound_epsilon(
    delta: npt.ArrayLike,
    weight: float,
    first_stop: int,
    r_first: npt.ArrayLike,
    r_product: npt.ArrayLike,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def theta(r: npt.ArrayLike, epsilon: npt.ArrayLike, threads: int = 0) -> npt.NDArray[np.float64]: ...
def theta_depsilon(r: npt.ArrayLike, epsilon: npt.ArrayLike, threads: int = 0) -> npt.NDArray[np.float64]: ...
def theta_epsilon(r: npt.ArrayLike, delta: npt.ArrayLike, threads: int = 0) -> npt.NDArray[np.float64]: ...
def theta_radius(epsilon: npt.ArrayLike, delta: npt.ArrayLike, threads: int = 0) -> npt.NDArray[np.float64]: ...
