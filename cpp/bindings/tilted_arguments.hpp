// The arguments the tilted reads' bindings share (register_pld_block_reads.cpp, register_pld_tilted_factors.cpp,
// register_pld_aligned_lower.cpp), each refused as a ValueError naming it and its rule: a run's kinds of round, a
// positive or probability argument, a side that must not be NaN, a cap on points; and the binomial split's
// composition options.
#pragma once

#include <hockeystick/pld/compose/options.hpp>
#include <hockeystick/pld/refine/tilted_factors.hpp>  // TiltedSegment

#include <pybind11/pybind11.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "loops.hpp"  // listed

namespace hockeystick_bindings {

namespace py = pybind11;

// One kind of round as the package passes it: (sigma, sampling rate, rounds, sensitivity).
using Segment = std::tuple<double, double, std::int64_t, double>;

inline void require_positive(const char* name, double v, const char* what) {
    if (!(v > 0.0 && std::isfinite(v)))
        throw py::value_error(std::string(name) + " must be finite and > 0 (" + what + "), got " + listed(v));
}

inline void require_probability(const char* name, double v) {
    if (!(v > 0.0 && v < 1.0))
        throw py::value_error(std::string(name) + " must lie strictly between 0 and 1, got " + listed(v));
}

inline void require_not_nan(const char* name, double v) {
    if (std::isnan(v)) throw py::value_error(std::string(name) + " must not be NaN");
}

// `n` where it is at least 1 (a cap on a window's points), else a ValueError naming `name`.
inline std::int64_t checked_points(const char* name, std::int64_t n) {
    if (n < 1) throw py::value_error(std::string(name) + " must be at least 1, got " + std::to_string(n));
    return n;
}

// The run's kinds of round (sigma and sensitivity > 0 with a finite ratio, 0 < q < 1, rounds >= 1), else a ValueError
// naming the element and the rule.
inline std::vector<hockeystick::pld::TiltedSegment> checked_segments(const std::vector<Segment>& segments) {
    if (segments.empty()) throw py::value_error("segments must hold at least one (sigma, sampling_rate, rounds)");
    std::vector<hockeystick::pld::TiltedSegment> out;
    for (const Segment& s : segments) {
        require_positive("sigma", std::get<0>(s), "the noise");
        require_positive("sensitivity", std::get<3>(s), "the rounds' sensitivity");
        require_positive("sigma / sensitivity", std::get<0>(s) / std::get<3>(s), "the noise per unit sensitivity");
        require_probability("sampling_rate", std::get<1>(s));
        if (std::get<2>(s) < 1)
            throw py::value_error("rounds must be at least 1, got " + std::to_string(std::get<2>(s)));
        out.push_back({std::get<0>(s), std::get<1>(s), std::get<2>(s), std::get<3>(s)});
    }
    return out;
}

// The binomial split's composition options: direct bins asked (the backend then offers the long-double transform they
// use), in every row.
inline hockeystick::pld::ComposeOptions split_options() {
    hockeystick::pld::ComposeOptions options;
    options.direct_bins = true;
    options.direct_min_charge = 0.0;
    return options;
}

}  // namespace hockeystick_bindings
