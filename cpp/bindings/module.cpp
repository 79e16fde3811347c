// hockeystick._core: one submodule per family of numerics (_core.hockey_stick, _core.contraction, _core.fdp),
// each filled by the register_<family>() of its own register_<family>.cpp (the layout of boost-histogram's
// bindings), and one per stage of the PLD pipeline, named as the stage's folder of cpp/include/hockeystick/pld/
// and python/hockeystick/pld/ (_core.pld_grid, _core.pld_mechanisms, _core.pld_sampling, _core.pld_compose,
// _core.pld_reads, _core.pld_refine), filled by the register_pld*.cpp that bind that stage's headers.  Every
// function takes its arguments by name, most of them keyword-only, and the wide PLD entry points take their tuning
// and their charges as bound structs (pld_compose.ComposeOptions, pld_reads.Charges), so that a caller names what
// it passes; the discretizers return read-only structs (pld_grid.DiscretizedSides, pld_grid.GridPMF).
#include <pybind11/pybind11.h>

namespace py = pybind11;

void register_hockey_stick(py::module_ m);
void register_contraction(py::module_ m);
void register_fdp(py::module_ m);
void register_pld(py::module_ grid, py::module_ mechanisms, py::module_ sampling, py::module_ reads);
void register_pld_compose(py::module_ m);
void register_pld_aligned_lower(py::module_ m);
void register_pld_contraction(py::module_ m);
void register_pld_allocation(py::module_ m);
void register_pld_refine(py::module_ m);
void register_pld_tilted_factors(py::module_ m);
void register_pld_own_grid(py::module_ m);
void register_pld_rare_finer_grids(py::module_ m);
void register_pld_max_of_outputs(py::module_ m);
void register_pld_tilted_charge(py::module_ m);
void register_pld_tilted_read(py::module_ m);
void register_pld_screened_step(py::module_ m);
void register_pld_block_reads(py::module_ m);
void register_pld_lower_envelope(py::module_ m);
void register_pld_binomial_split(py::module_ m);
void register_pld_complement(py::module_ m);
void register_pld_points_delta(py::module_ m);

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
    // the PLD stages bottom up (tests/test_layers.py's PLD_STAGES)
    py::module_ grid = m.def_submodule("pld_grid", "The types every stage passes on, the cells, the grid moments.");
    py::module_ mechanisms = m.def_submodule("pld_mechanisms", "One round's pair discretized on both sides.");
    py::module_ sampling = m.def_submodule("pld_sampling", "The sampled rounds' pairs and sums.");
    py::module_ reads = m.def_submodule("pld_reads", "The curves, charges and scans of a grid PMF.");
    register_pld(grid, mechanisms, sampling, reads);
    register_pld_max_of_outputs(reads);
    register_pld_tilted_charge(reads);
    register_pld_tilted_read(reads);
    register_pld_lower_envelope(reads);
    register_pld_binomial_split(reads);
    register_pld_complement(reads);
    register_pld_contraction(sampling);
    register_pld_allocation(sampling);
    register_pld_compose(m.def_submodule("pld_compose"));
    register_pld_refine(m.def_submodule("pld_refine"));
    register_pld_aligned_lower(m.attr("pld_refine").cast<py::module_>());
    register_pld_screened_step(m.attr("pld_refine").cast<py::module_>());
    register_pld_block_reads(m.attr("pld_refine").cast<py::module_>());
    register_pld_points_delta(m.attr("pld_refine").cast<py::module_>());
    register_pld_tilted_factors(m.attr("pld_refine").cast<py::module_>());
    register_pld_own_grid(m.attr("pld_refine").cast<py::module_>());
    register_pld_rare_finer_grids(m.attr("pld_refine").cast<py::module_>());
}
