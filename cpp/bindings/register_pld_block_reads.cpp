// Binding of the block reads of many rounds of one Poisson-subsampled Gaussian of a small sampling rate
// (pld/refine/block_reads.hpp) and of the dilation onto a coarser grid they take (pld/grid/dilation.hpp), in
// _core.pld_refine: the bracket on the package's FFT (pocketfft_composition.hpp) with the GIL released, bad arguments
// a ValueError naming them.  The package's front end is python/hockeystick/pld/question/block_reads.py.
#include <hockeystick/pld/grid/dilation.hpp>
#include <hockeystick/pld/refine/block_reads.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "elementwise.hpp"
#include "loops.hpp"
#include "pocketfft_composition.hpp"
#include "tilted_arguments.hpp"

namespace py = pybind11;
namespace hb = hockeystick_bindings;
namespace pld = hockeystick::pld;

namespace block_reads_binding {

using hb::checked_segments;
using hb::require_not_nan;
using hb::require_positive;
using hb::require_probability;
using hb::Segment;

// pld::block_bracket on the package's FFT (workers: its threads, None all cores), the discretizations on as many:
// the tilted compositions with direct bins, the plain ones as the package's compose_many takes them (no long double).
std::pair<double, double> block_bracket(const std::vector<Segment>& segments, double delta, double lower, double upper,
                                        double tail, double accuracy, double relative_accuracy, std::int64_t max_cells,
                                        const py::object& workers) {
    const std::vector<pld::TiltedSegment> run = checked_segments(segments);
    require_probability("delta", delta);
    require_probability("tail", tail);
    require_not_nan("lower", lower);
    require_not_nan("upper", upper);
    if (!(lower <= upper && upper >= 0.0))
        throw py::value_error(
            "lower and upper must be a certified epsilon bracket (lower <= upper, upper >= 0), got [" +
            hb::listed(lower) + ", " + hb::listed(upper) + "]");
    require_positive("accuracy", accuracy, "an epsilon width");
    if (!(relative_accuracy >= 0.0 && std::isfinite(relative_accuracy)))
        throw py::value_error("relative_accuracy must be finite and >= 0, got " + hb::listed(relative_accuracy));
    if (max_cells < 1) throw py::value_error("max_cells must be at least 1, got " + std::to_string(max_cells));
    const int threads = hb::region_threads(workers);
    const hb::PocketfftComposition compose(workers, hb::tilted_options(), true, pld::kTiltMaxPoints);
    const hb::PocketfftComposition plain(workers, pld::ComposeOptions{}, false, pld::kTiltMaxPoints);
    py::gil_scoped_release release;
    const hb::caller_region_threads region(threads);
    return pld::block_bracket(run, delta, lower, upper, tail, {accuracy, relative_accuracy}, compose.fft(), plain.fft(),
                              max_cells);
}

// pld::dilated of the fine pessimistic PMF (p, k_lo, h, p_inf, loss_shift), its entries within entry_error, onto the
// grid ratio * h: a GridPMF.
pld::GridPMF dilated(const hb::input_array& p, std::int64_t k_lo, double h, double p_inf, double entry_error,
                     double loss_shift, std::int64_t ratio) {
    if (p.ndim() != 1 || p.size() < 1) throw py::value_error("p must be a 1-d array of at least one mass");
    require_positive("h", h, "the fine grid's loss step");
    if (!(p_inf >= 0.0 && p_inf <= 1.0)) throw py::value_error("p_inf must lie in [0, 1], got " + hb::listed(p_inf));
    if (!(entry_error >= 0.0 && std::isfinite(entry_error)))
        throw py::value_error("entry_error must be finite and >= 0, got " + hb::listed(entry_error));
    if (!(loss_shift >= 0.0 && std::isfinite(loss_shift)))
        throw py::value_error("loss_shift must be finite and >= 0, got " + hb::listed(loss_shift));
    if (ratio < 1) throw py::value_error("ratio must be at least 1, got " + std::to_string(ratio));
    for (py::ssize_t i = 0; i < p.size(); ++i)
        if (!std::isfinite(p.data()[i]))
            throw py::value_error("p must hold finite masses, got " + hb::listed(p.data()[i]));
    if (!(static_cast<double>(ratio) * h <= pld::kDilationMaxStep))
        throw py::value_error("ratio * h must be at most 700 (the coarse grid's loss step), got " +
                              hb::listed(static_cast<double>(ratio) * h));
    pld::GridPMF fine;
    fine.k_lo = k_lo;
    fine.h = h;
    fine.p.assign(p.data(), p.data() + p.size());
    fine.p_inf = p_inf;
    fine.loss_shift = loss_shift;
    py::gil_scoped_release release;
    return pld::dilated(fine, entry_error, ratio);
}

// pld::block_grids: the fine and the coarse grid of one kind of round at `tail`; a ValueError where none fits.
std::pair<double, double> block_grids(double sigma, double sampling_rate, double sensitivity, double tail) {
    require_positive("sigma", sigma, "the noise");
    require_positive("sensitivity", sensitivity, "the rounds' sensitivity");
    require_probability("sampling_rate", sampling_rate);
    require_probability("tail", tail);
    try {
        const pld::BlockGrids g = pld::block_grids({sigma, sampling_rate, 1, sensitivity}, tail);
        return {g.fine, g.coarse};
    } catch (const std::length_error& e) { throw py::value_error(e.what()); }
}

}  // namespace block_reads_binding

void register_pld_block_reads(py::module_ m) {
    namespace br = block_reads_binding;
    m.def("block_bracket", &br::block_bracket, py::arg("segments"), py::kw_only(), py::arg("delta"), py::arg("lower"),
          py::arg("upper"), py::arg("tail"), py::arg("accuracy"), py::arg("relative_accuracy"), py::arg("max_cells"),
          py::arg("workers") = py::none(),
          "(lower, upper) at delta intersected with the blocks' bracket of a run of one kind of round "
          "(pld/refine/block_reads.hpp); as given where the blocks do not apply.");
    m.def("dilated", &br::dilated, py::arg("p"), py::kw_only(), py::arg("k_lo"), py::arg("h"), py::arg("p_inf"),
          py::arg("entry_error"), py::arg("loss_shift"), py::arg("ratio"),
          "A pessimistic fine PMF split onto the grid ratio * h, each atom's P-mass and Q-mass kept "
          "(pld/grid/dilation.hpp): a GridPMF whose curve bounds the fine one's true curve from above.");
    m.def("block_grids", &br::block_grids, py::arg("sigma"), py::kw_only(), py::arg("sampling_rate"),
          py::arg("sensitivity"), py::arg("tail"),
          "The block reads' fine and coarse grids of one kind of round at tail (pld/refine/block_reads.hpp).");
    m.attr("block_max_rate") = pld::kBlockMaxRate;
}
