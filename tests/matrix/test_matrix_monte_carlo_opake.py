"""Against opake-accounting's Monte Carlo PLD of balls-in-bins (``bnb_mc_pld``, a compiled rival), where it is installed.

opake builds the dominating pair's PLD (Choquette-Choo et al. 2024, Alg. 2) from Monte Carlo draws of the b bins'
projections and reports delta as the upper side of its own simultaneous band (``mc_failure_probability`` 1e-6,
``mc_resolution`` 1e-5 of unresolved mass). Its delta must lie above our estimate (less 4 standard errors) and below
our band (plus its resolution); composed with a Gaussian, the same. Skipped where opake is not installed; its Python
facade is bypassed (it fails to import on some CPython 3.11 patch releases: a slotted dataclass with ``weakref_slot``
over an ABC) and its compiled module loaded directly.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import pathlib
from types import ModuleType

import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick.matrix import BallsInBinsMonteCarlo, Banded, ImportanceSampledMonteCarlo


def _opake_native() -> ModuleType:
    """opake's compiled accounting module, or a skip."""
    spec = importlib.util.find_spec("opake")
    if spec is None or spec.submodule_search_locations is None:
        pytest.skip("opake-accounting is not installed")
    for location in spec.submodule_search_locations:
        found = sorted(
            (pathlib.Path(location) / "api" / "accounting" / "core").glob("opake_accounting*.so")
        )
        if found:
            loader = importlib.machinery.ExtensionFileLoader("opake_accounting", str(found[0]))
            module_spec = importlib.util.spec_from_file_location(
                "opake_accounting", found[0], loader=loader
            )
            assert module_spec is not None
            module = importlib.util.module_from_spec(module_spec)
            try:
                loader.exec_module(module)
            except ImportError as error:  # pragma: no cover - a wheel for another platform
                pytest.skip(f"opake's compiled module does not load here: {error}")
            return module
    pytest.skip("opake-accounting has no compiled accounting module here")


def _setting() -> tuple[np.ndarray, np.ndarray, int, float]:
    """The docs' small run: a 3-banded C over 16 rounds, 4 bins, z = 1.5; and the bins' Gram matrix."""
    c, _ = Banded([1.0, 0.5, 0.25]).matrix(16)
    b, z = 4, 1.5
    means = np.array([c[:, t::b].sum(axis=1) for t in range(b)])
    return c, means @ means.T, b, z


def test_opake_balls_in_bins_monte_carlo_pld_agrees_with_ours():
    opake = _opake_native()
    c, gram, b, z = _setting()
    theirs = opake.bnb_mc_pld(
        list(gram.ravel()), b, z, opake.DiscretizationConfig(discretization=1e-3)
    )
    ours = BallsInBinsMonteCarlo(
        strategy=c, noise_multiplier=z, cycle_length=b, draws=200_000, seed=0
    )
    band = ours.pld().band([0.5, 1.0, 2.0], beta=1e-3)
    for eps, estimate, error, upper in zip(
        band.epsilon, band.estimate, band.standard_error, band.upper
    ):
        value = theirs.delta_at(float(eps))
        assert estimate - 4 * error <= value <= upper + theirs.mc_resolution, (
            eps,
            value,
            estimate,
            upper,
        )


def test_opake_composed_with_a_gaussian_agrees_with_ours():
    opake = _opake_native()
    c, gram, b, z = _setting()
    config = opake.DiscretizationConfig(discretization=1e-3)
    theirs = opake.bnb_mc_pld(list(gram.ravel()), b, z, config).compose(
        opake.gaussian_pld(2.0, config)
    )
    ours = ImportanceSampledMonteCarlo(
        strategy=c,
        noise_multiplier=z,
        cycle_length=b,
        epsilon=1.5,
        stretch=1.0,
        draws=100_000,
        seed=1,
    )
    band = ours.pld().compose(pld.gaussian(2.0)).band([1.0, 2.0], beta=1e-3)
    for eps, estimate, error, upper in zip(
        band.epsilon, band.estimate, band.standard_error, band.upper
    ):
        value = theirs.delta_at(float(eps))
        assert estimate - 4 * error <= value <= upper + theirs.mc_resolution, (
            eps,
            value,
            estimate,
            upper,
        )
