// hockeystick: header-only numerics for differential-privacy accounting.
// Include this one header to embed the core; it needs only the C++17 standard library
// (OpenMP pragmas in the PLD loops take effect when compiled with -fopenmp).
#pragma once

// Gaussian tail, Mills ratio, the hockey-stick divergence theta and its inverses.
#include "error_free.hpp"
#include "gaussian_tail.hpp"
#include "hockey_stick.hpp"
#include "hockey_stick_batch.hpp"  // theta over arrays; AVX2 kernels in *_avx2.hpp, simd_avx2.hpp
#include "hockey_stick_inverse.hpp"
#include "mills_ratio.hpp"

// Contraction bounds for hidden-state training (papers 000 and 002).
#include "contraction_bounds.hpp"
#include "contraction_epsilon.hpp"
#include "contraction_factor.hpp"
#include "contraction_sums.hpp"

// The shifted-interpolation engine of paper 004 (f-DP of noisy FedAvg / FedProx).
#include "fdp_interpolation.hpp"

// Discretized privacy loss distributions and their hockey-stick curves.
#include "pld_allocation_sums.hpp"
#include "pld_cells.hpp"
#include "pld_charged_curve.hpp"
#include "pld_connect_dots.hpp"
#include "pld_epsilon_width.hpp"
#include "pld_hockey_stick.hpp"
#include "pld_replace_one.hpp"
#include "pld_spectral_profile.hpp"
