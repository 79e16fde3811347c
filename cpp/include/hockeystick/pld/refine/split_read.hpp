// The split read of few sampled rounds: the remove direction's rounds read as a sum over how many pass the split loss
// (pld/reads/binomial_split.hpp: each term composed at unit mass, so its round-off charge is relative to the term, not
// to the whole mass), for one kind of Poisson-subsampled Gaussian round (TiltedReader, tilted_question.hpp) or several
// (TiltedFactorsReader, tilted_factors.hpp), at a delta (its epsilon bracket) or at epsilons (their delta brackets).
// Where the rounds sample the record at most kTiltSplitSampledRounds times on average (sum_i q_i c_i), the tilted
// reads' Chernoff bound is far above a small delta and their charge, relative to it, a large part of it; the split's
// terms j != 0 carry a factor q each, so its charge is not.  The package's default reads its brackets so (python
// pld/question/tilted_question.py's fine_brackets, tilted_factors.py, tilted_factors_delta.py, through the readers'
// bindings), and so do the C library's calls (cpp/capi/refine.cpp's delta call through fine_delta.hpp, and
// cpp/capi/pld.cpp's run reads of a composed handle), so every door reads one bracket.
//
// Epsilon at delta (split_epsilon_bracket), from a certified bracket [lower, upper] with lower > 0: the remove
// direction's pessimistic rounds split at `lower` / T give a certified upper epsilon eps_remove <= eps_up; the run's
// epsilon is max(eps_remove, eps_add) (each side the maximum over the neighbouring directions, Zhu, Dong & Wang,
// AISTATS 2022, Sec. 5), so eps_up is kept only where the add direction's epsilon is certified at most it (TiltedReader
// ::add_screens at eps_up, or TiltedFactorsReader::add_below); the lower side is the remove direction's optimistic
// rounds split at `lower` either way (eps >= eps_remove).  Delta at epsilons (split_delta_brackets), each eps at least
// the split's floor: the upper side the larger of the remove direction's split and a certified upper delta of the add
// direction, the lower side, where asked, the remove direction's optimistic split (delta >= delta_remove).
//
// Terms below kTiltedTailShare of the delta asked (epsilon) or of the level the delta is expected at (delta) are
// bounded (pessimistic) or dropped (optimistic), each term's window tails at most that too.  Every read is certified at
// any split point, and is intersected with the bracket given; the bracket is as given where the split does not apply
// (too many terms or points, nothing below the split, a term or a power past the double range).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hockeystick/pld/compose/fft_backend.hpp"
#include "hockeystick/pld/grid/pmf_view.hpp"
#include "hockeystick/pld/reads/binomial_split.hpp"
#include "hockeystick/pld/refine/epsilon_refinement.hpp"
#include "hockeystick/pld/refine/rare_delta_grids.hpp"
#include "hockeystick/pld/refine/tilted_factors.hpp"
#include "hockeystick/pld/refine/tilted_question.hpp"

namespace hockeystick {
namespace pld {

// The binomial split's composition: its backend and window cap, apart from the reader's (its windows are composed at
// unit mass with every low-frequency bin computed directly).
struct SplitComposition {
    RealFftBackend& fft;
    std::int64_t max_points;
};

// One direction's rounds as the split reads them: per kind, its pessimistic round and rounds (`upper`) and, where the
// lower side is read, its optimistic one (`lower`; empty: no lower side).  The views point into PMFs the caller holds.
struct SplitRounds {
    std::vector<SplitSegment> upper, lower;
};

namespace split_read_detail {

// read(); false where the split does not apply (its refusals: too many cells, terms or points, a window past the cap;
// nothing below the split, a term past the double range; a power of the bounds past the double range; every kept
// term's scale 0), true where it ran to its end.
template <class Read>
bool applied(Read&& read) {
    try {
        read();
        return true;
    } catch (const std::length_error&) {  // too many cells, terms or points, a window past the cap
    } catch (const std::invalid_argument&) {  // nothing below the split, a term past the double range
    } catch (const std::overflow_error&) {  // a power of the bounds past the double range
    } catch (const std::domain_error&) {  // every kept term's scale 0
    }
    return false;
}

// Sum_i q_i c_i of a run, summed in its order: how many times its rounds sample the record on average.
inline double sampled_rounds(const std::vector<OutputSegment>& run) {
    double sampled = 0.0;
    for (const OutputSegment& s : run) sampled += s.q * static_cast<double>(s.rounds);
    return sampled;
}

// Each kind's remove-direction round on grid h with `tail`, both sides, copied (the factors reader frees its rounds
// after each of its reads, the add direction's screen among them), and the split's views of them.
struct HeldRounds {
    std::vector<GridPMF> upper, lower;
    SplitRounds views;

    HeldRounds(TiltedFactorsReader& reader, double h, double tail) {
        const std::pair<std::vector<CountedPmf>, std::vector<CountedPmf>> sides = reader.remove_sides(h, tail);
        for (const CountedPmf& c : sides.first) upper.push_back(*c.pmf);
        for (const CountedPmf& c : sides.second) lower.push_back(*c.pmf);
        reader.forget_rounds();
        for (std::size_t i = 0; i < upper.size(); ++i)
            views.upper.push_back(SplitSegment{factor_view(upper[i], true), sides.first[i].count});
        for (std::size_t i = 0; i < lower.size(); ++i)
            views.lower.push_back(SplitSegment{factor_view(lower[i], false), sides.second[i].count});
    }
};

}  // namespace split_read_detail

// [lower, upper], a certified epsilon bracket at delta with lower > 0, intersected with the split read of `rounds` on
// grid h split at lower / T (the opening comment): the upper side kept only where add_clear(eps) (a certificate that
// the add direction's epsilon is at most eps; it may throw the split's refusals) holds at the remove direction's upper
// side; the lower side read where rounds.lower is given.  As given where the split does not apply; a side read before
// a later refusal is kept.
template <class AddClear>
std::pair<double, double> split_epsilon_bracket(const SplitRounds& rounds, double h, double delta, double lower,
                                                double upper, AddClear&& add_clear, const SplitComposition& c) {
    const double negligible = kTiltedTailShare * delta;
    const double floor = lower;
    split_read_detail::applied([&] {
        BinomialSplit remove(rounds.upper, h, true, floor, negligible, negligible, c.fft, c.max_points);
        const double up = remove.epsilon(delta, upper);
        if (std::isfinite(up) && add_clear(up)) upper = std::min(upper, up);
        if (rounds.lower.empty()) return;
        BinomialSplit optimistic(rounds.lower, h, false, floor, negligible, negligible, c.fft, c.max_points);
        lower = std::max(lower, optimistic.epsilon(delta, upper));
    });
    return {lower, std::max(lower, upper)};
}

// The delta brackets (lower, upper) at eps (each at least `floor` > 0) intersected with the split read of `rounds` on
// grid h split at floor / T (the opening comment), terms below `negligible` bounded or dropped: the upper side the
// larger of the split and add_bounds()[i] (a certified upper delta of the add direction at eps[i], asked once the
// remove direction's split is built; a NaN bound, of either, bounds nothing), the lower side read where rounds.lower
// is given.  As given where the split does not apply; a side read before a later refusal is kept.
template <class AddBounds>
void split_delta_brackets(const SplitRounds& rounds, double h, double floor, double negligible,
                          const std::vector<double>& eps, AddBounds&& add_bounds, std::vector<double>& lower,
                          std::vector<double>& upper, const SplitComposition& c) {
    split_read_detail::applied([&] {
        BinomialSplit remove(rounds.upper, h, true, floor, negligible, negligible, c.fft, c.max_points);
        const std::vector<double> add = add_bounds();
        for (std::size_t i = 0; i < eps.size(); ++i) {
            const double found = remove.delta(eps[i]);
            if (!(std::isnan(found) || std::isnan(add[i])))
                upper[i] = std::max(lower[i], std::min(upper[i], std::max(found, add[i])));
        }
        if (rounds.lower.empty()) return;
        BinomialSplit optimistic(rounds.lower, h, false, floor, negligible, negligible, c.fft, c.max_points);
        for (std::size_t i = 0; i < eps.size(); ++i) lower[i] = std::max(lower[i], optimistic.delta(eps[i]));
    });
    for (std::size_t i = 0; i < eps.size(); ++i) upper[i] = std::max(lower[i], upper[i]);
}

// One kind: [lower, upper] at delta intersected with the split read of the reader's remove direction on grid h (both
// sides, discretized with the tail `delta` allows), the add direction cleared by TiltedReader::add_screens under the
// exponent's tilt at the upper side found; as given unless lower > 0 (the split point), the bracket is not exact and
// T q is at most kTiltSplitSampledRounds.
inline std::pair<double, double> split_epsilon_read(TiltedReader& reader, double delta, double h, double lower,
                                                    double upper, const SplitComposition& c) {
    if (!(lower > 0.0) || exact_bracket(lower, upper)) return {lower, upper};
    if (reader.sampling_rate() * static_cast<double>(reader.rounds()) > kTiltSplitSampledRounds) return {lower, upper};
    SplitRounds rounds;
    if (!split_read_detail::applied([&] {
            const TiltedReader::Direction& d = reader.direction(h, true, reader.tail(true, delta), true);
            rounds.upper.push_back(SplitSegment{factor_view(d.upper, true), reader.rounds()});
            rounds.lower.push_back(SplitSegment{factor_view(d.lower, false), reader.rounds()});
        }))
        return {lower, upper};
    return split_epsilon_bracket(
        rounds, h, delta, lower, upper,
        [&](double eps) { return reader.add_screens({eps}, h, delta, eps).front() <= delta; }, c);
}

// One kind: the delta brackets (lower, upper) at eps (all > 0, each at least `centre`) intersected with the split read
// of the reader's remove direction on kRareDeltaFineGrid split at centre / T, `level` sizing its tails and what it
// drops as negligible (kTiltedTailShare level), the add direction bounded by TiltedReader::add_screens under the
// exponent's tilt at `centre`; the lower side read where `read_lower` (fine_delta.hpp's buckets).
inline void split_delta_read(TiltedReader& reader, const std::vector<double>& eps, std::vector<double>& lower,
                             std::vector<double>& upper, double centre, double level, bool read_lower,
                             const SplitComposition& c) {
    const double h = kRareDeltaFineGrid;
    SplitRounds rounds;
    if (split_read_detail::applied([&] {
            const TiltedReader::Direction& d = reader.direction(h, true, reader.tail(true, level), read_lower);
            rounds.upper.push_back(SplitSegment{factor_view(d.upper, true), reader.rounds()});
            if (read_lower) rounds.lower.push_back(SplitSegment{factor_view(d.lower, false), reader.rounds()});
        }))
        split_delta_brackets(
            rounds, h, centre, kTiltedTailShare * level, eps, [&] { return reader.add_screens(eps, h, level, centre); },
            lower, upper, c);
    for (std::size_t i = 0; i < eps.size(); ++i) upper[i] = std::max(lower[i], upper[i]);
}

// Several kinds: [lower, upper] at delta intersected with the split read of the run's remove direction on
// kRareDeltaFineGrid (every kind discretized with the run's question tail at delta, both sides), the add direction
// cleared by TiltedFactorsReader::add_below; as given unless lower > 0, the bracket is not exact and the run samples
// the record at most kTiltSplitSampledRounds times.
inline std::pair<double, double> factors_split_epsilon(TiltedFactorsReader& reader, double delta, double lower,
                                                       double upper, const SplitComposition& c) {
    if (!(lower > 0.0) || exact_bracket(lower, upper)) return {lower, upper};
    if (split_read_detail::sampled_rounds(reader.output_segments()) > kTiltSplitSampledRounds) return {lower, upper};
    const double h = kRareDeltaFineGrid;
    const double tail = reader.question_tail(delta);
    std::optional<split_read_detail::HeldRounds> held;
    if (!split_read_detail::applied([&] { held.emplace(reader, h, tail); })) return {lower, upper};
    return split_epsilon_bracket(
        held->views, h, delta, lower, upper, [&](double eps) { return reader.add_below(eps, h, tail, delta); }, c);
}

// Several kinds: (lower, upper), a certified delta bracket at eps, intersected with the split read of the run's
// remove direction on grid h (every kind discretized with `tail`, both sides) split at eps / T, terms below
// kTiltedTailShare upper dropped or bounded, the upper side the larger of it and `add_upper` (a certified upper delta
// of the add direction at eps: TiltedFactorsReader::delta_read's); as given unless eps is finite and > 0, the bracket
// is not exact and the run samples the record at most kTiltSplitSampledRounds times.
inline std::pair<double, double> factors_split_delta(TiltedFactorsReader& reader, double eps, double h, double tail,
                                                     double lower, double upper, double add_upper,
                                                     const SplitComposition& c) {
    if (!(eps > 0.0 && std::isfinite(eps)) || exact_bracket(lower, upper)) return {lower, upper};
    if (split_read_detail::sampled_rounds(reader.output_segments()) > kTiltSplitSampledRounds) return {lower, upper};
    std::optional<split_read_detail::HeldRounds> held;
    if (!split_read_detail::applied([&] { held.emplace(reader, h, tail); })) return {lower, upper};
    std::vector<double> lo{lower}, up{upper};
    split_delta_brackets(
        held->views, h, eps, kTiltedTailShare * upper, {eps}, [&] { return std::vector<double>{add_upper}; }, lo, up,
        c);
    return {lo.front(), up.front()};
}

}  // namespace pld
}  // namespace hockeystick
