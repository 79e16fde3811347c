// The direct-bins rule of an epsilon question's refinement: whether its first grid composes with the low-frequency
// DFT bins recomputed directly, and from what estimated charge per row (compose/options.hpp's direct_bins and
// direct_min_charge).  Every grid after the first takes them; the first too where the least delta asked is below
// first_delta: the plain transform's round-off charge (T x ~5e-16) is then a part of that delta that a finer grid only
// raises.  Its rows take them from charge_share of that delta, at most min_charge (the core's kDirectMinCharge),
// rounded down to a power of ten so that the points of one decade share batches.  The constants' meaning and values:
// python/hockeystick/pld/refine/tuning.py (DIRECT_FIRST_DELTA, DIRECT_CHARGE_SHARE).
//
// The package's refinement (python/hockeystick/pld/refine/points.py, round_off_charge) and the C library's
// (cpp/capi/refine.cpp) both read it here.  Python's min and 10.0 ** floor(log10(c)) operation for operation, so the
// values are equal bit for bit.
#pragma once

#include <cmath>

#include "hockeystick/pld/compose/options.hpp"

namespace hockeystick {
namespace pld {

// The rule's constants (python/hockeystick/pld/refine/tuning.py), and the charge from which a step back to the grid a
// point was on takes the direct bins (SAME_GRID_DIRECT_CHARGE: the point is there because its charges left it wide).
struct DirectBinsRule {
    double first_delta = 1e-8;
    double charge_share = 1e-2;
    double min_charge = kDirectMinCharge;
    double same_grid_charge = 1e-13;
};

// Whether an epsilon question whose least delta is `least` composes its first grid with the direct bins.
inline bool direct_first(double least, const DirectBinsRule& r = {}) { return least < r.first_delta; }

// The estimated charge from which its rows take the direct bins: min(min_charge, charge_share least) rounded down to a
// power of ten (0 where that is not positive).
inline double direct_charge(double least, const DirectBinsRule& r = {}) {
    const double share = r.charge_share * least;
    const double charge = share < r.min_charge ? share : r.min_charge;  // Python's min(min_charge, share)
    return charge > 0.0 ? std::pow(10.0, std::floor(std::log10(charge))) : 0.0;
}

}  // namespace pld
}  // namespace hockeystick
