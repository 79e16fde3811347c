// A PMF on the uniform loss grid: the type every stage of the PLD pipeline passes on.  The cells of a
// mechanism become one (pld/grid/connect_dots.hpp: pessimistic_pmf, optimistic_pmf), compositions take
// them as factors (pld/grid/pmf_view.hpp: factor_view), and the reads evaluate them (pld/reads/).
//
// Masses p[j] sit at the losses l_j = (k_lo + j) h, j = 0 .. N; p_inf is the mass at +infinity.
#pragma once

#include <cstdint>
#include <vector>

namespace hockeystick {
namespace pld {

struct GridPMF {
    std::int64_t k_lo = 0;  // loss of p[0] is k_lo * h
    double h = 0.0;
    std::vector<double> p;  // masses at l_0 .. l_N
    double p_inf = 0.0;     // mass at +infinity
    bool connect_dots = true;  // false: losses rounded down or merged (rounded_down_pmf, mean_contraction)
    // A bound on how far the true losses lie from the grid's (the cells' snapped + edge_error, rounded
    // up): the true PLD is dominated by this one moved up by it (the pessimistic side), and dominates
    // it moved down (the optimistic side).  Compositions add it per factor (pld/compose/compose.hpp).
    double loss_shift = 0.0;
};

}  // namespace pld
}  // namespace hockeystick
