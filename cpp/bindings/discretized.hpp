// The discretizers' results as read-only Python classes, each a named, typed field (as the composition's
// ComposedPMF is): a grid PMF (GridPMF), a mechanism's two discretized sides (DiscretizedSides) and a
// mechanism's cells with their masses (CellMasses).  Their arrays view the object's own vectors (no copy).
// register_discretized_types puts the classes in _core.pld_grid, the stage of the types (pld/grid/).
#pragma once

#include <hockeystick/pld/grid/cells.hpp>
#include <hockeystick/pld/grid/grid_pmf.hpp>
#include <hockeystick/pld/grid/pmf_view.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace hockeystick_bindings {

namespace py = pybind11;

// A mechanism's pessimistic (upper) and optimistic (lower) PMFs as the facade's factor takes them.  The
// pessimistic side carries every bit of mass: its upper_inf is factor_view's (a round-off deficit 1 - sum p -
// p_inf goes to +infinity, pld/compose/compose.hpp), so the facade's factors need no fix-up.
struct DiscretizedSides {
    std::int64_t k_lo = 0;  // grid index of upper[0]
    double h = 0.0;
    std::vector<double> upper;
    double upper_inf = 0.0;
    std::int64_t lower_k_lo = 0;  // grid index of lower[0]: the two sides may lie on two grids
    std::vector<double> lower;
    bool has_lower = true;  // false: the optimistic side was not asked for (lower is None)
    double lower_inf = 0.0;
    bool connect_dots = true;
    double loss_shift = 0.0;  // the cells' loss error (snapped atoms, rounded edges), charged by the facade
};

// Both sides from their PMFs; upper_inf from factor_view (the pessimistic deficit carried to +infinity) unless
// the side's own p_inf is asked for (a monotone pair's sides come with their charges applied).
inline DiscretizedSides discretized_sides(hockeystick::pld::GridPMF up, hockeystick::pld::GridPMF low, bool has_lower,
                                          bool carry_deficit, double loss_shift) {
    DiscretizedSides s;
    s.k_lo = up.k_lo;
    s.h = up.h;
    s.upper_inf = carry_deficit ? hockeystick::pld::factor_view(up, true).p_inf : up.p_inf;
    s.upper = std::move(up.p);
    s.lower_k_lo = low.k_lo;
    s.lower_inf = low.p_inf;
    s.connect_dots = low.connect_dots;
    s.lower = std::move(low.p);
    s.has_lower = has_lower;
    s.loss_shift = loss_shift;
    return s;
}

// A mechanism's cells (pld/grid/cells.hpp) with each cell's P-mass and e^{l_j} times its Q-mass
// (pld/grid/cells.hpp's cell_mass).
struct CellMasses {
    std::int64_t k_lo = 0;
    double h = 0.0;
    std::vector<double> c, d, p_mass, q_mass_scaled, c_lo, d_lo, c_hi, d_hi;
    double tail_lo = 0.0, tail_hi = 0.0, edge_error = 0.0;
};

inline CellMasses cell_masses(hockeystick::pld::Cells cells) {
    CellMasses out;
    out.k_lo = cells.k_lo;
    out.h = cells.h;
    out.tail_lo = cells.tail_lo;
    out.tail_hi = cells.tail_hi;
    out.edge_error = cells.edge_error;
    const double expm1_h = std::expm1(cells.h);
    out.p_mass.resize(cells.c.size());
    out.q_mass_scaled.resize(cells.c.size());
    for (std::size_t j = 0; j < cells.c.size(); ++j) {
        const hockeystick::pld::CellMass mass = hockeystick::pld::cell_mass(cells.c[j], cells.d[j], expm1_h);
        out.p_mass[j] = mass.p;
        out.q_mass_scaled[j] = mass.q_scaled;
    }
    out.c = std::move(cells.c);
    out.d = std::move(cells.d);
    out.c_lo = std::move(cells.c_lo);
    out.d_lo = std::move(cells.d_lo);
    out.c_hi = std::move(cells.c_hi);
    out.d_hi = std::move(cells.d_hi);
    return out;
}

// A property returning the array that views the vector `field` of the object (no copy; the array keeps the
// object alive).
template <class T>
auto array_view(std::vector<double> T::* field) {
    return [field](py::object self) {
        std::vector<double>& v = self.cast<T&>().*field;
        return py::array_t<double>(static_cast<py::ssize_t>(v.size()), v.data(), self);
    };
}

inline void register_discretized_types(py::module_& grid) {
    namespace pld = hockeystick::pld;
    py::class_<pld::GridPMF>(grid, "GridPMF",
                             "A PMF on the uniform loss grid (pld/grid/grid_pmf.hpp's GridPMF), read-only; p views "
                             "the object's own masses.")
        .def_readonly("k_lo", &pld::GridPMF::k_lo, "grid index of p[0]: its loss is k_lo * h")
        .def_readonly("h", &pld::GridPMF::h, "the grid interval")
        .def_property_readonly("p", array_view(&pld::GridPMF::p), "the masses at the losses (k_lo + j) h")
        .def_readonly("p_inf", &pld::GridPMF::p_inf, "the mass at +infinity")
        .def_readonly("connect_dots", &pld::GridPMF::connect_dots,
                      "False: losses rounded down or merged (no connect-the-dots side)")
        .def_readonly("loss_shift", &pld::GridPMF::loss_shift,
                      "a bound on how far the true losses lie from the grid's");
    py::class_<DiscretizedSides>(grid, "DiscretizedSides",
                                 "A mechanism's pessimistic (upper) and optimistic (lower) grid PMFs, read-only; the "
                                 "arrays view the object's own masses.")
        .def_readonly("k_lo", &DiscretizedSides::k_lo, "grid index of upper[0]")
        .def_readonly("h", &DiscretizedSides::h, "the grid interval")
        .def_property_readonly("upper", array_view(&DiscretizedSides::upper), "the pessimistic side's masses")
        .def_readonly("upper_inf", &DiscretizedSides::upper_inf,
                      "the pessimistic side's mass at +infinity, its round-off deficit included")
        .def_readonly("lower_k_lo", &DiscretizedSides::lower_k_lo, "grid index of lower[0]")
        .def_property_readonly(
            "lower",
            [](py::object self) -> py::object {
                DiscretizedSides& s = self.cast<DiscretizedSides&>();
                if (!s.has_lower) return py::none();
                return array_view(&DiscretizedSides::lower)(self);
            },
            "the optimistic side's masses (None: not asked for)")
        .def_readonly("lower_inf", &DiscretizedSides::lower_inf, "the optimistic side's mass at +infinity")
        .def_readonly("connect_dots", &DiscretizedSides::connect_dots,
                      "whether the optimistic side is the connect-the-dots side")
        .def_readonly("loss_shift", &DiscretizedSides::loss_shift,
                      "the cells' loss error (snapped atoms, rounded edges), charged as GridPMF.loss_shift");
    py::class_<CellMasses>(grid, "CellMasses",
                           "A mechanism's cells (pld/grid/cells.hpp) and their masses, read-only; the arrays view "
                           "the object's own vectors.")
        .def_readonly("k_lo", &CellMasses::k_lo, "grid index of l_0")
        .def_readonly("h", &CellMasses::h, "the grid interval")
        .def_property_readonly("c", array_view(&CellMasses::c), "each cell's c_j")
        .def_property_readonly("d", array_view(&CellMasses::d), "each cell's d_j")
        .def_property_readonly("p_mass", array_view(&CellMasses::p_mass), "each cell's P-mass")
        .def_property_readonly("q_mass_scaled", array_view(&CellMasses::q_mass_scaled),
                               "each cell's Q-mass times e^{l_j}")
        .def_property_readonly("c_lo", array_view(&CellMasses::c_lo), "c of each cell's lower half (or empty)")
        .def_property_readonly("d_lo", array_view(&CellMasses::d_lo), "d of each cell's lower half (or empty)")
        .def_property_readonly("c_hi", array_view(&CellMasses::c_hi), "c of each cell's upper half (or empty)")
        .def_property_readonly("d_hi", array_view(&CellMasses::d_hi), "d of each cell's upper half (or empty)")
        .def_readonly("tail_lo", &CellMasses::tail_lo, "the P-mass cut below")
        .def_readonly("tail_hi", &CellMasses::tail_hi, "the P-mass cut above, the mass at +infinity included")
        .def_readonly("edge_error", &CellMasses::edge_error, "a bound on the loss error of the cells' lower ends");
}

}  // namespace hockeystick_bindings
