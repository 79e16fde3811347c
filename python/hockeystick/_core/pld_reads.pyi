"""The PLD pipeline's reads stage (cpp/bindings/register_pld.cpp): a grid PMF's hockey-stick curves, charged
sides and scans; its charges as one ``Charges`` object; the max-of-outputs test's certified lower reads of a run
(cpp/bindings/register_pld_max_of_outputs.cpp); a tilted window's round-off charge of the weighted sum its
untilted curve reads and the tilted upper read's window tail and cut checks
(cpp/bindings/register_pld_tilted_charge.cpp); a tilted composition's read, its sides and its upper epsilon
(cpp/bindings/register_pld_tilted_read.cpp); an optimistic PMF's lower side raised to its suffix
maxima (cpp/bindings/register_pld_lower_envelope.cpp); the binomial split's certified curve of few rounds of a rare
large loss and the correctly rounded sum and binomial coefficient it is built on
(cpp/bindings/register_pld_binomial_split.cpp)."""

from collections.abc import Callable, Sequence
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
def charged_sides(
    pmfs: Sequence[Any], epsilon: Sequence[npt.ArrayLike], *, threads: int = 0
) -> list[npt.NDArray[np.float64]]: ...
def fixed_parts(
    pmfs: Sequence[Any], epsilon: Sequence[npt.ArrayLike], values: Sequence[npt.ArrayLike]
) -> list[npt.NDArray[np.float64]]: ...
def lower_envelope(
    pmf: Any,
    epsilon: npt.ArrayLike,
    low: npt.ArrayLike,
    *,
    held: tuple[int, npt.NDArray[np.float64]] | None,
    whole: bool = False,
) -> tuple[npt.NDArray[np.float64], tuple[int, npt.NDArray[np.float64]] | None]: ...
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
def epsilon_search(
    delta_of: Callable[[npt.NDArray[np.float64]], npt.ArrayLike],
    target: float,
    *,
    upper: bool,
    top: float,
    tolerance: float,
    hints: Sequence[float] = (),
    first_pass: int = 0,
    cluster: int = 0,
) -> float: ...

affinity_orders: npt.NDArray[np.float64]

def subsampled_gaussian_log_affinity(
    sigma: float, sampling_rate: float
) -> npt.NDArray[np.float64]: ...
def delta_lower_near_one(
    log_affinity: npt.ArrayLike, rounds: float, epsilon: npt.ArrayLike
) -> npt.NDArray[np.float64]: ...

complement_above: float
complement_max_interval: float

class ComplementFactors:
    @property
    def tilts(self) -> tuple[float, float, float]: ...

def subsampled_gaussian_complement_factors(
    sigma: float, sampling_rate: float, h: float, *, tilt: float | None = None
) -> ComplementFactors: ...
def complement_delta_brackets(
    factors: ComplementFactors,
    *,
    rounds: Sequence[int],
    epsilon: Sequence[npt.ArrayLike],
    others: Sequence[npt.ArrayLike | None],
    workers: int | None = None,
    max_points: int,
) -> list[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]: ...
def geometric_sums_at(
    p: npt.ArrayLike, *, decay: float, at: npt.ArrayLike, rising: bool
) -> npt.NDArray[np.float64]: ...
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
def loss_shifted(
    values: npt.ArrayLike, loss_shift: float, *, up: bool
) -> npt.NDArray[np.float64]: ...
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
def suffix_sum_slack(n: int) -> float: ...

# the max-of-outputs test's certified lower reads (cpp/bindings/register_pld_max_of_outputs.cpp over
# pld/reads/max_of_outputs.hpp): a run as four 1-d arrays of one length, one entry a segment
max_of_outputs_log_tail_margin: float
max_of_outputs_sum_margin: float
max_of_outputs_libm_slack: float
max_of_outputs_coarse_z: tuple[float, float, int]
max_of_outputs_fine_steps: int

def max_of_outputs_epsilon(
    sigma: npt.ArrayLike,
    sampling_rate: npt.ArrayLike,
    sensitivity: npt.ArrayLike,
    rounds: npt.ArrayLike,
    *,
    delta: npt.ArrayLike,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def max_of_outputs_delta(
    sigma: npt.ArrayLike,
    sampling_rate: npt.ArrayLike,
    sensitivity: npt.ArrayLike,
    rounds: npt.ArrayLike,
    *,
    epsilon: npt.ArrayLike,
    fine: bool = True,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def max_of_outputs_best_threshold(
    sigma: npt.ArrayLike,
    sampling_rate: npt.ArrayLike,
    sensitivity: npt.ArrayLike,
    rounds: npt.ArrayLike,
    *,
    delta: float,
) -> tuple[float, float]: ...
def max_of_outputs_log_sides(
    sigma: npt.ArrayLike,
    sampling_rate: npt.ArrayLike,
    sensitivity: npt.ArrayLike,
    rounds: npt.ArrayLike,
    *,
    z: npt.ArrayLike,
    threads: int = 0,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
def max_of_outputs_log_bound(
    sigma: npt.ArrayLike,
    sampling_rate: npt.ArrayLike,
    sensitivity: npt.ArrayLike,
    rounds: npt.ArrayLike,
    *,
    z: npt.ArrayLike,
    delta: float,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def tilted_weights(
    position: npt.ArrayLike, *, theta: float, h: float, threads: int = 0
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
def tilted_window_charge(
    x: npt.ArrayLike,
    *,
    k_lo: int,
    size: int,
    h: float,
    theta: float,
    charges: Charges,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def saddle_looseness(
    p: npt.ArrayLike, *, k_lo: int, h: float, rounds: float, lam: float
) -> tuple[float, float]: ...
def tilted_read_tail(
    p: npt.ArrayLike, *, k_lo: int, h: float, rounds: float, lam: float
) -> float: ...
def wrapped_mass(
    p: npt.ArrayLike,
    *,
    k_lo: int,
    h: float,
    rounds: float,
    theta: float,
    x: float,
    length: int,
    enough: float = 0.0,
) -> float: ...
def wrap_lambdas() -> npt.NDArray[np.float64]: ...
def tilt_lambdas() -> npt.NDArray[np.float64]: ...
def above_lambdas() -> npt.NDArray[np.float64]: ...
def tilted_masses(
    p: npt.ArrayLike, *, k_lo: int, theta: float, log_m: float, pessimistic: bool
) -> npt.NDArray[np.float64]: ...
def untilted_masses(
    tilted: npt.ArrayLike,
    *,
    first: int,
    theta: float,
    log_scale: float,
    scale_magnitude: float,
    pessimistic: bool,
) -> npt.NDArray[np.float64]: ...
def untilt_factor(scaled: float, *, log_scale: float, scale_magnitude: float) -> float: ...
def summed_log_moments(terms: npt.ArrayLike) -> npt.NDArray[np.float64]: ...
def chernoff_above(lams: npt.ArrayLike, k: npt.ArrayLike, *, x: float) -> float: ...
def cut_charge_too_large(charge: float, wrapped: float, delta: float) -> bool: ...

class TiltedComposition:
    """A window composed under an exponential tilt, read untilted (pld/reads/tilted.hpp): ``window`` any object
    with GridPMF's fields; ``above`` the cut window's (lams, K(lam)) or None; ``least_read`` the least argument read
    or None."""

    def __init__(
        self,
        window: Any,
        *,
        theta: float,
        log_scale: float,
        scale_magnitude: float,
        p_inf: float,
        pessimistic: bool,
        above: tuple[npt.ArrayLike, npt.ArrayLike] | None = None,
        least_read: float | None = None,
    ) -> None: ...
    @property
    def floor_index(self) -> int: ...
    @property
    def floor(self) -> float: ...
    @property
    def window_floor_index(self) -> int: ...
    @property
    def window_floor(self) -> float: ...
    @property
    def cut(self) -> float: ...
    @property
    def top(self) -> float: ...
    @property
    def slack(self) -> float: ...
    @property
    def cut_short(self) -> bool: ...
    def untilt_factor(self, x: float) -> float: ...
    def side_at(self, x: npt.ArrayLike, *, threads: int = 0) -> npt.NDArray[np.float64]: ...
    def delta(self, eps: npt.ArrayLike, *, threads: int = 0) -> npt.NDArray[np.float64]: ...

def tilted_upper_epsilon(
    composition: TiltedComposition, *, delta: float, start: float
) -> float: ...
def tilted_lower_epsilon(
    composition: TiltedComposition,
    *,
    delta: float,
    near: float,
    start: float = ...,
    points: int = ...,
    steps: int = ...,
) -> float: ...

READ_TAIL: float
CUT_CHECK_SHARE: float
WRAP_CHECK_SHARE: float

split_max_terms: int
split_max_span_points: int

class BinomialSplit:
    """The certified delta curve of few rounds split by how many pass floor / T
    (pld/reads/binomial_split.hpp)."""

    def __init__(
        self,
        segments: Sequence[tuple[Any, int]],
        *,
        floor: float,
        negligible: float,
        tail: float,
        max_points: int,
        max_terms: int = ...,
        max_span_points: int = ...,
    ) -> None: ...
    @property
    def pessimistic(self) -> bool: ...
    @property
    def floor(self) -> float: ...
    @property
    def scales(self) -> list[float]: ...
    @property
    def rest(self) -> float: ...
    def delta(self, eps: float) -> float: ...
    def epsilon(self, delta: float, top: float) -> float: ...

def exact_sum(values: npt.ArrayLike) -> float: ...
def rounded_binomial(n: int, k: int) -> float: ...
