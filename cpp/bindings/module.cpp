// hockeystick._core: one register_<family>() per family of numerics, each in
// its own register_<family>.cpp (the layout of boost-histogram's bindings).
#include <pybind11/pybind11.h>

namespace py = pybind11;

void register_hockey_stick(py::module_& m);
void register_contraction(py::module_& m);
void register_fdp(py::module_& m);
void register_pld(py::module_& m);
void register_pld_compose(py::module_& m);
void register_pld_contraction(py::module_& m);
void register_pld_allocation(py::module_& m);

PYBIND11_MODULE(_core, m) {
    m.doc() = "Compiled numerics of hockeystick (array in, array out). Use the hockeystick package, not this module.";
#ifdef _OPENMP
    m.attr("openmp") = true;
#else
    m.attr("openmp") = false;
#endif
    register_hockey_stick(m);
    register_contraction(m);
    register_fdp(m);
    register_pld(m);
    register_pld_compose(m);
    register_pld_contraction(m);
    register_pld_allocation(m);
}
