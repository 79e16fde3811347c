// The transforms tests/core/test_eigen_fft_backend.py measures, on raw arrays in files:
//   eigen_fft_probe forward n rows IN OUT       IN: rows * n doubles, OUT: rows * (n / 2 + 1) complex doubles
//   eigen_fft_probe inverse n rows IN OUT       IN: rows * (n / 2 + 1) complex doubles, OUT: rows * n doubles
//   eigen_fft_probe forward_long n rows IN OUT  the same as forward in long double, every bin kept
//   eigen_fft_probe forward_long_kept n rows IN OUT  forward_long keeping bins 0 .. n / 4 of each row
//   eigen_fft_probe eigen_long n rows IN OUT    the same by Eigen's own Eigen::FFT<long double>
//   eigen_fft_probe offers_long                 prints the backend's offers_forward_long() (0 or 1)
// forward, inverse and forward_long are cpp/backends/eigen_fft_backend.hpp's; eigen_long is Eigen's own long-double
// transform (its twiddles from double cos and sin), which that backend does not use.
// The tests run it compiled into tests/core/eigen_programs.cpp: eigen_programs eigen_fft_probe MODE ...
#include "eigen_fft_backend.hpp"

#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

template <typename T>
static std::vector<T> read(const char *path, std::int64_t count) {
  std::vector<T> values(static_cast<std::size_t>(count));
  std::FILE *file = std::fopen(path, "rb");
  if (file == nullptr || std::fread(values.data(), sizeof(T), values.size(),
                                    file) != values.size())
    std::exit(3);
  std::fclose(file);
  return values;
}

template <typename T>
static void write(const char *path, const std::vector<T> &values) {
  std::FILE *file = std::fopen(path, "wb");
  if (file == nullptr || std::fwrite(values.data(), sizeof(T), values.size(),
                                     file) != values.size())
    std::exit(4);
  std::fclose(file);
}

int main(int argc, char **argv) {
  hockeystick::backends::EigenFftBackend backend;
  if (argc == 2 && std::strcmp(argv[1], "offers_long") == 0) {
    std::printf("%d\n", backend.offers_forward_long() ? 1 : 0);
    return 0;
  }
  if (argc != 6)
    return 2;
  const std::int64_t n = std::atoll(argv[2]), rows = std::atoll(argv[3]),
                     bins = n / 2 + 1;
  if (std::strcmp(argv[1], "forward") == 0) {
    const auto in = read<double>(argv[4], rows * n);
    std::vector<std::complex<double>> out(
        static_cast<std::size_t>(rows * bins));
    backend.forward(rows, n, in.data(), out.data());
    write(argv[5], out);
  } else if (std::strcmp(argv[1], "inverse") == 0) {
    auto in = read<std::complex<double>>(argv[4], rows * bins);
    std::vector<double> out(static_cast<std::size_t>(rows * n));
    backend.inverse(rows, n, in.data(), out.data());
    write(argv[5], out);
  } else if (std::strcmp(argv[1], "forward_long") == 0) {
    const auto in = read<long double>(argv[4], rows * n);
    std::vector<std::complex<long double>> out(
        static_cast<std::size_t>(rows * bins));
    backend.forward_long(rows, n, in.data(), bins, out.data());
    write(argv[5], out);
  } else if (std::strcmp(argv[1], "forward_long_kept") == 0) {
    const auto in = read<long double>(argv[4], rows * n);
    const std::int64_t keep = n / 4 + 1;
    std::vector<std::complex<long double>> out(
        static_cast<std::size_t>(rows * keep));
    backend.forward_long(rows, n, in.data(), keep, out.data());
    write(argv[5], out);
  } else if (std::strcmp(argv[1], "eigen_long") == 0) {
    const auto in = read<long double>(argv[4], rows * n);
    std::vector<std::complex<long double>> out(
        static_cast<std::size_t>(rows * bins));
    Eigen::FFT<long double> fft;
    fft.SetFlag(Eigen::FFT<long double>::HalfSpectrum);
    for (std::int64_t r = 0; r < rows; ++r)
      fft.fwd(out.data() + r * bins, in.data() + r * n, n);
    write(argv[5], out);
  } else {
    return 2;
  }
  return 0;
}
