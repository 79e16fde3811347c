"""Powers of spectrum bins by repeated squaring in double (pld/compose/binary_power.hpp).

Each bin's bound d is checked against 40-digit mpmath powers: the computed power is within d of the exact
power of the bins and of the bins pushed out radially by their deltas (where prod (|x| + delta)^c - prod |x|^c
is reached), d is within 1 % of that perturbation plus 2.83 u (C - 1) of the power (the bound is not loose), a
dropped bin's perturbed power is at most 2^-64, and a bin outside the domain is not taken.  A two-atom factor (a
Laplace loss's end atoms, whose spectrum never decays) composed 26 times is checked against its binomial masses.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld.compose import fft as pc
from hockeystick.pld.grid.pmf import GridPMF

U = 2.0**-53
TAU = 2.0**-64


def _bins(rng: np.random.Generator, counts: list[int], bins: int) -> np.ndarray:
    """Random bins of any phase, (terms, bins), each bin's moduli |x|^c e^-t together (t uniform in [0, 50]),
    so that about a tenth of the powers fall below tau = e^-44.4."""
    t = rng.uniform(0.0, 50.0, size=bins)
    modulus = np.exp(-t[None, :] / sum(counts) * rng.uniform(0.5, 1.5, size=(len(counts), bins)))
    return modulus * np.exp(1j * rng.uniform(0.0, 2.0 * math.pi, size=(len(counts), bins)))


def _exact_power(column: list[mpmath.mpc], counts: list[int]) -> mpmath.mpc:
    power = mpmath.mpc(1)
    for x, c in zip(column, counts, strict=True):
        power *= x**c
    return power


@pytest.mark.parametrize(
    ("counts", "deltas"),
    [
        ([26, 26], [1.6e-14, 1.6e-14]),
        ([3], [0.0]),
        ([7, 200, 1], [1e-16, 2e-14, 0.0]),
        ([100_000], [1e-19]),
        ([1, 9, 1], [1e-9, 1e-14, 1e-9]),
    ],
)
def test_binary_powers_hold_their_bound_against_mpmath(counts, deltas):
    rng = np.random.default_rng(sum(counts))
    x = _bins(rng, counts, 120)
    y, d, modulus, taken, dropped = _core.pld_compose.binary_power_bins(
        x, counts=counts, deltas=deltas
    )
    assert taken.all()
    assert (~dropped).sum() >= 20 and dropped.sum() >= 1
    total = sum(counts)
    with mpmath.workdps(40):
        for k in range(x.shape[1]):
            column = [mpmath.mpc(float(v.real), float(v.imag)) for v in x[:, k]]
            pushed = [v * (1 + mpmath.mpf(e) / abs(v)) for v, e in zip(column, deltas, strict=True)]
            exact, perturbed = _exact_power(column, counts), _exact_power(pushed, counts)
            if dropped[k]:
                assert abs(perturbed) <= TAU
                continue
            got = mpmath.mpc(float(y[k].real), float(y[k].imag))
            assert abs(got - exact) <= d[k]
            assert abs(got - perturbed) <= d[k]
            assert modulus[k] >= abs(got)
            tight = (
                (abs(perturbed) - abs(exact)) * 1.01
                + 2.83 * U * (total - 1) * abs(exact) * 1.01
                + 1e-300
            )
            assert d[k] <= tight


def test_binary_powers_refuse_bins_outside_their_domain():
    x = np.array([[1.5 + 0.0j, 0.5 + 0.5j, 1e-200 + 0.0j]])
    _, d, _, taken, _ = _core.pld_compose.binary_power_bins(x, counts=[4], deltas=[1e-16])
    # |x| above 1, a bin inside, |x| below 2^-400
    assert taken.tolist() == [False, True, False]
    assert d[0] == 0.0 and d[1] > 0.0
    # a subnormal delta; a far bin (4 delta / |x| above 2^-26) whose |x| + delta exceeds 1
    assert not _core.pld_compose.binary_power_bins(x[:, 1:2], counts=[4], deltas=[1e-310])[3][0]
    near_one = np.array([[0.9999999 + 0.0j]])
    assert not _core.pld_compose.binary_power_bins(near_one, counts=[4], deltas=[1e-6])[3][0]
    with pytest.raises(ValueError):
        _core.pld_compose.binary_power_bins(x, counts=[0], deltas=[0.0])


def test_two_atoms_composed_match_their_binomial_masses():
    """Atoms at -a and +a grid steps (a Laplace loss's end atoms): 26 rounds put mass C(26, j) q^j (1 - q)^(26 - j)
    at (2 j - 26) a; every composed entry is within entry_error of it, and their l1 distance within total_error."""
    a, count, h = 7, 26, 1e-3
    plus = 1.0 / (1.0 + math.exp(-a * h))
    p = np.zeros(2 * a + 1)
    p[0], p[-1] = 1.0 - plus, plus
    factor = GridPMF(k_lo=-a, h=h, p=p, p_inf=0.0)
    composed = pc.compose([(factor, count)], pessimistic=True, workers=1)
    with mpmath.workdps(40):
        q = mpmath.mpf(plus)
        want = np.zeros(composed.p.size)
        exact = {}
        for j in range(count + 1):
            exact[(2 * j - count) * a - composed.k_lo] = (
                mpmath.binomial(count, j) * q**j * (1 - q) ** (count - j)
            )
        l1 = mpmath.mpf(0)
        for i, got in enumerate(composed.p):
            err = abs(mpmath.mpf(float(got)) - exact.get(i, 0))
            assert err <= composed.entry_error
            l1 += err
            want[i] = float(exact.get(i, 0))
        assert l1 <= composed.total_error
    assert np.abs(composed.p - want).max() > 0.0  # the composition rounds: the bound is exercised
