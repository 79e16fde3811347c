/* Calls libhockeystick_c's mechanisms and its composition of two PLDs from C and prints what they return, one line
 * a bracket (%.17g: every double read back exactly), for tests/core/test_capi_mechanisms.py to compare with the
 * Python package and with closed forms:
 *   cc -std=c99 -I cpp/capi/include cpp/capi/tests/capi_mechanisms.c -L <dir> -lhockeystick_c -o capi_mechanisms
 * Lines: "laplace scale sensitivity h eps lower upper" (one round's delta bracket), "subsampled_laplace scale
 * sensitivity q h eps lower upper", "fixed_size sigma batch_size n h eps lower upper", "laplace_gaussian scale sigma h eps lower upper" (the Laplace mechanism composed with the
 * Gaussian one), "gaussians sigma1 rounds1 sigma2 rounds2 h delta lower upper rounds" (two Gaussian mechanisms'
 * compositions composed: an epsilon bracket and the handle's rounds), and "refused status message" for PLDs on two
 * loss grids.  Nothing is printed without the PLD calls. */
#include <hockeystick/hockeystick.h>

#include <stdio.h>
#include <stdlib.h>

static void check(hs_status status, const char* call) {
    if (status != HS_OK) {
        fprintf(stderr, "%s failed (%d): %s\n", call, (int)status, hs_last_error());
        exit(1);
    }
}

static hs_pld* gaussian_rounds(double sigma, long long rounds, double h) {
    hs_pld* one = NULL;
    hs_pld* composed = NULL;
    check(hs_pld_subsampled_gaussian(sigma, 1.0, h, &one), "hs_pld_subsampled_gaussian");
    check(hs_pld_self_compose(one, rounds, &composed), "hs_pld_self_compose");
    hs_pld_free(one);
    return composed;
}

static void print_laplace(double scale, double sensitivity, double h, double eps) {
    hs_pld* pld = NULL;
    double lower = 0.0, upper = 0.0;
    check(hs_pld_laplace(scale, sensitivity, 1.0, h, &pld), "hs_pld_laplace");
    check(hs_pld_delta_bracket(pld, eps, &lower, &upper), "hs_pld_delta_bracket");
    printf("laplace %.17g %.17g %.17g %.17g %.17g %.17g\n", scale, sensitivity, h, eps, lower, upper);
    hs_pld_free(pld);
}

static void print_subsampled_laplace(double scale, double sensitivity, double q, double h, double eps) {
    hs_pld* pld = NULL;
    double lower = 0.0, upper = 0.0;
    check(hs_pld_laplace(scale, sensitivity, q, h, &pld), "hs_pld_laplace");
    check(hs_pld_delta_bracket(pld, eps, &lower, &upper), "hs_pld_delta_bracket");
    printf("subsampled_laplace %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", scale, sensitivity, q, h, eps, lower,
           upper);
    hs_pld_free(pld);
}

static void print_fixed_size(double sigma, long long batch_size, long long n, double h, double eps) {
    hs_pld* pld = NULL;
    double lower = 0.0, upper = 0.0;
    check(hs_pld_fixed_size_gaussian(sigma, batch_size, n, 1.0, h, &pld), "hs_pld_fixed_size_gaussian");
    check(hs_pld_delta_bracket(pld, eps, &lower, &upper), "hs_pld_delta_bracket");
    printf("fixed_size %.17g %lld %lld %.17g %.17g %.17g %.17g\n", sigma, batch_size, n, h, eps, lower, upper);
    hs_pld_free(pld);
}

static void print_laplace_gaussian(double scale, double sigma, double h, double eps) {
    hs_pld* laplace = NULL;
    hs_pld* gaussian = NULL;
    hs_pld* both = NULL;
    double lower = 0.0, upper = 0.0;
    check(hs_pld_laplace(scale, 1.0, 1.0, h, &laplace), "hs_pld_laplace");
    check(hs_pld_subsampled_gaussian(sigma, 1.0, h, &gaussian), "hs_pld_subsampled_gaussian");
    check(hs_pld_compose(laplace, gaussian, &both), "hs_pld_compose");
    hs_pld_free(laplace); /* the composition keeps what it needs */
    hs_pld_free(gaussian);
    check(hs_pld_delta_bracket(both, eps, &lower, &upper), "hs_pld_delta_bracket");
    printf("laplace_gaussian %.17g %.17g %.17g %.17g %.17g %.17g\n", scale, sigma, h, eps, lower, upper);
    hs_pld_free(both);
}

static void print_gaussians(double sigma1, long long rounds1, double sigma2, long long rounds2, double h,
                            double delta) {
    hs_pld* a = gaussian_rounds(sigma1, rounds1, h);
    hs_pld* b = gaussian_rounds(sigma2, rounds2, h);
    hs_pld* both = NULL;
    double lower = 0.0, upper = 0.0;
    long long rounds = 0;
    check(hs_pld_compose(a, b, &both), "hs_pld_compose");
    check(hs_pld_epsilon_bracket(both, delta, &lower, &upper), "hs_pld_epsilon_bracket");
    check(hs_pld_rounds(both, &rounds), "hs_pld_rounds");
    printf("gaussians %.17g %lld %.17g %lld %.17g %.17g %.17g %.17g %lld\n", sigma1, rounds1, sigma2, rounds2, h, delta,
           lower, upper, rounds);
    hs_pld_free(a);
    hs_pld_free(b);
    hs_pld_free(both);
}

static void print_refusal(void) {
    hs_pld* a = gaussian_rounds(1.0, 1, 1e-3);
    hs_pld* b = gaussian_rounds(1.0, 1, 2e-3);
    hs_pld* both = NULL;
    hs_status status = hs_pld_compose(a, b, &both);
    printf("refused %d %s\n", (int)status, hs_last_error());
    hs_pld_free(a);
    hs_pld_free(b);
}

int main(void) {
    if (!hs_has_pld()) return 0;
    print_laplace(1.0, 1.0, 1e-4, 0.5);
    print_laplace(0.5, 2.0, 1e-3, 1.0);
    print_subsampled_laplace(1.0, 1.0, 0.1, 1e-4, 0.05);
    print_fixed_size(2.0, 10, 100, 1e-4, 0.5);
    print_laplace_gaussian(2.0, 1.5, 1e-3, 0.7);
    print_gaussians(2.0, 50, 5.0, 400, 1e-3, 1e-6);
    print_refusal();
    return 0;
}
