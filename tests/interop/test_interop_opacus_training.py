"""hockeystick's Opacus accountant inside a real (tiny) Opacus training loop, and its
``get_noise_multiplier`` against Opacus's own.

Skipped, saying why, where Opacus (and torch) do not import: CI's main run has no torch; its Opacus
step runs them with torch's CPU build (docs/testing.md, "Opacus").
"""

from __future__ import annotations

import pytest

opacus = pytest.importorskip(
    "opacus",
    reason="Opacus does not import (it needs torch): the training-loop and "
    "get_noise_multiplier comparisons with Opacus are skipped",
)
torch = pytest.importorskip("torch", reason="torch is not installed")

from opacus import PrivacyEngine  # noqa: E402
from opacus.accountants import PRVAccountant, RDPAccountant, create_accountant, register_accountant  # noqa: E402
from opacus.accountants.utils import get_noise_multiplier as opacus_noise_multiplier  # noqa: E402

from hockeystick.interop.opacus import (  # noqa: E402
    REGISTERED_NAMES,
    HockeystickOpacusAccountant,
    get_noise_multiplier,
    register_with_opacus,
)

DELTA = 1e-5


def _parts():
    torch.manual_seed(0)
    x, y = torch.randn(256, 5), torch.randint(0, 2, (256,))
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=32)
    model = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    return model, torch.optim.SGD(model.parameters(), lr=0.1), loader


def _fit(model, optimizer, loader, epochs: int) -> None:
    loss_fn = torch.nn.CrossEntropyLoss()
    for _ in range(epochs):
        for xb, yb in loader:
            optimizer.zero_grad()
            loss_fn(model(xb), yb).backward()
            optimizer.step()


def _train(accountant, epochs: int = 3, sigma: float = 1.1) -> PrivacyEngine:
    model, optimizer, loader = _parts()
    engine = PrivacyEngine()
    engine.accountant = accountant
    model, optimizer, loader = engine.make_private(
        module=model,
        optimizer=optimizer,
        data_loader=loader,
        noise_multiplier=sigma,
        max_grad_norm=1.0,
    )
    _fit(model, optimizer, loader, epochs)
    return engine


def test_privacy_engine_takes_the_accountant_by_assignment():
    engine = _train(HockeystickOpacusAccountant(accuracy=1e-4))
    acc = engine.accountant
    assert isinstance(acc, HockeystickOpacusAccountant)
    assert len(acc) == 3 * 8 and acc.history == [
        (1.1, 32 / 256, 24)
    ]  # one grouped entry, every step
    eps = engine.get_epsilon(DELTA)
    lo, up = acc.get_epsilon_bracket(DELTA)
    assert eps == up and up - lo <= 1e-4
    # The same steps through Opacus's accountants: RDP is an upper bound too (never below our lower
    # bound, and above our upper one); PRV is an estimate within its own error of the truth.
    rdp, prv = RDPAccountant(), PRVAccountant()
    rdp.history = list(acc.history)
    prv.history = list(acc.history)
    assert lo <= rdp.get_epsilon(DELTA) and up <= rdp.get_epsilon(DELTA)
    assert abs(prv.get_epsilon(DELTA) - up) <= 0.02 * up


def test_state_dict_survives_a_checkpoint_of_the_engine():
    engine = _train(HockeystickOpacusAccountant(), epochs=1)
    other = HockeystickOpacusAccountant()
    other.load_state_dict(engine.accountant.state_dict())
    assert other.history == engine.accountant.history
    assert other.get_epsilon(DELTA) == engine.accountant.get_epsilon(DELTA)


@pytest.mark.parametrize("target, rate, epochs", [(1.0, 0.01, 10), (4.0, 256 / 60000, 60)])
def test_get_noise_multiplier_against_opacus(target, rate, epochs):
    ours = get_noise_multiplier(
        target_epsilon=target, target_delta=DELTA, sample_rate=rate, epochs=epochs
    )
    steps = int(epochs / rate)
    check = HockeystickOpacusAccountant()
    check.history = [(ours, rate, steps)]
    assert check.get_epsilon(DELTA) <= target  # certified
    rdp_sigma = opacus_noise_multiplier(
        target_epsilon=target, target_delta=DELTA, sample_rate=rate, epochs=epochs, accountant="rdp"
    )
    prv_sigma = opacus_noise_multiplier(
        target_epsilon=target, target_delta=DELTA, sample_rate=rate, epochs=epochs, accountant="prv"
    )
    assert ours < rdp_sigma  # a tighter accountant needs less noise
    assert abs(ours - prv_sigma) <= 0.02 * prv_sigma  # PRV's estimate sits within its tolerance


@pytest.mark.parametrize("name", REGISTERED_NAMES)
def test_privacy_engine_builds_the_accountant_by_name(name):
    engine = PrivacyEngine(accountant=name)
    assert (
        type(engine.accountant) is HockeystickOpacusAccountant
        and engine.accountant.mechanism() == "hockeystick_pld"
    )


def test_make_private_with_epsilon_calibrates_with_the_registered_accountant():
    # Opacus's get_noise_multiplier asks create_accountant for the engine's mechanism ("hockeystick_pld") and
    # bisects on its certified epsilon to within epsilon_tolerance 0.01 below the target
    target = 3.0
    engine = PrivacyEngine(accountant="hockeystick_pld")
    model, optimizer, loader = _parts()
    model, optimizer, loader = engine.make_private_with_epsilon(
        module=model,
        optimizer=optimizer,
        data_loader=loader,
        target_epsilon=target,
        target_delta=DELTA,
        epochs=2,
        max_grad_norm=1.0,
    )
    _fit(model, optimizer, loader, epochs=2)
    acc = engine.accountant
    sigma = optimizer.noise_multiplier
    assert isinstance(acc, HockeystickOpacusAccountant) and acc.history == [(sigma, 1 / 8, 16)]
    assert (
        target - 0.01 <= engine.get_epsilon(DELTA) <= target
    )  # certified, and as tight as Opacus searches
    ours = get_noise_multiplier(
        target_epsilon=target, target_delta=DELTA, sample_rate=1 / 8, steps=16
    )
    assert (
        ours <= sigma <= ours * 1.01
    )  # our search's least sigma, Opacus's bisection a little above it


def test_register_with_opacus_is_idempotent_and_refuses_to_displace_another_class():
    assert register_with_opacus() == REGISTERED_NAMES  # already registered on import: harmless
    register_accountant("hockeystick", RDPAccountant, force=True)
    try:
        with pytest.raises(ValueError, match="'hockeystick' \\(RDPAccountant\\).*force=True"):
            register_with_opacus()
        assert type(create_accountant("hockeystick")) is RDPAccountant  # nothing was registered
        assert register_with_opacus(force=True) == REGISTERED_NAMES
    finally:
        register_accountant("hockeystick", HockeystickOpacusAccountant, force=True)
    assert all(
        type(create_accountant(name)) is HockeystickOpacusAccountant for name in REGISTERED_NAMES
    )
