// Error-free transformations: a sum or product of two doubles written exactly
// as an unevaluated pair (hi, lo).
//
// Used where an exponent such as x^2/2 reaches several hundred and one
// rounding of it would cost 1e-13 relative in exp(-x^2/2) (and 1e-10 absolute
// in log-space results near -1e6).  References: T. J. Dekker, "A floating-point
// technique for extending the available precision", Numer. Math. 18 (1971);
// Knuth, TAOCP vol. 2, 3rd ed. (1997), 4.2.2 (two_sum).  Requires round-to-nearest and no
// contraction of a*b+c into an FMA (the build passes -ffp-contract=off).
#pragma once

#include <cmath>

namespace hockeystick {

struct double_double {
    double hi;
    double lo;
};

// a + b = hi + lo exactly (Knuth's branch-free two-sum).
inline double_double two_sum(double a, double b) {
    const double s = a + b;
    const double bb = s - a;
    const double e = (a - (s - bb)) + (b - bb);
    return {s, e};
}

// a * b = hi + lo exactly, barring overflow (Dekker's product with
// Veltkamp's split; valid for |a|, |b| < 2^996).
inline double_double two_prod(double a, double b) {
    constexpr double split = 134217729.0;  // 2^27 + 1
    const double p = a * b;
    const double ca = split * a;
    const double ah = ca - (ca - a);
    const double al = a - ah;
    const double cb = split * b;
    const double bh = cb - (cb - b);
    const double bl = b - bh;
    const double e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    return {p, e};
}

// (hi + lo)^2 to about 2^-104 relative.
inline double_double dd_square(double_double x) {
    double_double p = two_prod(x.hi, x.hi);
    p.lo += 2.0 * x.hi * x.lo;
    return two_sum(p.hi, p.lo);
}

// eps / r as a double-double: the quotient and the exact remainder over r.
inline double_double dd_divide(double eps, double r) {
    const double q = eps / r;
    const double_double qr = two_prod(q, r);
    const double rem = ((eps - qr.hi) - qr.lo);
    return two_sum(q, rem / r);
}

}  // namespace hockeystick
