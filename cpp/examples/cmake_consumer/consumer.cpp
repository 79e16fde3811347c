// A program built against hockeystick::core (CMakeLists.txt beside it): the version CMake found, then
// theta(r, eps) = delta of the Gaussian mechanism at radius r = sensitivity / sigma, one line per point.
#include <hockeystick/numerics/hockey_stick.hpp>

#include <cstdio>

int main() {
    std::printf("version %s\n", HOCKEYSTICK_PACKAGE_VERSION);
    const double points[][2] = {{1.0, 1.0}, {0.5, 3.0}, {2.0, 0.25}};
    for (const auto& p : points) std::printf("theta %.17g %.17g %.17g\n", p[0], p[1], hockeystick::theta(p[0], p[1]));
    return 0;
}
