"""The contraction bounds' kernels, element-wise over broadcast arrays (cpp/bindings/register_contraction.cpp)."""

import numpy as np
import numpy.typing as npt

def gaussian_factor_pairs(
    epsilon: npt.ArrayLike,
    r_first: npt.ArrayLike,
    r_product: npt.ArrayLike,
    *,
    log_rest_bound: float = ...,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def geometric_bound_delta(
    epsilon: npt.ArrayLike,
    *,
    weight: npt.ArrayLike,
    terms: npt.ArrayLike,
    r_first: npt.ArrayLike,
    r_product: npt.ArrayLike,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def geometric_bound_epsilon(
    delta: npt.ArrayLike,
    *,
    weight: npt.ArrayLike,
    terms: npt.ArrayLike,
    r_first: npt.ArrayLike,
    r_product: npt.ArrayLike,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def geometric_bound_from_factors(
    weight: npt.ArrayLike,
    terms: npt.ArrayLike,
    *,
    first_value: npt.ArrayLike,
    first_log: npt.ArrayLike,
    product_complement: npt.ArrayLike,
    product_log: npt.ArrayLike,
    product_log_complement: npt.ArrayLike,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def power_bound_delta(
    noise: str,
    epsilon: npt.ArrayLike,
    *,
    exponent: npt.ArrayLike,
    g_first: npt.ArrayLike,
    g_product: npt.ArrayLike,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def power_bound_epsilon(
    noise: str,
    delta: npt.ArrayLike,
    *,
    exponent: npt.ArrayLike,
    g_first: npt.ArrayLike,
    g_product: npt.ArrayLike,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def random_stop_bound_delta(
    epsilon: npt.ArrayLike,
    *,
    weight: npt.ArrayLike,
    terms: npt.ArrayLike,
    first_stop: npt.ArrayLike,
    r_first: npt.ArrayLike,
    r_product: npt.ArrayLike,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def random_stop_bound_epsilon(
    delta: npt.ArrayLike,
    *,
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
    *,
    first_stop: npt.ArrayLike,
    first_value: npt.ArrayLike,
    first_log: npt.ArrayLike,
    product_complement: npt.ArrayLike,
    product_log: npt.ArrayLike,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def schedule_bound_delta(
    epsilon: npt.ArrayLike,
    *,
    weight: float,
    first_stop: int,
    r_first: npt.ArrayLike,
    r_product: npt.ArrayLike,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def schedule_bound_epsilon(
    delta: npt.ArrayLike,
    *,
    weight: float,
    first_stop: int,
    r_first: npt.ArrayLike,
    r_product: npt.ArrayLike,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
