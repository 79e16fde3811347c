// Admission of the compositions' working memory, process-wide.
//
// A composition's batch holds its FFT buffers (about 32 bytes per FFT point of every row, 48 more per
// point for a long-double band in flight: pld/compose/compose.hpp) only while it runs.  Threads composing at
// once (Python threads over grid blocks, a caller's OpenMP loop) would add their peaks: two of G1's
// 10^5-round windows of ~5.8e6 points at h ~ 1e-5, each ~0.55 GB, took the in-process grid to 2.1 GB
// resident.  Each batch therefore asks the gate for its estimated bytes first and waits while the bytes
// already admitted plus its own would exceed the limit; a batch is always admitted when nothing else is
// in flight, so one larger than the limit runs alone and every wait ends (an admitted batch holds no
// other lock and releases its bytes when it returns or throws).  What is in flight at any moment is
// therefore at most max(limit, the largest single batch).  The default limit, kDefaultWorkingMemory,
// lets two batches of the usual size (group_cells = 2^23 doubles per array, ~256 MB) run side by side.
//
// Memory kept between batches (each thread's TaylorReuseCache, pld/compose/taylor_reuse.hpp: up to ~50 MB a
// thread) is counted too, as resident bytes: its owner reports each change (keep, never waiting: it changes inside
// an admitted batch, and a wait there could wait on the batch itself), and the high water is of the bytes in flight
// and resident together.  Admission reads the bytes in flight alone: counted there, two threads' caches (~100 MB)
// would hold back the second of two large batches (up to ~256 MB each) that fit the limit beside each other, and
// threads composing a grid's widest blocks at once would run them one at a time.  What is held at any moment is
// at most max(limit, the largest single batch) + the resident bytes.
//
// Domain: bytes >= 0 (admit); the limit is >= 0 (0 admits one batch at a time).  Header-only (the process-wide gate is a
// function-local static of an inline function: one per process, or per shared object that includes it).
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stdexcept>

namespace hockeystick {
namespace pld {

constexpr std::int64_t kDefaultWorkingMemory = std::int64_t(512) << 20;

class WorkingMemoryGate {
  public:
    // The bytes of one admitted batch, released when it goes out of scope.
    class Hold {
      public:
        Hold(WorkingMemoryGate& gate, std::int64_t bytes) : gate_(&gate), bytes_(bytes) {}
        Hold(Hold&& other) noexcept : gate_(other.gate_), bytes_(other.bytes_) { other.gate_ = nullptr; }
        Hold(const Hold&) = delete;
        Hold& operator=(const Hold&) = delete;
        Hold& operator=(Hold&&) = delete;
        ~Hold() {
            if (gate_ != nullptr) gate_->release(bytes_);
        }

      private:
        WorkingMemoryGate* gate_;
        std::int64_t bytes_;
    };

    // Waits until `bytes` fit beside what is in flight (or nothing is), then holds them.
    Hold admit(std::int64_t bytes) {
        if (bytes < 0) throw std::invalid_argument("working memory: bytes must be >= 0");
        std::unique_lock<std::mutex> lock(mutex_);
        freed_.wait(lock, [&] { return in_flight_ == 0 || in_flight_ + bytes <= limit_; });
        in_flight_ += bytes;
        high_water_ = std::max(high_water_, in_flight_ + resident_);
        return Hold(*this, bytes);
    }

    // Adds `bytes` (< 0: releases) to the resident bytes, memory kept between batches; never waits.  The resident
    // bytes stay >= 0: a release is at most what its owner kept.
    void keep(std::int64_t bytes) {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            if (resident_ + bytes < 0) throw std::invalid_argument("working memory: released more than was kept");
            resident_ += bytes;
            high_water_ = std::max(high_water_, in_flight_ + resident_);
        }
    }

    // The resident bytes (keep) now.
    std::int64_t resident() {
        const std::lock_guard<std::mutex> lock(mutex_);
        return resident_;
    }

    // Sets the limit (>= 0) and returns the previous one; batches waiting are re-examined.
    std::int64_t set_limit(std::int64_t bytes) {
        if (bytes < 0) throw std::invalid_argument("working memory: the limit must be >= 0");
        std::int64_t previous;
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            previous = limit_;
            limit_ = bytes;
        }
        freed_.notify_all();
        return previous;
    }

    std::int64_t limit() {
        const std::lock_guard<std::mutex> lock(mutex_);
        return limit_;
    }

    // The most bytes held at once (in flight and resident) since the last reset (reset: start again from what is
    // held now).
    std::int64_t high_water(bool reset = false) {
        const std::lock_guard<std::mutex> lock(mutex_);
        const std::int64_t seen = high_water_;
        if (reset) high_water_ = in_flight_ + resident_;
        return seen;
    }

  private:
    void release(std::int64_t bytes) {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            in_flight_ -= bytes;
        }
        freed_.notify_all();
    }

    std::mutex mutex_;
    std::condition_variable freed_;
    std::int64_t in_flight_ = 0;
    std::int64_t resident_ = 0;
    std::int64_t limit_ = kDefaultWorkingMemory;
    std::int64_t high_water_ = 0;
};

// The gate every composition of this process goes through (pld/compose/compose.hpp's compose_many).
inline WorkingMemoryGate& working_memory_gate() {
    static WorkingMemoryGate gate;
    return gate;
}

}  // namespace pld
}  // namespace hockeystick
