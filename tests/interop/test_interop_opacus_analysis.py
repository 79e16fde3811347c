"""Opacus's own accountants, run beside hockeystick's on the same histories, without torch.

``import opacus`` imports torch, but Opacus's accountant analysis does not need it: the RDP analysis
(``opacus/accountants/analysis/rdp.py``) and the PRV analysis (``analysis/prv/``) import numpy and
scipy only, and ``RDPAccountant`` / ``PRVAccountant`` (``accountants/rdp.py``, ``prv.py``) reach torch
only through their base class ``IAccountant``, whose module imports the DP optimizer.  So the installed
files of ``opacus/accountants`` are loaded by path as a package of another name whose ``__init__`` is
not run, with ``IAccountant`` replaced by the one piece of state those accountants read (``history``,
a list of (noise_multiplier, sample_rate, steps)); every line of analysis that runs is Opacus's.
``pip install --no-deps opacus`` installs the files (CI does; docs/testing.md).

What is checked, for each history (Opacus's format, assigned to both libraries' accountants):

* Opacus's RDP epsilon is an upper bound too, so it is at least hockeystick's certified PLD lower
  bound; being looser than the PLD, it is at least the certified upper bound as well.
* hockeystick's RDP accountant (``rdp.SubsampledGaussianRDP``) at Opacus's orders equals Opacus's RDP
  numbers: the same exact integer-order sum and signed fractional-order series (Mironov, Talwar, Zhang
  2019), and the same conversion (Balle et al. 2020, Thm. 21); its default fractional series, the
  sum of magnitudes dp_accounting uses, is an upper bound on Opacus's.
* Opacus's PRV accountant (Gopi, Lee, Wutschitz 2021) states its estimate's error: with
  ``eps_error`` and ``delta_error``, the estimate at delta lies in
  [eps(delta + delta_error) - eps_error, eps(delta - delta_error) + eps_error], and its returned
  epsilon (the top of that range) is meant as an upper bound.  Both are checked against
  hockeystick's certified brackets at delta -/+ delta_error.

Skipped, saying why, where the Opacus files are not installed.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from hockeystick import rdp
from hockeystick.interop.opacus import HockeystickOpacusAccountant

History = list[tuple[float, float, int]]

# (history, delta): Opacus's MNIST example (sigma 1.1, batches of 256 of 60 000, 60 epochs of 1 / q
# steps), smaller rates and noises, a full batch (q = 1: the Gaussian), a history of two settings.
CASES: list[tuple[History, float]] = [
    ([(1.1, 256 / 60_000, 14_100)], 1e-5),
    ([(1.0, 0.01, 1_000)], 1e-5),
    ([(0.8, 0.02, 300)], 1e-6),
    ([(2.0, 0.1, 50)], 1e-5),
    ([(5.0, 1.0, 10)], 1e-5),
    ([(1.0, 0.01, 500), (0.8, 0.02, 300)], 1e-5),
]

# How far the two libraries' log A (RDP = log A / (alpha - 1)) may lie apart per step at order alpha:
# * the fractional-order series of both stop once a new term is below e^-30 (Opacus: absolutely;
#   hockeystick: of the total, as dp_accounting), so each may miss a tail of that size;
# * Opacus sums the terms (of size up to 1) in log space, each addition rounded: a few ulp per term
#   of absolute error in log A, which is ~q^2 at small q (hockeystick takes log1p of A - 1 there, exact
#   to rounding: at sigma 1.1, q = 256 / 60 000, order 2, Opacus is 2.4e-12 relative above the closed
#   form log1p(q^2 (e^(1 / sigma^2) - 1)), hockeystick within 1e-15);
# the alpha + 1 terms of an integer order, and about as many before a fractional series stops.
_SERIES_TAIL = 2.0 * math.exp(-30.0)
_ULPS_PER_TERM = 8.0 * np.finfo(float).eps
_ROUNDING = 1e-12  # relative: the composition and the conversion to epsilon


class _HistoryOnly:
    """Opacus's IAccountant as its RDP and PRV accountants use it: ``history``, set by ``__init__``."""

    def __init__(self) -> None:
        self.history: History = []


@pytest.fixture(scope="module")
def opacus_accountants() -> Iterator[types.SimpleNamespace]:
    """Opacus's ``RDPAccountant``, ``PRVAccountant`` and RDP analysis module, loaded from its files."""
    spec = importlib.util.find_spec("opacus")  # finds the package without running its __init__
    if spec is None or not spec.submodule_search_locations:
        pytest.skip(
            "the Opacus files are not installed: `pip install --no-deps opacus` (its accountant analysis "
            "needs numpy and scipy only) runs Opacus's RDP and PRV accountants beside hockeystick's"
        )
    directory = Path(next(iter(spec.submodule_search_locations))) / "accountants"
    name = "_opacus_accountants_without_torch"
    package_spec = importlib.util.spec_from_file_location(
        name, directory / "__init__.py", submodule_search_locations=[str(directory)]
    )
    assert package_spec is not None
    package = importlib.util.module_from_spec(
        package_spec
    )  # its __init__ (which imports torch) is not run
    base = types.ModuleType(f"{name}.accountant")
    base.IAccountant = _HistoryOnly
    sys.modules[name], sys.modules[base.__name__] = package, base
    try:
        yield types.SimpleNamespace(
            RDPAccountant=importlib.import_module(f"{name}.rdp").RDPAccountant,
            PRVAccountant=importlib.import_module(f"{name}.prv").PRVAccountant,
            rdp_analysis=importlib.import_module(f"{name}.analysis.rdp"),
        )
    finally:
        for module in [m for m in sys.modules if m == name or m.startswith(f"{name}.")]:
            del sys.modules[module]


def _bracket(history: History, delta: float) -> tuple[float, float]:
    accountant = HockeystickOpacusAccountant()
    accountant.history = list(history)
    return accountant.get_epsilon_bracket(delta)


def _opacus(accountant_class, history: History):
    accountant = accountant_class()
    accountant.history = list(history)
    return accountant


@pytest.mark.filterwarnings("ignore:Optimal order is the")  # Opacus's note on its order range
@pytest.mark.parametrize("history, delta", CASES)
def test_opacus_rdp_epsilon_is_above_the_certified_bracket(opacus_accountants, history, delta):
    lower, upper = _bracket(history, delta)
    opacus_rdp = _opacus(opacus_accountants.RDPAccountant, history).get_epsilon(delta)
    assert lower <= upper <= opacus_rdp


@pytest.mark.filterwarnings("ignore:Optimal order is the")
@pytest.mark.parametrize("history, delta", CASES)
def test_hockeystick_rdp_equals_opacus_rdp(opacus_accountants, history, delta):
    orders = np.asarray(opacus_accountants.RDPAccountant.DEFAULT_ALPHAS, dtype=float)
    theirs = sum(
        opacus_accountants.rdp_analysis.compute_rdp(
            q=q, noise_multiplier=sigma, steps=steps, orders=orders
        )
        for sigma, q, steps in history
    )
    ours = rdp.compose_rdp(
        *(
            rdp.SubsampledGaussianRDP(
                sigma=sigma,
                sampling_rate=q,
                rounds=steps,
                orders=orders,
                fractional_series="signed",
            ).rdp
            for sigma, q, steps in history
        )
    )
    steps_total = sum(steps for _, _, steps in history)
    per_step = (
        np.where(orders == np.floor(orders), 0.0, _SERIES_TAIL) + (orders + 1.0) * _ULPS_PER_TERM
    )
    tolerance = steps_total * per_step / (orders - 1.0) + _ROUNDING * theirs
    np.testing.assert_array_less(np.abs(ours - theirs), tolerance)

    theirs_epsilon = _opacus(opacus_accountants.RDPAccountant, history).get_epsilon(delta)
    ours_epsilon = rdp.rdp_to_epsilon(ours, orders, delta)
    assert ours_epsilon == pytest.approx(theirs_epsilon, rel=1e-12, abs=1e-12)

    # the default series (magnitudes summed, dp_accounting's) bounds Opacus's exact one from above
    default = rdp.compose_rdp(
        *(
            rdp.SubsampledGaussianRDP(sigma=sigma, sampling_rate=q, rounds=steps, orders=orders).rdp
            for sigma, q, steps in history
        )
    )
    assert np.all(default >= theirs - tolerance)


@pytest.mark.filterwarnings(
    "ignore:Optimal order is the", "ignore:divide by zero:RuntimeWarning"
)  # q = 1: log(1 - q)
@pytest.mark.parametrize("history, delta", CASES)
def test_opacus_prv_estimate_lies_within_its_stated_error_of_the_bracket(
    opacus_accountants, history, delta
):
    eps_error, delta_error = 0.01, delta / 1000  # PRVAccountant.get_epsilon's defaults
    prv = _opacus(opacus_accountants.PRVAccountant, history)
    composed = prv._get_dprv(eps_error=eps_error, delta_error=delta_error)
    _, estimate, _ = composed.compute_epsilon(delta, delta_error, eps_error)
    returned = prv.get_epsilon(delta, eps_error=eps_error, delta_error=delta_error)

    lower_at_delta, _ = _bracket(history, delta)
    lower_above, _ = _bracket(history, delta + delta_error)  # eps(delta + delta_error) >= this
    _, upper_below = _bracket(history, delta - delta_error)  # eps(delta - delta_error) <= this
    _, upper_further_below = _bracket(history, delta - 2 * delta_error)
    assert lower_above - eps_error <= estimate <= upper_below + eps_error
    # the returned epsilon is the estimate at delta - delta_error plus eps_error: by the same statement
    # at most eps(delta - 2 delta_error) + 2 eps_error, and at least eps(delta), an upper bound
    assert lower_at_delta <= returned <= upper_further_below + 2 * eps_error
