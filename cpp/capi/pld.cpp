// The C interface's privacy loss distributions: the Poisson-subsampled Gaussian discretized on both certified
// sides, its composition over rounds through the core's FFT composition (the backend of cpp/backends/ chosen at
// configure time: Eigen's FFT module by default, FFTW with HOCKEYSTICK_C_FFT_FFTW), and the
// certified epsilon and delta brackets read from the composed PMFs (pld/reads/), the maximum over the
// neighbouring directions (Zhu, Dong & Wang, AISTATS 2022, Sec. 5).
#include <hockeystick/hockeystick.hpp>
#include <hockeystick/pld/compose/compose.hpp>
#include <hockeystick/pld/reads/epsilon_bracket.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "boundary.hpp"

#ifdef HOCKEYSTICK_C_FFT_FFTW
#include "fftw_backend.hpp"
using CompositionFft = hockeystick::backends::FftwBackend;
constexpr const char* kFftBackend = "fftw";
#else
#include "eigen_fft_backend.hpp"
using CompositionFft = hockeystick::backends::EigenFftBackend;
constexpr const char* kFftBackend = "eigen";
#endif

namespace pld = hockeystick::pld;
using hockeystick_c::guarded;
using hockeystick_c::invalid_argument_error;
using hockeystick_c::require;
using hockeystick_c::require_output;

namespace {

// The Python package's limits (pld.mechanisms.constructors): MAX_CELLS loss cells per direction, DEFAULT_TAIL
// cut per round; a composition's window of at most 2^27 grid points; at most 2^53 rounds (self_compose).
constexpr std::int64_t kMaxCells = std::int64_t(1) << 26;
constexpr std::int64_t kMaxPoints = std::int64_t(1) << 27;
constexpr std::int64_t kMaxRounds = std::int64_t(1) << 53;
constexpr double kMaxInterval = 100.0;

// One round's factors, per neighbouring direction (remove, then add where sampling_rate < 1).
struct Factors {
    double h = 0.0;
    std::vector<pld::GridPMF> upper, lower;
};

// The optimistic curve of a composed PMF at any epsilon, with its suffix maxima (the facade's GridPMF.delta).
pld::ChargedGridCurve lower_curve(const pld::ComposedPMF& c) {
    const pld::GridCharges ch = pld::charges_of(c);
    const std::int64_t n = static_cast<std::int64_t>(c.p.size());
    std::vector<double> charge(static_cast<std::size_t>(n) + 1);  // charge of the grid points above index j
    for (std::int64_t j = 0; j <= n; ++j) charge[static_cast<std::size_t>(j)] = ch.above(static_cast<double>(n - j));
    return pld::ChargedGridCurve(pld::GridProfile(c.p.data(), n, c.k_lo, c.h, c.p_inf), std::move(charge), ch.shift,
                                 ch.slack, ch.loss_shift, false, true);
}

std::vector<pld::ComposedPMF> composed(const Factors& f, std::int64_t rounds, bool pessimistic) {
    const std::vector<pld::GridPMF>& side = pessimistic ? f.upper : f.lower;
    std::vector<pld::PmfView> views;
    std::vector<std::vector<pld::Term>> items;
    for (std::size_t d = 0; d < side.size(); ++d) {
        views.push_back(pld::factor_view(side[d], pessimistic));
        items.push_back({{static_cast<std::int64_t>(d), rounds}});
    }
    CompositionFft fft;
    // The pessimistic side is read through its spectrum where the composition keeps few live frequencies (no
    // inverse transform; pld/reads/spectral_profile.hpp), costed as one search per read, as the facade reads it.
    const std::vector<pld::SpectralReads> reads(pessimistic ? items.size() : 0, pld::SpectralReads{1, 0});
    return pld::compose_many(views, f.h, items, pessimistic, pld::kDefaultCompositionTail, kMaxPoints, fft, {}, reads);
}

Factors subsampled_gaussian_factors(double sigma, double q, double h) {
    Factors f;
    f.h = h;
    for (const bool remove : {true, false}) {
        if (!remove && q == 1.0) break;  // the Gaussian mechanism is symmetric: one direction
        pld::Cells cells;
        try {
            cells = pld::subsampled_gaussian_cells(sigma, q, remove, h, pld::kDefaultCompositionTail, kMaxCells);
        } catch (const std::length_error&) {
            throw invalid_argument_error{"value_discretization_interval=" + hockeystick_c::shown(h) +
                                         " with sigma = " + hockeystick_c::shown(sigma) + " would need more than " +
                                         std::to_string(kMaxCells) +
                                         " loss cells: use a coarser value_discretization_interval, or a larger sigma"};
        }
        f.upper.push_back(pld::pessimistic_pmf(cells));
        f.lower.push_back(pld::optimistic_pmf(cells));
    }
    return f;
}

}  // namespace

// A PLD: one round's factors (shared by its compositions) and both sides composed over `rounds`.
struct hs_pld {
    std::shared_ptr<const Factors> factors;
    std::int64_t rounds = 0;
    std::vector<pld::ComposedPMF> upper, lower;
    std::vector<pld::ChargedGridCurve> lower_curves;

    hs_pld(std::shared_ptr<const Factors> f, std::int64_t n)
        : factors(std::move(f)), rounds(n), upper(composed(*factors, n, true)), lower(composed(*factors, n, false)) {
        for (const pld::ComposedPMF& c : lower) lower_curves.push_back(lower_curve(c));
    }
};

namespace {

void require_handle(const hs_pld* p) {
    if (p == nullptr)
        throw invalid_argument_error{"pld must not be NULL (a handle made by hs_pld_subsampled_gaussian)"};
}

}  // namespace

extern "C" {

int hs_has_pld(void) { return 1; }

const char* hs_fft_backend(void) { return kFftBackend; }

hs_status hs_pld_subsampled_gaussian(double sigma, double sampling_rate, double value_discretization_interval,
                                     hs_pld** out) {
    return guarded([&] {
        require_output(out, "out");
        require(sigma > 0.0 && std::isfinite(sigma), "sigma", "must be finite and > 0", sigma);
        require(sampling_rate > 0.0 && sampling_rate <= 1.0, "sampling_rate", "must lie in (0, 1]", sampling_rate);
        require(value_discretization_interval > 0.0 && value_discretization_interval <= kMaxInterval,
                "value_discretization_interval",
                "must lie in (0, 100] (the PLD grid spacing; e.g. 1e-4: smaller is finer, tighter and slower)",
                value_discretization_interval);
        auto factors = std::make_shared<const Factors>(
            subsampled_gaussian_factors(sigma, sampling_rate, value_discretization_interval));
        *out = new hs_pld(std::move(factors), 1);
        return HS_OK;
    });
}

hs_status hs_pld_self_compose(const hs_pld* p, long long count, hs_pld** out) {
    return guarded([&] {
        require_output(out, "out");
        require_handle(p);
        require(count >= 1 && count <= kMaxRounds / p->rounds, "count",
                "must be an integer with 1 <= count and count x the PLD's rounds <= 2^53", static_cast<double>(count));
        *out = new hs_pld(p->factors, p->rounds * static_cast<std::int64_t>(count));
        return HS_OK;
    });
}

hs_status hs_pld_epsilon_bracket(const hs_pld* p, double delta, double* lower, double* upper) {
    return guarded([&] {
        require_output(lower, "lower");
        require_output(upper, "upper");
        require_handle(p);
        require(delta > 0.0 && delta < 1.0, "delta", "must lie strictly between 0 and 1", delta);
        pld::epsilon_bracket(p->upper, p->lower, delta, *lower, *upper);
        return HS_OK;
    });
}

hs_status hs_pld_delta_bracket(const hs_pld* p, double epsilon, double* lower, double* upper) {
    return guarded([&] {
        require_output(lower, "lower");
        require_output(upper, "upper");
        require_handle(p);
        require(!std::isnan(epsilon), "epsilon", "must not be NaN", epsilon);
        double lo = 0.0, hi = 0.0;
        for (const pld::ComposedPMF& c : p->upper) {
            double d = 0.0;
            pld::composed_delta(c, &epsilon, 1, &d);
            hi = std::max(hi, d);
        }
        for (const pld::ChargedGridCurve& curve : p->lower_curves) lo = std::max(lo, curve.delta(epsilon));
        *lower = lo;
        *upper = hi;
        return HS_OK;
    });
}

hs_status hs_pld_rounds(const hs_pld* p, long long* out) {
    return guarded([&] {
        require_output(out, "out");
        require_handle(p);
        *out = static_cast<long long>(p->rounds);
        return HS_OK;
    });
}

void hs_pld_free(hs_pld* p) { delete p; }

}  // extern "C"
