// A certified lower bound on epsilon (and on delta) from one test: the largest released value of a run of
// Poisson-subsampled Gaussian rounds against a threshold, computed in log space (the package's
// python/hockeystick/pld/reads/max_of_outputs.py is its front end).
//
// For any event S of the outputs, the hockey-stick divergence is at least P(S) - e^eps Q(S), so a pair that is
// (eps, delta)-DP has
//
//     eps >= log((P(S) - delta) / Q(S))        wherever P(S) > delta                                          (1)
//
// (Balle, Barthe, Gaboardi, Hsu, Sato, AISTATS 2020, Sec. 3: delta(eps) = sup_S P(S) - e^eps Q(S)).
//
// Remove direction: a round of segment s (noise sigma_s, sampling rate q_s, sensitivity c_s) releases
// X ~ (1 - q_s) N(0, sigma_s^2) + q_s N(c_s, sigma_s^2) under P and N(0, sigma_s^2) under Q.  With the event
// S = {some round has X / sigma_s > z} (the largest standardized release above z),
//
//     Q(S) = 1 - prod_s (1 - a)^{T_s},       a = Qbar(z),
//     P(S) = 1 - prod_s (1 - b_s)^{T_s},     b_s = (1 - q_s) Qbar(z) + q_s Qbar(z - c_s / sigma_s),
//
// Qbar the standard normal tail.  Every z gives a valid bound (1); the largest over the ladder of
// kMaxOutputsCoarseSteps thresholds on [kMaxOutputsZLeast, kMaxOutputsZMost], then over kMaxOutputsFineSteps
// thresholds one coarse step either side of the best, is returned.  At small delta the best z is far out (z ~ 37 at
// delta 1e-289), where Qbar underflows, so every quantity is carried as its logarithm (log_gaussian_tail of
// numerics/gaussian_tail.hpp, relative error at most 1e-12 on Qbar against 50-digit mpmath).
//
// Rounding inward (u = 2^-53).  log Qbar is taken kMaxOutputsLogTailMargin (1 + |log Qbar| 1e-3) (absolute, far
// above its 1e-12 relative error on Qbar) low for P and high for Q, at the argument z - c / sigma moved up by
// 4 u (|z| + |c / sigma|) (Qbar falls in its argument) with c / sigma rounded down by 2 u.  The hazards
// y = -sum_s T_s log(1 - b_s) are bounded with their logarithms, log T_s + log x + log(-log(1 - x) / x) (the ratio
// at least 1 and increasing in x: b taken low, a high, the ratio moved 8 u inward or outward; 1 below x = 1e-200),
// summed by a log-sum-exp moved kMaxOutputsSumMargin (relative); then log(1 - e^{-y}) is bounded by
// log y + log(1 - y / 2) below and log y + log(1 - y / 2 + y^2 / 6) above (y < 1e-5), else taken as computed and
// moved kMaxOutputsSumMargin (relative) and 4 u.  In (1), log(1 - delta / P(S)) = log(1 - e^r) cancels where P(S)
// is near delta, so r = log delta - log P(S) is rounded up by 4 u (|log delta| + |log P(S)|) (the log's and the
// difference's rounding) before it, and log(1 - e^r) taken from expm1 or log1p as r is above or below -log 2 and
// lowered 4 u (1 + |itself|).  The bound (1) is then lowered by kMaxOutputsSumMargin (relative to the magnitudes of
// its terms) and 8 u of itself once more.  Delta at eps: the largest over the same ladders of log P(S) + log(1 - e^r),
// r = eps + log Q(S) - log P(S) rounded up the same, lowered the same, its exponential by 4 u; at one round of one
// segment also at the threshold where the remove direction's likelihood ratio is e^eps, whose event is the
// Neyman-Pearson test's, so that the read is the remove direction's delta(eps) up to the margins.
//
// The margins are far above the few ulps by which two libms' exp, log, log1p and expm1 differ, so the bound is
// certified with any conforming libm; the bound (1) and the log of the delta read are each lowered besides by
// kMaxOutputsLibmSlack (1 + |itself|), a slack for those last bits.
//
// Domain: segments with sigma > 0, sensitivity > 0, 0 < q <= 1, rounds >= 1 (the caller checks); every output is
// finite or -inf (log reads) and >= 0 (epsilon, delta), never NaN for finite thresholds and a delta in (0, 1).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "hockeystick/numerics/gaussian_tail.hpp"

namespace hockeystick {
namespace pld {

// One factor of the run: `rounds` Poisson-subsampled Gaussian rounds of noise sigma, sampling rate q and
// sensitivity c.
struct OutputSegment {
    double sigma = 1.0;
    double q = 1.0;
    double sensitivity = 1.0;
    std::int64_t rounds = 1;
};

// Absolute margin on each log Qbar (its relative error on Qbar is at most 1e-12, so its log's at most ~1e-12).
constexpr double kMaxOutputsLogTailMargin = 1e-10;
// Relative margin for the few float operations of a log-sum-exp, a log1p or an expm1 (far above their few ulps).
constexpr double kMaxOutputsSumMargin = 1e-12;
// Relative slack for the last bits in which two libms' elementary functions differ (the header's comment).
constexpr double kMaxOutputsLibmSlack = 32.0 * (0.5 * std::numeric_limits<double>::epsilon());
// The thresholds tried (standardized): a coarse ladder, then a finer one around its best.
constexpr double kMaxOutputsZLeast = -4.0;
constexpr double kMaxOutputsZMost = 45.0;
constexpr int kMaxOutputsCoarseSteps = 981;
constexpr int kMaxOutputsFineSteps = 201;

namespace max_of_outputs_detail {

constexpr double kU = 0.5 * std::numeric_limits<double>::epsilon();  // u = 2^-53
constexpr double kInf = std::numeric_limits<double>::infinity();

// The i-th of n points evenly spaced on [start, stop], stop exact (numpy.linspace's i step + start).
inline double ladder_point(double start, double stop, int n, int i) {
    if (i == n - 1) return stop;
    const double step = (stop - start) / static_cast<double>(n - 1);
    return static_cast<double>(i) * step + start;
}

// log Qbar(x) moved kMaxOutputsLogTailMargin (plus its relative share) down (`low`) or up, from log Qbar(x).
inline double moved_log_tail(double value, bool low) {
    const double margin = kMaxOutputsLogTailMargin * (1.0 + std::fabs(value) * 1e-3);
    return low ? value - margin : value + margin;
}

// A bound on log(1 - e^{-y}) from log y, below it (`up` false) or above it.  Below: log y + log(1 - y / 2) for
// y < 1e-5 (1 - e^{-y} >= y - y^2 / 2), else log(-expm1(-y)) lowered by kMaxOutputsSumMargin relative and 4 u.
// Above: log y + log(1 - y / 2 + y^2 / 6) for y < 1e-5, else log(-expm1(-y)) raised the same, at most 0.
inline double log_one_minus_exp(double y_log, bool up) {
    if (y_log == -kInf) return -kInf;  // y = 0: 1 - e^0 = 0
    const double y = std::exp(std::min(y_log, 700.0));
    const bool small = y_log < std::log(1e-5);
    if (small) {
        const double tiny = y_log + (up ? std::log1p(-y / 2.0 + y * y / 6.0) : std::log1p(-y / 2.0));
        const double margin = kMaxOutputsSumMargin * (1.0 + std::fabs(tiny));
        return up ? std::min(tiny + margin, 0.0) : tiny - margin;
    }
    const double big = std::log(-std::expm1(-y));
    const double margin = kMaxOutputsSumMargin * (1.0 + std::fabs(std::isfinite(big) ? big : 0.0)) + 4.0 * kU;
    return up ? std::min(big + margin, 0.0) : big - margin;
}

// log(-log(1 - x) / x) (at least 0: -log(1 - x) >= x), moved 8 u outward (`up`) or in, from log x; 0 where x is
// below 1e-200 (the ratio is 1 + x / 2 + ..., within u of 1), inf where x is 1.
inline double log_hazard_ratio(double log_x, bool up) {
    const double x = std::exp(std::min(log_x, 0.0));
    const double ratio = log_x > std::log(1e-200) ? -std::log1p(-x) / x : 1.0;
    const double value = std::log(ratio);
    return std::max(up ? value + 8.0 * kU : value - 8.0 * kU, 0.0);
}

// log sum_i e^{terms_i} over n terms, moved kMaxOutputsSumMargin relative outward (`up`) or in.
inline double log_sum(const double* terms, std::size_t n, bool up) {
    double top = terms[0];
    for (std::size_t i = 1; i < n; ++i) top = std::max(top, terms[i]);
    if (top == -kInf) return -kInf;
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) sum += std::exp(terms[i] - top);
    const double value = top + std::log(sum);
    const double margin = kMaxOutputsSumMargin * (1.0 + std::fabs(value));
    return up ? value + margin : value - margin;
}

// A lower bound on log(1 - e^r) for r < 0 (any exact r' <= r): log(-expm1(r)) above r = -log 2, log1p(-e^r) below
// (accurate in both regimes: Maechler, "Accurately computing log(1 - exp(-|a|))", CRAN Rmpfr vignette, 2012), each
// within a few u (1 + |itself|) of the exact value, lowered by 4 u (1 + |itself|).
inline double log_one_minus_exp_below(double r) {
    const double value = r > -0.6931471805599453 ? std::log(-std::expm1(r)) : std::log1p(-std::exp(r));
    return value - 4.0 * kU * (1.0 + std::fabs(value));
}

}  // namespace max_of_outputs_detail

// A lower bound on log P(S) and an upper bound on log Q(S) at threshold z (the header's comment), the segments'
// terms computed into `p_terms` and `q_terms` (scratch of the segments' size, reused across thresholds).
inline std::pair<double, double> max_output_log_sides(const std::vector<OutputSegment>& segments, double z,
                                                      std::vector<double>& p_terms, std::vector<double>& q_terms) {
    namespace d = max_of_outputs_detail;
    const double u = d::kU;
    p_terms.resize(segments.size());
    q_terms.resize(segments.size());
    const double log_tail_z = log_gaussian_tail(z);
    const double log_a_high = std::min(d::moved_log_tail(log_tail_z, false), 0.0);
    const double q_hazard = d::log_hazard_ratio(log_a_high, true);
    for (std::size_t s = 0; s < segments.size(); ++s) {
        const OutputSegment& g = segments[s];
        const double r_low = (g.sensitivity / g.sigma) * (1.0 - 2.0 * u);
        // at least z - c / sigma (-inf where c / sigma overflows: Qbar(-inf) = 1, the sampled round's release always
        // above z)
        const double shifted = std::isinf(r_low) ? -d::kInf : (z - r_low) + 4.0 * u * (std::fabs(z) + r_low);
        const double log_rounds = std::log(static_cast<double>(g.rounds));
        double sampled =
            d::moved_log_tail(log_gaussian_tail(shifted), true) + std::log(g.q) * (1.0 + 4.0 * u) - 4.0 * u;
        if (g.q < 1.0) {  // (q = 1: every round samples the record)
            const double both[2] = {d::moved_log_tail(log_tail_z, true) + std::log1p(-g.q) * (1.0 + 4.0 * u), sampled};
            sampled = d::log_sum(both, 2, false);
        }
        p_terms[s] = log_rounds + sampled + d::log_hazard_ratio(sampled, false);
        q_terms[s] = log_rounds + log_a_high + q_hazard;
    }
    const double log_p = d::log_one_minus_exp(d::log_sum(p_terms.data(), p_terms.size(), false) - 4.0 * u, false);
    const double log_q = d::log_one_minus_exp(d::log_sum(q_terms.data(), q_terms.size(), true) + 4.0 * u, true);
    return {log_p, log_q};
}

// The certified lower bound (1) from the sides (log P(S) low, log Q(S) high) at log delta: -inf where P(S) is not
// certified above delta.
inline double max_output_log_bound(double log_p, double log_q, double log_delta) {
    namespace d = max_of_outputs_detail;
    if (!(log_p > log_delta + 1e-9)) return -d::kInf;
    // log(1 - delta / P(S)) at an exponent rounded up (log delta's and the difference's rounding): 1 - e^r cancels
    // where P(S) is near delta, so r's rounding is carried into it, not only its relative margin
    const double r_up = (log_delta - log_p) + 4.0 * d::kU * (std::fabs(log_delta) + std::fabs(log_p));
    const double gap = d::log_one_minus_exp_below(r_up);
    const double bound = log_p + gap - log_q;
    if (!std::isfinite(bound)) return -d::kInf;
    const double margin =
        kMaxOutputsSumMargin * (2.0 + std::fabs(log_p) + std::fabs(log_q)) + 8.0 * d::kU * (1.0 + std::fabs(bound));
    return bound - margin - kMaxOutputsLibmSlack * (1.0 + std::fabs(bound));
}

// The certified lower bound on log delta at eps from the sides: log P(S) + log(1 - e^r), r = eps + log Q(S) - log P(S)
// rounded up (r's rounding carried into the cancelling 1 - e^r), lowered by kMaxOutputsSumMargin relative to its
// terms, 8 u of itself and kMaxOutputsLibmSlack (1 + |itself|); -inf where no positive gap is certified.
inline double max_output_log_delta(double log_p, double log_q, double eps) {
    namespace d = max_of_outputs_detail;
    const double r_up = (eps + log_q - log_p) + 4.0 * d::kU * (std::fabs(eps) + std::fabs(log_q) + std::fabs(log_p));
    if (!(r_up < 0.0)) return -d::kInf;
    const double value = log_p + d::log_one_minus_exp_below(r_up);
    if (!std::isfinite(value)) return -d::kInf;
    const double margin = kMaxOutputsSumMargin * (2.0 + std::fabs(log_p) + std::fabs(log_q) + std::fabs(eps));
    return value - margin - 8.0 * d::kU * std::fabs(value) - kMaxOutputsLibmSlack * (1.0 + std::fabs(value));
}

// The sides (log P(S) low, log Q(S) high) of a run on the coarse ladder of thresholds, computed once and read at many
// deltas or epsilons: each read adds the finer ladder around its best coarse threshold, computed once per coarse
// threshold (fine_ladder).
class MaxOutputsLadder {
  public:
    explicit MaxOutputsLadder(std::vector<OutputSegment> segments)
        : segments_(std::move(segments)),
          fine_once_(new std::once_flag[static_cast<std::size_t>(kMaxOutputsCoarseSteps)]),
          fine_(static_cast<std::size_t>(kMaxOutputsCoarseSteps)) {
        const std::size_t n = static_cast<std::size_t>(kMaxOutputsCoarseSteps);
        z_.resize(n);
        log_p_.resize(n);
        log_q_.resize(n);
        std::vector<double> p_terms, q_terms;
        for (std::size_t i = 0; i < n; ++i) {
            z_[i] = max_of_outputs_detail::ladder_point(kMaxOutputsZLeast, kMaxOutputsZMost, kMaxOutputsCoarseSteps,
                                                        static_cast<int>(i));
            if (segments_.empty()) continue;
            const std::pair<double, double> sides = max_output_log_sides(segments_, z_[i], p_terms, q_terms);
            log_p_[i] = sides.first;
            log_q_[i] = sides.second;
        }
    }

    const std::vector<OutputSegment>& segments() const { return segments_; }

    // The threshold of the coarse ladder, then of kMaxOutputsFineSteps thresholds one coarse step either side of the
    // best of them, whose bound (1) at delta is the largest, and that bound (-inf where none is certified).
    std::pair<double, double> best_threshold(double delta) const {
        const double log_delta = std::log(delta);
        // the bound (log P + log(1 - delta / P)) - log Q - margins, log(1 - delta / P) <= 0: at most log P - log Q
        return best([&](double log_p, double log_q) { return max_output_log_bound(log_p, log_q, log_delta); },
                    [](double log_p, double log_q) { return log_p - log_q; });
    }

    // A certified lower bound on epsilon(delta) >= 0: best_threshold's bound, 0 where none is certified (or there
    // are no segments).
    double epsilon(double delta) const {
        if (segments_.empty()) return 0.0;
        const double value = best_threshold(delta).second;
        return std::isfinite(value) ? std::max(0.0, value) : 0.0;
    }

    // A certified lower bound on delta(eps) >= 0: the largest certified P(S) - e^eps Q(S) over the coarse ladder and,
    // with `fine`, the finer ladder around its best (the header's comment); 0 where none is certified.
    double delta(double eps, bool fine) const {
        if (segments_.empty()) return 0.0;
        const auto read = [&](double log_p, double log_q) { return max_output_log_delta(log_p, log_q, eps); };
        // the read log P + log(1 - e^r) - margins, log(1 - e^r) <= 0: at most log P
        const auto ceiling = [](double log_p, double) { return log_p; };
        double value = fine ? best(read, ceiling).second : coarse(read, ceiling).second;  // best: at least the coarse
        const double z = likelihood_ratio_threshold(eps);
        if (std::isfinite(z)) {
            std::vector<double> p_terms, q_terms;
            const std::pair<double, double> sides = max_output_log_sides(segments_, z, p_terms, q_terms);
            value = std::max(value, read(sides.first, sides.second));
        }
        return std::isfinite(value) ? std::exp(value) * (1.0 - 4.0 * max_of_outputs_detail::kU) : 0.0;
    }

  private:
    // One round of one segment: the standardized threshold at which the remove direction's likelihood ratio
    // 1 - q + q e^{(2 x c - c^2) / (2 sigma^2)} is e^eps, z = c / (2 sigma) + (sigma / c) log(1 + (e^eps - 1) / q).
    // By the Neyman-Pearson lemma {X / sigma > z} is the event S maximizing P(S) - e^eps Q(S) (the likelihood
    // ratio increases in x), so its read is the remove direction's delta(eps) up to the sides' margins, which the
    // ladders reach only to their spacing.  NaN elsewhere (several rounds or segments: the largest release is not
    // the ratio's statistic; eps <= log(1 - q): S is every output).  Any z gives a certified read; the rounding of
    // this one only moves it off the optimum.
    double likelihood_ratio_threshold(double eps) const {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        if (segments_.size() != 1 || segments_[0].rounds != 1) return nan;
        const OutputSegment& g = segments_[0];
        // log(1 + (e^eps - 1) / q) = eps + log(1 - (1 - q) e^{-eps}) - log q, no overflow of e^eps at large eps
        const double log_ratio = eps > 1.0 ? eps + std::log1p(-(1.0 - g.q) * std::exp(-eps)) - std::log(g.q)
                                           : std::log1p(std::expm1(eps) / g.q);
        const double z = g.sensitivity / (2.0 * g.sigma) + (g.sigma / g.sensitivity) * log_ratio;
        return std::isfinite(z) ? z : nan;
    }

    // The first largest read(log P, log Q) over the coarse ladder: (its index, its value).  ceiling(log P, log Q) is
    // at least the read there (the read's leading terms with its non-positive ones left out; rounding to nearest is
    // monotone, so the floating read is at most the floating ceiling): a threshold whose ceiling is not above the
    // largest read so far is not the first largest, and is not read.
    template <class Read, class Ceiling>
    std::pair<std::size_t, double> coarse(Read&& read, Ceiling&& ceiling) const {
        std::size_t best = 0;
        double top = read(log_p_[0], log_q_[0]);
        for (std::size_t i = 1; i < z_.size(); ++i) {
            if (!(ceiling(log_p_[i], log_q_[i]) > top)) continue;
            const double value = read(log_p_[i], log_q_[i]);
            if (value > top) best = i, top = value;
        }
        return {best, top};
    }

    // The thresholds and sides of the finer ladder around one coarse threshold.
    struct FineLadder {
        std::vector<double> z, log_p, log_q;
    };

    // The finer ladder around coarse threshold i: kMaxOutputsFineSteps thresholds one coarse step either side of it
    // and their sides, computed by the first read whose best coarse threshold is i and kept for the ladder's life,
    // so that the questions of one call that share a best coarse threshold share its finer ladder (its sides depend
    // on i alone).  Safe from concurrent reads: each is filled once under its own std::call_once, whose return
    // orders the fill before every read of it.
    const FineLadder& fine_ladder(std::size_t i) const {
        std::call_once(fine_once_[i], [&] {
            FineLadder& f = fine_[i];
            const std::size_t n = static_cast<std::size_t>(kMaxOutputsFineSteps);
            f.z.resize(n);
            f.log_p.resize(n);
            f.log_q.resize(n);
            const double zc = z_[i];
            const double step = z_[1] - z_[0];
            std::vector<double> p_terms, q_terms;
            for (std::size_t j = 0; j < n; ++j) {
                f.z[j] = max_of_outputs_detail::ladder_point(zc - step, zc + step, kMaxOutputsFineSteps,
                                                             static_cast<int>(j));
                const std::pair<double, double> sides = max_output_log_sides(segments_, f.z[j], p_terms, q_terms);
                f.log_p[j] = sides.first;
                f.log_q[j] = sides.second;
            }
        });
        return fine_[i];
    }

    // The coarse ladder's best threshold, then the finer ladder's around it where its best is higher: (z, value)
    // (the finer ladder's thresholds skipped as the coarse ladder's, by their ceiling).
    template <class Read, class Ceiling>
    std::pair<double, double> best(Read&& read, Ceiling&& ceiling) const {
        const std::pair<std::size_t, double> c = coarse(read, ceiling);
        const FineLadder& f = fine_ladder(c.first);
        double fine_z = f.z[0], fine_value = read(f.log_p[0], f.log_q[0]);
        for (std::size_t j = 1; j < f.z.size(); ++j) {
            if (!(ceiling(f.log_p[j], f.log_q[j]) > fine_value)) continue;
            const double value = read(f.log_p[j], f.log_q[j]);
            if (value > fine_value) fine_z = f.z[j], fine_value = value;
        }
        return fine_value > c.second ? std::make_pair(fine_z, fine_value) : std::make_pair(z_[c.first], c.second);
    }

    std::vector<OutputSegment> segments_;
    std::vector<double> z_, log_p_, log_q_;
    std::unique_ptr<std::once_flag[]> fine_once_;  // one per coarse threshold
    mutable std::vector<FineLadder> fine_;  // the finer ladders filled so far
};

// A certified lower bound on the epsilon at delta (0 < delta < 1) of the composition of `segments` (the remove
// direction's, so of the add-or-remove pair's), from the test of the largest released value against a threshold.
inline double max_of_outputs_epsilon(const std::vector<OutputSegment>& segments, double delta) {
    return MaxOutputsLadder(segments).epsilon(delta);
}

// A certified lower bound on the delta at a finite eps of the composition of `segments` (as max_of_outputs_epsilon).
inline double max_of_outputs_delta(const std::vector<OutputSegment>& segments, double eps) {
    return MaxOutputsLadder(segments).delta(eps, true);
}

}  // namespace pld
}  // namespace hockeystick
