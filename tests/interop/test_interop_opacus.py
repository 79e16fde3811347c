"""hockeystick.interop.opacus: the IAccountant contract, certified epsilon, get_noise_multiplier.

Opacus needs torch, so it is not a test dependency: the contract test checks the class against
IAccountant's method list (read from Opacus's opacus/accountants/accountant.py) without it, and the
tests that subclass-check against the real Opacus are skipped, saying so, where it does not import
(CI's Opacus step runs them: docs/testing.md, "Opacus").
"""

from __future__ import annotations

import inspect

import pytest

from hockeystick import pld
from hockeystick.interop import opacus as hs_opacus
from hockeystick.interop.opacus import HockeystickOpacusAccountant, get_noise_multiplier

# IAccountant (Opacus 1.4-1.6): abstract __init__, step(*, noise_multiplier, sample_rate),
# get_epsilon(delta, *args, **kwargs), __len__, classmethod mechanism(); concrete
# get_optimizer_hook_fn(sample_rate), state_dict(destination=None), load_state_dict(state_dict);
# attribute history (list of (noise_multiplier, sample_rate, steps)).
IACCOUNTANT_METHODS = {
    "step": ["self", "noise_multiplier", "sample_rate"],
    "get_epsilon": ["self", "delta", "args", "kwargs"],
    "__len__": ["self"],
    "get_optimizer_hook_fn": ["self", "sample_rate"],
    "state_dict": ["self", "destination"],
    "load_state_dict": ["self", "state_dict"],
}


def test_class_has_every_iaccountant_method_with_its_signature():
    for name, params in IACCOUNTANT_METHODS.items():
        assert (
            list(inspect.signature(getattr(HockeystickOpacusAccountant, name)).parameters)[
                : len(params)
            ]
            == params
        ), name
    step = inspect.signature(HockeystickOpacusAccountant.step).parameters
    assert step["noise_multiplier"].kind is inspect.Parameter.KEYWORD_ONLY
    assert isinstance(inspect.getattr_static(HockeystickOpacusAccountant, "mechanism"), classmethod)
    assert isinstance(HockeystickOpacusAccountant.mechanism(), str)
    assert HockeystickOpacusAccountant().history == []


def test_opacus_subclass_when_installed():
    opacus = pytest.importorskip(
        "opacus",
        reason="Opacus does not import (it needs torch): the real-IAccountant "
        "checks are skipped; the Opacus-free contract test above ran",
    )
    from opacus.accountants.accountant import IAccountant

    acc = HockeystickOpacusAccountant()
    assert isinstance(acc, IAccountant) and hs_opacus.OPACUS
    from opacus.accountants import RDPAccountant

    rdp = RDPAccountant()
    for a in (acc, rdp):
        for _ in range(100):
            a.step(noise_multiplier=1.0, sample_rate=0.01)
    # IAccountant documents __len__ as the number of steps; Opacus's own accountants return the
    # number of history entries (1 here).  We follow the documented meaning.
    assert acc.history == rdp.history and len(acc) == sum(n for _, _, n in rdp.history) == 100
    assert acc.get_epsilon(1e-5) <= rdp.get_epsilon(1e-5)
    assert opacus is not None


def test_steps_are_grouped_and_epsilon_is_certified():
    acc = HockeystickOpacusAccountant(accuracy=1e-4)
    for _ in range(500):
        acc.step(noise_multiplier=1.0, sample_rate=0.01)
    for _ in range(300):
        acc.step(noise_multiplier=0.8, sample_rate=0.02)
    acc.step(noise_multiplier=1.0, sample_rate=0.01)
    assert acc.history == [(1.0, 0.01, 500), (0.8, 0.02, 300), (1.0, 0.01, 1)] and len(acc) == 801
    lo, up = acc.get_epsilon_bracket(1e-5)
    ref = (
        pld.subsampled_gaussian(1.0, 0.01)
        .self_compose(501)
        .compose(pld.subsampled_gaussian(0.8, 0.02).self_compose(300))
        .epsilon(1e-5, bound="both")
    )
    assert lo <= ref[1] and ref[0] <= up and up - lo <= 1e-4 and acc.get_epsilon(1e-5) == up


def test_gaussian_steps_are_exact_and_edge_cases():
    from hockeystick import theta_epsilon

    acc = HockeystickOpacusAccountant()
    for _ in range(4):
        acc.step(noise_multiplier=2.0, sample_rate=1.0)
    lo, up = acc.get_epsilon_bracket(1e-5)
    assert lo <= theta_epsilon(1.0, 1e-5) <= up and up - lo < 1e-9
    with pytest.raises(ValueError, match=r"^noise_multiplier must be finite and > 0, got 0\.0$"):
        acc.step(
            noise_multiplier=0.0, sample_rate=0.1
        )  # no finite epsilon: refused, as in history and DPSGD
    assert HockeystickOpacusAccountant().get_epsilon(1e-5) == 0.0


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(noise_multiplier=-1.0, sample_rate=0.1),
        dict(noise_multiplier=1.0, sample_rate=1.5),
        dict(noise_multiplier=float("nan"), sample_rate=0.1),
        dict(noise_multiplier=1.0, sample_rate=float("nan")),
    ],
)
def test_bad_steps_are_refused(kwargs):
    with pytest.raises(ValueError):
        HockeystickOpacusAccountant().step(**kwargs)


def test_state_dict_round_trip_and_refusals():
    acc = HockeystickOpacusAccountant()
    for _ in range(10):
        acc.step(noise_multiplier=1.0, sample_rate=0.01)
    other = HockeystickOpacusAccountant()
    other.load_state_dict(acc.state_dict())
    assert other.history == acc.history and other.get_epsilon(1e-5) == acc.get_epsilon(1e-5)
    for bad in ({}, {"history": []}, {"history": [], "mechanism": "rdp"}):
        with pytest.raises(ValueError):
            other.load_state_dict(bad)


def test_optimizer_hook_steps_at_the_accumulated_rate():
    class Optim:
        noise_multiplier = 1.2
        accumulated_iterations = 2

    acc = HockeystickOpacusAccountant()
    acc.get_optimizer_hook_fn(0.01)(Optim())
    assert acc.history == [(1.2, 0.02, 1)]


def test_get_noise_multiplier_meets_the_target_and_is_tight():
    sigma = get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5, sample_rate=0.01, epochs=5)
    acc = HockeystickOpacusAccountant()
    acc.history = [(sigma, 0.01, 500)]
    assert acc.get_epsilon(1e-5) <= 2.0
    acc.history = [(sigma * (1 - 2e-3), 0.01, 500)]
    assert acc.get_epsilon_bracket(1e-5)[0] > 2.0 - 1e-2
    with pytest.raises(ValueError, match="EITHER"):
        get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5, sample_rate=0.01)


def test_register_with_opacus_names_what_it_needs():
    with pytest.raises(TypeError, match="force must be True or False"):
        hs_opacus.register_with_opacus(force=1)
    if hs_opacus.OPACUS:
        pytest.skip(
            "Opacus imports here: the registry itself is tested in test_interop_opacus_training.py"
        )
    with pytest.raises(
        ModuleNotFoundError,
        match="register_with_opacus needs Opacus.*HockeystickOpacusAccountant works",
    ):
        hs_opacus.register_with_opacus()
