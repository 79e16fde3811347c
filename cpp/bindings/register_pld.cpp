// Bindings of the PLD discretizations and of the hockey-stick evaluation of a grid PMF, each in the _core
// submodule of its stage: pld_grid (the types, the cells, the grid moments), pld_mechanisms (one round's
// discretized pair), pld_sampling (the sampled rounds' pairs) and pld_reads (curves, charges, scans).
// Each discretization returns both sides at once, a DiscretizedSides (discretized.hpp): the grid offset k_lo
// (loss of element 0 is k_lo * h), the pessimistic masses and mass at +infinity, the optimistic ones, and
// whether the optimistic side is connect-the-dots; atoms_side returns one side of a list of atoms, a GridPMF.
#include <hockeystick/pld/grid/cells.hpp>
#include <hockeystick/pld/reads/charged_curve.hpp>
#include <hockeystick/pld/reads/charged_sides.hpp>
#include <hockeystick/pld/refine/fixed_part.hpp>
#include <hockeystick/pld/reads/affinity_ceiling.hpp>
#include <hockeystick/pld/reads/complement_scans.hpp>
#include <hockeystick/pld/grid/connect_dots.hpp>
#include <hockeystick/pld/reads/epsilon_bracket.hpp>
#include <hockeystick/pld/reads/epsilon_root_search.hpp>
#include <hockeystick/pld/reads/epsilon_width.hpp>
#include <hockeystick/pld/reads/hockey_stick.hpp>
#include <hockeystick/pld/mechanisms/bounded_range.hpp>
#include <hockeystick/pld/mechanisms/gaussian_mixture.hpp>
#include <hockeystick/pld/mechanisms/laplace_mixture.hpp>
#include <hockeystick/pld/mechanisms/replace_one_mixture.hpp>
#include <hockeystick/pld/sampling/replace_one.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "broadcast.hpp"
#include "discretized.hpp"
#include "elementwise.hpp"
#include "explain.hpp"
#include "loops.hpp"
#include "side_read.hpp"

namespace py = pybind11;
namespace hb = hockeystick_bindings;
using hb::input_array;
using index_array = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;
namespace pld = hockeystick::pld;

namespace {

// epsilon(delta) of a charged grid PMF, every delta in one scan down the grid: the certified upper
// side (pld/reads/hockey_stick.hpp's charged_epsilon) or the certified lower side (pld/reads/epsilon_bracket.hpp's
// charged_lower_epsilon), each answer moved by the loss shift (loss_shifted: + s on the upper side,
// - s on the lower); both take (p, n, k_lo, h, p_inf, charges, delta, m, out).
template <class Scan>
void def_charged_scan(py::module_& m, const char* name, Scan scan) {
    m.def(
        name,
        [scan](input_array p, std::int64_t k_lo, double h, double p_inf, const pld::GridCharges& ch,
               input_array delta) {
            if (p.ndim() != 1) throw py::value_error("internal: the PMF must be one-dimensional");
            for (py::ssize_t i = 0; i < delta.size(); ++i)
                if (std::isnan(delta.data()[i])) throw py::value_error("delta must not be NaN");
            if (!(ch.inverse_l2 >= 0.0)) throw py::value_error("inverse_l2 must be >= 0 (a bound; inf: none)");
            py::array_t<double> out(delta.size());
            const double* pp = p.data();
            const double* dd = delta.data();
            double* dst = out.mutable_data();
            const std::int64_t n = static_cast<std::int64_t>(p.size()), count = static_cast<std::int64_t>(delta.size());
            {
                py::gil_scoped_release release;
                scan(pp, n, k_lo, h, p_inf, ch, dd, count, dst);
            }
            return out;
        },
        py::arg("p"), py::kw_only(), py::arg("k_lo"), py::arg("h"), py::arg("p_inf"), py::arg("charges"),
        py::arg("delta"));
}

py::array_t<double> to_array(const std::vector<double>& v) {
    py::array_t<double> out(static_cast<py::ssize_t>(v.size()));
    std::copy(v.begin(), v.end(), out.mutable_data());
    return out;
}

// Runs run() and turns the core's argument errors into ValueErrors (a grid too large for
// max_cells says how to fix it).
template <class Run>
auto with_value_errors(Run run) {
    try {
        return run();
    } catch (const std::invalid_argument& e) { throw py::value_error(e.what()); } catch (const std::length_error& e) {
        throw py::value_error(std::string(e.what()) +
                              "; use a coarser value_discretization_interval or a larger max_cells");
    }
}

// Runs build() -> (pessimistic, optimistic) PMFs with the GIL released, errors as ValueErrors.
template <class Build>
std::pair<pld::GridPMF, pld::GridPMF> built_without_gil(Build build) {
    return with_value_errors([&] {
        py::gil_scoped_release release;
        return build();
    });
}

// Both sides as the facade's factor takes them (discretized.hpp): the pessimistic side carries every bit of
// mass (its upper_inf is factor_view's), the loss shift is the larger of the two sides' cell errors.
hb::DiscretizedSides to_sides(pld::GridPMF up, pld::GridPMF low, bool has_lower = true) {
    const double shift = std::max(up.loss_shift, low.loss_shift);
    return hb::discretized_sides(std::move(up), std::move(low), has_lower, true, shift);
}

// Both sides of one mechanism from one set of cells (same grid).
template <class Build>
hb::DiscretizedSides both_sides(Build build) {
    const auto [up, low] = built_without_gil([&] {
        const pld::Cells cells = build();
        return std::make_pair(pld::pessimistic_pmf(cells), pld::optimistic_pmf(cells));
    });
    return to_sides(up, low);
}

// The replace-one pair's PMFs: the pessimistic side from the proved upper cells, the
// optimistic side from the realizable lower cells, each on its own grid (own k_lo); counts() gives the
// copy-count laws for each (their cut mass is budgeted differently).
template <class Counts>
hb::DiscretizedSides replace_one_sides(Counts counts, double sigma, double h, double tail, std::int64_t max_cells) {
    const auto [up, low] = built_without_gil([&] {
        const auto [upper_counts, lower_counts] = counts();
        // the upper side first: it refuses an oversized grid before any work (argument order is unspecified)
        auto upper = pld::pessimistic_pmf(pld::replace_one_upper_cells(sigma, upper_counts, h, tail, max_cells));
        return std::make_pair(std::move(upper), pld::optimistic_pmf(pld::replace_one_lower_cells(sigma, lower_counts, h,
                                                                                                 tail, max_cells)));
    });
    return to_sides(up, low);
}

// One direction of a monotone pair (pld/mechanisms/monotone.hpp) as the facade's factor takes it: both PMFs with
// their charges applied, each side's mass at +infinity and the loss shift as the core made them.
hb::DiscretizedSides monotone_side(const pld::MonotoneSide& side) {
    return hb::discretized_sides(side.upper, side.lower, true, false, side.upper.loss_shift);
}

std::vector<double> as_vector(input_array a, const char* name) {
    if (a.ndim() != 1) throw py::value_error(std::string("internal: ") + name + " must be one-dimensional");
    return std::vector<double>(a.data(), a.data() + a.size());
}

// The Laplace location mixture's pair (pld/mechanisms/laplace_mixture.hpp) from the facade's checked arrays.
pld::LaplaceMixture laplace_mixture_of(double scale, input_array shifts, input_array weights) {
    return with_value_errors(
        [&] { return pld::LaplaceMixture(scale, as_vector(shifts, "shifts"), as_vector(weights, "weights")); });
}

// A PLD from a list of losses with their P-masses (pld/grid/cells.hpp's atom_cells): both sides at once, or one side
// alone.
void register_atoms(py::module_& m) {
    m.def(
        "atoms",
        [](input_array loss, input_array mass, double h, std::int64_t max_cells) {
            if (loss.ndim() != 1 || mass.ndim() != 1 || loss.size() != mass.size())
                throw py::value_error("internal: losses and masses must be 1-d arrays of one length");
            const double* l = loss.data();
            const double* w = mass.data();
            const std::int64_t n = static_cast<std::int64_t>(loss.size());
            return both_sides([=] { return pld::atom_cells(l, w, n, h, max_cells); });
        },
        py::arg("loss"), py::arg("mass"), py::kw_only(), py::arg("h"), py::arg("max_cells"));
    // One side of `atoms`: the same cells, then only the PMF asked for (the other is not formed).  The pessimistic
    // side's p_inf carries its round-off deficit (factor_view), as DiscretizedSides.upper_inf does; either side's
    // loss_shift is the cells' (cells_loss_shift), as DiscretizedSides.loss_shift.
    m.def(
        "atoms_side",
        [](input_array loss, input_array mass, double h, std::int64_t max_cells, bool pessimistic) {
            if (loss.ndim() != 1 || mass.ndim() != 1 || loss.size() != mass.size())
                throw py::value_error("internal: losses and masses must be 1-d arrays of one length");
            const double* l = loss.data();
            const double* w = mass.data();
            const std::int64_t n = static_cast<std::int64_t>(loss.size());
            return with_value_errors([=] {
                py::gil_scoped_release release;
                const pld::Cells cells = pld::atom_cells(l, w, n, h, max_cells);
                if (!pessimistic) return pld::optimistic_pmf(cells);
                pld::GridPMF up = pld::pessimistic_pmf(cells);
                up.p_inf = pld::factor_view(up, true).p_inf;
                return up;
            });
        },
        py::arg("loss"), py::arg("mass"), py::kw_only(), py::arg("h"), py::arg("max_cells"), py::arg("pessimistic"));
}

// The Laplace location mixtures (pld/mechanisms/laplace_mixture.hpp): both directions' PMFs, the atoms' losses,
// and the merged cells as a test hook (closed_form = false: cut by the Newton search alone).
void register_laplace_mixture(py::module_& m) {
    m.def(
        "laplace_mixture",
        [](double scale, input_array shifts, input_array weights, double h, std::int64_t max_cells) {
            const pld::LaplaceMixture pair = laplace_mixture_of(scale, shifts, weights);
            const pld::MonotoneSides sides = with_value_errors([&] {
                py::gil_scoped_release release;
                return pld::monotone_sides(pair, h, max_cells);
            });
            return py::make_tuple(monotone_side(sides.remove), monotone_side(sides.add));
        },
        py::arg("scale"), py::kw_only(), py::arg("shifts"), py::arg("weights"), py::arg("h"), py::arg("max_cells"),
        "The remove and the add direction of sum_i w_i Lap(s_i, scale) vs Lap(0, scale), both sides each.");
    m.def(
        "laplace_mixture_atom_losses",
        [](double scale, input_array shifts, input_array weights) {
            const auto [lo, hi] = pld::laplace_mixture_atom_losses(laplace_mixture_of(scale, shifts, weights));
            return py::make_tuple(lo, hi);
        },
        py::arg("scale"), py::kw_only(), py::arg("shifts"), py::arg("weights"));
    m.def(
        "_laplace_mixture_cell_atoms",
        [](double scale, input_array shifts, input_array weights, double h, std::int64_t max_cells, bool closed_form) {
            const pld::LaplaceMixture pair = laplace_mixture_of(scale, shifts, weights);
            const pld::MonotoneAtoms a =
                with_value_errors([&] { return pld::monotone_cell_atoms(pair, h, max_cells, closed_form); });
            return py::make_tuple(to_array(a.loss), to_array(a.p), to_array(a.q));
        },
        py::arg("scale"), py::kw_only(), py::arg("shifts"), py::arg("weights"), py::arg("h"), py::arg("max_cells"),
        py::arg("closed_form") = true);
    // Test hook: the pair's loss L(x) at each x, and its closed-form inverse at those losses.
    m.def(
        "_laplace_mixture_loss_and_inverse",
        [](double scale, input_array shifts, input_array weights, input_array x) {
            const pld::LaplaceMixture pair = laplace_mixture_of(scale, shifts, weights);
            const std::vector<double> xs = as_vector(x, "x");
            std::vector<double> loss(xs.size()), back(xs.size());
            for (std::size_t i = 0; i < xs.size(); ++i) {
                loss[i] = pair.loss(xs[i]);
                back[i] = pair.inverse(loss[i]);
            }
            return py::make_tuple(to_array(loss), to_array(back));
        },
        py::arg("scale"), py::kw_only(), py::arg("shifts"), py::arg("weights"), py::arg("x"));
}

// Both directions of a monotone pair, both sides each, with the GIL released, as the facade's factors take them.
template <class Pair>
py::tuple monotone_directions(const Pair& pair, double h, std::int64_t max_cells) {
    const pld::MonotoneSides sides = with_value_errors([&] {
        py::gil_scoped_release release;
        return pld::monotone_sides(pair, h, max_cells);
    });
    return py::make_tuple(monotone_side(sides.remove), monotone_side(sides.add));
}

// The Gaussian location mixture's pair (pld/mechanisms/gaussian_mixture.hpp) from the facade's checked arrays.
pld::GaussianMixture gaussian_mixture_of(double sigma, input_array shifts, input_array weights, double tail) {
    return with_value_errors(
        [&] { return pld::GaussianMixture(sigma, as_vector(shifts, "shifts"), as_vector(weights, "weights"), tail); });
}

// The Gaussian location mixtures (pld/mechanisms/gaussian_mixture.hpp) and the bounded-range pair
// (pld/mechanisms/bounded_range.hpp): both directions' PMFs, and the Gaussian mixture's merged cells as a test hook
// (closed_form = false: cut by the Newton search alone).
void register_gaussian_mixture_and_bounded_range(py::module_& m) {
    m.def(
        "gaussian_mixture",
        [](double sigma, input_array shifts, input_array weights, double tail, double h, std::int64_t max_cells) {
            return monotone_directions(gaussian_mixture_of(sigma, shifts, weights, tail), h, max_cells);
        },
        py::kw_only(), py::arg("sigma"), py::arg("shifts"), py::arg("weights"), py::arg("tail"), py::arg("h"),
        py::arg("max_cells"),
        "The remove and the add direction of sum_i w_i N(s_i, sigma^2) vs N(0, sigma^2), both sides each.");
    m.def(
        "_gaussian_mixture_cell_atoms",
        [](double sigma, input_array shifts, input_array weights, double tail, double h, std::int64_t max_cells,
           bool closed_form) {
            const pld::GaussianMixture pair = gaussian_mixture_of(sigma, shifts, weights, tail);
            const pld::MonotoneAtoms a =
                with_value_errors([&] { return pld::monotone_cell_atoms(pair, h, max_cells, closed_form); });
            return py::make_tuple(to_array(a.loss), to_array(a.p), to_array(a.q));
        },
        py::kw_only(), py::arg("sigma"), py::arg("shifts"), py::arg("weights"), py::arg("tail"), py::arg("h"),
        py::arg("max_cells"), py::arg("closed_form") = true);
    m.def(
        "bounded_range",
        [](double epsilon, double h, std::int64_t max_cells) {
            return monotone_directions(with_value_errors([&] { return pld::BoundedRange(epsilon); }), h, max_cells);
        },
        py::kw_only(), py::arg("epsilon"), py::arg("h"), py::arg("max_cells"),
        "The two directions of the pair dominating every epsilon-bounded-range pair, both sides each.");
}

// pld.sampling's pairs: the Gaussian mixture from log-weights over the caller's range
// (GaussianMixture::from_log_weights, the examples-per-user pair) and the replace-one mixture against its reflection
// (pld/mechanisms/replace_one_mixture.hpp): both directions' PMFs, both sides each.
void register_sampling_mixtures(py::module_& m) {
    m.def(
        "gaussian_mixture_log_weights",
        [](double sigma, input_array shifts, input_array log_weights, double cut, double top, double h,
           std::int64_t max_cells) {
            const pld::GaussianMixture pair = with_value_errors([&] {
                return pld::GaussianMixture::from_log_weights(sigma, as_vector(shifts, "shifts"),
                                                              as_vector(log_weights, "log_weights"), cut, top);
            });
            return monotone_directions(pair, h, max_cells);
        },
        py::kw_only(), py::arg("sigma"), py::arg("shifts"), py::arg("log_weights"), py::arg("cut"), py::arg("top"),
        py::arg("h"), py::arg("max_cells"),
        "The remove and the add direction of sum_i e^{log_weights_i} N(s_i, sigma^2) vs N(0, sigma^2) on "
        "[-z sigma, top + z sigma], z = Q^{-1}(cut), both sides each.");
    m.def(
        "replace_one_mixture",
        [](double sigma, double sampling_rate, double tail, double h, std::int64_t max_cells) {
            return monotone_directions(
                with_value_errors([&] { return pld::ReplaceOneMixture(sigma, sampling_rate, tail); }), h, max_cells);
        },
        py::kw_only(), py::arg("sigma"), py::arg("sampling_rate"), py::arg("tail"), py::arg("h"), py::arg("max_cells"),
        "The two directions of (1 - q) N(0, sigma^2) + q N(1, sigma^2) vs (1 - q) N(0, sigma^2) + q N(-1, sigma^2), "
        "both sides each.");
}

// Many subsampled-Gaussian PLDs (one per (sigma, q, direction)) in one call: the items are
// independent, so the per-item driver runs them in parallel with the GIL released; each
// item's own cell loop stays serial inside (no nested parallel region).  The work is the
// estimated cell count, two masses per cell, so threads = 0 starts a team only for grids
// large enough to pay for it.  An item's error is raised after the loop (the lowest item's).
// optimistic = false skips the optimistic PMF (its lower side is then None).
// halves: the optimistic side's cells are integrated as their two halves too (pld/grid/cells.hpp's
// continuous_cells: a tent about twice as tight, twice the integration work); without them its tents
// come from each cell's own two numbers, still certified.
py::list many_subsampled_gaussians(input_array sigma, input_array q, py::array_t<bool> remove, double h, double tail,
                                   std::int64_t max_cells, int threads, bool optimistic, bool halves) {
    const std::int64_t n = static_cast<std::int64_t>(sigma.size());
    if (q.size() != n || remove.size() != n || sigma.ndim() != 1 || q.ndim() != 1 || remove.ndim() != 1)
        throw py::value_error("internal: sigma, sampling_rate and remove must be 1-d arrays of one length");
    const double* s = sigma.data();
    const double* r = q.data();
    std::vector<char> rem(remove.data(), remove.data() + n);
    std::vector<pld::GridPMF> up(n), low(n);
    double cells = 0.0;
    for (std::int64_t i = 0; i < n; ++i) cells += pld::subsampled_gaussian_loss_width(s[i], r[i], tail) / h;
    const double estimate = 2.0 * cells;  // NaN for bad arguments (the builders then throw): one thread
    const std::int64_t work = !(estimate >= 0.0) ? 0
                              : estimate < 9e18  ? static_cast<std::int64_t>(estimate)
                                                 : std::int64_t{9000000000000000000};
    with_value_errors([&] {
        return hb::for_each_item(n, work, threads, hb::on_demand(1), [&](std::int64_t i, hb::no_state&) {
            const pld::Cells c =
                pld::subsampled_gaussian_cells(s[i], r[i], rem[i] != 0, h, tail, max_cells, optimistic && halves);
            up[i] = pld::pessimistic_pmf(c);
            if (optimistic) low[i] = pld::optimistic_pmf(c);
            return false;  // a PMF has no NaN to report: the builders throw on bad arguments
        });
    });
    py::list out;
    for (std::int64_t i = 0; i < n; ++i) out.append(to_sides(std::move(up[i]), std::move(low[i]), optimistic));
    return out;
}

// delta(eps) / epsilon(delta) of one PMF at many arguments: the flat driver (a NaN argument is
// refused before the profile indexes its grid with it).
template <class Eval>
py::array_t<double> over_profile(const pld::GridProfile& profile, input_array x, const char* name, int threads,
                                 Eval eval) {
    return hb::elementwise<1>(
        {x}, [&](double v) { return std::isnan(v) ? v : eval(profile, v); },
        [name](double v) { return hb::not_nan(name, v); }, threads);
}

// The same for a PMF given by its masses: the profile is built for this call only.
template <class Eval>
py::array_t<double> over_grid_profile(input_array p, std::int64_t k_lo, double h, double p_inf, input_array x,
                                      const char* name, int threads, Eval eval) {
    if (p.ndim() != 1) throw py::value_error("internal: the PMF must be one-dimensional");
    const pld::GridProfile profile = [&] {
        py::gil_scoped_release release;
        return pld::GridProfile(p.data(), static_cast<std::int64_t>(p.size()), k_lo, h, p_inf);
    }();
    return over_profile(profile, x, name, threads, eval);
}

// The charges a grid PMF carries (pld/reads/hockey_stick.hpp's GridCharges), one object for the scans and curves
// that read them: the shift and the suffix sums' slack, the round-off bounds of its entries, and its loss
// shift.  The defaults charge nothing (inverse_l2 inf: no Euclidean bound on the inverse transform).
void register_charges(py::module_& m) {
    py::class_<pld::GridCharges>(m, "Charges")
        .def(py::init([](double shift, double slack, double entry_error, double total_error, double spectral_l2,
                         double inverse_error, double loss_shift, double inverse_l2) {
                 return pld::GridCharges{shift,       slack,         entry_error, total_error,
                                         spectral_l2, inverse_error, loss_shift,  inverse_l2};
             }),
             py::kw_only(), py::arg("shift") = 0.0, py::arg("slack") = 0.0, py::arg("entry_error") = 0.0,
             py::arg("total_error") = 0.0, py::arg("spectral_l2") = 0.0, py::arg("inverse_error") = 0.0,
             py::arg("loss_shift") = 0.0, py::arg("inverse_l2") = std::numeric_limits<double>::infinity())
        .def_readwrite("shift", &pld::GridCharges::shift)
        .def_readwrite("slack", &pld::GridCharges::slack)
        .def_readwrite("entry_error", &pld::GridCharges::entry)
        .def_readwrite("total_error", &pld::GridCharges::total)
        .def_readwrite("spectral_l2", &pld::GridCharges::l2)
        .def_readwrite("inverse_error", &pld::GridCharges::inverse)
        .def_readwrite("loss_shift", &pld::GridCharges::loss_shift)
        .def_readwrite("inverse_l2", &pld::GridCharges::inverse_l2)
        .def("__repr__", [](const pld::GridCharges& c) {
            return py::str(
                       "Charges(shift={!r}, slack={!r}, entry_error={!r}, total_error={!r}, spectral_l2={!r}, "
                       "inverse_error={!r}, loss_shift={!r}, inverse_l2={!r})")
                .format(c.shift, c.slack, c.entry, c.total, c.l2, c.inverse, c.loss_shift, c.inverse_l2);
        });
}

void register_grid_profile(py::module_& m) {
    // The suffix sums of one PMF, built once (O(grid)) and kept, so that the several
    // delta/epsilon evaluations of a charged inversion do not rebuild them each time.
    py::class_<pld::GridProfile>(m, "GridProfile")
        .def(py::init([](input_array p, std::int64_t k_lo, double h, double p_inf) {
                 if (p.ndim() != 1) throw py::value_error("internal: the PMF must be one-dimensional");
                 py::gil_scoped_release release;
                 return pld::GridProfile(p.data(), static_cast<std::int64_t>(p.size()), k_lo, h, p_inf);
             }),
             py::arg("p"), py::kw_only(), py::arg("k_lo"), py::arg("h"), py::arg("p_inf"))
        .def(
            "delta",
            [](const pld::GridProfile& g, input_array eps, int threads) {
                return over_profile(g, eps, "epsilon", threads,
                                    [](const pld::GridProfile& q, double e) { return q.delta(e); });
            },
            py::arg("epsilon"), py::arg("threads") = 0)
        .def(
            "epsilon",
            [](const pld::GridProfile& g, input_array delta, int threads) {
                return over_profile(g, delta, "delta", threads,
                                    [](const pld::GridProfile& q, double d) { return q.epsilon(d); });
            },
            py::arg("delta"), py::arg("threads") = 0);
}

void register_charged_curve(py::module_& m) {
    // A grid PMF's certified side read from its tables, at the argument moved by its loss shift
    // (pld/reads/charged_curve.hpp; python pmf.GridPMF.delta_tabled): one call per root-search step.
    py::class_<pld::ChargedGridCurve>(m, "ChargedCurve")
        .def(py::init([](const pld::GridProfile& profile, input_array charge, double shift, double slack,
                         double loss_shift, bool pessimistic, bool with_envelope) {
                 if (charge.ndim() != 1) throw py::value_error("internal: the charge table must be one-dimensional");
                 std::vector<double> c(charge.data(), charge.data() + charge.size());
                 try {  // the GIL is back before the catch (release's scope ends with the try block)
                     py::gil_scoped_release release;
                     return pld::ChargedGridCurve(profile, std::move(c), shift, slack, loss_shift, pessimistic,
                                                  with_envelope);
                 } catch (const std::invalid_argument& error) { throw py::value_error(error.what()); }
             }),
             py::arg("profile"), py::arg("charge"), py::kw_only(), py::arg("shift"), py::arg("slack"),
             py::arg("loss_shift"), py::arg("pessimistic"), py::arg("with_envelope"))
        .def_property_readonly("envelope", [](const pld::ChargedGridCurve& c) { return to_array(c.envelope()); })
        .def(
            "delta",
            [](const pld::ChargedGridCurve& c, input_array eps, int threads) {
                return hb::elementwise<1>(
                    {eps}, [&c](double v) { return std::isnan(v) ? v : c.delta(v); },
                    [](double v) { return hb::not_nan("epsilon", v); }, threads);
            },
            py::arg("epsilon"), py::arg("threads") = 0);
}

void register_charged_side(py::module_& m) {
    // The same side at arguments already moved, the charges computed per argument (charged_side: no table),
    // read from the given profile (the PMF's suffix sums or a top part that answers every argument).
    m.def(
        "charged_delta",
        [](const pld::GridProfile& profile, input_array eps, std::int64_t k_lo, std::int64_t n, double h,
           const pld::GridCharges& charges, bool pessimistic, int threads) {
            const double lo = static_cast<double>(k_lo), size = static_cast<double>(n);
            return hb::elementwise<1>(
                {eps},
                [&](double e) {
                    return std::isnan(e) ? e : pld::charged_side(profile, lo, size, h, charges, pessimistic, e);
                },
                [](double v) { return hb::not_nan("epsilon", v); }, threads);
        },
        py::arg("profile"), py::arg("epsilon"), py::kw_only(), py::arg("k_lo"), py::arg("n"), py::arg("h"),
        py::arg("charges"), py::arg("pessimistic"), py::arg("threads") = 0,
        "The charged side at arguments already moved (the charges' loss_shift is not applied here).");
    m.def(
        "round_off_charge_at",
        [](input_array eps, std::int64_t k_lo, std::int64_t n, double h, const pld::GridCharges& charges) {
            const double lo = static_cast<double>(k_lo), size = static_cast<double>(n);
            return hb::elementwise<1>(
                {eps}, [&](double e) { return std::isnan(e) ? e : pld::charge_at_argument(e, lo, size, h, charges); },
                [](double v) { return hb::not_nan("epsilon", v); }, 1);
        },
        py::arg("epsilon"), py::kw_only(), py::arg("k_lo"), py::arg("n"), py::arg("h"), py::arg("charges"),
        "The round-off charge at each epsilon: that of the grid points above it (the charges' round-off "
        "fields; shift, slack and loss_shift take no part).");
}

void register_loss_shifted(py::module_& m) {
    // Values moved by a loss shift, rounded outward (pld/reads/hockey_stick.hpp's loss_shifted); NaN stays
    // (the caller's curve evaluation names it).
    m.def(
        "loss_shifted",
        [](input_array values, double loss_shift, bool up) {
            if (!(loss_shift >= 0.0 && loss_shift < std::numeric_limits<double>::infinity()))
                throw py::value_error("loss_shift must be a finite number >= 0");
            py::array_t<double> out(std::vector<py::ssize_t>(values.shape(), values.shape() + values.ndim()));
            const double* src = values.data();
            double* dst = out.mutable_data();
            for (py::ssize_t i = 0; i < values.size(); ++i) dst[i] = pld::loss_shifted(src[i], loss_shift, up);
            return out;
        },
        py::arg("values"), py::arg("loss_shift"), py::kw_only(), py::arg("up"));
}

void register_epsilon_width(py::module_& m) {
    // The epsilon width a delta bracket certifies (pld/reads/epsilon_width.hpp): the chord's and the left
    // one's elementwise over arrays of one shape (the facade broadcasts; only a NaN epsilon gives NaN),
    // and one point's least over its shifted arguments (the accountant's layout: own, right rows, left rows).
    m.def(
        "chord_epsilon_width",
        [](hb::strided_array eps, hb::strided_array lo, hb::strided_array up, hb::strided_array eps2,
           hb::strided_array up2) {
            return hb::broadcast_elementwise<5>(
                {eps, lo, up, eps2, up2}, &pld::chord_epsilon_width,
                [](double e, double, double, double, double) { return hb::not_nan("epsilon", e); }, 1);
        },
        py::arg("epsilon"), py::kw_only(), py::arg("lower"), py::arg("upper"), py::arg("right_epsilon"),
        py::arg("right_upper"));
    m.def(
        "left_epsilon_width",
        [](hb::strided_array eps, hb::strided_array up, hb::strided_array eps1, hb::strided_array lo1) {
            return hb::broadcast_elementwise<4>(
                {eps, up, eps1, lo1}, &pld::left_epsilon_width,
                [](double e, double, double, double) { return hb::not_nan("epsilon", e); }, 1);
        },
        py::arg("epsilon"), py::kw_only(), py::arg("upper"), py::arg("left_epsilon"), py::arg("left_lower"));
    m.def(
        "least_epsilon_width",
        [](input_array x, std::int64_t own, input_array lower, input_array upper, std::int64_t right_rows) {
            const std::int64_t size = static_cast<std::int64_t>(x.size());
            if (x.ndim() != 1 || lower.ndim() != 1 || upper.ndim() != 1 || lower.size() != x.size() ||
                upper.size() != x.size() || own < 0 || size < own || (own > 0 && size % own != 0) || right_rows < 0)
                throw py::value_error(
                    "internal: x, lower and upper must be 1-d arrays of one length, a multiple of own "
                    "and at least own");
            py::array_t<double> out(own);
            pld::least_epsilon_width(x.data(), lower.data(), upper.data(), size, own, right_rows, out.mutable_data());
            return out;
        },
        py::arg("x"), py::kw_only(), py::arg("own"), py::arg("lower"), py::arg("upper"), py::arg("right_rows"));
}

// One array per PMF, as the caller gave it (flat, double): refused by count.
std::vector<input_array> arrays_per_pmf(const py::sequence& arrays, std::int64_t count, const char* name) {
    if (static_cast<std::int64_t>(py::len(arrays)) != count)
        throw py::value_error(std::string(name) + " must give one array per PMF (got " +
                              std::to_string(py::len(arrays)) + " for " + std::to_string(count) + " PMFs)");
    std::vector<input_array> out;
    for (std::int64_t i = 0; i < count; ++i)
        out.push_back(py::reinterpret_borrow<py::object>(arrays[static_cast<py::size_t>(i)]).cast<input_array>());
    return out;
}

// body(read i, state) over the reads on `threads` threads with the GIL released, an argument error
// (std::invalid_argument) raised as a ValueError.
template <class Body>
void over_reads(std::vector<pld::SideRead>& reads, std::int64_t work, int threads, Body body) {
    try {
        hb::for_each_item<std::vector<double>>(static_cast<std::int64_t>(reads.size()), work, threads, hb::on_demand(1),
                                               [&](std::int64_t i, std::vector<double>& state) {
                                                   body(reads[static_cast<std::size_t>(i)], i, state);
                                                   return false;
                                               });
    } catch (const std::invalid_argument& error) { throw py::value_error(error.what()); }
}

void register_charged_sides(py::module_& m) {
    // Many PMFs' charged sides, each at its own arguments (pld/reads/charged_sides.hpp): the fields of
    // each PMF read under the GIL, then every PMF's profile part and side with it released, over the
    // PMFs on `threads` threads; python pmf.GridPMF.delta of each (envelope=False), the same doubles.
    m.def(
        "charged_sides",
        [](const py::sequence& pmfs, const py::sequence& epsilon, int threads) {
            const auto count = static_cast<std::int64_t>(py::len(pmfs));
            std::vector<input_array> masses, args = arrays_per_pmf(epsilon, count, "epsilon");
            std::vector<py::array_t<double>> outs;
            std::vector<pld::SideRead> reads;
            std::int64_t work = 0;
            for (std::int64_t i = 0; i < count; ++i) {
                pld::SideRead r = hb::side_read_of(pmfs[static_cast<py::size_t>(i)], masses);
                const input_array& x = args[static_cast<std::size_t>(i)];
                outs.emplace_back(x.size());
                r.eps = x.data();
                r.m = static_cast<std::int64_t>(x.size());
                r.out = outs.back().mutable_data();
                work += r.pmf.n + r.m;
                reads.push_back(r);
            }
            over_reads(reads, work, threads, [](const pld::SideRead& r, std::int64_t, std::vector<double>& moved) {
                pld::read_charged_side(r, moved);
            });
            py::list out;
            for (auto& a : outs) out.append(std::move(a));
            return out;
        },
        py::arg("pmfs"), py::arg("epsilon"), py::kw_only(), py::arg("threads") = 0,
        "Each PMF's charged side at its arguments (flat arrays of the true curve's epsilon): pessimistic, the "
        "certified upper delta; optimistic, the charged lower value at each epsilon alone (no suffix maxima). "
        "A PMF is any object with GridPMF's fields (p, k_lo, h, p_inf, shift, pessimistic and the charges).");
    // The refinement's model of what no finer grid removes (pld/refine/fixed_part.hpp), many PMFs in one call.
    m.def(
        "fixed_parts",
        [](const py::sequence& pmfs, const py::sequence& epsilon, const py::sequence& values) {
            const auto count = static_cast<std::int64_t>(py::len(pmfs));
            std::vector<input_array> masses, args = arrays_per_pmf(epsilon, count, "epsilon"),
                                             vals = arrays_per_pmf(values, count, "values");
            std::vector<py::array_t<double>> outs;
            std::vector<pld::SideRead> reads;
            std::vector<double> finite;
            for (std::int64_t i = 0; i < count; ++i) {
                const py::object pmf = pmfs[static_cast<py::size_t>(i)];
                pld::SideRead r = hb::side_read_of(pmf, masses);
                const input_array& x = args[static_cast<std::size_t>(i)];
                if (vals[static_cast<std::size_t>(i)].size() != x.size())
                    throw py::value_error("values must give one value per epsilon");
                outs.emplace_back(std::vector<py::ssize_t>{2, x.size()});
                r.eps = x.data();
                r.m = static_cast<std::int64_t>(x.size());
                r.out = outs.back().mutable_data();
                // read on the pessimistic side alone, the one whose model takes it (fixed_part)
                finite.push_back(r.pessimistic ? pmf.attr("finite_mass").cast<double>() : 0.0);
                reads.push_back(r);
            }
            over_reads(reads, count, 1, [&](const pld::SideRead& r, std::int64_t i, std::vector<double>&) {
                pld::fixed_part(r, vals[static_cast<std::size_t>(i)].data(), finite[static_cast<std::size_t>(i)]);
            });
            py::list out;
            for (auto& a : outs) out.append(std::move(a));
            return out;
        },
        py::arg("pmfs"), py::arg("epsilon"), py::arg("values"),
        "Each PMF's part of its certified delta at its arguments that no finer grid removes, two rows (the "
        "charges and tail; the cells' edge factor), given its certified values there (pld/refine/fixed_part.hpp).");
}

// A PMF's curves and their charged sides: the suffix-sum profile, the charged curve, the charges at
// arguments, loss shifts, and the epsilon width a delta bracket certifies.
void register_pld_curves(py::module_& m) {
    register_grid_profile(m);
    register_charged_curve(m);
    register_charged_side(m);
    register_charged_sides(m);
    register_loss_shifted(m);
    register_epsilon_width(m);
}

// The mechanisms' cells and both-sided PMFs (pld/grid/cells.hpp, pld/sampling/replace_one.hpp), with their test hooks.
void register_pld_mechanisms(py::module_& grid, py::module_& m, py::module_& sampling) {
    grid.attr("max_interval") = pld::max_interval;
    // pld/grid/cells.hpp's bound on a cell's two numbers: |dc| + |dd| <= cell_round_off (c + d)
    grid.attr("cell_round_off") = pld::cell_round_off;
    m.def(
        "subsampled_gaussian",
        [](double sigma, double q, bool remove, double h, double tail, std::int64_t max_cells) {
            return both_sides([=] { return pld::subsampled_gaussian_cells(sigma, q, remove, h, tail, max_cells); });
        },
        py::arg("sigma"), py::arg("sampling_rate"), py::kw_only(), py::arg("remove"), py::arg("h"), py::arg("tail"),
        py::arg("max_cells"));
    m.def("subsampled_gaussian_many", &many_subsampled_gaussians, py::arg("sigma"), py::arg("sampling_rate"),
          py::arg("remove"), py::kw_only(), py::arg("h"), py::arg("tail"), py::arg("max_cells"), py::arg("threads") = 0,
          py::arg("optimistic") = true, py::arg("halves") = true);
    // Fixed-size batches under replace-one (pld/sampling/replace_one.hpp): the two sides come from two
    // different pairs (a proved upper pair, a realizable lower pair), so each has its own grid.
    sampling.def(
        "with_replacement_subsampled_gaussian",
        [](double sigma, std::int64_t batch_size, std::int64_t dataset_size, double h, double tail,
           std::int64_t max_cells) {
            return replace_one_sides(
                [=] {
                    const double eta = pld::binomial_eta(batch_size, dataset_size);
                    return std::make_pair(pld::binomial_counts(batch_size, dataset_size, 0.25 * tail * eta),
                                          pld::binomial_counts(batch_size, dataset_size, 0.25 * tail));
                },
                sigma, h, tail, max_cells);
        },
        py::arg("sigma"), py::kw_only(), py::arg("batch_size"), py::arg("dataset_size"), py::arg("h"), py::arg("tail"),
        py::arg("max_cells"));
    sampling.def(
        "without_replacement_subsampled_gaussian",
        [](double sigma, double q, double h, double tail, std::int64_t max_cells) {
            return replace_one_sides([=] { return std::make_pair(pld::bernoulli_counts(q), pld::bernoulli_counts(q)); },
                                     sigma, h, tail, max_cells);
        },
        py::arg("sigma"), py::arg("sampling_rate"), py::kw_only(), py::arg("h"), py::arg("tail"), py::arg("max_cells"));
    m.def("subsampled_gaussian_mass_above", &pld::subsampled_gaussian_mass_above, py::arg("sigma"),
          py::arg("sampling_rate"), py::kw_only(), py::arg("tail"),
          "The remove direction's P-mass above its integration range: its pessimistic PMF's mass at +infinity.");
    // Test hook: the subsampled Gaussian's cell edges x_of_loss(l) (unclamped; pld/grid/cells.hpp) for the given
    // losses, and their edge_loss_error over the finite ones (what continuous_cells charges, before
    // the rounding of l = fl(k h) and of the offset).
    grid.def(
        "_subsampled_gaussian_edges",
        [](double sigma, double q, bool remove, input_array l) {
            if (l.ndim() != 1) throw py::value_error("internal: l must be one-dimensional");
            const pld::detail::mixture_vs_gaussian mg{sigma, q};
            const pld::detail::gaussian_vs_mixture gm{mg};
            const std::int64_t n = static_cast<std::int64_t>(l.size());
            std::vector<double> x(n), lf, xf;
            for (std::int64_t i = 0; i < n; ++i) {
                x[i] = remove ? mg.x_of_loss(l.data()[i]) : gm.x_of_loss(l.data()[i]);
                if (std::isfinite(x[i])) {
                    lf.push_back(l.data()[i]);
                    xf.push_back(x[i]);
                }
            }
            const std::int64_t m_ = static_cast<std::int64_t>(xf.size());
            const double bound = m_ == 0  ? 0.0
                                 : remove ? mg.edge_loss_error(lf.data(), xf.data(), m_)
                                          : gm.edge_loss_error(lf.data(), xf.data(), m_);
            return py::make_tuple(to_array(x), bound);
        },
        py::arg("sigma"), py::arg("sampling_rate"), py::kw_only(), py::arg("remove"), py::arg("l"));
    // Test hook: numerics/gaussian_exponent.hpp over arrays, the batched path (AVX2 where the CPU has it) and the
    // one-node path, as (argument, factor) pairs of each: they must agree bit for bit.
    grid.def(
        "_gaussian_exponents",
        [](input_array base, input_array dx, input_array l, double shift, double s) {
            const std::int64_t n = static_cast<std::int64_t>(base.size());
            if (base.ndim() != 1 || dx.size() != n || l.size() != n)
                throw py::value_error("internal: 1-d arrays of one length");
            const hockeystick::detail::SplitScale k(s);
            std::vector<double> arg(n), fac(n), arg1(n), fac1(n);
            hockeystick::detail::gaussian_exponents(base.data(), dx.data(), l.data(), shift, k, arg.data(), fac.data(),
                                                    n);
            for (std::int64_t i = 0; i < n; ++i) {
                const auto t =
                    hockeystick::detail::gaussian_exponent(base.data()[i], dx.data()[i], shift, l.data()[i], k);
                arg1[i] = t.argument;
                fac1[i] = t.factor;
            }
            return py::make_tuple(to_array(arg), to_array(fac), to_array(arg1), to_array(fac1));
        },
        py::arg("base"), py::arg("dx"), py::arg("l"), py::kw_only(), py::arg("shift"), py::arg("s"));
    grid.def(
        "subsampled_gaussian_cells",
        [](double sigma, double q, bool remove, double h, double tail, std::int64_t max_cells, bool halves) {
            py::gil_scoped_release release;
            return hb::cell_masses(pld::subsampled_gaussian_cells(sigma, q, remove, h, tail, max_cells, halves));
        },
        py::arg("sigma"), py::arg("sampling_rate"), py::kw_only(), py::arg("remove"), py::arg("h"), py::arg("tail"),
        py::arg("max_cells"), py::arg("halves") = true);
    m.def(
        "laplace",
        [](double distance, double scale, double h, std::int64_t max_cells) {
            return both_sides([=] { return pld::laplace_cells(distance, scale, h, max_cells); });
        },
        py::arg("distance"), py::arg("scale"), py::kw_only(), py::arg("h"), py::arg("max_cells"));
    register_atoms(m);
    register_laplace_mixture(m);
    register_gaussian_mixture_and_bounded_range(m);
    register_sampling_mixtures(sampling);
}

// Delta near 1 from the Renyi affinity of one round (pld/reads/affinity_ceiling.hpp), in _core.pld_reads: the orders,
// the bounds on log A at them (rows remove and add), and the lower delta they give at epsilons of any shape (the
// result has it).
void register_affinity_ceiling(py::module_& m) {
    py::array_t<double> orders(pld::kAffinityOrders);
    for (int k = 0; k < pld::kAffinityOrders; ++k) orders.mutable_data()[k] = pld::affinity_order(k);
    m.attr("affinity_orders") = orders;
    m.def(
        "subsampled_gaussian_log_affinity",
        [](double sigma, double q) {
            const pld::LogAffinity a = [&] {
                py::gil_scoped_release release;
                return pld::subsampled_gaussian_log_affinity(sigma, q);
            }();
            py::array_t<double> out(std::vector<py::ssize_t>{2, pld::kAffinityOrders});
            for (std::size_t r = 0; r < 2; ++r)
                std::copy(a[r].begin(), a[r].end(), out.mutable_data() + r * pld::kAffinityOrders);
            return out;
        },
        py::arg("sigma"), py::arg("sampling_rate"));
    m.def(
        "delta_lower_near_one",
        [](input_array log_affinity, double rounds, input_array epsilon) {
            if (log_affinity.ndim() != 2 || log_affinity.shape(0) != 2 || log_affinity.shape(1) != pld::kAffinityOrders)
                throw py::value_error("internal: log_affinity must hold 2 rows of affinity_orders' length");
            pld::LogAffinity a{};
            for (std::size_t r = 0; r < 2; ++r)
                std::copy(log_affinity.data() + r * pld::kAffinityOrders,
                          log_affinity.data() + (r + 1) * pld::kAffinityOrders, a[r].begin());
            py::array_t<double> out(std::vector<py::ssize_t>(epsilon.shape(), epsilon.shape() + epsilon.ndim()));
            for (py::ssize_t i = 0; i < epsilon.size(); ++i)
                out.mutable_data()[i] = pld::delta_lower_near_one(a, rounds, epsilon.data()[i]);
            return out;
        },
        py::arg("log_affinity"), py::arg("rounds"), py::arg("epsilon"));
}

// Passes over one grid PMF: its round-off charges, charged epsilon scans, moments, the complement's scans, and
// delta and epsilon read from its suffix sums.
void register_pld_scans(py::module_& grid, py::module_& m) {
    m.def("suffix_sum_slack", &pld::suffix_sum_slack, py::arg("n"),
          "Relative round-off of the suffix sums of an n-point grid PMF, 4 (n + 4) u (pld/reads/epsilon_bracket.hpp).");
    m.def(
        "round_off_charge",
        [](input_array sum, input_array norm, const pld::GridCharges& ch) {
            if (sum.ndim() != 1 || norm.ndim() != 1 || sum.size() != norm.size())
                throw py::value_error("internal: sum and norm must be 1-d arrays of one length");
            py::array_t<double> out(sum.size());
            const double* a = sum.data();
            const double* b = norm.data();
            double* dst = out.mutable_data();
            for (py::ssize_t i = 0; i < sum.size(); ++i) dst[i] = ch.weighted(a[i], b[i]);
            return out;
        },
        py::arg("sum"), py::arg("norm"), py::kw_only(), py::arg("charges"),
        "Round-off charge of weighted sums of composed grid masses (weights in [0, 1], their sum at most `sum` and "
        "Euclidean norm at most `norm`): GridCharges::weighted (pld/reads/hockey_stick.hpp), elementwise.");
    def_charged_scan(m, "charged_epsilon", [](auto... args) { pld::charged_epsilon(args...); });
    def_charged_scan(m, "charged_lower_epsilon", [](auto... args) { pld::charged_lower_epsilon(args...); });
    grid.def(
        "loss_variance",
        [](input_array p, double h) {
            const double* pp = p.data();
            const std::int64_t n = static_cast<std::int64_t>(p.size());
            py::gil_scoped_release release;
            return pld::grid_loss_variance(pp, n, h);
        },
        py::arg("p"), py::kw_only(), py::arg("h"));
    register_affinity_ceiling(m);
    // The complement's scans over a composed PMF (pld/reads/complement_scans.hpp): its geometric sums read at
    // grid indices (any shape; the result has it), and its likelihood-ratio threshold per eps.
    m.def(
        "geometric_sums_at",
        [](input_array p, double decay, index_array at, bool rising) {
            if (p.ndim() != 1) throw py::value_error("internal: the masses must be one-dimensional");
            const std::int64_t n = static_cast<std::int64_t>(p.size()), count = static_cast<std::int64_t>(at.size());
            const std::int64_t* index = at.data();
            for (std::int64_t t = 0; t < count; ++t)
                if (index[t] < 0 || index[t] > n) throw py::value_error("internal: a sum's index lies outside [0, n]");
            py::array_t<double> out(std::vector<py::ssize_t>(at.shape(), at.shape() + at.ndim()));
            double* values = out.mutable_data();
            const double* masses = p.data();
            py::gil_scoped_release release;
            pld::geometric_sums_at(masses, n, decay, rising, index, count, values);
            return out;
        },
        py::arg("p"), py::kw_only(), py::arg("decay"), py::arg("at"), py::arg("rising"));
    m.def(
        "ratio_threshold",
        [](input_array a, std::int64_t a_lo, input_array b, std::int64_t b_lo, double h, double offset,
           input_array eps) {
            if (a.ndim() != 1 || b.ndim() != 1) throw py::value_error("internal: the masses must be one-dimensional");
            py::array_t<std::int64_t> out(std::vector<py::ssize_t>(eps.shape(), eps.shape() + eps.ndim()));
            std::int64_t* threshold = out.mutable_data();
            const double *pa = a.data(), *pb = b.data(), *pe = eps.data();
            const std::int64_t na = static_cast<std::int64_t>(a.size()), nb = static_cast<std::int64_t>(b.size()),
                               count = static_cast<std::int64_t>(eps.size());
            py::gil_scoped_release release;
            pld::ratio_threshold(pa, a_lo, na, pb, b_lo, nb, h, offset, pe, count, threshold);
            return out;
        },
        py::arg("a"), py::kw_only(), py::arg("a_lo"), py::arg("b"), py::arg("b_lo"), py::arg("h"), py::arg("offset"),
        py::arg("epsilon"));
    grid.def(
        "log_mgf",
        [](input_array p, std::int64_t k_lo, double h, input_array lam) {
            py::array_t<double> out(lam.size());
            const double* pp = p.data();
            const double* lp = lam.data();
            double* dst = out.mutable_data();
            const std::int64_t n = static_cast<std::int64_t>(p.size()), m = static_cast<std::int64_t>(lam.size());
            {
                py::gil_scoped_release release;
                pld::grid_log_mgf(pp, n, k_lo, h, lp, m, dst);
            }
            return out;
        },
        py::arg("p"), py::kw_only(), py::arg("k_lo"), py::arg("h"), py::arg("lam"));
    m.def(
        "delta",
        [](input_array p, std::int64_t k_lo, double h, double p_inf, input_array eps, int threads) {
            return over_grid_profile(p, k_lo, h, p_inf, eps, "epsilon", threads,
                                     [](const pld::GridProfile& g, double e) { return g.delta(e); });
        },
        py::arg("p"), py::kw_only(), py::arg("k_lo"), py::arg("h"), py::arg("p_inf"), py::arg("epsilon"),
        py::arg("threads") = 0);
    m.def(
        "epsilon",
        [](input_array p, std::int64_t k_lo, double h, double p_inf, input_array delta, int threads) {
            return over_grid_profile(p, k_lo, h, p_inf, delta, "delta", threads,
                                     [](const pld::GridProfile& g, double d) { return g.epsilon(d); });
        },
        py::arg("p"), py::kw_only(), py::arg("k_lo"), py::arg("h"), py::arg("p_inf"), py::arg("delta"),
        py::arg("threads") = 0);
    // The root search (pld/reads/epsilon_root_search.hpp) over a side given as a Python callable of a 1-d float64
    // array of eps; the interpreter lock is held throughout (each step calls it).
    m.def(
        "epsilon_search",
        [](const py::function& delta_of, double target, bool upper, double top, double tolerance,
           const py::iterable& hints, int first_pass, int cluster) {
            pld::EpsilonSearchQuestion q;
            q.target = target, q.upper = upper, q.top = top, q.tolerance = tolerance;
            for (const py::handle h : hints) q.hints.push_back(h.cast<double>());
            q.first_pass = first_pass, q.cluster = cluster;
            const auto side = [&](const std::vector<double>& points, std::vector<double>& values) {
                py::array_t<double> at(static_cast<py::ssize_t>(points.size()));
                std::copy(points.begin(), points.end(), at.mutable_data());
                const auto got = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(delta_of(at));
                if (!got || got.size() != at.size())
                    throw py::value_error("delta_of must return one delta per point asked (epsilon_search)");
                std::copy(got.data(), got.data() + got.size(), values.begin());
            };
            return pld::epsilon_root_search(side, q);  // std::invalid_argument: pybind11's ValueError
        },
        py::arg("delta_of"), py::arg("target"), py::kw_only(), py::arg("upper"), py::arg("top"), py::arg("tolerance"),
        py::arg("hints") = py::tuple(), py::arg("first_pass") = 0, py::arg("cluster") = 0,
        "A certified epsilon at `target` from the certified side `delta_of` (upper: the least evaluated eps with "
        "delta <= target; lower: the largest with delta > target), narrowed to `tolerance` by a batched Illinois "
        "search (pld/reads/epsilon_root_search.hpp).");
}

}  // namespace

// The stages' submodules (module.cpp): the types and cells in grid, one round's pairs in mechanisms, the sampled
// rounds' pairs in sampling, the curves, charges and scans in reads.
void register_pld(py::module_ grid, py::module_ mechanisms, py::module_ sampling, py::module_ reads) {
    hb::register_discretized_types(grid);
    register_charges(reads);
    register_pld_curves(reads);
    register_pld_mechanisms(grid, mechanisms, sampling);
    register_pld_scans(grid, reads);
}
