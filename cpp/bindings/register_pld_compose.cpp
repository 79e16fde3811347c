// Binding of the PLD composition (pld/compose/compose.hpp) with pocketfft as its FFT backend: numpy.fft's for
// the transforms that run on one thread, scipy.fft's for those that use several and for long double.
//
// The composition runs in C++ with the GIL released.  A transform on one thread calls numpy.fft's pocketfft loops
// directly, without the GIL (numpy_fft_loops.hpp: the same transform bit for bit); any other re-acquires the GIL
// around its rfft / irfft call, made on numpy views of the core's own buffers
// (batched along axis 1, threads with `workers`), so every formula of the composition
// lives in the header and the FFT in pocketfft.  numpy (>= 2.0) and scipy wrap the same C++ pocketfft
// (the same transform bit for bit: tests/pld/compose/test_pld_fft_backends.py); scipy.fft is imported only when a
// transform needs its threads or its long double, since its import (scipy.special with it) costs a process
// several times numpy's, more than a first answer's composition.
#include <hockeystick/pld/compose/compose.hpp>
#include <hockeystick/pld/compose/grouping.hpp>
#include <hockeystick/pld/reads/epsilon_bracket.hpp>
#include <hockeystick/pld/compose/working_memory_gate.hpp>

#include <pybind11/gil_safe_call_once.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "elementwise.hpp"
#include "numpy_fft_loops.hpp"
#include "pocketfft_composition.hpp"

namespace py = pybind11;
using hockeystick_bindings::input_array;
namespace pld = hockeystick::pld;

namespace {

// Within its scope scipy.fft dispatches to scipy's own pocketfft only (scipy.fft.set_backend("scipy",
// only=True)): a backend the user installed (set_global_backend / set_backend: pyfftw, mkl_fft) may not
// hold the error model of pld/compose/fft_backend.hpp, least of all the long-double one.  The GIL must be held.
class ScipyOwnFft {
  public:
    explicit ScipyOwnFft(const py::object& set_backend) : scope_(set_backend("scipy", py::arg("only") = true)) {
        scope_.attr("__enter__")();
    }
    ~ScipyOwnFft() {
        try {
            scope_.attr("__exit__")(py::none(), py::none(), py::none());
        } catch (py::error_already_set& e) { e.discard_as_unraisable("hockeystick: leaving scipy.fft.set_backend"); }
    }
    ScipyOwnFft(const ScipyOwnFft&) = delete;
    ScipyOwnFft& operator=(const ScipyOwnFft&) = delete;

  private:
    py::object scope_;
};

// Whether numpy's longdouble is this build's long double with a 64-bit significand (x86-64's 80-bit
// format): not on platforms where it is double (MSVC, 32-bit ARM) or IBM double-double (ppc64), whose
// u_L the long-double bounds do not use.
bool numpy_long_double_is_full() {
    if (!pld::kLongPower) return false;
    py::module_ np = py::module_::import("numpy");
    const py::object longdouble = np.attr("longdouble");
    return np.attr("dtype")(longdouble).attr("itemsize").cast<std::size_t>() == sizeof(long double) &&
           np.attr("finfo")(longdouble).attr("nmant").cast<int>() == LDBL_MANT_DIG - 1;
}

// scipy's pocketfft called without scipy.fft's dispatch: its r2c / c2r (scipy.fft._pocketfft.pypocketfft),
// with the arguments scipy.fft.rfft / irfft pass them (backward norm: none forward, 1 / n inverse; the
// threads scipy.fft's _workers makes of `workers`), writing into the core's own buffer (out=).  The
// same transform, bit for bit, without the per-call Python of the public path (uarray dispatch, the
// backend scope, argument checks: about 35 us a call, with the GIL held, 17,000 calls in 40 of G1's
// blocks) and without copying the result.  These names are scipy's private ones, so they are used only
// where a probe finds them and finds their output the public functions' bit for bit; None elsewhere
// (ScipyFft then calls scipy.fft).  The GIL must be held.
struct PocketFft {
    py::object r2c, c2r, threads;

    // Probed once (pybind11's call-once, which releases the GIL while another thread probes: the probe's
    // transforms release it, so a plain static could deadlock); pybind11 keeps the result for the
    // interpreter's life.
    static const std::optional<PocketFft>& found(const py::object& rfft, const py::object& irfft) {
        PYBIND11_CONSTINIT static py::gil_safe_call_once_and_store<std::optional<PocketFft>> pocket;
        return pocket.call_once_and_store_result([&] { return probe(rfft, irfft); }).get_stored();
    }

  private:
    static std::optional<PocketFft> probe(const py::object& rfft, const py::object& irfft) {
        try {
            const py::module_ pocket = py::module_::import("scipy.fft._pocketfft.pypocketfft");
            const py::module_ helper = py::module_::import("scipy.fft._pocketfft.helper");
            PocketFft f{pocket.attr("r2c"), pocket.attr("c2r"), helper.attr("_workers")};
            const py::object set_backend = py::module_::import("scipy.fft").attr("set_backend");
            const ScipyOwnFft own(set_backend);
            for (const std::int64_t n : {12, 13}) {
                const std::int64_t bins = n / 2 + 1;
                py::array_t<double> signal({std::int64_t(2), n});
                for (std::int64_t i = 0; i < 2 * n; ++i) signal.mutable_data()[i] = std::sin(0.7 * i + 0.1) + 1.5;
                py::array_t<std::complex<double>> spec({std::int64_t(2), bins});
                if (!f.r2c(signal, py::make_tuple(-1), true, 0, spec, f.threads(py::none())).is(spec))
                    return std::nullopt;
                const py::array_t<std::complex<double>> spec_public = rfft(signal, py::arg("axis") = -1);
                py::array_t<double> back({std::int64_t(2), n});
                if (!f.c2r(spec, py::make_tuple(-1), n, false, 2, back, f.threads(py::none())).is(back))
                    return std::nullopt;
                const py::array_t<double> back_public = irfft(spec_public, py::arg("n") = n, py::arg("axis") = -1);
                if (spec_public.size() != spec.size() || back_public.size() != back.size() ||
                    std::memcmp(spec.data(), spec_public.data(), sizeof(std::complex<double>) * 2 * bins) != 0 ||
                    std::memcmp(back.data(), back_public.data(), sizeof(double) * 2 * n) != 0)
                    return std::nullopt;
            }
            return f;
        } catch (py::error_already_set& e) {
            if (!e.matches(PyExc_Exception)) throw;  // KeyboardInterrupt, SystemExit: not a verdict on the names
            return std::nullopt;
        }
    }
};

// numpy.fft's rfft / irfft writing into out= (numpy >= 2.0: its C++ pocketfft, with scipy's norms: none forward,
// 1 / n inverse), on one thread.  Found once (pybind11's call-once, as PocketFft): a probe of length 12 that
// each writes into the buffer it was given; None where numpy.fft takes no out= (numpy 1.x).  The GIL must be held.
struct NumpyFft {
    py::object rfft, irfft;

    static const std::optional<NumpyFft>& found() {
        PYBIND11_CONSTINIT static py::gil_safe_call_once_and_store<std::optional<NumpyFft>> numpy_fft;
        return numpy_fft.call_once_and_store_result([] { return probe(); }).get_stored();
    }

  private:
    static std::optional<NumpyFft> probe() {
        try {
            const py::module_ fft = py::module_::import("numpy.fft");
            NumpyFft f{fft.attr("rfft"), fft.attr("irfft")};
            constexpr std::int64_t n = 12;
            py::array_t<double> signal({std::int64_t(2), n});
            for (std::int64_t i = 0; i < 2 * n; ++i) signal.mutable_data()[i] = std::sin(0.7 * i + 0.1) + 1.5;
            py::array_t<std::complex<double>> spec({std::int64_t(2), n / 2 + 1});
            if (!f.rfft(signal, py::arg("axis") = -1, py::arg("out") = spec).is(spec)) return std::nullopt;
            py::array_t<double> back({std::int64_t(2), n});
            if (!f.irfft(spec, py::arg("n") = n, py::arg("axis") = -1, py::arg("out") = back).is(back))
                return std::nullopt;
            for (std::int64_t i = 0; i < 2 * n; ++i)  // the round trip, within the error model's reach
                if (!(std::abs(back.data()[i] - signal.data()[i]) <= 1e-12)) return std::nullopt;
            return f;
        } catch (py::error_already_set& e) {
            if (!e.matches(PyExc_Exception)) throw;  // KeyboardInterrupt, SystemExit: not a verdict on numpy
            return std::nullopt;
        }
    }
};

// pocketfft's rfft / irfft along the last axis of a (rows, n) view: numpy.fft's (NumpyFft) where the transform
// runs on one thread (one_thread: too few rows to share, or workers = 1) and numpy offers it; else scipy.fft's
// (scipy's own backend, ScipyOwnFft; PocketFft where found), imported on first use; workers None: all cores (-1).
// The GIL must be held to construct it.
class ScipyFft final : public pld::RealFftBackend {
  public:
    // long_fft = false: the backend offers no long-double transform (compose_batch's direct-sum fallback);
    // nor does it where numpy's longdouble is not a full 64-bit long double or neither numpy.fft nor scipy.fft
    // returns clongdouble for a longdouble input (a probe of length 8: numpy's first, scipy's where it fails).
    ScipyFft(py::object workers, bool long_fft)
        : workers_(std::move(workers)),
          workers_one_(!workers_.is_none() && py::isinstance<py::int_>(workers_) && workers_.cast<long>() == 1),
          workers_none_(workers_.is_none()),
          numpy_(&NumpyFft::found()),
          loops_(&hockeystick_bindings::NumpyFftLoops::found()) {
        if (long_fft) {
            long_numpy_ = numpy_transforms_long(*numpy_);
            if (!long_numpy_ && numpy_long_double_is_full()) {
                load_scipy();
                const ScipyOwnFft own(set_backend_);
                long_fft_ = transforms_long(rfft_);
            }
            long_fft_ = long_fft_ || long_numpy_;
        }
    }

    void forward(std::int64_t rows, std::int64_t n, const double* in, std::complex<double>* out) override {
        if (one_thread(rows, n) && *loops_) return (*loops_)->forward(rows, n, in, out);  // without the GIL
        py::gil_scoped_acquire acquire;
        const py::array_t<double> view({rows, n}, {n * 8, std::int64_t(8)}, in, py::capsule(in, [](void*) {}));
        if (one_thread(rows, n) && *numpy_) {
            const py::array_t<std::complex<double>> into({rows, n / 2 + 1}, out, py::capsule(out, [](void*) {}));
            if (!(*numpy_)->rfft(view, py::arg("axis") = -1, py::arg("out") = into).is(into))
                throw std::runtime_error("numpy.fft.rfft did not write into out=");
            return;
        }
        load_scipy();
        if (*pocket_) {
            const PocketFft& f = **pocket_;
            const py::array_t<std::complex<double>> into({rows, n / 2 + 1}, out, py::capsule(out, [](void*) {}));
            const py::object spec = f.r2c(view, py::make_tuple(-1), true, 0, into, f.threads(workers(rows)));
            if (!spec.is(into)) throw std::runtime_error("scipy's pocketfft r2c did not write into out=");
            return;
        }
        const ScipyOwnFft own(set_backend_);
        const auto spec = py::array_t<std::complex<double>, py::array::c_style | py::array::forcecast>(
            rfft_(view, py::arg("axis") = -1, py::arg("workers") = workers(rows)));
        py::gil_scoped_release copying;  // spec stays referenced; the copy touches no Python object
        std::memcpy(out, spec.data(), sizeof(std::complex<double>) * rows * (n / 2 + 1));
    }

    void inverse(std::int64_t rows, std::int64_t n, std::complex<double>* in, double* out) override {
        if (one_thread(rows, n) && *loops_) return (*loops_)->inverse(rows, n, in, out);  // without the GIL
        py::gil_scoped_acquire acquire;
        const std::int64_t bins = n / 2 + 1;
        const py::array_t<std::complex<double>> view({rows, bins}, {bins * 16, std::int64_t(16)}, in,
                                                     py::capsule(in, [](void*) {}));
        if (one_thread(rows, n) && *numpy_) {
            const py::array_t<double> into({rows, n}, out, py::capsule(out, [](void*) {}));
            if (!(*numpy_)->irfft(view, py::arg("n") = n, py::arg("axis") = -1, py::arg("out") = into).is(into))
                throw std::runtime_error("numpy.fft.irfft did not write into out=");
            return;
        }
        load_scipy();
        if (*pocket_) {
            const PocketFft& f = **pocket_;
            const py::array_t<double> into({rows, n}, out, py::capsule(out, [](void*) {}));
            const py::object sig = f.c2r(view, py::make_tuple(-1), n, false, 2, into, f.threads(workers(rows)));
            if (!sig.is(into)) throw std::runtime_error("scipy's pocketfft c2r did not write into out=");
            return;
        }
        const ScipyOwnFft own(set_backend_);
        const auto sig =
            input_array(irfft_(view, py::arg("n") = n, py::arg("axis") = -1, py::arg("workers") = workers(rows)));
        py::gil_scoped_release copying;  // sig stays referenced; the copy touches no Python object
        std::memcpy(out, sig.data(), sizeof(double) * rows * n);
    }

    // numpy's irfft loop given the leading bins alone where it offers that (NumpyFftLoops::inverse_given: the
    // same bits), so the zeros past them are neither written nor read; else the backend's default.
    void inverse_given(std::int64_t n, std::int64_t given, std::complex<double>* in, double* out) override {
        if (*loops_ && (*loops_)->offers_given()) return (*loops_)->inverse_given(n, given, in, out);
        RealFftBackend::inverse_given(n, given, in, out);
    }

    // numpy.fft (else scipy.fft) transforms numpy longdouble arrays in long double (pocketfft's long-double
    // instantiation: the error model of pld/compose/fft_backend.hpp with u_L).  One thread (workers=1): the
    // x87 precision control is per thread, and compose_batch checked it on this one.  Limit: pocketfft
    // caches its plans (twiddles) process-wide, so a long-double plan that other code built while it had
    // lowered the precision control keeps 53-bit twiddles and the bound fails (not detected:
    // pld/compose/fft_backend.hpp's error model).
    bool offers_forward_long() const override { return long_fft_; }

    void forward_long(std::int64_t rows, std::int64_t n, const long double* in, std::int64_t keep,
                      std::complex<long double>* out) override {
        constexpr std::int64_t size = sizeof(long double);
        if (keep < 1 || keep > n / 2 + 1) throw std::invalid_argument("forward_long: keep must lie in [1, n / 2 + 1]");
        if (long_numpy_ && *loops_ && (*loops_)->offers_long()) {  // numpy's long-double loop, without the GIL
            // every bin written by the loop, so left unwritten here: std::complex<long double> storage as pairs of
            // long doubles (array-compatible, [complex.numbers]; its default constructor itself writes zeros)
            const std::unique_ptr<long double[]> pairs(
                new long double[static_cast<std::size_t>(2 * rows * (n / 2 + 1))]);
            auto* spec = reinterpret_cast<std::complex<long double>*>(pairs.get());
            (*loops_)->forward_long(rows, n, in, spec);
            for (std::int64_t r = 0; r < rows; ++r)
                std::memcpy(out + r * keep, spec + r * (n / 2 + 1), sizeof(std::complex<long double>) * keep);
            return;
        }
        py::gil_scoped_acquire acquire;
        const py::array_t<long double> view({rows, n}, {n * size, size}, in, py::capsule(in, [](void*) {}));
        // on this thread: numpy.fft has no threads, and scipy.fft is asked for one (workers = 1)
        const py::array result =
            long_numpy_ ? py::array((*numpy_)->rfft(view, py::arg("axis") = -1)) : py::array(scipy_rfft_long(view));
        // no cast: a transform done in double and widened would not hold the long-double bound
        if (!result.dtype().equal(py::dtype::of<std::complex<long double>>()))
            throw std::runtime_error("rfft did not transform in long double");
        const auto spec = py::array_t<std::complex<long double>, py::array::c_style>::ensure(result);
        if (!spec || spec.ndim() != 2 || spec.shape(0) != rows || spec.shape(1) != n / 2 + 1)
            throw std::runtime_error("rfft returned an unexpected shape for a long-double transform");
        for (std::int64_t r = 0; r < rows; ++r)
            std::memcpy(out + r * keep, spec.data() + r * (n / 2 + 1), sizeof(std::complex<long double>) * keep);
    }

  private:
    py::object workers(std::int64_t rows) const { return workers_.is_none() && rows > 1 ? py::int_(-1) : workers_; }
    // Whether a transform of `rows` rows of length n runs on one thread: fewer than kThreadedMinRows rows, workers =
    // 1, or, with workers = None, fewer than kThreadedMinPoints points in all, where a thread's share is below the
    // cost of waking it.  Such a transform stays on numpy's loops (the same bits): through scipy.fft it would run on
    // one thread all the same, and a first call would import scipy.fft (several times numpy's import) for nothing.
    bool one_thread(std::int64_t rows, std::int64_t n) const {
        return rows < kThreadedMinRows || workers_one_ || (workers_none_ && rows * n < kThreadedMinPoints);
    }
    // pocketfft shares a batch among threads by rows, in groups of its vector length, at least 2 doubles where it
    // has vectors (SSE2, NEON): pocketfft_hdronly.hpp's thread_count gives min(rows / vlen, workers) threads, so
    // fewer than 2 * 2 rows take one thread whatever `workers` asks.
    static constexpr std::int64_t kThreadedMinRows = 4;
    static constexpr std::int64_t kThreadedMinPoints = std::int64_t{1} << 17;
    // scipy.fft's functions and the PocketFft probe, on first use.  The GIL must be held.
    void load_scipy() {
        if (pocket_) return;
        py::module_ fft = py::module_::import("scipy.fft");
        rfft_ = fft.attr("rfft");
        irfft_ = fft.attr("irfft");
        set_backend_ = fft.attr("set_backend");
        pocket_ = &PocketFft::found(rfft_, irfft_);
    }
    // Whether numpy's longdouble is a full long double and numpy.fft transforms it in long double (transforms_long):
    // probed once per process, not per composition (both are numpy's, fixed once it is imported).
    static bool numpy_transforms_long(const std::optional<NumpyFft>& numpy) {
        PYBIND11_CONSTINIT static py::gil_safe_call_once_and_store<bool> once;
        return once
            .call_once_and_store_result(
                [&] { return numpy_long_double_is_full() && numpy.has_value() && transforms_long(numpy->rfft); })
            .get_stored();
    }
    // Whether `rfft` of a longdouble input returns clongdouble (else forward_long would throw).
    static bool transforms_long(const py::object& rfft) {
        py::array_t<long double> probe(8);
        std::fill(probe.mutable_data(), probe.mutable_data() + 8, 0.0L);
        return py::array(rfft(probe)).dtype().equal(py::dtype::of<std::complex<long double>>());
    }
    py::object scipy_rfft_long(const py::array_t<long double>& view) const {
        const ScipyOwnFft own(set_backend_);
        return rfft_(view, py::arg("axis") = -1, py::arg("workers") = 1);
    }
    py::object workers_;
    bool workers_one_;  // workers = 1: every transform on one thread
    bool workers_none_;  // workers = None: all cores where the transform is large enough to share
    py::object rfft_, irfft_, set_backend_;
    bool long_fft_ = false, long_numpy_ = false;
    const std::optional<NumpyFft>* numpy_ = nullptr;
    const std::optional<hockeystick_bindings::NumpyFftLoops>* loops_ = nullptr;
    const std::optional<PocketFft>* pocket_ = nullptr;
};

// The tuning of a composition as the facade passes it: the core's pld::ComposeOptions (its threads set from
// `workers`, composed()) and whether the backend may offer its long-double transform.
struct BoundComposeOptions : pld::ComposeOptions {
    bool long_fft = true;
};

// The tuning's bounds (the facade's arguments direct_min_charge and long_fft_products).
void check_compose_options(const pld::ComposeOptions& options) {
    if (!(options.direct_min_charge >= 0.0)) throw py::value_error("direct_min_charge must be >= 0");
    if (!(options.long_fft_products >= 0.0 && std::isfinite(options.long_fft_products)))
        throw py::value_error("long_fft_products must be finite and >= 0");
}

// The factors as the core reads them, after checking one k_lo, one p_inf and (if any) one finite
// loss_shift >= 0 per one-dimensional array of masses; no loss_shifts: every factor's is 0.
std::vector<pld::PmfView> factor_views(const std::vector<input_array>& masses, const std::vector<std::int64_t>& k_lo,
                                       const std::vector<double>& p_inf, const std::vector<double>& loss_shifts) {
    if (masses.size() != k_lo.size() || masses.size() != p_inf.size())
        throw py::value_error("internal: one k_lo and one p_inf per factor");
    if (!loss_shifts.empty() && loss_shifts.size() != masses.size())
        throw py::value_error("internal: one loss_shift per factor (or none)");
    for (const double s : loss_shifts)
        if (!(s >= 0.0 && std::isfinite(s))) throw py::value_error("loss_shifts must be finite and >= 0");
    std::vector<pld::PmfView> factors(masses.size());
    for (std::size_t f = 0; f < masses.size(); ++f) {
        if (masses[f].ndim() != 1) throw py::value_error("internal: a factor's masses must be one-dimensional");
        factors[f] = {masses[f].data(), static_cast<std::int64_t>(masses[f].size()), k_lo[f], p_inf[f],
                      loss_shifts.empty() ? 0.0 : loss_shifts[f]};
    }
    return factors;
}

// Each item's (factor, count) pairs as the core's terms.
std::vector<std::vector<pld::Term>> item_terms(
    const std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>>& items) {
    std::vector<std::vector<pld::Term>> terms(items.size());
    for (std::size_t i = 0; i < items.size(); ++i)
        for (const auto& [f, c] : items[i]) terms[i].push_back({f, c});
    return terms;
}

// The composition of each item (pld::compose_many with scipy.fft, GIL released), after the checks of the
// facade's arguments; `reads`: per item, how many targets its caller reads (pld::compose_many's), or none.
std::vector<pld::ComposedPMF> composed(const std::vector<input_array>& masses, const std::vector<std::int64_t>& k_lo,
                                       const std::vector<double>& p_inf, double h,
                                       const std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>>& items,
                                       bool pessimistic, double tail, std::int64_t max_points, py::object workers,
                                       pld::ComposeOptions options, bool long_fft,
                                       const std::vector<double>& loss_shifts,
                                       const std::vector<pld::SpectralReads>& reads = {}) {
    const std::vector<pld::PmfView> factors = factor_views(masses, k_lo, p_inf, loss_shifts);
    const std::vector<std::vector<pld::Term>> terms = item_terms(items);
    const hockeystick_bindings::PocketfftComposition compose(std::move(workers), options, long_fft, max_points);
    try {
        py::gil_scoped_release release;
        return compose(factors, h, terms, pessimistic, tail, reads);
    } catch (const std::length_error& e) {
        hockeystick_bindings::raise_composition_refusal(e);
    } catch (const std::invalid_argument& e) { hockeystick_bindings::raise_composition_refusal(e); }
}

// A composed window as the facade's GridPMF takes it: the core's ComposedPMF moved into a Python object, whose
// masses the `p` array views in place.
py::object as_window(pld::ComposedPMF& r) { return py::cast(std::move(r)); }

py::list compose_many(const std::vector<input_array>& masses, const std::vector<std::int64_t>& k_lo,
                      const std::vector<double>& p_inf, double h,
                      const std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>>& items, bool pessimistic,
                      double tail, std::int64_t max_points, py::object workers, const std::vector<double>& loss_shifts,
                      const BoundComposeOptions& options) {
    std::vector<pld::ComposedPMF> done = composed(masses, k_lo, p_inf, h, items, pessimistic, tail, max_points,
                                                  std::move(workers), options, options.long_fft, loss_shifts);
    py::list out;
    for (pld::ComposedPMF& r : done) out.append(as_window(r));
    return out;
}

// The reads of each item of a spectral side (compose_upper_many, compose_lower_many), after checking the
// arguments: one array of arguments per item, one-dimensional, and the method.  `searches`: every argument is
// read as an epsilon search (log2(width) + 3 thresholds), else as one threshold where the method is "delta";
// `spectral` false: no item read from its spectrum.
std::vector<pld::SpectralReads> spectral_reads(std::size_t items, const std::vector<input_array>& arguments,
                                               const std::string& method, bool spectral, bool searches) {
    if (arguments.size() != items) throw py::value_error("internal: one array of arguments per item");
    if (method != "epsilon" && method != "delta") throw py::value_error("method must be 'epsilon' or 'delta'");
    std::vector<pld::SpectralReads> reads(items);
    for (std::size_t i = 0; i < items; ++i) {
        if (arguments[i].ndim() != 1) throw py::value_error("internal: each item's arguments must be one-dimensional");
        const auto count = spectral ? static_cast<std::int64_t>(arguments[i].size()) : 0;
        reads[i] = searches || method == "epsilon" ? pld::SpectralReads{count, 0} : pld::SpectralReads{0, count};
    }
    return reads;
}

// The certified upper side of each item's composition at its arguments: epsilon at deltas (method "epsilon",
// pld::composed_epsilon) or delta at epsilons (method "delta", pld::composed_delta); items whose composed spectrum
// keeps few bins are read through it, with no inverse transform (pld/reads/spectral_profile.hpp).  `spectral` false:
// every item through its composed window (the facade's GridPMF.epsilon and GridPMF.delta, bit for bit).
py::list compose_upper_many(const std::vector<input_array>& masses, const std::vector<std::int64_t>& k_lo,
                            const std::vector<double>& p_inf, double h,
                            const std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>>& items, double tail,
                            std::int64_t max_points, py::object workers, const std::vector<double>& loss_shifts,
                            const std::vector<input_array>& arguments, const std::string& method, bool spectral,
                            const BoundComposeOptions& options) {
    const std::vector<pld::SpectralReads> reads = spectral_reads(items.size(), arguments, method, spectral, false);
    const bool search = method == "epsilon";
    const std::vector<pld::ComposedPMF> done =
        composed(masses, k_lo, p_inf, h, items, true, tail, max_points, std::move(workers), options, options.long_fft,
                 loss_shifts, reads);
    py::list out;
    for (std::size_t i = 0; i < done.size(); ++i) {
        py::array_t<double> values(arguments[i].size());
        {
            py::gil_scoped_release release;
            const std::int64_t count = static_cast<std::int64_t>(arguments[i].size());
            if (search)
                pld::composed_epsilon(done[i], arguments[i].data(), count, values.mutable_data());
            else
                pld::composed_delta(done[i], arguments[i].data(), count, values.mutable_data());
        }
        out.append(values);
    }
    return out;
}

// The certified lower side of each item's optimistic composition at its arguments: epsilon at deltas (method
// "epsilon", not clipped at 0) or delta at epsilons ("delta").  An item whose composed spectrum keeps few bins
// is read through it (pld/reads/spectral_profile.hpp's spectral_lower_epsilon, spectral_lower_delta: no inverse
// transform) and comes back as (values, None); any other as (None, its composed window as compose_many
// gives it), which the facade reads as it reads any optimistic composition.  Each reads as `log2(width) + 3`
// thresholds per argument (a lower delta probes grid points above its argument).  `spectral` false: every
// item as its window.
py::list compose_lower_many(const std::vector<input_array>& masses, const std::vector<std::int64_t>& k_lo,
                            const std::vector<double>& p_inf, double h,
                            const std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>>& items, double tail,
                            std::int64_t max_points, py::object workers, const std::vector<double>& loss_shifts,
                            const std::vector<input_array>& arguments, const std::string& method, bool spectral,
                            const BoundComposeOptions& options) {
    const std::vector<pld::SpectralReads> reads = spectral_reads(items.size(), arguments, method, spectral, true);
    const bool search = method == "epsilon";
    std::vector<pld::ComposedPMF> done = composed(masses, k_lo, p_inf, h, items, false, tail, max_points,
                                                  std::move(workers), options, options.long_fft, loss_shifts, reads);
    py::list out;
    for (std::size_t i = 0; i < done.size(); ++i) {
        pld::ComposedPMF& r = done[i];
        if (!r.spectral) {
            out.append(py::make_tuple(py::none(), as_window(r)));
            continue;
        }
        py::array_t<double> values(arguments[i].size());
        {
            py::gil_scoped_release release;
            pld::GridCharges ch = pld::charges_of(r);
            ch.slack = 0.0;  // no suffix sums
            const std::int64_t count = static_cast<std::int64_t>(arguments[i].size());
            if (search)
                pld::spectral_lower_epsilon(r.spectrum, r.p_inf, ch, arguments[i].data(), count, values.mutable_data());
            else
                pld::spectral_lower_delta(r.spectrum, r.p_inf, ch, arguments[i].data(), count, values.mutable_data());
        }
        out.append(py::make_tuple(values, py::none()));
    }
    return out;
}

using spectrum_bins = py::array_t<std::complex<double>, py::array::c_style | py::array::forcecast>;

// A few live bins read on a window, after the checks pld/reads/spectral_profile.hpp's bounds need.
pld::ComposedSpectrum checked_spectrum(const spectrum_bins& bins, std::int64_t m, std::int64_t start,
                                       std::int64_t width, std::int64_t k_lo, double h) {
    if (bins.ndim() != 1 || !pld::spectral_bins_fit(static_cast<std::int64_t>(bins.size()), m))
        throw py::value_error("bins must be one-dimensional with 1 <= bins.size <= m / 4");
    if (!(width >= 1 && start >= 0)) throw py::value_error("need width >= 1, start >= 0");
    if (!(h > 0.0 && h <= pld::max_interval)) throw py::value_error("h must lie in (0, 100]");
    pld::ComposedSpectrum s;
    s.m = m;
    s.bins.assign(bins.data(), bins.data() + bins.size());
    s.start = start;
    s.width = width;
    s.k_lo = k_lo;
    s.h = h;
    return s;
}

// A, R, D over the window points j >= J of the inverse of a few live bins, with the bounds on the errors of R and
// D (pld/reads/spectral_profile.hpp's SpectralProfile; the facade's tests check them against long-double sums).
py::tuple spectral_sums(const spectrum_bins& bins, std::int64_t m, std::int64_t start, std::int64_t width, double h,
                        std::int64_t J, bool long_double) {
    if (!(width >= 1 && J >= 0 && J < width && start >= 0)) throw py::value_error("need 0 <= J < width, start >= 0");
    const pld::ComposedSpectrum s = checked_spectrum(bins, m, start, width, 0, h);
    const pld::SpectralSums v = pld::SpectralProfile(s, long_double).at(J);
    return py::make_tuple(v.A, v.R, v.D, v.R_error, v.D_error);
}

// The lower side read from a few live bins with the given charges (pld/reads/spectral_profile.hpp's
// spectral_lower_epsilon at deltas, method "epsilon", or spectral_lower_delta at epsilons, "delta"; no inverse
// transform's charges, slack 0): the facade's tests check it against long-double sums of the exact inverse over the window.
py::array_t<double> spectral_lower(const spectrum_bins& bins, std::int64_t m, std::int64_t start, std::int64_t width,
                                   std::int64_t k_lo, double h, double p_inf, const pld::GridCharges& charges,
                                   const input_array& arguments, const std::string& method) {
    const pld::ComposedSpectrum s = checked_spectrum(bins, m, start, width, k_lo, h);
    const double shift = charges.shift, entry_error = charges.entry, total_error = charges.total,
                 spectral_l2 = charges.l2, loss_shift = charges.loss_shift;
    if (!(p_inf >= 0.0 && p_inf <= 1.0 && shift <= 0.0 && entry_error >= 0.0 && total_error >= 0.0 &&
          spectral_l2 >= 0.0 && loss_shift >= 0.0 && std::isfinite(loss_shift)))
        throw py::value_error("need p_inf in [0, 1], shift <= 0, charges >= 0 and a finite loss_shift >= 0");
    if (method != "epsilon" && method != "delta") throw py::value_error("method must be 'epsilon' or 'delta'");
    if (arguments.ndim() != 1) throw py::value_error("arguments must be one-dimensional");
    for (py::ssize_t i = 0; i < arguments.size(); ++i)
        if (std::isnan(arguments.data()[i])) throw py::value_error("arguments must not be NaN");
    // read from the spectrum: no suffix sums (slack 0) and no inverse transform (its charges 0)
    const pld::GridCharges ch{shift, 0.0, entry_error, total_error, spectral_l2, 0.0, loss_shift, 0.0};
    py::array_t<double> out(arguments.size());
    const std::int64_t count = static_cast<std::int64_t>(arguments.size());
    if (method == "epsilon")
        pld::spectral_lower_epsilon(s, p_inf, ch, arguments.data(), count, out.mutable_data());
    else
        pld::spectral_lower_delta(s, p_inf, ch, arguments.data(), count, out.mutable_data());
    return out;
}

// The l1 norm of masses (each finite and >= 0), rounded up by its own summation bound (n u relative, as
// pld_compose's finite_mass), after the checks the direct bins' bounds need.
double checked_l1(const input_array& masses, std::int64_t m) {
    if (masses.ndim() != 1) throw py::value_error("masses must be one-dimensional");
    if (m < 1) throw py::value_error("m must be >= 1");
    if (!numpy_long_double_is_full())
        throw py::value_error(
            "long double here is not the 80-bit format with a 64-bit significand that numpy's "
            "longdouble also uses (the direct bins' bounds take u_L = 2^-64): not available "
            "on this platform");
    if (!hockeystick::pld::full_long_double_precision())
        throw py::value_error(
            "long double arithmetic runs below its full precision here (the x87 precision "
            "control was lowered): the direct bins' bound would not hold");
    const std::int64_t n = static_cast<std::int64_t>(masses.size());
    double l1 = 0.0;
    for (std::int64_t j = 0; j < n; ++j) {
        if (!(masses.data()[j] >= 0.0 && std::isfinite(masses.data()[j])))
            throw py::value_error("masses must be finite and >= 0");
        l1 += masses.data()[j];
    }
    return l1 * (1.0 + (static_cast<double>(n) + 1.0) * 1.12e-16);
}

// Bins ks of the length-m DFT of masses (folded mod m) computed directly, and their common bound.
py::tuple direct_bins(const input_array& masses, std::int64_t m, const std::vector<std::int64_t>& ks) {
    const double l1 = checked_l1(masses, m);
    const std::int64_t n = static_cast<std::int64_t>(masses.size());
    for (const std::int64_t k : ks)
        if (k < 0 || k >= m) throw py::value_error("every bin must lie in [0, m)");
    py::array_t<std::complex<double>> values(static_cast<py::ssize_t>(ks.size()));
    double bound = 0.0;
    std::complex<double>* out = values.mutable_data();
    const double* p = masses.data();
    {
        py::gil_scoped_release release;
        const pld::TwiddleTable table(m);
        for (std::size_t i = 0; i < ks.size(); ++i) out[i] = pld::direct_bin(p, n, ks[i], table);
        bound = pld::direct_bin_error(l1, n);
    }
    return py::make_tuple(values, bound);
}

// The half spectrum (bins 0 .. m / 2) of the length-m DFT of masses (folded mod m in long double) from one
// long-double scipy.fft transform, its bound in long double and its bound once rounded to double; m 5-smooth.
py::tuple long_fft_bins(const input_array& masses, std::int64_t m) {
    const double l1 = checked_l1(masses, m);
    std::int64_t rest = m;
    for (const std::int64_t f : {2, 3, 5})
        while (rest % f == 0) rest /= f;
    if (rest != 1)  // other radices (Bluestein's for large primes) are outside the stated error model
        throw py::value_error("m must be 5-smooth (2^a 3^b 5^c, the lengths fft_length gives)");
    const std::int64_t n = static_cast<std::int64_t>(masses.size());
    std::vector<long double> folded(static_cast<std::size_t>(m));
    pld::fold_long(masses.data(), n, m, folded.data());
    py::array_t<std::complex<long double>> values(static_cast<py::ssize_t>(m / 2 + 1));
    ScipyFft fft(py::int_(1), true);
    if (!fft.offers_forward_long())
        throw py::value_error(
            "neither numpy.fft nor scipy.fft transforms numpy longdouble in long double here: "
            "no long-double bins on this platform");
    {
        py::gil_scoped_release release;
        fft.forward_long(1, m, folded.data(), m / 2 + 1, values.mutable_data());
    }
    return py::make_tuple(values, pld::long_fft_bin_error(l1, n, m, false), pld::long_fft_bin_error(l1, n, m, true));
}

// Bins 0 .. keep - 1 of the length-m DFT of masses from block moments and short long-double scipy.fft
// transforms (pld/compose/taylor_spectrum.hpp), the plan's (block, length, terms, reach), its bound in long double and
// its bound once rounded to double; m must admit a plan.
py::tuple taylor_bins(const input_array& masses, std::int64_t m, std::int64_t keep) {
    const double l1 = checked_l1(masses, m);
    if (keep < 1 || keep > m / 2 + 1) throw py::value_error("keep must lie in [1, m / 2 + 1]");
    pld::TaylorPlan plan;
    if (!pld::taylor_plan(m, keep, plan))
        throw py::value_error("no block of at least 16 points divides m within the expansion's reach for keep bins");
    if (!pld::full_long_double_precision())
        throw py::value_error("long double does not carry its full precision on this thread");
    ScipyFft fft(py::int_(1), true);
    if (!fft.offers_forward_long())
        throw py::value_error(
            "neither numpy.fft nor scipy.fft transforms numpy longdouble in long double here: "
            "no long-double bins on this platform");
    const std::int64_t n = static_cast<std::int64_t>(masses.size());
    py::array_t<std::complex<long double>> values(static_cast<py::ssize_t>(keep));
    {
        py::gil_scoped_release release;
        pld::taylor_band(masses.data(), n, m, keep, plan, fft, values.mutable_data());
    }
    return py::make_tuple(values, py::make_tuple(plan.block, plan.length, plan.terms, plan.reach),
                          pld::taylor_bin_error(l1, n, plan, false), pld::taylor_bin_error(l1, n, plan, true));
}

// Each bin's power prod_j x[j, k]^counts[j] by repeated squaring in double and its bound d against inputs within
// deltas[j] of x[j, k] (pld/compose/binary_power.hpp): (y, d, modulus, taken, dropped) per bin; where a bin is
// not taken (outside the bound's domain) or dropped (its perturbed power at most 2^-64), y, d and modulus are 0.
py::tuple binary_power_bins(const py::array_t<std::complex<double>, py::array::c_style | py::array::forcecast>& x,
                            const std::vector<std::int64_t>& counts, const std::vector<double>& deltas) {
    if (x.ndim() != 2 || static_cast<std::size_t>(x.shape(0)) != counts.size() || counts.size() != deltas.size() ||
        counts.empty())
        throw py::value_error("x must be (terms, bins), one count and one delta per term");
    for (const std::int64_t c : counts)
        if (c < 1) throw py::value_error("every count must be >= 1");
    const std::size_t nt = counts.size();
    const py::ssize_t bins = x.shape(1);
    py::array_t<std::complex<double>> y(bins);
    py::array_t<double> d(bins), modulus(bins);
    py::array_t<bool> taken(bins), dropped(bins);
    const pld::detail::BinaryPowers powers(counts);
    std::vector<std::complex<double>> column(nt);
    for (py::ssize_t k = 0; k < bins; ++k) {
        for (std::size_t j = 0; j < nt; ++j) column[j] = x.at(static_cast<py::ssize_t>(j), k);
        const pld::detail::BinaryPower b = powers(column.data(), deltas.data());
        y.mutable_at(k) = b.y;
        d.mutable_at(k) = b.d;
        modulus.mutable_at(k) = b.modulus;
        taken.mutable_at(k) = b.taken;
        dropped.mutable_at(k) = b.dropped;
    }
    return py::make_tuple(y, d, modulus, taken, dropped);
}

// The core's ComposedPMF as a read-only Python class: a composed window and its charges, each a named, typed field
// (pld/compose/options.hpp), its masses an array that views the object's own vector (no copy).
void register_composed_pmf(py::module_& m) {
    py::class_<pld::ComposedPMF>(m, "ComposedPMF",
                                 "A composed window of grid PMFs and its charges (pld/compose/options.hpp's "
                                 "ComposedPMF; read by the facade as a pmf.GridPMF).")
        .def_readonly("k_lo", &pld::ComposedPMF::k_lo, "grid index of p[0]: its loss is k_lo * h")
        .def_readonly("h", &pld::ComposedPMF::h, "the grid interval")
        .def_property_readonly(
            "p",
            [](py::object self) {
                std::vector<double>& p = self.cast<pld::ComposedPMF&>().p;
                return py::array_t<double>(static_cast<py::ssize_t>(p.size()), p.data(), self);
            },
            "the window's masses at the losses (k_lo + j) h (a view of the object's own vector)")
        .def_readonly("p_inf", &pld::ComposedPMF::p_inf, "the mass at +infinity")
        .def_readonly("pessimistic", &pld::ComposedPMF::pessimistic, "the side: True upper, False lower")
        .def_readonly("shift", &pld::ComposedPMF::shift,
                      "the window's cut mass charged as a constant (0 upper: charged to p_inf; negative lower)")
        .def_readonly("entry_error", &pld::ComposedPMF::entry_error, "a bound on each mass's round-off")
        .def_readonly("total_error", &pld::ComposedPMF::total_error, "a bound on the masses' summed round-off")
        .def_readonly("spectral_l2", &pld::ComposedPMF::spectral_l2,
                      "a bound on the Euclidean norm of the spectrum's round-off (Parseval)")
        .def_readonly("inverse_error", &pld::ComposedPMF::inverse_error,
                      "a bound on the inverse transform's round-off per mass")
        .def_readonly("inverse_l2", &pld::ComposedPMF::inverse_l2,
                      "a bound on the inverse transform's round-off in Euclidean norm")
        .def_readonly("loss_shift", &pld::ComposedPMF::loss_shift,
                      "the factors' loss shifts times their counts, summed and rounded up")
        .def_readonly("finite_mass", &pld::ComposedPMF::finite_mass,
                      "the sum of p as numpy sums it, taken by the composition on the pessimistic side (else None)");
}

}  // namespace

namespace hockeystick_bindings {

PocketfftComposition::PocketfftComposition(py::object workers, pld::ComposeOptions options, bool long_fft,
                                           std::int64_t max_points)
    : options_(options), max_points_(max_points) {
    check_compose_options(options_);
    const bool workers_is_none = workers.is_none();
    const long workers_value = workers_is_none ? 0 : workers.cast<long>();
    // no probe where no direct bins are asked
    fft_ = std::make_unique<ScipyFft>(std::move(workers), long_fft && options_.direct_bins);
    // workers = 1: one thread for the transforms and for the per-bin powers alike
    options_.threads = !workers_is_none && workers_value == 1 ? 1 : 0;
}

PocketfftComposition::~PocketfftComposition() = default;

std::vector<pld::ComposedPMF> PocketfftComposition::operator()(const std::vector<pld::PmfView>& factors, double h,
                                                               const std::vector<std::vector<pld::Term>>& items,
                                                               bool pessimistic, double tail,
                                                               const std::vector<pld::SpectralReads>& reads) const {
    return pld::compose_many(factors, h, items, pessimistic, tail, max_points_, *fft_, options_, reads);
}

void raise_composition_refusal(const std::exception& e) {
    if (dynamic_cast<const std::length_error*>(&e) != nullptr)
        throw py::value_error(std::string(e.what()) +
                              "; coarsen the grid (a larger value_discretization_interval or accuracy) or "
                              "raise max_points (hockeystick.pld.compose.fft.DEFAULT_MAX_POINTS)");
    throw py::value_error(e.what());
}

}  // namespace hockeystick_bindings

void register_pld_compose(py::module_ m) {
    m.attr("direct_min_charge") = pld::kDirectMinCharge;
    py::class_<BoundComposeOptions>(m, "ComposeOptions",
                                    "The tuning of a composition (pld/compose/options.hpp's ComposeOptions) and "
                                    "long_fft: whether the backend may offer its long-double transform (False: "
                                    "the direct bins by direct sums).")
        .def(py::init([](bool direct_bins, bool long_fft, double long_fft_products, bool band_rows,
                         double direct_min_charge, bool shared_transform, std::int64_t group_cells) {
                 BoundComposeOptions o;
                 o.direct_bins = direct_bins;
                 o.long_fft = long_fft;
                 o.long_fft_products = long_fft_products;
                 o.band_rows = band_rows;
                 o.direct_min_charge = direct_min_charge;
                 o.shared_transform = shared_transform;
                 o.group_cells = group_cells;
                 return o;
             }),
             py::kw_only(), py::arg("direct_bins") = false, py::arg("long_fft") = true,
             py::arg("long_fft_products") = pld::kLongFftProducts, py::arg("band_rows") = true,
             py::arg("direct_min_charge") = pld::kDirectMinCharge, py::arg("shared_transform") = false,
             py::arg("group_cells") = pld::kBatchCells)
        .def_readwrite("direct_bins", &BoundComposeOptions::direct_bins)
        .def_readwrite("long_fft", &BoundComposeOptions::long_fft)
        .def_readwrite("long_fft_products", &BoundComposeOptions::long_fft_products)
        .def_readwrite("band_rows", &BoundComposeOptions::band_rows)
        .def_readwrite("direct_min_charge", &BoundComposeOptions::direct_min_charge)
        .def_readwrite("shared_transform", &BoundComposeOptions::shared_transform)
        .def_readwrite("group_cells", &BoundComposeOptions::group_cells)
        .def("__repr__", [](const BoundComposeOptions& o) {
            return py::str(
                       "ComposeOptions(direct_bins={!r}, long_fft={!r}, long_fft_products={!r}, band_rows={!r}, "
                       "direct_min_charge={!r}, shared_transform={!r}, group_cells={!r})")
                .format(o.direct_bins, o.long_fft, o.long_fft_products, o.band_rows, o.direct_min_charge,
                        o.shared_transform, o.group_cells);
        });
    register_composed_pmf(m);
    m.def("compose_many", &compose_many, py::arg("masses"), py::kw_only(), py::arg("k_lo"), py::arg("p_inf"),
          py::arg("h"), py::arg("items"), py::arg("pessimistic"), py::arg("tail"), py::arg("max_points"),
          py::arg("workers") = py::none(), py::arg("loss_shifts") = std::vector<double>{},
          py::arg("options") = BoundComposeOptions{},
          "Composes each item (a list of (factor index, count)) of grid PMFs on grid h; scipy.fft transforms "
          "(loss_shifts: each factor's loss error, summed per item into its loss_shift; options: ComposeOptions, "
          "long_fft = False: no long-double transform, the direct bins by direct sums; long_fft_products: "
          "a long-double transform's cost in direct products per m ceil(log2 m), 0 to take it wherever its "
          "bound is the smaller; direct_min_charge: the least estimated charge of a row given direct bins, 0 for "
          "every row; shared_transform: every item on a divisor of the widest window's FFT length, each factor "
          "transformed once at it).");
    m.def("composition_batches", &pld::composition_batches, py::kw_only(), py::arg("tails") = std::vector<double>{},
          py::arg("steps") = std::vector<double>{},
          "The items' indices in the batches they are composed in (pld/compose/grouping.hpp): by tail, the tails in "
          "order of their first item, then by grid step; tails or steps empty: one for every item.");
    m.def("compose_upper_many", &compose_upper_many, py::arg("masses"), py::kw_only(), py::arg("k_lo"),
          py::arg("p_inf"), py::arg("h"), py::arg("items"), py::arg("tail"), py::arg("max_points"), py::arg("workers"),
          py::arg("loss_shifts"), py::arg("arguments"), py::arg("method"), py::arg("spectral") = true,
          py::arg("options") = BoundComposeOptions{},
          "The certified upper side of each item's pessimistic composition at its arguments (one array per item): "
          "epsilon at deltas (method 'epsilon', not clipped at 0) or delta at epsilons ('delta'), items whose "
          "composed spectrum keeps few bins read through it (pld/reads/spectral_profile.hpp); options: as "
          "compose_many's.");
    m.def("compose_lower_many", &compose_lower_many, py::arg("masses"), py::kw_only(), py::arg("k_lo"),
          py::arg("p_inf"), py::arg("h"), py::arg("items"), py::arg("tail"), py::arg("max_points"), py::arg("workers"),
          py::arg("loss_shifts"), py::arg("arguments"), py::arg("method"), py::arg("spectral") = true,
          py::arg("options") = BoundComposeOptions{},
          "The certified lower side of each item's optimistic composition at its arguments: (values, None) for an "
          "item read through its composed spectrum (pld/reads/spectral_profile.hpp: epsilon at deltas, method "
          "'epsilon', not clipped at 0, or delta at epsilons, 'delta'), else (None, its composed window as "
          "compose_many's ComposedPMF); options: as compose_many's.");
    m.def("spectral_sums", &spectral_sums, py::arg("bins"), py::kw_only(), py::arg("m"), py::arg("start"),
          py::arg("width"), py::arg("h"), py::arg("J"), py::arg("long_double") = true,
          "(A, R, D, R_error, D_error) of the window points j >= J of irfft(bins, m) read from start "
          "(pld/reads/spectral_profile.hpp; long_double = False: the sums in double, as where long double lacks its "
          "64 bits).");
    m.def("spectral_lower", &spectral_lower, py::arg("bins"), py::kw_only(), py::arg("m"), py::arg("start"),
          py::arg("width"), py::arg("k_lo"), py::arg("h"), py::arg("p_inf"), py::arg("charges"), py::arg("arguments"),
          py::arg("method"),
          "The certified lower epsilon at deltas (method 'epsilon') or delta at epsilons ('delta') of the window of "
          "irfft(bins, m) read from start, grid indices k_lo.. (pld/reads/spectral_profile.hpp's lower side), with the "
          "given charges (their shift, round-off bounds and loss_shift: no suffix sums and no inverse transform "
          "here, so no slack and no inverse charges).");
    m.def(
        "working_memory_limit",
        [](std::optional<std::int64_t> bytes) {  // a negative limit: the gate's std::invalid_argument, a ValueError
            return bytes ? pld::working_memory_gate().set_limit(*bytes) : pld::working_memory_gate().limit();
        },
        py::arg("limit") = py::none(),
        "The bytes of composition buffers admitted at once process-wide (pld/compose/working_memory_gate.hpp); with "
        "limit, sets it and returns the previous one.");
    m.def(
        "working_memory_high_water", [](bool reset) { return pld::working_memory_gate().high_water(reset); },
        py::kw_only(), py::arg("reset") = false,
        "The most composition bytes admitted at once (reset: start again from now).");
    m.def("fft_length", &pld::fft_length, py::arg("width"));
    m.def(
        "numpy_fft_loops",
        [] {
            const auto& loops = hockeystick_bindings::NumpyFftLoops::found();
            return std::make_pair(loops.has_value(), loops.has_value() && loops->offers_long());
        },
        "Whether the transforms on one thread call numpy.fft's pocketfft loops without the GIL (numpy_fft_loops.hpp), "
        "in double and in long double.");
    m.def("binary_power_bins", &binary_power_bins, py::arg("x"), py::kw_only(), py::arg("counts"), py::arg("deltas"),
          "Each bin's power of x[j, k] ** counts[j] (product over j) by repeated squaring in double and its bound "
          "against inputs within deltas[j]: (y, d, modulus, taken, dropped).");
    m.def("taylor_bins", &taylor_bins, py::arg("masses"), py::kw_only(), py::arg("m"), py::arg("keep"));
    m.def("direct_bins", &direct_bins, py::arg("masses"), py::kw_only(), py::arg("m"), py::arg("bins"),
          "Bins of the length-m DFT of masses (folded mod m) by a blocked long-double direct sum, and their error "
          "bound.");
    m.def("long_fft_bins", &long_fft_bins, py::arg("masses"), py::kw_only(), py::arg("m"),
          "The half spectrum of the length-m DFT of masses (folded mod m) by one long-double scipy.fft transform, "
          "its error bound in long double and rounded to double.");
    // Test hook: whether the compositions call scipy's pocketfft directly (PocketFft's probe passed).
    m.def("_fft_direct", [] {
        const py::module_ fft = py::module_::import("scipy.fft");
        return PocketFft::found(fft.attr("rfft"), fft.attr("irfft")).has_value();
    });
}
