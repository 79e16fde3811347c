// The four shapes every contraction bound of papers 000 and 002 takes, as scalar
// functions of eps (delta) or of delta (eps).  The facade maps each theorem's
// parameters to these arguments (radii r = distance / noise std):
//
//   geometric      delta = w theta_eps(r1) sum_{k<T} theta_eps(r2)^k
//                  000 Thm 2 constant schedule (w = m/n, r1 = 2L/(sqrt(m) sigma),
//                  r2 = D sqrt(m)/(eta sigma), D = 2 rho, 2(rho + eta L) or 2 rho M);
//                  002 Thm 5 (w = 1/n, r1 = 2L/sigma, r2 = M D_K/(eta sigma), T = n-i+1,
//                  or T = inf for the paper's eq. 16).
//   random stop    delta = w theta_eps(r1) sum_{tau=tau0..T} sum_{k<tau} theta_eps(r2)^k
//                  000 Cor 3 / eq. 12 (w = (m/n)/(T - tau0 + 1), tau0 = 1) and alpha-suffix.
//   power          delta = F(g1) F(g2)^k, F = theta_eps (002 Thm 4, k = n - i) or the
//                  Laplace factor [1 - e^{(eps - g)/2}]_+ (002 Thm 3, g = distance/scale).
//   schedule       delta = w sum_{t} theta_eps(r1_t) prod_{j>t} theta_eps(r2_j)  (000 Thm 2
//                  general, Cor 1) or its random-stop double sum (000 Cor 3), O(T).
//
// Reported deltas are rounded up by 2^-42 relative (detail::safe_side; more where T = inf and
// 1 - theta_eps(r2) is below the double range, detail::geometric_value_below_range): never below the
// exact value of the formula; then capped at 1 (detail::at_most_one, NaN-preserving).  Arguments outside the domain give NaN; the facade checks the theorems' conditions
// first and raises ValueError, so NaN here means an internal error.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "hockeystick/contraction/epsilon.hpp"
#include "hockeystick/contraction/factor.hpp"
#include "hockeystick/contraction/sums.hpp"

namespace hockeystick {

// log w, log T and e^{log w + log T} of the last point, kept while the points of a grid's inner axis
// share them: each is the expression the closed form evaluates, on the same values.
struct weight_terms_logs {
    static constexpr double unset = std::numeric_limits<double>::quiet_NaN();
    double weight = unset, terms = unset, log_weight = unset, log_terms = unset;
    double sum_exp = unset;  // e^{log w + log T}, NaN until asked

    void at(double w, double t) {
        if (!(w == weight)) {
            weight = w;
            log_weight = std::log(w);
            sum_exp = unset;
        }
        if (!(t == terms)) {
            terms = t;
            log_terms = std::log(t);
            sum_exp = unset;
        }
    }
    double exp_of_sum() {
        if (std::isnan(sum_exp)) sum_exp = std::exp(log_weight + log_terms);
        return sum_exp;
    }
};

namespace detail {

// Every reported delta is moved up by 2^-42 = 2.3e-13 relative: more than the rounding of
// these evaluations (a few ulp of log delta >= -745 where exp is taken of a log), so the
// reported delta is never below the exact value of the paper's formula, and still agrees
// with it to 1e-12.  epsilon(delta) is then taken against these reported values.
constexpr double safe_side = 1.0 + 0x1p-42;

// The solvers aim at the root of the reported delta: log delta(eps) = log target - log safe_side,
// less a few ulps of log delta (the log route and the reported route differ by about that).
// Aiming at the unshifted target would leave the answer ~2^-42 / |d log delta / d log eps|
// relative below the reported root, and safe_epsilon would spend ~6 evaluations nudging it
// up; with the margin its first check passes ~90% of the time.  The margin moves eps up by
// ~1e-14 relative at most: the answer stays minimal to 1e-12.
inline double log_solver_target(double delta) {
    const double log_delta = std::log(delta);
    return log_delta - std::log1p(0x1p-42) - 2e-15 * (1.0 + std::fabs(log_delta));
}

// A delta is a probability bound: cap it at 1.  A NaN stays NaN (the comparison is false) so the
// binding reports it, rather than passing as a plausible answer.
inline double at_most_one(double delta) { return delta > 1.0 ? 1.0 : delta; }

// Whether x is at least the least normal double, where a product rounds relative to its value.
inline bool normal(double x) { return x >= std::numeric_limits<double>::min(); }

// A value below the normal range moved up by two steps of the subnormal grid (4.9e-324 each).  There safe_side's
// relative margin may fall below one step, so it no longer covers exp's rounding (at most one step) and the product's
// (half a step): e^x (1 + 2^-42), which bounds the exact value (the argument's rounding is within 2^-42), is at most
// 1.6 steps above the computed value.
inline double up_from_subnormal(double value) {
    if (!(value > 0.0) || normal(value)) return value;
    return std::nextafter(std::nextafter(value, inf), inf);
}

// delta = first * exp(rest_log): the product of two numbers where it and both of them are normal, else
// e^{log first + rest_log} (first's logarithm is accurate where its value is not), moved up from the subnormal grid.
// exp returns 0 below e^-745.13, which e^{x} (1 + 2^-42) may still pass: the bound's kernel then reports the least
// subnormal where the exact bound is positive (at_least_least_subnormal).
inline double first_times_exp(const contraction_factor& first, double rest_log) {
    if (first.value >= 1e-250) {
        const double rest = std::exp(rest_log);
        if (normal(rest) && normal(first.value * rest * safe_side)) return first.value * rest * safe_side;
    }
    return up_from_subnormal(std::exp(first.log_value + rest_log) * safe_side);
}

// A delta whose double is 0 where the exact bound is positive, reported as the least subnormal (4.9e-324): an upper
// bound is never below the truth, and the least double above a positive number under half that step is the step
// itself.  A bound is exactly 0 only where a factor is (theta_eps(0), eps = inf, the Laplace factor for eps >= g).
inline double at_least_least_subnormal(double delta, bool exact_positive) {
    return delta == 0.0 && exact_positive ? std::numeric_limits<double>::denorm_min() : delta;
}

// Whether theta_eps(r) > 0: for every r > 0 and finite eps (N(r, 1) and N(0, 1) differ on every event of one's
// positive measure), 0 at r = 0 and at eps = inf.
inline bool gaussian_positive(double r, double eps) { return r > 0.0 && eps < inf; }

// Whether the first factor of a factor table's entry is positive: its value, or its logarithm where the value is
// below the double range (gaussian_factor_pair gives a vanishing positive factor the least finite logarithm).
inline bool table_first_positive(double a_value, double a_log) { return a_value > 0.0 || a_log > -inf; }

inline bool valid_common(double eps, double weight, double r_first) {
    return eps >= 0.0 && weight > 0.0 && r_first >= 0.0;
}

// Whether w theta_eps(r1) S rounds to 0 for every w S <= e^log_rest_bound, whatever the second factor:
// for x1 = eps/r1 - r1/2 >= 1, theta_eps(r1) <= Q(x1) <= phi(x1) / x1 < e^{-x1^2/2}, so the log route's
// exp (first_times_exp: theta_eps(r1) < 1e-250 there) takes an argument below -760 + 1e-9, where
// e^x < 2^-1096 rounds to 0 (below half the least subnormal, e^-745.13).  x1 here carries a few ulp
// (eps/r1 <= 1.5 x1 when r1 <= x1, so no cancellation).  Finite eps only: the second factor is then
// a number (NaN only where r2 and eps are both infinite or r2 is not >= 0) and its sum S is finite.
constexpr double vanishing_log = -760.0;

inline bool bound_vanishes(double eps, double r_first, double log_rest_bound) {
    if (!(eps >= 0.0 && eps < inf && r_first >= 0.0 && log_rest_bound < inf)) return false;
    const double x1 = eps / r_first - 0.5 * r_first;
    return x1 >= 1.0 && r_first <= x1 && -0.5 * x1 * x1 + log_rest_bound < vanishing_log;
}

// The factors as the closed forms read them, from a factor table's fields.
inline contraction_factor product_factor_from(double complement, double log_value, double log_complement) {
    return {nan, log_value, complement, nan, log_complement};
}
inline contraction_factor first_factor_from(double value, double log_value) {
    return {value, log_value, 1.0 - value, nan, nan};
}

// w a G(b, T) with T = inf where 1 - b is subnormal or below the double range (b.log_complement finite):
// e^{log a + log w - log(1 - b)}, 002 eq. 16.  The three logarithms are each within half an ulp of their magnitude
// (2^-53 |x|) of the exact values, up to the few ulp of 1 that safe_side covers, and the two sums round by at most
// 2^-53 of the sum of the magnitudes: the exponent errs by at most 3 * 2^-53 s < 2^-51 s with
// s = |log a| + |log w| + |log(1 - b)|, so the value is moved up by e^{2^-51 s} besides safe_side (8.9e-13 at
// s = 2000: here the logarithms' magnitudes far exceed log delta's, and their roundings, not delta's, set the margin).
// A subnormal value is moved up by one step of the subnormal grid, which its rounding may have lost.
inline double geometric_value_below_range(const contraction_factor& a, double log_weight, double log_complement) {
    const double spread = std::fabs(a.log_value) + std::fabs(log_weight) + std::fabs(log_complement);
    const double margin = std::isfinite(spread) ? std::exp(0x1p-51 * spread) : 1.0;  // a = 0: the bound is 0
    const double value = first_times_exp(a, log_weight - log_complement) * margin;
    return value > 0.0 && value < std::numeric_limits<double>::min() ? std::nextafter(value, inf) : value;
}

// w a G(b, T) by logarithms (first_times_exp): G = T where 1 - b underflows (T finite), and 1 / (1 - b) from b's
// log_complement where T = inf and 1 - b is below the normal range.  Where theta(r1) < 1e-250 and
// theta(r1) w T < e^-760, the exp would return 0 (bound_vanishes's argument, G <= T) and is not evaluated.
inline double geometric_value_by_logs(double weight, double terms, const contraction_factor& a,
                                      const contraction_factor& b, weight_terms_logs& logs) {
    logs.at(weight, terms);
    const double log_rest_bound = logs.log_weight + logs.log_terms;
    if (!(a.value >= 1e-250) && a.log_value + log_rest_bound < vanishing_log && log_rest_bound < inf &&
        !std::isnan(b.log_value) && !std::isnan(b.complement))
        return 0.0;
    double log_sum;  // log_geometric_sum(b, terms)
    if (b.log_value == -inf)
        log_sum = 0.0;
    else if (std::isinf(terms) && log_complement_serves(b))
        return geometric_value_below_range(a, logs.log_weight, b.log_complement);
    else if (b.complement == 0.0 && a.value >= 1e-250 && normal(a.value * logs.exp_of_sum() * safe_side))
        return a.value * logs.exp_of_sum() * safe_side;  // first_times_exp's first route, e^{rest} kept
    else if (b.complement == 0.0)
        log_sum = logs.log_terms;
    else
        log_sum = std::log(-std::expm1(terms * b.log_value)) - std::log(b.complement);
    return first_times_exp(a, logs.log_weight + log_sum);
}

// w a G(b, T): with one expm1 when everything is a normal number, else by logs (geometric_value_by_logs).
inline double geometric_value(double weight, double terms, const contraction_factor& a, const contraction_factor& b,
                              weight_terms_logs& logs) {
    if (a.value >= 1e-250 && b.complement >= 1e-250 && b.log_value > -inf && std::isfinite(terms) &&
        normal(weight * a.value))
        return weight * a.value * (-std::expm1(terms * b.log_value) / b.complement) * safe_side;
    return geometric_value_by_logs(weight, terms, a, b, logs);
}

}  // namespace detail

// ---- factors shared across a grid axis ------------------------------------------
// On a grid where (eps, r1, r2) repeat along other axes (rounds, weight), the two
// Gaussian factors are evaluated once per distinct (eps, r1, r2) and combined later.
struct factor_pair {
    double first_value, first_log, product_complement, product_log;
    double product_log_complement;  // the product factor's log_complement where it serves, else 0 (not read)
};

// log_rest_bound: an upper bound on log(w S) over the points the pair serves (w the weight, S the sum
// over the second factor's powers: S <= T for the geometric sum, <= T^2 for the random stop's).  Where
// the bound vanishes at all of them (detail::bound_vanishes), both factors are given as theta = 0, from
// which the closed forms give what they would from the factors themselves, without evaluating either: the
// first factor's logarithm is the least finite double where theta_eps(r1) > 0 (its bound is then reported as
// the least subnormal), -inf where it is 0.
// The log complement of the second factor (read where T = inf) is formed only where the bound is inf.
inline factor_pair gaussian_factor_pair(double eps, double r_first, double r_product,
                                        double log_rest_bound = detail::inf) {
    constexpr double vanishing_positive = std::numeric_limits<double>::lowest();  // table_first_positive's mark
    const bool positive = detail::gaussian_positive(r_first, eps);
    if (r_product >= 0.0 && detail::bound_vanishes(eps, r_first, log_rest_bound))
        return {0.0, positive ? vanishing_positive : -detail::inf, 1.0, -detail::inf, 0.0};
    const contraction_factor a = gaussian_factor(r_first, eps, false);
    const contraction_factor b = gaussian_factor(r_product, eps, false, !(log_rest_bound < detail::inf));
    const double a_log = a.log_value == -detail::inf && positive ? vanishing_positive : a.log_value;
    return {a.value, a_log, b.complement, b.log_value, detail::log_complement_serves(b) ? b.log_complement : 0.0};
}

inline double geometric_bound_from_factors(double weight, double terms, double a_value, double a_log,
                                           double b_complement, double b_log, double b_log_complement,
                                           weight_terms_logs& logs) {
    if (!(weight > 0.0) || !(terms >= 1.0)) return detail::nan;
    return detail::at_least_least_subnormal(
        detail::at_most_one(detail::geometric_value(weight, terms, detail::first_factor_from(a_value, a_log),
                                                    detail::product_factor_from(b_complement, b_log, b_log_complement),
                                                    logs)),
        detail::table_first_positive(a_value, a_log));
}

inline double geometric_bound_from_factors(double weight, double terms, double a_value, double a_log,
                                           double b_complement, double b_log, double b_log_complement) {
    weight_terms_logs logs;
    return geometric_bound_from_factors(weight, terms, a_value, a_log, b_complement, b_log, b_log_complement, logs);
}

namespace detail {
// geometric_bound_from_factors(weight, terms, av, al, bc, bl, blc, logs) where weight > 0, 1 <= terms < inf and
// logs is at (weight, terms), so log_rest_bound = log w + log T: the three routes of geometric_value that
// take no logarithm at the point are written out with its expressions on the same values; the others call it.
inline double geometric_row_point(double weight, double terms, double log_rest_bound, double av, double al, double bc,
                                  double bl, double blc, weight_terms_logs& logs) {
    if (av >= 1e-250 && bc >= 1e-250 && bl > -inf && normal(weight * av))  // the expm1 route
        return at_most_one(weight * av * (-std::expm1(terms * bl) / bc) * safe_side);
    const bool numbers = !std::isnan(bl) && !std::isnan(bc);
    if (!(av >= 1e-250) && al + log_rest_bound < vanishing_log && log_rest_bound < inf && numbers)
        return at_least_least_subnormal(0.0, table_first_positive(av, al));  // the vanishing route
    if (bc == 0.0 && av >= 1e-250 && bl != -inf) {
        const double value = av * logs.exp_of_sum() * safe_side;  // G = T: the kept e^{log w + log T}
        if (normal(value)) return at_most_one(value);
    }
    return geometric_bound_from_factors(weight, terms, av, al, bc, bl, blc, logs);
}
}  // namespace detail

// geometric_bound_from_factors(weight, terms, a_value[j s], a_log[j s], b_complement[j s], b_log[j s],
// b_log_complement[j s]) -> out[j] for j < n: a row of a grid along which the weight and the number of terms are
// constant (a factor table's inner axis), each point by detail::geometric_row_point.  Returns whether an output
// is NaN.
inline bool geometric_row_from_factors(double weight, double terms, const double* a_value, const double* a_log,
                                       const double* b_complement, const double* b_log, const double* b_log_complement,
                                       std::ptrdiff_t s, std::int64_t n, double* out, weight_terms_logs& logs) {
    const bool row_constants = weight > 0.0 && terms >= 1.0 && std::isfinite(terms);
    if (row_constants) logs.at(weight, terms);
    const double log_rest_bound = logs.log_weight + logs.log_terms;
    bool nan = false;
    for (std::int64_t j = 0; j < n; ++j) {
        const double av = a_value[j * s], al = a_log[j * s], bc = b_complement[j * s], bl = b_log[j * s];
        const double blc = b_log_complement[j * s];
        out[j] = row_constants ? detail::geometric_row_point(weight, terms, log_rest_bound, av, al, bc, bl, blc, logs)
                               : geometric_bound_from_factors(weight, terms, av, al, bc, bl, blc, logs);
        nan |= std::isnan(out[j]);
    }
    return nan;
}

inline double random_stop_bound_from_factors(double weight, double terms, double first_stop, double a_value,
                                             double a_log, double b_complement, double b_log) {
    if (!(weight > 0.0) || !(first_stop >= 1.0 && first_stop <= terms)) return detail::nan;
    return detail::at_least_least_subnormal(
        detail::at_most_one(detail::first_times_exp(
            detail::first_factor_from(a_value, a_log),
            std::log(weight) + log_random_stop_geometric_sum(
                                   detail::product_factor_from(b_complement, b_log, detail::nan), terms, first_stop))),
        detail::table_first_positive(a_value, a_log));
}

// ---- geometric: w theta(r1) G(theta(r2), T) ---------------------------------------

inline log_and_slope geometric_bound_log(double eps, double weight, double terms, double r_first, double r_product) {
    if (!detail::valid_common(eps, weight, r_first) || !(terms >= 1.0) || !(r_product >= 0.0))
        return {detail::nan, detail::nan};
    const contraction_factor a = gaussian_factor(r_first, eps);
    const contraction_factor b = gaussian_factor(r_product, eps, true, std::isinf(terms));
    const log_and_slope g = log_geometric_sum_and_slope(b, terms);
    return {std::log(weight) + a.log_value + g.log_value, a.log_slope + g.slope};
}

inline double geometric_bound_delta(double eps, double weight, double terms, double r_first, double r_product) {
    if (!detail::valid_common(eps, weight, r_first) || !(terms >= 1.0) || !(r_product >= 0.0)) return detail::nan;
    // G(b, T) <= T: the bound is w theta(r1) G <= w T theta(r1), below the double range far out in theta's tail
    const bool positive = detail::gaussian_positive(r_first, eps);  // G >= 1
    if (eps > 38.0 * r_first && detail::bound_vanishes(eps, r_first, std::log(weight * terms)))
        return detail::at_least_least_subnormal(0.0, positive);
    const contraction_factor a = gaussian_factor(r_first, eps, false);
    const contraction_factor b = gaussian_factor(r_product, eps, false, std::isinf(terms));
    weight_terms_logs logs;
    return detail::at_least_least_subnormal(detail::at_most_one(detail::geometric_value(weight, terms, a, b, logs)),
                                            positive);
}

inline double geometric_bound_epsilon(double delta, double weight, double terms, double r_first, double r_product,
                                      evaluated_point* warm = nullptr) {
    if (!(delta > 0.0 && delta < 1.0)) return detail::nan;
    auto f = [&](double eps) { return geometric_bound_log(eps, weight, terms, r_first, r_product); };
    const double eps =
        solve_epsilon(f, detail::log_solver_target(delta), gaussian_epsilon_ceiling(r_first, delta), warm);
    return safe_epsilon(
        eps, [&](double e) { return geometric_bound_delta(e, weight, terms, r_first, r_product); }, delta);
}

// ---- random stop: w theta(r1) sum_{tau=tau0..T} G(theta(r2), tau) -----------------

inline log_and_slope random_stop_bound_log(double eps, double weight, double terms, double first_stop, double r_first,
                                           double r_product) {
    if (!detail::valid_common(eps, weight, r_first) || !(first_stop >= 1.0 && first_stop <= terms) ||
        !(r_product >= 0.0))
        return {detail::nan, detail::nan};
    const contraction_factor a = gaussian_factor(r_first, eps, false);
    const contraction_factor b = gaussian_factor(r_product, eps, false);
    return {std::log(weight) + a.log_value + log_random_stop_geometric_sum(b, terms, first_stop), detail::nan};
}

inline double random_stop_bound_delta(double eps, double weight, double terms, double first_stop, double r_first,
                                      double r_product) {
    if (!detail::valid_common(eps, weight, r_first) || !(first_stop >= 1.0 && first_stop <= terms) ||
        !(r_product >= 0.0))
        return detail::nan;
    const contraction_factor a = gaussian_factor(r_first, eps, false);
    const contraction_factor b = gaussian_factor(r_product, eps, false);
    return detail::at_least_least_subnormal(
        detail::at_most_one(
            detail::first_times_exp(a, std::log(weight) + log_random_stop_geometric_sum(b, terms, first_stop))),
        detail::gaussian_positive(r_first, eps));  // the sum over tau is at least 1
}

inline double random_stop_bound_epsilon(double delta, double weight, double terms, double first_stop, double r_first,
                                        double r_product, evaluated_point* warm = nullptr) {
    if (!(delta > 0.0 && delta < 1.0)) return detail::nan;
    auto f = [&](double eps) { return random_stop_bound_log(eps, weight, terms, first_stop, r_first, r_product); };
    const double eps =
        solve_epsilon(f, detail::log_solver_target(delta), gaussian_epsilon_ceiling(r_first, delta), warm);
    return safe_epsilon(
        eps, [&](double e) { return random_stop_bound_delta(e, weight, terms, first_stop, r_first, r_product); },
        delta);
}

// ---- power: F(g1) F(g2)^k with F Gaussian (theta) or Laplace ----------------------

enum class noise_kind { gaussian, laplace };

inline contraction_factor noise_factor(noise_kind kind, double g, double eps) {
    return kind == noise_kind::gaussian ? gaussian_factor(g, eps) : laplace_factor(g, eps);
}

namespace detail {
// Whether F(g) > 0: theta_eps(g) for g > 0 and finite eps; the Laplace factor [1 - e^{(eps - g)/2}]_+ for eps < g.
inline bool noise_positive(noise_kind kind, double g, double eps) {
    return kind == noise_kind::gaussian ? gaussian_positive(g, eps) : eps < g;
}
}  // namespace detail

inline log_and_slope power_bound_log(noise_kind kind, double eps, double exponent, double g_first, double g_product) {
    if (!(eps >= 0.0) || !(exponent >= 0.0) || !(g_first >= 0.0) || !(g_product >= 0.0))
        return {detail::nan, detail::nan};
    const contraction_factor a = noise_factor(kind, g_first, eps);
    if (exponent == 0.0) return {a.log_value, a.log_slope};
    const contraction_factor b = noise_factor(kind, g_product, eps);
    return {a.log_value + exponent * b.log_value, a.log_slope + exponent * b.log_slope};
}

inline double power_bound_delta(noise_kind kind, double eps, double exponent, double g_first, double g_product) {
    if (!(eps >= 0.0) || !(exponent >= 0.0) || !(g_first >= 0.0) || !(g_product >= 0.0)) return detail::nan;
    const contraction_factor a = noise_factor(kind, g_first, eps);
    const bool first_positive = detail::noise_positive(kind, g_first, eps);
    if (exponent == 0.0)
        return detail::at_least_least_subnormal(
            detail::at_most_one(detail::normal(a.value)
                                    ? a.value * detail::safe_side
                                    : detail::up_from_subnormal(std::exp(a.log_value) * detail::safe_side)),
            first_positive);
    const contraction_factor b = noise_factor(kind, g_product, eps);
    return detail::at_least_least_subnormal(detail::at_most_one(detail::first_times_exp(a, exponent * b.log_value)),
                                            first_positive && detail::noise_positive(kind, g_product, eps));
}

inline double power_bound_epsilon(noise_kind kind, double delta, double exponent, double g_first, double g_product,
                                  evaluated_point* warm = nullptr) {
    if (!(delta > 0.0 && delta < 1.0)) return detail::nan;
    auto f = [&](double eps) { return power_bound_log(kind, eps, exponent, g_first, g_product); };
    double hi;
    if (kind == noise_kind::gaussian) {
        hi = gaussian_epsilon_ceiling(g_first, delta);
    } else {  // the Laplace factor vanishes for eps >= g: delta = 0 there
        hi = (exponent > 0.0 && g_product < g_first) ? g_product : g_first;
        if (!(hi > 0.0) || std::isinf(hi)) hi = 1.0;
    }
    const double eps = solve_epsilon(f, detail::log_solver_target(delta), hi, warm);
    return safe_epsilon(eps, [&](double e) { return power_bound_delta(kind, e, exponent, g_first, g_product); }, delta);
}

// ---- schedule: per-round radii, O(T) ----------------------------------------------

// first_stop = 0: w sum_t a_t prod_{j>t} b_j; first_stop >= 1: w sum_{tau >= first_stop} S_tau.
inline log_and_slope schedule_bound_log(double eps, double weight, std::int64_t first_stop, std::int64_t rounds,
                                        const double* r_first, const double* r_product) {
    if (!(eps >= 0.0) || !(weight > 0.0)) return {detail::nan, detail::nan};
    auto factors = [&](std::int64_t t, contraction_factor& a, contraction_factor& b) {
        a = gaussian_factor(r_first[t], eps);
        b = gaussian_factor(r_product[t], eps);
    };
    const log_and_slope s = contraction_recursion(rounds, first_stop, factors);
    return {std::log(weight) + s.log_value, s.slope};
}

namespace detail {
// Whether the schedule's bound is positive, by the recursion's own order (sums.hpp, contraction_recursion): S
// after round t is b_t S + a_t, positive where a_t is or where b_t and the S before are; with first_stop >= 1
// the bound sums S after the rounds t + 1 >= first_stop.
inline bool schedule_positive(double eps, std::int64_t first_stop, std::int64_t rounds, const double* r_first,
                              const double* r_product) {
    bool s = false, r = false;
    for (std::int64_t t = 0; t < rounds; ++t) {
        s = gaussian_positive(r_first[t], eps) || (s && gaussian_positive(r_product[t], eps));
        if (first_stop > 0 && t + 1 >= first_stop) r = r || s;
    }
    return first_stop > 0 ? r : s;
}
}  // namespace detail

inline double schedule_bound_delta(double eps, double weight, std::int64_t first_stop, std::int64_t rounds,
                                   const double* r_first, const double* r_product) {
    const double delta = detail::at_most_one(detail::up_from_subnormal(
        std::exp(schedule_bound_log(eps, weight, first_stop, rounds, r_first, r_product).log_value) *
        detail::safe_side));
    if (delta != 0.0 || !(weight > 0.0)) return delta;
    return detail::at_least_least_subnormal(delta,
                                            detail::schedule_positive(eps, first_stop, rounds, r_first, r_product));
}

inline double schedule_bound_epsilon(double delta, double weight, std::int64_t first_stop, std::int64_t rounds,
                                     const double* r_first, const double* r_product) {
    if (!(delta > 0.0 && delta < 1.0) || rounds < 1) return detail::nan;
    double r_max = 0.0;
    for (std::int64_t t = 0; t < rounds; ++t) r_max = r_first[t] > r_max ? r_first[t] : r_max;
    auto f = [&](double eps) { return schedule_bound_log(eps, weight, first_stop, rounds, r_first, r_product); };
    const double eps = solve_epsilon(f, detail::log_solver_target(delta), gaussian_epsilon_ceiling(r_max, delta));
    return safe_epsilon(
        eps, [&](double e) { return schedule_bound_delta(e, weight, first_stop, rounds, r_first, r_product); }, delta);
}

}  // namespace hockeystick
