// Whether the AVX2 + FMA kernels are compiled in, and the attribute that compiles one.
//
// The kernels are built for AVX2 + FMA with a per-function target attribute (GCC and
// Clang on x86-64), so the rest of the library and the wheel stay portable (no
// -march flag); callers choose them at run time with avx2_fma_available().  Other
// compilers and architectures get only the scalar code.
#pragma once

#if defined(__GNUC__) && defined(__x86_64__) && !defined(HOCKEYSTICK_NO_SIMD)
#define HOCKEYSTICK_HAVE_AVX2 1
#include <immintrin.h>
#define HOCKEYSTICK_AVX2 __attribute__((target("avx2,fma")))
#else
#define HOCKEYSTICK_HAVE_AVX2 0
#endif

namespace hockeystick {
namespace detail {

// True when this CPU runs AVX2 and FMA instructions (checked once).
inline bool avx2_fma_available() {
#if HOCKEYSTICK_HAVE_AVX2
    static const bool available = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return available;
#else
    return false;
#endif
}

}  // namespace detail
}  // namespace hockeystick
