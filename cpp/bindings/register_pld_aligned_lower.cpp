// Binding of the aligned cells' lower PMF (pld/refine/aligned_lower.hpp), in _core.pld_refine: one round's lower PMF
// on a grid (built with the GIL released), and the pieces it is built from over arrays of cells or grid indices, each
// element an item of loops.hpp's loop (GIL released, its thread rule; a NaN output raises a ValueError naming the
// argument): the tests read them (the package's default reads the cells inside the core's reads).  Beside them, the
// reads of the core's TiltedReader (pld/refine/tilted_question.hpp) that the package's default and the C library's
// epsilon call both make: the tilted grids' descent (grid_descent), the fine upper read (fine_read), the rare
// participation upper read (rare_upper), the kept reader (TiltedPointReader: the fine epsilon read, the default's last
// reads, the fine delta read and the split), and the delta reads' bucket and level (tilted_delta_centre,
// tilted_delta_level), run with the GIL released on the package's FFT (pocketfft_composition.hpp), with their grids,
// rate and caps.
#include <hockeystick/pld/refine/accuracy_delta.hpp>
#include <hockeystick/pld/refine/accuracy_epsilon.hpp>
#include <hockeystick/pld/refine/aligned_lower.hpp>
#include <hockeystick/pld/refine/default_epsilon.hpp>
#include <hockeystick/pld/refine/fine_delta.hpp>
#include <hockeystick/pld/refine/fine_epsilon.hpp>
#include <hockeystick/pld/refine/fine_settle.hpp>
#include <hockeystick/pld/refine/last_epsilon_reads.hpp>
#include <hockeystick/pld/refine/rare_delta_grids.hpp>
#include <hockeystick/pld/refine/split_read.hpp>
#include <hockeystick/pld/refine/subsampled_gaussian_step.hpp>
#include <hockeystick/pld/refine/tilted_question.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "elementwise.hpp"
#include "loops.hpp"
#include "pocketfft_composition.hpp"
#include "step_refusal.hpp"
#include "tilted_arguments.hpp"

namespace py = pybind11;
namespace hb = hockeystick_bindings;
using hb::input_array;
namespace pld = hockeystick::pld;

namespace aligned_lower_binding {

// One round checked: sigma (per unit sensitivity) > 0 finite, 0 < sampling_rate < 1.
pld::AlignedRound round_of(double sigma, double q) {
    if (!(sigma > 0.0 && std::isfinite(sigma)))
        throw py::value_error("sigma must be finite and > 0 (the noise over the sensitivity), got " +
                              hb::listed(sigma));
    if (!(q > 0.0 && q < 1.0))
        throw py::value_error("sampling_rate must lie strictly between 0 and 1, got " + hb::listed(q));
    return pld::AlignedRound(sigma, q);
}

void require_interval(double h) {
    if (!(h > 0.0 && std::isfinite(h)))
        throw py::value_error("interval must be finite and > 0 (the grid's loss step), got " + hb::listed(h));
}

// Arrays of one shape (the cells' ends, the points), else a ValueError naming them.
void require_same_shape(const input_array& a, const input_array& b, const char* names) {
    if (a.ndim() != b.ndim() || !std::equal(a.shape(), a.shape() + a.ndim(), b.shape()))
        throw py::value_error(std::string(names) + " must be arrays of one shape");
}

std::string not_nan(const char* name, double v) {
    return std::isnan(v) ? std::string(name) + " must not be NaN" : std::string();
}

// Each element of x checked by rule before the loop, so that no item reads outside the domain.
template <class Rule>
void check_each(const input_array& x, Rule rule) {
    for (py::ssize_t i = 0; i < x.size(); ++i) {
        const std::string why = rule(x.data()[i]);
        if (!why.empty()) hb::raise_nan_at(i, why, hb::listed(x.data()[i]));
    }
}

// The cells' work in element evaluations: ~20 Gaussian tails each.
constexpr std::int64_t kCellCost = 20;

py::tuple pmf(double sigma, double q, double h, bool centred) {
    const pld::AlignedRound r = round_of(sigma, q);
    require_interval(h);
    pld::AlignedPmf made;
    {
        py::gil_scoped_release release;
        made = pld::aligned_pmf(r.s, r.q, h, centred);
    }
    py::array_t<double> p(static_cast<py::ssize_t>(made.pmf.p.size()));
    std::copy(made.pmf.p.begin(), made.pmf.p.end(), p.mutable_data());
    return py::make_tuple(made.pmf.k_lo, p, made.offset);
}

py::tuple cell(double sigma, double q, const input_array& lo, const input_array& hi, int threads) {
    const pld::AlignedRound r = round_of(sigma, q);
    require_same_shape(lo, hi, "lo and hi");
    check_each(lo, [](double v) { return not_nan("lo", v); });
    check_each(hi, [](double v) { return not_nan("hi", v); });
    const std::vector<py::ssize_t> shape(lo.shape(), lo.shape() + lo.ndim());
    py::array_t<double> mass_hi(shape), integral(shape);
    double* hi_out = mass_hi.mutable_data();
    double* integral_out = integral.mutable_data();
    const double* ends = hi.data();
    py::array_t<double> mass_lo = hb::per_item(
        lo, static_cast<std::int64_t>(lo.size()) * kCellCost, threads, hb::on_demand(16),
        [&](std::int64_t i, double a, hb::no_state&) {
            const pld::AlignedCell c = r.cell(a, ends[i]);
            hi_out[i] = c.mass_hi;
            integral_out[i] = c.integral;
            return c.mass_lo;
        },
        [](double v) { return not_nan("lo", v); });
    return py::make_tuple(mass_lo, mass_hi, integral);
}

py::array_t<double> verified_edges(double sigma, double q, const input_array& k, double offset, double h, int threads) {
    const pld::AlignedRound r = round_of(sigma, q);
    require_interval(h);
    if (!std::isfinite(offset)) throw py::value_error("offset must be finite, got " + hb::listed(offset));
    const auto rule = [](double v) {
        return v == std::floor(v) && std::fabs(v) <= 9007199254740992.0
                   ? std::string()
                   : std::string("k must hold integers of magnitude at most 2^53 (grid indices)");
    };
    check_each(k, rule);
    return hb::per_item(
        k, static_cast<std::int64_t>(k.size()) * 4, threads, hb::on_demand(64),
        [&](std::int64_t, double v, hb::no_state&) {
            return pld::aligned_verified_edge(r, static_cast<std::int64_t>(v), offset, h);
        },
        rule);
}

py::array_t<double> mean_at_least(double sigma, double q, const input_array& lo, const input_array& hi,
                                  const input_array& x, int threads) {
    const pld::AlignedRound r = round_of(sigma, q);
    require_same_shape(lo, hi, "lo and hi");
    require_same_shape(lo, x, "lo and x");
    check_each(lo, [](double v) { return not_nan("lo", v); });
    check_each(hi, [](double v) { return not_nan("hi", v); });
    check_each(x, [](double v) { return not_nan("x", v); });
    const double* ends = hi.data();
    const double* points = x.data();
    return hb::per_item(
        lo, static_cast<std::int64_t>(lo.size()) * 4, threads, hb::on_demand(256),
        [&](std::int64_t i, double a, hb::no_state&) {
            return pld::aligned_mean_at_least(r, a, ends[i], points[i]) ? 1.0 : 0.0;
        },
        [](double v) { return not_nan("lo", v); });
}

// rounds >= 1, else a ValueError naming it.
std::int64_t checked_rounds(std::int64_t rounds) {
    if (rounds < 1) throw py::value_error("rounds must be at least 1, got " + std::to_string(rounds));
    return rounds;
}

// A TiltedReader of the Poisson-subsampled Gaussian (sigma per unit sensitivity, q, rounds; max_cells cells a
// direction; `tail` > 0 both directions' tail, else the tails each delta allows) on the package's FFT (workers: its
// threads, None all cores), passed to read(reader) with the GIL released.
template <class Read>
auto rare_read(double sigma, double q, std::int64_t rounds, std::int64_t max_cells, double tail,
               const py::object& workers, Read read) {
    round_of(sigma, q);
    checked_rounds(rounds);
    const hb::PocketfftComposition compose(workers, hb::tilted_options(), true, pld::kTiltMaxPoints);
    const int threads = hb::region_threads(workers);
    py::gil_scoped_release release;
    const hb::caller_region_threads region(threads);
    pld::TiltedReader reader(sigma, q, rounds, compose.fft(), max_cells);
    if (tail > 0.0) reader.give_tail(tail);
    return read(reader);
}

double rare_upper(double sigma, double q, std::int64_t rounds, double delta, double upper, std::int64_t max_cells,
                  double tail, const py::object& workers) {
    return rare_read(sigma, q, rounds, max_cells, tail, workers,
                     [&](pld::TiltedReader& r) { return r.rare_upper(delta, upper); });
}

// Each bracket (lower, upper) at delta (arrays of one shape, as start) intersected with the tilted grids' descent from
// its start grid (TiltedReader::grid_descent at the tolerance max(accuracy, relative_accuracy eps)), one reader for
// all: the descent the C library's epsilon call makes, for the package's default and accuracy= reads.
std::pair<py::array_t<double>, py::array_t<double>> descent(double sigma, double q, std::int64_t rounds,
                                                            const input_array& delta, const input_array& lower,
                                                            const input_array& upper, const input_array& start,
                                                            double accuracy, double relative_accuracy,
                                                            std::int64_t max_cells, double tail,
                                                            const py::object& workers) {
    require_same_shape(delta, lower, "delta and lower");
    require_same_shape(delta, upper, "delta and upper");
    require_same_shape(delta, start, "delta and start");
    check_each(delta, [](double v) {
        return v > 0.0 && v < 1.0 ? std::string() : "delta must lie strictly between 0 and 1, got " + hb::listed(v);
    });
    check_each(start, [](double v) {
        return v > 0.0 && std::isfinite(v) ? std::string()
                                           : "start must be finite and > 0 (the first grid), got " + hb::listed(v);
    });
    check_each(lower, [](double v) { return not_nan("lower", v); });
    check_each(upper, [](double v) { return not_nan("upper", v); });
    if (!(accuracy > 0.0 && std::isfinite(accuracy)))
        throw py::value_error("accuracy must be finite and > 0, got " + hb::listed(accuracy));
    if (!(relative_accuracy >= 0.0 && std::isfinite(relative_accuracy)))
        throw py::value_error("relative_accuracy must be finite and >= 0, got " + hb::listed(relative_accuracy));
    py::array_t<double> lows(std::vector<py::ssize_t>(delta.shape(), delta.shape() + delta.ndim()));
    py::array_t<double> ups(std::vector<py::ssize_t>(delta.shape(), delta.shape() + delta.ndim()));
    double* lo = lows.mutable_data();
    double* up = ups.mutable_data();
    const py::ssize_t n = delta.size();
    std::copy(lower.data(), lower.data() + n, lo);
    std::copy(upper.data(), upper.data() + n, up);
    const double* at = delta.data();
    const double* first = start.data();
    rare_read(sigma, q, rounds, max_cells, tail, workers, [&](pld::TiltedReader& r) {
        for (py::ssize_t i = 0; i < n; ++i) {
            const pld::TiltedReader::Descent b =
                r.grid_descent(at[i], lo[i], up[i], first[i], accuracy, relative_accuracy);
            lo[i] = b.lower;
            up[i] = b.upper;
        }
        return 0;
    });
    return {lows, ups};
}

// Each certified upper epsilon `upper` at delta (arrays of one shape, as add_upper: certified upper sides of the add
// direction's epsilon already known, inf where none; and least: certified lower sides, 0 where none) lowered to the
// fine read (TiltedReader::fine_read), one reader for all; with the grid whose read was finite (0: none).
std::pair<py::array_t<double>, py::array_t<double>> fine_upper(double sigma, double q, std::int64_t rounds,
                                                               const input_array& delta, const input_array& upper,
                                                               const input_array& add_upper, const input_array& least,
                                                               std::int64_t max_cells, double tail,
                                                               const py::object& workers) {
    require_same_shape(delta, upper, "delta and upper");
    require_same_shape(delta, add_upper, "delta and add_upper");
    require_same_shape(delta, least, "delta and least");
    check_each(least, [](double v) { return not_nan("least", v); });
    check_each(delta, [](double v) {
        return v > 0.0 && v < 1.0 ? std::string() : "delta must lie strictly between 0 and 1, got " + hb::listed(v);
    });
    check_each(upper, [](double v) { return not_nan("upper", v); });
    check_each(add_upper, [](double v) { return not_nan("add_upper", v); });
    const std::vector<py::ssize_t> shape(delta.shape(), delta.shape() + delta.ndim());
    py::array_t<double> ups(shape), grids(shape);
    double* up = ups.mutable_data();
    double* grid = grids.mutable_data();
    const double* at = delta.data();
    const double* given = upper.data();
    const double* add = add_upper.data();
    const double* low = least.data();
    rare_read(sigma, q, rounds, max_cells, tail, workers, [&](pld::TiltedReader& r) {
        for (py::ssize_t i = 0; i < delta.size(); ++i) {
            const pld::TiltedReader::UpperRead read = r.fine_read(at[i], given[i], add[i], low[i]);
            up[i] = read.upper;
            grid[i] = read.grid;
        }
        return 0;
    });
    return {ups, grids};
}

// A Python callable giving an R from its arguments, called from a read without the GIL: taken for the call, its
// reference counted under it.
template <class R>
struct GilCall {
    py::object f;
    explicit GilCall(const py::object& callable) : f(callable) {}
    GilCall(const GilCall& other) {
        py::gil_scoped_acquire gil;
        f = other.f;
    }
    GilCall& operator=(const GilCall&) = delete;
    ~GilCall() {
        py::gil_scoped_acquire gil;
        f = py::object();
    }
    template <class... Args>
    R operator()(Args... args) const {
        py::gil_scoped_acquire gil;
        return f(args...).template cast<R>();
    }
};

// The accuracy= epsilon bracket of the Poisson-subsampled Gaussian (sigma per unit sensitivity) at delta from its
// refined bracket [lower, upper] (pld/refine/accuracy_epsilon.hpp), without the GIL but to call `default_bracket`
// (giving the default's certified (lower, upper)) and `cap` (None, or giving a certified upper side) where the read
// asks them: the descents on the package's FFT (workers: its threads, None all cores) at `tail` (0: the tails the
// delta allows).
// accuracy_epsilon's plan (the tolerance asked, the descents' first grids, the cap) refused as the package refuses it.
pld::AccuracyPlan accuracy_plan(double accuracy, double relative_accuracy, double start, double default_start,
                                const py::object& cap) {
    if (!(accuracy > 0.0 && std::isfinite(accuracy)))
        throw py::value_error("accuracy must be finite and > 0, got " + hb::listed(accuracy));
    if (!(relative_accuracy >= 0.0 && std::isfinite(relative_accuracy)))
        throw py::value_error("relative_accuracy must be finite and >= 0, got " + hb::listed(relative_accuracy));
    for (const double v : {start, default_start})
        if (!(v > 0.0 && std::isfinite(v)))
            throw py::value_error("start and default_start must be finite and > 0 (first grids), got " + hb::listed(v));
    pld::AccuracyPlan plan{{accuracy, relative_accuracy}, start, default_start, {}};
    if (cap.is_none()) return plan;
    if (!PyCallable_Check(cap.ptr())) throw py::value_error("cap must be None or a callable giving a float");
    plan.cap = GilCall<double>{cap};
    return plan;
}

std::pair<double, double> accuracy_epsilon(double sigma, double q, std::int64_t rounds, double delta, double lower,
                                           double upper, double accuracy, double relative_accuracy, double start,
                                           double default_start, const py::object& cap,
                                           const py::object& default_bracket, std::int64_t max_cells, double tail,
                                           const py::object& workers) {
    round_of(sigma, q);
    checked_rounds(rounds);
    if (!(delta > 0.0 && delta < 1.0))
        throw py::value_error("delta must lie strictly between 0 and 1, got " + hb::listed(delta));
    if (std::isnan(lower) || std::isnan(upper)) throw py::value_error("lower and upper must not be NaN");
    if (std::isnan(tail) || tail < 0.0 || tail >= 1.0)
        throw py::value_error("tail must lie in [0, 1) (0: the tails the delta allows), got " + hb::listed(tail));
    if (!PyCallable_Check(default_bracket.ptr()))
        throw py::value_error("default_bracket must be a callable giving (lower, upper)");
    const pld::AccuracyPlan plan = accuracy_plan(accuracy, relative_accuracy, start, default_start, cap);
    const GilCall<std::pair<double, double>> read_default{default_bracket};
    const pld::AccuracyRun run{sigma, q, rounds, max_cells, tail};
    const hb::PocketfftComposition compose(workers, hb::tilted_options(), true, pld::kTiltMaxPoints);
    const int threads = hb::region_threads(workers);
    py::gil_scoped_release release;
    const hb::caller_region_threads region(threads);
    return pld::accuracy_epsilon(run, delta, lower, upper, plan, read_default, compose.fft());
}

// Delta brackets (lower, upper) at eps, one-dimensional arrays of one length, no eps NaN, each 0 <= lower <= upper <= 1
// (certified deltas), else a ValueError.
void require_delta_brackets(const input_array& eps, const input_array& lower, const input_array& upper) {
    if (eps.ndim() != 1 || lower.ndim() != 1 || upper.ndim() != 1 || lower.size() != eps.size() ||
        upper.size() != eps.size())
        throw py::value_error("eps, lower and upper must be one-dimensional arrays of one length");
    check_each(eps, [](double v) { return not_nan("eps", v); });
    for (py::ssize_t i = 0; i < eps.size(); ++i)
        if (!(0.0 <= lower.data()[i] && lower.data()[i] <= upper.data()[i] && upper.data()[i] <= 1.0))
            throw py::value_error("each bracket must satisfy 0 <= lower <= upper <= 1 (certified deltas), got [" +
                                  hb::listed(lower.data()[i]) + ", " + hb::listed(upper.data()[i]) + "]");
}

// accuracy_delta's brackets and plan (finite positive accuracies and floor) refused as the package refuses them.
pld::AccuracyDeltaPlan accuracy_delta_plan(const input_array& eps, const input_array& lower, const input_array& upper,
                                           double accuracy, double default_accuracy, double delta_floor) {
    require_delta_brackets(eps, lower, upper);
    for (const double v : {accuracy, default_accuracy, delta_floor})
        if (!(v > 0.0 && std::isfinite(v)))
            throw py::value_error("accuracy, default_accuracy and delta_floor must be finite and > 0, got " +
                                  hb::listed(v));
    pld::AccuracyDeltaPlan plan;
    plan.accuracy = accuracy;
    plan.default_accuracy = default_accuracy;
    plan.delta_floor = delta_floor;
    return plan;
}

// The accuracy= delta brackets of the Poisson-subsampled Gaussian (sigma per unit sensitivity) at eps (one dimension)
// from its refined brackets (lower, upper) (pld/refine/accuracy_delta.hpp), without the GIL but to call
// `default_bracket(i)` (giving the default's certified (lower, upper) at eps[i]) where the read asks it: the reads on
// the package's FFT (workers: its threads, None all cores) at `tail` (0: the tails each read's level allows), the
// binomial split's windows within split_max_points.  (lower, upper) read.
std::pair<py::array_t<double>, py::array_t<double>> accuracy_delta(
    double sigma, double q, std::int64_t rounds, const input_array& eps, const input_array& lower,
    const input_array& upper, double accuracy, double default_accuracy, double delta_floor, bool by_width, bool rare,
    bool read_lower, const py::object& default_bracket, std::int64_t max_cells, std::int64_t split_max_points,
    double tail, const py::object& workers) {
    pld::AccuracyDeltaPlan plan = accuracy_delta_plan(eps, lower, upper, accuracy, default_accuracy, delta_floor);
    plan.by_width = by_width;
    plan.rare = rare;
    plan.read_lower = read_lower;
    plan.max_cells = max_cells;
    if (std::isnan(tail) || tail < 0.0 || tail >= 1.0)
        throw py::value_error("tail must lie in [0, 1) (0: the tails each level allows), got " + hb::listed(tail));
    if (!PyCallable_Check(default_bracket.ptr()))
        throw py::value_error("default_bracket must be a callable giving (lower, upper) at an index");
    const std::int64_t split_points = hb::checked_points("split_max_points", split_max_points);
    const std::vector<double> at(eps.data(), eps.data() + eps.size());
    std::vector<double> lo(lower.data(), lower.data() + lower.size());
    std::vector<double> up(upper.data(), upper.data() + upper.size());
    {
        const GilCall<std::pair<double, double>> read_default{default_bracket};
        const hb::PocketfftComposition split(py::none(), hb::split_options(), true, split_points);
        const hb::PocketfftComposition rare_compose(workers, hb::tilted_options(), true, pld::kRareDeltaMaxPoints);
        rare_read(sigma, q, rounds, max_cells, tail, workers, [&](pld::TiltedReader& reader) {
            pld::accuracy_deltas(reader, at, lo, up, plan, read_default, {split.fft(), split_points},
                                 rare_compose.fft());
            return 0;
        });
    }
    return {py::array_t<double>(lo.size(), lo.data()), py::array_t<double>(up.size(), up.data())};
}

// The default's plan of steps 2 and 3 (pld/refine/default_epsilon.hpp's DefaultRefinementPlan) with its step reads'
// rounds' tail and accuracy and caps on cells and points (pld/refine/subsampled_gaussian_step.hpp).
struct RefinementPlan {
    pld::DefaultRefinementPlan plan;
    double tail = 0.0, accuracy = 0.0;
    std::int64_t max_cells = 0, max_points = 0;
};

// A TiltedReader kept between calls on the package's FFT (workers: its threads, None all cores; tail > 0: both
// directions' tail, else the tails each read's delta or level allows): the rare participation finer reads'
// (pld/refine/rare_finer_grids.hpp), whose upper reads on finer and finer grids remember where a cut read showed
// its cut (TiltedReader::cut_read), and the delta reads' (python pld/question/tilted_question.py's fine_delta_brackets,
// with rare participation's finer grids), whose compositions and discretized rounds are held for the reads that share them.
// Each read runs with the GIL released; a window past the caps or a tilt past the doubles' moments raises a
// ValueError from the delta reads (std::length_error, std::invalid_argument).
class KeptReader {
  public:
    KeptReader(double sigma, double q, std::int64_t rounds, std::int64_t max_cells, std::int64_t max_points,
               double tail, const py::object& workers)
        : max_points_(hb::checked_points("max_points", max_points)),
          max_cells_(max_cells),
          tail_(tail),
          threads_(hb::region_threads(workers)),
          workers_(workers),
          compose_(workers, hb::tilted_options(), true, max_points_),
          reader_(checked_sigma(sigma, q), q, checked_rounds(rounds), compose_.fft(), max_cells, max_points_) {
        if (std::isnan(tail) || tail < 0.0 || tail >= 1.0)
            throw py::value_error("tail must lie in [0, 1) (0: the tails each delta allows), got " + hb::listed(tail));
        if (tail > 0.0) reader_.give_tail(tail);
    }

    // TiltedReader::exponent_read on grid h within the reader's cap (a window past it cut at kTiltWindowTail, the
    // add direction screened): (upper, the least window's points); (inf, 0) where a window passes the caps or a tilt
    // overflows a moment.  The discretized rounds are freed after the read.
    std::pair<double, std::int64_t> exponent_read(double delta, double h, double upper, double least) {
        require_delta(delta);
        require_interval(h);
        if (std::isnan(upper) || std::isnan(least)) throw py::value_error("upper and least must not be NaN");
        py::gil_scoped_release release;
        const hb::caller_region_threads region(threads_);
        const pld::TiltedReader::UpperRule rule{max_points_, pld::kTiltWindowTail, true,
                                                std::numeric_limits<double>::infinity()};
        std::pair<double, std::int64_t> out{std::numeric_limits<double>::infinity(), 0};
        try {
            const pld::TiltedReader::GridUpper read = reader_.exponent_read(delta, h, upper, rule, least);
            out = {read.upper, read.points};
        } catch (const std::length_error&) {  // a window past the caps: no upper side from this grid
        } catch (const std::invalid_argument&) {  // a tilt past the doubles' moments
        }
        reader_.forget_rounds();
        return out;
    }

    // A delta read at each of eps (any shape) on grid h under the exponent's tilt at `centre`, the tails `level`
    // allows: TiltedReader::delta_upper, delta_lower or add_screens (read(reader, eps)), in eps's shape.
    template <class Read>
    py::array_t<double> deltas(const input_array& eps, double h, double centre, double level, Read read) {
        check_each(eps, [](double v) { return not_nan("eps", v); });
        require_interval(h);
        if (!(centre >= 0.0 && std::isfinite(centre)))
            throw py::value_error("centre must be finite and >= 0 (the tilt's epsilon), got " + hb::listed(centre));
        require_level(level);
        const std::vector<double> at(eps.data(), eps.data() + eps.size());
        std::vector<double> found;
        {
            py::gil_scoped_release release;
            const hb::caller_region_threads region(threads_);
            found = read(reader_, at);
        }
        py::array_t<double> out(std::vector<py::ssize_t>(eps.shape(), eps.shape() + eps.ndim()));
        std::copy(found.begin(), found.end(), out.mutable_data());
        return out;
    }

    py::array_t<double> delta_upper(const input_array& eps, double h, double centre, double level) {
        return deltas(eps, h, centre, level, [&](pld::TiltedReader& r, const std::vector<double>& at) {
            return r.delta_upper(at, h, centre, level);
        });
    }
    py::array_t<double> delta_lower(const input_array& eps, double h, double centre, double level) {
        return deltas(eps, h, centre, level, [&](pld::TiltedReader& r, const std::vector<double>& at) {
            return r.delta_lower(at, h, centre, level);
        });
    }
    py::array_t<double> add_screen(const input_array& eps, double h, double level, double centre) {
        return deltas(eps, h, centre, level, [&](pld::TiltedReader& r, const std::vector<double>& at) {
            return r.add_screens(at, h, level, centre);
        });
    }

    // The default's fine delta read (pld/refine/fine_delta.hpp) of the brackets (lower, upper) at eps, one dimension
    // each, and where `rare`, rare participation's finer grids after it (accuracy_delta.hpp's default_deltas, the C
    // library's delta call's reads: the elements rare_delta_applies names, on a reader of their own within the
    // reader's cap on cells): (lower, upper) read.  The binomial split composed at unit mass with every low-frequency
    // bin direct, its windows within split_max_points.
    py::tuple fine_delta_brackets(const input_array& eps, const input_array& lower, const input_array& upper,
                                  bool read_lower, std::int64_t split_max_points, bool rare) {
        require_delta_brackets(eps, lower, upper);
        if (split_max_points < 1)
            throw py::value_error("split_max_points must be at least 1, got " + std::to_string(split_max_points));
        std::vector<double> at(eps.data(), eps.data() + eps.size());
        std::vector<double> lo(lower.data(), lower.data() + lower.size());
        std::vector<double> up(upper.data(), upper.data() + upper.size());
        const hb::PocketfftComposition split(py::none(), hb::split_options(), true, split_max_points);
        const hb::PocketfftComposition rare_compose(workers_, hb::tilted_options(), true, pld::kRareDeltaMaxPoints);
        pld::AccuracyDeltaPlan plan;
        plan.read_lower = read_lower;
        plan.rare = rare;
        plan.max_cells = max_cells_;
        {
            py::gil_scoped_release release;
            const hb::caller_region_threads region(threads_);
            pld::default_deltas(reader_, at, lo, up, plan, {split.fft(), split_max_points}, rare_compose.fft());
        }
        return py::make_tuple(py::array_t<double>(lo.size(), lo.data()), py::array_t<double>(up.size(), up.data()));
    }

    // The split read of the epsilon bracket (lower, upper) at delta on grid h (pld/refine/split_read.hpp's
    // split_epsilon_read): (lower, upper) read.  The binomial split composed at unit mass with every low-frequency bin
    // direct, its windows within split_max_points.
    std::pair<double, double> split_epsilon(double delta, double h, double lower, double upper,
                                            std::int64_t split_max_points) {
        require_delta(delta);
        require_interval(h);
        if (std::isnan(lower) || std::isnan(upper)) throw py::value_error("lower and upper must not be NaN");
        if (split_max_points < 1)
            throw py::value_error("split_max_points must be at least 1, got " + std::to_string(split_max_points));
        const hb::PocketfftComposition split(py::none(), hb::split_options(), true, split_max_points);
        py::gil_scoped_release release;
        const hb::caller_region_threads region(threads_);
        return pld::split_epsilon_read(reader_, delta, h, lower, upper, {split.fft(), split_max_points});
    }

    // The default's fine epsilon read (pld/refine/fine_epsilon.hpp) of each bracket (lower, upper) at delta
    // (one-dimensional arrays of one size, as add_upper: certified upper sides of the add direction's epsilon, inf
    // where none), the max-of-outputs test of the run as given (sigma and sensitivity), the split's windows within
    // split_max_points: the certified brackets, never wider than given.
    py::tuple fine_epsilon(const input_array& delta, const input_array& lower, const input_array& upper,
                           const input_array& add_upper, double sigma, double sensitivity,
                           std::int64_t split_max_points) {
        const pld::FineEpsilonPoint point = checked_point(delta, lower, upper, add_upper, sigma, sensitivity);
        hb::checked_points("split_max_points", split_max_points);
        std::vector<double> lo(lower.data(), lower.data() + lower.size());
        std::vector<double> up(upper.data(), upper.data() + upper.size());
        const hb::PocketfftComposition split(py::none(), hb::split_options(), true, split_max_points);
        {
            py::gil_scoped_release release;
            const hb::caller_region_threads region(threads_);
            for (std::size_t i = 0; i < lo.size(); ++i) {
                const std::pair<double, double> b =
                    pld::fine_epsilon_bracket(point, delta.data()[i], lo[i], up[i], add_upper.data()[i], reader_,
                                              compose_.fft(), {split.fft(), split_max_points});
                lo[i] = b.first;
                up[i] = b.second;
            }
        }
        return py::make_tuple(py::array_t<double>(lo.size(), lo.data()), py::array_t<double>(up.size(), up.data()));
    }

    // The default's last epsilon reads (pld/refine/last_epsilon_reads.hpp) of each bracket (lower, upper) at delta
    // (one-dimensional arrays of one size, as add_upper: certified upper sides of the add direction's epsilon, inf
    // where none): the fine read where `fine_done` is false (by this reader), then, no tail given, the wide reads, the
    // rare upper read and the finer grids (their windows within upper_max_points and lower_max_points), then the
    // coarser grids from the first grid `policy` gives; the run as given (sigma and sensitivity), the split's windows
    // within split_max_points: the certified brackets, never wider than given.
    py::tuple last_epsilon_reads(const input_array& delta, const input_array& lower, const input_array& upper,
                                 const input_array& add_upper, bool fine_done, double sigma, double sensitivity,
                                 const pld::GridPolicy& policy, std::int64_t split_max_points,
                                 std::int64_t upper_max_points, std::int64_t lower_max_points) {
        const pld::FineEpsilonPoint point = checked_point(delta, lower, upper, add_upper, sigma, sensitivity);
        hb::checked_points("split_max_points", split_max_points);
        hb::checked_points("upper_max_points", upper_max_points);
        hb::checked_points("lower_max_points", lower_max_points);
        const std::vector<double> at(delta.data(), delta.data() + delta.size());
        const std::vector<double> adds(add_upper.data(), add_upper.data() + add_upper.size());
        std::vector<double> lo(lower.data(), lower.data() + lower.size());
        std::vector<double> up(upper.data(), upper.data() + upper.size());
        const LastReadCompositions last(workers_, split_max_points, upper_max_points);
        {
            py::gil_scoped_release release;
            const hb::caller_region_threads region(threads_);
            pld::last_epsilon_reads(point, at, lo, up, adds, fine_done, reader_, last.backends(compose_.fft()), policy,
                                    {upper_max_points, lower_max_points});
        }
        return py::make_tuple(py::array_t<double>(lo.size(), lo.data()), py::array_t<double>(up.size(), up.data()));
    }

    // The default's epsilon bracket of this reader's run at delta after its fixed grid
    // (pld/refine/default_epsilon.hpp), without the interpreter lock (taken only to ask the plan's cap where the
    // descent is read): `fixed` the fixed grid's (lower, upper) or None, `fixed_add` its add direction's upper side
    // (inf: none); `plan` steps 2 and 3's (None where the fixed
    // bracket is within the tolerance), each grid read by the core's step read
    // (pld/refine/subsampled_gaussian_step.hpp) on the reader's threads (a window past the plan's max_points stops the
    // point); the last reads (step 7 from
    // `policy`, the finer grids within upper_max_points and lower_max_points); the run as given (sigma and
    // sensitivity), the split's windows within split_max_points.  Returns (lower, upper, step 2's (lower, upper,
    // whether a refused window stopped it, whether its coarsest fit stopped it, whether the fine read settled it, the
    // grids read) or None, whether the fine read was made).
    py::tuple default_epsilon(double delta, std::optional<std::pair<double, double>> fixed, double fixed_add,
                              const std::optional<RefinementPlan>& plan, const pld::GridPolicy& policy, double sigma,
                              double sensitivity, std::int64_t split_max_points, std::int64_t upper_max_points,
                              std::int64_t lower_max_points) {
        if (!(delta > 0.0 && delta < 1.0))
            throw py::value_error("delta must lie strictly between 0 and 1, got " + hb::listed(delta));
        const pld::FineEpsilonPoint point = run_point(sigma, sensitivity);
        hb::checked_points("split_max_points", split_max_points);
        hb::checked_points("upper_max_points", upper_max_points);
        hb::checked_points("lower_max_points", lower_max_points);
        std::optional<pld::DefaultRefinementPlan> refinement;
        pld::SubsampledGaussianStep step{
            reader_.sigma(), reader_.sampling_rate(), reader_.rounds(), delta, 0.0, 0.0, 0.0};
        if (plan) {
            refinement = plan->plan;
            step.accuracy = plan->accuracy;
            step.tail = plan->tail;
        }
        // each grid read without the GIL, its composition made and destroyed under it (step_refusal.hpp)
        auto read = [&](double h, const pld::StepBins& b) {
            return hb::step_read_without_gil(step, h, b, workers_, plan->max_cells, plan->max_points);
        };
        const LastReadCompositions last(workers_, split_max_points, upper_max_points);
        const pld::LastReadBackends backends = last.backends(compose_.fft());
        const pld::FinerCaps caps{upper_max_points, lower_max_points};
        const pld::DefaultEpsilon r = hb::refusing_steps(sigma / sensitivity, step.q, [&] {
            py::gil_scoped_release release;
            const hb::caller_region_threads region(threads_);
            return pld::default_epsilon(point, delta, fixed, fixed_add, refinement, read, reader_, backends, policy,
                                        caps);
        });
        py::object refined = py::none();
        if (r.refined) {
            const pld::DefaultRefined& d = *r.refined;
            refined = py::make_tuple(d.lower, d.upper, d.gave_up, d.fit_stopped, d.settled, d.grids);
        }
        return py::make_tuple(r.lower, r.upper, refined, r.tried);
    }

    std::int64_t window_points(double h) const { return reader_.window_points(h); }
    void keep_windows(std::int64_t points) {
        if (points < 0) throw py::value_error("points must be >= 0, got " + std::to_string(points));
        reader_.keep_windows(points);
    }
    void forget_windows() { reader_.forget_windows(); }
    std::pair<std::int64_t, std::int64_t> held_points() const { return reader_.held_points(); }

  private:
    // The last reads' compositions (pld/refine/last_epsilon_reads.hpp's LastReadBackends) beside the reader's own: the
    // binomial split's on one thread within split_max_points, the plain and the finer grids' on the reader's threads,
    // the finer windows within upper_max_points.  Made and destroyed under the GIL.
    struct LastReadCompositions {
        LastReadCompositions(const py::object& workers, std::int64_t split_max_points, std::int64_t upper_max_points)
            : split(py::none(), hb::split_options(), true, split_max_points),
              plain(workers, pld::ComposeOptions{}, false, pld::kTiltMaxPoints),
              finer(workers, hb::tilted_options(), true, upper_max_points),
              split_points(split_max_points) {}
        pld::LastReadBackends backends(pld::RealFftBackend& tilted) const {
            return {tilted, plain.fft(), finer.fft(), {split.fft(), split_points}};
        }
        hb::PocketfftComposition split, plain, finer;
        std::int64_t split_points;
    };

    static double checked_sigma(double sigma, double q) {
        round_of(sigma, q);
        return sigma;
    }
    // The fine epsilon read's point of this reader's run, sigma and sensitivity as given, after require_brackets.
    pld::FineEpsilonPoint checked_point(const input_array& delta, const input_array& lower, const input_array& upper,
                                        const input_array& add_upper, double sigma, double sensitivity) const {
        require_brackets(delta, lower, upper, add_upper);
        return run_point(sigma, sensitivity);
    }
    // The fine epsilon read's point of this reader's run, sigma and sensitivity as given (finite and > 0, sigma /
    // sensitivity the reader's), else a ValueError.
    pld::FineEpsilonPoint run_point(double sigma, double sensitivity) const {
        if (!(sigma > 0.0 && std::isfinite(sigma) && sensitivity > 0.0 && std::isfinite(sensitivity)))
            throw py::value_error("sigma and sensitivity must be finite and > 0 (the run as given)");
        if (sigma / sensitivity != reader_.sigma())
            throw py::value_error("sigma / sensitivity must be the reader's sigma (the run it reads), got " +
                                  hb::listed(sigma / sensitivity) + " against " + hb::listed(reader_.sigma()));
        return {reader_.sigma(),
                reader_.sampling_rate(),
                reader_.rounds(),
                {pld::OutputSegment{sigma, reader_.sampling_rate(), sensitivity, reader_.rounds()}},
                tail_,
                max_cells_};
    }
    // delta, lower, upper and add_upper one-dimensional of one size, each delta in (0, 1), no NaN, else a ValueError.
    static void require_brackets(const input_array& delta, const input_array& lower, const input_array& upper,
                                 const input_array& add_upper) {
        if (delta.ndim() != 1 || lower.ndim() != 1 || upper.ndim() != 1 || add_upper.ndim() != 1 ||
            lower.size() != delta.size() || upper.size() != delta.size() || add_upper.size() != delta.size())
            throw py::value_error("delta, lower, upper and add_upper must be one-dimensional arrays of one size");
        check_each(delta, [](double v) {
            return v > 0.0 && v < 1.0 ? std::string() : "delta must lie strictly between 0 and 1, got " + hb::listed(v);
        });
        check_each(lower, [](double v) { return not_nan("lower", v); });
        check_each(upper, [](double v) { return not_nan("upper", v); });
        check_each(add_upper, [](double v) {
            return v >= 0.0
                       ? std::string()
                       : "add_upper must be >= 0 (a certified upper epsilon of the add direction; inf: none), got " +
                             hb::listed(v);
        });
        for (py::ssize_t i = 0; i < lower.size(); ++i)
            if (lower.data()[i] > upper.data()[i])
                throw py::value_error("lower must be at most upper (a certified bracket), got [" +
                                      hb::listed(lower.data()[i]) + ", " + hb::listed(upper.data()[i]) + "]");
    }
    static void require_delta(double delta) {
        if (!(delta > 0.0 && delta < 1.0))
            throw py::value_error("delta must lie strictly between 0 and 1, got " + hb::listed(delta));
    }
    // The least delta a delta read expects (its tails' level), 0 < level <= 1.
    static void require_level(double level) {
        if (!(level > 0.0 && level <= 1.0))
            throw py::value_error("level (the least delta expected) must lie in (0, 1], got " + hb::listed(level));
    }

    std::int64_t max_points_;
    std::int64_t max_cells_;
    double tail_;
    int threads_;
    py::object workers_;  // the FFT workers of the compositions each read makes (None: all cores)
    hb::PocketfftComposition compose_;
    pld::TiltedReader reader_;
};

// One aligned read of a run (sigma per unit sensitivity, q, rounds) on grid h under the core's exponent tilt
// (round_tilt), on the package's FFT (workers: its threads, None all cores), passed to read(fft) with the GIL
// released; its refusals (a window or cells past their caps, an edge not certified, a tilt past the doubles'
// moments) raise a ValueError.
template <class Read>
auto aligned_call(double sigma, double q, std::int64_t rounds, double h, std::int64_t max_points,
                  const py::object& workers, Read read) {
    round_of(sigma, q);
    checked_rounds(rounds);
    require_interval(h);
    if (max_points < 1) throw py::value_error("max_points must be at least 1, got " + std::to_string(max_points));
    const hb::PocketfftComposition compose(workers, hb::tilted_options(), true, max_points);
    const int threads = hb::region_threads(workers);
    py::gil_scoped_release release;
    const hb::caller_region_threads region(threads);
    return read(compose.fft());
}

// aligned_read (pld/refine/aligned_lower.hpp): the certified lower epsilon at delta searched below `near`, the window's
// points and whether it was cut.
std::tuple<double, std::int64_t, bool> aligned_epsilon(double sigma, double q, std::int64_t rounds, double delta,
                                                       double near, double h, std::int64_t max_points,
                                                       const py::object& workers) {
    if (!(delta > 0.0 && delta < 1.0))
        throw py::value_error("delta must lie strictly between 0 and 1, got " + hb::listed(delta));
    if (std::isnan(near)) throw py::value_error("near must not be NaN");
    return aligned_call(sigma, q, rounds, h, max_points, workers, [&](pld::RealFftBackend& fft) {
        const pld::AlignedRead r =
            pld::aligned_read(sigma, q, rounds, delta, near, h, pld::round_tilt, fft, max_points);
        return std::make_tuple(r.lower, r.points, r.cut);
    });
}

// aligned_lower_delta (pld/refine/aligned_lower.hpp): the certified lower deltas at each of eps (any shape) and the
// window's points.
std::pair<py::array_t<double>, std::int64_t> aligned_delta(double sigma, double q, std::int64_t rounds,
                                                           const input_array& eps, double centre, double level,
                                                           double h, std::int64_t max_points,
                                                           const py::object& workers) {
    check_each(eps,
               [](double v) { return std::isfinite(v) ? std::string() : "eps must be finite, got " + hb::listed(v); });
    if (!std::isfinite(centre)) throw py::value_error("centre must be finite, got " + hb::listed(centre));
    if (!(level > 0.0 && level < 1.0))
        throw py::value_error("level (the least delta expected) must lie strictly between 0 and 1, got " +
                              hb::listed(level));
    const std::vector<double> at(eps.data(), eps.data() + eps.size());
    const std::pair<std::vector<double>, std::int64_t> found =
        aligned_call(sigma, q, rounds, h, max_points, workers, [&](pld::RealFftBackend& fft) {
            return pld::aligned_lower_delta(sigma, q, rounds, at, centre, level, h, pld::round_tilt, fft, max_points);
        });
    py::array_t<double> out(std::vector<py::ssize_t>(eps.shape(), eps.shape() + eps.ndim()));
    std::copy(found.first.begin(), found.first.end(), out.mutable_data());
    return {out, found.second};
}

// The delta reads' (centre, level) at eps whose certified upper delta is `upper` > 0 (tilted_delta_centre,
// tilted_delta_level).
std::pair<double, double> delta_key(double eps, double upper) {
    if (std::isnan(eps)) throw py::value_error("eps must not be NaN");
    if (!(upper > 0.0 && upper <= 1.0))
        throw py::value_error("upper must lie in (0, 1] (a certified upper delta), got " + hb::listed(upper));
    return {pld::tilted_delta_centre(eps), pld::tilted_delta_level(upper)};
}

}  // namespace aligned_lower_binding

// The reads' constants, each the core's (pld/refine/aligned_lower.hpp, tilted_question.hpp, rare_delta_grids.hpp),
// which the package's front ends read rather than spell again.
static void register_constants(py::module_& m) {
    m.attr("aligned_up_to") = pld::kAlignedUpTo;
    m.attr("aligned_tail") = pld::kAlignedTail;
    m.attr("aligned_tail_error") = pld::kAlignedTailError;
    m.attr("aligned_centred") = pld::kAlignedCentred;
    m.attr("aligned_max_cells") = pld::kAlignedMaxCells;
    m.attr("aligned_rare_rate") = pld::kAlignedRareRate;
    m.attr("aligned_least_rounds") = pld::kAlignedLeastRounds;
    m.attr("aligned_least_delta") = pld::kAlignedLeastDelta;
    m.attr("aligned_cut_tails") = py::make_tuple(pld::kAlignedCutTails[0], pld::kAlignedCutTails[1],
                                                 pld::kAlignedCutTails[2], pld::kAlignedCutTails[3]);
    m.attr("aligned_finer_room") = pld::kAlignedFinerRoom;
    m.attr("default_accuracy") = pld::kDefaultEpsilonAccuracy;
    m.attr("default_relative_accuracy") = pld::kDefaultEpsilonRelativeAccuracy;
    m.attr("tilt_split_sampled_rounds") = pld::kTiltSplitSampledRounds;
    m.attr("rare_delta_relative_width") = pld::kRareDeltaRelativeWidth;
    m.attr("rare_delta_width_share") = pld::kRareDeltaWidthShare;
    m.attr("rare_delta_max_points") = pld::kRareDeltaMaxPoints;
    m.attr("rare_delta_cheap_points") = pld::kRareDeltaCheapPoints;
    m.attr("tilt_rare_rate") = pld::kTiltRareRate;
    m.attr("tilt_round_off_per_round") = pld::kTiltRoundOffPerRound;
    m.attr("tilt_grid_step") = pld::kTiltGridStep;
    m.attr("tilt_grids") = pld::kTiltGrids;
    m.attr("tilt_max_points") = pld::kTiltMaxPoints;
    m.attr("tilt_delta_ratio") = pld::kTiltDeltaRatio;
    m.attr("tilt_delta_decades") = pld::kTiltDeltaDecades;
    m.attr("tilt_fine_grids") = py::make_tuple(pld::kTiltFineGrids[0], pld::kTiltFineGrids[1], pld::kTiltFineGrids[2]);
    m.attr("tilt_fine_upper_grids") = py::make_tuple(pld::kTiltFineUpperGrids[0], pld::kTiltFineUpperGrids[1]);
    m.attr("tilt_window_tail") = pld::kTiltWindowTail;
    m.attr("tilt_refused_ratio") = pld::kTiltRefusedRatio;
    m.attr("tilt_rare_upper_grids") = py::make_tuple(pld::kTiltRareUpperGrids[0], pld::kTiltRareUpperGrids[1]);
    m.attr("tilt_rare_max_points") = pld::kTiltRareMaxPoints;
    m.attr("tilt_rare_lower_grid") = pld::kTiltRareLowerGrid;
    m.attr("tilt_rare_lower_max_points") = pld::kTiltRareLowerMaxPoints;
    m.attr("tilt_delta_window_points") = pld::kTiltDeltaWindowPoints;
    m.attr("tilt_screen_coarsening") = pld::kTiltScreenCoarsening;
}

namespace {

// The kept reader's class, TiltedPointReader (aligned_lower_binding::KeptReader).
void register_tilted_point_reader(py::module_ m) {
    namespace ab = aligned_lower_binding;
    py::class_<ab::RefinementPlan>(m, "DefaultRefinementPlan",
                                   "The default's plan of its refinement and tilted descent of one point at one delta "
                                   "(pld/refine/default_epsilon.hpp's DefaultRefinementPlan) and its step reads' "
                                   "tail, accuracy and caps (pld/refine/subsampled_gaussian_step.hpp).")
        .def(py::init([](const pld::PointsRules& rules, double coarsest_fit, double first_grid,
                         std::optional<double> charge, double same_grid_charge, double descent_start,
                         const py::object& cap, double tail, double accuracy, std::int64_t max_cells,
                         std::int64_t max_points) {
                 for (const double v : {first_grid, descent_start})
                     if (!(v > 0.0 && std::isfinite(v)))
                         throw py::value_error("first_grid and descent_start must be finite and > 0, got " +
                                               hb::listed(v));
                 if (max_points < 1 || max_cells < 1)
                     throw py::value_error("max_cells and max_points must be at least 1");
                 if (!cap.is_none() && !PyCallable_Check(cap.ptr()))
                     throw py::value_error("cap must be None or a callable giving a float");
                 ab::RefinementPlan p;
                 p.plan = {rules, coarsest_fit, first_grid, charge, same_grid_charge, descent_start, {}};
                 if (!cap.is_none()) p.plan.cap = ab::GilCall<double>{cap};
                 p.tail = tail;
                 p.accuracy = accuracy;
                 p.max_cells = max_cells;
                 p.max_points = max_points;
                 return p;
             }),
             py::kw_only(), py::arg("rules"), py::arg("coarsest_fit"), py::arg("first_grid"), py::arg("charge"),
             py::arg("same_grid_charge"), py::arg("descent_start"), py::arg("cap"), py::arg("tail"),
             py::arg("accuracy"), py::arg("max_cells"), py::arg("max_points"));
    py::class_<ab::KeptReader>(m, "TiltedPointReader",
                               "A tilted reader of the Poisson-subsampled Gaussian kept between reads "
                               "(pld/refine/tilted_question.hpp's TiltedReader): its cut upper reads remembered from "
                               "grid to grid, its delta reads' compositions and discretized rounds held.")
        .def(py::init<double, double, std::int64_t, std::int64_t, std::int64_t, double, const py::object&>(),
             py::kw_only(), py::arg("sigma"), py::arg("sampling_rate"), py::arg("rounds"), py::arg("max_cells"),
             py::arg("max_points"), py::arg("tail") = 0.0, py::arg("workers") = py::none())
        .def("exponent_read", &ab::KeptReader::exponent_read, py::kw_only(), py::arg("delta"), py::arg("interval"),
             py::arg("upper"), py::arg("least"),
             "The certified upper epsilon at delta on the grid `interval` under the Chernoff exponent's tilt at "
             "`upper`, searched from `least` first (TiltedReader::exponent_read), and the points of the least "
             "window read; (inf, 0) where a window passes the caps.")
        .def("delta_upper", &ab::KeptReader::delta_upper, py::kw_only(), py::arg("eps"), py::arg("interval"),
             py::arg("centre"), py::arg("level"),
             "Certified upper deltas at each of eps on the grid `interval` under the Chernoff exponent's tilt at "
             "`centre`, the tails `level` allows, the add direction screened (TiltedReader::delta_upper); a "
             "ValueError where a window passes the cap.")
        .def("delta_lower", &ab::KeptReader::delta_lower, py::kw_only(), py::arg("eps"), py::arg("interval"),
             py::arg("centre"), py::arg("level"),
             "Certified lower deltas at each of eps on the grid `interval` from the optimistic rounds under the "
             "Chernoff exponent's tilt at `centre` (TiltedReader::delta_lower); 0 from a direction past the cap.")
        .def("add_screen", &ab::KeptReader::add_screen, py::kw_only(), py::arg("eps"), py::arg("interval"),
             py::arg("level"), py::arg("centre"),
             "A certified upper bound on the add direction's delta at each of eps, read on a grid "
             "tilt_screen_coarsening times coarser than `interval` (TiltedReader::add_screens).")
        .def("fine_delta_brackets", &ab::KeptReader::fine_delta_brackets, py::kw_only(), py::arg("eps"),
             py::arg("lower"), py::arg("upper"), py::arg("read_lower"), py::arg("split_max_points"),
             py::arg("rare") = false,
             "The default's fine delta read of the brackets (lower, upper) at eps, one dimension each "
             "(pld/refine/fine_delta.hpp): the max-of-outputs test's lower side, then per bucket of "
             "tilted_delta_key the tilted reads on the grid 5e-5 and, where T q is small, the binomial split (its "
             "windows within split_max_points); where `rare`, rare participation's finer grids after it where they "
             "apply (pld/refine/accuracy_delta.hpp's default_deltas); (lower, upper), certified.")
        .def("fine_epsilon", &ab::KeptReader::fine_epsilon, py::kw_only(), py::arg("delta"), py::arg("lower"),
             py::arg("upper"), py::arg("add_upper"), py::arg("sigma"), py::arg("sensitivity"),
             py::arg("split_max_points"),
             "Each epsilon bracket (lower, upper) at delta read by the default's fine epsilon read "
             "(pld/refine/fine_epsilon.hpp): the max-of-outputs test of the run (sigma, sensitivity as given), the "
             "fine upper read, the split read, the aligned cells' lower side and the rare upper read; certified.")
        .def("default_epsilon", &ab::KeptReader::default_epsilon, py::kw_only(), py::arg("delta"), py::arg("fixed"),
             py::arg("fixed_add"), py::arg("plan"), py::arg("policy"), py::arg("sigma"), py::arg("sensitivity"),
             py::arg("split_max_points"), py::arg("upper_max_points"), py::arg("lower_max_points"),
             "The default's epsilon bracket of the reader's run at delta after its fixed grid "
             "(pld/refine/default_epsilon.hpp), without the GIL: where the fixed bracket is missing or wider than the "
             "tolerance, the plan's refinement (each grid read by the core's step read, the fine read beside its "
             "ladder) and the tilted descent where still wider, its upper side lowered to the plan's cap; then the "
             "last reads.  Returns (lower, upper, step 2's (lower, upper, gave_up, fit_stopped, settled, grids) or "
             "None, whether the fine read was made); a ValueError where a round cannot be discretized on a grid the "
             "refinement chose, or where a wider bracket comes without a plan.")
        .def(
            "last_epsilon_reads", &ab::KeptReader::last_epsilon_reads, py::kw_only(), py::arg("delta"),
            py::arg("lower"), py::arg("upper"), py::arg("add_upper"), py::arg("fine_done"), py::arg("sigma"),
            py::arg("sensitivity"), py::arg("policy"), py::arg("split_max_points"), py::arg("upper_max_points"),
            py::arg("lower_max_points"),
            "The default's last epsilon reads of each bracket at delta (pld/refine/last_epsilon_reads.hpp): the fine "
            "read unless fine_done, then, no tail given, the wide reads, the rare upper read and the finer grids, then "
            "the coarser grids; certified, never wider than given.")
        .def("split_epsilon", &ab::KeptReader::split_epsilon, py::kw_only(), py::arg("delta"), py::arg("interval"),
             py::arg("lower"), py::arg("upper"), py::arg("split_max_points"),
             "The epsilon bracket (lower, upper) at delta intersected with the split read of the remove direction on "
             "the grid `interval` (pld/refine/split_read.hpp's split_epsilon_read: as given unless lower > 0, not "
             "exact and T q at most tilt_split_sampled_rounds), its windows within split_max_points; certified.")
        .def("window_points", &ab::KeptReader::window_points, py::arg("interval"),
             "The points a delta read on the grid `interval` needed (TiltedReader::window_points).")
        .def("keep_windows", &ab::KeptReader::keep_windows, py::arg("points"),
             "Forgets the held compositions least recently used until each side's hold at most `points` points.")
        .def("forget_windows", &ab::KeptReader::forget_windows,
             "Forgets the held compositions (the discretized rounds stay).")
        .def("held_points", &ab::KeptReader::held_points,
             "The window points held: (the upper delta reads', the lower delta reads').");
}

}  // namespace

void register_pld_aligned_lower(py::module_ m) {
    namespace ab = aligned_lower_binding;
    register_constants(m);
    m.def(
        "rare_delta_applies", &pld::rare_delta_applies, py::kw_only(), py::arg("sampling_rate"), py::arg("rounds"),
        py::arg("eps"), py::arg("lower"), py::arg("upper"),
        "Whether the delta bracket (lower, upper) at eps of `rounds` rounds of rate q is read on rare participation's "
        "finer delta grids (pld/refine/rare_delta_grids.hpp's rare_delta_applies).");
    m.def(
        "tilted_remove_tail",
        [](double sigma, double q, double rounds, double delta) {
            ab::round_of(sigma, q);
            if (!(rounds >= 1.0 && std::isfinite(rounds)))
                throw py::value_error("rounds must be finite and at least 1, got " + hb::listed(rounds));
            if (!(delta > 0.0 && delta <= 1.0))
                throw py::value_error("delta must lie in (0, 1] (the least delta expected), got " + hb::listed(delta));
            return pld::tilted_remove_tail(sigma, q, rounds, delta);
        },
        py::kw_only(), py::arg("sigma"), py::arg("sampling_rate"), py::arg("rounds"), py::arg("delta"),
        "The remove direction's tail of the tilted reads at delta (pld/refine/tilted_question.hpp's "
        "tilted_remove_tail; sigma per unit sensitivity).");
    m.def("tilted_rare_upper", &ab::rare_upper, py::kw_only(), py::arg("sigma"), py::arg("sampling_rate"),
          py::arg("rounds"), py::arg("delta"), py::arg("upper"), py::arg("max_cells"), py::arg("tail") = 0.0,
          py::arg("workers") = py::none(),
          "`upper` (a certified upper epsilon at delta of the Poisson-subsampled Gaussian, sigma per unit "
          "sensitivity) lowered to the tilted read on the first of tilt_rare_upper_grids whose windows fit "
          "tilt_rare_max_points (pld/refine/tilted_question.hpp's TiltedReader::rare_upper); tail > 0: both "
          "directions' tail.");
    m.def(
        "tilted_descent", &ab::descent, py::kw_only(), py::arg("sigma"), py::arg("sampling_rate"), py::arg("rounds"),
        py::arg("delta"), py::arg("lower"), py::arg("upper"), py::arg("start"), py::arg("accuracy"),
        py::arg("relative_accuracy"), py::arg("max_cells"), py::arg("tail") = 0.0, py::arg("workers") = py::none(),
        "Each bracket (lower, upper) at delta (arrays of one shape, as start) intersected with the tilted grids' "
        "descent from its start grid down by tilt_grid_step while wider than max(accuracy, relative_accuracy eps) "
        "and the upper side still falls by a quarter of it, at most tilt_grids grids (pld/refine/tilted_question.hpp's "
        "TiltedReader::grid_descent); tail > 0: both directions' tail, else the tails each delta allows.");
    m.def("accuracy_epsilon", &ab::accuracy_epsilon, py::kw_only(), py::arg("sigma"), py::arg("sampling_rate"),
          py::arg("rounds"), py::arg("delta"), py::arg("lower"), py::arg("upper"), py::arg("accuracy"),
          py::arg("relative_accuracy"), py::arg("start"), py::arg("default_start"), py::arg("cap"),
          py::arg("default_bracket"), py::arg("max_cells"), py::arg("tail") = 0.0, py::arg("workers") = py::none(),
          "The accuracy= epsilon bracket at delta from the refined bracket (lower, upper) "
          "(pld/refine/accuracy_epsilon.hpp): at a tolerance max(accuracy, relative_accuracy eps) finer than the "
          "default's, intersected with default_bracket()'s and, where still wider, the tilted descent on its grids "
          "from `start`; otherwise, where wider than asked, the descent on the default tolerance's grids from "
          "default_start, the upper side lowered to cap() where given, and default_bracket()'s where still wider.  "
          "Certified, never wider than given.");
    m.def("accuracy_delta", &ab::accuracy_delta, py::kw_only(), py::arg("sigma"), py::arg("sampling_rate"),
          py::arg("rounds"), py::arg("eps"), py::arg("lower"), py::arg("upper"), py::arg("accuracy"),
          py::arg("default_accuracy"), py::arg("delta_floor"), py::arg("by_width"), py::arg("rare"),
          py::arg("read_lower"), py::arg("default_bracket"), py::arg("max_cells"), py::arg("split_max_points"),
          py::arg("tail") = 0.0, py::arg("workers") = py::none(),
          "The accuracy= delta brackets at eps (one dimension) from the refined brackets (lower, upper) "
          "(pld/refine/accuracy_delta.hpp): where wider than the relative accuracy asked (by_width), the tilted reads "
          "on its grids; at an accuracy below default_accuracy, intersected with default_bracket(i)'s; the default's "
          "fine delta read; where still wider and rare, rare participation's finer grids.  Certified, never wider "
          "than given: (lower, upper).");
    m.def(
        "tilted_fine_upper", &ab::fine_upper, py::kw_only(), py::arg("sigma"), py::arg("sampling_rate"),
        py::arg("rounds"), py::arg("delta"), py::arg("upper"), py::arg("add_upper"), py::arg("least"),
        py::arg("max_cells"), py::arg("tail") = 0.0, py::arg("workers") = py::none(),
        "Each certified upper epsilon `upper` at delta lowered to the fine read on the first of tilt_fine_upper_grids "
        "whose windows fit (pld/refine/tilted_question.hpp's TiltedReader::fine_read; `add_upper`: certified upper "
        "sides of the add direction's epsilon already known, inf where none), and the grid whose read was finite "
        "(0: none).");
    register_tilted_point_reader(m);
    m.def("aligned_read", &ab::aligned_epsilon, py::kw_only(), py::arg("sigma"), py::arg("sampling_rate"),
          py::arg("rounds"), py::arg("delta"), py::arg("near"), py::arg("interval"), py::arg("max_points"),
          py::arg("workers") = py::none(),
          "The aligned cells' certified lower epsilon at delta of the Poisson-subsampled Gaussian (sigma per unit "
          "sensitivity), remove direction, on the grid `interval`, searched below `near`, the points of its tilted "
          "window and whether that window was cut (pld/refine/aligned_lower.hpp's aligned_read).");
    m.def("aligned_lower_delta", &ab::aligned_delta, py::kw_only(), py::arg("sigma"), py::arg("sampling_rate"),
          py::arg("rounds"), py::arg("eps"), py::arg("centre"), py::arg("level"), py::arg("interval"),
          py::arg("max_points"), py::arg("workers") = py::none(),
          "The aligned cells' certified lower deltas at each of eps, under the Chernoff exponent's tilt at `centre`, "
          "the window's tails sized for `level`, and the window's points (pld/refine/aligned_lower.hpp's "
          "aligned_lower_delta).");
    m.def("tilted_delta_key", &ab::delta_key, py::kw_only(), py::arg("eps"), py::arg("upper"),
          "The delta reads' (centre, level) at eps whose certified upper delta is `upper`: the centre of eps's bucket "
          "(pld/refine/tilted_question.hpp's tilted_delta_centre), under whose Chernoff exponent's tilt the bucket "
          "is composed, and the level its tails are sized for (tilted_delta_level).");
    m.def("aligned_pmf", &ab::pmf, py::kw_only(), py::arg("sigma"), py::arg("sampling_rate"), py::arg("interval"),
          py::arg("centred") = true,
          "One round's aligned-cells lower PMF of the Poisson-subsampled Gaussian's remove direction (sigma per unit "
          "sensitivity) on grid `interval`: (k_lo, masses, offset), atom i at offset + (k_lo + i) interval "
          "(pld/refine/aligned_lower.hpp); centred False puts every rounded cell's atom a cell lower.");
    m.def("aligned_cell", &ab::cell, py::kw_only(), py::arg("sigma"), py::arg("sampling_rate"), py::arg("lo"),
          py::arg("hi"), py::arg("threads") = 0,
          "Per cell (lo, hi]: (lower P-mass, upper P-mass, lower bound on the cell's loss integral).");
    m.def("aligned_verified_edges", &ab::verified_edges, py::kw_only(), py::arg("sigma"), py::arg("sampling_rate"),
          py::arg("k"), py::arg("offset"), py::arg("interval"), py::arg("threads") = 0,
          "Per grid index k, an x whose loss is certified at least offset + k interval.");
    m.def("aligned_mean_at_least", &ab::mean_at_least, py::kw_only(), py::arg("sigma"), py::arg("sampling_rate"),
          py::arg("lo"), py::arg("hi"), py::arg("x"), py::arg("threads") = 0,
          "Per cell (lo, hi]: 1.0 where its P-mean is certified at least x, else 0.0.");
}
