// Rounds of a few PMFs read as a sum over how many rounds pass a split loss: a certified delta curve where the plain
// composition's round-off charge, relative to the whole mass, is a large part of a small delta (the split read of
// pld/refine/split_read.hpp; bound alone by cpp/bindings/register_pld_binomial_split.cpp).
//
// Each segment i is T_i rounds of one PMF p_i (one side, all on the grid l_k = k h).  With T = sum_i T_i and the split
// t = floor / T, p_i is the sum of its part b_i at losses up to t and the rest r_i above it (its mass at +infinity
// apart).  Convolution is bilinear and commutative, so the composition of the finite parts is exactly
//
//     prod_i (b_i + r_i)^{*T_i} = sum_j prod_i C(T_i, j_i) b_i^{*(T_i - j_i)} * r_i^{*j_i},
//
// over j = (j_1, ..) with 0 <= j_i <= T_i, and the term j = 0 lies at losses up to T t: at every eps >= floor (eps -
// sum_i T_i s_i on the pessimistic side, s_i the rounds' loss shift) its delta is 0.  With the r_i small in mass
// (small sampling rates: a round's loss passes eps / T rarely) the terms j != 0 carry the answer, and each is composed
// by compose_many (pld/compose/compose.hpp, its long-double low-frequency bins in every row: direct_min_charge 0) with
// every r_i scaled to unit mass (r_i / m_i, then the term times prod_i C(T_i, j_i) m_i^{j_i}): a composition's charges
// are relative to its factors' masses (dropped bins at an absolute 2^-64 among them), so composed at the scale of 1
// they stay relative to the term, not to the whole mass.  Each term's window is read as the package's GridPMF.delta
// reads a composed PMF (charged_side on its suffix sums, the optimistic side raised to its suffix maxima:
// pld/reads/lower_envelope.hpp, held between reads as the package's PMF holds them), and a term that is one factor
// once is that factor itself, uncharged, as compose_many's facade returns it.
//
// Terms below `negligible` are left out.  On the pessimistic side they are bounded and added: per segment, past J_i
// >= 2 T_i m_i the terms C(T_i, j) m_i^j c_i^{T_i - j} (c_i = max(1, m_{b_i})) fall at least twofold each, so those
// past J_i sum to at most twice the first, times prod_{i' != i} (c_i' + m_i')^{T_i'} for the other segments; a
// product of kept per-segment terms below `negligible` adds at most `negligible` each.  The mass at +infinity is at
// most sum_i T_i pi_i prod_i' max(1, c_i' + m_i' + pi_i')^{T_i'}.  Each bound is doubled for the rounding of its
// float products and sums.  On the optimistic side dropping terms keeps a lower bound.
//
// Rounding (u = 2^-53): r_i = m_i fl(r_i / m_i) (1 + theta), |theta| <= 2u, so a term is within prod_i (1 +- 2u)^{j_i}
// of its scale times the composition of the scaled parts (nonnegative entries, monotone in each); C(T_i, j_i) as a
// double (u: rounded_binomial), m_i correctly rounded (u: exact_sum, numerics/correctly_rounded.hpp), its power (j_i
// u) and the product over the segments: each scale is rounded outward by sum_i (3 j_i + 4) u, and the sum of the
// terms (correctly rounded, nonnegative) by 4u.  Every product, power and comparison is the package's Python formula
// in its order (libm's pow; max and min keep their first argument unless the second is strictly beyond it), so the
// curve is the same doubles as that formula's.
//
// Domain: rounds as discretized (no charges yet, no constant shift: the caller's to check, the views carry none), one
// grid and one side, at most SplitLimits::max_terms terms spanning at most SplitLimits::max_span_points grid points;
// std::invalid_argument or std::length_error elsewhere, so that a caller falls back to its own read.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "hockeystick/numerics/correctly_rounded.hpp"
#include "hockeystick/pld/compose/compose.hpp"
#include "hockeystick/pld/compose/fft_backend.hpp"
#include "hockeystick/pld/compose/options.hpp"
#include "hockeystick/pld/grid/pmf_view.hpp"
#include "hockeystick/pld/reads/charged_curve.hpp"
#include "hockeystick/pld/reads/charged_sides.hpp"
#include "hockeystick/pld/reads/epsilon_bracket.hpp"
#include "hockeystick/pld/reads/epsilon_root_search.hpp"
#include "hockeystick/pld/reads/hockey_stick.hpp"
#include "hockeystick/pld/reads/lower_envelope.hpp"

namespace hockeystick {
namespace pld {

// The most terms composed (each one composition of a few factors): past it the split costs more than it saves.
constexpr std::int64_t kSplitMaxTerms = 32;
// The most grid points the terms' compositions may span together, each term's span taken as its factors' points times
// their counts (a window's tails cut it shorter): past it the split costs seconds (a delta of 1e-300 cuts each round 37
// sigma out, 6.6e5 points at h = 5e-5, over 30 terms), and the caller's bracket stands.
constexpr std::int64_t kSplitMaxSpanPoints = std::int64_t(1) << 23;
// The least window tail asked of a composition (as the refinement's least discretization tail).
constexpr double kSplitSmallestTail = 1e-300;

// T rounds of one PMF: a view of one round's masses on the grid (k_lo, p_inf, loss_shift), as discretized.
struct SplitSegment {
    PmfView round;
    std::int64_t rounds = 0;
};

// The split's budgets: the terms kept, and the grid points their compositions span.
struct SplitLimits {
    std::int64_t max_terms = kSplitMaxTerms;
    std::int64_t max_span_points = kSplitMaxSpanPoints;
};

namespace split_detail {

// A double as Python's repr writes it (a refusal's message): the fewest significant digits that read back as it, in
// fixed notation from 1e-4 up to 1e16 (at least one decimal), in scientific notation elsewhere.
inline std::string shortest(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0.0 ? "inf" : "-inf";
    char text[48];
    int digits = 1;
    for (; digits < 17; ++digits) {
        std::snprintf(text, sizeof text, "%.*e", digits - 1, v);
        if (std::strtod(text, nullptr) == v) break;
    }
    std::snprintf(text, sizeof text, "%.*e", digits - 1, v);
    const int exponent = std::atoi(std::strchr(text, 'e') + 1);
    if (exponent < -4 || exponent >= 16) return text;
    std::snprintf(text, sizeof text, "%.*f", std::max(digits - 1 - exponent, 1), v);
    return text;
}

// Python's x ** n for a double x and an integer n >= 0 (libm's pow, as CPython's float power calls it):
// std::overflow_error where the power of a finite x passes the double range.
inline double power(double x, std::int64_t n) {
    const double r = std::pow(x, static_cast<double>(n));
    if (std::isinf(r) && std::isfinite(x)) throw std::overflow_error("(34, 'Numerical result out of range')");
    return r;
}

// Python's max(a, b) and min(a, b) of two doubles: a unless b is strictly beyond it (NaN never is).
inline double first_max(double a, double b) { return b > a ? b : a; }
inline double first_min(double a, double b) { return b < a ? b : a; }

// C(T, j) m^j c^(T - j), the binomial coefficient rounded to a double first; std::invalid_argument where C(T, j) or a
// power passes the double range, so that the split does not apply there rather than overflowing.
inline double term_weight(std::int64_t rounds, std::int64_t j, double mass, double bulk) {
    const double c = rounded_binomial(rounds, j);
    const double mj = std::pow(mass, static_cast<double>(j)), cj = std::pow(bulk, static_cast<double>(rounds - j));
    if (std::isinf(c) || (std::isinf(mj) && std::isfinite(mass)) || (std::isinf(cj) && std::isfinite(bulk)))
        throw std::invalid_argument("the split's term C(" + std::to_string(rounds) + ", " + std::to_string(j) + ") m^" +
                                    std::to_string(j) + " c^(T - j) passes the double range");
    return c * mj * cj;
}

// The count of a round's masses at or below its split index k_t = floor((each - s) / h) - 1 (s its loss shift: k_t h
// + s <= each whatever the rounding of that quotient), all of them where that index is past the last; the split's
// grid index is k_lo + cut - 1.  std::invalid_argument where none is.
inline std::int64_t split_cut(const PmfView& round, double h, double each) {
    const std::int64_t top = round.k_lo + round.n - 1;
    const double index = (each - round.loss_shift) / h;
    if (!(index < static_cast<double>(top) + 2.0)) return round.n;
    if (index == -std::numeric_limits<double>::infinity())
        throw std::overflow_error("cannot convert float infinity to integer");
    const double split = std::floor(index) - 1.0;
    if (!(split - static_cast<double>(round.k_lo) + 1.0 > 0.0))
        throw std::invalid_argument("no loss of a round lies at or below the split " + shortest(split * h));
    return static_cast<std::int64_t>(split) - round.k_lo + 1;
}

// One segment split at a cut: T rounds of a PMF whose first `cut` masses are its part below the split (b) and the
// rest, scaled to unit mass (`scaled`), its part above (r / m, `mass` its mass m), with the per-segment terms j whose
// C(T, j) m^j c^(T - j) reaches `negligible` (`weights`, j = 0 first) and a bound on the sum of those past them
// (`omitted`).
struct SplitPart {
    PmfView round;
    std::int64_t rounds = 0, cut = 0;
    double mass = 0.0, bulk = 1.0;  // m, and c = max(1, m_b)
    std::vector<double> scaled;
    std::vector<std::pair<std::int64_t, double>> weights;
    double omitted = 0.0;

    // The part below the split and the one above it (scaled), each with no mass at +infinity.
    PmfView below() const { return {round.p, cut, round.k_lo, 0.0, round.loss_shift}; }
    PmfView above() const {
        return {scaled.data(), static_cast<std::int64_t>(scaled.size()), round.k_lo + cut, 0.0, round.loss_shift};
    }
    // C(T, j) m^j, unrounded beyond its two factors.
    double scale(std::int64_t j) const { return rounded_binomial(rounds, j) * power(mass, j); }
    // (c + m)^T, the part's terms all together.
    double total() const { return power(bulk + mass, rounds); }
};

// The part's weights: j = 0 (c^T), then every j >= 1 up to the first below `negligible` at or past 2 T m (from there
// the terms at least halve, so twice that first one bounds the rest: `omitted`).  std::length_error where more than
// max_terms of them would be kept: past 2 T m > max_terms, or more than max_terms at or above `negligible`.
inline void split_weights(SplitPart& part, double negligible, std::int64_t max_terms) {
    const double tipping = 2.0 * static_cast<double>(part.rounds) * part.mass;
    if (tipping > static_cast<double>(max_terms))
        throw std::length_error("more than " + std::to_string(max_terms) +
                                " terms of the split: T m = " + shortest(static_cast<double>(part.rounds) * part.mass));
    part.weights.emplace_back(0, power(part.bulk, part.rounds));
    std::int64_t j = 1, reaching = 0;  // the terms j >= 1 at or above negligible: the split keeps each (split_terms)
    for (; j <= part.rounds && part.mass > 0.0; ++j) {
        const double weight = term_weight(part.rounds, j, part.mass, part.bulk);
        if (weight < negligible && static_cast<double>(j) >= tipping) break;
        reaching += weight >= negligible ? 1 : 0;
        if (reaching > max_terms)
            throw std::length_error("more than " + std::to_string(max_terms) + " terms of the split are above " +
                                    shortest(negligible));
        part.weights.emplace_back(j, weight);
    }
    if (j <= part.rounds && part.mass > 0.0) part.omitted = 2.0 * term_weight(part.rounds, j, part.mass, part.bulk);
}

// The segment split at `cut` (split_cut) with its weights (split_weights).
inline SplitPart split_part(const SplitSegment& segment, std::int64_t cut, double negligible, std::int64_t max_terms) {
    SplitPart part;
    part.round = segment.round;
    part.rounds = segment.rounds;
    part.cut = cut;
    const PmfView& r = segment.round;
    part.mass = exact_sum(r.p + cut, r.n - cut);
    part.bulk = first_max(1.0, exact_sum(r.p, cut));
    part.scaled.assign(r.p + cut, r.p + r.n);
    if (part.mass > 0.0)
        for (double& v : part.scaled) v /= part.mass;
    split_weights(part, negligible, max_terms);
    return part;
}

// The vectors j != 0 of kept per-segment terms whose product weight reaches `negligible`, in the order of the
// segments' terms with the last segment's j running fastest, and how many such products fell below it (`pruned`).
// std::length_error past max_terms kept.
inline std::vector<std::vector<std::int64_t>> split_terms(const std::vector<SplitPart>& parts, double negligible,
                                                          std::int64_t max_terms, std::int64_t& pruned) {
    std::vector<std::size_t> at(parts.size(), 0);
    std::vector<std::vector<std::int64_t>> kept;
    pruned = 0;
    for (std::size_t moved = parts.size(); moved > 0;) {
        bool zero = true;
        double weight = 1.0;
        std::vector<std::int64_t> j(parts.size());
        for (std::size_t i = 0; i < parts.size(); ++i) {
            j[i] = parts[i].weights[at[i]].first;
            zero = zero && j[i] == 0;
            weight *= parts[i].weights[at[i]].second;
        }
        if (!zero && weight < negligible) {
            ++pruned;
        } else if (!zero) {
            kept.push_back(std::move(j));
            if (static_cast<std::int64_t>(kept.size()) > max_terms)
                throw std::length_error("more than " + std::to_string(max_terms) + " terms of the split are above " +
                                        shortest(negligible));
        }
        for (moved = parts.size(); moved > 0 && ++at[moved - 1] == parts[moved - 1].weights.size(); --moved)
            at[moved - 1] = 0;
    }
    return kept;
}

// a + b, and a b, of counts >= 0, held at the largest int64 past it.
inline std::int64_t held_sum(std::int64_t a, std::int64_t b) {
    return a > std::numeric_limits<std::int64_t>::max() - b ? std::numeric_limits<std::int64_t>::max() : a + b;
}
inline std::int64_t held_product(std::int64_t a, std::int64_t b) {
    return b != 0 && a > std::numeric_limits<std::int64_t>::max() / b ? std::numeric_limits<std::int64_t>::max()
                                                                      : a * b;
}

// One term's factors: per segment, its part below (T_i - j_i times) and above (j_i times), those of a positive count;
// each factor named by (segment, above), factor_view its masses.
struct TermFactor {
    std::size_t segment;
    bool above;
    std::int64_t count;
};
inline PmfView factor_view(const std::vector<SplitPart>& parts, const TermFactor& f) {
    return f.above ? parts[f.segment].above() : parts[f.segment].below();
}
inline std::vector<TermFactor> term_factors(const std::vector<SplitPart>& parts, const std::vector<std::int64_t>& j) {
    std::vector<TermFactor> out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (parts[i].rounds - j[i] > 0) out.push_back({i, false, parts[i].rounds - j[i]});
        if (j[i] > 0) out.push_back({i, true, j[i]});
    }
    return out;
}

// std::length_error where the terms span more than max_span_points grid points (each factor's points times its count).
inline void check_span(const std::vector<SplitPart>& parts, const std::vector<std::vector<std::int64_t>>& terms,
                       std::int64_t max_span_points) {
    std::int64_t span = 0;
    for (const std::vector<std::int64_t>& j : terms)
        for (const TermFactor& f : term_factors(parts, j)) {
            span = held_sum(span, held_product(factor_view(parts, f).n, f.count));
        }
    if (span > max_span_points)
        throw std::length_error("the split's terms span " + std::to_string(span) + " grid points, more than " +
                                std::to_string(max_span_points));
}

// Each term's scale prod_i C(T_i, j_i) m_i^{j_i}, rounded outward by sum_i (3 j_i + 4) u.
inline std::vector<double> term_scales(const std::vector<SplitPart>& parts,
                                       const std::vector<std::vector<std::int64_t>>& terms, bool pessimistic) {
    const double outward = pessimistic ? 1.0 : -1.0;
    std::vector<double> scales;
    for (const std::vector<std::int64_t>& j : terms) {
        std::int64_t units = 0;
        double scale = 1.0;
        for (std::size_t i = 0; i < parts.size(); ++i) {
            units += 3 * j[i] + 4;
            scale *= parts[i].scale(j[i]);
        }
        scales.push_back(scale * (1.0 + outward * (static_cast<double>(units) * detail::kUnitRoundoff)));
    }
    return scales;
}

// The window tail of the terms' compositions: `tail` over the largest scale (an absolute delta: a window's tail is of
// its unit-mass composition), within [kSplitSmallestTail, kDefaultCompositionTail].  std::domain_error where the
// largest scale is 0 (a division by zero).
inline double window_tail(const std::vector<double>& scales, double tail) {
    double most = scales.front();
    for (const double s : scales) most = first_max(most, s);
    if (most == 0.0) throw std::domain_error("float division by zero");
    return first_max(kSplitSmallestTail, first_min(kDefaultCompositionTail, tail / most));
}

// Each term's composition, as its window: the factors of every term composed in one compose_many call (each factor
// transformed once, in the order the terms first name it), with the long-double low-frequency bins in every row
// (direct_min_charge 0: a term's charge is then ~2000x below the double transform's, which the split is read for); a
// term that is one factor once is that factor itself (uncharged, its own loss shift).
inline std::vector<ComposedPMF> term_windows(const std::vector<SplitPart>& parts,
                                             const std::vector<std::vector<std::int64_t>>& terms, double h,
                                             bool pessimistic, double tail, RealFftBackend& fft,
                                             std::int64_t max_points) {
    std::vector<ComposedPMF> out(terms.size());
    std::vector<PmfView> factors;
    std::map<std::pair<std::size_t, bool>, std::int64_t> index;
    std::vector<std::vector<Term>> items;
    std::vector<std::size_t> composed;
    for (std::size_t t = 0; t < terms.size(); ++t) {
        const std::vector<TermFactor> live = term_factors(parts, terms[t]);
        if (live.size() == 1 && live.front().count == 1) {
            const PmfView v = factor_view(parts, live.front());
            out[t] = detail::copied_through(v, h, pessimistic);
            out[t].loss_shift = v.loss_shift;
            continue;
        }
        std::vector<Term> item;
        for (const TermFactor& f : live) {
            const auto found =
                index.emplace(std::make_pair(f.segment, f.above), static_cast<std::int64_t>(factors.size()));
            if (found.second) factors.push_back(factor_view(parts, f));
            item.push_back({found.first->second, f.count});
        }
        items.push_back(std::move(item));
        composed.push_back(t);
    }
    if (items.empty()) return out;
    ComposeOptions options;
    options.direct_bins = true;
    options.direct_min_charge = 0.0;
    std::vector<ComposedPMF> done = compose_many(factors, h, items, pessimistic, tail, max_points, fft, options);
    for (std::size_t k = 0; k < composed.size(); ++k) out[composed[k]] = std::move(done[k]);
    return out;
}

// The pessimistic side's terms left out and its mass at +infinity (the opening comment), doubled for the rounding of
// their float products and sums.
inline double split_rest(const std::vector<SplitPart>& parts, std::int64_t pruned, double negligible) {
    std::vector<double> totals, omitted, infinity;
    for (const SplitPart& part : parts) totals.push_back(part.total());
    for (std::size_t i = 0; i < parts.size(); ++i) {
        double others = 1.0;
        for (std::size_t k = 0; k < parts.size(); ++k)
            if (k != i) others *= totals[k];
        omitted.push_back(parts[i].omitted * others);
    }
    const double left = exact_sum(omitted.data(), static_cast<std::int64_t>(omitted.size()));
    double whole = 1.0;
    for (const SplitPart& part : parts) {
        whole *= power(first_max(1.0, part.bulk + part.mass + part.round.p_inf), part.rounds);
        infinity.push_back(static_cast<double>(part.rounds) * part.round.p_inf);
    }
    const double beyond = exact_sum(infinity.data(), static_cast<std::int64_t>(infinity.size())) * whole;
    return 2.0 * (left + static_cast<double>(pruned) * negligible + beyond);
}

// One term's window read as the package's GridPMF.delta reads a composed PMF: the charged side at eps moved by its loss
// shift, from its suffix sums (those of the whole window: the same doubles as any top part's, the sums running from the
// top down), the optimistic side raised to the suffix maxima of its charged lower curve, which a whole pass builds and
// the read then holds (lower_envelope.hpp's EnvelopeCache, as the package's PMF holds them).
class SplitTermRead {
  public:
    SplitTermRead(ComposedPMF window, bool pessimistic)
        : window_(std::move(window)),
          charges_(charges_of(window_)),
          profile_(window_.p.data(), static_cast<std::int64_t>(window_.p.size()), window_.k_lo, window_.h,
                   window_.p_inf),
          pessimistic_(pessimistic) {}

    // The certified side at eps; std::invalid_argument where eps is NaN.
    double delta(double eps) {
        const double e = loss_shifted(eps, window_.loss_shift, !pessimistic_);
        if (std::isnan(e)) throw std::invalid_argument("epsilon must not be NaN");
        const auto n = static_cast<std::int64_t>(window_.p.size());
        double value = charged_side(profile_, static_cast<double>(window_.k_lo), static_cast<double>(n), window_.h,
                                    charges_, pessimistic_, e);
        if (pessimistic_ || charges_.total == 0.0) return value;
        const SideRead r = side_read({window_.p.data(), n, window_.k_lo, window_.p_inf, window_.loss_shift}, window_.h,
                                     charges_, false);
        EnvelopeCache cache;
        if (!held_.empty()) cache.held = held_.data(), cache.held_from = held_from_;
        raise_to_envelope(r, &eps, &value, 1, &cache);
        if (!cache.built.empty()) held_ = std::move(cache.built), held_from_ = cache.built_from;
        return value;
    }

  private:
    ComposedPMF window_;
    GridCharges charges_;
    GridProfile profile_;
    bool pessimistic_;
    std::vector<double> held_;  // the suffix maxima at grid points held_from_..n, once a whole pass built them
    std::int64_t held_from_ = 0;
};

}  // namespace split_detail

// The certified delta curve of the composition of `segments` (one grid h, one side) at every eps >= `floor`, from the
// terms j != 0 of the opening comment's sum (split at t = floor / T, less each segment's loss shift, rounded down a
// cell), each composed by `fft` with windows whose tails are at most `tail` (an absolute delta: a window's tail is of
// its unit-mass composition, so at most `tail` over the largest scale, within [kSplitSmallestTail,
// kDefaultCompositionTail]) and at most `max_points` points; terms below `negligible` (an absolute delta) are bounded
// (pessimistic) or dropped (optimistic).  Throws std::invalid_argument (no segment, h not finite and > 0, a segment of
// fewer than one round, `floor` not finite and > 0, nothing of a round at or below the split, a term past the double
// range), std::length_error (more than limits.max_terms terms, terms spanning more than limits.max_span_points grid
// points, a window past max_points), std::overflow_error (a power c^T of the bounds past the double range) or
// std::domain_error (every kept term's scale 0).
class BinomialSplit {
  public:
    BinomialSplit(const std::vector<SplitSegment>& segments, double h, bool pessimistic, double floor,
                  double negligible, double tail, RealFftBackend& fft, std::int64_t max_points,
                  const SplitLimits& limits = {})
        : pessimistic_(pessimistic), floor_(floor) {
        namespace sd = split_detail;
        check(segments, h, floor);
        std::int64_t rounds = 0;
        for (const SplitSegment& s : segments) rounds = sd::held_sum(rounds, s.rounds);
        const double each = floor / static_cast<double>(rounds);
        std::vector<sd::SplitPart> parts;
        for (const SplitSegment& s : segments)
            parts.push_back(sd::split_part(s, sd::split_cut(s.round, h, each), negligible, limits.max_terms));
        std::int64_t pruned = 0;
        const std::vector<std::vector<std::int64_t>> terms =
            sd::split_terms(parts, negligible, limits.max_terms, pruned);
        if (!terms.empty()) {
            sd::check_span(parts, terms, limits.max_span_points);
            scales_ = sd::term_scales(parts, terms, pessimistic);
            std::vector<ComposedPMF> windows =
                sd::term_windows(parts, terms, h, pessimistic, sd::window_tail(scales_, tail), fft, max_points);
            for (ComposedPMF& w : windows) reads_.emplace_back(std::move(w), pessimistic);
        }
        if (pessimistic) rest_ = sd::split_rest(parts, pruned, negligible);
    }

    bool pessimistic() const { return pessimistic_; }
    double floor() const { return floor_; }
    // Each kept term's scale, rounded outward, and the pessimistic side's bound on the terms left out and the mass at
    // +infinity (0 on the optimistic side).
    const std::vector<double>& scales() const { return scales_; }
    double rest() const { return rest_; }

    // The certified delta at eps on this side: below `floor` the term j = 0 is not known to vanish, so 1 (pessimistic)
    // or the terms j != 0 alone (optimistic, still a lower bound).  Not const: an optimistic window holds the suffix
    // maxima a read built.  Throws std::invalid_argument where eps is NaN on the optimistic side with terms.
    double delta(double eps) {
        if (pessimistic_ && !(eps >= floor_)) return 1.0;
        std::vector<double> terms(reads_.size());
        for (std::size_t i = 0; i < reads_.size(); ++i) terms[i] = scales_[i] * reads_[i].delta(eps);
        const double total = exact_sum(terms.data(), static_cast<std::int64_t>(terms.size()));
        if (pessimistic_) return split_detail::first_min(1.0, (total + rest_) * (1.0 + 4.0 * detail::kUnitRoundoff));
        return total * (1.0 - 4.0 * detail::kUnitRoundoff);
    }

    // The certified epsilon at `target` on this side, searched up to `top`: upper, the least eps found with delta(eps)
    // <= target (+inf where `top` does not qualify; never below `floor`, where the curve is 1); lower, the largest found
    // with delta(eps) > target (epsilon_root_search, to 4 ulps of `top`).  Throws epsilon_root_search's
    // std::invalid_argument.
    double epsilon(double target, double top) {
        if (pessimistic_ && !(delta(top) <= target)) return std::numeric_limits<double>::infinity();
        EpsilonSearchQuestion q;
        q.target = target;
        q.upper = pessimistic_;
        q.top = top;
        q.tolerance = 4.0 * epsilon_search_detail::ulp(top);
        return epsilon_root_search(
            [this](const std::vector<double>& points, std::vector<double>& values) {
                for (std::size_t i = 0; i < points.size(); ++i) values[i] = delta(points[i]);
            },
            q);
    }

  private:
    // The refusals needing no part: no segment, the grid, a segment's rounds, the floor.
    static void check(const std::vector<SplitSegment>& segments, double h, double floor) {
        if (segments.empty()) throw std::invalid_argument("a split needs at least one segment");
        if (!(h > 0.0 && std::isfinite(h))) throw std::invalid_argument("the grid interval h must be finite and > 0");
        for (const SplitSegment& s : segments)
            if (s.rounds < 1) throw std::invalid_argument("rounds must be >= 1, got " + std::to_string(s.rounds));
        if (!(std::isfinite(floor) && floor > 0.0))
            throw std::invalid_argument("floor must be a finite epsilon > 0 to split at, got " +
                                        split_detail::shortest(floor));
    }

    bool pessimistic_;
    double floor_, rest_ = 0.0;
    std::vector<double> scales_;
    std::vector<split_detail::SplitTermRead> reads_;
};

}  // namespace pld
}  // namespace hockeystick
