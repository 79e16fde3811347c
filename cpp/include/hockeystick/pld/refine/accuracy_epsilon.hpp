// The accuracy= epsilon bracket of T rounds of one Poisson-subsampled Gaussian at one delta, from the certified bracket
// its refinement to that accuracy reached (steps_refinement.hpp's, or the package's many points'), the default's
// bracket of the same question (default_epsilon.hpp's chain, asked only where it is read) and the tilted grids'
// descent (tilted_question.hpp's grid_descent, by a reader of its own at the run's tail; 0 < q < 1: at q = 1, the
// Gaussian mechanism, the front ends answer in closed form).  The package's accuracy= reads
// (python/hockeystick/pld/question/default_reads.py's accuracy_sides, through the binding's accuracy_epsilon) and the
// C library's epsilon call at an accuracy other than its default (cpp/capi/refine.cpp) both read it here.
//
//   finer    (the tolerance asked, max(accuracy, relative_accuracy eps), below the default's at the refined bracket's
//            upper side, or no coarser than it in either term with its accuracy below the default's: accuracy 1e-3 is
//            finer above epsilon 4, where the default's relative term passes its absolute one): the refined bracket
//            intersected with the default's, so that more accuracy is never looser than the default; where still
//            wider than asked (the plain composition's round-off charge holds the refined upper side at a small
//            delta), the descent on the asked tolerance's grids from `start`;
//   coarser  (otherwise), where the refined bracket is wider than asked: the descent on the default tolerance's grids
//            from `default_start` where it is wider than the default's tolerance, its upper side then lowered to cap()
//            where given (a certified upper side known beside: the package's RDP conversion where no tail is given);
//            where still wider than asked, or where the tolerance asked is finer than the default's at the upper side
//            these reads reach (a refined upper side unbounded at a small delta: the README's run at 1e-12, epsilon
//            4.18), intersected with the default's (rare participation at a small delta, whose tight sides come from
//            the default's last reads).
// Every bracket read is certified and intersected with the one in hand (numpy's maximum and minimum, the upper side
// never below the lower), so the result is certified and never wider than the refined bracket.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>

#include "hockeystick/pld/reads/hockey_stick.hpp"  // numpy_maximum, numpy_minimum
#include "hockeystick/pld/refine/epsilon_tolerance.hpp"
#include "hockeystick/pld/refine/tilted_question.hpp"

namespace hockeystick {
namespace pld {

// The run the descent reads: sigma per unit sensitivity, the sampling rate, the rounds, the cap on one round's cells
// and the tail of both directions (0: the tails the delta allows).
struct AccuracyRun {
    double sigma = 1.0, q = 0.5;
    std::int64_t rounds = 1;
    std::int64_t max_cells = 0;
    double tail = 0.0;
};

// What the front end decides: the tolerance asked, the first grids of the descents on it and on the default's, and
// the cap on the coarser branch's upper side (empty: none), asked only where that branch reads the descent's bracket.
struct AccuracyPlan {
    EpsilonTolerance asked{kDefaultEpsilonTolerance};
    double start = 0.0, default_start = 0.0;
    std::function<double()> cap{};
};

// The bracket of `run` at `delta` from the refined [lower, upper] (the header's comment): default_bracket() ->
// std::pair<double, double> the default's certified bracket; `fft` the descent's backend.
template <class DefaultBracket>
std::pair<double, double> accuracy_epsilon(const AccuracyRun& run, double delta, double lower, double upper,
                                           const AccuracyPlan& plan, DefaultBracket&& default_bracket,
                                           RealFftBackend& fft) {
    const EpsilonTolerance& fallback = kDefaultEpsilonTolerance;
    std::pair<double, double> b{lower, upper};
    const auto intersect_default = [&] {
        const std::pair<double, double> d = default_bracket();
        b.first = detail::numpy_maximum(b.first, d.first);
        b.second = detail::numpy_maximum(b.first, detail::numpy_minimum(b.second, d.second));
    };
    const auto descend = [&](double start, const EpsilonTolerance& tol) {
        TiltedReader reader(run.sigma, run.q, run.rounds, fft, run.max_cells);
        if (run.tail > 0.0) reader.give_tail(run.tail);
        const TiltedReader::Descent d =
            reader.grid_descent(delta, b.first, b.second, start, tol.accuracy, tol.relative_accuracy);
        b = {d.lower, d.upper};
    };
    const auto finer_at = [&](double eps) {  // the tolerance asked finer than the default's at eps
        return (plan.asked.accuracy < fallback.accuracy &&
                plan.asked.relative_accuracy <= fallback.relative_accuracy) ||
               plan.asked.at(eps) < fallback.at(eps);
    };
    if (finer_at(upper)) {
        intersect_default();
        if (!plan.asked.within(b.first, b.second)) descend(plan.start, plan.asked);
        return b;
    }
    if (plan.asked.within(b.first, b.second)) return b;
    if (!fallback.within(b.first, b.second)) descend(plan.default_start, fallback);
    if (plan.cap) b.second = detail::numpy_maximum(b.first, detail::numpy_minimum(b.second, plan.cap()));
    if (!plan.asked.within(b.first, b.second) || finer_at(b.second)) intersect_default();
    return b;
}

}  // namespace pld
}  // namespace hockeystick
