// hockeystick: header-only numerics for differential-privacy accounting.
// Include this one header to embed the core; it needs only the C++17 standard library.
#pragma once

#include "error_free.hpp"
#include "gaussian_tail.hpp"
#include "hockey_stick.hpp"
#include "hockey_stick_inverse.hpp"
#include "mills_ratio.hpp"
