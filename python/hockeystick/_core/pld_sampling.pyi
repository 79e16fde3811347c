"""The PLD pipeline's sampling stage (cpp/bindings/register_pld.cpp, register_pld_allocation.cpp,
register_pld_contraction.cpp): the sampled rounds' pairs, random allocation's sums of two laws on a grid and
the mean-preserving contraction of a grid PMF onto a coarser grid."""

import numpy as np
import numpy.typing as npt

from .pld_grid import DiscretizedSides, GridPMF

def with_replacement_subsampled_gaussian(
    sigma: float, *, batch_size: int, dataset_size: int, h: float, tail: float, max_cells: int
) -> DiscretizedSides: ...
def without_replacement_subsampled_gaussian(
    sigma: float, sampling_rate: float, *, h: float, tail: float, max_cells: int
) -> DiscretizedSides: ...
def gaussian_mixture_log_weights(
    *,
    sigma: float,
    shifts: npt.ArrayLike,
    log_weights: npt.ArrayLike,
    cut: float,
    top: float,
    h: float,
    max_cells: int,
) -> tuple[DiscretizedSides, DiscretizedSides]: ...
def replace_one_mixture(
    *, sigma: float, sampling_rate: float, tail: float, h: float, max_cells: int
) -> tuple[DiscretizedSides, DiscretizedSides]: ...
def merged_sum(
    grid: npt.ArrayLike,
    qa: npt.ArrayLike,
    wa: npt.ArrayLike,
    qb: npt.ArrayLike,
    wb: npt.ArrayLike,
    *,
    square: bool,
    negligible: float,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], int]: ...
def spread_sum(
    grid: npt.ArrayLike,
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    *,
    square: bool,
    exact_ratio: float,
    negligible: float,
) -> tuple[npt.NDArray[np.float64], float, int]: ...
def mean_contraction(
    p: npt.ArrayLike,
    *,
    k_lo: int,
    h_fine: float,
    ratio: int,
    p_inf: float,
    entry_error: float,
    alias: float,
) -> GridPMF: ...
