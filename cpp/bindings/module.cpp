// hockeystick._core: one submodule per family of numerics (_core.hockey_stick, _core.pld_compose, ...), each
// filled by the register_<family>() of its own register_<family>.cpp (the layout of boost-histogram's
// bindings).  Every function takes its arguments by name, most of them keyword-only, and the wide PLD entry
// points take their tuning and their charges as bound structs (pld_compose.ComposeOptions, pld.Charges), so
// that a caller names what it passes.
#include <pybind11/pybind11.h>

namespace py = pybind11;

void register_hockey_stick(py::module_ m);
void register_contraction(py::module_ m);
void register_fdp(py::module_ m);
void register_pld(py::module_ m);
void register_pld_compose(py::module_ m);
void register_pld_contraction(py::module_ m);
void register_pld_allocation(py::module_ m);
void register_pld_refine(py::module_ m);

PYBIND11_MODULE(_core, m) {
    m.doc() = "Compiled numerics of hockeystick (array in, array out). Use the hockeystick package, not this module.";
#ifdef _OPENMP
    m.attr("openmp") = true;
#else
    m.attr("openmp") = false;
#endif
    register_hockey_stick(m.def_submodule("hockey_stick"));
    register_contraction(m.def_submodule("contraction"));
    register_fdp(m.def_submodule("fdp"));
    register_pld(m.def_submodule("pld"));
    register_pld_compose(m.def_submodule("pld_compose"));
    register_pld_contraction(m.def_submodule("pld_contraction"));
    register_pld_allocation(m.def_submodule("pld_allocation"));
    register_pld_refine(m.def_submodule("pld_refine"));
}
