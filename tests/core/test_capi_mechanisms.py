"""libhockeystick_c's Laplace (Poisson-subsampled or not) and fixed-size subsampled Gaussian mechanisms and its
composition of two PLDs of any mechanisms (cpp/capi/pld_mechanisms.cpp), called from C (cpp/capi/tests/capi_mechanisms.c), from Python through
ctypes and from Rust (cpp/capi/tests/capi_mechanisms.rs).

- One round of a mechanism (no transform) is the package's constructor bit for bit: the same core cells, the same
  loss shift, the same reads (``hockeystick.pld.laplace``, ``subsampled_laplace``, ``fixed_size_subsampled_gaussian``).
- A composition goes through the library's FFT (Eigen's by default) where the package uses scipy's pocketfft, so
  the two brackets agree within their charged round-off and overlap; each holds the exact value where one is known:
  a Gaussian composed with a Gaussian is the Gaussian of radius sqrt(T1 / s1^2 + T2 / s2^2) (paper 000, eq. 6),
  the Laplace mechanism composed with the Gaussian one is E[theta(r, eps - L)] over the Laplace loss L (mpmath, 50
  digits), one round of Laplace is 1 - e^((eps - a) / 2) (paper 002, Lemma 1), of the Poisson-subsampled Laplace the
  larger of its two directions' closed forms, and of the fixed-size subsampled Gaussian
  q theta(2 / s, log(1 + (e^eps - 1) / q)) (Balle, Barthe & Gaboardi 2018, Thm 2, attained).
- Refusals name the argument and the rule.
"""

from __future__ import annotations

import ctypes
import math
import shutil
from typing import cast

import mpmath
import numpy as np
import pytest

import hockeystick as hs
import hockeystick.pld as pld

from .capi_library import made, with_mechanisms
from .test_capi import CAPI, HS_INVALID_ARGUMENT, HS_OK, Library, _c_compiler, _run

pytestmark = (
    pytest.mark.slow
)  # conftest.py's capi_build configures and compiles the library, once per run

_LL = ctypes.c_longlong
_PLD = ctypes.c_void_p
mpmath.mp.dps = 50


@pytest.fixture(scope="module")
def lib(capi_build) -> Library:
    """The library as configured by default (Eigen's FFT), with the mechanisms' calls declared."""
    return with_mechanisms(capi_build())


def _composed(lib: Library, a: _PLD, b: _PLD) -> _PLD:
    return made(lib, "hs_pld_compose", a, b)


def _rounds(lib: Library, handle: _PLD) -> int:
    out = _LL()
    assert lib.lib.hs_pld_rounds(handle, ctypes.byref(out)) == HS_OK
    return out.value


def _tolerance(dist: pld.PrivacyLossDistribution, method: str, x: float) -> float:
    """How far the package's ``method`` bracket at ``x`` moves when delta moves by its sides' round-off charges
    (the library's and scipy's transforms differ by at most those): for epsilon, the width over delta +- 4 charges,
    for delta, 4 charges."""
    charge = max(pmf.total_error for side in (True, False) for pmf in dist.composed(side))
    assert charge > 0  # the composition is numerical, and charged
    if method == "delta":
        return 4 * charge + 1e-15
    low, up = cast(
        "tuple[np.ndarray, np.ndarray]",
        dist.epsilon([x - 4 * charge, x + 4 * charge], bound="both", composition_only=True),
    )
    return float(max(low[0] - low[1], up[0] - up[1])) + 1e-12


def _agrees(
    lib: Library, handle: _PLD, dist: pld.PrivacyLossDistribution, method: str, x: float
) -> tuple[float, float]:
    """The library's bracket of ``method`` at ``x``, checked against the package's bracket of the same composition:
    both ordered, overlapping, and within the charged round-off of each other."""
    lower, upper = lib.bracket(handle, method, x)
    python = cast(
        "tuple[float, float]", getattr(dist, method)(x, bound="both", composition_only=True)
    )
    tolerance = _tolerance(dist, method, x)
    assert lower <= upper and max(lower, python[0]) <= min(upper, python[1]), (
        method,
        x,
        (lower, upper),
        python,
    )
    assert abs(lower - python[0]) <= tolerance and abs(upper - python[1]) <= tolerance, (
        lower,
        upper,
        python,
    )
    return lower, upper


def _theta(r: mpmath.mpf, t: mpmath.mpf) -> mpmath.mpf:
    """The Gaussian mechanism's exact E_P[(1 - e^(t - L))_+] at any real t (paper 000, eq. 6), 50 digits."""
    return mpmath.ncdf(-(t / r - r / 2)) - mpmath.exp(t) * mpmath.ncdf(-(t / r + r / 2))


def _laplace_then_gaussian_delta(scale: float, sigma: float, eps: float) -> float:
    """delta(eps) of the Laplace mechanism (sensitivity 1) composed with the Gaussian one: E[theta(r, eps - L)] over
    the Laplace loss L (atoms 1/2 at a and e^-a / 2 at -a, density e^((l - a) / 2) / 4 between; a = 1 / scale)."""
    a, r, e = mpmath.mpf(1) / scale, mpmath.mpf(1) / sigma, mpmath.mpf(eps)
    atoms = _theta(r, e - a) / 2 + mpmath.exp(-a) / 2 * _theta(r, e + a)
    density = mpmath.quad(
        lambda l: _theta(r, e - l) * mpmath.exp((l - a) / 2) / 4,
        [-a, e, a] if -a < e < a else [-a, a],
    )
    return float(atoms + density)


# ---- one round: the package's constructors bit for bit, holding the closed forms ----


@pytest.mark.parametrize(
    ("scale", "sensitivity", "h"), [(1.0, 1.0, 1e-4), (0.5, 2.0, 1e-3), (3.0, 0.7, 3e-4)]
)
def test_one_round_laplace_is_the_packages_bit_for_bit_and_holds_the_closed_form(
    lib, scale, sensitivity, h
):
    handle = made(lib, "hs_pld_laplace", scale, sensitivity, 1.0, h)
    python = pld.laplace(scale, sensitivity=sensitivity, value_discretization_interval=h)
    a = mpmath.mpf(sensitivity) / scale
    try:
        assert _rounds(lib, handle) == 1
        for eps in [-0.5, 0.0, 0.3, 1.0, float(a) * 0.9, float(a) + 1.0]:
            lower, upper = lib.bracket(handle, "delta", eps)
            assert (lower, upper) == python.delta(eps, bound="both", composition_only=True), eps
            exact = 1 - mpmath.exp((mpmath.mpf(eps) - a) / 2) if 0 <= eps <= a else None
            if exact is not None:
                assert lower <= exact <= upper, (eps, lower, float(exact), upper)
        for delta in [1e-1, 1e-3, 0.05]:
            assert lib.bracket(handle, "epsilon", delta) == python.epsilon(
                delta, bound="both", composition_only=True
            ), delta
    finally:
        lib.lib.hs_pld_free(handle)


@pytest.mark.parametrize(
    ("sigma", "batch_size", "n", "sensitivity", "h"),
    [(2.0, 10, 100, 1.0, 1e-4), (1.0, 1, 7, 0.5, 1e-3), (0.9, 256, 60000, 1.0, 1e-3)],
)
def test_one_round_fixed_size_gaussian_is_the_packages_bit_for_bit_and_holds_the_exact_profile(
    lib, sigma, batch_size, n, sensitivity, h
):
    handle = made(lib, "hs_pld_fixed_size_gaussian", sigma, batch_size, n, sensitivity, h)
    python = pld.fixed_size_subsampled_gaussian(
        sigma, batch_size, n, sensitivity=sensitivity, value_discretization_interval=h
    )
    s, q = mpmath.mpf(sigma) / sensitivity, mpmath.mpf(batch_size) / n
    try:
        for eps in [0.0, 0.1, 0.5, 2.0]:
            lower, upper = lib.bracket(handle, "delta", eps)
            assert (lower, upper) == python.delta(eps, bound="both", composition_only=True), eps
            exact = q * _theta(2 / s, mpmath.log(1 + mpmath.expm1(eps) / q))
            assert lower <= exact <= upper, (eps, lower, float(exact), upper)
        for delta in [1e-3, 1e-6]:
            assert lib.bracket(handle, "epsilon", delta) == python.epsilon(
                delta, bound="both", composition_only=True
            ), delta
    finally:
        lib.lib.hs_pld_free(handle)


def _laplace_cdf(x: mpmath.mpf, m: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
    return mpmath.exp((x - m) / b) / 2 if x < m else 1 - mpmath.exp(-(x - m) / b) / 2


def _subsampled_laplace_delta(scale: float, sensitivity: float, q: float, eps: float) -> mpmath.mpf:
    """delta(eps >= 0) of the Poisson-subsampled Laplace, the larger of its two directions, 50 digits: the loss of
    (1 - q) Lap(0, b) + q Lap(s, b) against Lap(0, b) is L(x) = log(1 - q + q e^((2x - s) / b)) on (0, s), flat
    outside, crossing t at x(t) = (s + b log((e^t - 1 + q) / q)) / 2; the remove direction's delta is the mass
    above x(eps) of P - e^eps Q, the add direction's the mass below x(-eps) of Q - e^eps P."""
    b, s, q, e = mpmath.mpf(scale), mpmath.mpf(sensitivity), mpmath.mpf(q), mpmath.mpf(eps)

    def mixture(x: mpmath.mpf) -> mpmath.mpf:
        return (1 - q) * _laplace_cdf(x, 0, b) + q * _laplace_cdf(x, s, b)

    def crossing(t: mpmath.mpf) -> mpmath.mpf:
        return (s + b * mpmath.log((mpmath.exp(t) - 1 + q) / q)) / 2

    top, bottom = (
        mpmath.log(1 - q + q * mpmath.exp(s / b)),
        mpmath.log(1 - q + q * mpmath.exp(-s / b)),
    )
    remove = mpmath.mpf(0)
    if e < top:
        x = max(crossing(e), mpmath.mpf(0))
        remove = (1 - mixture(x)) - mpmath.exp(e) * (1 - _laplace_cdf(x, 0, b))
    add = mpmath.mpf(0)
    if -e > bottom:
        x = min(crossing(-e), s)
        add = _laplace_cdf(x, 0, b) - mpmath.exp(e) * mixture(x)
    return max(remove, add)


@pytest.mark.parametrize(
    ("scale", "sensitivity", "q", "h"),
    [(1.0, 1.0, 0.1, 1e-4), (0.5, 2.0, 0.01, 1e-3), (4.25, 1.0, 0.6, 3e-4)],
)
def test_one_round_subsampled_laplace_is_the_packages_bit_for_bit_and_holds_the_exact_profile(
    lib, scale, sensitivity, q, h
):
    """The package's subsampled_laplace and the C call make their cells with one core function
    (pld/mechanisms/laplace_mixture.hpp): one round's brackets are equal bit for bit, and hold the exact delta."""
    handle = made(lib, "hs_pld_laplace", scale, sensitivity, q, h)
    python = pld.subsampled_laplace(
        scale, q, sensitivity=sensitivity, value_discretization_interval=h
    )
    try:
        for eps in [0.0, 0.05, 0.3, 1.0]:
            lower, upper = lib.bracket(handle, "delta", eps)
            assert (lower, upper) == python.delta(eps, bound="both", composition_only=True), eps
            exact = _subsampled_laplace_delta(scale, sensitivity, q, eps)
            assert lower <= exact <= upper, (eps, lower, float(exact), upper)
        for delta in [1e-2, 1e-4]:
            assert lib.bracket(handle, "epsilon", delta) == python.epsilon(
                delta, bound="both", composition_only=True
            ), delta
    finally:
        lib.lib.hs_pld_free(handle)


# ---- composition: the package's within the charges, holding the exact value ----


@pytest.mark.parametrize(
    ("sigma1", "rounds1", "sigma2", "rounds2", "h"),
    [(2.0, 50, 5.0, 400, 1e-3), (1.0, 1, 3.0, 20, 1e-4)],
)
def test_a_gaussian_composed_with_a_gaussian_is_the_gaussian_of_the_summed_radius(
    lib, sigma1, rounds1, sigma2, rounds2, h
):
    a = lib.subsampled_gaussian(sigma1, 1.0, h, rounds1)
    b = lib.subsampled_gaussian(sigma2, 1.0, h, rounds2)
    both = _composed(lib, a, b)
    lib.lib.hs_pld_free(a)  # the composition keeps the factors it needs
    lib.lib.hs_pld_free(b)
    dist = (
        pld.gaussian(sigma1, value_discretization_interval=h)
        .self_compose(rounds1)
        .compose(pld.gaussian(sigma2, value_discretization_interval=h).self_compose(rounds2))
    )
    radius = mpmath.sqrt(mpmath.mpf(rounds1) / sigma1**2 + mpmath.mpf(rounds2) / sigma2**2)
    try:
        assert _rounds(lib, both) == rounds1 + rounds2
        for delta in [1e-3, 1e-6]:
            lower, upper = _agrees(lib, both, dist, "epsilon", delta)
            assert lower <= hs.theta_epsilon(float(radius), delta) <= upper
            assert _theta(radius, mpmath.mpf(upper)) <= delta <= _theta(radius, mpmath.mpf(lower))
        for eps in [0.5, 2.0]:
            lower, upper = _agrees(lib, both, dist, "delta", eps)
            assert lower <= _theta(radius, mpmath.mpf(eps)) <= upper
    finally:
        lib.lib.hs_pld_free(both)


@pytest.mark.parametrize(("scale", "sigma", "h"), [(2.0, 1.5, 1e-3), (1.0, 0.8, 1e-4)])
def test_laplace_composed_with_gaussian_holds_the_exact_delta(lib, scale, sigma, h):
    laplace = made(lib, "hs_pld_laplace", scale, 1.0, 1.0, h)
    gaussian = lib.subsampled_gaussian(sigma, 1.0, h)
    both = _composed(lib, laplace, gaussian)
    dist = pld.laplace(scale, value_discretization_interval=h).compose(
        pld.gaussian(sigma, value_discretization_interval=h)
    )
    try:
        for eps in [0.0, 0.7, 2.5]:
            lower, upper = _agrees(lib, both, dist, "delta", eps)
            assert lower <= _laplace_then_gaussian_delta(scale, sigma, eps) <= upper, eps
        lower, upper = _agrees(lib, both, dist, "epsilon", 1e-5)
        assert (
            _laplace_then_gaussian_delta(scale, sigma, upper)
            <= 1e-5
            <= _laplace_then_gaussian_delta(scale, sigma, lower)
        )
    finally:
        for handle in (laplace, gaussian, both):
            lib.lib.hs_pld_free(handle)


def test_three_mechanisms_with_two_directions_compose_as_in_the_package(lib):
    """The Poisson-subsampled Gaussian's two directions paired with the Poisson-subsampled Laplace's, each with the
    one direction of the fixed-size mechanism (the package's pairing), over rounds of each."""
    h = 1e-3
    poisson = lib.subsampled_gaussian(1.0, 0.05, h, 200)
    laplace = made(lib, "hs_pld_laplace", 4.0, 1.0, 0.2, h)
    laplace_rounds = _PLD()
    assert lib.lib.hs_pld_self_compose(laplace, 3, ctypes.byref(laplace_rounds)) == HS_OK
    fixed = made(lib, "hs_pld_fixed_size_gaussian", 2.0, 10, 1000, 1.0, h)
    first = _composed(lib, poisson, laplace_rounds)
    every = _composed(lib, first, fixed)
    dist = (
        pld.subsampled_gaussian(1.0, 0.05, value_discretization_interval=h)
        .self_compose(200)
        .compose(pld.subsampled_laplace(4.0, 0.2, value_discretization_interval=h).self_compose(3))
        .compose(pld.fixed_size_subsampled_gaussian(2.0, 10, 1000, value_discretization_interval=h))
    )
    try:
        assert _rounds(lib, every) == 204
        for delta in [1e-4, 1e-7]:
            _agrees(lib, every, dist, "epsilon", delta)
        for eps in [0.0, 1.0]:
            _agrees(lib, every, dist, "delta", eps)
    finally:
        for handle in (poisson, laplace, laplace_rounds, fixed, first, every):
            lib.lib.hs_pld_free(handle)


def test_a_pld_composed_with_itself_is_its_self_composition_bit_for_bit(lib):
    """Terms of one factor merge (their counts add, as the package's compose merges them): a composed with a is
    the handle of a's self-composition twice."""
    h = 1e-3
    fixed = made(lib, "hs_pld_fixed_size_gaussian", 1.2, 5, 100, 1.0, h)
    laplace = made(lib, "hs_pld_laplace", 3.0, 1.0, 1.0, h)
    mixed = _composed(lib, fixed, laplace)
    twice, doubled = _composed(lib, mixed, mixed), _PLD()
    assert lib.lib.hs_pld_self_compose(mixed, 2, ctypes.byref(doubled)) == HS_OK
    try:
        assert _rounds(lib, twice) == _rounds(lib, doubled) == 4
        for delta in [1e-3, 1e-6]:
            assert lib.bracket(twice, "epsilon", delta) == lib.bracket(doubled, "epsilon", delta)
        for eps in [0.0, 0.5, 3.0]:
            assert lib.bracket(twice, "delta", eps) == lib.bracket(doubled, "delta", eps)
    finally:
        for handle in (fixed, laplace, mixed, twice, doubled):
            lib.lib.hs_pld_free(handle)


# ---- refusals ----


def _refused(lib: Library, call: str, *args: object) -> tuple[int, str]:
    out = _PLD()
    status = getattr(lib.lib, call)(*args, ctypes.byref(out))
    assert out.value is None  # nothing written on failure
    return status, lib.last_error()


_REFUSALS = [
    (
        ("hs_pld_laplace", 0.0, 1.0, 1.0, 1e-3),
        HS_INVALID_ARGUMENT,
        "scale must be finite and > 0, got 0",
    ),
    (
        ("hs_pld_laplace", 1.0, math.inf, 1.0, 1e-3),
        HS_INVALID_ARGUMENT,
        "sensitivity must be finite and > 0, got inf",
    ),
    (
        ("hs_pld_laplace", 1.0, 1.0, 0.0, 1e-3),
        HS_INVALID_ARGUMENT,
        "sampling_rate must lie in (0, 1], got 0",
    ),
    (
        ("hs_pld_laplace", 1.0, 1.0, 1.0, 101.0),
        HS_INVALID_ARGUMENT,
        "value_discretization_interval must lie in (0, 100]",
    ),
    (
        ("hs_pld_laplace", 1e-3, 1.0, 1.0, 1e-5),
        HS_INVALID_ARGUMENT,
        "value_discretization_interval=1e-05 with scale / sensitivity = 0.001 would need more than 67108864 loss cells",
    ),
    (
        ("hs_pld_laplace", 1.0, 1.0, 1.5, 1e-3),
        HS_INVALID_ARGUMENT,
        "sampling_rate must lie in (0, 1], got 1.5",
    ),
    (
        ("hs_pld_laplace", 1e-3, 1.0, 0.5, 1e-5),
        HS_INVALID_ARGUMENT,
        "the loss range [-0.6931, 999.3] needs 1e+08 cells",
    ),
    (
        ("hs_pld_fixed_size_gaussian", -1.0, 1, 10, 1.0, 1e-3),
        HS_INVALID_ARGUMENT,
        "sigma must be finite and > 0",
    ),
    (
        ("hs_pld_fixed_size_gaussian", 1.0, 0, 10, 1.0, 1e-3),
        HS_INVALID_ARGUMENT,
        "batch_size must be an integer >= 1",
    ),
    (
        ("hs_pld_fixed_size_gaussian", 1.0, 1, 0, 1.0, 1e-3),
        HS_INVALID_ARGUMENT,
        "n must be an integer >= 1",
    ),
    (
        ("hs_pld_fixed_size_gaussian", 1.0, 11, 10, 1.0, 1e-3),
        HS_INVALID_ARGUMENT,
        "batch_size must be <= n (batches are drawn without replacement), got 11 > 10",
    ),
    (
        ("hs_pld_fixed_size_gaussian", 1.0, 1, 10, 0.0, 1e-3),
        HS_INVALID_ARGUMENT,
        "sensitivity must be finite and > 0",
    ),
    (
        ("hs_pld_fixed_size_gaussian", 1e-3, 1, 10, 1.0, 1e-6),
        HS_INVALID_ARGUMENT,
        "value_discretization_interval=1e-06 with sigma / sensitivity = 0.001 would need more than 67108864",
    ),
]


@pytest.mark.parametrize(
    ("call", "status", "message"), _REFUSALS, ids=[f"{c[0]}{c[1:]}" for c, _, _ in _REFUSALS]
)
def test_mechanism_refusals_name_the_argument_and_the_rule(lib, call, status, message):
    got, said = _refused(lib, *call)
    assert got == status and said.startswith(message), said


def test_composition_refusals_name_the_argument_and_the_rule(lib):
    a = lib.subsampled_gaussian(1.0, 0.1, 1e-3)
    b = lib.subsampled_gaussian(1.0, 0.1, 2e-3)
    try:
        status, said = _refused(lib, "hs_pld_compose", a, b)
        assert status == HS_INVALID_ARGUMENT
        assert said == (
            "b must be on a's loss grid (one value_discretization_interval on both sides), got 0.002 and 0.001: "
            "make both PLDs with the same value_discretization_interval"
        )
        assert _refused(lib, "hs_pld_compose", None, b) == (HS_INVALID_ARGUMENT, _null("a"))
        assert _refused(lib, "hs_pld_compose", a, None) == (HS_INVALID_ARGUMENT, _null("b"))
        assert (
            lib.lib.hs_pld_compose(a, a, None) == HS_INVALID_ARGUMENT
            and lib.last_error() == "out must not be NULL"
        )
    finally:
        lib.lib.hs_pld_free(a)
        lib.lib.hs_pld_free(b)


def _null(name: str) -> str:
    return f"{name} must not be NULL (a handle made by an hs_pld_ call)"


# ---- from C and from Rust ----


def test_c_program_gets_the_packages_mechanisms_and_compositions(lib, tmp_path):
    exe = tmp_path / "capi_mechanisms"
    libdir = lib.path.parent
    flags = ("-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic")
    _run(_c_compiler(), *flags, "-I", CAPI / "include", CAPI / "tests" / "capi_mechanisms.c", "-L", libdir,
         "-lhockeystick_c", f"-Wl,-rpath,{libdir}", "-o", exe)  # fmt: skip
    lines = [line.split(" ") for line in _run(exe).splitlines()]
    keys = [fields[0] for fields in lines]
    assert keys == [
        "laplace",
        "laplace",
        "subsampled_laplace",
        "fixed_size",
        "laplace_gaussian",
        "gaussians",
        "refused",
    ]
    for key, *fields in lines[:-1]:
        if key == "laplace":
            scale, sensitivity, h, eps, lower, upper = (float(v) for v in fields)
            python = pld.laplace(scale, sensitivity=sensitivity, value_discretization_interval=h)
            assert (lower, upper) == python.delta(eps, bound="both", composition_only=True)
        elif key == "subsampled_laplace":
            scale, sensitivity, q, h, eps, lower, upper = (float(v) for v in fields)
            python = pld.subsampled_laplace(
                scale, q, sensitivity=sensitivity, value_discretization_interval=h
            )
            assert (lower, upper) == python.delta(eps, bound="both", composition_only=True)
            assert lower <= _subsampled_laplace_delta(scale, sensitivity, q, eps) <= upper
        elif key == "fixed_size":
            sigma, m, n, h, eps, lower, upper = (float(v) for v in fields)
            python = pld.fixed_size_subsampled_gaussian(
                sigma, int(m), int(n), value_discretization_interval=h
            )
            assert (lower, upper) == python.delta(eps, bound="both", composition_only=True)
        elif key == "laplace_gaussian":
            scale, sigma, h, eps, lower, upper = (float(v) for v in fields)
            assert lower <= _laplace_then_gaussian_delta(scale, sigma, eps) <= upper
        else:
            sigma1, rounds1, sigma2, rounds2, h, delta, lower, upper, rounds = (
                float(v) for v in fields
            )
            assert rounds == rounds1 + rounds2
            assert (
                lower
                <= hs.theta_epsilon(math.sqrt(rounds1 / sigma1**2 + rounds2 / sigma2**2), delta)
                <= upper
            )
    status, message = lines[-1][1], " ".join(lines[-1][2:])
    assert int(status) == HS_INVALID_ARGUMENT and message.startswith("b must be on a's loss grid")


def test_rust_program_composes_the_subsampled_laplace_with_the_fixed_size_gaussian(lib, tmp_path):
    rustc = shutil.which("rustc")
    if rustc is None:
        pytest.skip("no rustc on this machine: the Rust caller is not tested")
    if shutil.which("cc") is None:
        pytest.skip("no C linker (cc) for rustc on PATH: the Rust caller is not tested")
    exe = tmp_path / "capi_mechanisms_rs"
    libdir = lib.path.parent
    _run(rustc, "--edition", "2021", CAPI / "tests" / "capi_mechanisms.rs", "-L", libdir, "-l", "hockeystick_c",
         "-C", f"link-arg=-Wl,-rpath,{libdir}", "-o", exe)  # fmt: skip
    lines = {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in _run(exe).splitlines()}
    scale, q, sigma, m, n, h, delta, lower, upper, rounds = (
        float(v) for v in lines["composed"].split()
    )
    dist = pld.subsampled_laplace(scale, q, value_discretization_interval=h).compose(
        pld.fixed_size_subsampled_gaussian(sigma, int(m), int(n), value_discretization_interval=h)
    )
    python = cast("tuple[float, float]", dist.epsilon(delta, bound="both", composition_only=True))
    tolerance = _tolerance(dist, "epsilon", delta)
    assert rounds == 2 and lower <= upper and max(lower, python[0]) <= min(upper, python[1])
    assert abs(lower - python[0]) <= tolerance and abs(upper - python[1]) <= tolerance
    assert (
        lines["refused"]
        == "1 batch_size must be <= n (batches are drawn without replacement), got 200 > 100"
    )
