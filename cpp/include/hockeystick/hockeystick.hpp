// hockeystick: header-only numerics for differential-privacy accounting.
// Include this one header to embed the core; it needs only the C++17 standard library
// (OpenMP pragmas in the PLD loops take effect when compiled with -fopenmp).
#pragma once

// Exact arithmetic rounded once, the Gaussian tail, Mills ratio, the hockey-stick divergence theta and its inverses.
#include "hockeystick/numerics/error_free.hpp"
#include "hockeystick/numerics/correctly_rounded.hpp"  // sums and binomial coefficients rounded once
#include "hockeystick/numerics/gaussian_tail.hpp"
#include "hockeystick/numerics/hockey_stick.hpp"
#include "hockeystick/numerics/hockey_stick_batch.hpp"  // theta over arrays; its AVX2 kernels in simd/
#include "hockeystick/numerics/hockey_stick_inverse.hpp"
#include "hockeystick/numerics/mills_ratio.hpp"

// Contraction bounds for hidden-state training (papers 000 and 002).
#include "hockeystick/contraction/bounds.hpp"
#include "hockeystick/contraction/epsilon.hpp"
#include "hockeystick/contraction/factor.hpp"
#include "hockeystick/contraction/sums.hpp"

// The shifted-interpolation engine of paper 004 (f-DP of noisy FedAvg / FedProx).
#include "hockeystick/fdp/interpolation.hpp"

// Discretized privacy loss distributions, by stage (the stages of python/hockeystick/pld/): the grid
// and its PMF type, the sampling schemes' laws on it, and the reads of a PMF's hockey-stick curve.  The
// composition (pld/compose/compose.hpp) needs an FFT backend (pld/compose/fft_backend.hpp) and is
// included on its own.
#include "hockeystick/pld/grid/grid_pmf.hpp"
#include "hockeystick/pld/grid/cells.hpp"
#include "hockeystick/pld/grid/connect_dots.hpp"
#include "hockeystick/pld/grid/moments.hpp"
#include "hockeystick/pld/grid/pmf_view.hpp"
#include "hockeystick/pld/sampling/allocation_sums.hpp"
#include "hockeystick/pld/sampling/replace_one.hpp"
#include "hockeystick/pld/reads/hockey_stick.hpp"
#include "hockeystick/pld/reads/charged_curve.hpp"
#include "hockeystick/pld/reads/epsilon_width.hpp"
#include "hockeystick/pld/reads/spectral_profile.hpp"
#include "hockeystick/pld/reads/max_of_outputs.hpp"  // a run's certified lower reads from its largest output
#include "hockeystick/pld/refine/grid_policy.hpp"         // the start grid, the ladder, the question tail
#include "hockeystick/pld/refine/epsilon_refinement.hpp"  // epsilon at delta to an accuracy, over any bracket
