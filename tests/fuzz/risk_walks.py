"""The argument walk's entries (``tests/test_fuzz_public_api.py``) for ``hockeystick.risk``: the trade-off curve,
TPR at FPR and the advantage of a composed Gaussian mechanism and of a DP-SGD run, and the calibration to a TPR at
an FPR.  The walk is over risk's own arguments (the accountants' constructors have walks of their own): each in
turn takes every walk value, the others valid; each call answers without NaN or refuses naming it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hockeystick import risk, training
from hockeystick.fdp.gaussian_mechanism import GaussianMechanism

GAUSSIAN = GaussianMechanism(sigma=1.0, rounds=4)
RUN = training.DPSGD(
    noise_multiplier=2.0,
    dataset_size=1000,
    batch_size=10,
    steps=3,
    value_discretization_interval=1e-2,
)

RISK_WALKS: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
    (
        "risk.tradeoff_curve",
        lambda **kw: risk.tradeoff_curve(GAUSSIAN, **kw),
        dict(alpha=0.01, bound="both", direction="symmetric", rtol=1e-6),
    ),
    (
        "risk.tpr_at_fpr",
        lambda **kw: risk.tpr_at_fpr(GAUSSIAN, **kw),
        dict(fpr=0.01, bound="upper", direction="symmetric", rtol=1e-6),
    ),
    ("risk.advantage", lambda **kw: risk.advantage(GAUSSIAN, **kw), dict(bound="upper")),
    (
        "risk.tpr_at_fpr of a DP-SGD run",
        lambda **kw: risk.tpr_at_fpr(RUN, **kw),
        dict(fpr=0.01, bound="both", direction="remove", rtol=1e-6),
    ),
    (
        "risk.calibrate_tpr",
        lambda **kw: risk.calibrate_tpr("gaussian", "sigma", **kw),
        dict(fpr=0.01, tpr=0.5, rounds=4, rtol=1e-6),
    ),
]
