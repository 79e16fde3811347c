"""Self-composition of finite atoms (pld.finite_atoms.self_compose) against the numpy dense path and
50-digit references: a short self-composition, in plain floats on the atoms' own stride, gives the same
atoms as the numpy dense path, masses within the charged round-off of the exact (mpmath, 50 digits)
k-fold masses, and epsilons bracketing the exact one on both sides; a long one keeps the dense path's
atoms within its charge.
"""

from __future__ import annotations

import itertools

import mpmath as mp
import numpy as np
import pytest

from hockeystick.pld.compose import finite_atoms as fa
from hockeystick.pld.grid import atoms as atoms_core
from hockeystick.pld.mechanisms.discrete_laplace import discrete_laplace_pair

MP_DPS = 50
mp.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test

CASES = [
    (0.4839990325713871, 1, 8),
    (0.3, 3, 5),
    (0.2, 2, 7),
    (0.05, 5, 3),
    (1.3, 1, 15),
    (0.7, 4, 2),
]


def _numpy_dense(a: fa.Atoms, count: int) -> fa.Atoms:
    """The self-composition with the lean (plain float) and dense paths off: numpy's outer products and merging
    (an independent path to the same atoms)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(atoms_core, "LEAN_ATOMS", 0)
        patch.setattr(atoms_core, "DENSE_FILL", 0)
        return fa.self_compose(a, count)


def _exact_atoms(a: float, s: int, count: int) -> dict[int, mp.mpf]:
    """The k-fold discrete Laplace privacy loss at index j (loss j a) -> exact P-mass, in mpmath."""
    a_mp = mp.mpf(a)
    norm = 1 / (1 + mp.e**-a_mp)
    one = {-s: mp.e ** (-a_mp * s) * norm, s: norm}
    for x in range(1, s):
        one[2 * x - s] = mp.tanh(a_mp / 2) * mp.e ** (-a_mp * (s - x))
    out = {0: mp.mpf(1)}
    for _ in range(count):
        nxt: dict[int, mp.mpf] = {}
        for (i, m), (j, w) in itertools.product(out.items(), one.items()):
            nxt[i + j] = nxt.get(i + j, 0) + m * w
        out = nxt
    return out


def _exact_epsilon(atoms: dict[int, mp.mpf], a: float, target: float) -> mp.mpf:
    """The exact epsilon at delta = target: the root of the (decreasing) exact curve, by bisection."""
    a_mp = mp.mpf(a)

    def delta(eps: mp.mpf) -> mp.mpf:
        return sum(
            (m * (1 - mp.e ** (eps - j * a_mp)) for j, m in atoms.items() if j * a_mp > eps),
            mp.mpf(0),
        )

    lo, hi = mp.mpf(0), mp.mpf(max(atoms) * a_mp + 1)
    if delta(lo) <= target:
        return lo
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if delta(mid) > target else (lo, mid)
    return hi


@pytest.mark.parametrize("a, s, count", CASES)
def test_lean_self_composition_matches_the_numpy_path_and_exact_masses(a, s, count):
    atoms = fa.pair_atoms(*discrete_laplace_pair(a, s))
    assert count * int(atoms.index[-1] - atoms.index[0]) < fa.LEAN_ATOMS  # the lean path is taken
    lean = fa.self_compose(atoms, count)
    ref = _numpy_dense(atoms, count)
    np.testing.assert_array_equal(lean.index, ref.index)
    np.testing.assert_allclose(lean.mass, ref.mass, rtol=4 * fa.UNIT_ROUNDOFF * count * 8, atol=0)
    assert lean.loss_list == ref.loss.tolist() and lean.mass_list == lean.mass.tolist()
    assert (
        lean.eta == ref.eta and lean.loss_error == ref.loss_error and lean.p_inf == ref.p_inf == 0.0
    )
    assert lean.rel_error <= ref.rel_error
    exact = _exact_atoms(a, s, count)
    # the eta lattice: index * eta is the loss; each exact loss j a must sit on index * eta
    for i, m in zip(lean.index.tolist(), lean.mass.tolist()):
        j = round(i * lean.eta / a)
        assert abs(i * lean.eta - j * a) <= lean.loss_error + 1e-15
        assert (
            abs(mp.mpf(m) / exact[j] - 1) <= lean.rel_error
        )  # the charged relative round-off holds
    assert len(exact) == lean.index.size


@pytest.mark.parametrize("a, s, count", CASES)
@pytest.mark.parametrize("target", [1e-5, 1e-3, 0.2])
def test_lean_self_composition_epsilon_brackets_the_exact_one(a, s, count, target):
    atoms = fa.self_compose(fa.pair_atoms(*discrete_laplace_pair(a, s)), count)
    ref = _numpy_dense(fa.pair_atoms(*discrete_laplace_pair(a, s)), count)
    exact = _exact_epsilon(_exact_atoms(a, s, count), a, target)
    lower, upper = fa.pure_epsilon(atoms, target, False), fa.pure_epsilon(atoms, target, True)
    assert lower <= exact <= upper  # both directions certified
    assert upper - lower <= 1e-9 * max(1.0, float(exact))
    # the same answers as the numpy path's atoms, up to the last bits of the interval root
    assert lower == pytest.approx(fa.pure_epsilon(ref, target, False), rel=1e-11, abs=1e-12)
    assert upper == pytest.approx(fa.pure_epsilon(ref, target, True), rel=1e-11, abs=1e-12)


def test_a_long_self_composition_keeps_the_numpy_path():
    atoms = fa.pair_atoms(*discrete_laplace_pair(0.3, 1))
    long = fa.self_compose(
        atoms, 40
    )  # spans 80 > LEAN_ATOMS lattice points: the windowed convolution
    reference = _numpy_dense(atoms, 40)
    np.testing.assert_array_equal(long.index, reference.index)
    np.testing.assert_allclose(
        long.mass, reference.mass, rtol=long.rel_error, atol=0.0
    )  # within its charge


@pytest.mark.parametrize("a, s", [(0.092, 1), (0.3, 2), (0.05, 5), (2.0, 3)])
def test_a_lean_pairs_filled_lists_are_what_its_arrays_give(a, s):
    atoms = fa.pair_atoms(*discrete_laplace_pair(a, s))
    assert (
        "loss_list" in atoms.__dict__ and "mass_list" in atoms.__dict__
    )  # filled in by the lean path
    assert atoms.loss_list == (atoms.index * atoms.eta).tolist()
    assert atoms.mass_list == atoms.mass.tolist()
