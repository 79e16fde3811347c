// The tilted composition of the core (hockeystick/pld/reads/tilted.hpp, the tilts of pld/refine/tilted_question.hpp)
// on the Gaussian mechanism, whose T-fold composition is the Gaussian mechanism of radius r = sqrt(T) / sigma with
// delta(eps) = theta(r, eps) in closed form (paper 000, eq. 6), with Eigen's FFT (cpp/backends/).  Prints, one line
// a read, for tests/core/test_capi_tilted.py to check against theta:
//   "epsilon sigma rounds h delta lam lower upper"   the certified epsilon bracket at delta (%.17g)
//   "delta sigma rounds h eps lam lower upper"       the certified delta bracket at eps under the exponent's tilt
//   "plain sigma rounds h delta lower upper"         the plain composition's certified epsilon bracket at delta
//   "refused what message"                           a refusal of the tilted composition's domain
//   "cut delta cut_short lower upper whole_upper"    the epsilon bracket at delta on a window cut at 1e-6 (its cap one
//                                                    point below the whole window's), and the whole window's upper side
//   "tilted side v0 .. v63", "untilted side v0 .. v63", "ladder name v0 .."   the tilt's arithmetic the package shares
//                                                    (pld/compose/tilted_masses.hpp, pld/grid/tilt_ladders.hpp; %a)
//   c++ -std=c++17 -O2 -ffp-contract=off -I cpp/include -I cpp/backends -I /usr/include/eigen3 tilted_gaussian.cpp
#include <hockeystick/pld/compose/compose.hpp>
#include <hockeystick/pld/compose/tilted_masses.hpp>
#include <hockeystick/pld/grid/tilt_ladders.hpp>
#include <hockeystick/pld/reads/tilted.hpp>
#include <hockeystick/pld/grid/cells.hpp>
#include <hockeystick/pld/grid/connect_dots.hpp>
#include <hockeystick/pld/reads/epsilon_bracket.hpp>
#include <hockeystick/pld/refine/tilted_question.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "eigen_fft_backend.hpp"

namespace pld = hockeystick::pld;

int main() {
    const double sigma = 10.0, h = 1e-3;
    const std::int64_t rounds = 100;  // r = 1
    hockeystick::backends::EigenFftBackend fft;
    const double tail = 1e-40;  // T tails far below every delta read
    const pld::Cells cells = pld::subsampled_gaussian_cells(sigma, 1.0, true, h, tail, std::int64_t(1) << 26, true);
    const pld::GridPMF upper = pld::pessimistic_pmf(cells), lower = pld::optimistic_pmf(cells);
    const std::vector<pld::CountedPmf> ups{{&upper, rounds}}, lows{{&lower, rounds}};
    for (const double delta : {1e-8, 1e-14, 1e-20, 1e-30}) {
        const double lam = pld::chernoff_tilt(ups, delta);
        const pld::TiltedComposition up = pld::compose_tilted(ups, lam * h, true, fft);
        double eps_up = pld::upper_epsilon(up, delta, up.top());
        const double again = pld::exponent_tilt(ups, eps_up);
        eps_up = std::min(eps_up, pld::upper_epsilon(pld::compose_tilted(ups, again * h, true, fft), delta, eps_up));
        const double lam_low = pld::exponent_tilt(lows, eps_up);
        const pld::TiltedComposition low = pld::compose_tilted(lows, lam_low * h, false, fft);
        const double eps_low = pld::lower_epsilon(low, delta, eps_up);
        std::printf("epsilon %.17g %lld %.17g %.17g %.17g %.17g %.17g\n", sigma, static_cast<long long>(rounds), h,
                    delta, again, eps_low, eps_up);
    }
    for (const double eps : {2.0, 5.0, 8.0}) {
        const double lam = pld::exponent_tilt(ups, eps), lam_low = pld::exponent_tilt(lows, eps);
        const double d_up = pld::compose_tilted(ups, lam * h, true, fft).delta(eps);
        const double d_low = pld::compose_tilted(lows, lam_low * h, false, fft).delta(eps);
        std::printf("delta %.17g %lld %.17g %.17g %.17g %.17g %.17g\n", sigma, static_cast<long long>(rounds), h, eps,
                    lam, d_low, d_up);
    }
    // a window cut short (its cap below the whole window's): the mass above it charged by its Chernoff bound
    for (const double delta : {1e-8, 1e-20}) {
        const double lam = pld::chernoff_tilt(ups, delta);
        const pld::TiltedComposition whole = pld::compose_tilted(ups, lam * h, true, fft);
        const std::int64_t cap = whole.points() - 1;
        const pld::TiltedComposition cut =
            pld::compose_tilted(ups, lam * h, true, fft, cap, pld::kDefaultCompositionTail, 1e-6);
        std::printf("cut %.17g %d %.17g %.17g\n", delta, cut.cut_short() ? 1 : 0,
                    pld::upper_epsilon(cut, delta, cut.top()), pld::upper_epsilon(whole, delta, whole.top()));
    }
    // the plain composition of the same factors: its round-off charge (about T u) leaves small deltas wide
    const std::vector<pld::PmfView> views{pld::factor_view(upper, true)}, low_views{pld::factor_view(lower, false)};
    const std::vector<std::vector<pld::Term>> items{{{0, rounds}}};
    const pld::ComposedPMF plain_up =
        pld::compose_many(views, h, items, true, pld::kDefaultCompositionTail, std::int64_t(1) << 22, fft).front();
    const pld::ComposedPMF plain_low =
        pld::compose_many(low_views, h, items, false, pld::kDefaultCompositionTail, std::int64_t(1) << 22, fft).front();
    for (const double delta : {1e-8, 1e-14, 1e-20}) {
        double e_up = 0.0, e_low = 0.0;
        pld::composed_epsilon(plain_up, &delta, 1, &e_up);
        pld::charged_lower_epsilon(plain_low.p.data(), static_cast<std::int64_t>(plain_low.p.size()), plain_low.k_lo,
                                   plain_low.h, plain_low.p_inf, pld::charges_of(plain_low), &delta, 1, &e_low);
        std::printf("plain %.17g %lld %.17g %.17g %.17g %.17g\n", sigma, static_cast<long long>(rounds), h, delta,
                    e_low, e_up);
    }
    const auto refused = [](const char* what, auto&& call) {
        try {
            call();
            std::printf("accepted %s\n", what);
        } catch (const std::invalid_argument& e) { std::printf("refused %s %s\n", what, e.what()); }
    };
    refused("theta", [&] { pld::compose_tilted(ups, 0.0, true, fft); });
    refused("side", [&] { pld::lower_epsilon(pld::compose_tilted(ups, 1e-3, true, fft), 1e-10, 5.0); });
    pld::GridPMF negative = upper;
    negative.p[1] = -1e-300;
    refused("mass", [&] { pld::tilted_factor(negative, 1e-3, true); });
    // the masses (j + 1) 2^-20, j = 0 .. 63 (exact), at grid indices -20 .. 43 tilted by theta 0.37 and log M 1.25;
    // the same with every fifth negated, as window entries from K = -20, untilted by log_scale 3.5 (magnitude 4)
    const auto print = [](const char* what, const char* name, const std::vector<double>& v) {
        std::printf("%s %s", what, name);
        for (const double x : v) std::printf(" %a", x);
        std::printf("\n");
    };
    std::vector<double> masses(64), window(64), out(64);
    for (int j = 0; j < 64; ++j) {
        masses[j] = (j + 1) * 0x1p-20;
        window[j] = j % 5 == 0 ? -masses[j] : masses[j];
    }
    for (const bool side : {true, false}) {
        pld::tilted_masses(masses.data(), 64, -20, 0.37, 1.25, side, out.data());
        print("tilted", side ? "pessimistic" : "optimistic", out);
        pld::untilted_masses(window.data(), 64, -20, 0.37, 3.5, 4.0, side, out.data());
        print("untilted", side ? "pessimistic" : "optimistic", out);
    }
    std::vector<double> rungs;
    for (int i = 0; i < pld::kTiltLadder; ++i) rungs.push_back(pld::tilt_rung(i));
    print("ladder", "tilt", rungs);
    rungs.clear();
    for (int i = 0; i < pld::kAboveLadder; ++i) rungs.push_back(pld::above_rung(i));
    print("ladder", "above", rungs);
    return 0;
}
