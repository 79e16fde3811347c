"""A grid PMF's cells, connect-the-dots sides, hockey-stick curves and charged scans (cpp/bindings/register_pld.cpp);
its charges as one ``Charges`` object."""

from typing import Any

import numpy as np
import numpy.typing as npt

class Charges:
    """What a grid PMF's curve is charged (pld/reads/hockey_stick.hpp's GridCharges): its shift, the suffix sums' slack,
    the round-off bounds of its entries and its loss shift; the defaults charge nothing."""

    shift: float
    slack: float
    entry_error: float
    total_error: float
    spectral_l2: float
    inverse_error: float
    loss_shift: float
    inverse_l2: float
    def __init__(
        self,
        *,
        shift: float = 0.0,
        slack: float = 0.0,
        entry_error: float = 0.0,
        total_error: float = 0.0,
        spectral_l2: float = 0.0,
        inverse_error: float = 0.0,
        loss_shift: float = 0.0,
        inverse_l2: float = ...,
    ) -> None: ...

class ChargedCurve:
    def __init__(
        self,
        profile: GridProfile,
        charge: npt.ArrayLike,
        *,
        shift: float,
        slack: float,
        loss_shift: float,
        pessimistic: bool,
        with_envelope: bool,
    ) -> None: ...
    @property
    def envelope(self) -> npt.NDArray[np.float64]: ...
    def delta(self, epsilon: npt.ArrayLike, threads: int = 0) -> npt.NDArray[np.float64]: ...

class GridProfile:
    def __init__(self, p: npt.ArrayLike, *, k_lo: int, h: float, p_inf: float) -> None: ...
    def delta(self, epsilon: npt.ArrayLike, threads: int = 0) -> npt.NDArray[np.float64]: ...
    def epsilon(self, delta: npt.ArrayLike, threads: int = 0) -> npt.NDArray[np.float64]: ...

def _gaussian_exponents(
    base: npt.ArrayLike, dx: npt.ArrayLike, l: npt.ArrayLike, *, shift: float, s: float
) -> tuple[npt.NDArray[np.float64], ...]: ...
def _subsampled_gaussian_edges(
    sigma: float, sampling_rate: float, *, remove: bool, l: npt.ArrayLike
) -> tuple[npt.NDArray[np.float64], float]: ...
def atoms(
    loss: npt.ArrayLike, mass: npt.ArrayLike, *, h: float, max_cells: int
) -> dict[str, Any]: ...

cell_round_off: float

def bounded_range(
    *, epsilon: float, h: float, max_cells: int
) -> tuple[dict[str, Any], dict[str, Any]]: ...
def charged_delta(
    profile: GridProfile,
    epsilon: npt.ArrayLike,
    *,
    k_lo: int,
    n: int,
    h: float,
    charges: Charges,
    pessimistic: bool,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def charged_epsilon(
    p: npt.ArrayLike, *, k_lo: int, h: float, p_inf: float, charges: Charges, delta: npt.ArrayLike
) -> npt.NDArray[np.float64]: ...
def charged_lower_epsilon(
    p: npt.ArrayLike, *, k_lo: int, h: float, p_inf: float, charges: Charges, delta: npt.ArrayLike
) -> npt.NDArray[np.float64]: ...
def chord_epsilon_width(
    epsilon: npt.ArrayLike,
    *,
    lower: npt.ArrayLike,
    upper: npt.ArrayLike,
    right_epsilon: npt.ArrayLike,
    right_upper: npt.ArrayLike,
) -> npt.NDArray[np.float64]: ...
def delta(
    p: npt.ArrayLike, *, k_lo: int, h: float, p_inf: float, epsilon: npt.ArrayLike, threads: int = 0
) -> npt.NDArray[np.float64]: ...
def epsilon(
    p: npt.ArrayLike, *, k_lo: int, h: float, p_inf: float, delta: npt.ArrayLike, threads: int = 0
) -> npt.NDArray[np.float64]: ...
def geometric_sums_at(
    p: npt.ArrayLike, *, decay: float, at: npt.ArrayLike, rising: bool
) -> npt.NDArray[np.float64]: ...
def gaussian_mixture(
    *,
    sigma: float,
    shifts: npt.ArrayLike,
    weights: npt.ArrayLike,
    tail: float,
    h: float,
    max_cells: int,
) -> tuple[dict[str, Any], dict[str, Any]]: ...
def gaussian_mixture_log_weights(
    *,
    sigma: float,
    shifts: npt.ArrayLike,
    log_weights: npt.ArrayLike,
    cut: float,
    top: float,
    h: float,
    max_cells: int,
) -> tuple[dict[str, Any], dict[str, Any]]: ...
def _gaussian_mixture_cell_atoms(
    *,
    sigma: float,
    shifts: npt.ArrayLike,
    weights: npt.ArrayLike,
    tail: float,
    h: float,
    max_cells: int,
    closed_form: bool = True,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
def replace_one_mixture(
    *, sigma: float, sampling_rate: float, tail: float, h: float, max_cells: int
) -> tuple[dict[str, Any], dict[str, Any]]: ...
def laplace(distance: float, scale: float, *, h: float, max_cells: int) -> dict[str, Any]: ...
def laplace_mixture(
    scale: float, *, shifts: npt.ArrayLike, weights: npt.ArrayLike, h: float, max_cells: int
) -> tuple[dict[str, Any], dict[str, Any]]: ...
def laplace_mixture_atom_losses(
    scale: float, *, shifts: npt.ArrayLike, weights: npt.ArrayLike
) -> tuple[float, float]: ...
def _laplace_mixture_cell_atoms(
    scale: float,
    *,
    shifts: npt.ArrayLike,
    weights: npt.ArrayLike,
    h: float,
    max_cells: int,
    closed_form: bool = True,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
def _laplace_mixture_loss_and_inverse(
    scale: float, *, shifts: npt.ArrayLike, weights: npt.ArrayLike, x: npt.ArrayLike
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
def least_epsilon_width(
    x: npt.ArrayLike, *, own: int, lower: npt.ArrayLike, upper: npt.ArrayLike, right_rows: int
) -> npt.NDArray[np.float64]: ...
def left_epsilon_width(
    epsilon: npt.ArrayLike,
    *,
    upper: npt.ArrayLike,
    left_epsilon: npt.ArrayLike,
    left_lower: npt.ArrayLike,
) -> npt.NDArray[np.float64]: ...
def log_mgf(
    p: npt.ArrayLike, *, k_lo: int, h: float, lam: npt.ArrayLike
) -> npt.NDArray[np.float64]: ...
def loss_shifted(
    values: npt.ArrayLike, loss_shift: float, *, up: bool
) -> npt.NDArray[np.float64]: ...
def loss_variance(p: npt.ArrayLike, *, h: float) -> float: ...

max_interval: float

def ratio_threshold(
    a: npt.ArrayLike,
    *,
    a_lo: int,
    b: npt.ArrayLike,
    b_lo: int,
    h: float,
    offset: float,
    epsilon: npt.ArrayLike,
) -> npt.NDArray[np.int64]: ...
def round_off_charge(
    sum: npt.ArrayLike, norm: npt.ArrayLike, *, charges: Charges
) -> npt.NDArray[np.float64]: ...
def round_off_charge_at(
    epsilon: npt.ArrayLike, *, k_lo: int, n: int, h: float, charges: Charges
) -> npt.NDArray[np.float64]: ...
def subsampled_gaussian(
    sigma: float, sampling_rate: float, *, remove: bool, h: float, tail: float, max_cells: int
) -> dict[str, Any]: ...
def subsampled_gaussian_cells(
    sigma: float,
    sampling_rate: float,
    *,
    remove: bool,
    h: float,
    tail: float,
    max_cells: int,
    halves: bool = True,
) -> dict[str, Any]: ...
def subsampled_gaussian_many(
    sigma: npt.ArrayLike,
    sampling_rate: npt.ArrayLike,
    remove: npt.ArrayLike,
    *,
    h: float,
    tail: float,
    max_cells: int,
    threads: int = 0,
    optimistic: bool = True,
) -> list[Any]: ...
def subsampled_gaussian_mass_above(sigma: float, sampling_rate: float, *, tail: float) -> float: ...
def suffix_sum_slack(n: int) -> float: ...
def with_replacement_subsampled_gaussian(
    sigma: float, *, batch_size: int, dataset_size: int, h: float, tail: float, max_cells: int
) -> dict[str, Any]: ...
def without_replacement_subsampled_gaussian(
    sigma: float, sampling_rate: float, *, h: float, tail: float, max_cells: int
) -> dict[str, Any]: ...
