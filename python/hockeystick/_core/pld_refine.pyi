"""The refinement's grid-and-tail policy, the truncations' tails, its next-grid rules and the loops
of one point's epsilon and delta refinements (cpp/bindings/register_pld_refine.cpp), where its
windows get their memory; the aligned cells' lower PMF of rare participation (cpp/bindings/register_pld_aligned_lower.cpp); the tilted reads of a run of several kinds of round
(cpp/bindings/register_pld_tilted_factors.cpp); the block reads of many rounds of one kind of round at a small
sampling rate and the dilation they take (cpp/bindings/register_pld_block_reads.cpp); the own-grid epsilon and delta
brackets of a composed PLD whose factors describe no run (cpp/bindings/register_pld_own_grid.cpp); rare
participation's last epsilon reads (cpp/bindings/register_pld_rare_finer_grids.cpp)."""

from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from .pld_grid import GridPMF

class GridPolicy:
    finest_interval: float
    lowest_interval: float
    coarsest_interval: float
    coarsest_start: float
    start_points: float
    below_rate_margin: float
    below_rate_start_max_rate: float
    below_rate_start_max_refinement: float
    below_rate_finest_divisor: float
    max_window: float
    def __init__(
        self,
        *,
        finest_interval: float = ...,
        lowest_interval: float = ...,
        coarsest_interval: float = ...,
        coarsest_start: float = ...,
        start_points: float = ...,
        below_rate_margin: float = ...,
        below_rate_start_max_rate: float = ...,
        below_rate_start_max_refinement: float = ...,
        below_rate_finest_divisor: float = ...,
        max_window: float = ...,
    ) -> None: ...

def loss_span(sigma: float, q: float, rounds: float, sensitivity: float) -> float: ...
def ladder_rung(h: float, policy: GridPolicy) -> float: ...
def finest_interval(q: float, policy: GridPolicy) -> float: ...
def within_window(
    sigma: float, q: float, rounds: float, sensitivity: float, h: float, policy: GridPolicy
) -> float: ...
def start_default(accuracy: float, policy: GridPolicy) -> float: ...
def span_start(
    sigma: float, q: float, rounds: float, sensitivity: float, accuracy: float, policy: GridPolicy
) -> float: ...
def below_rate(q: float, policy: GridPolicy) -> float: ...
def below_rate_start(start: float, q: float, policy: GridPolicy) -> float: ...
def delta_start(
    sigma: float,
    q: float,
    rounds: float,
    sensitivity: float,
    accuracy: float,
    epsilon_criterion: bool,
    policy: GridPolicy,
) -> float: ...
def epsilon_start(
    sigma: float,
    q: float,
    rounds: float,
    sensitivity: float,
    delta: npt.ArrayLike,
    *,
    accuracy: float,
    relative_accuracy: float,
    policy: GridPolicy,
) -> float: ...
def question_tail(
    rounds: float, delta: float, *, share: float, default_tail: float, smallest_tail: float
) -> float: ...
def plain_grid_misses(
    *, q: float, rounds: float, delta: npt.ArrayLike, tail: float, h: float
) -> npt.NDArray[np.bool_]: ...
def fixed_grid_fits(
    *,
    sigma: float,
    q: float,
    rounds: float,
    sensitivity: float,
    delta: npt.ArrayLike,
    tail: float,
    h: float,
    policy: GridPolicy,
) -> bool: ...
def round_tail_span(
    sigma: float, sampling_rate: float, *, sensitivity: float, tail: float
) -> float: ...
def refine(*, front: Any) -> None: ...

class PointsRules:
    accuracy: float
    relative_accuracy: float
    def __init__(
        self,
        *,
        method: Literal["epsilon", "delta"],
        delta_accuracy: Literal["relative", "epsilon"],
        accuracy: float,
        relative_accuracy: float,
        right_rows: int,
        delta_floor: float,
        delta_ceiling: float,
        near_one: float,
        capped_step: float,
        no_lower_step: float,
        gap_target: float,
        offset_limited: float,
        offset_gap_target: float,
        tuning: NextGridTuning,
        policy: GridPolicy,
    ) -> None: ...

def refine_subsampled_gaussian_deltas(
    *,
    rules: PointsRules,
    step_rules: PointsRules,
    points: list[tuple[float, float, float, float]],
    xs: list[npt.NDArray[np.float64]],
    own: list[int],
    coarsest_fit: list[float],
    policy: GridPolicy,
    start_policy: GridPolicy,
    right_rows: int,
    tail: float,
    accuracy: float,
    by_epsilon: bool,
    floor: float,
    settled: float,
    same_grid_charge: float,
    budget: float,
    batch: int,
    near_one: float,
    complement_above: float,
    max_cells: int,
    max_points: int,
    workers: int | None = None,
) -> tuple[
    list[tuple[int, npt.NDArray[np.float64], npt.NDArray[np.float64]]],
    int,
    int,
    npt.NDArray[np.float64],
    list[int],
]: ...
def points_step(
    *,
    rules: PointsRules,
    point: tuple[float, float, float, float],
    x: npt.ArrayLike,
    own: int,
    coarsest_fit: float,
    h: float,
    lower: npt.ArrayLike,
    upper: npt.ArrayLike,
    fixed: npt.ArrayLike | None,
    near: npt.ArrayLike | None,
    direct: bool,
    stop: bool,
    before: tuple[float, npt.ArrayLike, npt.ArrayLike, npt.ArrayLike] | None,
) -> tuple[
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    float | None,
    bool,
    bool,
]: ...
def delta_step_sides(
    *,
    rules: PointsRules,
    xs: list[npt.NDArray[np.float64]],
    own: list[int],
    uppers: list[list[Any]],
    upper_values: list[list[npt.NDArray[np.float64]]],
    lowers: list[list[Any]],
    lower_values: list[list[npt.NDArray[np.float64]]],
    before: list[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] | None],
) -> list[
    tuple[
        npt.NDArray[np.float64],
        npt.NDArray[np.float64],
        npt.NDArray[np.float64],
        npt.NDArray[np.float64] | None,
    ]
]: ...
def screened_delta_step(
    *,
    rules: PointsRules,
    xs: list[npt.NDArray[np.float64]],
    own: list[int],
    before: list[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] | None],
    windows: list[float],
    removes: list[tuple[list[tuple[Any, int]], list[tuple[Any, int]]]],
    screens: list[list[tuple[Any, int]]],
    add_direction: Callable[[list[int]], list[tuple[list[tuple[Any, int]], list[tuple[Any, int]]]]],
    floor: float,
    settled: float,
    direct_bins: bool,
    direct_min_charge: float,
    workers: int | None,
    max_points: int,
) -> list[
    tuple[
        npt.NDArray[np.float64],
        npt.NDArray[np.float64],
        npt.NDArray[np.float64],
        npt.NDArray[np.float64] | None,
        tuple[bool, bool, bool],
    ]
]: ...
def subsampled_gaussian_step(
    *,
    sigma: float,
    sampling_rate: float,
    rounds: int,
    delta: float,
    interval: float,
    accuracy: float,
    tail: float,
    direct_bins: bool,
    direct_min_charge: float,
    max_cells: int,
    workers: int | None,
    max_points: int,
) -> tuple[float, float, float]: ...
def accuracy_epsilon(
    *,
    sigma: float,
    sampling_rate: float,
    rounds: int,
    delta: float,
    lower: float,
    upper: float,
    accuracy: float,
    relative_accuracy: float,
    start: float,
    default_start: float,
    cap: Callable[[], float] | None,
    default_bracket: Callable[[], tuple[float, float]],
    max_cells: int,
    tail: float = ...,
    workers: int | None = ...,
) -> tuple[float, float]: ...
def accuracy_delta(
    *,
    sigma: float,
    sampling_rate: float,
    rounds: int,
    eps: npt.ArrayLike,
    lower: npt.ArrayLike,
    upper: npt.ArrayLike,
    accuracy: float,
    default_accuracy: float,
    delta_floor: float,
    by_width: bool,
    rare: bool,
    read_lower: bool,
    default_bracket: Callable[[int], tuple[float, float]],
    max_cells: int,
    split_max_points: int,
    tail: float = ...,
    workers: int | None = ...,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
def refined_subsampled_gaussian_epsilon(
    *,
    sigma: float,
    sampling_rate: float,
    rounds: int,
    sensitivity: float,
    delta: float,
    accuracy: float,
    tail: float,
    coarsest_fit: float,
    charge: float | None,
    policy: GridPolicy,
    tuning: NextGridTuning,
    max_cells: int,
    workers: int | None,
    max_points: int,
    relative_accuracy: float = 0.0,
) -> tuple[float, float, bool, tuple[float, ...]]: ...
def refined_subsampled_gaussian_delta(
    *,
    sigma: float,
    sampling_rate: float,
    rounds: int,
    sensitivity: float,
    epsilon: float,
    rules: PointsRules,
    tail: float,
    coarsest_fit: float,
    max_cells: int,
    workers: int | None,
    max_points: int,
) -> tuple[float, float, bool, float, tuple[float, ...]]: ...

step_screen_coarsening: float

def screened_epsilon_step(
    *,
    deltas: list[npt.NDArray[np.float64]],
    windows: list[float],
    removes: list[tuple[list[tuple[Any, int]], list[tuple[Any, int]]]],
    screens: list[list[tuple[Any, int]]],
    add_direction: Callable[[list[int]], list[tuple[list[tuple[Any, int]], list[tuple[Any, int]]]]],
    direct_bins: bool,
    direct_min_charge: float,
    workers: int | None,
    max_points: int,
) -> list[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]]: ...
def plan_next_grid(
    *,
    h: float,
    width: float,
    before: tuple[float, float] | None,
    points: float,
    target: float,
    finest: float,
    max_points: float,
    probe_shrink: float,
    probe_points: float,
    tuning: NextGridTuning,
    policy: GridPolicy,
) -> tuple[float, float] | None: ...
def screen_clears(
    bounds: list[npt.NDArray[np.float64]],
    lowers: list[npt.NDArray[np.float64] | None],
    *,
    floor: float,
) -> list[bool]: ...
def settled_everywhere(
    uppers: list[npt.NDArray[np.float64]],
    screens: list[npt.NDArray[np.float64]] | None,
    *,
    settled: float,
) -> list[bool]: ...
def refinement_tails(
    noise: float, q: float, rounds: float, *, smallest: float, tail: float, accuracy: float
) -> tuple[float, float]: ...
def direct_bins_charge(
    least_delta: float, *, first_delta: float, charge_share: float, min_charge: float
) -> float | None: ...

# a bracket at most this share of its upper side wide is exact (pld/refine/epsilon_refinement.hpp)
exact_relative: float
mmap_threshold_ceiling: int
trim_threshold_ceiling: int
window_mmap_threshold: int
window_trim_threshold: int

def raise_malloc_thresholds() -> bool: ...
def tunes_malloc(key: str, value: str) -> bool: ...
def user_tunes_malloc() -> bool: ...

class WindowHeap:
    def __init__(self) -> None: ...
    def __enter__(self) -> bool: ...
    def __exit__(self, *args: object) -> bool: ...

def refine_epsilon(
    sigma: float,
    q: float,
    rounds: float,
    sensitivity: float,
    delta: float,
    accuracy: float,
    *,
    bracket_at: Callable[[float], tuple[float, float]],
    policy: GridPolicy,
    tuning: NextGridTuning = ...,
    relative_accuracy: float = 0.0,
) -> tuple[float, float, float, int, bool]: ...
def refine_delta(
    *,
    sigma: float,
    q: float,
    rounds: float,
    sensitivity: float,
    accuracy: float,
    bracket_at: Callable[[float], tuple[float, float]],
    delta_floor: float,
    policy: GridPolicy,
    tuning: NextGridTuning,
) -> tuple[float, float, float, int, bool]: ...

class NextGridTuning:
    stalled: float
    slowest_power: float
    slow_reach: float
    cap_left_within_tolerances: float
    def __init__(
        self,
        *,
        stalled: float = ...,
        slowest_power: float = ...,
        slow_reach: float = ...,
        cap_left_within_tolerances: float = ...,
    ) -> None: ...

def first_step(
    *,
    h: float,
    width: npt.ArrayLike,
    scaling: npt.ArrayLike,
    capped_h: float | None,
    recompose: bool,
    finest: float,
    accuracy: float,
    ladder: GridPolicy | None,
) -> float | None: ...
def fitted_step(
    *,
    h: float,
    h0: float,
    width: npt.ArrayLike,
    width0: npt.ArrayLike,
    wide: npt.ArrayLike,
    finest: float,
    accuracy: float,
    tuning: NextGridTuning,
    ladder: GridPolicy | None,
) -> float | None: ...
def power_step(
    *,
    h: float,
    h0: float,
    width: npt.ArrayLike,
    width0: npt.ArrayLike,
    alone: npt.ArrayLike,
    wide: npt.ArrayLike,
    was_capped: npt.ArrayLike,
    near_rate: bool,
    finest: float,
    accuracy: float,
    tuning: NextGridTuning,
    ladder: GridPolicy | None,
) -> float | None: ...
def charged_step(
    *,
    h: float,
    h0: float,
    width: npt.ArrayLike,
    width0: npt.ArrayLike,
    alone: npt.ArrayLike,
    cap: npt.ArrayLike,
    wide: npt.ArrayLike,
    charged: npt.ArrayLike,
    q: float,
    finest: float,
    accuracy: float,
    tuning: NextGridTuning,
    ladder: GridPolicy | None,
) -> float | None: ...

# the aligned cells' lower PMF (cpp/bindings/register_pld_aligned_lower.cpp)
aligned_up_to: float
aligned_tail: float
aligned_tail_error: float
aligned_centred: float
aligned_max_cells: int

def aligned_pmf(
    *, sigma: float, sampling_rate: float, interval: float, centred: bool = True
) -> tuple[int, npt.NDArray[np.float64], float]: ...
def aligned_cell(
    *,
    sigma: float,
    sampling_rate: float,
    lo: npt.ArrayLike,
    hi: npt.ArrayLike,
    threads: int = 0,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
def aligned_verified_edges(
    *,
    sigma: float,
    sampling_rate: float,
    k: npt.ArrayLike,
    offset: float,
    interval: float,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...
def aligned_mean_at_least(
    *,
    sigma: float,
    sampling_rate: float,
    lo: npt.ArrayLike,
    hi: npt.ArrayLike,
    x: npt.ArrayLike,
    threads: int = 0,
) -> npt.NDArray[np.float64]: ...

# the rare participation reads of the core's TiltedReader (cpp/bindings/register_pld_aligned_lower.cpp)
tilt_rare_rate: float
# the tilted descent of the core's TiltedReader (pld/refine/tilted_question.hpp, pld/reads/tilted.hpp): each grid
# this many times finer, at most this many grids, each window within this many points; the round-off model
# choosing the tilt
tilt_round_off_per_round: float
tilt_grid_step: float
tilt_grids: int
tilt_max_points: int
tilt_delta_ratio: float
tilt_delta_decades: float
# the grids a tilted descent reads where its first grid passes the windows' cap (TiltedReader::fine_bracket)
tilt_fine_grids: tuple[float, float, float]
tilt_rare_upper_grids: tuple[float, float]
tilt_fine_upper_grids: tuple[float, float]
tilt_window_tail: float
tilt_refused_ratio: float
tilt_rare_max_points: int
tilt_rare_lower_grid: float
tilt_rare_lower_max_points: int

def fine_rare_pending(*, sampling_rate: float, lower: float, upper: float) -> bool: ...
def tilted_rare_upper(
    *,
    sigma: float,
    sampling_rate: float,
    rounds: int,
    delta: float,
    upper: float,
    max_cells: int,
    tail: float = 0.0,
    workers: int | None = None,
) -> float: ...
def tilted_delta_key(*, eps: float, upper: float) -> tuple[float, float]: ...
def tilted_descent(
    *,
    sigma: float,
    sampling_rate: float,
    rounds: int,
    delta: npt.ArrayLike,
    lower: npt.ArrayLike,
    upper: npt.ArrayLike,
    start: npt.ArrayLike,
    accuracy: float,
    relative_accuracy: float,
    max_cells: int,
    tail: float = 0.0,
    workers: int | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...

class DefaultRefinementPlan:
    def __init__(
        self,
        *,
        rules: PointsRules,
        coarsest_fit: float,
        first_grid: float,
        charge: float | None,
        same_grid_charge: float,
        descent_start: float,
        cap: Callable[[], float] | None,
        tail: float,
        accuracy: float,
        max_cells: int,
        max_points: int,
    ) -> None: ...

class TiltedPointReader:
    def __init__(
        self,
        *,
        sigma: float,
        sampling_rate: float,
        rounds: int,
        max_cells: int,
        max_points: int,
        tail: float = 0.0,
        workers: int | None = None,
    ) -> None: ...
    def exponent_read(
        self, *, delta: float, interval: float, upper: float, least: float
    ) -> tuple[float, int]: ...
    def delta_upper(
        self, *, eps: npt.ArrayLike, interval: float, centre: float, level: float
    ) -> npt.NDArray[np.float64]: ...
    def delta_lower(
        self, *, eps: npt.ArrayLike, interval: float, centre: float, level: float
    ) -> npt.NDArray[np.float64]: ...
    def add_screen(
        self, *, eps: npt.ArrayLike, interval: float, level: float, centre: float
    ) -> npt.NDArray[np.float64]: ...
    def fine_delta_brackets(
        self,
        *,
        eps: npt.ArrayLike,
        lower: npt.ArrayLike,
        upper: npt.ArrayLike,
        read_lower: bool,
        split_max_points: int,
        rare: bool = False,
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
    def split_epsilon(
        self, *, delta: float, interval: float, lower: float, upper: float, split_max_points: int
    ) -> tuple[float, float]: ...
    def fine_epsilon(
        self,
        *,
        delta: npt.ArrayLike,
        lower: npt.ArrayLike,
        upper: npt.ArrayLike,
        add_upper: npt.ArrayLike,
        sigma: float,
        sensitivity: float,
        split_max_points: int,
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
    def default_epsilon(
        self,
        *,
        delta: float,
        fixed: tuple[float, float] | None,
        fixed_add: float,
        plan: DefaultRefinementPlan | None,
        policy: GridPolicy,
        sigma: float,
        sensitivity: float,
        split_max_points: int,
        upper_max_points: int,
        lower_max_points: int,
    ) -> tuple[float, float, tuple[float, float, bool, bool, bool, int] | None, bool]: ...
    def last_epsilon_reads(
        self,
        *,
        delta: npt.ArrayLike,
        lower: npt.ArrayLike,
        upper: npt.ArrayLike,
        add_upper: npt.ArrayLike,
        fine_done: bool,
        sigma: float,
        sensitivity: float,
        policy: GridPolicy,
        split_max_points: int,
        upper_max_points: int,
        lower_max_points: int,
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
    def window_points(self, interval: float) -> int: ...
    def keep_windows(self, points: int) -> None: ...
    def forget_windows(self) -> None: ...
    def held_points(self) -> tuple[int, int]: ...

tilt_delta_window_points: int
tilt_screen_coarsening: float
aligned_rare_rate: float
aligned_least_rounds: int
aligned_least_delta: float
aligned_cut_tails: tuple[float, float, float, float]
aligned_finer_room: float
default_accuracy: float
default_relative_accuracy: float
tilt_split_sampled_rounds: float
rare_delta_relative_width: float
rare_delta_width_share: float
rare_delta_max_points: int
rare_delta_cheap_points: int

def tilted_remove_tail(
    *, sigma: float, sampling_rate: float, rounds: float, delta: float
) -> float: ...
def rare_delta_applies(
    *, sampling_rate: float, rounds: float, eps: float, lower: float, upper: float
) -> bool: ...
def aligned_read(
    *,
    sigma: float,
    sampling_rate: float,
    rounds: int,
    delta: float,
    near: float,
    interval: float,
    max_points: int,
    workers: int | None = None,
) -> tuple[float, int, bool]: ...
def aligned_lower_delta(
    *,
    sigma: float,
    sampling_rate: float,
    rounds: int,
    eps: npt.ArrayLike,
    centre: float,
    level: float,
    interval: float,
    max_points: int,
    workers: int | None = None,
) -> tuple[npt.NDArray[np.float64], int]: ...
def tilted_fine_upper(
    *,
    sigma: float,
    sampling_rate: float,
    rounds: int,
    delta: npt.ArrayLike,
    upper: npt.ArrayLike,
    add_upper: npt.ArrayLike,
    least: npt.ArrayLike,
    max_cells: int,
    tail: float = 0.0,
    workers: int | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...

class TiltedFactorsReader:
    def __init__(
        self,
        segments: Sequence[tuple[float, float, int, float]],
        *,
        max_cells: int,
        workers: int | None = None,
    ) -> None: ...
    @property
    def pure_add_epsilon(self) -> float: ...
    def ladder_bracket(
        self,
        *,
        delta: float,
        lower: float,
        upper: float,
        accuracy: float,
        relative_accuracy: float,
    ) -> tuple[float, float]: ...
    def fine_bracket(
        self,
        *,
        delta: float,
        lower: float,
        upper: float,
        accuracy: float,
        relative_accuracy: float,
    ) -> tuple[float, float]: ...
    def question_tail(self, delta: float) -> float: ...
    def add_below(self, *, eps: float, interval: float, tail: float, delta: float) -> bool: ...
    def delta_read(
        self, *, eps: float, interval: float, tail: float, lower: float, upper: float
    ) -> tuple[float, float, float]: ...
    def split_epsilon(
        self, *, delta: float, lower: float, upper: float, split_max_points: int
    ) -> tuple[float, float]: ...
    def split_delta(
        self,
        *,
        eps: float,
        interval: float,
        tail: float,
        lower: float,
        upper: float,
        add_upper: float,
        split_max_points: int,
    ) -> tuple[float, float]: ...

def _tilted_factor_ladder(
    read: Callable[[float], tuple[float, float, Sequence[int]]],
    *,
    lower: float,
    upper: float,
    interval: float,
    refused: float,
    accuracy: float,
    relative_accuracy: float,
    max_points: int,
) -> tuple[float, float]: ...

own_grid_charge_share: float

def own_grid_bracket(
    directions: Sequence[tuple[Any, Sequence[tuple[Any, int]], Sequence[tuple[Any, int]] | None]],
    *,
    delta: float,
    lower: float,
    upper: float,
    bound: Literal["both", "upper", "lower"] = "both",
    charge_share: float = ...,
    workers: int | None = None,
) -> tuple[float, float]: ...

class OwnGridDeltas:
    def __init__(self, *, held_points: int = ...) -> None: ...
    @property
    def held_points(self) -> int: ...
    @held_points.setter
    def held_points(self, points: int) -> None: ...
    @property
    def compositions(self) -> tuple[int, int]: ...
    def deltas(
        self,
        directions: Sequence[
            tuple[Any, Sequence[tuple[Any, int]], Sequence[tuple[Any, int]] | None]
        ],
        *,
        eps: npt.ArrayLike,
        lower: npt.ArrayLike,
        upper: npt.ArrayLike,
        bound: Literal["both", "upper", "lower"] = "both",
        charge_share: float = ...,
        workers: int | None = None,
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...

def exponent_tilt(terms: Sequence[tuple[Any, int]], *, eps: float) -> float: ...
def delta_tilt(terms: Sequence[tuple[Any, int]], *, delta: float) -> float: ...
def chernoff_tilt(terms: Sequence[tuple[Any, int]], *, delta: float) -> float: ...

# rare participation's last epsilon reads (cpp/bindings/register_pld_rare_finer_grids.cpp)
finer_first_grid: float
finer_tight_share: float
finer_lower_grids: tuple[float, float]
finer_upper_max_points: int
finer_lower_max_points: int
finer_lower_window_ratio: float

def rare_finer_brackets(
    *,
    sigma: float,
    sampling_rate: float,
    rounds: int,
    delta: npt.ArrayLike,
    lower: npt.ArrayLike,
    upper: npt.ArrayLike,
    max_cells: int,
    upper_max_points: int = ...,
    lower_max_points: int = ...,
    workers: int | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
def finer_lower_grid(*, window: int, max_points: int = ...) -> float: ...
def finer_halvings(
    *, first: float, second: float, lower: float, window: int, max_points: int = ...
) -> int: ...
def finer_applies(
    *, sampling_rate: float, rounds: int, delta: float, lower: float, upper: float
) -> bool: ...
def tight_applies(
    *, sampling_rate: float, rounds: int, delta: float, lower: float, upper: float
) -> bool: ...

# the block reads (cpp/bindings/register_pld_block_reads.cpp)
def block_bracket(
    segments: Sequence[tuple[float, float, int, float]],
    *,
    delta: float,
    lower: float,
    upper: float,
    tail: float,
    accuracy: float,
    relative_accuracy: float,
    max_cells: int,
    workers: int | None = None,
) -> tuple[float, float]: ...
def dilated(
    p: npt.ArrayLike,
    *,
    k_lo: int,
    h: float,
    p_inf: float,
    entry_error: float,
    loss_shift: float,
    ratio: int,
) -> GridPMF: ...
def block_grids(
    sigma: float, *, sampling_rate: float, sensitivity: float, tail: float
) -> tuple[float, float]: ...

block_max_rate: float

# the default chain's RDP side (cpp/bindings/register_pld_refine.cpp, pld/refine/rdp_cap.hpp)
rdp_cap_margin: float

def rdp_cap_orders() -> list[float]: ...
def subsampled_gaussian_rdp_curve(sigma: float, sampling_rate: float, *, order: float) -> float: ...
def subsampled_gaussian_rdp_epsilon(
    *, sigma: float, sampling_rate: float, rounds: float, delta: npt.ArrayLike
) -> npt.NDArray[np.float64]: ...
