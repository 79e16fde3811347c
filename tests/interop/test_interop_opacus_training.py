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
from opacus.accountants import PRVAccountant, RDPAccountant  # noqa: E402
from opacus.accountants.utils import get_noise_multiplier as opacus_noise_multiplier  # noqa: E402

from hockeystick.interop.opacus import HockeystickAccountant, get_noise_multiplier  # noqa: E402

DELTA = 1e-5


def _train(accountant, epochs: int = 3, sigma: float = 1.1) -> PrivacyEngine:
    torch.manual_seed(0)
    x, y = torch.randn(256, 5), torch.randint(0, 2, (256,))
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=32)
    model = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    engine = PrivacyEngine()
    engine.accountant = accountant
    model, optimizer, loader = engine.make_private(
        module=model, optimizer=optimizer, data_loader=loader, noise_multiplier=sigma, max_grad_norm=1.0
    )
    loss_fn = torch.nn.CrossEntropyLoss()
    for _ in range(epochs):
        for xb, yb in loader:
            optimizer.zero_grad()
            loss_fn(model(xb), yb).backward()
            optimizer.step()
    return engine


def test_privacy_engine_takes_the_accountant_by_assignment():
    engine = _train(HockeystickAccountant(accuracy=1e-4))
    acc = engine.accountant
    assert isinstance(acc, HockeystickAccountant)
    assert len(acc) == 3 * 8 and acc.history == [(1.1, 32 / 256, 24)]  # one grouped entry, every step
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
    engine = _train(HockeystickAccountant(), epochs=1)
    other = HockeystickAccountant()
    other.load_state_dict(engine.accountant.state_dict())
    assert other.history == engine.accountant.history
    assert other.get_epsilon(DELTA) == engine.accountant.get_epsilon(DELTA)


@pytest.mark.parametrize("target, rate, epochs", [(1.0, 0.01, 10), (4.0, 256 / 60000, 60)])
def test_get_noise_multiplier_against_opacus(target, rate, epochs):
    ours = get_noise_multiplier(target_epsilon=target, target_delta=DELTA, sample_rate=rate, epochs=epochs)
    steps = int(epochs / rate)
    check = HockeystickAccountant()
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
