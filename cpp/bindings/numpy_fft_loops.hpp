// numpy.fft's pocketfft transforms called without the GIL: the inner loops of the gufuncs numpy.fft.rfft and irfft
// run (numpy >= 2.0: numpy.fft._pocketfft_umath.rfft_n_even, rfft_n_odd, irfft), called directly with the strides
// and normalization factor numpy's own dispatch passes them, so a composition's transforms on one thread take no
// Python call and no GIL (a thread composing never waits for another thread's Python).
//
// The loops are read from the ufunc objects' public C struct (numpy/ufuncobject.h's PyUFuncObject, whose head,
// nin .. types, is numpy's stable C API since 1.0), and taken only under numpy 2 (the release series whose loops
// this reads; another major version is not read at all) after a probe (once, GIL held) finds
//   - each ufunc with 2 inputs, 1 output, 3 loops, its name, and its loops' type numbers (double, float, long
//     double, in that order: numpy's registration);
//   - the double loops' transforms equal numpy.fft.rfft / irfft's, bit for bit, at even and odd lengths and on one
//     row and several (the vectorized and the row-by-row paths of numpy's loops), and the long-double loop's equal
//     numpy.fft.rfft of a longdouble array where numpy transforms it in long double.
// A row's inverse from its leading bins alone (inverse_given: numpy's irfft loop given fewer bins than n / 2 + 1
// takes the rest as zero, as numpy.fft.irfft of a short input does) is offered where the probe finds it equal, bit
// for bit, to the inverse of the whole row with those bins zero.
// Otherwise none is offered and the caller goes through numpy.fft (register_pld_compose.cpp's NumpyFft).
//
// Errors: a loop that fails (pocketfft's allocation) sets a Python exception through numpy's own GIL-taking
// macro and writes nothing; a sentinel NaN in the last row's first output, left in place, sends the caller to
// check under the GIL and raise it (a finite input never transforms to NaN).  pocketfft's plan cache is shared by
// every thread under its own mutex (numpy calls these loops from several threads the same way).
#pragma once

#include <Python.h>
#include <pybind11/gil_safe_call_once.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace hockeystick_bindings {

namespace py = pybind11;

// The head of numpy's PyUFuncObject (numpy/ufuncobject.h): the fields up to `types`.
struct UfuncHead {
    PyObject_HEAD int nin, nout, nargs;
    int identity;
    void (**functions)(char**, const Py_intptr_t*, const Py_intptr_t*, void*);
    void* const* data;
    int ntypes;
    int reserved1;
    const char* name;
    const char* types;
};

class NumpyFftLoops {
  public:
    using Loop = void (*)(char**, const Py_intptr_t*, const Py_intptr_t*, void*);

    // The loops where the probe (the header's comment) accepts them, else none.  The GIL must be held.
    static const std::optional<NumpyFftLoops>& found() {
        PYBIND11_CONSTINIT static py::gil_safe_call_once_and_store<std::optional<NumpyFftLoops>> loops;
        return loops.call_once_and_store_result([] { return probe(); }).get_stored();
    }

    // numpy.fft.rfft(in, axis=-1) of a (rows, n) C-ordered array into out (rows, n / 2 + 1).  GIL not needed.
    void forward(std::int64_t rows, std::int64_t n, const double* in, std::complex<double>* out) const {
        transform(n % 2 == 0 ? rfft_even_ : rfft_odd_, rows, n, n / 2 + 1, in, out, 1.0);
    }
    // numpy.fft.irfft(in, n=n, axis=-1) of (rows, n / 2 + 1) into out (rows, n): scaled by 1 / n.
    void inverse(std::int64_t rows, std::int64_t n, const std::complex<double>* in, double* out) const {
        transform(irfft_, rows, n / 2 + 1, n, in, out, 1.0 / static_cast<double>(n));
    }
    bool offers_given() const { return given_; }
    // numpy.fft.irfft(in[:given], n=n) of one row into out (n): the inverse of the row whose bins from `given` on
    // are zero, bins 0 .. given - 1 alone read (offers_given(); 1 <= given <= n / 2 + 1).
    void inverse_given(std::int64_t n, std::int64_t given, const std::complex<double>* in, double* out) const {
        transform(irfft_, 1, given, n, in, out, 1.0 / static_cast<double>(n));
    }
    bool offers_long() const { return rfft_even_long_ != nullptr; }
    // numpy.fft.rfft in long double (offers_long()).
    void forward_long(std::int64_t rows, std::int64_t n, const long double* in, std::complex<long double>* out) const {
        transform(n % 2 == 0 ? rfft_even_long_ : rfft_odd_long_, rows, n, n / 2 + 1, in, out, 1.0L);
    }

  private:
    // One gufunc call (n),()->(m) over `rows` rows: args (in, factor, out), the factor broadcast (stride 0).
    template <class In, class Out, class Factor>
    static void transform(Loop loop, std::int64_t rows, std::int64_t n_in, std::int64_t n_out, const In* in, Out* out,
                          Factor factor) {
        Out& sentinel = out[(rows - 1) * n_out];
        sentinel = Out(std::numeric_limits<Factor>::quiet_NaN());
        char* args[3] = {reinterpret_cast<char*>(const_cast<In*>(in)), reinterpret_cast<char*>(&factor),
                         reinterpret_cast<char*>(out)};
        const Py_intptr_t dimensions[3] = {rows, n_in, n_out};
        const Py_intptr_t steps[5] = {static_cast<Py_intptr_t>(n_in * sizeof(In)), 0,
                                      static_cast<Py_intptr_t>(n_out * sizeof(Out)), sizeof(In), sizeof(Out)};
        loop(args, dimensions, steps, nullptr);
        if (!std::isnan(std::real(sentinel))) return;
        py::gil_scoped_acquire acquire;  // a NaN left: the loop's error, if it set one
        if (PyErr_Occurred()) throw py::error_already_set();
    }

    // A ufunc's loop `index` where its head is as numpy registers it (the header's comment), else null.
    static Loop loop_of(const py::module_& umath, const char* name, const int (&types)[9], int index) {
        const py::object f = umath.attr(name);
        if (!py::isinstance(f, py::module_::import("numpy").attr("ufunc"))) return nullptr;
        const auto* head = reinterpret_cast<const UfuncHead*>(f.ptr());
        if (head->nin != 2 || head->nout != 1 || head->nargs != 3 || head->ntypes != 3 || head->name == nullptr ||
            std::strcmp(head->name, name) != 0 || head->types == nullptr || head->functions == nullptr)
            return nullptr;
        for (int k = 0; k < 9; ++k)
            if (head->types[k] != types[k]) return nullptr;
        return head->functions[index];
    }

    static std::optional<NumpyFftLoops> probe() {
        try {
            const py::module_ np = py::module_::import("numpy");
            const std::string version = py::str(np.attr("__version__"));
            if (version.rfind("2.", 0) != 0) return std::nullopt;  // numpy 2 only (the header's comment)
            const py::module_ umath = py::module_::import("numpy.fft._pocketfft_umath");
            const auto num = [&](const char* dtype) { return np.attr("dtype")(dtype).attr("num").cast<int>(); };
            const int d = num("float64"), f = num("float32"), g = num("longdouble");
            const int cd = num("complex128"), cf = num("complex64"), cg = num("clongdouble");
            const int rfft_types[9] = {d, d, cd, f, f, cf, g, g, cg};
            const int irfft_types[9] = {cd, d, d, cf, f, f, cg, g, g};
            NumpyFftLoops l;
            l.rfft_even_ = loop_of(umath, "rfft_n_even", rfft_types, 0);
            l.rfft_odd_ = loop_of(umath, "rfft_n_odd", rfft_types, 0);
            l.irfft_ = loop_of(umath, "irfft", irfft_types, 0);
            if (!l.rfft_even_ || !l.rfft_odd_ || !l.irfft_) return std::nullopt;
            const py::module_ fft = py::module_::import("numpy.fft");
            for (const std::int64_t rows : {1, 5})
                for (const std::int64_t n : {12, 15, 160})
                    if (!l.same_double(fft, rows, n)) return std::nullopt;
            l.given_ = true;
            for (const std::int64_t n : {12, 15, 160})
                for (const std::int64_t given : {std::int64_t(1), std::int64_t(3), n / 2, n / 2 + 1})
                    l.given_ = l.given_ && l.same_given(n, given);
            l.rfft_even_long_ = loop_of(umath, "rfft_n_even", rfft_types, 2);
            l.rfft_odd_long_ = loop_of(umath, "rfft_n_odd", rfft_types, 2);
            bool same_long = l.rfft_even_long_ && l.rfft_odd_long_;
            for (const std::int64_t n : {12, 15}) same_long = same_long && l.same_long(fft, n);
            if (!same_long) l.rfft_even_long_ = l.rfft_odd_long_ = nullptr;
            return l;
        } catch (py::error_already_set& e) {
            if (!e.matches(PyExc_Exception)) throw;  // KeyboardInterrupt, SystemExit: not a verdict on numpy
            return std::nullopt;
        }
    }

    // Whether the double loops transform a (rows, n) probe as numpy.fft.rfft / irfft do, bit for bit.
    bool same_double(const py::module_& fft, std::int64_t rows, std::int64_t n) const {
        const std::int64_t bins = n / 2 + 1;
        py::array_t<double> signal({rows, n});
        for (std::int64_t i = 0; i < rows * n; ++i) signal.mutable_data()[i] = std::sin(0.7 * i + 0.1) + 1.5;
        const auto want = py::array_t<std::complex<double>, py::array::c_style | py::array::forcecast>(
            fft.attr("rfft")(signal, py::arg("axis") = -1));
        py::array_t<std::complex<double>> spec({rows, bins});
        forward(rows, n, signal.data(), spec.mutable_data());
        if (std::memcmp(spec.data(), want.data(), sizeof(std::complex<double>) * rows * bins) != 0) return false;
        const auto back = py::array_t<double, py::array::c_style | py::array::forcecast>(
            fft.attr("irfft")(spec, py::arg("n") = n, py::arg("axis") = -1));
        py::array_t<double> mine({rows, n});
        inverse(rows, n, spec.data(), mine.mutable_data());
        return std::memcmp(mine.data(), back.data(), sizeof(double) * rows * n) == 0;
    }

    // Whether inverse_given of a row's first `given` bins gives the bits inverse gives for the row with the others
    // zero, the memory past the given bins holding NaNs (never to be read).
    bool same_given(std::int64_t n, std::int64_t given) const {
        const std::int64_t bins = n / 2 + 1;
        std::vector<std::complex<double>> zeros(static_cast<std::size_t>(bins)), nans(zeros.size());
        for (std::int64_t k = 0; k < bins; ++k) {
            const std::complex<double> x = k < given ? std::complex<double>(std::sin(0.3 * k + 0.2), std::cos(0.9 * k))
                                                     : std::complex<double>(0.0, 0.0);
            zeros[k] = x;
            nans[k] = k < given ? x : std::complex<double>(std::numeric_limits<double>::quiet_NaN(), 0.0);
        }
        std::vector<double> want(static_cast<std::size_t>(n)), got(static_cast<std::size_t>(n));
        inverse(1, n, zeros.data(), want.data());
        inverse_given(n, given, nans.data(), got.data());
        return std::memcmp(want.data(), got.data(), sizeof(double) * static_cast<std::size_t>(n)) == 0;
    }

    // Whether the long-double loop transforms a (2, n) probe as numpy.fft.rfft of a longdouble array does, where
    // that transform is in long double.
    bool same_long(const py::module_& fft, std::int64_t n) const {
        const std::int64_t rows = 2, bins = n / 2 + 1;
        py::array_t<long double> signal({rows, n});
        for (std::int64_t i = 0; i < rows * n; ++i) signal.mutable_data()[i] = std::sin(0.7L * i + 0.1L) + 1.5L;
        const py::array result = fft.attr("rfft")(signal, py::arg("axis") = -1);
        if (!result.dtype().equal(py::dtype::of<std::complex<long double>>())) return false;
        const auto want = py::array_t<std::complex<long double>, py::array::c_style>::ensure(result);
        if (!want) return false;
        py::array_t<std::complex<long double>> spec({rows, bins});
        forward_long(rows, n, signal.data(), spec.mutable_data());
        for (std::int64_t i = 0; i < rows * bins; ++i)  // value by value: long double's padding bytes are not data
            if (spec.data()[i] != want.data()[i]) return false;
        return true;
    }

    Loop rfft_even_ = nullptr, rfft_odd_ = nullptr, irfft_ = nullptr;
    Loop rfft_even_long_ = nullptr, rfft_odd_long_ = nullptr;
    bool given_ = false;  // inverse_given offered (the probe's same_given)
};

}  // namespace hockeystick_bindings
