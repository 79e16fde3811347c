// The subsampled Gaussian mechanism on fixed-size batches under replace-one neighbours, drawn
// WITH replacement (the per-silo message of Noisy MB-SGD, Lowy & Razaviyayn, paper 003, Alg. 2)
// or WITHOUT (the usual fixed-size DP-SGD batch).
//
// Setting, in units of Delta (the norm bound of one record's contribution to the released
// statistic, Delta = L/K for the mean of K clipped gradients; s = sigma/Delta): the replaced
// record appears c times in the batch, c ~ Binomial(K, p = 1/n) for K draws with replacement
// from n records, c ~ Bernoulli(q = m/n) for m draws without replacement, and moves the output
// by c u with |u| <= 2 Delta.  Everything below holds for either law of c, b_c its pmf.
//
// Lower side (realizable, hence a certified lower bound): all other records share one
// gradient w, the replacing record has gradient w too and the replaced one w + 2L e_1:
//     P_low = sum_c b_c N(2c, s^2)   vs   Q_low = N(0, s^2),      b_c = Binom(c; K, 1/n),
// the same pair in every round (a linear loss has constant gradients).
//
// Upper side (proved for every dimension and every configuration): with eta = 1 - b_0 and,
// for gamma = e^eps >= 1, gamma' = 1 + (gamma - 1)/eta,
//     H_gamma(M(D) || M(D')) <= sum_{c >= 1} b_c theta(2c/s, log gamma').          (*)
// Proof.  Couple the two runs on the same index sequence.  Batches with c = 0 give one common
// component R, so M(D) = b_0 R + eta P1, M(D') = b_0 R + eta Q1, and the advanced joint
// convexity of Balle, Barthe & Gaboardi (NeurIPS 2018, Thm 2) gives
//     H_gamma(M(D) || M(D')) = eta H_gamma'(P1 || (1 - beta) R + beta Q1),  beta = gamma/gamma',
// which by joint convexity is <= eta [(1 - beta) H_gamma'(P1 || R) + beta H_gamma'(P1 || Q1)].
// H(P1 || Q1): same batch, means differ by c u, |c u| <= 2c Delta; joint convexity over the
// batch gives <= E[theta(2c/s) | c >= 1].  H(P1 || R): replace each copy of the record by an
// independent uniform draw among the other n - 1 records (without replacement: by a uniform
// record not in the batch); this maps the batch law given c >= 1 onto the batch law given
// c = 0, and moves the mean by <= 2c Delta; joint convexity again.
// The right side of (*) is the curve of the "labelled" pair (the adversary also sees c >= 1)
//     P_up = sum_{c>=1} (b_c/eta) [c] x (b_0 N(0, s^2) + eta N(2c, s^2)),
//     Q_up = sum_{c>=1} (b_c/eta) [c] x N(0, s^2),
// whose PLD is the b_c/eta-mixture of Poisson-remove PLDs (rate eta, shift 2c).  For c in {0, 1}
// (without replacement, or K = 1) (*) is attained by the lower pair: one round is exact, and
// the pair (1-q) N(0) + q N(1) vs (1-q) N(0) + q N(-1) often quoted for this setting (with
// shift 1 = Delta, dp_accounting's REPLACE_ONE pair with sensitivity Delta) is NOT an upper
// bound: with the other records at -L it is exceeded by orders of magnitude (tests).
//
// Composition needs domination for every gamma >= 0, not just gamma >= 1: replace-one is a
// symmetric relation, so a round may be "remove-like" or "add-like" (the adversary can swap
// the two records' gradients between rounds).  The upper PLD is therefore symmetrised: its
// losses above 0 are those of the labelled pair, below 0 their mirror image (P-density
// e^{-l} p(-l)), and the remaining mass sits at loss 0.  Its curve is (*) for eps >= 0 and
// 1 - gamma + gamma H(1/gamma) below, which bounds every ordered pair of neighbours in both
// directions, so it is a dominating pair in the sense of Zhu, Dong & Wang (AISTATS 2022, Def. 7)
// and its compositions are certified upper bounds under adaptive composition.
//
// A lemma on the way to the tightest bound, for draws with replacement (already tighter than (*)
// when counts c >= 2 matter, since (*) amplifies every c by eta only):
//     H_gamma(M(D) || M(D')) <= H_gamma(sum_c b_c N(2c, s^2) || sum_c b_c N(-2c, s^2))     (**)
// for every gamma >= 0, both orders, any dimension.  Proof.  Conditional coupling (Schuchardt,
// Stoian, Kosmala & Guennemann, NeurIPS 2024, Sec. 3): draw Z = (z_1 .. z_K) i.i.d. uniform among
// the other n - 1 records (their contributions, norm <= Delta = 1 in these units) and, independently,
// c ~ Binomial(K, 1/n); the batch "c copies of the record, then z_{c+1} .. z_K" has the batch law.
// Given Z, both outputs are b_c-mixtures of N(B + mu_c) and N(B + nu_c), B = sum_j z_j,
// mu_c = sum_{j <= c} (a - z_j), nu_c = sum_{j <= c} (a' - z_j) (a, a' the record's two values), so
// mu_0 = nu_0 = 0 and |mu_c|, |nu_c| <= 2c, and joint convexity of H_gamma over Z leaves one such
// pair.  For a set A let alpha = Phi^-1(N(0, s^2)(A)); the Gaussian shift inequality (Neyman-
// Pearson for two Gaussians: a half-space is extremal) gives N(mu_c)(A) <= Phi(alpha + 2c/s) and
// N(nu_c)(A) >= Phi(alpha - 2c/s), so P(A) - gamma Q(A) is at most the same expression for the
// half-space {x > -s alpha} under the 1-D pair (**).  The bound is symmetric in the two records,
// and (**) is its own mirror image, so it is a dominating pair and composes adaptively.
//
// The tightest of the three, the shift-constrained curve (computed in the Python facade,
// python/hockeystick/pld/sampling/with_replacement_shift_bound.py, from the same coupling):
//     H_gamma(M(D) || M(D')) <= D(gamma) = sup_alpha [ b_0 (1 - gamma) Phi(alpha)
//         + sum_{c>=1} b_c max_{alpha - r_c <= beta <= alpha} (Phi(beta + r_c) - gamma Phi(beta)) ],
// r_c = 2c/s, for every gamma >= 0 and both orders.  Proof.  As for (**), keep also the third
// constraint |mu_c - nu_c| = c |a - a'| <= 2c.  For a set A let alpha = Phi^-1(N(0)(A)) and
// beta_c = Phi^-1(N(nu_c)(A)).  The shift inequality gives beta_c >= alpha - r_c (from |nu_c|),
// N(mu_c)(A) <= Phi(beta_c + r_c) (from |mu_c - nu_c|) and N(mu_c)(A) <= Phi(alpha + r_c) (from
// |mu_c|); for beta_c > alpha the last bound and -gamma Phi(beta_c) only fall, so the c-th term
// of P(A) - gamma Q(A) is at most the inner max, and the c = 0 term is b_0 (1 - gamma) Phi(alpha)
// exactly.  beta_c = alpha for every c is the realizable pair, so D never falls below the lower
// side; taking the first Phi at alpha + r_c and the second at alpha - r_c gives (**), so D <= (**).
// D is convex and non-increasing in gamma (a sup of affine functions), so its chords on the grid
// gamma_k = e^{kh} lie above it; they are the curve of a PMF with Q-mass (the slope change) at loss
// kh, mirrored below loss 0 (D bounds both orders), hence a dominating pair that composes
// adaptively.  At paper 003's App. I rows (n = 1238, R = 35, K = 91 .. 444) the composed bracket
// [realizable, min((*), D)] is within 5 % of epsilon (docs/paper-003-errata.md).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "hockeystick/numerics/gaussian_tail.hpp"
#include "hockeystick/pld/grid/cells.hpp"

namespace hockeystick {
namespace pld {

// log Binom(c; K, p) for c = 0 .. K.
inline std::vector<double> log_binomial_pmf(std::int64_t K, double p) {
    std::vector<double> out(K + 1);
    const double lp = std::log(p), lq = std::log1p(-p), lk = std::lgamma(K + 1.0);
    for (std::int64_t c = 0; c <= K; ++c)
        out[c] = lk - std::lgamma(c + 1.0) - std::lgamma(K - c + 1.0) + (c > 0 ? c * lp : 0.0) +
                 (K - c > 0 ? (K - c) * lq : 0.0);
    return out;
}

// The law of the replaced record's copy count: weights kept (c = 0 .. c_max) and the mass cut
// beyond c_max.
struct CopyCounts {
    std::vector<double> weight;  // b_c, c = 0 .. c_max
    double eta = 0.0;            // 1 - b_0, computed without cancellation
    double cut = 0.0;            // sum_{c > c_max} b_c
};

// 1 - b_0 = 1 - (1 - 1/n)^K, the probability that the record is drawn at least once.
inline double binomial_eta(std::int64_t K, std::int64_t n) {
    return n == 1 ? 1.0 : -std::expm1(static_cast<double>(K) * std::log1p(-1.0 / static_cast<double>(n)));
}

// Keeps the smallest c_max >= 1 with sum_{c > c_max} b_c <= budget.
inline CopyCounts binomial_counts(std::int64_t K, std::int64_t n, double budget) {
    if (K < 1) throw std::invalid_argument("batch_size must be at least 1");
    if (n < 1) throw std::invalid_argument("dataset_size must be at least 1");
    const double p = 1.0 / static_cast<double>(n);
    CopyCounts out;
    out.eta = binomial_eta(K, n);
    std::vector<double> b(K + 1);
    if (n == 1) {
        std::fill(b.begin(), b.end(), 0.0);
        b[K] = 1.0;
    } else {
        const std::vector<double> lb = log_binomial_pmf(K, p);
        for (std::int64_t c = 0; c <= K; ++c) b[c] = std::exp(lb[c]);
    }
    // Suffix sums from the top (the terms beyond the mode decrease, so this is accurate).
    std::vector<double> above(K + 2, 0.0);  // above[c] = sum_{c' >= c} b_c'
    for (std::int64_t c = K; c >= 0; --c) above[c] = above[c + 1] + b[c];
    std::int64_t c_max = 1;
    while (c_max < K && above[c_max + 1] > budget) ++c_max;
    c_max = std::min<std::int64_t>(c_max, K);
    out.weight.assign(b.begin(), b.begin() + c_max + 1);
    out.cut = above[c_max + 1];
    return out;
}

// One copy with probability q (a batch of m drawn without replacement from n: q = m/n).
inline CopyCounts bernoulli_counts(double q) {
    if (!(q > 0.0 && q <= 1.0)) throw std::invalid_argument("sampling rate must lie in (0, 1]");
    CopyCounts out;
    out.weight = {1.0 - q, q};
    out.eta = q;
    return out;
}

namespace detail {

// P = sum_{c <= c_max} b_c N(c, s^2) (a sub-probability when counts are cut), Q = N(0, s^2):
// the realizable pair in units where one copy moves the output by 1 (s = sigma/(2 Delta)).
// L(x) = log sum_c b_c exp((c x - c^2/2)/s^2), convex and increasing in x.
struct binomial_shifts_vs_gaussian {
    std::vector<double> log_b;  // log b_c (-inf for b_c = 0)
    double s;
    std::vector<double> table_x, table_l;  // losses on a grid of x, to start the inversion

    double exponent(std::size_t c, double x) const {
        const double cc = static_cast<double>(c);
        return log_b[c] + (cc * x - 0.5 * cc * cc) / (s * s);
    }
    // L(x) and, if wanted, the posterior mean of c at x (L'(x) = mean / s^2), in one pass.
    double loss(double x, double* mean = nullptr) const {
        double top = -std::numeric_limits<double>::infinity();
        for (std::size_t c = 0; c < log_b.size(); ++c) top = std::max(top, exponent(c, x));
        double sum = 0.0, first = 0.0;
        for (std::size_t c = 0; c < log_b.size(); ++c) {
            const double e = exponent(c, x) - top;
            if (e < -60.0) continue;  // below 1e-26 of the largest term
            const double w = std::exp(e);
            sum += w;
            first += w * static_cast<double>(c);
        }
        if (mean) *mean = first / sum;
        return top + std::log(sum);
    }
    void build_table(double x_lo, double x_hi) {
        const int m = 4096;
        table_x.resize(m + 1);
        table_l.resize(m + 1);
        for (int i = 0; i <= m; ++i) {
            table_x[i] = x_lo + (x_hi - x_lo) * i / m;
            table_l[i] = loss(table_x[i]);
        }
    }
    // [lo, hi] with L(lo) <= l <= L(hi): the table's cell of l, widened (up to 64 times each way) past its ends.
    void bracket_of_loss(double l, double& lo, double& hi) const {
        const std::size_t i =
            static_cast<std::size_t>(std::upper_bound(table_l.begin(), table_l.end(), l) - table_l.begin());
        lo = i == 0 ? table_x.front() - 1.0 : table_x[i - 1];
        hi = i == table_l.size() ? table_x.back() + 1.0 : table_x[i];
        for (int k = 0; k < 64 && loss(lo) > l; ++k) lo -= 2.0 * (hi - lo);
        for (int k = 0; k < 64 && loss(hi) < l; ++k) hi += 2.0 * (hi - lo);
    }
    // Inverse of L: bracket from the table, then safeguarded Newton.
    double x_of_loss(double l) const {
        if (!std::isfinite(l)) return l;
        double lo, hi;
        bracket_of_loss(l, lo, hi);
        double x = 0.5 * (lo + hi);
        for (int it = 0; it < 200; ++it) {
            double mean = 0.0;
            const double f = loss(x, &mean) - l;
            if (f == 0.0) return x;
            (f < 0.0 ? lo : hi) = x;
            const double g = mean / (s * s);
            double next = g > 0.0 ? x - f / g : 0.5 * (lo + hi);
            if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
            const double tol = 1e-15 * std::max(1.0, std::fabs(x));
            if (std::fabs(next - x) <= tol || hi - lo <= tol) return next;
            x = next;
        }
        return x;
    }
    // A bound on the error of loss(x) as computed: each exponent log b_c + (c x - c^2 / 2) / s^2 within
    // 4u (|log b_c| + (c |x| + c^2) / s^2), the same again once the largest is subtracted; exp, the
    // sum of <= C terms and log add u (C + 3) relative, the dropped terms (below e^-60 of the largest)
    // C e^-60, and the final sum u |L|.  Bounded by 16u (2 + |L| + C + max |log b_c| + C (|x| + C) / s^2)
    // + C 1e-26 (C = log_b.size()).
    double loss_error(double x, double l) const {
        const double count = static_cast<double>(log_b.size());
        double log_b_max = 0.0;
        for (const double v : log_b)
            if (std::isfinite(v)) log_b_max = std::max(log_b_max, std::fabs(v));
        return 8.0 * std::numeric_limits<double>::epsilon() *
                   (2.0 + std::fabs(l) + count + log_b_max + count * (std::fabs(x) + count) / (s * s)) +
               count * 1e-26;
    }
    // Checked a posteriori at each edge (the edges come from a Newton iteration): |loss(x_i) - l_i| as
    // computed, plus twice loss_error (once for this evaluation, once for the kernel's weights
    // w_c = e^{exponent_c - loss(x0)}, whose relative error moves each cell's losses as much).
    double edge_loss_error(const double* l, const double* x, std::int64_t count) const {
        double worst = 0.0;
        for (std::int64_t i = 0; i < count; ++i) {
            const double at = loss(x[i]);
            worst = std::max(worst, std::fabs(at - l[i]) + 2.0 * loss_error(x[i], at));
        }
        return worst * (1.0 + 4.0 * std::numeric_limits<double>::epsilon());
    }
    auto steps_from(double x0) const {
        // L(x0 + dx) - L(x0) = log sum_c w_c(x0) e^{c dx/s^2} = log1p(sum_c w_c expm1(c dx/s^2)).
        // A weight that underflows (little noise, x0 far below) while e^{c dx/s^2} overflows
        // across a wide cell would give 0 * inf: such terms are e^{log w_c + a} (1 - e^{-a}).
        const double l0 = loss(x0), s2 = s * s;
        std::vector<double> w(log_b.size()), log_w(log_b.size());
        for (std::size_t c = 0; c < log_b.size(); ++c) {
            log_w[c] = exponent(c, x0) - l0;
            w[c] = std::exp(log_w[c]);
        }
        return [w, log_w, s2](double dx) {
            double acc = 0.0;
            for (std::size_t c = 1; c < w.size(); ++c) {
                const double a = static_cast<double>(c) * dx / s2;
                acc += w[c] < 1e-250 && a > 0.0 ? std::exp(log_w[c] + a) * -std::expm1(-a) : w[c] * std::expm1(a);
            }
            return std::log1p(acc);
        };
    }
    double density(double x) const {
        double sum = 0.0;
        for (std::size_t c = 0; c < log_b.size(); ++c)
            if (std::isfinite(log_b[c])) sum += std::exp(log_b[c]) * gaussian_density((x - static_cast<double>(c)) / s);
        return sum / s;
    }
    double scale(double x) const {
        const double top = static_cast<double>(log_b.size() - 1);
        return 0.25 * s / std::max({1.0, std::fabs(x / s), std::fabs((x - top) / s)});
    }
    double mass_below(double x) const {
        double sum = 0.0;
        for (std::size_t c = 0; c < log_b.size(); ++c)
            if (std::isfinite(log_b[c])) sum += std::exp(log_b[c]) * gaussian_tail((static_cast<double>(c) - x) / s);
        return sum;
    }
    double mass_above(double x) const {
        double sum = 0.0;
        for (std::size_t c = 0; c < log_b.size(); ++c)
            if (std::isfinite(log_b[c])) sum += std::exp(log_b[c]) * gaussian_tail((x - static_cast<double>(c)) / s);
        return sum;
    }
};

// Adds weight * cells into acc (both on the grid of spacing h; acc grows to cover both).
inline void add_cells(Cells& acc, const Cells& part, double weight) {
    if (acc.c.empty()) {
        acc.k_lo = part.k_lo;
        acc.c.assign(part.c.size(), 0.0);
        acc.d.assign(part.d.size(), 0.0);
    }
    const std::int64_t lo = std::min(acc.k_lo, part.k_lo);
    const std::int64_t hi = std::max(acc.k_lo + static_cast<std::int64_t>(acc.c.size()),
                                     part.k_lo + static_cast<std::int64_t>(part.c.size()));
    if (lo < acc.k_lo || hi > acc.k_lo + static_cast<std::int64_t>(acc.c.size())) {
        std::vector<double> c(hi - lo, 0.0), d(hi - lo, 0.0);
        std::copy(acc.c.begin(), acc.c.end(), c.begin() + (acc.k_lo - lo));
        std::copy(acc.d.begin(), acc.d.end(), d.begin() + (acc.k_lo - lo));
        acc.c.swap(c);
        acc.d.swap(d);
        acc.k_lo = lo;
    }
    const std::int64_t off = part.k_lo - acc.k_lo;
    for (std::size_t j = 0; j < part.c.size(); ++j) {
        acc.c[off + j] += weight * part.c[j];
        acc.d[off + j] += weight * part.d[j];
    }
    acc.tail_lo += weight * part.tail_lo;
    acc.tail_hi += weight * part.tail_hi;
    acc.edge_error = std::max(acc.edge_error, part.edge_error);
}

// The symmetric pair whose losses above 0 are those of `cells` (cells (l_k, l_{k+1}], k >= 0),
// mirrored below 0, with the rest of the mass at loss 0 (see the header comment).  A cell
// (l, l + h] with (c, d) mirrors to (-l - h, -l] with (e^{-l-h} d, e^{-l} c).  The P-mass of the
// mirrored part above l_N (<= e^{-l_N} tail_hi, not known exactly) is rounded up to loss 0.
inline Cells symmetrised_cells(const Cells& cells) {
    const double h = cells.h;
    const std::int64_t top = std::max<std::int64_t>(cells.k_lo + static_cast<std::int64_t>(cells.c.size()), 1);
    Cells out;
    out.h = h;
    out.k_lo = -top;
    out.c.assign(2 * top, 0.0);
    out.d.assign(2 * top, 0.0);
    out.tail_hi = cells.tail_hi;
    out.edge_error = cells.edge_error;  // a mirrored cell's losses are moved as much, its masses swapped
    const double em1 = std::expm1(h);
    double kept = 0.0;  // P- plus Q-mass of the cells above 0
    for (std::int64_t k = 0; k < top; ++k) {
        const std::int64_t j = k - cells.k_lo;
        if (j < 0 || j >= static_cast<std::int64_t>(cells.c.size())) continue;
        const double c = cells.c[j], d = cells.d[j];
        const CellMass mass = cell_mass(c, d, em1);
        kept += mass.p + mass.q_scaled * std::exp(-k * h);
        out.c[top + k] = c;
        out.d[top + k] = d;
        out.c[top - 1 - k] = std::exp(-(k + 1) * h) * d;
        out.d[top - 1 - k] = std::exp(-k * h) * c;
    }
    add_atom(out, 0.0, std::max(1.0 - kept - cells.tail_hi, 0.0));
    return out;
}

}  // namespace detail

// Cells of the realizable pair sum_c b_c N(2c, s^2) vs N(0, s^2) (s = sigma/Delta): the lower side
// (with the half-cells, which tighten the optimistic PMF: pld/grid/connect_dots.hpp).
// The mass of the counts beyond c_max (counts.cut) is added to tail_hi with the upper x-tail, and the
// lower x-tail goes to tail_lo (<= tail/4 each side).  These cells feed optimistic_pmf only
// (pld/grid/connect_dots.hpp), which reads neither tail_hi nor tail_lo: on this lower side that mass is
// in effect dropped, which only lowers delta, so the side stays a lower bound.  (pessimistic_pmf
// would put tail_hi at +infinity; it is never built from these cells.)
inline Cells replace_one_lower_cells(double s, const CopyCounts& counts, double h, double tail,
                                     std::int64_t max_cells) {
    if (!(s > 0.0) || !std::isfinite(s)) throw std::invalid_argument("sigma/sensitivity must be positive and finite");
    if (!(tail > 0.0 && tail < 1.0)) throw std::invalid_argument("tail must lie in (0, 1)");
    detail::binomial_shifts_vs_gaussian mech{{}, 0.5 * s, {}, {}};
    mech.log_b.resize(counts.weight.size());
    for (std::size_t c = 0; c < counts.weight.size(); ++c)
        mech.log_b[c] = counts.weight[c] > 0.0 ? std::log(counts.weight[c]) : -std::numeric_limits<double>::infinity();
    const double z = gaussian_tail_inverse(0.25 * tail);
    const double x_lo = -z * mech.s, x_hi = static_cast<double>(counts.weight.size() - 1) + z * mech.s;
    mech.build_table(x_lo, x_hi);
    return detail::continuous_cells(mech, x_lo, x_hi, mech.mass_below(x_lo), mech.mass_above(x_hi) + counts.cut, h,
                                    max_cells, true);
}

// Cells of the symmetrised labelled pair of (*): the upper side.  Component c >= 1 is the
// Poisson-remove pair of rate eta = 1 - b_0 and shift 2c, i.e. subsampled_gaussian_cells with
// noise s/(2c), weighted b_c/eta; the counts beyond c_max (mass counts.cut) go to +infinity,
// each component's x-tails are <= tail/8 a side.
inline Cells replace_one_upper_cells(double s, const CopyCounts& counts, double h, double tail,
                                     std::int64_t max_cells) {
    if (!(s > 0.0) || !std::isfinite(s)) throw std::invalid_argument("sigma/sensitivity must be positive and finite");
    if (!(tail > 0.0 && tail < 1.0)) throw std::invalid_argument("tail must lie in (0, 1)");
    const double eta = counts.eta;
    // The work, estimated before any of it is done: the components' cells together <= max_cells.
    double cells = 0.0;
    for (std::size_t c = 1; c < counts.weight.size(); ++c)
        cells += subsampled_gaussian_loss_width(s / (2.0 * static_cast<double>(c)), eta, 0.25 * tail) / h;
    if (!(cells <= static_cast<double>(max_cells)))
        throw std::length_error("the loss grid would need more cells than max_cells");
    Cells acc;
    acc.h = h;
    for (std::size_t c = 1; c < counts.weight.size(); ++c) {
        if (!(counts.weight[c] > 0.0)) continue;
        const Cells part =
            subsampled_gaussian_cells(s / (2.0 * static_cast<double>(c)), eta, true, h, 0.25 * tail, max_cells, false);
        detail::add_cells(acc, part, counts.weight[c] / eta);
    }
    acc.tail_hi += counts.cut / eta;
    Cells out = detail::symmetrised_cells(acc);
    if (static_cast<std::int64_t>(out.c.size()) > max_cells)
        throw std::length_error("the loss grid would need more cells than max_cells");
    return out;
}

}  // namespace pld
}  // namespace hockeystick
