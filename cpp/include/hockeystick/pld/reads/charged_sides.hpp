// The charged sides of many grid PMFs, each at its own arguments, in one pass with no interpreter
// between them: python pmf.GridPMF.delta of each PMF (its envelope off on an optimistic one), the
// same doubles.
//
// A PMF's side at eps is read at the curve's argument, eps moved by its loss shift s outward
// (loss_shifted: eps - s rounded down on the pessimistic side, eps + s rounded up on the optimistic
// one, hockey_stick.hpp), from its suffix sums (GridProfile) with the round-off charge of the grid
// points above (charged_side, charged_curve.hpp).  The suffix sums run from the top of the grid
// down, so those of the grid points from index `start` up are the same doubles as the whole
// profile's there, and every argument whose first grid point at or above it has index >= start
// reads the same value from them: each PMF's profile is built from two grid points below its least
// argument's (or from the bottom where an argument is not finite), as the facade's
// ChargedGrid._upper_profile does, so the grid points below the arguments are never summed.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "hockeystick/pld/grid/pmf_view.hpp"
#include "hockeystick/pld/reads/charged_curve.hpp"
#include "hockeystick/pld/reads/hockey_stick.hpp"

namespace hockeystick {
namespace pld {

// One PMF's read: its masses as a factor's view (pmf: p[0..n) at losses (k_lo + i) h, p_inf at +infinity, and
// its loss shift, by which the arguments move), its grid step h, its charges (slack included) and side; m
// arguments eps (the true curve's, not yet moved), m results out.  side_read keeps the charges' loss_shift the
// view's, the one value the reads take.
struct SideRead {
    PmfView pmf{};
    double h = 1.0;
    GridCharges charges{};
    bool pessimistic = true;
    const double* eps = nullptr;
    std::int64_t m = 0;
    double* out = nullptr;
};

// The read of `pmf` on the grid step h with `charges` (their loss_shift set to the view's) on the given side; its
// arguments and results left to the caller.
inline SideRead side_read(const PmfView& pmf, double h, GridCharges charges, bool pessimistic) {
    charges.loss_shift = pmf.loss_shift;
    SideRead r;
    r.pmf = pmf;
    r.h = h;
    r.charges = charges;
    r.pessimistic = pessimistic;
    return r;
}

// The first index of a profile that answers every moved argument of `moved` (m of them): two grid
// points below the least argument's first grid point at or above it, ceil(e / h) - k_lo, clipped
// to [0, n - 1]; 0 where an argument is not finite (-inf reads the whole profile's total).
inline std::int64_t answering_start(const double* moved, std::int64_t m, std::int64_t n, std::int64_t k_lo, double h) {
    if (n <= 1 || m == 0) return 0;
    double least = moved[0];
    for (std::int64_t i = 0; i < m; ++i) {
        if (!std::isfinite(moved[i])) return 0;
        least = std::min(least, moved[i]);
    }
    const double first = std::ceil(least / h) - static_cast<double>(k_lo) - 2.0;
    if (!(first > 0.0)) return 0;  // also a quotient past int64's range below
    if (first >= static_cast<double>(n - 1)) return n - 1;
    return static_cast<std::int64_t>(first);
}

// out[i] = the charged side of r's PMF at r.eps[i] (python GridPMF.delta; optimistic: the charged
// value at eps alone).  Throws std::invalid_argument on a NaN argument (named by the caller).
inline void read_charged_side(const SideRead& r, std::vector<double>& moved) {
    const PmfView& pmf = r.pmf;
    moved.resize(static_cast<std::size_t>(r.m));
    for (std::int64_t i = 0; i < r.m; ++i) {
        if (std::isnan(r.eps[i])) throw std::invalid_argument("epsilon must not be NaN");
        moved[static_cast<std::size_t>(i)] = loss_shifted(r.eps[i], pmf.loss_shift, !r.pessimistic);
    }
    const std::int64_t start = answering_start(moved.data(), r.m, pmf.n, pmf.k_lo, r.h);
    const GridProfile profile(pmf.p + start, pmf.n - start, pmf.k_lo + start, r.h, pmf.p_inf);
    const double k_lo = static_cast<double>(pmf.k_lo), size = static_cast<double>(pmf.n);
    for (std::int64_t i = 0; i < r.m; ++i)
        r.out[i] = charged_side(profile, k_lo, size, r.h, r.charges, r.pessimistic, moved[static_cast<std::size_t>(i)]);
}

}  // namespace pld
}  // namespace hockeystick
