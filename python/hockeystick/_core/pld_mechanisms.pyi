"""The PLD pipeline's mechanisms stage (cpp/bindings/register_pld.cpp): one round's pair discretized on both
sides, a ``DiscretizedSides`` per direction."""

import numpy as np
import numpy.typing as npt

from .pld_grid import DiscretizedSides, GridPMF

def subsampled_gaussian(
    sigma: float, sampling_rate: float, *, remove: bool, h: float, tail: float, max_cells: int
) -> DiscretizedSides: ...
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
    halves: bool = True,
) -> list[DiscretizedSides]: ...
def subsampled_gaussian_mass_above(sigma: float, sampling_rate: float, *, tail: float) -> float: ...
def laplace(distance: float, scale: float, *, h: float, max_cells: int) -> DiscretizedSides: ...
def atoms(
    loss: npt.ArrayLike, mass: npt.ArrayLike, *, h: float, max_cells: int
) -> DiscretizedSides: ...
def atoms_side(
    loss: npt.ArrayLike, mass: npt.ArrayLike, *, h: float, max_cells: int, pessimistic: bool
) -> GridPMF: ...
def laplace_mixture(
    scale: float, *, shifts: npt.ArrayLike, weights: npt.ArrayLike, h: float, max_cells: int
) -> tuple[DiscretizedSides, DiscretizedSides]: ...
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
def gaussian_mixture(
    *,
    sigma: float,
    shifts: npt.ArrayLike,
    weights: npt.ArrayLike,
    tail: float,
    h: float,
    max_cells: int,
) -> tuple[DiscretizedSides, DiscretizedSides]: ...
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
def bounded_range(
    *, epsilon: float, h: float, max_cells: int
) -> tuple[DiscretizedSides, DiscretizedSides]: ...
