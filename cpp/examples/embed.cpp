// Embedding the header-only core without Python: compile with
//   c++ -std=c++17 -O2 -I cpp/include cpp/examples/embed.cpp -o embed
// Prints one line per (r, eps): r, eps, theta, log theta; then a noise calibration.
#include <hockeystick/hockeystick.hpp>

#include <cstdio>

int main() {
    const double points[][2] = {{1.0, 1.0}, {0.5, 3.0}, {1e-6, 1e-5}, {5.0, 200.0}, {1.0, 1000.0}};
    for (const auto& p : points) {
        std::printf("theta %.17g %.17g %.17g %.17g\n", p[0], p[1], hockeystick::theta(p[0], p[1]),
                    hockeystick::log_theta(p[0], p[1]));
    }
    const double eps = 1.0, delta = 1e-5;
    const double r = hockeystick::theta_radius(eps, delta);
    std::printf("calibration %.17g %.17g sigma_per_unit_sensitivity %.17g\n", eps, delta, 1.0 / r);
    return 0;
}
