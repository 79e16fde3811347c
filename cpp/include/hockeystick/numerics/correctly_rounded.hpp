// Integers computed exactly and rounded once to a double (round half to even): the sum of doubles (Python's
// math.fsum) and the binomial coefficient C(n, k) (Python's float(math.comb(n, k))).
//
// The sum.  Each finite double is m 2^(e - 1075), m its 53-bit significand (with its leading bit, but where
// subnormal) and e = max(its biased exponent, 1), so the sum of any of them is N 2^-1074 with N an integer of at most
// 2^11 + 64 bits.  Per sign and exponent e the low 32 and the high 21 bits of the significands are summed in 64-bit
// integers (below 2^32 each, so up to 2^32 of them add exactly: the sums are carried into N every kSumPass values),
// and N = sum_e (high_e 2^32 + low_e) 2^(e - 1), the positive sum less the negative one, is rounded once (Natural's
// rounded).  A correctly rounded sum is math.fsum's value (Shewchuk's partials and its final half-even correction,
// CPython's Modules/mathmodule.c), so the two agree bit for bit wherever fsum gives a finite sum; the sum of none, or
// of values cancelling to 0, is +0.0 (fsum's).  Non-finite values give fsum's answer: NaN, or the infinity present
// (std::invalid_argument where both infinities are); a sum past the largest double throws std::overflow_error
// (fsum's OverflowError; fsum also refuses where its partials overflow on the way, which a sum whose magnitude never
// exceeds the largest double, as a sum of masses, cannot do).
//
// The binomial coefficient.  C(n, k) = C(n, k') with k' = min(k, n - k), built as C(n - k' + i, i) = C(n - k' + i - 1,
// i - 1) (n - k' + i) / i for i = 1 .. k' (every division exact), then rounded once.  For k' <= n - k' these grow
// with i at least as C(2 i, i) >= 2^i, so a coefficient past the double range is known after at most about 1030
// steps, and +inf is returned without computing it whole.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

namespace hockeystick {

namespace detail {

// A natural number in 32-bit limbs, the least significant first.
class Natural {
  public:
    Natural() = default;
    explicit Natural(std::uint32_t v) : limbs_(1, v) {}

    bool is_zero() const { return bit_length() == 0; }

    // The number of bits of the value (0 for 0).
    int bit_length() const {
        for (std::size_t i = limbs_.size(); i > 0; --i)
            if (limbs_[i - 1] != 0) return static_cast<int>(32 * (i - 1)) + bits_of(limbs_[i - 1]);
        return 0;
    }

    // += value 2^shift.
    void add_shifted(std::uint64_t value, int shift) {
        if (value == 0) return;
        const std::size_t at = static_cast<std::size_t>(shift / 32);
        const int within = shift % 32;
        const std::uint32_t parts[3] = {static_cast<std::uint32_t>(value << within),
                                        static_cast<std::uint32_t>(within == 0 ? value >> 32 : value >> (32 - within)),
                                        static_cast<std::uint32_t>(within == 0 ? 0 : value >> (64 - within))};
        if (limbs_.size() < at + 4) limbs_.resize(at + 4, 0);
        std::uint64_t carry = 0;
        for (std::size_t i = at; i < limbs_.size() && (i < at + 3 || carry != 0); ++i) {
            const std::uint64_t t = std::uint64_t{limbs_[i]} + (i < at + 3 ? parts[i - at] : 0u) + carry;
            limbs_[i] = static_cast<std::uint32_t>(t);
            carry = t >> 32;
            if (carry != 0 && i + 1 == limbs_.size()) limbs_.push_back(0);
        }
    }

    // *= factor.
    void multiply(std::uint64_t factor) {
        const std::uint32_t f[2] = {static_cast<std::uint32_t>(factor), static_cast<std::uint32_t>(factor >> 32)};
        std::vector<std::uint32_t> out(limbs_.size() + 2, 0);
        for (std::size_t j = 0; j < 2; ++j) {
            std::uint64_t carry = 0;
            for (std::size_t i = 0; i < limbs_.size(); ++i) {
                const std::uint64_t t = std::uint64_t{limbs_[i]} * f[j] + out[i + j] + carry;
                out[i + j] = static_cast<std::uint32_t>(t);
                carry = t >> 32;
            }
            out[limbs_.size() + j] = static_cast<std::uint32_t>(carry);
        }
        limbs_ = std::move(out);
    }

    // /= divisor (> 0), the remainder dropped.
    void divide(std::uint32_t divisor) {
        std::uint64_t rest = 0;
        for (std::size_t i = limbs_.size(); i > 0; --i) {
            const std::uint64_t t = (rest << 32) | limbs_[i - 1];
            limbs_[i - 1] = static_cast<std::uint32_t>(t / divisor);
            rest = t % divisor;
        }
    }

    // -1, 0 or 1 as the value is below, equal to or above other's.
    int compare(const Natural& other) const {
        const std::size_t n = std::max(limbs_.size(), other.limbs_.size());
        for (std::size_t i = n; i > 0; --i) {
            const std::uint32_t a = limb(i - 1), b = other.limb(i - 1);
            if (a != b) return a < b ? -1 : 1;
        }
        return 0;
    }

    // -= other (at most the value).
    void subtract(const Natural& other) {
        std::int64_t borrow = 0;
        for (std::size_t i = 0; i < limbs_.size(); ++i) {
            const std::int64_t t = std::int64_t{limbs_[i]} - std::int64_t{other.limb(i)} - borrow;
            borrow = t < 0 ? 1 : 0;
            limbs_[i] = static_cast<std::uint32_t>(t + (borrow << 32));
        }
    }

    // The value times 2^exponent rounded to the nearest double, ties to even (+inf past the range).  The value's top 53
    // bits and the rest's round and sticky bits; where the value has at most 53 bits, or the result is normal, one
    // ldexp is exact (a value of at most 53 bits times 2^exponent >= 2^-1074 is a double).
    double rounded(int exponent) const {
        const int bits = bit_length();
        if (bits <= 53) return std::ldexp(static_cast<double>(top_bits(0, bits)), exponent);
        const int drop = bits - 53;
        std::uint64_t kept = top_bits(drop, 53);
        const bool half = bit(drop - 1), beyond = any_below(drop - 1);
        if (half && (beyond || (kept & 1u) != 0)) ++kept;  // 2^53 at most: a double
        return std::ldexp(static_cast<double>(kept), exponent + drop);
    }

  private:
    static int bits_of(std::uint32_t v) {
        int n = 0;
        for (; v != 0; v >>= 1) ++n;
        return n;
    }
    std::uint32_t limb(std::size_t i) const { return i < limbs_.size() ? limbs_[i] : 0u; }
    bool bit(int i) const { return (limb(static_cast<std::size_t>(i / 32)) >> (i % 32) & 1u) != 0; }
    bool any_below(int i) const {  // a bit below i set
        const std::size_t whole = static_cast<std::size_t>(i / 32);
        for (std::size_t j = 0; j < whole; ++j)
            if (limb(j) != 0) return true;
        return i % 32 != 0 && (limb(whole) & ((std::uint32_t{1} << (i % 32)) - 1u)) != 0;
    }
    // The `count` (<= 64) bits of the value from bit `from` up.
    std::uint64_t top_bits(int from, int count) const {
        std::uint64_t v = 0;
        for (int b = count - 1; b >= 0; --b) v = (v << 1) | (bit(from + b) ? 1u : 0u);
        return v;
    }

    std::vector<std::uint32_t> limbs_;
};

// The sums of the significands' low 32 and high 21 bits per biased exponent (one sign's): each addend is below 2^32,
// so kSumPass of them add exactly in 64 bits before they are carried into a Natural.  Exponents first..last were
// touched since the last carry.
struct ExponentSums {
    std::vector<std::uint64_t> low = std::vector<std::uint64_t>(2048, 0), high = std::vector<std::uint64_t>(2048, 0);
    int first = 2048, last = -1;

    void add(int e, std::uint64_t significand) {
        low[e] += significand & 0xffffffffu;
        high[e] += significand >> 32;
        first = std::min(first, e);
        last = std::max(last, e);
    }

    // total += sum_e (high_e 2^32 + low_e) 2^(e - 1), and the sums emptied.
    void carry_into(Natural& total) {
        for (int e = first; e <= last; ++e) {
            total.add_shifted(low[e], e - 1);
            total.add_shifted(high[e], e - 1 + 32);
            low[e] = high[e] = 0;
        }
        first = 2048;
        last = -1;
    }
};

// Values summed per pass before the 64-bit sums are carried (each addend below 2^32).
constexpr std::int64_t kSumPass = std::int64_t{1} << 31;

// The sum of non-finite values among others, as math.fsum gives it: NaN, or the one infinity present;
// std::invalid_argument where both are.
inline double non_finite_sum(bool nan, bool plus, bool minus) {
    if (plus && minus) throw std::invalid_argument("-inf + inf in fsum");
    if (nan) return std::numeric_limits<double>::quiet_NaN();
    return plus ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
}

}  // namespace detail

// The sum of x[0..n) correctly rounded to a double, ties to even: math.fsum's value (the opening comment).
inline double exact_sum(const double* x, std::int64_t n) {
    detail::ExponentSums sums[2];  // [0] positive values, [1] negative ones
    detail::Natural totals[2];
    bool nan = false, infinite[2] = {false, false};
    for (std::int64_t start = 0; start < n; start += detail::kSumPass) {
        const std::int64_t end = std::min(n, start + detail::kSumPass);
        for (std::int64_t i = start; i < end; ++i) {
            std::uint64_t bits;
            std::memcpy(&bits, &x[i], sizeof bits);
            const int sign = static_cast<int>(bits >> 63);
            const int e = static_cast<int>((bits >> 52) & 0x7ff);
            const std::uint64_t m = (bits & ((std::uint64_t{1} << 52) - 1)) | (e > 0 ? std::uint64_t{1} << 52 : 0);
            if (e == 0x7ff) {
                nan = nan || m != (std::uint64_t{1} << 52);
                infinite[sign] = infinite[sign] || m == (std::uint64_t{1} << 52);
                continue;
            }
            sums[sign].add(std::max(e, 1), m);
        }
        sums[0].carry_into(totals[0]);
        sums[1].carry_into(totals[1]);
    }
    if (nan || infinite[0] || infinite[1]) return detail::non_finite_sum(nan, infinite[0], infinite[1]);
    const int order = totals[0].compare(totals[1]);
    if (order == 0) return 0.0;
    detail::Natural& larger = totals[order > 0 ? 0 : 1];
    larger.subtract(totals[order > 0 ? 1 : 0]);
    const double sum = larger.rounded(-1074);
    if (std::isinf(sum)) throw std::overflow_error("intermediate overflow in fsum");
    return order > 0 ? sum : -sum;
}

// C(n, k) rounded once to a double, ties to even (float(math.comb(n, k))): 0 where k < 0 or k > n, +inf where it
// passes the double range (the opening comment).
inline double rounded_binomial(std::int64_t n, std::int64_t k) {
    if (k < 0 || k > n) return 0.0;
    const std::int64_t least = std::min(k, n - k);
    detail::Natural c(1);
    for (std::int64_t i = 1; i <= least; ++i) {
        c.multiply(static_cast<std::uint64_t>(n - least + i));
        c.divide(static_cast<std::uint32_t>(i));
        if (c.bit_length() > 1025) return std::numeric_limits<double>::infinity();
    }
    return c.rounded(0);
}

}  // namespace hockeystick
