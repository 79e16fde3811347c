// Binding of the binomial split (pld/reads/binomial_split.hpp's BinomialSplit) and of the correctly rounded integers it
// is built on (numerics/correctly_rounded.hpp: exact_sum, rounded_binomial), in _core.pld_reads, so that a split of
// the package's PMFs can be read alone (the split read itself, pld/refine/split_read.hpp, is bound on the readers).
//
// A split is built from the package's grid PMFs (any objects with GridPMF's fields: p, k_lo, h, p_inf, loss_shift,
// pessimistic and the charges), their masses read in place and kept referenced while it is built.  The refusals its
// views cannot express are made here, in the package's order (per segment: a charge or a shift, another grid or side,
// fewer than one round): each a ValueError, as are the core's std::invalid_argument and std::length_error; a division
// by a largest scale of 0 is Python's ZeroDivisionError, and a power past the double range its OverflowError.  Its
// terms are composed with the GIL released, on the package's composition (pocketfft_composition.hpp: scipy.fft's
// transforms on all cores for a batch of several rows, numpy.fft's on one, the long-double transforms of the direct
// bins), as compose_many's facade composes them.
#include <hockeystick/numerics/correctly_rounded.hpp>
#include <hockeystick/pld/reads/binomial_split.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "elementwise.hpp"
#include "pocketfft_composition.hpp"

namespace py = pybind11;
namespace hb = hockeystick_bindings;
namespace pld = hockeystick::pld;

namespace binomial_split_binding {

// The segments as the core's views, after the package's checks of each (its masses kept referenced in `masses`).
// Under the GIL.
std::vector<pld::SplitSegment> segments_of(const py::sequence& segments, std::vector<hb::input_array>& masses) {
    if (segments.size() == 0) throw py::index_error("list index out of range");
    const py::object first = segments[0].cast<py::sequence>()[0];
    std::vector<pld::SplitSegment> out;
    for (const py::handle item : segments) {
        const py::sequence pair = item.cast<py::sequence>();
        const py::object pmf = pair[0];
        const py::object rounds = pair[1];
        if (pmf.attr("shift").cast<double>() != 0.0 || pmf.attr("entry_error").cast<double>() != 0.0 ||
            pmf.attr("total_error").cast<double>() != 0.0 || pmf.attr("inverse_error").cast<double>() != 0.0)
            throw py::value_error("every pmf must be one round as discretized (no charges, no shift) to be split");
        if (!pmf.attr("h").equal(first.attr("h")) || !pmf.attr("pessimistic").equal(first.attr("pessimistic")))
            throw py::value_error("every pmf of a split must be on one grid and one side");
        if (rounds < py::int_(1))
            throw py::value_error("rounds must be >= 1, got " + py::str(rounds).cast<std::string>());
        masses.push_back(pmf.attr("p").cast<hb::input_array>());
        if (masses.back().ndim() != 1) throw py::value_error("internal: a round's masses must be one-dimensional");
        out.push_back({{masses.back().data(), static_cast<std::int64_t>(masses.back().size()),
                        pmf.attr("k_lo").cast<std::int64_t>(), pmf.attr("p_inf").cast<double>(),
                        pmf.attr("loss_shift").cast<double>()},
                       py::int_(rounds).cast<std::int64_t>()});
    }
    return out;
}

// _core.pld_reads.BinomialSplit (its docstring).
pld::BinomialSplit make(const py::sequence& segments, double floor, double negligible, double tail,
                        std::int64_t max_points, std::int64_t max_terms, std::int64_t max_span_points) {
    std::vector<hb::input_array> masses;
    const std::vector<pld::SplitSegment> views = segments_of(segments, masses);
    const py::object first = segments[0].cast<py::sequence>()[0];
    const double h = first.attr("h").cast<double>();
    const bool pessimistic = first.attr("pessimistic").cast<bool>();
    pld::ComposeOptions options;
    options.direct_bins = true;
    options.direct_min_charge = 0.0;
    const hb::PocketfftComposition composition(py::none(), options, true, max_points);
    try {  // the GIL is back before the catch (release's scope ends with the try block)
        py::gil_scoped_release release;
        return pld::BinomialSplit(views, h, pessimistic, floor, negligible, tail, composition.fft(), max_points,
                                  pld::SplitLimits{max_terms, max_span_points});
    } catch (const std::domain_error& e) {
        PyErr_SetString(PyExc_ZeroDivisionError, e.what());
        throw py::error_already_set();
    }
}

}  // namespace binomial_split_binding

void register_pld_binomial_split(py::module_ m) {
    namespace bs = binomial_split_binding;
    m.attr("split_max_terms") = pld::kSplitMaxTerms;
    m.attr("split_max_span_points") = pld::kSplitMaxSpanPoints;
    py::class_<pld::BinomialSplit>(
        m, "BinomialSplit",
        "The certified delta curve of the composition of segments ((one round's GridPMF, its rounds) pairs, one grid, "
        "one side, no charges) at every eps >= floor, read as a sum over how many rounds pass floor / T "
        "(pld/reads/binomial_split.hpp): each term composed at unit mass with windows whose tails are at most tail "
        "over "
        "the largest scale and at most max_points points, terms below negligible bounded (pessimistic) or dropped "
        "(optimistic). ValueError where the split does not apply (charges, grids or sides, rounds < 1, the floor, "
        "nothing below the split, more than max_terms terms, terms spanning more than max_span_points grid points, a "
        "window past max_points).")
        .def(py::init(&bs::make), py::arg("segments"), py::kw_only(), py::arg("floor"), py::arg("negligible"),
             py::arg("tail"), py::arg("max_points"), py::arg("max_terms") = pld::kSplitMaxTerms,
             py::arg("max_span_points") = pld::kSplitMaxSpanPoints)
        .def_property_readonly("pessimistic", &pld::BinomialSplit::pessimistic)
        .def_property_readonly("floor", &pld::BinomialSplit::floor)
        .def_property_readonly("scales", &pld::BinomialSplit::scales,
                               "Each kept term's scale prod_i C(T_i, j_i) m_i^j_i, rounded outward.")
        .def_property_readonly("rest", &pld::BinomialSplit::rest,
                               "The pessimistic side's bound on the terms left out and the mass at +infinity.")
        .def("delta", &pld::BinomialSplit::delta, py::arg("eps"),
             "The certified delta at eps on this side (1 below floor on the pessimistic side).")
        .def("epsilon", &pld::BinomialSplit::epsilon, py::arg("delta"), py::arg("top"),
             "The certified epsilon at delta on this side, searched up to top (inf where top does not qualify on the "
             "pessimistic side).");
    m.def(
        "exact_sum",
        [](const hb::input_array& values) {
            return hockeystick::exact_sum(values.data(), static_cast<std::int64_t>(values.size()));
        },
        py::arg("values"),
        "The sum of the doubles correctly rounded, ties to even: math.fsum's value (numerics/correctly_rounded.hpp); "
        "OverflowError past the largest double, ValueError for -inf + inf.");
    m.def("rounded_binomial", &hockeystick::rounded_binomial, py::arg("n"), py::arg("k"),
          "C(n, k) rounded once to a double, ties to even (float(math.comb(n, k)); inf past the double range, 0 where "
          "k < 0 or k > n).");
}
