/* Calls libhockeystick_c's refinements to an accuracy from C and prints what they return, one line a call (%.17g:
 * every double read back exactly), for tests/core/test_capi_refinement.py to compare with ctypes and the package:
 *   cc -std=c99 -I cpp/capi/include cpp/capi/tests/capi_refine.c -L <dir> -lhockeystick_c -o capi_refine
 * Lines, where the library has the PLD calls: "delta sigma q rounds eps accuracy lower upper" (delta at epsilon to a
 * relative accuracy), "sigma eps delta q rounds accuracy sigma" (sigma calibrated to (eps, delta)),
 * "refused status message" for a target no sigma reaches, and "unmet status lower upper" for an epsilon asked to an
 * accuracy no grid reaches (HS_ACCURACY_NOT_MET, the bracket written), "small sigma q rounds delta accuracy lower upper"
 * for epsilon at a delta below the plain composition's round-off (read under the tilt); else "unavailable status
 * message". */
#include <hockeystick/hockeystick.h>

#include <stdio.h>
#include <stdlib.h>

static void check(hs_status status, const char* call) {
    if (status != HS_OK) {
        fprintf(stderr, "%s failed (%d): %s\n", call, (int)status, hs_last_error());
        exit(1);
    }
}

static void print_delta(double sigma, double q, long long rounds, double eps, double accuracy) {
    double lower = 0.0, upper = 0.0;
    check(hs_subsampled_gaussian_delta(sigma, q, rounds, eps, accuracy, &lower, &upper),
          "hs_subsampled_gaussian_delta");
    printf("delta %.17g %.17g %lld %.17g %.17g %.17g %.17g\n", sigma, q, rounds, eps, accuracy, lower, upper);
}

static void print_sigma(double eps, double delta, double q, long long rounds, double accuracy) {
    double sigma = 0.0;
    check(hs_subsampled_gaussian_sigma(eps, delta, q, rounds, accuracy, &sigma), "hs_subsampled_gaussian_sigma");
    printf("sigma %.17g %.17g %.17g %lld %.17g %.17g\n", eps, delta, q, rounds, accuracy, sigma);
}

int main(void) {
    double sigma = 0.0;
    hs_status status = HS_OK;
    if (!hs_has_pld()) {
        status = hs_subsampled_gaussian_sigma(1.0, 1e-5, 0.01, 100, 1e-3, &sigma);
        printf("unavailable %d %s\n", (int)status, hs_last_error());
        return 0;
    }
    print_delta(1.0, 0.01, 10000, 1.0, 1e-2);
    print_delta(1.0, 0.01, 1, 0.5, 1e-4);
    print_sigma(3.0, 1e-6, 0.05, 300, 1e-3);
    /* one round at an epsilon no sigma up to the largest certifies: refused within milliseconds (the refusal after
       10^9 rounds' reads at each sigma, about 10 s, is the ctypes test's) */
    status = hs_subsampled_gaussian_sigma(1e-5, 1e-12, 0.9, 1LL, 1e-3, &sigma);
    printf("refused %d %s\n", (int)status, hs_last_error());
    {
        double lower = -1.0, upper = -1.0;
        status = hs_subsampled_gaussian_epsilon(1.0, 0.01, 100, 1e-5, 1e-12, &lower, &upper);
        printf("unmet %d %.17g %.17g\n", (int)status, lower, upper);
        check(hs_subsampled_gaussian_epsilon(1.1, 256.0 / 60000, 14100, 1e-10, 1e-3, &lower, &upper),
              "hs_subsampled_gaussian_epsilon");
        printf("small %.17g %.17g %d %.17g %.17g %.17g %.17g\n", 1.1, 256.0 / 60000, 14100, 1e-10, 1e-3, lower, upper);
    }
    return 0;
}
