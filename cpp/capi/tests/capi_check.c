/* Calls libhockeystick_c from C and prints what it returns, one line a value (%.17g: every double read back
 * exactly), for tests/core/test_capi.py to compare with the Python package:
 *   cc -std=c99 -I cpp/capi/include cpp/capi/tests/capi_check.c -L <dir> -lhockeystick_c -o capi_check
 * Lines: "version V"; "theta r eps theta log_theta"; "tail x Q log_Q"; "inverse r eps delta theta_epsilon
 * theta_radius sigma"; "refused status message" for a bad argument; and where the library has the PLD calls,
 * "backend name" (its FFT backend), "bracket name sigma q rounds h delta lower upper", "delta_bracket name eps
 * lower upper" and "refined sigma q rounds delta accuracy lower upper" (epsilon at delta to an accuracy). */
#include <hockeystick/hockeystick.h>

#include <stdio.h>
#include <stdlib.h>

static void check(hs_status status, const char* call) {
    if (status != HS_OK) {
        fprintf(stderr, "%s failed (%d): %s\n", call, (int)status, hs_last_error());
        exit(1);
    }
}

static void print_thetas(void) {
    static const double points[][2] = {{1.0, 1.0}, {0.5, 3.0}, {1e-6, 1e-5}, {5.0, 200.0}, {1e-300, 1e-290}};
    size_t i;
    for (i = 0; i < sizeof points / sizeof points[0]; ++i) {
        double t = 0.0, log_t = 0.0;
        check(hs_theta(points[i][0], points[i][1], &t), "hs_theta");
        check(hs_log_theta(points[i][0], points[i][1], &log_t), "hs_log_theta");
        printf("theta %.17g %.17g %.17g %.17g\n", points[i][0], points[i][1], t, log_t);
    }
}

static void print_tails(void) {
    static const double xs[] = {-3.0, 0.0, 0.5, 8.0, 40.0, 1e152};
    size_t i;
    for (i = 0; i < sizeof xs / sizeof xs[0]; ++i) {
        double q = 0.0, log_q = 0.0;
        check(hs_gaussian_tail(xs[i], &q), "hs_gaussian_tail");
        check(hs_log_gaussian_tail(xs[i], &log_q), "hs_log_gaussian_tail");
        printf("tail %.17g %.17g %.17g\n", xs[i], q, log_q);
    }
}

static void print_inverses(void) {
    static const double points[][3] = {{1.0, 1.0, 1e-5}, {0.1, 0.5, 1e-9}, {3.0, 8.0, 0.01}};
    size_t i;
    for (i = 0; i < sizeof points / sizeof points[0]; ++i) {
        double eps = 0.0, r = 0.0, sigma = 0.0;
        check(hs_theta_epsilon(points[i][0], points[i][2], &eps), "hs_theta_epsilon");
        check(hs_theta_radius(points[i][1], points[i][2], &r), "hs_theta_radius");
        check(hs_gaussian_sigma(points[i][1], points[i][2], 1.0, &sigma), "hs_gaussian_sigma");
        printf("inverse %.17g %.17g %.17g %.17g %.17g %.17g\n", points[i][0], points[i][1], points[i][2], eps, r,
               sigma);
    }
}

static void print_refusal(void) {
    double out = 0.0;
    hs_status status = hs_theta_epsilon(1.0, 1.5, &out);
    printf("refused %d %s\n", (int)status, hs_last_error());
}

/* The certified epsilon bracket at delta and delta bracket at eps of `rounds` rounds of the subsampled Gaussian. */
static void print_brackets(const char* name, double sigma, double q, long long rounds, double h, double delta,
                           double eps) {
    hs_pld* one = NULL;
    hs_pld* composed = NULL;
    double lower = 0.0, upper = 0.0;
    check(hs_pld_subsampled_gaussian(sigma, q, h, &one), "hs_pld_subsampled_gaussian");
    check(hs_pld_self_compose(one, rounds, &composed), "hs_pld_self_compose");
    hs_pld_free(one); /* the composition keeps what it needs */
    check(hs_pld_epsilon_bracket(composed, delta, &lower, &upper), "hs_pld_epsilon_bracket");
    printf("bracket %s %.17g %.17g %lld %.17g %.17g %.17g %.17g\n", name, sigma, q, rounds, h, delta, lower, upper);
    check(hs_pld_delta_bracket(composed, eps, &lower, &upper), "hs_pld_delta_bracket");
    printf("delta_bracket %s %.17g %.17g %.17g\n", name, eps, lower, upper);
    hs_pld_free(composed);
}

/* The certified epsilon bracket at delta refined to `accuracy`, in one call. */
static void print_refined(double sigma, double q, long long rounds, double delta, double accuracy) {
    double lower = 0.0, upper = 0.0;
    check(hs_subsampled_gaussian_epsilon(sigma, q, rounds, delta, accuracy, &lower, &upper),
          "hs_subsampled_gaussian_epsilon");
    printf("refined %.17g %.17g %lld %.17g %.17g %.17g %.17g\n", sigma, q, rounds, delta, accuracy, lower, upper);
}

int main(void) {
    printf("version %s\n", hs_version());
    print_thetas();
    print_tails();
    print_inverses();
    print_refusal();
    if (hs_has_pld()) {
        printf("backend %s\n", hs_fft_backend());
        print_brackets("poisson", 1.0, 0.01, 10000, 1e-4, 1e-5, 6.0);
        print_brackets("gaussian", 10.0, 1.0, 100, 1e-3, 1e-5, 2.0);
        print_refined(1.0, 0.01, 10000, 1e-5, 1e-3);
        print_refined(2.0, 0.05, 1, 1e-6, 1e-4);
    }
    return 0;
}
