/* hockeystick's C interface: the certified differential-privacy accountant's kernels for C and for any
 * language that calls C (ctypes, Rust's extern "C", Julia's ccall, ...).  Link libhockeystick_c
 * (CMake: hockeystick::c); this header is C99 and C++ compatible.
 *
 * Conventions
 *   - Every call returns an hs_status; HS_OK (0) on success.  Results go to the caller's pointers, which
 *     are written only on success, and by the calls to an accuracy (hs_subsampled_gaussian_epsilon,
 *     hs_subsampled_gaussian_delta) also with HS_ACCURACY_NOT_MET: a certified bracket wider than asked.
 *     HS_OK from a call to an accuracy means the bracket written is within that accuracy.
 *   - On failure, and with HS_ACCURACY_NOT_MET, hs_last_error() gives the reason on the calling thread (naming
 *     the argument and the rule, as the Python package words it; or the width reached against the one asked);
 *     each thread has its own, kept until its next call that does not return HS_OK.
 *   - No C++ exception leaves the library: every call catches them and returns a status.
 *   - State lives behind opaque handles (hs_pld), created by the library and released by hs_pld_free.
 *     A handle's values never change once made, so one handle may be read from several threads at once (a
 *     side a read needs is computed on its first read, once, whichever thread asks first).
 *   - Memory (glibc only): the first call that composes (hs_pld_self_compose, hs_pld_compose, the run reads
 *     hs_pld_epsilon_bracket and hs_pld_delta_bracket, the calls to an accuracy) sets glibc's mmap and trim
 *     thresholds to the ceilings glibc's own adjustment reaches (32 MiB and 64 MiB on 64-bit systems), and
 *     while such a call runs blocks up to 1 GiB come from the heap; its end sets the ceilings back and, where
 *     the heap grew past the 64 MiB trim ceiling during the call, gives the heap's free memory back to the
 *     system (malloc_trim).  No value changes, only where the composed windows' memory comes from (the core's
 *     pld/refine/window_heap.hpp).  A process whose environment tunes malloc (a MALLOC_ variable, or a
 *     glibc.malloc. tunable in GLIBC_TUNABLES) is left as it is.
 *
 * The formulas and their sources are those of the C++ core (cpp/include/hockeystick/) and of the Python
 * package's functions of the same names; every value is theirs bit for bit (the PLD calls: where both use
 * the same FFT backend; docs/embedding.md). */
#ifndef HOCKEYSTICK_HOCKEYSTICK_H
#define HOCKEYSTICK_HOCKEYSTICK_H

#if defined(_WIN32) && defined(HOCKEYSTICK_C_BUILDING)
#define HS_API __declspec(dllexport)
#elif defined(_WIN32)
#define HS_API __declspec(dllimport)
#elif defined(__GNUC__)
#define HS_API __attribute__((visibility("default")))
#else
#define HS_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* What a call returns. */
typedef enum hs_status {
    HS_OK = 0,               /* success: the outputs are written */
    HS_INVALID_ARGUMENT = 1, /* an argument breaks its rule (hs_last_error names it) */
    HS_OUT_OF_MEMORY = 2,    /* an allocation failed */
    HS_UNAVAILABLE = 3,      /* the call is not in this build (the PLD calls without an FFT backend) */
    HS_INTERNAL = 4,         /* anything else; hs_last_error says what */
    HS_ACCURACY_NOT_MET = 5  /* a call to an accuracy wrote its bracket, certified, but wider than the accuracy
                              * asked: no grid the call may build narrows it further (hs_last_error gives the width
                              * reached).  Only hs_subsampled_gaussian_epsilon and hs_subsampled_gaussian_delta
                              * return it; a caller that needs the accuracy treats it as a failure, one that needs
                              * a certified bound alone may use the bracket. */
} hs_status;

/* The library's version, equal to the Python package's hockeystick.__version__ (a static string). */
HS_API const char* hs_version(void);

/* The reason for the calling thread's last failing call ("" before any); valid until its next failing call. */
HS_API const char* hs_last_error(void);

/* 1 when this build has the PLD calls (an FFT backend was found at configure time), else 0. */
HS_API int hs_has_pld(void);

/* The FFT backend the PLD compositions use, a static string: "eigen" (Eigen's FFT module, MPL-2.0: the default),
 * "fftw" (FFTW, GPL-2.0-or-later: a library built with it is distributed under the GPL's terms), or "" in a
 * build without the PLD calls. */
HS_API const char* hs_fft_backend(void);

/* ---- The Gaussian mechanism's hockey-stick divergence (paper 000, eq. 6) ---- */

/* Q(x) = P(N(0, 1) > x), x not NaN. */
HS_API hs_status hs_gaussian_tail(double x, double* out);

/* log Q(x), x not NaN; finite for every finite x. */
HS_API hs_status hs_log_gaussian_tail(double x, double* out);

/* theta(r, epsilon) = Q(epsilon/r - r/2) - e^epsilon Q(epsilon/r + r/2): the exact delta(epsilon) of the Gaussian
 * mechanism with r = sensitivity / sigma (mu-GDP with mu = r).  r >= 0, epsilon >= 0, not both infinite. */
HS_API hs_status hs_theta(double r, double epsilon, double* out);

/* log theta(r, epsilon), accurate far below the doubles' range; the same rules. */
HS_API hs_status hs_log_theta(double r, double epsilon, double* out);

/* The epsilon >= 0 at which theta(r, epsilon) = delta, on the safe side (theta there <= delta): the
 * Gaussian mechanism's epsilon at delta.  r >= 0, 0 < delta < 1. */
HS_API hs_status hs_theta_epsilon(double r, double delta, double* out);

/* The r > 0 at which theta(r, epsilon) = delta, on the safe side: the largest sensitivity / sigma that is
 * (epsilon, delta)-DP.  0 <= epsilon <= 1e307, 0 < delta < 1. */
HS_API hs_status hs_theta_radius(double epsilon, double delta, double* out);

/* Noise calibration of the Gaussian mechanism: sigma = sensitivity / hs_theta_radius(epsilon, delta), the
 * smallest noise standard deviation that is (epsilon, delta)-DP, rounded up.  sensitivity > 0 and finite. */
HS_API hs_status hs_gaussian_sigma(double epsilon, double delta, double sensitivity, double* out);

/* ---- Privacy loss distributions (certified PLD accounting) ---- */

/* A discretized privacy loss distribution with both certified sides (pessimistic and optimistic), composed
 * over a number of rounds.  Opaque; made by the calls below, released by hs_pld_free. */
typedef struct hs_pld hs_pld;

/* The Poisson-subsampled Gaussian mechanism (sensitivity 1, noise standard deviation sigma, sampling rate q)
 * under add/remove neighbours, discretized on the loss grid of spacing value_discretization_interval, both
 * directions (one for sampling_rate = 1), tail mass 1e-15 cut per round (Zhu, Dong & Wang, AISTATS 2022,
 * Thm 11; Doroshenko et al., PETS 2022, connect-the-dots).  The Python package's
 * hockeystick.pld.subsampled_gaussian(sigma, sampling_rate, value_discretization_interval=...).
 * sigma > 0 and finite, 0 < sampling_rate <= 1, 0 < value_discretization_interval <= 100, and at most 2^26
 * loss cells.  *out receives a new handle (one round). */
HS_API hs_status hs_pld_subsampled_gaussian(double sigma, double sampling_rate, double value_discretization_interval,
                                            hs_pld** out);

/* The PLD of count independent runs of pld's mechanism (its rounds multiplied by count), composed by FFT with
 * every truncation and round-off charged.  1 <= count and the total rounds <= 2^53.  *out receives a new
 * handle; pld is unchanged. */
HS_API hs_status hs_pld_self_compose(const hs_pld* pld, long long count, hs_pld** out);

/* The certified bracket [*lower, *upper] on the smallest epsilon >= 0 with delta(epsilon) <= delta, over both
 * neighbouring directions.  A PLD of two or more rounds whose factors describe no run of Poisson-subsampled Gaussians
 * (Laplace, the fixed-size subsampled Gaussian, mixtures of mechanisms) is read as the Python package reads its PLD
 * of the same factors: on each side where the plain composition's charges pass 1e-4 of delta, the plain bracket is
 * intersected with each direction's factors composed under an exponential tilt on the PLD's own grid
 * (hockeystick/pld/refine/own_grid.hpp): 1000 rounds of Laplace (scale 10) on the grid 1e-4 give
 * [21.6227875, 21.6227878] at delta 1e-8 where the plain composition gives [21.62097, 21.62371].  For a PLD made of
 * Poisson-subsampled Gaussians, where some direction's round-off charge passes a hundredth of delta (a delta near
 * the charge, about 1e-10 after 10^4 rounds), the plain composition's bracket is first intersected with that of the
 * same factors composed under an exponential tilt (hockeystick/pld/refine/tilted_question.hpp), the add direction
 * read only where its screen (its rounds composed on a grid 4 times coarser, cut at a tail sized to delta:
 * hockeystick/pld/refine/direction_screen.hpp) does not show it dominated by the remove direction.  A PLD of two or
 * more rounds made of Poisson-subsampled Gaussians at rates below 1 (by hs_pld_subsampled_gaussian,
 * hs_pld_self_compose and hs_pld_compose) whose bracket is not exact is then read as the run it describes, as the
 * Python package reads it: one kind of round as hs_subsampled_gaussian_epsilon at accuracy 1e-3, several under one
 * tilt on grids of their own (hockeystick/pld/refine/tilted_factors.hpp; seconds for a rare record).  14,100 rounds
 * of sigma 1.1 at q = 256/60000 on the grid 1e-4 give [3.74094, 3.74104] at delta 1e-10 and [4.18008, 4.18019] at
 * 1e-12 (the plain composition: [3.56, 4.94] and inf); 10^6 rounds of sigma 0.6 at q = 1e-5 give [1.07706, 1.07776]
 * at delta 1e-10 where the grid alone gives [0, inf].  So the bracket of a run does not depend on the grid it was
 * built on, and is never looser than that grid's (hs_pld_composition_epsilon_bracket).  The Gaussian mechanism
 * itself (sampling_rate 1) composed over rounds is read as a composition that describes no run (the package reads
 * it in closed form, as hs_theta_epsilon with r = sqrt(rounds) / sigma does exactly).  0 < delta < 1; *upper is +inf
 * where delta lies below what can be certified (a direction read's tail cut at +infinity, 1e-15 a round for the
 * mechanisms here, composed). */
HS_API hs_status hs_pld_epsilon_bracket(const hs_pld* pld, double delta, double* lower, double* upper);

/* The certified bracket [*lower, *upper] on delta(epsilon), the hockey-stick divergence at e^epsilon, over both
 * neighbouring directions.  A PLD of two or more rounds whose factors describe no run is read at epsilon > 0 as the
 * Python package reads it: on each side where the plain composition's charges pass 1e-4 of the plain delta, also under
 * the tilts of a ladder fixed in advance (hockeystick/pld/refine/own_grid_delta.hpp), the tilted compositions held in
 * the PLD from call to call (2^21 window points, some 80 MB, besides the one last composed; freed with it): 1000 rounds
 * of Laplace (scale 10) on the grid 1e-4 give [1.043306e-8, 1.043307e-8] at epsilon 21.6 where the plain composition
 * gives [1.0399e-8, 1.0450e-8].  A PLD made of Poisson-subsampled Gaussians is, where some direction's round-off charge
 * passes a hundredth of the upper delta, also read under the tilt (as hs_pld_epsilon_bracket); one of two or more
 * rounds at rates below 1 is also read as the run it describes at a finite epsilon >= 0 where its bracket is not exact:
 * one kind of round as hs_subsampled_gaussian_delta at accuracy 1e-3, several under one tilt of their kinds on the grid
 * 5e-5.  epsilon any real, not NaN. */
HS_API hs_status hs_pld_delta_bracket(const hs_pld* pld, double epsilon, double* lower, double* upper);

/* The certified brackets of pld's own composition alone, on its grid and at its tail: hs_pld_epsilon_bracket and
 * hs_pld_delta_bracket without the tilted and own-grid reads and the run's read (the Python package's
 * composition_only=True), so never tighter than theirs.  What a grid alone certifies, for a caller comparing grids or
 * engines; the arguments' rules are theirs. */
HS_API hs_status hs_pld_composition_epsilon_bracket(const hs_pld* pld, double delta, double* lower, double* upper);
HS_API hs_status hs_pld_composition_delta_bracket(const hs_pld* pld, double epsilon, double* lower, double* upper);

/* The rounds composed in pld: 1 for a mechanism as discretized, count times its operand's for hs_pld_self_compose,
 * the sum of its operands' for hs_pld_compose. */
HS_API hs_status hs_pld_rounds(const hs_pld* pld, long long* out);

/* ---- More mechanisms, and the composition of two PLDs ---- */

/* The PLD of running a's mechanisms and b's on one neighbouring pair: per neighbouring direction the composition
 * of a's and b's (a one-direction PLD, a symmetric mechanism's, pairs with each direction of the other), composed
 * by FFT with every truncation and round-off charged, both certified sides (the Python package's
 * PrivacyLossDistribution.compose).  a and b are on one loss grid (the same value_discretization_interval),
 * their rounds add up to at most 2^53.  *out receives a new handle, of a's rounds plus b's; a and b are unchanged
 * and may be freed before it. */
HS_API hs_status hs_pld_compose(const hs_pld* a, const hs_pld* b, hs_pld** out);

/* The Laplace mechanism P = Lap(sensitivity, scale) vs Q = Lap(0, scale), Poisson-subsampled at sampling_rate q, under
 * add/remove neighbours, discretized on both certified sides.  q = 1: one symmetric direction, the loss atoms at
 * +-a = +-sensitivity/scale and delta(eps) = 1 - e^((eps - a)/2) for 0 <= eps <= a (paper 002, Lemma 1), the Python
 * package's hockeystick.pld.laplace(scale, sensitivity=..., value_discretization_interval=...).  q < 1: the remove
 * pair (1 - q) Lap(0, scale) + q Lap(sensitivity, scale) vs Lap(0, scale) and the add pair (it swapped), one atom per
 * loss cell (Zhu, Dong & Wang, AISTATS 2022, Thm 11), the package's hockeystick.pld.subsampled_laplace(scale, q,
 * sensitivity=..., value_discretization_interval=...).  scale > 0 and sensitivity > 0 finite, 0 < sampling_rate <= 1,
 * 0 < value_discretization_interval <= 100, at most 2^26 loss cells.  *out receives a new handle (one round). */
HS_API hs_status hs_pld_laplace(double scale, double sensitivity, double sampling_rate,
                                double value_discretization_interval, hs_pld** out);

/* The Gaussian mechanism (noise standard deviation sigma, a record's contribution bounded by sensitivity) on
 * batches of batch_size of the n records drawn uniformly without replacement, under replace-one neighbours, one
 * direction: the pessimistic side the symmetrised pair (1 - q) N(0, s^2) + q N(2, s^2) vs N(0, s^2), s = sigma /
 * sensitivity, q = batch_size / n (Balle, Barthe & Gaboardi 2018, Thm 2), the optimistic side that pair as
 * realized; tail mass 1e-15 cut per round.  The Python package's hockeystick.pld.fixed_size_subsampled_gaussian(
 * sigma, batch_size, n, sensitivity=..., value_discretization_interval=...).  sigma > 0 and sensitivity > 0 finite,
 * 1 <= batch_size <= n, 0 < value_discretization_interval <= 100, at most 2^26 loss cells.  *out receives a new
 * handle (one round). */
HS_API hs_status hs_pld_fixed_size_gaussian(double sigma, long long batch_size, long long n, double sensitivity,
                                            double value_discretization_interval, hs_pld** out);

/* epsilon at delta to an accuracy, in one call: the certified bracket [*lower, *upper] on the smallest epsilon >= 0
 * with delta(epsilon) <= delta of `rounds` rounds of the Poisson-subsampled Gaussian (sensitivity 1, noise standard
 * deviation sigma, sampling rate q, add/remove neighbours, both directions), refined until *upper - *lower <= accuracy
 * (HS_OK), or else, where no finer grid is worth building, returned wider, still certified, with HS_ACCURACY_NOT_MET.
 * The grids are those of the Python package's SubsampledGaussianPLD(..., accuracy=accuracy): the same start grid and
 * ladder (hockeystick/pld/refine/grid_policy.hpp), the same next-grid rules (pld/refine/epsilon_refinement.hpp); each
 * grid's bracket is the plain composition's (hs_pld_composition_epsilon_bracket's; each grid after the first, and the
 * first below delta 1e-8, composed with the low band of its many-round rows recomputed accurately, as the package's
 * refinement composes them), intersected with the earlier grids'.  Where that bracket is still wider than the accuracy
 * (a delta near or below the plain composition's round-off: about 1e-10 after 10^4 rounds), it is intersected with the
 * tilted reads of the core (pld/refine/tilted_question.hpp: each direction composed under an exponential tilt, the
 * round-off charged relative to the Chernoff bound), as the package's front door
 * SubsampledGaussianPLD(...).epsilon(delta) reads it: 14,100 rounds of sigma 1.1 at q = 256/60000 give [3.7405, 3.7411]
 * at delta 1e-10 and [4.1799, 4.1802] at 1e-12.  Where the start grid's tilted windows pass the core's cap, the first
 * of the grids 2.5e-5, 5e-5 and 1e-4 whose windows fit is read instead.  The lower side is raised to the max-of-outputs
 * test's (pld/reads/max_of_outputs.hpp: the largest released value against a threshold, in closed form, no grid) and
 * the aligned cells' read (pld/refine/aligned_lower.hpp) where higher: 10^6 rounds of sigma 0.6 at q = 1e-5 give
 * [1.07706, 1.07776] at delta 1e-10 (with either FFT backend: both transform the bins many rounds amplify in long
 * double), and at delta 1e-5 [0.12937, 0.13024], where the refinement meets the accuracy alone.  The upper side is
 * then lowered to the RDP conversion's at dp_accounting's default orders, integer and fractional
 * (pld/refine/rdp_cap.hpp), the cap the package's default reads too: below delta about 1e-200, where every tilted
 * window passes the cap, that is the finite upper side (the README run at delta 1e-300: [28.644, 61.767], with
 * HS_ACCURACY_NOT_MET).  An accuracy finer than
 * 1e-3 (the calls' default) gives that bracket intersected with 1e-3's: never looser. sigma > 0 and finite, 0 <
 * sampling_rate < 1, 1 <= rounds <= 2^53, 0 < delta < 1, accuracy > 0 and finite. */
HS_API hs_status hs_subsampled_gaussian_epsilon(double sigma, double sampling_rate, long long rounds, double delta,
                                                double accuracy, double* lower, double* upper);

/* Releases a handle; NULL is allowed and does nothing. */
HS_API void hs_pld_free(hs_pld* pld);

/* delta at epsilon to a relative accuracy, in one call: the certified bracket [*lower, *upper] on delta(epsilon) of
 * `rounds` rounds of the Poisson-subsampled Gaussian (as hs_subsampled_gaussian_epsilon), refined until
 * (*upper - *lower) / max(*upper, 1e-9) <= accuracy (HS_OK), or else, where no finer grid is worth building,
 * returned wider, still certified, with HS_ACCURACY_NOT_MET.  The grids are those of the Python package's
 * SubsampledGaussianPLD(..., accuracy=accuracy).delta: the same start grid, ladder and next-grid rules, and the same
 * read on each grid (hockeystick/pld/refine/steps_refinement.hpp's delta loop over the delta step read of
 * subsampled_gaussian_step.hpp: both neighbouring directions, the add direction screened on a coarser grid, the
 * low-frequency bins recomputed after the first grid), intersected with the earlier grids', and, where still wider
 * than the accuracy, with the max-of-outputs test's lower side and the tilted reads at epsilon (as
 * hs_subsampled_gaussian_epsilon's); a bracket not exact is then read by the package default's fine delta read
 * (hockeystick/pld/refine/fine_delta.hpp: the grid 5e-5 under a tilt, the binomial split of few sampled rounds), so
 * both doors read one bracket: the README run at epsilon 1 gives [0.0156338, 0.0156349] where the grids give
 * [0.0156327, 0.0156370].  An accuracy at most 1e-3 reads the package default's bracket first (its fixed grid 1e-4,
 * then the fine delta read and rare participation's finer grids: hockeystick/pld/refine/accuracy_delta.hpp's
 * default_deltas; the refinement to 1e-3 where that grid's windows pass the cap), returns it where it is within the
 * accuracy of its own upper side, and otherwise intersects the finer read with it, as the package does.  Where the
 * upper side is above 1 - 1e-6, the lower side is raised to the Renyi-affinity bound of the rounds
 * (hockeystick/pld/reads/affinity_ceiling.hpp), and where it is above 1 - 1e-3 the bracket is intersected with the
 * complement's on the fixed grid, or on the last grid read where that grid's windows pass the cap
 * (hockeystick/pld/reads/complement.hpp: 1 - delta bounded with relative accuracy), as the package reads delta near 1:
 * sigma 0.8, q 0.2, 2000 rounds at epsilon 8 give 1 - [9.04441e-9, 9.04442e-9] on both doors.  sigma > 0 and finite,
 * 0 < sampling_rate < 1, 1 <= rounds <= 2^53, epsilon not NaN, accuracy > 0 and finite. */
HS_API hs_status hs_subsampled_gaussian_delta(double sigma, double sampling_rate, long long rounds, double epsilon,
                                              double accuracy, double* lower, double* upper);

/* sigma calibrated to (epsilon, delta), in one call: *sigma is a noise standard deviation whose certified upper
 * epsilon at delta (hs_subsampled_gaussian_epsilon's, refined to accuracy) is <= epsilon, for `rounds` rounds of
 * the Poisson-subsampled Gaussian at sampling_rate; within a relative 1e-3 of a sigma that is not certified (a
 * geometric bisection over [1/64, 65536]).  HS_INVALID_ARGUMENT where no sigma up to 65536 is certified, or where
 * every sigma down to 1/64 is (no noise worth calibrating).  epsilon > 0 and finite, 0 < delta < 1,
 * 0 < sampling_rate < 1, 1 <= rounds <= 2^53, accuracy > 0 and finite. */
HS_API hs_status hs_subsampled_gaussian_sigma(double epsilon, double delta, double sampling_rate, long long rounds,
                                              double accuracy, double* sigma);

#ifdef __cplusplus
}
#endif

#endif /* HOCKEYSTICK_HOCKEYSTICK_H */
