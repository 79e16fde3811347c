"""Independent 50-digit references for the contraction tests: the papers' sums, term by term.

Nothing here calls hockeystick; every formula is the paper's, written directly.  The
tests at the end check the references themselves against published values.
"""

from __future__ import annotations

import functools

import mpmath as mp

DIGITS = 120  # 1 - theta reaches 1e-77 in the tests: keep 40+ digits beyond that


def _precise(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with mp.workdps(DIGITS):
            return func(*args, **kwargs)

    return wrapper


def q(x):
    return mp.erfc(x / mp.sqrt(2)) / 2


@_precise
def theta(r, eps):
    """theta_eps(r) = Q(eps/r - r/2) - e^eps Q(eps/r + r/2)  (000 eq. 6)."""
    r, eps = mp.mpf(r), mp.mpf(eps)
    if r == 0:
        return mp.mpf(0)
    return q(eps / r - r / 2) - mp.exp(eps) * q(eps / r + r / 2)


@_precise
def theta_complement(r, eps):
    """1 - theta_eps(r) = Phi(eps/r - r/2) + e^eps Q(eps/r + r/2): positive terms, so it keeps
    its digits when theta is within 1e-100 of 1 (where 1 - theta(...) would keep none)."""
    r, eps = mp.mpf(r), mp.mpf(eps)
    if r == 0:
        return mp.mpf(1)
    return q(-(eps / r - r / 2)) + mp.exp(eps) * q(eps / r + r / 2)


@_precise
def geometric_sum(r, eps, terms):
    """sum_{k<terms} theta^k = (1 - theta^T)/(1 - theta) with 1 - theta from theta_complement."""
    c = theta_complement(r, eps)
    if terms == mp.inf:
        return 1 / c
    return -mp.expm1(terms * mp.log1p(-c)) / c


@_precise
def laplace(g, eps):
    """[1 - e^{(eps - g)/2}]_+  (002 Lemma 1, g = distance / scale)."""
    v = 1 - mp.exp((mp.mpf(eps) - mp.mpf(g)) / 2)
    return v if v > 0 else mp.mpf(0)


@_precise
def schedule_sum(eps, r_first, r_product, weight):
    """weight * sum_t theta(r1_t) prod_{j>t} theta(r2_j)  (000 Thm 2), literally."""
    a = [theta(r, eps) for r in r_first]
    b = [theta(r, eps) for r in r_product]
    total = mp.mpf(0)
    for t in range(len(a)):
        term = a[t]
        for j in range(t + 1, len(a)):
            term *= b[j]
        total += term
    return mp.mpf(weight) * total


@_precise
def random_stop_sum(eps, r_first, r_product, weight, first_stop):
    """weight * sum_{tau=first_stop..T} sum_{t<=tau} theta(r1_t) prod_{j=t+1..tau} theta(r2_j)  (000 Cor 3)."""
    a = [theta(r, eps) for r in r_first]
    b = [theta(r, eps) for r in r_product]
    total = mp.mpf(0)
    for tau in range(first_stop, len(a) + 1):
        for t in range(tau):
            term = a[t]
            for j in range(t + 1, tau):
                term *= b[j]
            total += term
    return mp.mpf(weight) * total


@_precise
def trusted_aggregator(eps, n, m, sigma, eta, L, rho, rounds=None):
    """000 Thm 2 with a constant schedule, as the paper's sum over t."""
    T = n // m if rounds is None else rounds
    r1 = 2 * mp.mpf(L) / (mp.sqrt(m) * sigma)
    r2 = 2 * mp.mpf(rho) * mp.sqrt(m) / (mp.mpf(eta) * sigma)
    a, b = theta(r1, eps), theta(r2, eps)
    return mp.mpf(m) / n * mp.fsum(a * b ** (T - t) for t in range(1, T + 1))


@_precise
def pnsgd_gaussian(eps, n, i, sigma, eta, L, D, M):
    """002 Thm 4."""
    return theta(2 * mp.mpf(L) / sigma, eps) * theta(
        mp.mpf(M) * D / (mp.mpf(eta) * sigma), eps
    ) ** (n - i)


@_precise
def pnsgd_laplace(eps, n, i, v, eta, L, D, M):
    """002 Thm 3 as printed: (1 - e^{eps/2 - L/v})_+ (1 - e^{eps/2 - M D/(2 eta v)})_+^{n-i}."""
    first = 1 - mp.exp(mp.mpf(eps) / 2 - mp.mpf(L) / v)
    later = 1 - mp.exp(mp.mpf(eps) / 2 - mp.mpf(M) * D / (2 * mp.mpf(eta) * v))
    first = first if first > 0 else mp.mpf(0)
    later = later if later > 0 else mp.mpf(0)
    return first * later ** (n - i)


@_precise
def pnsgd_random_stop(eps, n, i, sigma, eta, L, D, M):
    """002 Thm 5 proof: (1/n) sum_{tau=i..n} theta(2L/sigma) theta(M D/(eta sigma))^{tau - i}."""
    a = theta(2 * mp.mpf(L) / sigma, eps)
    b = theta(mp.mpf(M) * D / (mp.mpf(eta) * sigma), eps)
    return a * mp.fsum(b**k for k in range(n - i + 1)) / n


@_precise
def renyi_baseline(eps, n, i, sigma, L, M):
    """002 Prop 1 (eq. 15), 1 where it gives nothing."""
    if i < n:
        kappa = 2 * mp.mpf(L) ** 2 * mp.mpf(M) ** (n - i + 1) / ((n - i) * mp.mpf(sigma) ** 2)
    else:
        kappa = 2 * mp.mpf(L) ** 2 / mp.mpf(sigma) ** 2
    eps = mp.mpf(eps)
    return mp.exp(-((eps - kappa) ** 2) / (4 * kappa)) if eps > kappa else mp.mpf(1)


@_precise
def modulus(eta, beta, lam):
    """M = sqrt(1 - 2 eta beta lambda / (beta + lambda))  (002 eq. 14)."""
    eta, beta, lam = mp.mpf(eta), mp.mpf(beta), mp.mpf(lam)
    return mp.sqrt(1 - 2 * eta * beta * lam / (beta + lam))


@_precise
def relative_error(value, reference):
    reference = mp.mpf(reference)
    if reference == 0:
        return abs(mp.mpf(value))
    return abs((mp.mpf(value) - reference) / reference)


def test_theta_reference_matches_published_value():
    # 004 Lemma 7 check value: delta(eps = 1; mu = 1) = 0.126937
    assert abs(float(theta(1, 1)) - 0.126937) < 5e-7


@_precise
def test_schedule_reference_is_the_geometric_closed_form_for_constant_rounds():
    a = theta(0.7, 0.9)
    literal = schedule_sum(0.9, [0.7] * 6, [3.0] * 6, 0.25)
    assert relative_error(literal, 0.25 * a * geometric_sum(3.0, 0.9, 6)) < mp.mpf(10) ** -40


@_precise
def test_theta_complement_reference_adds_up_to_one():
    for r, eps in [(0.3, 0.1), (2.0, 1.0), (9.0, 4.0)]:
        assert abs(theta(r, eps) + theta_complement(r, eps) - 1) < mp.mpf(10) ** -100


def test_random_stop_reference_counts_each_stop_once():
    # T = 1: the only stop is tau = 1, the sum is a_1
    assert (
        relative_error(random_stop_sum(0.5, [1.2], [9.0], 1.0, 1), theta(1.2, 0.5))
        < mp.mpf(10) ** -40
    )
