// Where the refinements' windows get their memory from: glibc's malloc, tuned so that window after window of a few
// sizes is served from memory the process holds, not mapped afresh and zeroed by the kernel at every composition.
// The package's refinements (python pld/refine/malloc_thresholds.py and window_heap.py, through the binding) and the
// C library's calls that compose (cpp/capi/refine.cpp, pld.cpp) read this one policy.
//
//   raise_malloc_thresholds  once per process (per shared object that holds this header), glibc's mmap and trim
//                            thresholds set to the ceilings its own adjustment stops at: DEFAULT_MMAP_THRESHOLD_MAX
//                            (4 * 1024 * 1024 * sizeof(long), 32 MiB on 64-bit systems) and twice it (glibc
//                            malloc/malloc.c, free's threshold update).  Below them each composition's blocks (its FFT
//                            buffers and window, tens of MiB at the refinement's 2^22-point cap) are mapped, their
//                            pages zeroed as first touched, and unmapped again when freed.  The setting is what the
//                            dynamic adjustment reaches after one freed block of 32 MiB, and holds for the process;
//   WindowHeap               a scope (RAII) inside which the mmap threshold is kWindowMmapThreshold and the trim
//                            threshold kWindowTrimThreshold: the wide reads' windows (10^6 to 5e7 points: rare
//                            participation's finer grids, the tilted factors, blocks of rounds) come from the heap,
//                            which keeps what they free for the next composition.  Nested and concurrent scopes share
//                            one setting, made by the first to enter and undone by the last to leave: the ceilings
//                            again, and, where the heap grew inside the scope by more than the ceiling's trim
//                            threshold (the program break's rise), its free memory given back to the system
//                            (malloc_trim), so a process holds no more after the reads than without the scope.  The
//                            rare reads after 10^8 rounds at a rate of 1e-6 otherwise spend about as much CPU in the
//                            kernel as in the reads.  A scope whose reads grew the heap less leaves it as it is: what
//                            it keeps the ceiling's trim threshold would keep too, and malloc_trim walks and releases
//                            every free chunk of the heap, which in a long process fragmented by other work costs
//                            more than a short question's reads.
//
// No value changes, only where memory comes from.  Nothing is set where the C library is not glibc, or where the
// environment tunes malloc already (a MALLOC_ variable, or a glibc.malloc. tunable in GLIBC_TUNABLES: the user's
// choice stands; user_tunes_malloc).  Each shared object holding this header (the package's extension, the C library)
// keeps its own count of scopes: two in one process each set the same values, and one's end leaves the other's reads
// as fast as outside a scope, never wrong.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string_view>

#if defined(__GLIBC__)
#include <malloc.h>
#include <unistd.h>  // environ (glibc declares it under _GNU_SOURCE, which g++ and clang++ define)
#endif

namespace hockeystick {
namespace pld {

// glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit systems, and the trim threshold its adjustment sets beside it
constexpr std::int64_t kMmapThresholdCeiling = std::int64_t(4) * 1024 * 1024 * static_cast<std::int64_t>(sizeof(long));
constexpr std::int64_t kTrimThresholdCeiling = 2 * kMmapThresholdCeiling;
// the blocks served from the heap inside a WindowHeap scope: up to 1 GiB (a window of 2^26 points, the reads' largest
// cap, holds 512 MiB of doubles); the free heap top kept there: mallopt's largest value (its parameter is an int)
constexpr std::int64_t kWindowMmapThreshold = std::int64_t(1) << 30;
constexpr std::int64_t kWindowTrimThreshold = (std::int64_t(1) << 31) - 1;

// Whether the environment variable key=value tunes malloc: a MALLOC_ variable (glibc's MALLOC_TRIM_THRESHOLD_,
// MALLOC_ARENA_MAX, ...) or GLIBC_TUNABLES naming a glibc.malloc. tunable.
inline bool tunes_malloc(std::string_view key, std::string_view value) {
    return key.substr(0, 7) == "MALLOC_" ||
           (key == "GLIBC_TUNABLES" && value.find("glibc.malloc.") != std::string_view::npos);
}

// Whether this process's environment tunes malloc (tunes_malloc of any variable); false off glibc, where nothing is
// read.
inline bool user_tunes_malloc() {
#if defined(__GLIBC__)
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
        const std::string_view variable(*entry);
        const std::size_t equals = variable.find('=');
        if (equals == std::string_view::npos) continue;
        if (tunes_malloc(variable.substr(0, equals), variable.substr(equals + 1))) return true;
    }
#endif
    return false;
}

namespace detail {

inline bool set_malloc_ceilings() {
#if defined(__GLIBC__)
    if (user_tunes_malloc()) return false;
    // mmap first: M_TRIM_THRESHOLD alone would leave the mmap threshold at 128 KiB with its adjustment switched off
    return mallopt(M_MMAP_THRESHOLD, static_cast<int>(kMmapThresholdCeiling)) != 0 &&
           mallopt(M_TRIM_THRESHOLD, static_cast<int>(kTrimThresholdCeiling)) != 0;
#else
    return false;
#endif
}

struct WindowHeapState {
    std::mutex mutex;
    int open = 0;                // the scopes open now
    bool set = false;            // whether the outermost one set the thresholds
    std::uintptr_t entered = 0;  // the program break when it did
};

// The main arena's program break (sbrk(0): no system call, glibc's cached value).
inline std::uintptr_t program_break() {
#if defined(__GLIBC__)
    return reinterpret_cast<std::uintptr_t>(sbrk(0));
#else
    return 0;
#endif
}

// Whether the heap grew from `entered` by more than the ceiling's trim threshold.
inline bool heap_grew_from(std::uintptr_t entered) {
    const std::uintptr_t now = program_break();
    return now > entered && now - entered > static_cast<std::uintptr_t>(kTrimThresholdCeiling);
}

inline WindowHeapState& window_heap_state() {
    static WindowHeapState state;
    return state;
}

}  // namespace detail

// Sets glibc's thresholds to the ceilings (the opening comment), once; later calls return the first call's outcome:
// true where both were set, false where nothing was (not glibc, or the environment tunes malloc).
inline bool raise_malloc_thresholds() {
    static const bool set = detail::set_malloc_ceilings();
    return set;
}

// A scope whose large blocks glibc serves from its heap (the opening comment); active() says whether the thresholds
// are raised for it (false where raise_malloc_thresholds sets nothing).
class WindowHeap {
  public:
    WindowHeap() {
        detail::WindowHeapState& s = detail::window_heap_state();
        const std::lock_guard<std::mutex> lock(s.mutex);
        if (s.open == 0 && raise_malloc_thresholds()) {
#if defined(__GLIBC__)
            // mmap first, as raise_malloc_thresholds does
            mallopt(M_MMAP_THRESHOLD, static_cast<int>(kWindowMmapThreshold));
            mallopt(M_TRIM_THRESHOLD, static_cast<int>(kWindowTrimThreshold));
            s.set = true;
            s.entered = detail::program_break();
#endif
        }
        ++s.open;
        active_ = s.set;
    }
    ~WindowHeap() {
        detail::WindowHeapState& s = detail::window_heap_state();
        const std::lock_guard<std::mutex> lock(s.mutex);
        if (--s.open == 0 && s.set) {
#if defined(__GLIBC__)
            mallopt(M_MMAP_THRESHOLD, static_cast<int>(kMmapThresholdCeiling));
            mallopt(M_TRIM_THRESHOLD, static_cast<int>(kTrimThresholdCeiling));
            if (detail::heap_grew_from(s.entered)) malloc_trim(0);
#endif
            s.set = false;
        }
    }
    WindowHeap(const WindowHeap&) = delete;
    WindowHeap& operator=(const WindowHeap&) = delete;

    bool active() const { return active_; }

  private:
    bool active_ = false;
};

}  // namespace pld
}  // namespace hockeystick
