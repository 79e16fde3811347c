// The one parallel loop of the bindings, its thread rule and its NaN policy.
//
// Every binding that loops over many values runs through parallel_items, directly (the
// per-item driver for_each_item, below) or through the flat and strided-broadcast drivers
// built on it (elementwise.hpp, broadcast.hpp); no register_<family>.cpp has an OpenMP
// pragma of its own.
//
// Thread rule (resolve_threads): threads <= 0 asks for every core when the loop's work is
// at least parallel_work (2^18 element evaluations, or the equivalent a per-item loop
// estimates for its items) and one thread below, where waking a team costs more than it
// saves (parallel_work is the break-even); an explicit count is used as given, capped at
// 4x the processors (so a typo cannot make OpenMP allocate a stack per requested thread)
// and at the number of items.  Results never depend on the count: every item writes only its
// own outputs, from its own inputs.
//
// NaN policy (raise_nan_at): the core returns NaN only outside its domain.  A driver that
// sees a NaN output finds the first one (lowest flat index) and asks the family's explain
// function which argument broke which rule: `ValueError: r must be >= 0 (first offending
// element at flat index 2: -3, 1)`.  When explain finds every argument valid the NaN is a
// bug, and the ValueError says so and asks for a report; either way no NaN reaches a caller.
//
// Exceptions thrown by an item (the PLD builders' argument errors) cannot cross an OpenMP
// region: parallel_items keeps the one of the lowest item and rethrows it after the loop,
// so the error a caller sees does not depend on the thread count either.
#pragma once

#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <limits>
#include <sstream>
#include <string>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace hockeystick_bindings {

namespace py = pybind11;

// Work (element evaluations) from which threads <= 0 means every core: the break-even of a team.
// After a parallel region its idle threads spin before they sleep (libgomp's GOMP_SPINCOUNT, 300 000
// spins unless OMP_WAIT_POLICY says otherwise: ~8 ms of CPU a thread on a 2.6 GHz x86-64 core), and
// the region saves at most half its work's wall time on two cores, so a team pays (saves more wall
// time than its threads then burn CPU) from ~16 ms of work.  At ~60 ns an evaluation (theta's AVX2
// kernel ~9 ns, log_theta ~70 ns, a subsampled-Gaussian cell's two ~90 ns each) that is 2^18.
// Below it the loop runs on the calling thread, and so does every region its items open (a small
// PLD's cell loops).
constexpr std::int64_t parallel_work = std::int64_t{1} << 18;

// Threads for a loop of `items` items (by default as many as the work) costing `work` element
// evaluations in all.
inline int resolve_threads(int threads, std::int64_t work,
                           std::int64_t items = std::numeric_limits<std::int64_t>::max()) {
#ifdef _OPENMP
    const int wanted =
        threads <= 0 ? (work >= parallel_work ? omp_get_max_threads() : 1) : std::min(threads, 4 * omp_get_num_procs());
    return static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(wanted, items)));
#else
    (void)threads;
    (void)work;
    (void)items;
    return 1;
#endif
}

// How items are handed to threads: `grain` consecutive items at a time, on demand, so items of
// uneven cost (root solves, O(T) passes, PLD grids) balance, and a thread that loses its core on a
// shared machine leaves its items to the others.  It changes no result.
struct schedule {
    std::int64_t grain;
};
constexpr schedule on_demand(std::int64_t grain) { return {grain < 1 ? 1 : grain}; }

// Up to max_grain items at a time, fewer when there are few items, so that a loop of `count`
// items still has at least 64 hand-outs to balance (an O(T) item with large T costs milliseconds).
constexpr schedule balanced(std::int64_t count, std::int64_t max_grain) {
    return on_demand(std::min(max_grain, count / 64));
}

// While alive: the number of threads a parallel region opened by the calling thread may use
// (OpenMP's nthreads-var of this thread only), restored on exit.
class caller_region_threads {
  public:
    explicit caller_region_threads(int threads) {
#ifdef _OPENMP
        previous_ = omp_get_max_threads();
        omp_set_num_threads(threads);
#else
        (void)threads;
#endif
    }
    ~caller_region_threads() {
#ifdef _OPENMP
        omp_set_num_threads(previous_);
#endif
    }
    caller_region_threads(const caller_region_threads&) = delete;
    caller_region_threads& operator=(const caller_region_threads&) = delete;

  private:
    int previous_ = 1;
};

// body(item, state) for item in [0, count) on `threads` threads (resolve_threads first), with
// the caller's GIL released, items handed out as `how` says; each thread owns one
// default-constructed State (scratch memory reused across its items).  body returns true when
// it wrote a NaN; the result is the OR over all items.  An exception from an item is rethrown
// after the loop (the lowest item's).
// On one thread no team is formed: the items run in the caller's thread, so a parallel region an
// item opens itself (the PLD cell loop of pld/grid/cells.hpp) is a top-level one and gets item_threads
// threads (inside a team, even an inactive one, OpenMP would run it on one).
template <class State, class Body>
bool parallel_items(std::int64_t count, int threads, schedule how, Body body, int item_threads = 1) {
    int any_nan = 0;
    std::int64_t failed_item = std::numeric_limits<std::int64_t>::max();
    std::exception_ptr failure;
    auto run = [&](std::int64_t i, State& state, int& nan) {
        try {
            nan |= body(i, state) ? 1 : 0;
        } catch (...) {
#pragma omp critical(hockeystick_bindings_failure)
            if (i < failed_item) {
                failed_item = i;
                failure = std::current_exception();
            }
        }
    };
    {
        py::gil_scoped_release release;
        if (threads <= 1) {
            const caller_region_threads nested(item_threads);
            State state{};
            for (std::int64_t i = 0; i < count; ++i) run(i, state, any_nan);
        } else {
#pragma omp parallel num_threads(threads) reduction(| : any_nan)
            {
                State state{};
                int thread_nan = 0;
#pragma omp for schedule(dynamic, how.grain)
                for (std::int64_t i = 0; i < count; ++i) run(i, state, thread_nan);
                any_nan |= thread_nan;
            }
        }
    }
    if (failure) std::rethrow_exception(failure);
    return any_nan != 0;
}

struct no_state {};

// The per-item driver: body(item, state) -> wrote a NaN, over `count` independent items whose
// total cost is about `work` element evaluations (the thread rule's measure).  The threads the
// rule grants are shared: a team of at most one per item, and when that team is one thread (one
// large item on two cores) the grant goes to the parallel region the item opens itself.
template <class State = no_state, class Body>
bool for_each_item(std::int64_t count, std::int64_t work, int threads, schedule how, Body body) {
    const int granted = resolve_threads(threads, work);
    const int team = resolve_threads(threads, work, count);
    return parallel_items<State>(count, team, how, body, std::max(1, granted / team));
}

// "a, b, c" at full precision: the arguments of the offending element.
template <class... Values>
std::string listed(Values... values) {
    std::ostringstream out;
    out.precision(17);
    std::size_t k = 0;
    ((out << (k++ ? ", " : "") << values), ...);
    return out.str();
}

// The NaN policy: `why` is explain's reason for element `index` (empty when its arguments are valid).
[[noreturn]] inline void raise_nan_at(std::int64_t index, const std::string& why, const std::string& arguments) {
    std::ostringstream msg;
    if (why.empty())
        msg << "hockeystick internal error: NaN for valid input at flat index " << index << " (" << arguments
            << "); please report it";
    else
        msg << why << " (first offending element at flat index " << index << ": " << arguments << ")";
    throw py::value_error(msg.str());
}

// After a loop reported a NaN: the first item i with has_nan(i), explained by explain(i) -> (why, arguments).
template <class HasNan, class Explain>
[[noreturn]] void raise_first_nan(std::int64_t count, HasNan has_nan, Explain explain) {
    for (std::int64_t i = 0; i < count; ++i) {
        if (!has_nan(i)) continue;
        const auto [why, arguments] = explain(i);
        raise_nan_at(i, why, arguments);
    }
    throw py::value_error("hockeystick internal error: a NaN was reported but none was found; please report it");
}

}  // namespace hockeystick_bindings
