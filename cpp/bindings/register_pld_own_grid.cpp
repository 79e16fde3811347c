// Binding of the own-grid epsilon bracket of a composed PLD whose factors describe no run (pld/refine/own_grid.hpp),
// in _core.pld_refine: the package's GridPMF objects read directly (each direction's plain composed window in place,
// its factors' masses copied into the core's PMFs), the tilted windows composed on the package's FFT
// (pocketfft_composition.hpp), the read run with the GIL released.  The package's front end is
// python/hockeystick/pld/question/tilted_own_grid.py.  Beside it, the searches of a Chernoff score's tilt over the
// ladder on the package's (GridPMF, count) terms (pld/refine/tilted_question.hpp's exponent_tilt, delta_tilt and
// chernoff_tilt), which the composition plans' tilted reads (python/hockeystick/pld/accountants/plan_tilted.py) take.
#include <hockeystick/pld/refine/own_grid.hpp>
#include <hockeystick/pld/refine/own_grid_delta.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "grid_window.hpp"
#include "loops.hpp"
#include "pocketfft_composition.hpp"

namespace py = pybind11;
namespace hb = hockeystick_bindings;
namespace pld = hockeystick::pld;

namespace own_grid_binding {

using Terms = std::vector<std::pair<py::object, std::int64_t>>;
using Direction = std::tuple<py::object, Terms, std::optional<Terms>>;

// What one call reads: the plain windows' masses (referenced), the factors' PMFs (copied, at stable addresses) and
// the directions that point into them.
struct Read {
    std::vector<hb::input_array> masses;
    std::deque<pld::GridPMF> pmfs;
    std::vector<pld::OwnGridDirection> directions;
};

// The side's terms as the core's PMFs with their counts, and whether every one is a discretized round of that side
// (masses >= 0 are the core's to check; here: the side asked for, no shift, no round-off charge), else a ValueError
// naming the rule.
bool add_terms(const Terms& terms, bool pessimistic, double h, Read& read, std::vector<pld::CountedPmf>& out) {
    bool tiltable = true;
    for (const auto& [pmf, count] : terms) {
        if (count < 1)
            throw py::value_error("directions: every count must be at least 1, got " + std::to_string(count));
        const hb::input_array p = pmf.attr("p").cast<hb::input_array>();
        if (p.ndim() != 1) throw py::value_error("directions: a factor's masses p must be one-dimensional");
        pld::GridPMF core;
        core.k_lo = pmf.attr("k_lo").cast<std::int64_t>();
        core.h = pmf.attr("h").cast<double>();
        if (core.h != h) throw py::value_error("directions: every factor must lie on its plain window's grid h");
        core.p.assign(p.data(), p.data() + p.size());
        core.p_inf = pmf.attr("p_inf").cast<double>();
        core.loss_shift = pmf.attr("loss_shift").cast<double>();
        tiltable = tiltable && pmf.attr("pessimistic").cast<bool>() == pessimistic &&
                   pmf.attr("shift").cast<double>() == 0.0 && pmf.attr("total_error").cast<double>() == 0.0;
        read.pmfs.push_back(std::move(core));
        out.push_back({&read.pmfs.back(), count});
    }
    return tiltable;
}

// The directions as the core reads them, else a ValueError naming the argument and the rule.  Under the GIL.
void add_directions(const std::vector<Direction>& directions, Read& read) {
    if (directions.empty()) throw py::value_error("directions must hold at least one direction");
    read.masses.resize(directions.size());
    for (std::size_t i = 0; i < directions.size(); ++i) {
        const auto& [plain, ups, lows] = directions[i];
        if (!plain.attr("pessimistic").cast<bool>())
            throw py::value_error("directions: each plain window must be the pessimistic side's");
        if (ups.empty()) throw py::value_error("directions: each direction needs at least one pessimistic factor");
        pld::OwnGridDirection d;
        d.plain = hb::window_of(plain, read.masses[i]);
        d.ups_tiltable = add_terms(ups, true, d.plain.h, read, d.ups);
        d.lows_tiltable = lows && !lows->empty() && add_terms(*lows, false, d.plain.h, read, d.lows);
        read.directions.push_back(std::move(d));
    }
}

// Checks shared by the reads: the bound and the charge share, else a ValueError naming the argument.
void require_bound(const std::string& bound, double charge_share) {
    if (bound != "both" && bound != "upper" && bound != "lower")
        throw py::value_error("bound must be 'both', 'upper' or 'lower', got '" + bound + "'");
    if (!(charge_share >= 0.0 && std::isfinite(charge_share)))
        throw py::value_error("charge_share must be finite and >= 0, got " + hb::listed(charge_share));
}

std::pair<double, double> own_grid_bracket(const std::vector<Direction>& directions, double delta, double lower,
                                           double upper, const std::string& bound, double charge_share,
                                           const py::object& workers) {
    if (!(delta > 0.0 && delta < 1.0))
        throw py::value_error("delta must lie strictly between 0 and 1, got " + hb::listed(delta));
    if (std::isnan(lower)) throw py::value_error("lower must not be NaN");
    if (std::isnan(upper)) throw py::value_error("upper must not be NaN");
    require_bound(bound, charge_share);
    Read read;
    add_directions(directions, read);
    const hb::PocketfftComposition compose(workers, hb::tilted_options(), true, pld::kTiltMaxPoints);
    py::gil_scoped_release release;
    return pld::own_grid_bracket(read.directions, delta, lower, upper, bound == "upper", compose.fft(), charge_share);
}

// The delta reads of composed PLDs whose factors describe no run, with the tilted compositions they hold between
// calls (pld/refine/own_grid_delta.hpp's OwnGridHeld).
class OwnGridDeltas {
  public:
    explicit OwnGridDeltas(std::int64_t held_points) : held_(checked_points(held_points)) {}

    std::int64_t held_points() const { return held_.points(); }
    void set_held_points(std::int64_t points) { held_.set_points(checked_points(points)); }
    std::pair<std::int64_t, std::int64_t> compositions() const { return held_.made(); }

    std::pair<py::array_t<double>, py::array_t<double>> deltas(const std::vector<Direction>& directions,
                                                               const hb::input_array& eps, const hb::input_array& lower,
                                                               const hb::input_array& upper, const std::string& bound,
                                                               double charge_share, const py::object& workers) {
        if (eps.ndim() != 1 || lower.ndim() != 1 || upper.ndim() != 1 || lower.size() != eps.size() ||
            upper.size() != eps.size())
            throw py::value_error("eps, lower and upper must be one-dimensional arrays of one length");
        require_bound(bound, charge_share);
        Read read;
        add_directions(directions, read);
        py::array_t<double> lows(eps.size()), ups(eps.size());
        std::copy(lower.data(), lower.data() + lower.size(), lows.mutable_data());
        std::copy(upper.data(), upper.data() + upper.size(), ups.mutable_data());
        const hb::PocketfftComposition compose(workers, hb::tilted_options(), true, pld::kTiltMaxPoints);
        double* low = lows.mutable_data();
        double* up = ups.mutable_data();
        {
            py::gil_scoped_release release;
            pld::own_grid_deltas(read.directions, eps.data(), static_cast<std::int64_t>(eps.size()), low, up,
                                 bound != "lower", bound != "upper", held_, compose.fft(), charge_share);
        }
        return {lows, ups};
    }

  private:
    static std::int64_t checked_points(std::int64_t points) {
        if (points < 0) throw py::value_error("held_points must be >= 0, got " + std::to_string(points));
        return points;
    }

    pld::OwnGridHeld held_;
};

// The terms (pessimistic or optimistic (GridPMF, count) pairs, on one grid) as the core's counted PMFs, for the tilt
// searches below; else a ValueError naming the rule.  Under the GIL.
std::vector<pld::CountedPmf> counted_terms(const Terms& terms, Read& read) {
    if (terms.empty()) throw py::value_error("terms must hold at least one (GridPMF, count)");
    std::vector<pld::CountedPmf> counted;
    add_terms(terms, true, terms.front().first.attr("h").cast<double>(), read, counted);
    return counted;
}

// The ladder's tilt of the Chernoff exponent at eps (tilted_question.hpp's exponent_tilt).
double exponent_tilt(const Terms& terms, double eps) {
    if (std::isnan(eps)) throw py::value_error("eps must not be NaN");
    Read read;
    const std::vector<pld::CountedPmf> counted = counted_terms(terms, read);
    py::gil_scoped_release release;
    return pld::exponent_tilt(counted, eps);
}

// The ladder's tilt of the Chernoff epsilon at delta (delta_tilt), or at the round-off model's charge (chernoff_tilt).
template <double (*tilt)(const std::vector<pld::CountedPmf>&, double)>
double tilt_at_delta(const Terms& terms, double delta) {
    if (!(delta > 0.0 && delta < 1.0))
        throw py::value_error("delta must lie strictly between 0 and 1, got " + hb::listed(delta));
    Read read;
    const std::vector<pld::CountedPmf> counted = counted_terms(terms, read);
    py::gil_scoped_release release;
    return tilt(counted, delta);
}

}  // namespace own_grid_binding

void register_pld_own_grid(py::module_ m) {
    namespace og = own_grid_binding;
    m.attr("own_grid_charge_share") = pld::kOwnGridChargeShare;
    m.def("own_grid_bracket", &og::own_grid_bracket, py::arg("directions"), py::kw_only(), py::arg("delta"),
          py::arg("lower"), py::arg("upper"), py::arg("bound") = "both",
          py::arg("charge_share") = pld::kOwnGridChargeShare, py::arg("workers") = py::none(),
          R"doc(The certified epsilon bracket at delta of a composed PLD whose factors describe no run.

The plain bracket (lower, upper) intersected with each direction's factors composed under an exponential tilt on
their own grid, where the plain composition's charges pass charge_share of delta (pld/refine/own_grid.hpp).

Parameters
----------
directions : sequence of (GridPMF, sequence of (GridPMF, int), sequence of (GridPMF, int) or None)
    Per neighbouring direction: its plain composed pessimistic PMF, its pessimistic PMFs with their counts
    (>= 1, on the plain PMF's grid), and its optimistic PMFs with their counts, or None where a factor has none.
delta : float
    The delta asked, in (0, 1).
lower, upper : float
    The certified plain epsilon bracket at delta (the maximum over the directions of each side).
bound : {"both", "upper", "lower"}, default "both"
    "upper": the upper side alone is read (the lower side stays lower).
charge_share : float, default own_grid_charge_share
    The share of delta the plain charges at a side must pass for that side to be read under a tilt (>= 0).
workers : int or None, default None
    The tilted compositions' FFT threads (None: all cores).

Returns
-------
tuple of float
    The certified (lower, upper).

Raises
------
ValueError
    If an argument is outside its domain (the message names it).)doc");
    py::class_<og::OwnGridDeltas>(
        m, "OwnGridDeltas",
        R"doc(The delta brackets of composed PLDs whose factors describe no run (pld/refine/own_grid_delta.hpp).

Each read intersects the plain delta brackets with the factors composed under the tilts of a ladder fixed in advance,
where the plain composition's charges pass charge_share of the plain delta; the compositions are held from call to
call, the least recently used forgotten first beyond held_points window points.

Parameters
----------
held_points : int, default tilt_delta_window_points
    The window points of the compositions held between calls (>= 0).

Raises
------
ValueError
    If held_points is below 0.)doc")
        .def(py::init<std::int64_t>(), py::kw_only(), py::arg("held_points") = pld::kTiltDeltaWindowPoints)
        .def_property("held_points", &og::OwnGridDeltas::held_points, &og::OwnGridDeltas::set_held_points,
                      "The window points of the compositions held between calls.")
        .def_property_readonly("compositions", &og::OwnGridDeltas::compositions,
                               "The compositions made so far: (upper side, lower side).")
        .def(
            "deltas", &og::OwnGridDeltas::deltas, py::arg("directions"), py::kw_only(), py::arg("eps"),
            py::arg("lower"), py::arg("upper"), py::arg("bound") = "both",
            py::arg("charge_share") = pld::kOwnGridChargeShare, py::arg("workers") = py::none(),
            R"doc(The certified delta brackets at eps, the plain brackets (lower, upper) intersected with the tilted sides.

Parameters
----------
directions : sequence of (GridPMF, sequence of (GridPMF, int), sequence of (GridPMF, int) or None)
    As own_grid_bracket's.
eps, lower, upper : numpy.ndarray
    The epsilons asked and their certified plain delta brackets, one-dimensional, of one length; an epsilon not
    finite and > 0 keeps its plain bracket.
bound : {"both", "upper", "lower"}, default "both"
    "upper": the upper sides alone are read; "lower": the lower sides alone.
charge_share : float, default own_grid_charge_share
    As own_grid_bracket's.
workers : int or None, default None
    The tilted compositions' FFT threads (None: all cores).

Returns
-------
tuple of numpy.ndarray
    The certified (lower, upper) brackets, of eps' length.

Raises
------
ValueError
    If an argument is outside its domain (the message names it).)doc");
    m.def("exponent_tilt", &og::exponent_tilt, py::arg("terms"), py::kw_only(), py::arg("eps"),
          "The ladder's tilt lam (tilt_lambdas) maximizing lam eps - K(lam), K = sum_i c_i log sum_k p_ik e^{lam l_k} "
          "the (GridPMF, count) terms' summed log-moment rounded up: the Chernoff exponent's tilt at eps "
          "(pld/refine/tilted_question.hpp's exponent_tilt, by best_tilt's search). Raises ValueError for no terms, a "
          "count below 1, PMFs on different grids or a NaN eps.");
    m.def("delta_tilt", &og::tilt_at_delta<pld::delta_tilt>, py::arg("terms"), py::kw_only(), py::arg("delta"),
          "The ladder's tilt lam minimizing the Chernoff epsilon (K(lam) + log(1 / delta)) / lam (delta_tilt): a "
          "read tail's tilt at delta. Raises ValueError as exponent_tilt does, or for a delta outside (0, 1).");
    m.def("chernoff_tilt", &og::tilt_at_delta<pld::chernoff_tilt>, py::arg("terms"), py::kw_only(), py::arg("delta"),
          "The ladder's tilt lam minimizing (K(lam) + log(E / delta)) / lam, E = tilt_round_off_per_round times the "
          "summed counts (chernoff_tilt): where the FFT composition's round-off charge meets delta. Raises ValueError "
          "as delta_tilt does.");
}
