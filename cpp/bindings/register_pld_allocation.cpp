// Random allocation's sums of two independent laws on a grid (pld/sampling/allocation_sums.hpp): the upper side's
// spread and the lower side's merge (python/hockeystick/pld/sampling/random_allocation.py).
#include <hockeystick/pld/sampling/allocation_sums.hpp>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>

namespace py = pybind11;
namespace pld = hockeystick::pld;
using input_array = py::array_t<double, py::array::c_style | py::array::forcecast>;

void register_pld_allocation(py::module_ m) {
    m.def(
        "spread_sum",
        [](input_array grid, input_array a, input_array b, bool square, double exact_ratio, double negligible) {
            const std::int64_t n = static_cast<std::int64_t>(grid.size());
            if (grid.ndim() != 1 || a.size() != grid.size() || b.size() != grid.size())
                throw py::value_error("internal: the grid and both laws must be one-dimensional of one size");
            py::array_t<double> out(n);
            double* values = out.mutable_data();
            std::fill(values, values + n, 0.0);
            pld::AllocationSum sum;
            {
                py::gil_scoped_release release;
                sum = pld::spread_sum(grid.data(), n, a.data(), b.data(), square, exact_ratio, negligible, values);
            }
            return py::make_tuple(out, sum.infinite, sum.most_terms);
        },
        py::arg("grid"), py::arg("a"), py::arg("b"), py::kw_only(), py::arg("square"), py::arg("exact_ratio"),
        py::arg("negligible"));
    m.def(
        "merged_sum",
        [](input_array grid, input_array qa, input_array wa, input_array qb, input_array wb, bool square,
           double negligible) {
            const std::int64_t n = static_cast<std::int64_t>(grid.size());
            for (const auto* x : {&qa, &wa, &qb, &wb})
                if (x->size() != grid.size() || grid.ndim() != 1)
                    throw py::value_error("internal: the grid and the laws must be one-dimensional of one size");
            py::array_t<double> q(n), w(n);
            double *pq = q.mutable_data(), *pw = w.mutable_data();
            std::fill(pq, pq + n, 0.0);
            std::fill(pw, pw + n, 0.0);
            pld::AllocationSum sum;
            {
                py::gil_scoped_release release;
                sum = pld::merged_sum(grid.data(), n, qa.data(), wa.data(), qb.data(), wb.data(), square, negligible,
                                      pq, pw);
            }
            return py::make_tuple(q, w, sum.most_terms);
        },
        py::arg("grid"), py::arg("qa"), py::arg("wa"), py::arg("qb"), py::arg("wb"), py::kw_only(), py::arg("square"),
        py::arg("negligible"));
}
